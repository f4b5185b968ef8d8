"""The directives a page writes where a picture goes: an HTML comment holding a small
YAML mapping (docs/authors.md, "Pictures of the autograd graph" and "Plots")::

    <!-- autograd-graph
    snippet: forward_backward/retain_graph.py
    var: loss
    after: loss.backward(retain_graph=True)
    params: model
    saved: true
    caption: What the retained graph keeps for a second backward().
    -->

    <!-- plot
    snippet: forward_backward/loss_curve.py
    caption: The training loss of each step.
    shows: [loss.first, loss.last]
    -->

A directive inside fenced code is an example of the syntax, not a picture.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from sitelib.site.markdown_scan import code_lines

NAME = "autograd-graph"
PLOT = "plot"


def _pattern(name: str) -> re.Pattern:
    """The directive: an HTML comment that starts a line (indented inside a block is fine)."""
    return re.compile(rf"^[ \t]*<!--[ \t]*{name}\b(?P<body>.*?)-->[ \t]*$", re.M | re.S)


DIRECTIVE = _pattern(NAME)
KEYS = {"snippet", "var", "backward", "after", "params", "saved", "caption"}
PLOT_KEYS = {"snippet", "caption", "shows"}


class DrawingError(Exception):
    """A picture that cannot be drawn; the message says why."""


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


@dataclass(frozen=True)
class PlotDirective:
    """A plot: the figures the snippet draws with matplotlib, as its own run draws them.
    ``var``, ``backward`` and ``after`` are those of a capture at the end of the run
    (what :func:`~sitelib.site.pictures.capture.run_snippet` reads)."""

    line: int
    snippet: str
    caption: str
    shows: tuple[str | None, ...] = ()  # what each number the snippet prints is, in the plot
    var: tuple[str, ...] = ()
    backward: bool = False
    after: str | None = None


def _names(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(
        isinstance(v, str) and v.isidentifier() for v in items
    ):
        raise DrawingError(f"{key}: expected a name or a list of names, got {value!r}")
    return tuple(items)


def _mapping(body: str, keys: set[str]) -> dict[str, Any]:
    """The YAML inside a directive's comment: a mapping of known keys, with a snippet
    and a caption."""
    try:
        data = yaml.safe_load(body) or {}
    except yaml.YAMLError as err:
        raise DrawingError(f"the directive is not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise DrawingError("the directive must be a YAML mapping (key: value lines)")
    unknown = sorted(set(data) - keys)
    if unknown:
        raise DrawingError(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(keys))}")
    for key in ("snippet", "caption"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise DrawingError(f"{key}: required")
    return data


def parse(body: str, line: int) -> Directive:
    """One autograd-graph directive from the YAML inside its comment."""
    data = _mapping(body, KEYS)
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


def parse_plot(body: str, line: int) -> PlotDirective:
    """One plot directive from the YAML inside its comment."""
    data = _mapping(body, PLOT_KEYS)
    shows = data.get("shows") or []
    if not isinstance(shows, list) or not all(s is None or isinstance(s, str) for s in shows):
        raise DrawingError(
            "shows: a list, one entry per number the snippet prints (`~` for one the plot "
            "does not show), such as [loss.first, ~, loss.min]"
        )
    return PlotDirective(
        line=line,
        snippet=data["snippet"].strip(),
        caption=" ".join(data["caption"].split()),
        shows=tuple(shows),
    )


PARSERS = {NAME: parse, PLOT: parse_plot}


def find(
    markdown: str, name: str = NAME
) -> Iterator[tuple[re.Match, int, Directive | PlotDirective | DrawingError]]:
    """Each directive of a page called ``name`` (outside fenced code): its match, line,
    and parse."""
    fenced = code_lines(markdown)
    for m in _pattern(name).finditer(markdown):
        line = markdown.count("\n", 0, m.start()) + 1
        if line in fenced:
            continue
        try:
            yield m, line, PARSERS[name](m.group("body"), line)
        except DrawingError as err:
            yield m, line, err
