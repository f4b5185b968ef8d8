"""axe-core finds no violation on any page: every rule once per page, and its colour
rules in both palettes on one element of each distinct colour combination
(probes/contrast_probes.js: 60-90 on a chapter instead of all 1,500-2,900 text
nodes), each combination once per palette, on the first page that has it."""

from __future__ import annotations

import json
from pathlib import Path

CONTRAST_PROBES = (Path(__file__).parent / "probes" / "contrast_probes.js").read_text("utf-8")
COLOUR = ["color-contrast", "link-in-text-block"]
COLOUR_RULES = {"runOnly": {"type": "rule", "values": COLOUR}, "resultTypes": ["violations"]}
OTHER_RULES = {
    "rules": {rule: {"enabled": False} for rule in COLOUR},
    "resultTypes": ["violations"],
}
AT_PROBES = {"include": [["[data-contrast-probe]"]]}


def axe_violations(page, context: dict | None = None, options: dict | None = None) -> list:
    """axe-core's violations on ``page`` (injected once per page load)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        from axe_playwright_python.sync_playwright import Axe

        page.evaluate(Axe().axe_script)
    where = "document" if context is None else json.dumps(context)
    options = options or {"resultTypes": ["violations"]}
    return page.evaluate(f"axe.run({where}, {json.dumps(options)}).then(r => r.violations)")


def colour_violations(page, checked: set[str] | None = None) -> list[dict]:
    """The colour rules, on one element of each distinct colour combination that is
    not in ``checked``; the combinations probed are added to it."""
    fresh = page.evaluate(CONTRAST_PROBES, sorted(checked or ()))
    if checked is not None:
        checked.update(fresh)
    return axe_violations(page, AT_PROBES, COLOUR_RULES) if fresh else []


def violation_lines(path: str, scheme: str, violations: list[dict]) -> list[str]:
    return [
        f"/{path} [{scheme}]: {v['id']}: {v['help']} {[n['target'] for n in v['nodes']][:3]}"
        for v in violations
    ]


def page_check_axe(tab, path: str) -> list[str]:
    """Every rule but the colour ones, on the page as loaded."""
    return violation_lines(path, tab.scheme(), axe_violations(tab.page, None, OTHER_RULES))


CHECKED: dict[str, set[str]] = {}  # palette -> colour combinations checked so far


def page_check_colours(tab, path: str) -> list[str]:
    scheme = tab.scheme()
    found = colour_violations(tab.page, CHECKED.setdefault(scheme, set()))
    return violation_lines(path, scheme, found)


page_check_colours.palettes = 2


def test_no_accessibility_violations_in_either_palette(tour) -> None:
    problems = tour.problems["axe"] + tour.problems["colours"]
    assert not problems, "\n".join(problems)


def test_accessibility_checks_catch_a_broken_page(fixture_page) -> None:
    tab = fixture_page("broken.html")
    violations = {v["id"] for v in axe_violations(tab.page, None, OTHER_RULES)}
    assert {"image-alt", "button-name"} <= violations, violations

    # The colour rules run on one element per colour combination: a faint paragraph
    # among twenty readable ones is still checked, and grey text that only the dark
    # palette makes unreadable is caught there.
    def contrast_problems(checked: set[str] | None = None) -> set[str]:
        found = colour_violations(tab.page, checked)
        return {n["target"][0] for v in found for n in v["nodes"]}

    assert contrast_problems() == {"#faint-text"}
    # Across pages, a combination an earlier page had is not checked again, and one
    # it did not have still is.
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
