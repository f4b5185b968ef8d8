"""The whole-step script (snippets/complete/train.py, docs/complete/), proven in
combination: run as a reader runs it (``python train.py ...``, ``torchrun
--nproc-per-node 2 train.py ...``), each process forked from the rank server
(sitelib/check/complete.py).

For each combination of precision, compilation and processes: the loss falls; four
micro-batches of 8 give the update of one batch of 32; two ranks give the model of
one process on the same global batch; the injected non-finite loss on one rank
(--nonfinite-at 5, its gradients finite) is skipped on every rank and the run goes
on; a run stopped at step 10 and resumed ends bit for bit where the uninterrupted run
does; every evaluation is finite, its accuracy in [0, 1], and the final one is the
model's own, sample by sample, on an odd-sized validation set. Under DDP and FSDP2,
each optimizer step reduces the gradients once however many micro-batches it takes
(the harness counts the collectives in each rank). A second model and data, a CNN
with BatchNorm and a Dataset with a random flip read by two workers, replace the
script's own in a copy that is otherwise byte for byte the script: replicas equal,
the corrupt step skipped on every rank with the buffers as before, an exact resume
past the first epoch that loads no batch twice. ``make test`` runs FAST and the
checks that guard what the page claims; ``make test-complete``
(``--complete-matrix``) runs ALL. The self-tests break a copy of the script the ways
training scripts break, and see the matching check fail.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from pytest_examples import CodeExample

from sitelib.check import complete
from sitelib.check.complete import (
    SCRIPT,
    RunFailed,
    adapted,
    broken,
    collective_problems,
    evaluation_problems,
    excerpt_problems,
    excerpts,
    loss_falls_problems,
    reference_problems,
    rendered_excerpt_problems,
    resume_problems,
    same_model_problems,
    skipped_problems,
)
from sitelib.check.console import console_blocks, console_problems, shown_line
from sitelib.site.layout import ROOT, chapters, file_url, page_files, page_url
from sitelib.site.snippets import as_copied

# The chapter's pages (docs/complete/index.md first: the script, its commands, its
# excerpts and the download; then how it is proven), each read by the page checks.
CHAPTER = next(c for c in chapters() if c.name == "complete")
PAGES = [ROOT / "docs" / page for page in CHAPTER.pages]
PAGE = PAGES[0]
STEPS = ["--steps", "20", "--warmup", "4", "--log-every", "10"]
BAD_STEP = 5  # --nonfinite-at: one rank's loss NaN there, its gradients finite
CORRUPT_STEP = 7  # --corrupt-at: a NaN in rank 0's input; loss and gradients NaN
RESUME_AT = 10  # --ckpt-every: the resumed run starts from this step's checkpoint
GLOBAL_BATCH = 32

# How far two runs that should agree may drift: the largest difference of the final
# parameters (which are of order 0.1-1), after 20 steps. Measured on torch 2.13 (CPU),
# eager: accumulating four micro-batches, or averaging two ranks' gradients, only
# reorders float32 sums: at most 6.0e-8 in fp32, DDP and FSDP2; 1e-5 leaves room for
# other kernels and CPUs. Under autocast (and FSDP2's MixedPrecisionPolicy) the matmuls
# round inside, and a batch split differently rounds differently: bf16 up to 1.2e-3
# (one process, four micro-batches against one batch; 3.0e-4 for two ranks against one
# process), fp16 up to 2.5e-5. Stepping the scheduler per micro-batch moves fp32 by
# 1.8e-2. The proof page's table quotes these.
TOLERANCE = {"fp32": 1e-5, "bf16": 2e-3, "fp16": 2e-4}
# A precision against float32 (the same run otherwise): measured 1.3e-3 (bf16) and
# 3.2e-5 (fp16); unscale_ after clipping moves fp16 by 5.6e-3.
AGAINST_FP32 = {"bf16": 5e-3, "fp16": 1e-3}


@dataclass(frozen=True)
class Combo:
    precision: str  # fp32, bf16, fp16
    backend: str | None  # a torch.compile backend, or None: eager
    ranks: int  # 1, or 2 under torchrun
    fsdp: bool = False

    def __str__(self) -> str:
        where = (
            "1 process"
            if self.ranks == 1
            else f"{self.ranks} ranks " + ("FSDP2" if self.fsdp else "DDP")
        )
        return f"{self.precision}-{self.backend or 'eager'}-{where}".replace(" ", "-")

    def argv(self, accum: int, dropout: str = "0") -> list[str]:
        batch = GLOBAL_BATCH // (accum * self.ranks)
        argv = [*STEPS, "--precision", self.precision, "--dropout", dropout]
        argv += ["--batch-size", str(batch), "--accum-steps", str(accum)]
        argv += ["--nonfinite-at", str(BAD_STEP), "--corrupt-at", str(CORRUPT_STEP)]
        if self.backend:
            argv += ["--compile", "--compile-backend", self.backend]
        return argv + (["--fsdp"] if self.fsdp else [])

    @property
    def one_process(self) -> Combo:
        return Combo(self.precision, self.backend, 1)


# Left out of ALL, and why:
# - Inductor (the default backend): its first compile of each graph costs tens of
#   seconds on a CPU (a C++ build); eager and aot_eager trace the same graphs through
#   Dynamo and AOTAutograd, which is where compiling changes a training script's
#   behaviour (guards, recompiles on model.eval(), _orig_mod.). Inductor runs in the
#   compile chapter's examples.
# - FSDP2 with torch.compile: fully_shard's hooks around a compiled module need
#   torch.compile of the whole model after sharding and the compiled autograd of
#   newer releases; nothing the chapter teaches.
ALL = [
    Combo(precision, backend, ranks, fsdp)
    for precision, backend, (ranks, fsdp) in itertools.product(
        ("fp32", "bf16", "fp16"), (None, "aot_eager"), ((1, False), (2, False), (2, True))
    )
    if not (fsdp and backend)
]
FAST = [Combo("fp32", None, 1), Combo("fp32", None, 2)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    full = metafunc.config.getoption("complete_matrix")
    if "combo" in metafunc.fixturenames:
        metafunc.parametrize("combo", ALL if full else FAST, ids=str)
    if "hang_timeout" in metafunc.fixturenames:
        # The hang holds two of the server's processes until its timeout: the full
        # matrix only (make test-complete); elsewhere its empty parametrization is
        # deselected (tests/conftest.py), not counted as a skip.
        metafunc.parametrize("hang_timeout", [30] if full else [], ids=lambda t: f"{t}s")
    if "full_matrix" in metafunc.fixturenames:  # make test-complete only
        metafunc.parametrize("full_matrix", [True] if full else [], ids=["full"])
    if "cnn_nproc" in metafunc.fixturenames:  # the second model, the rest of its runs
        ids = {1: "1-process", 2: "2-ranks-FSDP2"}
        metafunc.parametrize("cnn_nproc", [1, 2] if full else [], ids=ids.get)


# Runs are deterministic, so each is run once per session and shared by the tests
# that read it (FAST's two-rank combination compares with the one-process one).
_pool = ThreadPoolExecutor(4)  # the server runs two processes at a time
_runs: dict[tuple, Future] = {}


def submit(
    server, argv: list[str], nproc: int = 1, *, cwd: Path | None = None, script: Path = SCRIPT
) -> Future:
    key = (tuple(argv), nproc, str(cwd), str(script))
    if key not in _runs:
        _runs[key] = _pool.submit(complete.run, server, argv, nproc=nproc, cwd=cwd, script=script)
    return _runs[key]


def folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="complete-"))


def resume_pair(
    server, argv: list[str], nproc: int, *, script: Path = SCRIPT, full_script: Path = SCRIPT
):
    """The uninterrupted run (checkpoints every RESUME_AT steps) and one resumed
    from its checkpoint at RESUME_AT, with the same command line otherwise."""
    cwd = folder()
    full = submit(
        server, [*argv, "--ckpt-every", str(RESUME_AT)], nproc, cwd=cwd, script=full_script
    ).result()
    ckpt = str(cwd / "checkpoints" / f"step{RESUME_AT}")
    resumed = complete.run(server, [*argv, "--resume", ckpt], nproc=nproc, cwd=cwd, script=script)
    return full, resumed


def test_combination(combo: Combo, rank_server) -> None:
    n = combo.ranks
    runs = {
        "batch": submit(rank_server, combo.argv(1), n),
        "micro-batches": submit(rank_server, combo.argv(4), n),
        "one process": submit(rank_server, combo.one_process.argv(1)),
    }
    if combo.precision != "fp32":
        fp32 = Combo("fp32", combo.backend, 1)
        runs["fp32"] = submit(rank_server, fp32.argv(1))
    # The resumed pair keeps dropout (0.1): the resume must restore every generator.
    full, resumed = resume_pair(rank_server, combo.argv(4, dropout="0.1"), n)
    runs = {name: future.result() for name, future in runs.items()}
    batch, micro = runs["batch"], runs["micro-batches"]
    tol = TOLERANCE[combo.precision]
    problems = []
    for name in ("batch", "micro-batches"):
        problems += loss_falls_problems(runs[name], f"{combo} {name}")
        skips = [BAD_STEP, CORRUPT_STEP]
        problems += skipped_problems(runs[name], f"{combo} {name}", skips, n)
    problems += same_model_problems(batch, micro, f"{combo}: 4 micro-batches vs 1", tol)
    if n > 1:
        problems += same_model_problems(batch, runs["one process"], f"{combo} vs one process", tol)
    if "fp32" in runs:
        problems += same_model_problems(
            runs["one process"],
            runs["fp32"],
            f"{combo.one_process} vs fp32",
            AGAINST_FP32[combo.precision],
        )
    problems += resume_problems(full, resumed, RESUME_AT, f"{combo} resumed")
    for name, r in [*runs.items(), ("resumed", resumed)]:
        problems += evaluation_problems(r, f"{combo} {name}")
    if combo.precision == "fp32":  # the final evaluation: every sample, once
        problems += reference_problems(batch, combo.argv(1), f"{combo} evaluation", 1e-5)
    assert not problems, "\n".join(problems)


# -- self-tests: a copy of the script broken one way, and the check that sees it ------
SCHEDULER_LINE = "            scheduler.step()  # once per optimizer step that happened\n"


def test_selftest_scheduler_stepped_per_micro_batch(rank_server, tmp_path: Path) -> None:
    script = broken(tmp_path, SCHEDULER_LINE, "")
    source = script.read_text("utf-8").replace(
        "            loss_sum += loss.detach()\n",
        "            loss_sum += loss.detach()\n            scheduler.step()\n",
    )
    script.write_text(source, "utf-8")
    combo = FAST[0]
    batch = submit(rank_server, combo.argv(1), script=script)
    micro = submit(rank_server, combo.argv(4), script=script)
    problems = same_model_problems(batch.result(), micro.result(), "accumulation", 1e-5)
    assert problems and "the parameters differ by up to" in problems[0], problems


def test_selftest_unscale_after_clipping(rank_server, tmp_path: Path) -> None:
    unscale = "        scaler.unscale_(optimizer)  # real gradients, before clipping\n"
    clip = "        norm = clip_grad_norm_(net.parameters(), max_norm)\n"
    script = broken(tmp_path, unscale + "        max_norm", "        max_norm")
    script.write_text(script.read_text("utf-8").replace(clip, clip + unscale), "utf-8")
    fp16, fp32 = Combo("fp16", None, 1), Combo("fp32", None, 1)
    bad = submit(rank_server, fp16.argv(1), script=script).result()
    reference = submit(rank_server, fp32.argv(1)).result()
    problems = same_model_problems(bad, reference, "fp16 vs fp32", AGAINST_FP32["fp16"])
    assert problems and "the parameters differ by up to" in problems[0], problems


@pytest.mark.parametrize(
    ("precision", "old", "new", "expected"),
    [
        pytest.param(
            "fp16",
            '        scaler.load_state_dict(ckpt["scaler"])\n',
            "",
            r"scale 65536.0 after the resume, 32768.0 without it",
            id="without-scaler",
        ),
        pytest.param(
            "fp32",
            '        step, (epoch, start) = ckpt["step"], ckpt["data"]\n',
            '        step = ckpt["step"]\n',
            r"the parameters differ by up to",
            id="without-sampler-position",
        ),
        pytest.param(
            "fp32",
            '        set_rng_states(state["rng"][rank], args.device)\n',
            "        pass\n",
            r"the parameters differ by up to",
            id="without-rng",
        ),
    ],
)
def test_selftest_resume_without(rank_server, tmp_path: Path, precision, old, new, expected):
    script = broken(tmp_path, old, new)
    combo = Combo(precision, None, 1)
    full, resumed = resume_pair(rank_server, combo.argv(4, dropout="0.1"), 1, script=script)
    problems = resume_problems(full, resumed, RESUME_AT, "resumed")
    assert any(re.search(expected, p) for p in problems), problems


def test_selftest_guard_without_the_all_reduce_disagrees(rank_server, tmp_path: Path) -> None:
    """Each rank deciding on its own verdict, the loss all-reduced all the same: the
    NaN is in one rank's loss only, its gradients finite (--nonfinite-at), so only
    that rank skips."""
    script = broken(tmp_path, "        if stats[1].item() == 0:\n", "        if not bad.item():\n")
    combo = Combo("fp32", None, 2)
    problems = skipped_problems(
        submit(rank_server, combo.argv(1), 2, script=script).result(),
        "ddp",
        [BAD_STEP, CORRUPT_STEP],
        2,
    )
    assert any("(per rank), not [5, 7]" in p for p in problems), problems
    assert "ddp: the ranks' parameters differ" in problems, problems


def test_a_crash_on_one_rank_names_it_and_leaves_nothing(rank_server, tmp_path: Path) -> None:
    raised = '                raise RuntimeError("rank 1 fails at step 3")\n'
    script = broken(
        tmp_path,
        "            loss_sum += loss.detach()\n",
        "            loss_sum += loss.detach()\n            if rank == 1 and step == 3:\n" + raised,
    )
    line = script.read_text("utf-8").splitlines(keepends=True).index(raised) + 1
    with pytest.raises(RunFailed) as failed:
        complete.run(rank_server, [*STEPS, "--dropout", "0"], nproc=2, script=script, timeout=60)
    message = str(failed.value)
    assert re.search(
        rf"(?s)rank 1: exited with status 1 at train.py:{line}\n.*"
        r"RuntimeError: rank 1 fails at step 3.*\n.*rank 0: ",
        message,
    ), message
    server = psutil.Process(rank_server._process.pid)
    assert [p for p in server.children(recursive=True)] == []


def test_a_hang_on_one_rank_names_where_it_waits(rank_server, tmp_path: Path, hang_timeout):
    slept = "                time.sleep(600)  # a rank that never comes back\n"
    script = broken(
        tmp_path,
        "            loss_sum += loss.detach()\n",
        "            loss_sum += loss.detach()\n            if rank == 1 and step == 3:\n" + slept,
    )
    source = script.read_text("utf-8").replace("import random\n", "import random\nimport time\n")
    script.write_text(source, "utf-8")
    line = source.splitlines(keepends=True).index(slept) + 1
    with pytest.raises(RunFailed) as failed:
        complete.run(
            rank_server, [*STEPS, "--dropout", "0"], nproc=2, script=script, timeout=hang_timeout
        )
    message = str(failed.value)
    assert (
        f"rank 1: did not finish within {hang_timeout} s; it was at train.py:{line}" in message
    ), message
    assert f"rank 0: did not finish within {hang_timeout} s" in message, message
    server = psutil.Process(rank_server._process.pid)
    assert [p for p in server.children(recursive=True)] == []


# -- distributed checkpoints: another layout, another number of ranks -----------------
def loaded_problems(saved: complete.Run, loaded: complete.Run, what: str) -> list[str]:
    """Right after the load: the parameters and every value of the optimizer's
    state, bit for bit."""
    problems = []
    for key in ("params", "optimizer"):
        if saved.report[key] != loaded.report[key]:
            problems.append(f"{what}: the {key} after the load differ from the saved ones")
    return problems


def reshard(server, tmp: Path, before: tuple[int, bool], after: tuple[int, bool], script=SCRIPT):
    """A run saved at RESUME_AT on ``before`` (ranks, FSDP2?), then loaded on
    ``after``, which takes no step: (saved, loaded). The global batch stays 32."""

    def argv(ranks: int, fsdp: bool) -> list[str]:
        return Combo("fp32", None, ranks, fsdp).argv(1)[2:]  # without --steps 20

    stop = ["--steps", str(RESUME_AT), "--ckpt-every", str(RESUME_AT)]
    saved = complete.run(server, [*stop, *argv(*before)], nproc=before[0], cwd=tmp, script=script)
    ckpt = str(tmp / "checkpoints" / f"step{RESUME_AT}")
    loaded = complete.run(
        server,
        ["--steps", str(RESUME_AT), "--resume", ckpt, *argv(*after)],
        nproc=after[0],
        cwd=tmp,
        script=script,
    )
    return saved, loaded


def test_a_checkpoint_of_two_fsdp2_ranks_loads_in_one_process(rank_server, tmp_path):
    """Every rank wrote its shards; one process reads them whole: the parameters and
    the optimizer's state are the saved ones, bit for bit."""
    saved, loaded = reshard(rank_server, tmp_path, (2, True), (1, False))
    problems = loaded_problems(saved, loaded, "FSDP2 on 2 ranks, then 1 process")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("before", "after"),
    [((1, False), (2, True)), ((2, False), (2, True)), ((2, True), (2, False))],
    ids=["1-process-to-FSDP2", "DDP-to-FSDP2", "FSDP2-to-DDP"],
)
def test_a_checkpoint_loads_in_another_layout(
    rank_server, tmp_path, before, after, full_matrix: bool
) -> None:
    saved, loaded = reshard(rank_server, tmp_path, before, after)
    problems = loaded_problems(saved, loaded, f"{before} then {after}")
    assert not problems, "\n".join(problems)


def test_a_run_resumed_on_another_number_of_ranks_goes_on_within_rounding(
    rank_server, tmp_path
) -> None:
    """Saved by 2 FSDP2 ranks at RESUME_AT, the run goes on in one process on the
    same global batch, dropout off: the data is the same, the sums add in another
    order, so it ends within fp32's tolerance of the run that stayed on 2 ranks,
    and not bit for bit (or the check could not tell the two apart)."""
    two = Combo("fp32", None, 2, True)
    full = complete.run(
        rank_server, [*two.argv(1), "--ckpt-every", str(RESUME_AT)], nproc=2, cwd=tmp_path
    )
    ckpt = str(tmp_path / "checkpoints" / f"step{RESUME_AT}")
    one = complete.run(rank_server, [*two.one_process.argv(1), "--resume", ckpt], cwd=tmp_path)
    what = "2 FSDP2 ranks, then 1 process"
    assert same_model_problems(full, one, what, TOLERANCE["fp32"]) == []
    assert same_model_problems(full, one, what, 0) != [], "bit for bit: nothing to tell apart"


def test_selftest_a_checkpoint_without_the_optimizers_step(rank_server, tmp_path) -> None:
    """The field's "Missing key ... step": a save that leaves Adam's step out."""
    script = broken(
        tmp_path,
        "    model, optim = get_state_dict(net, optimizer)  # sharded under FSDP2\n",
        "    model, optim = get_state_dict(net, optimizer)  # sharded under FSDP2\n"
        "    for kept in optim['state'].values():\n"
        "        kept.pop('step')\n",
    )
    with pytest.raises(RunFailed, match="step"):
        reshard(rank_server, tmp_path, (2, True), (1, False), script=script)


def test_resume_auto_takes_the_newest_complete_checkpoint(rank_server, tmp_path) -> None:
    """--resume auto: a fresh start in an empty folder; else the newest checkpoint
    with its .metadata (step 15 here: step 20's is made half by taking it away)."""
    argv = Combo("fp32", None, 1).argv(1, dropout="0.1")
    (tmp_path / "empty").mkdir()
    plain = complete.run(rank_server, argv)
    fresh = complete.run(rank_server, [*argv, "--resume", "auto"], cwd=tmp_path / "empty")
    assert fresh.report["params"] == plain.report["params"], "no checkpoint: a fresh start"
    full = complete.run(rank_server, [*argv, "--ckpt-every", "5"], cwd=tmp_path)
    (tmp_path / "checkpoints" / "step20" / ".metadata").unlink()
    resumed = complete.run(rank_server, [*argv, "--resume", "auto"], cwd=tmp_path)
    assert resume_problems(full, resumed, 15, "auto") == []


def test_no_rank_gathers_the_model_to_save_it(rank_server) -> None:
    """Under FSDP2 a checkpoint is every rank's own shards: counted by the harness,
    no ``full_tensor()`` runs in a whole run that saves (its report, which gathers
    for the tests, left out)."""
    argv = [*Combo("fp32", None, 2, True).argv(1), "--ckpt-every", "5"]
    r = complete.run(rank_server, argv, nproc=2, count=True, report=False)
    assert [c["full_tensor"] for c in r.collectives] == [0, 0], r.collectives


def test_selftest_a_save_that_gathers_the_model(rank_server, tmp_path) -> None:
    script = broken(
        tmp_path,
        "    model, optim = get_state_dict(net, optimizer)  # sharded under FSDP2\n",
        "    model, optim = get_state_dict(net, optimizer)  # sharded under FSDP2\n"
        "    model = {k: v.full_tensor() for k, v in model.items()}\n",
    )
    argv = [*Combo("fp32", None, 2, True).argv(1), "--ckpt-every", "5"]
    r = complete.run(rank_server, argv, nproc=2, count=True, report=False, script=script)
    assert all(c["full_tensor"] > 0 for c in r.collectives), r.collectives


def test_selftest_console_check_compares_every_line(rank_server, tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```console\n$ python train.py --steps 2 --warmup 1 --log-every 1\n"
        "step    1 | loss 9.999 | lr 2.73e-04 | … samples/s\n"
        "step    2 | loss 1.000 | lr 5.45e-04 | … samples/s\n"
        "eval    2 | loss 1.000 | accuracy 0.500\n```\n\n"
        "```console\n$ python train.py --help\nusage: train.py [--steps STEPS]\n```\n",
        "utf-8",
    )
    problems = console_problems(rank_server, page)
    assert len(problems) == 2, problems
    assert problems[0].startswith(f"{page}:2: printed differs from the page's lines"), problems
    assert re.match(rf"{re.escape(str(page))}:9: --help lists \[.*'--fsdp'", problems[1])


def test_a_command_goes_on_after_a_backslash(tmp_path: Path) -> None:
    """A command split over lines, as a shell reads it: one command, its output
    under its last line; one that never ends is refused."""
    page = tmp_path / "page.md"
    page.write_text(
        "```console\n$ A=1 torchrun --nproc-per-node 2 \\\n    --max-restarts 1 \\\n"
        "    --rdzv-backend c10d train.py --steps 2\nstep    2 | loss 1.000\n```\n",
        "utf-8",
    )
    [[command]] = console_blocks(page)
    assert (command.line, command.argv, command.nproc) == (2, ["--steps", "2"], 2)
    assert (command.env, command.restarts) == ({"A": "1"}, 1)
    assert command.output == ["step    2 | loss 1.000"]
    page.write_text("```console\n$ python train.py \\\n```\n", "utf-8")
    with pytest.raises(ValueError, match="line 2: the command goes on past"):
        console_blocks(page)


def test_the_page_masks_the_samples_per_second_and_nothing_else() -> None:
    """``… samples/s`` on a page matches any count there; every other character of
    the line must be what was printed."""
    shown = shown_line("step   20 | loss 1.083 | lr 2.74e-03 | … samples/s")
    assert shown.fullmatch("step   20 | loss 1.083 | lr 2.74e-03 | 12,286 samples/s")
    assert not shown.fullmatch("step   20 | loss 1.084 | lr 2.74e-03 | 12,286 samples/s")
    assert not shown.fullmatch("step   20 | loss 1.083 | lr 2.74e-03 | fast samples/s")
    assert not shown_line("eval   60 | loss …").fullmatch("eval   60 | loss 0.655")


# -- the page: excerpts and what it shows ----------------------------------------------
def test_the_page_shows_one_process_two_a_resume_and_help() -> None:
    commands = [c for page in PAGES for block in console_blocks(page) for c in block]
    assert {c.nproc for c in commands} == {1, 2}
    assert any("--resume" in c.argv for c in commands)
    assert any("--fsdp" in c.argv for c in commands)
    assert any(c.is_help for c in commands)


def test_excerpts_are_labelled_ranges_of_whole_statements() -> None:
    assert sum(len(excerpts(page)) for page in PAGES) >= 10
    problems = [p for page in page_files() for p in excerpt_problems(page)]
    assert not problems, "\n".join(problems)


def test_selftest_excerpt_check(tmp_path: Path) -> None:
    """Ranges found in the script by its syntax, so that they follow its edits: a
    label one line off, a range that starts inside a statement, one that starts at a
    decorated function's ``def`` (its decorator is its first line)."""
    import ast

    tree = ast.parse(SCRIPT.read_text("utf-8"))
    whole = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.decorator_list)
    split = next(n for n in tree.body if isinstance(n, ast.ImportFrom) and n.end_lineno > n.lineno)
    decorated = next(n for n in tree.body if getattr(n, "decorator_list", None))
    a, b = whole.lineno, whole.end_lineno
    after = tree.body[tree.body.index(split) + 1]  # the range runs on into it
    c, d = split.lineno, after.end_lineno
    e, f = decorated.lineno, decorated.end_lineno  # e: the def; the decorator is above
    cases = [
        (f"{a}–{b + 1}", f"{a}:{b}"),
        (f"{c + 1}–{d}", f"{c + 1}:{d}"),
        (f"{e}–{f}", f"{e}:{f}"),
    ]
    page = tmp_path / "page.md"
    page.write_text(
        "".join(
            f'```python title="train.py, lines {label}"\n--8<-- "complete/train.py:{lines}"\n```\n\n'
            for label, lines in cases
        ),
        "utf-8",
    )
    assert excerpt_problems(page) == [
        f"{page}:1: the excerpt is labelled 'train.py, lines {a}–{b + 1}', not "
        f"'train.py, lines {a}–{b}'",
        f"{page}:5: line {c + 1} of complete/train.py starts no statement",
        f"{page}:5: lines {c + 1}-{d} cut the statement on lines {c}-{split.end_lineno} of "
        "complete/train.py",
        f"{page}:9: line {e} of complete/train.py starts no statement",
    ]


def test_excerpts_render_their_lines(built_site) -> None:
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    problems = []
    for page in PAGES:
        built = (site / file_url(page) / "index.html").read_text("utf-8")
        problems += rendered_excerpt_problems(page, built)
    assert not problems, "\n".join(problems)
    html = (site / page_url(CHAPTER.page) / "index.html").read_text("utf-8")
    # The whole file, one click away: the download is the script as tested.
    assert '<a download="train.py" href="train.py">' in html
    downloaded = (site / "complete" / "train.py").read_text("utf-8")
    assert downloaded == as_copied(SCRIPT.read_text("utf-8"))
    assert "# script:" not in downloaded


def test_selftest_rendered_excerpt_check() -> None:
    first = excerpts(PAGE)[0]
    html = f'<span class="filename">{first.label}</span><pre><code>def other():</code>'
    problems = rendered_excerpt_problems(PAGE, html)
    assert problems[0] == (
        f"{PAGE.relative_to(ROOT).as_posix()}:{first.line}: the block labelled "
        f"'{first.label}' shows other text than those lines"
    )


def test_excerpts_are_not_collected_as_examples() -> None:
    """An excerpt is the one kind of block that does not run as pasted: the example
    collection leaves it out explicitly (its file is checked whole)."""
    from sitelib.check.examples import is_excerpt, page_examples

    collected = [e for e in page_examples(pages=PAGES)]
    assert collected == []
    fence = CodeExample.create('--8<-- "complete/train.py:70:80"\n', path=PAGE, prefix="python")
    assert is_excerpt(fence)
    whole = CodeExample.create('--8<-- "complete/train.py"\n', path=PAGE, prefix="python")
    assert not is_excerpt(whole)


# -- each optimizer step reduces the gradients once ------------------------------------
@pytest.mark.parametrize("fsdp", [False, True], ids=["DDP", "FSDP2"])
def test_each_optimizer_step_reduces_the_gradients_once(rank_server, fsdp: bool) -> None:
    """Counted by the harness in each rank (the collectives inside ``backward()``):
    four micro-batches a step reduce what one does, as ``no_sync()`` and
    ``set_requires_gradient_sync(False)`` promise."""
    combo = Combo("fp32", None, 2, fsdp)
    once = complete.run(rank_server, combo.argv(1), nproc=2, count=True)
    accumulated = complete.run(rank_server, combo.argv(4), nproc=2, count=True)
    problems = collective_problems(once, accumulated, int(STEPS[1]), str(combo))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("fsdp", [False, True], ids=["DDP", "FSDP2"])
def test_selftest_every_micro_batch_communicating_is_counted(
    rank_server, tmp_path: Path, fsdp: bool
) -> None:
    script = broken(
        tmp_path,
        "            sync = micro == args.accum_steps - 1  # all-reduce on the last\n",
        "            sync = True\n",
    )
    combo = Combo("fp32", None, 2, fsdp)
    once = complete.run(rank_server, combo.argv(1), nproc=2, count=True, script=script)
    every = complete.run(rank_server, combo.argv(4), nproc=2, count=True, script=script)
    problems = collective_problems(once, every, int(STEPS[1]), str(combo))
    assert problems and "the micro-batches before the last communicate" in problems[0], problems


# -- evaluation: each sample once --------------------------------------------------------
@pytest.mark.parametrize(
    ("ranks", "old", "new"),
    [
        pytest.param(  # the sampler's padding counted: two ranks see 512 of 511
            2,
            "        real = (at < len(loader.dataset)).float()  # not a repeat\n",
            "        real = torch.ones(len(y), device=device)\n",
            id="padding-counted",
        ),
        pytest.param(  # divided by the batch size: the last batch is not full
            1,
            "    return loss / count, correct / count\n",
            "    return loss / (256 * len(loader)), correct / (256 * len(loader))\n",
            id="batch-size-divides",
        ),
    ],
)
def test_selftest_evaluation_counted_wrong(rank_server, tmp_path: Path, ranks, old, new) -> None:
    script = broken(tmp_path, old, new)
    argv = Combo("fp32", None, ranks).argv(1)
    r = complete.run(rank_server, argv, nproc=ranks, script=script)
    problems = reference_problems(r, argv, "evaluation", 1e-5, script=script)
    assert problems and "sample by sample" in problems[0], problems


def test_selftest_evaluation_bounds() -> None:
    bad = complete.Run([], {"evals": [[10, float("nan"), 0.5], [20, 0.3, 1.5]]})
    assert evaluation_problems(bad, "run") == [
        "run: evaluation at step 10: loss nan, accuracy 0.5",
        "run: evaluation at step 20: loss 0.3, accuracy 1.5",
    ]


# -- a second model and data: the reader's ------------------------------------------------
CNN = ROOT / "tests" / "fixtures" / "complete" / "cnn_and_flips.py"
# 256 training samples; 2 ranks of 8 a micro-batch: 16 batches an epoch, so a resume
# at step 20 is in the second epoch. --corrupt-at 5: a NaN in rank 0's input.
CNN_ARGV = ["--steps", "24", "--warmup", "4", "--log-every", "12", "--lr", "0.05"]
CNN_ARGV += ["--batch-size", "8", "--num-workers", "2", "--corrupt-at", "5"]
CNN_RESUME = 20


def cnn_script(tmp: Path, old: str | None = None, new: str = "") -> Path:
    """train.py with the fixture's model and data in place of its own (and, for a
    self-test, one more change); the rest of the file byte for byte the script."""
    source = adapted(CNN)
    if old is not None:
        return broken(tmp, old, new, source=source)
    path = tmp / "train.py"
    path.write_text(source, "utf-8")
    return path


def cnn_pair(server, tmp: Path, argv: list[str], nproc: int, script: Path):
    """The uninterrupted run and the one resumed at CNN_RESUME; the resumed run logs
    each training sample it loads."""
    log = tmp / "loaded.log"
    full = complete.run(
        server, [*argv, "--ckpt-every", str(CNN_RESUME)], nproc=nproc, cwd=tmp, script=script
    )
    ckpt = str(tmp / "checkpoints" / f"step{CNN_RESUME}")
    resumed = complete.run(
        server,
        [*argv, "--resume", ckpt],
        nproc=nproc,
        cwd=tmp,
        script=script,
        env={"LOADED_LOG": str(log)},
    )
    loaded = [int(i) for i in log.read_text().split()] if log.exists() else []
    return full, resumed, loaded


def taken_before_the_resume(nproc: int) -> set[int]:
    """The samples of the resume's epoch that the uninterrupted run had taken by
    CNN_RESUME: the batches a resumed run must not load again."""
    from torch.utils.data import DistributedSampler

    per_epoch = 256 // (8 * nproc)  # batches an epoch, each rank
    epoch, batches = divmod(CNN_RESUME, per_epoch)
    taken = set()
    for rank in range(nproc):
        order = DistributedSampler(range(256), nproc, rank, seed=0)
        order.set_epoch(epoch)
        taken |= set(list(order)[: batches * 8])
    return taken


def cnn_problems(full, resumed, loaded: list[int], nproc: int, what: str) -> list[str]:
    problems = skipped_problems(full, what, [5], nproc)
    problems += evaluation_problems(full, what) + evaluation_problems(resumed, what)
    problems += resume_problems(full, resumed, CNN_RESUME, f"{what} resumed")
    again = sorted(set(loaded) & taken_before_the_resume(nproc))
    if again or not loaded:
        problems.append(
            f"{what}: the resumed run loaded {len(loaded)} training samples, "
            f"{len(again)} of them from batches taken before the resume"
        )
    return problems


def test_the_section_is_all_a_reader_changes() -> None:
    """The copy differs from the script in the model-and-data section alone, and the
    section is the fixture's whole text."""
    source, copy = SCRIPT.read_text("utf-8"), adapted(CNN)
    start, end = source.index(complete.SECTION_OPENS), source.index(complete.STEP_OPENS)
    assert copy.startswith(source[:start]) and copy.endswith(source[end:])
    assert copy[start : len(copy) - (len(source) - end)] == CNN.read_text("utf-8")


def test_a_second_model_with_batchnorm_and_workers_resumes_exactly(
    rank_server, tmp_path: Path
) -> None:
    """DDP on two ranks, two loader workers each, a random flip per sample: the
    corrupt batch is skipped on every rank, BatchNorm's statistics as before it; the
    run resumed in its second epoch ends where the uninterrupted one does, bit for
    bit, and loads only the batches of its own steps."""
    script = cnn_script(tmp_path)
    full, resumed, loaded = cnn_pair(rank_server, tmp_path, CNN_ARGV, 2, script)
    problems = cnn_problems(full, resumed, loaded, 2, "CNN under DDP")
    assert not problems, "\n".join(problems)


def test_selftest_a_resume_that_loads_the_skipped_batches(rank_server, tmp_path: Path) -> None:
    script = cnn_script(
        tmp_path,
        "        position.move_to(epoch, start)\n"
        "        for i, data in enumerate(loader, start=1):\n"
        "            yield (epoch, start + i * taken), data\n",
        "        position.move_to(epoch, 0)\n"
        "        for i, data in enumerate(loader, start=1 - start // taken):\n"
        "            if i >= 1:  # the batches taken before: loaded all the same\n"
        "                yield (epoch, start + i * taken), data\n",
    )
    full, resumed, loaded = cnn_pair(rank_server, tmp_path, CNN_ARGV, 2, script)
    problems = cnn_problems(full, resumed, loaded, 2, "CNN")
    assert len(problems) == 1 and "from batches taken before the resume" in problems[0]
    assert " 0 of them" not in problems[0], problems


def test_selftest_a_skipped_step_that_keeps_batchnorms_update(rank_server, tmp_path: Path) -> None:
    script = cnn_script(
        tmp_path,
        "                buffer.copy_(before)  # BatchNorm saw the bad batch: undo\n",
        "                pass\n",
    )
    r = complete.run(rank_server, CNN_ARGV, nproc=2, cwd=tmp_path, script=script)
    problems = evaluation_problems(r, "CNN")
    assert problems and "loss nan" in problems[0], problems


def test_the_second_model_everywhere(rank_server, tmp_path: Path, cnn_nproc: int) -> None:
    """make test-complete: one process, and FSDP2 with BatchNorm (its buffers synced
    as DDP's are, so it resumes exactly, evaluation included, and evaluates as DDP
    does)."""
    nproc = cnn_nproc
    argv = [*CNN_ARGV, *(["--fsdp"] if nproc == 2 else [])]
    script = cnn_script(tmp_path)
    full, resumed, loaded = cnn_pair(rank_server, tmp_path, argv, nproc, script)
    what = f"CNN, {'FSDP2' if nproc == 2 else 'one process'}"
    problems = cnn_problems(full, resumed, loaded, nproc, what)
    if nproc == 2:
        ddp = complete.run(rank_server, CNN_ARGV, nproc=2, cwd=tmp_path, script=script)
        problems += same_model_problems(full, ddp, f"{what} vs DDP", 1e-5)
        if abs(full.report["eval"][0] - ddp.report["eval"][0]) > 1e-5:
            problems.append(f"{what}: evaluates {full.report['eval']}, DDP {ddp.report['eval']}")
    assert not problems, "\n".join(problems)
