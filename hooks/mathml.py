"""Render `$...$` and `$$...$$` math to MathML at build time (no math JavaScript).

A MkDocs hook that registers a small Markdown extension. latex2mathml turns the
LaTeX into MathML, which every current browser renders natively, so pages make no
request for a math library. Code spans and fenced code are never touched: they are
handled by Markdown before inline patterns run. Write a literal dollar as `\\$`.
"""

from __future__ import annotations

from latex2mathml.converter import convert
from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor

BLOCK = r"(?<![\\$])\$\$(?P<tex>.+?)\$\$"
INLINE = r"(?<![\\$])\$(?!\s)(?P<tex>[^$\n]+?)(?<!\s)\$(?!\d)"


class _MathProcessor(InlineProcessor):
    def __init__(self, pattern: str, md: Markdown, display: str) -> None:
        super().__init__(pattern, md)
        self.display = display

    def handleMatch(self, m, data):  # noqa: N802 (Markdown's API)
        html = convert(m.group("tex").strip(), display=self.display)
        return self.md.htmlStash.store(html), m.start(0), m.end(0)


class MathMLExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        if "$" not in md.ESCAPED_CHARS:
            md.ESCAPED_CHARS.append("$")
        # Backticks have priority 190: code spans are consumed before math is seen.
        md.inlinePatterns.register(_MathProcessor(BLOCK, md, "block"), "mathml-block", 186)
        md.inlinePatterns.register(_MathProcessor(INLINE, md, "inline"), "mathml-inline", 185)


def on_config(config, **kwargs):
    config.markdown_extensions.append(MathMLExtension())
    return config
