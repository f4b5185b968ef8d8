""" "Report a problem" on every page: ``page.meta["report"]``, the issue form's address
filled in with the page's (:func:`sitelib.site.report.report_url`), drawn by
``overrides/partials/report.html``. Each code block's own link is drawn by the
Markdown extension (sitelib/site/report.py)."""

from __future__ import annotations

from sitelib.site.report import report_url


def on_page_context(context, page, config, nav):
    title = page.meta.get("chapter", {}).get("heading") or page.title or config.site_name
    page.meta["report"] = report_url(config.repo_url, page.canonical_url, str(title))
    return context
