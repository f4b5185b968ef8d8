"""Results reused while their inputs are unchanged (sitelib/check/reuse.py,
sitelib/check/reads.py, tests/reuse_plugin.py): in a small project of its own, run by
pytest in a fresh process again and again, each kind of input is changed once and
the tests that depend on it, and only those, run again; a failure is never reused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitelib.check import reads
from sitelib.check.reuse import Store, environment

PLUGIN = Path(__file__).with_name("reuse_plugin.py")

CONFTEST = f"""
import importlib.util

spec = importlib.util.spec_from_file_location("reuse_plugin", {str(PLUGIN)!r})
plugin = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plugin)


def pytest_addoption(parser):
    parser.addoption("--run-all", action="store_true")


def pytest_configure(config):
    plugin.register(config)


def pytest_runtest_call(item):  # only an item that runs gets here; a reused one does not
    import os

    with open(os.environ["RAN_LOG"], "a") as log:
        log.write(item.name.removeprefix("test_") + "\\n")
"""

PROBE = """
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_reads_a_file():
    assert (ROOT / "data" / "value.txt").read_text() != "fail"


def test_lists_a_folder():
    assert "value.txt" in os.listdir(ROOT / "data")


def test_a_process_it_starts_reads_a_file():
    code = "print(open('data/other.txt').read())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_reads_nothing():
    assert 1 + 1 == 2
"""

TESTS = {
    "reads_a_file",
    "lists_a_folder",
    "a_process_it_starts_reads_a_file",
    "reads_nothing",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "conftest.py").write_text(CONFTEST, "utf-8")
    (tmp_path / "tests" / "test_probe.py").write_text(PROBE, "utf-8")
    (tmp_path / "data" / "value.txt").write_text("1", "utf-8")
    (tmp_path / "data" / "other.txt").write_text("2", "utf-8")
    return tmp_path


def ran(project: Path, *args: str, env: dict | None = None) -> tuple[set[str], str]:
    """The tests that ran (not reused) in one run of the project's suite, and its output."""
    log = project.parent / f"{project.name}-ran.log"  # outside it: not an input
    log.unlink(missing_ok=True)
    environ = {k: v for k, v in os.environ.items() if k not in ("CI", reads.ENV)}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-rA", "--rootdir", str(project), "tests", *args],
        cwd=project, capture_output=True, text=True,
        env={**environ, "RAN_LOG": str(log), **(env or {})},
    )  # fmt: skip
    names = set(log.read_text("utf-8").split()) if log.exists() else set()
    return names, result.stdout + result.stderr


def test_each_kind_of_input_reruns_its_dependents(project: Path) -> None:
    first, out = ran(project)
    assert first == TESTS, out
    again, out = ran(project)
    assert again == set(), out
    assert f"{len(TESTS)} results reused" in out

    (project / "data" / "value.txt").write_text("3", "utf-8")  # a file one test read
    assert ran(project)[0] == {"reads_a_file"}
    (project / "data" / "new.txt").write_text("4", "utf-8")  # a folder one test listed
    assert ran(project)[0] == {"lists_a_folder"}
    (project / "data" / "other.txt").write_text("5", "utf-8")  # read by its subprocess
    assert ran(project)[0] == {"a_process_it_starts_reads_a_file"}

    probe = project / "tests" / "test_probe.py"  # the library: every test depends on it
    probe.write_text(probe.read_text("utf-8") + "\n", "utf-8")
    assert ran(project)[0] == TESTS
    assert ran(project, "--run-all")[0] == TESTS  # the switch
    assert ran(project, env={"CI": "true"})[0] == TESTS  # CI runs everything
    assert ran(project)[0] == set(), "neither kept anything"
    assert ran(project, env={"OMP_NUM_THREADS": "3"})[0] == TESTS  # an environment input
    assert ran(project, env={"OMP_NUM_THREADS": "3"})[0] == set()


def test_a_failure_is_never_reused(project: Path) -> None:
    (project / "data" / "value.txt").write_text("fail", "utf-8")
    for _ in range(2):
        ran_now, out = ran(project)
        assert "reads_a_file" in ran_now, out
        assert "FAILED tests/test_probe.py::test_reads_a_file" in out
    (project / "data" / "value.txt").write_text("1", "utf-8")
    assert ran(project)[0] == {"reads_a_file"}
    assert ran(project)[0] == set()


def test_reads_are_recorded_in_the_process_and_outside_it_not(tmp_path: Path) -> None:
    inside = Path(reads.ROOT) / "docs" / "index.md"
    with reads.recording() as found:
        inside.read_text("utf-8")
        os.listdir(Path(reads.ROOT) / "overrides")
        (tmp_path / "elsewhere.txt").write_text("x", "utf-8")
    assert ("file", "docs/index.md") in found
    assert ("dir", "overrides") in found
    assert not [rel for _, rel in found if "elsewhere" in rel]


def test_the_environment_changes_with_versions_and_options(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("x = 1\n", "utf-8")
    base = environment({"device": "cpu"}, {"torch": "2.13.0"}, tmp_path)
    assert environment({"device": "cpu"}, {"torch": "2.13.0"}, tmp_path) == base
    assert environment({"device": "cuda"}, {"torch": "2.13.0"}, tmp_path) != base
    assert environment({"device": "cpu"}, {"torch": "2.15.0"}, tmp_path) != base
    (tmp_path / "requirements.lock").write_text("torch==2.15.0\n", "utf-8")
    assert environment({"device": "cpu"}, {"torch": "2.13.0"}, tmp_path) != base
    store = Store(tmp_path / "store", tmp_path)
    assert store.reusable("nothing::kept", base) is None
