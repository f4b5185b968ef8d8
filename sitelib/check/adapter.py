"""The one module that touches pytest-examples' private names (pinned: 0.0.18).

pytest-examples' public API (``EvalExample.run_print_check``/``run_print_update``,
``lint_ruff``, ``format_ruff``, ``find_examples``, ``CodeExample``) is used
everywhere it gives the result the harness needs. Three things it does not offer
publicly:

1. **The updated source without failing.** ``run_print_check`` fails with a diff
   but no line number; the harness names the first line where the printed output
   and the ``#>`` lines differ, so it needs the source with the real output
   inserted: ``EvalExample._run(...)`` returns the object that computes it.
2. **Updating from output produced elsewhere.** A multi-process example's output
   comes from its rank 0, in another process; ``--update-examples`` writes it
   back through pytest-examples' own bookkeeping, ``EvalExample._mark_for_update``,
   so that it is written once, with any formatting change, at the session's end.
3. **Running outside pytest.** A rank of a multi-process example runs in a process
   of its own, with no pytest session: ``run_code.run_code`` and
   ``config.ExamplesConfig`` run an example with print capture there.
4. **Print capture at the cost of a print.** ``MockPrintFunction.__call__`` calls
   ``inspect.stack()`` on every print, which reads the source of every frame on the
   stack and searches ``sys.modules`` (thousands of modules once torch is imported)
   for each: 0.16 s per print, two thirds of the examples' time. :func:`print_capture`
   puts in its place the same steps on the one frame it uses (the caller, found
   ``run_code.parent_frame_id`` frames up with ``sys._getframe``), through
   ``MockPrintFunction``'s own ``_include_file`` and ``_find_line_number`` and
   ``run_code``'s ``PrintStatement`` and ``Arg``; and runs it with the shape tracer
   off (its Python calls are not the example's).

:func:`problems` checks that every one of these names still exists and behaves;
``tests/test_selftest.py::test_pytest_examples_adapter_still_fits`` runs it and
fails naming the piece when an upgrade breaks one.

The settings every example is linted and its output formatted with, :data:`CONFIG`,
are read from ``snippets/ruff.toml`` (which extends ``pyproject.toml``), the file
``ruff check .`` applies to the snippets: one line length (76) for both.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from pytest_examples import CodeExample, EvalExample
from pytest_examples import run_code as _run_code_module
from pytest_examples.config import ExamplesConfig
from pytest_examples.run_code import MockPrintFunction

from sitelib.site.layout import ROOT

# The examples' ruff configuration; it extends pyproject.toml's.
SNIPPETS_RUFF = ROOT / "snippets" / "ruff.toml"


def ruff_settings(config_file: Path) -> dict[str, Any]:
    """A ruff configuration file's settings (``ruff.toml``, or ``pyproject.toml``'s
    ``[tool.ruff]``) with the files it ``extend``s merged under it, as ruff does:
    a key set here wins, and ``lint.extend-select`` adds to the base's."""
    data = tomllib.loads(config_file.read_text("utf-8"))
    if config_file.name == "pyproject.toml":
        data = data.get("tool", {}).get("ruff", {})
    base: dict[str, Any] = {}
    if "extend" in data:
        base = ruff_settings((config_file.parent / data["extend"]).resolve())
    lint = {**base.get("lint", {}), **data.get("lint", {})}
    extra = [
        *base.get("lint", {}).get("extend-select", []),
        *data.get("lint", {}).get("extend-select", []),
    ]
    if extra:
        lint["extend-select"] = list(dict.fromkeys(extra))
    return {**base, **data, "lint": lint}


def examples_config(config_file: Path = SNIPPETS_RUFF) -> dict[str, Any]:
    """The lint and print-formatting settings every example is checked with, read from
    the snippets' ruff configuration (``snippets/ruff.toml``, which extends
    ``pyproject.toml``): its line length (for ruff's E501, and for pytest-examples'
    choice between a ``#>`` line and a quoted block), its target version and its
    extra rules (E501). The keywords of ``EvalExample.set_config`` and ``ExamplesConfig``."""
    settings = ruff_settings(config_file)
    return {
        "line_length": settings["line-length"],
        "ruff_line_length": settings["line-length"],
        "target_version": settings["target-version"],
        "ruff_select": settings["lint"].get("extend-select", []),
    }


# The settings every example (snippet file or page fence) is checked with.
CONFIG = examples_config()


def lint(eval_example: EvalExample, example: CodeExample) -> None:
    """Lint ``example`` with :data:`CONFIG` (with ``--update-examples``, apply ruff's
    fixes first). A failure names the file and line of each problem: pytest-examples
    rewrites ruff's ``-:LINE:`` into ``FILE:LINE:`` (plus a fence's offset in its page),
    which ruff prints in its concise output format only; its default, "full", since
    0.9, puts ``--> -:LINE:COL`` on a line of its own, and the file went unnamed."""
    eval_example.set_config(**CONFIG)
    with mock.patch.dict(os.environ, {"RUFF_OUTPUT_FORMAT": "concise"}):
        if eval_example.update_examples:
            eval_example.format_ruff(example)
        eval_example.lint_ruff(example)


def run_checking_prints(example: CodeExample, eval_example: EvalExample) -> tuple[str | None, dict]:
    """Run ``example`` under pytest with print capture: (the source with the real
    output as ``#>`` lines, or None when the #> lines are right; the module's globals)."""
    example.test_id = eval_example._test_id
    printed, module_globals = eval_example._run(example, "check", None, True, None)
    return printed.updated_print_statements(example), module_globals


def run_outside_pytest(
    example: CodeExample, python_file: Path, print_callback: Callable[[str], str]
) -> tuple[str | None, dict, list[str]]:
    """The same, in a process with no pytest session (no assertion rewriting); also
    the printed lines."""
    python_file.write_text(example.source, "utf-8")
    printed, module_globals = _run_code_module.run_code(
        example=example,
        python_file=python_file,
        loader=None,
        config=ExamplesConfig(**CONFIG),
        enable_print_mock=True,
        print_callback=print_callback,
        include_print=None,
        module_globals=None,
        call=None,
    )
    lines = [print_callback(str(s)) for s in printed.print_statements()]
    return printed.updated_print_statements(example), module_globals, lines


def update_with(eval_example: EvalExample, example: CodeExample, updated: str) -> None:
    """With ``--update-examples``: write ``updated`` into the example's file."""
    example.source = updated
    eval_example._mark_for_update(example)
    write_updates_now(eval_example)


def write_updates_now(eval_example: EvalExample) -> None:
    """Write the updates to whole snippet files at once, not at the session's end as
    pytest-examples does: the run as pasted that follows in the same session
    (tests/test_fresh.py) then compares with the new ``#>`` lines, so `make update`
    passes once it has written them. A fence in a page is left to pytest-examples,
    which knows where in the page it stands."""
    for example in list(eval_example.to_update):
        whole = len(example.path.read_text("utf-8")) == example.end_index
        if example.path.suffix == ".py" and example.start_index == 0 and whole:
            example.path.write_text(example.source, "utf-8")
            example.end_index = len(example.source)
            eval_example.to_update.remove(example)


@contextlib.contextmanager
def print_capture() -> Iterator[None]:
    """pytest-examples' print capture without ``inspect.stack()`` and with the tracer
    off (see the module's doc)."""
    original = MockPrintFunction.__call__
    depth = _run_code_module.parent_frame_id

    def call(self, *args: Any, sep: str = " ", **kwargs: Any) -> None:
        tracer = sys.gettrace()
        sys.settrace(None)
        try:
            frame = sys._getframe(depth)  # what inspect.stack()[depth] would describe
            code = frame.f_code
            info = inspect.FrameInfo(
                frame, code.co_filename, frame.f_lineno, code.co_name, None, None
            )
            if self._include_file(info, args):
                line = self._find_line_number(info)
                self.statements.append(
                    _run_code_module.PrintStatement(
                        line, sep, [_run_code_module.Arg(a) for a in args]
                    )
                )
        finally:
            sys.settrace(tracer)

    MockPrintFunction.__call__ = call
    try:
        yield
    finally:
        MockPrintFunction.__call__ = original


def problems(tmp: Path) -> list[str]:
    """What no longer fits in the installed pytest-examples (empty when all does)."""
    found = []
    if not isinstance(getattr(_run_code_module, "parent_frame_id", None), int):
        found.append("pytest_examples.run_code.parent_frame_id is gone or not an int")
    for name in ("PrintStatement", "Arg"):
        if not callable(getattr(_run_code_module, name, None)):
            found.append(f"pytest_examples.run_code.{name} is gone")
    for name in ("_include_file", "_find_line_number"):
        if name not in vars(MockPrintFunction):
            found.append(f"MockPrintFunction.{name} is gone")
    if "_mark_for_update" not in vars(EvalExample):
        found.append("EvalExample._mark_for_update is gone")
    if "self.to_update: list[CodeExample] = []" not in inspect.getsource(EvalExample.__init__):
        found.append("EvalExample.to_update (the examples to write back) is gone")
    if "_run" not in vars(EvalExample):
        found.append("EvalExample._run is gone")
    else:
        wanted = ["self", "example", "insert_print_statements", "module_globals"]
        if list(inspect.signature(EvalExample._run).parameters)[:4] != wanted:
            found.append(
                f"EvalExample._run's parameters changed: {inspect.signature(EvalExample._run)}"
            )
    if found:
        return found
    source = 'print("a")\nprint(1 + 1)\n#> 3\n'
    example = CodeExample.create(source, path=tmp / "adapter_probe.py")
    try:
        with print_capture():
            updated, _, lines = run_outside_pytest(example, tmp / "adapter_probe.py", str)
    except Exception as exc:  # noqa: BLE001 (reported, not raised)
        return [f"run_code.run_code failed: {type(exc).__name__}: {exc}"]
    if updated != 'print("a")\n#> a\nprint(1 + 1)\n#> 2\n' or lines != ["a", "2"]:
        found.append(f"print capture under print_capture() went wrong: {updated!r}, {lines!r}")
    return found
