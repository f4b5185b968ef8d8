"""The torch releases the site supports.

The supported range is written once, in mkdocs.yml::

    extra:
      torch:
        oldest: "2.10.0"          # every example runs as pasted and prints what the page says
        newest_verified: "2.15.0" # the newest release `make test-torch` passed on
        verified: [...]           # every release it passed on then (optional)

:func:`supported` reads it (hooks and templates can read ``config.extra.torch`` as
well), :func:`range_sentence` is how pages state it, and :func:`range_problems`
checks that the range, the pinned release, the home page and the weekly workflow's
matrix agree.

"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from sitelib.site.layout import ROOT, load_config

RELEASE = re.compile(r"^\d+\.\d+\.\d+$")
WORKFLOW = ".github/workflows/torch-versions.yml"


# -- the supported range -----------------------------------------------------------------
def supported(root: Path = ROOT) -> dict[str, str]:
    """``{"oldest": ..., "newest_verified": ...}`` from mkdocs.yml's ``extra.torch``."""
    return dict((load_config(root).get("extra") or {}).get("torch") or {})


def pinned(root: Path = ROOT) -> str:
    """The torch release requirements.lock pins (the one ``make test`` runs)."""
    lock = (root / "requirements.lock").read_text("utf-8")
    m = re.search(r"^torch==(\S+)$", lock, re.M)
    return m.group(1) if m else ""


def range_sentence(root: Path = ROOT) -> str:
    """The sentence that states the range on a page (the home page carries it)."""
    r = supported(root)
    releases = r.get("verified") or [r.get("oldest"), pinned(root), r.get("newest_verified")]
    ran = ", ".join(releases[:-1]) + " and " + releases[-1]
    return (
        f"Supported torch releases: {r.get('oldest')} to {r.get('newest_verified')}: "
        f"every example printed what its page says on torch {ran} "
        "when this range was last set; "
        "one that uses what only a newer release has says under its block which release "
        'it needs ("Needs torch 2.13 or newer") and is skipped, with that reason, on '
        "the older ones."
    )


def release_key(release: str) -> tuple[int, ...]:
    """A release's order: ``2.10.0`` after ``2.9.1``; a local label or pre-release
    suffix (``+cpu``, ``rc1``) is not counted."""
    return tuple(int(n) for n in re.findall(r"\d+", release.split("+", 1)[0])[:3])


def range_problems(root: Path = ROOT) -> list[str]:
    """Where the range, the pin, the home page and the weekly matrix disagree."""
    r = supported(root)
    oldest, newest, pin = r.get("oldest"), r.get("newest_verified"), pinned(root)
    problems = [
        f"mkdocs.yml: extra.torch.{name} must be a release like 2.7.0, not {value!r}"
        for name, value in (("oldest", oldest), ("newest_verified", newest))
        if not (isinstance(value, str) and RELEASE.match(value))
    ]
    if not RELEASE.match(pin):
        problems.append(f"requirements.lock: no torch==x.y.z pin (found {pin!r})")
    if problems:
        return problems
    if not release_key(oldest) <= release_key(pin) <= release_key(newest):
        problems.append(
            f"mkdocs.yml: extra.torch says {oldest} to {newest}, "
            f"but requirements.lock pins torch {pin}, outside that range"
        )
    missing = [v for v in (oldest, pin, newest) if v not in r.get("verified", [v])]
    if missing:
        problems.append(
            f"mkdocs.yml: extra.torch.verified leaves out {', '.join(missing)}: list every "
            "release make test-torch passed on, the range's ends and the pin among them"
        )
    if range_sentence(root) not in (root / "docs" / "index.md").read_text("utf-8"):
        problems.append(f"docs/index.md: does not state the range: {range_sentence(root)}")
    workflow = root / WORKFLOW
    matrix = []
    if workflow.is_file():
        jobs = (yaml.safe_load(workflow.read_text("utf-8")) or {}).get("jobs") or {}
        for job in jobs.values():
            matrix += ((job.get("strategy") or {}).get("matrix") or {}).get("torch") or []
    for wanted in (oldest, pin, "latest"):
        if wanted not in [str(v) for v in matrix]:
            problems.append(f"{WORKFLOW}: the torch matrix {matrix} lacks {wanted}")
    # Every minor release between: the newest is `latest`'s.
    (major, first), last = release_key(oldest)[:2], release_key(newest)[1]
    minors = {release_key(str(v))[:2] for v in matrix if str(v) != "latest"}
    for minor in range(first + 1, last):
        if (major, minor) not in minors:
            problems.append(
                f"{WORKFLOW}: the torch matrix {matrix} has no {major}.{minor} release "
                "(every minor release of the range runs)"
            )
    return problems
