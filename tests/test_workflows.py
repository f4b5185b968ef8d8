"""The GitHub Actions workflows are valid, pass zizmor, and pin every action to a commit.

Each check is a small function that returns its problems as text naming the file; the
tests run it on .github/workflows/ and, as a self-test, on a broken workflow in tmp_path.
Everything runs offline: check-jsonschema's workflow schema is bundled with it, and
zizmor runs with --offline.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent

# A job that violates the schema (`on: 42`, no runs-on) and one that zizmor and the
# pinning rule reject (a tag instead of a commit, no permissions, persisted credentials).
INVALID = "on: 42\njobs:\n  build:\n    steps:\n      - run: echo hi\n"
UNPINNED = (
    "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n"
    "    steps:\n      - uses: actions/checkout@v4\n"
)
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$")
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"^\s+#\s*v\d+(\.\d+)*\b")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120)


def schema_errors(path: Path) -> str:
    """check-jsonschema's complaints about one workflow, or "" when it is valid."""
    result = run(BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", path)
    return "" if result.returncode == 0 else f"{path}:\n{result.stdout}{result.stderr}"


def zizmor_findings(path: Path) -> list[str]:
    """zizmor's medium and high findings for a workflow file or folder, one line each."""
    result = run(BIN / "zizmor", "--offline", "--min-severity", "medium", "--format", "json", path)
    try:
        findings = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"zizmor failed on {path} (exit {result.returncode}):\n{result.stderr}")
    lines = []
    for finding in findings:
        where = finding["locations"][0]
        file = where["symbolic"]["key"]["Local"]["verbatim_path"]
        row = where["concrete"]["location"]["start_point"]["row"] + 1
        severity = finding["determinations"]["severity"].lower()
        lines.append(f"{file}:{row}: {finding['ident']} ({severity}): {finding['desc']}")
    return lines


def unpinned_uses(path: Path) -> list[str]:
    """Every `uses:` not pinned as `owner/repo@<40-hex commit> # vX.Y.Z`."""
    problems = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        match = USES.match(line)
        if match and not (PINNED.match(match[1]) and VERSION_COMMENT.match(match[2])):
            problems.append(f"{path}:{number}: {line.strip()}")
    return problems


def test_the_three_workflows_exist() -> None:
    assert {p.name for p in WORKFLOWS} >= {"tests.yml", "gpu.yml", "docs.yml", "links.yml"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_matches_schema(path: Path) -> None:
    errors = schema_errors(path)
    assert not errors, errors


def test_zizmor_finds_nothing_medium_or_high() -> None:
    findings = zizmor_findings(ROOT / ".github" / "workflows")
    assert not findings, "\n".join(findings)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit(path: Path) -> None:
    problems = unpinned_uses(path)
    assert not problems, "\n".join(problems)


# -- self-tests: each check fails on a broken workflow and names it ------------------
def test_schema_check_rejects_invalid_workflow(tmp_path: Path) -> None:
    bad = tmp_path / "invalid.yml"
    bad.write_text(INVALID, "utf-8")
    errors = schema_errors(bad)
    assert str(bad) in errors
    assert "'runs-on' is a required property" in errors or "$.on" in errors


def test_zizmor_check_rejects_unpinned_workflow(tmp_path: Path) -> None:
    bad = tmp_path / "unpinned.yml"
    bad.write_text(UNPINNED, "utf-8")
    findings = zizmor_findings(bad)
    assert any(f.startswith(f"{bad}:6: unpinned-uses (high)") for f in findings), findings
    assert any("excessive-permissions" in f for f in findings), findings


def test_pin_check_rejects_tag_and_missing_version_comment(tmp_path: Path) -> None:
    bad = tmp_path / "unpinned.yml"
    sha = "08c6903cd8c0fde910a37f88322edcfb5dd907a8"
    bad.write_text(UNPINNED + f"      - uses: actions/checkout@{sha}\n", "utf-8")
    assert unpinned_uses(bad) == [
        f"{bad}:6: - uses: actions/checkout@v4",
        f"{bad}:7: - uses: actions/checkout@{sha}",
    ]


def colab_publish_problems(text: str) -> list[str]:
    """What docs.yml lacks for "Open in Colab" (sitelib/site/notebooks.py) to find its
    notebook: the built notebooks gathered, and pushed as the branch the link names."""
    from sitelib.site.notebooks import COLAB_BRANCH

    needed = {
        "cp site/notebooks/*/*.ipynb colab/": "the built notebooks are not gathered",
        f"git init -q -b {COLAB_BRANCH}": f"no branch {COLAB_BRANCH} is made",
        f'push --force "$SERVER/$REPOSITORY.git" {COLAB_BRANCH}': f"{COLAB_BRANCH} is not pushed",
    }
    return [f"docs.yml: {why}" for line, why in needed.items() if line not in text]


def test_docs_workflow_publishes_what_colab_opens() -> None:
    text = (ROOT / ".github" / "workflows" / "docs.yml").read_text("utf-8")
    assert not colab_publish_problems(text)


def test_colab_publish_check_catches_another_branch() -> None:
    text = (ROOT / ".github" / "workflows" / "docs.yml").read_text("utf-8")
    assert colab_publish_problems(text.replace("-b notebooks", "-b main")) == [
        "docs.yml: no branch notebooks is made"
    ]
