"""``python -m sitelib.check.processes [MODULE ...]``: the server, having imported
torch and the MODULEs before any fork."""

import importlib
import sys

import torch  # noqa: F401 (the point of the server: imported once, before any fork)

from sitelib.check.processes.server import serve

for module in sys.argv[1:]:
    importlib.import_module(module)
serve()
