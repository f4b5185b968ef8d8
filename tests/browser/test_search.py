"""Search: from the keyboard and the phone's button, its index fetched only then, and
the term highlighted on a page opened from a result."""

from __future__ import annotations

import json
import re
from urllib.parse import urlparse

from sitelib.site.layout import ROOT

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
    assert "/forward_backward/graphs/" in urlparse(links[0]).path, links
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
    visit.goto("forward_backward/graphs/?h=retain_graph")
    visit.page.wait_for_selector("article mark[data-md-highlight]")
    marked = visit.page.eval_on_selector_all(
        "article mark[data-md-highlight]", "marks => marks.map(m => m.textContent)"
    )
    assert any("retain_graph" in m for m in marked), marked


# -- what a query finds first, and what its previews show --------------------------------
# The section a query must find first: the one that teaches it (issue 35).
FIRST_HIT = {
    "zero_grad": {
        "zeroing_accumulation/#why-gradients-accumulate",
        "zeroing_accumulation/#optimizerzero_grad-or-modelzero_grad",
    },
    "GradScaler": {"mixed_precision/grad_scaler/#the-gradscaler-step-in-order"},
    "clip_grad_norm": {"optimizer_step/scheduler_clipping/#gradient-clipping"},
    "no_sync": {"distributed/ddp_loop/#gradient-accumulation-with-no_sync"},
    "NaN": {"debugging/nan_inf/#nan-and-inf"},
}
# Sections a query must find among its first three hits.
IN_FIRST_THREE = {
    "checkpoint": {
        "training_loop/checkpoints/#checkpoints-save-load-resume",
        "memory/checkpointing/#activation-checkpointing",
    },
}
RESULTS = """() => [...document.querySelectorAll('.md-search-result__item')].map(li =>
  [...li.querySelectorAll('a.md-search-result__link')].map(a => {
    const article = a.querySelector('article');
    const title = article.querySelector('h1, h2');
    const preview = [...article.children].filter(el => el !== title && !el.matches('.md-search-result__icon'));
    return {href: a.getAttribute('href'), score: +article.dataset.mdScore,
            preview: preview.map(el => el.innerText).join('\\n')};
  }))"""


def search(visit, query: str) -> list[list[dict]]:
    """Material's results for ``query``, typed into its search box: one list per page,
    each link's address (without ?h=), score and preview text."""
    visit.goto("", idle=True)
    visit.page.keyboard.press("/")
    visit.page.keyboard.type(query)
    visit.page.wait_for_selector(".md-search-result__item > a")
    visit.page.wait_for_function(
        "q => document.querySelector('.md-search-result__meta')?.textContent.match(/\\d/)",
        arg=query,
    )
    groups = visit.page.evaluate(RESULTS)
    for group in groups:
        for link in group:
            url = urlparse(link["href"])
            link["location"] = url.path.removeprefix(urlparse(visit.base).path) + (
                f"#{url.fragment}" if url.fragment else ""
            )
    return groups


def hits(groups: list[list[dict]]) -> list[str]:
    """The hits a reader sees first: each page's best-scoring section, in page order."""
    return [max(group, key=lambda link: link["score"])["location"] for group in groups]


def ranking_problems(query: str, groups: list[list[dict]]) -> list[str]:
    found, problems = hits(groups), []
    if query in FIRST_HIT and (not found or found[0] not in FIRST_HIT[query]):
        problems.append(f"{query}: first hit {found[:1]}, not one of {sorted(FIRST_HIT[query])}")
    for wanted in sorted(IN_FIRST_THREE.get(query, ())):
        if wanted not in found[:3]:
            problems.append(f"{query}: {wanted} not in the first three hits {found[:3]}")
    return problems


def preview_problems(query: str, groups: list[list[dict]], pairs) -> list[str]:
    from sitelib.check.search_index import text_problems

    return [
        problem
        for group in groups
        for link in group
        for problem in text_problems(
            f"{query}: preview of {link['location']}", link["preview"], pairs
        )
    ]


def test_search_finds_the_teaching_section_first_and_previews_prose(visit) -> None:
    from sitelib.check.search_index import code_pairs

    pairs, problems = code_pairs(), []
    for query in [*FIRST_HIT, *IN_FIRST_THREE]:
        groups = search(visit, query)
        problems += ranking_problems(query, groups) + preview_problems(query, groups, pairs)
    assert not problems, "\n".join(problems)
    assert not visit.errors, visit.errors


def test_search_checks_catch_code_in_a_preview_and_a_lower_hit(visit) -> None:
    """The site's own index with one section's code block put back in its text, as
    Material indexed it before: the preview shows code, a fold's summary and an
    output label; a query whose first hit is another section is caught."""
    from sitelib.check.search_index import code_pairs

    def with_code(route) -> None:
        index = route.fetch().json()
        code = (
            "<pre><code>Set-up, lines 1\u201312: imports, seed and 3 more"
            + (ROOT / "snippets/mixed_precision/scaler_step.py").read_text("utf-8")
            + "Output: #&gt; None\n</code></pre>"
        )
        for entry in index["docs"]:
            if entry["location"] == "mixed_precision/grad_scaler/#the-gradscaler-step-in-order":
                entry["text"] = code + entry["text"]
        route.fulfill(body=json.dumps(index), content_type="application/json")

    visit.page.route("**" + SEARCH_INDEX, with_code)
    groups = search(visit, "GradScaler")
    problems = preview_problems("GradScaler", groups, code_pairs())
    where = "GradScaler: preview of mixed_precision/grad_scaler/#the-gradscaler-step-in-order"
    assert f"{where}: holds the code of snippets/mixed_precision/scaler_step.py" in problems
    assert any(p.startswith(f"{where}: holds a fold's summary") for p in problems), problems
    assert any(p.startswith(f"{where}: holds an output label") for p in problems), problems
    lower = [[{"location": "debugging/nan_inf/#nan-and-inf", "score": 9.0}], *groups]
    assert ranking_problems("GradScaler", lower) == [
        "GradScaler: first hit ['debugging/nan_inf/#nan-and-inf'], not one of "
        "['mixed_precision/grad_scaler/#the-gradscaler-step-in-order']"
    ]
    fourth = [[{"location": f"page{i}/", "score": 1.0}] for i in range(3)]
    assert ranking_problems("checkpoint", fourth) == [
        f"checkpoint: {wanted} not in the first three hits ['page0/', 'page1/', 'page2/']"
        for wanted in sorted(IN_FIRST_THREE["checkpoint"])
    ]
