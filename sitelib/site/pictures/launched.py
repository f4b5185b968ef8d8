"""One rank of a multi-process example whose plot the site draws from its real run.

A figure of what ranks do together (what one DDP or FSDP2 step communicates) comes
from a job of several processes: the example is an ordinary ``# launch: torchrun
--nproc-per-node 2`` file whose rank 0 prints and draws.
:func:`sitelib.site.pictures.plot.capture_plots` runs it as a reader would, under the
real ``torchrun`` (``--standalone``: it finds a free port), each rank started through
this module (``torchrun -m sitelib.site.pictures.launched SNIPPET OUT``). On each
rank, :func:`main` runs the snippet as the in-process capture does: as ``__main__``,
prints silenced, on the CPU (so on ``gloo``), matplotlib headless with the site's
settings; rank 0 writes the figures it showed (SVG and data) to ``OUT``.

Checked by tests/test_plots.py, which runs every plot's snippet afresh (this one under
``torchrun`` too) and again with a changed value, and by tests/test_launch.py, which
runs the example as pasted under ``torchrun``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any

from sitelib.site.pictures.capture import as_pasted
from sitelib.site.pictures.plot import matplotlib_headless


def main(snippet: str, out: str) -> None:
    """One rank: run the snippet; rank 0 writes the figures it showed."""
    figures: list[dict[str, Any]] = []
    with matplotlib_headless(figures), as_pasted(), contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(snippet, run_name="__main__")
    if os.environ.get("RANK") == "0":
        Path(out).write_text(json.dumps(figures), "utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
