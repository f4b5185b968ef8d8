"""Fresh processes for examples, without paying for ``import torch`` each time.

Importing torch takes about 3.5 s on the 2-core development machine, and every
example starts with ``import torch``: one new ``python`` per example would cost
minutes. A :class:`ProcessServer` is a process that has imported torch (and
nothing of the harness) and waits; for each request it forks a child, which is a
fresh interpreter in every way an example can tell (its own ``__main__``,
``sys.argv``, working directory, output, Python and NumPy random state; torch's
state is as right after ``import torch``), runs one script in it, and reports its
exit status and output. Children run in their own process group, are killed with
it when they overrun their timeout (after a Python traceback of where they were),
and die with the server.

Used for: every snippet run as pasted (``tests/test_fresh.py``: a server that has
imported torch and nothing else) and every rank of a multi-process example
(:mod:`sitelib.launch`: a server that has also imported the harness, which each
rank runs around the example).

    python -m sitelib.processes [MODULE ...]   # the server, having imported torch and
                                               # MODULEs; JSON lines on stdin/stdout
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from sitelib.site.layout import ROOT

TRACEBACK_SIGNAL = signal.SIGUSR1


@dataclass
class Child:
    """What one child did."""

    returncode: int | None  # None: killed after its timeout
    stdout: str
    stderr: str  # with the child's traceback when it timed out
    started: float  # time.time() when it was forked
    seconds: float  # how long it ran

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


@dataclass
class Request:
    """Run ``script`` as ``__main__`` (or call ``call``, "module:function", with
    ``args``) in each of ``len(envs)`` children, each with its extra environment."""

    script: str | None = None
    call: str | None = None
    args: list = field(default_factory=list)
    cwd: str = str(ROOT)
    envs: list[dict[str, str]] = field(default_factory=lambda: [{}])
    timeout: float = 60.0
    # When one child fails, the others are killed this long after (they would wait
    # forever in a collective for a peer that is gone).
    grace: float = 3.0


class ProcessServer:
    """The client side: starts the server, sends requests, returns futures."""

    def __init__(self, *preload: str) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "sitelib.processes", *preload],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            text=True,
            bufsize=1,
        )
        self._futures: dict[int, Future] = {}
        self._next = 0
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def submit(self, request: Request) -> Future[list[Child]]:
        future: Future[list[Child]] = Future()
        with self._lock:
            self._next += 1
            self._futures[self._next] = future
            message = {"id": self._next, **request.__dict__}
            self._process.stdin.write(json.dumps(message) + "\n")
            self._process.stdin.flush()
        return future

    def run(self, request: Request) -> list[Child]:
        return self.submit(request).result()

    def _read(self) -> None:
        for line in self._process.stdout:
            reply = json.loads(line)
            with self._lock:
                future = self._futures.pop(reply["id"])
            future.set_result([Child(**c) for c in reply["children"]])
        with self._lock:
            for future in self._futures.values():
                future.set_exception(RuntimeError("the process server exited"))
            self._futures.clear()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


# -- the server ---------------------------------------------------------------------
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


def _child(request: dict, env: dict[str, str], out: str, err: str) -> None:
    """In the forked child: become a fresh process and run the script or call."""
    try:
        os.setpgid(0, 0)
        _die_with_parent()
        for fd, path in ((1, out), (2, err)):
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(handle, fd)
            os.close(handle)
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stdin = open(os.devnull)  # noqa: SIM115
        import faulthandler

        faulthandler.register(TRACEBACK_SIGNAL, file=sys.stderr, all_threads=False)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ.update(env)
        tempfile.tempdir = None  # as in a new process: TMPDIR is read again
        os.chdir(request["cwd"])
        import random

        random.seed()  # a fresh process seeds from the OS, not from the server's state
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        if request["script"]:
            import runpy

            script = request["script"]
            sys.argv = [script]
            sys.path[0] = str(Path(script).parent)
            runpy.run_path(script, run_name="__main__")
        else:
            import importlib

            module, name = request["call"].split(":")
            getattr(importlib.import_module(module), name)(*request["args"])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 (reported through stderr and the exit status)
        import traceback

        traceback.print_exc()
        code = 1
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _die_with_parent() -> None:
    """Linux: the child gets SIGKILL when the server dies (no process left behind)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _start(message: dict) -> _Running:
    folder = tempfile.mkdtemp(prefix="sitelib-child-")
    pids = {}
    for index, env in enumerate(message["envs"]):
        out, err = f"{folder}/{index}.out", f"{folder}/{index}.err"
        pid = os.fork()
        if pid == 0:
            _child(message, env, out, err)
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


@contextlib.contextmanager
def process_server(*preload: str) -> Iterator[ProcessServer]:
    server = ProcessServer(*preload)
    try:
        yield server
    finally:
        server.close()


if __name__ == "__main__":
    import importlib

    import torch  # noqa: F401 (the point of the server: imported once, before any fork)

    for module in sys.argv[1:]:
        importlib.import_module(module)
    serve()
