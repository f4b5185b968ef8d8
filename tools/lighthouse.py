"""`make lighthouse`: Lighthouse 12.2.3 (mobile preset) on the home page, every page of
every chapter and each chapter's notebook page.

Builds the site, serves it on 127.0.0.1, runs Lighthouse with Debian's Chromium
(CHROME_PATH, else the Chromium the browser tests find) three times per page and prints the median run's
four scores, page weight and metrics, and the spread of the performance score.
`--runs N`, `--site DIR` (measure a site already built) and `--save DIR` (keep the
JSON reports, e.g. to read `mainthread-work-breakdown`) are for authors.
A benchmark, not a test: it asserts nothing. Installs Lighthouse into
tools/lighthouse/node_modules on first use (`npm ci`-style, exact version).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sitelib.site.layout import ROOT, chapters, mkdocs_build, page_url
from sitelib.site.static_site import find_chromium, serve

HERE = ROOT / "tools" / "lighthouse"
CLI = HERE / "node_modules" / ".bin" / "lighthouse"
FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def run_lighthouse(url: str, report: Path, env: dict) -> dict | None:
    """One Lighthouse run; its JSON report, or None when Lighthouse failed."""
    subprocess.run(
        [
            str(CLI),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={report}",
            f"--chrome-flags={FLAGS}",
            f"--only-categories={','.join(CATEGORIES)}",
        ],
        env=env,
        check=False,
        capture_output=True,
        timeout=300,
    )
    return json.loads(report.read_text()) if report.exists() else None


def summary(path: str, runs: list[dict]) -> str:
    """The median run by performance (as Lighthouse's docs advise), and the spread."""
    perf = sorted(round(100 * (r["categories"]["performance"]["score"] or 0)) for r in runs)
    data = sorted(runs, key=lambda r: r["categories"]["performance"]["score"] or 0)[len(runs) // 2]
    scores = [round(100 * (data["categories"][c]["score"] or 0)) for c in CATEGORIES]
    weight = data["audits"]["total-byte-weight"]["numericValue"] / 1024
    failing = [
        a["id"]
        for c in CATEGORIES[1:]
        for ref in data["categories"][c]["auditRefs"]
        if ref["weight"] and (a := data["audits"][ref["id"]])["score"] not in (1, None)
    ]
    metrics = " ".join(
        f"{key}={data['audits'][audit]['displayValue']}"
        for key, audit in (
            ("FCP", "first-contentful-paint"),
            ("LCP", "largest-contentful-paint"),
            ("TBT", "total-blocking-time"),
            ("CLS", "cumulative-layout-shift"),
        )
    )
    spread = f"  perf {perf[0]}-{perf[-1]} over {len(runs)}" if len(runs) > 1 else ""
    line = f"/{path:32} " + "  ".join(f"{s:4d}" for s in scores) + f"   {weight:5.0f} KiB"
    return line + f"  {metrics}{spread}" + (f"   ({', '.join(failing)})" if failing else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per page; the median is shown")
    parser.add_argument("--site", type=Path, help="a built site to measure instead of building")
    parser.add_argument("--save", type=Path, help="keep every JSON report in this folder")
    parser.add_argument(
        "pages", nargs="*", help="paths to measure, e.g. forward_pass/ (default: every page)"
    )
    args = parser.parse_args(argv)
    if not CLI.exists():
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=HERE, check=True
        )
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or Path(tmp) / "site"
        if not args.site:
            result = mkdocs_build(ROOT, site)
            if result.returncode:
                print(result.stderr[-3000:])
                return 1
        with serve(site, compress=True) as base:
            paths = args.pages or [
                "",
                *(page_url(page) for chapter in chapters() for page in chapter.pages),
                *(page_url(chapter.notebook) for chapter in chapters()),
            ]
            chrome = os.environ.get("CHROME_PATH") or str(find_chromium() or "chromium")
            env = dict(os.environ, CHROME_PATH=chrome)
            print(f"{'page':33} perf  a11y  best   seo   weight   (median of {args.runs} runs)")
            folder = args.save or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            for path in paths:
                runs = []
                for i in range(args.runs):
                    report = folder / f"{path.strip('/').replace('/', '_') or 'index'}-{i + 1}.json"
                    report.unlink(missing_ok=True)
                    if (data := run_lighthouse(base + path, report, env)) is not None:
                        runs.append(data)
                print(summary(path, runs) if runs else f"/{path:32} lighthouse failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
