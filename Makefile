# Build the site, test it, preview it.  `make help` lists the targets.
#
# PyTensor 3.1+ needs Python >= 3.12. We look for one (python3, python3.13, python3.12, then pyenv's
# versions); pass PYTHON=/path/to/python3.12 to choose.

FIND_PYTHON := for p in python3 python3.13 python3.12 $$HOME/.pyenv/versions/3.1[2-9]*/bin/python3; do \
  "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v "$$p"; break; }; done
PYTHON ?= $(shell $(FIND_PYTHON))
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= _build
SPHINXOPTS ?= -j 2
# -n: nitpicky, -W: warnings are errors, --keep-going: report them all before failing,
# -T: on a failing cell, print the cell and its traceback.
STRICT := -n -W --keep-going -T
# -a: write every page even when only some changed (the sitemap lists only the pages written;
# re-reading, and so re-executing, still happens only for changed sources).
SRC    ?= .
# One BLAS thread per notebook kernel: the build runs two kernels on two cores.
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export PYDEVD_DISABLE_FILE_VALIDATION = 1

.PHONY: help html test check serve clean bench venv nb page rtd inventories

help:
	@echo "make html    build the site into $(OUT)/html, executing every notebook"
	@echo "make test    build if needed, then check the built site (HTML, links, anchors, browser)"
	@echo "make check   the fast tests only (not marked slow) on the site already built: under a minute"
	@echo "make serve   preview $(OUT)/html on http://127.0.0.1:8000"
	@echo "make clean   remove $(OUT) (keeps $(VENV))"
	@echo "make bench   time clean and no-change builds, per-notebook execution, memory, page weight"
	@echo "make nb NB=notebooks/x.md [PARAMS='-p seed=1']   run one notebook alone, as in Jupyter"
	@echo "make page NB=notebooks/x.md   strict build executing only that page (while writing it)"
	@echo "make rtd     replay Read the Docs' build from .readthedocs.yaml (fresh virtualenv) in $(OUT)/rtd"
	@echo "make inventories   maintainers, with network: refresh docsite/inventories/ (intersphinx, read offline)"
	@echo "Python used: $(or $(PYTHON),none found)"

# requirements.txt: what the pages need (a reader installs only this); then the site's own package, docsite/
# (pyproject.toml), editable, for conf.py, the extensions, the tests and the tools.
$(VENV)/.build-deps: requirements.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "No Python >= 3.12 found (PyTensor 3.1+ needs it)."; \
	  echo "Install one (e.g. 'pyenv install 3.12') or pass PYTHON=/path/to/python3.12."; exit 1; }
	@"$(PYTHON)" -c 'import sys; sys.exit(sys.version_info < (3, 12))' || { echo "$(PYTHON) is \
	  $$("$(PYTHON)" -V 2>&1); PyTensor 3.1+ needs Python >= 3.12. Pass PYTHON=/path/to/python3.12."; exit 1; }
	@test -x $(BIN)/python || { echo "Creating $(VENV) with $(PYTHON)"; "$(PYTHON)" -m venv $(VENV); }
	@echo "Installing pinned dependencies into $(VENV) ..."
	@$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements.txt
	@$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps -e .
	@touch $@

$(VENV)/.test-deps: $(VENV)/.build-deps tests/requirements.txt
	@$(BIN)/python -m pip install -q --disable-pip-version-check -r tests/requirements.txt
	@touch $@

venv: $(VENV)/.build-deps

html: $(VENV)/.build-deps
	$(BIN)/sphinx-build -b html -a $(STRICT) $(SPHINXOPTS) -c . $(SRC) $(OUT)/html
	@$(BIN)/python -m docsite.build_id > $(OUT)/html/.build-id
	@echo "Site built: $(OUT)/html/index.html  (preview with 'make serve')"

# Builds first unless _build/html was built from exactly these sources (docsite/build_id.py).
test: $(VENV)/.test-deps
	@test "$$(cat $(OUT)/html/.build-id 2>/dev/null)" = "$$($(BIN)/python -m docsite.build_id)" \
	  || $(MAKE) --no-print-directory html
	$(BIN)/python -m pytest tests $(PYTEST_ARGS)

# The quick loop: every test not marked `slow` (tests/conftest.py says which are), on the site already in
# _build/html; it builds nothing (conftest's `site` fixture fails if that site is older than the sources).
check: $(VENV)/.test-deps
	$(BIN)/python -m pytest tests -m "not slow" $(PYTEST_ARGS)

serve:
	@test -f $(OUT)/html/index.html || $(MAKE) html
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory $(OUT)/html 8000

clean:
	rm -rf $(OUT)

# Maintainers only, with network: refresh the intersphinx inventories conf.py reads (the build never fetches them).
# Then update docsite/inventories/README.md (source, version, date) and rebuild with `make page NB=api/gradient.md`.
inventories: $(VENV)/.build-deps
	curl -fsSL -o docsite/inventories/python.inv https://docs.python.org/3/objects.inv
	curl -fsSL -o docsite/inventories/numpy.inv https://numpy.org/doc/stable/objects.inv
	$(BIN)/python -m docsite.pytensor_inventory
	@head -qn3 docsite/inventories/*.inv

# While writing a page: run it alone as a reader would (NB=notebooks/loop.md, optional PARAMS="-p seed=1"),
# or build the site executing only that page (into $(OUT)/page).
nb: $(VENV)/.build-deps
	$(BIN)/python -m docsite.run_notebook $(NB) $(PARAMS)

page: $(VENV)/.build-deps
	SITE_ONLY="$(NB)" $(BIN)/sphinx-build -b html $(STRICT) . $(OUT)/page-$(subst /,-,$(basename $(firstword $(NB))))

# Build time, per-notebook time, peak memory, rebuild time, page weight: figures into bench/RESULTS.md.
bench: $(VENV)/.test-deps
	$(BIN)/python -m docsite.bench

# Read the Docs' build as it runs it, from .readthedocs.yaml: a copy of the working tree, a fresh virtualenv from
# $(PYTHON), its install steps, then its build job; the site lands in $(OUT)/rtd/checkout/_readthedocs/html.
rtd: $(VENV)/.build-deps
	$(BIN)/python -m docsite.rtd_build --python "$(PYTHON)" --workdir $(OUT)/rtd
