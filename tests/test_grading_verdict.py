"""The verdict rule, one case per status: (cell outcome, judge records, flags) → (status, message).

:func:`lessonlib.grading.verdict.verdict` is pure, so every status is reached here without a kernel;
the graded runs of ``test_grading.py`` show the same statuses coming out of real runs.
"""
import dataclasses
import signal

import pytest

from lessonlib.grading.copydetect import Copy
from lessonlib.grading.report.results import STATUSES, all_checks
from lessonlib.grading import wording
from lessonlib.grading.notebook import CellRole
from lessonlib.grading.verdict import CellOutcome, Context, Decision, Flags, cell_outcomes, decide, limit_of, verdict

PASS = {"check": "c", "attempt": 1, "passed": True, "status": "passed", "message": ""}
#: the judge's record when the kernel stopped answering while a student function ran
LOST = {"check": "c", "attempt": 1, "passed": False, "status": "no-answer",
        "message": "✗ [c] static torques\nstatic_torques(0.5, 1) did not return"}
FAIL = {"check": "c", "attempt": 1, "passed": False, "status": "failed",
        "message": "✗ [c] title\nexpected\n    [1.]\ngot\n    [2.]"}
COPY = Copy("answer-rnea", "rnea", "lessonlib.dynamics.rnea.rnea", 0.97)
ROLES = [CellRole("setup"), CellRole("answer", "a1"), CellRole("check", "c1"), CellRole("answer", "a2"),
         CellRole("check", "c2"), CellRole("check", "c3")]
TITLES = {"a1": "(a) First part", "a2": "(b) Second part"}
CONTEXT = Context(tuple(ROLES), TITLES, cell_timeout=60, timeout=600)


def error(ename, evalue="", errno=None):
    """A cell's exception as nbval's guard records it."""
    return {"ename": ename, "evalue": evalue, "errno": errno}


def failed_answer(ename, evalue="", errno=None):
    return {"outcome": "failed", "error": error(ename, evalue, errno)}


# status -> (cell, judge records, flags, a phrase the message must contain)
CASES = {
    "passed": (CellOutcome("passed"), [PASS], Flags(), ""),
    "failed": (CellOutcome("failed", error("CheckFailed", "✗ [c]")), [FAIL], Flags(),
               "expected\n    [1.]\ngot\n    [2.]"),
    "used-library": (CellOutcome("failed", error("NameError", "name 'rnea' is not defined")), [], Flags(
        answer_errors=(("answer-rnea", failed_answer("NotAvailableWhileGrading",
                                                     "lessonlib.dynamics.rnea is not available while grading")),)),
        "your answer cell “answer-rnea” raised: NotAvailableWhileGrading"),
    "needs-review": (CellOutcome("passed"), [PASS], Flags(copy=COPY),
                     "withheld until an instructor reviews: answer cell 'answer-rnea' defines rnea, which is 97% "
                     "identical (code structure, names ignored) to the library's lessonlib.dynamics.rnea.rnea"),
    "access-denied": (CellOutcome("failed", error("CheckFailed")), [FAIL], Flags(denied=(
        {"path": "/proc/1/cmdline", "function": "rnea"},)),
        "your code tried to reach /proc/1/cmdline (in rnea), outside the grader's sandbox; the access was "
        "denied. Compute the answer yourself.\n✗ [c] title"),
    "output-mismatch": (CellOutcome("failed"), [PASS], Flags(), "printed something else"),
    "unverified": (CellOutcome("passed"), [], Flags(), "the grader's run of this check never ran"),
    "error": (CellOutcome("failed", error("NameError", "name 'rnea' is not defined")), [],
              Flags(answer_errors=(("(d) The whole RNEA", failed_answer("SyntaxError", "invalid syntax")),)),
              "NameError: name 'rnea' is not defined\nyour answer cell “(d) The whole RNEA” raised: SyntaxError"),
    "timeout": (CellOutcome("timeout", story=("at", ROLES[3], "stuck")), [], Flags(),
                "your answer cell “(b) Second part” ran out of time (60 s per cell) and did not stop"),
    "kernel-died": (CellOutcome("kernel-died", story=("at", ROLES[3], "died")), [], Flags(),
                    "the kernel died while running your answer cell “(b) Second part”"),
    "not-attempted": (CellOutcome("failed", error("CheckFailed")), [{**FAIL, "message": "rnea(...) raised "
                                                                     "NotImplementedError"}],
                      Flags(not_attempted=("(d) The whole RNEA",)),
                      "your answer cell “(d) The whole RNEA” is still the exercise's stub"),
    "not-run": (CellOutcome("not-run"), [], Flags(run_failure="signal"), "stopped by a signal"),
    "checker-error": (CellOutcome("failed", error("CheckFailed")), [{**FAIL, "status": "checker-error",
                                                                     "message": "the checker raised KeyError"}],
                      Flags(), "the checker raised KeyError"),
    "grader-error": (CellOutcome("passed"), [PASS], Flags(grader_failure="judge-failed"),
                     "the grader's checking process failed"),
    "memory-limit": (CellOutcome("failed", error("CheckFailed")), [{**FAIL, "raised": "MemoryError"}], Flags(),
                     "your code reached the memory limit (2 GiB per process)\n✗ [c] title"),
    "process-limit": (CellOutcome("failed", error("BlockingIOError", "[Errno 11] Resource temporarily "
                                                  "unavailable", 11)), [], Flags(),
                      "your code reached the process limit (48 processes and threads)"),
    "disk-limit": (CellOutcome("failed", error("CheckFailed")), [{**FAIL, "raised": "OSError", "errno": 28}],
                   Flags(), "your code reached the disk limit (64 MiB in its private directory, or per file)"),
    "cpu-limit": (CellOutcome("kernel-died", story=("here", "cpu"), cpu=True), [], Flags(),
                  "your code reached the CPU time limit (600 s per process)"),
    "output-limit": (CellOutcome("failed", capped=True), [PASS], Flags(), "the check cell's output went over the "
                     "limit (output limit ("),
}


def test_every_status_but_unreadable_comes_from_the_verdict_rule():
    assert set(CASES) == set(STATUSES) - {"unreadable"}       # unreadable: the submission never ran


@pytest.mark.parametrize("status", sorted(CASES))
def test_verdict(status):
    cell, judge, flags, phrase = CASES[status]
    got, message = verdict(cell=cell, judge=judge, flags=flags, context=CONTEXT)
    assert got == status
    assert phrase in message
    assert (message == "") == (status == "passed")


def test_rewording_cannot_change_a_grade(monkeypatch):
    """The rule reads typed fields only: with every sentence of :mod:`wording` replaced, every status stays."""
    before = {s: decide(cell=c, judge=j, flags=f) for s, (c, j, f, _) in CASES.items()}

    def refuse(*args, **kwargs):
        raise AssertionError("decide() asked for words")
    names = [n for n, v in vars(wording).items() if callable(v) and getattr(v, "__module__", "") == wording.__name__]
    assert len(names) >= 15
    for name in names:
        monkeypatch.setattr(wording, name, refuse)
    assert {s: decide(cell=c, judge=j, flags=f) for s, (c, j, f, _) in CASES.items()} == before
    # and messages whose words say something else (a pass in the text of a failure) still decide nothing
    liar = {**FAIL, "message": "✓ passed"}
    assert decide(cell=CellOutcome("failed", error("CheckFailed", "✓ [c] passed")), judge=[liar],
                  flags=Flags()).status == "failed"
    assert decide(cell=CellOutcome("failed", error("NameError", "MemoryError")), judge=[], flags=Flags()).status == \
        "error"


def test_unreadable_is_given_to_every_check_without_a_run():
    class Ref:
        checks = [type("C", (), {"id": "a", "points": 2}), type("C", (), {"id": "b", "points": 3})]
    checks = all_checks(Ref, "unreadable", "not a Jupyter notebook")
    assert [(c.check, c.points, c.max_points, c.status) for c in checks.values()] == [
        ("a", 0, 2, "unreadable"), ("b", 0, 3, "unreadable")]


def test_a_pass_needs_both_nbval_and_the_judge():
    for cell, judge in ((CellOutcome("passed"), [FAIL]), (CellOutcome("passed"), []),
                        (CellOutcome("failed"), [PASS]), (CellOutcome("timeout"), [PASS])):
        assert decide(cell=cell, judge=judge, flags=Flags()).status != "passed"
    # a later attempt's pass counts (the check cell was re-run in the notebook)
    assert decide(cell=CellOutcome("passed"), judge=[FAIL, PASS], flags=Flags()).status == "passed"
    # a pass recorded while the cell timed out keeps the cell's state
    assert decide(cell=CellOutcome("timeout"), judge=[PASS], flags=Flags()).status == "timeout"
    # a refused call is not a verdict: a refusal alone never passes, and spoils a pass
    refused = {"event": "refused", "check": "c", "reason": "outside", "cell": 1}
    assert decide(cell=CellOutcome("passed"), judge=[refused], flags=Flags()).status == "unverified"
    assert verdict(cell=CellOutcome("passed"), judge=[PASS, refused], flags=Flags(refused=(refused,)),
                   context=CONTEXT) == (
        "needs-review", "points withheld until an instructor reviews: your code asked the grader to judge c outside "
                        "its check cell (from your answer cell “(a) First part”); the grader judges each check once, "
                        "from its own check cell")


def test_review_withholds_only_a_pass_and_says_why():
    review = Flags(review=("answer cell 'answer-rnea' uses exec, open",))
    assert verdict(cell=CellOutcome("passed"), judge=[PASS], flags=review) == (
        "needs-review", "points withheld until an instructor reviews: answer cell 'answer-rnea' uses exec, open")
    assert verdict(cell=CellOutcome("failed", error("CheckFailed")), judge=[FAIL], flags=review)[0] == "failed"
    status, message = verdict(cell=CellOutcome("failed", error("CheckFailed")), judge=[FAIL], flags=Flags(copy=COPY))
    assert status == "failed" and "97% identical" in message       # a failing copy fails, and says so
    # a denied access explains a failure, never spoils a pass (the walls held: the answer is its own)
    denied = Flags(denied=({"path": "/proc/1/cmdline", "function": "rnea"},))
    assert verdict(cell=CellOutcome("passed"), judge=[PASS], flags=denied) == ("passed", "")
    assert decide(cell=CellOutcome("kernel-died", story=("here", "died")), judge=[], flags=denied).status == \
        "access-denied"
    # the grader's own failure comes first
    assert decide(cell=CellOutcome("passed"), judge=[PASS], flags=Flags(copy=COPY, grader_failure="lost")).status == \
        "grader-error"


def test_limits_come_from_exception_classes_and_errno_never_from_text():
    assert limit_of("MemoryError", None) == "memory-limit"
    assert limit_of("OSError", 28) == limit_of("OSError", 27) == "disk-limit"       # ENOSPC, EFBIG
    assert limit_of("BlockingIOError", 11) == "process-limit"
    assert limit_of("OSError", 2) == limit_of("ValueError", None) == ""
    # a limit met in an answer cell explains the check cell's NameError
    flags = Flags(answer_errors=(("(a) First part", failed_answer("MemoryError")),))
    status, message = verdict(cell=CellOutcome("failed", error("NameError", "name 'f' is not defined")), judge=[],
                              flags=flags, context=CONTEXT)
    assert status == "memory-limit"
    assert message.splitlines()[0] == "your code reached the memory limit (2 GiB per process)"
    assert "your answer cell “(a) First part” raised: MemoryError" in message
    # a CPU limit is told by the kernel's exit, and only in the cell that met it
    outcomes = cell_outcomes(ROLES, {0: OK, 1: OK, 2: OK, 3: {"outcome": "failed", "died": True}}, True,
                             kernel_exit=-signal.SIGXCPU)
    assert (outcomes["c2"].state, outcomes["c2"].cpu, outcomes["c2"].story) == ("kernel-died", True,
                                                                                ("at", ROLES[3], "cpu"))
    assert verdict(cell=outcomes["c2"], judge=[], flags=Flags(), context=CONTEXT) == (
        "cpu-limit", "your code reached the CPU time limit (600 s per process)\nyour answer cell “(b) Second part” "
                     "used up its CPU time, and the kernel was stopped; the checks after it did not run")
    assert outcomes["c3"].story == ("told", "c2")


def test_an_unknown_judge_status_becomes_failed_and_a_bad_cell_state_is_refused():
    assert decide(cell=CellOutcome("failed"), judge=[{**FAIL, "status": "hacked"}], flags=Flags()).status == "failed"
    with pytest.raises(ValueError, match="cell: expected a state in"):
        decide(cell=CellOutcome("fine"), judge=[], flags=Flags())


def test_a_call_that_never_returned_gets_the_cells_story_and_names_the_call():
    """The judge's no-answer record is not a verdict: the cell says what happened, the judge which call."""
    slow = CellOutcome("timeout", story=("interrupted",))
    assert verdict(cell=slow, judge=[LOST], flags=Flags(), context=CONTEXT) == (
        "timeout", "✗ [c] static torques\nstatic_torques(0.5, 1) did not return\nthe check ran out of time (60 s per "
                   "cell) while it ran your code, and interrupted it: an endless loop, or a computation far too slow?")
    dead = CellOutcome("kernel-died", story=("here", "died"))
    status, message = verdict(cell=dead, judge=[LOST], flags=Flags())
    assert status == "kernel-died" and message.startswith("✗ [c] static torques\nstatic_torques(0.5, 1) did not return\n"
                                                          "the kernel died while this check ran your code")
    # where the function in flight is defined, when the check knows it
    where = Flags(defined_in={"static_torques": "(a) Static torques"})
    assert verdict(cell=slow, judge=[{**LOST, "function": "static_torques"}], flags=where)[1].splitlines()[1] == \
        "static_torques(0.5, 1) did not return (your answer cell “(a) Static torques”)"
    # the student's own code stopped the call (a KeyboardInterrupt or SystemExit of its own)
    assert verdict(cell=CellOutcome("failed", error("SystemExit", "bye")), judge=[LOST], flags=Flags()) == (
        "error", "✗ [c] static torques\nstatic_torques(0.5, 1) did not return\nyour code stopped the check: SystemExit: bye")
    # a stub that never answered is still not attempted; a real verdict after a lost attempt counts
    stub = Flags(not_attempted=("(a)",))
    assert decide(cell=CellOutcome("failed", error("KeyboardInterrupt")), judge=[LOST], flags=stub).status == \
        "not-attempted"
    assert decide(cell=CellOutcome("failed", error("CheckFailed")), judge=[LOST, FAIL], flags=Flags()).status == "failed"
    assert verdict(cell=CellOutcome("passed"), judge=[LOST], flags=Flags()) == (
        "unverified", "✗ [c] static torques\nstatic_torques(0.5, 1) did not return\nthe check cell printed the verdict "
                      "line, but the grader's run of this check did not finish")


OK = {"outcome": "passed"}
FAILED_CELL = {"outcome": "failed", "error": error("CheckFailed", "✗ [c3] wrong")}


def _outcomes(cells, finished=True, **limits):
    """``{check: (state, the words of its story or its error)}``."""
    times = {"cell_timeout": 60, "timeout": 600} | limits
    got = cell_outcomes(ROLES, cells, finished)
    out = {}
    for k, o in got.items():
        text = wording.cell_story(o.story, titles=TITLES, **times) or wording.error_text(o.error)
        assert "code cell" not in text and "nbval" not in text and "xfail" not in text
        out[k] = (o.state, text)
    return out


def test_an_interrupted_cell_costs_only_itself():
    """nbval interrupts a cell that runs out of time and goes on: later cells count as they ran."""
    answer = _outcomes({0: OK, 1: OK, 2: OK, 3: {"outcome": "failed", "timeout": True}, 4: OK, 5: FAILED_CELL})
    assert answer == {"c1": ("passed", ""), "c2": ("passed", ""), "c3": ("failed", "CheckFailed: ✗ [c3] wrong")}
    check = _outcomes({0: OK, 1: OK, 2: OK, 3: OK, 4: {"outcome": "failed", "timeout": True,
                                                        "error": error("KeyboardInterrupt")}, 5: OK})
    assert check == {"c1": ("passed", ""), "c3": ("passed", ""),
                     "c2": ("timeout", "the check ran out of time (60 s per cell) while it ran your code, and "
                                       "interrupted it: an endless loop, or a computation far too slow?")}


def test_after_the_kernel_is_gone_the_story_is_told_once():
    stuck = {"outcome": "failed", "timeout": True, "stuck": True}
    answer = _outcomes({0: OK, 1: OK, 2: OK, 3: stuck, 4: {"outcome": "failed"}, 5: {"outcome": "failed"}})
    assert answer == {"c1": ("passed", ""),
                      "c2": ("timeout", "your answer cell “(b) Second part” ran out of time (60 s per cell) and did "
                                        "not stop when interrupted; the checks after it did not run"),
                      "c3": ("timeout", "it did not run: the notebook had stopped earlier (see c2)")}
    check = _outcomes({0: OK, 1: OK, 2: OK, 3: OK, 4: stuck, 5: {"outcome": "failed"}})
    assert check["c2"] == ("timeout", "this check ran out of time (60 s per cell) while it ran your code, which did "
                                      "not stop when interrupted; the checks after it did not run")
    assert check["c3"] == ("timeout", "it did not run: the notebook had stopped earlier (see c2)")
    died = _outcomes({0: OK, 1: OK, 2: OK, 3: {"outcome": "failed", "died": True}, 4: {"outcome": "failed"}})
    assert died == {"c1": ("passed", ""),
                    "c2": ("kernel-died", "the kernel died while running your answer cell “(b) Second part” (a crash, "
                                          "os._exit or a signal); the checks after it did not run"),
                    "c3": ("kernel-died", "it did not run: the notebook had stopped earlier (see c2)")}
    died_in_check = _outcomes({0: OK, 1: OK, 2: OK, 3: OK, 4: {"outcome": "failed", "died": True}})
    assert died_in_check["c2"] == ("kernel-died", "the kernel died while this check ran your code (a crash, os._exit "
                                                  "or a signal); the checks after it did not run")
    late = _outcomes({0: OK, 1: OK, 2: OK}, finished=False)
    assert late == {"c1": ("passed", ""),
                    "c2": ("timeout", "the notebook ran out of time (600 s per notebook) before this check; the "
                                      "checks after it did not run"),
                    "c3": ("timeout", "it did not run: the notebook had stopped earlier (see c2)")}
    stopped = _outcomes({0: OK, 1: OK, 2: OK, 3: {"outcome": "failed", "timeout": True, "deadline": True}},
                        finished=False, timeout=6)               # the grader stopped it at the deadline
    assert stopped["c2"] == ("timeout", "your answer cell “(b) Second part” ran out of time (6 s per notebook); the "
                                        "checks after it did not run")
    assert {state for state, _ in _outcomes({0: OK}).values()} == {"not-run"}


def test_student_text_names_cells_and_cuts_internal_paths():
    from lessonlib.grading.verdict import cell_file_names, student_text
    files = cell_file_names([("def rnea(model):\n    raise NotImplementedError\n", "(d) The whole RNEA")])
    stem = next(iter(files))
    message = (f'rnea(...) raised ZeroDivisionError\n  File "/tmp/lessonlib-kernel-ab12/tmp/ipykernel_4242/{stem}.py", '
               'line 7, in rnea\n  File "/tmp/lessonlib-kernel-ab12/tmp/ipykernel_4242/99.py", line 2, in helper\n'
               'tried /tmp/lessonlib-grade-x1y2/run/graded.ipynb')
    text = student_text(message, files)
    assert "your answer cell “(d) The whole RNEA”, line 7, in rnea" in text
    assert "your code, line 2, in helper" in text
    assert "lessonlib-kernel" not in text and "lessonlib-grade" not in text and "ipykernel_" not in text


def test_not_attempted_needs_every_cell_of_the_check_untouched():
    from lessonlib.grading.screening import untouched
    reference = {"a": "def f(x):\n    return x\n", "b": "def g(x):\n    return f(x)\n"}
    stub = "def f(x):\n    raise NotImplementedError('write f')\n"
    assert untouched({"a": stub, "b": "def g(x):\n    return 1\n"}, reference, ("f",)) == ["a"]
    assert untouched({"a": "", "b": ""}, reference, ("f", "g")) == ["a", "b"]             # deleted counts too
    assert untouched({"a": stub, "b": "def g(x):\n    return 1\n"}, reference, ("f", "g")) == []
    assert untouched({"a": "def f(x):\n    return 2 * x\n"}, reference, ("f",)) == []


def test_the_feedback_notes_an_interrupted_answer_cell_and_only_that():
    from lessonlib.grading.run import RunRecord
    from lessonlib.grading.verdict import run_notes

    class Reference:
        @staticmethod
        def answer_titles():
            return TITLES
    cells = {0: OK, 1: {"outcome": "failed", "timeout": True}, 2: OK, 3: {"outcome": "failed", "error": "NameError: x"}}
    run = RunRecord(roles=ROLES, cells=cells, cell_timeout=60, timeout=600)
    assert run_notes(Reference, run) == ["your answer cell “(a) First part” ran out of time (60 s per cell) and was "
                                         "interrupted; the cells after it ran on"]
    for ended in ({"stuck": True}, {"deadline": True}):          # then nothing ran on: the checks tell the story
        run.cells[1] = {"outcome": "failed", "timeout": True, **ended}
        assert run_notes(Reference, run) == []


def test_a_cpu_limit_is_read_from_either_form_of_the_kernels_exit():
    """The kernel's exit by SIGXCPU, as ``waitstatus_to_exitcode`` gives it (−24) or as a keeper reports it (152)."""
    for exit_status in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        got = cell_outcomes(ROLES, {0: OK, 1: OK, 2: OK, 3: {"outcome": "failed", "died": True}}, True,
                            kernel_exit=exit_status)
        assert got["c2"].cpu and decide(cell=got["c2"], judge=[], flags=Flags()).status == "cpu-limit"
    for other in (-signal.SIGKILL, 128 + signal.SIGKILL, 1, None):
        got = cell_outcomes(ROLES, {0: OK, 1: OK, 2: OK, 3: {"outcome": "failed", "died": True}}, True,
                            kernel_exit=other)
        assert decide(cell=got["c2"], judge=[], flags=Flags()).status == "kernel-died"


def test_a_check_cell_that_did_not_run_says_so_without_a_run_failure():
    assert verdict(cell=CellOutcome("not-run"), judge=[], flags=Flags()) == ("not-run", "the check cell did not run")


# --- the whole decision, branch by branch (what make mutation asks of the rule) --------------------------------

NOT_IMPLEMENTED = {**FAIL, "raised": "NotImplementedError"}
TIMEOUT_LOST = CellOutcome("timeout", story=("interrupted",))
DENIED = ({"path": "/etc/shadow", "function": "f"},)
# name -> (cell, judge records, flags, the Decision: status, why, record, lost, limit)
DECISIONS = {
    "grader failure first": (CellOutcome("failed"), [FAIL], Flags(grader_failure="judge-failed", copy=COPY),
                             Decision("grader-error", "grader")),
    "pass": (CellOutcome("passed"), [FAIL, PASS], Flags(), Decision("passed", "", PASS)),
    "pass, copied": (CellOutcome("passed"), [PASS], Flags(copy=COPY), Decision("needs-review", "review", PASS)),
    "pass, review": (CellOutcome("passed"), [PASS], Flags(review=("uses open",)),
                     Decision("needs-review", "review", PASS)),
    "pass, refused": (CellOutcome("passed"), [PASS], Flags(refused=({"event": "refused"},)),
                      Decision("needs-review", "review", PASS)),
    "pass, not attempted elsewhere": (CellOutcome("passed"), [PASS], Flags(not_attempted=("(a)",), denied=DENIED),
                                      Decision("passed", "", PASS)),
    "stub": (CellOutcome("failed"), [FAIL], Flags(not_attempted=("(a)",)), Decision("not-attempted", "stub", FAIL)),
    "stub, lost call": (CellOutcome("failed"), [LOST], Flags(not_attempted=("(a)",)),
                        Decision("not-attempted", "stub", LOST, True)),
    "stub, but timed out": (TIMEOUT_LOST, [LOST], Flags(not_attempted=("(a)",)), Decision("timeout", "cell", LOST, True)),
    "denied, judge": (CellOutcome("failed"), [{**FAIL, "raised": "MemoryError"}], Flags(denied=DENIED),
                      Decision("access-denied", "judge", {**FAIL, "raised": "MemoryError"}, False, "memory-limit")),
    "denied, lost": (TIMEOUT_LOST, [LOST], Flags(denied=DENIED), Decision("access-denied", "cell", LOST, True)),
    "not implemented (judge)": (CellOutcome("failed"), [NOT_IMPLEMENTED], Flags(),
                                Decision("not-attempted", "not-implemented", NOT_IMPLEMENTED)),
    "not implemented, checker error": (CellOutcome("failed"), [{**NOT_IMPLEMENTED, "status": "checker-error"}], Flags(),
                                       Decision("checker-error", "judge", {**NOT_IMPLEMENTED, "status": "checker-error"})),
    "judged pass, output differs": (CellOutcome("failed"), [PASS], Flags(), Decision("output-mismatch", "mismatch", PASS)),
    "judged pass, output capped": (CellOutcome("failed", capped=True), [PASS], Flags(),
                                   Decision("output-limit", "mismatch", PASS)),
    "judged pass, then died": (CellOutcome("kernel-died"), [PASS], Flags(), Decision("kernel-died", "cell", PASS)),
    "judge failed": (CellOutcome("failed"), [FAIL], Flags(), Decision("failed", "judge", FAIL)),
    "judge status unknown": (CellOutcome("failed"), [{**FAIL, "status": "hacked"}], Flags(),
                             Decision("failed", "judge", {**FAIL, "status": "hacked"})),
    "judge status empty": (CellOutcome("failed"), [{**FAIL, "status": ""}], Flags(),
                           Decision("failed", "judge", {**FAIL, "status": ""})),
    "judge: disk": (CellOutcome("failed"), [{**FAIL, "raised": "OSError", "errno": 122}], Flags(),
                    Decision("disk-limit", "judge", {**FAIL, "raised": "OSError", "errno": 122}, False, "disk-limit")),
    "judge: no limit read from a checker error": (
        CellOutcome("failed"), [{**FAIL, "status": "checker-error", "raised": "MemoryError"}], Flags(),
        Decision("checker-error", "judge", {**FAIL, "status": "checker-error", "raised": "MemoryError"})),
    "only the last verdict counts": (CellOutcome("failed"), [{**FAIL, "status": "checker-error"}, FAIL], Flags(),
                                     Decision("failed", "judge", FAIL)),
    "a refusal is no verdict": (CellOutcome("failed"), [FAIL, {"event": "refused", "passed": True, "status": "passed"}],
                                Flags(), Decision("failed", "judge", FAIL)),
    "unverified": (CellOutcome("passed"), [], Flags(), Decision("unverified", "unverified")),
    "unverified, lost": (CellOutcome("passed"), [LOST], Flags(), Decision("unverified", "unverified", LOST, True)),
    "answers: library": (CellOutcome("failed", error("NameError")), [LOST], Flags(answer_errors=(
        ("(a)", failed_answer("MemoryError")), ("(b)", failed_answer("NotAvailableWhileGrading")))),
        Decision("used-library", "answers", LOST, True)),
    "answers: the cell's own limit first": (
        CellOutcome("failed", error("OSError", errno=28)), [], Flags(answer_errors=(("(a)", failed_answer("MemoryError")),)),
        Decision("disk-limit", "answers", None, False, "disk-limit")),
    "answers: an answer cell's limit": (
        CellOutcome("failed", error("NameError")), [], Flags(answer_errors=(
            ("(a)", failed_answer("SyntaxError")), ("(b)", {"outcome": "failed", "timeout": True}),
            ("(c)", failed_answer("BlockingIOError")))),
        Decision("process-limit", "answers", None, False, "process-limit")),
    "answers: error": (CellOutcome("failed", error("NameError")), [], Flags(answer_errors=(("(a)", failed_answer("X")),)),
                       Decision("error", "answers")),
    "not run": (CellOutcome("not-run"), [LOST], Flags(), Decision("not-run", "not-run", LOST, True)),
    "cpu": (CellOutcome("kernel-died", cpu=True), [], Flags(), Decision("cpu-limit", "cell", None, False, "cpu-limit")),
    "timeout": (CellOutcome("timeout"), [], Flags(), Decision("timeout", "cell")),
    "died": (CellOutcome("kernel-died"), [], Flags(), Decision("kernel-died", "cell")),
}


@pytest.mark.parametrize("name", DECISIONS)
def test_the_rule_decides_every_field_of_the_decision(name):
    cell, judge, flags, expected = DECISIONS[name]
    assert decide(cell=cell, judge=judge, flags=flags) == expected


@pytest.mark.parametrize("raised, errno, limit", [
    ("MemoryError", None, "memory-limit"), ("MemoryError", 28, "memory-limit"), ("OSError", 28, "disk-limit"),
    ("OSError", 27, "disk-limit"), ("OSError", 122, "disk-limit"), ("BlockingIOError", None, "process-limit"),
    ("BlockingIOError", 11, "process-limit"), ("BlockingIOError", 28, "disk-limit"), ("BlockingIOError", 4, ""),
    ("OSError", 11, ""), ("OSError", None, ""), ("RecursionError", None, "")])
def test_each_limit_is_named_by_its_exception_class_or_errno(raised, errno, limit):
    assert limit_of(raised, errno) == limit


def test_a_bad_cell_state_is_refused_naming_the_argument():
    with pytest.raises(ValueError, match=r"^cell: expected a state in \('passed', 'failed', 'timeout', "
                                         r"'kernel-died', 'not-run'\), got 'fine'$"):
        decide(cell=CellOutcome("fine"), judge=[], flags=Flags())


def test_the_typed_records_are_frozen_and_default_to_empty_values_of_their_types():
    cell, flags, decision, context = CellOutcome("passed"), Flags(), Decision("passed"), Context()
    assert (cell.error, cell.story, cell.capped, cell.cpu) == (None, (), False, False)
    assert cell.error is None and cell.capped is False and cell.cpu is False and cell.story == ()
    assert flags.copy is None and all(getattr(flags, f) == () for f in
                                      ("review", "refused", "denied", "not_attempted", "answer_errors"))
    assert (flags.run_failure, flags.grader_failure, flags.defined_in) == ("", "", {})
    assert all(isinstance(getattr(flags, f), str) for f in ("run_failure", "grader_failure"))
    assert (decision.why, decision.record, decision.lost, decision.limit) == ("", None, False, "")
    assert decision.lost is False and decision.record is None and isinstance(decision.why, str)
    assert isinstance(decision.limit, str)
    assert (context.roles, context.titles, context.cell_timeout, context.timeout, context.limits) == ((), {}, 0.0, 0.0, None)
    assert isinstance(context.cell_timeout, float) and isinstance(context.timeout, float) and context.limits is None
    for record, name in ((cell, "state"), (flags, "copy"), (decision, "status"), (context, "roles")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, name, "changed")


# --- the words of each story (a message is wording only, but it must be the right story, whole) ----------------

def _message(cell, judge, flags):
    return verdict(cell=cell, judge=judge, flags=flags, context=CONTEXT)


def test_each_story_is_told_whole():
    stub = _message(CellOutcome("failed"), [FAIL], Flags(not_attempted=("(a) First", "(b) Second")))
    assert stub == ("not-attempted", "your answer cell “(a) First”, “(b) Second” is still the exercise's stub")
    raised = {**NOT_IMPLEMENTED, "message": "rnea(...) raised NotImplementedError: write rnea"}
    assert _message(CellOutcome("failed"), [raised], Flags()) == (
        "not-attempted", "your function still raises NotImplementedError (the exercise's stub)\nrnea(...) raised "
                         "NotImplementedError: write rnea")
    assert _message(CellOutcome("failed"), [{"check": "c", "passed": False, "status": "error",
                                             "raised": "NotImplementedError"}], Flags()) == (
        "not-attempted", "your function still raises NotImplementedError (the exercise's stub)\n")
    assert _message(CellOutcome("failed", error("AssertionError", "x")), [PASS], Flags())[1] == \
        wording.output_mismatch("AssertionError: x")
    assert _message(CellOutcome("failed"), [{"check": "c", "passed": False, "status": "failed"}], Flags()) == ("failed", "")
    lost = {k: v for k, v in LOST.items() if k != "message"}
    assert _message(TIMEOUT_LOST, [lost], Flags())[1].startswith("the check ran out of time")
    failed_copy = _message(CellOutcome("failed"), [FAIL], Flags(copy=COPY))
    assert failed_copy == ("failed", FAIL["message"] + "\n" + wording.copy_reason(COPY))


def test_a_limit_is_named_once_and_a_denied_access_is_not_called_a_limit():
    memory = {**FAIL, "raised": "MemoryError"}
    status, message = _message(CellOutcome("failed"), [memory], Flags())
    assert (status, message) == ("memory-limit", "your code reached the memory limit (2 GiB per process)\n"
                                                 + FAIL["message"])
    status, message = _message(CellOutcome("failed"), [memory], Flags(denied=DENIED))
    assert status == "access-denied" and "memory limit" not in message
    assert message == ("your code tried to reach /etc/shadow (in f), outside the grader's sandbox; the access was "
                       "denied. Compute the answer yourself.\n" + FAIL["message"])


def test_a_pass_has_no_message_whatever_else_is_known():
    from lessonlib.grading.verdict import words
    assert words(Decision("passed", "", PASS), cell=CellOutcome("passed", story=("interrupted",)),
                 flags=Flags(copy=COPY, denied=DENIED), context=CONTEXT) == ""


def test_cell_outcomes_keep_a_capped_output_and_call_a_stuck_kernel_stuck_not_dead():
    roles = [CellRole("setup"), CellRole("check", "c1"), CellRole("check", "c2")]
    capped = {"outcome": "failed", "capped": True, "error": error("CheckFailed")}
    assert cell_outcomes(roles, {0: OK, 1: capped, 2: OK}, True)["c1"] == CellOutcome(
        "failed", error("CheckFailed"), (), True, False)
    # interrupted, then dead: the kernel did not stop when told (stuck), which is no CPU limit whatever its exit
    stuck = {"outcome": "failed", "timeout": True, "stuck": True, "died": True}
    out = cell_outcomes(roles, {0: OK, 1: stuck}, True, kernel_exit=-signal.SIGXCPU)
    assert out == {"c1": CellOutcome("kernel-died", None, ("here", "stuck"), False, False),
                   "c2": CellOutcome("timeout", None, ("told", "c1"), False, False)}
    died = {"outcome": "failed", "died": True}
    out = cell_outcomes(roles, {0: OK, 1: died}, True, kernel_exit=-signal.SIGXCPU)
    assert out == {"c1": CellOutcome("kernel-died", None, ("here", "cpu"), False, True),
                   "c2": CellOutcome("kernel-died", None, ("told", "c1"), False, True)}


# --- one run's check results (the grade: points, withheld points, what nbval and the judge saw) -----------------

def _tour(answers=None, **run):
    """Exercise 00's reference, its checker module, a submission (the solution, or ``answers``) and a run record."""
    import pathlib                                                       # noqa: PLC0415
    from lessonlib.grading.checks.checker import load_exercise          # noqa: PLC0415
    from lessonlib.grading.notebook import Submission, build_graded, load_reference  # noqa: PLC0415
    from lessonlib.grading.run import RunRecord                          # noqa: PLC0415
    reference = load_reference(pathlib.Path(__file__).resolve().parents[1] / "solutions" / "00_tour.ipynb")
    submission = Submission("s.ipynb", {**reference.answer_sources(), **(answers or {})}, "s")
    _, roles = build_graded(reference, submission)
    cells = {n: OK for n in range(len(roles))}
    cells.update(run.pop("cells", {}))
    return reference, load_exercise("tour00"), submission, RunRecord(roles=roles, cells=cells, finished=True,
                                                                       cell_timeout=60, timeout=600, **run)


def _verdict_of(check, status):
    return {**{"check": check, "attempt": 1, "message": ""},
            **({"passed": True, "status": "passed"} if status == "passed" else
               {"passed": False, "status": "failed", "message": f"✗ [{check}] wrong"})}


def _results(*args, **kwargs):
    from lessonlib.grading.verdict import check_results                 # noqa: PLC0415
    results = check_results(*args, **kwargs)
    return {cid: (r.points, r.max_points, r.status, r.nbval, r.judge, r.withheld) for cid, r in results.items()}, results


def test_check_results_give_points_only_to_a_pass_and_withhold_them_under_review():
    failed_cell = {"outcome": "failed", "error": error("CheckFailed")}
    judge = [_verdict_of("tour-rotation-error", "passed"), _verdict_of("tour-rotation-verdict", "passed"),
             {"event": "refused", "check": "tour-rotation-verdict", "reason": "outside", "cell": 2},
             _verdict_of("tour-holding", "failed")]
    attempts = [{"check": "tour-holding", "direct": True, "path": "/etc/shadow", "function": "static_holding_torque"},
                {"check": "tour-rotation-error", "direct": False, "path": "/usr/lib", "function": "rotation_check"}]
    ref, ex, sub, run = _tour(judge=judge, attempts=attempts, cells={
        5: {"outcome": "failed", "error": error("MemoryError")}, 6: failed_cell, 7: failed_cell})
    table, full = _results(ref, ex, sub, [], run, enforced=True)
    assert table == {"tour-rotation-error": (1, 1, "passed", "passed", "pass", 0),
                     "tour-rotation-verdict": (0, 1, "needs-review", "passed", "pass", 1),
                     "tour-holding": (0, 1, "access-denied", "failed", "fail", 0),
                     "tour-holding-gravity": (0, 1, "memory-limit", "failed", "none", 0)}
    assert full["tour-rotation-error"].message == ""
    assert "asked the grader to judge tour-rotation-verdict outside its check cell" in full["tour-rotation-verdict"].message
    assert full["tour-holding"].message.startswith("your code tried to reach /etc/shadow (in static_holding_torque)")
    assert "your answer cell “(b) Holding an arm still (静力平衡)” raised: MemoryError" in \
        full["tour-holding-gravity"].message


def test_check_results_without_walls_send_what_could_have_read_files_to_review_and_name_a_copy():
    judge = [_verdict_of(c, "passed") for c in ("tour-rotation-error", "tour-rotation-verdict", "tour-holding",
                                                "tour-holding-gravity")]
    attempts = [{"check": "tour-rotation-error", "path": "/home/x/solutions/00_tour.ipynb", "function": "rotation_check"},
                {"check": None, "path": "/tmp/y", "function": "<module>"}]
    copy = Copy("answer-holding", "static_holding_torque", "lessonlib.dynamics.gravity_torques", 0.99)
    ref, ex, sub, run = _tour(judge=judge, attempts=attempts)
    table, full = _results(ref, ex, sub, [copy], run, enforced=False)
    assert table == {"tour-rotation-error": (0, 1, "needs-review", "passed", "pass", 1),
                     "tour-rotation-verdict": (0, 1, "needs-review", "passed", "pass", 1),
                     "tour-holding": (0, 1, "needs-review", "passed", "pass", 1),
                     "tour-holding-gravity": (0, 1, "needs-review", "passed", "pass", 1)}
    assert full["tour-rotation-error"].message == (
        "points withheld until an instructor reviews: while it ran, the code read /home/x/solutions/00_tour.ipynb "
        "(in rotation_check); while it ran, the code read /tmp/y (in <module>)")
    assert full["tour-rotation-verdict"].message.endswith("while it ran, the code read /tmp/y (in <module>)")
    assert "static_holding_torque, which is 99% identical" in full["tour-holding"].message
    # with the walls up, the same run earns every point (reads were walled, the copy still goes to review)
    table, _ = _results(ref, ex, sub, [], run, enforced=True)
    assert {cid: row[:3] for cid, row in table.items()} == {c: (1, 1, "passed") for c in table}


def test_check_results_call_an_untouched_stub_not_attempted_and_name_the_cell_a_lost_call_was_in():
    from lessonlib.grading.checks import authoring                       # noqa: PLC0415
    import pathlib                                                       # noqa: PLC0415
    stubs = authoring.answers_of(pathlib.Path(__file__).resolve().parents[1] / "exercises" / "00_tour.ipynb")
    failed_cell = {"outcome": "failed", "error": error("CheckFailed")}
    lost = {"check": "tour-holding", "attempt": 1, "passed": False, "status": "no-answer", "function":
            "static_holding_torque", "message": "static_holding_torque(...) did not return"}
    judge = [{**_verdict_of("tour-rotation-error", "failed"), "raised": "NotImplementedError"}, lost]
    ref, ex, sub, run = _tour({"answer-rotation": stubs["answer-rotation"]}, judge=judge,
                              cells={3: failed_cell, 4: failed_cell, 6: {"outcome": "failed", "timeout": True}})
    table, full = _results(ref, ex, sub, [], run, enforced=True)
    assert table["tour-rotation-error"] == (0, 1, "not-attempted", "failed", "fail", 0)
    assert table["tour-rotation-verdict"] == (0, 1, "not-attempted", "failed", "none", 0)
    assert full["tour-rotation-verdict"].message == ("your answer cell “(a) Is this matrix a rotation? ([LG, 李群]: "
                                                     "SO(3))” is still the exercise's stub")
    assert table["tour-holding"] == (0, 1, "timeout", "timeout", "fail", 0)        # the judge's no-answer record
    assert full["tour-holding"].message.startswith("static_holding_torque(...) did not return (your answer cell "
                                                   "“(b) Holding an arm still (静力平衡)”)")
    assert table["tour-holding-gravity"] == (0, 1, "unverified", "passed", "none", 0)


def test_student_text_names_the_cell_a_traceback_line_is_in_and_cuts_the_graders_paths():
    from lessonlib.grading.verdict import student_text
    files = {"4711": "(a) First part"}
    message = ('  File "/tmp/ipykernel_12/4711.py", line 7, in f\n  File "/tmp/ipykernel_12/99.py", line 2, in g\n'
               '  File "<ipython-input-3-abc>", line 5\nwhile reading /tmp/lessonlib-kernel-x1y2/lib/a.py and '
               '/var/tmp/lessonlib-batch-Q9/run/3')
    assert student_text(message, files) == (
        "  your answer cell “(a) First part”, line 7, in f\n  your code, line 2, in g\n  your code, line 5\n"
        "while reading … and …")


def test_an_interrupted_check_keeps_its_story_when_a_later_cell_meets_the_cpu_limit():
    roles = [CellRole("setup"), CellRole("check", "c1"), CellRole("answer", "a"), CellRole("check", "c2")]
    out = cell_outcomes(roles, {0: OK, 1: {"outcome": "failed", "timeout": True}, 2: {"outcome": "failed", "died": True}},
                        True, kernel_exit=-signal.SIGXCPU)
    assert out == {"c1": CellOutcome("timeout", None, ("interrupted",), False, False),
                   "c2": CellOutcome("kernel-died", None, ("at", roles[2], "cpu"), False, True)}


def test_check_results_name_the_answer_cell_of_a_traceback_and_only_answer_cells_that_failed():
    from lessonlib.grading.verdict import cell_file_names
    ref, ex, sub, _ = _tour()
    title = ref.answer_titles()["answer-rotation"]
    stem = next(iter(cell_file_names([(sub.answers["answer-rotation"], title)])))
    traceback = f'rotation_check(R) raised KeyError\n  File "/tmp/ipykernel_9/{stem}.py", line 4, in rotation_check'
    judge = [{**_verdict_of("tour-rotation-error", "failed"), "message": traceback},
             {"event": "refused", "check": "tour-holding-gravity", "reason": "outside", "cell": 2}]
    ref, ex, sub, run = _tour(judge=judge, cells={3: {"outcome": "failed", "error": error("CheckFailed")},
                                                  4: {"outcome": "failed", "error": error("NameError", "boom")}})
    table, full = _results(ref, ex, sub, [], run, enforced=True)
    assert full["tour-rotation-error"].message == (f"rotation_check(R) raised KeyError\n  your answer cell “{title}”, "
                                                   "line 4, in rotation_check")
    assert table["tour-rotation-verdict"] == (0, 1, "error", "failed", "none", 0)
    assert full["tour-rotation-verdict"].message == "NameError: boom"          # its answer cell ran: no line for it
    assert table["tour-holding-gravity"] == (0, 1, "unverified", "passed", "none", 0)   # a refusal is no verdict
