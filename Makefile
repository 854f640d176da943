# The course's two commands: `make lab` runs the course, `make test` installs and runs every test.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PIP     = $(PY) -m pip
JUPYTER_ARGS ?=
PYTEST_ARGS  ?=
BENCH_ARGS   ?=
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test test-fast bench mutation venv install-course install-test clean outputs outputs-check slides slidefit gallery translations book

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

venv: $(VENV)/bin/python

# The live slideshow's widget fix (lessonlib/labextension/): a wheel install copies it into the venv's
# share/jupyter/labextensions, an editable one does not (setuptools skips data files), so link it there.
LABEXT_SRC = $(CURDIR)/lessonlib/labextension/lessonlib-rise-widgets
LABEXT_DIR = $(VENV)/share/jupyter/labextensions/lessonlib-rise-widgets
define link-labextension
	rm -rf $(LABEXT_DIR) && mkdir -p $(dir $(LABEXT_DIR)) && ln -s $(LABEXT_SRC) $(LABEXT_DIR)
endef

install-course: venv
	$(PIP) install --quiet -e ".[course]"
	$(link-labextension)

install-test: venv
	$(PIP) install --quiet -e ".[course,test,oracles,fast,cluster,book]"
	$(link-labextension)

# `make lab LANG=zh` opens the Chinese edition (course/zh/, exercises/zh/); any other LANG (the locale's) the English.
COURSE_DIR = $(if $(filter zh zh_CN zh_CN.UTF-8,$(LANG)),course/zh,course)
SLIDES_LANG = $(if $(filter zh zh_CN zh_CN.UTF-8,$(LANG)),zh,en)

lab: install-course
	$(VENV)/bin/jupyter lab --notebook-dir=$(COURSE_DIR) $(ROOT_FLAG) $(JUPYTER_ARGS)

# Unit, property, agreement and grader tests, doctests, and nbval over every course and solution notebook.
# LESSONLIB_TESTING=1 shortens long simulations in the notebooks and selects the static plot fallback.
NBVAL = --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
test: install-test
	LESSONLIB_TESTING=1 $(PY) -m pytest -q -n 2 --dist loadfile $(NBVAL) --ignore=course/zh tests lessonlib tools course solutions $(PYTEST_ARGS)

test-fast: install-test
	LESSONLIB_TESTING=1 $(PY) -m pytest -q -x -m "not browser" tests lessonlib tools $(PYTEST_ARGS)

# Store course outputs from a FULL run (not test mode): `make outputs` (every lesson) or `make outputs LESSON=05`
# (several: LESSON="05 07"). `make outputs-check` only reports what is missing (course/README.md).
LESSON ?=
outputs: install-test
	$(PY) -m tools.outputs $(LESSON)

outputs-check: install-test
	$(PY) -m tools.outputs --check $(LESSON)

# Static decks (build/slides/NN_*.slides.html, offline, with the stored outputs) and handouts; then check they fit.
slides: install-test
	$(PY) -m tools.slides --lang $(SLIDES_LANG) $(LESSON)

# The book: a static site of the whole course in both languages (build/book/en/, build/book/zh/), from the stored
# outputs, readable offline (tools/book.py). `make book LESSON="05 07"` builds those lessons only.
book: install-test
	$(PY) -m tools.book $(if $(LESSON),--lessons $(LESSON))

# The Chinese edition: bring the catalogues (course/zh/*.po, exercises/zh/*.po) in step with the English notebooks,
# then write the Chinese notebooks from them (no re-execution: code and outputs are the English ones).
translations: install-test
	$(PY) -m tools.translations update
	$(PY) -m tools.translations build

# Slide fit at 1280×720 (tools/slidefit.py): every static deck (rebuilt first, English), then the live slideshow
# (jupyterlab-rise in a throw-away JupyterLab, lessons run in test mode) of the lessons in LESSON (default: all).
# On two shared cores about 3 min for the static decks, 1–3 min a lesson live: about 21 min in all; exit 1 on any finding.
slidefit: install-test
	$(PY) -m tools.slides --no-pdf
	$(PY) -m tools.slidefit --static --live $(LESSON) $(SLIDEFIT_ARGS)

# Every lesson run in a real JupyterLab + headless Chromium; every widget and figure saved to build/gallery/.
gallery: install-test
	$(PY) -m tools.gallery $(LESSON)

# Mutation testing of the grader's decision and wall modules (not part of `make test`; about half an hour on
# two cores): every survivor must be killed by a test or explained in lessonlib/grading/README.md.
# `make mutation MUTATE="verdict screening"` runs some modules only (python -m tools.mutation --list).
MUTATE ?=
mutation: install-test
	$(PIP) install --quiet -e ".[mutation]"
	$(PY) -m tools.mutation $(MUTATE)

bench: install-test
	$(PIP) install --quiet -e ".[bench]" || echo "roboticstoolbox-python not installable: benchmarking without it"
	$(PY) benchmarks/bench_dynamics.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
