"""Every example on the site: each snippet file and each Python fence in a page."""

from __future__ import annotations

import pytest
from pytest_examples import CodeExample, EvalExample

from sitelib.checks import ExampleFailure, run_example
from sitelib.examples import all_examples, device_idiom_problems, example_id


@pytest.mark.parametrize("example", all_examples(), ids=example_id)
def test_example(
    example: CodeExample, eval_example: EvalExample, device: str, checks: bool
) -> None:
    try:
        run_example(example, eval_example, device, checks=checks)
    except ExampleFailure as exc:
        pytest.fail(str(exc), pytrace=False)


def test_every_snippet_uses_the_device_idiom() -> None:
    problems = device_idiom_problems()
    assert not problems, "\n".join(problems)
