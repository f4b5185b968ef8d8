"""Generate each chapter's companion notebook from the chapter's own snippet files.

    SITE_URL=https://<owner>.github.io/<repo>/ python -m sitelib.site.notebooks
                                          # write the stale ones, linking to that site
    python -m sitelib.site.notebooks [CHAPTER or FILE...]  # the site they already link to
    python -m sitelib.site.notebooks --all           # every notebook, every cell run again
    python -m sitelib.site.notebooks --check [CHAPTER...]  # exit 1 if one is stale

A stale notebook is written again with only its stale cells executed (those whose
code changed, or whose committed output is not their snippet's ``#>`` lines), in one
kernel; the other cells keep their committed outputs. Every snippet runs on its own,
so a cell's output does not depend on the cells before it. Without ``SITE_URL``, a
notebook keeps linking to the site its metadata records; one that records none links
to mkdocs.yml's placeholder, with a warning (:func:`choose_site`).

Code cells are the snippet files the chapter's pages include, in page order, verbatim
but for the code-annotation markers (`# (1)!`), which mean nothing in a notebook, and
the `#>` lines, which the cell's output shows (a multi-process snippet, written to a
file by its cell and run from a terminal, keeps them).
The chapter's "What you will learn" opens the notebook too.
Snippets marked `# requires: cuda` are left out: they run only in the GPU job. One
marked `# requires: torch>=2.13` gets a line before its cell saying so.
torch's own log lines on stderr (time and process id of the run that made the
notebook) are left out of the committed outputs. Markdown cells are the chapter's
section headings, each with the first sentence of
the section and a link back to it. The notebooks are executed here so that the
download carries real outputs; tests/test_notebooks.py proves they are not stale
and that executing them prints the snippets' `#>` lines.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from markdown.extensions.toc import slugify

from sitelib.site.frame import TITLES, boxes
from sitelib.site.layout import (
    ROOT,
    Chapter,
    chapters,
    chapters_of,
    includes_in,
    load_config,
    page_url,
)
from sitelib.site.markdown_scan import code_lines, prose
from sitelib.site.snippets import (
    as_copied,
    expected_output,
    is_script,
    launch_command,
    needs_torch,
    requires_cuda,
    requires_torch,
    without_output,
)
from sitelib.site.torch_range import pinned

NOTEBOOKS = ROOT / "docs" / "notebooks"
METADATA = "training_step_docs"  # the notebook's own metadata: the site it links to
SOLUTION_TITLE = "# @title Solution"  # Colab draws the cell as a form with this title
# A list item, or a code block's annotation list ("1.  ..."): never a section's sentence.
LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s")
MD_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<target>[^)\s]+)\)")
BOX = re.compile(r"^(?:!!!|\?\?\?\+?)\s+(?P<kind>[\w-]+)")
HEADING = re.compile(r"^(?P<level>#{1,3})\s+(?P<text>.+?)\s*$")
ATTR_LIST = re.compile(r"^(?P<text>.*?)\s*(?:\{(?P<attrs>[^{}]*)\})?$")


TITLE_TAG = "notebook-title"  # left out of the site's page (mkdocs.yml, remove_tag_config)


@dataclass
class Section:
    title: str
    link: str  # the section on the site
    sentence: str = ""
    snippets: list[str] = field(default_factory=list)
    task: str = ""  # an exercise's task, as the page states it
    solutions: list[str] = field(default_factory=list)  # snippets in a Solution box


CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _plain(text: str) -> str:
    """Markdown inline text without its links and emphasis; code spans are kept whole
    (an underscore in ``zero_grad`` is no emphasis)."""
    parts = []
    for i, part in enumerate(CODE_SPAN.split(text)):
        if i % 3 == 0:  # text between code spans
            part = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", part)
            part = re.sub(r"\*{1,2}([^*]+)\*{1,2}", r"\1", part)
            part = re.sub(r"(?<!\w)_{1,2}([^_]+)_{1,2}(?!\w)", r"\1", part)
            parts.append(part)
        elif i % 3 == 2:  # a code span's text, with its backticks
            parts.append(f"`{part}`")
    return "".join(parts).strip()


def _first_sentence(paragraph: str) -> str:
    """The paragraph's first sentence (a period inside a code span ends none). One
    that ends with a colon announces the code below it, which the notebook shows
    too: it ends with a period instead."""
    text = _plain(" ".join(paragraph.split()))
    masked = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), text)
    m = re.match(r".+?[.!?](?=\s|$)", masked)
    sentence = text[: m.end()] if m else text
    return (
        sentence.rstrip().removesuffix(":") + "." if sentence.rstrip().endswith(":") else sentence
    )


def notebook_snippets(chapter: Chapter) -> list[str]:
    """The snippets a chapter's notebook runs: its includes in page order, each once,
    without those marked `# requires: cuda` (notebooks are executed on the CPU) and
    those whose `# requires: torch...` range leaves out the pinned release, with which
    the notebooks are executed (the twin for another range, whose output differs)."""
    seen: list[str] = []
    pin = pinned()
    for page in chapter.pages:
        for include in includes_in(ROOT / "docs" / page):
            source = (ROOT / "snippets" / include.path).read_text("utf-8")
            wanted = requires_torch(source)
            runs = not requires_cuda(source) and (wanted is None or wanted.admits(pin))
            if include.path not in seen and runs:
                seen.append(include.path)
    return seen


def _sections(chapter: Chapter, site_url: str) -> list[Section]:
    """The sections of a chapter's pages, in order, each with the first sentence of
    its text and the snippets it includes; the first is the chapter's own heading.
    An exercise box gives its section the task; a snippet in a ``??? success`` box
    is a solution."""
    wanted = notebook_snippets(chapter)
    sections: list[Section] = []
    for page in chapter.pages:
        path = ROOT / "docs" / page
        text = path.read_text("utf-8")
        url = site_url + page_url(page)
        at_line = {i.line: i.path for i in includes_in(path)}
        # Fences, blank lines and HTML comments: what prose() blanks, but for a line
        # that is all code span (it is text, and may start a paragraph).
        hidden = code_lines(text) | {
            n
            for n, (line, raw) in enumerate(
                zip(prose(text).split("\n"), text.split("\n"), strict=True), 1
            )
            if not line.strip() and "`" not in raw
        }
        paragraph: list[str] = []
        box = None  # the admonition the line is in
        first = len(sections)
        for number, line in enumerate(text.split("\n"), 1):
            if line.strip() and not line[0].isspace():
                box = m["kind"] if (m := BOX.match(line)) else None
            if number in at_line:
                if sections and at_line[number] in wanted:
                    wanted.remove(at_line[number])
                    sections[-1].snippets.append(at_line[number])
                    if box == "success":
                        sections[-1].solutions.append(at_line[number])
                continue
            if box == "exercise" and sections:
                if not BOX.match(line) and number not in hidden:
                    sections[-1].task += line.strip() + "\n"
                elif sections[-1].task and not sections[-1].task.endswith("\n\n"):
                    sections[-1].task += "\n"
            heading = None if number in hidden else HEADING.match(line)
            if heading:
                # An attribute list (`{#id}`, `{ data-search-exclude }`) is not the title;
                # its `#id` is the heading's anchor.
                text, attrs = ATTR_LIST.match(heading.group("text")).group("text", "attrs")
                title = text.replace("`", "")
                given = re.search(r"#([\w-]+)", attrs or "")
                anchor = given.group(1) if given else slugify(_plain(text).replace("`", ""), "-")
                sections.append(Section(title, f"{url}#{anchor}"))
                paragraph = []
            elif sections and not sections[-1].sentence:
                if number not in hidden and not (
                    line.startswith((" ", "!!!", "???", "===", "|", "<")) or LIST_ITEM.match(line)
                ):
                    paragraph.append(line)
                elif paragraph:
                    sections[-1].sentence = _first_sentence(" ".join(paragraph))
                    paragraph = []
        for section in sections[first:]:
            section.task = _task(section.task, page, site_url)
    return sections


def _task(text: str, page: str, site_url: str) -> str:
    """An exercise's text as a notebook cell states it: its paragraphs, each link to a
    page of the site (``pitfalls.md#x``, ``#x``) made a link to the site."""
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]

    def absolute(m: re.Match) -> str:
        target = m["target"]
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
        return f"[{m['text']}]({site_url}{page_url(path)}{'#' + anchor if anchor else ''})"

    return "\n\n".join(MD_LINK.sub(absolute, p) for p in paragraphs)


def placeholder_sites() -> tuple[str, str]:
    """mkdocs.yml's defaults for ``site_url`` and ``repo_url``: placeholders for local
    builds, which no notebook may link to."""
    config = load_config(environ={})
    return config["site_url"].rstrip("/") + "/", config["repo_url"].rstrip("/")


def notebook_site_url(environ=None) -> str:
    """The site a generated notebook links to: ``SITE_URL``, or mkdocs.yml's default
    (a placeholder: :func:`choose_site`)."""
    return load_config(environ=environ)["site_url"].rstrip("/") + "/"


def choose_site(given: str | None, recorded: str | None) -> tuple[str, str | None]:
    """The site a notebook is generated to link to: ``SITE_URL`` (``given``), else the
    one the committed notebook records; and a warning when that is mkdocs.yml's
    placeholder. The site serves every notebook with its own links either way
    (hooks/notebook_page.py), and that copy is what "Open in Colab" opens
    (``COLAB_BRANCH``); the committed file is for authors."""
    placeholder = placeholder_sites()[0]
    site = given or recorded or placeholder
    if site != placeholder:
        return site, None
    return site, (
        f"note: links to the placeholder {placeholder}: SITE_URL is not set and the "
        "notebook records no published site. Readers never get this file: the site "
        "serves its own copy with its own links, and publishes that copy for Open in "
        "Colab (the notebooks branch). To link it anyway: "
        "`SITE_URL=https://<owner>.github.io/<repo>/ make notebooks`."
    )


def linked_site(notebook: nbformat.NotebookNode) -> str:
    """The site a notebook's links point to, as its metadata records it; one that
    records none was generated for mkdocs.yml's default (the placeholder)."""
    return notebook.metadata.get(METADATA, {}).get("site_url") or placeholder_sites()[0]


def build_notebook(chapter: Chapter, site_url: str | None = None) -> nbformat.NotebookNode:
    """The chapter's notebook, linking to ``site_url`` (by default
    :func:`notebook_site_url`); without outputs."""
    site_url = (site_url or notebook_site_url()).rstrip("/") + "/"
    sections = _sections(chapter, site_url)
    title = f"{chapter.number}. {chapter.title}"
    link = sections[0].link.split("#")[0]
    cells = [
        nbformat.v4.new_markdown_cell(f"# {title}: the notebook", metadata={"tags": [TITLE_TAG]}),
        nbformat.v4.new_markdown_cell(
            f"Every code cell is a snippet from the chapter [{title}]({link}), in page "
            "order, exactly as tested; each runs on its own, on CPU or GPU, and its "
            "output is under it. It needs only `torch` (and `matplotlib` where a plot "
            "is drawn)."
        ),
    ]
    learn = [
        box
        for box in boxes((ROOT / "docs" / chapter.page).read_text("utf-8"))
        if box.kind == "learn"
    ]
    if learn:
        points = "\n".join(f"- {point.text}" for point in learn[0].points)
        cells.append(nbformat.v4.new_markdown_cell(f"**{TITLES['learn']}**\n\n{points}"))
    for number, section in enumerate(sections):
        if not section.snippets:
            continue
        if number:  # the title cell above stands for the page's own heading
            text = section.task or section.sentence
            context = f"{text}\n\n" if section.task else f"{text} " if text else ""
            more = f"([Read this section]({section.link}))"
            cells.append(nbformat.v4.new_markdown_cell(f"## {section.title}\n\n{context}{more}"))
        for snippet in section.snippets:
            if snippet in section.solutions:
                cells.append(nbformat.v4.new_markdown_cell(SOLUTION_CELL))
            cells += snippet_cells(snippet, solution=snippet in section.solutions)
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        METADATA: {"site_url": site_url},
    }
    for i, cell in enumerate(notebook.cells):
        cell.id = f"{chapter.name}-{i}"
    return notebook


SOLUTION_CELL = (
    "### Solution\n\n"
    "Try the exercise in the cell above before you read on. The solution's cell is "
    "folded (in JupyterLab, click the bar to the left of it to open it; in Colab, "
    "click *Show code*)."
)


def with_links_to(notebook: nbformat.NotebookNode, site_url: str) -> nbformat.NotebookNode:
    """The notebook with its links to the site it records moved to ``site_url``: what
    the site's build serves, for the site being built."""
    moved = copy.deepcopy(notebook)
    old = linked_site(notebook)
    site_url = site_url.rstrip("/") + "/"
    if old != site_url:
        for cell in moved.cells:
            if cell.cell_type == "markdown":
                cell.source = cell.source.replace(f"]({old}", f"]({site_url}")
    moved.metadata.setdefault(METADATA, {})["site_url"] = site_url
    return moved


def snippet_cells(snippet: str, solution: bool = False) -> list[nbformat.NotebookNode]:
    """The cells for one snippet: its code; for a multi-process snippet (``# launch:``),
    which a notebook's kernel cannot run, a cell that writes it to a file and a note
    with the command that runs it from a terminal. An exercise's solution is folded:
    JupyterLab hides its source and output, Colab draws it as a form titled
    "Solution" (its first line, ``# @title Solution``). For a snippet that needs a
    newer torch than the oldest the site supports, a line before it says so."""
    raw = (ROOT / "snippets" / snippet).read_text("utf-8")
    source = as_copied(raw).rstrip("\n")
    command = launch_command(source)
    if is_script(raw):  # a program with a command line: saved, then run
        return script_cells(snippet, source)
    wanted = requires_torch(source)
    new_markdown = nbformat.v4.new_markdown_cell
    note = [new_markdown(f"The next cell {needs_torch(wanted)}.")] if wanted else []
    if command is None:  # its output cell shows what it prints: no #> lines above it
        code = without_output(source).rstrip("\n")
        metadata = {"snippet": snippet}
        if solution:
            code = f"{SOLUTION_TITLE}\n{code}"
            metadata |= {
                "jupyter": {"source_hidden": True, "outputs_hidden": True},
                "cellView": "form",
            }
        return [*note, nbformat.v4.new_code_cell(code, metadata=metadata)]
    name = Path(snippet).name
    return [
        *note,
        nbformat.v4.new_code_cell(
            f"%%writefile {name}\n{source}", metadata={"snippet": snippet, "launch": command}
        ),
        nbformat.v4.new_markdown_cell(
            f"This example runs as several processes, so it cannot run in the notebook's "
            f"kernel. The cell above saves it as `{name}`; run it from a terminal (in Colab, "
            f"in a cell starting with `!`):\n\n```sh\n{command} {name}\n```"
        ),
    ]


def script_cells(snippet: str, source: str) -> list[nbformat.NotebookNode]:
    """A script's cells (``# script:``): one that writes it to a file, and a note with
    the commands its page shows (a notebook's kernel has no command line to give it)."""
    name = Path(snippet).name
    return [
        nbformat.v4.new_code_cell(
            f"%%writefile {name}\n{source}", metadata={"snippet": snippet, "launch": "python"}
        ),
        nbformat.v4.new_markdown_cell(
            f"The cell above saves the script as `{name}`; run it from a terminal (in "
            "Colab, in a cell starting with `!`):\n\n```sh\n"
            f"python {name}\ntorchrun --nproc-per-node 2 {name}\npython {name} --help\n```"
        ),
    ]


def without_outputs(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    bare = copy.deepcopy(notebook)
    for cell in bare.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
    return bare


# How the kernel that makes the committed outputs draws a figure: as SVG (text as
# text, the ids the plots on the site use: sitelib/site/pictures/plot.py), the same
# bytes on every run (no date). Set through the kernel's environment, not a cell:
# every code cell is a snippet, as a reader copies it.
KERNEL_CONFIG = """\
c.InlineBackend.print_figure_kwargs = {"bbox_inches": "tight", "metadata": {"Date": None}}
c.InlineBackend.figure_formats = {"svg"}
"""


def kernel_env(folder: Path) -> dict[str, str]:
    """The environment of the kernel that executes the notebooks: an IPython profile
    (KERNEL_CONFIG) and a matplotlibrc under ``folder``."""
    from sitelib.site.pictures.plot import SALT

    profile = folder / "ipython" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_kernel_config.py").write_text(KERNEL_CONFIG, "utf-8")
    rc = folder / "matplotlibrc"
    rc.write_text(f"svg.fonttype: none\nsvg.hashsalt: {SALT}\nbackend: agg\n", "utf-8")
    return {
        **os.environ,
        "IPYTHONDIR": str(folder / "ipython"),
        "MATPLOTLIBRC": str(rc),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    }


def execute(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` executed in one kernel, top to bottom."""
    from nbclient import NotebookClient

    executed = copy.deepcopy(notebook)
    with tempfile.TemporaryDirectory() as cwd:  # where %%writefile cells write
        NotebookClient(
            executed,
            timeout=120,
            kernel_name="python3",
            allow_errors=False,
            resources={"metadata": {"path": cwd}},
        ).execute(env=kernel_env(Path(cwd) / ".kernel"))
    for cell in executed.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = [o for o in map(_without_torch_logs, cell.outputs) if o is not None]
            _svg_ids_of_their_cell(cell)
    executed.metadata = copy.deepcopy(notebook.metadata)  # drop what the kernel added
    return executed


def printed(cell: nbformat.NotebookNode) -> list[str]:
    """The lines a code cell printed on stdout, as committed. The kernel may send one
    print's output in several chunks, split anywhere, even inside a line; each keeps
    its newlines, so they are joined first."""
    chunks = [o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout"]
    return "".join(chunks).splitlines()


def _runs_in_kernel(cell: nbformat.NotebookNode) -> bool:
    """A snippet's code cell the kernel runs (not one that writes a multi-process
    snippet to a file)."""
    return cell.cell_type == "code" and "launch" not in cell.metadata


def _has_png(cell: nbformat.NotebookNode) -> bool:
    """A figure the kernel drew as a PNG (the site's figures are SVG: KERNEL_CONFIG)."""
    return any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))


def _outputs_match(cell: nbformat.NotebookNode) -> bool:
    """A kernel-run cell prints its snippet's #> lines (a cell that writes a
    multi-process snippet to a file shows only that it wrote it)."""
    if not _runs_in_kernel(cell):
        return True
    if _has_png(cell):
        return False  # drawn before figures were SVG: run again
    source = (ROOT / "snippets" / cell.metadata["snippet"]).read_text("utf-8")
    return printed(cell) == expected_output(source)


def _code_cells(notebook: nbformat.NotebookNode | None) -> dict[tuple, nbformat.NotebookNode]:
    """A notebook's code cells by (snippet, code): where a committed output is kept."""
    cells = notebook.cells if notebook else []
    return {(c.metadata.get("snippet"), c.source): c for c in cells if c.cell_type == "code"}


def _read(path: Path) -> nbformat.NotebookNode | None:
    return nbformat.read(path, as_version=4) if path.exists() else None


def cells_to_run(path: Path, expected: nbformat.NotebookNode) -> list[int]:
    """The code cells of ``expected`` (the chapter's notebook as generated, without
    outputs) whose committed outputs at ``path`` cannot be kept: the committed cell is
    missing or holds other code, or what it printed is not its snippet's #> lines."""
    return _stale_cells(_code_cells(_read(path)), expected)


def _stale_cells(kept: dict[tuple, nbformat.NotebookNode], expected) -> list[int]:
    return [
        i
        for i, cell in enumerate(expected.cells)
        if cell.cell_type == "code"
        and not ((old := kept.get((cell.metadata["snippet"], cell.source))) and _outputs_match(old))
    ]


def refresh(chapter: Chapter, site_url: str | None = None) -> nbformat.NotebookNode | None:
    """The chapter's notebook with outputs, running only the cells whose committed
    outputs cannot be kept (:func:`cells_to_run`), in one kernel; None when the
    committed notebook is up to date. Every snippet runs on its own (the site's rule,
    checked as pasted), so a cell's output does not depend on the cells before it."""
    path, expected = target(chapter), build_notebook(chapter, site_url)
    committed = _read(path)  # read once
    kept = _code_cells(committed)
    stale_cells = _stale_cells(kept, expected)
    if not stale_cells and committed and without_outputs(committed) == expected:
        return None
    ran = execute(nbformat.v4.new_notebook(cells=[expected.cells[i] for i in stale_cells]))
    fresh = dict(zip(stale_cells, ran.cells, strict=True))
    notebook = copy.deepcopy(expected)
    count = 0
    for i, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        source = fresh.get(i) or kept[(cell.metadata["snippet"], cell.source)]
        cell.outputs = copy.deepcopy(source.outputs)
        count += 1  # numbered as if run top to bottom in one kernel
        cell.execution_count = count
    return notebook


# A line of torch's own log (glog's format: level, date, time, pid, source), such as
# Dynamo's "W1201 16:56:05.862000 4160 torch/_logging/_internal.py:1345] ...".
# torch's own log lines on stderr: glog's ("W1203 17:52:34.123 1234 file.cpp:56] ...")
# and the profiler's ("USDT:2026-12-03 17:52:34 1234:1234 File.cpp:52] profiler_start").
TORCH_LOG = re.compile(
    r"^(?:[IWEFV]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+"
    r"|USDT:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \d+:\d+) \S+:\d+\] .*\n?",
    re.M,
)


def _svg_ids_of_their_cell(cell) -> None:
    """Each SVG figure's ids prefixed with its cell's id and number: the notebook's
    page shows every figure inline, and two would share a tick's id."""
    from sitelib.site.pictures.plot import prefixed_ids

    figures = [o for o in cell.outputs if "image/svg+xml" in o.get("data", {})]
    for n, output in enumerate(figures, 1):
        output.data["image/svg+xml"] = prefixed_ids(output.data["image/svg+xml"], f"{cell.id}-{n}")


def _without_torch_logs(output):
    """A cell's output without torch's log lines on stderr: they carry the time and the
    process id of the run that made the notebook, and say nothing the page teaches (a
    reader who runs the cell sees their own)."""
    if output.get("output_type") != "stream" or output.get("name") != "stderr":
        return output
    output.text = TORCH_LOG.sub("", output.text)
    return output if output.text.strip() else None


# The branch of the repository "Open in Colab" opens a notebook from: the notebooks as
# the deployed site serves them, linking to it (.github/workflows/docs.yml, job
# "notebooks", pushes it on every deploy, from site/notebooks/<name>/<name>.ipynb).
COLAB_BRANCH = "notebooks"


def notebook_links(notebook, page, config) -> dict:
    """Where a chapter's notebook is, for links on ``page`` (MkDocs ``File``/``Page``
    objects): the notebook's page and its download (relative), and "Open in Colab",
    which opens the notebook the deployed site publishes, from the ``COLAB_BRANCH``
    of the repository named by ``repo_url`` (a fork's own)."""
    from mkdocs.utils import get_relative_url

    repo = config["repo_url"].rstrip("/").removeprefix("https://github.com/")
    name = notebook.src_uri.split("/")[-1]
    return {
        "page": get_relative_url(notebook.url, page.url),
        "download": get_relative_url(notebook.url + name, page.url),
        "colab": f"https://colab.research.google.com/github/{repo}/blob/{COLAB_BRANCH}/{name}",
    }


def target(chapter: Chapter) -> Path:
    return ROOT / "docs" / chapter.notebook


def compare(path: Path, expected: nbformat.NotebookNode) -> list[str]:
    """Why the notebook at ``path`` is not what the chapter generates (empty if it is):
    its cells are the snippets as copied, and each cell's output is its snippet's #>
    lines. Nothing is executed."""
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if not path.exists():
        return [f"{name}: missing (run `make notebooks`)"]
    committed = nbformat.read(path, as_version=4)
    if without_outputs(committed) != expected:
        have = {(c.metadata.get("snippet"), c.source) for c in committed.cells}
        changed = [
            c.metadata["snippet"]
            for c in expected.cells
            if c.cell_type == "code" and (c.metadata["snippet"], c.source) not in have
        ]
        why = f"snippets/{changed[0]}'s cell differs" if changed else "its text differs"
        return [f"{name}: stale, {why} from its chapter (run `make notebooks`)"]
    for cell in committed.cells:
        if cell.cell_type == "code" and _has_png(cell):
            return [f"{name}: a figure is a PNG, not SVG (KERNEL_CONFIG; run `make notebooks`)"]
        if cell.cell_type == "code" and not _outputs_match(cell):
            return [
                f"{name}: stale, snippets/{cell.metadata['snippet']}'s output cell is not "
                "its #> lines (run `make notebooks`)"
            ]
    return []


def _committed_site(path: Path) -> str | None:
    return linked_site(nbformat.read(path, as_version=4)) if path.exists() else None


def orphans() -> list[str]:
    """A committed notebook no chapter generates."""
    expected = {target(c) for c in chapters()}
    return [
        f"{path.relative_to(ROOT)}: no chapter generates it (delete it)"
        for path in sorted(NOTEBOOKS.glob("*.ipynb"))
        if path not in expected
    ]


def stale(names: list[str] | None = None) -> list[str]:
    """The committed notebooks (those of the chapters ``names``, or all, and then a
    notebook no chapter generates too) that are not what their chapters generate, each
    compared with the notebook for the site it links to."""
    chosen = [c for c in chapters() if names is None or c.name in names]
    problems = [
        p for c in chosen for p in compare(target(c), build_notebook(c, _committed_site(target(c))))
    ]
    return problems + (orphans() if names is None else [])


def main() -> int:
    given = [a for a in sys.argv[1:] if not a.startswith("-")]
    # Chapters by name, or by a snippet or page of theirs (make update FILE=...).
    names = [c.name for c in chapters() if c.name in given] if given else None
    if given and (paths := [a for a in given if "/" in a or a.endswith((".py", ".md"))]):
        names = [*names, *(c.name for c in chapters_of(paths))]
    if "--check" in sys.argv:
        problems = stale(names)
        print("\n".join(problems) or "notebooks are up to date")
        return 1 if problems else 0
    given_site = notebook_site_url()
    given_site = None if given_site in placeholder_sites() else given_site
    NOTEBOOKS.mkdir(parents=True, exist_ok=True)
    for chapter in chapters():
        if names is not None and chapter.name not in names:
            continue
        path = target(chapter)
        site, warning = choose_site(given_site, _committed_site(path))
        if warning:
            print(f"{path.relative_to(ROOT)}: {warning}", file=sys.stderr)
        if "--all" in sys.argv:  # every cell run again, in one kernel
            notebook = execute(build_notebook(chapter, site))
        elif (notebook := refresh(chapter, site)) is None:
            print(f"{path.relative_to(ROOT)}: up to date")
            continue
        nbformat.write(notebook, path)
        print(f"{path.relative_to(ROOT)}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
