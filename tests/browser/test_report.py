""" "Report a problem" (sitelib/site/report.py): every page links to the repository's
issue form once, and so does every block that shows a Python file; each link's query
parameters are field ids of .github/ISSUE_TEMPLATE/report-a-problem.yml (read from
the YAML) and say the page, the block's file, the torch release the site was built
with and its commit. On a fork's build the links name the fork. Nothing is asked of
another host until the reader clicks one."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from sitelib.site.layout import ROOT, mkdocs_build
from sitelib.site.report import TEMPLATE, parameter_problems, site_commit, site_torch
from sitelib.site.static_site import serve

REPORT_LINKS = (Path(__file__).parent / "probes" / "report_links.js").read_text("utf-8")
FORK = {
    "REPO_URL": "https://github.com/a-fork/training-step-docs",
    "SITE_URL": "https://a-fork.github.io/training-step-docs/",
    "REPO_NAME": "training-step-docs",
}


def report_problems(
    tab, path: str, repo_url: str, site_url: str, commit: str | None = None
) -> tuple[int, list[str]]:
    """(how many links were checked, what is wrong with them) on one page. ``commit``:
    the commit the site was built from, when the test built it (a site ``make build``
    left may be older than the checkout); any commit's hash otherwise."""
    found = tab.page.evaluate(REPORT_LINKS)
    links, problems = found["links"], []
    where = f"/{path}"
    own = [link for link in links if link["file"] is None]
    if len(own) != 1:
        problems.append(f"{where}: {len(own)} page-level 'Report a problem' links, not 1")
    blocks = [link for link in links if link["file"] is not None]
    if len(blocks) < found["pyBlocks"]:
        problems.append(
            f"{where}: {found['pyBlocks']} Python files shown, {len(blocks)} report links"
        )
    for link in links:
        url = link["href"]
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        problems += [f"{where}: {p}" for p in parameter_problems(url)]
        form = f"{repo_url.rstrip('/')}/issues/new"
        if f"{parts.scheme}://{parts.netloc}{parts.path}" != form:
            problems.append(f"{where}: {url} does not open {form}")
        if query.get("page") != site_url + path:
            problems.append(f"{where}: {url}: page={query.get('page')!r}, not {site_url + path!r}")
        if link["file"] and not query.get("block", "").endswith(link["file"]):
            problems.append(f"{where}: {url}: block={query.get('block')!r} for {link['file']}")
        if query.get("site-torch") != site_torch():
            problems.append(f"{where}: {url}: site-torch={query.get('site-torch')!r}")
        sha = query.get("site-commit") or ""
        if sha != (commit or sha) or not re.fullmatch(r"[0-9a-f]{40}", sha):
            problems.append(f"{where}: {url}: site-commit={query.get('site-commit')!r}")
    return len(links), problems


def page_check_report(tab, path: str) -> tuple[int, list[str]]:
    config = tab.config  # as the site was built (the tour's built_config)
    return report_problems(tab, path, config["repo_url"], config["site_url"])


def test_every_page_and_block_reports_to_the_issue_form(tour) -> None:
    checked = sum(n for (check, _), n in tour.counts.items() if check == "report")
    assert checked >= len(tour.pages), f"{checked} report links on {len(tour.pages)} pages"
    assert not tour.problems["report"], "\n".join(tour.problems["report"])


def test_the_report_check_catches_broken_links(fixture_page) -> None:
    tab = fixture_page("report.html")
    count, problems = report_problems(
        tab,
        "report.html",
        "https://github.com/example/training-step-docs",
        "https://example.github.io/training-step-docs/",
    )
    assert count == 2
    text = "\n".join(problems)
    assert "2 Python files shown, 1 report links" in text
    assert (
        "the parameter 'torch-version' names no field of "
        ".github/ISSUE_TEMPLATE/report-a-problem.yml" in text
    )
    assert "opens 'bug.yml', not report-a-problem.yml" in text
    assert "does not open https://github.com/example/training-step-docs/issues/new" in text
    assert "site-commit=None" in text


@pytest.fixture(scope="module")
def fork_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("fork") / "site"
    result = mkdocs_build(ROOT, site, env=dict(os.environ, **FORK))
    assert result.returncode == 0, result.stderr[-3000:]
    return site


def test_a_forks_site_reports_to_the_fork_and_only_on_a_click(visit, fork_site) -> None:
    with serve(fork_site) as url:
        visit.base = url  # the fork's build, on a server of its own
        for path in ("", "forward_pass/", "distributed/fsdp2/"):
            visit.goto(path, idle=True)
            count, problems = report_problems(
                visit, path, FORK["REPO_URL"], FORK["SITE_URL"], site_commit()
            )
            assert count and not problems, "\n".join(problems)
        assert visit.foreign == [], "a page asked another host for something"
        link = visit.page.locator("p.page-report a")
        href = link.get_attribute("href")
        assert href.startswith(f"{FORK['REPO_URL']}/issues/new?template={TEMPLATE}&")
        with visit.page.expect_request(lambda r: "127.0.0.1" not in r.url) as asked:
            link.click(no_wait_after=True)
        assert asked.value.url == href  # the click asks for the form, and nothing else did
