"""Auto-grading of the exercise notebooks, with nbval as the engine (see ``README.md`` here).

What a notebook uses is one function: a locked check cell runs ::

    from lessonlib.grading import check
    check("rnea-static", static_torques)

In a graded run (``lessonlib-grade``, or the pytest plugin ``lessonlib.grading.plugin``) the cell
only serves a separate judge process, which draws the inputs, compares and records the verdict
(:mod:`.kernel.client`); in the student's own notebook the same checker runs in-process as a
preview (:mod:`.checks.preview`). Either way the cell prints one deterministic verdict line on
success, or raises :class:`CheckFailed` with the expected-vs-got message.

The package is laid out by the process each part runs in:

* :mod:`.kernel` — inside the graded kernel (the student's process): the client, its wire protocol,
  the bootstrap and its walls. Copied into the sandbox as a whole; imports nothing else of lessonlib.
* :mod:`.runner` — inside a graded run's nbval process: the guard plugin and the kernel provisioner.
* :mod:`.checks` — the judge's side: the checker framework, the registry of exercise sources (the
  course's and an instructor's), one module per exercise, the judge, the preview, the authoring tools.
  Never seen by a graded kernel.
* :mod:`.report` — what a batch writes: results, gradebook, class report, resumable records, Gradescope's
  results.json.
* the modules here — the grader's own process: read → screen → run → verdict → report
  (:mod:`.grader`, driven by :mod:`.cli`), and the instructor's other commands: :mod:`.author`
  (``lessonlib-author``: writing exercises) and :mod:`.export` (a Gradescope autograder bundle).

This module is the check cells' front door and ships to the graded kernel with :mod:`.kernel`.
"""
from .kernel import client as _client
from .kernel.errors import CheckFailed, NotAvailableWhileGrading


def check(check_id, *functions):
    """Run the check ``check_id`` on the student's ``functions``: print its verdict line or raise.

    On success prints one deterministic line (no numbers, so nbval can compare it); on failure
    raises :class:`CheckFailed` with the expected-vs-got message.
    """
    from .. import model                                    # noqa: PLC0415 (models the judge sends)
    if _client.graded():
        return _client.judged(str(check_id), functions, model=model)
    from .checks.preview import preview                     # noqa: PLC0415 (not in a graded kernel's sandbox)
    try:
        return preview(str(check_id), functions)
    except CheckFailed as exc:
        raise CheckFailed(str(exc)) from None              # no checker frames in the student's traceback


__all__ = ["check", "CheckFailed", "NotAvailableWhileGrading"]
