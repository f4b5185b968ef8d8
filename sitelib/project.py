"""The project's layout: its configuration, its pages, which of them are chapters,
and which snippets each page includes. Each of these ideas is defined here once.

A **chapter** is a page in ``nav`` that includes at least one snippet file
(``--8<-- "chapter/file.py"`` inside a fence). Chapters have a companion notebook
(:mod:`sitelib.notebooks`), a header and a footer (``hooks/chapter.py``) and a
place in the home page's progress list.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

# A snippet include. A leading ";" escapes it (the authors' page shows the syntax).
INCLUDE = re.compile(r'^\s*(?P<escaped>;?)-+8<-+\s+"(?P<path>[^"]+)"\s*$')


def load_config(root: Path = ROOT, environ: Mapping[str, str] | None = None) -> dict:
    """mkdocs.yml as plain data: ``!ENV [NAME, default]`` read from ``environ`` (the
    process's environment by default) as MkDocs reads it, ``!!python`` tags as None
    (nothing is imported)."""
    environ = os.environ if environ is None else environ

    class Loader(yaml.SafeLoader):
        pass

    def env(loader: yaml.Loader, node: yaml.Node):
        names = loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else None
        names = names or [loader.construct_scalar(node)]
        *variables, default = names if len(names) > 1 else (*names, None)
        return next((environ[v] for v in variables if v in environ), default)

    Loader.add_constructor("!ENV", env)
    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    return yaml.load((root / "mkdocs.yml").read_text("utf-8"), Loader=Loader)


def nav_pages(nav) -> list[str]:
    """The Markdown and notebook pages named in a nav, in nav order."""
    return re.findall(r'"([^"]+\.(?:md|ipynb))"', json.dumps(nav))


@dataclass(frozen=True)
class Include:
    page: str  # the page, relative to the project (docs/forward_pass.md)
    line: int  # 1-based
    path: str  # the snippet, relative to snippets/ (forward_pass/call_vs_forward.py)


def includes_in(page: Path, root: Path = ROOT) -> list[Include]:
    """The snippet includes of one page, in page order (escaped ones left out)."""
    name = page.relative_to(root).as_posix() if page.is_relative_to(root) else str(page)
    return [
        Include(name, number, m.group("path"))
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1)
        if (m := INCLUDE.match(line)) and not m.group("escaped")
    ]


def includes(root: Path = ROOT) -> list[Include]:
    """Every snippet include in every page."""
    return [i for page in sorted((root / "docs").rglob("*.md")) for i in includes_in(page, root)]


def chapters(root: Path = ROOT) -> list[Path]:
    """The chapters: pages in nav that include a snippet, in nav order."""
    pages = [root / "docs" / p for p in nav_pages(load_config(root).get("nav"))]
    return [p for p in pages if p.suffix == ".md" and p.is_file() and includes_in(p, root)]


def bookkeeping(root: Path = ROOT) -> list[str]:
    """Includes resolve, every snippet is included, every page is in nav."""
    problems = []
    included = set()
    for include in includes(root):
        included.add(include.path)
        if not (root / "snippets" / include.path).is_file():
            problems.append(
                f"{include.page}:{include.line}: includes snippets/{include.path}, "
                "which does not exist"
            )
    for snippet in sorted((root / "snippets").rglob("*.py")):
        rel = snippet.relative_to(root / "snippets").as_posix()
        if rel not in included:
            problems.append(f"snippets/{rel}: orphan snippet, no page includes it")
    in_nav = set(nav_pages(load_config(root).get("nav")))
    for page in sorted((root / "docs").rglob("*.md")):
        rel = page.relative_to(root / "docs").as_posix()
        if rel not in in_nav:
            problems.append(f"docs/{rel}: page is not in mkdocs.yml's nav")
    return problems


# -- building ---------------------------------------------------------------------------
def html_text(fragment: str) -> str:
    """The text a reader sees in an HTML fragment: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def mkdocs_build(
    root: Path, site_dir: Path, *, env: dict | None = None
) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the project at ``root``; the caller checks the result."""
    env = dict(os.environ if env is None else env, NO_MKDOCS_2_WARNING="1")
    mkdocs = Path(sys.executable).parent / "mkdocs"
    return subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(site_dir)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def config_with_nav(nav_yaml: str, root: Path = ROOT) -> str:
    """The project's mkdocs.yml with its ``nav`` replaced by ``nav_yaml``, every other
    key, tag (``!ENV``, ``!!python/name``) and comment kept (ruamel.yaml's round trip).

    A whole file rather than MkDocs' ``INHERIT``: Zensical reads ``INHERIT`` too but
    appends the child's nav to the parent's instead of replacing it.
    """
    from ruamel.yaml import YAML

    yaml_rt = YAML()
    yaml_rt.preserve_quotes = True
    config = yaml_rt.load((root / "mkdocs.yml").read_text("utf-8"))
    config["nav"] = yaml_rt.load(nav_yaml)["nav"]
    out = io.StringIO()
    yaml_rt.dump(config, out)
    return out.getvalue()


def fixture_project(tmp: Path, fixture: Path) -> Path:
    """A project at ``tmp`` with the real mkdocs.yml (nav excepted), hooks and overrides,
    and a fixture's docs/, snippets/ and nav (``fixture/nav.yml``). MkDocs and Zensical
    both build it."""
    for name in ("hooks", "overrides"):
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copytree(fixture / "docs", tmp / "docs")
    (tmp / "docs" / "assets").symlink_to(ROOT / "docs" / "assets", target_is_directory=True)
    if (fixture / "snippets").is_dir():
        shutil.copytree(fixture / "snippets", tmp / "snippets")
    else:
        (tmp / "snippets").mkdir()
    nav = (fixture / "nav.yml").read_text("utf-8")
    (tmp / "mkdocs.yml").write_text(config_with_nav(nav), "utf-8")
    return tmp


def project_copy(tmp: Path) -> Path:
    """A copy of the project's sources at ``tmp`` (docs/ and snippets/ copied, hooks/ and
    overrides/ linked), for a builder that writes into the project: Zensical has no
    ``--site-dir`` and keeps its site and cache inside the project's folder."""
    tmp.mkdir(parents=True, exist_ok=True)
    for name in ("docs", "snippets"):
        shutil.copytree(ROOT / name, tmp / name)
    for name in ("hooks", "overrides"):
        (tmp / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copy2(ROOT / "mkdocs.yml", tmp / "mkdocs.yml")
    return tmp


def zensical_build(root: Path) -> subprocess.CompletedProcess[str]:
    """``zensical build --clean --strict`` of the project at ``root`` (its site goes to
    ``root / "site"``); the caller checks the result. Zensical reads mkdocs.yml and runs
    its Markdown extensions, not its MkDocs hooks or plugins."""
    zensical = Path(sys.executable).parent / "zensical"
    return subprocess.run(
        [str(zensical), "build", "--clean", "--strict"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
