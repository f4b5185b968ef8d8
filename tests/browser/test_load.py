"""Every page loads without console errors and asks nothing of another host (the
tour records both while it runs every other check on the page)."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_every_page_loads_clean_and_local(tour) -> None:
    assert tour.pages, "the tour visited no page"
    assert not tour.load, "\n".join(tour.load)


def test_load_checks_catch_a_broken_page(fixture_page) -> None:
    tab = fixture_page("broken.html")
    tab.page.wait_for_load_state("networkidle")
    assert tab.foreign == ["https://cdn.example.org/tracker.js"]
    assert any("broken on purpose" in e for e in tab.errors), tab.errors


def test_missing_browser_fails_in_ci_and_skips_elsewhere(tmp_path: Path, chromium_rule) -> None:
    with pytest.raises(pytest.fail.Exception, match="not found"):
        chromium_rule(tmp_path / "chromium", ci=True)
    with pytest.raises(pytest.skip.Exception, match="not found"):
        chromium_rule(tmp_path / "chromium", ci=False)
