"""The site builds strict, and its pages, includes and snippets all fit together."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.examples import ROOT
from tests.site import bookkeeping, load_config


def test_bookkeeping() -> None:
    problems = bookkeeping()
    assert not problems, "\n".join(problems)


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


def test_no_page_or_stylesheet_loads_from_another_host(built_site) -> None:
    _, site = built_site
    problems = [
        f"{path.relative_to(site)}: {tag}"
        for path in sorted(site.rglob("*"))
        if path.suffix in {".html", ".css"}
        for tag in foreign_resources(path.read_text("utf-8", errors="replace"))
    ]
    assert not problems, "\n".join(problems)


def test_foreign_resource_check_catches_a_cdn() -> None:
    assert foreign_resources('<script src="https://cdn.example.org/x.js"></script>')
    assert foreign_resources(
        '<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">'
    )
    assert foreign_resources("@import url('https://example.org/a.css');")
    assert not foreign_resources('<link rel="canonical" href="https://example.github.io/x/">')
    assert not foreign_resources('<a href="https://docs.pytorch.org/">docs</a>')


def chapter_pages() -> list[str]:
    sys.path.insert(0, str(ROOT / "tools"))
    import notebooks

    return [page.stem for page in notebooks.chapters()]


@pytest.mark.parametrize("chapter", chapter_pages())
def test_chapter_furniture(chapter: str, built_site) -> None:
    _, site = built_site
    page = (site / chapter / "index.html").read_text("utf-8")
    config = load_config()
    assert f"Examples last verified with torch {version('torch')} in this build." in page
    title = html.unescape(re.search(r"<h1[^>]*>(.*?)<", page).group(1)).replace("`", "")
    ask = config["repo_url"] + "/issues/new?title=" + quote(f"Question about: {title}")
    assert html.escape(ask) in page, ask
    assert 'data-chapter-complete="' + chapter + '/"' in page
    download = re.search(r'<a href="([^"]+\.ipynb)" download>', page).group(1)
    assert (site / chapter / download).resolve().is_file(), download
    colab = config["repo_url"].replace(
        "https://github.com/", "https://colab.research.google.com/github/"
    )
    assert f"{colab}/blob/main/docs/notebooks/{chapter}.ipynb" in page
    exercise = page.index('class="admonition exercise"')
    assert '<details class="success"' in page[exercise:], "the solution must be collapsed"


def test_harness_code_is_linted() -> None:
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run(
        [str(ruff), "check", "tests", "hooks", "tools"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
