"""Reading progress, kept in this browser: a chapter marked complete stays so after a
reload and instant navigation, is marked in the navigation and in the home page's
list; the home page offers to continue where the reader left off; resetting asks
first and forgets everything only when confirmed."""

from __future__ import annotations

import re


def test_progress_marks_continues_and_resets_when_confirmed(site_visit, same_document) -> None:
    from playwright.sync_api import expect

    visit, page = site_visit, site_visit.page
    visit.goto("forward_pass/modes/")  # the button ends a chapter's last part
    button = page.locator("[data-chapter-complete]")
    expect(button).to_have_attribute("aria-pressed", "false")
    mark = page.locator(".md-sidebar--primary a[href$='forward_pass/'] .nav-done")
    expect(mark).to_have_count(0)
    button.focus()
    page.keyboard.press("Enter")  # reachable and usable from the keyboard
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(mark).to_have_count(1)
    page.reload(wait_until="load")
    expect(page.locator("[data-chapter-complete]")).to_have_attribute("aria-pressed", "true")
    expect(mark).to_have_text("✓ (complete)")

    # A later chapter read, not completed: the home page offers to continue there.
    link = page.locator(".md-nav--primary a[href$='optimizer_step/']").first
    assert same_document(page, link.click), "the chapter link was a full page load"
    home = page.locator("a.md-header__button.md-logo")
    assert same_document(page, home.click), "the home link was a full page load"
    expect(page).to_have_url(visit.base)
    count = page.locator(".progress-count")
    expect(count).to_have_text(re.compile(r"^1 of \d+ chapters complete\."))
    expect(
        page.locator(".chapter-list [data-chapter='forward_pass/'] .chapter-done")
    ).to_be_visible()
    expect(
        page.locator(".chapter-list [data-chapter='training_loop/'] .chapter-done")
    ).to_be_hidden()
    cont = page.locator("[data-progress-continue]")
    expect(cont).to_have_text(re.compile(r"^Continue where you left off: 4\. The optimizer step"))
    expect(cont).to_have_attribute("href", re.compile(r"/optimizer_step/$"))

    # Reset asks first; Cancel keeps everything.
    page.click("[data-progress-reset]")
    expect(page.locator("[data-progress-confirm]")).to_be_visible()
    expect(page.locator("[data-progress-reset-no]")).to_be_focused()
    page.keyboard.press("Enter")  # Cancel
    expect(page.locator("[data-progress-confirm]")).to_be_hidden()
    expect(count).to_have_text(re.compile(r"^1 of \d+ chapters complete\."))
    # Confirmed: nothing is left, and the continue link starts at chapter 1.
    page.click("[data-progress-reset]")
    page.click("[data-progress-reset-yes]")
    expect(count).to_have_text(re.compile(r"^0 of \d+ chapters complete\."))
    expect(page.locator(".chapter-list .chapter-done:visible")).to_have_count(0)
    expect(cont).to_have_text(re.compile(r"^Start with chapter 1: The forward pass"))
    expect(page.locator(".md-sidebar--primary .nav-done")).to_have_count(0)
    visit.goto("forward_pass/modes/")
    expect(page.locator("[data-chapter-complete]")).to_have_attribute("aria-pressed", "false")
