"""What a page's "How this page was checked" box says, gathered from the page itself.

The teaching prose never says how the site knows what it says
(:mod:`sitelib.site.provenance`). A reader who wants to know finds it in one collapsed
box at the end of each chapter page, which the build draws
(``hooks/checked.py`` computes it, ``overrides/partials/checked.html`` draws it) from:

- **the examples**: how many the page shows, what the site's tests check of every one,
  and, from the verification records, where they last ran; those that need CUDA (their
  output is reasoned until a GPU runs them) and those tied to torch releases;
- **the markers**, each under the section it sits in, in page order: ``<!-- checked:
  how a fact was established -->`` (a measurement, a reading of torch's source, a
  try on another release), ``<!-- release: why no example is needed -->``
  (:mod:`sitelib.site.releases`) and ``<!-- reasoned: why -->``
  (:mod:`sitelib.site.reasoned`). A marker's text is written for a reader.

:func:`page_notes` reads the markers; :func:`example_facts` writes the examples' lines.
Checked by tests/test_site.py (test_the_checked_box_*) and, on every built chapter page,
tests/browser/test_reading.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitelib.site.markdown_scan import fences, prose

MARKER = re.compile(r"<!--\s*(?P<kind>checked|release|reasoned):\s*(?P<text>.*?)\s*-->", re.S)
HEADING = re.compile(r"^(?P<level>#{2,6})\s+(?P<title>.*?)(?:\s*\{[^}]*\})?\s*#*\s*$")


@dataclass(frozen=True)
class Note:
    kind: str  # checked, release, reasoned
    text: str
    line: int  # 1-based, where the marker starts
    heading: (
        int  # index of the section's heading among the page's ## to ###### headings; -1: before any
    )
    section: str  # the heading's text, or "" before the first


def headings(markdown: str) -> list[tuple[int, str]]:
    """(1-based line, text) of each heading of level 2 and deeper, outside fences."""
    raw = markdown.split("\n")
    return [
        (number, m["title"])
        for number, line in enumerate(prose(markdown).split("\n"), 1)
        if HEADING.match(line) and (m := HEADING.match(raw[number - 1]))
    ]


def page_notes(markdown: str) -> list[Note]:
    """Every marker of the page (outside fences), with its section, in page order."""
    code = {n for f in fences(markdown) for n in range(f.start, f.end + 1)}
    found = headings(markdown)
    notes = []
    for m in MARKER.finditer(markdown):
        line = markdown.count("\n", 0, m.start()) + 1
        if line in code:
            continue
        before = [i for i, (n, _) in enumerate(found) if n < line]
        index = before[-1] if before else -1
        text = " ".join(m["text"].split())
        notes.append(Note(m["kind"], text, line, index, found[index][1] if before else ""))
    return notes


def example_facts(
    count: int, cuda: list[str], tied: list[tuple[str, str]], ran: list[dict]
) -> list[str]:
    """The examples' lines of the box: ``count`` examples; the titles of those that need
    CUDA; (title, "needs torch 2.13 or newer") of those tied to releases; ``ran``, the
    verification records' summary per device (:func:`sitelib.site.records.summary`)."""
    if not count:
        return []
    what = "The example on this page is" if count == 1 else f"The {count} examples on this page are"
    lines = [
        f"{what} run by the site's tests: the printed lines must match the #> lines "
        "shown, the shape comments and gradients are checked, and each runs again as "
        "pasted, in a fresh process, and as if on a separate accelerator."
    ]
    if ran:
        lines.append(
            "Where they last ran: "
            + "; ".join(f"{line['device']}: {line['text']}" for line in ran)
            + "."
        )
    for name in cuda:
        lines.append(
            f"{name} needs CUDA and has not yet run on a GPU: its output is what it should "
            "print, reasoned from torch's source."
        )
    for title, needs in tied:
        lines.append(f"{title} {needs}; other releases skip it, with that reason.")
    return lines
