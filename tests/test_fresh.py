"""Every snippet, as its copy button gives it, runs in a fresh process and prints its
#> lines (sitelib/check/fresh.py). tests/browser/test_copy.py checks that each copy
button gives exactly that text; together: what a reader pastes prints what the page
shows.

The processes are forked from a server that has imported torch and nothing of the
harness (sitelib/check/processes/): a new `python` per snippet would import torch
each time. Every selected snippet is submitted when the process servers start
(tests/conftest.py, ``fresh_runs``) and runs two at a time while the other tests
run; each test waits for its own.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

import pytest

from sitelib.check.examples import chosen_examples, snippet_example
from sitelib.check.fresh import fresh_problems, run_as_pasted
from sitelib.check.outcomes import skip_reason
from sitelib.check.processes import ProcessServer
from sitelib.site.layout import ROOT, snippet_files
from sitelib.site.snippets import is_script, launch_command


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every snippet but the multi-process ones and the scripts (_run_elsewhere), or
    those of ``--example`` (make check)."""
    if "path" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("example")
        paths = [e.path for e in chosen_examples(chosen)] if chosen else snippet_files()
        paths = [p for p in paths if p.suffix == ".py" and not _run_elsewhere(p)]
        metafunc.parametrize("path", paths, ids=_id)


def _id(path: Path) -> str:
    """A snippet's test id: its path under snippets/ (or as given, outside the checkout)."""
    return (
        path.relative_to(ROOT / "snippets").as_posix() if path.is_relative_to(ROOT) else str(path)
    )


def test_snippet_runs_as_pasted(
    path: Path, fresh_runs: dict[Path, Future], device: str, in_process_failures: dict
) -> None:
    if reason := skip_reason(snippet_example(path), device):
        pytest.skip(reason)
    problems = fresh_problems(path, fresh_runs[path].result()[0])
    if problems and path.resolve() in in_process_failures:
        # One mistake, one message: the check as written already failed (and names it).
        pytest.skip(f"{problems[0].split(': ')[0]}: not compared, its check as written failed")
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def _run_elsewhere(path: Path) -> bool:
    """Multi-process examples (as ranks) and scripts (by their page's commands, in fresh
    processes: sitelib.check.complete) run in tests/test_examples.py."""
    source = path.read_text("utf-8")
    return bool(launch_command(source)) or is_script(source)


# -- self-tests -------------------------------------------------------------------------
FIXTURES = ROOT / "tests" / "fixtures" / "fresh"


def test_fresh_run_catches_output_the_harness_cannot_see(fresh_server: ProcessServer) -> None:
    # The in-process harness records print() calls, ignoring end=; a terminal does not.
    path = FIXTURES / "end_keyword.py"
    assert fresh_problems(path, run_as_pasted(fresh_server, path).result()[0]) == [
        "tests/fixtures/fresh/end_keyword.py:5: printed ['loss: 2.0'] in a fresh process "
        "where the #> lines say ['loss:', '2.0']"
    ]


def test_fresh_run_catches_a_snippet_that_needs_anything_else(
    fresh_server: ProcessServer,
) -> None:
    path = FIXTURES / "needs_a_file.py"
    assert fresh_problems(path, run_as_pasted(fresh_server, path).result()[0]) == [
        "tests/fixtures/fresh/needs_a_file.py:3: failed in a fresh process: FileNotFoundError: "
        "[Errno 2] No such file or directory: 'written_by_another_example.txt'"
    ]


def test_fresh_failure_names_the_snippets_own_line(fresh_server: ProcessServer) -> None:
    # The pasted copy lacks the marker line (the site hides it): its line 6 is the
    # snippet's line 7. One line, no traceback of the temporary copy.
    path = FIXTURES / "raises_below_a_hidden_marker.py"
    (problem,) = fresh_problems(path, run_as_pasted(fresh_server, path).result()[0])
    assert problem.startswith(
        "tests/fixtures/fresh/raises_below_a_hidden_marker.py:7: failed in a fresh process: "
        "RuntimeError: "
    ), problem
    # (torch 2.15 puts "addmm: " before the message)
    assert problem.endswith("mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)"), problem
    assert "\n" not in problem and "fresh-snippets-" not in problem


def test_a_requirement_this_torch_meets_runs_as_pasted(fresh_server: ProcessServer) -> None:
    """``# requires: torch>=2.0``: not skipped, and the marker is a plain comment to
    the pasted script; one this torch does not meet is skipped by the same rule."""
    path = ROOT / "tests" / "fixtures" / "requires" / "needs_torch_2_0.py"
    assert skip_reason(snippet_example(path), "cpu") is None
    assert fresh_problems(path, run_as_pasted(fresh_server, path).result()[0]) == []
    newer = ROOT / "tests" / "fixtures" / "requires" / "needs_torch_99.py"
    assert "needs torch 99.0 or newer" in skip_reason(snippet_example(newer), "cpu")
