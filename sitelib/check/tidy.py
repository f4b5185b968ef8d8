"""What an example may not do beyond printing its output: warn, unasked, what a
reader would see, leave pyplot figures open, or change matplotlib's settings.

Several examples run in one process, and a reader runs one alone. A warning the
example does not catch reaches a reader's terminal; the page shows only the ``#>``
lines, so the warning is either taught (caught and printed by the example) or a
defect. What counts is what a fresh ``python`` shows with its default filters:
every category but the deprecation, import and resource ones (a
``DeprecationWarning`` raised at the example's own lines is an error already:
:mod:`sitelib.check.run`). Each is reported at the example's line that was running.

A figure the example leaves open would be drawn on by the next example run in the
same process (the suite's, not a reader's), and so would changed ``rcParams``:
``plt.show()``, which does nothing on the Agg backend, closes what it would show,
and after the example any figure still open, or any rc setting changed, is a
problem; both are put back either way.

Checked by ``tests/test_selftest.py``: an example that warns from inside torch, one
that leaves a figure open, one that changes an rc setting.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

# What a fresh interpreter hides (Python's default warning filters).
HIDDEN = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def _example_line(run_file: Path, path: Path, start_line: int) -> int | str:
    """The example's line on the current stack, innermost first ("?" if none)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name == str(path):  # pytest-examples already mapped this frame
            return frame.f_lineno
        if name == str(run_file):
            return frame.f_lineno + start_line
        frame = frame.f_back
    return "?"


@contextlib.contextmanager
def tidy(
    shown: str, run_file: Path, path: Path, start_line: int, plots: bool
) -> Iterator[list[str]]:
    """Inside: the warnings a reader would see are recorded, and, for an example that
    plots (``plots``), ``plt.show()`` closes its figures. The list it gives holds the
    problems once the block has run, each naming ``shown`` and a line."""
    problems: list[str] = []
    warned: list[tuple[int | str, str]] = []

    def record(message, category, filename, lineno, file=None, line=None):
        text = str(message).strip().splitlines()[0] if str(message).strip() else ""
        warned.append((_example_line(run_file, path, start_line), f"{category.__name__}: {text}"))

    with warnings.catch_warnings(), _pyplot(problems, shown) if plots else contextlib.nullcontext():
        warnings.resetwarnings()
        warnings.simplefilter("always")
        for category in HIDDEN:
            warnings.filterwarnings("ignore", category=category)
        warnings.showwarning = record
        yield problems
    for line, what in dict.fromkeys(warned):  # each (line, warning) once
        problems.append(
            f"{shown}:{line}: warned {what} (a reader sees it: catch it and print it "
            "if the page teaches it, else avoid it)"
        )


@contextlib.contextmanager
def _pyplot(problems: list[str], shown: str) -> Iterator[None]:
    import matplotlib
    import matplotlib.pyplot as plt

    plt.close("all")
    saved = matplotlib.rcParams.copy()
    try:
        with mock.patch.object(plt, "show", lambda *a, **k: plt.close("all")):
            yield
        if left := plt.get_fignums():
            problems.append(
                f"{shown}: leaves {len(left)} pyplot figure(s) open: end with plt.show() "
                "(or plt.close())"
            )
        changed = sorted(k for k, v in matplotlib.rcParams.items() if saved.get(k) != v)
        if changed:
            problems.append(
                f"{shown}: changes matplotlib's rcParams ({', '.join(changed[:3])}): use "
                "matplotlib.rc_context() or the Axes' own arguments"
            )
    finally:
        plt.close("all")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # some rc keys are deprecated: set them back anyway
            matplotlib.rcParams.update(saved)
