"""Notebook pages (docs/notebooks/*.ipynb, rendered by mkdocs-jupyter).

- mkdocs-jupyter adds a MathJax loader to every notebook page; the site makes no
  request to another host and the notebooks have no math, so it is dropped.
- mkdocs-jupyter inlines ~600 kB of CSS into every notebook page: it is written
  once to ``assets/notebook-<hash>.css`` and linked, so browsers cache it.
- The chapter page already holds the notebook's text: keep it out of the search
  index, which every page loads.
- ``page.meta["notebook_links"]``: the download and "Open in Colab" links, drawn
  by ``overrides/main.html`` (``partials/notebook-links.html``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mkdocs.utils import get_relative_url

from sitelib.notebooks import notebook_links

MATHJAX = re.compile(
    r'<script src="(?:[^"]*mathjax[^"]*)?">\s*</script>|<script type="text/x-mathjax-config">.*?</script>',
    re.S | re.I,
)
NOTEBOOK_STYLE = re.compile(r'<style type="text/css">(.*?)</style>', re.S)


def on_page_content(content, page, config, files):
    if not page.file.src_uri.startswith("notebooks/"):
        return content
    page.meta["search"] = {"exclude": True}
    css = "\n".join(NOTEBOOK_STYLE.findall(content))
    name = f"assets/notebook-{hashlib.sha256(css.encode()).hexdigest()[:10]}.css"
    target = Path(config["site_dir"]) / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, "utf-8")
    page.meta["notebook_links"] = dict(
        notebook_links(page.file, page, config), page=None, css=get_relative_url(name, page.url)
    )
    return NOTEBOOK_STYLE.sub("", MATHJAX.sub("", content))
