"""The built site in a real browser (Debian's Chromium driven by Playwright).

Served from 127.0.0.1; every request to any other host is recorded and blocked.
Without /usr/bin/chromium these tests skip on a developer machine and fail in CI
(CI=true), where .ci/run installs it.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest

from sitelib.examples import ANNOTATION, without_annotations
from sitelib.site.layout import ROOT, load_config
from sitelib.site.static_site import serve

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

pytestmark = pytest.mark.browser


def copy_button(code):
    """The copy button Material puts on the ``pre`` of a ``pre > code`` block."""
    return code.locator("xpath=..").locator(
        ":scope > nav > button.md-code__button[data-md-type=copy]"
    )


@pytest.fixture(scope="session")
def site_url(built_site) -> Iterator[str]:
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    with serve(site) as url:
        yield url


def require_chromium(path: Path, ci: bool) -> None:
    """No browser: a failure in CI, a skip (with the reason) on a developer's machine."""
    if not path.exists():
        message = f"{path} not found: install Debian's chromium (.ci/run does)"
        if ci:
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def browser():
    require_chromium(CHROMIUM, os.environ.get("CI") == "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield browser
        browser.close()


class Visit:
    """A browser tab that records console errors and blocks requests to other hosts."""

    def __init__(self, browser, base: str) -> None:
        self.context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
        self.page = self.context.new_page()
        self.base = base
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.requested: list[str] = []  # paths asked of the site's own server
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)

    def _route(self, route) -> None:
        url = urlparse(route.request.url)
        if url.hostname in ("127.0.0.1", None):
            self.requested.append(url.path)
            route.continue_()
        else:
            self.foreign.append(route.request.url)
            route.abort()

    def goto(self, path: str, *, idle: bool = False) -> None:
        """Open a page; ``idle`` waits until no request is left (for request checks)."""
        self.page.goto(self.base + path, wait_until="networkidle" if idle else "load")
        # Material and the site's scripts finish their work in animation frames, and
        # a11y.js its last pass when the browser is idle.
        self.page.evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() =>"
            " requestIdleCallback(r, {timeout: 2000}))))"
        )


@pytest.fixture
def visit(browser, site_url) -> Iterator[Visit]:
    tab = Visit(browser, site_url)
    yield tab
    tab.context.close()


class SiteVisit(Visit):
    """A tab that opens the site at its real address (``site_url``), answered from
    the build folder. Material's instant navigation only follows links whose host
    and port match its sitemap's, so on 127.0.0.1:<port> every click is a full page
    load; here, as on GitHub Pages, it takes over."""

    def __init__(self, browser, site: Path) -> None:
        self.site = site
        super().__init__(browser, load_config()["site_url"])

    def _route(self, route) -> None:
        url = urlparse(route.request.url)
        base = urlparse(self.base)
        if (url.scheme, url.netloc) != (base.scheme, base.netloc):
            return super()._route(route)
        file = self.site / url.path.removeprefix(base.path)
        file = file / "index.html" if file.is_dir() else file
        if file.is_file():
            route.fulfill(path=file)
        else:
            route.fulfill(status=404, body="not found")


@pytest.fixture
def site_visit(browser, built_site) -> Iterator[SiteVisit]:
    tab = SiteVisit(browser, built_site[1])
    yield tab
    tab.context.close()


def same_document(page, action) -> bool:
    """Whether ``action`` (a click) kept the page's JavaScript state: instant navigation."""
    page.evaluate("window.__before_navigation = true")
    action()
    page.wait_for_load_state("load")
    return page.evaluate("window.__before_navigation === true")


def pages(built_site) -> list[str]:
    _, site = built_site
    return sorted(
        p.parent.relative_to(site).as_posix() + "/" if p.parent != site else ""
        for p in site.rglob("index.html")
    )


SEARCH_INDEX = "/search/search_index.json"


def test_search_finds_a_chapter_by_its_own_term(visit: Visit) -> None:
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


def test_search_index_check_catches_an_eager_load(visit: Visit) -> None:
    """The same page with the hold-back script removed asks for the index at once."""

    def without_hold_back(route) -> None:
        html = route.fetch().text()
        eager = re.sub(r'<script id="search-on-demand">.*?</script>', "", html, flags=re.S)
        assert eager != html, "the hold-back script was not found in the page"
        route.fulfill(body=eager, content_type="text/html")

    visit.page.route(visit.base, without_hold_back)
    visit.goto("", idle=True)
    assert SEARCH_INDEX in visit.requested


def test_search_opens_from_its_button_on_a_phone(visit: Visit) -> None:
    visit.page.set_viewport_size({"width": 390, "height": 800})
    visit.goto("forward_pass/", idle=True)
    visit.page.click("label.md-header__button[for=__search]")
    visit.page.keyboard.type("inference_mode")
    visit.page.wait_for_selector(".md-search-result__item > a")
    assert visit.requested.count(SEARCH_INDEX) == 1, visit.requested


def test_a_page_opened_from_a_search_result_highlights_the_term(visit: Visit) -> None:
    visit.goto("forward_backward/?h=retain_graph")
    visit.page.wait_for_selector("article mark[data-md-highlight]")
    marked = visit.page.eval_on_selector_all(
        "article mark[data-md-highlight]", "marks => marks.map(m => m.textContent)"
    )
    assert any("retain_graph" in m for m in marked), marked


# Copy every code block the way a reader does: reveal it (open its collapsed block,
# select its tab), scroll it into view (Material sets a block up as it appears:
# content.lazy), wait for its copy button, click it, read the clipboard. Run in the page,
# one block after another, as one script: (title, text), or missing: true.
COPY_EVERY_BLOCK = """async () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const reveal = (node) => {
    for (let el = node; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") el.open = true;
      if (el.parentElement && el.parentElement.classList.contains("tabbed-content")) {
        const set = el.closest(".tabbed-set");
        const index = [...el.parentElement.children].indexOf(el);
        set.querySelectorAll(":scope > input")[index].click();
      }
    }
  };
  const copied = [];
  for (const code of document.querySelectorAll(".md-content pre > code")) {
    reveal(code);
    code.scrollIntoView({ block: "center" });
    const find = () => code.parentElement.querySelector(
      ":scope > nav > button.md-code__button[data-md-type=copy]");
    let button = find();  // set up already when it was in view before
    for (let t = 0; t < 120 && !button; t++) { await frame(); button = find(); }
    const title = code.closest(".highlight")?.querySelector(".filename")?.textContent || "";
    if (!button) { copied.push({ title, missing: true }); continue; }
    await navigator.clipboard.writeText("");
    button.click();
    let text = "";
    for (let t = 0; t < 60 && !text; t++) {  // a clipboard write takes a task or two, not a frame
      text = await navigator.clipboard.readText();
      if (!text) await new Promise((resolve) => setTimeout(resolve, 4));
    }
    copied.push({ title, text });
  }
  return copied;
}"""


def _copied_blocks(visit: Visit) -> list[tuple[str, str]]:
    """(title, clipboard text) for every code block on the page, each of which must
    have a copy button."""
    copied = []
    for i, block in enumerate(visit.page.evaluate(COPY_EVERY_BLOCK), 1):
        assert not block.get("missing"), f"code block {i} has no copy button"
        copied.append((block["title"], block["text"]))
    return copied


def _lines(text: str) -> list[str]:
    """Lines without trailing blanks (Material leaves the spaces before a stripped annotation)."""
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


def copy_problems(visit: Visit, path: str) -> tuple[int, list[str]]:
    """Each copy button gives its snippet file without the annotation markers, which
    tests/test_fresh.py runs in a fresh process against the page's #> lines: (how many
    snippets were found behind a button, what is wrong)."""
    problems, copied = [], 0
    for title, text in _copied_blocks(visit):
        if not text.strip():
            problems.append(f"/{path}: a copy button copied nothing")
        if ANNOTATION.search(text) or text.lstrip().startswith((">>>", "$ ")):
            problems.append(f"/{path}: {title or 'a block'}: copied text has markers or prompts")
        matches = sorted((ROOT / "snippets").glob(f"*/{title}")) if title.endswith(".py") else []
        if not matches:
            continue
        if any(_lines(text) == _lines(without_annotations(m.read_text("utf-8"))) for m in matches):
            copied += 1
        else:
            problems.append(
                f"/{path}: {title}: clipboard differs from {matches[0].relative_to(ROOT)}"
            )
    return copied, problems


def test_progress_survives_reload_and_navigation_and_resets(site_visit: SiteVisit) -> None:
    from playwright.sync_api import expect

    visit = site_visit
    page = visit.page
    visit.goto("forward_pass/")
    button = page.locator("[data-chapter-complete]")
    expect(button).to_have_attribute("aria-pressed", "false")
    button.focus()
    page.keyboard.press("Enter")  # reachable and usable from the keyboard
    expect(button).to_have_attribute("aria-pressed", "true")
    page.reload(wait_until="load")
    expect(page.locator("[data-chapter-complete]")).to_have_attribute("aria-pressed", "true")
    count = page.locator(".progress-count")
    home = page.locator("a.md-header__button.md-logo")
    assert same_document(page, home.click), "the home link was a full page load"
    expect(page).to_have_url(visit.base)
    expect(count).to_have_text(re.compile(r"^1 of \d+ chapters complete$"))
    expect(page.locator(".progress-list a")).to_have_text(["The forward pass"])
    page.click("[data-progress-reset]")
    expect(count).to_have_text(re.compile(r"^0 of \d+ chapters complete$"))
    expect(page.locator(".progress-list a")).to_have_count(0)
    visit.goto("forward_pass/")
    expect(page.locator("[data-chapter-complete]")).to_have_attribute("aria-pressed", "false")


def _scheme(visit: Visit) -> str:
    return visit.page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def _toggle_palette(visit: Visit) -> None:
    visit.page.locator("[data-palette-toggle] button:visible").click()


def _switch_palette(visit: Visit) -> None:
    """The toggle's click, dispatched in the page: what a reader's click runs, without
    Playwright's checks that the button can be clicked (tested above, once)."""
    visit.page.evaluate(
        "document.querySelector('[data-palette-toggle] button:not([hidden])').click()"
    )


def test_palette_toggle_switches_and_is_remembered(visit: Visit) -> None:
    from playwright.sync_api import expect

    visit.goto("")
    first = _scheme(visit)
    _toggle_palette(visit)
    second = _scheme(visit)
    assert {first, second} == {"default", "slate"}
    visit.page.reload(wait_until="load")
    assert _scheme(visit) == second
    visit.goto("forward_pass/")
    assert _scheme(visit) == second
    # From the keyboard: focus stays on the toggle, so Enter switches back.
    visit.page.locator("[data-palette-toggle] button:visible").focus()
    visit.page.keyboard.press("Enter")
    assert _scheme(visit) == first
    expect(visit.page.locator("[data-palette-toggle] button:visible")).to_be_focused()


def test_first_visit_follows_the_system_colour_scheme(visit: Visit) -> None:
    from playwright.sync_api import expect

    page = visit.page
    for preference, scheme in (("dark", "slate"), ("light", "default")):
        page.emulate_media(color_scheme=preference)
        visit.goto("")
        page.evaluate("localStorage.clear()")
        visit.goto("forward_pass/")
        assert _scheme(visit) == scheme, preference
        expect(page.locator("[data-palette-toggle] button:visible")).to_have_count(1)


def test_instant_navigation_keeps_the_toggle_and_copy_buttons(site_visit: SiteVisit) -> None:
    from playwright.sync_api import expect

    visit, page = site_visit, site_visit.page
    visit.goto("forward_pass/")
    link = page.locator(".md-nav--primary a[href$='training_loop/']").first
    assert same_document(page, link.click), "the chapter link was a full page load"
    expect(page).to_have_url(visit.base + "training_loop/")
    first = _scheme(visit)
    _toggle_palette(visit)  # one listener: one click switches once
    assert _scheme(visit) != first
    _toggle_palette(visit)
    assert _scheme(visit) == first
    code = page.locator(".md-content pre > code").nth(3)
    code.scroll_into_view_if_needed()
    expect(copy_button(code)).to_have_count(1)


# axe's colour rules (color-contrast, link-in-text-block: the rules of its "cat.color"
# category that run by default) cost most of its time, because they look at every text
# node: 1,500-2,900 on a chapter. What decides a text's contrast is its own colour,
# size, weight and decoration, its parent's colour, and the colours, images, opacity
# and filters of every box behind it; PROBES marks one visible element for each distinct
# combination of those (60-90 on a chapter), and the colour rules run on those only.
# A combination already checked on an earlier page of the tour, in the same palette, is
# not checked again (the same reasoning, across pages): later pages add 0-20 probes.
# Every other rule runs on the whole page, once: the palettes differ only in colours.
PROBES = """(checked) => {
  const css = (el) => getComputedStyle(el);
  const behind = new Map();  // element -> the colours, images, opacity, filters of it and its ancestors
  const boxes = (el) => {
    if (!el) return "";
    if (!behind.has(el)) {
      const b = css(el);
      behind.set(el, [b.backgroundColor, b.backgroundImage, b.opacity, b.mixBlendMode, b.filter,
                      boxes(el.parentElement)].join("|"));
    }
    return behind.get(el);
  };
  const key = (el) => {
    const s = css(el), parent = el.parentElement ? css(el.parentElement) : s;
    return [s.color, s.fontSize, s.fontWeight, s.textDecorationLine, s.textShadow,
            s.webkitTextFillColor, parent.color, parent.textDecorationLine, boxes(el)].join("|");
  };
  document.querySelectorAll("[data-contrast-probe]").forEach((e) => e.removeAttribute("data-contrast-probe"));
  const seen = new Set(checked);
  const fresh = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || !walker.currentNode.textContent.trim()) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const k = key(el);
    if (!seen.has(k)) { seen.add(k); fresh.push(k); el.setAttribute("data-contrast-probe", ""); }
  }
  return fresh;
}"""
COLOUR = ["color-contrast", "link-in-text-block"]
COLOUR_RULES = {"runOnly": {"type": "rule", "values": COLOUR}, "resultTypes": ["violations"]}
OTHER_RULES = {
    "rules": {rule: {"enabled": False} for rule in COLOUR},
    "resultTypes": ["violations"],
}
AT_PROBES = {"include": [["[data-contrast-probe]"]]}


def axe_violations(
    page, context: dict | str | None = None, options: dict | None = None
) -> list[dict]:
    """axe-core's violations on ``page`` (injected once per page load)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        from axe_playwright_python.sync_playwright import Axe

        page.evaluate(Axe().axe_script)
    where = "document" if context is None else json.dumps(context)
    options = options or {"resultTypes": ["violations"]}
    return page.evaluate(f"axe.run({where}, {json.dumps(options)}).then(r => r.violations)")


def colour_violations(page, checked: set[str] | None = None) -> list[dict]:
    """The colour rules, on one element of each distinct colour combination (PROBES)
    that is not in ``checked``; the combinations probed are added to it."""
    fresh = page.evaluate(PROBES, sorted(checked or ()))
    if checked is not None:
        checked.update(fresh)
    return axe_violations(page, AT_PROBES, COLOUR_RULES) if fresh else []


def violation_lines(path: str, scheme: str, violations: list[dict]) -> list[str]:
    """axe's violations on a page in a palette, a line each."""
    return [
        f"/{path} [{scheme}]: {v['id']}: {v['help']} {[n['target'] for n in v['nodes']][:3]}"
        for v in violations
    ]


# -- the autograd pictures (sitelib/autograd_graph.py) -----------------------------------
# Computed colours of one figure: the page behind it, each node's text, outline and
# fill, each edge's line.
GRAPH_COLOURS = """figure => {
  let background = null;
  for (let el = figure; el && !background; el = el.parentElement) {
    const c = getComputedStyle(el).backgroundColor;
    if (c !== "rgba(0, 0, 0, 0)" && c !== "transparent") background = c;
  }
  const shapes = g => [...g.querySelectorAll("path, polygon, ellipse")];
  return {
    background: background || "rgb(255, 255, 255)",
    nodes: [...figure.querySelectorAll("g.node")].map(g => ({
      id: g.id,
      text: [...g.querySelectorAll("text")].map(t => getComputedStyle(t).fill),
      stroke: shapes(g).map(s => getComputedStyle(s).stroke),
      fill: shapes(g).map(s => getComputedStyle(s).fill),
    })),
    edges: [...figure.querySelectorAll("g.edge path")].map(s => getComputedStyle(s).stroke),
  };
}"""


def _rgba(css: str) -> tuple[float, float, float, float] | None:
    """A computed CSS colour as (r, g, b, alpha); None for ``none``."""
    if css in ("none", "transparent"):
        return None
    parts = [float(x) for x in re.findall(r"[\d.]+", css)]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def _over(colour, background):
    r, g, b, a = colour
    return tuple(a * c + (1 - a) * d for c, d in zip((r, g, b), background[:3], strict=True)) + (1,)


def _contrast(one, two) -> float:
    def luminance(c):
        lin = [
            v / 255 / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
            for v in c[:3]
        ]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(one), luminance(two)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def graph_colour_problems(colours: dict, where: str) -> list[str]:
    """Text under 4.5:1 or lines under 3:1 against what is behind them, and fills that
    paint over the page (a white box is unreadable in the dark palette)."""
    page = _rgba(colours["background"])
    problems = []
    if not colours["nodes"]:
        problems.append(f"{where}: no node drawn")
    for node in colours["nodes"]:
        behind = page
        for fill in filter(None, map(_rgba, node["fill"])):
            if fill[3] > 0.3:
                problems.append(f"{where} {node['id']}: fill {fill} paints over the page")
            behind = _over(fill, page)
        for text in node["text"]:
            ratio = _contrast(_over(_rgba(text) or (0, 0, 0, 0), behind), behind)
            if ratio < 4.5:
                problems.append(f"{where} {node['id']}: text {text} has contrast {ratio:.2f}")
        for stroke in node["stroke"]:
            ratio = _contrast(_over(_rgba(stroke) or (0, 0, 0, 0), page), page)
            if ratio < 3:
                problems.append(f"{where} {node['id']}: outline {stroke} has contrast {ratio:.2f}")
    for stroke in colours["edges"]:
        ratio = _contrast(_over(_rgba(stroke) or (0, 0, 0, 0), page), page)
        if ratio < 3:
            problems.append(f"{where}: edge {stroke} has contrast {ratio:.2f}")
    return problems


def figure_problems(visit: Visit, path: str) -> tuple[int, list[str]]:
    """The autograd figures on the page as it is drawn now: (how many, what is wrong)."""
    problems, scheme = [], _scheme(visit)
    figures = visit.page.locator("figure.autograd-graph")
    for i in range(figures.count()):
        figure = figures.nth(i)
        where = f"/{path} [{scheme}] figure {i + 1}"
        problems += graph_colour_problems(figure.evaluate(GRAPH_COLOURS), where)
        svg = figure.locator("svg")
        if svg.get_attribute("role") != "img" or not svg.get_attribute("aria-label"):
            problems.append(f"{where}: the SVG has no role=img and text alternative")
        if not figure.locator("figcaption").inner_text().strip():
            problems.append(f"{where}: no caption")
    return figures.count(), problems


# -- one visit per page, every per-page check ----------------------------------------------
@dataclass
class Tour:
    """What the per-page checks found, each page visited once (in both palettes)."""

    load: list[str] = field(default_factory=list)  # console errors, foreign requests
    axe: list[str] = field(default_factory=list)
    copy: list[str] = field(default_factory=list)
    copied: int = 0  # snippets found behind a copy button
    figures: list[str] = field(default_factory=list)
    figures_seen: Counter = field(default_factory=Counter)  # palette -> figures checked


@pytest.fixture(scope="session")
def tour(browser, site_url, built_site) -> Tour:
    found, tab = Tour(), Visit(browser, site_url)
    checked: dict[str, set[str]] = {}  # palette -> colour combinations checked so far
    try:
        for path in pages(built_site):
            tab.errors.clear()
            tab.foreign.clear()
            # Requests are recorded as they start, during the load and every check that
            # follows (seconds per page), so the tour does not wait for the network to
            # be quiet for 500 ms after the load, as the search tests must.
            tab.goto(path)
            # Every rule on the page as loaded; then, in the page's palette and in the
            # other (the palettes differ only in colours), the colour rules and the
            # figures; and back to the first palette for the next page.
            scheme = _scheme(tab)
            found.axe += violation_lines(path, scheme, axe_violations(tab.page, None, OTHER_RULES))
            for _ in range(2):
                scheme = _scheme(tab)
                colour = colour_violations(tab.page, checked.setdefault(scheme, set()))
                found.axe += violation_lines(path, scheme, colour)
                count, problems = figure_problems(tab, path)
                found.figures_seen[scheme] += count
                found.figures += problems
                _switch_palette(tab)
            if not path.startswith("notebooks/"):  # notebook cells have their own copy control
                copied, problems = copy_problems(tab, path)
                found.copied += copied
                found.copy += problems
            found.load += [f"/{path}: console error: {e}" for e in tab.errors]
            found.load += [f"/{path}: request to another host: {u}" for u in tab.foreign]
    finally:
        tab.context.close()
    return found


def test_every_page_loads_clean_and_local(tour: Tour) -> None:
    """No console error and no request to another host, on load or while checked."""
    assert not tour.load, "\n".join(tour.load)


def test_no_accessibility_violations_in_either_palette(tour: Tour) -> None:
    assert not tour.axe, "\n".join(tour.axe)


def test_copy_button_copies_the_exact_snippet(tour: Tour) -> None:
    assert tour.copied, "no snippet was found behind any copy button"
    assert not tour.copy, "\n".join(tour.copy)


def test_autograd_graphs_read_in_both_palettes(tour: Tour) -> None:
    seen = tour.figures_seen
    assert sorted(seen) == ["default", "slate"] and seen["default"] == seen["slate"] >= 7, seen
    assert not tour.figures, "\n".join(tour.figures)


# -- self-tests: each browser check fails on a broken page ----------------------------
def test_missing_browser_fails_in_ci_and_skips_elsewhere(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match="not found"):
        require_chromium(tmp_path / "chromium", ci=True)
    with pytest.raises(pytest.skip.Exception, match="not found"):
        require_chromium(tmp_path / "chromium", ci=False)


def test_instant_navigation_check_catches_a_full_page_load(visit: Visit) -> None:
    visit.goto("forward_pass/")  # on 127.0.0.1:<port> Material does not navigate instantly
    assert not same_document(visit.page, visit.page.locator("a.md-header__button.md-logo").click)


def test_graph_checks_catch_an_unreadable_picture(browser) -> None:

    with serve(ROOT / "tests" / "fixtures" / "browser") as url:
        tab = Visit(browser, url)
        try:
            tab.goto("graph.html")
            figure = tab.page.locator("figure.autograd-graph")
            problems = graph_colour_problems(figure.evaluate(GRAPH_COLOURS), "graph.html")
            assert any("ag1_n0: fill" in p and "paints over the page" in p for p in problems)
            assert any("ag1_n1: text rgb(0, 0, 0) has contrast" in p for p in problems)
            assert any("ag1_n1: outline rgb(0, 0, 0)" in p for p in problems)
            assert any("edge rgb(51, 51, 51)" in p for p in problems), problems
            found = axe_violations(tab.page, {"include": [["figure.autograd-graph"]]})
            assert "svg-img-alt" in {v["id"] for v in found}
        finally:
            tab.context.close()


def test_checks_catch_a_broken_page(browser) -> None:

    with serve(ROOT / "tests" / "fixtures" / "browser") as url:
        tab = Visit(browser, url)
        try:
            tab.goto("broken.html", idle=True)
            assert tab.foreign == ["https://cdn.example.org/tracker.js"]
            assert any("broken on purpose" in e for e in tab.errors), tab.errors
            violations = {v["id"] for v in axe_violations(tab.page, None, OTHER_RULES)}
            assert {"image-alt", "button-name"} <= violations, violations

            # The colour rules run on one element per colour combination: a faint
            # paragraph among twenty readable ones is still checked, and grey text that
            # only the dark palette makes unreadable is caught there.
            def contrast_problems(checked: set[str] | None = None) -> set[str]:
                found = colour_violations(tab.page, checked)
                return {n["target"][0] for v in found for n in v["nodes"]}

            assert contrast_problems() == {"#faint-text"}
            # Across pages, a combination an earlier page had is not checked again,
            # and one it did not have still is.
            checked: set[str] = set()
            assert contrast_problems(checked) == {"#faint-text"}
            assert contrast_problems(checked) == set()
            tab.page.evaluate(
                "document.body.insertAdjacentHTML('beforeend',"
                ' \'<p id="pale-text" style="color: #d0d0d0">pale</p>\')'
            )
            assert contrast_problems(checked) == {"#pale-text"}
            tab.page.evaluate("document.getElementById('pale-text').remove()")
            tab.page.evaluate("document.body.dataset.mdColorScheme = 'slate'")
            assert "#grey-text" in contrast_problems()
            with pytest.raises(AssertionError, match="code block 1 has no copy button"):
                _copied_blocks(tab)
        finally:
            tab.context.close()
