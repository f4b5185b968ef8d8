"""The whole-step script survives a killed rank, and runs on several nodes, under the
real ``torchrun`` (sitelib/check/elastic.py): a rank killed with SIGKILL after a
checkpoint, or rank 0 killed in the middle of a save, is restarted by
``--max-restarts`` with every other rank, resumes from the newest complete checkpoint
(``--resume auto``), and ends with the parameters of the run that was never
interrupted, bit for bit, on the CPU; two nodes of one or two ranks end as one node
with the same ranks. Self-tests break a copy of the script: one that does not restore
the data's position, one that takes a half-written checkpoint for a complete one.

``make test`` runs the killed rank and its self-test; ``make test-complete`` the rest.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pytest

from sitelib.check.complete import SCRIPT, RunFailed, broken
from sitelib.check.elastic import Launched, launch, ranks_stdout

ARGV = ["--steps", "20", "--warmup", "4", "--log-every", "10", "--dropout", "0.1"]
ARGV += ["--ckpt-every", "5"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``full``: run by ``make test-complete`` (``--complete-matrix``); elsewhere its
    empty parametrization is deselected (tests/conftest.py), not counted as a skip."""
    if "full" in metafunc.fixturenames:
        on = metafunc.config.getoption("complete_matrix")
        metafunc.parametrize("full", [True] if on else [], ids=["full"])


# As the chapter's command line sets it (sitelib/check/elastic.py says why).
ENV = {"TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"}


@functools.cache
def unbroken(nproc: int = 2) -> Launched:
    """The run nothing interrupts, for the others to end as."""
    return launch(ARGV, nproc=nproc, cwd=Path(tempfile.mkdtemp(prefix="unbroken-")), env=ENV)


def ends_unbroken(run: Launched, what: str, nproc: int = 2) -> list[str]:
    reference = unbroken(nproc).report
    problems = []
    if run.report is None:
        return [f"{what}: rank 0 wrote no report"]
    for key in ("params", "optimizer", "eval", "lr"):
        if run.report[key] != reference[key]:
            problems.append(f"{what}: {key} differs from the unbroken run's")
    return problems


def killed(tmp: Path, *fault: str, script: Path = SCRIPT) -> Launched:
    argv = [*ARGV, "--resume", "auto", *fault]
    return launch(argv, nproc=2, cwd=tmp, restarts=1, script=script, env=ENV)


def test_a_killed_rank_restarts_and_ends_as_the_unbroken_run(tmp_path: Path) -> None:
    """Rank 1 SIGKILLed at step 12: torchrun stops rank 0, starts both again, and
    they go on from step 10's checkpoint."""
    run = killed(tmp_path, "--kill-at", "12")
    assert "exitcode: -9" in run.output, "no rank was killed"
    assert run.stdout.count("saved step10") == 1, run.stdout
    problems = ends_unbroken(run, "killed at step 12")
    assert not problems, "\n".join(problems)


def test_selftest_a_restart_that_loses_the_datas_position(tmp_path: Path) -> None:
    script = broken(
        tmp_path,
        '        step, (epoch, start) = ckpt["step"], ckpt["data"]\n',
        '        step = ckpt["step"]\n',
    )
    problems = ends_unbroken(killed(tmp_path, "--kill-at", "12", script=script), "no position")
    assert problems and "params differs" in problems[0], problems


def test_a_kill_in_a_save_restarts_from_the_last_complete_checkpoint(
    tmp_path: Path, full: bool
) -> None:
    """Rank 0 killed in step 10's save, after the shards and before .metadata: the
    half checkpoint is ignored, the run goes on from step 5's and saves step 10 again."""
    run = killed(tmp_path, "--kill-in-save", "10")
    assert "exitcode: -9" in run.output, "no rank was killed"
    problems = ends_unbroken(run, "killed in a save")
    assert not problems, "\n".join(problems)


def test_selftest_a_resume_from_a_half_checkpoint(tmp_path: Path, full: bool) -> None:
    """A copy that takes any step folder for a checkpoint resumes from the half one:
    loading it fails, and the restarted run with it."""
    script = broken(
        tmp_path,
        '    return os.path.isfile(os.path.join(path, ".metadata"))\n',
        "    return os.path.isdir(path)\n",
    )
    with pytest.raises(RunFailed, match="metadata"):
        killed(tmp_path, "--kill-in-save", "10", script=script)


@pytest.mark.parametrize("nproc", [1, 2], ids=["2x1", "2x2"])
def test_two_nodes_end_as_one(tmp_path: Path, nproc: int, full: bool) -> None:
    """Two torchrun agents, each a node of ``nproc`` ranks, meeting on loopback: the
    model of one node with the same number of ranks."""
    nodes = launch(ARGV, nproc=nproc, nodes=2, cwd=tmp_path, env=ENV)
    problems = ends_unbroken(nodes, f"2 nodes x {nproc}", nproc=2 * nproc)
    assert not problems, "\n".join(problems)


def test_selftest_a_run_that_leaves_a_process_behind(tmp_path: Path) -> None:
    """A copy whose rank starts a process of its own and leaves it running: the
    run fails, naming it, and the process is killed."""
    line = "    step, epoch, start, best = 0, 0, 0, math.inf\n"
    started = "    __import__('subprocess').Popen(['sleep', '300'])\n"
    script = broken(tmp_path, line, line + started)
    argv = ["--steps", "2", "--warmup", "1", "--log-every", "1"]
    with pytest.raises(
        RunFailed, match=r"left 1 process\(es\) behind \(killed\):\n    \d+: sleep 300"
    ):
        launch(argv, nproc=1, cwd=tmp_path, script=script, env=ENV)


def test_each_ranks_stdout_is_read_from_its_own_file_in_order(tmp_path: Path) -> None:
    """Attempt by attempt (10 after 2), rank by rank, torch's gloo line left out."""
    gloo = "[Gloo] Rank {} is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n"
    files = {
        "attempt_0/0": gloo.format(0) + "step 1\n",
        "attempt_0/1": gloo.format(1),
        "attempt_2/0": "step 2\n",
        "attempt_10/0": "step 3\n",
    }
    for folder, text in files.items():
        (tmp_path / "train_x" / folder).mkdir(parents=True)
        (tmp_path / "train_x" / folder / "stdout.log").write_text(text, "utf-8")
    assert ranks_stdout(tmp_path) == ["step 1", "step 2", "step 3"]
