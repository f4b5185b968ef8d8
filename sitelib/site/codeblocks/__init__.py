"""Code blocks as a reader needs them: a Markdown extension both builders run.

Named ``sitelib.site.codeblocks`` in mkdocs.yml's ``markdown_extensions``, in place
of ``pymdownx.highlight``: it *is* that extension (same options), with a highlighter
that draws four things Pygments alone does not, and build-time checks. Zensical reads
the same list, so it draws and checks the same. One job a module, each with the
tests that check it in its docstring:

    extension   the extension and its highlighter; the 60-line limit, what ran
    output      printed output drawn as output; marker comments for the checks hidden
    lean        names, whitespace, operators and punctuation without a span
    copied      what a block's copy button gives (for the tests)
    folds       set-up folds and their one-line summaries
    references  prose that names a line must name one its block shows
    search      search finds a block by the names its code uses, once per page
    inline      short inline code on one line
    errors      the error a check raises (the build stops, naming the page)

Python-Markdown loads the package by name and calls :func:`makeExtension`.
"""

from __future__ import annotations

from sitelib.site.codeblocks.extension import CodeBlocksExtension, makeExtension

__all__ = ["CodeBlocksExtension", "makeExtension"]
