"""How the site knows stays out of the teaching prose.

A reader can act on "needs torch 2.13 or newer" or "not yet run on a GPU"; they
cannot act on which machine ran an example, under what load, how many runs, or that
a fact was tried by hand outside the test suite. That knowledge is the site's: it
lives in markers (``<!-- checked: ... -->``, ``<!-- release: ... -->``,
``<!-- reasoned: ... -->``), which the build gathers into each page's generated "How
this page was checked" box (:mod:`sitelib.site.checked`), in the verification records
and on the authors' pages.

:data:`VOCABULARY` is the words that say how the site checked something; each entry
names what it catches. :func:`provenance_problems` reports each one found in a page's
prose (comments, fences and code spans are not prose), naming the page and the line.
A page whose subject is how its code is checked (the complete chapter's proof page,
the home page's promise) says so in its front matter, with the reason::

    checks-are-the-subject: this page says what the test suite proves

``hooks/prose.py`` runs the check on every page, so ``mkdocs build --strict`` fails;
``tests/test_site.py`` runs it on every page and self-tests it both ways.
"""

from __future__ import annotations

import re

from sitelib.site.markdown_scan import front_matter_end, prose

EXEMPT_KEY = "checks-are-the-subject"

# (pattern, what it is): the words that say how the site knows something.
VOCABULARY: tuple[tuple[str, str], ...] = (
    (r"\b(?:test[ -])?suite(?:'s)?\b", "the test suite"),
    (r"\btried(?:\s+it)?\s+(?:here|by\s+hand|on\s+\d|outside)", "a try outside the checks"),
    (r"\b(?:checked|measured|counted|verified|seen|run)\s+by\s+hand\b", "a check by hand"),
    (
        r"\bunder\s+(?:the\s+same\s+)?load\b|\bkept\s+busy\b|\bbusy\s+machine\b",
        "the machine's load",
    ),
    (r"\bother\s+(?:agents|programs)\b|\bagents?\b", "other programs on the machine"),
    (r"\b(?:two|2)-core\b|\bdevelopment\s+machine\b", "the machine that ran it"),
    (r"\b\d+\s+(?:of|in|out\s+of)\s+\d+\s+runs?\b", "a count of runs"),
    (r"\b\d+\s+runs?\s+(?:in|of|out\s+of)\s+\d+\b", "a count of runs"),
    (
        r"\b(?:in|over|across)\s+the\s+runs\s+measured\b|\b(?:\d+|two|three|four|five|ten)\s+runs\s+each\b",
        "a count of runs",
    ),
    (r"\bmeasured\s+(?:here|for\s+this\s+page|under|on\s+(?:the\s+CPU|torch|\d))", "a measurement"),
    (r"\(measured\b", "a measurement"),
    (
        r"\bread\s+in\s+(?:torch\s+)?[\d.]+(?:'s)?\s+(?:\w+\s+)?source\b",
        "a reading of torch's source",
    ),
    (
        r"\bread\s+in\s+(?:the\s+)?(?:torch\s+)?source\b|\bread,\s+not\s+run\b",
        "a reading of torch's source",
    ),
    (r"\breasoned\b", "an output reasoned, not run"),
    (r"\bnot\s+run\s+(?:here|by\b)", "what was not run"),
    (
        r"\b(?:this|the)\s+site's\s+(?:tests?|checks?|records?|suite|CI|machine)\b",
        "the site's checks",
    ),
    (r"\bverification\s+records?\b", "the verification records"),
    (r"\bmake\s+test\b", "the site's test command"),
)
PATTERNS = tuple((re.compile(p, re.I), what) for p, what in VOCABULARY)
EXEMPT = re.compile(rf"^{EXEMPT_KEY}:\s*(?P<why>\S.*)$", re.M)


def exempt(markdown: str) -> str | None:
    """The reason a page gives for being about how its code is checked, if any."""
    lines = markdown.split("\n")
    front = "\n".join(lines[: front_matter_end(lines)])
    return m.group("why").strip() if (m := EXEMPT.search(front)) else None


def provenance_problems(markdown: str, page: str) -> list[str]:
    """Each phrase of the page's prose that says how the site checked something, as
    ``page:line: ...``; none on a page exempt by its front matter."""
    if exempt(markdown):
        return []
    text = prose(markdown)
    found = sorted(
        (m.start(), m.group(0), what) for pattern, what in PATTERNS for m in pattern.finditer(text)
    )
    problems = []
    for start, phrase, what in found:
        number = text.count("\n", 0, start) + 1
        problems.append(
            f"{page}:{number}: '{' '.join(phrase.split())}' says how the site checked this "
            f"({what}): keep the teaching and move that to a <!-- checked: ... --> marker, "
            "which the page's 'How this page was checked' box shows"
        )
    return problems
