"""A multi-process example as a reader runs it: what its copy button gives, saved to a
file and started with the real ``torchrun`` its ``# launch:`` marker names, to the end
of every rank's interpreter.

Why not the forked ranks of :mod:`sitelib.check.launch`: those are checked inside the
harness and end with ``os._exit``, so they never reach the interpreter's shutdown,
where a rank can still die after printing the right output (on gloo, a worker thread
that lets go of a collective's tensors after the main thread began its shutdown:
``terminate called without an active exception``, SIGABRT; the distributed chapter's
"Shutting down"). Here every rank is a fresh ``python``, as ``torchrun`` starts it,
and the run passes only when ``torchrun`` exits 0, rank 0 printed the ``#>`` lines
and the other ranks nothing. The cost is a fresh ``import torch`` in each rank and in
``torchrun``'s agent: seconds per run, against a fraction of one for a forked rank.

How it is checked: ``tests/test_launch.py`` runs every example this way, and its
self-test runs a copy that crashes at exit and one that hangs, and expects the
failure named, with no process left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from sitelib.check.launch import free_port, ranks, without_library_logs
from sitelib.site.layout import ROOT
from sitelib.site.snippets import as_copied, expected_output, launch_command

TIMEOUT = 120.0  # seconds for one run, torch's imports included


def _signal_name(code: int) -> str:
    try:
        return f"{signal.Signals(-code).name} (exit code {code})"
    except ValueError:
        return f"exit code {code}"


def torchrun_problems(path: Path, runs: int = 1, timeout: float = TIMEOUT) -> list[str]:
    """What is wrong with ``runs`` runs of ``path``, as pasted, under the real
    ``torchrun`` (empty: every run exited 0 and printed what the page shows). Each
    problem names the run, the rank and how it ended, with the end of its stderr."""
    source = path.read_text("utf-8")
    command = launch_command(source)
    if command is None:
        raise ValueError(f"{path}: no '# launch:' marker")
    n = ranks(command)
    shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    expected = expected_output(source)
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="torchrun-") as tmp:
        pasted = Path(tmp) / path.name
        pasted.write_text(as_copied(source), "utf-8")
        for run in range(1, runs + 1):
            logs = Path(tmp) / f"logs{run}"
            problems += _one_run(shown, pasted, n, logs, expected, run, timeout)
            if problems:
                break  # the first failing run is the one to read
    return problems


def _one_run(
    shown: str, pasted: Path, n: int, logs: Path, expected: list[str], run: int, timeout: float
) -> list[str]:
    torchrun = Path(sys.executable).parent / "torchrun"
    args = [str(torchrun), "--nproc-per-node", str(n), "--master-addr", "127.0.0.1"]
    args += ["--master-port", str(free_port()), "--log-dir", str(logs)]
    args += ["--redirects", "3", "--tee", "0", str(pasted.name)]  # each rank's streams to files
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo")
    env.pop("OMP_NUM_THREADS", None)  # torchrun sets it for each rank, as for a reader
    where = f"{shown}: run {run} under torchrun"
    proc = subprocess.Popen(
        args, cwd=pasted.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        _, agent_err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(proc)
        return [f"{where}: did not finish within {timeout:.0f} s (killed, with every rank)"]
    streams = {
        (int(f.parent.name), f.stem): f.read_text("utf-8", errors="replace")
        for f in logs.rglob("std*.log")
    }
    problems, stopped = [], []
    codes = {rank: _rank_exit(agent_err, rank) for rank in range(n)}
    for rank, code in codes.items():
        err = streams.get((rank, "stderr"), "").strip()
        tail = "".join("\n    " + line for line in err.splitlines()[-6:])
        if code == -signal.SIGTERM and any(c and c != code for c in codes.values()):
            stopped.append(f"{where}: rank {rank} was stopped by torchrun (SIGTERM)")
        elif code:
            problems.append(f"{where}: rank {rank} ended with {_signal_name(code)}{tail}")
    problems += stopped  # the rank that failed first, then those torchrun stopped
    if proc.returncode and not problems:
        tail = "\n".join("    " + line for line in agent_err.strip().splitlines()[-6:])
        problems.append(f"{where}: torchrun exited {proc.returncode}:\n{tail}")
    printed = {rank: without_library_logs(streams.get((rank, "stdout"), "")) for rank in range(n)}
    if not problems and printed[0] != expected:
        problems.append(f"{where}: rank 0 printed {printed[0][:3]}... not the #> lines")
    problems += [
        f"{where}: rank {rank} printed {lines[:3]}; only rank 0 prints"
        for rank, lines in printed.items()
        if rank and lines and not problems
    ]
    return problems


def stop(proc: subprocess.Popen) -> None:
    """Stop torchrun and every rank it started: SIGTERM, which torchrun passes on to
    its ranks (each in a session of its own), then SIGKILL for what is left."""
    import psutil

    tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    proc.terminate()
    _, alive = psutil.wait_procs(tree, timeout=15)
    for process in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
    psutil.wait_procs(alive, timeout=15)
    proc.communicate()


def _rank_exit(agent_stderr: str, rank: int) -> int:
    """A rank's exit code as torchrun's failure report gives it (0 if not reported)."""
    import re

    for block in re.split(r"\n\[\d+\]:\n", agent_stderr):
        if re.search(rf"rank\s*: {rank} \(local_rank: {rank}\)", block):
            m = re.search(r"exitcode\s*: (-?\d+)", block)
            return int(m.group(1)) if m else 1
    return 0
