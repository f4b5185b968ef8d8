"""What a check of an example ends in, other than passing: a failure that names the
file and line, or a skip with its reason, and the one rule for when an example is
skipped (:func:`skip_reason`): a fence marked ``test="skip"`` (with its reason), an
example that needs CUDA on a run without it, one that needs a newer torch than the
one running (``# requires: torch>=2.13``) or an older one (``torch<2.15``: an
example whose output changed with that release), a multi-process example that needs more
GPUs than the machine has. The checks raise these exceptions; the tests turn them into
pytest's outcomes (no pytest call in the library).
"""

from __future__ import annotations

from pytest_examples import CodeExample

from sitelib.check.examples import (
    display_path,
    launch_command,
    requirement_problems,
    requires_cuda,
    requires_torch,
)
from sitelib.site.snippets import launch_ranks, needs_torch


class ExampleFailure(AssertionError):
    """What a broken example reports: file, line, and what disagreed."""


class Skipped(Exception):
    """An example that does not run here; the message says why."""


def skip_reason(
    example: CodeExample, device: str, gpus: int | None = None, torch_version: str | None = None
) -> str | None:
    """Why ``example`` does not run on ``device`` (None: it runs). ``gpus``: how many
    CUDA devices the machine has, for a multi-process example on ``cuda``;
    ``torch_version``: the release running (default: ``torch.__version__``)."""
    shown = display_path(example)
    if problems := requirement_problems(example):
        raise ExampleFailure("\n".join(problems))
    settings = example.prefix_settings()
    if settings.get("test") == "skip":
        reason = settings.get("reason")
        if not reason:
            raise ExampleFailure(f'{shown}:{example.start_line}: test="skip" needs reason="..."')
        return f"{shown}:{example.start_line}: {reason}"
    if requires_cuda(example) and device != "cuda":
        return f"{shown}: needs CUDA (run with --device cuda)"
    if wanted := requires_torch(example):
        if torch_version is None:
            import torch

            torch_version = torch.__version__
        if not wanted.admits(torch_version):
            return f"{shown}: {needs_torch(wanted)} (this is torch {torch_version})"
    command = launch_command(example)
    if command and device == "cuda" and gpus is not None:
        try:
            n = launch_ranks(command)
        except ValueError as err:
            raise ExampleFailure(f"{shown}: {err}") from None
        if gpus < n:
            return f"{shown}: needs {n} GPUs, this machine has {gpus}"
    return None
