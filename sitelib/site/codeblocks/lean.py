"""Fewer nodes: names, whitespace, operators and punctuation without a ``<span>``.

:class:`LeanFilter` turns them into plain text, which Pygments writes without a
``<span>``: they share the code text colour (extra.css), so nothing on screen
changes, and a chapter has a third of the elements to lay out. :func:`lean_html`
does the same to code another renderer highlighted (the notebook pages,
hooks/notebook_page.py).

Checked by tests/test_site.py: test_lean_code_keeps_every_snippets_text_and_colours
(every snippet's text and coloured tokens kept), test_built_code_blocks_are_lean (no
plain span left in any built page) and test_plain_tokens_share_the_code_colour (in
extra.css, the three kinds share one colour in both palettes).
"""

from __future__ import annotations

import re

from pygments.filter import Filter
from pygments.token import Name, Operator, Punctuation, Text, Whitespace


class LeanFilter(Filter):
    """Names, whitespace, operators and punctuation as plain text (no ``<span>``)."""

    PLAIN = {Name, Whitespace, Text.Whitespace, Operator, Punctuation}

    def filter(self, lexer, stream):
        for ttype, value in stream:
            yield (Text if ttype in self.PLAIN else ttype), value


PRE = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S)
PLAIN_SPAN = re.compile(r'<span(?: class="(?:n|w|o|p)")?>([^<]*)</span>')


def lean_html(content: str) -> str:
    """What LeanFilter does, for code another renderer highlighted (the notebook
    pages: mkdocs-jupyter calls Pygments itself): in every ``<pre>``, the leaf spans
    of names, whitespace, operators and punctuation unwrapped."""
    return PRE.sub(lambda m: m[1] + PLAIN_SPAN.sub(r"\1", m[2]) + m[3], content)
