"""The light/dark toggle: from mouse and keyboard, remembered, and a first visit
follows the system's colour scheme."""

from __future__ import annotations


def _toggle(visit) -> None:
    visit.page.locator("[data-palette-toggle] button:visible").click()


def test_palette_toggle_switches_and_is_remembered(visit) -> None:
    from playwright.sync_api import expect

    visit.goto("")
    first = visit.scheme()
    _toggle(visit)
    second = visit.scheme()
    assert {first, second} == {"default", "slate"}
    visit.page.reload(wait_until="load")
    assert visit.scheme() == second
    visit.goto("forward_pass/")
    assert visit.scheme() == second
    # From the keyboard: focus stays on the toggle, so Enter switches back.
    visit.page.locator("[data-palette-toggle] button:visible").focus()
    visit.page.keyboard.press("Enter")
    assert visit.scheme() == first
    expect(visit.page.locator("[data-palette-toggle] button:visible")).to_be_focused()


def test_first_visit_follows_the_system_colour_scheme(visit) -> None:
    from playwright.sync_api import expect

    page = visit.page
    for preference, scheme in (("dark", "slate"), ("light", "default")):
        page.emulate_media(color_scheme=preference)
        visit.goto("")
        page.evaluate("localStorage.clear()")
        visit.goto("forward_pass/")
        assert visit.scheme() == scheme, preference
        expect(page.locator("[data-palette-toggle] button:visible")).to_have_count(1)


# -- the callouts' colours ------------------------------------------------------------
CALLOUTS = ("rule", "tip", "principle", "exercise", "learn", "read-first", "summary")
# Each kind of box, drawn into the page with the site's own styles: its border's
# colour (the icon's too) and the page's background behind it.
CALLOUT_COLOURS = """kinds => {
  const host = document.querySelector('.md-typeset');
  const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const background = rgb(getComputedStyle(document.body).backgroundColor);
  const found = {};
  for (const kind of kinds) {
    const box = document.createElement('div');
    box.className = `admonition ${kind}`;
    box.innerHTML = '<p class="admonition-title">Title</p><p>Text.</p>';
    host.append(box);
    found[kind] = rgb(getComputedStyle(box).borderLeftColor);
    box.remove();
  }
  return {background, found};
}"""
WARNING_HUES = (330, 50)  # red through orange, in degrees, wrapping at 360


def _hue(rgb) -> tuple[float, float]:
    """(hue in degrees, saturation 0-1) of an sRGB colour."""
    import colorsys

    h, _, s = colorsys.rgb_to_hls(*(c / 255 for c in rgb))
    return h * 360, s


def _luminance(rgb) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(channel, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def callout_colour_problems(colours: dict, where: str) -> list[str]:
    """A Rule box drawn in a warning's hue (red to orange), a Rule box whose hue is
    within 20 degrees of another box's, and a border or icon under 3:1 against the
    page (WCAG's contrast for graphics)."""
    found, background = colours["found"], colours["background"]
    problems = []
    hue, saturation = _hue(found["rule"])
    low, high = WARNING_HUES
    if saturation > 0.25 and (hue >= low or hue <= high):
        problems.append(
            f"{where}: the Rule box is red or orange (hue {hue:.0f}): a warning's colour"
        )
    for kind, rgb in found.items():
        other, other_saturation = _hue(rgb)
        apart = min(abs(hue - other), 360 - abs(hue - other))
        if kind != "rule" and other_saturation > 0.25 and apart < 20:
            problems.append(f"{where}: the Rule box's hue is {apart:.0f} degrees from {kind}'s")
        if (ratio := _contrast(rgb, background)) < 3:
            problems.append(f"{where}: the {kind} box's colour is {ratio:.1f}:1 on the page")
    return problems


def test_callouts_have_their_own_colours_in_both_palettes(visit) -> None:
    """The Rule box is a takeaway, not a warning: no red or orange, its own hue; every
    box's border and icon read against the page in both palettes."""
    visit.goto("forward_pass/")
    problems = []
    for _ in range(2):
        colours = visit.page.evaluate(CALLOUT_COLOURS, list(CALLOUTS))
        assert set(colours["found"]) == set(CALLOUTS)
        problems += callout_colour_problems(colours, f"forward_pass/ [{visit.scheme()}]")
        visit.switch_palette()
        visit.settle()
    assert not problems, "\n".join(problems)


def test_callout_colour_check_catches_a_red_rule(fixture_page) -> None:
    tab = fixture_page("callouts.html")
    colours = tab.page.evaluate(CALLOUT_COLOURS, list(CALLOUTS))
    assert callout_colour_problems(colours, "callouts.html") == [
        "callouts.html: the Rule box is red or orange (hue 0): a warning's colour",
        "callouts.html: the summary box's colour is 1.4:1 on the page",
    ]
    # A Rule box as close to another box's hue as learn is to exercise is caught too.
    colours["found"]["rule"] = colours["found"]["learn"]
    assert "callouts.html: the Rule box's hue is 0 degrees from exercise's" in (
        callout_colour_problems(colours, "callouts.html")
    )
