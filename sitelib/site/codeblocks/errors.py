"""The error a code block's check raises: the build stops and names the page.

It is both the site's :class:`~sitelib.site.errors.BuildError` (MkDocs stops the
build on it) and SuperFences' own exception, the one SuperFences lets through: any
other exception from a highlighter it swallows, and the block is left out of the page
without a word. The folds (:mod:`.folds`), the line references (:mod:`.references`)
and the extension (:mod:`.extension`) raise it; tests/test_codeblocks.py checks that
the build stops on each (test_the_build_refuses_a_fold_that_hides_a_print,
test_the_build_refuses_a_block_longer_than_it_shows,
test_prose_naming_a_line_its_block_does_not_show_fails).
"""

from __future__ import annotations

from pymdownx.superfences import SuperFencesException

from sitelib.site.errors import BuildError


class CodeBlockError(BuildError, SuperFencesException):
    """A block or a reference that breaks a reading rule; the message names the page.
    (SuperFences swallows any other exception from a highlighter and leaves the
    block out of the page.)"""
