""" "Report a problem" (sitelib/site/report.py): the issue form is valid and asks for
what a report needs; a link's parameters are the form's field ids (the browser tests
check every link of the built site, and a fork's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sitelib.site import report
from sitelib.site.layout import ROOT
from sitelib.site.report import FORM, form_field_ids, parameter_problems, report_url

BIN = Path(sys.executable).parent


def form_errors(path: Path) -> str:
    """check-jsonschema's complaints about an issue form (its schema is bundled)."""
    result = subprocess.run(
        [str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-issue-forms", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return "" if result.returncode == 0 else result.stdout + result.stderr


def test_the_issue_form_is_valid() -> None:
    errors = form_errors(ROOT / FORM)
    assert not errors, errors


def test_the_form_check_rejects_a_broken_form(tmp_path: Path) -> None:
    bad = tmp_path / "form.yml"
    bad.write_text("name: x\nbody:\n  - type: input\n    id: page\n", "utf-8")
    assert "description" in form_errors(bad)


def test_the_form_asks_for_what_a_report_needs() -> None:
    assert form_field_ids() >= {
        "page",
        "block",
        "site-torch",
        "site-commit",
        "torch",
        "device",
        "ran",
        "saw",
    }


def test_a_link_fills_in_the_form(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_SHA", "0" * 40)
    report.site_commit.cache_clear()
    try:
        url = report_url("https://github.com/a-fork/repo/", "https://x/y/", "z.py", "snippets/z.py")
    finally:
        report.site_commit.cache_clear()
    import torch

    assert url == (
        "https://github.com/a-fork/repo/issues/new?template=report-a-problem.yml"
        "&title=Problem%3A%20z.py&page=https%3A%2F%2Fx%2Fy%2F&block=snippets%2Fz.py"
        f"&site-torch={torch.__version__.replace('+', '%2B')}&site-commit={'0' * 40}"
    )
    assert parameter_problems(url) == []


def test_a_parameter_that_names_no_field_is_caught() -> None:
    url = "https://github.com/o/r/issues/new?template=report-a-problem.yml&page=p&torch-version=2"
    assert parameter_problems(url) == [
        f"{url}: the parameter 'torch-version' names no field of "
        f".github/ISSUE_TEMPLATE/report-a-problem.yml (its ids: {', '.join(sorted(form_field_ids()))})"
    ]
    other = "https://github.com/o/r/issues/new?template=bug.yml"
    assert parameter_problems(other) == [f"{other}: opens 'bug.yml', not report-a-problem.yml"]
