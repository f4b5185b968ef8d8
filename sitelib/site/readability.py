"""How a page reads: the length of its sentences, measured over its prose.

A learner reads a page at the pace of its sentences. The budget, for every chapter
page: a mean of at most :data:`MEAN` words a sentence, and at most :data:`LONG_SHARE`
of its sentences over :data:`LONG` words. The training loop page, which reads easily,
is the model.

What counts is the prose a reader reads on the page, taken from its Markdown: the
paragraphs, list items, admonitions (a rule, a tip, "In short") and a code block's
annotations. Left out: front matter, fences, HTML comments (the markers), headings,
tables, admonition and tab titles, includes and link definitions; the boxes the
build draws (header, footer, "How this page was checked") are not in the Markdown at
all. A code span or a formula counts as one word; a link counts as its text.

A sentence ends at ``.``, ``?`` or ``!`` before a capital letter, a code span or an
opening bracket (not after "e.g." and the like), and at the end of a paragraph or
list item. :func:`page_stats` measures a page; :func:`budget_problems` says which
pages are over the budget, naming the page and its longest sentence's line;
``python -m sitelib.site.readability [pages]`` prints the table of every chapter
page (``make bench ARGS=prose`` too). ``tests/test_site.py`` holds every chapter page
to the budget and self-tests the measure on a page of known sentences.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from sitelib.site.layout import INCLUDE, ROOT, chapters
from sitelib.site.markdown_scan import HTML_COMMENT, code_lines

MEAN = 20.0  # words a sentence, at most, on average over a page
LONG = 35  # a sentence over this many words is long
LONG_SHARE = 0.10  # at most this share of a page's sentences may be long

SKIPPED_LINE = re.compile(
    r"^\s*(?:#{1,6}\s|\||[!?]{3}\+?\s|={3}[!+]?\s|\*\[[^\]]+\]:|\[\^?[^\]]+\]:\s|\{[^}]*\}\s*$|<[/a-z])"
)
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
CODE_SPAN = re.compile(r"(`+).+?\1")
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\s][^$]*?\$")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)(?:\{[^}]*\})?|\[([^\]]*)\]\[[^\]]*\]")
ATTRS = re.compile(r"\{[:#.][^}]*\}|\{ [^}]*\}")
TAGS = re.compile(r"<[^>]+>")
ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|Fig|fig|No)\.$")
END = re.compile(r"[.?!][\"')\]*_]*\s+(?=[A-Z0-9`(\[\"*_]|CODE\b)")
WORD = re.compile(r"[\w']*[A-Za-z0-9][\w'.,/%-]*")


@dataclass(frozen=True)
class Sentence:
    line: int  # 1-based line of the page where it starts
    words: int
    text: str


@dataclass(frozen=True)
class PageStats:
    page: str
    sentences: tuple[Sentence, ...]

    @property
    def words(self) -> int:
        return sum(s.words for s in self.sentences)

    @property
    def mean(self) -> float:
        return self.words / len(self.sentences) if self.sentences else 0.0

    @property
    def long(self) -> tuple[Sentence, ...]:
        return tuple(s for s in self.sentences if s.words > LONG)

    @property
    def long_share(self) -> float:
        return len(self.long) / len(self.sentences) if self.sentences else 0.0

    @property
    def within_budget(self) -> bool:
        return self.mean <= MEAN and self.long_share <= LONG_SHARE


def _plain(line: str) -> str:
    """One line of prose as a reader sees its words: code spans and formulas as one
    word, links as their text, no markup."""
    line = CODE_SPAN.sub(" CODE ", line)
    line = MATH.sub(" MATH ", line)
    line = LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), line)
    line = ATTRS.sub(" ", line)
    line = TAGS.sub(" ", line)
    return line.replace("**", "").replace("__", "")


def units(markdown: str) -> list[tuple[int, str]]:
    """(first line, text) of each paragraph and list item of prose, markup removed."""
    blank = code_lines(markdown)
    text = HTML_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), markdown)
    found: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    for number, line in enumerate(text.split("\n"), 1):
        if number in blank or not line.strip() or SKIPPED_LINE.match(line):
            current = None
            continue
        if INCLUDE.match(line):
            current = None
            continue
        if LIST_ITEM.match(line) or current is None:
            current = [LIST_ITEM.sub("", line).strip()]
            found.append((number, current))
        else:
            current.append(line.strip().lstrip("> ").strip())
    return [(n, _plain(" ".join(parts))) for n, parts in found if " ".join(parts).strip()]


def sentences(markdown: str) -> list[Sentence]:
    """Every sentence of the page's prose, in order."""
    found = []
    for line, text in units(markdown):
        start = 0
        pieces = []
        for m in END.finditer(text):
            if ABBREVIATIONS.search(text[start : m.start() + 1]):
                continue
            pieces.append(text[start : m.end()])
            start = m.end()
        pieces.append(text[start:])
        for piece in pieces:
            words = len(WORD.findall(piece))
            if words:
                found.append(Sentence(line, words, " ".join(piece.split())))
    return found


def page_stats(markdown: str, page: str) -> PageStats:
    return PageStats(page, tuple(sentences(markdown)))


def chapter_pages(root: Path = ROOT) -> list[str]:
    """Every chapter page, as ``docs/...`` paths in the navigation's order."""
    return [f"docs/{page}" for chapter in chapters(root) for page in chapter.pages]


def measure(pages: list[str] | None = None, root: Path = ROOT) -> list[PageStats]:
    return [
        page_stats((root / page).read_text("utf-8"), page) for page in pages or chapter_pages(root)
    ]


def budget_problems(stats: list[PageStats]) -> list[str]:
    """Each page over the budget, naming its longest sentence's line."""
    problems = []
    for s in stats:
        if s.within_budget:
            continue
        longest = max(s.sentences, key=lambda x: x.words)
        problems.append(
            f"{s.page}:{longest.line}: sentences average {s.mean:.1f} words and "
            f"{s.long_share:.0%} are over {LONG} (the budget: {MEAN:.0f} and "
            f"{LONG_SHARE:.0%}); the longest, {longest.words} words, starts here. Split "
            "sentences; move a condition into the example's caption, a Versions table or a "
            "note, never out of the page"
        )
    return problems


def table(stats: list[PageStats]) -> str:
    """The report: one row per page, and the whole."""
    rows = [
        "| page | words | sentences | mean | over 35 | within |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for s in stats:
        rows.append(
            f"| {s.page.removeprefix('docs/')} | {s.words} | {len(s.sentences)} | "
            f"{s.mean:.1f} | {s.long_share:.0%} | {'yes' if s.within_budget else 'NO'} |"
        )
    every = PageStats("all", tuple(x for s in stats for x in s.sentences))
    over = sum(not s.within_budget for s in stats)
    rows.append(
        f"| **all {len(stats)} pages** | {every.words} | {len(every.sentences)} | "
        f"{every.mean:.1f} | {every.long_share:.0%} | {len(stats) - over} of {len(stats)} |"
    )
    return "\n".join(rows)


if __name__ == "__main__":
    print(table(measure(sys.argv[1:] or None)))
