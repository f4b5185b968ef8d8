"""Fewer DOM nodes in highlighted code, with the same text and the same colours.

Pygments wraps every token in a ``<span>``: a 60-line snippet becomes ~600 elements
and a chapter page ~4,000, nearly all inside ``<pre>``. The browser styles and lays
out each one, which was most of a chapter's blocking time in Lighthouse. This hook
unwraps the spans that change nothing on screen: names (``n``), whitespace (``w``),
operators (``o``) and punctuation (``p``). extra.css gives all four the code text
colour, so their text looks the same without a span. Word operators (``and``,
``in``), keywords, literals and comments keep their spans and colours.

Only leaf spans (no markup inside) are unwrapped, so line highlights (``hll``),
comments carrying code annotations and the text the copy button takes are
unchanged; tests/test_site.py checks that every code block's text survives.
``hooks/lean_code.py`` applies it to every page.
"""

from __future__ import annotations

import re

PRE = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S)
PLAIN = re.compile(r'<span(?: class="(?:n|w|o|p)")?>([^<]*)</span>')


def lean(code: str) -> str:
    """The inside of one ``<pre>``, without the spans that only repeat the text colour."""
    return PLAIN.sub(r"\1", code)


def lean_page(content: str) -> str:
    """Every ``<pre>`` of a page's HTML made lean."""
    return PRE.sub(lambda m: m[1] + lean(m[2]) + m[3], content)
