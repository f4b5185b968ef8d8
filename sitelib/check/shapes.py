"""Shape comments are claims: check every one of them while the example runs.

Grammar (documented for authors in docs/authors.md)::

    # NAME: SHAPE[, NAME: SHAPE ...]
    SHAPE := "[" DIM, ... "]" [DTYPE] | "(" SHAPE, ... ")"  # a tensor, or a tuple of them
    DIM   := integer | symbol (B, T, C, N ...) | "..."      # "..." = any number of dims
    DTYPE := a torch dtype's name (float32, bfloat16, int64, bool ...)

A comment is a shape comment when it starts with ``NAME: [`` or ``NAME: ([``. It
may stand on an assignment or ``for`` line (NAME is checked once the line has run),
on a ``return`` line (the returned value; NAME is a label) or on a ``def`` line
(the argument NAME on entry). Symbols bind on first use and must agree within one
call of a function (``B`` is the same ``B`` in every line of ``forward``); each
turn of a loop starts the binding afresh, so a smaller last batch is not an error.

Why tracing and not an AST rewrite: ``sys.settrace`` watches the author's code as
written, so line numbers, tracebacks and printed output are untouched by
construction, and each traced frame gets its own trace function, which gives
"one call, one set of bindings" for free. Only frames of the example's own file
are traced line by line; other frames (torch's) cost one cheap ``call`` event.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

_TRIGGER = re.compile(r"^[A-Za-z_]\w*\s*:\s*\(?\s*\[")
# What reads as a shape claim to a reader, checked or not: an optional ``NAME:``, an
# optional ``torch.Size(``, then a bracket of sizes (numbers, symbols, ``...``, ``x``
# between sizes), e.g. ``(32, 10)``, ``logits: (B, 10)``, ``[32, 10]``,
# ``x: torch.Size([32, 10])``, ``(32x10)``. A parenthesis needs a comma, an ``x`` or
# ``...`` (so the annotation marker ``(1)!`` is not one), and a bracket a size that is
# not a plain word (so ``[note]`` is not one). Each is checked or refused.
_SIZE = r"(?:\.\.\.|-?\d+|[A-Za-z_]\w*)"
_LIST = rf"\s*{_SIZE}(?:\s*[,x×]\s*{_SIZE})*\s*,?\s*"
_SHAPE_LIKE = re.compile(
    rf"^(?:[A-Za-z_]\w*\s*:\s*)?(?:torch\.Size\(\s*)?(?:\((?P<paren>{_LIST})\)|\[(?P<bracket>{_LIST})\])"
)
_ANY_CLAIM = re.compile(r"#\s*(?:[A-Za-z_]\w*\s*:\s*)?(?:torch\.Size\(\s*)?[\[(]")
_CLAIM = re.compile(r"\s*(?P<name>[A-Za-z_]\w*)\s*:\s*")
_SYMBOL = re.compile(r"[A-Za-z_]\w*$")


_INNER_FRAMES = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>"}


class ShapeCommentError(Exception):
    """A shape comment that is malformed, misplaced, wrong, or never checked."""


class ShapeMismatch(BaseException):
    """Raised inside the example at the line whose claim failed.

    A BaseException, so that an example's own ``except Exception`` cannot hide it.
    """


class Dims(list):
    """A tensor's claimed dims, and its dtype's name when the claim gives one."""

    dtype: str | None = None


# A spec is a tensor's Dims or a tuple of specs (a tuple of tensors).
Spec = Dims | tuple
_DTYPE = re.compile(r"[ \t]+([a-z][a-z0-9]*)\b")


@dataclass
class Claim:
    name: str
    spec: Spec
    text: str


@dataclass
class Site:
    kind: str  # "assign", "return" or "def"
    first: int  # line range of the statement (1-based, example lines)
    last: int
    comment_line: int
    claims: list[Claim]
    scope: int = 0  # first line of the enclosing function or class; 0 for the module


def _parse_spec(text: str, pos: int) -> tuple[Spec, int]:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    if pos >= len(text) or text[pos] not in "[(":
        raise ValueError(f"expected '[' or '(' at {text[pos:]!r}")
    opener = text[pos]
    closer = "]" if opener == "[" else ")"
    pos += 1
    items: list = []
    while True:
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if pos < len(text) and text[pos] == closer:
            pos += 1
            break
        if opener == "(":
            item, pos = _parse_spec(text, pos)
        else:
            m = re.compile(r"\.\.\.|-?\d+|[A-Za-z_]\w*").match(text, pos)
            if not m:
                raise ValueError(f"bad dimension at {text[pos:]!r}")
            tok = m.group(0)
            item = int(tok) if re.fullmatch(r"-?\d+", tok) else tok
            pos = m.end()
        items.append(item)
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if pos < len(text) and text[pos] == ",":
            pos += 1
        elif pos < len(text) and text[pos] == closer:
            continue
        else:
            raise ValueError(f"expected ',' or {closer!r} at {text[pos:]!r}")
    if opener == "[":
        if items.count("...") > 1:
            raise ValueError("'...' may appear once")
        dims = Dims(items)
        if m := _DTYPE.match(text, pos):
            if not isinstance(getattr(torch, m.group(1), None), torch.dtype):
                raise ValueError(f"{m.group(1)!r} is not a torch dtype")
            dims.dtype, pos = m.group(1), m.end()
        return dims, pos
    return tuple(items), pos


def looks_like_a_claim(text: str) -> bool:
    """Whether a comment's text (without '#') reads as a shape claim (``_SHAPE_LIKE``)."""
    m = _SHAPE_LIKE.match(text.strip())
    if not m:
        return False
    sizes = m.group("paren") or m.group("bracket")
    if all(re.fullmatch(r"[a-z_]{2,}", size) for size in re.findall(_SIZE, sizes)):
        return False  # words, not sizes: "(loss, logits)", "[note]"
    if m.group("paren") is not None:
        return bool(re.search(r"[,x×]|\.\.\.", sizes))
    return True


def parse_comment(text: str) -> list[Claim] | None:
    """Claims in a comment's text (without '#'), or None if it is not a shape comment.
    A comment that reads as a shape claim but is not in the grammar is an error."""
    text = text.strip()
    if not _TRIGGER.match(text):
        if looks_like_a_claim(text):
            raise ValueError(
                "it reads as a shape claim but is not one the suite can check; "
                "write it as NAME: [DIM, ...] (e.g. '# logits: [32, 10]')"
            )
        return None
    claims, pos = [], 0
    while True:
        m = _CLAIM.match(text, pos)
        if not m:
            raise ValueError(f"expected 'NAME: [...]' at {text[pos:]!r}")
        spec, end = _parse_spec(text, m.end())
        claims.append(Claim(m.group("name"), spec, text[m.start("name") : end].strip()))
        pos = end
        rest = text[pos:].lstrip()
        if not rest:
            return claims
        if not rest.startswith(","):
            raise ValueError(f"unexpected {rest!r} after a shape")
        pos = len(text) - len(rest) + 1


def fmt(spec: Spec) -> str:
    if isinstance(spec, tuple):
        return "(" + ", ".join(fmt(s) for s in spec) + ")"
    dtype = f" {spec.dtype}" if spec.dtype else ""
    return "[" + ", ".join(str(d) for d in spec) + "]" + dtype


def _sites(source: str, where) -> list[Site]:
    """Find every shape comment and the statement it belongs to."""
    if not _ANY_CLAIM.search(source):
        return []  # no shape comment at all: nothing to parse
    tree = ast.parse(source)
    spans: list[tuple[str, int, int, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            spans.append(("assign", node.lineno, node.end_lineno, node))
        elif isinstance(node, ast.Return):
            spans.append(("return", node.lineno, node.end_lineno, node))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            spans.append(("def", node.lineno, node.body[0].lineno - 1, node))
        elif isinstance(node, ast.For):
            spans.append(("assign", node.lineno, node.body[0].lineno - 1, node))
    scopes = [
        (min([d.lineno for d in n.decorator_list] + [n.lineno]), n.lineno, n.end_lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]

    def scope_of(line: int) -> int:
        inside = [s for s in scopes if s[1] < line <= s[2]]
        return max(inside, key=lambda s: s[1])[0] if inside else 0

    sites = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        line = tok.start[0]
        try:
            claims = parse_comment(tok.string[1:])
        except ValueError as exc:
            raise ShapeCommentError(
                f"{where(line)}: malformed shape comment {tok.string!r}: {exc}"
            ) from None
        if claims is None:
            continue
        owners = [s for s in spans if s[1] <= line <= max(s[1], s[2])]
        if not owners:
            raise ShapeCommentError(
                f"{where(line)}: shape comment {tok.string!r} is not on an assignment, "
                "return or def line"
            )
        kind, first, last, node = min(owners, key=lambda s: s[2] - s[1])
        if kind == "return" and len(claims) != 1:
            raise ShapeCommentError(
                f"{where(line)}: a return line takes one shape comment (a label)"
            )
        if kind == "def":
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        sites.append(Site(kind, first, max(first, last), line, claims, scope_of(first)))
    return sites


@dataclass
class _Scope:
    bound: dict[str, tuple[int, int]] = field(default_factory=dict)  # symbol -> (size, line)


class ShapeChecker:
    """Trace one example's run and check its shape comments.

    ``run_file`` is the file the example runs from; ``display`` and ``offset`` turn
    its line numbers into the author's (``display:offset+line``).
    """

    def __init__(self, source: str, run_file: str | Path, display: str, offset: int = 0):
        self.run_file = str(run_file)
        self.display = display
        self.offset = offset
        self.sites = _sites(source, self.where)
        self.by_line: dict[int, Site] = {}
        self.defs: dict[int, Site] = {}
        for site in self.sites:
            if site.kind == "def":
                self.defs[site.first] = site
            else:
                for line in range(site.first, site.last + 1):
                    self.by_line[line] = site
        # Frames are traced line by line only where a claim sits: the rest cost one call event.
        self.traced = {site.scope for site in self.sites if site.kind != "def"}
        self.reached: set[int] = set()
        self.checked: set[int] = set()
        self.errors: list[str] = []
        self._previous = None

    def where(self, line: int) -> str:
        return f"{self.display}:{line + self.offset}"

    # -- running ------------------------------------------------------------------
    def __enter__(self) -> ShapeChecker:
        if self.sites:
            self._previous = sys.gettrace()
            sys.settrace(self._call)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.sites:
            sys.settrace(self._previous)

    def _call(self, frame, event, arg):
        code = frame.f_code
        if code.co_filename != self.run_file or code.co_name in _INNER_FRAMES:
            return None  # comprehensions and lambdas run in frames of their own line
        module = code.co_name == "<module>"
        scope = _Scope()
        site = None if module else self.defs.get(code.co_firstlineno)
        if site is not None:
            self.reached.add(site.comment_line)
            self._check_site(site, frame.f_locals, scope)
        if (0 if module else code.co_firstlineno) not in self.traced:
            return None
        pending: Site | None = None  # an assignment whose line is running
        last, raised = 0, False
        by_line, reached = self.by_line, self.reached

        def local(frame, event, arg):
            nonlocal pending, last, raised
            line = frame.f_lineno
            if event == "line":
                if pending is not None and not pending.first <= line <= pending.last:
                    done, pending = pending, None
                    self._check_site(done, frame.f_locals, scope)
                if line < last:
                    scope.bound.clear()  # a loop went round: a fresh binding
                last, raised = line, False
                site = by_line.get(line)
                if site is not None:
                    reached.add(site.comment_line)
                    if site.kind == "assign":
                        pending = site
            elif event == "exception":
                pending, raised = None, True
            elif event == "return" and not raised:
                if pending is not None:
                    done, pending = pending, None
                    self._check_site(done, frame.f_locals, scope)
                site = by_line.get(line)
                if site is not None and site.kind == "return":
                    self._check_value(site, site.claims[0], arg, scope)
            return local

        return local

        return local

    def _check_site(self, site: Site, local_vars: dict, scope: _Scope) -> None:
        for claim in site.claims:
            if claim.name not in local_vars:
                self._fail(site, f"{claim.name}: no such variable after the line ran")
            self._check_value(site, claim, local_vars[claim.name], scope)

    def _check_value(self, site: Site, claim: Claim, value: Any, scope: _Scope) -> None:
        self.checked.add(site.comment_line)
        problem = self._mismatch(claim.spec, value, scope, site.comment_line)
        if problem:
            self._fail(site, f"{claim.name}: expected {fmt(claim.spec)}, {problem}")

    def _mismatch(self, spec: Spec, value: Any, scope: _Scope, line: int) -> str | None:
        if isinstance(spec, tuple):
            if not isinstance(value, tuple | list) or len(value) != len(spec):
                return f"got {type(value).__name__} (not a tuple of {len(spec)} tensors)"
            for i, (sub, item) in enumerate(zip(spec, value, strict=True)):
                problem = self._mismatch(sub, item, scope, line)
                if problem:
                    return f"item {i}: {problem}"
            return None
        if not isinstance(value, torch.Tensor):
            return f"got {type(value).__name__}, which is not a tensor"
        shape = tuple(value.shape)
        got = f"got {value.shape}"
        if "..." in spec:
            cut = spec.index("...")
            head, tail = spec[:cut], spec[cut + 1 :]
            if len(shape) < len(head) + len(tail):
                return f"{got} (rank: expected at least {len(head) + len(tail)} dims, got {len(shape)})"
            pairs = list(zip(range(len(head)), head, strict=True))
            pairs += [(len(shape) - len(tail) + i, d) for i, d in enumerate(tail)]
        else:
            if len(shape) != len(spec):
                return f"{got} (rank: expected {len(spec)} dims, got {len(shape)})"
            pairs = list(enumerate(spec))
        new: dict[str, tuple[int, int]] = {}
        for i, dim in pairs:
            size = shape[i]
            if isinstance(dim, int):
                if size != dim:
                    return f"{got} (dim {i}: {dim} != {size})"
                continue
            known = scope.bound.get(dim) or new.get(dim)
            if known is None:
                new[dim] = (size, line)
            elif known[0] != size:
                return f"{got} (dim {i}: {dim} is {known[0]} since line {known[1] + self.offset}, here {size})"
        if spec.dtype and value.dtype != getattr(torch, spec.dtype):
            return f"got dtype {str(value.dtype).removeprefix('torch.')}"
        scope.bound.update(new)
        return None

    def _fail(self, site: Site, message: str) -> None:
        text = f"{self.where(site.comment_line)}: {message}"
        self.errors.append(text)
        raise ShapeMismatch(text)

    # -- after the run ------------------------------------------------------------
    def unchecked(self) -> list[str]:
        """Claims on lines that never ran: unchecked claims are errors too."""
        return [
            f"{self.where(s.comment_line)}: shape comment never checked (the line never ran): "
            + ", ".join(c.text for c in s.claims)
            for s in self.sites
            if s.comment_line not in self.reached
        ]
