"""Each chapter's notebook is its snippets, is up to date, and prints their #> lines."""

from __future__ import annotations

import copy
import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from sitelib.site import notebooks
from sitelib.site.layout import ROOT, Chapter, chapters, chapters_of, html_text
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
    writes the snippet to a file (%%writefile) for a terminal to run, and a solution's
    cell starts with the line that makes it a form in Colab (and nothing else)."""
    return [(c.metadata["snippet"], as_snippet(c)) for c in notebook.cells if c.cell_type == "code"]


def as_snippet(cell: nbformat.NotebookNode) -> str:
    source = re.sub(r"\A%%writefile \S+\n", "", cell.source)
    if cell.metadata.get("cellView") == "form":
        assert source.startswith(notebooks.SOLUTION_TITLE + "\n"), cell.metadata["snippet"]
        source = source.removeprefix(notebooks.SOLUTION_TITLE + "\n")
    return source


def committed_stdout(cells: list[nbformat.NotebookNode]) -> list[str]:
    """The stdout chunks the code cells printed, as committed."""
    return [
        out.text
        for cell in cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "stream" and out.name == "stdout"
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every chapter, or under ``--example`` (make check) the chapters of the examples
    chosen: an edited snippet is checked against its own chapter's notebook."""
    if "chapter" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("example")
        wanted = chapters_of(chosen) if chosen else CHAPTERS
        metafunc.parametrize("chapter", wanted, ids=lambda c: c.name)


def test_notebook_is_not_stale(chapter: Chapter) -> None:
    """Its cells are the chapter's snippets as copied, and each output is its #> lines
    (compared, not executed)."""
    problems = notebooks.compare(notebooks.target(chapter), notebooks.build_notebook(chapter))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_every_notebook_has_a_chapter() -> None:
    problems = notebooks.orphans()
    assert not problems, "\n".join(problems)


def test_stale_notebook_is_detected(tmp_path: Path) -> None:
    chapter = CHAPTERS[0]
    expected = notebooks.build_notebook(chapter)
    edited = notebooks.build_notebook(chapter)
    cell = next(c for c in edited.cells if c.cell_type == "code")
    cell.source += "\nprint('edited by hand')"
    nbformat.write(edited, tmp_path / "edited.ipynb")
    assert notebooks.compare(tmp_path / "edited.ipynb", expected) == [
        f"{tmp_path / 'edited.ipynb'}: stale, snippets/{cell.metadata['snippet']}'s cell "
        "differs from its chapter (run `make notebooks`)"
    ]
    assert notebooks.compare(tmp_path / "absent.ipynb", expected)[0].endswith(
        "missing (run `make notebooks`)"
    )


def test_notebook_whose_output_is_not_the_snippets_is_stale(tmp_path: Path) -> None:
    """A snippet whose #> lines changed: the notebook's code is the same, its output
    cell is not, and only that cell is run again by `make notebooks`."""
    chapter = CHAPTERS[0]
    expected = notebooks.build_notebook(chapter)
    committed = notebooks.build_notebook(chapter)  # outputs as the #> lines say
    kernel_cells = [
        (i, c)
        for i, c in enumerate(committed.cells)
        if c.cell_type == "code" and not c.get("metadata", {}).get("launch")
    ]
    for _, cell in kernel_cells:
        source = (ROOT / "snippets" / cell.metadata["snippet"]).read_text("utf-8")
        text = "".join(f"{line}\n" for line in expected_output(source))
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    nbformat.write(committed, tmp_path / "committed.ipynb")
    assert notebooks.compare(tmp_path / "committed.ipynb", expected) == []
    index, cell = kernel_cells[0]
    cell.outputs[0].text = "not what the #> lines say\n"
    nbformat.write(committed, tmp_path / "edited.ipynb")
    assert notebooks.compare(tmp_path / "edited.ipynb", expected) == [
        f"{tmp_path / 'edited.ipynb'}: stale, snippets/{cell.metadata['snippet']}'s output "
        "cell is not its #> lines (run `make notebooks`)"
    ]
    assert notebooks.cells_to_run(tmp_path / "edited.ipynb", expected) == [index]
    assert notebooks.cells_to_run(tmp_path / "committed.ipynb", expected) == []


def test_code_cells_are_the_snippets_in_page_order(chapter: Chapter) -> None:
    """The generator makes each code cell its snippet as copied, without the #> lines
    its output cell shows (a multi-process snippet, run from a terminal, keeps them).
    That the committed notebook is what it generates: test_notebook_is_not_stale."""
    notebook = notebooks.build_notebook(chapter)
    cells = snippet_cells(notebook)
    assert [snippet for snippet, _ in cells] == notebooks.notebook_snippets(chapter)
    launched = {c.metadata["snippet"] for c in notebook.cells if "launch" in c.metadata}
    for snippet, source in cells:
        expected = as_copied((ROOT / "snippets" / snippet).read_text("utf-8"))
        if snippet not in launched:
            expected = without_output(expected)
            assert "#>" not in source, snippet
        assert source == expected.rstrip("\n"), snippet


def test_notebook_page_shows_the_snippets_output(chapter: Chapter, built_site) -> None:
    result, site = built_site
    assert result.returncode == 0, result.stderr[-3000:]
    rendered = (site / "notebooks" / chapter.name / "index.html").read_text("utf-8")
    printed = stdout_lines(rendered_stdout(rendered))
    notebook = nbformat.read(notebooks.target(chapter), as_version=4)
    # The committed outputs, which test_notebook_is_not_stale checks.
    assert printed == stdout_lines(committed_stdout(notebook.cells))
    assert (site / "notebooks" / chapter.name / f"{chapter.name}.ipynb").is_file()


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


def test_notebook_text_quotes_its_chapter_and_links_to_its_sections(
    chapter: Chapter, built_site
) -> None:
    """Each Markdown cell's code spans are the chapter's own, whole (an underscore is
    not emphasis), and each "Read this section" link reaches an anchor of the built
    page."""
    _, site = built_site
    notebook = nbformat.read(notebooks.target(chapter), as_version=4)
    site_url = notebooks.linked_site(notebook)
    source = "".join((ROOT / "docs" / page).read_text("utf-8") for page in chapter.pages)
    sections = [c for c in notebook.cells if c.cell_type == "markdown" and c.source[:3] == "## "]
    assert sections, "no section cells"
    for cell in sections:
        for code in re.findall(r"`([^`]+)`", cell.source):
            assert f"`{code}`" in source, f"`{code}` is not the chapter's own"
        for url, anchor in re.findall(r"\((\S+?)#([\w-]+)\)", cell.source):
            page = (site / url.removeprefix(site_url) / "index.html").read_text("utf-8")
            assert f'id="{anchor}"' in page, f"{url}#{anchor}"


SITE = "https://owner.github.io/site/"


def exercise_cells(notebook: nbformat.NotebookNode) -> tuple[list, int]:
    """The cells from the Exercise heading on, and the index of its solution's cell."""
    start = next(
        i
        for i, c in enumerate(notebook.cells)
        if c.cell_type == "markdown" and c.source.startswith("## Exercise")
    )
    cells = notebook.cells[start:]
    return cells, next(i for i, c in enumerate(cells) if c.metadata.get("cellView") == "form")


def test_exercise_states_its_task_and_hides_its_solution(chapter: Chapter) -> None:
    """The Exercise cell states the task as the page's exercise box does; the solution
    follows under its own heading, with a line asking the reader to try first, in a
    cell folded in JupyterLab and drawn as a form in Colab."""
    notebook = notebooks.build_notebook(chapter, SITE)
    cells, solution = exercise_cells(notebook)
    page = "".join((ROOT / "docs" / p).read_text("utf-8") for p in chapter.pages)
    box = page[page.index("!!! exercise") :].split("\n")[1:]
    first = next(line.strip() for line in box if line.strip())
    assert first in cells[0].source, (first, cells[0].source)
    assert cells[1].cell_type == "code" and "exercise" in cells[1].metadata["snippet"]
    heading = cells[solution - 1]
    assert heading.cell_type == "markdown" and heading.source.startswith("### Solution\n")
    assert "Try the exercise" in heading.source
    assert cells[solution].metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert cells[solution].source.startswith("# @title Solution\n")


def test_the_distributed_exercise_keeps_its_hint() -> None:
    chapter = next(c for c in CHAPTERS if c.name == "distributed")
    cells, solution = exercise_cells(notebooks.build_notebook(chapter, SITE))
    assert "Change how the indices are split" in cells[0].source
    assert "\n\nHint: a `DataLoader`'s `sampler` can be any iterable of indices." in cells[0].source
    assert cells[solution - 1].source.startswith("### Solution")


def test_section_cells_start_with_prose(chapter: Chapter) -> None:
    """Each section cell carries the section's first sentence, never a list marker or a
    code block's annotation list alone, and links only to the site it is made for."""
    notebook = notebooks.build_notebook(chapter, SITE)
    assert notebooks.linked_site(notebook) == SITE
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        if cell.source.startswith("## "):
            body = cell.source.split("\n\n", 1)[1]
            assert not re.match(r"(\d+[.)]|[-*+])\s|\(\[Read", body), cell.source[:200]
        for url in re.findall(r"\]\((https?://[^)\s]+)\)", cell.source):
            assert url.startswith((SITE, "https://docs.pytorch.org/")) or "github.io" not in url, (
                url
            )


def test_first_sentence_skips_lists_and_ends_an_announcement() -> None:
    assert notebooks._first_sentence("The snippet counts them:") == "The snippet counts them."
    assert notebooks._first_sentence("It adds. Then `x.y` too.") == "It adds."
    assert notebooks.LIST_ITEM.match("1.  An annotation.") and notebooks.LIST_ITEM.match("- a")
    assert not notebooks.LIST_ITEM.match("1.5 is a number.")


def test_the_built_site_serves_notebooks_linking_to_itself(built_site, built_config) -> None:
    """A downloaded notebook and the notebook page link to the site that was built
    (the suite's SITE_URL), whatever site the committed notebook links to."""
    _, site = built_site
    site_url = built_config["site_url"].rstrip("/") + "/"
    for chapter in CHAPTERS:
        served = nbformat.read(
            site / "notebooks" / chapter.name / f"{chapter.name}.ipynb", as_version=4
        )
        assert notebooks.linked_site(served) == site_url
        links = [
            u
            for c in served.cells
            if c.cell_type == "markdown"
            for u in re.findall(r"\]\((http[^)\s]+)\)", c.source)
        ]
        ours = [u for u in links if "github.io" in u]
        assert ours and all(u.startswith(site_url) for u in ours), chapter.name
        page = (site / "notebooks" / chapter.name / "index.html").read_text("utf-8")
        hrefs = re.findall(r'href="(https?://[^"]+)"', page)
        recorded = notebooks.linked_site(nbformat.read(notebooks.target(chapter), as_version=4))
        assert any(h.startswith(site_url) for h in hrefs), chapter.name
        assert recorded == site_url or not any(h.startswith(recorded) for h in hrefs), chapter.name


def test_links_move_to_the_site_being_built() -> None:
    notebook = notebooks.build_notebook(CHAPTERS[0], "https://a.example.org/docs/")
    moved = notebooks.with_links_to(notebook, "https://b.example.org/fork/")
    assert notebooks.linked_site(moved) == "https://b.example.org/fork/"
    text = "".join(c.source for c in moved.cells if c.cell_type == "markdown")
    assert "https://a.example.org" not in text and "](https://b.example.org/fork/" in text
    old = copy.deepcopy(notebook)
    del old.metadata[notebooks.METADATA]  # a notebook from before: the placeholder's links
    assert notebooks.linked_site(old) == notebooks.placeholder_sites()[0]


def test_generating_for_the_placeholder_site_warns() -> None:
    placeholder = notebooks.placeholder_sites()[0]
    site, warning = notebooks.choose_site(None, None)
    assert site == placeholder and "SITE_URL is not set" in warning
    assert notebooks.choose_site(None, "https://a.example.org/") == ("https://a.example.org/", None)
    given = notebooks.choose_site("https://b.example.org/", "https://a.example.org/")
    assert given == ("https://b.example.org/", None)


def test_notebook_opens_with_what_you_will_learn(chapter: Chapter) -> None:
    from sitelib.site.frame import boxes

    notebook = notebooks.build_notebook(chapter, SITE)
    learn = next(
        b
        for b in boxes(notebooks.ROOT.joinpath("docs", chapter.page).read_text("utf-8"))
        if b.kind == "learn"
    )
    cell = notebook.cells[2]
    assert cell.source.startswith("**What you will learn**\n\n")
    assert cell.source.count("\n- ") == len(learn.points)
    for point in learn.points:
        assert f"- {point.text}" in cell.source


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


def test_torch_s_own_log_lines_are_left_out_of_a_cell_s_output() -> None:
    """glog's lines and the profiler's, written to stderr by torch's C++ code, carry a
    time and a process id: a notebook keeping them would change on every run."""
    glog = "W1203 17:52:34.123456 1234 ProcessGroupGloo.cpp:56] a warning\n"
    profiler = "USDT:2026-12-03 17:52:34 16203:16203 SyncActivityProfilerHandler.cpp:52] start\n"
    assert notebooks.TORCH_LOG.sub("", f"{glog}kept\n{profiler}") == "kept\n"
    assert notebooks.TORCH_LOG.sub("", "W: not a log line\n") == "W: not a log line\n"
