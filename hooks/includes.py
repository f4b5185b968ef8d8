"""A page's snippet includes, checked before pymdownx.snippets reads them: an include
of a file that does not exist stops the build with one line naming the page and the
line (``docs/page.md:12: includes snippets/x/y.py, which does not exist``), the same
message ``make check FILE=docs/page.md`` and the suite's bookkeeping give
(:func:`sitelib.site.layout.missing_includes`), not pymdownx's traceback."""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from sitelib.site.layout import includes_in, missing_includes


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.abs_src_path and page.file.src_uri.endswith(".md"):
        root = Path(config.config_file_path).parent
        if missing := missing_includes(includes_in(Path(page.file.abs_src_path), root), root):
            raise PluginError("\n".join(missing))
    return markdown
