"""Verification records (sitelib/site/records.py): a run of the checks writes what
each example did, keyed by its source; the build shows it, per chapter under its
title and per example under its block. Never more than what ran."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from types import SimpleNamespace

from sitelib.check.report import RunReport
from sitelib.site import records
from sitelib.site.layout import ROOT, fixture_project, html_text, load_config, mkdocs_build
from sitelib.site.snippets import TorchRange

FIXTURE = ROOT / "tests" / "fixtures" / "records"
DAY = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


def test_a_record_is_keyed_by_the_source_it_ran(tmp_path: Path) -> None:
    source = "print(1)\n#> 1\n"
    digest = records.source_hash(source)
    records.write(
        tmp_path, "2.13.0+cpu", "cpu", "make test", {"a/x.py": (digest, "passed", "")}, DAY
    )
    (found,) = records.load(tmp_path)
    assert (found.release, found.device, found.date) == ("2.13.0", "cpu", "2026-11-30")
    assert found.result(digest) == records.Result("passed")
    assert found.result(records.source_hash(source + "print(2)\n")) is None, "edited since"
    assert records.latest([found], [records.source_hash("other")], "2.10.0", "2.15.0") == []


def test_the_run_report_writes_each_example_once(tmp_path: Path) -> None:
    """An example's two tests (as written, as pasted) make one outcome: a failure in
    either is the example's."""
    plugin = RunReport("2.13.0+cpu", records=tmp_path, device="cpu", command="make test")
    for nodeid, outcome, text in (
        (
            "tests/test_examples.py::test_example[forward_pass/call_vs_forward.py]@checks",
            "passed",
            "",
        ),
        (
            "tests/test_fresh.py::test_snippet_runs_as_pasted[forward_pass/call_vs_forward.py]",
            "failed",
            "E   snippets/forward_pass/call_vs_forward.py: failed in a fresh process",
        ),
    ):
        plugin.pytest_runtest_logreport(
            SimpleNamespace(
                nodeid=nodeid,
                when="call",
                outcome=outcome,
                passed=outcome == "passed",
                failed=outcome == "failed",
                skipped=False,
                longreprtext=text,
                location=("tests/x.py", 1, "x"),
            )
        )
    plugin.pytest_sessionfinish(None)
    (found,) = records.load(tmp_path)
    source = (ROOT / "snippets" / "forward_pass" / "call_vs_forward.py").read_text("utf-8")
    result = found.result(records.source_hash(source))
    assert result.outcome == "failed" and "failed in a fresh process" in result.reason


def _page(site: Path) -> str:
    return (site / "chapter" / "index.html").read_text("utf-8")


def _record_line(page: str) -> str:
    """What the header says was run (the supported range beside it left out)."""
    line = re.search(r'<p class="verification-record">(.*?)</p>', page, re.S)[1]
    return html_text(re.sub(r'<span class="supported-range">.*?</span>', "", line))


def test_the_header_names_the_supported_range(tmp_path: Path) -> None:
    """Beside what ran, the header names the range the site supports, from mkdocs.yml."""
    project = fixture_project(tmp_path / "project", FIXTURE)
    result = mkdocs_build(project, tmp_path / "site", env=dict(os.environ, SITE_RECORDS=""))
    assert result.returncode == 0, result.stderr[-2000:]
    torch = load_config(project)["extra"]["torch"]
    line = re.search(r'<p class="verification-record">(.*?)</p>', _page(tmp_path / "site"), re.S)
    assert f"supported: torch {torch['oldest']} to {torch['newest_verified']}" in html_text(line[1])


def test_the_build_shows_what_ran_and_only_that(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURE)
    digest = records.source_hash((project / "snippets" / "chapter" / "one.py").read_text())
    folder = tmp_path / "records"
    failed = {"chapter/one.py": (digest, "failed", "snippets/chapter/one.py:3: differs")}
    records.write(folder, "2.13.0+cpu", "cpu", "make test", failed, DAY)
    passed = {"chapter/one.py": (digest, "passed", "")}
    later = DAY + dt.timedelta(minutes=5)
    records.write(folder, "2.99.0+cu132", "cpu", "make test-torch VERSION=latest", passed, later)
    records.write(
        folder, "2.10.0", "cpu", "make test-torch", {"x/y.py": ("0" * 16, "passed", "")}, later
    )

    result = mkdocs_build(
        project, tmp_path / "site", env=dict(os.environ, SITE_RECORDS=str(folder))
    )
    assert result.returncode == 0, result.stderr[-2000:]  # a newer release never fails --strict
    assert "torch 2.99.0 (cpu) is outside the supported range" in result.stderr
    page = _page(tmp_path / "site")
    line = _record_line(page)
    assert "CPU: torch 2.13.0: 1 failed (2026-11-30)" in line, line
    assert "newer than the supported range: torch 2.99.0 passed (2026-11-30)" in line, line
    assert "2.10.0" not in line, "a record of other examples says nothing of this chapter"
    assert "CUDA: not yet run" in line, line
    note = html_text(re.search(r'<p class="example-record">(.*?)</p>', page, re.S)[1])
    assert note == "Failed on CPU, torch 2.13.0, 2026-11-30.", note

    empty = mkdocs_build(
        project, tmp_path / "bare", env=dict(os.environ, SITE_RECORDS=str(tmp_path / "none"))
    )
    assert empty.returncode == 0, empty.stderr[-2000:]
    bare = _page(tmp_path / "bare")
    assert "no recorded runs" in _record_line(bare)
    assert 'class="example-record"' not in bare


def test_an_example_skipped_for_an_older_torch_is_not_counted_as_passed(tmp_path: Path) -> None:
    """``# requires: torch>=2.13``: the block says so and names the releases it ran on
    and those it was skipped on; the chapter's header does not count the older release
    as passed for it."""
    digest, other = records.source_hash("# requires: torch>=2.13\n"), records.source_hash("x")
    why = "snippets/a/new.py: needs torch 2.13 or newer (this is torch 2.10.0+cu128)"
    older = {"a/new.py": (digest, "skipped", why), "a/old.py": (other, "passed", "")}
    records.write(tmp_path, "2.10.0+cu128", "cpu", "make test-torch", older, DAY)
    newer = {"a/new.py": (digest, "passed", ""), "a/old.py": (other, "passed", "")}
    records.write(tmp_path, "2.13.0+cpu", "cpu", "make test", newer, DAY)
    found = records.load(tmp_path)
    since = TorchRange(oldest="2.13")
    assert records.block_notes(found, digest, False, "2.10.0", "2.15.0", since) == [
        "Needs torch 2.13 or newer.",
        "CPU: ran on torch 2.13.0; skipped on torch 2.10.0, which is older.",
    ]
    assert records.block_notes([], digest, False, "2.10.0", "2.15.0", since) == [
        "Needs torch 2.13 or newer."
    ], "said before any run"
    (cpu, _) = records.summary(records.latest(found, [digest, other], "2.10.0", "2.15.0"))
    assert cpu["text"] == (
        "torch 2.13.0 (2026-11-30); "
        "torch 2.10.0 but for 1 example, which needs a newer torch (2026-11-30)"
    ), cpu
    (cpu, _) = records.summary(records.latest(found, [other], "2.10.0", "2.15.0"))
    assert cpu["text"] == "torch 2.10.0, 2.13.0 (2026-11-30)", "its other examples passed"


def test_an_example_for_the_releases_before_one_is_skipped_on_it(tmp_path: Path) -> None:
    """``# requires: torch<2.15`` (its twin, ``torch>=2.15``, prints what 2.15 prints):
    the block names the newer release it was skipped on, and the header says that
    example needs an older torch there."""
    digest, other = records.source_hash("# requires: torch<2.15\n"), records.source_hash("x")
    why = "snippets/a/old.py: needs torch older than 2.15 (this is torch 2.15.0+cu132)"
    newest = {"a/old.py": (digest, "skipped", why), "a/other.py": (other, "passed", "")}
    records.write(tmp_path, "2.15.0+cu132", "cpu", "make test-torch", newest, DAY)
    pinned = {"a/old.py": (digest, "passed", ""), "a/other.py": (other, "passed", "")}
    records.write(tmp_path, "2.13.0+cpu", "cpu", "make test", pinned, DAY)
    found = records.load(tmp_path)
    before = TorchRange(before="2.15")
    assert records.block_notes(found, digest, False, "2.10.0", "2.15.0", before) == [
        "Needs torch older than 2.15.",
        "CPU: ran on torch 2.13.0; skipped on torch 2.15.0, which is newer.",
    ]
    (cpu, _) = records.summary(records.latest(found, [digest, other], "2.10.0", "2.15.0"))
    assert cpu["text"] == (
        "torch 2.13.0 (2026-11-30); "
        "torch 2.15.0 but for 1 example, which needs an older torch (2026-11-30)"
    ), cpu
