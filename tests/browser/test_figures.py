"""The autograd figures read in both palettes: text at 4.5:1 and lines at 3:1 against
what is behind them, no fill that paints over the page, a text alternative, a
caption and a legend."""

from __future__ import annotations

import re
from pathlib import Path

from sitelib.site.layout import file_url, page_files
from sitelib.site.pictures import find

GRAPH_COLOURS = (Path(__file__).parent / "probes" / "graph_colours.js").read_text("utf-8")


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


def page_check_figures(tab, path: str) -> tuple[int, list[str]]:
    """The autograd figures on the page as it is drawn now: (how many, what is wrong)."""
    problems, scheme = [], tab.scheme()
    figures = tab.page.locator("figure.autograd-graph")
    for i in range(figures.count()):
        figure = figures.nth(i)
        where = f"/{path} [{scheme}] figure {i + 1}"
        problems += graph_colour_problems(figure.evaluate(GRAPH_COLOURS), where)
        svg = figure.locator("svg")
        if svg.get_attribute("role") != "img" or not svg.get_attribute("aria-label"):
            problems.append(f"{where}: the SVG has no role=img and text alternative")
        if not figure.locator("figcaption").inner_text().strip():
            problems.append(f"{where}: no caption")
        if not figure.locator(".graph-legend .key").count():
            problems.append(f"{where}: no legend")
    return figures.count(), problems


page_check_figures.palettes = 2


def test_autograd_graphs_read_in_both_palettes(tour) -> None:
    seen = {scheme: n for (check, scheme), n in tour.counts.items() if check == "figures"}
    assert seen.get("default", 0) == seen.get("slate", 0), seen
    # Every autograd-graph directive of a toured page draws its figure (8 on the whole
    # site: forward_pass, forward_backward and its graphs/ page, zeroing, memory).
    asked = sum(
        len(list(find(page.read_text("utf-8"))))
        for page in page_files()
        if file_url(page) in tour.pages
    )
    assert seen.get("default", 0) >= asked, (seen, asked)
    assert not tour.problems["figures"], "\n".join(tour.problems["figures"])


def test_graph_checks_catch_an_unreadable_picture(fixture_page) -> None:
    tab = fixture_page("graph.html")
    figure = tab.page.locator("figure.autograd-graph")
    problems = graph_colour_problems(figure.evaluate(GRAPH_COLOURS), "graph.html")
    assert any("ag1_n0: fill" in p and "paints over the page" in p for p in problems)
    assert any("ag1_n1: text rgb(0, 0, 0) has contrast" in p for p in problems)
    assert any("ag1_n1: outline rgb(0, 0, 0)" in p for p in problems)
    assert any("edge rgb(51, 51, 51)" in p for p in problems), problems
    count, problems = page_check_figures(tab, "graph.html")
    assert count == 1
    assert "/graph.html [None] figure 1: the SVG has no role=img and text alternative" in problems
    assert "/graph.html [None] figure 1: no legend" in problems, problems


# -- plots (sitelib/site/pictures/plot.py) ----------------------------------------------------
PLOT_COLOURS = (Path(__file__).parent / "probes" / "plot_colours.js").read_text("utf-8")
MIN_TEXT_PX = 11


def plot_colour_problems(drawn: dict, where: str) -> list[str]:
    """Text under 4.5:1 and data marks under 3:1 against the page; no text
    alternative."""
    page = _rgba(drawn["background"])
    problems = []
    for n, svg in enumerate(drawn["svgs"], 1):
        at = f"{where} svg {n}"
        if svg["role"] != "img" or not svg["alt"]:
            problems.append(f"{at}: the SVG has no role=img and text alternative")
        if not svg["marks"]:
            problems.append(f"{at}: no data drawn in the site's plot colours")
        for text in svg["text"]:
            ratio = _contrast(_over(_rgba(text["fill"]) or (0, 0, 0, 0), page), page)
            if ratio < 4.5:
                problems.append(
                    f"{at}: text {text['text']!r} {text['fill']} has contrast {ratio:.2f}"
                )
        for mark in sorted(set(svg["marks"])):
            ratio = _contrast(_over(_rgba(mark) or (0, 0, 0, 0), page), page)
            if ratio < 3:
                problems.append(f"{at}: data colour {mark} has contrast {ratio:.2f}")
    return problems


def page_check_plots(tab, path: str) -> tuple[int, list[str]]:
    """The plots on the page, in its palette: (how many, what is wrong)."""
    problems, scheme = [], tab.scheme()
    figures = tab.page.locator("figure.plot")
    for i in range(figures.count()):
        figure = figures.nth(i)
        where = f"/{path} [{scheme}] plot {i + 1}"
        problems += plot_colour_problems(figure.evaluate(PLOT_COLOURS), where)
        if not figure.locator("figcaption").inner_text().strip():
            problems.append(f"{where}: no caption")
    return figures.count(), problems


page_check_plots.palettes = 2


def plot_phone_problems(drawn: dict, where: str) -> list[str]:
    """On a phone: the plot ends inside the screen, its text at 11 px or more."""
    problems = []
    for n, svg in enumerate(drawn["svgs"], 1):
        if svg["right"] > drawn["viewport"] + 0.5:
            problems.append(
                f"{where} svg {n}: ends at {svg['right']:.0f} px, past the "
                f"{drawn['viewport']} px screen"
            )
        small = [t for t in svg["text"] if t["px"] < MIN_TEXT_PX - 0.05]
        if small:
            t = min(small, key=lambda t: t["px"])
            problems.append(f"{where} svg {n}: text {t['text']!r} is {t['px']:.1f} px")
    return problems


def page_check_plot_phone(tab, path: str) -> tuple[int, list[str]]:
    figures = tab.page.locator("figure.plot")
    problems = []
    for i in range(figures.count()):
        drawn = figures.nth(i).evaluate(PLOT_COLOURS)
        problems += plot_phone_problems(drawn, f"/{path} [390 px] plot {i + 1}")
    return figures.count(), problems


page_check_plot_phone.width = 390


def test_plots_read_in_both_palettes_and_on_a_phone(tour) -> None:
    seen = {scheme: n for (check, scheme), n in tour.counts.items() if check == "plots"}
    assert seen.get("default", 0) == seen.get("slate", 0), seen
    if "optimizer_step/schedules/" in tour.pages:
        assert seen.get("default", 0) >= 1, seen
    phone = sum(n for (check, _), n in tour.counts.items() if check == "plot_phone")
    assert phone == seen.get("default", 0), (phone, seen)
    problems = tour.problems["plots"] + tour.problems["plot_phone"]
    assert not problems, "\n".join(problems)


def test_plot_checks_catch_an_unreadable_plot(fixture_page) -> None:
    tab = fixture_page("plot.html")
    tab.page.set_viewport_size({"width": 390, "height": 800})
    figure = tab.page.locator("figure.plot")
    drawn = figure.evaluate(PLOT_COLOURS)
    problems = plot_colour_problems(drawn, "plot.html")
    assert "plot.html svg 1: the SVG has no role=img and text alternative" in problems
    assert any("text 'step' rgb(0, 0, 0) has contrast" in p for p in problems), problems
    assert any("data colour rgb(38, 50, 56) has contrast" in p for p in problems), problems
    phone = plot_phone_problems(drawn, "plot.html")
    assert "plot.html svg 1: ends at 600 px, past the 390 px screen" in phone, phone
    assert "plot.html svg 1: text 'step' is 8.0 px" in phone, phone
    count, problems = page_check_plots(tab, "plot.html")
    assert count == 1 and "/plot.html [None] plot 1: no caption" in problems, problems
