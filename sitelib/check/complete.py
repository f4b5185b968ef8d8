"""The whole-step script (``snippets/complete/train.py``) run as a reader runs it.

``python train.py ARGS`` is one process; ``torchrun --nproc-per-node N train.py ARGS``
is N, each with torchrun's environment (:func:`sitelib.check.launch.rank_envs`, on
loopback). Every process is forked from a process server
(:mod:`sitelib.check.processes`: torch imported once), runs the script as
``__main__`` with that command line, and is stopped with the others when one fails
or the whole run overruns its timeout: a crash or a hang names the rank and the
script's line, and leaves no process behind.

The script writes its final numbers with ``--report-json``; the tests compare runs
(tests/test_complete.py). A page shows commands and what they print as ``console``
fences (:func:`console_blocks`); :func:`console_problems` runs them and compares.
"""

from __future__ import annotations

import ast
import json
import os
import re
import runpy
import shlex
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from sitelib.check.launch import _stack, free_port, rank_envs, without_library_logs
from sitelib.check.processes import Child, ProcessServer, Request
from sitelib.site.layout import INCLUDE, ROOT, chapters_of, includes, snippet_name
from sitelib.site.markdown_scan import fences
from sitelib.site.snippets import as_copied

SCRIPT = ROOT / "snippets" / "complete" / "train.py"
TIMEOUT = 120.0  # seconds for all ranks of one run


class RunFailed(AssertionError):
    """A run of the script that crashed, hung or printed on a rank other than 0."""


def run_script(script: str, argv: str) -> None:
    """In a forked process: ``python script *argv`` (``argv`` as JSON)."""
    sys.argv = [script, *json.loads(argv)]
    sys.path[0] = str(Path(script).parent)
    try:
        runpy.run_path(script, run_name="__main__")
    except BaseException:  # when it raised: the first rank to fail is named first
        Path(os.environ["SITELIB_FAILED_AT"]).write_text(repr(time.time()), "utf-8")
        raise


@dataclass
class Run:
    children: list[Child]
    report: dict | None  # what --report-json wrote (None without it)

    @property
    def stdout(self) -> list[str]:
        """What rank 0 printed, without torch's own log lines."""
        return without_library_logs(self.children[0].stdout)


def run(
    server: ProcessServer,
    argv: list[str],
    *,
    nproc: int = 1,
    cwd: Path | None = None,
    script: Path = SCRIPT,
    report: bool = True,
    timeout: float = TIMEOUT,
) -> Run:
    """``python script *argv`` (``nproc`` 1) or its torchrun form; RunFailed when a
    rank failed, hung, or printed (only rank 0 prints)."""
    with tempfile.TemporaryDirectory(prefix="sitelib-complete-") as folder:
        path = Path(folder) / "report.json"
        args = [*argv, "--report-json", str(path)] if report else list(argv)
        envs = rank_envs(nproc, free_port()) if nproc > 1 else [{"OMP_NUM_THREADS": "1"}]
        request = Request(
            call=run_script,
            args=[str(script), json.dumps(args)],
            cwd=str(cwd or folder),
            envs=[
                {**env, "TMPDIR": folder, "SITELIB_FAILED_AT": f"{folder}/failed{r}"}
                for r, env in enumerate(envs)
            ],
            timeout=timeout,
        )
        children = server.run(request)
        failed_at = {
            r: float(p.read_text("utf-8"))
            for r in range(nproc)
            if (p := Path(folder) / f"failed{r}").exists()
        }
        shown = command(argv, nproc)
        if problems := rank_problems(children, script, shown, timeout, failed_at):
            raise RunFailed("\n".join(problems))
        data = json.loads(path.read_text("utf-8")) if report else None
    return Run(children, data)


def command(argv: list[str], nproc: int) -> str:
    launcher = "python" if nproc == 1 else f"torchrun --nproc-per-node {nproc}"
    return shlex.join([*launcher.split(), "train.py", *argv])


def _where(child: Child, name: str) -> str:
    """The script's innermost line in the stack a rank printed: a Python traceback's
    last (a crash), faulthandler's first (a hang: most recent call first)."""
    lines = re.findall(rf'File "[^"]*{re.escape(name)}", line (\d+)', child.stderr)
    if not lines:
        return name
    return f"{name}:{lines[0] if child.timed_out else lines[-1]}"


def rank_problems(
    children: list[Child],
    script: Path,
    shown: str,
    timeout: float,
    failed_at: dict[int, float] | None = None,
) -> list[str]:
    """Each rank's crash, hang or stray output, the first to fail first, naming the
    rank and the script's line (the others usually failed because of it)."""
    name = script.name
    failed = sorted(
        (r for r, c in enumerate(children) if c.returncode not in (0, None)),
        key=lambda r: (failed_at or {}).get(r, children[r].started + children[r].seconds),
    )
    order = failed + [r for r in range(len(children)) if r not in failed]
    problems = []
    for r in order:
        child = children[r]
        where = _where(child, name)
        if child.timed_out and failed:
            problems.append(
                f"rank {r}: stopped at {where} after rank {failed[0]} failed (it was waiting)"
            )
        elif child.timed_out:
            problems.append(
                f"rank {r}: did not finish within {timeout:.0f} s; it was at {where}\n"
                + _stack(child.stderr, script)
            )
        elif child.returncode:
            problems.append(
                f"rank {r}: exited with status {child.returncode} at {where}\n"
                + textwrap.indent(child.stderr.strip()[-1500:], "    ")
            )
        elif r and (stray := without_library_logs(child.stdout)):
            printed = textwrap.indent("\n".join(stray)[:1000], "    ")
            problems.append(f"rank {r}: printed; only rank 0 prints:\n{printed}")
    return [f"{shown}: {p}" for p in problems]


# -- console fences: commands and what they print -----------------------------------
PROMPT = "$ "
HELP = "--help"
OPTION = re.compile(r"(?<![\w-])--[a-z][\w-]*")


@dataclass
class Command:
    line: int  # 1-based, in the page
    argv: list[str]
    nproc: int
    output: list[str]

    @property
    def is_help(self) -> bool:
        return HELP in self.argv


def parse_command(text: str) -> tuple[list[str], int]:
    """``python train.py ARGS`` or ``torchrun --nproc-per-node N train.py ARGS``."""
    words = shlex.split(text)
    if words[:2] == ["python", "train.py"]:
        return words[2:], 1
    if words[:1] == ["torchrun"] and len(words) > 3 and words[3] == "train.py":
        m = re.fullmatch(r"--nproc[-_]per[-_]node", words[1])
        if m and words[2].isdigit():
            return words[4:], int(words[2])
    raise ValueError(f"not a command of train.py: {text!r}")


def console_blocks(page: Path) -> list[list[Command]]:
    """The page's ``console`` fences, each as its commands (``$ ...`` lines) and the
    lines under each, which are what it prints."""
    blocks = []
    for fence in fences(page.read_text("utf-8")):
        if fence.language != "console":
            continue
        commands: list[Command] = []
        for number, line in enumerate(fence.lines, fence.start + 1):
            if line.startswith(PROMPT):
                argv, nproc = parse_command(line[len(PROMPT) :])
                commands.append(Command(number, argv, nproc, []))
            elif commands and line.strip():
                commands[-1].output.append(line)
        blocks.append(commands)
    return blocks


def output_problems(cmd: Command, printed: list[str], where: str) -> list[str]:
    """A command's shown output against what it printed. ``--help`` is compared by
    the options it lists (argparse's layout changes with Python and the terminal's
    width); every other line is compared exactly."""
    if cmd.is_help:
        shown, real = (
            set(OPTION.findall("\n".join(cmd.output))),
            set(OPTION.findall("\n".join(printed))),
        )
        if shown != real:
            return [f"{where}: --help lists {sorted(real)}, the page shows {sorted(shown)}"]
        return []
    if printed != cmd.output:
        diff = "\n".join(f"    printed: {p}" for p in printed)
        return [f"{where}: printed differs from the page's lines:\n{diff}"]
    return []


def console_problems(server: ProcessServer, page: Path, script: Path = SCRIPT) -> list[str]:
    """Run every console fence of ``page``, its commands in order in one folder (a
    resume reads the checkpoint the command above it wrote), and compare. What runs
    is the script as a reader downloads it (without the marker comments only the
    checks read), as ``train.py`` in that folder."""
    shown = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)
    problems = []
    for block in console_blocks(page):
        with tempfile.TemporaryDirectory(prefix="sitelib-console-") as folder:
            copied = Path(folder) / "train.py"
            copied.write_text(as_copied(script.read_text("utf-8")), "utf-8")
            for cmd in block:
                where = f"{shown}:{cmd.line}"
                try:
                    result = run(
                        server,
                        cmd.argv,
                        nproc=cmd.nproc,
                        cwd=Path(folder),
                        script=copied,
                        report=False,
                    )
                except RunFailed as exc:
                    problems.append(f"{where}: {exc}")
                    break
                problems += output_problems(cmd, result.stdout, where)
    return problems


# -- what a run must show, and what two runs must share --------------------------------
def max_difference(a: Run, b: Run) -> float:
    """The largest difference between two runs' final parameters."""
    pa, pb = a.report["params"], b.report["params"]
    if len(pa) != len(pb):
        return float("inf")
    return max((abs(x - y) for x, y in zip(pa, pb, strict=True)), default=0.0)


def same_model_problems(a: Run, b: Run, what: str, atol: float) -> list[str]:
    """``a`` and ``b`` end with the same parameters, within ``atol`` (0: bit for bit)."""
    diff = max_difference(a, b)
    if (atol == 0 and a.report["params"] != b.report["params"]) or diff > atol:
        bound = "bit for bit" if atol == 0 else f"within {atol:g}"
        return [f"{what}: the parameters differ by up to {diff:.3g}, not {bound}"]
    return []


def loss_falls_problems(r: Run, what: str, factor: float = 0.8) -> list[str]:
    """The mean loss of the last five steps is below ``factor`` times the first
    five's (the non-finite ones left out)."""
    finite = [x for x in r.report["losses"] if x == x and abs(x) != float("inf")]
    first, last = sum(finite[:5]) / 5, sum(finite[-5:]) / 5
    if not last < factor * first:
        return [f"{what}: the loss went from {first:.3f} to {last:.3f}, not below {factor}x"]
    return []


def skipped_problems(r: Run, what: str, steps: list[int], ranks: int) -> list[str]:
    """Exactly ``steps`` were skipped, on every rank, and the replicas stayed equal."""
    problems = []
    if r.report["skipped"] != [steps] * ranks:
        problems.append(f"{what}: skipped {r.report['skipped']} (per rank), not {steps}")
    if not r.report["replicas_equal"]:
        problems.append(f"{what}: the ranks' parameters differ")
    return problems


def resume_problems(full: Run, resumed: Run, at: int, what: str) -> list[str]:
    """The resumed run is the rest of the full one: the same losses from step ``at``
    on, the same parameters, learning rate, loss scale and evaluation, bit for bit."""
    problems = same_model_problems(full, resumed, what, 0)
    for key in ("lr", "scale", "eval"):
        if full.report[key] != resumed.report[key]:
            problems.append(
                f"{what}: {key} {resumed.report[key]} after the resume, "
                f"{full.report[key]} without it"
            )
    if resumed.report["losses"] != full.report["losses"][at:]:
        problems.append(f"{what}: the losses after step {at} differ")
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


# -- excerpts: a line range of a tested file, labelled with it ------------------------
EXCERPT_LABEL = "{name}, lines {start}–{end}"


@dataclass
class Excerpt:
    line: int  # the fence's, 1-based, in the page
    path: str  # the snippet, relative to snippets/
    start: int
    end: int
    title: str | None

    @property
    def label(self) -> str:
        return EXCERPT_LABEL.format(name=Path(self.path).name, start=self.start, end=self.end)


def excerpts(page: Path) -> list[Excerpt]:
    """The page's fences that show a line range of a snippet (``"x.py:40:58"``)."""
    found = []
    for fence in fences(page.read_text("utf-8")):
        lines = [line for line in fence.lines if line.strip()]
        m = INCLUDE.match(lines[0]) if len(lines) == 1 else None
        if m and m.group("lines") and not m.group("escaped"):
            start, _, end = m.group("lines").partition(":")
            found.append(
                Excerpt(
                    fence.start,
                    m.group("path"),
                    int(start),
                    int(end or start),
                    fence.option("title"),
                )
            )
    return found


def _statement_spans(source: str) -> list[tuple[int, int]]:
    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt):
            decorators = getattr(node, "decorator_list", [])
            first = min([node.lineno, *(d.lineno for d in decorators)])
            spans.append((first, node.end_lineno))
    return spans


def excerpt_problems(page: Path, root: Path = ROOT) -> list[str]:
    """Each excerpt is labelled with the range it includes (``train.py, lines 40–58``),
    and the range starts where a statement starts and ends where one ends, cutting
    none that began above it (it may stop inside a loop, after a whole statement of
    its body): an edit of the file that shifts the range lands on a blank line or
    mid-statement and fails here, instead of showing other lines under the label."""
    shown = page.relative_to(root).as_posix() if page.is_relative_to(root) else str(page)
    problems = []
    for ex in excerpts(page):
        where = f"{shown}:{ex.line}"
        if ex.title != ex.label:
            problems.append(f"{where}: the excerpt is labelled {ex.title!r}, not {ex.label!r}")
        source = (root / "snippets" / ex.path).read_text("utf-8")
        lines = source.splitlines()
        if not 1 <= ex.start <= ex.end <= len(lines):
            problems.append(f"{where}: lines {ex.start}-{ex.end} are not in {ex.path}")
            continue
        if not (lines[ex.start - 1].strip() and lines[ex.end - 1].strip()):
            problems.append(f"{where}: lines {ex.start}-{ex.end} start or end on a blank line")
        spans = _statement_spans(source)
        if not any(first == ex.start for first, _ in spans):
            problems.append(f"{where}: line {ex.start} of {ex.path} starts no statement")
        if not any(last == ex.end for _, last in spans):
            problems.append(f"{where}: line {ex.end} of {ex.path} ends no statement")
        for first, last in spans:  # begun above the excerpt, ended inside it
            if first < ex.start <= last < ex.end:
                problems.append(
                    f"{where}: lines {ex.start}-{ex.end} cut the statement on lines "
                    f"{first}-{last} of {ex.path}"
                )
                break
    return problems


def rendered_excerpt_problems(page: Path, html: str, root: Path = ROOT) -> list[str]:
    """In the built page, each excerpt's block shows exactly its lines of the file
    (dedented, as pymdownx.snippets includes a range), under its label."""
    import textwrap as tw

    from sitelib.site.layout import html_text

    shown = page.relative_to(root).as_posix() if page.is_relative_to(root) else str(page)
    problems = []
    for ex in excerpts(page):
        m = re.search(
            rf'<span class="filename">{re.escape(ex.label)}</span><pre\b[^>]*>.*?<code>(.*?)</code>',
            html,
            re.S,
        )
        lines = (root / "snippets" / ex.path).read_text("utf-8").splitlines()
        expected = tw.dedent("\n".join(lines[ex.start - 1 : ex.end]))
        if not m:
            problems.append(f"{shown}:{ex.line}: no block labelled {ex.label!r} in the site")
        elif html_text(m.group(1)).rstrip("\n") != expected:
            problems.append(
                f"{shown}:{ex.line}: the block labelled {ex.label!r} shows "
                "other text than those lines"
            )
    return problems
