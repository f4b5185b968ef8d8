"""The client side of the process server (:mod:`sitelib.check.processes`): start a
server, send it requests, get futures of what each child did."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import ModuleType

from sitelib.site.layout import ROOT


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
    """Run ``script`` as ``__main__`` (or call the function ``call`` with ``args``) in
    each of ``len(envs)`` children, each with its extra environment. ``call`` must
    be a module-level function of a module the server preloaded (the children are
    forked from it, so it is there already)."""

    script: str | None = None
    call: Callable | None = None
    args: list = field(default_factory=list)
    cwd: str = str(ROOT)
    envs: list[dict[str, str]] = field(default_factory=lambda: [{}])
    timeout: float = 60.0
    # When one child fails, the others are killed this long after (they would wait
    # forever in a collective for a peer that is gone).
    grace: float = 3.0


class ProcessServer:
    """The client side: starts the server, sends requests, returns futures."""

    def __init__(self, *preload: ModuleType | str) -> None:
        """``preload``: what the server imports before it forks (modules, or the names
        of modules a client does not import itself, such as ``torch._dynamo``)."""
        names = [m if isinstance(m, str) else m.__name__ for m in preload]
        self._process = subprocess.Popen(
            [sys.executable, "-m", "sitelib.check.processes", *names],
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
            if request.call is not None:  # the function, by where the server finds it
                message["call"] = f"{request.call.__module__}:{request.call.__qualname__}"
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
        """Stop the server: at once when nothing is running (it may still be importing
        its preloads, seconds it would spend for nothing), else after its last reply."""
        with self._lock:
            idle = not self._futures
        if idle:
            self._process.terminate()
        with contextlib.suppress(OSError):
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._reader.join(timeout=5)  # it stops at the end of the server's stdout
        self._process.stdout.close()


@contextlib.contextmanager
def process_server(*preload: str) -> Iterator[ProcessServer]:
    server = ProcessServer(*preload)
    try:
        yield server
    finally:
        server.close()
