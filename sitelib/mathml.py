"""Render `$...$` and `$$...$$` math to MathML at build time (no math JavaScript).

A Python-Markdown extension, named ``sitelib.mathml`` in mkdocs.yml's
``markdown_extensions``, so every builder that reads that list renders the math:
MkDocs and Zensical alike (Zensical runs no MkDocs hooks). latex2mathml turns the
LaTeX into MathML, which every current browser renders natively, so pages make no
request for a math library. Code spans and fenced code are never touched: they are
handled by Markdown before inline patterns run. Write a literal dollar as `\\$`.

A formula that latex2mathml cannot read, or that it would render wrongly without a
word (an unclosed ``{``, a stray ``}``, an unknown command shown as text), fails the
build with :class:`MathError`, whose message names the page's source file and line
(``docs/page.md:12: cannot render the formula ...``).
Python-Markdown does not tell an extension which page it renders, so the page comes
from what each builder registers on the Markdown instance: MkDocs 1.6 its
``relpath`` treeprocessor (``.file``), Zensical its ``rendering_context``
preprocessor (``.page.path``). The line is where the formula stands in that file;
without a builder (plain Python-Markdown) it is the line in the text converted,
recorded by a preprocessor before any other one (snippets, front matter or a hook
would shift it).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from latex2mathml.converter import convert
from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor

BLOCK = r"(?<![\\$])\$\$(?P<tex>.+?)\$\$"
INLINE = r"(?<![\\$])\$(?!\s)(?P<tex>[^$\n]+?)(?<!\s)\$(?!\d)"

try:  # MkDocs reports a PluginError as one clear line (no traceback) and aborts.
    from mkdocs.exceptions import PluginError as _BuildError
except ImportError:  # pragma: no cover (Zensical alone, or plain Python-Markdown)
    _BuildError = Exception


class MathError(_BuildError):
    """A formula latex2mathml cannot render; the message starts with ``file:line:``."""


def _page_file(md: Markdown) -> tuple[str, Path] | None:
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


FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
PARAGRAPH = re.compile(r"(?:[^\n]|\n(?![ \t]*\n))+")


def prose(text: str) -> str:
    """``text`` with its front matter, fenced code and code spans blanked out, so that
    what is left is what Markdown may render as math. Same length, same lines."""
    lines = text.split("\n")
    kept, fence = [], None
    front = bool(lines) and lines[0] == "---"
    for number, line in enumerate(lines):
        if front:
            front = number == 0 or line != "---"
            kept.append(" " * len(line))
        elif m := FENCE.match(line):
            if fence is None:
                fence = m.group(1)
            elif m.group(1).startswith(fence):
                fence = None
            kept.append(" " * len(line))
        elif fence is not None:
            kept.append(" " * len(line))
        else:
            kept.append(line)
    # A code span may span lines, never paragraphs.
    return PARAGRAPH.sub(lambda p: CODE_SPAN.sub(_blank, p.group(0)), "\n".join(kept))


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def lines_with(formula: str, text: str) -> list[int]:
    """The 1-based lines of ``text`` where ``formula`` starts, outside code. A formula
    that spans lines may be indented differently in the file (in a list or an
    admonition), so any run of whitespace matches any other."""
    pattern = r"\s+".join(map(re.escape, formula.split()))
    found = prose(text)
    return sorted({found.count("\n", 0, m.start()) + 1 for m in re.finditer(pattern, found)})


class _SourceLines(Preprocessor):
    """Keeps the text as Markdown received it, before any preprocessor changed it."""

    def run(self, lines: list[str]) -> list[str]:
        self.lines = list(lines)
        return lines


class _MathProcessor(InlineProcessor):
    def __init__(self, pattern: str, md: Markdown, display: str, source: _SourceLines) -> None:
        super().__init__(pattern, md)
        self.display = display
        self.source = source

    def handleMatch(self, m, data):  # noqa: N802 (Markdown's API)
        tex = m.group("tex").strip()
        html, problem = None, _brace_problem(tex)
        if problem is None:
            try:
                html = convert(tex, display=self.display)
            except Exception as e:
                detail = f": {e}" if str(e) else ""
                problem = (
                    f"latex2mathml raised {type(e).__name__}{detail} "
                    "(check \\left/\\right and \\begin/\\end pairs, and what follows ^ and _)"
                )
            else:
                problem = _unknown_commands(html)
        if problem is not None:
            page, lines = self._where(m.group(0))
            raise MathError(_message(page, lines, m.group(0), problem))
        return self.md.htmlStash.store(html), m.start(0), m.end(0)

    def _where(self, formula: str) -> tuple[str, list[int]]:
        """The page's file (as shown) and the lines in it that hold this formula."""
        page = _page_file(self.md)
        if page is None:
            return "<markdown>", lines_with(formula, "\n".join(getattr(self.source, "lines", [])))
        name, path = page
        try:
            return name, lines_with(formula, path.read_text("utf-8"))
        except OSError:
            return name, []


def _brace_problem(tex: str) -> str | None:
    """latex2mathml quietly closes an unclosed ``{`` and prints a stray ``}``."""
    depth = 0
    for token in re.findall(r"\\.|[{}]", tex, re.S):
        depth += {"{": 1, "}": -1}.get(token, 0)
        if depth < 0:
            return "a } closes no {"
    if depth:
        return "a { is never closed" if depth == 1 else f"{depth} {{ are never closed"
    return None


def _unknown_commands(html: str) -> str | None:
    """latex2mathml prints a command it does not know (``\\fracc``) as text."""
    text = "".join(re.findall(r">([^<]*)<", html))
    unknown = sorted(set(re.findall(r"\\[A-Za-z]+", text)))
    return f"unknown command {', '.join(unknown)}" if unknown else None


def _message(page: str, lines: list[int], formula: str, problem: str) -> str:
    also = f" (the same formula is on line {', '.join(map(str, lines[1:]))})" if lines[1:] else ""
    where = f"{page}:{lines[0] if lines else '?'}"
    shown = " ".join(formula.split())  # a display formula may span lines
    return f"{where}: cannot render the formula {shown} as MathML{also}: {problem}"


class MathMLExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        if "$" not in md.ESCAPED_CHARS:
            md.ESCAPED_CHARS.append("$")
        # Before every other preprocessor (snippets is 32, whitespace 30): the page's lines.
        source = _SourceLines(md)
        md.preprocessors.register(source, "mathml-source", 1000)
        # Backticks have priority 190: code spans are consumed before math is seen.
        md.inlinePatterns.register(_MathProcessor(BLOCK, md, "block", source), "mathml-block", 186)
        md.inlinePatterns.register(
            _MathProcessor(INLINE, md, "inline", source), "mathml-inline", 185
        )


def makeExtension(**kwargs) -> MathMLExtension:  # noqa: N802 (Python-Markdown's entry point)
    return MathMLExtension(**kwargs)
