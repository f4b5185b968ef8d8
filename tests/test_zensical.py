"""The content builds the same with Zensical, Material for MkDocs' successor.

Zensical (pinned in requirements.lock) reads mkdocs.yml and runs its Markdown
extensions, but not its MkDocs hooks or plugins. This builds a copy of the project
with it and checks, chapter by chapter, what the content itself says: every included
snippet (code text equal to the file), every admonition, the chapter's frame (What
you will learn, Read first, In short: titles, points and links), every code annotation
list and every formula as MathML with no raw ``$...$`` left. What only the hooks add
(chapter header and footer, verification line, progress list, notebooks, pictures)
is not checked here; CONTRIBUTING.md, "Moving to Zensical", lists it.
"""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import markdown
import pytest
from latex2mathml.converter import convert

from sitelib.site.codeblocks.copied import copied_text
from sitelib.site.frame import TITLES, boxes
from sitelib.site.layout import (
    ROOT,
    chapters,
    file_url,
    html_text,
    includes_in,
    project_copy,
    zensical_build,
)
from sitelib.site.markdown_scan import prose
from sitelib.site.mathml import BLOCK, INLINE
from sitelib.site.reference import linked_names, release
from sitelib.site.snippets import ANNOTATION, HARNESS_LINE

# Every page of every chapter (a chapter may have sub-pages).
PAGES = [ROOT / "docs" / page for chapter in chapters() for page in chapter.pages]
ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*)</article>', re.S)
CODE_BLOCK = re.compile(
    r'<div class="language-\w+ highlight">.*?<pre\b[^>]*>(?P<code>.*?)</pre>'
    r'(?:<p class="(?:search-names|example-record|block-report)"[^>]*>.*?</p>)*</div>'
    r"\s*(?P<list><ol>.*?</ol>)?",
    re.S,
)
ADMONITION_SOURCE = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s+([\w-]+)")
ADMONITION_BUILT = re.compile(r'<div class="admonition ([\w-]+)|<details class="([\w-]+)')
MATH = re.compile(r"<math\b.*?</math>", re.S)
FRAME_BUILT = re.compile(
    r'<div class="admonition (?P<kind>learn|read-first|summary)">\s*'
    r'<p class="admonition-title">(?P<title>.*?)</p>(?P<body>.*?)</div>',
    re.S,
)


@pytest.fixture(scope="module")
def zensical_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built by Zensical where MkDocs cannot be imported, as for a reader
    who installed Zensical alone: a package named ``mkdocs`` first on the path raises
    ImportError when imported (and notes that it was), so the extensions' fallbacks
    (sitelib/site/errors.py) are the ones that run."""
    tmp = tmp_path_factory.mktemp("zensical")
    project = project_copy(tmp / "project")
    hidden = tmp / "without-mkdocs"
    (hidden / "mkdocs").mkdir(parents=True)
    tried = tmp / "mkdocs-import-tried"
    (hidden / "mkdocs" / "__init__.py").write_text(
        f"open({str(tried)!r}, 'a').close()\n"
        "raise ImportError('MkDocs is not installed here (tests/test_zensical.py)')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hidden), str(ROOT)]))
    result = zensical_build(project, env=env)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert tried.exists(), "the build never tried to import MkDocs: nothing was hidden"
    return project / "site"


# -- what a chapter's source says ---------------------------------------------------------
def formulas_in(page: Path) -> list[tuple[int, str, str]]:
    """(line, formula, its MathML) for every formula of the page, in page order. As in the
    extension, display math is found first and may span lines (Markdown compiles inline
    patterns with DOTALL); code, fenced or in spans, holds none."""
    text = prose(page.read_text("utf-8"))
    found = []
    for pattern, display in ((BLOCK, "block"), (INLINE, "inline")):
        for m in re.finditer(pattern, text, re.S):
            mathml = convert(m["tex"].strip(), display=display)
            found.append((m.start(), text.count("\n", 0, m.start()) + 1, m.group(0), mathml))
        text = re.sub(pattern, lambda m: "\0" * len(m.group(0)), text, flags=re.S)
    return [(line, formula, mathml) for _, line, formula, mathml in sorted(found)]


def admonitions_in(page: Path) -> list[tuple[int, str]]:
    lines = prose(page.read_text("utf-8")).splitlines()
    return [(n, m[1]) for n, line in enumerate(lines, 1) if (m := ADMONITION_SOURCE.match(line))]


# -- the check ------------------------------------------------------------------------------
def zensical_problems(page: Path, built: str) -> list[str]:
    """What of the chapter ``page`` its built HTML ``built`` lacks."""
    name = page.relative_to(ROOT).as_posix()
    article = ARTICLE.search(built)
    if article is None:
        return [f"{name}: no <article> in the built page"]
    body = article.group(1)
    problems = []

    blocks = [(copied_text(m["code"]), m["list"] or "") for m in CODE_BLOCK.finditer(body)]
    for include in includes_in(page, ROOT):
        raw = (ROOT / "snippets" / include.path).read_text("utf-8")
        if include.lines:  # an excerpt: its lines, dedented as pymdownx.snippets does
            start, _, end = include.lines.partition(":")
            lines = raw.splitlines()[int(start) - 1 : int(end or start)]
            raw = textwrap.dedent("\n".join(lines))
        # as drawn: annotation markers stay until Material's script removes them
        text = HARNESS_LINE.sub("", raw)
        where = f"{include.page}:{include.line}: snippets/{include.path}"
        match = [items for code, items in blocks if code.strip("\n") == text.strip("\n")]
        if not match:
            problems.append(f"{where} is not in the built page (no code block with its text)")
            continue
        wanted = max((int(n) for n in ANNOTATION.findall(raw)), default=0)
        given = match[0].count("<li")
        if given < wanted:
            problems.append(
                f"{where} has {wanted} code annotations; its block is followed by "
                f"{given} list items"
            )

    expected = admonitions_in(page)
    built_kinds = [a or b for a, b in ADMONITION_BUILT.findall(body)]
    for i, (number, kind) in enumerate(expected):
        if i >= len(built_kinds) or built_kinds[i] != kind:
            problems.append(
                f"{name}:{number}: admonition '{kind}' missing from the built page "
                f"(built, in order: {built_kinds})"
            )
            break

    built_frame = list(FRAME_BUILT.finditer(body))
    for i, box in enumerate(boxes(page.read_text("utf-8"))):
        links = sum(len(point.links) for point in box.points)
        drawn = built_frame[i] if i < len(built_frame) else None
        if drawn is None or (drawn["kind"], html_text(drawn["title"])) != (
            box.kind,
            TITLES[box.kind],
        ):
            problems.append(f'{name}:{box.line}: "{TITLES[box.kind]}" is not in the built page')
        elif drawn["body"].count("<li") != len(box.points):
            problems.append(
                f'{name}:{box.line}: "{TITLES[box.kind]}" has {len(box.points)} points; '
                f"the built box {drawn['body'].count('<li')}"
            )
        elif drawn["body"].count("<a href=") != links:
            problems.append(
                f'{name}:{box.line}: "{TITLES[box.kind]}" has {links} links; '
                f"the built box {drawn['body'].count('<a href=')}"
            )

    maths = MATH.findall(body)
    for i, (number, formula, mathml) in enumerate(formulas_in(page)):
        if i >= len(maths) or maths[i] != mathml:
            problems.append(
                f"{name}:{number}: formula {formula} is not in the built page as MathML"
            )
            break
    visible = html_text(re.sub(r"<(pre|code|math)\b.*?</\1>", "", body, flags=re.S))
    problems += [
        f"{name}: raw formula {m.group(0)} left in the text"
        for pattern in (BLOCK, INLINE)
        for m in re.finditer(pattern, visible, re.S)
    ]
    return problems


def built_page(site: Path, page: Path) -> str:
    return (site / file_url(page) / "index.html").read_text("utf-8")


@pytest.mark.parametrize("page", PAGES, ids=[file_url(p) for p in PAGES])
def test_chapter_builds_the_same_with_zensical(page: Path, zensical_site: Path) -> None:
    built = built_page(zensical_site, page)
    assert zensical_problems(page, built) == []


def test_zensical_links_the_same_api_names(zensical_site: Path, built_site) -> None:
    """The reference links are the extension's (sitelib/site/reference.py): Zensical
    writes the same ones as MkDocs, to the same release."""
    _, site = built_site

    def links(root: Path) -> dict[str, str]:
        found: dict[str, str] = {}
        for page in PAGES:
            found |= linked_names(built_page(root, page))
        return found

    ours, theirs = links(site), links(zensical_site)
    assert ours and theirs == ours
    assert all(f"/docs/{release()}/" in href for href in theirs.values())


def test_every_chapter_has_something_to_check() -> None:
    """The chapters hold what the check looks at, so it cannot pass on empty lists."""
    for page in PAGES:
        assert admonitions_in(page), page.name
        assert "summary" in [box.kind for box in boxes(page.read_text("utf-8"))], page.name
    for chapter in chapters():  # a part may be all prose (complete/proof.md); a chapter is not
        assert any(includes_in(ROOT / "docs" / p, ROOT) for p in chapter.pages), chapter.name
    assert sum(len(formulas_in(page)) for page in PAGES) > 20
    assert any(
        ANNOTATION.search((ROOT / "snippets" / i.path).read_text("utf-8"))
        for page in PAGES
        for i in includes_in(page, ROOT)
    )


# -- the check fails on a page that lacks something ---------------------------------------
PAGE = ROOT / "docs" / "forward_pass" / "index.md"


def _drop_snippet_line(html: str) -> str:
    return html.replace(">log_call<", ">log_cal<", 1)


def _raw_formula(html: str) -> str:
    return MATH.sub(r"$\\frac{1}{1-p}$", html, count=1)


def _drop_admonition(html: str) -> str:
    return html.replace('class="admonition rule"', 'class="rule"', 1)


def _drop_summary_link(html: str) -> str:
    start = html.index('<div class="admonition summary">')
    end = html.index("</div>", start)
    box = re.sub(r'<a href="[^"]*">(.*?)</a>', r"\1", html[start:end], count=1)
    return html[:start] + box + html[end:]


def _drop_annotations(html: str) -> str:
    block_end = (
        r"</pre>(?:<p class=\"(?:search-names|example-record|block-report)\"[^>]*>.*?</p>)*</div>"
    )
    return re.sub(rf"(log_call.*?{block_end}\s*)<ol>.*?</ol>", r"\1", html, count=1, flags=re.S)


@pytest.mark.parametrize(
    "breaks, problem",
    [
        (
            _drop_snippet_line,
            r"docs/forward_pass/index.md:\d+: snippets/forward_pass/call_vs_forward.py "
            r"is not in the built page",
        ),
        (_raw_formula, r"docs/forward_pass/index.md:\d+: formula \$.*\$ is not in the built page"),
        (_raw_formula, r"docs/forward_pass/index.md: raw formula \$\\frac\{1\}\{1-p\}\$ left"),
        (_drop_admonition, r"docs/forward_pass/index.md:\d+: admonition 'rule' missing"),
        (
            _drop_summary_link,
            r'docs/forward_pass/index.md:\d+: "In short" has \d+ links; the built box \d+',
        ),
        (
            _drop_annotations,
            r"snippets/forward_pass/call_vs_forward.py has 2 code annotations; "
            r"its block is followed by 0 list items",
        ),
    ],
    ids=["snippet", "formula", "raw-formula", "admonition", "frame", "annotations"],
)
def test_zensical_check_catches_a_page_that_lacks_something(
    breaks, problem: str, zensical_site: Path
) -> None:
    built = built_page(zensical_site, PAGE)
    assert zensical_problems(PAGE, built) == []
    broken = breaks(built)
    assert broken != built, "the mutation must change the page"
    problems = zensical_problems(PAGE, broken)
    assert any(re.search(problem, p) for p in problems), problems


# -- the math extension's syntax ------------------------------------------------------------
def test_math_syntax() -> None:
    html = markdown.markdown(
        "Inline $x^2$, display $$\\sum_i x_i$$, a price of \\$5 and $6,\n"
        "code `$y$` untouched.\n\n```\n$z$\n```\n",
        extensions=["sitelib.site.mathml", "fenced_code"],
    )
    assert convert("x^2") in html
    assert convert("\\sum_i x_i", display="block") in html
    assert "a price of $5 and $6," in html
    assert "<code>$y$</code>" in html
    assert "<code>$z$\n</code>" in html
    assert html.count("<math") == 2
