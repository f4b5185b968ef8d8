"""Render `$...$` and `$$...$$` math to MathML at build time (no math JavaScript).

A Python-Markdown extension, named ``sitelib.site.mathml`` in mkdocs.yml's
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

import html as html_lib
import re

from latex2mathml.converter import convert
from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor

from sitelib.site.errors import BuildError
from sitelib.site.markdown_scan import page_file, prose

BLOCK = r"(?<![\\$])\$\$(?P<tex>.+?)\$\$"
INLINE = r"(?<![\\$])\$(?!\s)(?P<tex>[^$\n]+?)(?<!\s)\$(?!\d)"
# The punctuation right after an inline formula: kept on the formula's line, in a
# span that does not break (Chromium breaks between a <math> and a ";" after it).
AFTER = r"(?P<after>[.,;:!?)\]]*)"


class MathError(BuildError):
    """A formula latex2mathml cannot render; the message starts with ``file:line:``."""


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
        html, problem = mathml(m.group("tex"), self.display)
        after = m.groupdict().get("after") or ""
        if problem is not None:
            formula = m.group(0)[: len(m.group(0)) - len(after)]
            page, lines = self._where(formula)
            raise MathError(_message(page, lines, formula, problem))
        return self.md.htmlStash.store(with_punctuation(html, after)), m.start(0), m.end(0)

    def _where(self, formula: str) -> tuple[str, list[int]]:
        """The page's file (as shown) and the lines in it that hold this formula."""
        page = page_file(self.md)
        if page is None:
            return "<markdown>", lines_with(formula, "\n".join(getattr(self.source, "lines", [])))
        name, path = page
        try:
            return name, lines_with(formula, path.read_text("utf-8"))
        except OSError:
            return name, []


def mathml(tex: str, display: str) -> tuple[str | None, str | None]:
    """(the MathML of a formula, None) or (None, why it cannot be rendered)."""
    tex = tex.strip()
    problem = _brace_problem(tex)
    if problem is not None:
        return None, problem
    try:
        html = convert(tex, display=display)
    except Exception as e:
        detail = f": {e}" if str(e) else ""
        return None, (
            f"latex2mathml raised {type(e).__name__}{detail} "
            "(check \\left/\\right and \\begin/\\end pairs, and what follows ^ and _)"
        )
    problem = _unknown_commands(html)
    return (None, problem) if problem else (html, None)


def with_punctuation(html: str, after: str) -> str:
    """An inline formula and the punctuation after it, which never starts a line."""
    if not after:
        return html
    return f'<span class="math-nobr">{html}{html_lib.escape(after)}</span>'


SKIPPED = re.compile(r"<(pre|code|script|style|math)\b.*?</\1>", re.S | re.I)


def math_in_html(fragment: str, page: str) -> str:
    """The formulas in HTML text (not in code) as MathML: for pages whose Markdown
    another renderer made (the notebooks, rendered by mkdocs-jupyter), where the
    formulas are left as ``$...$``. A formula that cannot be rendered raises
    :class:`MathError` naming ``page``."""

    def convert_text(text: str) -> str:
        for pattern, display in ((BLOCK, "block"), (INLINE + AFTER, "inline")):
            text = re.sub(pattern, lambda m, d=display: converted(m, d), text, flags=re.S)
        return text

    def converted(m: re.Match, display: str) -> str:
        html, problem = mathml(html_lib.unescape(m.group("tex")), display)
        after = m.groupdict().get("after") or ""
        if problem is not None:
            formula = m.group(0)[: len(m.group(0)) - len(after)]
            raise MathError(f"{page}: cannot render the formula {formula} as MathML: {problem}")
        return with_punctuation(html, html_lib.unescape(after))

    out, end = [], 0
    for m in SKIPPED.finditer(fragment):
        out += [convert_text(fragment[end : m.start()]), m.group(0)]
        end = m.end()
    return "".join(out) + convert_text(fragment[end:])


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
            _MathProcessor(INLINE + AFTER, md, "inline", source), "mathml-inline", 185
        )


def makeExtension(**kwargs) -> MathMLExtension:  # noqa: N802 (Python-Markdown's entry point)
    return MathMLExtension(**kwargs)
