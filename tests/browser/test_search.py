"""Search: from the keyboard and the phone's button, its index fetched only then, and
the term highlighted on a page opened from a result."""

from __future__ import annotations

import re
from urllib.parse import urlparse

SEARCH_INDEX = "/search/search_index.json"


def test_search_finds_a_chapter_by_its_own_term(visit) -> None:
    visit.goto("", idle=True)
    assert SEARCH_INDEX not in visit.requested, "the search index is loaded before search opens"
    visit.page.keyboard.press("/")  # Material's search shortcut
    visit.page.keyboard.type("retain_graph")
    visit.page.wait_for_selector(".md-search-result__item > a")
    assert visit.requested.count(SEARCH_INDEX) == 1, visit.requested
    links = visit.page.eval_on_selector_all(
        ".md-search-result__item > a", "items => items.map(a => a.getAttribute('href'))"
    )
    assert "/forward_backward/" in urlparse(links[0]).path, links
    assert not visit.errors, visit.errors


def test_search_index_check_catches_an_eager_load(visit) -> None:
    """The same page with the hold-back script removed asks for the index at once."""

    def without_hold_back(route) -> None:
        html = route.fetch().text()
        eager = re.sub(r'<script id="search-on-demand">.*?</script>', "", html, flags=re.S)
        assert eager != html, "the hold-back script was not found in the page"
        route.fulfill(body=eager, content_type="text/html")

    visit.page.route(visit.base, without_hold_back)
    visit.goto("", idle=True)
    assert SEARCH_INDEX in visit.requested


def test_search_opens_from_its_button_on_a_phone(visit) -> None:
    visit.page.set_viewport_size({"width": 390, "height": 800})
    visit.goto("forward_pass/", idle=True)
    visit.page.click("label.md-header__button[for=__search]")
    visit.page.keyboard.type("inference_mode")
    visit.page.wait_for_selector(".md-search-result__item > a")
    assert visit.requested.count(SEARCH_INDEX) == 1, visit.requested


def test_a_page_opened_from_a_search_result_highlights_the_term(visit) -> None:
    visit.goto("forward_backward/?h=retain_graph")
    visit.page.wait_for_selector("article mark[data-md-highlight]")
    marked = visit.page.eval_on_selector_all(
        "article mark[data-md-highlight]", "marks => marks.map(m => m.textContent)"
    )
    assert any("retain_graph" in m for m in marked), marked
