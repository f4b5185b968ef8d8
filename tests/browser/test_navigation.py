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


def _moved_links(site) -> list[tuple[str, str, str]]:
    """(old page, id, the sub-page it now lives on), one per split chapter."""
    from sitelib.check.anchors import destination, old_anchors

    found = {}
    for url, anchors in old_anchors().items():
        for anchor in anchors:
            target = destination(url, anchor, site)
            if target not in (None, url):
                found.setdefault(url, (url, anchor, target))
    return list(found.values())


def test_an_old_link_arrives_where_its_heading_moved(site_visit, built_site, same_document) -> None:
    """A link from before a chapter was split (docs/assets/moved.js): opened, and after
    an instant navigation to the chapter followed by a change of the address's #."""
    from playwright.sync_api import expect

    visit, page = site_visit, site_visit.page
    moved = _moved_links(built_site[1])
    assert moved, "no chapter page had a heading moved to a sub-page"
    for url, anchor, target in moved:
        page.goto(f"{visit.base}{url}#{anchor}")  # moved.js goes on at once: no settling here
        expect(page).to_have_url(f"{visit.base}{target}#{anchor}")
        expect(page.locator(f"[id='{anchor}']")).to_be_in_viewport()
    url, anchor, target = moved[0]
    visit.goto("")
    link = page.locator(f".md-nav--primary a[href$='{url}']").first
    assert same_document(page, link.click), "the chapter link was a full page load"
    page.evaluate(f"location.hash = {anchor!r}")
    expect(page).to_have_url(f"{visit.base}{target}#{anchor}")


def test_old_link_check_fails_without_the_map(visit, built_site) -> None:
    """The chapter page served without its map: a moved id leaves the address where
    it was, what the test above would then see, and fail on."""
    import re

    from playwright.sync_api import expect

    from sitelib.site.anchors import ELEMENT_ID

    url, anchor, _ = _moved_links(built_site[1])[0]
    html = (built_site[1] / url / "index.html").read_text("utf-8")
    stripped, count = re.subn(rf'<div id="{ELEMENT_ID}"[^>]*></div>', "", html)
    assert count == 1, f"/{url}: {count} maps"
    visit.page.route(
        f"{visit.base}{url}", lambda route: route.fulfill(body=stripped, content_type="text/html")
    )
    visit.page.goto(f"{visit.base}{url}#{anchor}")
    visit.settle()
    visit.page.wait_for_timeout(1500)  # what moved.js would have done by now
    expect(visit.page).to_have_url(f"{visit.base}{url}#{anchor}")
