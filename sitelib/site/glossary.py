"""The glossary: one file of definitions, and each term explained where a section
first uses it.

``docs/glossary.md`` is the one source: a definition list whose terms are the words a
page uses (``rank, ranks``: the forms, the first the headword; a qualifier in
parentheses is not a form: ``guards (torch.compile)``; a form in backticks is code,
```grad_fn```, and matches inline code that is exactly it as well as the plain word). MkDocs renders it as the
glossary page; this Markdown extension (``sitelib.site.glossary`` in mkdocs.yml's
``markdown_extensions``, so Zensical runs it too) reads it, and in every other page
marks the first use of each term in each section (a heading starts one) as
``<abbr title="definition" tabindex="0">``, which Material draws as a tooltip
(``content.tooltips``: hover, keyboard focus, a tap). Only prose: never inside code, a link, a heading, a
formula or an admonition's title; a later use in the same section stays plain.

A form defined twice fails the build, naming the glossary's lines. A term no page
uses is reported by :func:`unused_terms` (tests/test_site.py, on the built site).
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from pathlib import Path

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from sitelib.site.markdown_scan import front_matter_end, page_file

try:  # MkDocs reports a PluginError as one clear line (no traceback) and aborts.
    from mkdocs.exceptions import PluginError as _BuildError
except ImportError:  # pragma: no cover (Zensical alone, or plain Python-Markdown)
    _BuildError = Exception


class GlossaryError(_BuildError):
    """A glossary that cannot be read; the message starts with ``file:line:``."""


@dataclass(frozen=True)
class Term:
    headword: str
    forms: tuple[str, ...]  # as a page writes them
    code: frozenset[str]  # the forms written as code (`grad_fn`)
    definition: str  # plain text, for the tooltip
    line: int  # in the glossary file


def plain(markdown: str) -> str:
    """A definition's Markdown as the plain text a tooltip shows."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"(\*\*|__|\*|`)", "", text)
    return " ".join(text.split())


def read(path: Path) -> list[Term]:
    """The terms of a glossary file, in order; a form defined twice raises."""
    lines = path.read_text("utf-8").splitlines()
    start = front_matter_end(lines)
    terms, seen = [], {}
    number = start
    while number < len(lines):
        line = lines[number]
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if line.strip() and not line.startswith((" ", "#", ":")) and following.startswith(":"):
            body = [following[1:].strip()]
            end = number + 2
            while end < len(lines) and lines[end].startswith("    "):
                body.append(lines[end].strip())
                end += 1
            head = re.sub(r"\s*\([^)]*\)\s*$", "", line.strip())
            written = [form.strip() for form in head.split(",") if form.strip()]
            forms = tuple(form.strip("`") for form in written)
            code = frozenset(form.strip("`") for form in written if form.startswith("`"))
            for form in forms:
                if form.lower() in seen:
                    raise GlossaryError(
                        f"{path.as_posix()}:{number + 1}: '{form}' is defined twice "
                        f"(also on line {seen[form.lower()]})"
                    )
                seen[form.lower()] = number + 1
            terms.append(Term(forms[0], forms, code, plain(" ".join(body)), number + 1))
            number = end
        else:
            number += 1
    return terms


SKIPPED = {"code", "pre", "a", "abbr", "math", "script", "style", "dt", "summary"}
SKIPPED |= {f"h{level}" for level in range(1, 7)}
STASHED = re.compile("\x02wzxhzdk:(\\d+)\x03")


class _FirstUse(Treeprocessor):
    def __init__(self, md: Markdown, extension: GlossaryExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, root: etree.Element) -> None:
        page = page_file(self.md)
        name = page[0] if page else ""
        if any(name.endswith(skip) for skip in self.extension.skipped()):
            return
        terms = self.extension.terms()
        if not terms:
            return
        self.by_form = {form.lower(): term for term in terms for form in term.forms}
        words = sorted(self.by_form, key=len, reverse=True)
        self.pattern = re.compile(
            r"(?<![\w\-`])(" + "|".join(map(re.escape, words)) + r")(?![\w\-])", re.I
        )
        self.seen: set[str] = set()
        self._walk(root)

    # A heading starts a section; the walk is in document order.
    def _walk(self, element: etree.Element) -> None:
        if re.fullmatch(r"h[1-6]", element.tag):
            self.seen = set()
            return
        if element.tag == "p" and "admonition-title" in element.get("class", ""):
            return
        if element.tag == "code":
            return
        if element.tag in SKIPPED:
            return
        element.text = self._mark_text(element, element.text, 0)
        index = 0
        while index < len(element):
            child = element[index]
            if child.tag == "code" and (term := self._code_term(child)):
                abbr = etree.Element("abbr", {"title": term.definition, "tabindex": "0"})
                abbr.tail, child.tail = child.tail, None
                element.remove(child)
                abbr.append(child)
                element.insert(index, abbr)
                child = abbr
            else:
                self._walk(child)
            inserted = self._mark_tail(element, index)
            index += 1 + inserted

    def _code_term(self, code: etree.Element) -> Term | None:
        text = code.text or ""
        text = STASHED.sub(lambda m: str(self.md.htmlStash.rawHtmlBlocks[int(m[1])]), text)
        text = html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
        term = self.by_form.get(text.lower())
        if term is None or text not in term.code or term.headword in self.seen:
            return None
        self.seen.add(term.headword)
        return term

    def _split(self, text: str) -> list[str | etree.Element]:
        """``text`` as pieces: strings, and an abbr for each first use it holds."""
        pieces: list[str | etree.Element] = []
        cursor = 0
        for m in self.pattern.finditer(text):
            term = self.by_form[m[1].lower()]
            if term.headword in self.seen:
                continue
            self.seen.add(term.headword)
            abbr = etree.Element("abbr", {"title": term.definition, "tabindex": "0"})
            abbr.text = m[1]
            pieces += [text[cursor : m.start()], abbr]
            cursor = m.end()
        return [*pieces, text[cursor:]]

    def _mark_text(self, element: etree.Element, text: str | None, _: int) -> str | None:
        if not text:
            return text
        pieces = self._split(text)
        first, rest = pieces[0], pieces[1:]
        for offset, (abbr, tail) in enumerate(zip(rest[::2], rest[1::2], strict=True)):
            abbr.tail = tail
            element.insert(offset, abbr)
        return first

    def _mark_tail(self, parent: etree.Element, index: int) -> int:
        child = parent[index]
        if not child.tail:
            return 0
        pieces = self._split(child.tail)
        child.tail, rest = pieces[0], pieces[1:]
        for offset, (abbr, tail) in enumerate(zip(rest[::2], rest[1::2], strict=True)):
            abbr.tail = tail
            parent.insert(index + 1 + offset, abbr)
        return len(rest) // 2


class GlossaryExtension(Extension):
    def __init__(self, **kwargs):
        self.config = {
            "source": ["docs/glossary.md", "the glossary file (a definition list)"],
            "skip": [["glossary.md"], "pages that get no tooltips (their path ends so)"],
        }
        super().__init__(**kwargs)
        self._terms: list[Term] | None = None

    def terms(self) -> list[Term]:
        if self._terms is None:
            source = Path(self.getConfig("source"))
            self._terms = read(source) if source.is_file() else []
        return self._terms

    def skipped(self) -> list[str]:
        return list(self.getConfig("skip"))

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        # After the inline patterns (20) and attr_list (8), before the table of contents.
        md.treeprocessors.register(_FirstUse(md, self), "glossary-first-use", 7)


def unused_terms(terms: list[Term], pages: dict[str, str]) -> list[str]:
    """The terms that no built page (``{name: html}``) explains with a tooltip."""
    used = set()
    for text in pages.values():
        used |= set(re.findall(r'<abbr\b[^>]*\btitle="([^"]*)"', text))
    return [
        f"docs/glossary.md:{term.line}: '{term.headword}' is used by no page"
        for term in terms
        if html.escape(term.definition, quote=True) not in used and term.definition not in used
    ]


def makeExtension(**kwargs) -> GlossaryExtension:  # noqa: N802 (Python-Markdown's entry point)
    return GlossaryExtension(**kwargs)
