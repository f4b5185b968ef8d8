"""Pictures drawn from the examples at build time: the autograd graph, and plots.

A page asks for one with an ``<!-- autograd-graph ... -->`` or ``<!-- plot ... -->``
directive (see docs/authors.md); a plot is what the snippet draws with matplotlib,
captured from its run (``partials/plot.html`` draws it). :mod:`sitelib.site.pictures` runs the snippet, walks the graph
that autograd recorded and has Graphviz lay it out; ``partials/autograd-graph.html``
draws the figure, its caption and its legend, which take the directive's place in
the page's Markdown as a block of raw HTML (Markdown leaves such a block as it is).
A picture that cannot be drawn stops the build, naming the page, the line and the
snippet.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from sitelib.site.pictures import DrawingError, figures


def on_page_markdown(markdown, page, config, files):
    snippets = Path(config.config_file_path).parent / "snippets"
    try:
        found = figures(markdown, f"docs/{page.file.src_uri}", snippets)
    except DrawingError as err:
        raise PluginError(str(err)) from None
    if not found:
        return markdown
    env = config.theme.get_env()
    out, end = [], 0
    for m, figure in found:
        indent = m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())]
        drawn = env.get_template(figure["template"]).render(figure=figure).strip()
        block = "\n".join(indent + line if line.strip() else line for line in drawn.split("\n"))
        out += [markdown[end : m.start()], "\n", block, "\n"]
        end = m.end()
    return "".join(out) + markdown[end:]
