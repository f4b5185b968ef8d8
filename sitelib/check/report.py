"""What a run of the suite found, per example: reported at its end, and kept.

:class:`RunReport` is a pytest plugin (tests/conftest.py registers it, on the
controller only when pytest-xdist runs the suite in several processes). It records
each test's outcome and, at the end of the run:

- with ``--torch-report`` (``make test-torch``): one line per example (PASS, FAIL or
  SKIP and its id), one per other failing test, and a summary naming the torch
  release, the counts and the time; on GitHub Actions each failure is also an
  ``::error`` annotation naming the example and the torch release;
- with ``--records DIR`` (``make test``, ``make test-torch``): a verification record
  (:mod:`sitelib.site.records`): each example's outcome, its two tests taken together
  (as written, :mod:`tests/test_examples.py`, and as pasted in a fresh process,
  ``tests/test_fresh.py``), keyed by the hash of its source, with the release, the
  device and the date.

No pytest import: the plugin only reads the reports pytest hands it.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from sitelib.site import records
from sitelib.site.layout import ROOT

# The tests that run an example, and how an example's id appears in their node ids.
EXAMPLE_TEST = re.compile(
    r"^tests/(?:test_examples\.py::test_example|test_fresh\.py::test_snippet_runs_as_pasted)"
    r"\[(?P<id>.+)\](?:@\w+)?$"
)
AS_WRITTEN = "tests/test_examples.py::test_example["
# What an example failure names first: "snippets/chapter/file.py:12: ..."
WHERE = re.compile(r"^(?P<file>[\w./-]+\.(?:py|md)):(?P<line>\d+):", re.M)


def _escape(text: str, *, prop: bool = False) -> str:
    """GitHub workflow-command escaping (properties escape ':' and ',' too)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def annotation(name: str, release: str, message: str, file: str = "", line: int = 0) -> str:
    """A GitHub ``::error`` annotation naming what failed and the torch release."""
    props = [f"title={_escape(f'torch {release}: {name} fails', prop=True)}"]
    if file:
        props.append(f"file={_escape(file, prop=True)}")
        if line:
            props.append(f"line={line}")
    return f"::error {','.join(props)}::{_escape(message)}"


@dataclass
class Result:
    outcome: str  # "passed", "failed" or "skipped"
    message: str = ""
    file: str = ""
    line: int = 0


def _message(report) -> str:
    """What a failure or skip says: an example's own message, an assertion's E lines."""
    if report.skipped and isinstance(report.longrepr, tuple):
        return report.longrepr[2].removeprefix("Skipped: ")
    # pytest.fail() inside an ``except`` repeats the message after this line: once is enough.
    text = report.longreprtext.split("\n\nDuring handling of the above exception")[0].strip()
    explained = [line[2:] for line in text.splitlines() if line.startswith("E ")]
    return "\n".join(explained).strip() or text


@dataclass(eq=False)  # a plugin must be hashable
class RunReport:
    """pytest plugin: results per test, reported and recorded at the end (see the
    module's docstring)."""

    release: str = ""  # "" until the summary: torch.__version__ (2.15.0+cu132, 2.13.0+cpu)
    github: bool = False
    report: bool = False  # the --torch-report lines
    records: Path | None = None  # where the verification record goes
    device: str = "cpu"
    command: str = ""
    results: dict[str, Result] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def pytest_runtest_logreport(self, report) -> None:
        if any(list(p) == ["reused", True] for p in getattr(report, "user_properties", ())):
            return  # not run here: the record says what ran (tests/reuse_plugin.py)
        if report.when != "call" and report.passed:
            return  # a passing setup or teardown says nothing about the outcome
        current = self.results.get(report.nodeid)
        if current and current.outcome == "failed":
            return  # a failed call stays failed, whatever its teardown did
        message = _message(report)
        file, line = report.location[0], (report.location[1] or 0) + 1
        if m := WHERE.search(message):
            file, line = m.group("file"), int(m.group("line"))
        self.results[report.nodeid] = Result(report.outcome, message, file, line)

    def pytest_collectreport(self, report) -> None:
        if report.failed:  # e.g. a test module that cannot import under this release
            path = report.nodeid.split("::")[0]
            self.results[report.nodeid or "collection"] = Result(
                "failed", _message(report), path if path.endswith(".py") else ""
            )

    def lines(self, elapsed: float | None = None) -> list[str]:
        """One line per example, one per other failing test, and the summary line."""
        out = []
        counts: dict[str, dict[str, int]] = {"examples": {}, "other tests": {}}
        for nodeid, result in self.results.items():
            m = EXAMPLE_TEST.match(nodeid) if nodeid.startswith(AS_WRITTEN) else None
            kind = counts["examples" if m else "other tests"]
            kind[result.outcome] = kind.get(result.outcome, 0) + 1
            if m or result.outcome == "failed":
                label = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP"}[result.outcome]
                why = result.message.splitlines()[0] if result.message else ""
                shown = m.group("id") if m else nodeid
                out.append(
                    f"{label} {shown}: {why}" if why and label != "PASS" else f"{label} {shown}"
                )
        summary = "; ".join(
            f"{what} {c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
            f"{c.get('skipped', 0)} skipped"
            for what, c in counts.items()
        )
        if elapsed is None:
            elapsed = time.monotonic() - self.started
        return out + [f"torch {self.release}: {summary}; {elapsed:.0f} s"]

    def annotations(self) -> list[str]:
        """A GitHub ``::error`` line per failure, naming the example and the release."""
        notes = []
        for nodeid, result in self.results.items():
            if result.outcome == "failed":
                m = EXAMPLE_TEST.match(nodeid) if nodeid.startswith(AS_WRITTEN) else None
                name = m.group("id") if m else nodeid
                notes.append(
                    annotation(name, self.release, result.message[:4000], result.file, result.line)
                )
        return notes

    def example_results(self) -> dict[str, tuple[str, str, str]]:
        """Each example that ran: (its source hash, outcome, reason), its tests together."""
        found: dict[str, list[Result]] = {}
        for nodeid, result in self.results.items():
            if m := EXAMPLE_TEST.match(nodeid):
                found.setdefault(m.group("id"), []).append(result)
        out = {}
        for example, results in found.items():
            source = example_source(example)
            if source is None:
                continue
            outcomes = {r.outcome for r in results}
            outcome = next(o for o in ("failed", "passed", "skipped") if o in outcomes)
            reason = next(
                (r.message.splitlines()[0] for r in results if r.outcome == outcome and r.message),
                "",
            )
            out[example] = (
                records.source_hash(source),
                outcome,
                reason if outcome != "passed" else "",
            )
        return out

    def pytest_sessionfinish(self, session) -> None:
        if self.records is None:
            return
        self._release()
        results = self.example_results()
        if results:
            path = records.write(self.records, self.release, self.device, self.command, results)
            self.written = path

    def _release(self) -> None:
        if not self.release:
            import torch  # imported by the tests already; the build label tells CUDA from CPU

            self.release = torch.__version__

    def pytest_terminal_summary(self, terminalreporter) -> None:
        written = getattr(self, "written", None)
        if written is not None:
            terminalreporter.write_line(f"verification record: {written}")
        if not self.report:
            return
        self._release()
        lines = self.lines()
        terminalreporter.section(f"torch {self.release}")
        for text in lines + (self.annotations() if self.github else []):
            terminalreporter.write_line(text)
        summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
        if self.github and summary_file:
            with open(summary_file, "a", encoding="utf-8") as f:
                f.write("```text\n" + "\n".join(lines) + "\n```\n")


def example_source(example: str, root: Path = ROOT) -> str | None:
    """The source of the example with this id: a snippet (``forward_pass/x.py``) or a
    page's fence (``docs/distributed.md:12``)."""
    if ":" not in example:
        path = root / "snippets" / example
        return path.read_text("utf-8") if path.is_file() else None
    from sitelib.check.examples import page_examples

    page, line = example.rsplit(":", 1)
    for fence in page_examples(root, [root / page]):
        if str(fence.start_line) == line:
            return fence.source
    return None
