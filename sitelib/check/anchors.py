"""Links from before a chapter was split still arrive: every heading id a chapter page
had (``tests/fixtures/anchors/before_the_split.json``, the ids of main's chapter pages
before the first split) is on that page of the built site, or in the page's moved-anchors
map (:mod:`sitelib.site.anchors`) pointing at a page that has it.

Read by tests/test_site.py (every id, on the built files) and by the browser test that
follows one such link (tests/browser/test_navigation.py).
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from sitelib.site.anchors import ELEMENT_ID
from sitelib.site.layout import ROOT

BEFORE = ROOT / "tests" / "fixtures" / "anchors" / "before_the_split.json"
HEADING_ID = re.compile(r'<h[1-6][^>]*\sid="([^"]+)"')
MAP = re.compile(rf"<div id=\"{ELEMENT_ID}\" hidden data-anchors='([^']*)'")


def old_anchors(path: Path = BEFORE) -> dict[str, list[str]]:
    """``{page URL: [heading id, ...]}`` as the chapters had them."""
    return json.loads(path.read_text("utf-8"))


def page_anchors(site: Path, url: str) -> tuple[set[str], dict[str, str]]:
    """A built page's heading ids and its moved-anchors map (relative URLs)."""
    file = site / url / "index.html"
    if not file.is_file():
        return set(), {}
    text = file.read_text("utf-8")
    found = MAP.search(text)
    return set(HEADING_ID.findall(text)), json.loads(html.unescape(found[1])) if found else {}


def destination(url: str, anchor: str, site: Path) -> str | None:
    """Where ``/url#anchor`` ends up on the built site (``url`` itself or the sub-page
    its map names, as a site-relative URL), or None when the id is nowhere."""
    ids, moved = page_anchors(site, url)
    if anchor in ids:
        return url
    if anchor in moved:
        target = posixpath.normpath(posixpath.join(url, moved[anchor])).lstrip("./") + "/"
        if anchor in page_anchors(site, target)[0]:
            return target
    return None


def old_anchor_problems(
    site: Path, old: Mapping[str, Sequence[str]], source: Path = BEFORE
) -> list[str]:
    """Each old link that no longer arrives, naming the fixture's line that lists it."""
    lines = source.read_text("utf-8").splitlines() if source.is_file() else []
    problems = []
    for url, anchors in old.items():
        # The id's line under its page's key: "exercise" is listed under several pages.
        start = next((n for n, t in enumerate(lines, 1) if f'"{url}":' in t), 0)
        for anchor in anchors:
            if destination(url, anchor, site) is None:
                after = enumerate(lines[start:], start + 1)
                line = next((n for n, t in after if f'"{anchor}"' in t), 0)
                problems.append(
                    f"{source.relative_to(ROOT) if source.is_relative_to(ROOT) else source}:"
                    f"{line}: /{url}#{anchor} arrives nowhere: no heading with that id on "
                    f"/{url}, and no entry for it in that page's moved-anchors map"
                )
    return problems
