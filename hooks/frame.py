"""Each chapter's frame, checked on every build: "What you will learn" and "Read
first" open its first page, "In short" ends each of its pages
(:mod:`sitelib.site.frame` is the rule).

``on_page_content`` keeps the ids of each page's headings, as MkDocs' toc made them
(in :data:`sitelib.site.frame.HEADING_IDS`, which outlives a build of the preview);
``on_env``, once every page is converted, checks the chapters' pages against them. A
problem is a warning naming the page and the line, so ``mkdocs build --strict``
fails and ``mkdocs serve`` shows it while the page is written.
"""

from __future__ import annotations

import logging
from pathlib import Path

from sitelib.site import preview
from sitelib.site.frame import HEADING_IDS as IDS
from sitelib.site.frame import frame_problems
from sitelib.site.layout import Chapter

log = logging.getLogger("mkdocs.hooks.frame")


def _ids(items) -> set[str]:
    found = set()
    for item in items:
        found.add(item.id)
        found |= _ids(item.children)
    return found


def on_pre_build(config):
    # The preview (make serve) builds again only the pages an edit changed: the others
    # keep the ids their last build found (the first build is a whole one).
    if not preview.serving_dirty():
        IDS.clear()


def on_page_content(html, page, config, files):
    IDS[page.file.src_uri] = _ids(page.toc)
    return html


def on_env(env, config, files):
    chapters = [
        Chapter(c["number"], c["title"], tuple(c["pages"]))
        for c in config.extra.get("chapters", [])
    ]
    docs = Path(config.docs_dir)
    sources = {
        page: (docs / page).read_text("utf-8")
        for chapter in chapters
        for page in chapter.pages
        if (docs / page).is_file()
    }
    for problem in frame_problems(sources, chapters, IDS):
        log.warning(problem)
    return env
