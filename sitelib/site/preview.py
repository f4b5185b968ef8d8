"""The live preview (`make serve`, which runs ``mkdocs serve --dirty``): after an edit,
only the pages it changed are built again.

MkDocs' ``--dirty`` builds a page again when its Markdown file is newer than the HTML
it built; a page whose included snippet changed would be left as it was. Before each
build, :func:`mark_stale_pages` sets the built HTML's time back for every page that
includes a snippet newer than it, so MkDocs builds that page too. The first build
under ``serve`` is a whole one (nothing is built yet); a change to the navigation
needs a restart of `make serve` (other pages keep their old sidebar until then), and
search finds only the pages built since the preview started.

The state lives here, not in the hook: MkDocs loads its hook modules afresh for every
build of the preview, and tells only the first one how it was started.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from sitelib.site.layout import includes_in

_dirty = {"serving": False}


def started(command: str, dirty: bool) -> None:
    """MkDocs' ``on_startup``: whether this is a preview that builds only what changed.
    If so, the warnings it would print on every build about what it was asked to do
    (a dirty build; the redirect from ``/``) are dropped."""
    _dirty["serving"] = command == "serve" and dirty
    if command == "serve":
        logging.getLogger("mkdocs.livereload").addFilter(QuietExpected())
        logging.getLogger("mkdocs.commands.build").addFilter(QuietExpected())


def serving_dirty() -> bool:
    """Whether this process is the preview that builds only what changed."""
    return _dirty["serving"]


def mark_stale_pages(pages: list[tuple[Path, Path]], root: Path) -> list[Path]:
    """For each (source, built HTML) pair whose snippets changed after the HTML was
    built, set the HTML's time back, so ``--dirty`` builds it again; the sources marked."""
    if not _dirty["serving"]:
        return []
    marked = []
    for source, built in pages:
        if not built.exists() or source.suffix != ".md":
            continue
        made = built.stat().st_mtime
        snippets = [root / "snippets" / i.path for i in includes_in(source, root)]
        if any(s.exists() and s.stat().st_mtime > made for s in snippets):
            os.utime(built, (0, 0))
            marked.append(source)
    return marked


class QuietExpected(logging.Filter):
    """Drops two warnings the preview would print as a matter of course: the live-reload
    server's for the redirect from ``/`` to the site's own path
    (``/training-step-docs/``, from ``site_url``), and MkDocs' note on every dirty build
    that other pages' navigation may be stale (said above, and in CONTRIBUTING.md). Any
    other warning stays."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redirect = message.startswith('"GET / HTTP/') and message.endswith("code 302")
        return not (redirect or message.startswith("A 'dirty' build is being performed"))
