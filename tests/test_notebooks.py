"""Each chapter's notebook is its snippets, is up to date, and prints their #> lines."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from sitelib.site import notebooks
from sitelib.site.layout import ROOT, Chapter, chapters, html_text, load_config
from sitelib.site.snippets import as_copied, expected_output, without_output

CHAPTERS = chapters()
STDOUT = re.compile(
    r'class="jp-RenderedText jp-OutputArea-output[^"]*" data-mime-type="text/plain"[^>]*>\s*'
    r"<pre>(?P<text>.*?)</pre>",
    re.S,
)


def stdout_lines(chunks: list[str]) -> Counter:
    """The lines printed, from a notebook's stdout in the order it arrived. The kernel
    may send one print's output in several chunks, split anywhere, even inside a line
    (more often on a busy machine); each chunk keeps its newlines, so join them first."""
    return Counter("".join(chunks).splitlines())


def rendered_stdout(rendered: str) -> list[str]:
    """The stdout chunks of a notebook page built by mkdocs-jupyter, in page order."""
    return [html_text(m.group("text")) for m in STDOUT.finditer(rendered)]


def snippet_cells(notebook: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """(snippet, the code it runs) for each code cell; a multi-process snippet's cell
    writes the snippet to a file (%%writefile) for a terminal to run."""
    return [
        (c.metadata["snippet"], re.sub(r"\A%%writefile \S+\n", "", c.source))
        for c in notebook.cells
        if c.cell_type == "code"
    ]


def run_in_kernel(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The code cells the kernel runs as code (not those that only write a file)."""
    return [c for c in notebook.cells if c.cell_type == "code" and "launch" not in c.metadata]


def committed_stdout(cells: list[nbformat.NotebookNode]) -> list[str]:
    """The stdout chunks the code cells printed, as committed."""
    return [
        out.text
        for cell in cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "stream" and out.name == "stdout"
    ]


def expected_lines(notebook: nbformat.NotebookNode) -> Counter:
    return Counter(
        line
        for cell in run_in_kernel(notebook)
        for line in expected_output(
            (ROOT / "snippets" / cell.metadata["snippet"]).read_text("utf-8")
        )
    )


def test_notebooks_are_not_stale() -> None:
    problems = notebooks.stale()
    assert not problems, "\n".join(problems)


def test_stale_notebook_is_detected(tmp_path: Path) -> None:
    chapter = CHAPTERS[0]
    expected = notebooks.build_notebook(chapter)
    edited = notebooks.build_notebook(chapter)
    cell = next(c for c in edited.cells if c.cell_type == "code")
    cell.source += "\nprint('edited by hand')"
    nbformat.write(edited, tmp_path / "edited.ipynb")
    assert notebooks.compare(tmp_path / "edited.ipynb", expected) == [
        f"{tmp_path / 'edited.ipynb'}: stale, it differs from its chapter's snippets (run `make notebooks`)"
    ]
    assert notebooks.compare(tmp_path / "absent.ipynb", expected)[0].endswith(
        "missing (run `make notebooks`)"
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.name)
def test_code_cells_are_the_snippets_in_page_order(chapter: Chapter) -> None:
    """Each code cell is its snippet as copied, without the #> lines its output cell
    shows (a multi-process snippet, run from a terminal, keeps them)."""
    notebook = nbformat.read(notebooks.target(chapter), as_version=4)
    cells = snippet_cells(notebook)
    assert [snippet for snippet, _ in cells] == notebooks.notebook_snippets(chapter)
    launched = {c.metadata["snippet"] for c in notebook.cells if "launch" in c.metadata}
    for snippet, source in cells:
        expected = as_copied((ROOT / "snippets" / snippet).read_text("utf-8"))
        if snippet not in launched:
            expected = without_output(expected)
            assert "#>" not in source, snippet
        assert source == expected.rstrip("\n"), snippet


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.name)
def test_committed_outputs_match_the_snippets(chapter: Chapter) -> None:
    notebook = nbformat.read(notebooks.target(chapter), as_version=4)
    assert stdout_lines(committed_stdout(run_in_kernel(notebook))) == expected_lines(notebook)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.name)
def test_notebook_page_shows_the_snippets_output(chapter: Chapter, built_site) -> None:
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    rendered = (site / "notebooks" / chapter.name / "index.html").read_text("utf-8")
    printed = stdout_lines(rendered_stdout(rendered))
    notebook = nbformat.read(notebooks.target(chapter), as_version=4)
    # The committed outputs, which test_committed_outputs_match_the_snippets checks.
    assert printed == stdout_lines(committed_stdout(notebook.cells))
    assert (site / "notebooks" / chapter.name / f"{chapter.name}.ipynb").is_file()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.name)
def test_notebook_page_reads_like_a_chapter(chapter: Chapter, built_site) -> None:
    """Its title from the navigation, numbered, with the links under it; its formulas
    as MathML, no raw TeX left."""
    _, site = built_site
    rendered = (site / "notebooks" / chapter.name / "index.html").read_text("utf-8")
    article = rendered[rendered.index('<article class="md-content__inner') :]
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", article, re.S)
    title = f"{chapter.number}. {chapter.title}: the notebook"
    assert h1 and html_text(h1.group(1)).strip() == title
    assert (
        article.index("</h1>") < article.index('class="chapter-links"') < article.index("jp-Cell")
    ), "the download and Colab links belong under the title"
    assert article.count("<h1") == 1
    text = html_text(re.sub(r"<(pre|code|math|script)\b.*?</\1>", "", article, flags=re.S))
    assert not re.search(r"\$[^$\s][^$]*\\[a-z]+[^$]*\$", text), "raw TeX on the page"


def test_stdout_split_inside_a_line_is_joined() -> None:
    # Two prints whose output reached the page in three chunks, one cut before its "\n".
    page = "".join(
        '<div class="jp-RenderedText jp-OutputArea-output highlight" '
        f'data-mime-type="text/plain" tabindex="0">\n<pre>{chunk}</pre>\n</div>'
        for chunk in ("first line", "\nsecond ", "line\n")
    )
    assert rendered_stdout(page) == ["first line", "\nsecond ", "line\n"]
    assert stdout_lines(rendered_stdout(page)) == Counter(["first line", "second line"])
    # Read chunk by chunk, as before, the same page shows lines no print wrote.
    assert Counter(line for c in rendered_stdout(page) for line in c.splitlines()) != Counter(
        ["first line", "second line"]
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.name)
def test_notebook_text_quotes_its_chapter_and_links_to_its_sections(
    chapter: Chapter, built_site
) -> None:
    """Each Markdown cell's code spans are the chapter's own, whole (an underscore is
    not emphasis), and each "Read this section" link reaches an anchor of the built
    page."""
    _, site = built_site
    site_url = load_config(environ={})["site_url"].rstrip("/") + "/"
    source = "".join((ROOT / "docs" / page).read_text("utf-8") for page in chapter.pages)
    notebook = nbformat.read(notebooks.target(chapter), as_version=4)
    sections = [c for c in notebook.cells if c.cell_type == "markdown" and c.source[:3] == "## "]
    assert sections, "no section cells"
    for cell in sections:
        for code in re.findall(r"`([^`]+)`", cell.source):
            assert f"`{code}`" in source, f"`{code}` is not the chapter's own"
        for url, anchor in re.findall(r"\((\S+?)#([\w-]+)\)", cell.source):
            page = (site / url.removeprefix(site_url) / "index.html").read_text("utf-8")
            assert f'id="{anchor}"' in page, f"{url}#{anchor}"


def test_a_cell_that_needs_a_newer_torch_says_so(tmp_path: Path, monkeypatch) -> None:
    """A snippet marked ``# requires: torch>=2.13`` gets a line before its cell (the
    notebook may be opened on an older torch); others get none."""
    (tmp_path / "snippets" / "c").mkdir(parents=True)
    (tmp_path / "snippets" / "c" / "new.py").write_text("# requires: torch>=2.13\nimport torch\n")
    (tmp_path / "snippets" / "c" / "old.py").write_text("import torch\n")
    monkeypatch.setattr(notebooks, "ROOT", tmp_path)
    note, code = notebooks.snippet_cells("c/new.py")
    assert (note.cell_type, note.source) == ("markdown", "The next cell needs torch 2.13 or newer.")
    assert code.cell_type == "code" and code.metadata["snippet"] == "c/new.py"
    assert [c.cell_type for c in notebooks.snippet_cells("c/old.py")] == ["code"]
