"""The verdict of each check: what nbval saw, what the judge recorded, what screening found → status.

:func:`verdict` is the rule, a pure function of three named inputs::

    verdict(cell=CellOutcome(...), judge=[judge records], flags=Flags(...)) -> (status, message)

A check earns its points iff its status is ``passed``: nbval passed its check cell (the output
equals the reference verdict line) **and** the judge recorded a pass for it in this run **and**
the code it exercises is not a copy of the library. :func:`check_results` applies the rule to every
check of a graded run, after working out each check cell's outcome in the run's context (a
timeout or a dead kernel before a cell decides that cell's fate).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .screening import copied_reach, top_level_defs

#: Every status a check can get, and what it means (the feedback files explain them with this).
STATUSES = {
    "passed": "the check cell printed the reference verdict and the judge recorded a pass",
    "failed": "the judge ran the check and the answer disagreed (see the message)",
    "used-library": "the answer called a library function the exercise asks you to write",
    "copied-from-library": "the answer's code is a copy of the library's implementation",
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

    @property
    def total(self):
        return sum(c.points for c in self.checks.values())

    @property
    def max(self):
        return sum(c.max_points for c in self.checks.values())

    def as_json(self):
        return {"total": self.total, "max": self.max, "student_id": self.student_id,
                "checks": {k: {"points": c.points, "max_points": c.max_points, "status": c.status,
                               "message": c.message, "nbval": c.nbval, "judge": c.judge}
                           for k, c in self.checks.items()},
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

    ``copy``: a :class:`~.copydetect.Copy` the check's functions reach (or None);
    ``answer_errors``: ``((answer cell key, error text), ...)`` of the failed answer cells that
    define the check's functions; ``run_error``: why the run did not reach the cell (e.g. nbval
    did not start); ``grader_error``: a failure of the grader's side (the judge) that voids the run.
    """

    copy: object = None
    answer_errors: tuple = ()
    run_error: str = ""
    grader_error: str = ""


def verdict(*, cell, judge, flags):
    """``(status, message)`` of one check, from its cell outcome, its judge records and the flags.

    ``cell``: :class:`CellOutcome`; ``judge``: the judge's verdict records for this check in this
    run (dicts with ``passed``, ``status``, ``message``), in attempt order; ``flags``: :class:`Flags`.
    """
    if cell.state not in CELL_STATES:
        raise ValueError(f"cell: expected a state in {CELL_STATES}, got {cell.state!r}")
    judged_pass = any(record.get("passed") for record in judge)
    if flags.copy is not None:
        c = flags.copy
        return "copied-from-library", (f"answer cell {c.cell!r} defines {c.function}, which is {c.ratio:.0%} "
                                       f"identical (code structure, names ignored) to the library's {c.target}; "
                                       "write your own implementation")
    if flags.grader_error:
        return "grader-error", flags.grader_error
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


def check_results(reference, exercise, submission, copies, roles, cells, verdicts, *, finished, run_error="",
                  grader_error=""):
    """``{check id: CheckResult}`` of one graded run (see :func:`verdict` for the rule)."""
    by_check = {}
    for v in verdicts:
        by_check.setdefault(v.get("check"), []).append(v)
    outcomes = cell_outcomes(roles, cells, finished)
    answer_errors = {role.name: cells[n].get("error", "") for n, role in enumerate(roles)
                     if role.kind == "answer" and n in cells and cells[n].get("outcome") != "passed"}
    defs = top_level_defs(submission.answers)
    out = {}
    for c in reference.checks:
        check = exercise.checks.get(c.id)
        hits = copied_reach(submission.answers, copies, check.answers if check else ())      # what it grades
        keys = sorted({defs[f][0] for f in (check.functions if check else ()) if f in defs})  # what its cell names
        flags = Flags(copy=hits[0] if hits else None, run_error=run_error, grader_error=grader_error,
                      answer_errors=tuple((k, answer_errors[k]) for k in keys if k in answer_errors))
        records = by_check.get(c.id, [])
        cell = outcomes.get(c.id, CellOutcome("not-run"))
        status, message = verdict(cell=cell, judge=records, flags=flags)
        judged = "pass" if any(v.get("passed") for v in records) else "fail" if records else "none"
        out[c.id] = CheckResult(c.id, c.points if status == "passed" else 0, c.points, status, message,
                                nbval=cell.state, judge=judged)
    return out
