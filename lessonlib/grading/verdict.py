"""The verdict of each check: what nbval saw, what the judge recorded, what screening found → status.

:func:`verdict` is the rule, a pure function of three named inputs::

    verdict(cell=CellOutcome(...), judge=[judge records], flags=Flags(...)) -> (status, message)

A check earns its points iff its status is ``passed``: nbval passed its check cell (the output
equals the reference verdict line) **and** the judge recorded a pass for it in this run **and**
nothing makes the grader unsure. Where it is unsure — the code looks copied from the library, or
the kernel ran without walls and the code could have read the answers — a check that would have
passed is ``needs-review``: its points are withheld until an instructor looks. A check that did
not pass after the student's code tried to reach outside the kernel's walls is ``access-denied``.
:func:`check_results` applies the rule to every check of a graded run, after working out each
check cell's outcome in the run's context (a timeout or a dead kernel before a cell decides that
cell's fate).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .screening import copied_reach, review_reasons, top_level_defs

#: Every status a check can get, and what it means (the feedback files explain them with this).
STATUSES = {
    "passed": "the check cell printed the reference verdict and the judge recorded a pass",
    "failed": "the judge ran the check and the answer disagreed (see the message)",
    "needs-review": "the check would pass, but its points wait for an instructor's review (see the reason)",
    "access-denied": "the answer tried to reach files or processes outside the graded kernel's sandbox (denied)",
    "used-library": "the answer called a library function the exercise asks you to write",
    "output-mismatch": "the judge recorded a pass but the check cell's output differed from the reference",
    "unverified": "the check cell printed the verdict, but the judge never recorded a pass for it",
    "error": "the check cell raised before the judge could run it (e.g. a missing function)",
    "timeout": "the notebook ran out of time before this check finished",
    "kernel-died": "the kernel died (crash, os._exit or a signal) before this check finished",
    "not-run": "the check cell did not run",
    "unreadable": "the submission could not be read as a notebook",
    "checker-error": "the checker itself failed (instructor: please report this)",
    "grader-error": "the grader could not run this submission (instructor: see the message)",
}
#: The states of a check cell after a run (see :func:`cell_outcomes`).
CELL_STATES = ("passed", "failed", "timeout", "kernel-died", "not-run")


@dataclass
class CheckResult:
    check: str
    points: int
    max_points: int
    status: str
    message: str = ""
    nbval: str = "not-run"          # passed / failed / timeout / kernel-died / not-run
    judge: str = "none"             # pass / fail / none
    withheld: int = 0               # points waiting for review (needs-review)


@dataclass
class SubmissionResult:
    submission: str
    path: str
    student_id: str = ""
    checks: dict = field(default_factory=dict)
    flags: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    protection: str = ""

    @property
    def total(self):
        return sum(c.points for c in self.checks.values())

    @property
    def max(self):
        return sum(c.max_points for c in self.checks.values())

    @property
    def needs_review(self):
        """The reasons of the checks whose points wait for review (empty: nothing to review)."""
        return [f"{c.check}: {c.message}" for c in self.checks.values() if c.status == "needs-review"]

    def as_json(self):
        return {"total": self.total, "max": self.max, "student_id": self.student_id,
                "checks": {k: {"points": c.points, "max_points": c.max_points, "status": c.status,
                               "message": c.message, "nbval": c.nbval, "judge": c.judge, "withheld": c.withheld}
                           for k, c in self.checks.items()},
                "withheld": sum(c.withheld for c in self.checks.values()), "protection": self.protection,
                "flags": self.flags, "notes": self.notes, "error": self.error, "seconds": round(self.seconds, 2)}


def all_checks(reference, status, message):
    """Every check of ``reference`` with no points and the same status (e.g. ``unreadable``)."""
    return {c.id: CheckResult(c.id, 0, c.points, status, message) for c in reference.checks}


# --- the rule ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CellOutcome:
    """A check cell's outcome in its run: ``state`` (one of :data:`CELL_STATES`) and the error text.

    For ``timeout`` and ``kernel-died``, ``error`` says where the run stopped.
    """

    state: str
    error: str = ""


@dataclass(frozen=True)
class Flags:
    """What the grader knows about a check besides nbval and the judge.

    ``copy``: a :class:`~.copydetect.Copy` the check's functions reach (or None); ``review``:
    reasons to withhold a pass for review (code that could read files where the kernel had no
    walls); ``denied``: the student's code's attempts to reach outside the walls (each a dict with
    ``path`` and ``function``); ``answer_errors``: ``((answer cell key, error text), ...)`` of the
    failed answer cells that define the check's functions; ``run_error``: why the run did not reach
    the cell (e.g. nbval did not start); ``grader_error``: a failure of the grader's side (the
    judge, the walls) that voids the run.
    """

    copy: object = None
    review: tuple = ()
    denied: tuple = ()
    answer_errors: tuple = ()
    run_error: str = ""
    grader_error: str = ""


def _copy_reason(c):
    return (f"answer cell {c.cell!r} defines {c.function}, which is {c.ratio:.0%} identical (code structure, names "
            f"ignored) to the library's {c.target}")


def _outcome(cell, judge, flags):
    """(status, message) from nbval and the judge alone."""
    judged_pass = any(record.get("passed") for record in judge)
    if cell.state == "passed" and judged_pass:
        return "passed", ""
    if judged_pass:
        return ("output-mismatch" if cell.state == "failed" else cell.state,
                "the judge recorded a pass, but the check cell's output differed from the reference "
                "(did your code print while the check ran, or replace print?)"
                + (f"\n{cell.error}" if cell.error else ""))
    if judge:
        status = str(judge[-1].get("status") or "failed")
        return (status if status in STATUSES else "failed"), str(judge[-1].get("message", ""))
    if cell.state == "passed":
        return "unverified", "the check cell printed the verdict line, but the judge never ran this check"
    if cell.state == "failed":
        status, message = "error", cell.error or "the check cell raised"
        for key, error in flags.answer_errors:
            message += f"\nanswer cell {key!r} raised: {error}"
            if "NotAvailableWhileGrading" in error:
                status = "used-library"
        return status, message
    base = {"timeout": "the notebook ran out of time before this check ran",
            "kernel-died": "the kernel died before this check ran",
            "not-run": flags.run_error or "the check cell did not run"}[cell.state]
    return cell.state, base + (f" ({cell.error})" if cell.error else "")


def verdict(*, cell, judge, flags):
    """``(status, message)`` of one check, from its cell outcome, its judge records and the flags.

    ``cell``: :class:`CellOutcome`; ``judge``: the judge's verdict records for this check in this
    run (dicts with ``passed``, ``status``, ``message``), in attempt order; ``flags``: :class:`Flags`.
    """
    if cell.state not in CELL_STATES:
        raise ValueError(f"cell: expected a state in {CELL_STATES}, got {cell.state!r}")
    if flags.grader_error:
        return "grader-error", flags.grader_error
    status, message = _outcome(cell, judge, flags)
    if status == "passed":
        reasons = ([_copy_reason(flags.copy) + "; write your own implementation"] if flags.copy else []) \
            + list(flags.review)
        if reasons:
            return "needs-review", "points withheld until an instructor reviews: " + "; ".join(reasons)
        return status, message
    if flags.denied:
        tried = "; ".join(f"{a.get('path', '?')} (in {a.get('function', '?')})" for a in flags.denied[:3])
        message = (f"your code tried to reach {tried}, outside the graded kernel's sandbox; the access was denied. "
                   "Compute the answer yourself.\n" + message).rstrip()
        status = "access-denied"
    if flags.copy:
        message += "\n" + _copy_reason(flags.copy)
    return status, message


# --- applying it to a run ---------------------------------------------------------------------------

def _cell_state(rec):
    if rec is None:
        return "not-run"
    if rec.get("died"):
        return "kernel-died"
    if rec.get("timeout"):
        return "timeout"
    return "passed" if rec.get("outcome") == "passed" else "failed"


def cell_outcomes(roles, cells, finished):
    """``{check id: CellOutcome}`` from nbval's per-cell records, in the run's context.

    ``roles``: the graded notebook's :class:`~.notebook.CellRole` list; ``cells``: ``{code cell
    number: record}``; ``finished``: whether nbval ended before the notebook's deadline. A cell
    after one that timed out is ``timeout``; a cell that failed or did not run after the kernel died
    is ``kernel-died``; a cell not run in a notebook that ran out of time is ``timeout``.
    """
    timeout_at = min((n for n, rec in cells.items() if rec.get("timeout")), default=None)
    died_at = min((n for n, rec in cells.items() if rec.get("died") and not rec.get("timeout")), default=None)
    out = {}
    for k, role in enumerate(roles):
        if role.kind != "check":
            continue
        rec = cells.get(k)
        state = _cell_state(rec)
        if state != "passed" and timeout_at is not None and timeout_at <= k \
                and (died_at is None or timeout_at <= died_at):
            state = "timeout"                              # an earlier cell ran out of time
        elif state in ("failed", "not-run") and died_at is not None and died_at <= k:
            state = "kernel-died"
        elif state == "not-run" and not finished:
            state = "timeout"                              # the whole notebook ran out of time
        error = (rec or {}).get("error", "") or ""
        if state == "timeout" and timeout_at is not None:
            error = f"code cell {timeout_at} exceeded the cell timeout"
        elif state == "kernel-died" and died_at is not None:
            error = f"it died in code cell {died_at}"
        out[role.name] = CellOutcome(state, error)
    return out


def _relevant(attempts, check_id):
    """The attempts made while check ``check_id`` ran, or at the top level of an answer cell (before every check)."""
    return tuple(a for a in attempts if a.get("check") in (None, check_id))


def check_results(reference, exercise, submission, copies, run, *, enforced):
    """``{check id: CheckResult}`` of one graded run (see :func:`verdict` for the rule).

    ``run``: the :class:`~.run.RunRecord`; ``enforced``: the kernel ran inside Landlock walls (else
    the code a check depends on goes to review when it could have read files or loaded code).
    """
    by_check = {}
    for v in run.verdicts:
        by_check.setdefault(v.get("check"), []).append(v)
    outcomes = cell_outcomes(run.roles, run.cells, run.finished)
    answer_errors = {role.name: run.cells[n].get("error", "") for n, role in enumerate(run.roles)
                     if role.kind == "answer" and n in run.cells and run.cells[n].get("outcome") != "passed"}
    defs = top_level_defs(submission.answers)
    out = {}
    for c in reference.checks:
        functions = exercise.checks[c.id].functions if c.id in exercise.checks else ()
        hits = copied_reach(submission.answers, copies, functions)
        keys = sorted({defs[f][0] for f in functions if f in defs})
        attempts = _relevant(run.attempts, c.id)
        if enforced:
            review, denied = (), tuple(a for a in attempts if a.get("direct"))
        else:
            review = tuple(review_reasons(submission.answers, functions)) + tuple(
                f"while it ran, the code read {a['path']} (in {a['function']})" for a in attempts)
            denied = ()
        flags = Flags(copy=hits[0] if hits else None, review=review, denied=denied, run_error=run.run_error,
                      grader_error=run.grader_error,
                      answer_errors=tuple((k, answer_errors[k]) for k in keys if k in answer_errors))
        records = by_check.get(c.id, [])
        cell = outcomes.get(c.id, CellOutcome("not-run"))
        status, message = verdict(cell=cell, judge=records, flags=flags)
        judged = "pass" if any(v.get("passed") for v in records) else "fail" if records else "none"
        out[c.id] = CheckResult(c.id, c.points if status == "passed" else 0, c.points, status, message,
                                nbval=cell.state, judge=judged, withheld=c.points if status == "needs-review" else 0)
    return out
