"""Reusing results: the pytest side of :mod:`sitelib.check.reuse` (tests/conftest.py
registers it; tests/test_reuse.py registers it in a project of its own to test it).

A test passed or skipped in the last run on this machine is not run again while every
input it read, and every input of every test, is byte-identical: its result is
reported as it was, marked ``reused`` in its report's ``user_properties`` (the
verification record leaves it out: a record says what ran), and the terminal says
how many. Everything runs with ``--run-all`` (``make test ALL=1``), under ``CI=true``,
with ``--update-examples``, ``--torch-report`` or ``--bench-no-checks``, and when the
venv's ``.pth`` file does not make a started process record what it reads.

The project is ``config.rootpath``: its ``.cache/reuse/`` is the store.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from sitelib.check import reads
from sitelib.check.reuse import Record, Store, environment

REUSED = pytest.StashKey[Record]()  # the kept result of an item not run again
_PHASES = pytest.StashKey[dict]()  # when -> (outcome, skip reason) of an item that ran
# The options whose value changes a result (the others choose what runs, or where a
# record goes).
OUTCOME_OPTIONS = ("device", "launch_runs", "complete_matrix", "built_site", "browser_pages")


def test_id(item: pytest.Item) -> str:
    """An item's id as collected: pytest-xdist's loadgroup appends "@<group>" to it
    before the item runs."""
    nodeid = item.nodeid
    for mark in item.iter_markers("xdist_group"):
        group = mark.args[0] if mark.args else mark.kwargs.get("name", "")
        nodeid = nodeid.removesuffix(f"@{group}")
    return nodeid


def was_reused(report) -> bool:
    """Whether a report is a reused result's (a tuple, or the list xdist sends across)."""
    return any(list(p) == ["reused", True] for p in getattr(report, "user_properties", ()))


class Reuse:
    def __init__(self) -> None:
        self.store: Store | None = None
        self.environment = ""
        self.logs = Path(tempfile.mkdtemp(prefix="reads-"))
        self.why_not = ""  # why this run reuses nothing
        self.fixture_reads: dict[str, set] = {}  # a longer-lived fixture -> its set-up's reads
        self.reused = 0

    # -- deciding -------------------------------------------------------------------
    def _why_not(self, config: pytest.Config) -> str:
        for option, why in (
            ("run_all", "--run-all (make test ALL=1)"),
            ("update_examples", "--update-examples writes output"),
            ("torch_report", "--torch-report verifies a release"),
            ("bench_no_checks", "--bench-no-checks"),
        ):
            if config.getoption(option, False):
                return why
        if os.environ.get("CI") == "true":
            return "CI=true"
        probe = "import sys; print('sitelib.check.reads' in sys.modules)"
        started = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
        if started.stdout.strip() != "True":
            return "the venv's .pth file does not record what a started process reads (run make)"
        return ""

    @staticmethod
    def _versions(items: list[pytest.Item]) -> dict:
        from importlib.metadata import PackageNotFoundError, version

        found = {}
        for name in ("torch", "pytest", "pytest-examples", "playwright", "mkdocs-material"):
            try:
                found[name] = version(name)
            except PackageNotFoundError:
                found[name] = None
        if any("browser" in item.keywords for item in items):  # only they drive it
            from sitelib.site.static_site import find_chromium

            if chromium := find_chromium():
                run = subprocess.run([str(chromium), "--version"], capture_output=True, text=True)
                found["chromium"] = run.stdout.strip()
        return found

    @pytest.hookimpl(tryfirst=True)  # before tests/conftest.py's, which reads REUSED
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]):
        self.why_not = self._why_not(config)
        if self.why_not:
            return
        root = config.rootpath
        reads.set_root(root)
        options = {name: config.getoption(name, None) for name in OUTCOME_OPTIONS}
        self.store = Store(root / ".cache" / "reuse", root)
        self.environment = environment(options, self._versions(items), root)
        config.option.reusing = True  # the browser tour keeps each page's findings too
        for item in items:
            if record := self.store.reusable(test_id(item), self.environment):
                item.stash[REUSED] = record

    # -- an item that runs: what it read, kept with its pass or skip --------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        outcome = yield
        report = outcome.get_result()
        skip = report.skipped and isinstance(report.longrepr, tuple)
        item.stash.setdefault(_PHASES, {})[report.when] = (
            report.outcome,
            report.longrepr[2] if skip else "",
        )

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        """A fixture that outlives one test: what its set-up read (its processes' too)
        counts for every test that uses it."""
        if self.store is None or fixturedef.scope == "function":
            yield
            return
        log = self.logs / f"fixture-{fixturedef.argname}.reads"
        outer = os.environ.get(reads.ENV)
        os.environ[reads.ENV] = str(log)
        os.environ[reads.ROOT_ENV] = str(request.config.rootpath)
        try:
            with reads.recording() as found:
                yield
        finally:
            if outer is None:
                os.environ.pop(reads.ENV, None)
            else:
                os.environ[reads.ENV] = outer
        self.fixture_reads[fixturedef.argname] = found | reads.read_log(log)

    @staticmethod
    def _param_files(item: pytest.Item) -> set[tuple[str, str]]:
        """The snippet or page a parametrized test is about (read when it was collected)."""
        found = set()
        for value in getattr(getattr(item, "callspec", None), "params", {}).values():
            path = getattr(value, "path", value)
            if isinstance(path, Path) and (rel := reads.relative(path)):
                found.add(("file", rel))
        return found

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem):
        if self.store is None or REUSED in item.stash:
            yield
            return
        log = self.logs / f"{abs(hash(item.nodeid))}.reads"
        os.environ[reads.ENV] = str(log)
        os.environ[reads.ROOT_ENV] = str(item.config.rootpath)
        try:
            with reads.recording() as found:
                yield
        finally:
            os.environ.pop(reads.ENV, None)
        phases = item.stash.get(_PHASES, {})
        setup, call = phases.get("setup", ("", "")), phases.get("call", ("", ""))
        if setup[0] == "skipped" or call[0] == "skipped":
            outcome, reason = "skipped", setup[1] or call[1]
        elif call[0] == "passed" and all(result == "passed" for result, _ in phases.values()):
            outcome, reason = "passed", ""
        else:  # a failure is run again, always
            self.store.forget(test_id(item))
            return
        found |= reads.read_log(log) | self._param_files(item)
        for name in getattr(item, "fixturenames", ()):
            found |= self.fixture_reads.get(name, set())
        inputs = self.store.inputs(found)
        self.store.keep(Record(test_id(item), self.environment, outcome, reason, inputs))

    # -- what the terminal says ---------------------------------------------------------
    def pytest_runtest_logreport(self, report) -> None:
        """Counts the reused results (in xdist's controller too, which workers report to)."""
        if report.when == "setup" and was_reused(report):
            self.reused += 1

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.reused:
            terminalreporter.write_line(
                f"{self.reused} results reused from .cache/reuse/: their inputs are "
                "unchanged since they last ran (make test ALL=1 runs everything)"
            )
        elif self.why_not:
            terminalreporter.write_line(f"every test ran: {self.why_not}")


class Replay:
    """Reports the kept result of an item that is not run again (a plugin of its own:
    :class:`Reuse` wraps the protocol of the items that run)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem) -> bool | None:
        record = item.stash.get(REUSED, None)
        if record is None:
            return None
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        skipped = record.outcome == "skipped"
        for when in ["setup", "teardown"] if skipped else ["setup", "call", "teardown"]:
            skip_here = skipped and when == "setup"
            report = pytest.TestReport(
                item.nodeid,
                item.location,
                {k: 1 for k in item.keywords},
                "skipped" if skip_here else "passed",
                (str(item.path), item.location[1] or 0, record.reason) if skip_here else None,
                when,
                user_properties=[("reused", True)],
            )
            item.ihook.pytest_runtest_logreport(report=report)
        # What the last item that ran left set up (its module, session fixtures) is torn
        # down as its own teardown would have, up to what the next item needs (pytest's
        # runner does this in the teardown of an item that ran).
        item.session._setupstate.teardown_exact(nextitem)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True


def register(config: pytest.Config) -> Reuse:
    """Both halves, registered on ``config``; the one that records is returned."""
    reuse = Reuse()
    config.pluginmanager.register(reuse, "reuse")
    config.pluginmanager.register(Replay(), "reuse-replay")
    return reuse
