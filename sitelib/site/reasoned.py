"""Outcomes are said only as observed.

An example that needs CUDA (``# requires: cuda``) has not run on the CPU machines
that check the site: its ``#>`` lines are what it should print, reasoned from torch's
source. So is every outcome the page states about it. A sentence after such an
example that reports an outcome ("the loss has fallen", "256 MiB reserved") in the
indicative says what was seen, and nothing was; it says what is expected ("should
fall", "is expected to reserve"), or its paragraph carries, on a line of its own::

    <!-- reasoned: what the outcome follows from -->

which the page's "How this page was checked" box shows (:mod:`sitelib.site.checked`).

:func:`reasoned_problems` looks at every paragraph and list item after such an
example's block, up to the next heading: one that names a quantity or an outcome
(:data:`OUTCOME`) and no expectation (:data:`HEDGE`) is reported (a box, a rule or a
tip, says what holds in general, and is left out), naming the page and
the line. ``hooks/prose.py`` runs it on every build; ``tests/test_site.py`` runs it on
every page and self-tests it both ways.
"""

from __future__ import annotations

import re
from pathlib import Path

from sitelib.site.layout import INCLUDE
from sitelib.site.markdown_scan import fences, prose
from sitelib.site.snippets import requires_cuda

OUTCOME = re.compile(
    r"\d[\d,.]*\s*(?:[KMG]i?B|%|bytes?)\b|\b(?:prints?|printed|shows?|showed|falls?|fell|fallen|drops?|dropped|rises?|rose|"
    r"risen|match(?:es|ed)?|equals?|equalled|reports?|reported|reach(?:es|ed)?|takes?|took|"
    r"taken|reserves?|reserved|peaks?|peaked|agrees?|agreed|moved?|stays?|stayed|ends?|ended|"
    r"gives?|gave|returns?|returned|raises?|raised|fails?|failed|succeeds?|succeeded)\b",
    re.I,
)
HEDGE = re.compile(
    r"\b(?:should|expected|expects?|would|will|ought|is\s+meant|are\s+meant|predicts?)\b", re.I
)
MARKER = re.compile(r"<!--\s*reasoned:\s*(?P<why>.*?)\s*-->", re.S)
HEADING = re.compile(r"^#{1,6}\s")
LINK_TARGET = re.compile(r"\]\([^)]*\)|https?://\S+")
BLOCK = re.compile(r"(?:[^\n]*\S[^\n]*(?:\n|$))+")


def not_run_blocks(markdown: str, snippets: Path) -> list[int]:
    """The 1-based last line of each fence that includes an example needing CUDA."""
    found = []
    for fence in fences(markdown):
        for line in fence.lines:
            m = INCLUDE.match(line)
            path = snippets / m.group("path") if m else None
            if path and path.is_file() and requires_cuda(path.read_text("utf-8")):
                found.append(fence.end)
                break
    return found


def reasoned_problems(markdown: str, page: str, snippets: Path) -> list[str]:
    """Each paragraph after a not-run example that states an outcome as seen."""
    seen = prose(markdown)
    lines = seen.split("\n")
    raw = markdown.split("\n")
    problems: dict[int, str] = {}
    for end in not_run_blocks(markdown, snippets):
        stop = next(
            (i for i in range(end, len(lines)) if HEADING.match(lines[i])), len(lines)
        )  # 0-based index of the next heading
        region = "\n".join(lines[end:stop])
        for m in BLOCK.finditer(region):
            first = end + region.count("\n", 0, m.start())  # 0-based
            last = first + m.group(0).rstrip("\n").count("\n")
            text = " ".join(LINK_TARGET.sub("]", m.group(0)).split())
            if not text or not OUTCOME.search(text) or HEDGE.search(text):
                continue
            if raw[first].startswith(("    ", "\t", "!!!", "???")):
                continue  # a rule, tip or note: what holds in general, not what a run gave
            if MARKER.search("\n".join(raw[first : last + 2])):
                continue
            problems[first] = (
                f"{page}:{first + 1}: states an outcome of an example that has not run "
                "(it needs CUDA): say what is expected ('should', 'is expected to'), or "
                "vouch for it with <!-- reasoned: why --> in the paragraph"
            )
    return [problems[line] for line in sorted(problems)]
