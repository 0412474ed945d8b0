# Two commands on a fresh machine with Python 3.11 and pip:
#   make run   -> .venv + requirements, then the dashboard on http://localhost:8501 (PROCESSES=4: behind nginx)
#   make test  -> .venv + requirements, then the whole pytest suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.requirements-installed
PORT   ?= 8501
ARGS   ?=

.PHONY: run lint test docs bench bench-peers bench-proximity-peers clean lock

# The environment is installed from the lock (requirements.lock: every package pinned, with its hashes), so a fresh
# machine gets what the tests last passed on; requirements.txt holds the ranges the lock is compiled from.
$(STAMP): requirements.lock pyproject.toml setup.py mvlab/core/version.py mvlab/_compiled/traverse.c
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q --upgrade pip
	$(PY) -m pip install --disable-pip-version-check -q --require-hashes -r requirements.lock
	$(PY) -m pip install --disable-pip-version-check -q --no-deps -e .
	@touch $(STAMP)

# A new lock from the ranges of requirements.txt, the newest releases they allow (uv's pip compile, for Python 3.11
# on every platform); then make test, and commit both if it passes.
lock:
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q uv
	$(VENV)/bin/uv pip compile requirements.txt --universal --python-version 3.11 --generate-hashes --upgrade \
	  -o requirements.lock

# PROCESSES=N (N > 1): N Streamlit processes on one engine and one store behind nginx on PORT (a lecture hall:
# docs/guide/dashboard.md); needs Debian's nginx. mvlab.ui.launch is `streamlit run` with the job engine and the
# pages' modules made ready as the server starts, not at its first visitor
PROCESSES ?= 1
run: $(STAMP)
ifeq ($(PROCESSES),1)
	$(PY) -m mvlab.ui.launch run app.py --server.port $(PORT) --browser.gatherUsageStats false $(ARGS)
else
	$(PY) -m mvlab serve --processes $(PROCESSES) --port $(PORT)
endif

# ruff's rules are in pyproject.toml ([tool.ruff]); the tests run only on code that passes them
lint: $(STAMP)
	$(VENV)/bin/ruff check .

# The suite on TEST_WORKERS processes (pytest-xdist), each given whole test files, the longest first
# (tests/conftest.py: LONGEST_FIRST): a file's servers, browser and clusters are started once, on one worker.
# Budget: 12 minutes on a fresh clone of a 2-core machine (README). TEST_WORKERS=0: one process, as before;
# TEST_ARGS: more pytest options (TEST_ARGS="-k lesson").
TEST_WORKERS ?= 2
test: lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(TEST_ARGS)

# The documentation site: Sphinx (numpydoc, MyST guides, sphinx-gallery runs examples/) into docs/_build/html.
# Warnings are errors, as in CI (.ci/run).
DOCS_STAMP := $(VENV)/.docs-requirements-installed
$(DOCS_STAMP): requirements-docs.txt $(STAMP)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements-docs.txt
	@touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html
	@echo "the site: docs/_build/html/index.html"

# bench_peers builds its own venvs (.venv-peers: DF21 and DESlib pin old libraries; .venv-treeple: treeple needs
# scikit-learn 1.6) and takes ~30 min,
# so it has its own target; so does bench_proximity_peers (.venv-forestgeom: forestgeom is GPL, never a dependency).
bench: $(STAMP)
	@for f in bench/bench_*.py; do case $$f in *bench_peers.py|*bench_proximity_peers.py) continue;; esac; \
	  echo "== $$f"; $(PY) $$f || exit 1; done

bench-peers: $(STAMP)
	$(PY) bench/bench_peers.py

bench-proximity-peers: $(STAMP)
	$(PY) bench/bench_proximity_peers.py

clean:
	rm -rf $(VENV) .venv-peers .venv-treeple .venv-forestgeom .pytest_cache docs/_build docs/generated docs/auto_examples
