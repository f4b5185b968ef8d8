"""The directive a page writes where a picture goes: an HTML comment holding a small
YAML mapping (docs/authors.md, "Pictures of the autograd graph")::

    <!-- autograd-graph
    snippet: forward_backward/retain_graph.py
    var: loss
    after: loss.backward(retain_graph=True)
    params: model
    saved: true
    caption: What the retained graph keeps for a second backward().
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
# The directive: an HTML comment that starts a line (indented inside a block is fine).
DIRECTIVE = re.compile(rf"^[ \t]*<!--[ \t]*{NAME}\b(?P<body>.*?)-->[ \t]*$", re.M | re.S)
KEYS = {"snippet", "var", "backward", "after", "params", "saved", "caption"}


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


def find(markdown: str) -> Iterator[tuple[re.Match, int, Directive | DrawingError]]:
    """Each directive of a page (outside fenced code): its match, line, and parse."""
    fenced = code_lines(markdown)
    for m in DIRECTIVE.finditer(markdown):
        line = markdown.count("\n", 0, m.start()) + 1
        if line in fenced:
            continue
        try:
            yield m, line, parse(m.group("body"), line)
        except DrawingError as err:
            yield m, line, err
