"""Multi-process examples (sitelib/check/launch.py): each check fails on a broken example,
naming the rank, the file and the line, and leaves no process behind; the harness's
launch agrees with the real ``torchrun``; and every example, as pasted, exits 0 under
the real ``torchrun`` (sitelib/check/torchrun.py), ``--launch-runs`` times."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
from pytest_examples import CodeExample

from sitelib.check.examples import snippet_example
from sitelib.check.launch import LaunchError, check_launched_output, free_port, without_library_logs
from sitelib.check.outcomes import ExampleFailure, skip_reason
from sitelib.check.torchrun import torchrun_problems
from sitelib.site.layout import ROOT, snippet_files
from sitelib.site.snippets import expected_output, launch_command

FIXTURES = ROOT / "tests" / "fixtures" / "launch"


def example(name: str) -> CodeExample:
    path = FIXTURES / name
    return CodeExample.create(path.read_text("utf-8"), path=path, prefix="py")


def no_children_left(server) -> list[str]:
    return [p.cmdline()[-1] for p in psutil.Process(server._process.pid).children(recursive=True)]


# all_reduce.py broken five ways (one edit each: old text -> new text), and what each
# failure must say. They are launched together.
BROKEN = {
    "wrong_output.py": (
        ("#> [3.0, 3.0, 3.0]", "#> [2.0, 2.0, 2.0]"),
        r"wrong_output.py:20: printed output differs from the #> lines",
    ),
    "crash_on_one_rank.py": (
        (
            "dist.all_reduce(x)\n",
            'if rank == 1:\n    raise RuntimeError("rank 1 fails")\ndist.all_reduce(x)\n',
        ),
        r"(?s)^rank 1: \S*crash_on_one_rank.py:18: example raised RuntimeError: rank 1 fails\n"
        r"rank 0: \S*crash_on_one_rank.py:19: example raised",
    ),
    "hang_on_one_rank.py": (
        (
            "dist.all_reduce(x)\n",
            "if rank == 1:\n    dist.barrier()  # rank 0 never comes\ndist.all_reduce(x)\n",
        ),
        r"(?s)rank 0: did not finish within 6 s; it was at \S*hang_on_one_rank.py:19"
        r".*rank 1: did not finish within 6 s; it was at \S*hang_on_one_rank.py:18",
    ),
    "prints_on_every_rank.py": (
        ("if rank == 0:\n", 'print("hello from every rank")\nif rank == 0:\n'),
        r"rank 1: \S*prints_on_every_rank.py: printed output; only rank 0 prints .*\n"
        r"    hello from every rank",
    ),
    "writes_to_stdout.py": (
        (
            "dist.all_reduce(x)\n",
            '__import__("sys").stdout.write("not through print\\n")\ndist.all_reduce(x)\n',
        ),
        r"rank [01]: \S*writes_to_stdout.py: wrote to stdout outside print\(\):\n    not through print",
    ),
    "wrong_shape_on_ranks.py": (
        ("torch.full((2, 3)", "torch.full((2, 4)"),
        r"rank [01]: \S*wrong_shape_on_ranks.py:16: x: expected \[2, 3\], got torch.Size\(\[2, 4\]\)",
    ),
}


def broken(tmp: Path, name: str) -> CodeExample:
    (old, new), _ = BROKEN[name]
    source = (FIXTURES / "all_reduce.py").read_text("utf-8")
    assert source.count(old) == 1, old
    path = tmp / name
    path.write_text(source.replace(old, new), "utf-8")
    return CodeExample.create(path.read_text("utf-8"), path=path, prefix="py")


def test_launched_examples_fail_naming_rank_file_and_line(rank_server, tmp_path: Path) -> None:
    examples = {"all_reduce.py": example("all_reduce.py")}
    examples |= {name: broken(tmp_path, name) for name in BROKEN}
    with ThreadPoolExecutor(len(examples)) as pool:  # the server runs them side by side
        checked = pool.map(lambda e: _check(rank_server, e), examples.values())
        messages = dict(zip(examples, checked, strict=True))
    assert messages.pop("all_reduce.py") == "passed"
    for name, (_, pattern) in BROKEN.items():
        assert re.search(pattern, messages[name]), f"{name}:\n{messages[name]}"
    assert no_children_left(rank_server) == []


def _check(server, ex: CodeExample) -> str:
    try:
        check_launched_output(server, ex, "cpu", seed=0, timeout=6)
    except (LaunchError, ExampleFailure) as exc:
        return str(exc)
    return "passed"


def test_the_real_torchrun_prints_what_the_harness_checks(tmp_path: Path) -> None:
    """The harness forks the ranks with torchrun's environment; torchrun itself agrees:
    rank 0 prints the #> lines, rank 1 nothing. Each rank's stdout is read from its own
    file (--redirects), as two processes writing one terminal can interleave mid-line."""
    path = FIXTURES / "all_reduce.py"
    torchrun = Path(sys.executable).parent / "torchrun"
    result = subprocess.run(
        [
            str(torchrun),
            "--nproc-per-node",
            "2",
            "--master-addr",
            "127.0.0.1",
            "--master-port",
            str(free_port()),
            "--log-dir",
            str(tmp_path),
            "--redirects",
            "1",  # each rank's stdout to <log-dir>/.../<rank>/stdout.log
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, GLOO_SOCKET_IFNAME="lo"),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    stdout = {
        int(log.parent.name): without_library_logs(log.read_text("utf-8"))
        for log in tmp_path.rglob("stdout.log")
    }
    assert stdout == {0: expected_output(path.read_text("utf-8")), 1: []}


# -- every example as pasted, under the real torchrun, to the end of each rank ---------
LAUNCHED = [p for p in snippet_files() if launch_command(p.read_text("utf-8"))]


@pytest.mark.parametrize(
    "path", LAUNCHED, ids=lambda p: p.relative_to(ROOT / "snippets").as_posix()
)
def test_launched_example_exits_cleanly_under_torchrun(path: Path, device: str, pytestconfig):
    """What a reader's ``torchrun --nproc-per-node 2 file.py`` does, to the end of every
    rank's interpreter: exit 0, rank 0 printing the #> lines. ``--launch-runs 10``
    (the weekly workflow) repeats it, to see a failure of one run in a few."""
    if reason := skip_reason(snippet_example(path), device):
        pytest.skip(reason)
    problems = torchrun_problems(path, runs=pytestconfig.getoption("launch_runs"))
    assert not problems, "\n".join(problems)


# A copy of all_reduce.py that dies at exit after its right output, as a rank does when
# gloo's thread takes the GIL too late, and one that never ends.
AT_EXIT = {
    "aborts_at_exit.py": (
        "dist.init_process_group(",
        'import atexit\nif os.environ["RANK"] == "1":\n    atexit.register(os.abort)\n'
        "dist.init_process_group(",
    ),
    "hangs_at_exit.py": (
        "dist.destroy_process_group()\n",
        'dist.destroy_process_group()\nif os.environ["RANK"] == "1":\n'
        '    __import__("time").sleep(600)\n',
    ),
}


def test_torchrun_check_names_a_crash_at_exit_and_a_hang(tmp_path: Path) -> None:
    source = (FIXTURES / "all_reduce.py").read_text("utf-8")
    for name, (old, new) in AT_EXIT.items():
        assert source.count(old) == 1, old
        (tmp_path / name).write_text(source.replace(old, new), "utf-8")
    aborts = torchrun_problems(tmp_path / "aborts_at_exit.py")
    assert aborts and aborts[0].startswith(
        "aborts_at_exit.py: run 1 under torchrun: rank 1 ended with SIGABRT (exit code -6)"
    ), aborts
    before = {p.pid for p in psutil.process_iter()}
    hangs = torchrun_problems(tmp_path / "hangs_at_exit.py", timeout=10)
    assert hangs == [
        "hangs_at_exit.py: run 1 under torchrun: did not finish within 10 s "
        "(killed, with every rank)"
    ], hangs
    left = [_command(p) for p in psutil.process_iter() if p.pid not in before]
    assert not [c for c in left if any("hangs_at_exit" in part for part in c)], left


def _command(process: psutil.Process) -> list[str]:
    """A process's command line; none for one that ended meanwhile or is a zombie (it
    runs nothing): other programs on the machine start and end processes too."""
    try:
        return process.cmdline()
    except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
        return []
