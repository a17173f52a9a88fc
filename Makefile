# Quick start: `make demo` (train, then evaluate against the oracle) and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q -c constraints.txt

.PHONY: install test demo bench baselines lint clean

$(PY):
	$(PYTHON) -m venv $(VENV)

install: $(PY)
	$(PIP) -e ".[train,dev,ray,interop]"

test: install
	$(PY) -m pytest

demo: install
	$(VENV)/bin/tabletop-gym demo cribbage --out runs/demo

bench: install
	$(VENV)/bin/tabletop-gym bench cribbage

baselines: install
	$(VENV)/bin/tabletop-gym baselines --out runs/baselines

lint: install
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) runs .pytest_cache
