"""A page a reader can read: every code block fits the column at 1280 px (opened,
unfolded, on every tab) without wrapping, and code in a box is as large as elsewhere;
printed output is drawn as output, in both palettes, and announced; no formula is
left as TeX; on a 390 px phone nothing reaches past the screen's edge outside a box
that scrolls on its own, and short inline code does not break inside a number; a
chapter page is at most 14,000 px tall at 1280 px with its boxes open (about 15
screens: longer, and a chapter splits into parts, CONTRIBUTING.md)."""

from __future__ import annotations

from pathlib import Path

PROBES = Path(__file__).parent / "probes"
CODE_FITS = (PROBES / "code_fits.js").read_text("utf-8")
OUTPUT_STYLE = (PROBES / "output_style.js").read_text("utf-8")
RAW_TEX = (PROBES / "raw_tex.js").read_text("utf-8")
PHONE = (PROBES / "phone.js").read_text("utf-8")
PAGE_HEIGHT = (PROBES / "page_height.js").read_text("utf-8")
MAX_HEIGHT = 14_000  # px at 1280 px, boxes open, set-up folds closed


def _named(path: str, problems: list[str], scheme: str | None = None) -> list[str]:
    where = f"/{path}" + (f" [{scheme}]" if scheme else "")
    return [f"{where}: {p}" for p in problems]


def page_check_code_fits(tab, path: str) -> list[str]:
    return _named(path, tab.page.evaluate(CODE_FITS))


def page_check_output(tab, path: str) -> list[str]:
    return _named(path, tab.page.evaluate(OUTPUT_STYLE), tab.scheme())


page_check_output.palettes = 2


def page_check_raw_tex(tab, path: str) -> list[str]:
    return _named(path, tab.page.evaluate(RAW_TEX))


def page_check_phone(tab, path: str) -> list[str]:
    return _named(path, tab.page.evaluate(PHONE))


page_check_phone.width = 390


def page_check_height(tab, path: str) -> list[str]:
    return _named(
        path,
        [
            f"the page is {h:,} px tall with its boxes open (at most {MAX_HEIGHT:,}): "
            "split the chapter into parts"
            for h in tab.page.evaluate(PAGE_HEIGHT, MAX_HEIGHT)
        ],
    )


def test_every_code_block_fits_the_column(tour) -> None:
    assert not tour.problems["code_fits"], "\n".join(tour.problems["code_fits"])


def test_printed_output_is_drawn_as_output(tour) -> None:
    assert not tour.problems["output"], "\n".join(tour.problems["output"])


def test_no_formula_is_left_as_tex(tour) -> None:
    assert not tour.problems["raw_tex"], "\n".join(tour.problems["raw_tex"])


def test_a_chapter_page_is_read_in_one_sitting(tour) -> None:
    assert not tour.problems["height"], "\n".join(tour.problems["height"])


def test_nothing_is_cut_on_a_phone(tour) -> None:
    assert not tour.problems["phone"], "\n".join(tour.problems["phone"])


# -- self-tests: each check fails on tests/fixtures/browser/reading.html --------------------
def test_reading_checks_catch_a_broken_page(fixture_page) -> None:
    tab = fixture_page("reading.html")
    fits = page_check_code_fits(tab, "reading.html")
    assert any("wide.py scrolls sideways" in p for p in fits), fits
    assert any("wrapped.py wraps its lines (white-space: pre-wrap)" in p for p in fits), fits
    assert any("small.py in a box is set at 10 px" in p for p in fits), fits
    output = page_check_output(tab, "reading.html")
    assert any('comment_like.py: "#> 1" is output drawn as code' in p for p in output), output
    assert any("comment_like.py: output drawn in the comment colour" in p for p in output)
    assert any("comment_like.py: output drawn on the code's own background" in p for p in output)
    assert any("comment_like.py: output not announced" in p for p in output), output
    assert any('a block: "#> 3" is output drawn as code' in p for p in output), output
    tex = page_check_raw_tex(tab, "reading.html")
    assert tex == ["/reading.html: raw TeX: $\\frac{\\partial L}{\\partial \\theta}$"], tex
    tab.page.set_viewport_size({"width": 390, "height": 800})
    phone = page_check_phone(tab, "reading.html")
    assert any("the page is" in p and "on a 390 px screen" in p for p in phone), phone
    assert any("inline code 1e-88888 breaks inside 1e-88888" in p for p in phone), phone
    assert any("folded.py: its fold's summary runs under the copy button" in p for p in phone)


def test_height_check_opens_the_boxes_before_it_measures(fixture_page) -> None:
    tab = fixture_page("tall.html")
    problems = page_check_height(tab, "tall.html")
    assert len(problems) == 1 and problems[0].startswith("/tall.html: the page is 15,"), problems
    assert tab.page.evaluate("document.querySelector('details').open") is False
