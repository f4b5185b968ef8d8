"""Run one example the way the site promises, and check what it left behind.

``run_example`` is the whole contract of an example:

1. it is linted with ruff (rules in pyproject.toml);
2. it runs as ``__main__`` with torch seeded to a value it cannot know, so an
   example that forgot ``torch.manual_seed`` prints something else and fails;
3. its printed output equals the ``#>`` lines under each ``print``
   (``pytest --update-examples`` rewrites them), after device names are
   normalised in one place, :func:`normalise_device`;
4. every shape comment holds on every run of its line (:mod:`sitelib.shapes`);
5. after a successful ``backward()``, every trainable parameter of every module
   it left in its globals has a finite gradient of the right shape and device;
6. every tensor and module it left in its globals is on the device under test.
"""

from __future__ import annotations

import contextlib
import difflib
import fnmatch
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from pytest_examples import CodeExample, EvalExample, run_code
from pytest_examples.run_code import MockPrintFunction

from sitelib.examples import display_path, markers, requires_cuda
from sitelib.shapes import ShapeChecker, ShapeCommentError, ShapeMismatch


class ExampleFailure(AssertionError):
    """What a broken example reports: file, line, and what disagreed."""


def normalise_device(text: str) -> str:
    """Printed text that legitimately differs by device, made device-neutral."""
    text = re.sub(r", device='(cuda|mps|xpu)(:\d+)?'", "", text)
    text = re.sub(r"device\(type='(cuda|mps|xpu)'(, index=\d+)?\)", "device(type='cpu')", text)
    return re.sub(r"\b(cuda|mps|xpu)(:\d+)?\b", "cpu", text)


def _named_tensors(value: Any) -> list[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.nn.Module):
        return list(value.named_parameters()) + list(value.named_buffers())
    if isinstance(value, torch.Tensor):
        return [("", value)]
    return []


def check_devices(module_globals: dict[str, Any], device: str, exempt: list[str]) -> list[str]:
    """Every tensor and module left in the globals must live on ``device``."""
    wanted = torch.device(device).type
    problems = []
    for name, value in module_globals.items():
        if name in exempt:
            continue
        for sub, tensor in _named_tensors(value):
            if tensor.device.type != wanted:
                what = f"{name}.{sub}" if sub else name
                problems.append(
                    f"{what} is on {tensor.device.type}, expected {wanted} "
                    f"(forgot .to(device)? or mark it '# stays-on-cpu: {name}')"
                )
                break
    return problems


def check_grads(module_globals: dict[str, Any], exempt: list[str]) -> list[str]:
    """After backward: each trainable parameter has a finite grad like itself."""
    problems = []
    for name, value in module_globals.items():
        if not isinstance(value, torch.nn.Module):
            continue
        for pname, param in value.named_parameters():
            full = f"{name}.{pname}"
            if not param.requires_grad or any(fnmatch.fnmatchcase(full, p) for p in exempt):
                continue
            grad = param.grad
            if grad is None:
                problems.append(
                    f"{full}.grad is None after backward() "
                    f"(a frozen or unused parameter? mark it '# expect-no-grad: {full}')"
                )
            elif grad.shape != param.shape:
                problems.append(f"{full}.grad has shape {grad.shape}, parameter has {param.shape}")
            elif grad.device != param.device:
                problems.append(f"{full}.grad is on {grad.device}, parameter on {param.device}")
            elif not torch.isfinite(grad).all():
                problems.append(f"{full}.grad is not finite (NaN or inf)")
    return problems


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


def _compare_output(example: CodeExample, updated: str | None, shown: str) -> None:
    """Fail at the first line where the printed output and the #> lines differ."""
    if updated is None:
        return
    have, want = example.source.splitlines(), updated.splitlines()
    matcher = difflib.SequenceMatcher(a=have, b=want, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            written = "\n".join(have[i1:i2]) or "(nothing)"
            printed = "\n".join(want[j1:j2]) or "(nothing)"
            raise ExampleFailure(
                f"{shown}:{example.start_line + i1 + 1}: printed output differs from the #> lines\n"
                f"  page says:\n{textwrap.indent(written, '    ')}\n"
                f"  code printed:\n{textwrap.indent(printed, '    ')}\n"
                "  (if the new output is right: pytest --update-examples)"
            )


@contextlib.contextmanager
def _print_untraced() -> Iterator[None]:
    """Run pytest-examples' print capture without the shape tracer.

    It calls ``inspect.stack()`` on every print: thousands of Python calls that the
    tracer would otherwise be asked about, for frames it never traces anyway.
    """
    original = MockPrintFunction.__call__

    def call(self, *args: Any, **kwargs: Any) -> None:
        tracer = sys.gettrace()
        sys.settrace(None)
        try:
            original(self, *args, **kwargs)
        finally:
            sys.settrace(tracer)

    depth = run_code.parent_frame_id
    MockPrintFunction.__call__ = call
    run_code.parent_frame_id = depth + 1  # it finds the caller by depth: one frame more now
    try:
        yield
    finally:
        MockPrintFunction.__call__ = original
        run_code.parent_frame_id = depth


class _CountBackward:
    """Count backward() calls that completed (Tensor.backward goes through here)."""

    def __init__(self) -> None:
        self.calls = 0
        self._original = torch.autograd.backward

    def __enter__(self) -> _CountBackward:
        original = self._original

        def backward(*args: Any, **kwargs: Any) -> None:
            original(*args, **kwargs)
            self.calls += 1

        torch.autograd.backward = backward
        return self

    def __exit__(self, *exc: Any) -> None:
        torch.autograd.backward = self._original


def run_example(
    example: CodeExample,
    eval_example: EvalExample,
    device: str = "cpu",
    *,
    seed: int | None = None,
    lint: bool = True,
    checks: bool = True,
) -> dict[str, Any]:
    """Lint, run and check one example; raise ``ExampleFailure`` naming file and line."""
    __tracebackhide__ = True
    shown = display_path(example)
    marks = markers(example)
    settings = example.prefix_settings()
    if settings.get("test") == "skip":
        reason = settings.get("reason")
        if not reason:
            raise ExampleFailure(f'{shown}:{example.start_line}: test="skip" needs reason="..."')
        pytest.skip(f"{shown}:{example.start_line}: {reason}")
    if requires_cuda(example) and device != "cuda":
        pytest.skip(f"{shown}: needs CUDA (run with --device cuda)")

    eval_example.set_config(target_version="py311", line_length=100)
    eval_example.print_callback = normalise_device
    if lint:
        if eval_example.update_examples:
            eval_example.format_ruff(example)
        eval_example.lint_ruff(example)

    run_file = eval_example.tmp_path / f"{example.module_name}.py"
    if not checks:  # `make bench` only: the examples' cost without shape/grad/device checks
        eval_example.run_print_check(example)
        return {}
    try:
        checker = ShapeChecker(example.source, run_file, shown, example.start_line)
    except ShapeCommentError as exc:
        raise ExampleFailure(str(exc)) from None

    torch.manual_seed(int.from_bytes(os.urandom(4)) if seed is None else seed)
    grad_mode, dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    try:
        with checker, _CountBackward() as backward, _print_untraced():
            if eval_example.update_examples:
                module_globals = eval_example.run_print_update(example)
            else:
                # pytest-examples' own check only shows a diff; compare here to name the line.
                example.test_id = eval_example._test_id
                printed, module_globals = eval_example._run(example, "check", None, True, None)
                _compare_output(example, printed.updated_print_statements(example), shown)
    except ShapeMismatch as exc:
        raise ExampleFailure(str(exc)) from None
    except (ExampleFailure, pytest.skip.Exception):
        raise
    except Exception as exc:
        raise ExampleFailure(
            f"{shown}:{_error_line(exc, run_file, example)}: example raised "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    finally:
        torch.set_grad_enabled(grad_mode)
        torch.set_default_dtype(dtype)

    problems = checker.errors + checker.unchecked()
    if backward.calls:
        problems += [
            f"{shown}: {p}" for p in check_grads(module_globals, marks.get("expect-no-grad", []))
        ]
    problems += [
        f"{shown}: {p}"
        for p in check_devices(module_globals, device, marks.get("stays-on-cpu", []))
    ]
    if problems:
        raise ExampleFailure("\n".join(problems))
    return module_globals
