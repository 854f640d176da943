"""The checker framework: an exercise module declares its checks, the grader and the preview run them.

A check is a function ``run(ctx, *student_functions)`` registered on an :class:`Exercise`. It draws
its random inputs from ``ctx.rng``, calls the student's functions, compares with the library's
reference implementation or an independent identity (``ctx.expect_close``), and returns; any
disagreement raises :class:`~lessonlib.grading.client.CheckFailed` with an expected-vs-got message.

The same function runs in two places:

* in the **judge** process of a graded run (the student's functions are proxies that send the
  inputs to the kernel and receive plain data back; ``ctx.rng`` is seeded from the judge's secret);
* in the student's kernel as a **preview** (the real functions, with the same plain-data round
  trip; ``ctx.rng`` is seeded from the student id and the check id).

So a check must only talk to the student through the functions it receives, and must get every
random number from ``ctx.rng``.

>>> ex = Exercise("demo", notebook="demo.ipynb", title="demo")
>>> @ex.check("demo-square", points=1, functions=("square",), title="squares a number")
... def _(ctx, square):
...     x = ctx.rng.uniform(1, 2)
...     ctx.expect_close("square(x)", ctx.call(square, x=x), x * x, atol=1e-9)
>>> good = lambda args, kwargs: kwargs["x"] ** 2
>>> bad = lambda args, kwargs: kwargs["x"] * 2
>>> run_check(ex.checks["demo-square"], [good], seed=1, student="s").line
'✓ [demo-square] squares a number — passed (1/1 point)'
>>> v = run_check(ex.checks["demo-square"], [bad], seed=1, student="s")
>>> v.passed, v.status, v.message.splitlines()[0]
(False, 'failed', '✗ [demo-square] squares a number')
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import re
from dataclasses import dataclass, field

import numpy as np

from ..conventions import GRADE_ATOL
from .errors import CheckFailed, StudentError
from .protocol import ProtocolError

#: Statuses a check verdict can have (the grader adds its own: see ``grader.STATUSES``).
PASSED, FAILED, USED_LIBRARY, CHECKER_ERROR = "passed", "failed", "used-library", "checker-error"
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_FUNCTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Check:
    """One check cell's test: ``id``, ``points``, the student ``functions`` it receives, a ``title``."""

    id: str
    points: int
    functions: tuple
    title: str
    run: object
    exercise: str

    @property
    def line(self):
        """The verdict line printed on success (deterministic, no numbers but the points)."""
        unit = "point" if self.points == 1 else "points"
        return f"✓ [{self.id}] {self.title} — passed ({self.points}/{self.points} {unit})"

    @property
    def cell_source(self):
        """The canonical source of this check's locked check cell."""
        unit = "point" if self.points == 1 else "points"
        return (f"# Check ({self.points} {unit}) — locked. Running it gives a preview; lessonlib-grade gives the grade.\n"
                f"from lessonlib.grading import check\n"
                f"check({self.id!r}, {', '.join(self.functions)})")

    @property
    def cell_metadata(self):
        """The metadata of this check's locked check cell.

        Tagged ``check`` and ``raises-exception``: a failing check does not stop JupyterLab's "Run
        All" (nor nbval on the blank exercise); nbval still compares the output with the reference
        verdict line, so a raised check never passes a graded run.
        """
        return {"tags": ["check", "raises-exception"], "editable": False, "deletable": False,
                "lessonlib": {"id": self.id, "points": self.points}}


@dataclass
class Exercise:
    """An exercise notebook's checks, plus what must be unavailable while it is graded.

    ``blocked``: library modules (``"lessonlib.dynamics"``) or functions
    (``"lessonlib.kinematics:body_twists"``) replaced by stand-ins in the graded kernel.
    ``copy_targets``: library modules whose functions the copy detector compares answers with.
    ``denied``: extra third-party packages the graded kernel may not import.
    """

    name: str
    notebook: str
    title: str
    blocked: tuple = ()
    copy_targets: tuple = ()
    denied: tuple = ()
    checks: dict = field(default_factory=dict)

    def check(self, id, *, points, functions, title):
        """Decorator registering ``run(ctx, *functions)`` as the check ``id``."""
        if not _ID.match(id):
            raise ValueError(f"id: expected lowercase letters, digits and '-', got {id!r}")
        if id in self.checks:
            raise ValueError(f"id: {id!r} is registered twice in exercise {self.name!r}")
        if not (isinstance(points, int) and points > 0):
            raise ValueError(f"points: expected a positive integer, got {points!r}")
        functions = tuple(functions)
        if not functions or not all(_FUNCTION.match(f) for f in functions):
            raise ValueError(f"functions: expected Python names, got {functions!r}")

        def register(run):
            self.checks[id] = Check(id, points, functions, title, run, self.name)
            return run
        return register


class Context:
    """What a check gets besides the student's functions: randomness, tolerances, comparisons."""

    def __init__(self, check, rng, student):
        self.check = check
        self.rng = rng
        self.student = student
        self.atol = GRADE_ATOL

    def call(self, fn, *args, **kwargs):
        """``fn(*args, **kwargs)``; a failure of the student's function becomes a readable CheckFailed."""
        try:
            return fn(args, kwargs)
        except StudentError as err:
            text = f"{_signature(fn, args, kwargs)} raised {err.kind}: {err.message}"
            if err.where:
                text += f"\n  in your code:\n{_indent(err.where.rstrip(), 4)}"
            if err.printed:
                text += f"\n  it printed:\n{_indent(err.printed.rstrip()[:1000], 4)}"
            raise _Failure(text, USED_LIBRARY if err.kind == "NotAvailableWhileGrading" else FAILED) from None
        except ProtocolError as exc:
            raise _Failure(f"{_signature(fn, args, kwargs)} returned data that is not plain numbers: {exc}",
                           FAILED) from None

    def expect_shape(self, what, got, shape, *, call=""):
        """``got`` as a float array of the given ``shape``, or a failure naming ``what``."""
        try:
            arr = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            self.fail(f"{what}: expected numbers of shape {shape}, got {type(got).__name__}", call=call)
        if arr.shape != tuple(shape):
            self.fail(f"{what}: expected shape {tuple(shape)}, got {arr.shape}", call=call)
        if not np.all(np.isfinite(arr)):
            self.fail(f"{what}: contains NaN or inf:\n{_fmt(arr)}", call=call)
        return arr

    def expect_tuple(self, got, names, *, call="", hint=""):
        """``got`` unpacked as a tuple of ``len(names)`` results (e.g. ``("v", "a")``), or a readable failure."""
        if not isinstance(got, (tuple, list)) or len(got) != len(names):
            size = f" of length {len(got)}" if isinstance(got, (tuple, list)) else ""
            kind = "a pair" if len(names) == 2 else f"a tuple of {len(names)}"
            self.fail(f"expected {kind} ({', '.join(names)}), got {type(got).__name__}{size}", call=call, hint=hint)
        return tuple(got)

    def expect_close(self, what, got, expected, *, atol=None, call="", hint=""):
        """Fail unless ``got`` matches ``expected`` (same shape, max abs error ≤ ``atol``)."""
        expected = np.asarray(expected, dtype=float)
        got = self.expect_shape(what, got, expected.shape, call=call)
        atol = self.atol if atol is None else atol
        err = float(np.max(np.abs(got - expected))) if expected.size else 0.0
        if err > atol:
            self.fail(f"{what}: expected\n{_indent(_fmt(expected), 4)}\n  got\n{_indent(_fmt(got), 4)}\n"
                      f"  largest error {err:.3g} > tolerance {atol:g}", call=call, hint=hint)

    def fail(self, message, *, call="", hint=""):
        """Fail the check with an expected-vs-got ``message`` (plus the call that produced it)."""
        text = (f"for {call}:\n  " if call else "") + message
        if hint:
            text += f"\n  hint: {hint}"
        raise _Failure(text, FAILED)


class _Failure(CheckFailed):
    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def _fmt(a):
    return np.array2string(np.asarray(a, dtype=float), precision=6, suppress_small=True, max_line_width=100)


def _indent(text, n):
    return "\n".join(" " * n + line for line in str(text).splitlines())


def _short(v):
    if isinstance(v, np.ndarray):
        return f"<array {v.shape}>"
    if isinstance(v, float):
        return f"{v:.6g}"
    if type(v).__name__ == "Model":
        return f"<Model {v.name!r} n={v.n}>"
    return repr(v)[:60]


def _signature(fn, args, kwargs):
    name = getattr(fn, "name", getattr(fn, "__name__", "your function"))
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one run of a check: ``passed``, ``status``, the verdict ``line`` or ``message``."""

    check: str
    passed: bool
    status: str
    line: str = ""
    message: str = ""


class _Named:
    """A student function adapter with the name the check knows it by (for messages)."""

    def __init__(self, name, call):
        self.name, self._call = name, call

    def __call__(self, args, kwargs):
        return self._call(args, kwargs)


def run_check(check, functions, *, seed, student):
    """Run ``check`` on ``functions`` (callables ``(args, kwargs) -> value``); returns a :class:`Verdict`.

    Never raises for a wrong answer or a broken student function; a bug in the checker itself gives
    status ``checker-error``.
    """
    if len(functions) != len(check.functions):
        return Verdict(check.id, False, FAILED, message=f"✗ [{check.id}] expected the functions "
                       f"{', '.join(check.functions)}, got {len(functions)} function(s)")
    ctx = Context(check, np.random.default_rng(seed), student)
    named = [_Named(n, f) for n, f in zip(check.functions, functions)]
    try:
        check.run(ctx, *named)
    except _Failure as exc:
        return Verdict(check.id, False, exc.status, message=f"✗ [{check.id}] {check.title}\n{exc}")
    except (ConnectionError, OSError) as exc:
        return Verdict(check.id, False, FAILED, message=f"✗ [{check.id}] the kernel stopped answering: {exc}")
    except Exception as exc:                              # a bug in the checker, not the student's fault
        return Verdict(check.id, False, CHECKER_ERROR,
                       message=f"✗ [{check.id}] the checker itself failed ({type(exc).__name__}); tell your instructor")
    return Verdict(check.id, True, PASSED, line=check.line)


# --- the registry of exercise modules ---------------------------------------------------------

_MODULE = re.compile(r"^[a-z][a-z0-9_]*$")


def exercise_names():
    """Names of the exercise modules shipped in :mod:`lessonlib.grading.exercises`."""
    from . import exercises                               # noqa: PLC0415
    return sorted(m.name for m in pkgutil.iter_modules(exercises.__path__) if _MODULE.match(m.name))


def load_exercise(name):
    """The :class:`Exercise` of the module ``lessonlib.grading.exercises.<name>`` (a known name only)."""
    if name not in exercise_names():
        raise ValueError(f"exercise: no checker module called {name!r}; known: {exercise_names()}")
    module = importlib.import_module(f"{__package__}.exercises.{name}")
    exercise = getattr(module, "EXERCISE", None)
    if not isinstance(exercise, Exercise):
        raise ValueError(f"exercise: module {name!r} defines no EXERCISE = Exercise(...)")
    return exercise


def _loadable():
    """``(exercise or None, error)`` for every exercise module: one broken module must not stop the others."""
    for name in exercise_names():
        try:
            yield load_exercise(name), ""
        except Exception as exc:                          # a colleague's module in progress
            yield None, f"{name}: {type(exc).__name__}: {exc}"


def exercise_for_notebook(filename):
    """The exercise whose notebook file name is ``filename`` (``05_rnea.ipynb``), or None."""
    return next((ex for ex, _ in _loadable() if ex is not None and ex.notebook == filename), None)


def _likely_modules(check_id):
    """Exercise modules whose source mentions ``check_id`` (so a preview imports one module, not all)."""
    from . import exercises                               # noqa: PLC0415
    found = []
    for name in exercise_names():
        for directory in exercises.__path__:
            path = os.path.join(directory, f"{name}.py")
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            if f'"{check_id}"' in text or f"'{check_id}'" in text:
                found.append(name)
    return found


def find_check(check_id):
    """The registered :class:`Check` called ``check_id`` (searching every exercise module)."""
    for name in _likely_modules(check_id):
        try:
            exercise = load_exercise(name)
        except Exception:                                 # reported below, with the others
            continue
        if check_id in exercise.checks:
            return exercise.checks[check_id]
    errors = []
    for exercise, error in _loadable():
        if exercise is not None and check_id in exercise.checks:
            return exercise.checks[check_id]
        if error:
            errors.append(error)
    raise CheckFailed(f"unknown check {check_id!r}: is lessonlib up to date?"
                      + "".join(f"\n  (could not load {e})" for e in errors))
