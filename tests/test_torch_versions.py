"""The supported torch range is stated once and agrees everywhere; `--torch-report`
(``make test-torch``) names each failing example and the torch release."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import yaml

from sitelib.check.report import RunReport, annotation
from sitelib.site.layout import ROOT
from sitelib.site.torch_range import WORKFLOW, range_problems, range_sentence, supported


def test_range_pin_home_page_and_workflow_agree() -> None:
    assert set(supported()) <= {"oldest", "newest_verified", "verified"}
    problems = range_problems()
    assert not problems, "\n".join(problems)


def copy_of_range_files(tmp_path: Path) -> Path:
    """The files that state the torch range, copied to ``tmp_path`` to be edited."""
    for name in ("mkdocs.yml", "requirements.lock", "docs/index.md", WORKFLOW):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_range_check_catches_each_disagreement(tmp_path: Path) -> None:
    root = copy_of_range_files(tmp_path)
    assert range_problems(root) == []
    oldest = supported(root)["oldest"]
    config = (root / "mkdocs.yml").read_text("utf-8")
    (root / "mkdocs.yml").write_text(config.replace(f'oldest: "{oldest}"', 'oldest: "9.0.0"'))
    assert range_problems(root)[0].startswith("mkdocs.yml: extra.torch says 9.0.0 to")
    (root / "mkdocs.yml").write_text(config.replace(f'oldest: "{oldest}"', "oldest: 2.7"))
    assert range_problems(root) == [
        "mkdocs.yml: extra.torch.oldest must be a release like 2.7.0, not 2.7"
    ]
    (root / "mkdocs.yml").write_text(config.replace('"2.13.0", ', "", 1))
    assert range_problems(root)[0] == (
        "mkdocs.yml: extra.torch.verified leaves out 2.13.0: list every release "
        "make test-torch passed on, the range's ends and the pin among them"
    )
    (root / "mkdocs.yml").write_text(config)
    home = root / "docs" / "index.md"
    home.write_text(home.read_text("utf-8").replace(range_sentence(root), "Any torch will do."))
    assert range_problems(root) == [
        f"docs/index.md: does not state the range: {range_sentence(root)}"
    ]
    shutil.copy(ROOT / "docs" / "index.md", home)
    workflow = root / WORKFLOW
    data = yaml.safe_load(workflow.read_text("utf-8"))
    full = data["jobs"]["test-torch"]["strategy"]["matrix"]["torch"]
    data["jobs"]["test-torch"]["strategy"]["matrix"]["torch"] = ["2.13.0", "latest"]
    workflow.write_text(yaml.safe_dump(data))
    assert range_problems(root)[0] == (
        f"{WORKFLOW}: the torch matrix ['2.13.0', 'latest'] lacks {oldest}"
    )
    without_212 = [v for v in full if not str(v).startswith("2.12.")]
    data["jobs"]["test-torch"]["strategy"]["matrix"]["torch"] = without_212
    workflow.write_text(yaml.safe_dump(data))
    assert range_problems(root) == [
        f"{WORKFLOW}: the torch matrix {without_212} has no 2.12 release "
        "(every minor release of the range runs)"
    ]


# -- the report ----------------------------------------------------------------------------
def report(nodeid: str, when: str, outcome: str, text: str = "", longrepr=None, line: int = 16):
    return SimpleNamespace(
        nodeid=nodeid,
        when=when,
        outcome=outcome,
        passed=outcome == "passed",
        skipped=outcome == "skipped",
        failed=outcome == "failed",
        longreprtext=text,
        longrepr=longrepr if longrepr is not None else text,
        location=(nodeid.split("::")[0], line, "test"),
    )


EXAMPLE = "tests/test_examples.py::test_example[{}]"


def test_report_names_each_example_and_the_release() -> None:
    plugin = RunReport("2.99.0", github=True, report=True)
    for event in [
        report(EXAMPLE.format("a/ok.py"), "setup", "passed"),
        report(EXAMPLE.format("a/ok.py"), "call", "passed"),
        report(EXAMPLE.format("a/ok.py"), "teardown", "passed"),
        report(
            EXAMPLE.format("a/changed.py"),
            "call",
            "failed",
            "snippets/a/changed.py:12: printed output differs, 50% of it:\n-#> old\n+#> new"
            "\n\nDuring handling of the above exception, another exception occurred:\nagain",
        ),
        report(
            EXAMPLE.format("a/gpu.py"),
            "setup",
            "skipped",
            longrepr=("tests/test_examples.py", 17, "Skipped: a/gpu.py: needs CUDA"),
        ),
        report("tests/test_site.py::test_strict_build", "call", "passed"),
        report(
            "tests/test_notebooks.py::test_x[forward_pass]",
            "call",
            "failed",
            "    assert printed == expected\nE   assert 1 == 2\n\ntests/test_notebooks.py:89: Err",
        ),
    ]:
        plugin.pytest_runtest_logreport(event)
    lines = plugin.lines(elapsed=12.4)
    assert lines == [
        "PASS a/ok.py",
        "FAIL a/changed.py: snippets/a/changed.py:12: printed output differs, 50% of it:",
        "SKIP a/gpu.py: a/gpu.py: needs CUDA",
        "FAIL tests/test_notebooks.py::test_x[forward_pass]: assert 1 == 2",
        "torch 2.99.0: examples 1 passed, 1 failed, 1 skipped; "
        "other tests 1 passed, 1 failed, 0 skipped; 12 s",
    ]
    assert plugin.annotations() == [
        "::error title=torch 2.99.0%3A a/changed.py fails,file=snippets/a/changed.py,line=12"
        "::snippets/a/changed.py:12: printed output differs, 50%25 of it:%0A-#> old%0A+#> new",
        "::error title=torch 2.99.0%3A tests/test_notebooks.py%3A%3Atest_x[forward_pass] fails,"
        "file=tests/test_notebooks.py,line=17::assert 1 == 2",
    ]


def test_a_failed_call_stays_failed_after_its_teardown() -> None:
    plugin = RunReport("2.99.0", report=True)
    plugin.pytest_runtest_logreport(report(EXAMPLE.format("a/x.py"), "call", "failed", "boom"))
    plugin.pytest_runtest_logreport(report(EXAMPLE.format("a/x.py"), "teardown", "passed"))
    assert plugin.lines(elapsed=0)[0] == "FAIL a/x.py: boom"


def test_annotation_escapes_its_properties_and_message() -> None:
    assert annotation("a,b:c.py", "2.7.0", "100%\r\nsure") == (
        "::error title=torch 2.7.0%3A a%2Cb%3Ac.py fails::100%25%0D%0Asure"
    )
