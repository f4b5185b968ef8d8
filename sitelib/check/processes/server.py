"""The process server's loop: read requests from stdin, fork a child for each
(:mod:`.child`), kill the children that overrun (after a Python traceback of where
they were), reply on stdout."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sitelib.check.processes.child import TRACEBACK_SIGNAL, run_child


@dataclass
class _Running:
    id: int
    request: dict
    pids: dict[int, int]  # pid -> index
    folder: str
    started: float  # time.monotonic()
    started_at: float  # time.time()
    results: dict[int, dict] = field(default_factory=dict)
    failed_at: float | None = None
    killed: bool = False


def _start(message: dict) -> _Running:
    folder = tempfile.mkdtemp(prefix="sitelib-child-")
    pids = {}
    for index, env in enumerate(message["envs"]):
        out, err = f"{folder}/{index}.out", f"{folder}/{index}.err"
        pid = os.fork()
        if pid == 0:
            run_child(message, env, out, err)
        pids[pid] = index
    return _Running(message["id"], message, pids, folder, time.monotonic(), time.time())


def _kill(running: _Running) -> None:
    alive = [pid for pid in running.pids if running.pids[pid] not in running.results]
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, TRACEBACK_SIGNAL)
    time.sleep(0.5)  # let faulthandler write where each one was
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    running.killed = True


def _reply(running: _Running, reply) -> None:
    children = []
    for index in range(len(running.request["envs"])):
        result = running.results.get(index, {"returncode": None, "seconds": 0.0})
        result["started"] = running.started_at
        text = {}
        for stream in ("out", "err"):
            path = Path(running.folder) / f"{index}.{stream}"
            text[stream] = path.read_text("utf-8", errors="replace") if path.exists() else ""
        children.append({**result, "stdout": text["out"], "stderr": text["err"]})
    for path in Path(running.folder).iterdir():
        path.unlink()
    os.rmdir(running.folder)
    reply({"id": running.id, "children": children})


def serve() -> None:
    """Read requests from stdin, run them (several at once), reply on stdout."""
    reply_stream = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # nothing else may write into the replies

    def reply(message: dict) -> None:
        reply_stream.write(json.dumps(message) + "\n")

    running: list[_Running] = []
    waiting: list[dict] = []  # requests not started yet: at most `limit` children at once
    limit = max(2, os.cpu_count() or 2)
    open_input = True
    buffer = ""
    while open_input or running or waiting:
        if open_input:
            ready, _, _ = select.select([sys.stdin], [], [], 0.02)
            if ready:
                chunk = os.read(sys.stdin.fileno(), 1 << 16).decode()
                if not chunk:
                    open_input = False
                buffer += chunk
                while "\n" in buffer:
                    line, buffer = buffer.split("\n", 1)
                    waiting.append(json.loads(line))
        else:
            time.sleep(0.02)
        while waiting and (
            not running  # a request for more ranks than the limit still runs, alone
            or sum(len(job.pids) - len(job.results) for job in running) + len(waiting[0]["envs"])
            <= limit
        ):
            running.append(_start(waiting.pop(0)))
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            for job in running:
                if pid in job.pids:
                    code = os.waitstatus_to_exitcode(status)
                    seconds = time.monotonic() - job.started
                    job.results[job.pids[pid]] = {
                        "returncode": None if job.killed else code,
                        "seconds": seconds,
                    }
                    if code and job.failed_at is None:
                        job.failed_at = time.monotonic()
        now = time.monotonic()
        for job in list(running):
            if len(job.results) == len(job.pids):
                running.remove(job)
                _reply(job, reply)
            elif not job.killed and (
                now - job.started > job.request["timeout"]
                or (job.failed_at is not None and now - job.failed_at > job.request["grace"])
            ):
                _kill(job)
