"""Pictures of the graph autograd recorded, drawn from the examples at build time.

A page asks for a picture with a directive (:mod:`.directive`). Drawing one takes
three steps, each a module: :mod:`.capture` runs the snippet to the moment the
directive names and hands the root tensors to a visitor; :mod:`.graph` walks what
autograd recorded into plain data; :mod:`.render` has Graphviz lay it out.
:func:`figures` does the three for every directive of a page and returns the data
that ``overrides/partials/autograd-graph.html`` draws (the figure, its caption and
its legend). Any failure is a :class:`DrawingError` that names the page, the line
and the snippet; ``hooks/autograd_graph.py`` makes it stop the build.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sitelib.site.pictures.capture import run_snippet
from sitelib.site.pictures.directive import NAME, Directive, DrawingError, find
from sitelib.site.pictures.graph import Graph, parameter_names, walk
from sitelib.site.pictures.render import render

__all__ = ["Directive", "DrawingError", "capture_graph", "figures", "find", "run_snippet"]


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


def figures(markdown: str, page: str, snippets: Path) -> list[tuple[re.Match, dict[str, Any]]]:
    """Every picture a page asks for: the directive's match in the Markdown and the
    figure's data for the partial (id, alt, caption, svg). ``page`` names the page in
    messages (``docs/forward_pass.md``); a failure names it, the line and the snippet."""
    found = []
    for number, (m, line, directive) in enumerate(find(markdown), 1):
        where = f"{page}:{line}: {NAME}"
        try:
            if isinstance(directive, DrawingError):
                raise directive
            where += f" of snippets/{directive.snippet}"
            graph = capture_graph(snippets / directive.snippet, directive)
            figure = {
                "id": f"{NAME}-{number}",
                "alt": graph.text(),
                "caption": caption_parts(directive.caption),
                "kinds": sorted({node.kind for node in graph.nodes}),
                "svg": render(graph, f"ag{number}"),
            }
        except DrawingError as err:
            raise DrawingError(f"{where}: {err}") from None
        found.append((m, figure))
    return found
