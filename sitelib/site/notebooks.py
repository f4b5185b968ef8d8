"""Generate each chapter's companion notebook from the chapter's own snippet files.

    python -m sitelib.site.notebooks           # write docs/notebooks/<chapter>.ipynb, executed
    python -m sitelib.site.notebooks --check   # exit 1 if a committed notebook is stale

Code cells are the snippet files the chapter's pages include, in page order, verbatim
but for the code-annotation markers (`# (1)!`), which mean nothing in a notebook, and
the `#>` lines, which the cell's output shows (a multi-process snippet, written to a
file by its cell and run from a terminal, keeps them).
Snippets marked `# requires: cuda` are left out: they run only in the GPU job.
torch's own log lines on stderr (time and process id of the run that made the
notebook) are left out of the committed outputs. Markdown cells are the chapter's
section headings, each with the first sentence of
the section and a link back to it. The notebooks are executed here so that the
download carries real outputs; tests/test_notebooks.py proves they are not stale
and that executing them prints the snippets' `#>` lines.
"""

from __future__ import annotations

import copy
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from markdown.extensions.toc import slugify

from sitelib.site.layout import ROOT, Chapter, chapters, includes_in, load_config, page_url
from sitelib.site.markdown_scan import code_lines, prose
from sitelib.site.snippets import (
    as_copied,
    is_script,
    launch_command,
    requires_cuda,
    without_output,
)

NOTEBOOKS = ROOT / "docs" / "notebooks"
HEADING = re.compile(r"^(?P<level>#{1,3})\s+(?P<text>.+?)\s*$")


TITLE_TAG = "notebook-title"  # left out of the site's page (mkdocs.yml, remove_tag_config)


@dataclass
class Section:
    title: str
    link: str  # the section on the site
    sentence: str = ""
    snippets: list[str] = field(default_factory=list)


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
    """The paragraph's first sentence (a period inside a code span ends none), or
    nothing when it ends with a colon: it announces what the notebook leaves out."""
    text = _plain(" ".join(paragraph.split()))
    masked = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), text)
    m = re.match(r".+?[.!?](?=\s|$)", masked)
    sentence = text[: m.end()] if m else text
    return "" if sentence.rstrip().endswith(":") else sentence


def notebook_snippets(chapter: Chapter) -> list[str]:
    """The snippets a chapter's notebook runs: its includes in page order, each once,
    without those marked `# requires: cuda` (notebooks are executed on the CPU)."""
    seen: list[str] = []
    for page in chapter.pages:
        for include in includes_in(ROOT / "docs" / page):
            source = (ROOT / "snippets" / include.path).read_text("utf-8")
            if include.path not in seen and not requires_cuda(source):
                seen.append(include.path)
    return seen


def _sections(chapter: Chapter, site_url: str) -> list[Section]:
    """The sections of a chapter's pages, in order, each with the first sentence of
    its text and the snippets it includes; the first is the chapter's own heading."""
    wanted = notebook_snippets(chapter)
    sections: list[Section] = []
    for page in chapter.pages:
        path = ROOT / "docs" / page
        text = path.read_text("utf-8")
        url = site_url + page_url(page)
        at_line = {i.line: i.path for i in includes_in(path)}
        hidden = code_lines(text) | {
            n for n, line in enumerate(prose(text).split("\n"), 1) if not line.strip()
        }
        paragraph: list[str] = []
        for number, line in enumerate(text.split("\n"), 1):
            if number in at_line:
                if sections and at_line[number] in wanted:
                    wanted.remove(at_line[number])
                    sections[-1].snippets.append(at_line[number])
                continue
            heading = None if number in hidden else HEADING.match(line)
            if heading:
                title = heading.group("text").replace("`", "")
                anchor = slugify(_plain(heading.group("text")).replace("`", ""), "-")
                sections.append(Section(title, f"{url}#{anchor}"))
                paragraph = []
            elif sections and not sections[-1].sentence:
                if number not in hidden and not line.startswith(
                    (" ", "!!!", "???", "===", "|", "-", "<")
                ):
                    paragraph.append(line)
                elif paragraph:
                    sections[-1].sentence = _first_sentence(" ".join(paragraph))
                    paragraph = []
    return sections


def build_notebook(chapter: Chapter) -> nbformat.NotebookNode:
    # mkdocs.yml's own site_url, not one set for a build (SITE_URL): the notebook is
    # committed, and must not change with the machine that generates it.
    config = load_config(environ={})
    site_url = config["site_url"].rstrip("/") + "/"
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
    for number, section in enumerate(sections):
        if not section.snippets:
            continue
        if number:  # the title cell above stands for the page's own heading
            context = f"{section.sentence} " if section.sentence else ""
            more = f"([Read this section]({section.link}))"
            cells.append(nbformat.v4.new_markdown_cell(f"## {section.title}\n\n{context}{more}"))
        for snippet in section.snippets:
            cells += snippet_cells(snippet)
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    for i, cell in enumerate(notebook.cells):
        cell.id = f"{chapter.name}-{i}"
    return notebook


def snippet_cells(snippet: str) -> list[nbformat.NotebookNode]:
    """The cells for one snippet: its code; for a multi-process snippet (``# launch:``),
    which a notebook's kernel cannot run, a cell that writes it to a file and a note
    with the command that runs it from a terminal."""
    raw = (ROOT / "snippets" / snippet).read_text("utf-8")
    source = as_copied(raw).rstrip("\n")
    command = launch_command(source)
    if is_script(raw):  # a program with a command line: saved, then run
        return script_cells(snippet, source)
    if command is None:  # its output cell shows what it prints: no #> lines above it
        code = without_output(source).rstrip("\n")
        return [nbformat.v4.new_code_cell(code, metadata={"snippet": snippet})]
    name = Path(snippet).name
    return [
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


def execute(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    executed = copy.deepcopy(notebook)
    with tempfile.TemporaryDirectory() as cwd:  # where %%writefile cells write
        NotebookClient(
            executed,
            timeout=120,
            kernel_name="python3",
            allow_errors=False,
            resources={"metadata": {"path": cwd}},
        ).execute()
    for cell in executed.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = [o for o in map(_without_torch_logs, cell.outputs) if o is not None]
    executed.metadata = copy.deepcopy(notebook.metadata)  # drop what the kernel added
    return executed


# A line of torch's own log (glog's format: level, date, time, pid, source), such as
# Dynamo's "W1201 16:56:05.862000 4160 torch/_logging/_internal.py:1345] ...".
TORCH_LOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] .*\n?", re.M)


def _without_torch_logs(output):
    """A cell's output without torch's log lines on stderr: they carry the time and the
    process id of the run that made the notebook, and say nothing the page teaches (a
    reader who runs the cell sees their own)."""
    if output.get("output_type") != "stream" or output.get("name") != "stderr":
        return output
    output.text = TORCH_LOG.sub("", output.text)
    return output if output.text.strip() else None


def notebook_links(notebook, page, config) -> dict:
    """Where a chapter's notebook is, for links on ``page`` (MkDocs ``File``/``Page``
    objects): the notebook's page and its download (relative), and "Open in Colab",
    which opens the committed notebook from the repository named by ``repo_url``."""
    from mkdocs.utils import get_relative_url

    repo = config["repo_url"].rstrip("/").removeprefix("https://github.com/")
    return {
        "page": get_relative_url(notebook.url, page.url),
        "download": get_relative_url(notebook.url + notebook.src_uri.split("/")[-1], page.url),
        "colab": f"https://colab.research.google.com/github/{repo}/blob/main/docs/{notebook.src_uri}",
    }


def target(chapter: Chapter) -> Path:
    return ROOT / "docs" / chapter.notebook


def compare(path: Path, expected: nbformat.NotebookNode) -> list[str]:
    """Why the notebook at ``path`` is not what the chapter generates (empty if it is)."""
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if not path.exists():
        return [f"{name}: missing (run `make notebooks`)"]
    if without_outputs(nbformat.read(path, as_version=4)) != expected:
        return [f"{name}: stale, it differs from its chapter's snippets (run `make notebooks`)"]
    return []


def stale() -> list[str]:
    expected = {target(chapter): build_notebook(chapter) for chapter in chapters()}
    problems = [p for path, nb in expected.items() for p in compare(path, nb)]
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        if path not in expected:
            problems.append(f"{path.relative_to(ROOT)}: no chapter generates it (delete it)")
    return problems


def main() -> int:
    if "--check" in sys.argv:
        problems = stale()
        print("\n".join(problems) or "notebooks are up to date")
        return 1 if problems else 0
    NOTEBOOKS.mkdir(parents=True, exist_ok=True)
    for chapter in chapters():
        path = target(chapter)
        notebook = build_notebook(chapter)
        if path.exists() and without_outputs(nbformat.read(path, as_version=4)) == notebook:
            print(f"{path.relative_to(ROOT)}: up to date")
            continue
        nbformat.write(execute(notebook), path)
        print(f"{path.relative_to(ROOT)}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
