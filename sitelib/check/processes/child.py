"""In a forked child of the process server: become a fresh process and run one
script (or call one function), then exit with its status."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
from pathlib import Path

TRACEBACK_SIGNAL = signal.SIGUSR1


def run_child(request: dict, env: dict[str, str], out: str, err: str) -> None:
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
        if "OMP_NUM_THREADS" in env and "torch" in sys.modules:
            # torch sized its thread pool when the server imported it; a rank that
            # torchrun starts gets OMP_NUM_THREADS=1 before torch starts: the same here.
            sys.modules["torch"].set_num_threads(int(env["OMP_NUM_THREADS"]))
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
