"""Every sentence the grader writes to a student about a check, made from typed facts in one place.

:mod:`.verdict` decides each check's status from typed fields only (a cell's state and exception
class, the judge's recorded status, the kernel's exit, the screening's findings) and then asks this
module for the words. Nothing here is read back: rewording a message cannot change a grade
(``tests/test_grading_verdict.py`` rewrites every function here and compares the grades).

The words are the student's: the cells are named by their section headings, the limits by their
values, never a process, a file of the grading machine or a test harness.
"""
from __future__ import annotations

from .kernel.limits import LIMITS, OUTPUT_LIMIT


def limit_name(status, limits=None):
    """A resource limit named by its status, with its value: ``memory limit (2 GiB per process)``."""
    limits = limits or LIMITS
    return {"memory-limit": f"memory limit ({limits['memory'] / 2**30:g} GiB per process)",
            "process-limit": f"process limit ({limits['processes']} processes and threads)",
            "disk-limit": f"disk limit ({limits['disk'] / 2**20:g} MiB in its private directory, or per file)",
            "cpu-limit": f"CPU time limit ({limits['cpu']:g} s per process)",
            "output-limit": f"output limit ({OUTPUT_LIMIT // 1024} K characters per cell)"}[status]

#: How a check cell's run ended early, by the typed story :func:`.verdict.cell_outcomes` tells.
_DIED = "(a crash, os._exit or a signal)"


def _limits(cell_timeout, timeout):
    return (f" ({cell_timeout:g} s per cell)" if cell_timeout else "",
            f" ({timeout:g} s per notebook)" if timeout else "")


def where(role, titles):
    """A cell of the graded notebook as the student knows it."""
    if role.kind == "answer":
        return f"your answer cell “{titles.get(role.name, role.name)}”"
    if role.kind == "check":
        return f"the check cell of {role.name}"
    return "a setup cell of the notebook"


def cell_story(story, *, titles, cell_timeout=None, timeout=None, limits=None):
    """What happened to a check cell that did not pass, from its typed ``story`` (see :func:`.verdict.cell_outcomes`)."""
    per_cell, per_notebook = _limits(cell_timeout, timeout)
    kind = story[0] if story else ""
    if kind == "interrupted":
        return (f"the check ran out of time{per_cell} while it ran your code, and interrupted it: an endless loop, "
                "or a computation far too slow?")
    if kind == "told":
        return f"it did not run: the notebook had stopped earlier (see {story[1]})"
    if kind == "late":
        return f"the notebook ran out of time{per_notebook} before this check; the checks after it did not run"
    if kind in ("here", "at"):
        how = story[-1]
        if kind == "here":
            text = {"died": f"the kernel died while this check ran your code {_DIED}",
                    "cpu": f"your code used up its CPU time{_cpu(limits)} while this check ran it, and the kernel "
                           "was stopped",
                    "deadline": f"this check was running your code when the notebook ran out of time{per_notebook}",
                    "stuck": f"this check ran out of time{per_cell} while it ran your code, which did not stop when "
                             "interrupted"}[how]
        else:
            place = where(story[1], titles)
            text = {"died": f"the kernel died while running {place} {_DIED}",
                    "cpu": f"{place} used up its CPU time{_cpu(limits)}, and the kernel was stopped",
                    "deadline": f"{place} ran out of time{per_notebook}",
                    "stuck": f"{place} ran out of time{per_cell} and did not stop when interrupted"}[how]
        return text + "; the checks after it did not run"
    return ""


def _cpu(limits):
    return f" ({limits['cpu']:g} s per process)" if limits else ""


def error_text(error):
    """A cell's exception in one line: ``NameError: name 'x' is not defined``."""
    if not error:
        return ""
    return f"{error.get('ename', '')}: {error.get('evalue', '')}".strip(": ")


def answer_failure(failure, *, cell_timeout=None, timeout=None):
    """What happened to an answer cell that did not pass (after "your answer cell “…” ")."""
    per_cell, per_notebook = _limits(cell_timeout, timeout)
    if not failure.get("timeout"):
        return f"raised: {error_text(failure.get('error'))}"
    if failure.get("deadline"):
        return f"ran out of time{per_notebook}"
    return f"ran out of time{per_cell} and " + ("did not stop when interrupted" if failure.get("stuck")
                                                else "was interrupted")


def interrupted_note(title, failure, *, cell_timeout=None, timeout=None):
    """The feedback's note on an answer cell interrupted for time (the cells after it ran on)."""
    return (f"your answer cell “{title}” {answer_failure(failure, cell_timeout=cell_timeout, timeout=timeout)}; "
            "the cells after it ran on")


def copy_reason(c):
    return (f"answer cell {c.cell!r} defines {c.function}, which is {c.ratio:.0%} identical (code structure, names "
            f"ignored) to the library's {c.target}")


#: Why the judge refused a call, by the reason it recorded (:data:`lessonlib.grading.checks.judge.REFUSALS`).
_REFUSED = {
    "outside": "outside its check cell",
    "other": "from another check's cell",
    "again": "a second time in its check cell",
    "nested": "while the grader was already running a check on your code",
    "unknown": "(a check this exercise does not have)",
}


def refusal_reason(refusal, *, roles, titles):
    """A refused call of the judge, as a reason for review."""
    cell = refusal.get("cell")
    place = where(roles[cell], titles) if isinstance(cell, int) and 0 <= cell < len(roles) else "your code"
    return (f"your code asked the grader to judge {refusal.get('check', '?')} {_REFUSED.get(refusal.get('reason'), '')} "
            f"(from {place}); the grader judges each check once, from its own check cell")


def withheld(reasons):
    return "points withheld until an instructor reviews: " + "; ".join(reasons)


def copied(c):
    return copy_reason(c) + "; write your own implementation"


def lost_call(judge_message, function_title):
    """The judge's record of a call that never returned, with the answer cell that defines the function."""
    return judge_message + (f" (your answer cell “{function_title}”)" if function_title else "")


def output_mismatch(error):
    return ("the grader's run of this check passed, but the check cell printed something else (did your code print "
            "while the check ran, or replace print?)" + (f"\n{error}" if error else ""))


def output_limit(error):
    return (f"the grader's run of this check passed, but the check cell's output went over the limit "
            f"({limit_name('output-limit')}): did your code print from a thread while the check ran?"
            + (f"\n{error}" if error else ""))


def unverified(lost):
    return ("the check cell printed the verdict line, but the grader's run of this check "
            + ("did not finish" if lost else "never ran"))


def check_cell_error(error, *, lost):
    if lost and error:
        return f"your code stopped the check: {error}"
    return error or "the check cell raised"


def answer_error_line(title, text):
    return f"your answer cell “{title}” {text}"


def access_denied(attempts, message):
    seen = dict.fromkeys(f"{a.get('path', '?')} (in {a.get('function', '?')})" for a in attempts)
    tried = "; ".join(list(seen)[:3])
    return (f"your code tried to reach {tried}, outside the grader's sandbox; the access was denied. "
            "Compute the answer yourself.\n" + message).rstrip()


def still_raises_not_implemented(message):
    return "your function still raises NotImplementedError (the exercise's stub)\n" + message


def limit_reached(status, message, *, limits=None):
    """A check stopped by one of the run's resource limits: which one, and its value."""
    return f"your code reached the {limit_name(status, limits)}\n" + message


def run_failure(code):
    """The run-level failures the student sees (the instructor has the details)."""
    return {"judge-failed": "the grader's checking process failed; your instructor has the details",
            "no-walls": "the grader could not start a sandboxed kernel; your instructor has the details",
            "not-batch": "the grader could not start a sandboxed kernel; your instructor has the details",
            "nbval-failed": "the grader could not run this notebook; your instructor has the details",
            "signal": "the notebook's run was stopped by a signal (sent by your code?)",
            "lost": "the grader lost this notebook's run (its own failure); your instructor has the details",
            }.get(code, "the grader could not run this notebook; your instructor has the details")
