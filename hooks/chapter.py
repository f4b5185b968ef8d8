"""Chapter furniture, added at build time so no page repeats it by hand.

A chapter is a page with a companion notebook (docs/notebooks/<page>.ipynb, made by
tools/notebooks.py). Each chapter gets, under its title: the torch version its
examples were executed with in this build, the notebook's page, its download and an
"Open in Colab" link derived from ``repo_url``; and at its end a "Mark this chapter
complete" control and an "Ask about this page" link. Notebook pages get the same
links and lose the MathJax loader that mkdocs-jupyter adds (no request to a CDN).
The home page's ``<!-- progress -->`` marker becomes the progress summary.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote, urlencode

from mkdocs.utils import get_relative_url

TORCH_VERSION = version("torch")
H1 = re.compile(r"^# (.+)$", re.M)
MATHJAX = re.compile(
    r'<script src="(?:[^"]*mathjax[^"]*)?">\s*</script>|<script type="text/x-mathjax-config">.*?</script>',
    re.S | re.I,
)
NOTEBOOK_STYLE = re.compile(r'<style type="text/css">(.*?)</style>', re.S)
_notebook_css: dict[str, str] = {}  # site path -> CSS, written once in on_post_build


def _notebook(page, files):
    stem = page.file.src_uri.removesuffix(".md").removesuffix(".ipynb").split("/")[-1]
    return files.get_file_from_path(f"notebooks/{stem}.ipynb")


def _colab(config, notebook) -> str:
    repo = config["repo_url"].rstrip("/").removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repo}/blob/main/docs/{notebook.src_uri}"


def _links(page, notebook, config, on_notebook_page: bool) -> str:
    ipynb = get_relative_url(notebook.url + notebook.src_uri.split("/")[-1], page.url)
    items = [
        f'<a href="{ipynb}" download>Download the notebook (.ipynb, with outputs)</a>',
        f'<a href="{_colab(config, notebook)}">Open in Colab</a>',
    ]
    if not on_notebook_page:
        items.insert(
            0,
            f'<a href="{get_relative_url(notebook.url, page.url)}">Run this chapter as a notebook</a>',
        )
    return '<p class="chapter-links">' + " · ".join(items) + "</p>"


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == "index.md" and "<!-- progress -->" in markdown:
        return markdown.replace("<!-- progress -->", _progress_summary(config, files, page))
    notebook = _notebook(page, files)
    if notebook is None or page.file.src_uri.startswith("notebooks/"):
        return markdown
    m = H1.search(markdown)
    title = m.group(1).replace("`", "") if m else page.title
    header = (
        f'<p class="last-verified">Examples last verified with torch {TORCH_VERSION} '
        "in this build.</p>\n" + _links(page, notebook, config, on_notebook_page=False)
    )
    ask = (
        config["repo_url"].rstrip("/")
        + "/issues/new?"
        + urlencode(
            {
                "title": f"Question about: {title}",
                "body": f"Page: {config['site_url']}{page.url}\n\n",
            },
            quote_via=quote,
        )
    )
    footer = (
        "\n\n---\n\n"
        f'<div class="chapter-footer" markdown="0">'
        f'<button type="button" class="md-button chapter-complete" data-chapter-complete="{page.url}" '
        f'aria-pressed="false">Mark this chapter complete</button> '
        f'<a class="md-button ask-link" href="{html.escape(ask)}">Ask about this page</a>'
        "</div>\n"
    )
    if m:
        markdown = markdown[: m.end()] + "\n\n" + header + "\n" + markdown[m.end() :]
    return markdown + footer


def on_page_content(content, page, config, files):
    if not page.file.src_uri.startswith("notebooks/"):
        return content
    content = MATHJAX.sub("", content)
    # The chapter page already holds this text: keep the search index (loaded on every page) small.
    page.meta["search"] = {"exclude": True}
    # mkdocs-jupyter inlines ~600 kB of CSS into every notebook page: serve it once, cached.
    css = "\n".join(NOTEBOOK_STYLE.findall(content))
    content = NOTEBOOK_STYLE.sub("", content)
    name = f"assets/notebook-{hashlib.sha256(css.encode()).hexdigest()[:10]}.css"
    _notebook_css[name] = css
    link = f'<link rel="stylesheet" href="{get_relative_url(name, page.url)}">'
    notebook = files.get_file_from_path(page.file.src_uri)
    return link + _links(page, notebook, config, on_notebook_page=True) + content


def on_post_build(config):
    for name, css in _notebook_css.items():
        target = Path(config["site_dir"]) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, "utf-8")


def _progress_summary(config, files, page) -> str:
    chapters = []
    for file in files.documentation_pages():
        if file.src_uri.startswith("notebooks/") or _notebook(file.page, files) is None:
            continue
        chapters.append(
            {
                "id": file.url,
                "title": file.page.title or file.name,
                "href": get_relative_url(file.url, page.url),
            }
        )
    data = html.escape(json.dumps(chapters))
    return (
        f'<div class="progress-summary" data-progress-summary="{data}" markdown="0">'
        '<p class="progress-count" aria-live="polite">Progress is kept in this browser.</p>'
        '<ul class="progress-list"></ul>'
        '<button type="button" class="md-button" data-progress-reset>Reset progress</button>'
        "</div>"
    )
