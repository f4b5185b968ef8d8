"""The whole-step script under the real ``torchrun``: restarts after a killed rank,
and several nodes on loopback.

The forked ranks of :mod:`sitelib.check.complete` cannot show what ``torchrun``
itself does when a rank dies: it stops the others and, with ``--max-restarts``,
starts every rank again, each a fresh interpreter. :func:`launch` runs the script as
a reader types it: one ``torchrun`` agent per node, all on 127.0.0.1, meeting through
the c10d rendezvous (``--rdzv-backend c10d``; the static one cannot restart a group
whose rank died), with the environment the caller gives as a reader's command line
would (the chapter's restarts set ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1``: torchrun's
shared store keeps the last attempt's gloo addresses, and a restarted group reads them
and cannot connect), each rank with ``OMP_NUM_THREADS=1`` (``torchrun`` sets it only for
more than one process a node, and threads add in their own order) and gloo on the
loopback interface. It waits for every agent; one that overruns the timeout is
stopped with all it started. A run that did not end with every agent's exit status 0,
or left a process behind, is a :class:`~sitelib.check.complete.RunFailed` naming the
command and the end of what it printed.

How it is checked: tests/test_elastic.py runs a killed rank, a kill in a save and two
nodes against the unbroken run, with self-tests that break a copy of the script (one
leaves a process running: :func:`left_behind` finds it by the mark in its environment).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from sitelib.check.complete import SCRIPT, RunFailed
from sitelib.check.launch import free_port, without_library_logs
from sitelib.check.torchrun import stop

TIMEOUT = 240.0  # seconds for a whole run, its restarts included
# Set in the agents' environment, so in everything they start: what is still
# running with it once every agent has ended was left behind.
MARK = "SITELIB_ELASTIC_RUN"
GRACE = 10.0  # seconds a process may take to end after its agent did


@dataclass
class Launched:
    stdout: list[str]  # what the ranks printed (only rank 0 prints), every attempt
    output: str  # torchrun's own lines and the ranks' stderr, agent by agent
    report: dict | None  # what --report-json wrote, by rank 0


def command(argv: list[str], nproc: int, nodes: int, restarts: int, port: int) -> list[str]:
    torchrun = [sys.executable, "-m", "torch.distributed.run"]
    torchrun += ["--nnodes", str(nodes), "--nproc-per-node", str(nproc)]
    torchrun += ["--max-restarts", str(restarts), "--rdzv-backend", "c10d"]
    torchrun += ["--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", "train"]
    return [*torchrun, "train.py", *argv]


def ranks_stdout(logs: Path) -> list[str]:
    """What the ranks printed, attempt by attempt, agent by agent, rank by rank
    (``<logs>/<run>_<id>/attempt_<n>/<local rank>/stdout.log``), without torch's
    own log lines."""

    def order(f: Path) -> tuple[int, str, int]:
        attempt = int(f.parent.parent.name.removeprefix("attempt_"))
        return attempt, f.parent.parent.parent.name, int(f.parent.name)

    files = sorted(logs.glob("*/attempt_*/*/stdout.log"), key=order)
    return [line for f in files for line in without_library_logs(f.read_text("utf-8"))]


def left_behind(mark: str, grace: float = GRACE) -> list[str]:
    """The processes still running ``grace`` seconds after a run whose environment
    holds ``MARK=mark``, each killed and named (``pid: command line``)."""
    import psutil

    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(MARK) == mark:
                found.append(proc)
        except (psutil.Error, OSError):  # gone, a zombie, or not ours to read
            continue
    _, alive = psutil.wait_procs(found, timeout=grace)
    named = []
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            named.append(f"{proc.pid}: {shlex.join(proc.cmdline())}")
            proc.kill()
    return named


def launch(
    argv: list[str],
    *,
    nproc: int,
    cwd: Path,
    nodes: int = 1,
    restarts: int = 0,
    script: Path = SCRIPT,
    env: dict[str, str] | None = None,
    report: bool = True,
    timeout: float = TIMEOUT,
) -> Launched:
    """``[ENV] torchrun ... train.py ARGV [--report-json ...]`` on ``nodes`` agents of
    ``nproc`` ranks each, in ``cwd`` (which gets the script as ``train.py``), with
    ``env`` as a reader's command line sets it."""
    if script.resolve() != (cwd / "train.py").resolve():
        (cwd / "train.py").write_text(script.read_text("utf-8"), "utf-8")
    mark = uuid.uuid4().hex
    environ = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1", **(env or {}))
    environ[MARK] = mark
    environ.pop("TORCHELASTIC_RESTART_COUNT", None)
    with tempfile.TemporaryDirectory(prefix="sitelib-elastic-") as folder:
        path = Path(folder) / "report.json"
        reported = [*argv, "--report-json", str(path)] if report else list(argv)
        args = command(reported, nproc, nodes, restarts, free_port())
        shown = shlex.join(["torchrun", *args[3:]])
        # Each rank's stdout to a file of its own: in one pipe, the ranks' writes can
        # interleave mid-line (torch 2.10's gloo writes its "[Gloo] Rank 0 is
        # connected" line in pieces). Their stderr goes to the agent's, as a reader's.
        logs = Path(folder) / "logs"
        at = args.index("train.py")
        args[at:at] = ["--log-dir", str(logs), "--redirects", "1"]
        # Each agent's own output, and its ranks' stderr, to a file: a process left
        # behind would hold a pipe open, and reading it would wait for that process.
        streams = [Path(folder) / f"agent{node}.log" for node in range(nodes)]
        agents = []
        for stream in streams:
            with stream.open("w") as out:
                agents.append(subprocess.Popen(args, cwd=cwd, env=environ, stdout=out, stderr=out))
        overran = False
        for agent in agents:
            try:
                agent.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                overran = True
                for each in agents:
                    stop(each)
        output = "\n".join(s.read_text("utf-8", errors="replace") for s in streams)
        behind = left_behind(mark)
        if behind:
            listed = "\n".join("    " + p for p in behind)
            raise RunFailed(f"{shown}: left {len(behind)} process(es) behind (killed):\n{listed}")
        if overran:
            raise RunFailed(f"{shown}: did not finish within {timeout:.0f} s (stopped)")
        if any(agent.returncode for agent in agents):
            codes = [agent.returncode for agent in agents]
            lines = output.strip().splitlines()
            errors = [line for line in lines if "Error" in line][-4:]  # the ranks'
            tail = "\n".join("    " + line for line in [*errors, "...", *lines[-8:]])
            raise RunFailed(f"{shown}: torchrun exited {codes}:\n{tail}")
        data = json.loads(path.read_text("utf-8")) if path.exists() else None
        printed = ranks_stdout(logs)
    return Launched(printed, output, data)
