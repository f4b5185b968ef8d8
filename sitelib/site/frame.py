"""A chapter's frame: what the reader will learn and what to read first, at the top
of its first page, and "In short" at the end of each of its pages.

Three admonition types, written in the Markdown (so Zensical draws them too)::

    !!! learn "What you will learn"        first, under the chapter's title
        - 3 to 6 points
    !!! read-first "Read first"            next: links to earlier chapters only
        - [The forward pass](forward_pass/index.md#...)
    !!! summary "In short"                 last, on every page of a chapter
        - 3 to 6 points, each linking to an anchor on this page or its chapter's

:func:`frame_problems` is the rule; ``hooks/frame.py`` runs it on every build with
the headings' ids MkDocs' toc gave each page, so that ``mkdocs build --strict`` fails
naming the page and the line. The first chapter has nothing earlier to link to: its
"Read first" says what it assumes in words (Python, a little PyTorch), and links
nowhere.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sitelib.site.layout import Chapter
from sitelib.site.markdown_scan import front_matter_end, prose

# Each page's heading ids, as MkDocs' toc made them (hooks/frame.py fills it; the
# preview keeps the ids of the pages it did not build again).
HEADING_IDS: dict[str, set[str]] = {}

TITLES = {"learn": "What you will learn", "read-first": "Read first", "summary": "In short"}
POINTS = {"learn": (3, 6), "read-first": (1, 6), "summary": (3, 6)}
BOX = re.compile(r'^!!! (?P<kind>[\w-]+)(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$')
ITEM = re.compile(r"^ {4}(?:[-*+]|\d+[.)])[ \t]+")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\((?P<target>[^)\s]+)(?:[ \t]+\"[^\"]*\")?\)")
# What may follow "In short" at a page's end: definitions Markdown draws elsewhere.
TRAILER = re.compile(r"^(?:\*\[[^\]]+\]:|\[\^?[^\]]+\]:)")


@dataclass
class Point:
    line: int  # 1-based
    links: list[tuple[int, str]] = field(default_factory=list)  # (line, target)
    text: str = ""  # its Markdown, on one line, without the list marker


@dataclass
class Box:
    kind: str
    title: str | None
    line: int  # 1-based, the ``!!!`` line
    end: int  # its last line that is not blank
    points: list[Point] = field(default_factory=list)


def boxes(text: str) -> list[Box]:
    """The frame's boxes of a page, in order (fences and code spans ignored)."""
    lines = prose(text).split("\n")
    raw = text.split("\n")
    found: list[Box] = []
    current: Box | None = None
    texts: list[list[str]] = []  # each point's lines, to find links that span lines
    for number, line in enumerate(lines, 1):
        if current is not None and line.strip() and not line.startswith("    "):
            current = None
        if current is not None:
            if raw[number - 1].startswith("    ") and raw[number - 1].strip():
                current.end = number  # an indented comment, blank in prose, is the box's too
            if line.strip():
                if ITEM.match(line):
                    current.points.append(Point(number))
                    texts.append([])
                if current.points:
                    texts[-1].append(line)
                    current.points[-1].text += " " + ITEM.sub("", raw[number - 1]).strip()
            continue
        if (m := BOX.match(line)) and m["kind"] in TITLES:
            current = Box(m["kind"], m["title"], number, number)
            found.append(current)
    points = [point for box in found for point in box.points]
    for point, point_lines in zip(points, texts, strict=True):
        point.text = point.text.strip()
        joined = "\n".join(point_lines)
        point.links = [
            (point.line + joined[: m.start()].count("\n"), m["target"])
            for m in LINK.finditer(joined)
        ]
    return found


def _first_content_line(lines: list[str]) -> int:
    """The 1-based line where a page's content starts: after its front matter and
    its ``# Title``, and the blank lines around them."""
    number = front_matter_end(lines)
    while number < len(lines) and not lines[number].strip():
        number += 1
    if number < len(lines) and re.match(r"#\s", lines[number]):
        number += 1
    while number < len(lines) and not lines[number].strip():
        number += 1
    return number + 1


def _next_content_line(lines: list[str], after: int) -> int:
    number = after
    while number < len(lines) and not lines[number].strip():
        number += 1
    return number + 1


def _resolve(page: str, target: str) -> tuple[str, str | None] | None:
    """(page, anchor) a link in ``page`` points to, relative to docs/; None for an
    address elsewhere (``https://...``, ``mailto:``)."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
        return None
    path, _, anchor = target.partition("#")
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
    return path, anchor or None


def page_problems(
    page: str,
    text: str,
    chapter: Chapter,
    chapters: Sequence[Chapter],
    ids: Mapping[str, set[str]],
) -> list[str]:
    """What is wrong with one chapter page's frame, as ``docs/<page>:<line>: ...``."""
    shown = f"docs/{page}"
    lines = text.split("\n")
    found = boxes(text)
    problems = []

    def problem(line: int, message: str) -> None:
        problems.append(f"{shown}:{line}: {message}")

    for box in found:
        if box.title != TITLES[box.kind]:
            problem(box.line, f'a {box.kind} box is titled "{TITLES[box.kind]}"')
        low, high = POINTS[box.kind]
        if not low <= len(box.points) <= high:
            problem(
                box.line,
                f'"{TITLES[box.kind]}" has {len(box.points)} points; it has {low} to {high}'
                " (a list, one item a point)",
            )

    opening = [b for b in found if b.kind in ("learn", "read-first")]
    if page == chapter.page:
        start = _first_content_line(lines)
        learn = next((b for b in found if b.kind == "learn"), None)
        read_first = next((b for b in found if b.kind == "read-first"), None)
        if learn is None or learn.line != start:
            problem(start, 'a chapter opens with !!! learn "What you will learn" under its title')
        if learn is not None and (
            read_first is None or read_first.line != _next_content_line(lines, learn.end)
        ):
            problem(
                _next_content_line(lines, learn.end),
                'after "What you will learn" comes !!! read-first "Read first"',
            )
        if read_first is not None:
            problems += _read_first_problems(shown, page, read_first, chapter, chapters)
    else:
        for box in opening:
            problem(box.line, f'"{TITLES[box.kind]}" belongs on the chapter\'s first page only')

    summaries = [b for b in found if b.kind == "summary"]
    last = len(lines)
    while last > 0 and (not lines[last - 1].strip() or TRAILER.match(lines[last - 1])):
        last -= 1
    if not summaries or summaries[-1].end != last:
        problem(max(last, 1), 'a chapter page ends with !!! summary "In short"')
    for box in summaries[:-1]:
        problem(box.line, 'a page has one "In short", at its end')
    for box in summaries:
        problems += _summary_problems(shown, page, box, chapter, ids)
    return problems


def _read_first_problems(
    shown: str, page: str, box: Box, chapter: Chapter, chapters: Sequence[Chapter]
) -> list[str]:
    earlier = {p: c for c in chapters if c.number < chapter.number for p in c.pages}
    links = [link for point in box.points for link in point.links]
    problems = [
        f'{shown}:{line}: a "Read first" link points to an earlier chapter\'s page, not {target}'
        for line, target in links
        if (where := _resolve(page, target)) is None or where[0] not in earlier
    ]
    if chapter.number > 1 and not links:
        problems.append(
            f'{shown}:{box.line}: "Read first" links to the earlier chapters (or sections) '
            "this one builds on"
        )
    return problems


def _summary_problems(
    shown: str, page: str, box: Box, chapter: Chapter, ids: Mapping[str, set[str]]
) -> list[str]:
    problems = []
    for point in box.points:
        if not point.links:
            problems.append(
                f'{shown}:{point.line}: an "In short" point links to the section that shows it'
            )
        for line, target in point.links:
            where = _resolve(page, target)
            if where is None or where[0] not in chapter.pages:
                problems.append(
                    f'{shown}:{line}: an "In short" link points into its chapter, not {target}'
                )
            elif where[1] is None:
                problems.append(
                    f'{shown}:{line}: an "In short" link points to a section (#anchor), '
                    f"not a whole page: {target}"
                )
            elif where[1] not in ids.get(where[0], set()):
                problems.append(
                    f'{shown}:{line}: an "In short" link points to #{where[1]}, which is no '
                    f"heading of docs/{where[0]}"
                )
    return problems


def frame_problems(
    sources: Mapping[str, str], chapters: Sequence[Chapter], ids: Mapping[str, set[str]]
) -> list[str]:
    """Every chapter page's frame: ``sources`` maps each page (relative to docs/) to its
    Markdown, ``ids`` each page to its headings' ids."""
    return [
        problem
        for chapter in chapters
        for page in chapter.pages
        if page in sources
        for problem in page_problems(page, sources[page], chapter, chapters, ids)
    ]
