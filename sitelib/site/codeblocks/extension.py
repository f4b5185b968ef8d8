"""The extension itself: pymdownx.highlight, with a highlighter that does the jobs.

:class:`CodeBlocksExtension` *is* pymdownx.highlight's extension (same options, and
four of its own: ``snippets_dir``, ``max_lines``, ``records``, ``torch``). Its
:class:`Highlight` draws each block with the output and lean filters
(:mod:`.output`, :mod:`.lean`), folds its set-up (:mod:`.folds`) and gives search its
names (:mod:`.search`); Python fences accept the ``fold`` option through a
SuperFences validator of their own. The extension also registers the line-reference
check (:mod:`.references`), short inline code on one line (:mod:`.inline`) and the
names once per page (:mod:`.search`). The highlighter and the extension share one
module: each needs the other (the extension names its highlighter, the highlighter
reads the extension's options).

**Checks.** The build fails, naming the page, when a block shows more than
``max_lines`` (60) lines unfolded. **What ran.** Under a Python block, a note where
the verification records (:mod:`sitelib.site.records`) show its example skipped or
failed on a release or a device, or, for an example that needs CUDA, that it has not
yet run on a GPU; then the block's "Report a problem" link (:mod:`sitelib.site.report`).

Checked by tests/test_codeblocks.py (test_the_build_refuses_a_block_longer_than_it_shows,
test_the_site_allows_at_most_60_lines, and every test that renders a page through the
site's extensions), tests/test_records.py (test_the_build_shows_what_ran_and_only_that)
and tests/test_zensical.py (Zensical loads the same extension).
"""

from __future__ import annotations

import functools
import html
from pathlib import Path

from markdown import Markdown
from pymdownx import highlight as pymdownx_highlight
from pymdownx import superfences
from pymdownx.superfences import SuperFencesCodeExtension

from sitelib.site import records, report, snippets
from sitelib.site.codeblocks.errors import CodeBlockError
from sitelib.site.codeblocks.folds import fold_html, fold_problems, parse_fold, summary
from sitelib.site.codeblocks.inline import _ShortCodeOnOneLine
from sitelib.site.codeblocks.lean import LeanFilter
from sitelib.site.codeblocks.output import OutputFilter
from sitelib.site.codeblocks.references import _LineReferences
from sitelib.site.codeblocks.search import _NamesOncePerPage, searchable, used_names
from sitelib.site.markdown_scan import page_file

PYTHON = {"python", "py", "python3", "py3"}


# -- the highlighter -----------------------------------------------------------------
class Highlight(pymdownx_highlight.Highlight):
    """pymdownx's highlighter, with the output and lean filters and set-up folds."""

    def get_lexer(self, src, language, inline, stripnl):
        lexer, name = super().get_lexer(src, language, inline, stripnl)
        if not inline:
            if name in PYTHON:
                lexer.add_filter(OutputFilter())
            lexer.add_filter(LeanFilter())
        return lexer, name

    def highlight(self, src, language, *args, **kwargs):
        attrs = kwargs.get("attrs") or {}
        fold = attrs.pop("fold", None)
        code = super().highlight(src, language, *args, **kwargs)
        if kwargs.get("inline"):
            return code
        title = kwargs.get("title") or "a code block"
        where = _where(self.md, title)
        lines = src.rstrip("\n").count("\n") + 1
        span = parse_fold(fold, lines, where) if fold else None
        hidden = (span[1] - span[0] + 1) if span else 0
        extension = _extension(self.md)
        most = extension.getConfig("max_lines")
        if lines - hidden > most:
            raise CodeBlockError(
                f"{where} shows {lines - hidden} lines unfolded (at most {most}): "
                'fold its set-up (fold="1-N" on the fence) or split the example'
            )
        if span is not None:
            problems = fold_problems(src, span, kwargs.get("hl_lines") or [])
            if problems:
                raise CodeBlockError(f"{where}: " + "; ".join(problems))
            number = kwargs.get("code_block_count", 0)
            code = fold_html(code, span, summary(src, span), number, self.line_spans)
        code = searchable(code, used_names(src, span) if language in PYTHON else [])
        if language in PYTHON and (notes := extension.notes(src)):
            drawn = "".join(f"<span>{html.escape(note)}</span>" for note in notes)
            end = code.rindex("</div>")
            code = f'{code[:end]}<p class="example-record">{drawn}</p>{code[end:]}'
        if language in PYTHON and (link := report.block_link(self.md, kwargs.get("title"))):
            end = code.rindex("</div>")  # "Report a problem" (sitelib/site/report.py)
            code = f"{code[:end]}{link}{code[end:]}"
        return code


def _extension(md: Markdown) -> CodeBlocksExtension:
    return next(e for e in md.registeredExtensions if isinstance(e, CodeBlocksExtension))


def _where(md: Markdown, title: str) -> str:
    page = page_file(md)
    return f"{page[0]} ({title})" if page else title


# -- Python fences: fold="A-B" ------------------------------------------------------
def _python_validator(language, inputs, options, attrs, md) -> bool:
    """SuperFences' own validator, and ``fold``, which it would refuse."""
    fold = inputs.pop("fold", None)
    okay = superfences.highlight_validator(language, inputs, options, attrs, md)
    if fold is not None:
        options["fold"] = fold
    return okay


def _python_fence(src, language, class_name, options, md, **kwargs):
    """SuperFences' own highlighting, with the fold handed to :class:`Highlight`."""
    if fold := options.pop("fold", None):
        kwargs["attrs"] = {**(kwargs.get("attrs") or {}), "fold": fold}
    return md.preprocessors["fenced_code_block"].highlight(src, language, options, md, **kwargs)


# -- the extension -------------------------------------------------------------------
class CodeBlocksExtension(pymdownx_highlight.HighlightExtension):
    OPTIONS = {
        "snippets_dir": ["snippets", "where fences' includes point (line checks)"],
        "max_lines": [60, "the most lines a block may show unfolded"],
        "records": ["", "the verification records' folder (sitelib/site/records.py)"],
        "torch": [{}, "the supported range: oldest, newest_verified (mkdocs.yml extra.torch)"],
    }

    def __init__(self, *args, **kwargs):
        ours = {key: kwargs.pop(key) for key in self.OPTIONS if key in kwargs}
        super().__init__(*args, **kwargs)  # pymdownx.highlight's own options
        self.config.update({key: list(value) for key, value in self.OPTIONS.items()})
        self.setConfigs(ours)

    def get_pymdownx_highlighter(self):
        return Highlight

    def notes(self, src: str) -> list[str]:
        """What the verification records say next to this example (records.block_notes)."""
        if not hasattr(self, "_records"):
            folder = self.getConfig("records")
            self._records = records.load(Path(folder)) if folder else []
        torch = self.getConfig("torch") or {}
        return records.block_notes(
            self._records,
            records.source_hash(src),
            snippets.requires_cuda(src),
            torch.get("oldest", "0"),
            torch.get("newest_verified", "999"),
            snippets.requires_torch(src),
        )

    def extendMarkdown(self, md):  # noqa: N802 (Markdown's API)
        super().extendMarkdown(md)
        # Python fences accept one option more, fold="A-B" (SuperFences refuses a fence
        # with an option no validator knows). Registered through SuperFences' own API
        # for other extensions; it must come before this one in markdown_extensions.
        fences = next(
            (e for e in md.registeredExtensions if isinstance(e, SuperFencesCodeExtension)), None
        )
        if fences is None:
            raise CodeBlockError("sitelib.site.codeblocks needs pymdownx.superfences before it")
        for language in sorted(PYTHON):
            fences.extend_super_fences(
                language,
                functools.partial(superfences._formatter, _fmt=_python_fence),
                functools.partial(superfences._validator, validator=_python_validator),
                functools.partial(superfences._reset, _reset=None),
            )
        snippets = Path(self.getConfig("snippets_dir"))
        md.preprocessors.register(_LineReferences(md, snippets), "line-references", 40)
        md.treeprocessors.register(_ShortCodeOnOneLine(md), "short-code-nobr", 5)
        # After the raw HTML (the highlighted blocks) is back in the page (priority 30).
        md.postprocessors.register(_NamesOncePerPage(md), "names-once-per-page", 5)


def makeExtension(**kwargs) -> CodeBlocksExtension:  # noqa: N802 (Python-Markdown's entry point)
    return CodeBlocksExtension(**kwargs)
