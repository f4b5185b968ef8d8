"""Multi-process examples: launched as their ``# launch:`` marker says, checked per rank.

A snippet that starts with ``# launch: torchrun --nproc-per-node 2`` is run the way
``torchrun`` runs it: as that many processes, each with torchrun's environment
(``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``,
``MASTER_PORT``) on 127.0.0.1 and a free port, gloo bound to the loopback
interface. The ranks are forked from a :class:`sitelib.check.processes.ProcessServer`
(torch imported once), not started by the ``torchrun`` program, which would cost
a fresh ``import torch`` per rank and one more for itself; ``tests/test_launch.py``
also runs one example under the real ``torchrun`` and checks the two agree.

In each rank the example is checked as a single-process one is
(:func:`sitelib.check.run.check_run`: seeded, shape comments traced, gradients and
devices checked). What it prints is the page's business only on rank 0: the
``#>`` lines are rank 0's output, and any other rank must print nothing (a reader
running the command sees every rank's output). A rank that raises, exits early,
prints, or does not finish within the timeout fails the example with the rank,
the file and the line; the other ranks are then stopped, and no process is left.
"""

from __future__ import annotations

import json
import os
import re
import socket
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_examples import CodeExample, EvalExample

from sitelib.check import adapter
from sitelib.check.examples import display_path, launch_command, output_placement
from sitelib.check.outcomes import ExampleFailure, Skipped, skip_reason
from sitelib.check.processes import Child, ProcessServer, Request
from sitelib.site.snippets import launch_ranks

# What torch itself writes to a rank's stdout, and the page says: torch 2.10's gloo logs
# "[Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1"
# (from C++, so under torchrun its newline can land after another rank's output).
LIBRARY_LOG = re.compile(
    r"\[Gloo\] Rank \d+ is connected to \d+ peer ranks\. "
    r"Expected number of connected peer ranks is : \d+"
)


def without_library_logs(stdout: str) -> list[str]:
    """The lines of a process's stdout, without torch's own log lines (LIBRARY_LOG)."""
    return [line for line in LIBRARY_LOG.sub("", stdout).splitlines() if line.strip()]


TIMEOUT = 90.0  # seconds for all ranks of one example; a hang fails after this


class LaunchError(AssertionError):
    """A multi-process example that failed, naming the rank, file and line."""


def ranks(command: str) -> int:
    """How many processes ``command`` starts (:func:`sitelib.site.snippets.launch_ranks`)."""
    try:
        return launch_ranks(command)
    except ValueError as err:
        raise LaunchError(str(err)) from None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_envs(n: int, port: int) -> list[dict[str, str]]:
    """torchrun's environment contract for ``n`` ranks on one machine, on loopback."""
    common = {
        "WORLD_SIZE": str(n),
        "LOCAL_WORLD_SIZE": str(n),
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
        "GROUP_RANK": "0",
        "GLOO_SOCKET_IFNAME": "lo",  # gloo binds to the loopback interface only
        "OMP_NUM_THREADS": "1",  # what torchrun sets for each rank
    }
    return [{**common, "RANK": str(r), "LOCAL_RANK": str(r)} for r in range(n)]


@dataclass
class RankResult:
    rank: int
    child: Child
    result: dict | None  # what rank_main wrote: updated source, printed lines, problems


def rank_main(snippet: str, source_file: str, device: str, seed: str) -> None:
    """In one rank's process: run and check the example (the source in
    ``source_file``, shown as ``snippet``), write the result as JSON to the file
    named by ``SITELIB_RESULT``."""
    from sitelib.check.output import normalise_device
    from sitelib.check.run import check_run

    path = Path(snippet)
    example = CodeExample.create(Path(source_file).read_text("utf-8"), path=path, prefix="py")
    rank = int(os.environ["RANK"])
    run_file = Path(tempfile.mkdtemp(prefix=f"rank{rank}-")) / f"{example.module_name}.py"
    printed: list[str] = []

    def run():
        updated, module_globals, lines = adapter.run_outside_pytest(
            example, run_file, normalise_device
        )
        printed.extend(lines)
        return updated, module_globals

    result: dict = {"rank": rank}
    try:
        outcome = check_run(example, run, run_file, device, seed=int(seed))
        result.update(updated=outcome.updated, problems=outcome.problems, printed=printed)
    except ExampleFailure as exc:
        result.update(failure=str(exc), printed=printed, failed_at=time.time())
    Path(os.environ["SITELIB_RESULT"]).write_text(json.dumps(result), "utf-8")
    if "failure" in result:
        raise SystemExit(1)


def _stack(stderr: str, snippet: Path) -> str:
    """A hung rank's stack as faulthandler printed it, innermost first, down to the
    example's own frame (the harness's frames below it say nothing)."""
    lines = stderr.strip().splitlines()
    for i, line in enumerate(lines):
        if snippet.stem in line and line.lstrip().startswith("File"):
            return textwrap.indent("\n".join(lines[: i + 1]), "    ")
    return textwrap.indent("\n".join(lines[-12:]), "    ")


def _where(stderr: str, shown: str, snippet: Path) -> str:
    """The example's line in a traceback that faulthandler or Python printed."""
    lines = re.findall(rf'File "[^"]*{re.escape(snippet.stem)}[^"]*", line (\d+)', stderr)
    return f"{shown}:{lines[-1]}" if lines else shown


def launch(
    server: ProcessServer,
    example: CodeExample,
    device: str,
    *,
    seed: int,
    timeout: float = TIMEOUT,
) -> list[RankResult]:
    """Run every rank of a ``# launch:`` example; raise LaunchError if one failed."""
    shown = display_path(example)
    n = ranks(launch_command(example))
    with tempfile.TemporaryDirectory(prefix="sitelib-launch-") as folder:
        files = [str(Path(folder) / f"rank{r}.json") for r in range(n)]
        source = Path(folder) / "source.py"
        source.write_text(example.source, "utf-8")
        envs = rank_envs(n, free_port())
        request = Request(
            call=rank_main,
            args=[str(example.path), str(source), device, str(seed)],
            # TMPDIR: what a rank leaves in its temporary folder goes with the launch's.
            envs=[
                {**env, "SITELIB_RESULT": files[r], "TMPDIR": folder} for r, env in enumerate(envs)
            ],
            timeout=timeout,
        )
        children = server.run(request)
        results = []
        for r, child in enumerate(children):
            path = Path(files[r])
            data = json.loads(path.read_text("utf-8")) if path.exists() else None
            results.append(RankResult(r, child, data))
    problems = rank_problems(results, shown, Path(example.path), timeout)
    if problems:
        raise LaunchError("\n".join(problems))
    return results


def rank_problems(
    results: list[RankResult], shown: str, snippet: Path, timeout: float
) -> list[str]:
    """Each rank's failure, crash, hang or stray output, naming rank, file and line.
    The rank that failed first comes first: the others usually failed because of it."""

    def failed_at(r: RankResult) -> float:  # when it raised, else when it exited
        return (r.result or {}).get("failed_at") or r.child.started + r.child.seconds

    failed = sorted((r for r in results if r.child.returncode not in (0, None)), key=failed_at)
    first = failed[0] if failed else None
    problems = []
    for r in sorted(
        results, key=lambda r: (r not in failed, failed.index(r) if r in failed else r.rank)
    ):
        where = _where(r.child.stderr, shown, snippet)
        if r.result and r.result.get("failure"):
            problems.append(f"rank {r.rank}: {r.result['failure']}")
        elif r.child.timed_out and first:
            problems.append(
                f"rank {r.rank}: stopped at {where} after rank {first.rank} failed "
                "(it was waiting for it)"
            )
        elif r.child.timed_out:
            problems.append(
                f"rank {r.rank}: did not finish within {timeout:.0f} s; it was at {where}\n"
                + _stack(r.child.stderr, snippet)
            )
        elif r.child.returncode != 0:
            problems.append(
                f"rank {r.rank}: exited with status {r.child.returncode} at {where}\n"
                + textwrap.indent(r.child.stderr.strip()[-1500:], "    ")
            )
        elif r.result is None:
            problems.append(f"rank {r.rank}: finished without a result (did it call os._exit?)")
        else:
            problems += [f"rank {r.rank}: {p}" for p in r.result["problems"]]
            stray = without_library_logs(r.child.stdout)
            if stray:  # print() is captured; this came from sys.stdout.write or C code
                written = textwrap.indent("\n".join(stray)[:1000], "    ")
                problems.append(
                    f"rank {r.rank}: {shown}: wrote to stdout outside print():\n{written}"
                )
            if r.rank and r.result["printed"]:
                printed = textwrap.indent("\n".join(r.result["printed"])[:1000], "    ")
                problems.append(
                    f"rank {r.rank}: {shown}: printed output; only rank 0 prints (its output is "
                    f"the #> lines), gather other ranks' values to it:\n{printed}"
                )
    return problems


def run_launched_example(
    example: CodeExample, eval_example: EvalExample, device: str, server: ProcessServer
) -> None:
    """The whole check of one multi-process example, as ``test_example`` runs it: lint,
    skip where it cannot run (``Skipped``, with the reason), launch, compare rank 0's
    output."""
    gpus = None
    if device == "cuda":
        import torch

        gpus = torch.cuda.device_count()
    if reason := skip_reason(example, device, gpus):
        raise Skipped(reason)
    if problems := output_placement(example):
        raise LaunchError("\n".join(problems))
    adapter.lint(eval_example, example)
    seed = int.from_bytes(os.urandom(4))
    if not eval_example.update_examples:
        check_launched_output(server, example, device, seed=seed)
    elif (updated := launch(server, example, device, seed=seed)[0].result["updated"]) is not None:
        adapter.update_with(eval_example, example, updated)


def check_launched_output(
    server: ProcessServer, example: CodeExample, device: str, *, seed: int, timeout: float = TIMEOUT
) -> None:
    """Launch the example; every rank passes its checks and rank 0 prints the #> lines."""
    from sitelib.check.output import compare_output

    rank0 = launch(server, example, device, seed=seed, timeout=timeout)[0].result
    compare_output(example, rank0["updated"], display_path(example))
