"""Set-up folds: the lines a reader need not read first, behind a one-line summary.

A fence option ``fold="1-12"`` folds those lines of the block behind a one-line
summary computed from them ("Set-up, lines 1-12: imports, seed, device, model",
:func:`summary`), which a reader opens with a click or the keyboard (a checkbox and
its label: no script, :func:`fold_html`). The copy button still copies the whole
file. Only set-up may fold: whole top-level imports, definitions, assignments and
set-up calls; a fold that holds a ``print``, its output, a highlighted line, an
annotation marker or a loop fails the build (:func:`fold_problems`). The extension
(:mod:`.extension`) lets Python fences take the option, and its highlighter calls
these in turn.

Checked by tests/test_codeblocks.py: test_a_fold_hides_the_set_up_behind_its_summary,
test_a_long_summary_is_cut_to_fit, test_a_fold_that_hides_what_is_taught_is_refused,
test_the_build_refuses_a_fold_that_hides_a_print.
"""

from __future__ import annotations

import ast
import html
import re

from sitelib.site import snippets
from sitelib.site.codeblocks.errors import CodeBlockError


def parse_fold(text: str, lines: int, where: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", str(text))
    if not m or not 1 <= int(m[1]) <= int(m[2]) <= lines:
        raise CodeBlockError(f'{where}: fold="{text}" is not a range of its {lines} lines (1-N)')
    return int(m[1]), int(m[2])


SETUP_CALLS = {"manual_seed": "seed"}
DEVICE_NAMES = {"accelerator", "device"}


def _statements(src: str) -> list[ast.stmt]:
    try:
        return ast.parse(src).body
    except SyntaxError:
        return []


def fold_problems(src: str, span: tuple[int, int], hl_lines: list[int]) -> list[str]:
    """Why ``span`` is not only set-up (empty when it is)."""
    first, last = span
    lines = src.split("\n")
    problems = []
    for statement in _statements(src):
        inside = first <= statement.lineno and statement.end_lineno <= last
        cut = statement.lineno <= last and statement.end_lineno >= first and not inside
        if cut:
            problems.append(
                f"the fold cuts the statement on lines {statement.lineno}-{statement.end_lineno}"
            )
        elif inside and not _is_setup(statement):
            kind = type(statement).__name__.lower()
            problems.append(f"line {statement.lineno} is not set-up ({kind}): only set-up folds")
    for number in range(first, last + 1):
        text = lines[number - 1] if number <= len(lines) else ""
        if number in hl_lines:
            problems.append(f"line {number} is highlighted, so it is taught: it cannot fold")
        if snippets.ANNOTATION.search(text):
            problems.append(f"line {number} carries an annotation marker: it cannot fold")
        if text.lstrip().startswith("#>") or re.search(r"\bprint\(", text):
            problems.append(f"line {number} prints or shows output: it cannot fold")
    return problems


def _is_setup(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef):
        return True
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        return True
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)


def summary(src: str, span: tuple[int, int]) -> str:
    """What the folded lines set up, in order: "imports, seed, device, model"."""
    first, last = span
    names: list[str] = []
    for statement in _statements(src):
        if not (first <= statement.lineno <= last):
            continue
        if isinstance(statement, ast.Import | ast.ImportFrom):
            name = "imports"
        elif isinstance(statement, ast.FunctionDef):
            name = f"{statement.name}()"
        elif isinstance(statement, ast.ClassDef):
            name = statement.name
        elif isinstance(statement, ast.Expr):
            func = statement.value.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            name = SETUP_CALLS.get(called, f"{called}()")
        else:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            found = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            name = "device" if set(found) <= DEVICE_NAMES else ", ".join(found)
        if name and name not in names:
            names.append(name)
    head = f"Set-up, lines {first}\u2013{last}: "
    shown = list(names)
    while len(shown) > 1 and len(head + _listed(shown, names)) > SUMMARY_WIDTH:
        shown.pop()
    return head + (_listed(shown, names) or "set-up")


SUMMARY_WIDTH = 72  # a fold's summary fits the block's 76 columns with its marker


def _listed(shown: list[str], names: list[str]) -> str:
    rest = len(names) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def fold_html(code: str, span: tuple[int, int], text: str, number: int, line_spans: str) -> str:
    """Wrap the line spans of ``span`` in a fold with its switch and label."""
    if not line_spans:
        raise CodeBlockError("set-up folds need the highlight option line_spans")
    first, last = span
    start_id = f'<span id="{line_spans}-{number}-{first}">'
    end_id = f'<span id="{line_spans}-{number}-{last + 1}">'
    start = code.find(start_id)
    end = code.find(end_id) if end_id in code else code.rfind("</code>")
    if start < 0 or end < 0:
        raise CodeBlockError(f"cannot find lines {first}-{last} in the highlighted block")
    fold_id = f"__fold-{number}"
    opener = (
        f'<span class="fold"><input type="checkbox" class="fold-switch" id="{fold_id}">'
        f'<label class="fold-label" for="{fold_id}">{html.escape(text)}</label>'
        '<span class="fold-body">'
    )
    return code[:start] + opener + code[start:end] + "</span></span>" + code[end:]
