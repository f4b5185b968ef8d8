# Two commands for a fresh clone: `make serve` and `make test` (see README).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-lock
PYTEST_ARGS ?=
# Material prints an end-of-life notice for MkDocs 2; we stay on MkDocs 1.6 (README, Contributing).
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test build bench lighthouse notebooks lock clean

# (Re)install only when requirements.lock changed since the last install. The .pth file
# puts this checkout on the venv's import path, so tests, hooks, tools (and Zensical)
# import the site's library, sitelib/, by name.
$(STAMP): requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -c 'import sys, sysconfig, pathlib; pathlib.Path(sysconfig.get_path("purelib"), "training-step-docs.pth").write_text(sys.argv[1] + "\n")' "$(CURDIR)"
	@touch $@

serve: $(STAMP)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000 --livereload

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

build: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

# Regenerate docs/notebooks/ from the chapters' snippets (executed, with outputs).
notebooks: $(STAMP)
	$(BIN)/python -m sitelib.notebooks

bench: $(STAMP)
	$(BIN)/python tools/bench.py $(ARGS)

lighthouse: $(STAMP)
	$(BIN)/python tools/lighthouse.py $(ARGS)

# Re-resolve pyproject.toml's dependencies in a scratch venv and pin the result.
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --disable-pip-version-check \
	  $$($(PYTHON) -c "import tomllib; print(' '.join(repr(d) for d in tomllib.load(open('pyproject.toml','rb'))['project']['dependencies']))")
	{ sed -n '1,3p' requirements.lock; .lock-venv/bin/python -m pip freeze --exclude-editable \
	  | sed -E 's/^(torch==[0-9.]+)\+cpu$$/\1/'; } > requirements.lock.new
	mv requirements.lock.new requirements.lock && rm -rf .lock-venv

clean:
	rm -rf site .pytest_cache
