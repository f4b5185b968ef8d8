"""Every check in the harness fails on a deliberately broken input.

The fixtures live in tests/fixtures/, outside docs/ and snippets/. Each test feeds
one of them to the same code the suite uses and expects a failure that names the
file and line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import markdown
import pytest
import torch
from pytest_examples import CodeExample, EvalExample

from sitelib.check.examples import all_examples, snippet_example
from sitelib.check.leftovers import check_devices
from sitelib.check.outcomes import ExampleFailure, Skipped, skip_reason
from sitelib.check.run import run_example
from sitelib.site.layout import ROOT, bookkeeping, fixture_project, mkdocs_build, zensical_build
from sitelib.site.mathml import MathError
from sitelib.site.snippets import (
    DEVICE_IDIOM,
    SHUTDOWN_IDIOM,
    TorchRange,
    device_idiom_problems,
    hidden_marker_problems,
    output_in_function,
    output_in_function_problems,
    required_torch,
    shutdown_idiom_problems,
)

FIXTURES = ROOT / "tests" / "fixtures"


def example(relative: str) -> CodeExample:
    path = FIXTURES / relative
    source = path.read_text("utf-8")
    return CodeExample.create(source, path=path, prefix="py")


def fails(relative: str, eval_example: EvalExample, match: str, **kwargs) -> None:
    __tracebackhide__ = True
    with pytest.raises(ExampleFailure, match=match):
        run_example(example(relative), eval_example, **kwargs)


# -- printed output, exceptions, lint, seeding ---------------------------------------
def test_wrong_output_line_names_file_and_line(eval_example: EvalExample) -> None:
    fails(
        "examples/wrong_output.py",
        eval_example,
        r"(?s)tests/fixtures/examples/wrong_output.py:5: printed output differs.*"
        r"#> torch.Size\(\[3, 2\]\).*#> torch.Size\(\[2, 3\]\).*"
        r"if the new output is right: make update FILE=tests/fixtures/examples/wrong_output.py",
    )


def test_exception_in_example_names_file_and_line(eval_example: EvalExample) -> None:
    fails("examples/raises.py", eval_example, r"examples/raises.py:6: example raised RuntimeError")


def test_ruff_violation(eval_example: EvalExample) -> None:
    from _pytest.outcomes import Failed

    with pytest.raises(Failed, match=r"(?s)ruff failed.*raises?|F401"):
        run_example(example("examples/ruff_violation.py"), eval_example)


def test_line_over_the_snippets_line_length_names_file_and_line(
    eval_example: EvalExample,
) -> None:
    """A 77-character line fails with ruff's E501, naming the file and the line."""
    from _pytest.outcomes import Failed

    with pytest.raises(
        Failed,
        match=r"(?s)ruff failed.*tests/fixtures/examples/line_too_long.py:4:\d+: "
        r"E501 Line too long \(77 > 76\)",
    ):
        run_example(example("examples/line_too_long.py"), eval_example)


def test_examples_are_linted_with_the_snippets_ruff_config() -> None:
    """The harness's settings come from snippets/ruff.toml (which extends
    pyproject.toml), not from a copy of them."""
    import tomllib

    from sitelib.check import adapter as pytest_examples_adapter

    snippets = tomllib.loads((ROOT / "snippets" / "ruff.toml").read_text("utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["ruff"]
    assert snippets["extend"] == "../pyproject.toml"
    assert pytest_examples_adapter.CONFIG == {
        "line_length": snippets["line-length"],
        "ruff_line_length": snippets["line-length"],
        "target_version": project["target-version"],
        "ruff_select": ["E501"],
    }
    assert snippets["line-length"] == 76


def test_unseeded_example_fails(eval_example: EvalExample) -> None:
    # The #> line was right for seed 0; the harness presets another seed.
    run_example(example("examples/unseeded.py"), eval_example, seed=0)
    fails("examples/unseeded.py", eval_example, r"unseeded.py:4: printed output differs", seed=7)


# -- shape comments -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        (
            "wrong_int_dim.py",
            r"wrong_int_dim.py:5: h: expected \[B, 256\], got torch.Size\(\[32, 255\]\) \(dim 1: 256 != 255\)",
        ),
        (
            "wrong_rank.py",
            r"wrong_rank.py:4: x: expected \[B, 784\], got torch.Size\(\[32, 1, 28, 28\]\) \(rank: expected 2 dims, got 4\)",
        ),
        (
            "inconsistent_symbol.py",
            r"inconsistent_symbol.py:11: y: expected \[B, 2\], got torch.Size\(\[3, 2\]\) \(dim 0: B is 8 since line 10, here 3\)",
        ),
        (
            "never_runs.py",
            r"never_runs.py:6: shape comment never checked \(the line never ran\): y: \[N, 3\]",
        ),
        (
            "not_a_tensor.py",
            r"not_a_tensor.py:4: n: expected \[2\], got int, which is not a tensor",
        ),
        (
            "misplaced.py",
            r"misplaced.py:4: shape comment '# x: \[2, 3\]' is not on an assignment, return or def line",
        ),
        ("malformed.py", r"malformed.py:4: malformed shape comment"),
        (
            "wrong_dtype.py",
            r"wrong_dtype.py:5: y: expected \[B, 3\] bfloat16, got dtype float16",
        ),
        (
            "unknown_dtype.py",
            r"unknown_dtype.py:4: malformed shape comment .*'float33' is not a torch dtype",
        ),
        # Read as shape claims by a reader, so checked or refused (docs/authors.md).
        *[
            (
                f"unparsed_{name}.py",
                rf"unparsed_{name}.py:4: malformed shape comment '# {claim}': it reads as a "
                r"shape claim but is not one the suite can check",
            )
            for name, claim in [
                ("parens", r"\(32, 10\)"),
                ("named_parens", r"logits: \(32, 10\)"),
                ("torch_size", r"logits: torch.Size\(\[32, 10\]\)"),
            ]
        ],
    ],
)
def test_shape_comment_failures(fixture: str, message: str, eval_example: EvalExample) -> None:
    fails(f"shapes/{fixture}", eval_example, message)


# -- gradients ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("none_grad.py", r"none_grad.py: model.unused.weight.grad is None after backward\(\)"),
        ("nan_grad.py", r"nan_grad.py: model.weight.grad is not finite"),
        (
            "wrong_shape_grad.py",
            r"wrong_shape_grad.py: model.weight.grad has shape torch.Size\(\[5\]\), parameter has torch.Size\(\[2, 3\]\)",
        ),
    ],
)
def test_gradient_failures(fixture: str, message: str, eval_example: EvalExample) -> None:
    fails(f"grads/{fixture}", eval_example, message)


@pytest.mark.parametrize("fixture", ["marked_no_grad.py", "marked_nonfinite.py"])
def test_markers_that_say_why_are_honoured(fixture: str, eval_example: EvalExample) -> None:
    run_example(example(f"grads/{fixture}"), eval_example)


def test_a_model_in_main_passes_when_a_marker_says_why(
    tmp_path: Path, eval_example: EvalExample
) -> None:
    source = (FIXTURES / "grads" / "inside_main.py").read_text("utf-8")
    marked = tmp_path / "marked_no_module.py"
    marked.write_text(source + "# no-module-to-check: a self-test of the marker\n", "utf-8")
    run_example(
        CodeExample.create(marked.read_text("utf-8"), path=marked, prefix="py"), eval_example
    )


def test_an_example_cannot_hide_its_model_from_the_gradient_check(
    eval_example: EvalExample,
) -> None:
    """backward() ran, but the model lived inside main(): nothing was left to check."""
    fails(
        "grads/inside_main.py",
        eval_example,
        r"inside_main.py: it calls backward\(\) but leaves no nn.Module with trainable "
        r"parameters in its globals.*no-module-to-check",
    )


# -- warnings and global state --------------------------------------------------------
def test_a_future_warning_fails_the_example_naming_it(eval_example: EvalExample) -> None:
    fails(
        "examples/future_warning.py",
        eval_example,
        r"examples/future_warning.py:4: example raised FutureWarning: "
        r".*torch.cpu.amp.autocast.* is deprecated",
    )


def test_a_warning_the_example_catches_itself_passes(eval_example: EvalExample) -> None:
    run_example(example("examples/catches_future_warning.py"), eval_example)


def test_an_example_that_compiles_is_not_rerun_as_on_an_accelerator(
    eval_example: EvalExample,
) -> None:
    run_example(example("examples/compiled_counts.py"), eval_example)


def test_nothing_an_example_flips_leaks_into_the_next(eval_example: EvalExample) -> None:
    import logging
    import warnings

    import torch._dynamo

    filters = list(warnings.filters)
    dynamo_log = logging.getLogger("torch._dynamo")
    handlers = list(dynamo_log.handlers)
    run_example(example("examples/flips_global_state.py"), eval_example)
    assert not torch._logging._internal.log_state.is_artifact_enabled("recompiles")
    assert dynamo_log.handlers == handlers, dynamo_log.handlers
    recompiles_log = logging.getLogger("torch._dynamo.guards.__recompiles")
    assert not recompiles_log.isEnabledFor(logging.DEBUG)
    assert not torch.are_deterministic_algorithms_enabled()
    assert not torch.is_anomaly_enabled()
    assert torch.get_default_dtype() == torch.float32
    assert torch.is_grad_enabled()
    assert torch.get_float32_matmul_precision() == "highest"
    assert warnings.filters == filters
    assert not torch._dynamo.utils.counters["stats"], dict(torch._dynamo.utils.counters)


# -- devices --------------------------------------------------------------------------
def test_device_check_names_the_forgotten_variable() -> None:
    # CUDA is not needed to prove the check: 'meta' plays the accelerator.
    on_meta = torch.nn.Linear(2, 2, device="meta")
    left_on_cpu = torch.nn.Linear(2, 2)
    problems = check_devices(
        {
            "model": on_meta,
            "batch": torch.ones(2, device="meta"),
            "features": torch.ones(2),
            "head": left_on_cpu,
            "device": torch.device("meta"),
            "steps": 3,
        },
        "meta",
        exempt=[],
    )
    assert problems == [
        "features is on cpu, expected meta (forgot .to(device)? or mark it '# stays-on-cpu: features')",
        "head.weight is on cpu, expected meta (forgot .to(device)? or mark it '# stays-on-cpu: head')",
    ]
    assert check_devices({"features": torch.ones(2)}, "meta", exempt=["features"]) == []


def test_device_cuda_without_cuda_fails_at_once() -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA; the check is for machines without it")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--device", "cuda", "--collect-only", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"},
    )
    assert result.returncode != 0
    assert "--device cuda: CUDA is not available here" in result.stderr + result.stdout


# -- the minimum-release marker: # requires: torch>=2.13 -------------------------------
def test_an_example_that_needs_a_newer_torch_is_skipped_with_the_reason(
    eval_example: EvalExample,
) -> None:
    """Skipped in this process and as pasted (tests/test_fresh.py asks the same rule,
    skip_reason), on either device, with the release it needs and the one running."""
    reason = (
        "tests/fixtures/requires/needs_torch_99.py: needs torch 99.0 or newer "
        f"(this is torch {torch.__version__})"
    )
    with pytest.raises(Skipped) as skipped:
        run_example(example("requires/needs_torch_99.py"), eval_example)
    assert str(skipped.value) == reason
    path = FIXTURES / "requires" / "needs_torch_99.py"
    assert skip_reason(snippet_example(path), "cpu") == reason
    assert skip_reason(snippet_example(path), "cuda") == reason
    fence = CodeExample.create(
        "print(1)\n#> 1\n",
        path=FIXTURES / "requires" / "page.md",
        prefix='py requires="torch>=99.0"',
    )
    assert "needs torch 99.0 or newer" in skip_reason(fence, "cpu")


def test_an_example_whose_release_is_met_runs(eval_example: EvalExample) -> None:
    assert skip_reason(example("requires/needs_torch_2_0.py"), "cpu") is None
    run_example(example("requires/needs_torch_2_0.py"), eval_example)  # prints its #> line


@pytest.mark.parametrize(
    ("fixture", "line", "value"),
    [("greater_than.py", 3, "torch>2.13"), ("not_a_release.py", 1, "torch>=abc")],
)
def test_a_requirement_the_checks_cannot_read_names_file_and_line(
    fixture: str, line: int, value: str, eval_example: EvalExample
) -> None:
    message = re.escape(
        f"tests/fixtures/requires/{fixture}:{line}: '# requires: {value}' is not a "
        "requirement the checks know: 'cuda', 'torch>=X.Y' (the oldest release it runs on) "
        "or 'torch<X.Y'"
    )
    fails(f"requires/{fixture}", eval_example, message)
    with pytest.raises(ExampleFailure, match=message):  # as pasted: the same rule
        skip_reason(snippet_example(FIXTURES / "requires" / fixture), "cpu")


def test_releases_compare_as_versions() -> None:
    since = TorchRange(oldest="2.13")
    assert since.admits("2.13.0+cpu") and since.admits("2.15.0+cu132")
    assert not since.admits("2.10.0+cu128") and not since.admits("2.12.1")
    assert TorchRange("2.10").admits("2.10.0") and not TorchRange("2.10").admits("2.9.1")
    before = TorchRange(before="2.15")
    assert before.admits("2.14.1") and before.admits("2.9.1"), "not as text"
    assert not before.admits("2.15.0+cu132") and not before.admits("2.15.0rc1")
    assert TorchRange("2.10", "2.15").admits("2.12.1")
    assert required_torch(["cuda", "torch>=2.10", "torch<2.15"]) == TorchRange("2.10", "2.15")


def test_an_output_that_changed_with_a_release_is_checked_per_range(
    eval_example: EvalExample,
) -> None:
    """An example whose output changed with a release is two files, one per range, each
    with its own #> lines. On a release before 99 the first runs and the second is
    skipped with its reason; on a faked 99.0 the other way round, and the second, run
    on this older torch, prints what the first's #> line says, not its own: it fails."""
    before = example("requires/dtype_before_99.py")
    since = example("requires/dtype_from_99.py")
    assert skip_reason(before, "cpu") is None
    run_example(before, eval_example)
    assert skip_reason(since, "cpu") == (
        "tests/fixtures/requires/dtype_from_99.py: needs torch 99.0 or newer "
        f"(this is torch {torch.__version__})"
    )
    assert skip_reason(before, "cpu", torch_version="99.0") == (
        "tests/fixtures/requires/dtype_before_99.py: needs torch older than 99.0 "
        "(this is torch 99.0)"
    )
    assert skip_reason(since, "cpu", torch_version="99.0") is None
    fails(
        "requires/dtype_from_99.py",
        eval_example,
        r"dtype_from_99.py:9: printed output differs(?s:.*)#> torch.float32(?s:.*)#> torch.float16",
        torch_version="99.0",
    )


def test_the_torch_report_shows_the_skip_and_its_reason() -> None:
    """make test-torch's report on a release older than the marker asks for: a SKIP
    line with the reason, counted as skipped (not failed, not passed)."""
    result = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--torch-report"),
            *("tests/test_examples.py", "--example=tests/fixtures/requires/needs_torch_99.py"),
            *("-k", "test_example"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    skip = (
        "SKIP tests/fixtures/requires/needs_torch_99.py:0: tests/fixtures/requires/"
        f"needs_torch_99.py: needs torch 99.0 or newer (this is torch {torch.__version__})"
    )
    assert skip in result.stdout.splitlines(), result.stdout[-2000:]
    assert "examples 0 passed, 0 failed, 1 skipped" in result.stdout, result.stdout[-2000:]


# -- pages and the site ---------------------------------------------------------------
def test_raising_fence_in_page(eval_example: EvalExample) -> None:
    examples = all_examples(FIXTURES / "pages")
    snippets = [e for e in examples if e.path.suffix == ".py"]
    assert [e.path.name for e in snippets] == [
        "included.py",
        "orphan.py",
    ]
    fences = [e for e in examples if e.path.suffix == ".md"]
    assert len(fences) == 1, "the include-only fence must not be collected a second time"
    with pytest.raises(
        ExampleFailure, match=r"tests/fixtures/pages/docs/index.md:7: example raised RuntimeError"
    ):
        run_example(fences[0], eval_example)


def test_orphan_snippet_is_reported(tmp_path: Path) -> None:
    project = fixture_project(tmp_path, FIXTURES / "pages")
    assert bookkeeping(project) == [
        "snippets/chapter/orphan.py: orphan snippet, no page includes it "
        '(include it in its chapter: --8<-- "chapter/orphan.py")'
    ]


def test_missing_include_fails_the_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURES / "site_missing_include")
    assert bookkeeping(project) == [
        "docs/index.md:4: includes snippets/chapter/does_not_exist.py, which does not exist"
    ]
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    # One line naming the page and the line (hooks/includes.py), no traceback.
    assert (
        "ERROR   -  docs/index.md:4: includes snippets/chapter/does_not_exist.py, "
        "which does not exist\n" in result.stderr
    ), result.stderr
    assert "Traceback" not in result.stderr
    # make check FILE=docs/index.md says the same, before it runs anything.
    from sitelib.check.examples import chosen_examples

    with pytest.raises(FileNotFoundError) as missing:
        chosen_examples(["docs/index.md"], project)
    assert str(missing.value) == (
        "docs/index.md:4: includes snippets/chapter/does_not_exist.py, which does not exist"
    )


def test_broken_link_anchor_and_nav_fail_the_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURES / "site_links")
    assert bookkeeping(project) == ["docs/not_in_nav.md: page is not in mkdocs.yml's nav"]
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    log = result.stderr
    assert "Doc file 'index.md' contains a link 'no_such_page.md'" in log
    assert "Doc file 'index.md' contains a link '#no-such-heading'" in log
    assert "not_in_nav.md" in log


FRAME_PROBLEMS = [
    'docs/first.md:3: "What you will learn" has 2 points; it has 3 to 6 (a list, one item a point)',
    'docs/first.md:10: a "Read first" link points to an earlier chapter\'s page, not '
    "second/index.md",
    'docs/first.md:19: an "In short" link points to #no-such-heading, which is no heading of '
    "docs/first.md",
    'docs/first.md:20: an "In short" point links to the section that shows it',
    'docs/second/index.md:3: a chapter opens with !!! learn "What you will learn" under its title',
    'docs/second/index.md:10: an "In short" link points into its chapter, not ../first.md#a-section',
    'docs/second/index.md:11: an "In short" link points to a section (#anchor), not a whole '
    "page: sub.md",
    'docs/second/sub.md:11: a chapter page ends with !!! summary "In short"',
]


def test_a_chapter_without_its_frame_fails_the_build(tmp_path: Path) -> None:
    """hooks/frame.py: too few points, a "Read first" link to a later chapter, "In short"
    links to a missing heading, to another chapter and to a whole page, a point with no
    link, a chapter page that does not open with the frame and one that does not end
    with "In short": each a warning naming page and line, so --strict fails."""
    project = fixture_project(tmp_path / "project", FIXTURES / "site_frame")
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    found = [
        line.split("WARNING -  ", 1)[1]
        for line in result.stderr.splitlines()
        if "WARNING -  docs/" in line
    ]
    assert found == FRAME_PROBLEMS, result.stderr[-3000:]


BAD_MATH = r"docs/index.md:13: cannot render the formula $\frac{1}{$ as MathML: a { is never closed"


def test_broken_formula_fails_the_mkdocs_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURES / "site_bad_math")
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    assert "Error reading page 'index.md':" in result.stderr
    assert BAD_MATH in result.stderr, result.stderr[-2000:]


def test_broken_formula_fails_the_zensical_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURES / "site_bad_math")
    result = zensical_build(project)
    assert result.returncode != 0
    assert BAD_MATH in result.stdout + result.stderr, (result.stdout + result.stderr)[-2000:]


@pytest.mark.parametrize(
    "formula, problem",
    [
        (r"$\frac{1}{$", "a { is never closed"),
        (r"$\frac{1}{1-p$", "a { is never closed"),  # latex2mathml alone accepts it
        (r"$x}$", "a } closes no {"),  # latex2mathml alone prints the }
        (r"$\fracc{1}{2}$", r"unknown command \fracc"),  # latex2mathml alone prints \fracc
        (r"$x^$", "latex2mathml raised MissingSuperScriptOrSubscriptError"),
        (r"$\left( x$", "latex2mathml raised ExtraLeftOrMissingRightError"),
        ("$$\n\\frac{1}{\n$$", "a { is never closed"),
    ],
)
def test_bad_latex_is_reported_with_its_line(formula: str, problem: str) -> None:
    source = f"# Page\n\nGood: $x^2$ and `{formula}` in code.\n\n- Bad:\n\n    {formula}\n"
    with pytest.raises(MathError) as raised:
        markdown.markdown(source, extensions=["sitelib.site.mathml"])
    line = source[: source.rindex(formula)].count("\n") + 1
    shown = " ".join(formula.split())
    assert str(raised.value).startswith(
        f"<markdown>:{line}: cannot render the formula {shown} as MathML: {problem}"
    )


def test_dtype_in_a_shape_comment_is_checked(eval_example: EvalExample) -> None:
    run_example(example("shapes/dtype_ok.py"), eval_example)


def test_words_in_brackets_are_not_a_shape_claim(eval_example: EvalExample) -> None:
    run_example(example("shapes/not_shape_like_ok.py"), eval_example)


def test_shape_comment_on_a_line_with_a_comprehension_is_checked(eval_example: EvalExample) -> None:
    run_example(example("shapes/comprehension_ok.py"), eval_example)


def test_a_colon_above_a_hidden_marker_is_reported() -> None:
    assert hidden_marker_problems(FIXTURES / "hidden_marker") == [
        "snippets/chapter/colon_above_marker.py:4: ends with a colon above a marker the "
        "site does not show (# expect-no-grad)"
    ]


def test_output_inside_a_function_body_fails_unless_marked(eval_example: EvalExample) -> None:
    """#> lines under a print() inside a def sit above the calls that produce them: the
    run refuses the example, naming the first such line; a reason marker lets it be."""
    fails(
        "output_in_function/prints_in_def.py",
        eval_example,
        r"tests/fixtures/output_in_function/prints_in_def.py:10: #> output inside a "
        r"function body.*# output-in-function: <why>",
    )
    marked = (FIXTURES / "output_in_function" / "marked.py").read_text("utf-8")
    assert output_in_function(marked) == [11]
    assert output_in_function_problems(marked, "marked.py") == []
    # Output under a top-level call, a with block or a for loop is not in a function.
    top = "def f():\n    return 1\n\n\nprint(f())\n#> 1\nfor i in [1]:\n    print(i)\n    #> 1\n"
    assert output_in_function(top) == []


def test_snippet_without_the_device_idiom_is_reported() -> None:
    """The idiom is two consecutive lines; code-annotation markers may follow them
    (annotated_idiom.py passes), and a ``# script:`` may have them in a function, its
    first line wrapped (script_idiom_in_main.py passes). The old one-line form, the
    two lines apart, an example's idiom inside a function, and
    torch.cuda.is_available() are each reported."""
    assert DEVICE_IDIOM.splitlines() == [
        "accelerator = torch.accelerator.current_accelerator(check_available=True)",
        'device = accelerator or torch.device("cpu")',
    ]
    idiom = ": does not pick its device with the site's idiom, these two lines:\n" + DEVICE_IDIOM
    assert device_idiom_problems(FIXTURES / "device_idiom") == [
        "snippets/chapter/cuda_is_available.py:3" + idiom,
        "snippets/chapter/idiom_in_a_function.py:6" + idiom,
        "snippets/chapter/idiom_lines_apart.py:7" + idiom,
        "snippets/chapter/one_line_idiom.py:4" + idiom,
    ]


def test_multi_process_snippet_without_the_shutdown_is_reported() -> None:
    """A launched snippet that ends with a plain barrier and destroy_process_group() is
    named at that line; the three lines with an annotation marker pass, and a
    one-process snippet needs none."""
    assert shutdown_idiom_problems(FIXTURES / "shutdown_idiom") == [
        "snippets/chapter/bare_destroy.py:6: does not end with the site's shutdown, "
        "these three lines:\n" + SHUTDOWN_IDIOM
    ]


# -- what an example may not leave behind (sitelib/check/tidy.py) ----------------------
def test_a_warning_the_example_does_not_catch_fails_at_its_line(eval_example: EvalExample) -> None:
    """torch warns from inside its own code (a UserWarning a reader's terminal shows):
    the failure names the example's line that was running. The same warning caught
    and printed (catches_future_warning.py does it for another) passes."""
    fails(
        "examples/warns_inside_torch.py",
        eval_example,
        r"warns_inside_torch.py:7: warned UserWarning: To copy construct from a tensor",
    )


def test_pyplot_figures_and_settings_do_not_leak(eval_example: EvalExample) -> None:
    """A figure left open fails; an rc setting changed fails; after either, and after an
    example that shows its figure, no figure is left open and the settings are back."""
    import matplotlib
    import matplotlib.pyplot as plt

    width = matplotlib.rcParams["lines.linewidth"]
    fails("examples/leaves_figure_open.py", eval_example, r"leaves 1 pyplot figure\(s\) open")
    assert plt.get_fignums() == []
    fails(
        "examples/changes_rc_params.py",
        eval_example,
        r"changes matplotlib's rcParams \(lines.linewidth\)",
    )
    assert matplotlib.rcParams["lines.linewidth"] == width
    assert plt.get_fignums() == [], "plt.show() closed what it would have shown"
    assert plt.gca().get_yscale() == "linear", "the next example draws on fresh axes"
    plt.close("all")


# -- as on an accelerator (sitelib/check/device_sim.py) --------------------------------
@pytest.mark.parametrize(
    ("fixture", "line", "drawn"),
    [
        ("dropout_values_printed.py", 11, "10"),
        ("device_draw_shifts_cpu_draws.py", 11, "8"),
        ("moved_tensor_aliases.py", 11, "none"),
    ],
)
def test_output_that_a_gpu_would_change_fails(
    fixture: str, line: int, drawn: str, eval_example: EvalExample
) -> None:
    fails(
        f"device_sim/{fixture}",
        eval_example,
        rf"(?s){fixture}:{line}: printed output differs from the #> lines when its device "
        rf"behaves like a GPU.*at line\(s\): {drawn}\)",
    )


@pytest.mark.parametrize(
    "fixture",
    [
        "device_independent.py",
        # activation checkpointing replays dropout from the device generator's state at
        # forward, found by the saved CPU state's identity (its bytes are not enough)
        "checkpoint_replays_dropout.py",
    ],
)
def test_device_randomness_that_is_not_printed_passes(
    fixture: str, eval_example: EvalExample
) -> None:
    run_example(example(f"device_sim/{fixture}"), eval_example)


# -- pytest-examples' private names (sitelib/check/adapter.py) -------------------------
def test_pytest_examples_adapter_still_fits(tmp_path: Path) -> None:
    from sitelib.check import adapter as pytest_examples_adapter

    assert pytest_examples_adapter.problems(tmp_path) == []


def test_pytest_examples_adapter_reports_a_missing_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_examples import run_code

    from sitelib.check import adapter as pytest_examples_adapter

    monkeypatch.delattr(run_code, "parent_frame_id")
    monkeypatch.delattr(run_code, "Arg")
    monkeypatch.delattr(run_code.MockPrintFunction, "_find_line_number")
    monkeypatch.delattr(EvalExample, "_run")
    assert pytest_examples_adapter.problems(tmp_path) == [
        "pytest_examples.run_code.parent_frame_id is gone or not an int",
        "pytest_examples.run_code.Arg is gone",
        "MockPrintFunction._find_line_number is gone",
        "EvalExample._run is gone",
    ]


def test_print_capture_names_the_line_of_each_print(tmp_path: Path) -> None:
    """The cheap frame lookup finds the line inspect.stack() did: a print inside a
    function of the example is recorded under that print, inside the function."""
    from pytest_examples import CodeExample

    from sitelib.check import adapter as pytest_examples_adapter

    source = "def show(x):\n    print(x)\n\n\nshow(1)\nprint(2)\n"
    example = CodeExample.create(source, path=tmp_path / "probe.py")
    with pytest_examples_adapter.print_capture():
        updated, _, lines = pytest_examples_adapter.run_outside_pytest(
            example, tmp_path / "probe.py", str
        )
    assert lines == ["1", "2"]
    assert updated == "def show(x):\n    print(x)\n    #> 1\n\n\nshow(1)\nprint(2)\n#> 2\n"


def test_device_names_are_normalised_but_module_names_are_not() -> None:
    from sitelib.check.output import normalise_device

    printed = "tensor([1.], device='cuda:0') device(type='cuda', index=0) on cuda:0 torch.cuda.amp"
    assert normalise_device(printed) == "tensor([1.]) device(type='cpu') on cpu torch.cuda.amp"


def test_print_over_several_lines_is_refused(eval_example: EvalExample) -> None:
    fails(
        "examples/multiline_print.py",
        eval_example,
        r"multiline_print.py:4: print\(\) spans lines 4-7; its #> lines would be written inside it",
    )


# -- the author's loop ------------------------------------------------------------


def test_make_update_rewrites_the_output_lines_and_then_passes(tmp_path) -> None:
    """The author's one-file update: the command the failure hint prints writes the
    real output into the snippet, passes, and `make check` passes afterwards."""
    import shutil

    from sitelib.check.output import update_command

    snippet = tmp_path / "wrong_output.py"
    shutil.copy(ROOT / "tests" / "fixtures" / "update" / "wrong_output.py", snippet)
    assert update_command("snippets/x/y.py") == "make update FILE=snippets/x/y.py"

    def make(target: str) -> subprocess.CompletedProcess:
        # The Makefile's own targets, with this test's environment (.venv, or a
        # .venv-torch-VERSION under make test-torch).
        command = ["make", "-s", target, f"FILE={snippet}", f"VENV={sys.prefix}"]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)

    updated = make("update")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "#> torch.Size([2, 3])\n" in snippet.read_text() and "#> 6.0\n" in snippet.read_text()
    after = make("check")
    assert after.returncode == 0, after.stdout + after.stderr


def test_a_comment_inside_a_box_is_the_box_s_and_one_after_it_is_not() -> None:
    """A ``<!-- release: ... -->`` marker on a box's last point keeps the box the
    page's last thing; the same comment unindented, after the box, does not."""
    from sitelib.site.frame import boxes

    box = '!!! summary "In short"\n\n    - One point.\n      <!-- release: why -->\n'
    assert boxes(box)[0].end == 4
    assert boxes(box.replace("      <!--", "<!--"))[0].end == 3
