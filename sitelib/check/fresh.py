"""A snippet as a reader pastes it: what its copy button gives, run as a script in a
fresh process (forked from a :class:`~sitelib.check.processes.ProcessServer`), and
what that run printed compared with the snippet's ``#>`` lines."""

from __future__ import annotations

import re
import tempfile
from concurrent.futures import Future
from functools import cache
from pathlib import Path

from sitelib.check.output import normalise_device
from sitelib.check.processes import Child, ProcessServer, Request
from sitelib.site.layout import ROOT
from sitelib.site.snippets import as_copied, copied_lines, expected_output_at


@cache
def _folder() -> Path:
    """Where the pasted scripts are written: a folder of their own, nothing else in it."""
    return Path(tempfile.mkdtemp(prefix="fresh-snippets-"))


def _pasted(path: Path) -> Path:
    """Where the copy of ``path`` as pasted is written."""
    shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    return _folder() / shown.replace("/", "__")


def run_as_pasted(server: ProcessServer, path: Path) -> Future[list[Child]]:
    """Run what the copy button gives for ``path``, as a script in a fresh process."""
    pasted = _pasted(path)
    pasted.write_text(as_copied(path.read_text("utf-8")), "utf-8")
    return server.submit(Request(script=str(pasted), cwd=str(pasted.parent), timeout=120))


FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _raised(path: Path, stderr: str) -> tuple[int | str, str]:
    """Where the run as pasted raised, as a line of the snippet itself (the pasted copy
    lacks the marker lines only the checks read), and what: the traceback's last
    frame in the pasted file, and the exception after the last frame."""
    lines = stderr.rstrip("\n").splitlines()
    line: int | str = "?"
    last_frame = -1
    copied = [n for n, _ in copied_lines(path.read_text("utf-8"))]
    for i, text in enumerate(lines):
        if m := FRAME.match(text):
            last_frame = i
            if m.group("file") == str(_pasted(path)) and int(m.group("line")) <= len(copied):
                line = copied[int(m.group("line")) - 1]
    rest = lines[last_frame + 1 :]
    while rest and rest[0].startswith((" ", "\t")):
        rest = rest[1:]  # the frame's source line and its ^^^^ markers
    return line, "\n".join(rest).strip() or stderr.strip()[-800:]


def fresh_problems(path: Path, child: Child) -> list[str]:
    """What is wrong with ``child``, the run of ``path`` as pasted (empty: nothing),
    each one message naming the snippet's own file and line."""
    shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    if child.timed_out:
        return [f"{shown}: did not finish in a fresh process:\n{child.stderr[-800:]}"]
    if child.returncode:
        line, raised = _raised(path, child.stderr)
        return [f"{shown}:{line}: failed in a fresh process: {raised}"]
    printed = normalise_device(child.stdout).splitlines()
    expected = expected_output_at(path.read_text("utf-8"))
    if printed == [text for _, text in expected]:
        return []
    # Name the first #> line the run disagrees with (or the last, if it printed more).
    pairs = zip(printed, expected, strict=False)
    first = next((i for i, (got, (_, want)) in enumerate(pairs) if got != want), None)
    first = min(len(printed), len(expected)) if first is None else first
    line = expected[min(first, len(expected) - 1)][0] if expected else "?"
    want = [text for _, text in expected[first : first + 3]]
    return [
        f"{shown}:{line}: printed {printed[first : first + 3]} in a fresh process "
        f"where the #> lines say {want}"
    ]
