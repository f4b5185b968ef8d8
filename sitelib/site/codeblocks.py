"""Code blocks as a reader needs them: a Markdown extension both builders run.

Named ``sitelib.site.codeblocks`` in mkdocs.yml's ``markdown_extensions``, in place
of ``pymdownx.highlight``: it *is* that extension (same options), with a highlighter
that draws four things Pygments alone does not, and build-time checks. Zensical reads
the same list, so it draws and checks the same.

**Printed output is output.** Under a ``print``, pytest-examples writes what it
printed as ``#>`` lines, or, for long or multi-line output, as a quoted block
(``'''`` on its own line after the ``print``). Pygments reads both as a comment or a
string; :class:`OutputFilter` gives them the token ``Generic.Output`` (class ``go``),
their ``#>`` and quotes ``Generic.Output.Marker`` (``go-Marker``), and puts a
visually hidden ``Output:`` (``go-Label``) before each run of output lines for
screen readers. extra.css draws output as a panel of its own; the label and marker
are not copied (Material sets ``data-md-copying`` while it reads a block's text).

**Notes for the checks, left out.** A marker comment that only the checks read
(``# expect-no-grad: ...``, :data:`sitelib.site.snippets.HARNESS_MARKERS`) becomes
``Comment.Harness`` (``c-Harness``), whose line extra.css hides: a reader neither
sees nor copies it (``snippets.as_copied`` is what the copy button gives).

**Fewer nodes.** :class:`LeanFilter` turns names, whitespace, operators and
punctuation into plain text, which Pygments writes without a ``<span>``: they share
the code text colour (extra.css), so nothing on screen changes, and a chapter has a
third of the elements to lay out.

**Set-up folds.** A fence option ``fold="1-12"`` folds those lines of the block
behind a one-line summary computed from them ("Set-up, lines 1-12: imports, seed,
device, model"), which a reader opens with a click or the keyboard (a checkbox and
its label: no script). The copy button still copies the whole file. Only set-up may
fold: whole top-level imports, definitions, assignments and set-up calls; a fold
that holds a ``print``, its output, a highlighted line, an annotation marker or a
loop fails the build.

**Checks.** The build fails, naming the page, when a block shows more than
``max_lines`` (60) lines unfolded, and when prose names a line number ("line 21")
that the block before it does not show (it must have ``linenums``, and the line must
exist and not be folded): prose points at highlighted lines or annotations instead.

**What ran.** Under a Python block, a note where the verification records
(:mod:`sitelib.site.records`) show its example skipped or failed on a release or a
device, or, for an example that needs CUDA, that it has not yet run on a GPU.

**Found by what it uses.** Search indexes a block by its title and the names its code
uses (:func:`used_names`: what it imports, calls, reads as an attribute or passes as
a keyword, ``clip_grad_norm_``, ``GradScaler``, ``set_to_none``), never by its text:
the ``<pre>`` carries ``data-search-exclude`` (Material's search parser skips it,
with the fold's summary and the output labels inside it), and a ``hidden``
paragraph after it lists the names the page has not shown before
(:func:`names_once_per_page`; no reader or screen reader sees it). A result's
preview is then the section's prose.

It also keeps short inline code on one line (``1e-8`` never breaks at its ``-``).
"""

from __future__ import annotations

import ast
import builtins
import functools
import html
import re
from dataclasses import dataclass
from pathlib import Path

import pygments
from markdown import Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from pygments.filter import Filter
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from pygments.token import Comment, Generic, Name, Operator, Punctuation, String, Text, Whitespace
from pymdownx import highlight as pymdownx_highlight
from pymdownx import superfences
from pymdownx.superfences import SuperFencesCodeExtension, SuperFencesException

from sitelib.site import records, report, snippets
from sitelib.site.errors import BuildError
from sitelib.site.layout import html_text
from sitelib.site.markdown_scan import Fence, fences, page_file, prose_lines

OUTPUT = Generic.Output
MARKER = Generic.Output.Marker
LABEL = Generic.Output.Label
HARNESS = Comment.Harness  # a marker comment only the checks read: not drawn, not copied
PYTHON = {"python", "py", "python3", "py3"}
LABEL_TEXT = "Output: "


class CodeBlockError(BuildError, SuperFencesException):
    """A block or a reference that breaks a reading rule; the message names the page.
    (SuperFences swallows any other exception from a highlighter and leaves the
    block out of the page.)"""


# -- tokens --------------------------------------------------------------------------
class OutputFilter(Filter):
    """``#>`` lines and the quoted block under a ``print`` become output tokens."""

    def filter(self, lexer, stream):
        line = None  # what the current line is: None (nothing yet), or a LINE_* kind
        after_print = False  # the last line of code began with print(
        in_output = False  # the last line that was not blank was output
        for ttype, value in stream:
            if line is None and ttype in Comment.Single and value.startswith("#>"):
                if not in_output:
                    yield LABEL, LABEL_TEXT
                yield MARKER, "#>"
                if value[2:]:
                    yield OUTPUT, value[2:]
                line = LINE_OUTPUT
            elif line is None and ttype in Comment.Single and snippets.HARNESS_LINE.match(value):
                yield HARNESS, value
                line = LINE_COMMENT
            elif line is None and ttype in String.Doc and after_print:
                yield LABEL, LABEL_TEXT
                yield from _quoted_output(value)
                line = LINE_OUTPUT
            elif not value.strip():  # whitespace; a newline ends the line
                if "\n" in value and line is not None:
                    in_output = line == LINE_OUTPUT
                    if line in (LINE_PRINT, LINE_CODE):
                        after_print = line == LINE_PRINT
                    line = None
                yield ttype, value
            else:
                if line is None:
                    if ttype in Comment:
                        line = LINE_COMMENT
                    elif ttype in Name.Builtin and value == "print":
                        line = LINE_PRINT
                    else:
                        line = LINE_CODE
                yield ttype, value


LINE_OUTPUT, LINE_PRINT, LINE_CODE, LINE_COMMENT = "output", "print", "code", "comment"


def _quoted_output(value: str):
    """A ``'''`` block: its quotes are markers, its lines output."""
    quote = value[:3]
    body = value[3:-3]
    yield MARKER, quote
    if body:
        yield OUTPUT, body
    yield MARKER, quote


class LeanFilter(Filter):
    """Names, whitespace, operators and punctuation as plain text (no ``<span>``)."""

    PLAIN = {Name, Whitespace, Text.Whitespace, Operator, Punctuation}

    def filter(self, lexer, stream):
        for ttype, value in stream:
            yield (Text if ttype in self.PLAIN else ttype), value


PRE = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S)
PLAIN_SPAN = re.compile(r'<span(?: class="(?:n|w|o|p)")?>([^<]*)</span>')


def lean_html(content: str) -> str:
    """What LeanFilter does, for code another renderer highlighted (the notebook
    pages: mkdocs-jupyter calls Pygments itself): in every ``<pre>``, the leaf spans
    of names, whitespace, operators and punctuation unwrapped."""
    return PRE.sub(lambda m: m[1] + PLAIN_SPAN.sub(r"\1", m[2]) + m[3], content)


def output_html(content: str) -> str:
    """Printed output drawn and announced as on the chapters, for code another renderer
    highlighted (the notebook pages): a ``<pre>`` whose code shows output (a
    multi-process snippet's cell keeps its ``#>`` lines: no output cell can show what
    its ranks print) is highlighted again with :class:`OutputFilter` and
    :class:`LeanFilter`. Each output line is a span of its own (``__span-nb<k>-<line>``,
    as the chapters' line spans, which the output bands' CSS selects); a line of code is
    not wrapped: a notebook page shows a whole chapter's code, and a span per line
    doubled its elements, which the browser styles and lays out on every load."""
    blocks = iter(range(1, 1 << 30))

    def again(m: re.Match) -> str:
        code = html_text(m[2])
        if not snippets.expected_output(code):
            return m[0]
        lexer = PythonLexer()
        lexer.add_filter(OutputFilter())
        lexer.add_filter(LeanFilter())
        lines = HtmlFormatter(linespans=f"__span-nb{next(blocks)}")
        drawn = PRE.search(pygments.highlight(code, lexer, lines))
        return m[1] + CODE_LINE_SPAN.sub(r"\1", drawn[2]) + m[3]

    return PRE.sub(again, content)


# A line span (Pygments' linespans: one line, its newline, the span's end) that holds
# neither output nor a marker comment (hidden by its span): unwrapped by output_html.
CODE_LINE_SPAN = re.compile(
    r'<span id="__span-nb\d+-\d+">((?:(?!class="(?:go|c c-Harness))[^\n])*\n)</span>'
)


COPY_ONLY_DRAWN = re.compile(
    r'<span class="go go-Label">[^<]*</span>|<input [^>]*class="fold-switch"[^>]*>'
    r'|<label class="fold-label"[^>]*>.*?</label>'
    r'|<span id="[^"]*"><span class="c c-Harness">[^<]*</span>\n?</span>',
    re.S,
)


def copied_text(code: str) -> str:
    """The text of a highlighted block as its copy button gives it: without what is
    only drawn (the output label, the fold's switch and summary) and without the
    lines the site does not draw (marker comments only the checks read)."""
    return html_text(COPY_ONLY_DRAWN.sub("", code))


# -- the highlighter -----------------------------------------------------------------
class Highlight(pymdownx_highlight.Highlight):
    """pymdownx's highlighter, with the filters above and set-up folds."""

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


# -- what search sees of a block ------------------------------------------------------
BUILTIN_NAMES = set(dir(builtins))
# What every example opens with (the seed and the device idiom): no name to search by.
EVERY_EXAMPLE = {
    *("torch", "manual_seed", "accelerator", "current_accelerator", "check_available"),
    *("device", "to"),
}


def used_names(src: str, folded: tuple[int, int] | None = None) -> list[str]:
    """The names a Python block uses, in order of first use, outside its set-up fold
    (``folded``, the lines it folds; the lines a reader sees): modules and names it
    imports, functions it calls, attributes it reads, keywords it passes, and what it
    defines (``def``, ``class``); not Python's builtins, dunder names, the plain
    variables it assigns, reads or calls (``x``, ``loss``, ``model(x)``), or what
    every example opens with (:data:`EVERY_EXAMPLE`)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    found: dict[tuple[int, int, str], None] = {}
    assigned = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }

    def add(node: ast.AST, name: str | None) -> None:
        if folded and folded[0] <= node.lineno <= folded[1]:
            return
        for part in (name or "").split("."):
            if part and part not in BUILTIN_NAMES and not part.startswith("__"):
                found[(node.lineno, node.col_offset, part)] = None

    shown = {  # what a print or an assert only shows
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert)
        or (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print")
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in shown:
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            add(node, getattr(node, "module", None))
            for alias in node.names:
                add(node, alias.name)
        elif isinstance(node, ast.Attribute):
            add(node, node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id not in assigned:
                add(node, node.func.id)
        elif isinstance(node, ast.keyword) and node.arg:
            add(node, node.arg)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            add(node, node.name)
    ordered = sorted(found)
    return [n for n in dict.fromkeys(name for *_, name in ordered) if n not in EVERY_EXAMPLE]


PRE_TAG = re.compile(r"<pre\b")


def searchable(code: str, names: list[str]) -> str:
    """A highlighted block as search should read it: its ``<pre>`` skipped, and the
    names it uses in a hidden paragraph after it."""
    code = PRE_TAG.sub("<pre data-search-exclude", code, count=1)
    end = code.rindex("</div>")
    return code[:end] + searchable_names(names) + code[end:]


SEARCH_NAMES = re.compile(r'<p class="search-names" hidden>([^<]*)</p>')
WORD = re.compile(r"\w+")


def names_once_per_page(page: str) -> str:
    """A page's HTML with each block's names cut to those the page has not shown
    before it, in prose or in an earlier block's names: search finds a name where
    the page first uses it, and the index holds it once."""
    seen: set[str] = set()
    out, cursor = [], 0
    for m in SEARCH_NAMES.finditer(page):
        before = re.sub(r"<pre\b.*?</pre>|<[^>]+>", " ", page[cursor : m.start()], flags=re.S)
        seen |= set(WORD.findall(html.unescape(before)))
        new = [name for name in m[1].split() if name not in seen]
        seen |= set(new)
        out += [page[cursor : m.start()], searchable_names(new)]
        cursor = m.end()
    return "".join(out) + page[cursor:]


def searchable_names(names: list[str]) -> str:
    """The hidden paragraph that gives search a block's names ("" for none)."""
    if not names:
        return ""
    return f'<p class="search-names" hidden>{html.escape(" ".join(names))}</p>'


class _NamesOncePerPage(Postprocessor):
    def run(self, text: str) -> str:
        return names_once_per_page(text)


def _extension(md: Markdown) -> CodeBlocksExtension:
    return next(e for e in md.registeredExtensions if isinstance(e, CodeBlocksExtension))


def _where(md: Markdown, title: str) -> str:
    page = page_file(md)
    return f"{page[0]} ({title})" if page else title


def parse_fold(text: str, lines: int, where: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", str(text))
    if not m or not 1 <= int(m[1]) <= int(m[2]) <= lines:
        raise CodeBlockError(f'{where}: fold="{text}" is not a range of its {lines} lines (1-N)')
    return int(m[1]), int(m[2])


SETUP_CALLS = {"manual_seed": "seed"}
DEVICE_NAMES = {"accelerator", "device"}


def _statements(src: str) -> list[ast.stmt]:
    try:
        return ast.parse(src).body
    except SyntaxError:
        return []


def fold_problems(src: str, span: tuple[int, int], hl_lines: list[int]) -> list[str]:
    """Why ``span`` is not only set-up (empty when it is)."""
    first, last = span
    lines = src.split("\n")
    problems = []
    for statement in _statements(src):
        inside = first <= statement.lineno and statement.end_lineno <= last
        cut = statement.lineno <= last and statement.end_lineno >= first and not inside
        if cut:
            problems.append(
                f"the fold cuts the statement on lines {statement.lineno}-{statement.end_lineno}"
            )
        elif inside and not _is_setup(statement):
            kind = type(statement).__name__.lower()
            problems.append(f"line {statement.lineno} is not set-up ({kind}): only set-up folds")
    for number in range(first, last + 1):
        text = lines[number - 1] if number <= len(lines) else ""
        if number in hl_lines:
            problems.append(f"line {number} is highlighted, so it is taught: it cannot fold")
        if snippets.ANNOTATION.search(text):
            problems.append(f"line {number} carries an annotation marker: it cannot fold")
        if text.lstrip().startswith("#>") or re.search(r"\bprint\(", text):
            problems.append(f"line {number} prints or shows output: it cannot fold")
    return problems


def _is_setup(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef):
        return True
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        return True
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)


def summary(src: str, span: tuple[int, int]) -> str:
    """What the folded lines set up, in order: "imports, seed, device, model"."""
    first, last = span
    names: list[str] = []
    for statement in _statements(src):
        if not (first <= statement.lineno <= last):
            continue
        if isinstance(statement, ast.Import | ast.ImportFrom):
            name = "imports"
        elif isinstance(statement, ast.FunctionDef):
            name = f"{statement.name}()"
        elif isinstance(statement, ast.ClassDef):
            name = statement.name
        elif isinstance(statement, ast.Expr):
            func = statement.value.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            name = SETUP_CALLS.get(called, f"{called}()")
        else:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            found = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            name = "device" if set(found) <= DEVICE_NAMES else ", ".join(found)
        if name and name not in names:
            names.append(name)
    head = f"Set-up, lines {first}\u2013{last}: "
    shown = list(names)
    while len(shown) > 1 and len(head + _listed(shown, names)) > SUMMARY_WIDTH:
        shown.pop()
    return head + (_listed(shown, names) or "set-up")


SUMMARY_WIDTH = 72  # a fold's summary fits the block's 76 columns with its marker


def _listed(shown: list[str], names: list[str]) -> str:
    rest = len(names) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def fold_html(code: str, span: tuple[int, int], text: str, number: int, line_spans: str) -> str:
    """Wrap the line spans of ``span`` in a fold with its switch and label."""
    if not line_spans:
        raise CodeBlockError("set-up folds need the highlight option line_spans")
    first, last = span
    start_id = f'<span id="{line_spans}-{number}-{first}">'
    end_id = f'<span id="{line_spans}-{number}-{last + 1}">'
    start = code.find(start_id)
    end = code.find(end_id) if end_id in code else code.rfind("</code>")
    if start < 0 or end < 0:
        raise CodeBlockError(f"cannot find lines {first}-{last} in the highlighted block")
    fold_id = f"__fold-{number}"
    opener = (
        f'<span class="fold"><input type="checkbox" class="fold-switch" id="{fold_id}">'
        f'<label class="fold-label" for="{fold_id}">{html.escape(text)}</label>'
        '<span class="fold-body">'
    )
    return code[:start] + opener + code[start:end] + "</span></span>" + code[end:]


# -- prose that names a line ---------------------------------------------------------
LINE_REFERENCE = re.compile(
    r"\b[Ll]ines?\s+(?P<numbers>\d+(?:\s*(?:,|and|to|or|-|\u2013)\s*\d+)*)\b"
)


@dataclass
class Reference:
    line: int  # in the page
    numbers: list[int]


def references(text: str) -> list[Reference]:
    """Line numbers named in the prose of a page (not in code or front matter)."""
    found = []
    for number, line in prose_lines(text):
        for m in LINE_REFERENCE.finditer(line):
            values = [int(v) for v in re.findall(r"\d+", m["numbers"])]
            if re.search(r"to|-|\u2013", m["numbers"]) and len(values) == 2:
                values = list(range(values[0], values[1] + 1))
            found.append(Reference(number, values))
    return found


def reference_problems(text: str, page: str, snippets: Path | None) -> list[str]:
    """Each line number the prose names must be shown by the block before it."""
    problems = []
    blocks = fences(text)
    for ref in references(text):
        before = [f for f in blocks if f.end < ref.line]
        block = before[-1] if before else None
        shown = _shown_lines(block, snippets) if block else None
        if block is None or shown is None:
            problems.append(
                f"{page}:{ref.line}: names line {ref.numbers[0]}, but no block before it "
                "shows line numbers: point at highlighted lines (hl_lines) or annotation "
                'markers instead, or give the block linenums="1"'
            )
            continue
        missing = [n for n in ref.numbers if n not in shown]
        if missing:
            numbered = _shown_lines(block, snippets, folded=False)
            fold = block.option("fold")
            problems.append(
                f"{page}:{ref.line}: names line {missing[0]}, which the block on line "
                f"{block.start} does not show (it numbers lines {min(numbered)}-"
                f"{max(numbered)}{f' and folds {fold}' if fold else ''})"
            )
    return problems


def _shown_lines(block: Fence, snippets: Path | None, folded: bool = True) -> set[int] | None:
    """The line numbers a block shows, or None when it shows none."""
    linenums = block.option("linenums")
    if not linenums:
        return None
    start = int(linenums.split()[0])
    body = block.body
    include = re.fullmatch(r'\s*-+8<-+\s+"([^"]+)"\s*', body.strip()) if body.strip() else None
    if include and snippets is not None and (snippets / include[1]).is_file():
        body = (snippets / include[1]).read_text("utf-8")
    count = body.rstrip("\n").count("\n") + 1
    shown = set(range(start, start + count))
    if folded and (fold := block.option("fold")):
        m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", fold)
        if m:
            shown -= set(range(start + int(m[1]) - 1, start + int(m[2])))
    return shown


class _LineReferences(Preprocessor):
    """Runs before the snippets are included, on the page as its author wrote it."""

    def __init__(self, md: Markdown, snippets: Path | None) -> None:
        super().__init__(md)
        self.snippets = snippets

    def run(self, lines: list[str]) -> list[str]:
        page = page_file(self.md)
        # The page's own file where the builder names it: its line numbers, front matter
        # included (MkDocs has already taken the front matter out of ``lines``).
        text = page[1].read_text("utf-8") if page and page[1].is_file() else "\n".join(lines)
        problems = reference_problems(text, page[0] if page else "<text>", self.snippets)
        if problems:
            raise CodeBlockError("\n".join(problems))
        return lines


# -- inline code ---------------------------------------------------------------------
STASHED = re.compile("\x02wzxhzdk:(\\d+)\x03")


class _ShortCodeOnOneLine(Treeprocessor):
    """Inline code of one short word (``1e-8``, ``set_to_none=True``) never breaks:
    class ``nobr`` (extra.css). Longer code may still wrap on a phone."""

    longest = 24

    def _stashed(self, m: re.Match) -> str:  # inline code that pymdownx stashed as HTML
        return str(self.md.htmlStash.rawHtmlBlocks[int(m.group(1))])

    def run(self, root):
        parents = {child: parent for parent in root.iter() for child in parent}
        for element in root.iter("code"):
            if parents.get(element) is not None and parents[element].tag == "pre":
                continue
            text = html.unescape(STASHED.sub(self._stashed, element.text or ""))
            if text and len(text) <= self.longest and not any(c.isspace() for c in text):
                classes = element.get("class", "").split()
                element.set("class", " ".join([*classes, "nobr"]))


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
