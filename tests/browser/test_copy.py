"""Every code block has a copy button, and a snippet's button copies exactly its file
without the annotation markers (and without what is only drawn: the output labels,
a fold's summary), which tests/test_fresh.py runs in a fresh process against the
page's #> lines: what a reader pastes prints what the page shows."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from sitelib.site.layout import ROOT, file_url, includes_in, page_files, snippet_files
from sitelib.site.snippets import ANNOTATION, as_copied

COPY_EVERY_BLOCK = (Path(__file__).parent / "probes" / "copy_every_block.js").read_text("utf-8")


def copied_blocks(tab) -> list[tuple[str, str]]:
    """(title, clipboard text) for every code block on the page, each of which must
    have a copy button."""
    copied = []
    for i, block in enumerate(tab.page.evaluate(COPY_EVERY_BLOCK), 1):
        assert not block.get("missing"), f"code block {i} has no copy button"
        copied.append((block["title"], block["text"]))
    return copied


def _lines(text: str) -> list[str]:
    """Lines without trailing blanks (Material leaves the spaces before a stripped annotation)."""
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


def page_check_copy(tab, path: str) -> tuple[int, list[str]]:
    """(how many snippets were found behind a button, what is wrong)."""
    if path.startswith("notebooks/"):  # not checked yet: CONTRIBUTING.md, "Performance"
        return 0, []
    problems, copied = [], 0
    for title, text in copied_blocks(tab):
        if not text.strip():
            problems.append(f"/{path}: a copy button copied nothing")
        if ANNOTATION.search(text) or text.lstrip().startswith((">>>", "$ ")):
            problems.append(f"/{path}: {title or 'a block'}: copied text has markers or prompts")
        matches = [p for p in snippet_files() if p.name == title] if title.endswith(".py") else []
        if not matches:
            continue
        if any(_lines(text) == _lines(as_copied(m.read_text("utf-8"))) for m in matches):
            copied += 1
        else:
            problems.append(
                f"/{path}: {title}: clipboard differs from {matches[0].relative_to(ROOT)}"
            )
    return copied, problems


def shows_a_snippet(path: str) -> bool:
    """Whether the page at ``path`` (``complete/proof/``) includes a snippet: a part of
    a chapter may be prose only (docs/complete/proof.md)."""
    sources = {file_url(p): p for p in page_files()}
    return path in sources and bool(includes_in(sources[path]))


def test_copy_button_copies_the_exact_snippet(tour) -> None:
    chapters = [
        p
        for p in tour.pages
        if p and not p.startswith(("notebooks/", "authors/")) and shows_a_snippet(p)
    ]
    copied = sum(n for (check, _), n in tour.counts.items() if check == "copy")
    assert copied or not chapters, "no snippet was found behind any copy button"
    assert not tour.problems["copy"], "\n".join(tour.problems["copy"])


def test_copy_check_catches_a_block_without_a_button(fixture_page) -> None:
    tab = fixture_page("broken.html")
    with pytest.raises(AssertionError, match="code block 1 has no copy button"):
        copied_blocks(tab)


def copied_file(tab, name: str) -> tuple[str, list[str]]:
    """Click the page's "Copy <name>" link (docs/assets/copy-file.js): (clipboard text,
    what went wrong)."""
    tab.page.evaluate("navigator.clipboard.writeText('')")
    link = tab.page.locator("a.copy-file", has_text=f"Copy {name}")
    if link.count() != 1:
        return "", [f"{link.count()} 'Copy {name}' links on the page, not 1"]
    before = tab.page.url
    link.click()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if tab.page.url != before:  # copy-file.js fell back to opening the file
            return "", [f"'Copy {name}' opened {tab.page.url} instead of copying it"]
        try:
            if text := tab.page.evaluate("navigator.clipboard.readText()"):
                return text, []
        except PlaywrightError:  # the page went away under the call: the fallback
            continue
        tab.page.wait_for_timeout(100)
    return "", [f"'Copy {name}' put nothing on the clipboard within 5 s"]


def test_the_whole_script_is_copied_as_downloaded(visit) -> None:
    """The complete chapter's "Copy train.py" puts the file the suite tests on the
    clipboard, as the download gives it (hooks/downloads.py), and says so."""
    script = ROOT / "snippets" / "complete" / "train.py"
    visit.goto("complete/")
    text, problems = copied_file(visit, "train.py")
    assert not problems, problems
    assert text == as_copied(script.read_text("utf-8")), "clipboard differs from train.py"
    assert visit.page.locator(".md-dialog", has_text="Copied to clipboard").is_visible()


def test_copy_file_check_catches_a_file_it_cannot_fetch(fixture_page) -> None:
    """A link to a file the site does not serve falls back to opening it: the check
    reports that, naming the link."""
    tab = fixture_page("copy-file.html")
    tab.page.add_script_tag(path=ROOT / "docs" / "assets" / "copy-file.js")
    text, problems = copied_file(tab, "missing.py")
    assert text == "" and len(problems) == 1, problems
    assert problems[0].startswith("'Copy missing.py' opened ") and "missing.py" in problems[0]
