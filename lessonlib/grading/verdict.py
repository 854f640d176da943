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

import re
from dataclasses import dataclass, field

from .checks.checker import NO_ANSWER
from .report.results import STATUSES, CheckResult
from .screening import copied_reach, review_reasons, top_level_defs, untouched

#: The states of a check cell after a run (see :func:`cell_outcomes`).
CELL_STATES = ("passed", "failed", "timeout", "kernel-died", "not-run")


# --- the rule ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CellOutcome:
    """A check cell's outcome in its run: ``state`` (one of :data:`CELL_STATES`) and the error text.

    For ``timeout`` and ``kernel-died``, ``error`` says what happened, in the student's words (which
    of their cells, which limit) — on the first check it cost, and points to that check on the later
    ones, so the story is told once.
    """

    state: str
    error: str = ""


@dataclass(frozen=True)
class Flags:
    """What the grader knows about a check besides nbval and the judge.

    ``copy``: a :class:`~.copydetect.Copy` the check's functions reach (or None); ``review``:
    reasons to withhold a pass for review (code that could read files where the kernel had no
    walls); ``denied``: the student's code's attempts to reach outside the walls (each a dict with
    ``path`` and ``function``); ``not_attempted``: why the answer counts as not attempted (its cells
    are still the exercise's stubs), or empty; ``answer_errors``: ``((answer cell title, what
    happened), ...)`` of the failed answer cells that define the check's functions (``"raised:
    NameError: ..."``, ``"ran out of time (60 s per cell) and was interrupted"``); ``run_error``: why
    the run did not reach the cell; ``grader_error``: a failure of the grader's side (the judge, the
    walls) that voids the run; ``defined_in``: ``{function: answer cell title}`` of the check's functions.
    """

    copy: object = None
    review: tuple = ()
    denied: tuple = ()
    not_attempted: str = ""
    answer_errors: tuple = ()
    run_error: str = ""
    grader_error: str = ""
    defined_in: dict = field(default_factory=dict)


def _copy_reason(c):
    return (f"answer cell {c.cell!r} defines {c.function}, which is {c.ratio:.0%} identical (code structure, names "
            f"ignored) to the library's {c.target}")


def _outcome(cell, judge, flags):
    """(status, message) from the check cell and the judge's records alone."""
    judged_pass = any(record.get("passed") for record in judge)
    if cell.state == "passed" and judged_pass:
        return "passed", ""
    if judged_pass and cell.state == "failed":
        return ("output-mismatch", "the grader's run of this check passed, but the check cell printed something else "
                "(did your code print while the check ran, or replace print?)" + (f"\n{cell.error}" if cell.error else ""))
    if judged_pass:                                       # passed, then the cell ran out of time or the kernel died
        return cell.state, cell.error
    last = judge[-1] if judge else None
    if last is not None and last.get("status") != NO_ANSWER:
        status = str(last.get("status") or "failed")
        return (status if status in STATUSES else "failed"), str(last.get("message", ""))
    lost = str(last.get("message", "")) if last is not None else ""    # the call of the student's code in flight
    if lost and flags.defined_in.get(last.get("function")):
        lost += f" (your answer cell “{flags.defined_in[last['function']]}”)"
    status, message = _unjudged(cell, flags, lost=bool(lost))
    return status, "\n".join(part for part in (lost, message) if part)


def _unjudged(cell, flags, *, lost):
    """(status, message) of a check the judge has no verdict for (``lost``: it stopped waiting for an answer)."""
    if cell.state == "passed":
        return "unverified", ("the check cell printed the verdict line, but the grader's run of this check "
                              + ("did not finish" if lost else "never ran"))
    if cell.state == "failed":
        status, message = "error", (f"your code stopped the check: {cell.error}" if lost and cell.error
                                    else cell.error or "the check cell raised")
        for title, what in flags.answer_errors:
            message += f"\nyour answer cell “{title}” {what}"
            if "NotAvailableWhileGrading" in what:
                status = "used-library"
        return status, message
    if cell.state == "not-run":
        return "not-run", flags.run_error or "the check cell did not run"
    return cell.state, cell.error


def verdict(*, cell, judge, flags):
    """``(status, message)`` of one check, from its cell outcome, its judge records and the flags.

    ``cell``: :class:`CellOutcome`; ``judge``: the judge's verdict records for this check in this
    run (dicts with ``passed``, ``status``, ``message``), in attempt order; ``flags``: :class:`Flags`.
    A check that passes is ``passed``, or ``needs-review`` when a copy or a review reason stands;
    one that failed is ``not-attempted`` (its cells are stubs), ``access-denied`` (its code tried to
    reach outside the walls), ``not-attempted`` (its function raised ``NotImplementedError``), or
    what nbval and the judge say; a timeout or a dead kernel says so.
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
    if flags.not_attempted and status in ("failed", "error"):
        return "not-attempted", flags.not_attempted          # a stub; (a timeout or a crash says more)
    if flags.denied:
        tried = "; ".join(f"{a.get('path', '?')} (in {a.get('function', '?')})" for a in flags.denied[:3])
        message = (f"your code tried to reach {tried}, outside the grader's sandbox; the access was denied. "
                   "Compute the answer yourself.\n" + message).rstrip()
        status = "access-denied"
    elif status in ("failed", "error") and "raised NotImplementedError" in message:
        return "not-attempted", "your function still raises NotImplementedError (the exercise's stub)\n" + message
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


def _where(role, titles):
    if role.kind == "answer":
        return f"your answer cell “{titles.get(role.name, role.name)}”"
    if role.kind == "check":
        return f"the check cell of {role.name}"
    return "a setup cell of the notebook"


def cell_outcomes(roles, cells, finished, *, titles=None, cell_timeout=None, timeout=None):
    """``{check id: CellOutcome}`` from nbval's per-cell records, in the run's context.

    ``roles``: the graded notebook's :class:`~.notebook.CellRole` list; ``cells``: ``{code cell
    number: record}`` (see the plugin's ``_InnerReport``); ``finished``: whether nbval ended before
    the notebook's deadline; ``titles``: ``{answer key: title}``; ``cell_timeout``, ``timeout``: the
    limits (seconds), for the messages.

    A cell that runs out of time is interrupted and nbval goes on: the cells after it count as they
    ran. The kernel is gone after a cell that did not stop when interrupted (nbval then stops the
    kernel), after the kernel died, and when the grader stopped the run at the notebook's deadline (a
    record with ``deadline`` set); a check after that point that did not pass gets that story, told
    in full on the first check it cost and pointed to on the later ones.
    """
    titles = titles or {}
    cell_limit = f" ({cell_timeout:g} s per cell)" if cell_timeout else ""
    notebook_limit = f" ({timeout:g} s per notebook)" if timeout else ""
    ended = min((n for n, rec in cells.items() if rec.get("died") or rec.get("stuck") or rec.get("deadline")),
                default=None)
    end = cells[ended] if ended is not None else {}
    died = bool(end.get("died")) and not end.get("timeout")

    def end_story(k):
        """Why the checks from ``k`` on did not run (``k`` is the first check it cost)."""
        if ended is None:
            return f"the notebook ran out of time{notebook_limit} before this check"
        if ended == k:
            if died:
                return "the kernel died while this check ran your code (a crash, os._exit or a signal)"
            if end.get("deadline"):
                return f"this check was running your code when the notebook ran out of time{notebook_limit}"
            return f"this check ran out of time{cell_limit} while it ran your code, which did not stop when interrupted"
        where = _where(roles[ended], titles)
        if died:
            return f"the kernel died while running {where} (a crash, os._exit or a signal)"
        if end.get("deadline"):
            return f"{where} ran out of time{notebook_limit}"
        return f"{where} ran out of time{cell_limit} and did not stop when interrupted"

    out, told = {}, None
    for k, role in enumerate(roles):
        if role.kind != "check":
            continue
        rec = cells.get(k)
        state = _cell_state(rec)
        error = (rec or {}).get("error", "") or ""
        if state == "passed":
            out[role.name] = CellOutcome(state)
            continue
        after_end = ended is not None and k > ended
        if after_end or ended == k or (state == "not-run" and not finished):
            if after_end or ended is None:                # the kernel was gone before this cell ran
                state = "kernel-died" if died else "timeout"
            if told is not None:
                error = f"it did not run: the notebook had stopped earlier (see {told})"
            else:
                error, told = end_story(k) + "; the checks after it did not run", role.name
        elif state == "timeout":                          # this check's call of the student's code; interrupted
            error = (f"the check ran out of time{cell_limit} while it ran your code, and interrupted it: "
                     "an endless loop, or a computation far too slow?")
        out[role.name] = CellOutcome(state, error)
    return out


def _relevant(attempts, check_id):
    """The attempts made while check ``check_id`` ran, or at the top level of an answer cell (before every check)."""
    return tuple(a for a in attempts if a.get("check") in (None, check_id))


_CELL_FILE = re.compile(r'File "[^"]*?(?:ipykernel_\d+[/\\](\d+)\.py|<ipython-input-[^"]*>)", line (\d+)')
_INTERNAL = re.compile(r"(?:/[\w.+-]+)*/(?:lessonlib-(?:kernel|grade|sandbox)-|lg-)[\w]+(?:/[^\s\"']*)?")


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


def _answer_cell_failure(rec, run):
    """What happened to an answer cell that did not pass, in the words of "your answer cell “…” ..."."""
    if not rec.get("timeout"):
        return f"raised: {rec.get('error', '')}"
    if rec.get("deadline"):
        return f"ran out of time ({run.timeout:g} s per notebook)" if run.timeout else "ran out of time"
    limit = f" ({run.cell_timeout:g} s per cell)" if run.cell_timeout else ""
    return f"ran out of time{limit} and " + ("did not stop when interrupted" if rec.get("stuck") else "was interrupted")


def run_notes(reference, run):
    """Notes for the feedback on what the run did to the answer cells: those interrupted for time."""
    titles = reference.answer_titles()
    return [f"your answer cell “{titles.get(role.name, role.name)}” {_answer_cell_failure(run.cells[n], run)}; "
            "the cells after it ran on" for n, role in enumerate(run.roles)
            if role.kind == "answer" and run.cells.get(n, {}).get("timeout")
            and not (run.cells[n].get("stuck") or run.cells[n].get("deadline"))]


def check_results(reference, exercise, submission, copies, run, *, enforced):
    """``{check id: CheckResult}`` of one graded run (see :func:`verdict` for the rule).

    ``run``: the :class:`~.run.RunRecord`; ``enforced``: the kernel ran inside Landlock walls (else
    the code a check depends on goes to review when it could have read files or loaded code).
    """
    by_check = {}
    for v in run.verdicts:
        by_check.setdefault(v.get("check"), []).append(v)
    titles = reference.answer_titles()
    outcomes = cell_outcomes(run.roles, run.cells, run.finished, titles=titles, cell_timeout=run.cell_timeout,
                             timeout=run.timeout)
    answer_errors = {role.name: _answer_cell_failure(run.cells[n], run) for n, role in enumerate(run.roles)
                     if role.kind == "answer" and n in run.cells and run.cells[n].get("outcome") != "passed"}
    files = cell_file_names((submission.answers.get(k, ""), t) for k, t in titles.items())
    defs = top_level_defs(submission.answers)
    reference_answers = reference.answer_sources()
    out = {}
    for c in reference.checks:
        check = exercise.checks.get(c.id)
        graded = check.answers if check else ()                      # what it grades (and what they call)
        named = check.functions if check else ()                     # what its cell names (answers and helpers)
        hits = copied_reach(submission.answers, copies, graded)
        keys = sorted({defs[f][0] for f in named if f in defs})
        attempts = _relevant(run.attempts, c.id)
        stubs = untouched(submission.answers, reference_answers, graded)
        if enforced:
            review, denied = (), tuple(a for a in attempts if a.get("direct"))
        else:
            review = tuple(review_reasons(submission.answers, graded)) + tuple(
                f"while it ran, the code read {a['path']} (in {a['function']})" for a in attempts)
            denied = ()
        flags = Flags(copy=hits[0] if hits else None, review=review, denied=denied,
                      not_attempted=("your answer cell " + ", ".join(f"“{titles.get(k, k)}”" for k in stubs)
                                     + " is still the exercise's stub") if stubs else "",
                      run_error=run.run_error, grader_error=run.grader_error,
                      defined_in={f: titles.get(defs[f][0], defs[f][0]) for f in named if f in defs},
                      answer_errors=tuple((titles.get(k, k), answer_errors[k]) for k in keys if k in answer_errors))
        records = by_check.get(c.id, [])
        cell = outcomes.get(c.id, CellOutcome("not-run"))
        status, message = verdict(cell=cell, judge=records, flags=flags)
        judged = "pass" if any(v.get("passed") for v in records) else "fail" if records else "none"
        out[c.id] = CheckResult(c.id, c.points if status == "passed" else 0, c.points, status,
                                student_text(message, files), nbval=cell.state, judge=judged,
                                withheld=c.points if status == "needs-review" else 0)
    return out
