"""Run one example the way the site promises, and check what it left behind.

``run_example`` is the whole contract of an example:

1. it is linted with ruff (snippets/ruff.toml: pyproject.toml's rules, 76 columns);
2. it runs as ``__main__`` with torch seeded to a value it cannot know, so an
   example that forgot ``torch.manual_seed`` prints something else and fails;
3. its printed output equals the ``#>`` lines under each ``print``
   (``pytest --update-examples`` rewrites them), after device names are
   normalised in one place, :func:`normalise_device`;
4. every shape comment holds on every run of its line (:mod:`sitelib.shapes`);
5. after a successful ``backward()``, every trainable parameter of every module
   it left in its globals has a finite gradient of the right shape and device;
6. every tensor and module it left in its globals is on the device under test;
7. on the CPU, it prints the same when its device behaves like a separate
   accelerator (:mod:`sitelib.device_sim`): what it prints does not depend on
   random numbers drawn on the device, which a GPU draws from its own generator.

:func:`check_run` is steps 2 and 4-6 for any way of running the example (under
pytest here, in a rank's own process in :mod:`sitelib.launch`).
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch
from pytest_examples import CodeExample, EvalExample

from sitelib import pytest_examples_adapter as adapter
from sitelib.device_sim import simulated_accelerator
from sitelib.examples import display_path, markers, multiline_prints, requires_cuda
from sitelib.shapes import ShapeChecker, ShapeCommentError, ShapeMismatch


class ExampleFailure(AssertionError):
    """What a broken example reports: file, line, and what disagreed."""


def normalise_device(text: str) -> str:
    """Printed text that legitimately differs by device, made device-neutral."""
    text = re.sub(r", device='(cuda|mps|xpu)(:\d+)?'", "", text)
    text = re.sub(r"device\(type='(cuda|mps|xpu)'(, index=\d+)?\)", "device(type='cpu')", text)
    # A device name, not part of a dotted name such as torch.cuda.amp.
    return re.sub(r"(?<![.\w])(cuda|mps|xpu)(:\d+)?\b(?!\.)", "cpu", text)


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


def _local(tensor: torch.Tensor) -> torch.Tensor:
    """This process's part of a sharded (FSDP2, DTensor) tensor; the tensor otherwise.
    Checking the part needs no collective, which may be gone by the time checks run."""
    return tensor.to_local() if hasattr(tensor, "to_local") else tensor


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
            elif not torch.isfinite(_local(grad)).all():
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


def first_difference(example: CodeExample, updated: str | None) -> tuple[int, str, str] | None:
    """Where the printed output and the #> lines first differ: (line, written, printed)."""
    if updated is None:
        return None
    have, want = example.source.splitlines(), updated.splitlines()
    matcher = difflib.SequenceMatcher(a=have, b=want, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            written = "\n".join(have[i1:i2]) or "(nothing)"
            printed = "\n".join(want[j1:j2]) or "(nothing)"
            return example.start_line + i1 + 1, written, printed
    return None


def compare_output(example: CodeExample, updated: str | None, shown: str, why: str = "") -> None:
    """Fail at the first line where the printed output and the #> lines differ."""
    if (difference := first_difference(example, updated)) is None:
        return
    line, written, printed = difference
    raise ExampleFailure(
        f"{shown}:{line}: printed output differs from the #> lines{why}\n"
        f"  page says:\n{textwrap.indent(written, '    ')}\n"
        f"  code printed:\n{textwrap.indent(printed, '    ')}\n"
        + ("" if why else "  (if the new output is right: pytest --update-examples)")
    )


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


@dataclass
class Outcome:
    updated: str | None  # the source with the real output as #> lines; None when they match
    module_globals: dict[str, Any]
    problems: list[str]  # shape, gradient and device problems, each naming file and line


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
    grad_mode, dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    try:
        with checker, _CountBackward() as backward, adapter.print_capture():
            updated, module_globals = run()
    except ShapeMismatch as exc:
        raise ExampleFailure(str(exc)) from None
    except (ExampleFailure, pytest.skip.Exception):
        raise
    except Exception as exc:
        raise ExampleFailure(
            f"{shown}:{_error_line(exc, run_file, example)}: example raised "
            f"{type(exc).__name__}: {exc}"
        ) from None  # the message names file and line; its traceback is the example's
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
    return Outcome(updated, module_globals, problems)


def check_as_on_an_accelerator(
    example: CodeExample, eval_example: EvalExample, run_file: Path, seed: int
) -> None:
    """Step 7: rerun under :func:`sitelib.device_sim.simulated_accelerator`, with the
    seed the first run had."""
    __tracebackhide__ = True
    shown = display_path(example)
    torch.manual_seed(seed)
    grad_mode, dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    try:
        with simulated_accelerator(str(run_file)) as seen, adapter.print_capture():
            updated, _ = adapter.run_checking_prints(example, eval_example)
    except Exception as exc:
        raise ExampleFailure(
            f"{shown}:{_error_line(exc, run_file, example)}: example raised "
            f"{type(exc).__name__}: {exc} when its device behaves like a separate "
            "accelerator (sitelib/device_sim.py)"
        ) from None  # the message names file and line; its traceback is the example's
    finally:
        torch.set_grad_enabled(grad_mode)
        torch.set_default_dtype(dtype)
    drawn = ", ".join(str(line + example.start_line) for line in seen.lines) or "none"
    compare_output(
        example,
        updated,
        shown,
        why=(
            " when its device behaves like a GPU (sitelib/device_sim.py): the output depends "
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
) -> dict[str, Any]:
    """Lint, run and check one example; raise ``ExampleFailure`` naming file and line."""
    __tracebackhide__ = True
    shown = display_path(example)
    settings = example.prefix_settings()
    if settings.get("test") == "skip":
        reason = settings.get("reason")
        if not reason:
            raise ExampleFailure(f'{shown}:{example.start_line}: test="skip" needs reason="..."')
        pytest.skip(f"{shown}:{example.start_line}: {reason}")
    if requires_cuda(example) and device != "cuda":
        pytest.skip(f"{shown}: needs CUDA (run with --device cuda)")

    if problems := multiline_prints(example):
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
    if device == "cpu" and not eval_example.update_examples:
        check_as_on_an_accelerator(example, eval_example, run_file, seed)
    return outcome.module_globals
