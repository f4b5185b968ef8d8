"""Find the site's examples: every snippet file, and every Python fence in a page.

A snippet file under ``snippets/`` is one example (pytest-examples only reads
Markdown fences and docstrings, so a ``CodeExample`` is built for each file). A
fence in ``docs/**/*.md`` is an example unless it only includes a snippet
(``--8<-- "forward_pass/x.py"``), which runs as its own example already.

Fence settings follow pydantic's conventions and are rare:
``test="skip" reason="..."`` and ``requires="cuda"``. Snippet files say the same
with marker comments, read by :func:`markers` (the one place that knows them)::

    # requires: cuda                    (skipped on CPU, reason shown)
    # expect-no-grad: model.fc.*        (these parameters get no gradient, on purpose)
    # stays-on-cpu: history             (these globals stay on the CPU, on purpose)
    # launch: torchrun --nproc-per-node 2  (a multi-process example: sitelib.launch)
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from pytest_examples import CodeExample, find_examples

from sitelib.site.layout import INCLUDE, ROOT

MARKER = re.compile(
    r"^\s*#\s*(?P<key>requires|expect-no-grad|stays-on-cpu|launch):\s*(?P<value>.+?)\s*$"
)
PY_FENCE_LANGS = {"py", "python", "{.py", "{.python"}
# The two lines every example picks its device with (docs/authors.md), in this order.
DEVICE_IDIOM = (
    "accelerator = torch.accelerator.current_accelerator(check_available=True)\n"
    'device = accelerator or torch.device("cpu")'
)


ANNOTATION = re.compile(r"[ \t]*# \(\d+\)!$", re.M)


def without_annotations(source: str) -> str:
    """Source as a reader copies it: Material drops the `# (1)!` code-annotation markers."""
    return ANNOTATION.sub("", source)


def snippet_examples(root: Path = ROOT) -> list[CodeExample]:
    examples = []
    for path in sorted((root / "snippets").rglob("*.py")):
        source = path.read_text("utf-8")
        examples.append(
            CodeExample(
                source=source,
                path=path,
                start_line=0,
                end_line=source.count("\n"),
                start_index=0,
                end_index=len(source),
                prefix="py",
                indent=0,
                group=uuid.uuid4(),
            )
        )
    return examples


def is_include_only(example: CodeExample) -> bool:
    lines = [line for line in example.source.splitlines() if line.strip()]
    return bool(lines) and all(INCLUDE.match(line) for line in lines)


def page_examples(root: Path = ROOT) -> list[CodeExample]:
    examples = []
    for example in find_examples(root / "docs"):
        if example.path.suffix != ".md" or is_include_only(example):
            continue
        if example.prefix.split(" ", 1)[0] not in PY_FENCE_LANGS:
            continue  # e.g. "pycon"
        examples.append(example)
    return examples


def all_examples(root: Path = ROOT) -> list[CodeExample]:
    return snippet_examples(root) + page_examples(root)


def display_path(example: CodeExample, root: Path = ROOT) -> str:
    try:
        return example.path.resolve().relative_to(root).as_posix()
    except ValueError:
        return example.path.as_posix()


def example_id(example: CodeExample) -> str:
    shown = display_path(example)
    if shown.startswith("snippets/"):
        return shown.removeprefix("snippets/")
    return f"{shown}:{example.start_line}"


def expected_output(source: str) -> list[str]:
    """The output a snippet's ``#>`` lines (or quoted output blocks) say it prints."""
    lines, quoted = [], None
    for line in source.splitlines():
        stripped = line.strip()
        if quoted is not None:
            if stripped in ('"""', "'''"):
                lines.extend(quoted)
                quoted = None
            else:
                quoted.append(stripped)
        elif stripped.startswith("#> ") or stripped == "#>":
            lines.append(stripped[3:])
        elif stripped in ('"""', "'''"):
            quoted = []
    return lines


def device_idiom_problems(root: Path = ROOT) -> list[str]:
    """Every snippet picks its device with the site's one idiom (docs/authors.md): its
    two lines, one after the other, each perhaps followed by a code-annotation marker
    (``  # (1)!``)."""
    idiom = DEVICE_IDIOM.splitlines()
    problems = []
    for path in sorted((root / "snippets").rglob("*.py")):
        lines = without_annotations(path.read_text("utf-8")).splitlines()
        pairs = zip(lines, lines[1:], strict=False)
        if not any([first, second] == idiom for first, second in pairs):
            where = next((i for i, line in enumerate(lines, 1) if "device" in line), 1)
            problems.append(
                f"{path.relative_to(root).as_posix()}:{where}: does not pick its device with "
                f"the site's idiom, these two lines:\n{DEVICE_IDIOM}"
            )
    return problems


def markers(example: CodeExample | str) -> dict[str, list[str]]:
    """Marker comments and fence settings of an example (or a snippet's source), as
    ``{key: [values]}``."""
    source = example if isinstance(example, str) else example.source
    found: dict[str, list[str]] = {}
    for line in source.splitlines():
        m = MARKER.match(line)
        if m:
            values = [v.strip() for v in m.group("value").split(",") if v.strip()]
            found.setdefault(m.group("key"), []).extend(values)
    if not isinstance(example, str):
        settings = example.prefix_settings()
        if "requires" in settings:
            found.setdefault("requires", []).append(settings["requires"])
    return found


def requires_cuda(example: CodeExample | str) -> bool:
    """Marked ``# requires: cuda`` (or a fence's ``requires="cuda"``)."""
    return "cuda" in markers(example).get("requires", [])


def multiline_prints(example: CodeExample) -> list[str]:
    """A ``print(...)`` call spread over several lines: pytest-examples would write its
    #> lines inside the call's parentheses (``--update-examples`` breaks the file).
    Build the text first (``line = (f"..." f"...")``), then ``print(line)``."""
    import ast

    try:
        tree = ast.parse(example.source)
    except SyntaxError:
        return []  # ruff reports it
    return [
        f"{display_path(example)}:{example.start_line + node.lineno}: print() spans lines "
        f"{example.start_line + node.lineno}-{example.start_line + node.end_lineno}; its #> "
        "lines would be written inside it: build the text first, then print it on one line"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and node.end_lineno > node.lineno
    ]


def launch_command(example: CodeExample | str) -> str | None:
    """A multi-process example's ``# launch:`` command (sitelib.launch runs it), or None."""
    values = markers(example).get("launch", [])
    return values[0] if values else None


def snippet_requires_cuda(snippet: str, root: Path = ROOT) -> bool:
    """The same, for a snippet named relative to snippets/."""
    return requires_cuda((root / "snippets" / snippet).read_text("utf-8"))
