"""Every snippet, as its copy button gives it, runs in a fresh process and prints its
#> lines. (tests/test_browser.py checks that each copy button gives exactly the file
without its annotation markers; together: what a reader pastes prints what the page
shows.)

The processes are forked from a server that has imported torch and nothing else
(sitelib/processes.py): a fresh `python` would spend 3.5 s per snippet importing
torch. All snippets are submitted when the session starts and run two at a time
while the other tests run; each test waits for its own.
"""

from __future__ import annotations

import tempfile
from concurrent.futures import Future
from pathlib import Path

import pytest

from sitelib.check.examples import chosen_examples, snippet_example
from sitelib.check.outcomes import skip_reason
from sitelib.check.output import normalise_device
from sitelib.check.processes import Child, ProcessServer, Request
from sitelib.site.layout import ROOT, snippet_files
from sitelib.site.snippets import as_copied, expected_output, launch_command


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every snippet but the multi-process ones (launched as ranks by
    tests/test_examples.py), or those of ``--example`` (make check)."""
    if "path" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("example")
        paths = [e.path for e in chosen_examples(chosen)] if chosen else snippet_files()
        paths = [p for p in paths if p.suffix == ".py" and not launch_command(p.read_text("utf-8"))]
        metafunc.parametrize(
            "path", paths, ids=lambda p: p.relative_to(ROOT / "snippets").as_posix()
        )


FOLDER = Path(tempfile.mkdtemp(prefix="fresh-snippets-"))


def run_as_pasted(server: ProcessServer, path: Path) -> Future[list[Child]]:
    """Run what the copy button gives for ``path``, as a script in a fresh process."""
    pasted = FOLDER / path.relative_to(ROOT).as_posix().replace("/", "__")
    pasted.write_text(as_copied(path.read_text("utf-8")), "utf-8")
    return server.submit(Request(script=str(pasted), cwd=str(FOLDER), timeout=120))


def fresh_problems(path: Path, child: Child) -> list[str]:
    shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    if child.timed_out:
        return [f"{shown}: did not finish in a fresh process:\n{child.stderr[-800:]}"]
    if child.returncode:
        return [f"{shown}: failed in a fresh process:\n{child.stderr[-800:]}"]
    printed = normalise_device(child.stdout).splitlines()
    expected = expected_output(path.read_text("utf-8"))
    if printed != expected:
        return [f"{shown}: printed {printed} in a fresh process, the page says {expected}"]
    return []


@pytest.fixture(scope="session")
def fresh_runs(fresh_server: ProcessServer, device: str, request) -> dict[Path, Future]:
    """Every selected snippet's run, submitted at once (the server runs two at a time)."""
    selected = {
        item.callspec.params["path"]
        for item in request.session.items
        if item.originalname == "test_snippet_runs_as_pasted"
    }
    return {
        path: run_as_pasted(fresh_server, path)
        for path in selected
        if not skip_reason(snippet_example(path), device)
    }


def test_snippet_runs_as_pasted(path: Path, fresh_runs: dict[Path, Future], device: str) -> None:
    if reason := skip_reason(snippet_example(path), device):
        pytest.skip(reason)
    problems = fresh_problems(path, fresh_runs[path].result()[0])
    assert not problems, "\n".join(problems)


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
