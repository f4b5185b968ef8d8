"""The whole-step script (``snippets/complete/train.py``) run as a reader runs it.

``python train.py ARGS`` is one process; ``torchrun --nproc-per-node N train.py ARGS``
is N, each with torchrun's environment (:func:`sitelib.check.launch.rank_envs`, on
loopback). Every process is forked from a process server
(:mod:`sitelib.check.processes`: torch imported once), runs the script as
``__main__`` with that command line, and is stopped with the others when one fails
or the whole run overruns its timeout: a crash or a hang names the rank and the
script's line, and leaves no process behind.

The script writes its final numbers with ``--report-json``; the tests compare runs
(tests/test_complete.py). The commands a page shows are run by
:mod:`sitelib.check.console`; runs under the real ``torchrun``, with restarts and
several nodes, by :mod:`sitelib.check.elastic`.
"""

from __future__ import annotations

import ast
import contextlib
import json
import math
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
from unittest import mock

from sitelib.check.launch import _stack, free_port, rank_envs, without_library_logs
from sitelib.check.processes import Child, ProcessServer, Request
from sitelib.site.layout import INCLUDE, ROOT
from sitelib.site.markdown_scan import fences

SCRIPT = ROOT / "snippets" / "complete" / "train.py"
TIMEOUT = 120.0  # seconds for all ranks of one run


class RunFailed(AssertionError):
    """A run of the script that crashed, hung or printed on a rank other than 0."""


def run_script(script: str, argv: str) -> None:
    """In a forked process: ``python script *argv`` (``argv`` as JSON). With
    ``SITELIB_COLLECTIVES`` set, the reductions each ``backward()`` ran are counted
    (:func:`counting_collectives`)."""
    sys.argv = [script, *json.loads(argv)]
    sys.path[0] = str(Path(script).parent)
    counts = os.environ.get("SITELIB_COLLECTIVES")
    try:
        with counting_collectives(counts) if counts else contextlib.nullcontext():
            runpy.run_path(script, run_name="__main__")
    except BaseException:  # when it raised: the first rank to fail is named first
        Path(os.environ["SITELIB_FAILED_AT"]).write_text(repr(time.time()), "utf-8")
        raise


# The collectives that reduce gradients: DDP's bucket all-reduces, FSDP2's
# reduce-scatters (c10d's operator names, as the profiler records each call).
REDUCTIONS = re.compile(r"^c10d::(?:allreduce|_?reduce_scatter)")


@contextlib.contextmanager
def counting_collectives(out: str):
    """Count, in this rank, the reductions that run inside ``backward()``: torch's
    profiler records every c10d call, and each backward is marked. And count the
    calls of ``DTensor.full_tensor()`` that gather more than one value, each a whole
    tensor onto every rank (a scalar, such as the global gradient norm, is no model).
    The script reports nothing of it; ``out`` gets ``{"backward": n, "reductions":
    m, "full_tensor": k}`` as JSON."""
    import torch
    from torch.distributed.tensor import DTensor

    gathered = []

    def counted(original):
        def full_tensor(self, *args, **kwargs):
            whole = original(self, *args, **kwargs)
            if whole.numel() > 1:
                gathered.append(whole.numel())
            return whole

        return full_tensor

    def marked(original):
        def backward(*args, **kwargs):
            with torch.profiler.record_function("sitelib.backward"):
                return original(*args, **kwargs)

        return backward

    cpu = [torch.profiler.ProfilerActivity.CPU]
    try:
        with (
            mock.patch.object(torch.Tensor, "backward", marked(torch.Tensor.backward)),
            mock.patch.object(DTensor, "full_tensor", counted(DTensor.full_tensor)),
            torch.profiler.profile(activities=cpu, acc_events=True) as prof,
        ):
            yield
    finally:
        events = prof.events()
        spans = [e.time_range for e in events if e.name == "sitelib.backward"]
        inside = [
            e
            for e in events
            if REDUCTIONS.match(e.name)
            and any(s.start <= e.time_range.start <= s.end for s in spans)
        ]
        counts = {"backward": len(spans), "reductions": len(inside), "full_tensor": len(gathered)}
        Path(out).write_text(json.dumps(counts), "utf-8")


def adapted(section: Path, script: Path = SCRIPT) -> str:
    """``script`` with its model-and-data section (from the line that opens it to the
    line that opens the training step) replaced by ``section``'s text: the reader's
    adaptation, the rest byte for byte the same."""
    source = script.read_text("utf-8")
    start, end = source.index(SECTION_OPENS), source.index(STEP_OPENS)
    return source[:start] + section.read_text("utf-8") + source[end:]


def broken(tmp: Path, old: str, new: str, source: str | None = None) -> Path:
    """``tmp/train.py``: the script (or ``source``) with ``old``, which must occur in
    it once, replaced by ``new``: a self-test's broken copy."""
    source = SCRIPT.read_text("utf-8") if source is None else source
    assert source.count(old) == 1, old
    path = tmp / "train.py"
    path.write_text(source.replace(old, new), "utf-8")
    return path


SECTION_OPENS = "# ---- Your model and data"
STEP_OPENS = "# ---- The training step"


@dataclass
class Run:
    children: list[Child]
    report: dict | None  # what --report-json wrote (None without it)
    collectives: list[dict] | None = None  # per rank, when counted

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
    count: bool = False,
    env: dict[str, str] | None = None,
) -> Run:
    """``python script *argv`` (``nproc`` 1) or its torchrun form; RunFailed when a
    rank failed, hung, or printed (only rank 0 prints). ``count``: each rank's
    reductions in ``backward()`` too; ``env``: more environment for every rank."""
    with tempfile.TemporaryDirectory(prefix="sitelib-complete-") as folder:
        path = Path(folder) / "report.json"
        args = [*argv, "--report-json", str(path)] if report else list(argv)
        envs = rank_envs(nproc, free_port()) if nproc > 1 else [{"OMP_NUM_THREADS": "1"}]
        request = Request(
            call=run_script,
            args=[str(script), json.dumps(args)],
            cwd=str(cwd or folder),
            envs=[
                {
                    **rank_env,
                    **(env or {}),
                    "TMPDIR": folder,
                    "SITELIB_FAILED_AT": f"{folder}/failed{r}",
                    **({"SITELIB_COLLECTIVES": f"{folder}/counts{r}.json"} if count else {}),
                }
                for r, rank_env in enumerate(envs)
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
        counts = (
            [json.loads((Path(folder) / f"counts{r}.json").read_text()) for r in range(nproc)]
            if count
            else None
        )
    return Run(children, data, counts)


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


def evaluation_problems(r: Run, what: str) -> list[str]:
    """Each evaluation the run printed is a finite loss and an accuracy in [0, 1]."""
    problems = []
    for step, loss, accuracy in r.report["evals"]:
        if not (math.isfinite(loss) and 0 <= accuracy <= 1):
            problems.append(f"{what}: evaluation at step {step}: loss {loss}, accuracy {accuracy}")
    return problems


def reference_evaluation(r: Run, argv: list[str], script: Path = SCRIPT) -> tuple[float, float]:
    """The run's final model evaluated here, in one process, on the whole validation
    set, sample by sample: the script's own model and data (``make_model``,
    ``make_data``), its final parameters and buffers from the report."""
    import importlib.util

    import torch
    import torch.nn.functional as F

    spec = importlib.util.spec_from_file_location("train_reference", script)
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    kept, words = [], iter(argv)  # what decides the model and data
    for word in words:
        if word == "--resume":
            next(words)  # a file of the run's folder
        elif word != "--fsdp":  # needs torchrun's environment
            kept.append(word)
    args = train.parse_args(kept)
    net = train.make_model(args)
    values = torch.tensor(r.report["params"])
    tensors = [*net.parameters(), *net.buffers()]
    with torch.no_grad():
        for t in tensors:
            t.copy_(values[: t.numel()].reshape(t.shape).to(t.dtype))
            values = values[t.numel() :]
    net.eval()
    _, val_set = train.make_data(args)
    loss = correct = 0.0
    with torch.no_grad():
        for i in range(len(val_set)):
            x, y = val_set[i]
            logits = net(x.unsqueeze(0)).float()
            loss += F.cross_entropy(logits, torch.as_tensor(y).reshape(1)).item()
            correct += float(logits.argmax(dim=1).item() == int(y))
    return loss / len(val_set), correct / len(val_set)


def reference_problems(r: Run, argv: list[str], what: str, atol: float, script=SCRIPT):
    """The run's evaluation against :func:`reference_evaluation`: every sample
    counted once, whatever the world size and however the batches fall."""
    loss, accuracy = r.report["eval"]
    ref_loss, ref_accuracy = reference_evaluation(r, argv, script)
    if abs(loss - ref_loss) > atol or abs(accuracy - ref_accuracy) > atol:
        return [
            f"{what}: evaluated loss {loss:.6f}, accuracy {accuracy:.6f}; the model's, "
            f"sample by sample: {ref_loss:.6f}, {ref_accuracy:.6f}"
        ]
    return []


def collective_problems(once: Run, accumulated: Run, steps: int, what: str) -> list[str]:
    """Gradients are reduced once per optimizer step: a run of several micro-batches
    a step runs, in its ``backward()`` calls, the reductions of a run of one."""
    problems = []
    for rank, (a, b) in enumerate(zip(once.collectives, accumulated.collectives, strict=True)):
        if not a["reductions"]:
            problems.append(f"{what}: rank {rank} reduced nothing in backward()")
        elif b["reductions"] != a["reductions"]:
            problems.append(
                f"{what}: rank {rank} ran {b['reductions'] / steps:g} reductions a step over "
                f"{b['backward']} backward() calls, not {a['reductions'] / steps:g}: the "
                "micro-batches before the last communicate"
            )
    return problems


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
