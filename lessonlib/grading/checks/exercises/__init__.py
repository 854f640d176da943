"""One checker module per exercise notebook (``rnea05`` for ``exercises/05_rnea.ipynb``, ...).

Each module defines ``EXERCISE = Exercise(...)`` and registers its checks with
``@EXERCISE.check(...)``; see :mod:`lessonlib.grading` for how to add one. Two optional parts of a
check make its failures say why (see :mod:`lessonlib.grading.checker`):

* ``variants=(Variant("your inward pass seems to use X_i instead of X_i^T", inward_pass=buggy), ...)``:
  the classic mistakes, each a judge-side function with the student's signature. A module writes its
  algorithm once with the pieces a student gets wrong as parameters (``inward_with(..., force=...)``)
  and builds each variant with ``functools.partial``; the variants of a check must fail it, and no
  two may fail it at the same step with the same numbers (``tests/test_exercises_mistakes.py``).
* ``helpers=("outward_pass", "inward_pass")``: the student's earlier functions the answer may call,
  passed by the check cell after the answers; inside ``with ctx.suspects(ctx.suspect(helper, *args,
  expected=..., call="..."), ...)`` a failure names every helper that is wrong on the failing case.

Every instruction a notebook gives (“never an inverse”, “in world axes”, “tol = …”) is either
enforced by a check or the notebook says plainly what is accepted (``tests/test_exercises_instructions.py``).
"""
