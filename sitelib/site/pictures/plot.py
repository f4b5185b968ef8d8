"""Plots: the figures an example draws with matplotlib, captured from its own run.

:func:`capture_plots` runs the snippet as the autograd pictures do
(:func:`~sitelib.site.pictures.capture.run_snippet`: as ``__main__``, prints
silenced, on the CPU) with matplotlib's Agg backend, and takes every figure open at
each ``plt.show()`` and at the end. Each becomes SVG (text as text, fixed ids, no
date) and the data of what it draws, read from matplotlib's artists: every line's
points, every bar's height, every scatter's points, the axis labels and the legend.

:func:`themed` recolours the SVG for the site's stylesheet (black is
``currentColor``, the colour cycle ``C0``..``C5`` is ``var(--plot-c0)``..., white
is the page's background), so one inline SVG reads in both palettes;
:func:`problems` rejects a figure that draws nothing, has no axis labels, no legend
for several series, text under 11 px at 390 px, or a colour the site does not theme;
:func:`shows_problems` compares the data with the numbers the snippet's ``#>`` lines
print; :func:`alt_text` says the figure in words, with the values a reader reads off
it. What a run drew is cached under ``.cache/plots/``, keyed by the snippet's source,
the torch and matplotlib releases and this module's source. A multi-process example
(``# launch:``) is run under the real ``torchrun``, and its rank 0 draws
(:mod:`sitelib.site.pictures.launched`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any
from unittest import mock

from sitelib.site.layout import ROOT
from sitelib.site.pictures.capture import run_snippet
from sitelib.site.pictures.directive import DrawingError, PlotDirective
from sitelib.site.snippets import expected_output, launch_command, launch_ranks

CACHE = ROOT / ".cache" / "plots"
SALT = "training-step-docs"  # svg.hashsalt: the same ids on every run
# What a figure is drawn with at build time: the size the site shows it at, with text
# that stays at least 11 px on a 390 px phone (PHONE_WIDTH of content).
RC = {
    "svg.fonttype": "none",  # text as <text>, not paths; no fonts embedded
    "svg.hashsalt": SALT,
    "figure.figsize": (4.8, 3.0),
    "figure.dpi": 72,
    "font.size": 11,
    "legend.fontsize": 11,
    "axes.titlesize": 11,
    "axes.labelsize": 11,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.facecolor": "white",
    "legend.edgecolor": "#cccccc",
    "figure.autolayout": True,
}
PHONE_WIDTH = 358  # CSS px of content on a 390 px wide screen (tests/browser measure it)
MIN_TEXT_PX = 11
# The colours a figure may use, and the site's name for each (docs/assets/extra.css).
CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
COLOURS = {
    "#000000": "currentColor",
    "#ffffff": "var(--md-default-bg-color)",
    "#b0b0b0": "var(--plot-grid)",
    "#cccccc": "var(--plot-grid)",
    **{c: f"var(--plot-c{i})" for i, c in enumerate(CYCLE)},
}
# A number on a #> line: 3, -0.25, 1e-05, 40,960, nan (not part of a word).
NUMBER = re.compile(
    r"(?<![\w.,])(?:-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan)(?![\w.]|,\d)"
)


# -- running the snippet ------------------------------------------------------------------
@contextlib.contextmanager
def matplotlib_headless(figures: list[Any]) -> Iterator[None]:
    """Agg and the site's rc settings; ``plt.show()`` hands the open figures over and
    closes them (on Agg it would do nothing)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def show(*args, **kwargs):
        for number in plt.get_fignums():
            figures.append(_figure(plt.figure(number)))
        plt.close("all")

    plt.close("all")
    with matplotlib.rc_context(RC), mock.patch.object(plt, "show", show):
        yield
        show()  # figures still open at the end
    plt.close("all")


def _run(path: Path, directive: PlotDirective) -> list[dict[str, Any]]:
    if launch_command(path.read_text("utf-8")):
        return _run_launched(path)
    figures: list[dict[str, Any]] = []
    with matplotlib_headless(figures):
        run_snippet(path, directive, lambda roots, scope: None)
    return figures


def _run_launched(path: Path) -> list[dict[str, Any]]:
    """A multi-process example's figures, from its real run under ``torchrun``: each
    rank runs through :mod:`sitelib.site.pictures.launched`, and rank 0 writes what it
    showed."""
    ranks = launch_ranks(launch_command(path.read_text("utf-8")))
    with tempfile.TemporaryDirectory(prefix="launched-plot-") as tmp:
        out = Path(tmp) / "figures.json"
        args = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
        args += ["--nproc-per-node", str(ranks), "--log-dir", tmp, "--redirects", "3"]
        args += ["-m", "sitelib.site.pictures.launched", str(path.resolve()), str(out)]
        env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", CUDA_VISIBLE_DEVICES="")
        done = subprocess.run(args, cwd=tmp, env=env, capture_output=True, text=True)
        if done.returncode != 0 or not out.is_file():
            logs = sorted(Path(tmp).rglob("stderr.log"))
            said = "\n".join(log.read_text("utf-8") for log in logs) or done.stderr
            tail = "\n".join(said.strip().splitlines()[-6:])
            raise DrawingError(f"its run under torchrun exited {done.returncode}:\n{tail}")
        return json.loads(out.read_text("utf-8"))


def cache_key(path: Path) -> str:
    parts = [
        path.read_bytes(),
        version("torch").encode(),
        version("matplotlib").encode(),
        Path(__file__).read_bytes(),
        Path(__file__).with_name("launched.py").read_bytes(),
    ]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:32]


def capture_plots(
    path: Path, directive: PlotDirective, cache: Path | None = CACHE
) -> list[dict[str, Any]]:
    """The figures the snippet draws (``svg``, ``data``), from the cache when the
    snippet, torch and matplotlib are unchanged since a run drew them."""
    if not path.is_file():
        raise DrawingError(f"snippets/{directive.snippet} does not exist")
    stored = cache / f"{cache_key(path)}.json" if cache else None
    if stored and stored.is_file():
        return json.loads(stored.read_text("utf-8"))
    figures = _run(path, directive)
    if stored:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_text(json.dumps(figures), "utf-8")
    return figures


# -- what a figure draws ------------------------------------------------------------------
def _num(v: Any) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None  # JSON has no NaN: None stands for it


def _label(artist) -> str:
    label = artist.get_label() or ""
    return "" if label.startswith("_") else label


def _ticks(values, labels, limits) -> list[list]:
    """[value, label] of each labelled tick inside the axis (matplotlib keeps a few
    beyond it, not drawn)."""
    low, high = sorted(limits)
    pairs = zip(values, (t.get_text() for t in labels), strict=False)
    return [[float(v), text] for v, text in pairs if text and low <= v <= high]


def _axes(ax) -> dict[str, Any]:
    from matplotlib.collections import PathCollection
    from matplotlib.container import BarContainer

    series = []
    in_bars = {id(p) for c in ax.containers for p in c}
    for line in ax.get_lines():
        xy = line.get_xydata()
        kind = "line"  # or a line across the axes at one value, as axhline/axvline draw
        if len(xy) == 2 and line.get_transform() != ax.transData:
            kind = "hline" if xy[0, 1] == xy[1, 1] else "vline"
        elif line.get_linestyle() in ("None", "", " "):
            kind = "points"  # markers only
        series.append(
            {
                "kind": kind,
                "label": _label(line),
                "x": [_num(x) for x in xy[:, 0]],
                "y": [_num(y) for y in xy[:, 1]],
            }
        )
    for container in ax.containers:
        if isinstance(container, BarContainer):
            series.append(
                {
                    "kind": "bar",
                    "label": _label(container),
                    "x": [_num(p.get_x() + p.get_width() / 2) for p in container],
                    "y": [_num(p.get_height()) for p in container],
                    "bottom": [_num(p.get_y()) for p in container],
                }
            )
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and id(coll) not in in_bars:
            offsets = coll.get_offsets()
            series.append(
                {
                    "kind": "points",
                    "label": _label(coll),
                    "x": [_num(x) for x, _ in offsets],
                    "y": [_num(y) for _, y in offsets],
                }
            )
    legend = ax.get_legend()
    return {
        "xlabel": ax.get_xlabel(),
        "ylabel": ax.get_ylabel(),
        "title": ax.get_title(),
        "yscale": ax.get_yscale(),
        "xticks": _ticks(ax.get_xticks(), ax.get_xticklabels(), ax.get_xlim()),
        "yticks": _ticks(ax.get_yticks(), ax.get_yticklabels(), ax.get_ylim()),
        "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
        "series": series,
    }


def _figure(fig) -> dict[str, Any]:
    fig.canvas.draw()  # tick labels are set when the figure is drawn
    data = [_axes(ax) for ax in fig.axes if ax.get_visible()]
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None}, transparent=True)
    return {"svg": out.getvalue(), "data": data}


# -- the SVG, themed ----------------------------------------------------------------------
def prefixed_ids(svg: str, prefix: str) -> str:
    """matplotlib's SVG with the ids nothing refers to dropped and the others made
    ``{prefix}-{id}``: two figures in one page draw the same tick with the same id."""
    used = set(re.findall(r'(?:href="|url\()#([^")]+)', svg))  # what refers to an id
    svg = re.sub(r' id="([^"]+)"', lambda m: m.group(0) if m.group(1) in used else "", svg)
    return re.sub(r'(id="|href="#|url\(#)', rf"\g<1>{prefix}-", svg)


def themed(svg: str, prefix: str) -> dict[str, str]:
    """``width``, ``height`` (points), ``viewbox`` and ``body`` of matplotlib's SVG:
    colours replaced by the site's (COLOURS), fonts left to the stylesheet, ids made
    unique in the page with ``prefix``, numbers rounded to a hundredth of a point."""
    head = re.search(r'<svg [^>]*width="([\d.]+)pt" height="([\d.]+)pt" viewBox="([^"]+)"', svg)
    if head is None:
        raise DrawingError(f"matplotlib's SVG has no size and viewBox: {svg[:300]!r}")
    body = svg[svg.index(">", head.end()) + 1 : svg.rindex("</svg>")]
    body = re.sub(r"<metadata>.*?</metadata>|<style[^>]*>.*?</style>", "", body, flags=re.S)
    body = re.sub(r"<!--.*?-->", "", body, flags=re.S)
    unknown = sorted(set(re.findall(r"#[0-9a-fA-F]{6}\b", body)) - set(COLOURS))
    if unknown:
        raise DrawingError(
            f"colour {', '.join(unknown)} is not one the site themes for both palettes: "
            "use black and C0 to C5 (color='C1')"
        )
    body = re.sub(r"#[0-9a-fA-F]{6}\b", lambda m: COLOURS[m.group(0).lower()], body)
    body = re.sub(r"font-family: [^;\"]*;? ?", "", body)
    body = prefixed_ids(body, prefix)
    body = re.sub(r' transform="rotate\(-0 [^"]*"', "", body)  # a turn by nothing
    # In the markup only: a tick label's text (0.0025) keeps every digit.
    body = re.sub(r"<[^>]+>", lambda m: re.sub(r"(\d+\.\d\d)\d+", r"\1", m[0]), body)
    body = re.sub(r"\s*\n\s*", " ", body)
    body = re.sub(r">\s+<", "><", body).strip()
    return {"width": head.group(1), "height": head.group(2), "viewbox": head.group(3), "body": body}


def problems(figure: dict[str, Any]) -> list[str]:
    """Why a figure cannot go on a page (empty: it can)."""
    found = []
    if not figure["data"]:
        found.append("it has no axes")
    for n, ax in enumerate(figure["data"], 1):
        where = f"axes {n}" if len(figure["data"]) > 1 else "the axes"
        drawn = [s for s in ax["series"] if any(y is not None for y in s["y"])]
        if not drawn:
            found.append(f"{where} draw no data")
        for axis in ("xlabel", "ylabel"):
            if not ax[axis].strip():
                found.append(f"{where} have no {axis[0]} label (plt.{axis}(...))")
        if len(ax["series"]) > 1:
            unnamed = [s["kind"] for s in ax["series"] if not s["label"]]
            if unnamed:
                found.append(
                    f"{where} draw {len(ax['series'])} series, and a {unnamed[0]} has no "
                    "label= for the legend"
                )
            elif not ax["legend"]:
                found.append(f"{where} draw {len(ax['series'])} series and no legend")
    width = float(re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+)', figure["svg"]).group(1))
    sizes = [float(s) for s in re.findall(r"font-size: ([\d.]+)px", figure["svg"])]
    if sizes and min(sizes) * PHONE_WIDTH / width < MIN_TEXT_PX:
        shown = min(sizes) * PHONE_WIDTH / width
        found.append(
            f"text {min(sizes):g} pt in a figure {width:g} pt wide is {shown:.1f} px on a "
            f"390 px screen, under {MIN_TEXT_PX} (keep the size the build draws at, text "
            "of 11 pt or more; a log axis's 10 to a power has a smaller exponent: "
            "plt.gca().yaxis.set_major_formatter('{x:g}') prints 0.01)"
        )
    return found


# -- the data, in words and against the printed numbers -------------------------------------
def _g(v: float | None) -> str:
    if v is None:
        return "not a number"
    return f"{int(v):,}" if v == int(v) and abs(v) < 1e15 else f"{v:.3g}"


def _series_text(s: dict[str, Any], ax: dict[str, Any]) -> str:
    name = f"{s['label']}: " if s["label"] else ""
    pairs = [(x, y) for x, y in zip(s["x"], s["y"], strict=True) if x is not None]
    finite = [(x, y) for x, y in pairs if y is not None]
    if s["kind"] == "bar":
        names = dict(ax["xticks"])
        bars = ", ".join(f"{names.get(x, _g(x))} {_g(y)}" for x, y in pairs)
        return f"{name}bars {bars}"
    if s["kind"] in ("hline", "vline") and finite:
        at = finite[0][1] if s["kind"] == "hline" else finite[0][0]
        return f"{name}a {'horizontal' if s['kind'] == 'hline' else 'vertical'} line at {_g(at)}"
    if not finite:
        return f"{name}no finite values"
    if s["kind"] == "points":
        return f"{name}marked at " + ", ".join(f"{_g(x)} ({_g(y)})" for x, y in finite)
    (x0, y0), (x1, y1) = finite[0], finite[-1]
    low, high = min(finite, key=lambda p: p[1]), max(finite, key=lambda p: p[1])
    text = f"{name}{len(pairs)} points, from {_g(y0)} at {_g(x0)} to {_g(y1)} at {_g(x1)}"
    if high[1] > max(y0, y1):
        text += f", highest {_g(high[1])} at {_g(high[0])}"
    if low[1] < min(y0, y1):
        text += f", lowest {_g(low[1])} at {_g(low[0])}"
    bad = [x for x, y in pairs if y is None]
    if bad:
        text += f"; not finite (inf or NaN) from {_g(bad[0])} on"
    return text


def alt_text(figures: list[dict[str, Any]]) -> str:
    """The figures in words: axes, scales and each series' values a reader reads off."""
    said = []
    for figure in figures:
        for ax in figure["data"]:
            scale = ", log scale" if ax["yscale"] == "log" else ""
            head = f"Plot of {ax['ylabel']}{scale} against {ax['xlabel']}"
            said.append(head + ". " + ". ".join(_series_text(s, ax) for s in ax["series"]))
    return " ".join(s.rstrip(".") + "." for s in said)


def series(figures: list[dict[str, Any]], label: str) -> dict[str, Any]:
    """The one series labelled ``label`` (``_``: the unlabelled one)."""
    name = "" if label == "_" else label
    found = [s for f in figures for ax in f["data"] for s in ax["series"] if s["label"] == name]
    if len(found) != 1:
        raise DrawingError(f"shows: {len(found)} series are labelled {label!r}, not one")
    return found[0]


def value(figures: list[dict[str, Any]], expression: str) -> float | None:
    """``label.stat``, ``label[i]`` (the i-th y) or ``label.x[i]``: a number the
    figures draw. ``stat`` is first,
    last, min, max, argmin, argmax (the x there), len, x (the first x: where an
    ``axvline`` is), or nan (the x of the first value that is not finite: inf or NaN).
    An unlabelled series is ``_``."""
    m = re.fullmatch(
        r"(?P<label>.+?)(?:\.(?P<stat>\w+)|(?P<x>\.x)?\[(?P<index>-?\d+)\])", expression
    )
    if not m:
        raise DrawingError(f"shows: {expression!r} is not label.stat, label[i] or label.x[i]")
    s = series(figures, m["label"])
    if m["index"] is not None:
        values = s["x"] if m["x"] else s["y"]
        if not -len(values) <= int(m["index"]) < len(values):
            raise DrawingError(f"shows: {expression}: the series has {len(values)} values")
        return values[int(m["index"])]
    finite = [(x, y) for x, y in zip(s["x"], s["y"], strict=True) if y is not None]
    stats = {
        "first": lambda: s["y"][0],
        "last": lambda: s["y"][-1],
        "min": lambda: min(y for _, y in finite),
        "max": lambda: max(y for _, y in finite),
        "argmin": lambda: min(finite, key=lambda p: p[1])[0],
        "argmax": lambda: max(finite, key=lambda p: p[1])[0],
        "len": lambda: len(s["y"]),
        "x": lambda: s["x"][0],
        "nan": lambda: next(x for x, y in zip(s["x"], s["y"], strict=True) if y is None),
    }
    if m["stat"] not in stats:
        raise DrawingError(f"shows: {m['stat']!r} is not one of {', '.join(stats)}")
    try:
        return stats[m["stat"]]()
    except (StopIteration, ValueError):
        raise DrawingError(f"shows: {expression}: the series has no such value") from None


def _matches(printed: str, drawn: float | None) -> bool:
    if printed.lower() == "nan":
        return drawn is None
    if drawn is None:
        return False
    printed = printed.replace(",", "")
    mantissa, _, exponent = printed.lower().partition("e")
    decimals = len(mantissa.partition(".")[2]) - int(exponent or 0)
    return abs(float(printed) - drawn) <= 0.5 * 10.0**-decimals * (1 + 1e-9)


def _expanded(figures: list[dict[str, Any]], shows: tuple) -> tuple:
    """``label[*]`` and ``label.x[*]`` stand for every value of the series, in order."""
    out: list[str | None] = []
    for entry in shows:
        m = re.fullmatch(r"(?P<label>.+?)(?P<x>\.x)?\[\*\]", entry or "")
        if m is None:
            out.append(entry)
            continue
        n = len(series(figures, m["label"])["y"])
        out += [f"{m['label']}{m['x'] or ''}[{i}]" for i in range(n)]
    return tuple(out)


def shows_problems(source: str, figures: list[dict[str, Any]], shows: tuple) -> list[str]:
    """Where the numbers the ``#>`` lines print differ from what the figures draw:
    ``shows`` says, number by number (in print order), what each one is in the plot."""
    printed = [n for line in expected_output(source) for n in NUMBER.findall(line)]
    shows = _expanded(figures, shows)
    found = []
    if len(shows) > len(printed):
        found.append(f"shows: {len(shows)} entries, but the #> lines print {len(printed)} numbers")
    for n, (expression, number) in enumerate(zip(shows, printed, strict=False), 1):
        if expression is None:
            continue
        drawn = value(figures, expression)
        if not _matches(number, drawn):
            found.append(
                f"shows: number {n} printed is {number}, but the plot's {expression} is {drawn!r}"
            )
    return found
