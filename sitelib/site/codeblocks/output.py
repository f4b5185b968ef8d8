"""Printed output drawn as output, and notes for the checks left out.

**Printed output is output.** Under a ``print``, pytest-examples writes what it
printed as ``#>`` lines, or, for long or multi-line output, as a quoted block
(``'''`` on its own line after the ``print``). Pygments reads both as a comment or a
string; :class:`OutputFilter` gives them the token ``Generic.Output`` (class ``go``),
their ``#>`` and quotes ``Generic.Output.Marker`` (``go-Marker``), and puts a
visually hidden ``Output:`` (``go-Label``) before each run of output lines for
screen readers. extra.css draws output as a panel of its own; the label and marker
are not copied (Material sets ``data-md-copying`` while it reads a block's text).

**Notes for the checks, left out.** A marker comment that only the checks read
(``# expect-no-grad: ...``, :data:`sitelib.site.snippets.HARNESS_MARKERS`) becomes
``Comment.Harness`` (``c-Harness``), whose line extra.css hides: a reader neither
sees nor copies it (``snippets.as_copied`` is what the copy button gives).

The notebook pages' code is highlighted by mkdocs-jupyter, not by this extension:
:func:`output_html` draws their output the same way (hooks/notebook_page.py).

Checked by tests/test_codeblocks.py (test_output_is_drawn_as_output_and_copies_as_written,
test_a_quoted_block_under_a_print_is_output) and, in Chromium on every page, the
notebook pages included, by tests/browser/test_reading.py
(test_printed_output_is_drawn_as_output).
"""

from __future__ import annotations

import re

import pygments
from pygments.filter import Filter
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from pygments.token import Comment, Generic, Name, String

from sitelib.site import snippets
from sitelib.site.codeblocks.lean import PRE, LeanFilter
from sitelib.site.layout import html_text

OUTPUT = Generic.Output
MARKER = Generic.Output.Marker
LABEL = Generic.Output.Label
HARNESS = Comment.Harness  # a marker comment only the checks read: not drawn, not copied
LABEL_TEXT = "Output: "


class OutputFilter(Filter):
    """``#>`` lines and the quoted block under a ``print`` become output tokens."""

    def filter(self, lexer, stream):
        line = None  # what the current line is: None (nothing yet), or a LINE_* kind
        after_print = False  # the last line of code began with print(
        in_output = False  # the last line that was not blank was output
        for ttype, value in stream:
            if line is None and ttype in Comment.Single and value.startswith("#>"):
                if not in_output:
                    yield LABEL, LABEL_TEXT
                yield MARKER, "#>"
                if value[2:]:
                    yield OUTPUT, value[2:]
                line = LINE_OUTPUT
            elif line is None and ttype in Comment.Single and snippets.HARNESS_LINE.match(value):
                yield HARNESS, value
                line = LINE_COMMENT
            elif line is None and ttype in String.Doc and after_print:
                yield LABEL, LABEL_TEXT
                yield from _quoted_output(value)
                line = LINE_OUTPUT
            elif not value.strip():  # whitespace; a newline ends the line
                if "\n" in value and line is not None:
                    in_output = line == LINE_OUTPUT
                    if line in (LINE_PRINT, LINE_CODE):
                        after_print = line == LINE_PRINT
                    line = None
                yield ttype, value
            else:
                if line is None:
                    if ttype in Comment:
                        line = LINE_COMMENT
                    elif ttype in Name.Builtin and value == "print":
                        line = LINE_PRINT
                    else:
                        line = LINE_CODE
                yield ttype, value


LINE_OUTPUT, LINE_PRINT, LINE_CODE, LINE_COMMENT = "output", "print", "code", "comment"


def _quoted_output(value: str):
    """A ``'''`` block: its quotes are markers, its lines output."""
    quote = value[:3]
    body = value[3:-3]
    yield MARKER, quote
    if body:
        yield OUTPUT, body
    yield MARKER, quote


def output_html(content: str) -> str:
    """Printed output drawn and announced as on the chapters, for code another renderer
    highlighted (the notebook pages): a ``<pre>`` whose code shows output (a
    multi-process snippet's cell keeps its ``#>`` lines: no output cell can show what
    its ranks print) is highlighted again with :class:`OutputFilter` and
    :class:`LeanFilter`. Each output line is a span of its own (``__span-nb<k>-<line>``,
    as the chapters' line spans, which the output bands' CSS selects); a line of code is
    not wrapped: a notebook page shows a whole chapter's code, and a span per line
    doubled its elements, which the browser styles and lays out on every load."""
    blocks = iter(range(1, 1 << 30))

    def again(m: re.Match) -> str:
        code = html_text(m[2])
        if not snippets.expected_output(code):
            return m[0]
        lexer = PythonLexer()
        lexer.add_filter(OutputFilter())
        lexer.add_filter(LeanFilter())
        lines = HtmlFormatter(linespans=f"__span-nb{next(blocks)}")
        drawn = PRE.search(pygments.highlight(code, lexer, lines))
        return m[1] + CODE_LINE_SPAN.sub(r"\1", drawn[2]) + m[3]

    return PRE.sub(again, content)


# A line span (Pygments' linespans: one line, its newline, the span's end) that holds
# neither output nor a marker comment (hidden by its span): unwrapped by output_html.
CODE_LINE_SPAN = re.compile(
    r'<span id="__span-nb\d+-\d+">((?:(?!class="(?:go|c c-Harness))[^\n])*\n)</span>'
)
