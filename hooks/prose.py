"""The rules of a page's prose, checked on every build:

- a torch release named in prose is backed (:mod:`sitelib.site.releases`): by an
  example of its section marked ``# requires: torch>=X.Y`` / ``torch<X.Y``, or by
  ``<!-- release: why -->``;
- the prose never says how the site checked something (:mod:`sitelib.site.provenance`):
  that goes into a ``<!-- checked: ... -->`` marker, which the page's "How this page
  was checked" box shows;
- next to an example that has not run (one that needs CUDA), an outcome is said as
  expected, not as seen, unless ``<!-- reasoned: why -->`` vouches for it
  (:mod:`sitelib.site.reasoned`).

A problem is a warning naming the page and the line, so ``mkdocs build --strict``
fails and ``mkdocs serve`` shows it while the page is written."""

from __future__ import annotations

import logging
from pathlib import Path

from sitelib.site.provenance import EXEMPT_KEY, provenance_problems
from sitelib.site.reasoned import reasoned_problems
from sitelib.site.releases import release_problems

log = logging.getLogger("mkdocs.hooks.prose")


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.endswith(".md"):
        snippets = Path(config.config_file_path).parent / "snippets"
        name = f"docs/{page.file.src_uri}"
        # MkDocs has taken the front matter off: a page about the checks says so in its meta.
        about_checks = bool(page.meta.get(EXEMPT_KEY))
        for problem in (
            release_problems(markdown, name, snippets)
            + ([] if about_checks else provenance_problems(markdown, name))
            + reasoned_problems(markdown, name, snippets)
        ):
            log.warning(problem)
    return markdown
