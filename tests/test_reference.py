"""API names in prose link to the torch reference of the build's release
(sitelib/site/reference.py): which code is an API name, the URL rule against a
sample of torch's own documentation, a misspelt name failing the build, and the
built site's links (how many names, none to /stable/)."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

from sitelib.site import reference
from sitelib.site.layout import ROOT, fixture_project, mkdocs_build, zensical_build
from sitelib.site.reference import (
    ALIASES,
    ReferenceError,
    link_for,
    linked_names,
    qualified_name,
    reference_url,
    release,
    written_name,
)

FIXTURES = ROOT / "tests" / "fixtures"
BASE = f"https://docs.pytorch.org/docs/{release()}/"

# Where torch's documentation (its docs/source/*.md, built by Sphinx: autosummary
# ``:toctree: generated`` gives a page of its own, autoclass/autofunction an anchor on
# the module's page) puts each of these names; the site's hand-written links to
# /stable/ agreed. The rule must give exactly these.
SAMPLE = {
    # autograd.md
    "torch.autograd.grad": "generated/torch.autograd.grad.html",
    "torch.autograd.graph.saved_tensors_hooks": (
        "autograd.html#torch.autograd.graph.saved_tensors_hooks"
    ),
    "torch.autograd.detect_anomaly": "autograd.html#torch.autograd.detect_anomaly",
    "torch.autograd.Function": "autograd.html#torch.autograd.Function",
    "torch.autograd.gradcheck.gradcheck": "generated/torch.autograd.gradcheck.gradcheck.html",
    "torch.Tensor.register_hook": "generated/torch.Tensor.register_hook.html",
    "torch.Tensor.backward": "generated/torch.Tensor.backward.html",
    # amp.md: torch.autocast and the deprecated scalers are autoclass'd there
    "torch.autocast": "amp.html#torch.autocast",
    "torch.amp.custom_fwd": "amp.html#torch.amp.custom_fwd",
    "torch.cuda.amp.GradScaler": "amp.html#torch.cuda.amp.GradScaler",
    "torch.amp.GradScaler": "amp.html#gradient-scaling",
    # optim.md: the Optimizer's methods and the algorithms have pages of their own
    "torch.optim.Optimizer.zero_grad": "generated/torch.optim.Optimizer.zero_grad.html",
    "torch.optim.Optimizer.step": "generated/torch.optim.Optimizer.step.html",
    "torch.optim.AdamW": "generated/torch.optim.AdamW.html",
    "torch.optim.lr_scheduler.StepLR": "generated/torch.optim.lr_scheduler.StepLR.html",
    "torch.optim": "optim.html",
    # the site's hand-written links
    "torch.nn.Module.zero_grad": "generated/torch.nn.Module.html#torch.nn.Module.zero_grad",
    "torch.nn.parallel.DistributedDataParallel": (
        "generated/torch.nn.parallel.DistributedDataParallel.html"
    ),
    "torch.nn.SyncBatchNorm": "generated/torch.nn.SyncBatchNorm.html",
    "torch.nn.utils.clip_grad_norm_": "generated/torch.nn.utils.clip_grad_norm_.html",
    "torch.distributed.all_gather_object": "distributed.html#torch.distributed.all_gather_object",
    "torch.utils.data.distributed.DistributedSampler": (
        "data.html#torch.utils.data.distributed.DistributedSampler"
    ),
    "torch.distributed.fsdp.MixedPrecisionPolicy": (
        "distributed.fsdp.fully_shard.html#torch.distributed.fsdp.MixedPrecisionPolicy"
    ),
    "torch.use_deterministic_algorithms": "generated/torch.use_deterministic_algorithms.html",
    "torch.load": "generated/torch.load.html",
    "torch.utils.checkpoint": "checkpoint.html",
    "torch.finfo": "type_info.html#torch.finfo",
}


def sample_problems(sample: dict[str, str], version: str = "2.13.0") -> list[str]:
    """Each sampled name whose URL the rule gives differently."""
    base = f"https://docs.pytorch.org/docs/{release(version)}/"
    problems = []
    for name, page in sample.items():
        try:
            got = reference_url(name, version=version)
        except LookupError as e:
            got = f"(none: {e})"
        if got != base + page:
            problems.append(f"{name}: the rule gives {got}, torch's docs have {base + page}")
    return problems


def test_the_url_rule_gives_the_sampled_pages() -> None:
    problems = sample_problems(SAMPLE)
    assert not problems, "\n".join(problems)


def test_the_sample_check_catches_a_wrong_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(reference.PAGES, "torch.autograd.graph.")
    assert sample_problems(SAMPLE) == [
        "torch.autograd.graph.saved_tensors_hooks: the rule gives "
        f"{BASE}generated/torch.autograd.graph.saved_tensors_hooks.html, torch's docs have "
        f"{BASE}autograd.html#torch.autograd.graph.saved_tensors_hooks"
    ]


def test_the_release_is_major_and_minor() -> None:
    assert release("2.13.0") == "2.13"
    assert release("2.15.0+cpu") == "2.15"
    assert release("2.16.0rc1") == "2.16"


@pytest.mark.parametrize(
    "code, written, qualified",
    [
        ("nn.Linear", "nn.Linear", "torch.nn.Linear"),
        ("nn.Linear(28, 128)", "nn.Linear()", "torch.nn.Linear"),
        ("backward()", "backward()", "torch.Tensor.backward"),
        ("backward", "backward", None),  # a Function's, as often as a tensor's
        ("F.cross_entropy", "F.cross_entropy", "torch.nn.functional.cross_entropy"),
        ("dist.barrier()", "dist.barrier()", "torch.distributed.barrier"),
        ("optimizer.step()", "optimizer.step()", "torch.optim.Optimizer.step"),
        ("scaler.step(optimizer)", "scaler.step()", "torch.amp.GradScaler.step"),
        ("model.train()", "model.train()", "torch.nn.Module.train"),
        (".grad", ".grad", "torch.Tensor.grad"),
        ("torch.load(path, weights_only=True)", "torch.load()", "torch.load"),
        ("GradScaler", "GradScaler", "torch.amp.GradScaler"),
        # not API names: variables, expressions, keyword arguments, chained calls
        ("logits", "logits", None),
        ("model(x)", "model()", None),
        ("set_to_none=True", None, None),
        ("x @ w", None, None),
        ("scaler.scale(loss).backward()", None, None),
        ("torch._dynamo.explain(fn)(*args)", None, None),
        ("1e-8", None, None),
    ],
)
def test_which_code_is_an_api_name(code: str, written, qualified) -> None:
    assert written_name(code) == written
    assert (qualified_name(written) if written else None) == qualified


def test_every_alias_names_something_torch_has() -> None:
    problems = [
        f"{a} -> {q}: {link_for(q)[1:]}" for a, q in ALIASES.items() if link_for(q)[0] == "!"
    ]
    assert not problems, "\n".join(problems)


def render(source: str) -> str:
    return markdown.markdown(source, extensions=["admonition", "sitelib.site.reference"])


def test_first_mention_in_each_section_links_and_nothing_else_does() -> None:
    html = render(
        "Use `nn.Linear` and `nn.Linear(4, 2)`, not `logits`.\n\n"
        "## A section with `nn.Linear` in its heading\n\n"
        "Here `nn.Linear` again, and a [link](https://docs.pytorch.org/docs/stable/nn.html).\n\n"
        "    nn.Linear  # an indented code block\n\n"
        '!!! note "About `nn.Linear`"\n    `torch.optim.SGD` in a note.\n'
    )
    linked = re.findall(r'<a class="ref" href="([^"]+)"[^>]*><code>([^<]+)</code></a>', html)
    url = f"{BASE}generated/torch.nn.Linear.html"
    assert linked == [
        (url, "nn.Linear"),
        (url, "nn.Linear"),
        (f"{BASE}generated/torch.optim.SGD.html", "torch.optim.SGD"),
    ], html
    assert "<code>nn.Linear(4, 2)</code>" in html  # the second mention in its section
    assert "<h2>A section with <code>nn.Linear</code> in its heading</h2>" in html
    assert "<code>logits</code>" in html
    assert f'href="{BASE}nn.html"' in html  # hand-written links name the release too
    assert "/stable/" not in html


def test_a_misspelt_name_fails_with_its_line() -> None:
    with pytest.raises(ReferenceError) as raised:
        render("Fine: `nn.Linear`.\n\nMisspelt: `nn.Linaer`.\n")
    assert str(raised.value) == (
        "<markdown>:3: `nn.Linaer` names no torch API: "
        "torch has no torch.nn.Linaer (torch.nn has no Linaer)"
    )


def test_under_an_older_torch_a_name_it_lacks_is_left_unlinked(monkeypatch) -> None:
    """make test-torch VERSION=2.10.0 builds pages that name 2.13's APIs: no failure
    there, and no link; under the pinned torch the same name fails (above)."""
    from sitelib.site import reference

    monkeypatch.setattr(reference, "older_than_pinned", lambda: True)
    assert "<a" not in render("Misspelt, or newer: `nn.Linaer`.\n")


BAD_REFERENCE = (
    "docs/index.md:13: `nn.Linaer(4, 2)` names no torch API: "
    "torch has no torch.nn.Linaer (torch.nn has no Linaer)"
)


def test_a_misspelt_name_fails_the_mkdocs_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURES / "site_bad_reference")
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    assert BAD_REFERENCE in result.stderr, result.stderr[-2000:]


def test_a_misspelt_name_fails_the_zensical_build(tmp_path: Path) -> None:
    project = fixture_project(tmp_path / "project", FIXTURES / "site_bad_reference")
    result = zensical_build(project)
    assert result.returncode != 0
    assert BAD_REFERENCE in result.stdout + result.stderr, (result.stdout + result.stderr)[-2000:]


# -- the built site -------------------------------------------------------------------------
MOST_LINKED = 150  # the floor: distinct API names linked from the pages


def site_links(site: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(site.rglob("*.html")):
        found |= linked_names(path.read_text("utf-8"))
    return found


def stable_links(site: Path) -> list[str]:
    return [
        f"{path.relative_to(site)}: {m[0]}"
        for path in sorted(site.rglob("*.html"))
        for m in re.finditer(
            r"docs\.pytorch\.org/docs/(?!\d+\.\d+/)[^\"'\s<]*", path.read_text("utf-8")
        )
    ]


def test_the_pages_link_many_names_to_the_builds_release(built_site) -> None:
    _, site = built_site
    names = site_links(site)
    assert len(names) >= MOST_LINKED, f"{len(names)} names linked: {sorted(names)}"
    wrong = [f"{n}: {h}" for n, h in names.items() if not h.startswith(BASE)]
    assert not wrong, "\n".join(wrong)


def test_no_page_links_a_moving_release(built_site) -> None:
    _, site = built_site
    problems = stable_links(site)
    assert not problems, "\n".join(problems)


def test_the_stable_check_catches_a_stable_link(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        '<a href="https://docs.pytorch.org/docs/stable/amp.html">amp</a>'
        '<a href="https://docs.pytorch.org/docs/2.13/amp.html">amp</a>',
        "utf-8",
    )
    assert stable_links(tmp_path) == ["page.html: docs.pytorch.org/docs/stable/amp.html"]
    assert site_links(tmp_path) == {}
