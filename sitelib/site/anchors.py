"""Old links into a chapter that was split: ``/memory/#activation-checkpointing``
was a heading of the chapter's one page before its sections moved to sub-pages.

:func:`moved_anchors` is the rule: on a chapter's first page, every heading id that
is not on that page but on exactly one of its sub-pages maps to that sub-page.
``hooks/chapter.py`` computes it from the ids MkDocs' toc gave each page,
``overrides/partials/moved-anchors.html`` writes it into the first page, and
``docs/assets/moved.js`` follows it when the address names an id the page lacks (on
load, after an instant navigation, on a change of the address's ``#``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

# The element moved.js reads the map from (a data attribute: Material's instant
# navigation drops JSON <script> elements of the page it swaps in).
ELEMENT_ID = "moved-anchors"


def moved_anchors(
    first: str, sub_pages: Sequence[str], ids: Mapping[str, set[str]]
) -> dict[str, str]:
    """``{heading id: sub-page}`` for the first page ``first`` of a chapter whose other
    pages are ``sub_pages`` (pages as ``ids`` keys them); an id on two sub-pages, or on
    the first page itself, is left out (no one place to send it)."""
    here = ids.get(first, set())
    seen = Counter(i for page in sub_pages for i in ids.get(page, set()))
    return {
        i: page
        for page in sub_pages
        for i in sorted(ids.get(page, set()))
        if i not in here and seen[i] == 1
    }
