"""Verification records: what a run of the checks found, so that the site says only
what was run.

Every run of the example checks (``make test``, ``make test-torch VERSION=...``,
``make test PYTEST_ARGS="--device cuda"``) writes one small JSON file (tests/conftest.py
calls :func:`write` at the end of the session): the torch release and device it ran
on, the date, and for each example its outcome (passed, failed, skipped and why),
keyed by a hash of the example's source (:func:`source_hash`), so a record never
vouches for code that changed after it ran. The build reads every file in the records
folder (:func:`load`; ``extra.records`` in mkdocs.yml, ``.records/`` by default) and
shows, per chapter, the releases and devices its examples last passed on, and, next
to a block, where that example was skipped or failed. With no file, a chapter says
"no recorded runs". CONTRIBUTING.md, "Verification records", says where the files come from
when the site is published.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sitelib.site.snippets import NEEDS_TORCH, TorchRange, needs_torch
from sitelib.site.torch_range import release_key

SCHEMA = 1
OUTCOMES = ("passed", "failed", "skipped")


def source_hash(source: str) -> str:
    """The identity of an example's code: its text, trailing newlines aside."""
    return hashlib.sha256((source.rstrip("\n") + "\n").encode()).hexdigest()[:16]


def release_of(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``; ``2.16.0rc1`` stays."""
    return version.split("+", 1)[0]


@dataclass(frozen=True)
class Result:
    outcome: str  # passed, failed, skipped
    reason: str = ""


@dataclass
class Record:
    """One run: the release and device, when, and each example's result by hash."""

    torch: str  # as torch.__version__ gives it: 2.13.0+cpu
    device: str  # cpu or cuda
    finished: str  # ISO 8601, UTC
    command: str
    examples: dict[str, dict] = field(default_factory=dict)  # id -> {hash, outcome, reason}
    path: str = ""

    @property
    def release(self) -> str:
        return release_of(self.torch)

    @property
    def date(self) -> str:
        return self.finished[:10]

    def result(self, digest: str) -> Result | None:
        """This run's result for the example whose source has this hash, if it ran."""
        for entry in self.examples.values():
            if entry.get("hash") == digest:
                return Result(entry["outcome"], entry.get("reason", ""))
        return None


def write(
    folder: Path,
    torch_version: str,
    device: str,
    command: str,
    results: dict[str, tuple[str, str, str]],
    now: dt.datetime | None = None,
) -> Path:
    """Write one run's record: ``results`` maps an example's id to (its source hash,
    outcome, reason). Returns the file written."""
    now = now or dt.datetime.now(dt.UTC)
    finished = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    record = {
        "schema": SCHEMA,
        "torch": torch_version,
        "device": device,
        "finished": finished,
        "command": command,
        "examples": {
            example: {"hash": digest, "outcome": outcome, **({"reason": reason} if reason else {})}
            for example, (digest, outcome, reason) in sorted(results.items())
        },
    }
    folder.mkdir(parents=True, exist_ok=True)
    stamp = now.strftime("%Y%m%dT%H%M%S")
    path = folder / f"{stamp}-torch-{release_of(torch_version)}-{device}.json"
    path.write_text(json.dumps(record, indent=1) + "\n", "utf-8")
    return path


def load(folder: Path) -> list[Record]:
    """Every record in ``folder``, oldest first; a file that is not one is skipped."""
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            continue
        try:
            found.append(
                Record(
                    data["torch"],
                    data["device"],
                    data["finished"],
                    data.get("command", ""),
                    data.get("examples", {}),
                    str(path),
                )
            )
        except (KeyError, TypeError):
            continue
    return sorted(found, key=lambda r: r.finished)


def page_sources(page: Path, root: Path) -> list[str]:
    """The sources of a page's examples: the snippets it includes and its own Python
    fences, as the checks run them."""
    from sitelib.site.layout import INCLUDE, includes_in
    from sitelib.site.markdown_scan import fences

    sources = [(root / "snippets" / i.path).read_text("utf-8") for i in includes_in(page, root)]
    for fence in fences(page.read_text("utf-8")):
        lines = [line for line in fence.lines if line.strip()]
        if fence.language in ("py", "python") and not all(INCLUDE.match(x) for x in lines):
            sources.append(fence.body)
    return sources


# -- what a page shows ---------------------------------------------------------------
@dataclass(frozen=True)
class Verified:
    """A device and release on which a set of examples was last run: when, and how."""

    device: str
    release: str
    date: str
    failed: int  # examples that failed
    skipped: tuple[str, ...]  # the reasons of those skipped
    supported: bool  # the release is within the site's supported range
    too_old: int = 0  # examples skipped for their torch range (newer, or older): not passed
    wanted: tuple[str, ...] = ()  # what those skips said they need ("needs torch 2.13 or newer")


def latest(
    records: Iterable[Record], digests: list[str], oldest: str, newest: str
) -> list[Verified]:
    """Per device and release: the newest run that ran every one of these examples (a
    skipped one counts as ran) as they are now. Releases in order, CPU first."""
    best: dict[tuple[str, str], Record] = {}
    for record in records:
        if digests and all(record.result(d) for d in digests):
            best[record.device, record.release] = record  # records come oldest first
    found = []
    for (device, release), record in best.items():
        results = [record.result(d) for d in digests]
        found.append(
            Verified(
                device=device,
                release=release,
                date=record.date,
                failed=sum(r.outcome == "failed" for r in results),
                skipped=tuple(sorted({r.reason for r in results if r.outcome == "skipped"})),
                supported=release_key(oldest) <= release_key(release) <= release_key(newest),
                too_old=sum(
                    r.outcome == "skipped" and bool(NEEDS_TORCH.search(r.reason)) for r in results
                ),
                wanted=tuple(
                    sorted({m.group(0) for r in results if (m := NEEDS_TORCH.search(r.reason))})
                ),
            )
        )
    return sorted(found, key=lambda v: (v.device != "cpu", v.device, release_key(v.release)))


def _other_torch(wanted: tuple[str, ...]) -> str:
    """What the examples a release skipped for their range need: a newer torch, an
    older one (an example whose output changed with a newer release), or both."""
    newer = any("or newer" in w for w in wanted)
    older = any("older than" in w for w in wanted)
    return (
        "another torch release"
        if newer == older
        else "a newer torch"
        if newer
        else "an older torch"
    )


DEVICES = {"cpu": "CPU", "cuda": "CUDA"}
WHERE = re.compile(r"^[\w./-]+(?::\d+)?: ")  # a skip reason's "docs/page.md:40: "


def summary(verified: list[Verified]) -> list[dict]:
    """Per device, the text a chapter's header shows: the releases that passed, with
    their dates; the ones that failed; the ones where examples that need a newer torch
    were skipped (not passed: the header says how many); the ones outside the
    supported range apart."""
    lines = []
    for device in sorted({v.device for v in verified} | {"cpu", "cuda"}, key=lambda d: d != "cpu"):
        runs = [v for v in verified if v.device == device]
        name = DEVICES.get(device, device)
        if not runs:
            lines.append({"device": name, "text": "not yet run", "state": "none"})
            continue
        parts = []
        passed = [v for v in runs if v.supported and not v.failed and not v.too_old]
        by_date: dict[str, list[str]] = {}
        for v in passed:
            by_date.setdefault(v.date, []).append(v.release)
        for date, releases in sorted(by_date.items()):
            parts.append(f"torch {', '.join(releases)} ({date})")
        for v in (v for v in runs if v.supported and v.failed):
            parts.append(f"torch {v.release}: {v.failed} failed ({v.date})")
        for v in (v for v in runs if v.supported and not v.failed and v.too_old):
            some = (
                "1 example, which needs" if v.too_old == 1 else f"{v.too_old} examples, which need"
            )
            parts.append(f"torch {v.release} but for {some} {_other_torch(v.wanted)} ({v.date})")
        outside = [v for v in runs if not v.supported]
        for v in outside:
            state = f"{v.failed} failed" if v.failed else "passed"
            parts.append(f"newer than the supported range: torch {v.release} {state} ({v.date})")
        state = "failed" if any(v.failed for v in runs if v.supported) else "passed"
        lines.append({"device": name, "text": "; ".join(parts), "state": state})
    return lines


def block_notes(
    records: list[Record],
    digest: str,
    requires_cuda: bool,
    oldest: str,
    newest: str,
    requires_torch: TorchRange | None = None,
) -> list[str]:
    """What a reader should know next to one example: where its latest runs skipped
    or failed it; for an example that needs CUDA, that it has not run on CUDA; for one
    that runs only on some torch releases (``requires_torch``: 2.13 or newer, older
    than 2.15), that it does, and per device the releases it ran on and those it was
    skipped on for it."""
    notes = [f"{needs_torch(requires_torch).capitalize()}."] if requires_torch else []
    ran: dict[str, list[str]] = {}
    outside: dict[tuple[str, str], list[str]] = {}  # (device, older|newer) -> releases
    for v in latest(records, [digest], oldest, newest):
        where = f"{DEVICES.get(v.device, v.device)}, torch {v.release}, {v.date}"
        if v.failed:
            notes.append(f"Failed on {where}.")
        elif v.too_old:
            side = "older" if requires_torch and requires_torch.newer_than(v.release) else "newer"
            outside.setdefault((v.device, side), []).append(v.release)
        elif requires_torch and not v.skipped:
            ran.setdefault(v.device, []).append(v.release)
        elif v.skipped and not (requires_cuda and v.device == "cpu"):
            why = "; ".join(WHERE.sub("", reason) for reason in v.skipped)
            notes.append(f"Not run on {where}: {why.rstrip('.')}.")
    devices = ran.keys() | {device for device, _ in outside}
    for device in sorted(devices, key=lambda d: d != "cpu"):
        parts = [f"ran on torch {', '.join(ran[device])}"] if device in ran else []
        for side in ("older", "newer"):
            if releases := outside.get((device, side)):
                parts.append(f"skipped on torch {', '.join(releases)}, which is {side}")
        notes.append(f"{DEVICES.get(device, device)}: {'; '.join(parts)}.")
    cuda = [v for v in latest(records, [digest], oldest, newest) if v.device == "cuda"]
    if requires_cuda and not any(not v.failed and not v.skipped for v in cuda):
        notes.append(
            "This example needs CUDA and has not yet been run on a GPU: its output is "
            "what it should print, not yet what it printed."
        )
    return notes
