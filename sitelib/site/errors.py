"""The one error a build step raises to stop the build: MkDocs' ``PluginError`` where
MkDocs is installed (it reports one clear line, no traceback, and aborts), otherwise
an exception of the site's own, so the same extensions load under Zensical alone or
plain Python-Markdown (``tests/test_zensical.py`` builds with MkDocs hidden)."""

from __future__ import annotations

try:
    from mkdocs.exceptions import PluginError as BuildError
except ImportError:  # Zensical alone, or plain Python-Markdown

    class BuildError(Exception):  # a class of its own, so it can share a subclass's bases
        """What stops the build where MkDocs is not installed."""


__all__ = ["BuildError"]
