"""A page's ``console`` fences: the commands a reader types to run a script, and what
each prints, run and compared.

Each ``$ `` line is a command of ``train.py``: ``python train.py ARGS``,
``torchrun --nproc-per-node N train.py ARGS``, or a ``torchrun`` with more of its
options (``--max-restarts``, the c10d rendezvous) and, before it, environment
variables (``VAR=value torchrun ...``). The lines under a command are what it
prints. The commands of one fence run in order in one folder (a resume reads the
checkpoint the command above it wrote), with the script as a reader downloads it.
A plain command runs in the forked ranks of :mod:`sitelib.check.complete`; one with
more ``torchrun`` options runs under the real ``torchrun``
(:mod:`sitelib.check.elastic`), as it must to restart, with the page's environment
and a free port in place of the page's.

Every printed line is compared exactly, but for the samples per second, which a page
shows as ``… samples/s`` (:data:`THROUGHPUT`), and ``--help``, compared by the
options it lists (argparse's layout changes with Python and the terminal's width).
"""

from __future__ import annotations

import re
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sitelib.check.complete import SCRIPT, RunFailed, run
from sitelib.check.elastic import launch
from sitelib.check.processes import ProcessServer
from sitelib.site.layout import ROOT, chapters_of, includes, snippet_name
from sitelib.site.markdown_scan import fences
from sitelib.site.snippets import as_copied

PROMPT = "$ "
HELP = "--help"
OPTION = re.compile(r"(?<![\w-])--[a-z][\w-]*")
VARIABLE = re.compile(r"^[A-Z_][A-Z0-9_]*=")
# torchrun's options a page may give, with a value each; any other is refused.
TORCHRUN = ("--nproc-per-node", "--max-restarts", "--rdzv-backend", "--rdzv-endpoint")
# The one thing a page's output may leave out: how fast it ran, "… samples/s".
THROUGHPUT = "… samples/s"


@dataclass
class Command:
    line: int  # 1-based, in the page
    argv: list[str]
    nproc: int
    output: list[str]
    torchrun: dict[str, str] = field(default_factory=dict)  # its other options
    env: dict[str, str] = field(default_factory=dict)

    @property
    def is_help(self) -> bool:
        return HELP in self.argv

    @property
    def restarts(self) -> int:
        return int(self.torchrun.get("--max-restarts", 0))


def parse_command(text: str) -> Command:
    """``python train.py ARGS``, or ``[VAR=value ...] torchrun OPTIONS train.py
    ARGS`` (the ``line`` and ``output`` are the caller's to fill)."""
    words = shlex.split(text)
    env = {}
    while words and VARIABLE.match(words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    if words[:2] == ["python", "train.py"] and not env:
        return Command(0, words[2:], 1, [])
    if words[:1] == ["torchrun"] and "train.py" in words:
        at = words.index("train.py")
        options = words[1:at]
        pairs = dict(zip(options[::2], options[1::2], strict=False))
        nproc = pairs.pop("--nproc-per-node", "")
        known = len(options) % 2 == 0 and set(pairs) <= set(TORCHRUN) and nproc.isdigit()
        if known and (not pairs or pairs.get("--rdzv-backend") == "c10d"):
            return Command(0, words[at + 1 :], int(nproc), [], pairs, env)
    raise ValueError(f"not a command of train.py: {text!r}")


def console_blocks(page: Path) -> list[list[Command]]:
    """The page's ``console`` fences, each as its commands (``$ ...`` lines, and the
    lines that follow one ending in a backslash, as a shell reads them) and the
    lines under each, which are what it prints."""
    blocks = []
    for fence in fences(page.read_text("utf-8")):
        if fence.language != "console":
            continue
        commands: list[Command] = []
        typed, start = [], 0  # the lines of a command so far, and its first line
        for number, line in enumerate(fence.lines, fence.start + 1):
            if typed:  # the line after one ending in a backslash goes on with it
                typed.append(line.strip())
            elif line.startswith(PROMPT):
                typed, start = [line[len(PROMPT) :]], number
            elif commands and line.strip():
                commands[-1].output.append(line)
            if typed and typed[-1].endswith("\\"):
                typed[-1] = typed[-1][:-1].rstrip()
            elif typed:
                command = parse_command(" ".join(typed))
                command.line = start
                commands.append(command)
                typed = []
        if typed:
            raise ValueError(f"line {start}: the command goes on past the fence's end")
        blocks.append(commands)
    return blocks


def shown_line(line: str) -> re.Pattern:
    """A line as a page shows it, to match what was printed: exactly, but for the
    placeholder of the samples per second, which matches any count."""
    parts = [re.escape(part) for part in line.split(THROUGHPUT)]
    return re.compile(r"[\d,]+ samples/s".join(parts))


def output_problems(cmd: Command, printed: list[str], where: str) -> list[str]:
    """A command's shown output against what it printed (see the module's doc)."""
    if cmd.is_help:
        shown, real = (
            set(OPTION.findall("\n".join(cmd.output))),
            set(OPTION.findall("\n".join(printed))),
        )
        if shown != real:
            return [f"{where}: --help lists {sorted(real)}, the page shows {sorted(shown)}"]
        return []
    same = len(printed) == len(cmd.output) and all(
        shown_line(s).fullmatch(p) for s, p in zip(cmd.output, printed, strict=True)
    )
    if not same:
        diff = "\n".join(f"    printed: {p}" for p in printed)
        return [f"{where}: printed differs from the page's lines:\n{diff}"]
    return []


def printed_by(server: ProcessServer, cmd: Command, folder: Path, script: Path) -> list[str]:
    """What rank 0 printed, the command run as its page writes it."""
    if cmd.torchrun or cmd.env:  # torchrun's own restarts: the real one
        done = launch(
            cmd.argv,
            nproc=cmd.nproc,
            cwd=folder,
            restarts=cmd.restarts,
            script=script,
            env=cmd.env,
            report=False,
        )
        return done.stdout
    return run(server, cmd.argv, nproc=cmd.nproc, cwd=folder, script=script, report=False).stdout


def console_problems(server: ProcessServer, page: Path, script: Path = SCRIPT) -> list[str]:
    """Run every console fence of ``page``, its commands in order in one folder, and
    compare. What runs is the script as a reader downloads it (without the marker
    comments only the checks read), as ``train.py`` in that folder."""
    shown = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)
    problems = []
    for block in console_blocks(page):
        with tempfile.TemporaryDirectory(prefix="sitelib-console-") as folder:
            copied = Path(folder) / "train.py"
            copied.write_text(as_copied(script.read_text("utf-8")), "utf-8")
            for cmd in block:
                where = f"{shown}:{cmd.line}"
                try:
                    printed = printed_by(server, cmd, Path(folder), copied)
                except RunFailed as exc:
                    problems.append(f"{where}: {exc}")
                    break
                problems += output_problems(cmd, printed, where)
    return problems


def run_script_example(example, device: str, server: ProcessServer) -> None:
    """The check of a script (``# script:``) as tests/test_examples.py runs it: every
    command the pages that show it run (``console`` fences), compared with their lines.
    Those pages: the ones that include it, and every page of its chapter (a chapter's
    sub-page may show the commands without an excerpt).
    On CUDA the printed losses differ in their last digits: the commands are checked
    on the CPU (tests/test_complete.py runs the combinations on either)."""
    from sitelib.check.examples import display_path
    from sitelib.check.outcomes import ExampleFailure, Skipped

    shown = display_path(example)
    if device != "cpu":
        raise Skipped(f"{shown}: its page's commands print CPU numbers; checked on the CPU")
    name = snippet_name(Path(example.path))
    pages = dict.fromkeys(
        [
            *(ROOT / i.page for i in includes() if i.path == name),
            *(ROOT / "docs" / page for c in chapters_of([name]) for page in c.pages),
        ]
    )
    shown_on = [page for page in pages if console_blocks(page)]
    if not shown_on:
        raise ExampleFailure(f"{shown}: a script, but no page shows a command that runs it")
    problems = [p for page in shown_on for p in console_problems(server, page, Path(example.path))]
    if problems:
        raise ExampleFailure("\n".join(problems))
