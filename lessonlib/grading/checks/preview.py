"""A check cell run in the student's own notebook (no grader): the same checker, as a preview.

The student runs a locked check cell while working: ``check("rnea-static", static_torques)`` finds
the check in its exercise module, runs it in this process on the student's functions (with the
same plain-data round trip a graded run makes) and prints the same verdict line on success, or
raises :class:`CheckFailed` with the expected-vs-got message, marked as a preview. Its inputs come
from the student id and the check id (no secret: it is a preview); the grade comes from
``lessonlib-grade``, which re-runs the check in a clean process.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import os
import pkgutil
import sys

from ..kernel import protocol
from ..kernel.client import call_student
from ..kernel.errors import CheckFailed, NotAvailableWhileGrading

#: Environment variable a student may set instead of ``student_id = "..."`` in the first answer cell.
STUDENT_ENV = "LESSONLIB_STUDENT_ID"


def student_id():
    """The student id for preview inputs: ``$LESSONLIB_STUDENT_ID`` or the notebook's ``student_id``."""
    sid = os.environ.get(STUDENT_ENV)
    if not sid:
        main = sys.modules.get("__main__")
        sid = getattr(main, "student_id", None)
        try:
            from IPython import get_ipython                # noqa: PLC0415 (only inside a kernel)
            shell = get_ipython()
            if shell is not None:
                sid = shell.user_ns.get("student_id", sid)
        except ImportError:
            pass
    return sid if isinstance(sid, str) and sid else "anonymous"


def preview_seed(student, check_id):
    """Seed of a preview run: a hash of the student id and the check id (no secret: it's a preview)."""
    return int.from_bytes(hashlib.sha256(f"preview|{student}|{check_id}".encode()).digest()[:8], "big")


def local_function(fn, used=None):
    """A student function as a check sees it, called in this process (previews, authors' tests).

    The same round trip as a graded run: the function gets fresh decoded inputs, and its result is
    judged as the plain data it would have sent to the judge. ``used``: ``(codes, found)`` — while
    the function runs, a call of a function whose code object is in ``codes`` from code that is not
    is added to the dict ``found`` (:func:`blocked_code`).
    """
    from ... import model                                  # noqa: PLC0415

    def call(args, kwargs):
        args = protocol.decode(protocol.json_roundtrip(protocol.encode(args, readonly=True)), model=model, readonly=True)
        kwargs = protocol.decode(protocol.json_roundtrip(protocol.encode(kwargs, readonly=True)), model=model, readonly=True)
        if used is None:
            return protocol.decode(protocol.json_roundtrip(call_student(fn, args, kwargs)))
        codes, found = used

        def profile(frame, event, arg):
            if event == "call" and frame.f_code in codes and (frame.f_back is None or frame.f_back.f_code not in codes):
                found.setdefault(codes[frame.f_code], None)       # the student's call, not the library's own
        before = sys.getprofile()
        sys.setprofile(profile)
        try:
            out = call_student(fn, args, kwargs)
        finally:
            sys.setprofile(before)
        return protocol.decode(protocol.json_roundtrip(out))
    return call


@functools.lru_cache(maxsize=None)
def blocked_code(blocked):
    """``{code object: "module.function"}`` of the library functions a graded run replaces by stand-ins.

    ``blocked``: an exercise's ``blocked`` tuple — whole modules (every function and method defined in
    them and their submodules) and ``"module:function"`` entries.
    """
    codes = {}
    for target in blocked:
        module_name, _, function = target.partition(":")
        module = importlib.import_module(module_name)
        modules = [module]
        if hasattr(module, "__path__"):
            modules += [importlib.import_module(m.name)
                        for m in pkgutil.walk_packages(module.__path__, module_name + ".")]
        for m in modules:
            for attr, value in vars(m).items():
                if function and attr != function:
                    continue
                if inspect.isfunction(value) and value.__module__ == m.__name__:
                    codes[value.__code__] = f"{module_name}.{attr}"
                elif inspect.isclass(value) and value.__module__ == m.__name__ and not function:
                    codes.update({v.__code__: f"{module_name}.{attr}" for v in vars(value).values()
                                  if inspect.isfunction(v)})
    return codes


def preview(check_id, functions):
    """Run the check ``check_id`` on ``functions`` here: print its verdict line or raise :class:`CheckFailed`.

    A check that passes only because the student's code called a library function the graded run
    does not have (the exercise asks for it) fails here too, in the grader's words: the grader would
    score it ``used-library``.
    """
    from .checker import find_exercise, run_check      # noqa: PLC0415

    exercise = find_exercise(check_id)
    the_check = exercise.checks[check_id]
    sid = student_id()
    found = {}
    used = (blocked_code(tuple(exercise.blocked)), found) if exercise.blocked else None
    verdict = run_check(the_check, [local_function(f, used) for f in functions], seed=preview_seed(sid, check_id),
                        student=sid)
    if verdict.passed and found:
        raise CheckFailed(f"✗ [{check_id}] {the_check.title}\nyour code called "
                          + ", ".join(found) + ": " + "; ".join(str(NotAvailableWhileGrading.of(name, exercise.name))
                                                             for name in found)
                          + ".\nThis check passes here, but lessonlib-grade will score it used-library (0 points)"
                          " — write it with your own functions")
    if verdict.passed:
        sys.stdout.write(verdict.line + "\n")
        sys.stdout.flush()
        return
    raise CheckFailed(f"{verdict.message}\n(preview in this notebook: the grade comes from lessonlib-grade, "
                      "which re-runs this check in a clean process)")
