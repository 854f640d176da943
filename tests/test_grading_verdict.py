"""The verdict rule, one case per status: (cell outcome, judge records, flags) → (status, message).

:func:`lessonlib.grading.verdict.verdict` is pure, so every status is reached here without a kernel;
the graded runs of ``test_grading.py`` show the same statuses coming out of real runs.
"""
import pytest

from lessonlib.grading.copydetect import Copy
from lessonlib.grading.verdict import STATUSES, CellOutcome, Flags, all_checks, cell_outcomes, verdict
from lessonlib.grading.notebook import CellRole

PASS = {"check": "c", "attempt": 1, "passed": True, "status": "passed", "message": ""}
FAIL = {"check": "c", "attempt": 1, "passed": False, "status": "failed",
        "message": "✗ [c] title\nexpected\n    [1.]\ngot\n    [2.]"}
COPY = Copy("answer-rnea", "rnea", "lessonlib.dynamics.rnea.rnea", 0.97)

# status -> (cell, judge records, flags, a phrase the message must contain)
CASES = {
    "passed": (CellOutcome("passed"), [PASS], Flags(), ""),
    "failed": (CellOutcome("failed", "CheckFailed: ✗ [c]"), [FAIL], Flags(), "expected\n    [1.]\ngot\n    [2.]"),
    "used-library": (CellOutcome("failed", "NameError: name 'rnea' is not defined"), [], Flags(answer_errors=(
        ("answer-rnea", "NotAvailableWhileGrading: lessonlib.dynamics.rnea is not available while grading"),)),
        "your answer cell “answer-rnea” raised: NotAvailableWhileGrading"),
    "needs-review": (CellOutcome("passed"), [PASS], Flags(copy=COPY),
                     "withheld until an instructor reviews: answer cell 'answer-rnea' defines rnea, which is 97% "
                     "identical (code structure, names ignored) to the library's lessonlib.dynamics.rnea.rnea"),
    "access-denied": (CellOutcome("failed", "CheckFailed"), [FAIL], Flags(denied=(
        {"path": "/proc/1/cmdline", "function": "rnea"},)),
        "your code tried to reach /proc/1/cmdline (in rnea), outside the grader's sandbox; the access was "
        "denied. Compute the answer yourself.\n✗ [c] title"),
    "output-mismatch": (CellOutcome("failed", "printed 'debug'"), [PASS], Flags(), "printed something else"),
    "unverified": (CellOutcome("passed"), [], Flags(), "the grader never ran this check"),
    "error": (CellOutcome("failed", "NameError: name 'rnea' is not defined"), [],
              Flags(answer_errors=(("(d) The whole RNEA", "SyntaxError: invalid syntax"),)),
              "NameError: name 'rnea' is not defined\nyour answer cell “(d) The whole RNEA” raised: SyntaxError"),
    "timeout": (CellOutcome("timeout", "your answer cell “(b) The outward pass” ran out of time (60 s per cell)"),
                [], Flags(), "“(b) The outward pass” ran out of time (60 s per cell)"),
    "kernel-died": (CellOutcome("kernel-died", "the kernel died while running your answer cell “(b)”"), [],
                    Flags(), "the kernel died while running your answer cell “(b)”"),
    "not-attempted": (CellOutcome("failed", "CheckFailed"), [{**FAIL, "message": "rnea(...) raised NotImplementedError"}],
                      Flags(not_attempted="your answer cell “(d) The whole RNEA” is still the exercise's stub"),
                      "“(d) The whole RNEA” is still the exercise's stub"),
    "not-run": (CellOutcome("not-run"), [], Flags(run_error="nbval did not run the notebook"),
                "nbval did not run the notebook"),
    "checker-error": (CellOutcome("failed", "CheckFailed"), [{**FAIL, "status": "checker-error",
                                                              "message": "the checker raised KeyError"}], Flags(),
                      "the checker raised KeyError"),
    "grader-error": (CellOutcome("passed"), [PASS], Flags(grader_error="the judge failed:\nTraceback"),
                     "the judge failed"),
}


def test_every_status_but_unreadable_comes_from_the_verdict_rule():
    assert set(CASES) == set(STATUSES) - {"unreadable"}       # unreadable: the submission never ran


@pytest.mark.parametrize("status", sorted(CASES))
def test_verdict(status):
    cell, judge, flags, phrase = CASES[status]
    got, message = verdict(cell=cell, judge=judge, flags=flags)
    assert got == status
    assert phrase in message
    assert (message == "") == (status == "passed")


def test_unreadable_is_given_to_every_check_without_a_run():
    class Ref:
        checks = [type("C", (), {"id": "a", "points": 2}), type("C", (), {"id": "b", "points": 3})]
    checks = all_checks(Ref, "unreadable", "not a Jupyter notebook")
    assert [(c.check, c.points, c.max_points, c.status) for c in checks.values()] == [
        ("a", 0, 2, "unreadable"), ("b", 0, 3, "unreadable")]


def test_a_pass_needs_both_nbval_and_the_judge():
    for cell, judge in ((CellOutcome("passed"), [FAIL]), (CellOutcome("passed"), []),
                        (CellOutcome("failed"), [PASS]), (CellOutcome("timeout"), [PASS])):
        assert verdict(cell=cell, judge=judge, flags=Flags())[0] != "passed"
    # a later attempt's pass counts (the check cell was re-run in the notebook)
    assert verdict(cell=CellOutcome("passed"), judge=[FAIL, PASS], flags=Flags())[0] == "passed"
    # a pass recorded while the cell timed out keeps the cell's state
    assert verdict(cell=CellOutcome("timeout"), judge=[PASS], flags=Flags())[0] == "timeout"


def test_review_withholds_only_a_pass_and_says_why():
    review = Flags(review=("answer cell 'answer-rnea' uses exec, open",))
    assert verdict(cell=CellOutcome("passed"), judge=[PASS], flags=review) == (
        "needs-review", "points withheld until an instructor reviews: answer cell 'answer-rnea' uses exec, open")
    assert verdict(cell=CellOutcome("failed", "CheckFailed"), judge=[FAIL], flags=review)[0] == "failed"
    status, message = verdict(cell=CellOutcome("failed", "CheckFailed"), judge=[FAIL], flags=Flags(copy=COPY))
    assert status == "failed" and "97% identical" in message       # a failing copy fails, and says so
    # a denied access explains a failure, never spoils a pass (the walls held: the answer is its own)
    denied = Flags(denied=({"path": "/proc/1/cmdline", "function": "rnea"},))
    assert verdict(cell=CellOutcome("passed"), judge=[PASS], flags=denied) == ("passed", "")
    assert verdict(cell=CellOutcome("kernel-died", "it died in code cell 3"), judge=[], flags=denied)[0] == \
        "access-denied"
    # the grader's own failure comes first
    assert verdict(cell=CellOutcome("passed"), judge=[PASS], flags=Flags(copy=COPY, grader_error="judge"))[0] == \
        "grader-error"


def test_an_unknown_judge_status_becomes_failed_and_a_bad_cell_state_is_refused():
    assert verdict(cell=CellOutcome("failed"), judge=[{**FAIL, "status": "hacked"}], flags=Flags())[0] == "failed"
    with pytest.raises(ValueError, match="cell: expected a state in"):
        verdict(cell=CellOutcome("fine"), judge=[], flags=Flags())


def test_cell_outcomes_apply_the_runs_context_and_tell_it_once():
    roles = [CellRole("setup"), CellRole("answer", "a1"), CellRole("check", "c1"), CellRole("answer", "a2"),
             CellRole("check", "c2"), CellRole("check", "c3")]
    titles = {"a1": "(a) First part", "a2": "(b) Second part"}
    ok = {"outcome": "passed"}
    timed = cell_outcomes(roles, {0: ok, 1: ok, 2: ok, 3: {"outcome": "failed", "timeout": True}}, finished=True,
                          titles=titles, cell_timeout=60, timeout=600)
    assert {k: o.state for k, o in timed.items()} == {"c1": "passed", "c2": "timeout", "c3": "timeout"}
    assert timed["c2"].error == "your answer cell “(b) Second part” ran out of time (60 s per cell); the checks " \
                                "after it did not run"
    assert timed["c3"].error == "it did not run: the notebook had stopped earlier (see c2)"      # told once
    died = cell_outcomes(roles, {0: ok, 1: ok, 2: ok, 3: {"outcome": "failed", "died": True},
                                 4: {"outcome": "failed"}}, finished=True, titles=titles)
    assert {k: o.state for k, o in died.items()} == {"c1": "passed", "c2": "kernel-died", "c3": "kernel-died"}
    assert died["c2"].error.startswith("the kernel died while running your answer cell “(b) Second part”")
    late = cell_outcomes(roles, {0: ok, 1: ok, 2: ok}, finished=False, timeout=600)
    assert {k: o.state for k, o in late.items()} == {"c1": "passed", "c2": "timeout", "c3": "timeout"}
    assert late["c2"].error.startswith("the notebook ran out of time (600 s per notebook)")
    stopped = cell_outcomes(roles, {0: ok, 1: ok, 2: ok, 3: {"outcome": "failed", "timeout": True, "deadline": True}},
                            finished=False,
                            titles=titles, cell_timeout=60, timeout=6)     # the grader stopped it at the deadline
    assert {k: o.state for k, o in stopped.items()} == {"c1": "passed", "c2": "timeout", "c3": "timeout"}
    assert stopped["c2"].error == ("your answer cell “(b) Second part” ran out of time (6 s per notebook); the "
                                   "checks after it did not run")
    unrun = cell_outcomes(roles, {0: ok}, finished=True)
    assert {o.state for o in unrun.values()} == {"not-run"}
    for outcome in [*timed.values(), *died.values(), *late.values()]:
        assert "code cell" not in outcome.error and "nbval" not in outcome.error


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
