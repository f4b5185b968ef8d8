"""The site as a whole: includes, orphans, nav, and the strict MkDocs build."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.examples import INCLUDE, ROOT


class _AnyTagLoader(yaml.SafeLoader):
    """Read mkdocs.yml without importing the objects its !!python tags name."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def html_text(fragment: str) -> str:
    """The text a reader sees in an HTML fragment: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def load_config(root: Path = ROOT) -> dict:
    return yaml.load((root / "mkdocs.yml").read_text("utf-8"), Loader=_AnyTagLoader)


def nav_pages(nav) -> set[str]:
    if isinstance(nav, str):
        return {nav} if nav.endswith((".md", ".ipynb")) else set()
    if isinstance(nav, list):
        return set().union(*(nav_pages(item) for item in nav)) if nav else set()
    if isinstance(nav, dict):
        return set().union(*(nav_pages(v) for v in nav.values())) if nav else set()
    return set()


def includes(root: Path = ROOT) -> list[tuple[str, int, str]]:
    """Every snippet include in the pages: (page, line, snippet path)."""
    found = []
    for page in sorted((root / "docs").rglob("*.md")):
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if m and not m.group("escaped"):
                found.append((page.relative_to(root).as_posix(), number, m.group("path")))
    return found


def bookkeeping(root: Path = ROOT) -> list[str]:
    """Includes resolve, every snippet is included, every page is in nav."""
    problems = []
    included = set()
    for page, line, target in includes(root):
        included.add(target)
        if not (root / "snippets" / target).is_file():
            problems.append(f"{page}:{line}: includes snippets/{target}, which does not exist")
    for snippet in sorted((root / "snippets").rglob("*.py")):
        rel = snippet.relative_to(root / "snippets").as_posix()
        if rel not in included:
            problems.append(f"snippets/{rel}: orphan snippet, no page includes it")
    in_nav = nav_pages(load_config(root).get("nav"))
    for page in sorted((root / "docs").rglob("*.md")):
        rel = page.relative_to(root / "docs").as_posix()
        if rel not in in_nav:
            problems.append(f"docs/{rel}: page is not in mkdocs.yml's nav")
    return problems


def mkdocs_build(root: Path, site_dir: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the project at ``root``; the caller checks the result."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    mkdocs = Path(sys.executable).parent / "mkdocs"
    return subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(site_dir)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def fixture_project(tmp: Path, fixture: Path) -> Path:
    """A copy of the real site's configuration with a fixture's docs/ and snippets/.

    The fixture's ``nav.yml`` replaces the nav (mkdocs.yml keeps ``nav:`` last).
    """
    for name in ("hooks", "overrides"):
        shutil.copytree(ROOT / name, tmp / name)
    shutil.copytree(fixture / "docs", tmp / "docs")
    shutil.copytree(ROOT / "docs" / "assets", tmp / "docs" / "assets")
    if (fixture / "snippets").is_dir():
        shutil.copytree(fixture / "snippets", tmp / "snippets")
    else:
        (tmp / "snippets").mkdir()
    config = (ROOT / "mkdocs.yml").read_text("utf-8")
    config = config[: config.index("\nnav:")] + "\n" + (fixture / "nav.yml").read_text("utf-8")
    (tmp / "mkdocs.yml").write_text(config, "utf-8")
    return tmp
