"""Nothing is hidden without a way to reach it, at 1280 px and on a 390 px phone: a
box that scrolls sideways shows that it does; printed output wraps on a phone, so it
reads without scrolling; no copy button covers code; no heading
leaves an empty line under its text; punctuation after an inline formula stays on
its line; a figure too wide for the screen fits it with labels of at least 11 px or
opens full size with one tap (docs/assets/figures.js)."""

from __future__ import annotations

from pathlib import Path

PROBES = Path(__file__).parent / "probes"
SCROLL_SIGNS = (PROBES / "scroll_signs.js").read_text("utf-8")
COVERED_CODE = (PROBES / "covered_code.js").read_text("utf-8")
HEADING_GAPS = (PROBES / "heading_gaps.js").read_text("utf-8")
MATH_PUNCTUATION = (PROBES / "math_punctuation.js").read_text("utf-8")
FIGURE_SIZE = (PROBES / "figure_size.js").read_text("utf-8")
OUTPUT_REFLOW = (PROBES / "output_reflow.js").read_text("utf-8")
SMALLEST_LABEL = 11  # px


def _named(path: str, width: str, problems: list[str]) -> list[str]:
    return [f"/{path} [{width}]: {p}" for p in problems]


def _boxes(tab, path: str, width: str) -> list[str]:
    return _named(
        path,
        width,
        tab.page.evaluate(SCROLL_SIGNS)
        + tab.page.evaluate(COVERED_CODE)
        + tab.page.evaluate(HEADING_GAPS)
        + tab.page.evaluate(MATH_PUNCTUATION),
    )


def page_check_boxes(tab, path: str) -> list[str]:
    return _boxes(tab, path, "1280")


def page_check_boxes_phone(tab, path: str) -> list[str]:
    return _boxes(tab, path, "390")


page_check_boxes_phone.width = 390


def page_check_output_phone(tab, path: str) -> list[str]:
    """Printed output reads on a phone without scrolling sideways: it wraps at the
    block's edge (the code above it may still scroll)."""
    return _named(path, "390", tab.page.evaluate(OUTPUT_REFLOW))


page_check_output_phone.width = 390


def page_check_figures_phone(tab, path: str) -> tuple[int, list[str]]:
    """(how many figures, what is wrong) on a phone: each fits the screen with labels of
    at least 11 px, or its button opens it full size (labels at least 11 px) in a
    dialog that Escape closes."""
    problems, screen = [], tab.page.evaluate("document.documentElement.clientWidth")
    figures = tab.page.locator("figure.autograd-graph")
    for i in range(figures.count()):
        figure, where = figures.nth(i), f"figure {i + 1}"
        drawn = figure.evaluate(FIGURE_SIZE)
        if drawn["right"] > screen + 1:
            problems.append(f"{where} reaches {drawn['right']:.0f} px on a {screen} px screen")
        if drawn["label"] >= SMALLEST_LABEL:
            continue
        if not drawn["button"]:
            problems.append(
                f"{where}: labels drawn at {drawn['label']:.1f} px and no button opens it full size"
            )
            continue
        # A tap's click, dispatched in the page: the pointer stays where it was, so it
        # hovers nothing (a title's tooltip) when the tour's next checks run.
        figure.locator(".graph-full").evaluate("button => button.click()")
        dialog = tab.page.locator("dialog[open]")
        if not dialog.count():
            problems.append(f"{where}: its button opens nothing")
            continue
        full = dialog.evaluate(FIGURE_SIZE)
        if full["label"] < SMALLEST_LABEL:
            problems.append(f"{where}: full size, its labels are {full['label']:.1f} px")
        if dialog.evaluate("d => getComputedStyle(d).overflow") not in ("auto", "scroll"):
            problems.append(f"{where}: the full-size dialog does not scroll")
        tab.page.keyboard.press("Escape")
        if tab.page.locator("dialog[open]").count():
            problems.append(f"{where}: Escape does not close the full-size dialog")
    return figures.count(), _named(path, "390", problems)


page_check_figures_phone.width = 390


def test_nothing_is_hidden_without_a_way_to_reach_it(tour) -> None:
    problems = tour.problems["boxes"] + tour.problems["boxes_phone"]
    assert not problems, "\n".join(problems)


def test_printed_output_reads_on_a_phone_without_scrolling(tour) -> None:
    assert not tour.problems["output_phone"], "\n".join(tour.problems["output_phone"])


def test_figures_fit_a_phone_or_open_full_size(tour) -> None:
    seen = sum(n for (check, _), n in tour.counts.items() if check == "figures_phone")
    if "memory/" in tour.pages:
        assert seen, "no figure was checked on /memory/"
    assert not tour.problems["figures_phone"], "\n".join(tour.problems["figures_phone"])


# -- self-tests: each check fails on tests/fixtures/browser/phone.html --------------------
def test_phone_checks_catch_a_broken_page(fixture_page) -> None:
    tab = fixture_page("phone.html")
    tab.page.set_viewport_size({"width": 390, "height": 800})
    found = page_check_boxes_phone(tab, "phone.html")
    where = "/phone.html [390]: "
    assert any(p.startswith(f"{where}wide.py scrolls sideways") for p in found), found
    assert any(
        p.startswith(f'{where}"torchrun --nproc-per-node 2 torchrun_env.py": the copy')
        for p in found
    ), found
    assert any(p.startswith(f'{where}heading "What autograd saves" leaves') for p in found), found
    assert f'{where}";" after the formula x starts a new line' in found, found
    # The site's fix, applied to the same paragraphs: the formula and its ";" in a span
    # that does not break (sitelib/site/mathml.py, extra.css).
    tab.page.evaluate(
        """() => document.querySelectorAll("p.narrow math").forEach((math) => {
          const span = document.createElement("span");
          span.style.whiteSpace = "nowrap";
          math.replaceWith(span);
          span.append(math, math.ownerDocument.createTextNode(";"));
          span.nextSibling.textContent = span.nextSibling.textContent.slice(1);
        })"""
    )
    assert not any("after the formula" in p for p in page_check_boxes_phone(tab, "phone.html"))
    (output,) = page_check_output_phone(tab, "phone.html")
    assert output.startswith(f'{where}output.py: the output "#> ddp_model.module(x)'), output
    # The site's fix (extra.css): output wraps at the block's visible width.
    tab.page.add_style_tag(
        content='span[id^="__span"]:has(> .go) { display: block; white-space: pre-wrap; '
        "overflow-wrap: anywhere; position: sticky; left: 0; }"
    )
    assert page_check_output_phone(tab, "phone.html") == []
    count, figures = page_check_figures_phone(tab, "phone.html")
    assert count == 2, count
    assert any("figure 1: labels drawn at" in p and "no button" in p for p in figures), figures
    assert any("figure 2: its button opens nothing" in p for p in figures), figures
