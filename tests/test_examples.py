"""Every example on the site: each snippet file and each Python fence in a page.

A multi-process example (``# launch: torchrun --nproc-per-node N``) runs as that
many ranks (sitelib/check/launch.py); every other example runs in this process
(sitelib/check/run.py).
"""

from __future__ import annotations

import pytest
from pytest_examples import CodeExample, EvalExample

from sitelib.check.console import run_script_example
from sitelib.check.examples import example_id, is_script, launch_command
from sitelib.check.launch import LaunchError, run_launched_example
from sitelib.check.outcomes import ExampleFailure, Skipped
from sitelib.check.run import run_example
from sitelib.site.layout import ROOT
from sitelib.site.snippets import (
    device_idiom_problems,
    hidden_marker_problems,
    shutdown_idiom_problems,
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every example, or those of ``--example`` (make check)."""
    if "example" in metafunc.fixturenames:
        from sitelib.check.examples import all_examples, chosen_examples

        chosen = metafunc.config.getoption("example")
        examples = chosen_examples(chosen) if chosen else all_examples()
        metafunc.parametrize("example", examples, ids=example_id)


def test_example(
    example: CodeExample,
    eval_example: EvalExample,
    device: str,
    checks: bool,
    in_process_failures: dict,
    request,
) -> None:
    # pytest's outcome is raised outside the `except`: inside it, Python would chain
    # it to the failure and pytest print the message twice ("During handling...").
    failure = skip = None
    try:
        if is_script(example):  # run by its page's console commands, compared
            server = request.getfixturevalue("rank_server")
            run_script_example(example, device, server)
        elif launch_command(example):
            server = request.getfixturevalue("rank_server")
            run_launched_example(example, eval_example, device, server)
        else:
            run_example(example, eval_example, device, checks=checks)
    except Skipped as skipped:
        skip = str(skipped)
    except (ExampleFailure, LaunchError) as exc:
        failure = str(exc)
    if skip is not None:
        pytest.skip(skip)
    if failure is not None:
        in_process_failures[example.path.resolve()] = failure  # tests/test_fresh.py
        pytest.fail(failure, pytrace=False)


def test_every_snippet_uses_the_device_idiom() -> None:
    problems = device_idiom_problems()
    assert not problems, "\n".join(problems)


def test_every_multi_process_snippet_ends_with_the_shutdown() -> None:
    problems = shutdown_idiom_problems()
    assert not problems, "\n".join(problems)


def test_no_comment_introduces_a_hidden_marker() -> None:
    problems = hidden_marker_problems()
    assert not problems, "\n".join(problems)


def test_make_check_of_a_page_checks_every_example_it_shows() -> None:
    from sitelib.check.examples import chosen_examples, display_path
    from sitelib.site.layout import includes_in

    page = ROOT / "docs" / "distributed" / "index.md"
    shown = [display_path(e) for e in chosen_examples(["docs/distributed/index.md"])]
    included = [f"snippets/{i.path}" for i in includes_in(page)]
    assert shown[: len(included)] == list(dict.fromkeys(included))
    assert chosen_examples(["docs/index.md"]) == []  # the home page shows none
    with pytest.raises(FileNotFoundError, match="docs/nothere.md: no such snippet or page"):
        chosen_examples(["docs/nothere.md"])
