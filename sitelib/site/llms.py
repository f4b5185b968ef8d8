"""``llms.txt`` and ``llms-full.txt``: the site for a reader's assistant, from the sources.

Both files are written at the site's root by ``hooks/llms.py`` after a build
(https://llmstxt.org's format), from the pages' Markdown and the snippets, never from
the HTML (which carries screen-reader labels, fold summaries and the page furniture):

- ``llms.txt``: the site's name and description, then every chapter in navigation
  order (:func:`sitelib.site.layout.chapters`) as a link with its one-line
  ``summary:`` front matter, its sub-pages under it, then the other pages.
- ``llms-full.txt``: every page of the navigation but the notebooks (they repeat the
  chapters), in order, as Markdown: front matter and HTML comments (the pictures'
  directives) left out, admonitions and tabs as a bold title and their text
  (:func:`plain_blocks`), each included snippet inlined as the copy button gives it
  (:func:`sitelib.site.snippets.as_copied`), links to other pages made absolute and
  links into the torch reference moved to the build's release
  (:func:`sitelib.site.reference.versioned`).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import yaml

from sitelib.site.layout import INCLUDE, ROOT, chapters, load_config, nav_pages, page_url
from sitelib.site.markdown_scan import HTML_COMMENT, front_matter_end
from sitelib.site.reference import versioned
from sitelib.site.snippets import as_copied

LEADING_H1 = re.compile(r"\A\s*#\s+[^\n]*\n")
# An admonition (`!!! note "Title"`, `??? success "Solution"`) or a content tab (`=== "CPU"`).
OPENER = re.compile(
    r'^(?P<indent> *)(?:!!!|\?\?\?\+?|===)\s*(?P<kind>[\w-]*)\s*(?:"(?P<title>[^"]*)")?\s*$'
)
PAGE_LINK = re.compile(r"\]\((?P<path>[^)\s#:]+\.md)(?P<anchor>#[^)\s]*)?\)")


def front_matter(text: str) -> dict:
    lines = text.split("\n")
    end = front_matter_end(lines)
    return (yaml.safe_load("\n".join(lines[1 : end - 1])) or {}) if end else {}


def _body(text: str) -> str:
    lines = text.split("\n")
    return "\n".join(lines[front_matter_end(lines) :])


def _titles(nav) -> dict[str, str]:
    """Each page's title in the navigation (a section's index page: the section's)."""
    titles: dict[str, str] = {}

    def walk(items, section: str | None = None) -> None:
        for item in items or []:
            if isinstance(item, dict):
                for title, value in item.items():
                    if isinstance(value, list):
                        walk(value, title)
                    else:
                        titles[value] = title
            elif isinstance(item, str):
                titles[item] = section or Path(item).stem

    walk(nav)
    return titles


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def llms_txt(root: Path = ROOT, site_url: str | None = None) -> str:
    config = load_config(root)
    site_url = (site_url or config["site_url"]).rstrip("/") + "/"
    titles = _titles(config.get("nav"))
    lines = [f"# {config['site_name']}", "", f"> {_one_line(config['site_description'])}", ""]
    lines += [
        "Every example on the site is run by its test suite; each code block is a file "
        f"that runs as pasted. The pages as Markdown, snippets inlined: {site_url}llms-full.txt",
        "",
        "## Chapters",
        "",
    ]
    in_chapters = set()
    for chapter in chapters(root):
        meta = front_matter((root / "docs" / chapter.page).read_text("utf-8"))
        summary = _one_line(meta.get("summary") or meta.get("description") or "")
        lines.append(f"- [{chapter.number}. {chapter.title}]({site_url}{page_url(chapter.page)})")
        lines[-1] += f": {summary}" if summary else ""
        for page in chapter.pages[1:]:
            sub = front_matter((root / "docs" / page).read_text("utf-8"))
            note = _one_line(sub.get("summary") or sub.get("description") or "")
            lines.append(f"  - [{titles.get(page, page)}]({site_url}{page_url(page)})")
            lines[-1] += f": {note}" if note else ""
        in_chapters.update(chapter.pages)
    others = [
        p
        for p in nav_pages(config.get("nav"))
        if p not in in_chapters and p.endswith(".md") and p != "index.md"
    ]
    if others:
        lines += ["", "## Optional", ""]
        for page in others:
            meta = front_matter((root / "docs" / page).read_text("utf-8"))
            note = _one_line(meta.get("description") or "")
            lines.append(f"- [{titles.get(page, page)}]({site_url}{page_url(page)})")
            lines[-1] += f": {note}" if note else ""
    return "\n".join(lines) + "\n"


def plain_blocks(text: str) -> str:
    """Admonitions and content tabs as plain Markdown: a bold title line, then their
    text without the block's indentation (so a snippet in an exercise's solution is
    inlined at its own indentation, as it is copied)."""
    out, blocks = [], []  # blocks: the indentation of each open block's opener
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        while blocks and line.strip() and indent < blocks[-1] + 4:
            blocks.pop()
        shift = 4 * len(blocks)
        shown = line[shift:] if line[:shift].strip() == "" else line.lstrip(" ")
        if m := OPENER.match(shown):
            title = m["title"] if m["title"] is not None else m["kind"].capitalize()
            out.append(f"{m['indent']}**{title}**" if title else "")
            out.append("")
            blocks.append(indent)
        else:
            out.append(shown)
    return "\n".join(out)


def page_markdown(page: str, root: Path = ROOT, site_url: str = "") -> str:
    """One page's Markdown as llms-full.txt gives it (see the module's docstring)."""
    text = HTML_COMMENT.sub("", _body((root / "docs" / page).read_text("utf-8")))
    out = []
    for line in plain_blocks(text).split("\n"):
        m = INCLUDE.match(line)
        if m and not m.group("escaped"):
            indent = line[: len(line) - len(line.lstrip())]
            source = as_copied((root / "snippets" / m.group("path")).read_text("utf-8"))
            out += [indent + row if row else row for row in source.rstrip("\n").split("\n")]
        else:
            out.append(line)
    text = "\n".join(out)

    def absolute(m: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), m["path"]))
        return f"]({site_url}{page_url(target)}{m['anchor'] or ''})"

    return versioned(PAGE_LINK.sub(absolute, text)).strip("\n")


def llms_full_txt(root: Path = ROOT, site_url: str | None = None) -> str:
    config = load_config(root)
    site_url = (site_url or config["site_url"]).rstrip("/") + "/"
    titles = _titles(config.get("nav"))
    numbered = {c.page: f"{c.number}. {c.title}" for c in chapters(root)}
    parts = [f"# {config['site_name']}\n\n> {_one_line(config['site_description'])}\n"]
    for page in nav_pages(config.get("nav")):
        if not page.endswith(".md"):
            continue  # the notebooks repeat the chapters
        title = numbered.get(page) or titles.get(page) or page
        body = LEADING_H1.sub("", page_markdown(page, root, site_url), count=1).strip("\n")
        parts.append(f"# {title}\n\nURL: {site_url}{page_url(page)}\n\n{body}\n")
    return "\n\n".join(parts)
