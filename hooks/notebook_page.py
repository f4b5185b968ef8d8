"""Notebook pages (docs/notebooks/*.ipynb, rendered by mkdocs-jupyter).

- mkdocs-jupyter adds a MathJax loader to every notebook page; the site makes no
  request to another host and the notebooks have no math, so it is dropped.
- mkdocs-jupyter inlines ~600 kB of JupyterLab's CSS into every notebook page. It is
  dropped: ``docs/assets/notebook.css`` (a few kB, linked from the page) draws the
  few elements the notebooks use, in the site's palettes.
- The chapter page already holds the notebook's text: keep it out of the search
  index, which every page loads.
- ``page.meta["notebook_links"]``: the download and "Open in Colab" links, drawn
  by ``overrides/main.html`` (``partials/notebook-links.html``).
"""

from __future__ import annotations

import re

from mkdocs.utils import get_relative_url

from sitelib.notebooks import notebook_links

MATHJAX = re.compile(
    r'<script src="(?:[^"]*mathjax[^"]*)?">\s*</script>|<script type="text/x-mathjax-config">.*?</script>',
    re.S | re.I,
)
NOTEBOOK_STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.S)  # all of mkdocs-jupyter's CSS


def on_page_content(content, page, config, files):
    if not page.file.src_uri.startswith("notebooks/"):
        return content
    page.meta["search"] = {"exclude": True}
    page.meta["notebook_links"] = dict(
        notebook_links(page.file, page, config),
        page=None,
        css=get_relative_url("assets/notebook.css", page.url),
    )
    return NOTEBOOK_STYLE.sub("", MATHJAX.sub("", content))
