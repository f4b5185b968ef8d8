"""The site's examples as pytest-examples' ``CodeExample``: every snippet file, and
every Python fence in a page.

A snippet file under ``snippets/`` is one example (pytest-examples only reads
Markdown fences and docstrings, so a ``CodeExample`` is built for each file). A fence
in ``docs/**/*.md`` is an example unless it only includes a snippet
(``--8<-- "forward_pass/x.py"``), which runs as its own example already.

Fence settings follow pydantic's conventions and are rare: ``test="skip"
reason="..."`` and ``requires="cuda"`` (or ``requires="torch>=2.13"``). Snippet files say the same with marker
comments (:mod:`sitelib.site.snippets`, the one place that knows them); here they are
read for an example, fence settings included.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from pytest_examples import CodeExample, find_examples

from sitelib.site import snippets
from sitelib.site.layout import INCLUDE, ROOT, includes_in, missing_includes, snippet_files

PY_FENCE_LANGS = {"py", "python", "{.py", "{.python"}


def snippet_example(path: Path) -> CodeExample:
    source = path.read_text("utf-8")
    return CodeExample(
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


def is_include_only(example: CodeExample) -> bool:
    lines = [line for line in example.source.splitlines() if line.strip()]
    return bool(lines) and all(INCLUDE.match(line) for line in lines)


def is_excerpt(example: CodeExample) -> bool:
    """A fence that shows a line range of a snippet (``--8<-- "complete/train.py:40:58"``):
    the one kind of block that does not run as pasted. Its file is checked whole, and
    tests/test_complete.py checks each excerpt's range and label."""
    lines = [line for line in example.source.splitlines() if line.strip()]
    return len(lines) == 1 and bool((m := INCLUDE.match(lines[0])) and m.group("lines"))


def page_examples(root: Path = ROOT, pages: list[Path] | None = None) -> list[CodeExample]:
    examples = []
    for place in pages or [root / "docs"]:
        for example in find_examples(place):
            if example.path.suffix != ".md" or is_excerpt(example):
                continue  # an excerpt runs as part of its file, not as pasted
            if is_include_only(example):
                continue
            if example.prefix.split(" ", 1)[0] not in PY_FENCE_LANGS:
                continue  # e.g. "pycon"
            examples.append(example)
    return examples


def all_examples(root: Path = ROOT) -> list[CodeExample]:
    return [snippet_example(p) for p in snippet_files(root)] + page_examples(root)


def chosen_examples(names: list[str], root: Path = ROOT) -> list[CodeExample]:
    """The examples named on a command line (``make check FILE=...``): a snippet file
    (``snippets/forward_pass/x.py`` or ``forward_pass/x.py``), or every example a page
    shows (``docs/distributed/index.md``): the snippets it includes, in page order, and
    its own Python fences."""
    chosen = []
    for name in names:
        path = Path(name) if Path(name).is_absolute() else root / name
        if not path.exists() and (root / "snippets" / name).exists():
            path = root / "snippets" / name
        if path.suffix == ".md" and path.is_file():
            found = includes_in(path, root)
            if missing := missing_includes(found, root):
                raise FileNotFoundError("\n".join(missing))
            included = dict.fromkeys(root / "snippets" / i.path for i in found)
            chosen += [snippet_example(p) for p in included]
            chosen += page_examples(root, [path])
        elif path.is_file():
            chosen.append(snippet_example(path.resolve()))
        else:
            raise FileNotFoundError(f"{name}: no such snippet or page")
    return chosen


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


def markers(example: CodeExample) -> dict[str, list[str]]:
    """An example's marker comments and fence settings, as ``{key: [values]}``."""
    found = snippets.markers(example.source)
    settings = example.prefix_settings()
    if "requires" in settings:
        found.setdefault("requires", []).append(settings["requires"])
    return found


def requires_cuda(example: CodeExample) -> bool:
    """Marked ``# requires: cuda`` (or a fence's ``requires="cuda"``)."""
    return "cuda" in markers(example).get("requires", [])


def requires_torch(example: CodeExample) -> snippets.TorchRange | None:
    """The releases ``# requires: torch>=2.13`` / ``torch<2.15`` (or a fence's
    ``requires="..."``) ask for, or None."""
    return snippets.required_torch(markers(example).get("requires", []))


def requirement_problems(example: CodeExample) -> list[str]:
    """Its ``requires`` markers and fence setting that the checks cannot read, each
    named by file and line."""
    shown = display_path(example)
    problems = snippets.requirement_problems(example.source, shown, example.start_line)
    fence = example.prefix_settings().get("requires")
    if fence is not None and not snippets.valid_requirement(fence):
        problems.append(
            f'{shown}:{example.start_line}: requires="{fence}" is not a requirement the '
            "checks know: 'cuda', or 'torch>=X.Y' (the oldest release it runs on)"
        )
    return problems


def is_script(example: CodeExample) -> bool:
    """A program run by the commands its page shows (``# script:``), not as an example."""
    return snippets.is_script(example.source)


def launch_command(example: CodeExample) -> str | None:
    """A multi-process example's ``# launch:`` command (sitelib.check.launch), or None."""
    return snippets.launch_command(example.source)


def output_placement(example: CodeExample) -> list[str]:
    """Where the example's source would put printed output in the wrong place: a
    ``print()`` spread over lines, ``#>`` lines inside a function's body."""
    shown, offset = display_path(example), example.start_line
    return snippets.multiline_prints(
        example.source, shown, offset
    ) + snippets.output_in_function_problems(example.source, shown, offset)
