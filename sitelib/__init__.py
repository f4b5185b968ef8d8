"""The site's library: what the tests, the MkDocs hooks and the tools share.

The project has three layers, and imports only go down:

    content    docs/ (pages) and snippets/ (one runnable example per file)
    library    sitelib/ (this package)
    users      tests/ (the suite), hooks/ (MkDocs hooks), tools/ (benchmarks)

Modules:

    project    the layout: mkdocs.yml, nav, chapters, snippet includes, the strict build
    examples   finding examples (snippet files, page fences) and their marker comments
    shapes     shape comments (``# x: [B, 784]``) checked while an example runs
    checks     running one example and checking its output, shapes, gradients, devices
    notebooks  each chapter's companion notebook, generated from its snippets
    autograd_graph  pictures of the graph autograd recorded in an example, drawn at build time
    torch_versions  the supported torch range (mkdocs.yml, extra.torch) and the
                    per-example report of `make test-torch` (--torch-report)

The virtual environment imports this package from the checkout (the Makefile
writes a ``.pth`` file into it), so hooks, tools and tests import it by name.
"""
