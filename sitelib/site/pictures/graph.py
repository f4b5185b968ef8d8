"""The graph autograd recorded, as plain data.

:func:`walk` goes from each root's ``grad_fn`` along ``next_functions`` down to the
``AccumulateGrad`` leaves (breadth first), into a :class:`Graph` of nodes and edges,
with the text alternative a reader's screen reader speaks. The tests walk the same
roots with their own code and compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sitelib.site.pictures.directive import DrawingError

if TYPE_CHECKING:  # torch is imported only when a page has a picture to draw
    import torch


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
