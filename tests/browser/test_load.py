"""Every page loads without console errors and asks nothing of another host (the
tour records both while it runs every other check on the page)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitelib.site.static_site import CHROMIUM_APPS


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
    with pytest.raises(pytest.skip.Exception, match="no Chromium not found: install it"):
        chromium_rule(None, ci=False)


def test_the_browser_is_found_where_systems_install_it(tmp_path: Path) -> None:
    from sitelib.site.static_site import find_chromium

    (tmp_path / "bin").mkdir()
    browser = tmp_path / "bin" / "chromium-browser"  # Ubuntu's name
    browser.write_text("#!/bin/sh\n")
    browser.chmod(0o755)
    assert find_chromium({"PATH": str(tmp_path / "bin")}) == browser
    assert find_chromium({"PATH": str(tmp_path / "bin"), "CHROMIUM": "/opt/c"}) == Path("/opt/c")
    assert find_chromium({"PATH": str(tmp_path / "empty")}) in (None, *map(Path, CHROMIUM_APPS))
