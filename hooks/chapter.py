"""Chapter furniture: this hook computes it, templates under overrides/ draw it.

For each chapter (``sitelib.project.chapters``: a page in nav that includes a
snippet) it puts ``page.meta["chapter"]``: the torch version its examples ran
with in this build, the companion notebook's page and download, "Open in Colab"
and "Ask about this page" links. ``overrides/main.html`` draws them with
``partials/chapter-header.html`` (under the title) and
``partials/chapter-footer.html`` (at the end). For the home page it puts
``page.meta["progress"]``, the chapters in nav order, which
``partials/progress.html`` draws where the page says ``<!-- progress -->``.
Notebook pages are handled by ``hooks/notebook_page.py``.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote, urlencode

from mkdocs.utils import get_relative_url

from sitelib.notebooks import notebook_links
from sitelib.project import chapters

TORCH_VERSION = version("torch")


def _chapter_uris(config) -> set[str]:
    root = Path(config["config_file_path"]).parent
    docs = Path(config["docs_dir"])
    return {page.relative_to(docs).as_posix() for page in chapters(root)}


def on_page_context(context, page, config, nav):
    uri, chapter_uris = page.file.src_uri, _chapter_uris(config)
    if uri in chapter_uris:
        notebook = next(
            (p.file for p in nav.pages if p.file.src_uri == f"notebooks/{Path(uri).stem}.ipynb"),
            None,
        )
        ask = urlencode(
            {"title": f"Question about: {page.title}", "body": f"Page: {page.canonical_url}\n\n"},
            quote_via=quote,
        )
        page.meta["chapter"] = {
            "id": page.url,
            "torch_version": TORCH_VERSION,
            "notebook": notebook_links(notebook, page, config) if notebook else None,
            "ask": f"{config['repo_url'].rstrip('/')}/issues/new?{ask}",
        }
    elif uri == "index.md":
        page.meta["progress"] = [
            {"id": p.url, "title": p.title, "href": get_relative_url(p.url, page.url)}
            for p in nav.pages
            if p.file.src_uri in chapter_uris
        ]
    return context
