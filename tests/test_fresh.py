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
        metafunc.parametrize(
            "path", paths, ids=lambda p: p.relative_to(ROOT / "snippets").as_posix()
        )


def test_snippet_runs_as_pasted(path: Path, fresh_runs: dict[Path, Future], device: str) -> None:
    if reason := skip_reason(snippet_example(path), device):
        pytest.skip(reason)
    problems = fresh_problems(path, fresh_runs[path].result()[0])
    assert not problems, "\n".join(problems)


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
        "tests/fixtures/fresh/end_keyword.py: printed ['loss: 2.0'] in a fresh process, "
        "the page says ['loss:', '2.0']"
    ]


def test_fresh_run_catches_a_snippet_that_needs_anything_else(
    fresh_server: ProcessServer,
) -> None:
    path = FIXTURES / "needs_a_file.py"
    (problem,) = fresh_problems(path, run_as_pasted(fresh_server, path).result()[0])
    assert problem.startswith("tests/fixtures/fresh/needs_a_file.py: failed in a fresh process")
    assert "FileNotFoundError" in problem
