"""`make bench`: the numbers quoted in CONTRIBUTING.md. Measures; asserts nothing.

Sections (each prints one block):
  quiet      the machine's load before measuring: figures from a busy machine say so
  edit       `make test` after a one-file edit (a snippet, a page, a two-rank snippet, the
             complete script), the rest reused, each run beside a bare `import torch`
  suite      `make test ALL=1` 3 times, each beside a bare `import torch`: wall time, the ratio,
             the machine's core-seconds, each worker's share, CPU time by kind of process
  cold       the suite with Inductor's compile cache emptied (what a clean clone pays)
  check      `make check FILE=...` for one example of each kind, against `import torch`
  page       `make check-page` (one page's browser checks, on a built site)
  compile    the compile chapter's examples, cold (empty Inductor cache) and warm
  harness    all snippets through the harness vs each single-process one as its own `python`
  checks     the snippets' run time with the shape/gradient checks vs without
  launched   the multi-process examples through the harness, and one under torchrun
  script     what `make test` runs of the complete script's newer checks, by group: the
             model and data (collectives, evaluation, second model) and the checkpoints
             at scale (killed rank, reshard, resume auto, gather count, DCP examples)
  build      `mkdocs build` cold (first build, empty caches) and warm (second)
  serve      `make serve`: from saving a snippet or a page to the served page showing it
  torch      forward time under no_grad, inference_mode and with a graph recorded
  memory     the memory a list of `loss` tensors keeps alive vs a list of `loss.item()`
  lighthouse Lighthouse 12.2.3 scores and page weight of the home page and each chapter
Run one section with `make bench ARGS=harness` (several: ARGS="harness build");
`ARGS="quiet suite edit check --write"` also writes what it measured into
CONTRIBUTING.md's measurements table, between its `<!-- bench -->` markers.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sitelib.check.shapes import ShapeChecker
from sitelib.site.layout import ROOT, chapters, snippet_files
from sitelib.site.snippets import launch_command, requires_cuda
from sitelib.site.torch_state import torch_state_restored

BIN = Path(sys.executable).parent
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]  # as `make test`, quieter
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1", CUDA_VISIBLE_DEVICES="", GLOO_SOCKET_IFNAME="lo")


def timed(cmd: list[str], **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, env=ENV, capture_output=True, text=True, **kwargs)
    return time.perf_counter() - start, result


def quiet() -> bool:
    """How busy the machine is before a measurement: the cores in use over one second,
    from /proc/stat (the load average is printed too, but on this VM it stays near 3
    while the cores are idle, so it does not decide)."""
    load = Path("/proc/loadavg").read_text().split()[:3]
    before = _busy_ticks()
    busy = _cpu_of_others(1.0)
    in_use = (_busy_ticks() - before) / os.sysconf("SC_CLK_TCK")
    cores = os.cpu_count() or 1
    ok = in_use < 0.2 and busy < 0.2
    state = "quiet" if ok else "BUSY: figures below are inflated"
    print(
        f"quiet: {in_use:.2f} of {cores} cores in use over 1 s (other processes: {busy:.2f}); "
        f"load average {', '.join(load)}: {state}"
    )
    return ok


def _busy_ticks() -> int:
    """Ticks all cores spent not idle (user, nice, system, irq, softirq, steal)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # minus idle and iowait


def _cpu_times() -> dict[int, tuple[float, str, int]]:
    """pid -> (CPU seconds used so far, command line, parent pid), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        found[int(entry.name)] = ((int(fields[11]) + int(fields[12])) / ticks, cmd, int(fields[1]))
    return found


def _cpu_of_others(seconds: float) -> float:
    mine = os.getpid()
    before = _cpu_times()
    time.sleep(seconds)
    after = _cpu_times()
    used = sum(t - before[p][0] for p, (t, _, _) in after.items() if p in before and p != mine)
    return used / seconds


KINDS = [  # (kind, pattern in a process's command line), first match wins
    ("Chromium", "chromium"),
    ("Playwright's driver", "playwright"),
    ("mkdocs builds", "mkdocs"),
    ("Zensical", "zensical"),
    ("process servers and their forks", "sitelib.check.processes"),
    ("notebook kernels", "ipykernel"),
    ("the real torchrun", "torchrun"),
    ("pytest workers", "pytest"),
    ("pytest workers", "exec(eval(sys.stdin"),  # pytest-xdist's workers (execnet)
    ("ruff", "ruff"),
]


def _kind(cmd: str) -> str:
    return next((kind for kind, pattern in KINDS if pattern in cmd), "other")


@dataclass
class Measured:
    """One run of a command: its wall time, the whole machine's busy core-seconds over
    it (from /proc/stat, so short-lived processes count too), the sampled CPU time of
    its processes by kind, and per pytest-xdist worker the CPU time of its process and
    everything it started, and when the worker process itself last used the CPU (it
    idles once its tests are done: the balance)."""

    wall: float
    machine: float
    by_kind: dict[str, float]
    workers: dict[str, tuple[float, float]]  # gw0 -> (core-seconds, last busy, s after start)
    result: subprocess.CompletedProcess

    @property
    def sampled(self) -> float:
        return sum(self.by_kind.values())


def measured(cmd: list[str]) -> Measured:
    """Run ``cmd``, sampling /proc every 0.2 s for the CPU time of it and every process
    under it (a process that lives less than that is missed by the samples, not by the
    machine's total from /proc/stat)."""
    import threading

    seen: dict[int, tuple[float, str]] = {}
    worker_of: dict[int, str] = {}  # pid -> the xdist worker it descends from
    last_busy: dict[str, float] = {}
    done = threading.Event()
    ticks = os.sysconf("SC_CLK_TCK")
    machine_before = _busy_ticks()
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )

    def sample() -> None:
        while not done.is_set():
            table = _cpu_times()
            family = {proc.pid}
            for _ in range(8):  # descendants, a few generations deep
                family |= {p for p, (_, _, parent) in table.items() if parent in family}
            now = time.perf_counter() - start
            for pid in family & table.keys():
                used, cmdline, parent = table[pid]
                if parent == proc.pid and "exec(eval(sys.stdin" in cmdline:
                    # an xdist worker of this run (gw0, gw1 in order): a pytest that a
                    # test starts is its worker's, not a worker of its own
                    worker_of.setdefault(pid, f"gw{len(set(worker_of.values()))}")
                elif parent in worker_of:
                    worker_of[pid] = worker_of[parent]
                before = seen.get(pid, (0.0, ""))
                if pid in worker_of and parent == proc.pid and used > before[0]:
                    last_busy[worker_of[pid]] = now  # the worker itself ran: tests left
                seen[pid] = (used, cmdline or before[1])
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    machine = (_busy_ticks() - machine_before) / ticks
    done.set()
    sampler.join()
    by_kind: dict[str, float] = {}
    workers: dict[str, tuple[float, float]] = {}
    for pid, (used, cmdline) in seen.items():
        by_kind[_kind(cmdline)] = by_kind.get(_kind(cmdline), 0.0) + used
        if pid in worker_of:
            name = worker_of[pid]
            workers[name] = (workers.get(name, (0.0, 0.0))[0] + used, last_busy.get(name, 0.0))
    result = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    return Measured(wall, machine, by_kind, workers, result)


def bare_import() -> float:
    """A bare `python -c 'import torch'`, median of 3: the reference every time is
    divided by, since this machine's speed drifts 1.5x within an hour."""
    return statistics.median(timed([sys.executable, "-c", "import torch"])[0] for _ in range(3))


def suite(label: str = "suite", runs: int = 3) -> None:
    """The suite as `make test` runs it (two processes), ``runs`` times, each paired with
    a bare `import torch` timed just before it: wall time, the ratio to the import, the
    whole machine's core-seconds, the CPU time by kind of process, and each worker's
    share and when it was last busy (the balance). The median ratio is the figure."""
    cmd = [*PYTEST, "-n", "2", "--dist", "loadgroup", "--durations=12", "--run-all"]
    ratios = []
    for run in range(1, runs + 1):
        bare = bare_import()
        m = measured(cmd)
        lines = m.result.stdout.strip().splitlines()
        tail = lines[-1] if lines else "?"
        ratios.append(m.wall / bare)
        print(
            f"{label} {run}/{runs}: {m.wall:.1f} s wall for `make test` ({tail}); "
            f"import torch {bare:.2f} s beside it: {m.wall / bare:.0f}x"
        )
        # A run's figure counts only with its failures named: they may be what took
        # the time (or saved it).
        for line in (line for line in lines if line.startswith(("FAILED", "ERROR"))):
            print(f"  {line}")
        cores = os.cpu_count() or 1
        print(
            f"  machine: {m.machine:.0f} core-seconds busy ({m.machine / m.wall:.2f} of {cores} "
            f"cores on average); sampled in the suite's processes: {m.sampled:.0f} "
            f"(the rest: processes shorter than a sample, and anything else running)"
        )
        for name, (used, busy_until) in sorted(m.workers.items()):
            print(f"  worker {name}: {used:.0f} core-s, last busy {busy_until:.0f} s after start")
        for kind, used in sorted(m.by_kind.items(), key=lambda kv: -kv[1]):
            print(f"    {kind}: {used:.0f} core-s")
        if run == runs:
            slowest = [line for line in lines if re.match(r"^\d+\.\d+s (call|setup)", line)]
            print("\n".join(f"  {line}" for line in slowest))
    print(
        f"{label}: median {statistics.median(ratios):.0f}x a bare `import torch` over {runs} runs"
    )
    ROWS.append(
        (
            f"`make test ALL=1`, warm, every test run ({label})",
            f"median {statistics.median(ratios):.0f}x a bare `import torch` "
            f"({', '.join(f'{r:.0f}x' for r in ratios)})",
            "≤ 159x",
            'make bench ARGS="quiet suite"',
        )
    )


# What an author edits, and how: a comment line added at the end of the file, a
# different one on each run (each run then follows an edit; the outcome stays the same).
EDITS = {
    "a one-process snippet": ("snippets/forward_pass/call_vs_forward.py", "# bench edit {}\n"),
    "a page": ("docs/forward_pass/modes.md", "\n<!-- bench edit {} -->\n"),
    "a two-rank snippet": ("snippets/distributed/ddp_step.py", "# bench edit {}\n"),
    "the complete script": ("snippets/complete/train.py", "# bench edit {}\n"),
}


def edit(runs: int = 3) -> None:
    """`make test` after a one-file edit, reusing the results of everything the edit
    cannot affect (tests/reuse_plugin.py): for each kind of file, ``runs`` runs, each
    after its own edit and paired with a bare `import torch`. The store is filled first
    by a whole run; the file is put back afterwards, and the store filled again."""
    cmd = [*PYTEST, "-n", "2", "--dist", "loadgroup"]
    timed(cmd)  # the store, as the last run on this machine left it
    for what, (name, line) in EDITS.items():
        path = ROOT / name
        original = path.read_text("utf-8")
        ratios = []
        try:
            for run in range(1, runs + 1):
                path.write_text(original + line.format(run), "utf-8")
                bare = bare_import()
                seconds, result = timed(cmd)
                tail = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "?"
                reused = re.search(r"(\d+) results reused", result.stdout)
                ratios.append(seconds / bare)
                print(
                    f"edit of {what} ({name}) {run}/{runs}: {seconds:.1f} s ({tail}; "
                    f"{reused.group(1) if reused else 0} reused); import torch {bare:.2f} s: "
                    f"{seconds / bare:.0f}x"
                )
        finally:
            path.write_text(original, "utf-8")
        timed(cmd)  # the store as it was
        ROWS.append(
            (
                f"`make test` after an edit of {what} (`{name}`), the rest reused",
                f"median {statistics.median(ratios):.0f}x a bare `import torch` "
                f"({', '.join(f'{r:.0f}x' for r in ratios)})",
                "≤ 40x" if what in ("a one-process snippet", "a page") else "reported",
                'make bench ARGS="quiet edit"',
            )
        )


def cold() -> None:
    """The suite with Inductor's cache emptied: the compile chapter compiles afresh, as
    in a clean clone (the pip install is not counted; .ci/run's time in CONTRIBUTING.md is)."""
    shutil.rmtree(ROOT / ".cache" / "torchinductor", ignore_errors=True)
    suite("suite, Inductor's cache emptied", runs=1)


def check() -> None:
    """The author's loop: `make check FILE=...` for one example of each kind, against a
    bare `import torch` (median of 3, warm caches)."""
    bare = bare_import()
    print(f"check: a bare `python -c 'import torch'`: {bare:.1f} s")
    for name in (
        "forward_pass/call_vs_forward.py",
        "training_loop/complete_loop.py",
        "distributed/ddp_step.py",
        "compile/state_dict_prefix.py",
    ):
        cmd = ["make", "-s", "check", f"FILE=snippets/{name}"]
        runs = [timed(cmd) for _ in range(3)]
        seconds = statistics.median(r[0] for r in runs)
        verdict = runs[-1][1].stdout.strip().splitlines()[-1] if runs[-1][1].stdout.strip() else "?"
        print(
            f"  make check FILE=snippets/{name}: {seconds:.1f} s = {seconds / bare:.1f}x ({verdict})"
        )
        ROWS.append(
            (
                f"`make check FILE=snippets/{name}`",
                f"{seconds / bare:.1f}x a bare `import torch` (median of 3)",
                "≤ 3.0x",
                'make bench ARGS="quiet check"',
            )
        )


def page() -> None:
    """One page's browser checks against an existing build (`make check-page`)."""
    build_seconds, _ = timed(["make", "-s", "build"])
    seconds = statistics.median(
        timed(["make", "-s", "check-page", "PAGE=forward_pass/"])[0] for _ in range(3)
    )
    print(
        f"page: make check-page PAGE=forward_pass/: {seconds:.1f} s (after make build: {build_seconds:.1f} s)"
    )


def compile_chapter() -> None:
    """The compile chapter's examples, as the suite runs them (as written and as pasted),
    with Inductor's cache emptied and again warm."""
    cmd = [
        *PYTEST,
        "-n",
        "2",
        "tests/test_examples.py",
        "tests/test_fresh.py",
        "-k",
        "compile/",
    ]
    shutil.rmtree(ROOT / ".cache" / "torchinductor", ignore_errors=True)
    cold_run, warm = measured(cmd), measured(cmd)
    out = warm.result.stdout.strip()
    tail = out.splitlines()[-1] if out else "?"
    print(
        f"compile: the chapter's examples cold {cold_run.wall:.1f} s ({cold_run.machine:.0f} "
        f"core-s), warm {warm.wall:.1f} s ({warm.machine:.0f} core-s) ({tail})"
    )


def single_process_snippets() -> list[Path]:
    """Snippets that run as one plain `python` process on the CPU."""
    return [
        path
        for path in snippet_files()
        if not launch_command(text := path.read_text()) and not requires_cuda(text)
    ]


def harness() -> None:
    snippets = single_process_snippets()
    h_seconds, result = timed([*PYTEST, "tests/test_examples.py"])
    if result.returncode:
        print(result.stdout[-2000:])
    p_seconds = 0.0
    for path in snippets:
        seconds, run = timed([sys.executable, str(path)])
        if run.returncode:
            print(f"  {path.relative_to(ROOT)} failed as a process:\n{run.stderr[-1000:]}")
        p_seconds += seconds
    print(
        f"harness: {h_seconds:.1f} s for all {len(snippets)} snippets (+ page fences) through "
        f"pytest, lint included\n"
        f"processes: {p_seconds:.1f} s for each snippet as its own `python` process\n"
        f"ratio harness/processes: {h_seconds / p_seconds:.2f}; target <= 0.5"
    )


def launched() -> None:
    """The multi-process examples through the harness (ranks forked from the server)
    against one of them under the real `torchrun`."""
    cmd = [*PYTEST, "--durations=0"]
    seconds, result = timed([*cmd, "tests/test_examples.py", "-k", "distributed"])
    tail = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "?"
    runs = re.findall(r"^(\d+\.\d+)s call .*\[(distributed/[^\]]+)\]", result.stdout, re.M)
    print(f"launched: {seconds:.1f} s wall for the distributed chapter's examples ({tail})")
    for took, name in runs:
        print(f"  {name}: {took} s")
    path = ROOT / "tests" / "fixtures" / "launch" / "all_reduce.py"
    env_cmd = [str(BIN / "torchrun"), "--nproc-per-node", "2", "--master-addr", "127.0.0.1"]
    real, _ = timed([*env_cmd, "--master-port", "29577", str(path)])
    print(f"  one two-rank example under the real torchrun: {real:.1f} s")


# What `make test` runs of the complete script's newer checks, by group: the reader's
# model and data (issue 54), then checkpoints at scale (issue 55): the tests of the
# script, and the examples of docs/distributed/dcp.md through the harness and torchrun.
SCRIPT_TESTS = [
    (
        "tests/test_complete.py",
        "reduces_the_gradients or communicating or evaluation or second_model"
        " or section or skipped",
    ),
    ("tests/test_elastic.py", ""),
    (
        "tests/test_complete.py",
        "checkpoint or resume_auto or gathers or another_number_of_ranks",
    ),
    ("tests/test_examples.py tests/test_launch.py", "dcp_"),
]


def script() -> None:
    """Each group of tests as `make test` runs it (no results reused), against a bare
    `import torch` taken just before it."""
    for files, selection in SCRIPT_TESTS:
        bare = bare_import()
        cmd = [*PYTEST, "--run-all", *files.split()] + (["-k", selection] if selection else [])
        seconds, result = timed(cmd)
        tail = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "?"
        what = files + (f" -k '{selection}'" if selection else "")
        print(f"script: {what}: {seconds:.1f} s = {seconds / bare:.1f}x ({tail})")
        print(f"  a bare `python -c 'import torch'`: {bare:.1f} s")


def _run_once(code, path: Path, traced: bool) -> float:
    import torch

    torch.manual_seed(0)
    module = {"__name__": "__main__", "__file__": str(path)}
    start = time.perf_counter()
    # as the harness runs each: Dynamo's compiled code is dropped between runs (it
    # refers to the globals of the run that compiled it)
    with torch_state_restored(), contextlib.redirect_stdout(io.StringIO()):
        if not traced:
            exec(code, module)
        else:
            with ShapeChecker(path.read_text(), str(path), str(path)):
                exec(code, module)
    return time.perf_counter() - start


def checks() -> None:
    """The examples' tests with the checks against the same tests without them."""
    base = [
        *PYTEST,
        "tests/test_examples.py",
    ]
    runs = {"with": [], "without": []}
    for _ in range(3):
        runs["with"].append(timed(base)[0])
        runs["without"].append(timed([*base, "--bench-no-checks"])[0])
    with_, without = min(runs["with"]), min(runs["without"])
    # The same in-process, snippet bodies only: no pytest, no lint, no print capture.
    rows = []
    for path in single_process_snippets():
        code = compile(path.read_text(), str(path), "exec")
        _run_once(code, path, False)  # warm up imports and kernels
        plain = min(_run_once(code, path, False) for _ in range(7))
        checked = min(_run_once(code, path, True) for _ in range(7))
        rows.append((path.relative_to(ROOT / "snippets").as_posix(), plain, checked))
    total_plain = sum(r[1] for r in rows)
    total_checked = sum(r[2] for r in rows)
    slowest = max(rows, key=lambda r: r[2])
    print(
        f"checks: tests/test_examples.py takes {with_:.1f} s with the checks, {without:.1f} s "
        f"without (--bench-no-checks): +{100 * (with_ / without - 1):.0f}% (target < 50%)\n"
        f"  snippet bodies alone: {total_plain:.2f} s plain, {total_checked:.2f} s traced "
        f"(+{100 * (total_checked / total_plain - 1):.0f}%, a fixed ~{1000 * (total_checked - total_plain) / len(rows):.0f} ms per example)\n"
        f"slowest example: {slowest[0]} {slowest[2]:.2f} s (budget 5 s each)"
    )
    for name, _, seconds in rows:
        if seconds > 5:
            print(f"  OVER BUDGET: {name} {seconds:.1f} s")


def build() -> None:
    """Cold: no mkdocs-jupyter cache (notebooks are rendered with their committed
    outputs, never executed by the build). Warm: its conversion cache reused."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.rmtree(ROOT / ".cache" / "mkdocs-jupyter", ignore_errors=True)
        cmd = [str(BIN / "mkdocs"), "build", "--strict", "--site-dir", tmp]
        cold, result = timed(cmd)
        if result.returncode:
            print(result.stderr[-2000:])
        warm = statistics.median(timed(cmd)[0] for _ in range(3))
    notebooks = len(chapters())
    print(
        f"build: cold {cold:.1f} s ({notebooks} notebooks rendered, none executed), "
        f"warm {warm:.1f} s (median of 3)"
    )


def serve(runs: int = 3) -> None:
    """`make serve`: from saving a snippet (or a page) to the served page containing the
    change, polled over HTTP every 50 ms, against a bare `import torch` timed beside it;
    median of ``runs`` edits of each kind. The edit is a comment in the snippet (a
    sentence in the page) holding a fresh token; the file is put back afterwards."""
    import socket
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [str(BIN / "mkdocs"), "serve", "--dirty", "--dev-addr", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    log: list[str] = []
    import threading

    threading.Thread(target=lambda: log.extend(proc.stdout), daemon=True).start()
    base = f"http://127.0.0.1:{port}/training-step-docs/forward_pass/"

    def page_has(token: str) -> bool:
        try:
            with urllib.request.urlopen(base, timeout=5) as response:
                return token in response.read().decode()
        except OSError:
            return False

    # (path, how to edit its text): a comment at the snippet's end; a sentence before
    # the page's first section, where the page's rules allow one.
    edits = {
        "snippet": (
            ROOT / "snippets" / "forward_pass" / "call_vs_forward.py",
            lambda text, token: f"{text}\n# {token}\n",
        ),
        "page": (
            ROOT / "docs" / "forward_pass" / "index.md",
            lambda text, token: text.replace("\n## ", f"\nA sentence {token}.\n\n## ", 1),
        ),
    }
    try:
        deadline = time.time() + 300
        while not page_has("</html>") and time.time() < deadline:
            time.sleep(0.5)
        time.sleep(2)  # the first build's reload settles
        for kind, (path, edit) in edits.items():
            original = path.read_text("utf-8")
            seconds, bares = [], []
            for run in range(runs):
                bares.append(bare_import())
                token = f"preview{os.getpid()}x{run}{kind}"
                start = time.perf_counter()
                path.write_text(edit(original, token), "utf-8")
                while not page_has(token) and time.perf_counter() - start < 120:
                    time.sleep(0.05)
                seconds.append(time.perf_counter() - start)
                path.write_text(original, "utf-8")
                time.sleep(3)  # the rebuild that puts it back
            took, bare = statistics.median(seconds), statistics.median(bares)
            print(
                f"serve: save a {kind} -> served page shows it: {took:.1f} s "
                f"(runs {', '.join(f'{x:.1f}' for x in seconds)}); import torch {bare:.2f} s "
                f"beside it: {took / bare:.2f}x"
            )
    finally:
        for path, _ in edits.values():
            subprocess.run(["git", "checkout", "--", str(path)], cwd=ROOT, check=False)
        proc.terminate()
        proc.wait(timeout=30)
    warnings = [line.strip() for line in log if "WARNING" in line]
    print(f"  warnings logged by mkdocs serve: {warnings or 'none'}")


def torch_numbers() -> None:
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).eval()
    x = torch.randn(256, 512)

    def per_call(context) -> float:
        with context():
            for _ in range(5):
                model(x)
            start = time.perf_counter()
            for _ in range(50):
                model(x)
        return (time.perf_counter() - start) / 50 * 1e3

    print(
        f"torch: forward {per_call(torch.no_grad):.2f} ms under no_grad, "
        f"{per_call(torch.inference_mode):.2f} ms under inference_mode, "
        f"{per_call(contextlib.nullcontext):.2f} ms recording a graph (256x512 batch, CPU)"
    )


def memory() -> None:
    from bench_training_loop import loss_list_memory  # tools/, beside this file

    print(f"memory: {loss_list_memory()}")


def lighthouse() -> None:
    import lighthouse as lh  # tools/, beside this file

    lh.main([])


ROWS: list[tuple[str, str, str, str]] = []  # what, figure, target, command: the table
TABLE = ROOT / "CONTRIBUTING.md"


def write_table() -> None:
    """The measurements table of CONTRIBUTING.md, between its ``<!-- bench -->``
    markers, with the rows this run measured (a row this run did not measure stays)."""
    text = TABLE.read_text("utf-8")
    start, end = text.index("<!-- bench -->\n"), text.index("<!-- /bench -->")
    old = text[start + len("<!-- bench -->\n") : end].splitlines()
    kept = {line.split(" | ")[0]: line for line in old[2:] if line.startswith("| ")}
    for what, figure, target, command in ROWS:
        kept[f"| {what}"] = f"| {what} | {figure} | {target} | `{command}` |"
    stamp = time.strftime("%Y-%m-%d")
    header = ["| What | Figure | Target | Command |", "| --- | --- | --- | --- |"]
    body = "\n".join(header + list(kept.values()))
    note = f"\n\nLast written by `make bench` on {stamp}, on the 2-core development machine.\n"
    TABLE.write_text(text[:start] + "<!-- bench -->\n" + body + note + text[end:], "utf-8")
    print(f"wrote {len(ROWS)} rows into {TABLE.name}'s measurements table")


SECTIONS = {
    "edit": edit,
    "quiet": quiet,
    "suite": suite,
    "cold": cold,
    "check": check,
    "page": page,
    "compile": compile_chapter,
    "harness": harness,
    "checks": checks,
    "launched": launched,
    "script": script,
    "build": build,
    "serve": serve,
    "torch": torch_numbers,
    "memory": memory,
    "lighthouse": lighthouse,
}

if __name__ == "__main__":
    if {"-h", "--help"} & set(sys.argv[1:]):
        sys.exit(print(__doc__))
    unknown = [a for a in sys.argv[1:] if a not in SECTIONS and a != "--write"]
    if unknown:
        sys.exit(f"unknown section {', '.join(unknown)}: make bench ARGS=--help lists them")
    names = [a for a in sys.argv[1:] if a != "--write"]
    for name in names or [n for n in SECTIONS if n != "lighthouse"]:
        SECTIONS[name]()
    if "--write" in sys.argv[1:]:
        write_table()
