"""Pictures of the graph autograd recorded, drawn from the examples at build time.

A page asks for a picture with a directive, an HTML comment holding a small YAML
mapping (``docs/authors.md``, "Pictures of the autograd graph")::

    <!-- autograd-graph
    snippet: forward_backward/retain_graph.py
    var: loss
    after: loss.backward(retain_graph=True)
    params: model
    saved: true
    caption: What the retained graph keeps for a second backward().
    -->

Drawing one takes three steps, each a function here:

1. :func:`run_snippet` runs the snippet as ``__main__`` (prints silenced, on the
   CPU whatever the machine has) and, at the capture point, hands the root
   tensors to a *visitor*: at the end of the run (the default), right after the
   line ``after`` names has run, or at each ``backward()`` call (``backward:
   true``). The visitor runs at that moment, because a later ``backward()``
   frees the saved tensors.
2. :func:`walk` is the site's visitor: from each root's ``grad_fn`` along
   ``next_functions`` down to the ``AccumulateGrad`` leaves, into plain data
   (:class:`Graph`). The tests walk the same roots with their own code and
   compare.
3. :func:`render` hands the graph to Graphviz's ``dot`` (through the ``graphviz``
   package) and returns the SVG's geometry and body, with Graphviz's colours and
   fonts taken out so the site's stylesheet themes it in both palettes. The
   ``<figure>`` around it is drawn by ``overrides/partials/autograd-graph.html``.

:func:`figures` does the three for every directive of a page. Any failure is a
:class:`DrawingError` that names the page, the line and the snippet;
``hooks/autograd_graph.py`` makes it stop the build.
"""

from __future__ import annotations

import contextlib
import html
import io
import re
import runpy
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import yaml

from sitelib.project import ROOT

if TYPE_CHECKING:  # torch is imported only when a page has a picture to draw
    import torch

SNIPPETS = ROOT / "snippets"
NAME = "autograd-graph"
# The directive: an HTML comment that starts a line (indented inside a block is fine).
DIRECTIVE = re.compile(rf"^[ \t]*<!--[ \t]*{NAME}\b(?P<body>.*?)-->[ \t]*$", re.M | re.S)
FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})")
KEYS = {"snippet", "var", "backward", "after", "params", "saved", "caption"}


class DrawingError(Exception):
    """A picture that cannot be drawn; the message says why."""


# -- the directive ----------------------------------------------------------------------
@dataclass(frozen=True)
class Directive:
    line: int  # 1-based line of the page where the comment starts
    snippet: str  # relative to snippets/
    caption: str
    var: tuple[str, ...] = ()  # the roots, by global name
    backward: bool = False  # or: the roots of every backward() call
    after: str | None = None  # capture right after the one line containing this text
    params: tuple[str, ...] = ()  # modules whose parameter names label the leaves
    saved: bool = False  # draw the tensors each node saved for backward


def _names(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(
        isinstance(v, str) and v.isidentifier() for v in items
    ):
        raise DrawingError(f"{key}: expected a name or a list of names, got {value!r}")
    return tuple(items)


def parse(body: str, line: int) -> Directive:
    """One directive from the YAML inside its comment."""
    try:
        data = yaml.safe_load(body) or {}
    except yaml.YAMLError as err:
        raise DrawingError(f"the directive is not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise DrawingError("the directive must be a YAML mapping (key: value lines)")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise DrawingError(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(KEYS))}")
    for key in ("snippet", "caption"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise DrawingError(f"{key}: required")
    var, backward = _names(data.get("var"), "var"), data.get("backward", False)
    if not isinstance(backward, bool) or not isinstance(data.get("saved", False), bool):
        raise DrawingError("backward and saved take true or false")
    if bool(var) == backward:
        raise DrawingError("give exactly one of var (names) and backward: true")
    if data.get("after") is not None and (backward or not isinstance(data["after"], str)):
        raise DrawingError("after: the text of one line of the snippet, with var only")
    return Directive(
        line=line,
        snippet=data["snippet"].strip(),
        caption=" ".join(data["caption"].split()),
        var=var,
        backward=backward,
        after=data.get("after"),
        params=_names(data.get("params"), "params"),
        saved=data.get("saved", False),
    )


def _fenced_lines(markdown: str) -> set[int]:
    """0-based numbers of the lines inside fenced code (an example of the syntax)."""
    inside, fence = set(), None
    for number, text in enumerate(markdown.splitlines()):
        m = FENCE.match(text)
        if fence is None and m:
            fence = m.group("fence")
            inside.add(number)
        elif fence is not None:
            inside.add(number)
            if m and m.group("fence")[0] == fence[0] and len(m.group("fence")) >= len(fence):
                if not text.strip()[len(m.group("fence")) :].strip():
                    fence = None
    return inside


def find(markdown: str) -> Iterator[tuple[re.Match, int, Directive | DrawingError]]:
    """Each directive of a page (outside fenced code): its match, line, and parse."""
    fenced = _fenced_lines(markdown)
    for m in DIRECTIVE.finditer(markdown):
        line = markdown.count("\n", 0, m.start())
        if line in fenced:
            continue
        try:
            yield m, line + 1, parse(m.group("body"), line + 1)
        except DrawingError as err:
            yield m, line + 1, err


# -- running the snippet ------------------------------------------------------------------
Visitor = Callable[[list[tuple[str, "torch.Tensor"]], dict[str, Any]], Any]


def _after_line(path: Path, text: str) -> int:
    lines = path.read_text("utf-8").splitlines()
    hits = [n for n, line in enumerate(lines, 1) if text in line.split("#", 1)[0]]
    if len(hits) != 1:
        where = f"lines {', '.join(map(str, hits))}" if hits else "no line"
        raise DrawingError(f"after: {text!r} matches {where} of the snippet; it must match one")
    return hits[0]


def _roots(names: tuple[str, ...], scope: dict[str, Any], when: str):
    import torch

    roots = []
    for name in names:
        if name not in scope:
            raise DrawingError(f"var: the snippet has no variable {name!r} {when}")
        value = scope[name]
        if not isinstance(value, torch.Tensor):
            raise DrawingError(f"var: {name} is a {type(value).__name__}, not a tensor, {when}")
        roots.append((name, value))
    return roots


@contextlib.contextmanager
def _as_pasted() -> Iterator[None]:
    """Run on the CPU (the device idiom is made to pick it), so that the pictures are
    the same on every build machine: on CUDA a few nodes differ, dropout's for one.
    The snippet runs inside the build's process: torch's global switches that it may
    flip are put back afterwards."""
    import torch

    grad, dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    try:
        with (
            mock.patch.object(torch.accelerator, "current_accelerator", return_value=None),
            torch.random.fork_rng(devices=[]),
            torch.enable_grad(),
        ):
            yield
    finally:
        torch.set_grad_enabled(grad)
        torch.set_default_dtype(dtype)


def run_snippet(path: Path, directive: Directive, visit: Visitor) -> list[Any]:
    """Run the snippet as ``__main__`` and return what ``visit`` made of each capture.

    ``visit(roots, scope)`` is called with ``[(label, tensor), ...]`` and the
    variables in scope, at the moment the directive names.
    """
    import torch

    if not path.is_file():
        raise DrawingError(f"snippets/{directive.snippet} does not exist")
    filename = str(path)
    captures: list[Any] = []
    target = _after_line(path, directive.after) if directive.after else None
    previous = sys.gettrace()

    def snippet_frame():
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename != filename:
            frame = frame.f_back
        return frame

    last: dict[int, int] = {}  # id(frame) -> the line that ran last in it

    def local(frame, event, arg):
        if event in ("line", "return"):
            if not captures and last.get(id(frame)) == target:
                scope = {**frame.f_globals, **frame.f_locals}
                captures.append(visit(_roots(directive.var, scope, f"after line {target}"), scope))
            last[id(frame)] = frame.f_lineno
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename == filename else None

    original_backward = torch.autograd.backward

    def backward(tensors, *args, **kwargs):
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        frame = snippet_frame()
        label = f"backward(), line {frame.f_lineno if frame else '?'}"
        captures.append(visit([(label, t) for t in roots], frame.f_globals if frame else {}))
        return original_backward(tensors, *args, **kwargs)

    stdout = io.StringIO()
    patches = contextlib.ExitStack()
    with patches:
        patches.enter_context(_as_pasted())
        patches.enter_context(contextlib.redirect_stdout(stdout))
        if directive.backward:
            patches.enter_context(mock.patch.object(torch.autograd, "backward", backward))
        if target is not None:
            sys.settrace(tracer)
            patches.callback(sys.settrace, previous)
        try:
            scope = runpy.run_path(filename, run_name="__main__")
        except DrawingError:
            raise
        except (Exception, SystemExit) as err:  # any failure of the snippet
            tb = err.__traceback__
            line = 0
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == filename:
                    line = tb.tb_lineno
                tb = tb.tb_next
            message = (str(err).strip().splitlines() or [""])[0]
            raise DrawingError(
                f"the snippet raised {type(err).__name__} at line {line}: {message}"
            ) from None
    if target is not None and not captures:
        raise DrawingError(f"after: line {target} never ran")
    if directive.backward and not captures:
        raise DrawingError("backward: true, but the snippet never calls backward()")
    if not directive.backward and target is None:
        captures.append(visit(_roots(directive.var, scope, "after it ran"), scope))
    return captures


# -- the walk -------------------------------------------------------------------------------
def shape(t: torch.Tensor) -> str:
    return "[" + ", ".join(str(d) for d in t.shape) + "]"


@dataclass(frozen=True)
class Node:
    id: str  # n0, n1, ... in walk order
    kind: str  # root (a tensor the directive names), fn (a grad_fn), leaf, saved
    lines: tuple[str, ...]  # the label, one entry per line


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (from, to, kind)

    def add(self, kind: str, *lines: str) -> str:
        node = Node(f"n{len(self.nodes)}", kind, lines)
        self.nodes.append(node)
        return node.id

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    def text(self) -> str:
        """The text alternative: every node, and what backward() passes on to from it."""
        said = []
        for node in self.nodes:
            outs = [self.node(b) for a, b, kind in self.edges if a == node.id and kind == "next"]
            kept = [self.node(b) for a, b, kind in self.edges if a == node.id and kind == "saved"]
            if node.kind == "root" and not outs:
                said.append(f"{_spoken(node)}, no graph")
            elif outs or kept:
                sentence = _spoken(node)
                if outs:
                    sentence += " → " + ", ".join(_spoken(n) for n in outs)
                if kept:
                    sentence += "; saved for backward: " + ", ".join(_spoken(n) for n in kept)
                said.append(sentence)
        if not any(n.kind == "fn" for n in self.nodes):
            return "Autograd graph: nothing recorded. " + ". ".join(said) + "."
        return "Autograd graph, from the output back to the parameters: " + ". ".join(said) + "."


def _spoken(node: Node) -> str:
    return " ".join(node.lines)


def parameter_names(scope: dict[str, Any], params: tuple[str, ...]) -> dict[int, str]:
    """id(tensor) -> the name a leaf is labelled with: a parameter of the modules in
    ``params`` (prefixed with the module's name when there are several), else a
    global variable holding that very tensor."""
    import torch

    names: dict[int, str] = {}
    for module_name in params:
        module = scope.get(module_name)
        if not isinstance(module, torch.nn.Module):
            raise DrawingError(f"params: {module_name} is not an nn.Module in the snippet")
        for name, p in module.named_parameters():
            names.setdefault(id(p), f"{module_name}.{name}" if len(params) > 1 else name)
    for name, value in scope.items():
        if isinstance(value, torch.Tensor) and not name.startswith("_"):
            names.setdefault(id(value), name)
    return names


def walk(
    roots: list[tuple[str, torch.Tensor]],
    names: dict[int, str],
    saved: bool,
    graph: Graph | None = None,
    leaves: dict[int, tuple[str, torch.Tensor]] | None = None,
) -> Graph:
    """Add the graph recorded for ``roots`` to ``graph``: each root, each grad_fn
    reached along ``next_functions`` (breadth first), and the saved tensors. Leaves
    (``AccumulateGrad``) are shared across calls through ``leaves``, keyed by the
    parameter, so graphs that feed the same ``.grad`` meet there."""
    import torch

    graph = graph or Graph()
    leaves = {} if leaves is None else leaves
    # grad_fn id -> its node. The grad_fn objects are kept too: a Python wrapper that is
    # freed can leave its id to the next one (torch 2.7 makes a new wrapper per access).
    fns: dict[int, tuple[str, object]] = {}
    queue = []
    for label, tensor in roots:
        if tensor.grad_fn is None:
            graph.add("root", label, shape(tensor), "grad_fn=None")  # nothing recorded
            continue
        root = graph.add("root", label, shape(tensor))
        queue.append((root, tensor.grad_fn))
    while queue:
        parent, fn = queue.pop(0)
        if type(fn).__name__ == "AccumulateGrad":
            variable = fn.variable
            key = id(variable)
            if key not in leaves:  # the tensor is kept with its id, so the id stays its own
                name = names.get(key, "leaf")
                label = f"{name}.grad {shape(variable)}"
                leaves[key] = (graph.add("leaf", "AccumulateGrad", label), variable)
            graph.edges.append((parent, leaves[key][0], "next"))
            continue
        if id(fn) in fns:
            graph.edges.append((parent, fns[id(fn)][0], "next"))
            continue
        node = graph.add("fn", type(fn).__name__)
        fns[id(fn)] = (node, fn)
        graph.edges.append((parent, node, "next"))
        if saved:
            for attr in sorted(a for a in dir(fn) if a.startswith("_saved_")):
                try:
                    value = getattr(fn, attr)
                except RuntimeError as err:
                    raise DrawingError(
                        f"saved: {type(fn).__name__}.{attr} was already freed by backward(); "
                        "draw the graph before that call (after: ...)"
                    ) from err
                if isinstance(value, torch.Tensor):
                    kept = graph.add("saved", f"saved {attr.removeprefix('_saved_')}", shape(value))
                    graph.edges.append((node, kept, "saved"))
        queue.extend((node, child) for child, _ in fn.next_functions if child is not None)
    return graph


def capture_graph(path: Path, directive: Directive) -> Graph:
    """Run the snippet and walk what the directive names."""
    graph, leaves = Graph(), {}

    def visit(roots, scope):
        walk(roots, parameter_names(scope, directive.params), directive.saved, graph, leaves)

    run_snippet(path, directive, visit)
    return graph


# -- drawing --------------------------------------------------------------------------------
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
            "fontname": "monospace",
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
    import graphviz

    try:
        svg = graphviz.Source(dot_source(graph, prefix)).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise DrawingError("Graphviz's dot is not installed (apt-get install graphviz)") from None
    except graphviz.CalledProcessError as err:
        raise DrawingError(f"dot failed: {err.stderr}") from None
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


def caption_html(caption: str) -> str:
    """The caption as HTML: its text escaped, `code` spans as <code>."""
    parts = html.escape(caption, quote=False).split("`")
    if len(parts) % 2 == 0:
        raise DrawingError(f"caption: unbalanced backticks in {caption!r}")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


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
                "caption": caption_html(directive.caption),
                "svg": render(graph, f"ag{number}"),
            }
        except DrawingError as err:
            raise DrawingError(f"{where}: {err}") from None
        found.append((m, figure))
    return found
