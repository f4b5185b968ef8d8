"""Prose that names a line ("line 21") must name one its block shows.

The build fails, naming the page and the line, when prose names a line number that
the block before it does not show: the block must have ``linenums``, and the line
must exist and not be folded (:func:`reference_problems`). Prose points at
highlighted lines or annotations instead. :class:`_LineReferences` runs the check on
each page as its author wrote it, before the snippets are included.

Checked by tests/test_codeblocks.py: test_prose_naming_a_line_its_block_does_not_show_fails,
test_prose_may_name_a_line_the_block_numbers and, on every page of the site,
test_no_page_names_a_line_it_does_not_show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown import Markdown
from markdown.preprocessors import Preprocessor

from sitelib.site.codeblocks.errors import CodeBlockError
from sitelib.site.markdown_scan import Fence, fences, page_file, prose_lines

LINE_REFERENCE = re.compile(
    r"\b[Ll]ines?\s+(?P<numbers>\d+(?:\s*(?:,|and|to|or|-|\u2013)\s*\d+)*)\b"
)


@dataclass
class Reference:
    line: int  # in the page
    numbers: list[int]


def references(text: str) -> list[Reference]:
    """Line numbers named in the prose of a page (not in code or front matter)."""
    found = []
    for number, line in prose_lines(text):
        for m in LINE_REFERENCE.finditer(line):
            values = [int(v) for v in re.findall(r"\d+", m["numbers"])]
            if re.search(r"to|-|\u2013", m["numbers"]) and len(values) == 2:
                values = list(range(values[0], values[1] + 1))
            found.append(Reference(number, values))
    return found


def reference_problems(text: str, page: str, snippets: Path | None) -> list[str]:
    """Each line number the prose names must be shown by the block before it."""
    problems = []
    blocks = fences(text)
    for ref in references(text):
        before = [f for f in blocks if f.end < ref.line]
        block = before[-1] if before else None
        shown = _shown_lines(block, snippets) if block else None
        if block is None or shown is None:
            problems.append(
                f"{page}:{ref.line}: names line {ref.numbers[0]}, but no block before it "
                "shows line numbers: point at highlighted lines (hl_lines) or annotation "
                'markers instead, or give the block linenums="1"'
            )
            continue
        missing = [n for n in ref.numbers if n not in shown]
        if missing:
            numbered = _shown_lines(block, snippets, folded=False)
            fold = block.option("fold")
            problems.append(
                f"{page}:{ref.line}: names line {missing[0]}, which the block on line "
                f"{block.start} does not show (it numbers lines {min(numbered)}-"
                f"{max(numbered)}{f' and folds {fold}' if fold else ''})"
            )
    return problems


def _shown_lines(block: Fence, snippets: Path | None, folded: bool = True) -> set[int] | None:
    """The line numbers a block shows, or None when it shows none."""
    linenums = block.option("linenums")
    if not linenums:
        return None
    start = int(linenums.split()[0])
    body = block.body
    include = re.fullmatch(r'\s*-+8<-+\s+"([^"]+)"\s*', body.strip()) if body.strip() else None
    if include and snippets is not None and (snippets / include[1]).is_file():
        body = (snippets / include[1]).read_text("utf-8")
    count = body.rstrip("\n").count("\n") + 1
    shown = set(range(start, start + count))
    if folded and (fold := block.option("fold")):
        m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", fold)
        if m:
            shown -= set(range(start + int(m[1]) - 1, start + int(m[2])))
    return shown


class _LineReferences(Preprocessor):
    """Runs before the snippets are included, on the page as its author wrote it."""

    def __init__(self, md: Markdown, snippets: Path | None) -> None:
        super().__init__(md)
        self.snippets = snippets

    def run(self, lines: list[str]) -> list[str]:
        page = page_file(self.md)
        # The page's own file where the builder names it: its line numbers, front matter
        # included (MkDocs has already taken the front matter out of ``lines``).
        text = page[1].read_text("utf-8") if page and page[1].is_file() else "\n".join(lines)
        problems = reference_problems(text, page[0] if page else "<text>", self.snippets)
        if problems:
            raise CodeBlockError("\n".join(problems))
        return lines
