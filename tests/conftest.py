"""Suite-wide options: ``--device cpu|cuda`` chooses where every example runs;
``--torch-report`` (``make test-torch``) reports each example and the torch release;
``--records DIR`` keeps a verification record of the run there (``make test``,
``make test-torch``: sitelib/site/records.py); ``--example FILE`` checks only that
snippet or page's examples (``make check``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitelib.check import reads


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--device",
        choices=("cpu", "cuda"),
        default="cpu",
        help="run every example on this device (default: cpu)",
    )
    parser.addoption(
        "--bench-no-checks",
        action="store_true",
        help="benchmark only (make bench): run examples without shape/gradient/device checks",
    )
    parser.addoption(
        "--browser-pages",
        nargs="+",
        default=[],
        help="the browser tour visits only these pages (forward_pass/; '' for the home page)",
    )
    parser.addoption(
        "--built-site",
        metavar="DIR",
        help="test this built site (make build's site/) instead of building one (make check-page)",
    )
    parser.addoption(
        "--records",
        metavar="DIR",
        help="write this run's verification record (each example's outcome) into DIR",
    )
    parser.addoption(
        "--example",
        action="append",
        default=[],
        metavar="FILE",
        help="check only this snippet (snippets/x/y.py), or every example a page shows: "
        "the snippets it includes and its own fences (make check)",
    )
    parser.addoption(
        "--complete-matrix",
        action="store_true",
        help="run the whole-step script in every combination, not the representative "
        "subset (make test-complete; tests/test_complete.py)",
    )
    parser.addoption(
        "--run-all",
        action="store_true",
        help="run every test, reusing no result from the last run (make test ALL=1; "
        "CI=true does the same): tests/conftest.py, 'Reusing results'",
    )
    parser.addoption(
        "--launch-runs",
        type=int,
        default=1,
        metavar="N",
        help="run each multi-process example N times under the real torchrun "
        "(tests/test_launch.py; the weekly workflow runs 10)",
    )
    parser.addoption(
        "--torch-report",
        action="store_true",
        help="one line per example (PASS/FAIL/SKIP) and a summary naming the torch release; "
        "on GitHub Actions, an ::error annotation per failure (make test-torch)",
    )


def pytest_configure(config: pytest.Config) -> None:
    REUSE.register(config)  # tests/reuse_plugin.py: results reused while unchanged
    os.environ.setdefault("MPLBACKEND", "Agg")  # examples that plot run headless
    # Inductor's compiled kernels are cached in the checkout (.cache/ is ignored), so
    # the compile chapter's examples compile once per machine, not once per run.
    from sitelib.site.layout import ROOT

    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "torchinductor"))
    if not hasattr(config, "workerinput"):  # the controller, when xdist runs workers
        if (config.getoption("numprocesses", None) or 0) > 1:
            # Each worker (and every process it starts) gets one thread for torch's
            # CPU kernels: two workers with a pool per core each would make four threads
            # share two cores (CONTRIBUTING.md, "Performance"). Outputs are the same either way.
            os.environ.setdefault("OMP_NUM_THREADS", "1")
        from pathlib import Path

        from sitelib.check.report import RunReport

        records = config.getoption("records")
        report = RunReport(
            github=os.environ.get("GITHUB_ACTIONS") == "true",
            report=config.getoption("torch_report"),
            records=Path(records) if records else None,
            device=config.getoption("device"),
            command=" ".join(["pytest", *config.invocation_params.args]),
        )
        config.pluginmanager.register(report, "run-report")
    if chosen := config.getoption("example"):
        examples = _chosen(chosen)
        if not _xdist(config):
            _start_servers_for(examples)
    device = config.getoption("device")
    if device == "cpu":
        # Hide GPUs before torch initialises CUDA, so examples pick the CPU as pasted.
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        return
    import torch

    if not torch.cuda.is_available():
        raise pytest.UsageError(
            "--device cuda: CUDA is not available here "
            f"(torch {torch.__version__}, torch.version.cuda={torch.version.cuda}, "
            f"{torch.cuda.device_count()} CUDA devices). Run it on a machine with an NVIDIA GPU "
            "and a CUDA build of torch."
        )


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if config.getoption("bench_no_checks"):
        terminalreporter.write_line(
            "WARNING: shape, gradient and device checks were DISABLED (--bench-no-checks)",
            red=True,
        )


@pytest.fixture(scope="session")
def checks(pytestconfig: pytest.Config) -> bool:
    return not pytestconfig.getoption("bench_no_checks")


@pytest.fixture(scope="session")
def device(pytestconfig: pytest.Config) -> str:
    return pytestconfig.getoption("device")


@pytest.fixture(scope="session")
def built_site(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config, no_system_dot: str
):
    """The site, built once per run with ``mkdocs build --strict``: (result, site_dir);
    or the one ``--built-site`` names, as ``make build`` left it."""
    import subprocess
    from pathlib import Path

    from sitelib.site.layout import ROOT, mkdocs_build

    if given := pytestconfig.getoption("built_site"):
        return subprocess.CompletedProcess(["(given)"], 0, "", ""), Path(given).resolve()

    site_dir = tmp_path_factory.mktemp("site")
    # Python lists every module the build imports (tests/test_site.py: no test framework).
    # The site's address and repository are the suite's own test values, as the Pages
    # workflow sets a deploying repository's: no placeholder may reach a built file.
    # A system Graphviz is never run: the PATH's first `dot` fails (tests/test_pictures.py).
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1", PATH=no_system_dot, **SUITE_SITE)
    return mkdocs_build(ROOT, site_dir, env=env), site_dir


@pytest.fixture(scope="session")
def no_system_dot(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH whose first ``dot`` fails, printing "the build ran a system dot": the
    site's build must draw its pictures without any system Graphviz."""
    bin_dir = tmp_path_factory.mktemp("no-dot")
    dot = bin_dir / "dot"
    dot.write_text("#!/bin/sh\necho 'the build ran a system dot' >&2\nexit 1\n")
    dot.chmod(0o755)
    return os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])


# The address and repository the suite builds the site for (SITE_URL, REPO_URL,
# REPO_NAME, as docs.yml sets them): neither mkdocs.yml's placeholders nor a real site.
SUITE_SITE = {
    "SITE_URL": "https://suite-owner.github.io/suite-site/",
    "REPO_URL": "https://github.com/suite-owner/suite-site",
    "REPO_NAME": "suite-site",
}


@pytest.fixture(scope="session")
def built_config(pytestconfig: pytest.Config) -> dict:
    """mkdocs.yml as the built site read it: with the suite's SITE_URL and REPO_URL, or,
    for ``--built-site`` (``make build``), with this process's environment."""
    from sitelib.site.layout import load_config

    if pytestconfig.getoption("built_site"):
        return load_config()
    return load_config(environ=dict(os.environ, **SUITE_SITE))


# -- how the suite is spread over two processes (`make test`: pytest -n 2) -------------
# Tests of the built site (the strict build, the pages, the browser) share one build and
# one browser: they form the group "site", run by one worker. Everything else is the
# group "checks", run by the other. Within "checks", the tests that need a process
# server (tests/test_fresh.py, multi-process examples, tests/test_launch.py) run last:
# the servers start with the group's first test, and import torch meanwhile; the fresh
# server then runs every snippet as pasted while the other tests run. `make check`
# starts them as pytest starts, before it collects.
SITE_FIXTURES = {"built_site", "built_config", "site_url", "visit", "site_visit", "browser", "tour"}


def _servers_needed(item: pytest.Item) -> set[str]:
    """The process servers ``item`` uses: "fresh", "ranks", both or none."""
    from sitelib.check.examples import is_script, launch_command

    example = getattr(item, "callspec", None) and item.callspec.params.get("example")
    names = set(getattr(item, "fixturenames", ()))
    needed = {"fresh"} if "fresh_server" in names else set()
    # not NOTSET; a script's commands run in the rank server too (sitelib.check.complete)
    launched = hasattr(example, "source") and (launch_command(example) or is_script(example))
    if "rank_server" in names or launched:
        needed.add("ranks")
    return needed


def pytest_itemcollected(item: pytest.Item) -> None:
    """Each test's group, set as it is collected (xdist reads the marks afterwards)."""
    group = "site" if SITE_FIXTURES & set(getattr(item, "fixturenames", ())) else "checks"
    item.add_marker(pytest.mark.xdist_group(group))
    item.stash[_GROUP] = group


def empty_parametrizations(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items pytest made for a parametrization with no values (a test of the full
    matrix outside it; `make check` of a multi-process example, which test_fresh.py
    does not run): marked as skipped, they would count as skips of tests that never
    run here."""
    return [
        item
        for item in items
        if any(
            str(mark.kwargs.get("reason", "")).startswith("got empty parameter set")
            for mark in item.iter_markers("skip")
        )
    ]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if empty := empty_parametrizations(items):  # not collected here: deselected, said so
        config.hook.pytest_deselected(items=empty)
        items[:] = [i for i in items if i not in empty]
    if config.getoption("example"):
        # `make check`: the tests of the built site need a whole build (make build,
        # make check-page); the rest of each chosen test file runs.
        built = [i for i in items if SITE_FIXTURES & set(getattr(i, "fixturenames", ()))]
        if built:
            config.hook.pytest_deselected(items=built)
            items[:] = [i for i in items if i not in built]
    needed = {item: _servers_needed(item) for item in items if REUSED not in item.stash}
    items.sort(key=lambda item: item.stash[_GROUP] == "checks" and bool(needed.get(item)))
    _wanted.update(*needed.values())  # `make check` of one example may need neither


def pytest_collection_finish(session: pytest.Session) -> None:
    """The snippets to run as pasted: those whose test is still selected once every
    plugin has deselected (``-k``, ``-m``), so a run of a few tests runs only theirs."""
    _pasted.extend(
        item.callspec.params["path"]
        for item in session.items
        if getattr(item, "originalname", "") == "test_snippet_runs_as_pasted"
        and hasattr(item.callspec.params["path"], "read_text")  # not NOTSET: none chosen
        and REUSED not in item.stash  # its result is reused: nothing to run
    )


_GROUP = pytest.StashKey[str]()
_STARTED = pytest.StashKey[bool]()  # the first "checks" test has started the servers
_servers: dict[str, object] = {}
_wanted: set[str] = set()  # the servers the collected tests use
_pasted: list = []  # the snippets tests/test_fresh.py runs as pasted
_fresh_runs: dict = {}  # snippet -> the Future of its run as pasted


def _server(name: str, *preload: str):
    from sitelib.check.processes import ProcessServer

    if name not in _servers:
        # The server outlives the test that starts it: its processes record nothing.
        log = os.environ.pop(reads.ENV, None)
        try:
            _servers[name] = ProcessServer(*preload)
        finally:
            if log is not None:
                os.environ[reads.ENV] = log
    return _servers[name]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """The first test of the "checks" group starts the process servers the collected
    tests use (in the background: each is a process importing torch), and submits the
    runs as pasted."""
    if item.stash.get(_GROUP, None) == "checks" and not item.session.stash.get(_STARTED, False):
        item.session.stash[_STARTED] = True
        if "fresh" in _wanted:
            _submit_fresh_runs(_server("fresh", *FRESH_PRELOAD), item.config.getoption("device"))
        if "ranks" in _wanted:
            _server("ranks", *RANK_PRELOAD)


def _submit_fresh_runs(server, device: str) -> None:
    """Every selected snippet's run as pasted, submitted at once: the server runs two
    at a time while the other tests run."""
    from sitelib.check.examples import snippet_example
    from sitelib.check.fresh import run_as_pasted
    from sitelib.check.outcomes import ExampleFailure, skip_reason

    for path in _pasted:
        try:
            skipped = skip_reason(snippet_example(path), device)
        except ExampleFailure:  # a marker it cannot read: its own test says where
            continue
        if not skipped:
            _fresh_runs[path] = run_as_pasted(server, path)


def _xdist(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput") or (config.getoption("numprocesses", None) or 0) > 0


def _chosen(names: list[str]) -> list:
    """The examples ``--example`` names (make check), or a usage error saying why none."""
    from sitelib.check.examples import chosen_examples

    try:
        examples = chosen_examples(names)
    except FileNotFoundError as err:
        raise pytest.UsageError(str(err)) from None
    if not examples:
        raise pytest.UsageError(
            f"{' '.join(names)}: no examples here (a page must include a snippet or have "
            "a Python fence of its own)"
        )
    return examples


def _start_servers_for(examples: list) -> None:
    """`make check`: start the servers its examples need now, while pytest collects
    (and imports torch), so the run as pasted does not wait for one to start. The fresh
    server imports only what every snippet imports: with one snippet to run, what it
    imports beyond that is imported once either way, in its own process."""
    from sitelib.check.examples import is_script, launch_command

    _wanted.add("fresh")
    _server("fresh", "torch.optim")
    if any(launch_command(example) or is_script(example) for example in examples):
        _wanted.add("ranks")
        _server("ranks", *RANK_PRELOAD)


def pytest_sessionfinish(session: pytest.Session) -> None:
    for server in _servers.values():
        server.close()
    _servers.clear()


# What the fresh server imports before it forks: torch, what torch itself imports the
# first time an optimizer steps (torch._dynamo: ~4 s on the 2-core machine, more than
# `import torch`), and what torch.compile imports on its first call (Inductor's
# compile_fx, with AOTAutograd: 0.9 s more, paid once instead of by each of the
# compile chapter's snippets; importing it starts no compile workers). Nothing else: no
# harness, no plotting.
TORCH_PRELOAD = ("torch.optim", "torch._dynamo")
FRESH_PRELOAD = (*TORCH_PRELOAD, "torch._inductor.compile_fx")
# The rank server also holds the harness each rank runs around its example (and no
# Inductor: no multi-process example compiles).
# The whole-step script (tests/test_complete.py) runs in it too: what it imports beyond
# that (state dicts, FSDP2, the data loader) is imported once, not per run.
RANK_PRELOAD = (
    *TORCH_PRELOAD,
    "torch.distributed",
    "torch.distributed.checkpoint.state_dict",
    "torch.distributed.fsdp",
    "torch.utils.data",
    "sitelib.check.launch",
    "sitelib.check.run",
    "sitelib.check.complete",
)


@pytest.fixture(scope="session")
def fresh_server():
    """Forks a fresh interpreter (torch imported, nothing else) per snippet run."""
    return _server("fresh", *FRESH_PRELOAD)


@pytest.fixture(scope="session")
def fresh_runs(fresh_server) -> dict:
    """Each selected snippet's run as pasted (a Future), submitted with the first test."""
    return _fresh_runs


@pytest.fixture(scope="session")
def in_process_failures() -> dict:
    """Snippet -> the failure its check as written reported (tests/test_examples.py), so
    that its run as pasted (tests/test_fresh.py) does not report the same mistake again."""
    return {}


@pytest.fixture(scope="session")
def rank_server():
    """Forks the ranks of multi-process examples (torch and the harness imported)."""
    return _server("ranks", *RANK_PRELOAD)


# -- Reusing results: tests/reuse_plugin.py, loaded once by its path (tests/ is no package).
def _load_reuse_plugin():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "reuse_plugin", Path(__file__).with_name("reuse_plugin.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REUSE = _load_reuse_plugin()
REUSED = REUSE.REUSED
