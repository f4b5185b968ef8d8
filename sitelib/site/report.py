""" "Report a problem": a plain link to the repository's issue form, filled in.

Every page (``hooks/report.py``, drawn by ``overrides/partials/report.html``) and every
code block that shows a snippet (this Markdown extension, ``sitelib.site.report`` in
mkdocs.yml, called by :mod:`sitelib.site.codeblocks.extension`) link to
``<repository>/issues/new?template=report-a-problem.yml&...``, whose query
parameters fill in the form's fields (GitHub issue forms take ``<field id>=value``):
the page's address, the block's file, the torch release the site was built with and
the site's commit. The form (``.github/ISSUE_TEMPLATE/report-a-problem.yml``) asks the
reader for the rest: their torch release, device, what they ran and what they saw.

The repository is the one the site is built from (``REPO_URL``, as the other links:
mkdocs.yml's ``repo_url``), so a fork's site reports to the fork. A link is a plain
``<a href>``: nothing is fetched from another host until the reader follows it.
"""

from __future__ import annotations

import functools
import html
import os
import subprocess
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import yaml
from markdown import Markdown
from markdown.extensions import Extension

from sitelib.site.layout import ROOT, includes_in, page_url
from sitelib.site.markdown_scan import page_file

TEMPLATE = "report-a-problem.yml"
FORM = Path(".github") / "ISSUE_TEMPLATE" / TEMPLATE
# The parameters a link sets besides the form's fields.
NOT_FIELDS = {"template", "title"}


@functools.cache
def site_commit(root: Path = ROOT) -> str:
    """The commit the site is built from: GitHub Actions' ``GITHUB_SHA``, else
    ``git rev-parse HEAD`` of the checkout, else "unknown"."""
    if sha := os.environ.get("GITHUB_SHA"):
        return sha
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
    except OSError:
        return "unknown"
    return result.stdout.strip() if result.returncode == 0 else "unknown"


def site_torch() -> str:
    """The torch release the site is built with (the installed one)."""
    import torch

    return torch.__version__


def report_url(repo_url: str, page: str, title: str, block: str | None = None) -> str:
    """The issue form's address, with the page, block, torch release and commit."""
    fields = {"template": TEMPLATE, "title": f"Problem: {title}", "page": page}
    if block:
        fields["block"] = block
    fields |= {"site-torch": site_torch(), "site-commit": site_commit()}
    return f"{repo_url.rstrip('/')}/issues/new?{urlencode(fields, quote_via=quote)}"


def form_field_ids(root: Path = ROOT) -> set[str]:
    """The ids of the issue form's fields."""
    form = yaml.safe_load((root / FORM).read_text("utf-8"))
    return {item["id"] for item in form.get("body", []) if "id" in item}


def parameter_problems(url: str, root: Path = ROOT) -> list[str]:
    """Each query parameter of a report link that names no field of the form (GitHub
    would drop its value), and a link that opens another form or none."""
    query = dict(parse_qsl(urlsplit(url).query))
    fields = form_field_ids(root)
    problems = [
        f"{url}: the parameter {name!r} names no field of {FORM.as_posix()} "
        f"(its ids: {', '.join(sorted(fields))})"
        for name in query
        if name not in fields | NOT_FIELDS
    ]
    if query.get("template") != TEMPLATE:
        problems.append(f"{url}: opens {query.get('template')!r}, not {TEMPLATE}")
    return problems


# -- a code block's link (drawn by sitelib.site.codeblocks.extension) ----------------------
class ReportExtension(Extension):
    def __init__(self, **kwargs) -> None:
        self.config = {
            "repo_url": ["", "the repository (mkdocs.yml repo_url: REPO_URL)"],
            "site_url": ["", "the site's address (mkdocs.yml site_url: SITE_URL)"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        md.registerExtension(self)


def block_link(md: Markdown, title: str | None) -> str:
    """The HTML of a snippet's "Report a problem" link (empty when the block shows no
    file, or the extension is not configured)."""
    extension = next((e for e in md.registeredExtensions if isinstance(e, ReportExtension)), None)
    if extension is None or not title or not extension.getConfig("repo_url"):
        return ""
    page = page_file(md)
    address, block = extension.getConfig("site_url").rstrip("/") + "/", title
    if page is not None:
        docs = page[1].resolve()
        root = _docs_root(docs)
        if root is not None:
            address += page_url(docs.relative_to(root).as_posix())
            found = [i.path for i in includes_in(docs) if Path(i.path).name == title]
            block = f"snippets/{found[0]}" if found else title
    url = report_url(extension.getConfig("repo_url"), address, block, block)
    return (
        f'<p class="block-report"><a href="{html.escape(url)}">Report a problem'
        f'<span class="visually-hidden"> with {html.escape(title)}</span></a></p>'
    )


def _docs_root(path: Path) -> Path | None:
    return next((p for p in path.parents if p.name == "docs"), None)


def makeExtension(**kwargs) -> ReportExtension:  # noqa: N802 (Python-Markdown's entry point)
    return ReportExtension(**kwargs)
