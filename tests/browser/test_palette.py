"""The light/dark toggle: from mouse and keyboard, remembered, and a first visit
follows the system's colour scheme."""

from __future__ import annotations


def _toggle(visit) -> None:
    visit.page.locator("[data-palette-toggle] button:visible").click()


def test_palette_toggle_switches_and_is_remembered(visit) -> None:
    from playwright.sync_api import expect

    visit.goto("")
    first = visit.scheme()
    _toggle(visit)
    second = visit.scheme()
    assert {first, second} == {"default", "slate"}
    visit.page.reload(wait_until="load")
    assert visit.scheme() == second
    visit.goto("forward_pass/")
    assert visit.scheme() == second
    # From the keyboard: focus stays on the toggle, so Enter switches back.
    visit.page.locator("[data-palette-toggle] button:visible").focus()
    visit.page.keyboard.press("Enter")
    assert visit.scheme() == first
    expect(visit.page.locator("[data-palette-toggle] button:visible")).to_be_focused()


def test_first_visit_follows_the_system_colour_scheme(visit) -> None:
    from playwright.sync_api import expect

    page = visit.page
    for preference, scheme in (("dark", "slate"), ("light", "default")):
        page.emulate_media(color_scheme=preference)
        visit.goto("")
        page.evaluate("localStorage.clear()")
        visit.goto("forward_pass/")
        assert visit.scheme() == scheme, preference
        expect(page.locator("[data-palette-toggle] button:visible")).to_have_count(1)
