"""The site builds strict, and its pages, includes and snippets all fit together."""

from __future__ import annotations

import ast
import html
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from sitelib.site import notebooks
from sitelib.site.codeblocks.lean import LeanFilter
from sitelib.site.layout import (
    ROOT,
    bookkeeping,
    chapters,
    file_url,
    html_text,
    load_config,
    page_files,
    page_url,
    snippet_files,
)


def test_bookkeeping() -> None:
    """Every include resolves, every snippet is on a page, every page in the nav
    (`make check` runs it too: a new snippet no page includes fails there)."""
    if problems := bookkeeping():
        pytest.fail("\n".join(problems), pytrace=False)


def test_page_urls_are_the_ones_mkdocs_gives() -> None:
    # A path on disk forgives "optimizer_step//index.html"; a link in a notebook does not.
    from mkdocs.structure.files import File

    assert page_url("index.md") == ""  # MkDocs says "./"; the site's root joins as ""
    for page in (page for chapter in chapters() for page in chapter.pages):
        assert page_url(page) == File(page, "docs", "site", use_directory_urls=True).url, page
    for chapter in chapters():  # mkdocs-jupyter gives a notebook a page of its own
        assert page_url(chapter.notebook) == f"notebooks/{chapter.name}/"


def test_strict_build(built_site) -> None:
    result, _ = built_site
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    warnings = [line for line in log.splitlines() if re.match(r"(WARNING|ERROR)\s+-", line)]
    assert not warnings, "\n".join(warnings)


# -- the built pages ------------------------------------------------------------------
FOREIGN = re.compile(
    r"""<(?:script|img|iframe)[^>]+src=["'](?:https?:)?//|<link[^>]+href=["'](?:https?:)?//[^>]*>"""
    r"""|@import\s+url\(["']?(?:https?:)?//|fonts\.googleapis""",
    re.I,
)


def foreign_resources(text: str) -> list[str]:
    """Markup or CSS that would make the browser fetch from another host."""
    found = []
    for m in FOREIGN.finditer(text):
        tag = m.group(0)
        if tag.lower().startswith("<link") and re.search(r"rel=[\"'](?:canonical|alternate)", tag):
            continue  # metadata, never fetched
        found.append(tag[:120])
    return found


def test_the_local_server_sends_text_compressed_when_asked(tmp_path: Path) -> None:
    """make lighthouse measures the site as a static host sends it: gzip for text
    files (sitelib/site/static_site.py); the browser tests get the files as they are."""
    import gzip
    import urllib.request

    from sitelib.site.static_site import serve

    (tmp_path / "index.html").write_text("<p>hello</p>" * 50, "utf-8")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG")

    def get(url: str) -> tuple[str | None, bytes]:
        request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            return response.headers.get("Content-Encoding"), response.read()

    with serve(tmp_path, compress=True) as url:
        encoding, body = get(url)
        assert encoding == "gzip" and gzip.decompress(body) == b"<p>hello</p>" * 50
        assert get(url + "logo.png") == (None, b"\x89PNG")  # not a text file
    with serve(tmp_path) as url:
        assert get(url) == (None, b"<p>hello</p>" * 50)


def test_no_page_or_stylesheet_loads_from_another_host(built_site) -> None:
    _, site = built_site
    problems = [
        f"{path.relative_to(site)}: {tag}"
        for path in sorted(site.rglob("*"))
        if path.suffix in {".html", ".css"}
        for tag in foreign_resources(path.read_text("utf-8", errors="replace"))
    ]
    assert not problems, "\n".join(problems)


def test_the_sites_own_assets_are_served_minified(built_site) -> None:
    """hooks/minify.py: each stylesheet and script of docs/assets/ is served without
    its comments, and smaller."""
    _, site = built_site
    served = sorted((site / "assets").glob("*.[cj]s*"))  # Material's are in folders below
    assert {p.name for p in served} >= {"extra.css", "notebook.css", "a11y.js"}
    for path in served:
        text = path.read_text("utf-8")
        assert len(text) < len((ROOT / "docs" / "assets" / path.name).read_text("utf-8")), path
        assert "/*" not in text and not re.search(r"^\s*//", text, re.M), path.name


def test_foreign_resource_check_catches_a_cdn() -> None:
    assert foreign_resources('<script src="https://cdn.example.org/x.js"></script>')
    assert foreign_resources(
        '<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">'
    )
    assert foreign_resources("@import url('https://example.org/a.css');")
    assert not foreign_resources('<link rel="canonical" href="https://example.github.io/x/">')
    assert not foreign_resources('<a href="https://docs.pytorch.org/">docs</a>')


@pytest.mark.parametrize("chapter", chapters(), ids=lambda c: c.name)
def test_chapter_furniture(chapter, built_site, built_config) -> None:
    _, site = built_site
    page = (site / chapter.name / "index.html").read_text("utf-8")
    h1 = html_text(re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S).group(1)).strip()
    assert h1 == f"{chapter.number}. {chapter.title}", h1
    assert f"Chapter {chapter.number} of {len(chapters())}" in page
    chapters_by_name = {chapter.name: chapter}
    for part, sub_page in enumerate(chapter.pages[1:], 2):
        sub = (site / page_url(sub_page) / "index.html").read_text("utf-8")
        where = (
            f"Chapter {chapter.number} of {len(chapters())} · part {part} of {len(chapter.pages)}"
        )
        assert where in sub, sub_page
        assert 'data-chapter-complete="' not in sub or part == len(chapter.pages)
    chapter = chapter.name
    config = built_config
    record = re.search(r'<p class="verification-record">(.*?)</p>', page, re.S)
    assert record, "no verification record under the title"
    title = html.unescape(re.search(r"<h1[^>]*>(.*?)<", page).group(1)).replace("`", "")
    ask = config["repo_url"] + "/issues/new?title=" + quote(f"Question about: {title}")
    assert html.escape(ask) in page, ask
    last = (site / page_url(chapters_by_name[chapter].pages[-1]) / "index.html").read_text("utf-8")
    assert 'data-chapter-complete="' + chapter + '/"' in last, "the last part has the footer"
    # Each part's footer leads to the next part; the last chapter's back to the list.
    parts = [page_url(p) for p in chapters_by_name[chapter].pages]
    last_chapter = chapters_by_name[chapter].number == len(chapters())
    for here, there in zip(parts, [*parts[1:], "#chapters" if last_chapter else None], strict=True):
        footer = (site / here / "index.html").read_text("utf-8")
        link = re.search(r'<p class="chapter-next">.*?href="([^"]+)"', footer, re.S)
        assert bool(link) == (there is not None), here
        if link:
            path, _, anchor = link.group(1).partition("#")
            target = (site / here / path).resolve() / "index.html"
            assert target == (site / there.partition("#")[0]).resolve() / "index.html", here
            assert not anchor or f'id="{anchor}"' in target.read_text("utf-8"), link.group(1)
    download = re.search(r'<a href="([^"]+\.ipynb)" download>', page).group(1)
    assert (site / chapter / download).resolve().is_file(), download
    colab = config["repo_url"].replace(
        "https://github.com/", "https://colab.research.google.com/github/"
    )
    # Colab opens the notebook the deployed site serves (docs.yml pushes the built
    # site/notebooks/<name>/<name>.ipynb to this branch), which links to that site.
    assert f"{colab}/blob/{notebooks.COLAB_BRANCH}/{chapter}.ipynb" in page
    assert (site / "notebooks" / chapter / f"{chapter}.ipynb").is_file()
    # The exercise sits on one page of the chapter (the part it practises), its
    # solution collapsed under it.
    parts_html = [(site / url / "index.html").read_text("utf-8") for url in parts]
    holders = [h for h in parts_html if 'class="admonition exercise"' in h]
    assert len(holders) == 1, f"{len(holders)} pages of {chapter} hold an exercise"
    exercise = holders[0].index('class="admonition exercise"')
    assert '<details class="success"' in holders[0][exercise:], "the solution must be collapsed"


SITE_ENV = {
    "SITE_URL": "https://someone.github.io/a-fork/",
    "REPO_URL": "https://github.com/someone/a-fork",
    "REPO_NAME": "a-fork",
}


def test_links_follow_the_repository_that_builds_the_site(monkeypatch) -> None:
    """MkDocs reads site_url, repo_url and repo_name from the environment when set
    (docs.yml sets them from the repository), and uses the placeholders otherwise."""
    from mkdocs.config import load_config as mkdocs_config

    plain = mkdocs_config(str(ROOT / "mkdocs.yml"))
    assert plain.repo_url == "https://github.com/example/training-step-docs"
    for name, value in SITE_ENV.items():
        monkeypatch.setenv(name, value)
    forked = mkdocs_config(str(ROOT / "mkdocs.yml"))
    assert (forked.site_url, forked.repo_url, forked.repo_name) == tuple(SITE_ENV.values())
    # "Report a problem" under each block (sitelib/site/report.py) reads the same two
    assert forked.mdx_configs["sitelib.site.report"] == {
        "repo_url": SITE_ENV["REPO_URL"],
        "site_url": SITE_ENV["SITE_URL"],
    }
    assert load_config()["repo_url"] == SITE_ENV["REPO_URL"]  # sitelib reads it the same way
    workflow = (ROOT / ".github" / "workflows" / "docs.yml").read_text("utf-8")
    for name in SITE_ENV:
        assert f"          {name}: " in workflow, f"docs.yml's build does not set {name}"


# mkdocs.yml's defaults for site_url and repo_url name these: no reader may meet them.
PLACEHOLDERS = ("example.github.io", "github.com/example")
COLAB = re.compile(
    r"https://colab\.research\.google\.com/github/(?P<repo>[\w.-]+/[\w.-]+)/blob/"
    rf"{notebooks.COLAB_BRANCH}/(?P<name>[\w.-]+)\.ipynb"
)
TEXT_FILES = {".html", ".ipynb", ".xml", ".json", ".js", ".css", ".txt"}


def placeholder_problems(site: Path) -> list[str]:
    """Each built text file (pages, notebooks, sitemap, search index) that names a
    placeholder host, as ``path:line: names host``. The notebooks among them are
    what "Open in Colab" opens too: docs.yml publishes site/notebooks/<name>/<name>.ipynb
    on the notebooks branch (CONTRIBUTING.md, "Notebooks and their links")."""
    files = [p for p in sorted(site.rglob("*")) if p.suffix in TEXT_FILES and p.is_file()]
    problems = []
    for path in files:
        shown = path.relative_to(site).as_posix()
        text = path.read_text("utf-8", errors="replace") if path.is_file() else ""
        for host in PLACEHOLDERS:
            if host in text:
                line = text.count("\n", 0, text.index(host)) + 1
                problems.append(f"{shown}:{line}: names {host}")
    return problems


def test_no_placeholder_host_reaches_a_reader(built_site, built_config) -> None:
    """The suite builds for its own SITE_URL and REPO_URL (tests/conftest.py): nothing
    built, nor the notebook "Open in Colab" opens, may name mkdocs.yml's placeholders;
    the Colab links open the building repository's notebooks."""
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    assert not any(host in built_config["site_url"] for host in PLACEHOLDERS), (
        "built for the placeholder site: build with SITE_URL and REPO_URL set"
    )
    problems = placeholder_problems(site)
    assert not problems, "\n".join(problems)
    repo = built_config["repo_url"].removeprefix("https://github.com/")
    chapter = (site / "forward_pass" / "index.html").read_text("utf-8")
    links = list(COLAB.finditer(chapter))
    assert {m["repo"] for m in links} == {repo}
    for m in links:  # the copy published for Colab is one this check read
        assert (site / "notebooks" / m["name"] / f"{m['name']}.ipynb").is_file(), m[0]


def test_placeholder_check_names_every_file(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "notebooks" / "x").mkdir(parents=True)
    colab = "https://colab.research.google.com/github/someone/a-fork/blob/notebooks"
    (site / "index.html").write_text(
        f'<p>fine</p>\n<a href="{colab}/x.ipynb">Colab</a>\n'
        '<link rel="canonical" href="https://example.github.io/training-step-docs/">\n'
    )
    (site / "notebooks" / "x" / "x.ipynb").write_text('{"a": "see https://example.github.io/"}')
    (site / "sitemap.xml").write_text("<loc>https://someone.github.io/a-fork/</loc>\n")
    assert placeholder_problems(site) == [
        "index.html:3: names example.github.io",
        "notebooks/x/x.ipynb:1: names example.github.io",
    ]


def _is_sys_path(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def code_files(root: Path, folders=("sitelib", "hooks", "tools", "tests")):
    """(name, parsed module) of every Python file of the library and its users, but
    the deliberately broken fixtures and the Lighthouse tool's node_modules."""
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            if "fixtures" not in path.parts and "node_modules" not in path.parts:
                yield path.relative_to(root).as_posix(), ast.parse(path.read_text("utf-8"))


def imported(node: ast.AST) -> list[str]:
    """The modules an import statement names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return [node.module or ""] if isinstance(node, ast.ImportFrom) else []


def layering_problems(root: Path = ROOT) -> list[str]:
    """Content -> sitelib -> its users (tests, hooks, tools): nothing imports tests/, and
    no test, hook or tool reaches code by changing sys.path (the venv's .pth file names
    the checkout)."""
    problems = []
    for name, tree in code_files(root):
        for node in ast.walk(tree):
            modules = imported(node)
            if any(m == "tests" or m.startswith("tests.") for m in modules):
                problems.append(f"{name}:{node.lineno}: imports tests/")
            changed = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and _is_sys_path(node.func.value)
            ) or (
                isinstance(node, ast.Assign | ast.AugAssign)
                and any(
                    _is_sys_path(t)
                    for t in getattr(node, "targets", [getattr(node, "target", None)])
                )
            )
            if changed and not name.startswith("sitelib/"):
                problems.append(f"{name}:{node.lineno}: changes sys.path")
    return sorted(set(problems))


def test_layers_import_downwards_only() -> None:
    problems = layering_problems()
    assert not problems, "\n".join(problems)


def test_layering_check_catches_an_import_of_tests(tmp_path: Path) -> None:
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "bad.py").write_text("import os\nfrom tests.site import x\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_bad.py").write_text("import sys\n\nsys.path.insert(0, 'tools')\n")
    assert layering_problems(tmp_path) == [
        "hooks/bad.py:2: imports tests/",
        "tests/test_bad.py:3: changes sys.path",
    ]


def import_circles(root: Path = ROOT) -> list[str]:
    """Each circle of imports between sitelib's modules, at the top of a module or
    inside a function alike (an import inside a function that closes a circle hides it,
    not removes it), as ``a -> b -> a``. A module's package counts as imported with it."""
    graph: dict[str, set[str]] = {}
    for name, tree in code_files(root, ("sitelib",)):
        module = name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        targets = graph.setdefault(module, set())
        for node in ast.walk(tree):
            names = imported(node)
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the module's package
                    package = module if name.endswith("__init__.py") else module.rsplit(".", 1)[0]
                    package = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{package}.{base}" if base else package
                names = [base] + [f"{base}.{alias.name}" for alias in node.names]
            targets.update(n for n in names if n.startswith("sitelib.") and n != module)
    for module, targets in graph.items():  # only sitelib's own modules, packages included
        graph[module] = {t for t in targets if t in graph}
    circles, seen = [], set()

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph.get(path[-1], ())):
            if nxt == path[0]:
                key = frozenset(path)
                if key not in seen:
                    seen.add(key)
                    circles.append(" -> ".join([*path, nxt]))
            elif nxt not in path and nxt > path[0]:
                walk([*path, nxt])

    for start in sorted(graph):
        walk([start])
    return circles


def test_the_library_has_no_import_circle() -> None:
    circles = import_circles()
    assert not circles, "\n".join(circles)


def test_import_circle_check_catches_one_hidden_in_a_function(tmp_path: Path) -> None:
    (tmp_path / "sitelib" / "check").mkdir(parents=True)
    (tmp_path / "sitelib" / "check" / "a.py").write_text("from sitelib.check import b\n")
    (tmp_path / "sitelib" / "check" / "b.py").write_text(
        "def late():\n    from sitelib.check.a import x\n"
    )
    (tmp_path / "sitelib" / "check" / "c.py").write_text("import sitelib.check.a\n")
    assert import_circles(tmp_path) == ["sitelib.check.a -> sitelib.check.b -> sitelib.check.a"]


def framework_imports(root: Path = ROOT) -> list[str]:
    """Where code outside tests/ imports pytest, or the build (the site half and the
    hooks) imports the check half or pytest-examples (CONTRIBUTING.md, "The library in two halves")."""
    problems = []
    for name, tree in code_files(root, ("sitelib", "hooks", "tools")):
        site_half = name.startswith(("sitelib/site/", "hooks/"))
        for node in ast.walk(tree):
            for module in imported(node):
                top = module.split(".")[0]
                if top == "pytest" or top == "_pytest":
                    problems.append(f"{name}:{node.lineno}: imports pytest")
                elif site_half and (top == "pytest_examples" or module.startswith("sitelib.check")):
                    problems.append(f"{name}:{node.lineno}: the site half imports {module}")
    return problems


def test_only_the_tests_import_pytest() -> None:
    problems = framework_imports()
    assert not problems, "\n".join(problems)


def test_framework_import_check_catches_both_kinds(tmp_path: Path) -> None:
    (tmp_path / "sitelib" / "site").mkdir(parents=True)
    (tmp_path / "sitelib" / "check").mkdir()
    (tmp_path / "sitelib" / "site" / "page.py").write_text(
        "import os\nfrom sitelib.check.run import run_example\nimport pytest_examples\n"
    )
    (tmp_path / "sitelib" / "check" / "run.py").write_text(
        "import pytest_examples\nimport pytest\n"
    )
    assert framework_imports(tmp_path) == [
        "sitelib/check/run.py:2: imports pytest",
        "sitelib/site/page.py:2: the site half imports sitelib.check.run",
        "sitelib/site/page.py:3: the site half imports pytest_examples",
    ]


def test_the_build_imports_no_test_framework(built_site) -> None:
    """The build ran with PYTHONPROFILEIMPORTTIME (tests/conftest.py): Python listed
    every module it imported, hooks, extensions and pictures' snippets included."""
    result, _ = built_site
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "mkdocs.commands.build" in imported, "no import list: PYTHONPROFILEIMPORTTIME unset?"
    framework = sorted(
        m for m in imported if m.split(".")[0] in {"pytest", "_pytest", "pytest_examples"}
    )
    assert not framework, framework


WALKS = {"rglob", "glob", "iterdir", "walk", "listdir", "scandir"}
ONE_WALK = {
    "snippets": "sitelib/site/layout.py:snippet_files",
    "docs": "sitelib/site/layout.py:page_files",
}


def second_walks(root: Path = ROOT) -> list[str]:
    """A walk over snippets/ or docs/ (``rglob``, ``glob``, ``iterdir``, ``os.walk``...
    on a path built with that folder's name) anywhere but in the one function that
    lists it for everyone (sitelib/site/layout.py). Written differently, a second
    list of the snippets may disagree with the first without anyone noticing."""
    problems = []
    for name, tree in code_files(root):
        functions = {
            id(node): fn.name
            for fn in ast.walk(tree)
            if isinstance(fn, ast.FunctionDef)
            for node in ast.walk(fn)
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in WALKS:
                continue
            texts = {
                c.value
                for c in ast.walk(node)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            }
            for walked, owner in ONE_WALK.items():
                if walked in texts and f"{name}:{functions.get(id(node))}" != owner:
                    problems.append(f"{name}:{node.lineno}: walks {walked}/ itself; use {owner}()")
    return problems


def test_snippets_and_pages_are_listed_in_one_place() -> None:
    problems = second_walks()
    assert not problems, "\n".join(problems)


def test_second_walk_check_catches_a_twin(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "count.py").write_text(
        "from pathlib import Path\n\n\ndef count(root):\n"
        "    return len(list((root / 'snippets').rglob('*.py')))\n"
    )
    assert second_walks(tmp_path) == [
        "tools/count.py:5: walks snippets/ itself; use sitelib/site/layout.py:snippet_files()"
    ]


def test_the_suite_runs_in_its_two_groups(request: pytest.FixtureRequest) -> None:
    """make test runs pytest -n 2 --dist loadgroup: every test of the built site in one
    worker (one build, one browser), the rest in the other (tests/conftest.py). A pytest
    or pytest-xdist upgrade that stops the grouping would build the site twice."""
    groups = [m.args[0] for m in request.node.iter_markers("xdist_group")]
    assert groups == ["checks"], groups
    if request.config.getoption("dist", "no") == "loadgroup":
        assert request.node.nodeid.endswith("@checks"), request.node.nodeid


def test_harness_code_is_linted() -> None:
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run(
        [str(ruff), "check", "sitelib", "tests", "hooks", "tools"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# -- lean code blocks (sitelib/site/codeblocks/lean.py, LeanFilter) ----------------------
PLAIN = {"n", "w", "o", "p"}  # names, whitespace, operators, punctuation
PLAIN_SPAN = re.compile(rf'<span class="(?:{"|".join(sorted(PLAIN))})">')
COLOURED_SPAN = re.compile(r'<span class="([^"]+)">')


def lean_problems(before: str, after: str) -> list[str]:
    """What the lean rewrite changed that a reader could see, or failed to remove."""
    problems = []
    if html_text(before) != html_text(after):
        problems.append("the code's text changed")
    kept = [c for c in COLOURED_SPAN.findall(before) if c not in PLAIN]
    if COLOURED_SPAN.findall(after) != kept:
        problems.append("a coloured token lost or changed its span")
    if PLAIN_SPAN.search(after):
        problems.append(f"{len(PLAIN_SPAN.findall(after))} plain spans left")
    return problems


def highlighted(source: str, *, lean: bool) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    lexer = PythonLexer()
    if lean:
        lexer.add_filter(LeanFilter())
    return highlight(source, lexer, HtmlFormatter(wrapcode=True))


def test_lean_code_keeps_every_snippets_text_and_colours() -> None:
    problems = []
    for path in snippet_files():
        source = path.read_text("utf-8")
        before, after = highlighted(source, lean=False), highlighted(source, lean=True)
        problems += [f"{path.relative_to(ROOT)}: {p}" for p in lean_problems(before, after)]
    assert not problems, "\n".join(problems)


def test_lean_code_check_catches_a_lossy_rewrite() -> None:
    source = "x = f(1) and y  # note\n"
    before, after = highlighted(source, lean=False), highlighted(source, lean=True)
    assert lean_problems(before, after) == []
    assert "the code's text changed" in lean_problems(before, after.replace("f(", "f"))
    uncoloured = after.replace('<span class="mi">1</span>', "1")
    assert "a coloured token lost or changed its span" in lean_problems(before, uncoloured)
    assert "plain spans left" in " ".join(lean_problems(before, before))


def test_built_code_blocks_are_lean(built_site) -> None:
    _, site = built_site
    problems = [
        f"{path.relative_to(site)}: {len(PLAIN_SPAN.findall(pre))} plain spans in a code block"
        for path in sorted(site.rglob("*.html"))
        for pre in re.findall(r"<pre\b.*?</pre>", path.read_text("utf-8"), re.S)
        if PLAIN_SPAN.search(pre)
    ]
    assert not problems, "\n".join(problems[:10])


PLAIN_COLOURS = ("name", "operator", "punctuation")


def colour_problems(css: str) -> list[str]:
    """The lean rewrite is invisible only if names, operators and punctuation share
    the code text colour, in both palettes."""
    problems = []
    for scheme in ("default", "slate"):
        block = re.search(rf'\[data-md-color-scheme="{scheme}"\]\s*\{{(.*?)\}}', css, re.S)
        found = {}
        for kind in PLAIN_COLOURS:
            m = re.search(rf"--md-code-hl-{kind}-color:\s*([^;]+);", block[1] if block else "")
            found[kind] = m[1].strip() if m else None
        if None in found.values() or len(set(found.values())) != 1:
            problems.append(f"{scheme}: name, operator and punctuation colours differ: {found}")
    if not re.search(
        r"\.highlight[^{]*\{\s*--md-code-fg-color:\s*var\(--md-code-hl-name-color\)", css
    ):
        problems.append("code text does not take --md-code-hl-name-color")
    return problems


def test_plain_tokens_share_the_code_colour() -> None:
    css = (ROOT / "docs" / "assets" / "extra.css").read_text("utf-8")
    assert colour_problems(css) == []
    broken = css.replace(
        "--md-code-hl-operator-color: #e6e6e6;", "--md-code-hl-operator-color: #d0d0d0;"
    )
    assert colour_problems(broken) == [
        "slate: name, operator and punctuation colours differ: "
        "{'name': '#e6e6e6', 'operator': '#d0d0d0', 'punctuation': '#e6e6e6'}"
    ]


def test_the_preview_builds_again_a_page_whose_snippet_changed(tmp_path: Path) -> None:
    """`make serve` (mkdocs serve --dirty): a page whose snippet is newer than its built
    HTML is marked stale, others are not, and nothing is marked outside the preview."""
    import logging
    import os

    from sitelib.site import preview

    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets" / "ch").mkdir(parents=True)
    page, other = tmp_path / "docs" / "ch.md", tmp_path / "docs" / "other.md"
    page.write_text('# Ch\n\n```python\n--8<-- "ch/x.py"\n```\n')
    other.write_text("# Other\n")
    snippet = tmp_path / "snippets" / "ch" / "x.py"
    snippet.write_text("print(1)\n")
    built = {p: tmp_path / "site" / p.stem / "index.html" for p in (page, other)}
    for html_file in built.values():
        html_file.parent.mkdir(parents=True)
        html_file.write_text("<html></html>")
        os.utime(html_file, (1000, 1000))
    os.utime(snippet, (2000, 2000))
    pairs = list(built.items())
    try:
        preview.started("build", dirty=False)
        assert preview.mark_stale_pages(pairs, tmp_path) == []
        preview.started("serve", dirty=True)
        assert preview.mark_stale_pages(pairs, tmp_path) == [page]
        assert built[page].stat().st_mtime == 0 and built[other].stat().st_mtime == 1000
    finally:
        preview.started("build", dirty=False)
    quiet = preview.QuietExpected()
    record = lambda text: logging.LogRecord("x", logging.WARNING, "", 0, text, None, None)  # noqa: E731
    assert not quiet.filter(record('"GET / HTTP/1.1" code 302'))
    assert quiet.filter(record('"GET /training-step-docs/nothere/ HTTP/1.1" code 404'))


# -- search ----------------------------------------------------------------------------
def test_search_index_holds_prose_not_code(built_site) -> None:
    """At most half of what the same pages make with their code; no code text, fold summary or output label; a
    block's names are there (sitelib/check/search_index.py)."""
    from sitelib.check.search_index import code_pairs, index_problems, size_with_code

    _, site = built_site
    raw = (site / "search" / "search_index.json").read_text("utf-8")
    problems = index_problems(raw, code_pairs(), size_with_code(site, raw))
    assert not problems, "\n".join(problems[:10])
    names = {w for e in json.loads(raw)["docs"] for w in re.findall(r"[\w.]+", e["text"])}
    assert {"clip_grad_norm_", "GradScaler", "set_to_none"} <= names


def test_search_index_check_catches_code_in_the_index(built_site) -> None:
    from sitelib.check.search_index import code_pairs, index_problems, indexed_with_code

    _, site = built_site
    page = (site / "optimizer_step" / "index.html").read_text("utf-8")
    pairs = code_pairs()
    docs = indexed_with_code(page)
    raw = json.dumps({"docs": docs})
    problems = index_problems(raw, pairs, 10 * len(raw))
    where = "search_index.json entry #what-step-does-to-the-parameters"
    assert f"{where}: holds the code of snippets/optimizer_step/sgd_by_hand.py" in problems
    assert any(": holds an output label: 'Output: #>" in p for p in problems), problems
    assert any(": holds a fold's summary: 'Set-up, lines 1" in p for p in problems), problems
    # The same entries are more than half of themselves with their code.
    assert index_problems(raw, pairs, len(raw))[0] == (
        f"search_index.json is {len(raw):,} bytes, more than half of the {len(raw):,} the "
        f"same pages make with their code (at most {len(raw) // 2:,})"
    )


def test_old_links_into_split_chapters_arrive(built_site) -> None:
    """Every heading id a chapter page had before the chapters were split is on that
    page still, or its moved-anchors map sends it to the sub-page that has it."""
    from sitelib.check.anchors import old_anchor_problems, old_anchors

    _, site = built_site
    problems = old_anchor_problems(site, old_anchors())
    assert not problems, "\n".join(problems)


def test_old_link_check_catches_a_lost_anchor(tmp_path: Path) -> None:
    from sitelib.check.anchors import old_anchor_problems
    from sitelib.site.anchors import moved_anchors

    ids = {"a/index.md": {"intro"}, "a/b.md": {"kept", "twice"}, "a/c.md": {"twice"}}
    assert moved_anchors("a/index.md", ["a/b.md", "a/c.md"], ids) == {"kept": "a/b.md"}
    (tmp_path / "a" / "b").mkdir(parents=True)
    moved = html.escape(json.dumps({"kept": "b/"}), quote=False)
    (tmp_path / "a" / "index.html").write_text(
        f'<h2 id="intro">I</h2><div id="moved-anchors" hidden data-anchors=\'{moved}\'></div>'
    )
    (tmp_path / "a" / "b" / "index.html").write_text('<h2 id="kept">K</h2>')
    old = {"a/": ["intro", "kept", "lost"], "gone/": ["lost"]}
    fixture = tmp_path / "before.json"
    fixture.write_text(json.dumps(old, indent=1) + "\n")
    # Each named by its own line, though both pages listed the id "lost".
    assert old_anchor_problems(tmp_path, old, fixture) == [
        f"{fixture}:5: /a/#lost arrives nowhere: no heading with that id on /a/, and no "
        "entry for it in that page's moved-anchors map",
        f"{fixture}:8: /gone/#lost arrives nowhere: no heading with that id on /gone/, and no "
        "entry for it in that page's moved-anchors map",
    ]


# -- edit and view buttons ----------------------------------------------------------
EDIT_LINK = re.compile(
    r'<a href="([^"]+)" title="[^"]*" class="md-content__button md-icon" rel="edit">'
)
VIEW_LINK = re.compile(
    r'<a href="([^"]+)" title="View source of this page" class="md-content__button'
)


def edit_link_problems(site: Path, repo_url: str, edit_uri: str, root: Path = ROOT) -> list[str]:
    """Each built page whose edit or view button does not open its own Markdown file on
    the building repository (``repo_url`` + ``edit_uri``; the view button the raw
    file), and each notebook page that has one (generated: edit the snippets)."""
    problems = []
    for page in page_files(root):
        source = page.relative_to(root / "docs").as_posix()
        html = (site / file_url(page, root) / "index.html").read_text("utf-8")
        edit = f"{repo_url.rstrip('/')}/{edit_uri}{source}"
        found = EDIT_LINK.findall(html)
        if found != [edit]:
            problems.append(f"{source}: edit button {found or 'missing'}, expected {edit}")
        view = edit.replace("/edit/", "/raw/", 1)
        if VIEW_LINK.findall(html) != [view]:
            problems.append(f"{source}: view button {VIEW_LINK.findall(html) or 'missing'}")
    for notebook in sorted((site / "notebooks").glob("*/index.html")):
        if 'rel="edit"' in notebook.read_text("utf-8"):
            problems.append(f"{notebook.relative_to(site).as_posix()}: an edit button")
    return problems


def test_every_page_has_edit_and_view_buttons_for_its_source(built_site, built_config) -> None:
    _, site = built_site
    problems = edit_link_problems(site, built_config["repo_url"], built_config["edit_uri"])
    assert not problems, "\n".join(problems)


def test_edit_button_check_catches_a_wrong_a_missing_and_a_notebooks_link(
    tmp_path: Path,
) -> None:
    """A fake project of three pages: one with the right buttons, one whose edit button
    names another repository, one with none; and a notebook page with a button."""
    repo, uri = "https://github.com/owner/site", "edit/main/docs/"
    root, site = tmp_path / "root", tmp_path / "site"
    buttons = (
        '<a href="{0}" title="Edit this page" class="md-content__button md-icon" rel="edit">'
        '<a href="{1}" title="View source of this page" class="md-content__button md-icon">'
    )
    pages = {
        "right.md": buttons.format(f"{repo}/{uri}right.md", f"{repo}/raw/main/docs/right.md"),
        "wrong.md": buttons.format(f"https://github.com/x/y/{uri}wrong.md", "-"),
        "none.md": "<p>no buttons</p>",
        "notebooks/n.ipynb": buttons.format("e", "v"),
    }
    for name, body in pages.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text("# x\n", "utf-8")
        built = site / page_url(name) / "index.html"
        built.parent.mkdir(parents=True, exist_ok=True)
        built.write_text(body, "utf-8")
    problems = edit_link_problems(site, repo, uri, root)
    assert [p.split(":")[0] for p in problems] == [
        "none.md",
        "none.md",
        "wrong.md",
        "wrong.md",
        "notebooks/n/index.html",
    ], problems
    assert "expected https://github.com/owner/site/edit/main/docs/wrong.md" in problems[2]


def test_an_empty_parametrization_is_deselected_not_skipped(request: pytest.FixtureRequest):
    """pytest marks the one item of a parametrization with no values as skipped; the
    suite deselects it instead (tests/conftest.py): a skip would count a test that
    never runs here. Self-test on two items, one of them such a skip."""
    conftest = request.config.pluginmanager.get_plugin(str(Path(__file__).with_name("conftest.py")))
    empty = pytest.mark.skip(reason="got empty parameter set for (x)").mark
    other = pytest.mark.skip(reason="needs CUDA").mark

    class Item:
        def __init__(self, mark):
            self.mark = mark

        def iter_markers(self, name):
            return [self.mark] if name == self.mark.name else []

    items = [Item(empty), Item(other)]
    assert conftest.empty_parametrizations(items) == [items[0]]
    left = conftest.empty_parametrizations(request.session.items)
    assert not left, [i.nodeid for i in left]
