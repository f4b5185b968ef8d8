"""A torch release named in a page's prose must be backed, checked on every build
(:mod:`sitelib.site.releases` is the rule): by an example of its section marked
``# requires: torch>=X.Y`` / ``torch<X.Y``, or by ``<!-- release: why -->``. A
problem is a warning naming the page and the line, so ``mkdocs build --strict``
fails and ``mkdocs serve`` shows it while the page is written."""

from __future__ import annotations

import logging
from pathlib import Path

from sitelib.site.releases import release_problems

log = logging.getLogger("mkdocs.hooks.releases")


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.endswith(".md"):
        snippets = Path(config.config_file_path).parent / "snippets"
        for problem in release_problems(markdown, f"docs/{page.file.src_uri}", snippets):
            log.warning(problem)
    return markdown
