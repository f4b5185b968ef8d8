"""What the site's search holds: prose, a code block's title and the names it uses,
never the code's text (sitelib/site/codeblocks/search.py, ``searchable``).

Read by the test of the built index (tests/test_site.py) and by the browser's search
test, which reads the previews Material draws (tests/browser/test_search.py).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from sitelib.site.codeblocks.output import LABEL_TEXT
from sitelib.site.layout import ROOT, snippet_files

# The index before code blocks left it (search/search_index.json of main at 79a34fe,
# 189 of its 200 entries holding whole code blocks): 617,919 bytes. As content grows,
# the index must stay at most half of what the same pages make with their code.
FOLD_SUMMARY = re.compile(r"Set-up, lines \d+\u2013\d+: ")
OUTPUT_LABEL = re.compile(rf"{LABEL_TEXT.strip()}\s*#>")


def plain(text: str) -> str:
    """An index entry's or a preview's text without its markup."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def code_pairs(root: Path = ROOT) -> dict[tuple[str, str], str]:
    """Every two consecutive non-blank lines of every snippet (code a block shows,
    which prose never holds: prose has no line breaks), to the snippet's name."""
    pairs = {}
    for path in snippet_files(root):
        lines = [line.strip() for line in path.read_text("utf-8").splitlines() if line.strip()]
        for one, two in zip(lines, lines[1:], strict=False):
            if len(one + two) >= 24:
                pairs[(one, two)] = path.relative_to(root).as_posix()
    return pairs


def code_in(text: str, pairs: dict[tuple[str, str], str]) -> list[str]:
    """The snippets whose code ``text`` holds as code: two consecutive lines."""
    lines = [line.strip() for line in plain(text).splitlines() if line.strip()]
    found = {pairs[pair] for pair in zip(lines, lines[1:], strict=False) if pair in pairs}
    return sorted(found)


def text_problems(where: str, text: str, pairs: dict[tuple[str, str], str]) -> list[str]:
    """Code text, a fold's summary or an output label in one entry or preview."""
    problems = [f"{where}: holds the code of {name}" for name in code_in(text, pairs)]
    shown = plain(text)
    if m := FOLD_SUMMARY.search(shown):
        problems.append(f"{where}: holds a fold's summary: {shown[m.start() : m.start() + 60]!r}")
    if m := OUTPUT_LABEL.search(shown):
        problems.append(f"{where}: holds an output label: {shown[m.start() : m.start() + 40]!r}")
    return problems


def indexed_with_code(page: str, location: str = "") -> list[dict]:
    """A built page's search entries as Material's parser makes them when its code
    blocks are not marked ``data-search-exclude``: the index as it was before, for the
    same content."""
    from material.plugins.search.plugin import Parser

    parser = Parser()
    parser.feed(page.replace("<pre data-search-exclude", "<pre"))
    parser.close()
    return [
        {
            "location": f"{location}#{s.id}" if s.id else location,
            "title": "".join(s.title),
            "text": "".join(s.text),
        }
        for s in parser.data
    ]


def size_with_code(site: Path, raw: str) -> int:
    """How large the index's entries would be with every indexed page's code in them."""
    pages = dict.fromkeys(e["location"].split("#")[0] for e in json.loads(raw)["docs"])
    entries = [
        entry
        for location in pages
        if (site / location / "index.html").is_file()
        for entry in indexed_with_code(
            (site / location / "index.html").read_text("utf-8"), location
        )
    ]
    return len(json.dumps({"docs": entries}).encode("utf-8"))


def index_problems(raw: str, pairs: dict[tuple[str, str], str], with_code: int) -> list[str]:
    """The built search index (search_index.json's text): its size, at most half of
    ``with_code`` (the same pages indexed with their code, :func:`size_with_code`; the
    whole site's was 617,919 bytes before, at ten chapters), and each entry's text and
    title."""
    problems = []
    size = len(raw.encode("utf-8"))
    if size > with_code // 2:
        problems.append(
            f"search_index.json is {size:,} bytes, more than half of the {with_code:,} the "
            f"same pages make with their code (at most {with_code // 2:,})"
        )
    for entry in json.loads(raw)["docs"]:
        where = f"search_index.json entry {entry['location'] or '(home)'}"
        problems += text_problems(where, entry["title"] + "\n" + entry["text"], pairs)
    return problems
