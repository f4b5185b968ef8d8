"""What a snippet's source says about itself: its marker comments, its device line,
its printed output, and the source as a reader copies it. Plain text in, plain data
out: the build (notebooks, pictures, code blocks) and the checks both read snippets
through this module.

Marker comments (docs/authors.md, "Markers")::

    # requires: cuda                    (skipped on CPU, reason shown)
    # requires: torch>=2.13             (skipped on an older torch, reason shown)
    # requires: torch<2.15              (skipped on 2.15 and newer: output per range)
    # expect-no-grad: model.fc.*        (these parameters get no gradient, on purpose)
    # expect-nonfinite-grad: model.*    (their gradients are NaN or inf, on purpose)
    # stays-on-cpu: history             (these globals stay on the CPU, on purpose)
    # no-module-to-check: why           (calls backward() and leaves no module: why)
    # launch: torchrun --nproc-per-node 2  (a multi-process example)
    # output-in-function: why           (#> lines inside a def body, and why)
    # script: why                       (a program with a command line, run by the
                                        commands its page shows: sitelib.check.complete)
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from sitelib.site.layout import ROOT, snippet_files

MARKER = re.compile(
    r"^\s*#\s*(?P<key>requires|expect-no-grad|expect-nonfinite-grad|stays-on-cpu"
    r"|no-module-to-check|output-in-function|launch|script):\s*(?P<value>.+?)\s*$"
)
# The two lines every example picks its device with (docs/authors.md), in this order.
DEVICE_IDIOM = (
    "accelerator = torch.accelerator.current_accelerator(check_available=True)\n"
    'device = accelerator or torch.device("cpu")'
)
# How a multi-process example ends (docs/distributed/index.md, "Shutting down"): every
# rank waits at a barrier whose handle it keeps, then leaves the process group.
SHUTDOWN_IDIOM = "done = dist.barrier(async_op=True)\ndone.wait()\ndist.destroy_process_group()"
# A code-annotation marker, `# (1)!`: Material draws it as a button and drops it from
# what the copy button copies.
ANNOTATION = re.compile(r"[ \t]*# \((?P<number>\d+)\)!$", re.M)


# Markers whose value is one reason, commas and all.
REASON_MARKERS = ("no-module-to-check", "output-in-function", "script")


def markers(source: str) -> dict[str, list[str]]:
    """A snippet's marker comments, as ``{key: [values]}``."""
    found: dict[str, list[str]] = {}
    for line in source.splitlines():
        if m := MARKER.match(line):
            values = [v.strip() for v in m.group("value").split(",") if v.strip()]
            if m.group("key") in REASON_MARKERS:
                values = [m.group("value")]  # a reason, commas and all
            found.setdefault(m.group("key"), []).extend(values)
    return found


def requires_cuda(source: str) -> bool:
    return "cuda" in markers(source).get("requires", [])


# `# requires: torch>=2.13`: the oldest torch release an example runs on, and
# `# requires: torch<2.15`: the first one it no longer runs on (a release of two or three
# numbers). An example whose output changed with a release is two files, one per range,
# each with its own #> lines: `torch<2.15` in one, `torch>=2.15` in the other.
TORCH_REQUIREMENT = re.compile(r"torch(?P<op>>=|<)(?P<release>\d+\.\d+(?:\.\d+)?)")
# What a skip for that reason says, and how a verification record's reason is read back.
NEEDS_TORCH = re.compile(r"needs torch (?:older than )?\d+\.\d+(?:\.\d+)?(?: or newer)?")


@dataclass(frozen=True)
class TorchRange:
    """The torch releases an example runs on: ``oldest`` and newer (None: any), older
    than ``before`` (None: any)."""

    oldest: str | None = None
    before: str | None = None

    def admits(self, version: str) -> bool:
        """Whether torch ``version`` (``torch.__version__``, ``2.13.0+cpu``) is in the range,
        compared as versions: 2.10 is newer than 2.9."""
        from packaging.version import Version

        v = Version(Version(version).base_version)
        return (self.oldest is None or v >= Version(self.oldest)) and (
            self.before is None or v < Version(self.before)
        )

    def newer_than(self, version: str) -> bool:
        """Whether every release in the range is newer than ``version``."""
        return self.oldest is not None and not TorchRange(self.oldest).admits(version)


def needs_torch(wanted: TorchRange) -> str:
    """How the site says it, on the page and in a skip's reason."""
    parts = [f"{wanted.oldest} or newer"] if wanted.oldest else []
    parts += [f"older than {wanted.before}"] if wanted.before else []
    return "needs torch " + " and ".join(parts)


def valid_requirement(value: str) -> bool:
    """A value ``# requires:`` knows: ``cuda``, ``torch>=X.Y[.Z]`` or ``torch<X.Y[.Z]``."""
    return value == "cuda" or TORCH_REQUIREMENT.fullmatch(value) is not None


def required_torch(values: list[str]) -> TorchRange | None:
    """The releases a ``requires`` marker's values ask for, or None (any release)."""
    found = {
        m.group("op"): m.group("release") for v in values if (m := TORCH_REQUIREMENT.fullmatch(v))
    }
    return TorchRange(found.get(">="), found.get("<")) if found else None


def requires_torch(source: str) -> TorchRange | None:
    """The releases a snippet's ``# requires: torch>=X.Y`` / ``torch<X.Y`` ask for, or None."""
    return required_torch(markers(source).get("requires", []))


def requirement_problems(source: str, shown: str, offset: int = 0) -> list[str]:
    """Each ``# requires:`` value the checks cannot read (``torch>2.13``,
    ``torch>=abc``), named by file and line: a misspelt requirement must not make an
    example run, or skip, where its author did not mean it to."""
    problems = []
    for number, line in enumerate(source.splitlines(), 1):
        m = MARKER.match(line)
        if not m or m.group("key") != "requires":
            continue
        for value in (v.strip() for v in m.group("value").split(",")):
            if not valid_requirement(value):
                problems.append(
                    f"{shown}:{offset + number}: '# requires: {value}' is not a requirement "
                    "the checks know: 'cuda', 'torch>=X.Y' (the oldest release it runs on) "
                    "or 'torch<X.Y' (the first release it no longer runs on)"
                )
    return problems


def launch_command(source: str) -> str | None:
    """A multi-process example's ``# launch:`` command, or None."""
    values = markers(source).get("launch", [])
    return values[0] if values else None


# The one launch command the site's examples use.
LAUNCH = re.compile(r"^torchrun\s+--nproc[-_]per[-_]node[ =](?P<n>\d+)$")


def launch_ranks(command: str) -> int:
    """How many processes a ``# launch:`` command starts; ValueError for another form."""
    m = LAUNCH.match(command)
    if not m:
        raise ValueError(
            f"unsupported launch command {command!r}: write 'torchrun --nproc-per-node N'"
        )
    return int(m.group("n"))


def is_script(source: str) -> bool:
    """A program with a command line (``# script: ...``): not run as an example but by
    the ``console`` commands its page shows (sitelib.check.complete), and shown in
    excerpts (line ranges)."""
    return "script" in markers(source)


# Marker comments only the checks read: the site neither shows nor copies them.
HARNESS_MARKERS = (
    "expect-no-grad",
    "expect-nonfinite-grad",
    "stays-on-cpu",
    "no-module-to-check",
    "output-in-function",
    "script",
)
HARNESS_LINE = re.compile(rf"^[ \t]*#[ \t]*(?:{'|'.join(HARNESS_MARKERS)}):.*\n?", re.M)


def without_annotations(source: str) -> str:
    """Source without the `# (1)!` code-annotation markers (Material drops them)."""
    return ANNOTATION.sub("", source)


def copied_lines(source: str) -> list[tuple[int, str]]:
    """The lines a reader copies from the site, each with its (1-based) line in the
    snippet: without the annotation markers and without the lines holding a marker
    comment only the checks read (``sitelib.site.codeblocks`` draws neither)."""
    lines = without_annotations(source).splitlines(keepends=True)
    return [(n, line) for n, line in enumerate(lines, 1) if not HARNESS_LINE.match(line)]


def as_copied(source: str) -> str:
    """Source as a reader copies it from the site (:func:`copied_lines`). What
    tests/test_fresh.py runs, and a notebook's cell."""
    return "".join(line for _, line in copied_lines(source))


def _output_lines(source: str) -> list[tuple[int, str]]:
    """(0-based line, text) of every line that is printed output: ``#>`` lines and the
    lines of a quoted block (``'''`` or ``\"\"\"`` alone on its line), quotes included."""
    found, quoted = [], False
    for number, line in enumerate(source.splitlines()):
        stripped = line.strip()
        if quoted or stripped in ('"""', "'''"):
            found.append((number, line))
            if stripped in ('"""', "'''"):
                quoted = not quoted
        elif stripped.startswith("#> ") or stripped == "#>":
            found.append((number, line))
    return found


def expected_output_at(source: str) -> list[tuple[int, str]]:
    """The output a snippet's ``#>`` lines (or quoted output blocks) say it prints,
    each line with its (1-based) line in the snippet."""
    lines = []
    for number, line in _output_lines(source):
        stripped = line.strip()
        if stripped not in ('"""', "'''"):
            lines.append((number + 1, stripped[3:] if stripped.startswith("#>") else stripped))
    return lines


def expected_output(source: str) -> list[str]:
    """The output a snippet's ``#>`` lines (or quoted output blocks) say it prints."""
    return [text for _, text in expected_output_at(source)]


def without_output(source: str) -> str:
    """The source without its printed output (for a notebook, whose output cells show it)."""
    dropped = {number for number, _ in _output_lines(source)}
    kept = [line for n, line in enumerate(source.splitlines(keepends=True)) if n not in dropped]
    return "".join(kept)


def device_idiom_problems(root: Path = ROOT) -> list[str]:
    """Every snippet picks its device with the site's one idiom (docs/authors.md): its
    two lines, one after the other, each perhaps followed by a code-annotation marker
    (``  # (1)!``)."""
    idiom = DEVICE_IDIOM.splitlines()
    problems = []
    for path in snippet_files(root):
        source = path.read_text("utf-8")
        lines = without_annotations(source).splitlines()
        pairs = zip(lines, lines[1:], strict=False)
        found = any([first, second] == idiom for first, second in pairs)
        if not found and not (is_script(source) and _idiom_in_a_function(source)):
            where = next((i for i, line in enumerate(lines, 1) if "device" in line), 1)
            problems.append(
                f"{path.relative_to(root).as_posix()}:{where}: does not pick its device with "
                f"the site's idiom, these two lines:\n{DEVICE_IDIOM}"
            )
    return problems


def _idiom_in_a_function(source: str) -> bool:
    """The idiom's two statements, one after the other, in a function's body: where a
    ``# script:`` picks its device, in ``main()``, so that importing it runs nothing
    (indented, its first line is wrapped to fit 76 characters)."""
    idiom = [ast.dump(s) for s in ast.parse(DEVICE_IDIOM).body]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = [ast.dump(s) for s in node.body]
            if any(body[i : i + 2] == idiom for i in range(len(body) - 1)):
                return True
    return False


def shutdown_idiom_problems(root: Path = ROOT) -> list[str]:
    """Every multi-process snippet (a ``# launch:`` marker) ends with the site's
    shutdown, SHUTDOWN_IDIOM's three lines one after the other: a bare
    ``dist.destroy_process_group()`` can let a rank crash at exit, after its output."""
    idiom = SHUTDOWN_IDIOM.splitlines()
    problems = []
    for path in snippet_files(root):
        source = path.read_text("utf-8")
        if launch_command(source) is None:
            continue
        lines = without_annotations(source).splitlines()
        runs = zip(lines, lines[1:], lines[2:], strict=False)
        if not any(list(run) == idiom for run in runs):
            where = next(
                (i for i, line in enumerate(lines, 1) if "destroy_process_group" in line),
                len(lines),
            )
            problems.append(
                f"{path.relative_to(root).as_posix()}:{where}: does not end with the "
                f"site's shutdown, these three lines:\n{SHUTDOWN_IDIOM}"
            )
    return problems


def hidden_marker_problems(root: Path = ROOT) -> list[str]:
    """A comment that ends with a colon right above a marker only the checks read
    (``# expect-no-grad: ...``): the site hides the marker, so the reader's comment
    would introduce nothing. It ends as a sentence instead."""
    problems = []
    for path in snippet_files(root):
        lines = path.read_text("utf-8").splitlines()
        for number, (above, line) in enumerate(zip(lines, lines[1:], strict=False), 1):
            comment = above.lstrip().startswith("#") and not HARNESS_LINE.match(above)
            if comment and above.rstrip().endswith(":") and HARNESS_LINE.match(line):
                problems.append(
                    f"{path.relative_to(root).as_posix()}:{number}: ends with a colon above "
                    f"a marker the site does not show ({line.strip().split(':')[0]})"
                )
    return problems


def output_in_function(source: str) -> list[int]:
    """The 1-based lines of ``#>`` output that sit inside a function's body: below a
    statement of a ``def`` and indented under it. The reader sees the output far from
    the call that prints it (docs/authors.md, "Output next to its cause")."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # ruff reports it
    functions = [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    lines = source.splitlines()
    found = []
    code_line = 0  # the last line of code above, 1-based
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("#> ") or stripped == "#>":
            indent = len(line) - len(line.lstrip())
            if any(
                f.lineno <= code_line <= f.end_lineno and indent > f.col_offset for f in functions
            ):
                found.append(number)
        elif stripped and not stripped.startswith("#"):
            code_line = number
    return found


def output_in_function_problems(source: str, shown: str, offset: int = 0) -> list[str]:
    """An example whose ``#>`` lines sit inside a ``def`` body (the first such line),
    unless it says why with ``# output-in-function: <why>``."""
    if markers(source).get("output-in-function"):
        return []
    return [
        f"{shown}:{offset + number}: #> output inside a function body, far from the call "
        "that prints it: print the result under the call, or say why with "
        "'# output-in-function: <why>'"
        for number in output_in_function(source)[:1]
    ]


def multiline_prints(source: str, shown: str, offset: int = 0) -> list[str]:
    """A ``print(...)`` call spread over several lines: pytest-examples would write its
    #> lines inside the call's parentheses (``--update-examples`` breaks the file).
    Build the text first (``line = (f"..." f"...")``), then ``print(line)``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # ruff reports it
    return [
        f"{shown}:{offset + node.lineno}: print() spans lines "
        f"{offset + node.lineno}-{offset + node.end_lineno}; its #> "
        "lines would be written inside it: build the text first, then print it on one line"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and node.end_lineno > node.lineno
    ]
