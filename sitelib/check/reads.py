"""Every file of the checkout a process opens or lists, as it happens: what a test of
the suite actually read, so that its result is reused only while all of it is
byte-identical (:mod:`sitelib.check.reuse`).

Python raises an audit event for each ``open`` (``open()``, ``Path.read_text``, an
import) and each directory listing (``os.listdir``, ``os.scandir``, so ``glob`` and
``rglob``); :func:`recording` collects those under the checkout while it is active,
in this process. A process a test starts records its own when the environment names
a file (:data:`ENV`): the venv's ``.pth`` file imports this module at every start
(the Makefile writes it), and :func:`_boot` then appends each path to that file as
it is read. The checkout's own tooling folders (``.venv``, ``.git``, ``.cache``...)
are not inputs; neither is anything outside the checkout.

Checked by ``tests/test_reuse.py``: a read, a listing and a subprocess's read are each
recorded, and a path outside the checkout is not.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])  # the checkout; set_root() for another
ENV = "SITELIB_READS"  # a file a process appends what it reads to, one "kind path" a line
ROOT_ENV = "SITELIB_READS_ROOT"  # the project whose files count, if not this checkout
IGNORED = {".git", ".cache", ".records", "site", ".pytest_cache", "__pycache__", "node_modules"}
_recorders: list[set[tuple[str, str]]] = []
_installed = False


def set_root(root: Path) -> None:
    """Count the files of ``root`` (a project a self-test made) instead of the checkout's."""
    global ROOT
    ROOT = str(Path(root).resolve())


def relative(path) -> str | None:
    """``path`` relative to the checkout, or None when it is not an input."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        try:
            path = os.fspath(path)
        except TypeError:
            return None  # a file descriptor
    full = os.path.abspath(path)
    if not full.startswith(ROOT + os.sep):
        return None
    rel = full[len(ROOT) + 1 :]
    first = rel.split(os.sep, 1)[0]
    if first in IGNORED or first.startswith(".venv") or "__pycache__" in rel:
        return None
    return rel.replace(os.sep, "/")


def _hook(event: str, args: tuple) -> None:
    if not _recorders or event not in ("open", "os.listdir", "os.scandir"):
        return
    target = args[0] if args else None
    if event != "open" and target is None:
        target = "."
    rel = relative(target)
    if rel is None:
        return
    entry = ("file" if event == "open" else "dir", rel)
    for recorder in _recorders:
        recorder.add(entry)


def _install() -> None:
    global _installed
    if not _installed:
        sys.addaudithook(_hook)  # for the life of the process: audit hooks cannot be removed
        _installed = True


@contextlib.contextmanager
def recording() -> Iterator[set[tuple[str, str]]]:
    """Inside: each ``("file"|"dir", path)`` under the checkout this process opens or
    lists is added to the set it gives (recordings may nest)."""
    _install()
    found: set[tuple[str, str]] = set()
    _recorders.append(found)
    try:
        yield found
    finally:  # by identity: two recordings may hold equal sets
        _recorders[:] = [r for r in _recorders if r is not found]


def read_log(path: Path) -> set[tuple[str, str]]:
    """What processes started with :data:`ENV` naming ``path`` recorded there."""
    if not path.is_file():
        return set()
    entries = set()
    for line in path.read_text("utf-8").splitlines():
        kind, _, rel = line.partition(" ")
        if kind in ("file", "dir") and rel:
            entries.add((kind, rel))
    return entries


class _Log(set):
    """A recorder that also appends each new entry to a file, at once (a process may end
    without running exit handlers)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self._file = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115, PTH123

    def add(self, entry: tuple[str, str]) -> None:
        if entry not in self:
            super().add(entry)
            with contextlib.suppress(OSError, ValueError):
                self._file.write(f"{entry[0]} {entry[1]}\n")


def _boot() -> None:
    """At a process's start (the venv's .pth file): record into the file :data:`ENV`
    names, if it names one."""
    if log := os.environ.get(ENV):
        if root := os.environ.get(ROOT_ENV):
            set_root(Path(root))
        _recorders.append(_Log(log))
        _install()


_boot()
