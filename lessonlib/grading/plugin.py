"""The pytest plugin (entry point ``pytest11``): grade notebooks with nbval as the engine.

**Grading mode** — ``--lessonlib-reference SOLUTION.ipynb``: every other ``.ipynb`` given to pytest
is a submission; each becomes one test item per check (``sub.ipynb::rnea-static``) that passes
iff the check earned its points. Each submission is graded once, in its own graded run
(:func:`lessonlib.grading.grader.grade_submission`: judge + ``pytest --nbval`` in a subprocess);
``--lessonlib-jobs N`` grades N at a time up front with a progress bar. ``--lessonlib-out``,
``--lessonlib-json`` and ``--lessonlib-feedback`` write the gradebook, the results and the
feedback files at the end (not under pytest-xdist: use ``lessonlib-grade`` for that)::

    pytest -p lessonlib.grading.plugin --lessonlib-reference solutions/05_rnea.ipynb submissions/ \\
           --lessonlib-out grades.csv --lessonlib-jobs 2

Without ``--lessonlib-reference`` the plugin does nothing. (What runs inside the nbval process of
each graded run is a different plugin, :mod:`.runner.guard`.)
"""
from __future__ import annotations

import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("lessonlib", "lessonlib grading")
    group.addoption("--lessonlib-reference", default=None, metavar="SOLUTION.ipynb",
                    help="grade the given notebooks against this reference (solution) notebook")
    group.addoption("--lessonlib-out", default=None, metavar="CSV", help="write the gradebook CSV here")
    group.addoption("--lessonlib-json", default=None, metavar="JSON", help="write the results JSON here")
    group.addoption("--lessonlib-feedback", default=None, metavar="DIR", help="write feedback files here")
    group.addoption("--lessonlib-jobs", default=1, type=int, metavar="N", help="grade N submissions at a time")
    group.addoption("--lessonlib-timeout", default=600.0, type=float, help="seconds per notebook")
    group.addoption("--lessonlib-cell-timeout", default=60.0, type=float, help="seconds per cell")


# --- grading mode: submissions as test items ----------------------------------------------------

class GradeFailure(Exception):
    """A check that did not earn its points."""


class _Grading:
    def __init__(self, config):
        from .grader import Options                      # noqa: PLC0415
        from .notebook import load_reference              # noqa: PLC0415
        opt = config.option
        self.reference_path = os.path.realpath(opt.lessonlib_reference)
        try:
            self.reference = load_reference(opt.lessonlib_reference)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        self.options = Options(cell_timeout=opt.lessonlib_cell_timeout, timeout=opt.lessonlib_timeout)
        self.jobs = opt.lessonlib_jobs
        self.results = {}                                 # path -> SubmissionResult
        self.config = config
        self._shared = None

    @property
    def shared(self):
        """The sandbox and walls every submission of this session shares (made once, when first needed)."""
        if self._shared is None:
            from .grader import prepare                   # noqa: PLC0415
            self._shared = prepare(self.reference, self.options)
        return self._shared

    def grade(self, path):
        from .grader import grade_submission              # noqa: PLC0415
        key = os.fspath(path)
        if key not in self.results:
            self.results[key] = grade_submission(self.reference, key, self.options, shared=self.shared)
        return self.results[key]

    @pytest.hookimpl
    def pytest_collect_file(self, file_path, parent):
        if file_path.suffix == ".ipynb" and os.path.realpath(file_path) != self.reference_path \
                and ".ipynb_checkpoints" not in file_path.parts:
            return SubmissionFile.from_parent(parent, path=file_path)
        return None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session):
        paths = list(dict.fromkeys(os.fspath(item.path) for item in session.items if isinstance(item, CheckItem)))
        if self.jobs > 1 and paths and not hasattr(self.config, "workerinput"):
            from .grader import grade_batch              # noqa: PLC0415
            graded = grade_batch(self.reference, [(os.path.basename(p), p) for p in paths], self.options,
                                 jobs=self.jobs, progress=True, shared=self.shared)
            self.results.update(zip(paths, graded))
        return (yield)

    @pytest.hookimpl
    def pytest_sessionfinish(self, session):
        from .report import reports                       # noqa: PLC0415
        if self._shared is not None:
            self._shared.close()
        if hasattr(self.config, "workerinput") or not self.results:
            return
        results = list(self.results.values())
        opt = self.config.option
        if opt.lessonlib_out:
            reports.write_csv(results, opt.lessonlib_out)
        if opt.lessonlib_json:
            reports.write_json(results, opt.lessonlib_json)
        if opt.lessonlib_feedback:
            reports.write_feedback(results, opt.lessonlib_feedback)

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter):
        from .report.reports import summary_table         # noqa: PLC0415
        if self.results:
            terminalreporter.write_sep("=", "lessonlib grades")
            terminalreporter.write_line(summary_table(list(self.results.values())))


class SubmissionFile(pytest.File):
    """A submission notebook: one item per check of the reference."""

    def collect(self):
        grading = self.config.pluginmanager.get_plugin("lessonlib-grading")
        for c in grading.reference.checks:
            yield CheckItem.from_parent(self, name=c.id, check_id=c.id)


class CheckItem(pytest.Item):
    """One check of one submission: passes iff it earned its points."""

    def __init__(self, *, check_id, **kwargs):
        super().__init__(**kwargs)
        self.check_id = check_id

    def runtest(self):
        grading = self.config.pluginmanager.get_plugin("lessonlib-grading")
        result = grading.grade(self.path).checks[self.check_id]
        self.user_properties += [("points", result.points), ("max_points", result.max_points),
                                 ("status", result.status)]
        if result.status != "passed":
            raise GradeFailure(f"{result.status}: {result.points}/{result.max_points}\n{result.message}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, GradeFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.check_id}"


# --- registration ---------------------------------------------------------------------------------

def pytest_configure(config):
    if getattr(config.option, "lessonlib_reference", None):
        config.pluginmanager.register(_Grading(config), "lessonlib-grading")
