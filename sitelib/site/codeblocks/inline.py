"""Short inline code on one line: ``1e-8`` never breaks at its ``-``.

:class:`_ShortCodeOnOneLine` gives inline code of one short word (at most 24
characters, no space) the class ``nobr``, which extra.css sets ``white-space:
nowrap``; longer code may still wrap on a phone. Code in a ``<pre>`` is a block's,
not inline, and is left alone.

Checked in Chromium by tests/browser/test_reading.py: test_nothing_is_cut_on_a_phone
(on every page, at 390 px), and test_reading_checks_catch_a_broken_page (the check
finds ``1e-88888`` broken on a fixture page).
"""

from __future__ import annotations

import html
import re

from markdown.treeprocessors import Treeprocessor

STASHED = re.compile("\x02wzxhzdk:(\\d+)\x03")


class _ShortCodeOnOneLine(Treeprocessor):
    """Inline code of one short word (``1e-8``, ``set_to_none=True``) never breaks:
    class ``nobr`` (extra.css). Longer code may still wrap on a phone."""

    longest = 24

    def _stashed(self, m: re.Match) -> str:  # inline code that pymdownx stashed as HTML
        return str(self.md.htmlStash.rawHtmlBlocks[int(m.group(1))])

    def run(self, root):
        parents = {child: parent for parent in root.iter() for child in parent}
        for element in root.iter("code"):
            if parents.get(element) is not None and parents[element].tag == "pre":
                continue
            text = html.unescape(STASHED.sub(self._stashed, element.text or ""))
            if text and len(text) <= self.longest and not any(c.isspace() for c in text):
                classes = element.get("class", "").split()
                element.set("class", " ".join([*classes, "nobr"]))
