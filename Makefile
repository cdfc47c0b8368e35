# Conveniences over tasks.py (which needs nothing but Python): the README's commands
# are `python3 tasks.py report` and `python3 tasks.py test`.
PYTHON ?= python3

.PHONY: install report test bench clean

install:
	$(PYTHON) tasks.py install

report:
	$(PYTHON) tasks.py report

test:
	$(PYTHON) tasks.py test

bench:
	$(PYTHON) tasks.py bench

clean:
	rm -rf .venv build *.egg-info
