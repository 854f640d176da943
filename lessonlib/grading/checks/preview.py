"""A check cell run in the student's own notebook (no grader): the same checker, as a preview.

The student runs a locked check cell while working: ``check("rnea-static", static_torques)`` finds
the check in its exercise module, runs it in this process on the student's functions (with the
same plain-data round trip a graded run makes) and prints the same verdict line on success, or
raises :class:`CheckFailed` with the expected-vs-got message, marked as a preview. Its inputs come
from the student id and the check id (no secret: it is a preview); the grade comes from
``lessonlib-grade``, which re-runs the check in a clean process.
"""
from __future__ import annotations

import hashlib
import os
import sys

from ..kernel import protocol
from ..kernel.client import call_student
from ..kernel.errors import CheckFailed

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


def local_function(fn):
    """A student function as a check sees it, called in this process (previews, authors' tests).

    The same round trip as a graded run: the function gets fresh decoded inputs, and its result is
    judged as the plain data it would have sent to the judge.
    """
    from ... import model                                  # noqa: PLC0415

    def call(args, kwargs):
        args = protocol.decode(protocol.json_roundtrip(protocol.encode(args)), model=model)
        kwargs = protocol.decode(protocol.json_roundtrip(protocol.encode(kwargs)), model=model)
        return protocol.decode(protocol.json_roundtrip(call_student(fn, args, kwargs)))
    return call


def preview(check_id, functions):
    """Run the check ``check_id`` on ``functions`` here: print its verdict line or raise :class:`CheckFailed`."""
    from .checker import find_check, run_check         # noqa: PLC0415

    the_check = find_check(check_id)
    sid = student_id()
    verdict = run_check(the_check, [local_function(f) for f in functions], seed=preview_seed(sid, check_id),
                        student=sid)
    if verdict.passed:
        sys.stdout.write(verdict.line + "\n")
        sys.stdout.flush()
        return
    raise CheckFailed(f"{verdict.message}\n(preview in this notebook: the grade comes from lessonlib-grade, "
                      "which re-runs this check in a clean process)")
