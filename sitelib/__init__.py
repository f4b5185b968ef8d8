"""The site's library: what the tests, the MkDocs hooks and the tools share.

The project has three layers, and imports only go down:

    content    docs/ (pages) and snippets/ (one runnable example per file)
    library    sitelib/ (this package), in two halves
    users      tests/ (the suite), hooks/ (MkDocs hooks), tools/ (benchmarks)

**sitelib.site**, the build's half: it imports neither pytest nor pytest-examples,
and nothing of the check half (tests/test_site.py checks both, and that a build
imports no test framework).

    layout         the project's layout: mkdocs.yml, nav, the chapters, the snippet
                   files and pages (each walked once), includes, the strict build
    markdown_scan  a page's front matter, fences and prose (one rule for a fence's end)
    snippets       what a snippet says about itself: markers, device idiom, output
    codeblocks/    code blocks as readers need them (a Markdown extension): output,
                   lean spans, set-up folds, line references, search names
    mathml         math rendered to MathML at build time (a Markdown extension)
    errors         the error that stops a build (MkDocs' PluginError, or the site's own)
    pictures/      pictures of the autograd graph: directive, capture, graph, render
    notebooks      each chapter's companion notebook, generated from its snippets
    records        verification records: what ran where, read by the build
    torch_range    the supported torch releases (mkdocs.yml, extra.torch)
    torch_state    torch's global state, restored after an example ran
    static_site    a built site served on 127.0.0.1 (browser tests, make lighthouse)
    preview        make serve builds again only the pages an edit changed

**sitelib.check**, the checks' half:

    examples       the examples as pytest-examples' CodeExample (snippets, page fences)
    adapter        the one module that touches pytest-examples' private names
    run            running one example and checking it (the whole contract)
    output         printed output against the #> lines
    shapes         shape comments, checked by tracing
    leftovers      what an example leaves: its gradients and devices
    device_sim     running on the CPU as if the device were a separate accelerator
    outcomes       failures, skips, and when an example is skipped
    processes/     fresh processes forked from a server that imported torch
    launch         multi-process examples, run as ranks and checked per rank
    report         a run's results: the torch report, the verification record

The virtual environment imports this package from the checkout (the Makefile
writes a ``.pth`` file into it), so hooks, tools and tests import it by name.
"""
