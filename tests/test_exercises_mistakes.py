"""Known mistakes: a wrong answer that makes a classic mistake gets a message naming it.

Each exercise module declares, per check, variants of the reference with one classic bug
(:class:`lessonlib.grading.checks.checker.Variant`). Here every declared variant is matched by a *student*
bug (``tests/mistakes/``, one module per exercise): the solution notebook's own answer cell with one edit,
as a student would write it. That submission must fail each listed check with exactly that variant's
"likely mistake" line (no other variant's). The honest solution and an unrelated wrong answer get no such
line; the variants of a check never agree with one another where the check fails them (so a message is
never ambiguous); and a failing answer that calls the student's earlier functions names the wrong one. A
sample goes through the real ``lessonlib-grade`` run.
"""
from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from lessonlib.grading.checks.checker import READ_ONLY_HINT, load_exercise, replay, same_failure
from lessonlib.grading.checks.exercises import mass_matrix08, rnea05
from mistakes import LIKELY, NOTEBOOKS, ROOT, answers_of, cases, counts, named_mistakes, namespace, run
from mistakes.mass_matrix08 import CHOLESKY_LOOPS

M05, M08 = rnea05, mass_matrix08
CASES = cases()


def _case_id(case):
    name, edits, expected = case
    return f"{name}:{sorted({v.mistake for v in expected.values()})[0][:40]}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_a_student_bug_gets_exactly_its_mistake_named(case):
    name, edits, expected = case
    ns = namespace(name, edits)
    for check_id, variant in expected.items():
        v = run(name, check_id, ns)
        assert not v.passed and v.status == "failed", (check_id, v.message)
        assert "expected" in v.message and "got" in v.message, v.message
        assert named_mistakes(v.message) == [variant.mistake], (check_id, v.message)


def test_every_declared_mistake_is_matched_by_a_student_bug():
    covered = {(name, cid, variant.mistake) for name, _, expected in CASES for cid, variant in expected.items()}
    for name in NOTEBOOKS:
        for cid, check in load_exercise(name).checks.items():
            for variant in check.variants:
                assert (name, cid, variant.mistake) in covered, f"{name} {cid}: no student bug for {variant.mistake!r}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_honest_solution_and_an_unrelated_wrong_answer_name_no_mistake(name):
    ns = namespace(name)
    for cid, check in load_exercise(name).checks.items():
        assert run(name, cid, ns).passed, cid
        if not check.variants:
            continue
        answer = check.answers[0]
        honest = ns[answer]
        ns_wrong = dict(ns)
        ns_wrong[answer] = lambda *a, _f=honest, **k: _scaled(_f(*a, **k), 1.1)
        v = run(name, cid, ns_wrong)
        assert not v.passed and named_mistakes(v.message) == [], (cid, v.message)


def _scaled(value, factor):
    if isinstance(value, tuple):
        return tuple(_scaled(x, factor) for x in value)
    return np.asarray(value, dtype=float) * factor + 0.01


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_variant_fails_its_check_and_no_two_agree_where_they_fail(name):
    """A variant fails its check, and no other variant fails at the same step with the same numbers (on three
    seeds): a student's answer can match at most one, so the message is never ambiguous."""
    for cid, check in load_exercise(name).checks.items():
        for seed in (1, 2, 3):
            failures = [(v, replay(check, v, seed=seed, student="s")) for v in check.variants]
            for v, failure in failures:
                assert failure is not None and failure.got is not None, (cid, seed, v.mistake)
            for i, (a, fa) in enumerate(failures):
                for b, fb in failures[i + 1:]:
                    assert not same_failure(fa, fb) and not same_failure(fb, fa), (cid, seed, a.mistake, b.mistake)


def test_a_failing_rnea_names_the_pass_that_is_wrong():
    ns = namespace("rnea05", [("answer-inward", "f[i - 1] += X[i].T @ f[i]", "f[i - 1] += X[i] @ f[i]")])
    v = run("rnea05", "rnea-full-chain", ns)
    assert "your inward_pass is wrong on this case" in v.message and "check rnea-inward tests it" in v.message, v.message
    assert "your outward_pass" not in v.message


# --- through the real grader (lessonlib-grade: judge, stripped kernel, fresh inputs) -----------------------------

def _submission(name, path, edits, student):
    """The exercise notebook with every answer cell solved, ``edits`` applied (a student's submission)."""
    _, answers = answers_of(name)
    for key, old, new in edits:
        assert old in answers[key], (key, old)
        answers[key] = answers[key].replace(old, new)
    answers["answer-student-id"] = f'student_id = "{student}"'
    nb = nbformat.read(str(ROOT / "exercises" / NOTEBOOKS[name]), as_version=4)
    for cell in nb.cells:
        key = cell.metadata.get("lessonlib", {}).get("id")
        if "answer" in cell.metadata.get("tags", []) and key in answers:
            cell.source = answers[key]
    nbformat.write(nb, str(path))


GRADED = {   # exercise -> {submission: (edits, {check: text its message must contain})}
    "rnea05": {
        "transpose.ipynb": ([("answer-inward", "f[i - 1] += X[i].T @ f[i]", "f[i - 1] += X[i] @ f[i]")],
                            {"rnea-inward": LIKELY + M05.IN_NOT_TRANSPOSED.mistake,
                             "rnea-full-ur5": LIKELY + M05.RNEA_NOT_TRANSPOSED.mistake,
                             "rnea-full-chain": "your inward_pass is wrong on this case"}),
        "gravity.ipynb": ([("answer-rnea", "a0[LIN] = -g", "a0[LIN] = g")],
                          {"rnea-full-chain": LIKELY + M05.RNEA_GRAVITY_SIGN.mistake}),
        "unrelated.ipynb": ([("answer-rnea", "return inward_pass(", "return 1.1 * inward_pass(")], {}),
    },
    "aba09": {
        "in_place.ipynb": ([("answer-inward", "IA = np.array(I, dtype=float)", "IA = I")],
                           {"aba-inward-ia": READ_ONLY_HINT, "aba-inward-pa": READ_ONLY_HINT,
                            "aba-inward-schur": READ_ONLY_HINT}),
    },
    "mass_matrix08": {
        "tree.ipynb": ([("answer-crba", "model.parent[i] != -1", "i > 0"),
                        ("answer-crba", "composite[model.parent[i]]", "composite[i - 1]"),
                        ("answer-crba", "model.parent[k] != -1", "k > 0"), ("answer-crba", "k = model.parent[k]", "k = k - 1")],
                       {"mass-crba-tree": LIKELY + M08.CRBA_CHAIN_WALK.mistake,
                        "mass-fd-roundtrip": "your crba is wrong on this case"}),
        "solve.ipynb": ([("answer-fd", "    L = np.linalg.cholesky(M)\n" + CHOLESKY_LOOPS, "    return np.linalg.solve(M, b)\n")],
                        {"mass-cholesky-spd": "expected an error (or NaN), got finite numbers"}),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("name", GRADED)
def test_known_mistakes_and_suspects_reach_the_real_graded_run(name, tmp_path):
    for file, (edits, _) in GRADED[name].items():
        _submission(name, tmp_path / file, edits, student=file.split(".")[0])
    result = subprocess.run(
        [sys.executable, "-m", "lessonlib.grading.cli", "--reference", str(ROOT / "solutions" / NOTEBOOKS[name]),
         *[str(tmp_path / f) for f in GRADED[name]], "--out", str(tmp_path / "g.csv"), "--json",
         str(tmp_path / "g.json"), "-j", "2", "-q"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    graded = json.loads((tmp_path / "g.json").read_text())
    for file, (_, expected) in GRADED[name].items():
        checks = graded[file]["checks"]
        for check_id, text in expected.items():
            assert checks[check_id]["status"] == "failed" and text in checks[check_id]["message"], \
                (file, check_id, checks[check_id])
        if not expected:                                        # an unrelated wrong answer: no mistake named
            assert all(LIKELY not in c["message"] for c in checks.values()), file
            assert any(c["status"] == "failed" for c in checks.values())


def test_a_hint_does_not_name_a_cause_the_answer_does_not_have():
    """Exercise 08's tree check: a missing transpose is named as such, and nothing mentions i - 1; the i - 1
    walk is named only for the answer that walks by i - 1."""
    transpose = namespace("mass_matrix08", [("answer-crba", "X[i].T @ composite[i] @ X[i]", "X[i] @ composite[i] @ X[i].T")])
    v = run("mass_matrix08", "mass-crba-tree", transpose)
    assert named_mistakes(v.message) == [M08.CRBA_NOT_TRANSPOSED.mistake] and "i - 1" not in v.message, v.message
    walk = namespace("mass_matrix08", [("answer-crba", "model.parent[i] != -1", "i > 0"),
                                       ("answer-crba", "composite[model.parent[i]]", "composite[i - 1]"),
                                       ("answer-crba", "model.parent[k] != -1", "k > 0"),
                                       ("answer-crba", "k = model.parent[k]", "k = k - 1")])
    assert "i - 1" in run("mass_matrix08", "mass-crba-tree", walk).message


def test_an_error_inside_a_helper_names_the_helper_that_gave_the_bad_input():
    """Issue 17's example: forward_dynamics raises LinAlgError inside cholesky_solve because crba is wrong —
    the message says where it crashed and that crba (not cholesky_solve) produced the bad input."""
    ns = namespace("mass_matrix08", [("answer-crba", "            M[i, k] = M[k, i]\n",
                                      "            M[i, k] = M[k, i] = 50 * M[k, i]\n")])       # not positive definite
    v = run("mass_matrix08", "mass-fd-roundtrip", ns)
    assert "raised LinAlgError" in v.message and "cholesky_solve" in v.message, v.message
    assert "your crba is wrong on this case" in v.message and "mass-crba-tree tests it alone" in v.message
    assert "your cholesky_solve" not in v.message and "your mass_matrix_from_id" not in v.message


def test_an_answer_that_writes_into_its_inputs_fails_its_own_check_and_is_told_to_copy():
    """Exercise 09 (a) asks for the arrays given to stay unchanged: the checks of (a) pass them read-only, so
    ``IA = I`` followed by ``IA[i - 1] += ...`` fails in (a) itself (not only through (b)'s aba), saying why."""
    ns = namespace("aba09", [("answer-inward", "IA = np.array(I, dtype=float)", "IA = I")])
    for cid in ("aba-inward-ia", "aba-inward-pa", "aba-inward-schur"):
        v = run("aba09", cid, ns)
        assert v.status == "failed" and v.raised == "ValueError", (cid, v.message)
        assert "raised ValueError: output array is read-only" in v.message and READ_ONLY_HINT in v.message, v.message
        assert "in articulated_inertias" in v.message, v.message
    assert run("aba09", "aba-inward-ia", namespace("aba09")).passed


def test_every_check_of_every_exercise_names_at_least_one_known_mistake():
    missing = [f"{name}: {cid}" for name in NOTEBOOKS for cid, check in load_exercise(name).checks.items()
               if not check.variants]
    assert missing == [], "checks without a known mistake:\n" + "\n".join(missing)


def test_the_grading_readme_counts_the_known_mistakes_of_each_exercise():
    text = (ROOT / "lessonlib" / "grading" / "README.md").read_text()
    table = text[text.index("### Known mistakes, exercise by exercise"):text.index("### Mutation testing")]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[2].isdigit():
            rows[cells[1]] = (cells[0], int(cells[2]), int(cells[3]), int(cells[4]))
    assert rows == {name: (NOTEBOOKS[name], *n) for name, n in counts().items()}
