"""The autograd pictures show the graph their example recorded, and fail loudly.

For every ``<!-- autograd-graph -->`` directive in the pages, the figure in the
built site is compared with a walk of ``grad_fn.next_functions`` written here,
independently of sitelib.site.pictures.walk: the same nodes (with their labels)
and the same edges, as multisets. sitelib only runs the snippet and calls this
file's walk at the moment the directive names (after the line ``after`` names, at
each ``backward()``, or at the end).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
import torch

from sitelib.site.layout import ROOT, fixture_project, mkdocs_build, page_files, page_url
from sitelib.site.pictures import Directive, DrawingError, figures, find, run_snippet

FIXTURE = ROOT / "tests" / "fixtures" / "pictures"
SNIPPETS = ROOT / "snippets"
SVG = "{http://www.w3.org/2000/svg}"
MAX_SVG_BYTES = 10_000

Label = tuple[str, ...]


def directives() -> list[tuple[str, int, Directive]]:
    """(page, number in the page, directive) for every picture the pages ask for."""
    found = []
    for page in page_files():
        for number, (_, _, directive) in enumerate(find(page.read_text("utf-8")), 1):
            assert not isinstance(directive, DrawingError), f"{page}: {directive}"
            found.append((page.relative_to(ROOT / "docs").as_posix(), number, directive))
    return found


# -- the independent walk ---------------------------------------------------------------
def _shape(t: torch.Tensor) -> str:
    return str(list(t.shape)).replace("'", "")


def _leaf_names(scope: dict, params: tuple[str, ...]) -> dict[int, str]:
    names = {}
    for module_name in params:
        for name, p in scope[module_name].named_parameters():
            names.setdefault(id(p), f"{module_name}.{name}" if len(params) > 1 else name)
    for name, value in scope.items():
        if isinstance(value, torch.Tensor):
            names.setdefault(id(value), name)
    return names


class Recorded:
    """Nodes and edges of the graphs reached from each capture's roots."""

    def __init__(self, directive: Directive) -> None:
        self.directive = directive
        self.nodes: Counter[Label] = Counter()
        self.edges: Counter[tuple[Label, Label, str]] = Counter()
        self.leaves: dict[int, tuple[Label, torch.Tensor]] = {}

    def __call__(self, roots, scope) -> None:
        names = _leaf_names(scope, self.directive.params)
        labels: dict[int, Label] = {}  # id(grad_fn) -> label, this capture only
        alive = []  # the grad_fns seen, kept so that no other one can take an id of theirs
        stack = []
        for name, tensor in roots:
            fn = tensor.grad_fn
            root = (name, _shape(tensor)) + (() if fn is not None else ("grad_fn=None",))
            self.nodes[root] += 1
            if fn is not None:
                stack.append((root, fn))
        while stack:
            parent, fn = stack.pop()
            if hasattr(fn, "variable"):  # AccumulateGrad: one per leaf tensor
                v = fn.variable
                if id(v) not in self.leaves:
                    label = ("AccumulateGrad", f"{names.get(id(v), 'leaf')}.grad {_shape(v)}")
                    self.leaves[id(v)] = (label, v)
                    self.nodes[label] += 1
                self.edges[parent, self.leaves[id(v)][0], "next"] += 1
                continue
            seen = id(fn) in labels
            label = labels.setdefault(id(fn), (fn.name(),))
            alive.append(fn)
            self.edges[parent, label, "next"] += 1
            if seen:
                continue
            self.nodes[label] += 1
            for attr in dir(fn) if self.directive.saved else ():
                value = getattr(fn, attr) if attr.startswith("_saved_") else None
                if isinstance(value, torch.Tensor):
                    kept = (f"saved {attr[len('_saved_') :]}", _shape(value))
                    self.nodes[kept] += 1
                    self.edges[label, kept, "saved"] += 1
            stack.extend((label, child) for child, _ in fn.next_functions if child is not None)


def recorded(directive: Directive, snippets: Path = SNIPPETS) -> Recorded:
    walk = Recorded(directive)
    run_snippet(snippets / directive.snippet, directive, walk)
    return walk


# -- what the built page shows ------------------------------------------------------------
FIGURE = re.compile(r'<figure class="autograd-graph" id="([^"]+)">.*?</figure>', re.S)


def drawn_figures(html: str) -> dict[str, str]:
    """figure id -> the figure's HTML, for every autograd picture in a built page."""
    return {m.group(1): m.group(0) for m in FIGURE.finditer(html)}


def drawn(figure_html: str) -> tuple[Counter, Counter, ET.Element]:
    """The nodes (their text lines) and edges (from ids) that a figure's SVG draws."""
    svg = ET.fromstring(re.search(r"<svg.*?</svg>", figure_html, re.S).group(0))
    labels: dict[str, Label] = {}
    for g in svg.iter(f"{SVG}g"):
        if g.get("class", "").split()[:1] == ["node"]:
            labels[g.get("id")] = tuple(t.text or "" for t in g.iter(f"{SVG}text"))
    nodes = Counter(labels.values())
    edges: Counter = Counter()
    for g in svg.iter(f"{SVG}g"):
        classes = g.get("class", "").split()
        if classes[:1] == ["edge"]:
            m = re.fullmatch(r"(ag\d+)_(n\d+)_(n\d+)(?:_\d+)?", g.get("id", ""))
            assert m, f"edge without from/to in its id: {g.get('id')}"
            prefix, a, b = m.groups()
            ends = [labels.get(f"{prefix}_{n}", (f"(no node {n})",)) for n in (a, b)]
            edges[ends[0], ends[1], classes[1]] += 1
    return nodes, edges, svg


def graph_problems(figure_html: str, expected: Recorded) -> list[str]:
    """How a drawn figure differs from the graph the example recorded (empty: same)."""
    nodes, edges, svg = drawn(figure_html)
    problems = []
    for what, got, want in (("node", nodes, expected.nodes), ("edge", edges, expected.edges)):
        for item in sorted((want - got).keys(), key=str):
            problems.append(f"recorded {what} not drawn: {item}")
        for item in sorted((got - want).keys(), key=str):
            problems.append(f"drawn {what} not recorded: {item}")
    for group in svg:
        for child in group:
            kind = child.get("class", "").split()[:1]
            if child.tag != f"{SVG}g" or kind not in (["node"], ["edge"]):
                problems.append(f"drawn outside any node or edge: <{child.tag.split('}')[1]}>")
    alt = svg.get("aria-label", "")
    if svg.get("role") != "img":
        problems.append('the SVG has no role="img"')
    problems += [f"text alternative omits {' '.join(n)}" for n in nodes if " ".join(n) not in alt]
    caption = re.search(r"<figcaption>(.*?)</figcaption>", figure_html, re.S)
    if not caption or not caption.group(1).strip():
        problems.append("no caption")
    legend = re.findall(r'<span class="key (\w+)"[^>]*>', figure_html)
    for kind in sorted(
        {
            g.get("class", "").split()[1]
            for g in svg.iter(f"{SVG}g")
            if g.get("class", "").startswith("node ")
        }
    ):
        if kind not in legend:
            problems.append(f"the legend does not explain the {kind} style it draws")
    size = len(re.search(r"<svg.*?</svg>", figure_html, re.S).group(0).encode())
    if size > MAX_SVG_BYTES:
        problems.append(f"the SVG is {size} bytes, over {MAX_SVG_BYTES}")
    return problems


# -- the site's pictures --------------------------------------------------------------------
DIRECTIVES = directives()


def test_the_four_sections_have_pictures() -> None:
    drawn_from = {d.snippet for _, _, d in DIRECTIVES}
    assert {
        "forward_pass/tiny_vision_mlp.py",
        "forward_pass/no_grad_vs_inference_mode.py",
        "forward_backward/minimal_training_step.py",
        "forward_backward/retain_graph.py",
        "forward_backward/accumulation.py",
    } <= drawn_from


@pytest.mark.parametrize(
    ("page", "number", "directive"), DIRECTIVES, ids=[f"{p}:{d.line}" for p, _, d in DIRECTIVES]
)
def test_picture_is_the_recorded_graph(
    page: str, number: int, directive: Directive, built_site
) -> None:
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    html = (site / page_url(page) / "index.html").read_text("utf-8")
    figure = drawn_figures(html).get(f"autograd-graph-{number}")
    assert figure, f"docs/{page}:{directive.line}: no figure autograd-graph-{number} in the page"
    expected = recorded(directive)
    problems = graph_problems(figure, expected)
    where = f"docs/{page}:{directive.line} (snippets/{directive.snippet})"
    assert not problems, where + ":\n" + "\n".join(problems)


def test_empty_picture_proves_nothing_was_recorded(built_site) -> None:
    _, site = built_site
    figure = drawn_figures((site / "forward_pass" / "modes" / "index.html").read_text("utf-8"))
    empty = [f for f in figure.values() if "no_grad()" in f]
    assert len(empty) == 1
    nodes, edges, _ = drawn(empty[0])
    assert not edges and all(n[-1] == "grad_fn=None" for n in nodes), nodes


# -- self-tests: every way a picture can fail is reported, with page and snippet ------------
def page(directive_yaml: str) -> str:
    return f"# Page\n\nSome text.\n\n<!-- autograd-graph\n{directive_yaml}\n-->\n"


@pytest.mark.parametrize(
    ("directive_yaml", "message"),
    [
        (
            "snippet: chapter/graph.py\nvar: lost\ncaption: c",
            r"docs/index.md:5: autograd-graph of snippets/chapter/graph.py: "
            r"var: the snippet has no variable 'lost' after it ran",
        ),
        (
            "snippet: chapter/raises.py\nvar: c\ncaption: c",
            r"docs/index.md:5: autograd-graph of snippets/chapter/raises.py: "
            r"the snippet raised RuntimeError at line 7: (mm: )?mat1 and mat2 shapes cannot be multiplied",
        ),
        (
            "snippet: chapter/gone.py\nvar: c\ncaption: c",
            r"docs/index.md:5: autograd-graph of snippets/chapter/gone.py: "
            r"snippets/chapter/gone.py does not exist",
        ),
        (
            "snippet: chapter/graph.py\nvar: loss\nsaved: true\ncaption: c",
            r"graph.py: saved: PowBackward0._saved_\w+ was already freed by backward\(\)",
        ),
        (
            "snippet: chapter/graph.py\nvar: out\nafter: model\ncaption: c",
            r"graph.py: after: 'model' matches lines 8, 10, 11 of the snippet; it must match one",
        ),
        (
            "snippet: chapter/graph.py\nvar: lost\nafter: out = model(x)\ncaption: c",
            r"graph.py: var: the snippet has no variable 'lost' after line 10",
        ),
        (
            "snippet: chapter/graph.py\nvar: out\nafter: print(out)\ncaption: c",
            r"graph.py: after: 'print\(out\)' matches no line of the snippet",
        ),
        (
            "snippet: chapter/graph.py\nvar: device\ncaption: c",
            r"graph.py: var: device is a device, not a tensor",
        ),
        (
            "snippet: chapter/graph.py\nvar: out\nparams: x\ncaption: c",
            r"graph.py: params: x is not an nn.Module",
        ),
        (
            "snippet: chapter/graph.py\nvar: out\ncolour: red\ncaption: c",
            r"unknown key\(s\) colour",
        ),
        ("snippet: chapter/graph.py\ncaption: c", r"give exactly one of var"),
        ("snippet: chapter/graph.py\nvar: out", r"caption: required"),
    ],
)
def test_a_picture_that_cannot_be_drawn_is_named(directive_yaml: str, message: str) -> None:
    with pytest.raises(DrawingError, match=message):
        figures(page(directive_yaml), "docs/index.md", FIXTURE / "snippets")


def test_the_check_catches_a_drawing_that_differs() -> None:
    text = page("snippet: chapter/graph.py\nvar: loss\ncaption: c")
    [(_, _, directive)] = find(text)
    [(_, figure)] = figures(text, "docs/index.md", FIXTURE / "snippets")
    html = _figure_html(figure)
    expected = recorded(directive, FIXTURE / "snippets")
    assert graph_problems(html, expected) == []

    renamed = html.replace(">AddBackward0<", ">SubBackward0<")
    assert renamed != html
    problems = graph_problems(renamed, expected)
    assert "recorded node not drawn: ('AddBackward0',)" in problems, problems
    assert "drawn node not recorded: ('SubBackward0',)" in problems, problems

    edge = re.search(r'<g id="ag1_n\d+_n\d+" class="edge next">.*?</g>', html).group(0)
    problems = graph_problems(html.replace(edge, ""), expected)
    assert [p for p in problems if p.startswith("recorded edge not drawn")], problems

    leaf = re.search(r'<g id="ag1_n\d+" class="node leaf">.*?</g>', html).group(0)
    problems = graph_problems(html.replace(leaf, "", 1), expected)
    assert [p for p in problems if p.startswith("recorded node not drawn: ('AccumulateGrad'")]

    background = re.sub(r'(<g class="graph"[^>]*>)', r'\1<polygon points="0,0 9,0 9,9"/>', html)
    assert "drawn outside any node or edge: <polygon>" in graph_problems(background, expected)

    no_leaf_key = re.sub(r'<span class="key leaf"[^>]*>.*?</span>(?=<span|</span>)', "", html)
    assert "the legend does not explain the leaf style it draws" in graph_problems(
        no_leaf_key, expected
    )

    unlabelled = re.sub(r' aria-label="[^"]*"', ' aria-label=""', html)
    assert [p for p in graph_problems(unlabelled, expected) if "text alternative" in p]


def _figure_html(figure: dict) -> str:
    import jinja2

    template = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "overrides")).get_template(
        "partials/autograd-graph.html"
    )
    return template.render(figure=figure)


def test_a_directive_in_fenced_code_is_an_example_not_a_picture() -> None:
    text = "~~~markdown\n<!-- autograd-graph\nsnippet: nowhere.py\n-->\n~~~\n"
    assert list(find(text)) == []


def test_a_failing_picture_fails_the_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURE)
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    assert (
        "docs/index.md:7: autograd-graph of snippets/chapter/graph.py: "
        "var: the snippet has no variable 'lost' after it ran"
    ) in result.stderr, result.stderr[-2000:]


# What the suite's site build does, in a fresh process with the same PATH: the first
# `dot` on it fails (tests/conftest.py, no_system_dot). DRAW lays out the fixture's
# picture with sitelib; SYSTEM_DOT, the self-test, with the graphviz package's pipe,
# which runs the system's `dot`, as the site did before.
DRAW = """
from pathlib import Path
from sitelib.site.pictures import figures
page = Path(PAGE).read_text()
[(_, figure)] = figures(page, "docs/index.md", Path(SNIPPETS))
print(figure["svg"]["viewbox"])
"""
SYSTEM_DOT = "import graphviz\nprint(graphviz.Source('digraph { a -> b }').pipe(format='svg'))\n"


def _draw_with_path(code: str, path: str, tmp_path: Path):
    import subprocess
    import sys

    page_md = tmp_path / "index.md"
    page_md.write_text(page("snippet: chapter/graph.py\nvar: loss\ncaption: c"), "utf-8")
    prelude = f"PAGE = {str(page_md)!r}\nSNIPPETS = {str(FIXTURE / 'snippets')!r}\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code],
        env={"PATH": path, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pictures_are_drawn_without_a_system_graphviz(no_system_dot: str, tmp_path: Path):
    drawn = _draw_with_path(DRAW, no_system_dot, tmp_path)
    assert drawn.returncode == 0, drawn.stderr[-2000:]
    assert drawn.stdout.startswith("0.00 0.00 "), drawn.stdout
    # Self-test: the way the site drew before, through the system's dot, fails there.
    system = _draw_with_path(SYSTEM_DOT, no_system_dot, tmp_path)
    assert system.returncode != 0
    assert "the build ran a system dot" in system.stderr, system.stderr[-2000:]
