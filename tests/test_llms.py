"""llms.txt and llms-full.txt at the built site's root (sitelib/site/llms.py, written
by hooks/llms.py): every chapter in navigation order with its summary, and every
included snippet's text exactly as the copy button gives it."""

from __future__ import annotations

import re
from pathlib import Path

from sitelib.site.layout import ROOT, chapters, includes, page_url
from sitelib.site.llms import front_matter, llms_full_txt, llms_txt
from sitelib.site.snippets import as_copied

ENTRY = re.compile(r"^- \[(?P<title>[^\]]+)\]\((?P<url>[^)]+)\)(?:: (?P<summary>.*))?$", re.M)


def chapter_problems(text: str, site_url: str) -> list[str]:
    """Each chapter missing from llms.txt, out of navigation order, or without its
    summary."""
    listed = [(m["title"], m["url"], m["summary"]) for m in ENTRY.finditer(text)]
    problems = []
    order = []
    for chapter in chapters():
        title = f"{chapter.number}. {chapter.title}"
        url = site_url + page_url(chapter.page)
        found = [i for i, (t, u, _) in enumerate(listed) if (t, u) == (title, url)]
        if not found:
            problems.append(f"llms.txt: no entry for chapter {title} ({url})")
            continue
        order.append((found[0], title))
        summary = " ".join(front_matter(chapter.path().read_text("utf-8"))["summary"].split())
        if listed[found[0]][2] != summary:
            problems.append(f"llms.txt: {title}: the summary is not the page's summary:")
    if [t for _, t in sorted(order)] != [t for _, t in order]:
        problems.append(
            f"llms.txt: chapters out of navigation order: {[t for _, t in sorted(order)]}"
        )
    return problems


def snippet_problems(text: str) -> list[str]:
    """Each included snippet whose copied text is not in llms-full.txt, verbatim."""
    return [
        f"llms-full.txt: {i.page}:{i.line}: snippets/{i.path} is not inlined as copied"
        for i in includes()
        if as_copied((ROOT / "snippets" / i.path).read_text("utf-8")).rstrip("\n") not in text
    ]


def site_url(config: dict | None = None) -> str:
    """The site's address: as the built site read it (``built_config``), or mkdocs.yml's."""
    from sitelib.site.layout import load_config

    return (config or load_config())["site_url"].rstrip("/") + "/"


def test_llms_txt_lists_every_chapter_in_order(built_site, built_config) -> None:
    _, site = built_site
    text = (site / "llms.txt").read_text("utf-8")
    problems = chapter_problems(text, site_url(built_config))
    assert not problems, "\n".join(problems)


def test_llms_full_txt_holds_every_snippet_as_copied(built_site, built_config) -> None:
    _, site = built_site
    text = (site / "llms-full.txt").read_text("utf-8")
    problems = snippet_problems(text)
    assert not problems, "\n".join(problems)
    for chapter in chapters():  # every page of every chapter, by its address
        for page in chapter.pages:
            assert f"URL: {site_url(built_config)}{page_url(page)}\n" in text, page


def test_the_files_are_made_from_the_sources_not_the_html(built_site, built_config) -> None:
    _, site = built_site
    full = (site / "llms-full.txt").read_text("utf-8")
    assert full == llms_full_txt(ROOT, site_url(built_config))
    assert (site / "llms.txt").read_text("utf-8") == llms_txt(ROOT, site_url(built_config))
    assert "<span" not in full and "--8<--" not in full.replace(";--8<--", "")
    assert "docs.pytorch.org/docs/stable/" not in full


def test_the_chapter_check_catches_a_missing_or_moved_chapter() -> None:
    url = site_url()
    text = llms_txt(ROOT, url)
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("- [1. "))
    second = next(i for i, line in enumerate(lines) if line.startswith("- [2. "))
    swapped = list(lines)
    swapped[first], swapped[second] = lines[second], lines[first]
    assert chapter_problems("\n".join(swapped), url) == [
        "llms.txt: chapters out of navigation order: "
        f"{[f'{c.number}. {c.title}' for c in chapters()][1::-1] + [f'{c.number}. {c.title}' for c in chapters()][2:]}"
    ]
    dropped = "\n".join(line for i, line in enumerate(lines) if i != first)
    c = chapters()[0]
    assert chapter_problems(dropped, url) == [
        f"llms.txt: no entry for chapter 1. {c.title} ({url}{page_url(c.page)})"
    ]


def test_the_snippet_check_catches_a_changed_snippet(tmp_path: Path) -> None:
    text = llms_full_txt(ROOT, site_url())
    include = includes()[0]
    copied = as_copied((ROOT / "snippets" / include.path).read_text("utf-8")).rstrip("\n")
    broken = text.replace(copied, copied.replace("\n", "\n# (1)!\n", 1))
    assert snippet_problems(broken)[:1] == [
        f"llms-full.txt: {include.page}:{include.line}: snippets/{include.path} is not "
        "inlined as copied"
    ]
