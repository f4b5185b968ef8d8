"""Chapters: numbered from the navigation, with their furniture; templates draw it.

``on_nav`` finds the chapters with the project's one rule
(:func:`sitelib.site.layout.chapters_in`, on the navigation MkDocs built), numbers
them there ("3. Zeroing gradients and accumulation", in the sidebar, the page's
title and its ``<h1>``, and on the notebooks of the same chapters), and keeps them in
``config.extra["chapters"]`` for the other events and the templates.

Each page of a chapter gets ``page.meta["chapter"]`` (``on_page_context``): its
number, the part of the chapter it is, its notebook's links, "Ask about this page",
its verification record (:mod:`sitelib.site.records`: the devices and torch releases
its examples last passed on, read from ``extra.records``; none read: "no recorded
runs"; a release outside the supported range is shown apart, with an INFO line in
the build's log, so that a newer release's weekly run cannot fail a ``--strict``
build); on each page, where the headings that moved to its other pages went
(:mod:`sitelib.site.anchors`: an old link ``/memory/#a-moved-heading`` still
arrives). ``overrides/partials/content.html`` draws the header under the title and
the footer at the end. A chapter page's own ``# Title`` is left out of
its Markdown (``on_page_markdown``): the title comes from the navigation, numbered.
The home page gets ``page.meta["chapters"]``, the list that
``partials/progress.html`` draws. "Previous" and "Next" stay within a page's part
of the navigation: the chapters (with the home page), or the notebooks.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path
from urllib.parse import quote, urlencode

from mkdocs.structure.nav import Section
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from sitelib.site import records
from sitelib.site.anchors import moved_anchors
from sitelib.site.frame import HEADING_IDS
from sitelib.site.layout import CHAPTERS_SECTION, chapters_in
from sitelib.site.notebooks import notebook_links

log = logging.getLogger("mkdocs.hooks.chapter")
LEADING_H1 = re.compile(r"\A\s*#\s+[^\n]*\n")


def _as_data(items) -> list:
    """MkDocs' navigation as mkdocs.yml writes it, for :func:`chapters_in`."""
    data = []
    for item in items:
        if isinstance(item, Section):
            data.append({item.title: _as_data(item.children)})
        elif isinstance(item, Page):
            data.append({item.title: item.file.src_uri} if item.title else item.file.src_uri)
    return data


def on_nav(nav, config, files):
    found = chapters_in(_as_data(nav.items))
    # The chapter's own page, its notebook and its section (if it has sub-pages) carry
    # its number; a sub-page keeps its title.
    numbered = {c.notebook: c for c in found} | {c.page: c for c in found}
    for item in _walk(nav.items):
        if isinstance(item, Section):
            chapter = _section_chapter(item, found)
        else:
            chapter = numbered.get(getattr(getattr(item, "file", None), "src_uri", None))
        if chapter:
            item.title = f"{chapter.number}. {chapter.title}"
    config.extra["chapters"] = [
        {"number": c.number, "title": c.title, "pages": list(c.pages), "notebook": c.notebook}
        for c in found
    ]
    return nav


def _walk(items):
    for item in items:
        yield item
        if isinstance(item, Section):
            yield from _walk(item.children)


def _section_chapter(section: Section, found: list):
    pages = tuple(p.file.src_uri for p in _walk(section.children) if isinstance(p, Page))
    return next((c for c in found if c.pages == pages and len(pages) > 1), None)


def _chapter_of(page, config) -> dict | None:
    return next(
        (c for c in config.extra.get("chapters", []) if page.file.src_uri in c["pages"]), None
    )


def on_page_markdown(markdown, page, config, files):
    if _chapter_of(page, config):
        return LEADING_H1.sub("", markdown, count=1)
    return markdown


def _link(target, page) -> dict | None:
    return (
        {"title": target.title, "href": get_relative_url(target.url, page.url)} if target else None
    )


def _record(chapter: dict, config) -> list[dict]:
    """What the verification records say of this chapter's examples, per device."""
    root = Path(config.config_file_path).parent
    folder = Path(config.extra.get("records") or ".records")
    found = records.load(folder if folder.is_absolute() else root / folder)
    digests = [
        records.source_hash(source)
        for page in chapter["pages"]
        for source in records.page_sources(root / "docs" / page, root)
    ]
    torch = config.extra.get("torch") or {}
    verified = records.latest(found, digests, torch["oldest"], torch["newest_verified"])
    for v in verified:
        if not v.supported:
            log.info(
                "verification record: torch %s (%s) is outside the supported range %s to %s; "
                "the chapters show it apart",
                v.release,
                v.device,
                torch["oldest"],
                torch["newest_verified"],
            )
    return records.summary(verified) if found else []


def _inline_code(text: str) -> str:
    """Front matter's plain text as HTML, with its `code` spans."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _group(page) -> str:
    """A page's part of the navigation: its top-level section; the home page goes
    with the chapters."""
    item = page
    while item.parent is not None:
        item = item.parent
    title = item.title if isinstance(item, Section) else None
    return CHAPTERS_SECTION if title is None else title


def on_page_context(context, page, config, nav):
    for neighbour in ("previous_page", "next_page"):
        other = getattr(page, neighbour)
        if other is not None and _group(other) != _group(page):
            setattr(page, neighbour, None)
    chapters = config.extra.get("chapters", [])
    pages = {p.file.src_uri: p for p in nav.pages}
    chapter = _chapter_of(page, config)
    if chapter:
        part = chapter["pages"].index(page.file.src_uri) + 1
        main = pages[chapter["pages"][0]]
        notebook = pages.get(chapter["notebook"])
        # The chapter's own page is titled with its number; a sub-page with its own.
        heading = f"{chapter['number']}. {chapter['title']}" if part == 1 else page.title
        ask = urlencode(
            {"title": f"Question about: {heading}", "body": f"Page: {page.canonical_url}\n\n"},
            quote_via=quote,
        )
        page.meta["chapter"] = {
            "id": main.url,
            "heading": heading,
            "number": chapter["number"],
            "count": len(chapters),
            "part": part,
            "parts": len(chapter["pages"]),
            "last_part": part == len(chapter["pages"]),
            "next_part": _link(pages.get(chapter["pages"][part]), page)
            if part < len(chapter["pages"])
            else None,
            "last_chapter": chapter["number"] == len(chapters),
            "notebook": notebook_links(notebook.file, page, config)
            if notebook and part == 1
            else None,
            "ask": f"{config['repo_url'].rstrip('/')}/issues/new?{ask}",
            "record": _record(chapter, config),
            # A heading that moved to another page of the chapter: its old link still
            # arrives (any page of the chapter, the first since the split into parts,
            # the others since sections moved between parts).
            "moved": {
                anchor: get_relative_url(pages[other].url, page.url)
                for anchor, other in moved_anchors(
                    page.file.src_uri,
                    [p for p in chapter["pages"] if p != page.file.src_uri],
                    HEADING_IDS,
                ).items()
            },
        }
    elif page.file.src_uri == "index.md":
        page.meta["chapters"] = [
            {
                "id": pages[c["pages"][0]].url,
                "number": c["number"],
                "title": c["title"],
                "summary": _inline_code(pages[c["pages"][0]].meta.get("summary", "")),
                "href": get_relative_url(pages[c["pages"][0]].url, page.url),
            }
            for c in chapters
        ]
    return context
