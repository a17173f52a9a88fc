# Quick start: `make demo` (train, then evaluate against the oracle) and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q -c constraints.txt

.PHONY: install test docs demo bench baselines baselines-large lint clean

$(PY):
	$(PYTHON) -m venv $(VENV)

install: $(PY)
	$(PIP) -e ".[train,dev,ray,interop,dataset,docs,multiagent,render,video]"

# The tests build the docs site in strict mode too (tests/test_docs.py), so a broken link or API
# reference fails `make test`; `make docs` builds it into site/ to read.
test: install
	$(PY) -m pytest

docs: install
	$(PY) -m mkdocs build --strict --site-dir site

demo: install
	$(VENV)/bin/tabletop-gym demo cribbage --out runs/demo

bench: install
	$(VENV)/bin/tabletop-gym bench cribbage

baselines: install
	$(VENV)/bin/tabletop-gym baselines --budget small --out runs/baselines

baselines-large: install
	$(VENV)/bin/tabletop-gym baselines --budget large --out runs/baselines-large

lint: install
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) runs site .pytest_cache
