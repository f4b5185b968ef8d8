"""Notebook pages (docs/notebooks/*.ipynb, rendered by mkdocs-jupyter).

- mkdocs-jupyter's scripts are dropped: a MathJax loader and a Mermaid loader (the
  site makes no request to another host; no notebook draws a diagram) and its copy
  control (a ``<clipboard-copy>`` element per cell, with its script, its icon and a
  hidden copy of the cell's text). The notebooks' formulas (left as ``$...$`` by the
  notebook renderer, which does not run the site's Markdown extensions) become MathML
  here, with the chapters' converter (:func:`sitelib.site.mathml.math_in_html`); each
  code cell's ``<pre>`` gets a ``<code>``, so Material gives it the chapters' copy
  button (tests/browser/test_copy.py checks what it copies).
- mkdocs-jupyter inlines ~600 kB of JupyterLab's CSS into every notebook page. It is
  dropped: ``docs/assets/notebook.css`` (a few kB, linked from the page's head) draws
  the few elements the notebooks use, in the site's palettes.
- Its figures are files beside the page, loaded as they near the screen
  (mkdocs-jupyter inlines them as base64).
- Its code, highlighted by mkdocs-jupyter, gets the chapters' lean spans
  (:func:`sitelib.site.codeblocks.lean.lean_html`), and a cell that shows printed
  output (``#>`` lines of a multi-process snippet) draws it as the chapters do
  (:func:`sitelib.site.codeblocks.output.output_html`).
- Its links into the torch reference name the build's release, as the chapters' do
  (:func:`sitelib.site.reference.versioned_html`).
- The chapter page already holds the notebook's text: keep it out of the search
  index.
- Links to the site: a committed notebook links to the site it was generated for
  (its metadata says which, :func:`sitelib.site.notebooks.linked_site`); the page
  and the ``.ipynb`` copy the site serves for download link to the site being built
  (``site_url``, which the Pages workflow sets from the repository), a fork's too.
- ``page.meta["notebook_links"]``: the download and "Open in Colab" links, drawn
  under the title by ``overrides/partials/content.html``. The notebook's own title
  cell is left out of the page (mkdocs.yml, ``remove_tag_config``); the page's title
  comes from the navigation.
"""

from __future__ import annotations

import base64
import logging
import re
from pathlib import Path

import nbformat
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from sitelib.site.codeblocks.lean import lean_html
from sitelib.site.codeblocks.output import output_html
from sitelib.site.mathml import math_in_html
from sitelib.site.notebooks import linked_site, notebook_links, with_links_to
from sitelib.site.reference import versioned_html

log = logging.getLogger("mkdocs.hooks.notebook_page")
SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S)  # a page's content has only its own
NOTEBOOK_STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.S)  # all of mkdocs-jupyter's CSS
COPY_CONTROL = re.compile(
    r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>\n?'
    r'|<div class="clipboard-copy-txt"[^>]*>[^<]*</div>\n?',
    re.S,
)
# nbconvert's cell ids ("cell-id=<id>"): Material names a code block's copy target
# after its closest id, in a CSS selector, where "=" is not allowed.
CELL_ID = re.compile(r'\bid="cell-id=([^"]*)"')
CELL_CODE = re.compile(r'(<div class="highlight-ipynb[^"]*"><pre>)(.*?)(</pre>)', re.S)
INLINE_SVG_IMAGE = re.compile(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([^"]+)"\s*/?>')
SVG_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)pt" height="([\d.]+)pt"')


def on_page_content(content, page, config, files):
    if not page.file.src_uri.startswith("notebooks/"):
        return content
    page.meta["search"] = {"exclude": True}
    # No edit or view button: the notebook is generated from the chapter's snippets,
    # which the page's links name (partials/notebook-links.html).
    page.edit_url = None
    page.meta["notebook_links"] = dict(
        notebook_links(page.file, page, config),
        page=None,
        css=get_relative_url("assets/notebook.css", page.url),
    )
    # The title cell is left out of the page, not out of mkdocs-jupyter's table of
    # contents: its entry (and Material's "skip to content" link) would point nowhere.
    if (
        page.toc.items
        and page.toc.items[0].level == 1
        and f'id="{page.toc.items[0].id}"' not in content
    ):
        page.toc.items = page.toc.items[0].children
    content = COPY_CONTROL.sub("", NOTEBOOK_STYLE.sub("", SCRIPT.sub("", content)))
    if 'class="jp-Mermaid' in content:
        raise PluginError(
            f"docs/{page.file.src_uri}: a Mermaid diagram; its loader fetches from another "
            "host, which no page of the site does (draw it as the chapters' figures are)"
        )
    content = CELL_CODE.sub(r"\1<code>\2</code>\3", lean_html(output_html(content)))
    content = CELL_ID.sub(r'id="cell-\1"', content)
    content = _figures_as_files(content, page, config)
    recorded = linked_site(nbformat.read(page.file.abs_src_path, as_version=4))
    if recorded != _site_url(config):
        content = content.replace(f'href="{recorded}', f'href="{_site_url(config)}')
    return versioned_html(math_in_html(content, f"docs/{page.file.src_uri}"))


def _figures_as_files(content: str, page, config) -> str:
    """Each figure (mkdocs-jupyter inlines it as a base64 ``data:`` URI, which neither
    compresses nor waits) becomes a file beside the page, loaded when it nears the
    screen, its size given so nothing moves when it arrives: the page a phone loads
    first is lighter by the figures' weight. The downloadable notebook keeps them."""
    figures = iter(range(1, 1 << 30))

    def to_file(m: re.Match) -> str:
        svg = base64.b64decode(m[2])
        name = f"{Path(page.file.src_uri).stem}-figure-{next(figures)}.svg"
        target = Path(config["site_dir"], page.url, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(svg)
        size = SVG_SIZE.search(svg.decode("utf-8"))
        width, height = (round(float(v) * 4 / 3) for v in size.groups()) if size else (None, None)
        dims = f' width="{width}" height="{height}"' if size else ""
        return f'<img alt="{m[1]}" src="{name}"{dims} loading="lazy" decoding="async">'

    return INLINE_SVG_IMAGE.sub(to_file, content)


def _site_url(config) -> str:
    return config["site_url"].rstrip("/") + "/"


def on_post_build(config):
    """The notebooks the site serves for download (mkdocs-jupyter's copies, next to
    each notebook page) link to this site."""
    elsewhere = set()
    for path in sorted(Path(config["site_dir"], "notebooks").glob("*/*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        if linked_site(notebook) != _site_url(config):
            elsewhere.add(linked_site(notebook))
        nbformat.write(with_links_to(notebook, _site_url(config)), path)
    if elsewhere:
        # Not a warning: a build for another address (a fork, the suite) is correct,
        # and readers get only the copies rewritten here (Open in Colab too: docs.yml
        # publishes them).
        log.info(
            "the committed notebooks link to %s; the site serves them linking to %s",
            ", ".join(sorted(elsewhere)),
            _site_url(config),
        )
