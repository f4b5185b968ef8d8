"""The torch releases the site supports, and the report of a run against one of them.

The supported range is written once, in mkdocs.yml::

    extra:
      torch:
        oldest: "2.10.0"          # every example runs as pasted and prints what the page says
        newest_verified: "2.15.0" # the newest release `make test-torch` passed on

:func:`supported` reads it (hooks and templates can read ``config.extra.torch`` as
well), :func:`range_sentence` is how pages state it, and :func:`range_problems`
checks that the range, the pinned release, the home page and the weekly workflow's
matrix agree.

:class:`TorchReport` is the pytest plugin behind ``--torch-report`` (``make
test-torch``): one line per example (PASS, FAIL or SKIP and its id), one per other
failing test, and a summary naming the torch release, the counts and the time. On
GitHub Actions each failure is also an ``::error`` annotation naming the example and
the torch release.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from sitelib.site.layout import ROOT, load_config

EXAMPLE_TEST = re.compile(r"^tests/test_examples\.py::test_example\[(?P<id>.+)\]$")
# What an example failure names first: "snippets/chapter/file.py:12: ..."
WHERE = re.compile(r"^(?P<file>[\w./-]+\.(?:py|md)):(?P<line>\d+):", re.M)
RELEASE = re.compile(r"^\d+\.\d+\.\d+$")
WORKFLOW = ".github/workflows/torch-versions.yml"


# -- the supported range -----------------------------------------------------------------
def supported(root: Path = ROOT) -> dict[str, str]:
    """``{"oldest": ..., "newest_verified": ...}`` from mkdocs.yml's ``extra.torch``."""
    return dict((load_config(root).get("extra") or {}).get("torch") or {})


def pinned(root: Path = ROOT) -> str:
    """The torch release requirements.lock pins (the one ``make test`` runs)."""
    lock = (root / "requirements.lock").read_text("utf-8")
    m = re.search(r"^torch==(\S+)$", lock, re.M)
    return m.group(1) if m else ""


def range_sentence(root: Path = ROOT) -> str:
    """The sentence that states the range on a page (the home page carries it)."""
    r = supported(root)
    return (
        f"Supported torch releases: {r.get('oldest')} to {r.get('newest_verified')}. "
        f"Every example is run on torch {r.get('oldest')}, {pinned(root)} and "
        f"{r.get('newest_verified')}, and prints what its page says on each."
    )


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def range_problems(root: Path = ROOT) -> list[str]:
    """Where the range, the pin, the home page and the weekly matrix disagree."""
    r = supported(root)
    oldest, newest, pin = r.get("oldest"), r.get("newest_verified"), pinned(root)
    problems = [
        f"mkdocs.yml: extra.torch.{name} must be a release like 2.7.0, not {value!r}"
        for name, value in (("oldest", oldest), ("newest_verified", newest))
        if not (isinstance(value, str) and RELEASE.match(value))
    ]
    if not RELEASE.match(pin):
        problems.append(f"requirements.lock: no torch==x.y.z pin (found {pin!r})")
    if problems:
        return problems
    if not _key(oldest) <= _key(pin) <= _key(newest):
        problems.append(
            f"mkdocs.yml: extra.torch says {oldest} to {newest}, "
            f"but requirements.lock pins torch {pin}, outside that range"
        )
    if range_sentence(root) not in (root / "docs" / "index.md").read_text("utf-8"):
        problems.append(f"docs/index.md: does not state the range: {range_sentence(root)}")
    workflow = root / WORKFLOW
    matrix = []
    if workflow.is_file():
        jobs = (yaml.safe_load(workflow.read_text("utf-8")) or {}).get("jobs") or {}
        for job in jobs.values():
            matrix += ((job.get("strategy") or {}).get("matrix") or {}).get("torch") or []
    for wanted in (oldest, pin, "latest"):
        if wanted not in [str(v) for v in matrix]:
            problems.append(f"{WORKFLOW}: the torch matrix {matrix} lacks {wanted}")
    return problems


# -- the report of a run -----------------------------------------------------------------
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
class TorchReport:
    """pytest plugin: results per test, reported at the end (see the module's docstring)."""

    release: str = ""  # "" until the summary: torch.__version__ (2.15.0+cu132, 2.13.0+cpu)
    github: bool = False
    results: dict[str, Result] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def pytest_runtest_logreport(self, report) -> None:
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
            m = EXAMPLE_TEST.match(nodeid)
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
                m = EXAMPLE_TEST.match(nodeid)
                name = m.group("id") if m else nodeid
                notes.append(
                    annotation(name, self.release, result.message[:4000], result.file, result.line)
                )
        return notes

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.release:
            import torch  # imported by the tests already; the build label tells CUDA from CPU

            self.release = torch.__version__
        lines = self.lines()
        terminalreporter.section(f"torch {self.release}")
        for text in lines + (self.annotations() if self.github else []):
            terminalreporter.write_line(text)
        summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
        if self.github and summary_file:
            with open(summary_file, "a", encoding="utf-8") as f:
                f.write("```text\n" + "\n".join(lines) + "\n```\n")
