"""Running a snippet to the moment a picture shows.

:func:`run_snippet` runs the snippet as ``__main__`` (prints silenced, on the CPU
whatever the machine has) and, at the capture point, hands the root tensors to a
*visitor*: at the end of the run (the default), right after the line ``after``
names has run, or at each ``backward()`` call (``backward: true``). The visitor runs
at that moment, because a later ``backward()`` frees the saved tensors.
"""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

from sitelib.site.pictures.directive import Directive, DrawingError
from sitelib.site.torch_state import torch_state_restored

if TYPE_CHECKING:  # torch is imported only when a page has a picture to draw
    import torch


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
def as_pasted() -> Iterator[None]:
    """Run on the CPU (the device idiom is made to pick it), so that the pictures are
    the same on every build machine: on CUDA a few nodes differ, dropout's for one.
    The snippet runs inside the build's process: torch's global switches that it may
    flip are put back afterwards."""
    import torch

    with (
        torch_state_restored(),
        mock.patch.object(torch.accelerator, "current_accelerator", return_value=None),
        torch.random.fork_rng(devices=[]),
        torch.enable_grad(),
    ):
        yield


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
        patches.enter_context(as_pasted())
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
