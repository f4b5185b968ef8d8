"""The project's layout: its configuration, its pages, its chapters, its snippets,
and which snippets each page includes. Each of these ideas is defined here once.

**Chapters** are the entries of the navigation's "Chapters" section, in order: a
page (``<chapter>.md``; since the long chapters were split, every chapter is a
section), or a section of pages whose first page is the chapter's
own and the others its sub-pages (``optimizer_step/index.md``, the section's index
page, then ``optimizer_step/schedules.md``). A chapter's number is its place in that
section; its name (``forward_pass``, ``optimizer_step``) is its first page's (or its
folder's, for an index page), and names its snippet folder
(``snippets/forward_pass/``) and its notebook (``docs/notebooks/forward_pass.ipynb``).
:func:`chapters_in` is that rule; MkDocs' ``on_nav`` (``hooks/chapter.py``) and the
tests both call it, on the navigation MkDocs built and on ``mkdocs.yml``'s.
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

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS_SECTION = "Chapters"

# A snippet include, perhaps of a line range (``"complete/train.py:40:58"``, an
# excerpt: pymdownx.snippets' syntax). A leading ";" escapes it (the authors' page
# shows the syntax).
INCLUDE = re.compile(r'^\s*(?P<escaped>;?)-+8<-+\s+"(?P<path>[^":]+)(?::(?P<lines>[^"]*))?"\s*$')


def snippet_files(root: Path = ROOT) -> list[Path]:
    """Every snippet file, in name order: the one walk over ``snippets/``."""
    return sorted((root / "snippets").rglob("*.py"))


def page_files(root: Path = ROOT) -> list[Path]:
    """Every Markdown page under docs/, in name order: the one walk over ``docs/``."""
    return sorted((root / "docs").rglob("*.md"))


def snippet_name(path: Path, root: Path = ROOT) -> str:
    """A snippet as pages include it: relative to snippets/ (``forward_pass/x.py``)."""
    return path.relative_to(root / "snippets").as_posix()


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
    page: str  # the page, relative to the project (docs/forward_pass/index.md)
    line: int  # 1-based
    path: str  # the snippet, relative to snippets/ (forward_pass/call_vs_forward.py)
    lines: str | None = None  # an excerpt's line range ("40:58"), or None: all of it


def includes_in(page: Path, root: Path = ROOT) -> list[Include]:
    """The snippet includes of one page, in page order (escaped ones left out)."""
    name = page.relative_to(root).as_posix() if page.is_relative_to(root) else str(page)
    return [
        Include(name, number, m.group("path"), m.group("lines"))
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1)
        if (m := INCLUDE.match(line)) and not m.group("escaped")
    ]


def includes(root: Path = ROOT) -> list[Include]:
    """Every snippet include in every page."""
    return [i for page in page_files(root) for i in includes_in(page, root)]


@dataclass(frozen=True)
class Chapter:
    number: int  # 1-based, its place in the nav's Chapters section
    title: str
    pages: tuple[str, ...]  # relative to docs/, the chapter's own page first

    @property
    def page(self) -> str:
        return self.pages[0]

    @property
    def name(self) -> str:
        """``forward_pass``: its snippet folder, its notebook, its URL."""
        page = Path(self.page)
        return page.parent.name if page.stem == "index" else page.stem

    @property
    def notebook(self) -> str:
        return f"notebooks/{self.name}.ipynb"

    def path(self, root: Path = ROOT) -> Path:
        return root / "docs" / self.page


def page_url(page: str) -> str:
    """A page's URL relative to the site (MkDocs' directory URLs): ``forward_pass.md``
    -> ``forward_pass/``, ``optimizer_step/index.md`` -> ``optimizer_step/``, a
    notebook page (mkdocs-jupyter) too: ``notebooks/compile.ipynb`` -> ``notebooks/compile/``."""
    stem = page.removesuffix(".md").removesuffix(".ipynb")
    if stem == "index" or stem.endswith("/index"):
        stem = stem.removesuffix("index").removesuffix("/")
    return f"{stem}/" if stem else ""


def file_url(page: Path, root: Path = ROOT) -> str:
    """:func:`page_url` of a page's file under ``root``'s docs/
    (``docs/memory/checkpointing.md`` -> ``memory/checkpointing/``)."""
    return page_url(page.relative_to(root / "docs").as_posix())


def _entry(item) -> tuple[str | None, object]:
    """(title, value) of one nav entry: ``{title: value}`` or a bare page."""
    if isinstance(item, dict) and len(item) == 1:
        return next(iter(item.items()))
    return None, item


def chapters_in(nav: list) -> list[Chapter]:
    """The chapters of a navigation written as mkdocs.yml writes it (a list of
    ``{title: page}``, ``{title: [entries]}`` and bare pages)."""
    section = next(
        (value for title, value in map(_entry, nav or []) if title == CHAPTERS_SECTION), []
    )
    found = []
    for title, value in map(_entry, section):
        pages = nav_pages(value) if isinstance(value, list) else [value]
        if pages:
            found.append(Chapter(len(found) + 1, title or Path(pages[0]).stem, tuple(pages)))
    return found


def chapters(root: Path = ROOT) -> list[Chapter]:
    """The chapters of ``mkdocs.yml``'s navigation."""
    return chapters_in(load_config(root).get("nav"))


def missing_includes(found: list[Include], root: Path = ROOT) -> list[str]:
    """An include whose snippet does not exist, as one line naming the page and line."""
    return [
        f"{include.page}:{include.line}: includes snippets/{include.path}, which does not exist"
        for include in found
        if not (root / "snippets" / include.path).is_file()
    ]


def chapters_of(names: list[str], root: Path = ROOT) -> list[Chapter]:
    """The chapters that snippets or pages belong to (``snippets/x/y.py`` or ``x/y.py``
    to the chapter ``x``, ``docs/x.md`` to the chapter it is a page of), in order."""
    names = [str(n).removeprefix(str(root) + "/").removeprefix("docs/") for n in names]
    return [
        c
        for c in chapters(root)
        if any(n.removeprefix("snippets/").startswith(f"{c.name}/") or n in c.pages for n in names)
    ]


def bookkeeping(root: Path = ROOT) -> list[str]:
    """Includes resolve, every snippet is included, every page is in nav."""
    found = includes(root)
    problems = missing_includes(found, root)
    included = {include.path for include in found}
    for snippet in snippet_files(root):
        rel = snippet_name(snippet, root)
        if rel not in included:
            problems.append(
                f"snippets/{rel}: orphan snippet, no page includes it "
                f'(include it in its chapter: --8<-- "{rel}")'
            )
    in_nav = set(nav_pages(load_config(root).get("nav")))
    for page in page_files(root):
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


def zensical_build(root: Path, *, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    """``zensical build --clean --strict`` of the project at ``root`` (its site goes to
    ``root / "site"``); the caller checks the result. Zensical reads mkdocs.yml and runs
    its Markdown extensions, not its MkDocs hooks or plugins."""
    zensical = Path(sys.executable).parent / "zensical"
    return subprocess.run(
        [str(zensical), "build", "--clean", "--strict"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
