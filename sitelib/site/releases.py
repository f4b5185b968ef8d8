"""A torch release named in a page's prose, and what backs it.

"New in 2.14", "on torch 2.10 to 2.14": a sentence about a release is a claim the
suite can only check where an example is tied to releases, by a ``# requires:
torch>=X.Y`` or ``torch<X.Y`` marker (docs/authors.md, "Markers"), since then
``make test-torch`` runs it on the releases it names and skips it on the others. A
paragraph that names a release is backed when its section (from its heading to the
next heading) includes such an example, or when it
carries a marker that says why no example is needed::

    <!-- release: history, from torch's release notes; older than the range -->

Where behaviour differs between releases, a section says so in a **Versions box**, a
small table of release ranges, rather than in its sentences::

    !!! versions "Versions"
        | torch | what it does |
        | --- | --- |
        | 2.10 to 2.14 | ... |
        | 2.15 and newer | ... |

        <!-- release: read in each release's source -->

The box is one unit: backed by its section's example or by its own marker.

The reason is required. ``hooks/prose.py`` runs :func:`release_problems` on every
page, so a page that names a release with neither fails the build, naming the page
and the line; ``tests/test_site.py`` self-tests it on "new in 2.14" alone.
"""

from __future__ import annotations

import re
from pathlib import Path

from sitelib.site.layout import INCLUDE
from sitelib.site.markdown_scan import prose
from sitelib.site.snippets import requires_torch

# A release: 2.<minor> or 2.<minor>.<patch>, as prose names one: after "torch",
# "PyTorch", "release(s)", a word such as "since" or "on", or another release in a
# list ("2.10, 2.13 and 2.15"); not a quantity ("2.5 times", "2.71", "2.1e-4").
MENTION = re.compile(
    r"(?:\b(?:torch|PyTorch|releases?|since|before|after|until|from|on|in|to|and|or)\s+"
    r"|,\s*)(?P<release>2\.(?:1?\d)(?:\.\d+)?)(?![\d.]*\d)(?![eE][-+]?\d)"
    r"(?!\s*(?:x\b|×|times|%|s\b|seconds|ms\b|[KMG]i?B))"
)
MARKER = re.compile(r"<!--\s*release:\s*(?P<why>.*?)\s*-->", re.S)
HEADING = re.compile(r"^#{1,6}\s")
# A "Versions" box: a small table of release ranges and what each does, checked as one
# unit (its marker, if any, is a paragraph of its own inside the box).
VERSIONS = re.compile(r"^[!?]{3}\+?\s+versions\b")
LINK_TARGET = re.compile(r"\]\([^)]*\)|https?://\S+")


def _sections(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) 0-based line of each section: from a heading (or the top) to the
    line before the next heading, of any level: what stands beside a paragraph."""
    starts = [0] + [i for i, line in enumerate(lines) if HEADING.match(line) and i]
    ends = [s - 1 for s in starts[1:]] + [len(lines) - 1]
    return list(zip(starts, ends, strict=True))


def _tied_to_releases(text: str, snippets: Path) -> bool:
    """Whether ``text`` includes an example marked ``# requires: torch...``."""
    for m in filter(None, map(INCLUDE.match, text.split("\n"))):
        path = snippets / m.group("path")
        if path.is_file() and requires_torch(path.read_text("utf-8")):
            return True
    return False


def release_problems(markdown: str, page: str, snippets: Path) -> list[str]:
    """Each paragraph of ``markdown`` (the page ``page``) that names a torch release in
    its prose with nothing backing it, as ``page:line: ...``."""
    lines = markdown.split("\n")
    seen = prose(markdown).split("\n")
    sections = _sections(seen)  # headings in prose only: a fence's "# comment" is none
    problems = []
    paragraph: list[int] = []
    box = False  # inside a Versions box: one unit, across its blank lines
    for i in range(len(lines) + 1):
        line = lines[i] if i < len(lines) else ""
        if box and (not line.strip() or line.startswith(("    ", "\t"))) and i < len(lines):
            paragraph.append(i)
            continue
        if VERSIONS.match(line) and i < len(lines):
            if paragraph:
                problems += _paragraph_problems(paragraph, lines, seen, sections, page, snippets)
            paragraph, box = [i], True
            continue
        if line.strip() and not box:
            paragraph.append(i)
            continue
        if paragraph:
            problems += _paragraph_problems(paragraph, lines, seen, sections, page, snippets)
        paragraph, box = ([i] if line.strip() else []), False
    return problems


def _paragraph_problems(paragraph, lines, seen, sections, page, snippets) -> list[str]:
    named = []
    for i in paragraph:
        text = LINK_TARGET.sub("]", seen[i])
        named += [(i, m.group("release")) for m in MENTION.finditer(text)]
    if not named:
        return []
    block = "\n".join(lines[i] for i in paragraph)
    marker = MARKER.search(block)
    if marker and marker.group("why"):
        return []
    first = named[0][0]
    start, end = next((s, e) for s, e in reversed(sections) if s <= first <= e)
    if _tied_to_releases("\n".join(lines[start : end + 1]), snippets):
        return []
    if marker:
        return [f"{page}:{first + 1}: '<!-- release: -->' gives no reason"]
    releases = ", ".join(dict.fromkeys(r for _, r in named))
    return [
        f"{page}:{first + 1}: names torch {releases} in prose, and no example of its "
        "section is marked '# requires: torch>=X.Y' or 'torch<X.Y': show it by one, or "
        "say why none is needed with <!-- release: why --> in the paragraph"
    ]
