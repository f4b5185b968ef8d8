"""An example's printed output against its ``#>`` lines: device names made neutral
in one place (:func:`normalise_device`), and a failure that names the first line
where the two differ."""

from __future__ import annotations

import difflib
import re
import textwrap

from pytest_examples import CodeExample

from sitelib.check.outcomes import ExampleFailure


def normalise_device(text: str) -> str:
    """Printed text that legitimately differs by device, made device-neutral."""
    text = re.sub(r", device='(cuda|mps|xpu)(:\d+)?'", "", text)
    text = re.sub(r"device\(type='(cuda|mps|xpu)'(, index=\d+)?\)", "device(type='cpu')", text)
    # A device name, not part of a dotted name such as torch.cuda.amp.
    return re.sub(r"(?<![.\w])(cuda|mps|xpu)(:\d+)?\b(?!\.)", "cpu", text)


def first_difference(example: CodeExample, updated: str | None) -> tuple[int, str, str] | None:
    """Where the printed output and the #> lines first differ: (line, written, printed)."""
    if updated is None:
        return None
    have, want = example.source.splitlines(), updated.splitlines()
    matcher = difflib.SequenceMatcher(a=have, b=want, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            written = "\n".join(have[i1:i2]) or "(nothing)"
            printed = "\n".join(want[j1:j2]) or "(nothing)"
            return example.start_line + i1 + 1, written, printed
    return None


def update_command(shown: str) -> str:
    """The one command that rewrites the #> lines of ``shown`` (a snippet, or a page's
    own fences) from a real run, and then checks it as `make check` does."""
    return f"make update FILE={shown}"


def compare_output(example: CodeExample, updated: str | None, shown: str, why: str = "") -> None:
    """Fail at the first line where the printed output and the #> lines differ."""
    if (difference := first_difference(example, updated)) is None:
        return
    line, written, printed = difference
    raise ExampleFailure(
        f"{shown}:{line}: printed output differs from the #> lines{why}\n"
        f"  page says:\n{textwrap.indent(written, '    ')}\n"
        f"  code printed:\n{textwrap.indent(printed, '    ')}\n"
        + ("" if why else f"  (if the new output is right: {update_command(shown)})")
    )
