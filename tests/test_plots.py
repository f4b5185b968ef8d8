"""The plots show what their example computed, and fail loudly.

For every ``<!-- plot -->`` directive in the pages: the built page has the figure;
a fresh run of the snippet (no cache) draws data that agree with the numbers its
``#>`` lines print, as the directive's ``shows:`` maps them; and the same snippet
with one value changed (its seed, or the constant VARY names) draws other data, which
no longer agree with those numbers: a figure cannot be a drawing of numbers typed in.
The self-tests feed the fixtures in tests/fixtures/plots/ and expect each failure,
named with its page, line and snippet.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from sitelib.site.layout import ROOT, fixture_project, mkdocs_build, page_files, page_url
from sitelib.site.pictures import DrawingError, PlotDirective, figures, find, plot
from sitelib.site.pictures.directive import PLOT

FIXTURE = ROOT / "tests" / "fixtures" / "plots"
SNIPPETS = ROOT / "snippets"
MAX_GZIP_BYTES = 25 * 1024
# What to change in a snippet whose plot its seed does not decide: (old, new) text.
VARY = {
    "optimizer_step/schedule_resume_plot.py": ("stop = 3, 10, 5", "stop = 2, 10, 5"),
    "memory/memory_bars.py": (
        "nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)",
        "nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)",
    ),
    "compile/recompile_curve.py": ("[32, 16, 8, 24, 12, 40, 4]", "[32, 16, 16, 8, 8, 4, 4]"),
    # What a step communicates: the sizes of the layers, not the seed, decide it.
    "distributed/ddp_step_collectives.py": (
        "Linear(4, 8), nn.ReLU(), nn.Linear(8,",
        "Linear(4, 6), nn.ReLU(), nn.Linear(6,",
    ),
    "distributed/fsdp2_step_collectives.py": (
        "Linear(4, 8), nn.ReLU(), nn.Linear(8,",
        "Linear(4, 6), nn.ReLU(), nn.Linear(6,",
    ),
}


def plot_directives() -> list[tuple[str, int, PlotDirective]]:
    found = []
    for page in page_files():
        for number, (_, _, directive) in enumerate(find(page.read_text("utf-8"), PLOT), 1):
            assert not isinstance(directive, DrawingError), f"{page}: {directive}"
            found.append((page.relative_to(ROOT / "docs").as_posix(), number, directive))
    return found


DIRECTIVES = plot_directives()
IDS = [f"{p}:{d.line}" for p, _, d in DIRECTIVES]


def varied(path: Path, tmp: Path) -> Path:
    """A copy of the snippet with one value changed: VARY's, or the seed."""
    source = path.read_text("utf-8")
    name = path.relative_to(SNIPPETS).as_posix()
    old, new = VARY.get(name, ("manual_seed(0)", "manual_seed(1)"))  # every seed, if not
    count = source.count(old)
    assert count == 1 or (count and name not in VARY), f"{path}: {old!r} occurs {count} times"
    copy = tmp / path.name
    copy.write_text(source.replace(old, new), "utf-8")
    return copy


def data(drawn: list[dict]) -> list:
    return [f["data"] for f in drawn]


def test_the_chapters_have_plots() -> None:
    assert {
        "forward_backward/loss_curve.py",
        "optimizer_step/schedule_resume_plot.py",
        "debugging/overfit_curve.py",
        "debugging/lr_too_high_curve.py",
        "mixed_precision/scaler_curve.py",
        "memory/memory_bars.py",
        "training_loop/loss_per_epoch.py",
        "zeroing_accumulation/zeroing_curve.py",
        "compile/recompile_curve.py",
        "distributed/ddp_gradients_plot.py",
        "distributed/ddp_step_collectives.py",
        "distributed/fsdp2_step_collectives.py",
    } <= {d.snippet for _, _, d in DIRECTIVES}


@pytest.mark.parametrize(("page", "number", "directive"), DIRECTIVES, ids=IDS)
def test_plot_draws_what_the_example_prints(
    page: str, number: int, directive: PlotDirective, built_site, tmp_path: Path
) -> None:
    where = f"docs/{page}:{directive.line} (snippets/{directive.snippet})"
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    html = (site / page_url(page) / "index.html").read_text("utf-8")
    shown = re.search(rf'<figure class="plot" id="plot-{number}">.*?</figure>', html, re.S)
    assert shown, f"{where}: no figure plot-{number} in the page"
    svgs = re.findall(r"<svg.*?</svg>", shown.group(0), re.S)
    for svg in svgs:
        size = len(gzip.compress(svg.encode()))
        assert size <= MAX_GZIP_BYTES, f"{where}: {size} bytes compressed"

    path = SNIPPETS / directive.snippet
    source = path.read_text("utf-8")
    drawn = plot.capture_plots(path, directive, cache=None)  # this test's own run
    assert directive.shows, f"{where}: shows: names none of the printed numbers"
    assert [p for f in drawn for p in plot.problems(f)] == [], where
    assert plot.shows_problems(source, drawn, directive.shows) == [], where
    for svg, figure in zip(svgs, drawn, strict=True):  # the page shows the tick labels
        texts = set(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
        for ax in figure["data"]:
            for _, label in ax["xticks"] + ax["yticks"]:
                assert label in texts, f"{where}: tick label {label!r} not drawn"

    other = plot.capture_plots(varied(path, tmp_path), directive, cache=None)
    assert data(other) != data(drawn), f"{where}: changing the example leaves the plot the same"
    assert plot.shows_problems(source, other, directive.shows), (
        f"{where}: the changed run's plot still agrees with the printed numbers"
    )


# -- self-tests -------------------------------------------------------------------------------
def page(directive_yaml: str) -> str:
    return f"# Page\n\nSome text.\n\n<!-- plot\n{directive_yaml}\n-->\n"


@pytest.mark.parametrize(
    ("directive_yaml", "message"),
    [
        (
            "snippet: chapter/nothing.py\ncaption: c",
            r"docs/index.md:5: plot of snippets/chapter/nothing.py: the snippet draws no figure",
        ),
        (
            "snippet: chapter/empty.py\ncaption: c",
            r"docs/index.md:5: plot of snippets/chapter/empty.py: figure 1: the axes draw no data",
        ),
        (
            "snippet: chapter/raises.py\ncaption: c",
            r"docs/index.md:5: plot of snippets/chapter/raises.py: "
            r"the snippet raised ValueError at line 5: x and y must have same first dimension",
        ),
        (
            "snippet: chapter/unlabelled.py\ncaption: c",
            r"figure 1: the axes have no y label \(plt.ylabel\(...\)\); "
            r"figure 1: the axes draw 2 series, and a line has no label= for the legend",
        ),
        (
            "snippet: chapter/colour.py\ncaption: c",
            r"figure 1: colour #123456 is not one the site themes for both palettes",
        ),
        (
            "snippet: chapter/small.py\ncaption: c",
            r"figure 1: text 11 pt in a figure 648 pt wide is 6.1 px on a 390 px screen",
        ),
        (
            "snippet: chapter/curve.py\ncaption: c\nshows: [w squared.first, w squared.first]",
            r"shows: number 2 printed is 0.0005, but the plot's w squared.first is 2.37",
        ),
        (
            "snippet: chapter/curve.py\ncaption: c\nshows: [~, ~, one.len, ~]",
            r"shows: 4 entries, but the #> lines print 3 numbers",
        ),
        ("snippet: chapter/curve.py\ncaption: c\nshows: [loss.first]", r"0 series are labelled"),
        ("snippet: chapter/curve.py\ncaption: c\nshows: [one.mean]", r"'mean' is not one of"),
        ("snippet: chapter/curve.py\ncaption: c\nshows: one.first", r"shows: a list"),
        ("snippet: chapter/gone.py\ncaption: c", r"snippets/chapter/gone.py does not exist"),
        (  # a multi-process example runs under torchrun: a rank that fails is named
            "snippet: chapter/launched_raises.py\ncaption: c",
            r"its run under torchrun exited 1:(.|\n)*ValueError: rank 1 cannot draw",
        ),
        ("snippet: chapter/curve.py\nvar: x\ncaption: c", r"unknown key\(s\) var"),
    ],
)
def test_a_plot_that_cannot_be_drawn_is_named(directive_yaml: str, message: str) -> None:
    with pytest.raises(DrawingError, match=message):
        figures(page(directive_yaml), "docs/index.md", FIXTURE / "snippets")


def test_a_plot_agrees_with_its_printed_numbers_and_says_them(tmp_path: Path) -> None:
    text = page(
        "snippet: chapter/curve.py\ncaption: c\nshows: [w squared.first, w squared.last, w squared.len]"
    )
    [(_, figure)] = figures(text, "docs/index.md", FIXTURE / "snippets")
    assert figure["id"] == "plot-1" and len(figure["svgs"]) == 1
    assert figure["alt"] == (
        "Plot of loss against step. w squared: 20 points, from 2.37 at 0 to 0.000493 at 19. "
        "one: 2 points, from 1 at 0 to 1 at 19."
    )
    body = figure["svgs"][0]["body"]
    assert "#000000" not in body and "var(--plot-c0)" in body and "var(--plot-c1)" in body
    assert "<text" in body and "font-family" not in body and "<style" not in body
    assert set(re.findall(r' id="([^"]+)"', body)) == {
        ref for ref in re.findall(r'(?:href="|url\()#([^")]+)', body)
    }
    assert all(i.startswith("pl1-1-") for i in re.findall(r' id="([^"]+)"', body))


def test_a_changed_value_changes_the_plot(tmp_path: Path) -> None:
    path = FIXTURE / "snippets" / "chapter" / "curve.py"
    directive = PlotDirective(line=1, snippet="chapter/curve.py", caption="c")
    drawn = plot.capture_plots(path, directive, cache=None)
    other = plot.capture_plots(varied_fixture(path, tmp_path), directive, cache=None)
    assert data(other) != data(drawn)
    shows = ("w squared.first", "w squared.last")
    assert plot.shows_problems(path.read_text("utf-8"), drawn, shows) == []
    assert plot.shows_problems(path.read_text("utf-8"), other, shows)


def varied_fixture(path: Path, tmp: Path) -> Path:
    copy = tmp / path.name
    copy.write_text(path.read_text("utf-8").replace("lr = 0.1", "lr = 0.2"), "utf-8")
    return copy


def test_the_svg_is_the_same_on_every_run() -> None:
    path = FIXTURE / "snippets" / "chapter" / "curve.py"
    directive = PlotDirective(line=1, snippet="chapter/curve.py", caption="c")
    one, two = (plot.capture_plots(path, directive, cache=None) for _ in range(2))
    assert one == two
    assert "<dc:date>" not in one[0]["svg"]


def test_an_unchanged_example_is_not_run_again(tmp_path: Path, monkeypatch) -> None:
    snippet = tmp_path / "curve.py"
    snippet.write_text((FIXTURE / "snippets" / "chapter" / "curve.py").read_text("utf-8"))
    directive = PlotDirective(line=1, snippet="curve.py", caption="c")
    cache = tmp_path / "cache"
    first = plot.capture_plots(snippet, directive, cache)
    runs = []
    real_run = plot._run
    monkeypatch.setattr(plot, "_run", lambda *a: runs.append(a) or real_run(*a))
    assert plot.capture_plots(snippet, directive, cache) == first
    assert runs == []  # from the cache
    snippet.write_text(snippet.read_text("utf-8").replace("lr = 0.1", "lr = 0.3"))
    assert plot.capture_plots(snippet, directive, cache) != first
    assert len(runs) == 1  # a changed source runs again
    assert len(list(cache.glob("*.json"))) == 2


def test_a_failing_plot_fails_the_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURE)
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    assert (
        "docs/index.md:7: plot of snippets/chapter/empty.py: figure 1: the axes draw no data"
    ) in result.stderr, result.stderr[-2000:]


def test_the_notebook_kernel_draws_the_same_svg_every_run() -> None:
    """The committed notebooks' figures: SVG with text as text, the site's ids, no
    date, byte for byte the same when the notebook is executed again."""
    import nbformat

    from sitelib.site import notebooks

    source = (FIXTURE / "snippets" / "chapter" / "curve.py").read_text("utf-8")
    cells = [nbformat.v4.new_code_cell(source, id=f"c{n}") for n in range(2)]
    notebook = nbformat.v4.new_notebook(cells=cells)
    runs = [[c.outputs for c in notebooks.execute(notebook).cells] for _ in range(2)]
    assert runs[0] == runs[1]
    svgs = [o.data["image/svg+xml"] for c in runs[0] for o in c if "data" in o]
    assert len(svgs) == 2 and all("<text" in s and "<dc:date>" not in s for s in svgs)
    assert not any("image/png" in o.get("data", {}) for c in runs[0] for o in c)
    ids = [re.findall(r' id="([^"]+)"', svg) for svg in svgs]
    assert ids[0] and not set(ids[0]) & set(ids[1])  # two figures, one page: no id twice


def test_a_notebook_with_a_png_figure_is_stale(tmp_path: Path) -> None:
    import nbformat

    from sitelib.site import notebooks
    from sitelib.site.snippets import expected_output

    chapter = next(c for c in notebooks.chapters() if c.name == "forward_backward")
    expected = notebooks.build_notebook(chapter)
    committed = notebooks.without_outputs(expected)  # its cells are current
    for cell in committed.cells:  # each printing its #> lines, as a run would
        if cell.cell_type == "code" and "launch" not in cell.metadata:
            source = (notebooks.ROOT / "snippets" / cell.metadata["snippet"]).read_text()
            text = "".join(f"{line}\n" for line in expected_output(source))
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    nbformat.write(committed, tmp_path / "svg.ipynb")
    assert notebooks.compare(tmp_path / "svg.ipynb", expected) == []
    for cell in committed.cells:
        if cell.cell_type == "code":
            cell.outputs.append(nbformat.v4.new_output("display_data", {"image/png": "iVBO"}))
    nbformat.write(committed, tmp_path / "png.ipynb")
    assert notebooks.compare(tmp_path / "png.ipynb", expected) == [
        f"{tmp_path / 'png.ipynb'}: a figure is a PNG, not SVG (KERNEL_CONFIG; run `make notebooks`)"
    ]
