"""The built site in a real browser (Chromium driven by Playwright).

Served from 127.0.0.1; every request to any other host is recorded and blocked.
The browser is ``$CHROMIUM``, or the first Chromium or Chrome found on PATH or in
/Applications (:func:`sitelib.site.static_site.find_chromium`). Without one these
tests skip on a developer machine and fail in CI (CI=true), where .ci/run installs it.

**The tour** (the ``tour`` fixture) opens every page once and runs every per-page
check on it: a function named ``page_check_<name>(tab, path)`` in any module of this
folder whose tests were collected, returning the problems it found (or
``(count, problems)``). A check marked ``page_check_x.palettes = 2`` runs in both
palettes, one marked ``page_check_x.width = 390`` on a phone's width. Its module's
test reads ``tour.problems["<name>"]``. Adding a per-page check is one function in
one module. The JavaScript the checks run in the page lives in ``probes/``.

``--browser-pages forward_pass/ ...`` tours only those pages (tests/conftest.py;
``make check-page``).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest

from sitelib.site.static_site import HOW_TO_GET_CHROMIUM, find_chromium, serve

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
PROBES = Path(__file__).parent / "probes"
DESKTOP = {"width": 1280, "height": 900}


def probe(name: str) -> str:
    """A JavaScript function from probes/, for ``page.evaluate``."""
    return (PROBES / f"{name}.js").read_text("utf-8")


def pytest_itemcollected(item: pytest.Item) -> None:
    if Path(item.fspath).is_relative_to(Path(__file__).parent):
        item.add_marker(pytest.mark.browser)
        if "tour" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.tour)


@pytest.fixture(scope="session")
def site_url(built_site) -> Iterator[str]:
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    with serve(site) as url:
        yield url


def require_chromium(path: Path | None, ci: bool) -> Path:
    """No browser: a failure in CI, a skip (with the reason) on a developer's machine."""
    if path is None or not path.exists():
        message = f"{path or 'no Chromium'} not found: {HOW_TO_GET_CHROMIUM}"
        if ci:
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def chromium_rule():
    return require_chromium


@pytest.fixture(scope="session")
def browser():
    chromium = require_chromium(find_chromium(), os.environ.get("CI") == "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=FLAGS)
        yield browser
        browser.close()


class Visit:
    """A browser tab that records console errors and blocks requests to other hosts."""

    def __init__(self, browser, base: str) -> None:
        self.context = browser.new_context(
            permissions=["clipboard-read", "clipboard-write"], viewport=DESKTOP
        )
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
        self.settle()

    def settle(self) -> None:
        """Material and the site's scripts finish their work in animation frames, and
        a11y.js its last pass when the browser is idle."""
        self.page.evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() =>"
            " requestIdleCallback(r, {timeout: 2000}))))"
        )

    def rest(self) -> None:
        """Nothing hovered or focused, and no tooltip or dialog left showing: a check
        that clicked a button (copy, a figure's) leaves the pointer over an element
        with a title, and the palette toggle moves the focus to the other toggle
        button; either one's tooltip (``content.tooltips``) would still be fading in
        or out when the next check reads the page's colours. Material's "Copied to
        clipboard" note, which closes itself 2 s after the copy check's last click, is
        closed at once, and the fading of notes and tooltips is run to its end: the
        state the page reaches by waiting, without the wait (1.2 s a page). Material
        shows or hides a tooltip 16 ms after the focus moves, so the wait is for a
        page with no tooltip marked active and nothing of theirs animating."""
        self.page.mouse.move(0, 0)
        self.page.evaluate(
            """() => {
              document.activeElement && document.activeElement.blur();
              document.querySelectorAll('.md-dialog--active')
                .forEach((d) => d.classList.remove('md-dialog--active'));
              document.getAnimations()
                .filter((a) => a.effect?.target?.closest?.('.md-dialog, .md-tooltip, .md-tooltip2'))
                .forEach((a) => a.finish());
            }"""
        )
        self.page.wait_for_function(
            """() => !document.querySelector(
                '.md-tooltip--active, .md-tooltip2--active, .md-dialog--active')
              && !document.getAnimations().some((a) =>
                a.effect?.target?.closest?.('.md-dialog, .md-tooltip, .md-tooltip2'))""",
            timeout=5000,
        )

    def scheme(self) -> str:
        return self.page.evaluate("document.body.getAttribute('data-md-color-scheme')")

    def switch_palette(self) -> None:
        """The toggle's click, dispatched in the page: what a reader's click runs,
        without Playwright's checks that the button can be clicked (test_palette.py
        clicks it as a reader does); then the page at rest in its new colours, the
        focus and the tooltip the click gave the other toggle button taken away."""
        self.page.evaluate(
            "document.querySelector('[data-palette-toggle] button:not([hidden])').click()"
        )
        self.rest()


@pytest.fixture
def visit(browser, site_url) -> Iterator[Visit]:
    tab = Visit(browser, site_url)
    yield tab
    tab.context.close()


@pytest.fixture
def fixture_page(browser) -> Iterator[Callable[[str], Visit]]:
    """A tab on one of tests/fixtures/browser/'s broken pages, for self-tests."""
    from sitelib.site.layout import ROOT

    tabs = []
    with serve(ROOT / "tests" / "fixtures" / "browser") as url:

        def open_page(name: str) -> Visit:
            tab = Visit(browser, url)
            tabs.append(tab)
            tab.goto(name)
            return tab

        yield open_page
        for tab in tabs:
            tab.context.close()


class SiteVisit(Visit):
    """A tab that opens the site at its real address (``site_url``), answered from
    the build folder. Material's instant navigation only follows links whose host
    and port match its sitemap's, so on 127.0.0.1:<port> every click is a full page
    load; here, as on GitHub Pages, it takes over."""

    def __init__(self, browser, site: Path, site_url: str) -> None:
        self.site = site
        super().__init__(browser, site_url)

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
def site_visit(browser, built_site, built_config) -> Iterator[SiteVisit]:
    tab = SiteVisit(browser, built_site[1], built_config["site_url"])
    yield tab
    tab.context.close()


def _same_document(page, action) -> bool:
    """Whether ``action`` (a click) kept the page's JavaScript state: instant navigation."""
    page.evaluate("window.__before_navigation = true")
    action()
    page.wait_for_load_state("load")
    return page.evaluate("window.__before_navigation === true")


@pytest.fixture
def same_document():
    return _same_document


def pages(built_site) -> list[str]:
    _, site = built_site
    return sorted(
        p.parent.relative_to(site).as_posix() + "/" if p.parent != site else ""
        for p in site.rglob("index.html")
    )


# -- the tour: every page once, every per-page check -------------------------------------
@dataclass
class Tour:
    pages: list[str] = field(default_factory=list)
    load: list[str] = field(default_factory=list)  # console errors, foreign requests
    problems: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    counts: Counter = field(default_factory=Counter)  # (check, palette) -> what it checked
    seconds: Counter = field(default_factory=Counter)  # check (or "load") -> wall seconds

    def into(self, other: Tour) -> None:
        """Add one page's findings to the whole tour's."""
        other.load += self.load
        for check, problems in self.problems.items():
            other.problems[check] += problems
        other.counts.update(self.counts)
        other.seconds.update(self.seconds)


PageCheck = Callable[[Visit, str], "list[str] | tuple[int, list[str]]"]


def page_checks(session: pytest.Session) -> list[PageCheck]:
    """Every ``page_check_*`` function of the collected modules of this folder."""
    here, found = Path(__file__).parent, {}
    for item in session.items:
        module = getattr(item, "module", None)
        if module is None or not Path(module.__file__).is_relative_to(here):
            continue
        for name, value in vars(module).items():
            if name.startswith("page_check_") and callable(value):
                found[f"{module.__name__}.{name}"] = value
    return [found[key] for key in sorted(found)]


def check_name(check: PageCheck) -> str:
    return check.__name__.removeprefix("page_check_")


def _run(found: Tour, check: PageCheck, tab: Visit, path: str) -> None:
    start = time.perf_counter()
    result = check(tab, path)
    found.seconds[check_name(check)] += time.perf_counter() - start
    count, problems = result if isinstance(result, tuple) else (None, result)
    found.problems[check_name(check)] += problems
    if count is not None:
        found.counts[check_name(check), tab.scheme()] += count


@pytest.fixture(scope="session")
def tour(request, browser, site_url, built_site, built_config) -> Tour:
    checks = page_checks(request.session)
    # make check-page PAGE="memory/ memory/checkpointing/" passes the pages as one word.
    wanted = [p for arg in request.config.getoption("browser_pages") for p in arg.split() or [""]]
    found, tab = Tour(), Visit(browser, site_url)
    tab.config = built_config  # mkdocs.yml as the site was built: its site_url, repo_url
    reusing = getattr(request.config.option, "reusing", False)  # tests/conftest.py sets it
    kept = KeptPages(built_site[1], checks) if reusing else None
    try:
        for path in [p for p in pages(built_site) if not wanted or p in wanted]:
            found.pages.append(path)
            if kept and (page := kept.get(path)):
                page.into(found)  # the same page, assets and checks: what it found then
                continue
            page = Tour()
            _tour_page(page, checks, tab, path)
            page.into(found)
            if kept:
                kept.keep(path, page)
    finally:
        tab.context.close()
        if os.environ.get("TOUR_SECONDS"):  # make bench: where the tour's time goes
            Path(os.environ["TOUR_SECONDS"]).write_text(json.dumps(found.seconds, indent=1))
    return found


def _tour_page(found: Tour, checks: list[PageCheck], tab: Visit, path: str) -> None:
    """Every check on one page, its findings added to ``found``."""
    tab.errors.clear()
    tab.foreign.clear()
    # Requests are recorded as they start, during the load and every check that
    # follows, so the tour does not wait for the network to be quiet.
    start = time.perf_counter()
    tab.goto(path)
    found.seconds["load"] += time.perf_counter() - start
    for check in checks:
        if getattr(check, "palettes", 1) == 1 and not hasattr(check, "width"):
            _run(found, check, tab, path)
    # The palettes differ only in colours: the colour checks run in the page's
    # palette and in the other, and it is switched back for the next page. They
    # read colours, so nothing the checks before them clicked may still show.
    start = time.perf_counter()
    tab.rest()
    found.seconds["rest"] += time.perf_counter() - start
    for _ in range(2):
        for check in (c for c in checks if getattr(c, "palettes", 1) == 2):
            _run(found, check, tab, path)
        tab.switch_palette()
    # The narrow checks, by width: the page is laid out again once per width
    # (settling takes up to the browser's idle time, the tour's largest cost),
    # and rests before each check, since one may have opened a dialog.
    narrow = [c for c in checks if hasattr(c, "width")]
    for width in sorted({c.width for c in narrow}):
        tab.page.set_viewport_size({"width": width, "height": 800})
        tab.settle()
        for check in (c for c in narrow if c.width == width):
            tab.rest()
            _run(found, check, tab, path)
    if narrow:
        tab.page.set_viewport_size(DESKTOP)
    found.load += [f"/{path}: console error: {e}" for e in tab.errors]
    found.load += [f"/{path}: request to another host: {u}" for u in tab.foreign]


class KeptPages:
    """What the tour found on each page in its last run on this machine, reused for a
    page whose built HTML, the site's assets, the checks and the browser are all
    byte-identical (``make test`` after an edit of one page tours that page: the
    suite's reuse of results, tests/conftest.py). Each page's findings: its problems
    by check, its counts and its load problems."""

    def __init__(self, site: Path, checks: list[PageCheck]) -> None:
        import hashlib

        from sitelib.site.layout import ROOT

        self.site, self.folder = site, ROOT / ".cache" / "reuse" / "tour"
        shared = hashlib.sha256()
        for file in sorted((site / "assets").rglob("*")):
            if file.is_file():
                shared.update(file.relative_to(site).as_posix().encode() + file.read_bytes())
        for file in sorted(PROBES.parent.rglob("*")):  # the checks and their probes
            if file.is_file() and "__pycache__" not in file.parts:
                shared.update(file.read_bytes())
        shared.update(" ".join(c.__module__ + "." + c.__name__ for c in checks).encode())
        shared.update(str(find_chromium()).encode())
        self.shared = shared.hexdigest()

    def _key(self, path: str) -> tuple[Path, str]:
        import hashlib

        html = (self.site / path / "index.html").read_bytes()
        name = hashlib.sha1(path.encode()).hexdigest()
        return self.folder / f"{name}.json", hashlib.sha256(self.shared.encode() + html).hexdigest()

    def get(self, path: str) -> Tour | None:
        file, key = self._key(path)
        try:
            data = json.loads(file.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if data.get("key") != key:
            return None
        page = Tour(load=data["load"])
        page.problems.update(data["problems"])
        page.counts.update({tuple(k.split("\t")): n for k, n in data["counts"].items()})
        return page

    def keep(self, path: str, page: Tour) -> None:
        file, key = self._key(path)
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {
            "key": key,
            "load": page.load,
            "problems": dict(page.problems),
            "counts": {"\t".join(k): n for k, n in page.counts.items()},
        }
        file.with_suffix(".tmp").write_text(json.dumps(data), "utf-8")
        file.with_suffix(".tmp").replace(file)
