"""What a block's copy button gives: its text, less what is only drawn.

The output label (:mod:`.output`), a fold's switch and summary (:mod:`.folds`) and
the lines of marker comments only the checks read are drawn, or hidden, for a reader
and never copied. :func:`copied_text` is that text, read from the highlighted HTML,
for the tests to compare with the snippet: tests/test_codeblocks.py
(test_output_is_drawn_as_output_and_copies_as_written,
test_a_fold_hides_the_set_up_behind_its_summary) and tests/test_zensical.py
(test_chapter_builds_the_same_with_zensical: every chapter's blocks, as Zensical
draws them, copy their snippets).
"""

from __future__ import annotations

import re

from sitelib.site.layout import html_text

COPY_ONLY_DRAWN = re.compile(
    r'<span class="go go-Label">[^<]*</span>|<input [^>]*class="fold-switch"[^>]*>'
    r'|<label class="fold-label"[^>]*>.*?</label>'
    r'|<span id="[^"]*"><span class="c c-Harness">[^<]*</span>\n?</span>',
    re.S,
)


def copied_text(code: str) -> str:
    """The text of a highlighted block as its copy button gives it: without what is
    only drawn (the output label, the fold's switch and summary) and without the
    lines the site does not draw (marker comments only the checks read)."""
    return html_text(COPY_ONLY_DRAWN.sub("", code))
