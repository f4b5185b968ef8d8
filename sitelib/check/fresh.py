"""A snippet as a reader pastes it: what its copy button gives, run as a script in a
fresh process (forked from a :class:`~sitelib.check.processes.ProcessServer`), and
what that run printed compared with the snippet's ``#>`` lines."""

from __future__ import annotations

import tempfile
from concurrent.futures import Future
from functools import cache
from pathlib import Path

from sitelib.check.output import normalise_device
from sitelib.check.processes import Child, ProcessServer, Request
from sitelib.site.layout import ROOT
from sitelib.site.snippets import as_copied, expected_output


@cache
def _folder() -> Path:
    """Where the pasted scripts are written: a folder of their own, nothing else in it."""
    return Path(tempfile.mkdtemp(prefix="fresh-snippets-"))


def run_as_pasted(server: ProcessServer, path: Path) -> Future[list[Child]]:
    """Run what the copy button gives for ``path``, as a script in a fresh process."""
    folder = _folder()
    pasted = folder / path.relative_to(ROOT).as_posix().replace("/", "__")
    pasted.write_text(as_copied(path.read_text("utf-8")), "utf-8")
    return server.submit(Request(script=str(pasted), cwd=str(folder), timeout=120))


def fresh_problems(path: Path, child: Child) -> list[str]:
    """What is wrong with ``child``, the run of ``path`` as pasted (empty: nothing)."""
    shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    if child.timed_out:
        return [f"{shown}: did not finish in a fresh process:\n{child.stderr[-800:]}"]
    if child.returncode:
        return [f"{shown}: failed in a fresh process:\n{child.stderr[-800:]}"]
    printed = normalise_device(child.stdout).splitlines()
    expected = expected_output(path.read_text("utf-8"))
    if printed != expected:
        return [f"{shown}: printed {printed} in a fresh process, the page says {expected}"]
    return []
