"""Found by what it uses: search indexes a block by its title and its names.

Never by its text: :func:`searchable` gives the ``<pre>`` ``data-search-exclude``
(Material's search parser skips it, with the fold's summary and the output labels
inside it), and a ``hidden`` paragraph after it lists the names its code uses
(:func:`used_names`: what it imports, calls, reads as an attribute or passes as a
keyword, ``clip_grad_norm_``, ``GradScaler``, ``set_to_none``). Once the page is
whole, :class:`_NamesOncePerPage` cuts each paragraph to the names the page has not
shown before (:func:`names_once_per_page`; no reader or screen reader sees it). A
result's preview is then the section's prose.

Checked by tests/test_codeblocks.py (test_search_reads_a_blocks_names_not_its_text)
and, on the built index, tests/test_site.py (test_search_index_holds_prose_not_code,
test_search_index_check_catches_code_in_the_index; sitelib/check/search_index.py).
"""

from __future__ import annotations

import ast
import builtins
import html
import re

from markdown.postprocessors import Postprocessor

BUILTIN_NAMES = set(dir(builtins))
# What every example opens with (the seed and the device idiom): no name to search by.
EVERY_EXAMPLE = {
    *("torch", "manual_seed", "accelerator", "current_accelerator", "check_available"),
    *("device", "to"),
}


def used_names(src: str, folded: tuple[int, int] | None = None) -> list[str]:
    """The names a Python block uses, in order of first use, outside its set-up fold
    (``folded``, the lines it folds; the lines a reader sees): modules and names it
    imports, functions it calls, attributes it reads, keywords it passes, and what it
    defines (``def``, ``class``); not Python's builtins, dunder names, the plain
    variables it assigns, reads or calls (``x``, ``loss``, ``model(x)``), or what
    every example opens with (:data:`EVERY_EXAMPLE`)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    found: dict[tuple[int, int, str], None] = {}
    assigned = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }

    def add(node: ast.AST, name: str | None) -> None:
        if folded and folded[0] <= node.lineno <= folded[1]:
            return
        for part in (name or "").split("."):
            if part and part not in BUILTIN_NAMES and not part.startswith("__"):
                found[(node.lineno, node.col_offset, part)] = None

    shown = {  # what a print or an assert only shows
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert)
        or (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print")
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in shown:
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            add(node, getattr(node, "module", None))
            for alias in node.names:
                add(node, alias.name)
        elif isinstance(node, ast.Attribute):
            add(node, node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id not in assigned:
                add(node, node.func.id)
        elif isinstance(node, ast.keyword) and node.arg:
            add(node, node.arg)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            add(node, node.name)
    ordered = sorted(found)
    return [n for n in dict.fromkeys(name for *_, name in ordered) if n not in EVERY_EXAMPLE]


PRE_TAG = re.compile(r"<pre\b")


def searchable(code: str, names: list[str]) -> str:
    """A highlighted block as search should read it: its ``<pre>`` skipped, and the
    names it uses in a hidden paragraph after it."""
    code = PRE_TAG.sub("<pre data-search-exclude", code, count=1)
    end = code.rindex("</div>")
    return code[:end] + searchable_names(names) + code[end:]


SEARCH_NAMES = re.compile(r'<p class="search-names" hidden>([^<]*)</p>')
WORD = re.compile(r"\w+")


def names_once_per_page(page: str) -> str:
    """A page's HTML with each block's names cut to those the page has not shown
    before it, in prose or in an earlier block's names: search finds a name where
    the page first uses it, and the index holds it once."""
    seen: set[str] = set()
    out, cursor = [], 0
    for m in SEARCH_NAMES.finditer(page):
        before = re.sub(r"<pre\b.*?</pre>|<[^>]+>", " ", page[cursor : m.start()], flags=re.S)
        seen |= set(WORD.findall(html.unescape(before)))
        new = [name for name in m[1].split() if name not in seen]
        seen |= set(new)
        out += [page[cursor : m.start()], searchable_names(new)]
        cursor = m.end()
    return "".join(out) + page[cursor:]


def searchable_names(names: list[str]) -> str:
    """The hidden paragraph that gives search a block's names ("" for none)."""
    if not names:
        return ""
    return f'<p class="search-names" hidden>{html.escape(" ".join(names))}</p>'


class _NamesOncePerPage(Postprocessor):
    def run(self, text: str) -> str:
        return names_once_per_page(text)
