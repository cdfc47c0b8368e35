# The two commands of the README: `make report` (the main job) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: install report test bench clean

$(BIN)/simkit: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(BIN)/simkit

install: $(BIN)/simkit

report: install
	$(BIN)/python -m simkit.reports reports

test: install
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/bench_dying.py
	$(BIN)/python bench/bench_encounter.py
	$(BIN)/python bench/bench_sweep.py

clean:
	rm -rf $(VENV) build *.egg-info
