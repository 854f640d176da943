"""Auto-grading of the exercise notebooks, with nbval as the engine (see ``README.md`` here).

What a notebook uses is one function: a locked check cell runs ::

    from lessonlib.grading import check
    check("rnea-static", static_torques)

In a graded run (``lessonlib-grade``, or the pytest plugin ``lessonlib.grading.plugin``) the cell
only serves a separate judge process, which draws the inputs, compares and records the verdict;
in the student's own notebook the same checker runs in-process as a preview. Either way the cell
prints one deterministic verdict line on success, or raises :class:`CheckFailed` with the
expected-vs-got message.

Adding an exercise means writing one checker module in :mod:`lessonlib.grading.exercises` (an
:class:`~lessonlib.grading.checker.Exercise` and its checks) and two notebooks (the solution, and
the blank exercise derived from it with ``python -m lessonlib.grading.authoring blank``); the README
walks through it, and documents the threat model and the residual risks.

This module imports only the client (it is what a graded kernel gets); the grader's modules are
imported by path.
"""
from .client import CheckFailed, NotAvailableWhileGrading, check

__all__ = ["check", "CheckFailed", "NotAvailableWhileGrading"]
