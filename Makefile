# The course's two commands: `make lab` runs the course, `make test` installs and runs every test.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PIP     = $(PY) -m pip
JUPYTER_ARGS ?=
PYTEST_ARGS  ?=
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test test-fast bench venv install-course install-test clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

venv: $(VENV)/bin/python

install-course: venv
	$(PIP) install --quiet -e ".[course]"

install-test: venv
	$(PIP) install --quiet -e ".[course,test,oracles,cluster]"

lab: install-course
	$(VENV)/bin/jupyter lab --notebook-dir=course $(ROOT_FLAG) $(JUPYTER_ARGS)

# Unit, property, agreement and grader tests, doctests, and nbval over every course and solution notebook.
# LESSONLIB_TESTING=1 shortens long simulations in the notebooks and selects the static plot fallback.
NBVAL = --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
test: install-test
	LESSONLIB_TESTING=1 $(PY) -m pytest -q -n 2 --dist loadfile $(NBVAL) tests lessonlib course solutions $(PYTEST_ARGS)

test-fast: install-test
	LESSONLIB_TESTING=1 $(PY) -m pytest -q -x -m "not browser" tests lessonlib $(PYTEST_ARGS)

bench: install-test
	$(PIP) install --quiet -e ".[bench]" || echo "roboticstoolbox-python not installable: benchmarking without it"
	$(PY) benchmarks/bench_dynamics.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
