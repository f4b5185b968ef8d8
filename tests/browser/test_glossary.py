"""A glossary term's tooltip (sitelib/site/glossary.py, Material's content.tooltips)
shows its definition on hover and on keyboard focus at 1280 px, and on a tap on a
390 px touch screen."""

from __future__ import annotations

import re

PAGE = "distributed/"
SHOWN = """() => [...document.querySelectorAll('.md-tooltip2--active')]
  .map(t => t.innerText).filter(t => t.trim())"""


def tooltip_after(page, action: str) -> tuple[str, list[str]]:
    """(the first dotted term's definition, the tooltips shown after ``action`` on it:
    hover, focus or tap)."""
    term = page.locator("article abbr[title]").first
    term.scroll_into_view_if_needed()
    definition = term.get_attribute("title") or ""
    getattr(term, action)()
    try:
        page.wait_for_function(f"() => ({SHOWN})().length", timeout=2000)
    except Exception:  # noqa: BLE001 (Playwright's timeout: nothing shown)
        pass
    return definition, page.evaluate(SHOWN)


def tooltip_problems(definition: str, shown: list[str], how: str) -> list[str]:
    if not definition:
        return [f"{how}: no dotted term on /{PAGE}"]
    if not any(definition[:40] in text for text in shown):
        return [f"{how}: the tooltip does not show {definition[:40]!r} (shown: {shown})"]
    return []


def test_a_term_shows_its_definition_on_hover_and_on_focus(visit) -> None:
    visit.goto(PAGE)
    problems = tooltip_problems(*tooltip_after(visit.page, "hover"), "hover at 1280")
    visit.page.mouse.move(0, 0)
    visit.goto(PAGE)
    problems += tooltip_problems(*tooltip_after(visit.page, "focus"), "focus at 1280")
    assert not problems, problems


def test_a_term_shows_its_definition_on_a_tap(browser, site_url) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True
    )
    try:
        page = context.new_page()
        page.goto(site_url + PAGE)
        assert not tooltip_problems(*tooltip_after(page, "tap"), "tap at 390")
    finally:
        context.close()


def test_tooltip_check_catches_a_page_without_tooltips(visit) -> None:
    """The same page with content.tooltips left out of Material's configuration: the
    browser's own title tooltip is not drawn in the page, so the check fails."""

    def without_tooltips(route) -> None:
        page = route.fetch().text()
        changed = re.sub(r'"content\.tooltips",?', "", page)
        assert changed != page, "content.tooltips not found in the page's configuration"
        route.fulfill(body=changed, content_type="text/html")

    visit.page.route(visit.base + PAGE, without_tooltips)
    visit.goto(PAGE)
    problems = tooltip_problems(*tooltip_after(visit.page, "hover"), "hover at 1280")
    assert problems and problems[0].startswith("hover at 1280: the tooltip does not show"), problems
