"""Instant navigation (Material's, at the site's real address) keeps what the site
adds working: the palette toggle, the copy buttons."""

from __future__ import annotations


def test_instant_navigation_keeps_the_toggle_and_copy_buttons(site_visit, same_document) -> None:
    from playwright.sync_api import expect

    visit, page = site_visit, site_visit.page
    visit.goto("forward_pass/")
    link = page.locator(".md-nav--primary a[href$='training_loop/']").first
    assert same_document(page, link.click), "the chapter link was a full page load"
    expect(page).to_have_url(visit.base + "training_loop/")
    first = visit.scheme()
    for _ in range(2):  # one listener: one click switches once
        page.locator("[data-palette-toggle] button:visible").click()
        assert (visit.scheme() != first) == (_ == 0)
    code = page.locator(".md-content pre > code").nth(3)
    code.scroll_into_view_if_needed()
    button = code.locator("xpath=..").locator(
        ":scope > nav > button.md-code__button[data-md-type=copy]"
    )
    expect(button).to_have_count(1)


def test_instant_navigation_check_catches_a_full_page_load(visit, same_document) -> None:
    visit.goto("forward_pass/")  # on 127.0.0.1:<port> Material does not navigate instantly
    assert not same_document(visit.page, visit.page.locator("a.md-header__button.md-logo").click)
