"""Pictures of the autograd graph, drawn from the examples at build time.

A page asks for one with an ``<!-- autograd-graph ... -->`` directive (see
docs/authors.md). sitelib.autograd_graph runs the snippet, walks the graph that
autograd recorded and has Graphviz lay it out; overrides/partials/autograd-graph.html
draws the figure. A picture that cannot be drawn stops the build, naming the page,
the line and the snippet.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from sitelib.autograd_graph import DrawingError, figures

_html: dict[str, str] = {}  # placeholder -> figure HTML, from on_page_markdown to on_page_content


def on_page_markdown(markdown, page, config, files):
    snippets = Path(config.config_file_path).parent / "snippets"
    try:
        found = figures(markdown, f"docs/{page.file.src_uri}", snippets)
    except DrawingError as err:
        raise PluginError(str(err)) from None
    if not found:
        return markdown
    template = config.theme.get_env().get_template("partials/autograd-graph.html")
    out, end = [], 0
    for m, figure in found:
        # The figure goes in after Markdown has run, so nothing in it is read as Markdown.
        key = f"<!-- autograd-graph-figure {page.file.src_uri} {figure['id']} -->"
        _html[key] = template.render(figure=figure).strip()
        indent = m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())]
        out += [markdown[end : m.start()], indent + key]
        end = m.end()
    return "".join(out) + markdown[end:]


def on_page_content(content, page, config, files):
    for key in [k for k in _html if f" {page.file.src_uri} " in k]:
        if key not in content:
            raise PluginError(f"docs/{page.file.src_uri}: Markdown dropped the figure {key}")
        content = content.replace(key, _html.pop(key))
    return content
