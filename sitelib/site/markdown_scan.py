"""Reading a page's Markdown source: its front matter, its fences and its prose.

The one scanner every part of the site uses (math, code blocks, pictures, notebooks),
so that all of them agree on where a fence ends: a fence closes at a line with the
same indentation, the same character (backtick or tilde) repeated at least as many
times as it opened with, and nothing after it but spaces. Front matter is the block
between a first line ``---`` and the next ``---``.

Python-Markdown does not tell an extension which page it renders; :func:`page_file`
asks the builder: MkDocs 1.6 through its ``relpath`` treeprocessor (``.file``),
Zensical through its ``rendering_context`` preprocessor (``.page.path``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
OPTION = re.compile(r'(?P<key>[\w-]+)="(?P<value>[^"]*)"')
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
PARAGRAPH = re.compile(r"(?:[^\n]|\n(?![ \t]*\n))+")


@dataclass
class Fence:
    start: int  # 1-based line of the opening fence
    end: int  # 1-based line of the closing fence (the last line, if never closed)
    indent: str
    info: str  # what follows the opening fence: language and options
    lines: list[str] = field(default_factory=list)  # the body, indentation removed

    @property
    def language(self) -> str:
        word = self.info.strip().split(" ", 1)[0] if self.info.strip() else ""
        return word.lstrip("{").lstrip(".")

    @property
    def body(self) -> str:
        return "\n".join(self.lines)

    def option(self, key: str) -> str | None:
        return next((m["value"] for m in OPTION.finditer(self.info) if m["key"] == key), None)


def front_matter_end(lines: list[str]) -> int:
    """How many lines the front matter takes (0 without front matter)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for number, line in enumerate(lines[1:], 2):
        if line.strip() == "---":
            return number
    return 0


def fences(text: str) -> list[Fence]:
    """The fences of a page in order (outermost only; a fence inside a fence is text)."""
    lines = text.split("\n")
    found: list[Fence] = []
    current: Fence | None = None
    closing = None
    for number, line in enumerate(lines[front_matter_end(lines) :], front_matter_end(lines) + 1):
        if current is None:
            if m := OPEN.match(line):
                current = Fence(number, number, m["indent"], m["info"].strip())
                closing = re.compile(
                    rf"^{re.escape(m['indent'])}{re.escape(m['fence'][0])}{{{len(m['fence'])},}}[ \t]*$"
                )
            continue
        if closing.match(line):
            current.end = number
            found.append(current)
            current = None
        else:
            indent = current.indent
            current.lines.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
    if current is not None:
        current.end = len(lines)
        found.append(current)
    return found


def code_lines(text: str) -> set[int]:
    """The 1-based lines that are front matter or inside a fence (its fence lines too)."""
    blank = set(range(1, front_matter_end(text.split("\n")) + 1))
    for fence in fences(text):
        blank.update(range(fence.start, fence.end + 1))
    return blank


def prose(text: str) -> str:
    """``text`` with its front matter, fences, HTML comments and code spans blanked
    out: what Markdown may render as text. Same length, same lines."""
    lines = text.split("\n")
    blank = code_lines(text)
    kept = "\n".join(
        " " * len(line) if number in blank else line for number, line in enumerate(lines, 1)
    )
    kept = HTML_COMMENT.sub(_blank, kept)
    # A code span may span lines, never paragraphs.
    return PARAGRAPH.sub(lambda p: CODE_SPAN.sub(_blank, p.group(0)), kept)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line, text) of each line of prose that is not blank."""
    return [(n, line) for n, line in enumerate(prose(text).split("\n"), 1) if line.strip()]


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def page_file(md) -> tuple[str, Path] | None:
    """(name to show, path) of the page being converted, where the builder says it."""
    relpath = md.treeprocessors["relpath"] if "relpath" in md.treeprocessors else None
    file = getattr(relpath, "file", None)
    config = getattr(relpath, "config", None)
    if file is not None and getattr(file, "abs_src_path", None):  # MkDocs 1.6
        root = os.path.dirname(config.config_file_path) if config else os.getcwd()
        return _shown(Path(file.abs_src_path), root)
    for processor in md.preprocessors:  # Zensical
        page = getattr(processor, "page", None)
        if getattr(processor, "name", "") == "rendering_context" and page is not None:
            config = getattr(processor, "config", None) or {}
            root = config.get("root_dir") or os.getcwd()
            docs = Path(root, config.get("docs_dir") or "docs")
            return _shown(docs / page.path, root)
    return None


def _shown(path: Path, root: str) -> tuple[str, Path]:
    try:
        return path.resolve().relative_to(Path(root).resolve()).as_posix(), path
    except ValueError:
        return str(path), path
