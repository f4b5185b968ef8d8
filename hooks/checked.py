"""Each chapter page's "How this page was checked" box: the data, for
``overrides/partials/checked.html`` to draw (:mod:`sitelib.site.checked` says what
goes in it and why).

``on_page_markdown`` reads the page's markers and its examples (the snippets it
includes, once each: an excerpt of the complete script counts as its file);
``on_page_context`` links each marker to its section's heading, from the ids the
page's table of contents gave them, and puts the box in ``page.meta["checked"]``.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from sitelib.site import records, snippets
from sitelib.site.checked import example_facts, page_notes
from sitelib.site.layout import includes_in

_PAGES: dict[str, dict] = {}


def _records(config) -> list:
    root = Path(config.config_file_path).parent
    folder = Path(config.extra.get("records") or ".records")
    return records.load(folder if folder.is_absolute() else root / folder)


def _chapter_pages(config) -> set[str]:
    return {p for c in config.extra.get("chapters", []) for p in c["pages"]}


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri not in _chapter_pages(config) or not page.file.abs_src_path:
        return markdown
    root = Path(config.config_file_path).parent
    paths = list(dict.fromkeys(i.path for i in includes_in(Path(page.file.abs_src_path), root)))
    sources = {path: (root / "snippets" / path).read_text("utf-8") for path in paths}
    cuda = [Path(p).name for p, s in sources.items() if snippets.requires_cuda(s)]
    tied = [
        (Path(p).name, snippets.needs_torch(wanted))
        for p, s in sources.items()
        if (wanted := snippets.requires_torch(s))
    ]
    torch = config.extra.get("torch") or {}
    found = _records(config)
    digests = [records.source_hash(s) for s in sources.values()]
    verified = records.latest(found, digests, torch["oldest"], torch["newest_verified"])
    ran = records.summary(verified) if found and digests else []
    _PAGES[page.file.src_uri] = {
        "examples": example_facts(len(sources), cuda, tied, ran),
        "notes": page_notes(markdown),
    }
    return markdown


def _html(text: str) -> str:
    """A marker's or a heading's text as HTML, with its `code` spans."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _ids(items) -> list[str]:
    found = []
    for item in items:
        if item.level > 1:
            found.append(item.id)
        found += _ids(item.children)
    return found


def on_page_context(context, page, config, nav):
    data = _PAGES.get(page.file.src_uri)
    if data is None:
        return context
    ids = _ids(page.toc)
    notes: list[dict] = []  # one entry per section, its notes in page order
    for note in data["notes"]:
        if not notes or notes[-1]["heading"] != note.heading:
            href = f"#{ids[note.heading]}" if 0 <= note.heading < len(ids) else None
            notes.append(
                {"heading": note.heading, "section": _html(note.section), "href": href, "texts": []}
            )
        notes[-1]["texts"].append(_html(note.text))
    if data["examples"] or notes:
        page.meta["checked"] = {
            "examples": [_html(line) for line in data["examples"]],
            "notes": notes,
        }
    return context
