"""The checkers previewed in this process, the protocol between kernel and judge, the copy detector."""
from __future__ import annotations

import importlib
import pathlib
import re

import nbformat
import numpy as np
import pytest

from lessonlib.grading import CheckFailed, copydetect
from lessonlib.grading.checks import authoring
from lessonlib.grading.checks.checker import load_exercise, run_check
from lessonlib.grading.checks.preview import preview_seed
from lessonlib.grading.kernel import protocol
from grading_common import CHECK_IDS, EX, LINES, ROOT, SOLUTION, SOLVED, local, solution_namespace


# --- checkers, previewed in this process ------------------------------------------------------------

def test_every_check_passes_on_the_solution_and_prints_a_number_free_line():
    ns = solution_namespace()
    for cid, check in EX.checks.items():
        for seed, student in ((7, "ana"), (8, "bob")):                 # other inputs, the same line
            v = run_check(check, [local(ns[f]) for f in check.functions], seed=seed, student=student)
            assert (v.passed, v.status, v.line) == (True, "passed", LINES[cid]), v.message
        assert not re.search(r"\d\.\d|\d{2}", v.line)                  # no numeric answers leak


def test_authoring_helper_runs_the_solution_checks_without_a_kernel():
    verdicts = authoring.solution_verdicts(nbformat.read(str(SOLUTION), as_version=4))
    assert {cid: v.passed for cid, v in verdicts.items()} == {cid: True for cid in CHECK_IDS}


def test_check_ids_are_unique_across_all_exercise_modules():
    from lessonlib.grading.checks.checker import exercise_names
    seen = {}
    for name in exercise_names():
        exercise = load_exercise(name)
        for cid in exercise.checks:
            assert cid not in seen, f"check {cid!r} is registered by both {seen[cid]} and {name}"
            seen[cid] = name
    assert set(CHECK_IDS) <= set(seen)


def test_seed003_worked_example_is_the_first_static_case():
    from lessonlib.grading.checks.exercises.rnea05 import static_reference
    assert static_reference(1, 1, 1, 1, 10).tolist() == [20.0, 5.0]
    assert static_reference(1, 1, 1, 1, 10, tip_mass=1).tolist() == [40.0, 15.0]


def test_failures_say_expected_and_got():
    wrong = lambda L1, L2, m1, m2, g, tip_mass=0.0: np.array([g * (m1 + m2) * L1, g * m2 * L2])   # noqa: E731
    v = run_check(EX.checks["rnea-static"], [local(wrong)], seed=1, student="s")
    assert not v.passed and v.status == "failed"
    assert "expected\n    [20.  5.]" in v.message and "got\n    [20. 10.]" in v.message
    assert "for static_torques(1, 1, 1, 1, 10):" in v.message
    assert "hint:" in v.message


def test_a_stub_or_a_bad_return_fails_readably():
    def stub(*a, **k):
        raise NotImplementedError("write rnea")
    v = run_check(EX.checks["rnea-full-chain"], [local(stub)], seed=1, student="s")
    assert v.status == "failed" and "raised NotImplementedError: write rnea" in v.message
    v = run_check(EX.checks["rnea-outward-v"], [local(lambda *a: object())], seed=1, student="s")
    assert "returned object" in v.message
    v = run_check(EX.checks["rnea-outward-v"], [local(lambda *a: np.zeros(3))], seed=1, student="s")
    assert "expected a pair (v, a)" in v.message


def test_prints_of_the_student_function_do_not_reach_the_cell():
    ns = solution_namespace(["answer-static"])

    def noisy(*args, **kwargs):
        print("debug", args)
        return ns["static_torques"](*args, **kwargs)
    v = run_check(EX.checks["rnea-static"], [local(noisy)], seed=1, student="s")
    assert v.passed


def test_an_error_inside_a_library_shows_the_students_lines_and_names_the_package_not_its_path():
    """The "in your code" part of a message: the student's frames, and where the error was raised deeper."""
    import sysconfig
    ns = {"np": np}
    exec(compile("def singular(q):\n    return np.linalg.inv(np.zeros((2, 2)))\n", "<ipython-input-7>", "exec"), ns)
    v = run_check(EX.checks["rnea-full-chain"], [local(lambda *a, **k: ns["singular"](a))], seed=1, student="s")
    assert v.status == "failed" and "raised LinAlgError: Singular matrix" in v.message
    where = v.message.split("in your code:\n", 1)[1]
    assert 'File "<ipython-input-7>", line 2, in singular' in where and where.rstrip().endswith("(raised inside numpy)")
    assert sysconfig.get_paths()["purelib"] not in v.message and "site-packages" not in v.message
    assert "client.py" not in where and "checker.py" not in where    # nor the grader's own frames


def test_library_stand_in_gives_used_library():
    from lessonlib.grading import NotAvailableWhileGrading

    def uses_library(*a, **k):
        raise NotAvailableWhileGrading("lessonlib.dynamics.rnea is not available while grading")
    v = run_check(EX.checks["rnea-full-ur5"], [local(uses_library)], seed=1, student="s")
    assert v.status == "used-library"


def test_inputs_depend_on_the_student_id():
    seen = {}

    def recorder(student):
        def f(L1, L2, m1, m2, g, tip_mass=0.0):
            seen.setdefault(student, []).append(L1)
            return np.zeros(2)
        return f
    for student in ("alice", "bob", "alice"):
        run_check(EX.checks["rnea-static-tip"], [local(recorder(student))],
                  seed=preview_seed(student, "rnea-static-tip"), student=student)
    assert seen["alice"][0] == 1.0 and seen["alice"][0] == seen["alice"][1]    # seed 003 case first
    assert preview_seed("alice", "x") != preview_seed("bob", "x")


def test_preview_check_in_process_raises_checkfailed(monkeypatch):
    from lessonlib.grading import check
    monkeypatch.delenv("LESSONLIB_JUDGE", raising=False)
    with pytest.raises(CheckFailed, match="preview in this notebook"):
        check("rnea-static", lambda *a, **k: np.zeros(2))
    with pytest.raises(CheckFailed, match="unknown check"):
        check("no-such-check", print)


# --- protocol --------------------------------------------------------------------------------------------

def test_protocol_round_trips_arrays_exactly_and_models():
    from lessonlib import model, samples
    x = np.random.default_rng(0).normal(size=(3, 6, 6))
    arm = samples.ur5()
    y = protocol.decode(protocol.json_roundtrip(protocol.encode({"X": x, "n": 3, "m": arm, "t": (1.5, [True])})),
                        model=model)
    assert np.array_equal(y["X"], x) and y["n"] == 3 and y["t"] == (1.5, [True])
    assert np.array_equal(y["m"].inertia, arm.inertia) and y["m"].parent == arm.parent


def test_protocol_hands_the_judges_read_only_inputs_on_read_only_and_never_a_students_result():
    frozen, loose = np.arange(6.0).reshape(2, 3), np.ones(3)
    frozen.flags.writeable = False
    sent = protocol.decode(protocol.json_roundtrip(protocol.encode([frozen, (loose, {"I": frozen})], readonly=True)),
                           readonly=True)
    assert not sent[0].flags.writeable and not sent[1][1]["I"].flags.writeable and sent[1][0].flags.writeable
    assert np.array_equal(sent[0], frozen)
    with pytest.raises(ValueError, match="read-only"):
        sent[0][0, 0] += 1.0
    returned = protocol.decode(protocol.json_roundtrip(protocol.encode(frozen)))    # a result: marks dropped
    assert returned.flags.writeable and np.array_equal(returned, frozen)


def test_a_kernel_that_forges_a_read_only_mark_on_its_result_gets_a_writeable_array_in_the_judge():
    """The cleverest student patches the kernel's encoder so that a result arrives read-only, hoping a check that
    works on its copy of the answer crashes (a checker error instead of a failure): the judge ignores the mark."""
    forged = protocol.encode((np.ones(3), [np.zeros((2, 2))]), readonly=False)
    forged["__tuple__"][0]["__nd__"]["readonly"] = True
    forged["__tuple__"][1][0]["__nd__"]["readonly"] = True
    a, (b,) = protocol.decode(protocol.json_roundtrip(forged))            # as judge.py decodes a reply
    assert a.flags.writeable and b.flags.writeable
    a[0] = b[0, 0] = 7.0


@pytest.mark.parametrize("mark", [False, "yes", 1])
def test_protocol_refuses_a_read_only_mark_that_is_not_true(mark):
    spec = protocol.encode(np.ones(2))["__nd__"]
    with pytest.raises(protocol.ProtocolError, match="malformed array"):
        protocol.decode({"__nd__": {**spec, "readonly": mark}})


@pytest.mark.parametrize("value", [
    {"__pickle__": "gASVAAAAAAAAAAA="},
    {"__nd__": {"dtype": "O", "shape": [1], "data": ""}},
    {"__nd__": {"dtype": "f8", "shape": [10**9], "data": ""}},
    {"__nd__": {"dtype": "f8", "shape": [2], "data": "AAAA"}},
    {"__model__": {}},                                   # judge side: models never come back
    {"a": 1, "b": 2},
], ids=["pickle", "object", "huge", "short-data", "model", "untagged-dict"])
def test_protocol_refuses_anything_but_plain_data(value):
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(value)


def test_protocol_refuses_complex_and_objects():
    with pytest.raises(protocol.ProtocolError):
        protocol.encode(np.array([1j]))
    with pytest.raises(protocol.ProtocolError):
        protocol.encode(object())


# --- copy detector ------------------------------------------------------------------------------------------

def _library_rnea_source():
    return pathlib.Path(importlib.import_module("lessonlib.dynamics.rnea").__file__).read_text()


def test_copy_detector_finds_the_pasted_library_and_spares_independent_solutions():
    targets = copydetect.library_functions(EX.copy_targets)
    pasted = copydetect.find_copies({"cell": _library_rnea_source()}, targets)
    assert pasted and pasted[0].ratio >= 0.97
    renamed = re.sub(r"\bv_p\b", "vel_parent", _library_rnea_source()).replace("for i in", "for k in")
    renamed = re.sub(r"\[i\]", "[k]", renamed)
    assert copydetect.find_copies({"cell": renamed}, targets)
    assert copydetect.find_copies(SOLVED, targets) == []
    independent = '''
def rnea(model, q, qd, qdd, gravity=None):
    n = model.n
    g = model.gravity if gravity is None else np.asarray(gravity)
    X = joint_transforms(model, q)
    v = np.zeros((n, 6)); a = np.zeros((n, 6)); f = np.zeros((n, 6))
    for i in range(n):
        if i == 0:
            v[i] = model.S[i] * qd[i]
            a[i] = X[i] @ np.concatenate([np.zeros(3), -g]) + model.S[i] * qdd[i]
        else:
            v[i] = X[i] @ v[i-1] + model.S[i] * qd[i]
            a[i] = X[i] @ a[i-1] + model.S[i] * qdd[i] + se3.ad(v[i]) @ model.S[i] * qd[i]
        f[i] = model.inertia[i] @ a[i] + se3.ad_dual(v[i]) @ model.inertia[i] @ v[i]
    tau = np.zeros(n)
    for i in range(n - 1, -1, -1):
        tau[i] = model.S[i] @ f[i]
        if i > 0:
            f[i-1] += X[i].T @ f[i]
    return tau
'''
    best = max(copydetect.similarity(t, lib) for _, t in copydetect.tokens_of(independent) for _, lib in targets)
    assert best < copydetect.THRESHOLD - 0.1




def test_an_unfinished_stub_is_named_with_its_arguments_whole():
    """Exercise 11 (e)'s stub: the call in the message shows the state tuple item by item (no repr cut
    mid-array, no empty ", ,"), and no negative zero."""
    from lessonlib.grading.checks.checker import find_check
    blank = authoring.answers_of(ROOT / "exercises" / "11_applications.ipynb")
    ns = {}
    exec("import numpy as np\n" + blank["answer-observer"], ns)
    for cid in ("app-observer-step", "app-observer-push"):
        verdict = run_check(find_check(cid), [local(ns["observer_step"])], seed=3, student="s")
        call = verdict.message.splitlines()[1]
        assert call.startswith("observer_step(<Model ") and call.endswith("raised NotImplementedError: write observer_step")
        assert "array(" not in call and ", ," not in call and not re.search(r"-0\.(?!\d)", call)
        assert call.count("(") == call.count(")")


def test_expected_and_got_never_show_a_negative_zero():
    """A sign error on numbers that round to zero must not read as "expected [0.] got [-0.]"."""
    from lessonlib.grading.checks.checker import Check, Context, _Failure
    ctx = Context(Check("c", 1, ("f",), "t", None, "e"), np.random.default_rng(0), "s")
    with pytest.raises(_Failure) as failure:
        ctx.expect_close("tau", np.array([-1e-12, -2.0, 3e-7]), np.array([1e-12, 2.0, -3e-7]))
    text = str(failure.value)
    assert "expected\n    [0. 2. 0.]\n  got\n    [ 0. -2.  0.]" in text, text
    assert not re.search(r"-0\.(?!\d)", text)
