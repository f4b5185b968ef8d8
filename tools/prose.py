"""`make prose [PAGE=docs/x.md]`: every rule of the prose, for an author writing a page.

For the pages named (every chapter page by default): the sentence table
(:mod:`sitelib.site.readability`), then each problem the build would report on them,
naming page and line: over the sentence budget, a release named with nothing
backing it (:mod:`sitelib.site.releases`), a phrase that says how the site checked
something (:mod:`sitelib.site.provenance`), an outcome of an example that has not run
said as seen (:mod:`sitelib.site.reasoned`). Exits 1 when there is a problem.
"""

from __future__ import annotations

import sys

from sitelib.site.layout import ROOT
from sitelib.site.provenance import provenance_problems
from sitelib.site.readability import budget_problems, chapter_pages, measure, table
from sitelib.site.reasoned import reasoned_problems
from sitelib.site.releases import release_problems


def main(pages: list[str]) -> int:
    pages = [p if p.startswith("docs/") else f"docs/{p}" for p in pages] or chapter_pages()
    stats = measure(pages)
    print(table(stats))
    problems = budget_problems(stats)
    for page in pages:
        text = (ROOT / page).read_text("utf-8")
        problems += release_problems(text, page, ROOT / "snippets")
        problems += provenance_problems(text, page)
        problems += reasoned_problems(text, page, ROOT / "snippets")
    print()
    print("\n".join(problems) if problems else "No problem in the prose.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
