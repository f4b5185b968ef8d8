# Two commands for a fresh clone: `make serve` and `make test` (see README).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-lock
PYTEST_ARGS ?=
# Material prints an end-of-life notice for MkDocs 2; we stay on MkDocs 1.6 (CONTRIBUTING.md, "Adding a chapter").
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test test-torch test-complete test-launch check update check-page prose build bench lighthouse notebooks lock clean FORCE
# Where each run of the checks leaves its verification record, and the build reads
# them (sitelib/site/records.py; mkdocs.yml, extra.records).
RECORDS ?= .records

# The .pth file that puts this checkout on a venv's import path ($(1): the venv's python),
# and starts sitelib.check.reads in every process, which records what a process a test
# starts reads when the suite asks it to (tests/conftest.py, "Reusing results").
write-pth = $(1) -c 'import sys, sysconfig, pathlib; pathlib.Path(sysconfig.get_path("purelib"), "training-step-docs.pth").write_text(sys.argv[1] + "\nimport sitelib.check.reads\n")' "$(CURDIR)"

# (Re)install only when requirements.lock changed since the last install. The .pth file
# puts this checkout on the venv's import path, so tests, hooks, tools (and Zensical)
# import the site's library, sitelib/, by name.
$(STAMP): requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(call write-pth,$(BIN)/python)
	@touch $@

# The .pth file again when the Makefile (which writes it) changed since.
PTH_STAMP := $(VENV)/.written-pth
$(PTH_STAMP): Makefile $(STAMP)
	$(call write-pth,$(BIN)/python)
	@touch $@

serve: $(STAMP)
	$(BIN)/mkdocs serve --dirty --dev-addr 127.0.0.1:8000 --livereload

# Two processes: the built site's tests in one, everything else in the other (tests/conftest.py).
# A result is reused while every input it read is unchanged since it last ran on this
# machine (tests/conftest.py, "Reusing results"); ALL=1 runs everything, as CI does.
test: $(STAMP) $(PTH_STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup --records=$(RECORDS) \
	  $(if $(ALL),--run-all) $(PYTEST_ARGS)

# An author's loop: every check of one example (`make check FILE=snippets/x/y.py`, or a
# page's fences: FILE=docs/page.md), as the suite runs it: lint, run, output, shapes,
# gradients, devices, as on an accelerator, and as pasted in a fresh process.
# What `make check` and `make update` run: the examples as written and as pasted, the
# chapter's notebook against them (not executed), and that every snippet is on a page.
CHECK_TESTS := tests/test_examples.py tests/test_fresh.py tests/test_notebooks.py \
  tests/test_site.py::test_bookkeeping
check: $(STAMP) $(PTH_STAMP)
	@test -n "$(FILE)" || { echo "usage: make check FILE=snippets/forward_pass/call_vs_forward.py" >&2; exit 2; }
	$(BIN)/python -m pytest -q -p no:cacheprovider $(CHECK_TESTS) \
	  $(foreach f,$(FILE),--example=$(f)) $(PYTEST_ARGS)

# `make check`, writing the #> lines from the real run first: one snippet's
# (FILE=snippets/x/y.py) or every example a page shows (FILE=docs/page.md). Read the diff.
# Then the chapter's notebook is written again, running only the cells whose output
# changed, and checked as `make check` checks it.
update: $(STAMP)
	@test -n "$(FILE)" || { echo "usage: make update FILE=snippets/forward_pass/call_vs_forward.py" >&2; exit 2; }
	$(BIN)/python -m pytest -q -p no:cacheprovider $(filter-out tests/test_notebooks.py,$(CHECK_TESTS)) \
	  --update-examples $(foreach f,$(FILE),--example=$(f)) $(PYTEST_ARGS)
	$(BIN)/python -m sitelib.site.notebooks $(FILE)
	$(BIN)/python -m sitelib.site.notebooks --check $(FILE)

# One page's browser checks against the site `make build` left in site/ (build first
# after an edit): `make check-page PAGE=forward_pass/`, or several: PAGE="a/ a/b/" (PAGE= for
# the home page).
check-page: $(STAMP)
	@test -d site || { echo "no site/: run make build first" >&2; exit 2; }
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/browser --built-site=site \
	  --browser-pages "$(PAGE)" -m tour $(PYTEST_ARGS)

# `make test-torch VERSION=2.15.0` (or VERSION=latest, the newest release on the index):
# the example, notebook and site checks, not the browser ones, against that torch release
# in its own venv, .venv-torch-$(VERSION), with the rest of requirements.lock. Prints one
# line per example and a summary (tests/conftest.py, --torch-report). CONTRIBUTING.md, "Supported
# torch releases". PIP_CONSTRAINT=/dev/null: the release asked for is installed even where
# pip is configured with a constraints file that caps torch. TORCH_INDEX_URL: an extra
# index, e.g. https://download.pytorch.org/whl/cpu for the small CPU builds (CI does).
TORCH_INDEX_URL ?=
TORCH_TESTS := tests/test_examples.py tests/test_fresh.py tests/test_launch.py tests/test_notebooks.py \
  tests/test_pictures.py tests/test_plots.py tests/test_site.py tests/test_selftest.py tests/test_complete.py \
  tests/test_elastic.py tests/test_train_template.py
ifdef VERSION
# A release (2.15.0, 2.16.0rc1) or latest: letters, digits and dots, checked before use.
version-rest := $(VERSION)
$(foreach c,0 1 2 3 4 5 6 7 8 9 . a b c d e f g h i j k l m n o p q r s t u v w x y z,\
  $(eval version-rest := $(subst $(c),,$(version-rest))))
ifneq ($(version-rest)$(word 2,$(VERSION)),)
$(error VERSION must be a torch release (2.15.0) or latest, not '$(VERSION)')
endif
TORCH_VENV := .venv-torch-$(VERSION)
TORCH_PIN := torch$(if $(filter latest,$(VERSION)),,==$(VERSION))

# Installed once per lock file; VERSION=latest upgrades torch on every run.
$(TORCH_VENV)/.installed-lock: requirements.lock $(if $(filter latest,$(VERSION)),FORCE)
	@test -x $(TORCH_VENV)/bin/python || $(PYTHON) -m venv $(TORCH_VENV)
	{ grep -v '^torch==' requirements.lock; echo '$(TORCH_PIN)'; } > $(TORCH_VENV)/requirements.txt
	PIP_CONSTRAINT=/dev/null $(TORCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
	  $(if $(filter latest,$(VERSION)),--upgrade) $(if $(TORCH_INDEX_URL),--extra-index-url $(TORCH_INDEX_URL)) \
	  -r $(TORCH_VENV)/requirements.txt
	$(call write-pth,$(TORCH_VENV)/bin/python)
	@touch $@
endif

test-torch: $(if $(VERSION),$(TORCH_VENV)/.installed-lock)
	@test -n "$(VERSION)" || { echo "usage: make test-torch VERSION=2.15.0 (or VERSION=latest)" >&2; exit 2; }
	$(TORCH_VENV)/bin/python -m pytest -m "not browser" -p no:cacheprovider --torch-report \
	  --records=$(RECORDS) $(TORCH_TESTS) $(PYTEST_ARGS)

# The whole-step script (snippets/complete/train.py) in every combination of precision,
# compilation and processes, and its restarts and nodes (tests/test_complete.py and
# tests/test_elastic.py, --complete-matrix; `make test` runs a
# representative subset). VERSION=2.10.0 (or latest): against that torch release, in
# the venv `make test-torch` uses. The weekly workflow complete.yml runs it. The built
# page's check is left to `make test` (it needs a site build).
test-complete: $(if $(VERSION),$(TORCH_VENV)/.installed-lock,$(STAMP))
	$(if $(VERSION),$(TORCH_VENV),$(VENV))/bin/python -m pytest -p no:cacheprovider --complete-matrix \
	  --records=$(RECORDS) tests/test_complete.py tests/test_elastic.py \
	  --deselect tests/test_complete.py::test_excerpts_render_their_lines $(PYTEST_ARGS)

# Every multi-process example as pasted, RUNS times each under the real torchrun, to the
# end of every rank (tests/test_launch.py; `make test` runs each once). The weekly
# workflow launch.yml runs RUNS=10, enough to see a failure of one run in five.
RUNS ?= 10
test-launch: $(STAMP)
	$(BIN)/python -m pytest -p no:cacheprovider tests/test_launch.py -k under_torchrun \
	  --launch-runs $(RUNS) $(PYTEST_ARGS)

# Every rule of the prose for one page or several (PAGE=docs/x.md; every chapter page by
# default): the sentence table, then each problem, naming page and line (tools/prose.py).
prose: $(STAMP)
	$(BIN)/python tools/prose.py $(PAGE)

build: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

# Regenerate the stale notebooks in docs/notebooks/, running only their stale cells, linking
# to the published site: `SITE_URL=https://<owner>.github.io/<repo>/ make notebooks` (without
# SITE_URL, to the site each already links to). ARGS: chapters or files to limit it to,
# --all to run every cell again, --check to only report.
notebooks: $(STAMP)
	$(BIN)/python -m sitelib.site.notebooks $(ARGS)

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
