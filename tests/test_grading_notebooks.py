"""Exercise notebooks: solution and exercise in sync, the reference, what the grader takes from a submission,
the submissions it finds, and the command line's usage errors."""
from __future__ import annotations

import copy
import subprocess

import nbformat
import pytest

from lessonlib.grading.checks import authoring
from lessonlib.grading.notebook import (ReferenceNotebookError, build_graded, load_reference, parse_student_id,
                                        read_submission)
from grading_common import BLANK, CHECK_IDS, EX, EXERCISE, LINES, MAX, PY, ROOT, SOLUTION, SOLVED, make_submission


# --- notebooks -------------------------------------------------------------------------------------------------

def test_exercise_and_solution_are_in_sync():
    ex, sol = nbformat.read(str(EXERCISE), as_version=4), nbformat.read(str(SOLUTION), as_version=4)
    assert authoring.sync_errors(ex, sol) == []
    assert [c.get("id") for c in ex.cells] == [c.get("id") for c in sol.cells]
    ids = [c.metadata["lessonlib"]["id"] for c in sol.cells if "check" in c.metadata.get("tags", [])]
    assert ids == CHECK_IDS and sum(EX.checks[i].points for i in ids) == MAX
    for c in ex.cells:
        if "check" in c.metadata.get("tags", []):
            assert c.metadata["editable"] is False and c.metadata["deletable"] is False
    assert all(authoring.is_stub(s) for s in BLANK.values())
    assert not any(authoring.is_stub(s) for k, s in SOLVED.items() if k != "answer-student-id")


def test_the_sync_rule_can_fail():
    ex, sol = nbformat.read(str(EXERCISE), as_version=4), nbformat.read(str(SOLUTION), as_version=4)
    leaked = copy.deepcopy(ex)
    next(c for c in leaked.cells if c.get("id") == "answer-rnea").source = SOLVED["answer-rnea"]
    assert any("answer cell is not the blank of the solution" in e for e in authoring.sync_errors(leaked, sol))
    edited = copy.deepcopy(ex)
    next(c for c in edited.cells if c.get("id") == "check-rnea-static").metadata["lessonlib"]["points"] = 5
    assert authoring.sync_errors(edited, sol)


def test_reference_needs_outputs_and_checks():
    with pytest.raises(ReferenceNotebookError, match="no stored verdict"):
        load_reference(EXERCISE)
    assert load_reference(SOLUTION).max_points == MAX


def test_student_id_is_read_without_running_code():
    assert parse_student_id('student_id = "s1234 (Ana)"') == "s1234__Ana_"
    assert parse_student_id('student_id = "your-id-here"') is None
    assert parse_student_id("student_id = input()") is None
    assert parse_student_id("import os; os._exit(1)") is None


def test_graded_notebook_takes_only_the_answers(tmp_path):
    def tamper(nb):
        nb.metadata["kernelspec"] = {"name": "evil", "display_name": "evil", "language": "python"}
        for c in nb.cells:
            if "check" in c.metadata.get("tags", []):
                c.source = "print('forged')"
                c.outputs = [nbformat.v4.new_output("stream", name="stdout", text="forged\n")]
        moved = next(c for c in nb.cells if c.get("id") == "answer-static")
        nb.cells.remove(moved)
        moved.id = "renamed-cell"                              # still matched, by lessonlib.id
        nb.cells.append(moved)
    path = make_submission(tmp_path / "s.ipynb", {"answer-static": SOLVED["answer-static"]}, student="ana",
                           mutate=tamper)
    ref = load_reference(SOLUTION)
    sub = read_submission(str(path), ref)
    assert sub.student_id == "ana" and sub.answers["answer-static"] == SOLVED["answer-static"]
    nb, roles = build_graded(ref, sub)
    assert nb.metadata["kernelspec"]["name"] == "lessonlib-grade"
    checks = [c for c, r in zip(nb.cells, roles) if r.kind == "check"]
    assert [c.outputs[0]["text"] for c in checks] == [line + "\n" for line in LINES.values()]
    assert all(not c.outputs for c, r in zip(nb.cells, roles) if r.kind == "answer")
    assert [r.name for r in roles if r.kind == "check"] == CHECK_IDS


def test_answers_fall_back_on_order_when_ids_are_lost(tmp_path):
    def strip_ids(nb):
        for i, c in enumerate(nb.cells):
            c.metadata.pop("lessonlib", None) if "answer" in c.metadata.get("tags", []) else None
            c.id = f"fresh-{i}"
    path = make_submission(tmp_path / "s.ipynb", {"answer-inward": SOLVED["answer-inward"]}, mutate=strip_ids)
    sub = read_submission(str(path), load_reference(SOLUTION))
    assert sub.answers["answer-inward"] == SOLVED["answer-inward"]


# --- CLI usage errors (no kernels) --------------------------------------------------------------------------

def _cli(*args, timeout=300):
    return subprocess.run([PY, "-m", "lessonlib.grading.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def test_cli_usage_errors_exit_2(tmp_path, capsys):
    from lessonlib.grading.cli import main
    assert main([str(tmp_path)]) == 2                                            # no --reference
    assert main(["--reference", str(SOLUTION), str(tmp_path / "nope.ipynb")]) == 2
    assert main(["--reference", str(EXERCISE), str(SOLUTION)]) == 2             # reference without outputs
    assert main(["--reference", str(SOLUTION), str(tmp_path)]) == 2             # empty directory
    assert main(["--reference", str(SOLUTION)]) == 2
    assert main(["--self", str(tmp_path / "nope.ipynb")]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["--jobs", "many"])
    assert exc.value.code == 2
    assert "no stored verdict output" in capsys.readouterr().err


def test_find_submissions_names_and_the_reference(tmp_path):
    """Same file names get their paths; the reference is skipped in a scanned directory, graded when named."""
    from lessonlib.grading.grader import find_submissions
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "05_rnea.ipynb").write_text("{}")
    ref = tmp_path / "a" / "05_rnea.ipynb"
    scanned = find_submissions([tmp_path], reference_path=ref)
    assert [name for name, _ in scanned] == ["05_rnea.ipynb"] and scanned[0][1].endswith("b/05_rnea.ipynb")
    named = find_submissions([ref, tmp_path / "b" / "05_rnea.ipynb"], reference_path=ref)
    assert [name for name, _ in named] == [str(ref), str(tmp_path / "b" / "05_rnea.ipynb")]
