"""`make serve`: a snippet edit builds again the pages that include it, and the
warnings the preview prints as a matter of course are dropped (sitelib/site/preview.py)."""

from __future__ import annotations

from pathlib import Path

from sitelib.site import preview


def on_startup(command: str, dirty: bool) -> None:
    preview.started(command, dirty)


def on_files(files, config):
    root = Path(config.config_file_path).parent
    pages = [(Path(f.abs_src_path), Path(f.abs_dest_path)) for f in files.documentation_pages()]
    preview.mark_stale_pages(pages, root)
    return files
