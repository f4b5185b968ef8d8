"""The glossary (sitelib/site/glossary.py): one file of definitions, docs/glossary.md;
each term explained with a tooltip where a section first uses it in prose, and not
again in that section, nor in code, links or headings; a form defined twice fails the
build; a term no page uses fails here."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

from sitelib.site.glossary import GlossaryError, read, unused_terms
from sitelib.site.layout import ROOT, chapters, load_config, nav_pages

GLOSSARY = ROOT / "docs" / "glossary.md"
ABBR = re.compile(r'<abbr (?=[^>]*tabindex="0")[^>]*title="[^"]*"[^>]*>(.*?)</abbr>', re.S)


def render(text: str, source: Path) -> str:
    return markdown.markdown(
        text,
        extensions=["sitelib.site.glossary", "pymdownx.superfences"],
        extension_configs={"sitelib.site.glossary": {"source": str(source)}},
    )


def test_a_term_is_explained_at_its_first_use_in_each_section(tmp_path: Path) -> None:
    source = tmp_path / "glossary.md"
    source.write_text("rank, ranks\n:   One of the processes.\n\n`grad_fn`\n:   A node.\n")
    page = render(
        "## One\n\nEach rank runs; every rank waits. [A rank](x) and `grad_fn`.\n\n"
        "```python\nrank = 0\n```\n\n## Two\n\nTwo ranks, `grad_fn`.\n",
        source,
    )
    one, two = page.split("<h2>Two</h2>")
    assert ABBR.findall(one) == ["rank", "<code>grad_fn</code>"], one
    assert "every rank waits" in one and '<a href="x">A rank</a>' in one
    assert "<abbr" not in page[page.index("<pre") : page.index("</pre>")]  # code untouched
    assert ABBR.findall(two) == ["ranks", "<code>grad_fn</code>"], two


def test_glossary_check_catches_a_term_defined_twice(tmp_path: Path) -> None:
    source = tmp_path / "glossary.md"
    source.write_text("rank\n:   One.\n\nranks, rank\n:   Again.\n")
    with pytest.raises(
        GlossaryError, match=r"glossary.md:4: 'rank' is defined twice \(also on line 1\)"
    ):
        read(source)


def test_glossary_check_catches_a_term_no_page_uses(tmp_path: Path) -> None:
    source = tmp_path / "glossary.md"
    source.write_text("# Glossary\n\nrank\n:   One.\n\nbucket\n:   A group.\n")
    pages = {"a.html": render("Each rank.", source)}
    assert unused_terms(read(source), pages) == ["docs/glossary.md:6: 'bucket' is used by no page"]


def test_the_glossary_is_a_page_after_the_chapters_and_not_a_chapter() -> None:
    pages = nav_pages(load_config()["nav"])
    chapter_pages = [p for chapter in chapters() for p in chapter.pages]
    assert "glossary.md" in pages and "glossary.md" not in chapter_pages
    assert pages.index("glossary.md") > max(pages.index(p) for p in chapter_pages)


def test_built_pages_explain_every_term_once_per_section(built_site) -> None:
    _, site = built_site
    terms = read(GLOSSARY)
    assert len(terms) >= 20, len(terms)
    pages = {p.relative_to(site).as_posix(): p.read_text("utf-8") for p in site.rglob("*.html")}
    assert unused_terms(terms, pages) == []
    glossary = pages["glossary/index.html"]
    listed = [re.sub(r"<[^>]+>", "", dt) for dt in re.findall(r"<dt>(.*?)</dt>", glossary, re.S)]
    assert [t.split(" (")[0].split(",")[0] for t in listed] == [t.headword for t in terms]
    assert "<abbr" not in glossary
    problems = []
    for name, text in pages.items():
        body = text.split('<article class="md-content__inner md-typeset">')[-1]
        for m in re.finditer(r"<(pre|h[1-6])\b[^>]*>(?:(?!</\1>).)*<abbr\b", body, re.S):
            problems.append(f"{name}: a tooltip inside <{m[1]}>")
        for section in re.split(r"<h[1-6]\b", body):
            words = [ABBR.sub(r"\1", m[0]).lower() for m in ABBR.finditer(section)]
            headwords = [
                next(
                    t.headword for t in terms if re.sub("<[^>]+>", "", w) in map(str.lower, t.forms)
                )
                for w in words
            ]
            doubled = {h for h in headwords if headwords.count(h) > 1}
            problems += [f"{name}: '{h}' explained twice in one section" for h in sorted(doubled)]
    assert not problems, "\n".join(problems[:10])


def test_a_built_page_explains_rank_at_its_first_use_only(built_site) -> None:
    """DDP's section on no_sync() uses "rank" more than once: only the first is dotted."""
    _, site = built_site
    page = (site / "distributed" / "ddp_loop" / "index.html").read_text("utf-8")
    start = page.index("</h2>", page.index('id="each-rank-its-own-data-distributedsampler"'))
    section = page[start : page.index("<h2", start)]
    prose = re.sub(r"<pre\b.*?</pre>", "", section, flags=re.S)
    uses = re.findall(r"(<abbr[^>]*>)?\b(ranks?)\b", re.sub(r"<a\b.*?</a>", "", prose))
    assert len(uses) >= 2, uses
    assert uses[0][0] and not any(dotted for dotted, _ in uses[1:]), uses
