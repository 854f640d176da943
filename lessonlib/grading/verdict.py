"""The verdict of each check: what nbval saw, what the judge recorded, what screening found → status.

:func:`decide` is the rule, a pure function of typed fields::

    decide(cell=CellOutcome(...), judge=[judge records], flags=Flags(...)) -> Decision(status, ...)

It reads states, exception class names, ``errno`` values, the judge's recorded status and the
kernel's exit — never the text of a message. :func:`verdict` adds the words (:mod:`.wording`), so
rewording a message cannot change a grade.

A check earns its points iff its status is ``passed``: nbval passed its check cell (the output
equals the reference verdict line) **and** the judge recorded a pass for it in this run **and**
nothing makes the grader unsure. Where it is unsure — the code looks copied from the library, the
kernel ran without walls and the code could have read the answers, or the code asked the judge for a
check outside that check's own cell — a check that would have passed is ``needs-review``: its points
are withheld until an instructor looks. A check that did not pass after the student's code tried to
reach outside the kernel's walls is ``access-denied``; one stopped by a resource limit says which
(``memory-limit``, ``process-limit``, ``disk-limit``, ``cpu-limit``, ``output-limit``).
:func:`check_results` applies the rule to every check of a graded run, after working out each check
cell's outcome in the run's context (a timeout or a dead kernel before a cell decides that cell's fate).
"""
from __future__ import annotations

import errno as errnos
import re
import signal
from dataclasses import dataclass, field

from . import wording
from .checks.checker import NO_ANSWER
from .report.results import STATUSES, CheckResult
from .screening import copied_reach, review_reasons, top_level_defs, untouched

#: The states of a check cell after a run (see :func:`cell_outcomes`).
CELL_STATES = ("passed", "failed", "timeout", "kernel-died", "not-run")
#: The kernel's exit status when a CPU limit stopped it (killed by SIGXCPU; a keeper reports 128 + signal).
CPU_EXITS = (-signal.SIGXCPU, 128 + signal.SIGXCPU)


# --- the typed inputs --------------------------------------------------------------------------------

@dataclass(frozen=True)
class CellOutcome:
    """A check cell's outcome in its run.

    ``state``: one of :data:`CELL_STATES`; ``error``: the cell's exception (``{"ename", "evalue",
    "errno"}``) or None; ``story``: for a cell that did not finish, what happened (a tuple whose first
    item is ``"interrupted"``, ``"here"``, ``"at"``, ``"told"`` or ``"late"``: see :func:`cell_outcomes`);
    ``capped``: its output went over the limit; ``cpu``: a CPU limit stopped the kernel.
    """

    state: str
    error: dict = None
    story: tuple = ()
    capped: bool = False
    cpu: bool = False


@dataclass(frozen=True)
class Flags:
    """What the grader knows about a check besides nbval and the judge.

    ``copy``: a :class:`~.copydetect.Copy` the check's functions reach (or None); ``review``:
    reasons to withhold a pass for review (code that could read files where the kernel had no
    walls); ``refused``: the judge's records of calls it refused for this check (asked outside the
    check's own cell, twice, nested); ``denied``: the student's code's attempts to reach outside the
    walls (each a dict with ``path`` and ``function``); ``not_attempted``: the titles of the check's
    answer cells when all are still the exercise's stubs; ``answer_errors``: ``((answer cell title,
    failure), ...)`` of the failed answer cells that define the check's functions, each failure a
    cell record (``error``, ``timeout``, ``stuck``, ``deadline``); ``run_failure``: why the run did not
    reach the cell, a code (:func:`.wording.run_failure`) the submission caused; ``grader_failure``:
    the same for a failure of the grader's side (the judge, the walls), which voids the run;
    ``defined_in``: ``{function: answer cell title}`` of the check's functions.
    """

    copy: object = None
    review: tuple = ()
    refused: tuple = ()
    denied: tuple = ()
    not_attempted: tuple = ()
    answer_errors: tuple = ()
    run_failure: str = ""
    grader_failure: str = ""
    defined_in: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Decision:
    """A check's status and the typed facts its message is made from (:func:`words`)."""

    status: str
    why: str = ""                   # which story the message tells (see :func:`words`)
    record: dict = None             # the judge's record it rests on
    lost: bool = False              # the judge's last record is a call that never returned
    limit: str = ""                 # the limit status that stopped it, if one did


@dataclass(frozen=True)
class Context:
    """What the words of a run's messages need besides the decision: its cells' roles and the student's
    titles for them, its time limits (seconds) and resource limits (:data:`.kernel.limits.LIMITS`)."""

    roles: tuple = ()
    titles: dict = field(default_factory=dict)
    cell_timeout: float = 0.0
    timeout: float = 0.0
    limits: dict = None


def limit_of(raised, errno):
    """The limit status an exception stands for (``MemoryError``, no space, too many processes), or ``""``."""
    if raised == "MemoryError":
        return "memory-limit"
    if errno in (errnos.ENOSPC, errnos.EFBIG, errnos.EDQUOT):
        return "disk-limit"
    if raised == "BlockingIOError" and errno in (None, errnos.EAGAIN):
        return "process-limit"
    return ""


def _error_limit(error):
    return limit_of(error.get("ename"), error.get("errno")) if error else ""


# --- the rule ------------------------------------------------------------------------------------------

def decide(*, cell, judge, flags):
    """The :class:`Decision` of one check from typed fields only (see the module docstring)."""
    if cell.state not in CELL_STATES:
        raise ValueError(f"cell: expected a state in {CELL_STATES}, got {cell.state!r}")
    if flags.grader_failure:
        return Decision("grader-error", "grader")
    verdicts = [r for r in judge if r.get("event", "verdict") == "verdict"]
    decision = _outcome(cell, verdicts, flags)
    if decision.status == "passed":
        if flags.copy or flags.review or flags.refused:
            return Decision("needs-review", "review", decision.record)
        return decision
    if flags.not_attempted and decision.status in ("failed", "error"):
        return Decision("not-attempted", "stub", decision.record, decision.lost)
    if flags.denied:
        return Decision("access-denied", decision.why, decision.record, decision.lost, decision.limit)
    if decision.status in ("failed", "error") and (decision.record or {}).get("raised") == "NotImplementedError":
        return Decision("not-attempted", "not-implemented", decision.record)
    return decision


def _outcome(cell, verdicts, flags):
    """The decision from the check cell and the judge's records alone."""
    judged_pass = next((r for r in verdicts if r.get("passed")), None)
    if cell.state == "passed" and judged_pass:
        return Decision("passed", "", judged_pass)
    if judged_pass and cell.state == "failed":
        return Decision("output-limit" if cell.capped else "output-mismatch", "mismatch", judged_pass)
    if judged_pass:                                       # passed, then the cell ran out of time or the kernel died
        return Decision(cell.state, "cell", judged_pass)
    last = verdicts[-1] if verdicts else None
    if last is not None and last.get("status") != NO_ANSWER:
        status = str(last.get("status"))
        status = status if status in STATUSES else "failed"     # none, or one the rule does not know
        limit = limit_of(last.get("raised"), last.get("errno")) if status == "failed" else ""
        return Decision(limit or status, "judge", last, limit=limit)
    lost = last is not None
    if cell.state == "passed":
        return Decision("unverified", "unverified", last, lost)
    if cell.state == "failed":
        errors = [failure for _, failure in flags.answer_errors]
        if any((f.get("error") or {}).get("ename") == "NotAvailableWhileGrading" for f in errors):
            return Decision("used-library", "answers", last, lost)
        limit = _error_limit(cell.error) or next((_error_limit(f.get("error")) for f in errors
                                                  if _error_limit(f.get("error"))), "")
        return Decision(limit or "error", "answers", last, lost, limit)
    if cell.state == "not-run":
        return Decision("not-run", "not-run", last, lost)
    if cell.cpu:
        return Decision("cpu-limit", "cell", last, lost, "cpu-limit")
    return Decision(cell.state, "cell", last, lost)


def words(decision, *, cell, flags, context=Context()):
    """The message of a decided check (:mod:`.wording`): nothing here changes the status."""
    status, why, record = decision.status, decision.why, decision.record or {}
    times = {"cell_timeout": context.cell_timeout, "timeout": context.timeout}
    if status == "passed":
        return ""
    if status == "grader-error":
        return wording.run_failure(flags.grader_failure)
    if status == "needs-review":
        reasons = ([wording.copied(flags.copy)] if flags.copy else []) + list(flags.review) + [
            wording.refusal_reason(r, roles=context.roles, titles=context.titles) for r in flags.refused]
        return wording.withheld(reasons)
    story = wording.cell_story(cell.story, titles=context.titles, limits=context.limits, **times)
    error = wording.error_text(cell.error)
    if why == "stub":
        message = "your answer cell " + ", ".join(f"“{t}”" for t in flags.not_attempted) + " is still the exercise's stub"
    elif why == "not-implemented":
        message = wording.still_raises_not_implemented(str(record.get("message", "")))
    elif why == "mismatch":
        message = (wording.output_limit if status == "output-limit" else wording.output_mismatch)(story or error)
    elif why == "judge":
        message = str(record.get("message", ""))
    else:
        lost = wording.lost_call(str(record.get("message", "")), flags.defined_in.get(record.get("function"))) \
            if decision.lost else ""
        if why == "unverified":
            message = wording.unverified(decision.lost)
        elif why == "answers":
            message = wording.check_cell_error(story or error, lost=decision.lost)
            for title, failure in flags.answer_errors:
                message += "\n" + wording.answer_error_line(title, wording.answer_failure(failure, **times))
        elif why == "not-run":
            message = wording.run_failure(flags.run_failure) if flags.run_failure else "the check cell did not run"
        else:
            message = story or error
        message = "\n".join(part for part in (lost, message) if part)
    if decision.limit and status != "access-denied":
        message = wording.limit_reached(decision.limit, message, limits=context.limits)
    if status == "access-denied":
        message = wording.access_denied(flags.denied, message)
    if flags.copy:
        message += "\n" + wording.copy_reason(flags.copy)
    return message


def verdict(*, cell, judge, flags, context=Context()):
    """``(status, message)`` of one check: :func:`decide`, then :func:`words`."""
    decision = decide(cell=cell, judge=judge, flags=flags)
    return decision.status, words(decision, cell=cell, flags=flags, context=context)


# --- applying it to a run ---------------------------------------------------------------------------

def _cell_state(rec):
    if rec is None:
        return "not-run"
    if rec.get("died"):
        return "kernel-died"
    if rec.get("timeout"):
        return "timeout"
    return "passed" if rec.get("outcome") == "passed" else "failed"


def cell_outcomes(roles, cells, finished, *, kernel_exit=None):
    """``{check id: CellOutcome}`` from nbval's per-cell records, in the run's context.

    ``roles``: the graded notebook's :class:`~.notebook.CellRole` list; ``cells``: ``{code cell
    number: record}`` (see :mod:`.runner.guard`); ``finished``: whether nbval ended before the
    notebook's deadline; ``kernel_exit``: the kernel's exit status, when known.

    A cell that runs out of time is interrupted and nbval goes on: the cells after it count as they
    ran (story ``("interrupted",)`` for a check cell). The kernel is gone after a cell that did not
    stop when interrupted (nbval then stops the kernel), after the kernel died, and when the grader
    stopped the run at the notebook's deadline (a record with ``deadline`` set); a check after that
    point that did not pass gets that story: ``("here", how)`` when it happened in this check's own
    cell, ``("at", role, how)`` when in an earlier cell — on the first check it cost — and
    ``("told", check)`` on the later ones; ``("late",)`` when the notebook ran out of time before the
    check with no cell to blame. ``how`` is ``"died"``, ``"cpu"`` (a CPU limit stopped the kernel),
    ``"stuck"`` or ``"deadline"``.
    """
    ended = min((n for n, rec in cells.items() if rec.get("died") or rec.get("stuck") or rec.get("deadline")),
                default=None)
    end = cells[ended] if ended is not None else {}
    died = bool(end.get("died")) and not end.get("timeout")
    cpu = died and kernel_exit in CPU_EXITS
    how = "cpu" if cpu else "died" if died else "deadline" if end.get("deadline") else "stuck"
    out, told = {}, None
    for k, role in enumerate(roles):
        if role.kind != "check":
            continue
        rec = cells.get(k)
        state = _cell_state(rec)
        error = (rec or {}).get("error") or None
        capped = bool((rec or {}).get("capped"))
        if state == "passed":
            out[role.name] = CellOutcome(state)
            continue
        story = ()
        after_end = ended is not None and k > ended
        if after_end or ended == k or (state == "not-run" and not finished):
            if after_end or ended is None:                # the kernel was gone before this cell ran
                state = "kernel-died" if died else "timeout"
            if told is not None:
                story = ("told", told)
            else:
                story = ("late",) if ended is None else ("here", how) if ended == k else ("at", roles[ended], how)
                told = role.name
        elif state == "timeout":                          # this check's call of the student's code; interrupted
            story = ("interrupted",)
        out[role.name] = CellOutcome(state, error, story, capped, cpu and bool(story) and story[0] != "interrupted")
    return out


def _relevant(attempts, check_id):
    """The attempts made while check ``check_id`` ran, or at the top level of an answer cell (before every check)."""
    return tuple(a for a in attempts if a.get("check") in (None, check_id))


_CELL_FILE = re.compile(r'File "[^"]*?(?:ipykernel_\d+[/\\](\d+)\.py|<ipython-input-[^"]*>)", line (\d+)')
_INTERNAL = re.compile(r"(?:/[\w.+-]+)*/(?:lessonlib-(?:batch|kernel|grade|sandbox)-)[\w]+(?:/[^\s\"']*)?")


def student_text(message, cell_files):
    """``message`` with the kernel's file names replaced by the student's cell titles, internal paths cut.

    ``cell_files``: ``{file stem: title}`` of the graded notebook's cells (see :func:`cell_file_names`).
    """
    def cell(m):
        title = cell_files.get(m.group(1) or "")
        return f"{'your answer cell “' + title + '”' if title else 'your code'}, line {m.group(2)}"
    return _INTERNAL.sub("…", _CELL_FILE.sub(cell, message))


def cell_file_names(sources):
    """``{file stem: title}``: the name ipykernel gives each cell's code (a hash of its source)."""
    from ipykernel.compiler import get_tmp_hash_seed, murmur2_x86   # noqa: PLC0415 (the grader only)
    return {str(murmur2_x86(source, get_tmp_hash_seed())): title for source, title in sources}


def run_notes(reference, run):
    """Notes for the feedback on what the run did to the answer cells: those interrupted for time."""
    titles = reference.answer_titles()
    return [wording.interrupted_note(titles.get(role.name, role.name), run.cells[n], cell_timeout=run.cell_timeout,
                                     timeout=run.timeout)
            for n, role in enumerate(run.roles)
            if role.kind == "answer" and run.cells.get(n, {}).get("timeout")
            and not (run.cells[n].get("stuck") or run.cells[n].get("deadline"))]


def check_results(reference, exercise, submission, copies, run, *, enforced, limits=None):
    """``{check id: CheckResult}`` of one graded run (see :func:`decide` for the rule).

    ``run``: the :class:`~.run.RunRecord`; ``enforced``: the kernel ran inside walls that keep it
    from reading files (else the code a check depends on goes to review when it could have read
    files or loaded code); ``limits``: the run's resource limits (for the messages).
    """
    by_check = {}
    for record in run.judge:
        by_check.setdefault(record.get("check"), []).append(record)
    titles = reference.answer_titles()
    outcomes = cell_outcomes(run.roles, run.cells, run.finished, kernel_exit=run.kernel_exit)
    answer_errors = {role.name: run.cells[n] for n, role in enumerate(run.roles)
                     if role.kind == "answer" and n in run.cells and run.cells[n].get("outcome") != "passed"}
    files = cell_file_names((submission.answers.get(k, ""), t) for k, t in titles.items())
    defs = top_level_defs(submission.answers)
    reference_answers = reference.answer_sources()
    homes = top_level_defs(reference_answers)                 # where each function belongs (if the answer has no def)
    context = Context(tuple(run.roles), titles, run.cell_timeout, run.timeout, limits)
    out = {}
    for c in reference.checks:
        check = exercise.checks.get(c.id)
        graded = check.answers if check else ()                      # what it grades (and what they call)
        named = check.functions if check else ()                     # what its cell names (answers and helpers)
        hits = copied_reach(submission.answers, copies, graded)
        keys = sorted({defs[f][0] if f in defs else homes[f][0] for f in named if f in defs or f in homes})
        attempts = _relevant(run.attempts, c.id)
        stubs = untouched(submission.answers, reference_answers, graded)
        if enforced:
            review, denied = (), tuple(a for a in attempts if a.get("direct"))
        else:
            review = tuple(review_reasons(submission.answers, graded)) + tuple(
                f"while it ran, the code read {a['path']} (in {a['function']})" for a in attempts)
            denied = ()
        records = by_check.get(c.id, [])
        flags = Flags(copy=hits[0] if hits else None, review=review, denied=denied,
                      refused=tuple(r for r in records if r.get("event") == "refused"),
                      not_attempted=tuple(titles.get(k, k) for k in stubs),
                      run_failure=run.run_failure, grader_failure=run.grader_failure,
                      defined_in={f: titles.get(defs[f][0], defs[f][0]) for f in named if f in defs},
                      answer_errors=tuple((titles.get(k, k), answer_errors[k]) for k in keys if k in answer_errors))
        cell = outcomes.get(c.id, CellOutcome("not-run"))
        status, message = verdict(cell=cell, judge=records, flags=flags, context=context)
        verdicts = [r for r in records if r.get("event", "verdict") == "verdict"]
        judged = "pass" if any(v.get("passed") for v in verdicts) else "fail" if verdicts else "none"
        out[c.id] = CheckResult(c.id, c.points if status == "passed" else 0, c.points, status,
                                student_text(message, files), nbval=cell.state, judge=judged,
                                withheld=c.points if status == "needs-review" else 0)
    return out
