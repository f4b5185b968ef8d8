"""A test's result kept from the last run on this machine, reused while every input it
depends on is byte-identical, so that ``make test`` after a one-file edit reruns what
the edit can affect (``tests/conftest.py`` is the pytest side).

A result's inputs are of two kinds:

* **What the test read**, recorded from what it actually opened and listed
  (:mod:`sitelib.check.reads`: in the test's process and in every process it started,
  the site's build among them; a session fixture's reads count for every test that
  uses it), and the snippet or page a parametrized test is about.
* **What every test depends on**, :func:`environment`: every file of the library and
  its users (``sitelib/``, ``tests/`` with its fixtures, ``hooks/``, ``overrides/``,
  ``tools/``), ``mkdocs.yml``, ``pyproject.toml``, ``requirements.lock``, the
  ``Makefile``, the snippets' ruff settings; the Python, torch and browser versions;
  the environment variables the harness reads (:data:`ENV_INPUTS`); the options.

Only a pass or a skip is kept: a failure is run again, and so is a test whose record
names a file that changed, vanished or appeared in a folder it listed. The store is
``.cache/reuse/`` (git-ignored), one JSON file per test. Why not pytest-testmon: it
follows the Python lines a test executes (coverage), not the snippets, pages and
templates it reads, nor what runs in the processes it starts; pytest's own cache
keeps outcomes without inputs. Bazel keys a target on its declared inputs; here they
are recorded, so that an undeclared one cannot go stale.

Checked by ``tests/test_reuse.py``: each kind of input changed once reruns its
dependents, and a failure is never reused.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sitelib.site.layout import ROOT

STORE = ROOT / ".cache" / "reuse"
# Whose every file is an input of every test (edit one, and everything runs again).
LIBRARY = ("sitelib", "tests", "hooks", "overrides", "tools")
CONFIG_FILES = (
    "mkdocs.yml",
    "pyproject.toml",
    "requirements.lock",
    "Makefile",
    "snippets/ruff.toml",
)
# The environment variables the harness, torch or the build read, whose value changes a
# result: each is an input of every test.
ENV_INPUTS = (
    "CHROMIUM",
    "CUDA_VISIBLE_DEVICES",
    "EDIT_URI",
    "GLOO_SOCKET_IFNAME",
    "MPLBACKEND",
    "OMP_NUM_THREADS",
    "PYTHONHASHSEED",
    "REPO_NAME",
    "REPO_URL",
    "SITE_RECORDS",
    "SITE_URL",
    "TORCHINDUCTOR_CACHE_DIR",
    "TORCH_LOGS",
)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest(kind: str, rel: str, root: Path = ROOT) -> str:
    """A file's bytes, or a folder's sorted names, as a hash ("missing" if not there)."""
    path = root / rel
    try:
        if kind == "dir":
            return _sha("\n".join(sorted(os.listdir(path))).encode())
        return _sha(path.read_bytes())
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return "missing"


def is_library(rel: str) -> bool:
    """Whether ``rel`` is already an input of every test (:func:`environment`)."""
    return rel in CONFIG_FILES or rel.split("/", 1)[0] in LIBRARY


def _library(root: Path) -> list[tuple[str, str]]:
    found = []
    for folder in LIBRARY:
        for path in sorted((root / folder).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and "__pycache__" not in rel and "node_modules" not in rel:
                found.append((rel, _sha(path.read_bytes())))
    return found + [(rel, digest("file", rel, root)) for rel in CONFIG_FILES]


def environment(options: dict, versions: dict, root: Path = ROOT) -> str:
    """What every test's result depends on, as one hash."""
    facts = {
        "library": _library(root),
        "env": {name: os.environ.get(name) for name in ENV_INPUTS},
        "options": options,
        "versions": {"python": sys.version, **versions},
    }
    return _sha(json.dumps(facts, sort_keys=True, default=str).encode())


@dataclass
class Record:
    nodeid: str
    environment: str
    outcome: str  # "passed" or "skipped"
    reason: str = ""  # a skip's
    inputs: dict[str, str] = field(default_factory=dict)  # "kind path" -> digest


class Store:
    """The kept results, one file per test, and the digests of this run (files do not
    change while a run reads them: each is hashed once)."""

    def __init__(self, folder: Path = STORE, root: Path = ROOT) -> None:
        self.folder, self.root = folder, root
        self._digests: dict[tuple[str, str], str] = {}

    def _file(self, nodeid: str) -> Path:
        return self.folder / f"{hashlib.sha1(nodeid.encode()).hexdigest()}.json"

    def current(self, kind: str, rel: str) -> str:
        key = (kind, rel)
        if key not in self._digests:
            self._digests[key] = digest(kind, rel, self.root)
        return self._digests[key]

    def reusable(self, nodeid: str, environment: str) -> Record | None:
        """The kept result of ``nodeid``, if every input it had is as it was."""
        try:
            data = json.loads(self._file(nodeid).read_text("utf-8"))
            record = Record(**data)
        except (OSError, ValueError, TypeError):
            return None
        if record.nodeid != nodeid or record.environment != environment:
            return None
        for key, kept in record.inputs.items():
            kind, _, rel = key.partition(" ")
            if self.current(kind, rel) != kept:
                return None
        return record

    def keep(self, record: Record) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self._file(record.nodeid).with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(record)), "utf-8")
        temporary.replace(self._file(record.nodeid))

    def forget(self, nodeid: str) -> None:
        self._file(nodeid).unlink(missing_ok=True)

    def inputs(self, entries: set[tuple[str, str]]) -> dict[str, str]:
        """The digests of what a test read, but what every test depends on anyway.
        Hashed now, after the test: a file it wrote is read as it left it."""
        return {
            f"{kind} {rel}": digest(kind, rel, self.root)
            for kind, rel in sorted(entries)
            if not is_library(rel)
        }
