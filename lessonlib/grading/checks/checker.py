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

Two aids make a failure say *why*, both run by the checker (in the judge of a graded run, never as
calls into the student's kernel):

* **Known mistakes** (:class:`Variant`): a check may declare a few variants of the reference answer,
  each with one classic bug (gravity with the wrong sign, ``X_i`` where ``X_iᵀ`` belongs, ``i − 1``
  where ``parent[i]`` belongs, ...). When the student's answer fails, the check is run again from
  the same seed — the same random inputs — with each variant in place of the student's functions;
  a variant whose first failing comparison is the student's, with the same numbers, names its
  mistake in the message ("likely mistake: ..."). An answer that matches none gets the plain
  expected-vs-got message.
* **Helpers under suspicion** (:meth:`Context.suspects`): a check of a function that calls the
  student's earlier functions (``forward_dynamics`` calling ``crba`` and ``cholesky_solve``) may
  receive those helpers too; when the main function fails, each helper is called on this case's
  own inputs and compared with the reference, so the message says which of the student's
  functions produced a bad input, not only where it crashed.

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

A check declaring a known mistake names it when the answer makes exactly that mistake:

>>> @ex.check("demo-cube", points=1, functions=("cube",), title="cubes a number",
...           variants=[Variant("your cube seems to square instead", cube=lambda x: x * x)])
... def _(ctx, cube):
...     x = ctx.rng.uniform(1, 2)
...     ctx.expect_close("cube(x)", ctx.call(cube, x=x), x ** 3, atol=1e-9)
>>> run_check(ex.checks["demo-cube"], [good], seed=1, student="s").message.splitlines()[-1]
'  likely mistake: your cube seems to square instead'
>>> "likely mistake" in run_check(ex.checks["demo-cube"], [bad], seed=1, student="s").message
False
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field

import numpy as np

from ... import model
from ...conventions import GRADE_ATOL
from ..kernel import protocol
from ..kernel.errors import CheckFailed, StudentError
from ..kernel.protocol import ProtocolError
from . import display
from .registry import exercise_module, exercise_names, mentions as _likely_modules

#: Statuses a check verdict can have (the grader adds its own: see ``verdict.STATUSES``).
PASSED, FAILED, USED_LIBRARY, CHECKER_ERROR = "passed", "failed", "used-library", "checker-error"
#: The judge's record of a check whose kernel stopped answering while a student function ran (the cell
#: ran out of time, the kernel died, or the student's code interrupted it): not a verdict on the answer,
#: so :func:`.verdict.verdict` tells what happened to the cell instead, naming the call that never returned.
NO_ANSWER = "no-answer"
#: The errors that count as a numerical refusal in :meth:`Context.expect_refusal` (``BadReturn``: a complex
#: result, which the plain-data protocol refuses).
REFUSALS = frozenset({"LinAlgError", "ValueError", "ArithmeticError", "ZeroDivisionError", "FloatingPointError",
                      "OverflowError", "BadReturn"})
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_FUNCTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Variant:
    """A known mistake: the reference answer with one classic bug, and what to tell a student who makes it.

    ``mistake`` is the sentence the failure message adds ("your inward pass seems to use X_i instead
    of X_iᵀ"); ``functions`` maps each answer function of the check to a plain callable with the
    student's signature that makes exactly that mistake (judge side: it may use the whole library).
    Build one with ``Variant("...", rnea=buggy_rnea)``.
    """

    mistake: str
    functions: dict

    def __init__(self, mistake, **functions):
        if not (isinstance(mistake, str) and mistake.strip()):
            raise ValueError(f"mistake: expected a sentence for the student, got {mistake!r}")
        if not functions or not all(callable(f) for f in functions.values()):
            raise ValueError(f"functions: expected name=callable for the check's answers, got {functions!r}")
        object.__setattr__(self, "mistake", mistake)
        object.__setattr__(self, "functions", dict(functions))


@dataclass(frozen=True)
class Check:
    """One check cell's test: ``id``, ``points``, the student ``functions`` it receives, a ``title``.

    ``functions`` are the answers the check grades followed by its ``helpers`` (the student's earlier
    functions the answers may call, received only to say which of them is wrong when an answer
    fails); ``variants`` are the known mistakes of the answers (:class:`Variant`).
    """

    id: str
    points: int
    functions: tuple
    title: str
    run: object
    exercise: str
    helpers: tuple = ()
    variants: tuple = ()

    @property
    def answers(self):
        """The functions this check grades (``functions`` without the trailing ``helpers``)."""
        return self.functions[:len(self.functions) - len(self.helpers)]

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

    def check(self, id, *, points, functions, title, helpers=(), variants=()):
        """Decorator registering ``run(ctx, *functions, *helpers)`` as the check ``id``.

        ``helpers``: the student's earlier functions the answers may call (the check cell passes them
        after ``functions``; see :meth:`Context.suspects`). ``variants``: known mistakes of the
        answers (:class:`Variant`), each giving a callable for every name in ``functions``.
        """
        if not _ID.match(id):
            raise ValueError(f"id: expected lowercase letters, digits and '-', got {id!r}")
        if id in self.checks:
            raise ValueError(f"id: {id!r} is registered twice in exercise {self.name!r}")
        if not (isinstance(points, int) and points > 0):
            raise ValueError(f"points: expected a positive integer, got {points!r}")
        functions, helpers, variants = tuple(functions), tuple(helpers), tuple(variants)
        if not functions or not all(_FUNCTION.match(f) for f in functions + helpers):
            raise ValueError(f"functions: expected Python names, got {functions + helpers!r}")
        if len(set(functions + helpers)) != len(functions + helpers):
            raise ValueError(f"helpers: expected names other than the answers {functions!r}, got {helpers!r}")
        for v in variants:
            if not isinstance(v, Variant) or set(v.functions) != set(functions):
                raise ValueError(f"variants: expected Variant(mistake, {'=..., '.join(functions)}=...) for check "
                                 f"{id!r}, got {v!r}")
        if len({v.mistake for v in variants}) != len(variants):
            raise ValueError(f"variants: two variants of check {id!r} name the same mistake")

        def register(run):
            self.checks[id] = Check(id, points, functions + helpers, title, run, self.name, helpers, variants)
            return run
        return register


class Context:
    """What a check gets besides the student's functions: randomness, tolerances, comparisons.

    Every ``expect_*``/``fail`` is a numbered *step*; a failure remembers its step and the student's
    numbers there, which is how a known mistake (:class:`Variant`) is recognised.
    """

    def __init__(self, check, rng, student, *, diagnose=True):
        self.check = check
        self.rng = rng
        self.student = student
        self.atol = GRADE_ATOL
        self.diagnose = diagnose                          # False while a variant replays the check
        self.step = 0
        self.last_call = ""                               # the call a failure names unless told otherwise

    def call(self, fn, *args, **kwargs):
        """``fn(*args, **kwargs)``; a failure of the student's function becomes a readable CheckFailed.

        The call is remembered (:func:`.display.signature`): a later ``expect_*`` without ``call=``
        names it in its failure message.
        """
        self.last_call = _signature(fn, args, kwargs)
        try:
            return fn(args, kwargs)
        except StudentError as err:
            raise _raised(fn, args, kwargs, err) from None
        except ProtocolError as exc:
            raise _Failure(f"{_signature(fn, args, kwargs)} returned data that is not plain numbers: {exc}",
                           FAILED) from None
        except OSError:                                   # the kernel stopped answering (ConnectionError, timeout)
            failure = _Failure(f"{_signature(fn, args, kwargs)} did not return", NO_ANSWER)
            failure.function = getattr(fn, "name", "")
            raise failure from None

    def expect_shape(self, what, got, shape, *, call=""):
        """``got`` as a float array of the given ``shape``, or a failure naming ``what``."""
        self.step += 1
        try:
            arr = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            self._fail(f"{what}: expected numbers of shape {shape}, got {type(got).__name__}", call=call)
        if arr.shape != tuple(shape):
            self._fail(f"{what}: expected shape {tuple(shape)}, got {arr.shape}", call=call)
        if not np.all(np.isfinite(arr)):
            self._fail(f"{what}: contains NaN or inf:\n{_fmt(arr)}", call=call)
        return arr

    def expect_tuple(self, got, names, *, call="", hint=""):
        """``got`` unpacked as a tuple of ``len(names)`` results (e.g. ``("v", "a")``), or a readable failure."""
        self.step += 1
        if not isinstance(got, (tuple, list)) or len(got) != len(names):
            size = f" of length {len(got)}" if isinstance(got, (tuple, list)) else ""
            kind = "a pair" if len(names) == 2 else f"a tuple of {len(names)}"
            self._fail(f"expected {kind} ({', '.join(names)}), got {type(got).__name__}{size}", call=call, hint=hint)
        return tuple(got)

    def expect_close(self, what, got, expected, *, atol=None, call="", hint=""):
        """Fail unless ``got`` matches ``expected`` (same shape, max abs error ≤ ``atol``)."""
        expected = np.asarray(expected, dtype=float)
        got = self.expect_shape(what, got, expected.shape, call=call)
        atol = self.atol if atol is None else atol
        err = float(np.max(np.abs(got - expected))) if expected.size else 0.0
        if err > atol:
            self._fail(f"{what}: expected\n{display.indent(_fmt(expected), 4)}\n  got\n{display.indent(_fmt(got), 4)}\n"
                      f"  largest error {err:.3g} > tolerance {atol:g}", call=call, hint=hint, got=got, atol=atol)

    def expect_refusal(self, what, fn, *args, call="", hint="", **kwargs):
        """Fail unless ``fn(*args, **kwargs)`` refuses: raises a numerical error, or returns NaN, inf or non-real numbers.

        For inputs that have no answer (a Cholesky factor of a matrix that is not positive definite):
        a routine that returns finite numbers there did not do what the exercise asks. Only numerical
        errors count as refusing (``REFUSALS``: ``LinAlgError``, ``ValueError``, ``ArithmeticError``, ...);
        a stub's ``NotImplementedError`` or a broken function's ``NameError`` fails as any other error.
        """
        self.step += 1
        try:
            got = fn(args, kwargs)
        except StudentError as err:
            if err.kind in REFUSALS:
                return
            raise _raised(fn, args, kwargs, err) from None
        except ProtocolError:                             # complex numbers: sqrt of a negative pivot
            return
        try:
            arr = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            return
        if np.all(np.isfinite(arr)):                      # the numbers, so that a known mistake is recognised here
            self._fail(f"{what}: expected an error (or NaN), got finite numbers\n{display.indent(_fmt(arr), 4)}", call=call,
                       hint=hint, got=arr)

    def fail(self, message, *, call="", hint="", got=None, atol=None):
        """Fail the check with an expected-vs-got ``message`` (plus the call that produced it).

        ``got`` (the student's numbers) and ``atol`` let a known mistake be recognised at this step.
        """
        self.step += 1
        self._fail(message, call=call, hint=hint, got=got, atol=atol)

    def _fail(self, message, *, call="", hint="", got=None, atol=None):
        call = call or self.last_call
        text = (f"for {call}:\n  " if call else "") + message
        raise _Failure(text, FAILED, hint=hint, step=self.step,
                       got=None if got is None else np.asarray(got, dtype=float), atol=self.atol if atol is None else atol)

    def suspect(self, helper, *args, expected, call="", see="", **kwargs):
        """A probe for :meth:`suspects`: ``helper(*args, **kwargs)`` should give ``expected``.

        ``expected`` is an array, or a tuple of arrays for a helper returning a tuple; ``call`` shows
        the call in the message (``"crba(model, q)"``; default: the arguments' shapes); ``see`` names
        the check that tests this helper alone.
        """
        return _Suspect(helper, args, kwargs, expected, call or _signature(helper, args, kwargs), see)

    @contextlib.contextmanager
    def suspects(self, *probes):
        """On a failure in this block, call each probed helper on this case's inputs and name the wrong ones.

        The answer under test (``forward_dynamics``) may call the student's earlier functions
        (``crba``, ``cholesky_solve``); when it fails — a wrong result, or an error inside one of them
        — the message says which helper gives a wrong result on this very case. Helpers still
        raising ``NotImplementedError`` are not blamed (the answer cannot have used them).
        """
        try:
            yield
        except _Failure as failure:
            if self.diagnose and failure.status == FAILED:
                blamed = {}                               # helper name -> [first note, its probe, more]
                for probe in probes:
                    name = getattr(probe.helper, "name", "")
                    if name in blamed:
                        blamed[name][2] += bool(self._blame(probe))
                    elif note := self._blame(probe):
                        blamed[name] = [note, probe, 0]
                failure.notes += [note + (f" (and on {more} more of this case's inputs)" if more else "")
                                  + (f" — the check {probe.see} tests it alone" if probe.see else "")
                                  for note, probe, more in blamed.values()]
            raise

    def _blame(self, probe):
        """What is wrong with the probed helper on this case (``""`` if nothing, or if it is not written yet)."""
        name = getattr(probe.helper, "name", "your function")
        answer = self.check.answers[0] if self.check.answers else "answer"
        try:
            got = probe.helper(probe.args, probe.kwargs)
        except StudentError as err:
            if err.kind in ("NotImplementedError", "NotAvailableWhileGrading"):
                return ""
            return f"your {name} fails on this case's inputs: {probe.call} raised {err.kind}: {err.message[:200]}"
        except ProtocolError:
            return f"your {name} returns data that is not plain numbers on this case's inputs: {probe.call}"
        wrong = _mismatch(got, probe.expected, self.atol)
        return wrong and (f"your {name} is wrong on this case: {probe.call} {wrong}; if your {answer} calls it, "
                          f"that is where the bad input comes from")


def _mismatch(got, expected, atol):
    """``""`` if ``got`` matches ``expected`` (an array, or a tuple of arrays) within ``atol``, else why not."""
    if isinstance(expected, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return f"returns {type(got).__name__}, expected a tuple of {len(expected)}"
        return next((why for why in map(_mismatch, got, expected, [atol] * len(expected)) if why), "")
    expected = np.asarray(expected, dtype=float)
    try:
        arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return f"returns {type(got).__name__}, expected numbers of shape {expected.shape}"
    if arr.shape != expected.shape:
        return f"returns shape {arr.shape}, expected {expected.shape}"
    if not np.all(np.isfinite(arr)):
        return "returns NaN or inf"
    err = float(np.max(np.abs(arr - expected), initial=0.0))
    return f"is off by up to {err:.3g}" if err > atol else ""


@dataclass(frozen=True)
class _Suspect:
    helper: object
    args: tuple
    kwargs: dict
    expected: object
    call: str
    see: str


#: What a function that wrote into one of its (read-only) inputs is told.
READ_ONLY_HINT = ("your function writes into an array it was given, and the caller's arrays must keep their "
                  "values (the check passes them read-only): copy before you write, e.g. IA = np.array(I, dtype=float)")


def _raised(fn, args, kwargs, err):
    """The failure for a student function that raised (``used-library`` for the graded kernel's stand-ins)."""
    text = f"{_signature(fn, args, kwargs)} raised {err.kind}: {err.message}"
    if err.where:
        text += f"\n  in your code:\n{display.indent(err.where.rstrip(), 4)}"
    if err.printed:
        text += f"\n  it printed:\n{display.indent(err.printed.rstrip()[:1000], 4)}"
    wrote_input = err.kind == "ValueError" and "read-only" in err.message      # numpy's words for it
    failure = _Failure(text, USED_LIBRARY if err.kind == "NotAvailableWhileGrading" else FAILED,
                       hint=READ_ONLY_HINT if wrote_input else "")
    failure.raised, failure.errno = err.kind, err.errno
    return failure


class _Failure(CheckFailed):
    """A failed check: the message, its status and where it failed (for recognising known mistakes)."""

    def __init__(self, text, status, *, hint="", step=None, got=None, atol=None):
        super().__init__(text)
        self.text, self.status, self.hint = text, status, hint
        self.step, self.got, self.atol = step, got, atol
        self.notes = []                                   # lines added by suspects and known mistakes
        self.function = ""                                # NO_ANSWER: the student function that did not return
        self.raised, self.errno = "", None                # the student's function raised this (its class name)

    def __str__(self):
        return "\n".join([self.text] + [f"  {note}" for note in self.notes]
                         + ([f"  hint: {self.hint}"] if self.hint else []))


def _fmt(a):
    """Expected and got numbers in a failure: 6 decimals, what rounds to 0 shown as 0 (never as -0)."""
    a = np.asarray(a, dtype=float)
    a = np.where(np.abs(a) < 5e-7, 0.0, a)
    return np.array2string(a, precision=6, suppress_small=True, max_line_width=100)


def _signature(fn, args, kwargs):
    return display.signature(getattr(fn, "name", getattr(fn, "__name__", "your function")), args, kwargs)


@dataclass(frozen=True)
class Verdict:
    """The outcome of one run of a check: ``passed``, ``status``, the verdict ``line`` or ``message``."""

    check: str
    passed: bool
    status: str
    line: str = ""
    message: str = ""
    function: str = ""              # NO_ANSWER: the student function in flight
    raised: str = ""                # the class of the exception the student's function raised, if it did
    errno: object = None            # and its errno (an OSError's), for the limits


class _Named:
    """A student function adapter with the name the check knows it by (for messages)."""

    def __init__(self, name, call):
        self.name, self._call = name, call

    def __call__(self, args, kwargs):
        return self._call(args, kwargs)


def _plain(fn):
    """A judge-side function seen as a student's: inputs and result pass the same plain-data round trip."""
    def call(args, kwargs):
        args = protocol.decode(protocol.json_roundtrip(protocol.encode(list(args), readonly=True)), model=model, readonly=True)
        kwargs = protocol.decode(protocol.json_roundtrip(protocol.encode(dict(kwargs), readonly=True)), model=model, readonly=True)
        return protocol.decode(protocol.json_roundtrip(protocol.encode(fn(*args, **kwargs))))
    return call


def _absent(name):
    """A stand-in for a helper the caller did not give (suspects stay silent about it)."""
    def call(args, kwargs):
        raise StudentError("NotImplementedError", f"{name} was not given to this check")
    return call


def replay(check, variant, *, seed, student):
    """The first failure of ``check`` run from ``seed`` with ``variant``'s functions for the answers (None: it passed).

    Helpers are not called (no suspects while replaying); an error inside the variant counts as no failure
    to compare with (None).
    """
    ctx = Context(check, np.random.default_rng(seed), student, diagnose=False)
    functions = [_Named(n, _plain(variant.functions[n]) if n in variant.functions else _absent(n))
                 for n in check.functions]
    try:
        check.run(ctx, *functions)
    except _Failure as failure:
        return failure
    except Exception:                                      # noqa: BLE001 (a variant that cannot replay says nothing)
        return None
    return None


def same_failure(a, b):
    """Do two failures happen at the same step with the same numbers (within the first one's tolerance)?"""
    return (a is not None and b is not None and a.got is not None and b.got is not None and a.step == b.step
            and a.got.shape == b.got.shape and float(np.max(np.abs(a.got - b.got), initial=0.0)) <= a.atol)


def known_mistakes(check, failure, *, seed, student):
    """The :class:`Variant` s of ``check`` whose replay from ``seed`` fails exactly like ``failure``.

    Each variant replaces the answers and runs the check from the same seed, so on the same random
    inputs. It matches when its first failure is at the student's failing step and its numbers there
    agree with the student's within that comparison's tolerance.
    """
    if failure.got is None or failure.step is None:
        return []
    return [v.mistake for v in check.variants if same_failure(failure, replay(check, v, seed=seed, student=student))]


def run_check(check, functions, *, seed, student):
    """Run ``check`` on ``functions`` (callables ``(args, kwargs) -> value``); returns a :class:`Verdict`.

    ``functions`` are the check's answers and helpers, in order; the answers alone also do (then no
    helper is suspected).

    Never raises for a wrong answer or a broken student function; a bug in the checker itself gives
    status ``checker-error``. A wrong answer that makes one of the check's known mistakes gets a
    "likely mistake" line naming it.
    """
    if len(functions) == len(check.answers) < len(check.functions):   # the answers alone: no helpers to suspect
        functions = list(functions) + [_absent(h) for h in check.helpers]
    if len(functions) != len(check.functions):
        return Verdict(check.id, False, FAILED, message=f"✗ [{check.id}] expected the functions "
                       f"{', '.join(check.functions)}, got {len(functions)} function(s)")
    ctx = Context(check, np.random.default_rng(seed), student)
    named = [_Named(n, f) for n, f in zip(check.functions, functions)]
    try:
        check.run(ctx, *named)
    except _Failure as exc:
        if exc.status == FAILED and check.variants:
            mistakes = known_mistakes(check, exc, seed=seed, student=student)
            if len(mistakes) == 1:
                exc.notes.append(f"likely mistake: {mistakes[0]}")
            elif mistakes:
                exc.notes.append("likely mistake, one of: " + "; ".join(mistakes))
        return Verdict(check.id, False, exc.status, message=f"✗ [{check.id}] {check.title}\n{exc}",
                       function=exc.function, raised=exc.raised, errno=exc.errno)
    except OSError:                                       # between two calls: the kernel stopped answering
        return Verdict(check.id, False, NO_ANSWER, message=f"✗ [{check.id}] {check.title}\nyour code did not answer")
    except Exception as exc:                              # a bug in the checker, not the student's fault
        return Verdict(check.id, False, CHECKER_ERROR,
                       message=f"✗ [{check.id}] the checker itself failed ({type(exc).__name__}); tell your instructor")
    return Verdict(check.id, True, PASSED, line=check.line)


# --- the registry of exercise modules: every source, the course's own included (see .registry) ---------

def load_exercise(name):
    """The :class:`Exercise` of the exercise module ``name``, from whichever source defines it (:mod:`.registry`)."""
    source, module = exercise_module(name)
    exercise = getattr(module, "EXERCISE", None)
    if not isinstance(exercise, Exercise):
        raise ValueError(f"exercise: module {name!r} ({source.label}) defines no EXERCISE = Exercise(...)")
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


def find_check(check_id):
    """The registered :class:`Check` called ``check_id`` (searching every exercise module)."""
    return find_exercise(check_id).checks[check_id]


def find_exercise(check_id):
    """The exercise module that registers the check ``check_id``."""
    for name in _likely_modules(check_id):
        try:
            exercise = load_exercise(name)
        except Exception:                                 # reported below, with the others
            continue
        if check_id in exercise.checks:
            return exercise
    errors = []
    for exercise, error in _loadable():
        if exercise is not None and check_id in exercise.checks:
            return exercise
        if error:
            errors.append(error)
    raise CheckFailed(f"unknown check {check_id!r}: is lessonlib up to date, and are your instructor's checkers "
                      "installed (or named in LESSONLIB_CHECKERS) if the exercise is not the course's own?"
                      + "".join(f"\n  (could not load {e})" for e in errors))
