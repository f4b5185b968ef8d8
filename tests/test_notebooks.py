"""Each chapter's notebook is its snippets, is up to date, and prints their #> lines."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from sitelib import notebooks
from sitelib.examples import expected_output, without_annotations
from sitelib.project import ROOT, chapters, html_text

CHAPTERS = chapters()
STDOUT = re.compile(
    r'class="jp-RenderedText jp-OutputArea-output[^"]*" data-mime-type="text/plain"[^>]*>\s*'
    r"<pre>(?P<text>.*?)</pre>",
    re.S,
)
CELL_OUTPUTS = re.compile(r'<div class="jp-OutputArea jp-Cell-outputArea">')


def cell_stdout(rendered: str) -> list[str]:
    """Each code cell's printed text. A kernel may flush one print in several stream
    outputs ("[0.1, 0.05]" then "\\n6 [0.0125]\\n"), so a cell's outputs are joined first."""
    return [
        "".join(html_text(m.group("text")) for m in STDOUT.finditer(area))
        for area in CELL_OUTPUTS.split(rendered)[1:]
    ]


def snippet_cells(notebook: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(c.metadata["snippet"], c.source) for c in notebook.cells if c.cell_type == "code"]


def expected_lines(notebook: nbformat.NotebookNode) -> Counter:
    return Counter(
        line
        for snippet, _ in snippet_cells(notebook)
        for line in expected_output((ROOT / "snippets" / snippet).read_text("utf-8"))
    )


def test_notebooks_are_not_stale() -> None:
    problems = notebooks.stale()
    assert not problems, "\n".join(problems)


def test_stale_notebook_is_detected(tmp_path: Path) -> None:
    page = CHAPTERS[0]
    expected = notebooks.build_notebook(page)
    edited = notebooks.build_notebook(page)
    cell = next(c for c in edited.cells if c.cell_type == "code")
    cell.source += "\nprint('edited by hand')"
    nbformat.write(edited, tmp_path / "edited.ipynb")
    assert notebooks.compare(tmp_path / "edited.ipynb", expected) == [
        f"{tmp_path / 'edited.ipynb'}: stale, it differs from its chapter's snippets (run `make notebooks`)"
    ]
    assert notebooks.compare(tmp_path / "absent.ipynb", expected)[0].endswith(
        "missing (run `make notebooks`)"
    )


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_code_cells_are_the_snippets_in_page_order(page: Path) -> None:
    notebook = nbformat.read(notebooks.target(page), as_version=4)
    cells = snippet_cells(notebook)
    assert [snippet for snippet, _ in cells] == notebooks.notebook_snippets(page)
    for snippet, source in cells:
        expected = without_annotations((ROOT / "snippets" / snippet).read_text("utf-8"))
        assert source == expected.rstrip("\n"), snippet


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_committed_outputs_match_the_snippets(page: Path) -> None:
    notebook = nbformat.read(notebooks.target(page), as_version=4)
    printed = Counter(
        line
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "stream" and out.name == "stdout"
        for line in out.text.splitlines()
    )
    assert printed == expected_lines(notebook)


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_notebook_executed_at_build_prints_the_snippets_output(page: Path, built_site) -> None:
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    rendered = (site / "notebooks" / page.stem / "index.html").read_text("utf-8")
    printed = Counter(line for text in cell_stdout(rendered) for line in text.splitlines())
    notebook = nbformat.read(notebooks.target(page), as_version=4)
    assert printed == expected_lines(notebook)
    assert (site / "notebooks" / page.stem / f"{page.stem}.ipynb").is_file()


def test_a_print_split_across_stream_outputs_is_one_line() -> None:
    def output(text: str) -> str:
        return (
            '<div class="jp-RenderedText jp-OutputArea-output highlight" '
            f'data-mime-type="text/plain" tabindex="0">\n<pre>{text}</pre>\n</div>'
        )

    area = '<div class="jp-OutputArea jp-Cell-outputArea">'
    rendered = area + output("[0.1, 0.05]") + output("\n6 [0.0125]\n") + area + output("x\n")
    assert cell_stdout(rendered) == ["[0.1, 0.05]\n6 [0.0125]\n", "x\n"]
    per_output = [line for m in STDOUT.finditer(rendered) for line in m.group("text").splitlines()]
    assert "" in per_output, "split per output, the print would leave an empty line"
