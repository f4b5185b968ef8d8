"""Scripts a reader downloads whole (a snippet marked ``# script:``, such as
``snippets/complete/train.py``): each is put into the site at its snippet's path
(``complete/train.py``), as the copy button would give it (without the marker
comments only the checks read: :func:`sitelib.site.snippets.as_copied`), so a page
links to it (``[train.py](train.py)`` from docs/complete/index.md) and MkDocs checks
that link."""

from __future__ import annotations

from mkdocs.structure.files import File

from sitelib.site.layout import snippet_files, snippet_name
from sitelib.site.snippets import as_copied, is_script


def on_files(files, config):
    for path in snippet_files():
        source = path.read_text("utf-8")
        if is_script(source):
            files.append(File.generated(config, snippet_name(path), content=as_copied(source)))
    return files
