"""Code blocks as readers need them (sitelib/site/codeblocks/): printed output drawn
as output, set-up folds and their summary, and the build's refusals: a block that
shows more than 60 lines, a fold that hides what the section teaches, prose that
names a line its block does not show. Each through Python-Markdown with the site's
extensions, as both builders run them."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

from sitelib.site.codeblocks.copied import copied_text
from sitelib.site.codeblocks.errors import CodeBlockError
from sitelib.site.codeblocks.folds import fold_problems, summary
from sitelib.site.codeblocks.references import reference_problems
from sitelib.site.layout import ROOT, load_config, page_files

PAGE = "docs/page.md"


def render(text: str, **options) -> str:
    """``text`` through the site's Markdown extensions (mkdocs.yml's own settings)."""
    config = load_config()
    names, settings = [], {}
    for entry in config["markdown_extensions"]:
        name, value = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        if name.startswith(("pymdownx.emoji", "pymdownx.snippets")):
            continue  # emoji's settings are Python objects; the pages here include nothing
        names.append(name)
        if value:
            settings[name] = dict(value)
    settings["sitelib.site.codeblocks"].update(options)
    return markdown.markdown(text, extensions=names, extension_configs=settings)


def fence(body: str, options: str = "") -> str:
    return f'```python title="x.py" {options}\n{body}\n```\n'


SOURCE = """import torch

torch.manual_seed(0)
x = torch.ones(2)


def double(t):
    return 2 * t


print(double(x).tolist())
#> [2.0, 2.0]
for _ in range(2):
    print(x.sum().item())
    #> 2.0
    #> 2.0
"""


def test_output_is_drawn_as_output_and_copies_as_written() -> None:
    html = render(fence(SOURCE))
    assert html.count('class="go go-Label">Output: </span>') == 2  # one per run of lines
    assert '<span class="go go-Marker">#&gt;</span><span class="go"> [2.0, 2.0]</span>' in html
    assert not re.search(r'class="c1">#&gt;', html), "an output line drawn as a comment"
    code = re.search(r"<code>(.*)</code>", html, re.S).group(1)
    assert copied_text(code).rstrip("\n") == SOURCE.rstrip("\n")


def test_a_quoted_block_under_a_print_is_output() -> None:
    source = 'print("a")\n"""\nlong\noutput\n"""\n\n\ndef f():\n    """A docstring."""\n'
    html = render(fence(source))
    assert html.count('<span class="go go-Marker">"""</span>') == 2
    assert '<span class="go">long</span>' in html and '<span class="go">output</span>' in html
    assert '<span class="sd">"""A docstring."""</span>' in html  # a docstring is code


def test_a_fold_hides_the_set_up_behind_its_summary() -> None:
    html = render(fence(SOURCE, 'fold="1-8"'))
    label = re.search(r'<label class="fold-label"[^>]*>(.*?)</label>', html).group(1)
    assert label == "Set-up, lines 1\u20138: imports, seed, x, double()"
    body = re.search(r'<span class="fold-body">(.*?)</span></span>(?=<span id)', html, re.S)
    assert "import" in body.group(1) and "print" not in body.group(1)
    code = re.search(r"<code>(.*)</code>", html, re.S).group(1)
    assert copied_text(code).rstrip("\n") == SOURCE.rstrip("\n"), "the fold must copy"


def test_a_long_summary_is_cut_to_fit() -> None:
    names = "\n".join(f"variable_number_{i} = {i}" for i in range(12))
    text = summary(f"import torch\n{names}\n", (1, 13))
    assert len(text) <= 76 and text.endswith(" more"), text


@pytest.mark.parametrize(
    ("span", "hl_lines", "problem"),
    [
        ((1, 12), [], "line 11 prints or shows output: it cannot fold"),
        ((1, 8), [4], "line 4 is highlighted, so it is taught: it cannot fold"),
        ((1, 7), [], "the fold cuts the statement on lines 7-8"),
        ((13, 16), [], "line 13 is not set-up (for): only set-up folds"),
    ],
)
def test_a_fold_that_hides_what_is_taught_is_refused(
    span: tuple[int, int], hl_lines: list[int], problem: str
) -> None:
    assert problem in fold_problems(SOURCE, span, hl_lines)


def test_the_build_refuses_a_fold_that_hides_a_print() -> None:
    with pytest.raises(CodeBlockError, match="line 11 prints or shows output"):
        render(fence(SOURCE, 'fold="1-12"'))


def test_the_build_refuses_a_block_longer_than_it_shows() -> None:
    long = "\n".join(f"x{i} = {i}" for i in range(61))
    with pytest.raises(CodeBlockError, match=r"shows 61 lines unfolded \(at most 60\)"):
        render(fence(long), max_lines=60)
    render(fence(long, 'fold="1-10"'), max_lines=60)  # 51 lines shown


def test_the_site_allows_at_most_60_lines() -> None:
    config = load_config()
    options = next(
        e["sitelib.site.codeblocks"]
        for e in config["markdown_extensions"]
        if isinstance(e, dict) and "sitelib.site.codeblocks" in e
    )
    assert options["max_lines"] == 60


# -- prose that names a line ----------------------------------------------------------
def test_prose_naming_a_line_its_block_does_not_show_fails(tmp_path: Path) -> None:
    text = f"Some text.\n\n{fence(SOURCE)}\nLine 11 prints the result.\n"
    assert reference_problems(text, PAGE, None) == [
        "docs/page.md:23: names line 11, but no block before it shows line numbers: point "
        "at highlighted lines (hl_lines) or annotation markers instead, or give the block "
        'linenums="1"'
    ]
    with pytest.raises(CodeBlockError, match="names line 11, but no block before it"):
        render(text)


def test_prose_may_name_a_line_the_block_numbers() -> None:
    numbered = fence(SOURCE, 'linenums="1"')
    text = f"{numbered}\nLines 11 and 12 print and show it.\n"
    assert reference_problems(text, PAGE, None) == []
    folded = fence(SOURCE, 'linenums="1" fold="1-8"') + "\nLine 4 makes x.\n"
    assert reference_problems(folded, PAGE, None) == [
        "docs/page.md:21: names line 4, which the block on line 1 does not show (it "
        "numbers lines 1-16 and folds 1-8)"
    ]


def test_no_page_names_a_line_it_does_not_show() -> None:
    problems = [
        p
        for page in page_files()
        for p in reference_problems(page.read_text("utf-8"), page.name, ROOT / "snippets")
    ]
    assert not problems, "\n".join(problems)


# -- what search reads of a block ----------------------------------------------------
def test_search_reads_a_blocks_names_not_its_text() -> None:
    page = render(
        "## Clipping\n\nThe norm, clipped with `clip_grad_norm_`:\n\n"
        '```python title="clip.py" fold="1-2"\n'
        "import torch\nfrom torch.amp import GradScaler\n"
        "model = torch.nn.Linear(2, 1)\n"
        "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
        "scaler = GradScaler()\nprint(scaler.get_scale())\n#> 65536.0\n```\n\n"
        "## Again\n\n```python\nmodel = torch.nn.Linear(2, 1)\n```\n"
    )
    assert page.count("<pre data-search-exclude") == 2
    names = re.findall(r'<p class="search-names" hidden>([^<]*)</p>', page)
    # Not the fold's names (torch.amp), not what prose named first (clip_grad_norm_),
    # not the plain variable called (model), not what only the print shows
    # (get_scale); the second block's names were all found before it on the page.
    assert names == ["Linear nn utils parameters max_norm GradScaler"], names
