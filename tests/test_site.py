"""The site builds strict, and its pages, includes and snippets all fit together."""

from __future__ import annotations

import re

from tests.site import bookkeeping


def test_bookkeeping() -> None:
    problems = bookkeeping()
    assert not problems, "\n".join(problems)


def test_strict_build(built_site) -> None:
    result, _ = built_site
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    warnings = [line for line in log.splitlines() if re.match(r"(WARNING|ERROR)\s+-", line)]
    assert not warnings, "\n".join(warnings)
