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
    device_sim running an example on the CPU as if its device were a separate accelerator
    pytest_examples_adapter  the one place that uses pytest-examples' private names
    processes  fresh processes (forked from a server that imported torch) per example
    launch     multi-process examples, run as ranks and checked per rank
    notebooks  each chapter's companion notebook, generated from its snippets
    autograd_graph  pictures of the graph autograd recorded in an example, drawn at build time
    mathml     math rendered to MathML at build time (a Markdown extension)
    lean_code  highlighted code with fewer DOM nodes, same text and colours
    static_site  a built site served on 127.0.0.1 (browser tests, make lighthouse)
    torch_versions  the supported torch range (mkdocs.yml, extra.torch) and the
                    per-example report of `make test-torch` (--torch-report)

The virtual environment imports this package from the checkout (the Makefile
writes a ``.pth`` file into it), so hooks, tools and tests import it by name.
"""
