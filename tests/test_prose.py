"""The rules of the pages' prose, each with its self-test: a release named is backed,
no sentence says how the site checked something, an outcome of an example that has
not run is said as expected, every chapter page is within its sentence budget, and
each chapter page ends with its generated "How this page was checked" box."""

from __future__ import annotations

import re
from pathlib import Path

from sitelib.site.layout import ROOT, html_text, page_files, page_url

PAGES = {page.relative_to(ROOT).as_posix(): page for page in page_files()}


# -- releases named in prose (sitelib/site/releases.py) ------------------------------
def test_every_release_named_in_prose_is_backed() -> None:
    from sitelib.site.releases import release_problems

    problems = [
        p
        for name, page in PAGES.items()
        for p in release_problems(page.read_text("utf-8"), name, ROOT / "snippets")
    ]
    assert not problems, "\n".join(problems)


def test_release_check_catches_a_release_named_with_nothing_beside_it(tmp_path: Path) -> None:
    """ "new in 2.14" alone fails, naming its line; with a reasoned marker, or beside an
    example marked for its releases, it passes; a marker without a reason fails; a
    quantity such as "2.5 times" or "a mean of 2.71" is not a release."""
    from sitelib.site.releases import release_problems

    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "tied.py").write_text("# requires: torch>=2.14\nprint(1)\n")
    (tmp_path / "c" / "plain.py").write_text("print(1)\n")
    page = "# Page\n\nSome text.\n\nThe option is new in 2.14.\n"
    assert release_problems(page, "docs/p.md", tmp_path) == [
        "docs/p.md:5: names torch 2.14 in prose, and no example of its section is marked "
        "'# requires: torch>=X.Y' or 'torch<X.Y': show it by one, or say why none is "
        "needed with <!-- release: why --> in the paragraph"
    ]
    marked = page.replace("2.14.", "2.14.\n<!-- release: read in 2.14's source, not run -->")
    assert release_problems(marked, "docs/p.md", tmp_path) == []
    bare = page.replace("2.14.", "2.14. <!-- release: -->")
    assert release_problems(bare, "docs/p.md", tmp_path) == [
        "docs/p.md:5: '<!-- release: -->' gives no reason"
    ]
    fence = '```python title="tied.py"\n--8<-- "c/tied.py"\n```\n'
    assert release_problems(page + "\n" + fence, "docs/p.md", tmp_path) == []
    other = "# Page\n\nNew in torch 2.14.\n\n## Next\n\n" + fence
    assert release_problems(other, "docs/p.md", tmp_path) != [], "another section's example"
    plain = page + "\n" + fence.replace("tied", "plain")
    assert release_problems(plain, "docs/p.md", tmp_path) != [], "an example not tied"
    quantities = "# P\n\nIt runs 2.5 times faster, and both ranks hold the mean, 2.71, 2.1e-4.\n"
    assert release_problems(quantities, "docs/p.md", tmp_path) == []


def test_a_versions_box_is_one_unit_backed_by_its_own_marker(tmp_path: Path) -> None:
    """A "Versions" table names releases in its rows; its marker, a paragraph of its own
    inside the box (a comment inside a table would be a row), backs the whole box."""
    from sitelib.site.releases import release_problems

    box = (
        "# P\n\n## S\n\nText.\n\n"
        '!!! versions "Versions"\n'
        "    | torch | what it does |\n    | --- | --- |\n"
        "    | 2.10 to 2.14 | float32 |\n    | 2.15 and newer | bfloat16 |\n\nAfter.\n"
    )
    assert release_problems(box, "docs/p.md", tmp_path) == [
        "docs/p.md:10: names torch 2.14 in prose, and no example of its section is marked "
        "'# requires: torch>=X.Y' or 'torch<X.Y': show it by one, or say why none is "
        "needed with <!-- release: why --> in the paragraph"
    ]
    marked = box.replace("| bfloat16 |\n", "| bfloat16 |\n\n    <!-- release: read in each -->\n")
    assert release_problems(marked, "docs/p.md", tmp_path) == []
    after = marked.replace("After.", "After, on 2.12.")
    assert release_problems(after, "docs/p.md", tmp_path) != [], "the box backs only itself"


# -- how the site knows stays out of the prose (sitelib/site/provenance.py) -----------
def test_no_page_says_how_the_site_checked_in_its_prose() -> None:
    from sitelib.site.provenance import provenance_problems

    problems = [
        p for name, page in PAGES.items() for p in provenance_problems(page.read_text(), name)
    ]
    assert not problems, "\n".join(problems)


def test_provenance_check_catches_a_planted_phrase_and_only_in_prose() -> None:
    """Each kind of phrase fails, naming its line, across a line break too; the same
    words in a marker, a fence or a code span pass; "by hand" as the reader's own work
    passes; a page whose subject is the checks says so in its front matter."""
    from sitelib.site.provenance import provenance_problems

    planted = {
        "It crashed in 4 of 45\nruns.": "a count of runs",
        "We tried it outside the suite.": "a try outside the checks",
        "It is slow (measured under load from other agents).": "a measurement",
        "It ran on a two-core machine.": "the machine that ran it",
        "Its lines are reasoned, not printed.": "an output reasoned, not run",
        "That part was read in 2.14.1's source.": "a reading of torch's source",
    }
    for text, what in planted.items():
        problems = provenance_problems(f"# P\n\nIntro.\n\n{text}\n", "docs/p.md")
        assert problems and problems[0].startswith("docs/p.md:5: "), (text, problems)
        assert f"({what})" in " ".join(problems), (text, problems)
    clean = (
        "# P\n\nCompute the gradient by hand and compare.\n"
        "<!-- checked: 4 of 45 runs crashed on torch 2.13.0 -->\n\n"
        "```python\n# the suite runs this\n```\n\nThe `suite` name.\n"
    )
    assert provenance_problems(clean, "docs/p.md") == []
    about = "---\nchecks-are-the-subject: this page says what the tests prove\n---\n\n"
    assert provenance_problems(about + "# P\n\nThe test suite runs it.\n", "docs/p.md") == []


# -- outcomes of examples that have not run (sitelib/site/reasoned.py) -----------------
def test_outcomes_of_examples_that_have_not_run_are_said_as_expected() -> None:
    from sitelib.site.reasoned import reasoned_problems

    problems = [
        p
        for name, page in PAGES.items()
        for p in reasoned_problems(page.read_text(), name, ROOT / "snippets")
    ]
    assert not problems, "\n".join(problems)


def test_reasoned_check_catches_an_outcome_said_as_seen(tmp_path: Path) -> None:
    """After an example that needs CUDA, "the loss has fallen" fails, naming its line;
    "should fall" passes, and so does the indicative with a reasoned marker; the same
    words after an example that runs, or in a rule box, pass."""
    from sitelib.site.reasoned import reasoned_problems

    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "gpu.py").write_text("# requires: cuda\nprint(1)\n")
    (tmp_path / "c" / "cpu.py").write_text("print(1)\n")
    fence = '```python title="gpu.py"\n--8<-- "c/gpu.py"\n```\n'
    page = f"# P\n\n## S\n\n{fence}\nAfter six steps the loss has fallen.\n\n## Next\n\nIt fell.\n"
    assert reasoned_problems(page, "docs/p.md", tmp_path) == [
        "docs/p.md:9: states an outcome of an example that has not run (it needs CUDA): "
        "say what is expected ('should', 'is expected to'), or vouch for it with "
        "<!-- reasoned: why --> in the paragraph"
    ]
    hedged = page.replace("has fallen", "should have fallen")
    assert reasoned_problems(hedged, "docs/p.md", tmp_path) == []
    vouched = page.replace("fallen.\n", "fallen.\n<!-- reasoned: the step's arithmetic -->\n")
    assert reasoned_problems(vouched, "docs/p.md", tmp_path) == []
    assert reasoned_problems(page.replace("gpu.py", "cpu.py"), "docs/p.md", tmp_path) == []
    rule = page.replace("After six", '!!! rule "Rule"\n    After six')
    assert reasoned_problems(rule, "docs/p.md", tmp_path) == []
    quantity = page.replace("the loss has fallen", "it holds 256 MiB")
    assert reasoned_problems(quantity, "docs/p.md", tmp_path) != [], "a quantity is an outcome"


# -- sentences a learner reads (sitelib/site/readability.py) ---------------------------
def test_every_chapter_page_is_within_its_sentence_budget() -> None:
    from sitelib.site.readability import budget_problems, measure, table

    stats = measure()
    problems = budget_problems(stats)
    assert not problems, "\n".join(problems) + "\n\n" + table(stats)


def test_the_sentence_measure_counts_what_a_reader_reads() -> None:
    """Sentences end at . ? ! before a capital, a code span or a bracket, and at the end
    of a paragraph or list item, not after "e.g."; code spans, formulas and links count
    as one word; fences, headings, tables, comments and titles are not prose. A page
    over the budget is named with its longest sentence's line."""
    from sitelib.site.readability import LONG, budget_problems, page_stats

    page = (
        "---\nsummary: not prose at all\n---\n\n# Title words here\n\n"
        "Call `model.train()` first. Then the [loss](x.md) falls, e.g. by half!\n"
        "Does it? Yes.\n\n"
        "- one item\n- two items here\n\n"
        "| a | table |\n| --- | --- |\n\n"
        '!!! rule "A rule"\n    Keep $x^2$ small.\n\n'
        "<!-- a marker, not prose -->\n\n```python\nprint('no prose')\n```\n"
    )
    stats = page_stats(page, "docs/p.md")
    assert [(s.line, s.words) for s in stats.sentences] == [
        (7, 3),
        (7, 7),
        (7, 2),
        (7, 1),
        (10, 2),
        (11, 3),
        (17, 3),
    ], stats.sentences
    assert budget_problems([stats]) == []
    long = "word " * (LONG + 1)
    heavy = page_stats(f"# T\n\nShort one.\n\n{long.strip()}.\n", "docs/p.md")
    (problem,) = budget_problems([heavy])
    assert problem.startswith("docs/p.md:5: sentences average 19.0 words and 50% are over 35")


# -- the generated "How this page was checked" box (sitelib/site/checked.py) ----------
def test_the_checked_box_gathers_a_pages_markers_by_section() -> None:
    from sitelib.site.checked import example_facts, page_notes

    page = (
        "# T\n\nIntro.\n<!-- checked: the intro's note -->\n\n## A `x` section\n\n"
        "Text.\n<!-- release: read in 2.14's source -->\n\n"
        "```python\n<!-- checked: inside a fence, not a marker -->\n```\n\n"
        "### Deeper\n\nMore.\n<!-- reasoned: from the allocator's rules -->\n"
    )
    notes = page_notes(page)
    assert [(n.kind, n.heading, n.section, n.text) for n in notes] == [
        ("checked", -1, "", "the intro's note"),
        ("release", 0, "A `x` section", "read in 2.14's source"),
        ("reasoned", 1, "Deeper", "from the allocator's rules"),
    ]
    facts = example_facts(2, ["gpu.py"], [("new.py", "needs torch 2.13 or newer")], [])
    assert facts[0].startswith("The 2 examples on this page are run by the site's tests")
    assert "gpu.py needs CUDA and has not yet run on a GPU" in facts[1]
    assert facts[2] == "new.py needs torch 2.13 or newer; other releases skip it, with that reason."
    assert example_facts(0, [], [], []) == []


def test_every_chapter_page_ends_with_its_checked_box(built_site) -> None:
    """Built: each chapter page has one collapsed box, after its prose; each of the
    page's markers is in it, under a link to its section's heading."""
    from sitelib.site.checked import page_notes
    from sitelib.site.layout import chapters

    _, site = built_site
    for chapter in chapters():
        for name in chapter.pages:
            built = (site / page_url(name) / "index.html").read_text("utf-8")
            boxes = re.findall(r'<details class="checked"[^>]*>(.*?)</details>', built, re.S)
            assert len(boxes) == 1, (name, len(boxes))
            assert built.index('<details class="checked"') > built.index(
                'class="admonition summary"'
            ), name
            text = html_text(boxes[0])
            for note in page_notes((ROOT / "docs" / name).read_text("utf-8")):
                words = html_text(re.sub(r"`([^`]+)`", r"\1", note.text))
                assert " ".join(words.split()) in " ".join(text.split()), (name, note.text)
            for href in re.findall(r'<dt><a href="#([^"]+)"', boxes[0]):
                assert f'id="{href}"' in built, (name, href)
