"""Run one example the way the site promises, and check what it left behind.

``run_example`` is the whole contract of an example:

1. it is linted with ruff (snippets/ruff.toml: pyproject.toml's rules, 76 columns);
2. it runs as ``__main__`` with torch seeded to a value it cannot know, so an
   example that forgot ``torch.manual_seed`` prints something else and fails; a
   ``DeprecationWarning`` or ``FutureWarning`` raised by its own lines (warned at
   them, as torch's deprecations are) is an error; the warnings a page teaches, the
   example catches and prints itself, and torch's warnings about its own internals
   (the first inductor compile warns from ``torch/utils/mkldnn.py``) are not the
   example's;
3. its printed output equals the ``#>`` lines under each ``print``
   (``pytest --update-examples`` rewrites them), after device names are
   normalised in one place (:func:`sitelib.check.output.normalise_device`);
4. every shape comment holds on every run of its line (:mod:`sitelib.check.shapes`);
5. after a successful ``backward()``, every trainable parameter of every module
   it left in its globals has a finite gradient of the right shape and device
   (:mod:`sitelib.check.leftovers`);
6. every tensor and module it left in its globals is on the device under test; it
   warns nothing a reader would see that it does not catch, and leaves no pyplot
   figure open and matplotlib's settings as they were (:mod:`sitelib.check.tidy`);
7. on the CPU, it prints the same when its device behaves like a separate
   accelerator (:mod:`sitelib.check.device_sim`): what it prints does not depend on
   random numbers drawn on the device, which a GPU draws from its own generator.
   Not for an example that compiled something with ``torch.compile``: Dynamo
   compiles nothing under the rerun's dispatch mode (it skips such frames, and
   ``fullgraph=True`` raises), so the rerun would check eager code the page does not
   show; such an example is checked on the CPU and, like every other, on CUDA.

Each run is inside :func:`sitelib.site.torch_state.torch_state_restored`: whatever
global switch of torch the example flips (grad mode, deterministic algorithms,
anomaly detection, Dynamo's caches...) and its warning filters and once-per-place
warning registry are put back before the next example runs.

:func:`check_run` is steps 2 and 4-6 for any way of running the example (under
pytest here, in a rank's own process in :mod:`sitelib.check.launch`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from pytest_examples import CodeExample, EvalExample

from sitelib.check import adapter
from sitelib.check.device_sim import simulated_accelerator
from sitelib.check.examples import display_path, markers, output_placement
from sitelib.check.leftovers import check_devices, check_grads
from sitelib.check.outcomes import ExampleFailure, Skipped, skip_reason
from sitelib.check.output import compare_output, normalise_device
from sitelib.check.shapes import ShapeChecker, ShapeCommentError, ShapeMismatch
from sitelib.check.tidy import tidy
from sitelib.site.torch_state import torch_state_restored

# Warnings an example must not cause unless it catches them itself (pytorch/tutorials'
# audit asks the same of their outputs).
GATED_WARNINGS = (DeprecationWarning, FutureWarning)


@contextlib.contextmanager
def example_context() -> Iterator[None]:
    """torch's global state restored afterwards, and the gated warnings, where they
    are the example's (warned at a line of its ``__main__`` module), as errors."""
    with torch_state_restored():
        for category in GATED_WARNINGS:
            warnings.filterwarnings("error", category=category, module="__main__")
        yield


def compiled_something() -> bool:
    """Whether Dynamo compiled a frame since its counters were last cleared (the
    torch-state guard clears them after every example)."""
    dynamo = sys.modules.get("torch._dynamo")
    return bool(dynamo and dynamo.utils.counters["stats"]["unique_graphs"])


def _error_line(exc: BaseException, run_file: Path, example: CodeExample) -> int | str:
    line: int | str = "?"
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename == str(example.path):  # pytest-examples already mapped this frame
            line = tb.tb_lineno
        elif filename == str(run_file):
            line = tb.tb_lineno + example.start_line
        tb = tb.tb_next
    return line


class _CountBackward:
    """Count backward() calls that completed (Tensor.backward goes through here). In
    an example that compiles, the counter is hidden from Dynamo, which would otherwise
    trace it and report a graph break of its own (``compiles``: decided from the
    source, so that an example that never compiles does not pay Dynamo's import)."""

    def __init__(self, compiles: bool = False) -> None:
        self.calls = 0
        self.compiles = compiles
        self._original = torch.autograd.backward

    def __enter__(self) -> _CountBackward:
        original = self._original

        def backward(*args: Any, **kwargs: Any) -> None:
            original(*args, **kwargs)
            self.calls += 1

        if self.compiles:
            backward = torch.compiler.disable(backward)
        torch.autograd.backward = backward
        return self

    def __exit__(self, *exc: Any) -> None:
        torch.autograd.backward = self._original


@dataclass
class Outcome:
    updated: str | None  # the source with the real output as #> lines; None when they match
    module_globals: dict[str, Any]
    problems: list[str]  # shape, gradient and device problems, each naming file and line
    compiled: bool = False  # it compiled something with torch.compile


def check_run(
    example: CodeExample,
    run: Callable[[], tuple[str | None, dict[str, Any]]],
    run_file: Path,
    device: str,
    *,
    seed: int | None = None,
) -> Outcome:
    """Run ``example`` with ``run`` (which captures its prints), seeded with a value it
    cannot know, tracing its shape comments; then check its gradients and devices."""
    __tracebackhide__ = True
    shown = display_path(example)
    marks = markers(example)
    try:
        checker = ShapeChecker(example.source, run_file, shown, example.start_line)
    except ShapeCommentError as exc:
        raise ExampleFailure(str(exc)) from None

    torch.manual_seed(int.from_bytes(os.urandom(4)) if seed is None else seed)
    try:
        counter = _CountBackward(compiles="compile" in example.source)
        plots = "matplotlib" in example.source
        with (
            tidy(shown, run_file, example.path, example.start_line, plots) as untidy,
            example_context(),
            checker,
            counter as backward,
            adapter.print_capture(),
        ):
            updated, module_globals = run()
            compiled = compiled_something()
    except ShapeMismatch as exc:
        raise ExampleFailure(str(exc)) from None
    except (ExampleFailure, Skipped):
        raise
    except Exception as exc:
        raise ExampleFailure(
            f"{shown}:{_error_line(exc, run_file, example)}: example raised "
            f"{type(exc).__name__}: {exc}"
        ) from None  # the message names file and line; its traceback is the example's

    problems = checker.errors + checker.unchecked() + untidy
    if backward.calls:
        problems += [f"{shown}: {p}" for p in check_grads(module_globals, marks)]
    problems += [
        f"{shown}: {p}"
        for p in check_devices(module_globals, device, marks.get("stays-on-cpu", []))
    ]
    return Outcome(updated, module_globals, problems, compiled)


def check_as_on_an_accelerator(
    example: CodeExample, eval_example: EvalExample, run_file: Path, seed: int
) -> None:
    """Step 7: rerun under :func:`sitelib.device_sim.simulated_accelerator`, with the
    seed the first run had."""
    __tracebackhide__ = True
    shown = display_path(example)
    torch.manual_seed(seed)
    try:
        with (
            example_context(),
            simulated_accelerator(str(run_file)) as seen,
            adapter.print_capture(),
        ):
            updated, _ = adapter.run_checking_prints(example, eval_example)
    except Exception as exc:
        raise ExampleFailure(
            f"{shown}:{_error_line(exc, run_file, example)}: example raised "
            f"{type(exc).__name__}: {exc} when its device behaves like a separate "
            "accelerator (sitelib/check/device_sim.py)"
        ) from None  # the message names file and line; its traceback is the example's
    drawn = ", ".join(str(line + example.start_line) for line in seen.lines) or "none"
    compare_output(
        example,
        updated,
        shown,
        why=(
            " when its device behaves like a GPU (sitelib/check/device_sim.py): the output "
            "depends "
            "on random numbers drawn on the device, which a GPU draws from its own generator, "
            "or on a moved tensor being the same tensor as the original. Draw random data on "
            "the CPU and move it, or print what does not depend on the draw "
            f"(random numbers drawn on the device at line(s): {drawn})"
        ),
    )


def run_example(
    example: CodeExample,
    eval_example: EvalExample,
    device: str = "cpu",
    *,
    seed: int | None = None,
    lint: bool = True,
    checks: bool = True,
    torch_version: str | None = None,
) -> dict[str, Any]:
    """Lint, run and check one example; raise ``ExampleFailure`` naming file and line,
    or ``Skipped`` with the reason it does not run here. ``torch_version``: the release
    its ``# requires: torch...`` marker is compared with (default: the one running; a
    self-test fakes another)."""
    __tracebackhide__ = True
    shown = display_path(example)
    if reason := skip_reason(example, device, torch_version=torch_version):
        raise Skipped(reason)

    if problems := output_placement(example):
        raise ExampleFailure("\n".join(problems))
    eval_example.set_config(**adapter.CONFIG)
    eval_example.print_callback = normalise_device
    if lint:
        adapter.lint(eval_example, example)

    run_file = eval_example.tmp_path / f"{example.module_name}.py"
    if not checks:  # `make bench` only: the examples' cost without shape/grad/device checks
        with adapter.print_capture():  # the same print capture as with them
            eval_example.run_print_check(example)
        return {}

    seed = int.from_bytes(os.urandom(4)) if seed is None else seed
    if eval_example.update_examples:
        outcome = check_run(
            example,
            lambda: (None, eval_example.run_print_update(example)),
            run_file,
            device,
            seed=seed,
        )
    else:
        outcome = check_run(
            example,
            lambda: adapter.run_checking_prints(example, eval_example),
            run_file,
            device,
            seed=seed,
        )
        compare_output(example, outcome.updated, shown)
    if outcome.problems:
        raise ExampleFailure("\n".join(outcome.problems))
    if eval_example.update_examples:
        adapter.write_updates_now(eval_example)
    if device == "cpu" and not eval_example.update_examples and not outcome.compiled:
        check_as_on_an_accelerator(example, eval_example, run_file, seed)
    return outcome.module_globals
