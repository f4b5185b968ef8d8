"""Pictures drawn from the examples at build time: the graph autograd recorded, and
the plots an example draws with matplotlib (:mod:`.plot`).

A page asks for a picture with a directive (:mod:`.directive`). Drawing one takes
three steps, each a module: :mod:`.capture` runs the snippet to the moment the
directive names and hands the root tensors to a visitor; :mod:`.graph` walks what
autograd recorded into plain data; :mod:`.render` has Graphviz lay it out.
:func:`figures` does the three for every directive of a page and returns the data
that ``overrides/partials/autograd-graph.html`` draws (the figure, its caption and
its legend); a ``<!-- plot -->`` directive's figures are captured from the snippet's
own run and drawn by ``overrides/partials/plot.html``. Any failure is a :class:`DrawingError` that names the page, the line
and the snippet; ``hooks/autograd_graph.py`` makes it stop the build.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sitelib.site.pictures import plot
from sitelib.site.pictures.capture import run_snippet
from sitelib.site.pictures.directive import (
    NAME,
    PLOT,
    Directive,
    DrawingError,
    PlotDirective,
    find,
)
from sitelib.site.pictures.graph import Graph, parameter_names, walk
from sitelib.site.pictures.render import render

__all__ = [
    "Directive",
    "DrawingError",
    "PlotDirective",
    "capture_graph",
    "figures",
    "find",
    "plot_figure",
    "run_snippet",
]


def capture_graph(path: Path, directive: Directive) -> Graph:
    """Run the snippet and walk what the directive names."""
    graph, leaves = Graph(), {}

    def visit(roots, scope):
        walk(roots, parameter_names(scope, directive.params), directive.saved, graph, leaves)

    run_snippet(path, directive, visit)
    return graph


def caption_parts(caption: str) -> list[dict[str, Any]]:
    """The caption as text and `code` parts, for the partial to draw."""
    parts = caption.split("`")
    if len(parts) % 2 == 0:
        raise DrawingError(f"caption: unbalanced backticks in {caption!r}")
    return [{"text": p, "code": bool(i % 2)} for i, p in enumerate(parts) if p]


def graph_figure(path: Path, directive: Directive, number: int) -> dict[str, Any]:
    graph = capture_graph(path, directive)
    return {
        "template": "partials/autograd-graph.html",
        "id": f"{NAME}-{number}",
        "alt": graph.text(),
        "caption": caption_parts(directive.caption),
        "kinds": sorted({node.kind for node in graph.nodes}),
        "svg": render(graph, f"ag{number}"),
    }


def plot_figure(path: Path, directive: PlotDirective, number: int) -> dict[str, Any]:
    """A plot directive's figure: each figure the snippet draws, themed, checked
    (:func:`plot.problems`), and compared with the numbers its ``#>`` lines print."""
    drawn = plot.capture_plots(path, directive)
    if not drawn:
        raise DrawingError("the snippet draws no figure (plt.show() never had one to show)")
    wrong = [f"figure {n}: {p}" for n, f in enumerate(drawn, 1) for p in plot.problems(f)]
    for n, f in enumerate(drawn, 1):
        try:
            plot.themed(f["svg"], "")
        except DrawingError as err:
            wrong.append(f"figure {n}: {err}")
    wrong += plot.shows_problems(path.read_text("utf-8"), drawn, directive.shows)
    if wrong:
        raise DrawingError("; ".join(wrong))
    return {
        "template": "partials/plot.html",
        "id": f"{PLOT}-{number}",
        "alt": plot.alt_text(drawn),
        "caption": caption_parts(directive.caption),
        "svgs": [plot.themed(f["svg"], f"pl{number}-{n}") for n, f in enumerate(drawn, 1)],
    }


def figures(markdown: str, page: str, snippets: Path) -> list[tuple[re.Match, dict[str, Any]]]:
    """Every picture a page asks for, in page order: the directive's match in the
    Markdown and the figure's data for its partial (``template``; id, alt, caption,
    svg). ``page`` names the page in messages (``docs/forward_pass/index.md``); a failure
    names it, the line and the snippet."""
    found = []
    for name, draw in ((NAME, graph_figure), (PLOT, plot_figure)):
        for number, (m, line, directive) in enumerate(find(markdown, name), 1):
            where = f"{page}:{line}: {name}"
            try:
                if isinstance(directive, DrawingError):
                    raise directive
                where += f" of snippets/{directive.snippet}"
                figure = draw(snippets / directive.snippet, directive, number)
            except DrawingError as err:
                raise DrawingError(f"{where}: {err}") from None
            found.append((m, figure))
    return sorted(found, key=lambda item: item[0].start())
