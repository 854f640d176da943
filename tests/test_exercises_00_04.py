"""Exercises 00–04: every checker against the solutions and against wrong answers, in process; the sync rule.

No kernel is started here: the student's functions are the solution notebook's answer cells run
in this process, called through the same plain-data round trip as a preview. The kernel-based
grading (sandbox, judge, nbval) is the grading framework's own subject (tests/test_grading.py).
"""
from __future__ import annotations

import ast
import functools
import pathlib
import re

import nbformat
import numpy as np
import pytest

from lessonlib.grading.checks import authoring
from lessonlib.grading.checks.checker import exercise_names, load_exercise, run_check
from lessonlib.grading.checks.preview import local_function
from grading_common import stated_points

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = {"00_tour": "tour00", "01_lie_groups": "lie_groups01", "02_lie_algebra": "lie_algebra02",
           "03_inertia": "inertia03", "04_lagrange": "lagrange04"}
POINTS = {stem: stated_points(ROOT / "exercises" / f"{stem}.ipynb") for stem in LESSONS}    # each table of parts


def read(kind, stem):
    return nbformat.read(str(ROOT / kind / f"{stem}.ipynb"), as_version=4)


def answers(nb):
    return {c.metadata["lessonlib"]["id"]: c.source for c in nb.cells if "answer" in c.metadata.get("tags", [])}


@functools.lru_cache(maxsize=None)
def namespace(kind, stem):
    """The notebook's setup and answer cells run here (trusted code): the student's functions."""
    ns = {}
    for cell in read(kind, stem).cells:
        if cell.cell_type == "code" and "check" not in cell.metadata.get("tags", []):
            exec(cell.source, ns)
    return ns


local = local_function          # a student function as the checkers see it (plain-data round trip)


def verdicts(name, ns, seed=1, student="s"):
    ex = load_exercise(name)
    return {cid: run_check(check, [local(ns[f]) for f in check.functions], seed=seed, student=student)
            for cid, check in ex.checks.items()}


# --- the solutions pass, the blanks fail -------------------------------------------------------------------

@pytest.mark.parametrize("stem", LESSONS)
def test_every_check_passes_on_the_solution_with_a_number_free_line(stem):
    name = LESSONS[stem]
    ex = load_exercise(name)
    for seed, student in ((7, "ana"), (8, "bob")):
        for cid, v in verdicts(name, namespace("solutions", stem), seed, student).items():
            assert (v.passed, v.status, v.line) == (True, "passed", ex.checks[cid].line), v.message
            assert not re.search(r"\d\.\d", v.line)                       # no numeric answer in the line


@pytest.mark.parametrize("stem", LESSONS)
def test_the_blank_exercise_earns_nothing_and_says_why(stem):
    for v in verdicts(LESSONS[stem], namespace("exercises", stem)).values():
        assert (v.passed, v.status) == (False, "failed")
        assert "raised NotImplementedError: write " in v.message


# --- wrong answers: partial credit and readable messages ----------------------------------------------------

WRONG = {
    "00_tour": ({
        "answer-rotation": '''
def rotation_check(R, tol=1e-6):
    """Forgets the determinant."""
    error = float(np.abs(R.T @ R - np.eye(3)).max())
    return error, error <= tol
''',
        "answer-holding": '''
def static_holding_torque(model, q, gravity=None):
    """Forgets to pass the gravity on."""
    return dynamics.gravity_torques(model, q)
'''}, {"tour-rotation-error", "tour-holding"}),
    "01_lie_groups": ({
        "answer-log": '''
def so3_log(R):
    """The textbook formula, without the symmetric part near pi."""
    theta = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))
    if theta < 1e-12:
        return np.zeros(3)
    return theta / (2 * np.sin(theta)) * vee(R - R.T)
''',
        "answer-axioms": '''
def group_axioms(elements, tol=1e-9):
    """Takes "the identity is there" for "every element has an inverse"."""
    S = np.asarray(elements, dtype=float)
    member = lambda A: any(np.abs(A - B).max() <= tol for B in S)
    same = lambda A, B: np.abs(A - B).max() <= tol
    identity = any(all(same(E @ A, A) and same(A @ E, A) for A in S) for E in S)
    return {"closure": all(member(A @ B) for A in S for B in S), "associativity": True, "identity": identity,
            "inverse": identity}
'''}, {"lie-hat", "lie-vee", "lie-exp", "lie-exp-edges", "lie-log", "lie-axioms-closure"}),
    "02_lie_algebra": ({
        "answer-ad": '''
def ad(xi):
    """[v] in the upper-right block instead of the lower-left."""
    A = np.zeros((6, 6))
    A[ANG, ANG] = A[LIN, LIN] = so3.hat(xi[ANG])
    A[ANG, LIN] = so3.hat(xi[LIN])
    return A


def bracket(x, y):
    return ad(x) @ y
''',
        "answer-wrench": '''
def wrench_of_force(f, r):
    """f x r instead of r x f."""
    return np.concatenate([np.cross(f, r), f])


def wrench_in_b(T_ab, F_a):
    return Ad(T_ab).T @ F_a
'''}, {"twist-hat", "twist-adjoint", "twist-adjoint-group", "twist-wrench-frame"}),
    "03_inertia": ({
        "answer-energy": '''
def kinetic_energy(m, c, I_c, V):
    """Forgets that the COM is not at the origin."""
    return 0.5 * m * V[LIN] @ V[LIN] + 0.5 * V[ANG] @ I_c @ V[ANG]
''',
        "answer-physical": '''
def is_physical(m, c, I_c):
    """Looks at the diagonal only."""
    a, b, d = np.diag(I_c)
    return bool(m > 0 and np.allclose(I_c, I_c.T) and min(a, b, d) >= 0 and a + b >= d and b + d >= a and a + d >= b)
''',
        "answer-cad": '''
def inertia_from_cad(mass, com, tensor, *, about, products):
    """Reads every report as if it were taken at the COM."""
    J = np.asarray(tensor, dtype=float)
    return spatial_inertia(mass, com, J if products == "tensor" else 2 * np.diag(np.diag(J)) - J)
'''}, {"inertia-spatial", "inertia-spatial-momentum", "inertia-parallel-axis", "inertia-physical-mass",
       "inertia-cad-products", "inertia-euler-wrench"}),
    "04_lagrange": ({
        "answer-pendulum": '''
def pendulum_torque(q, qd, qdd, link):
    """Forgets the parallel-axis term."""
    return link["I_c"] * qdd + link["m"] * link["g0"] * link["ell"] * np.sin(q)
''',
        "answer-mass": '''
def mass_matrix_2link(q, arm):
    """[DB4 §4.2]'s closed form typed in: link 1's COM assumed at mid-link."""
    l1, lc2, m1, m2, I1, I2 = (arm[k] for k in ("l1", "lc2", "m1", "m2", "I1", "I2"))
    l2, c2 = 2 * lc2, np.cos(q[1])
    m12 = m2 * (l2**2 / 4 + l1 * l2 * c2 / 2) + I2
    m11 = m1 * l1**2 / 4 + m2 * (l1**2 + l2**2 / 4 + l1 * l2 * c2) + I1 + I2
    return np.array([[m11, m12], [m12, m2 * l2**2 / 4 + I2]])
''',
        "answer-coriolis": '''
def coriolis_2link(q, qd, arm):
    """The right C qd, but not Christoffel's C."""
    h = arm["m2"] * arm["l1"] * arm["lc2"] * np.sin(q[1])
    return np.array([[-2 * h * qd[1], -h * qd[1]], [h * qd[0], 0.0]])
''',
        "answer-dh": '''
def _com_positions(q, arm):
    c1, s1, c12, s12 = np.cos(q[0]), np.sin(q[0]), np.cos(q[0] + q[1]), np.sin(q[0] + q[1])
    return (arm["lc1"] * np.array([c1, s1, 0.0]),
            np.array([arm["l1"] * c1 + arm["lc2"] * c12, arm["l1"] * s1 + arm["lc2"] * s12, 0.0]))


def potential_dh(q, arm, gravity):
    """[DB4]'s P = Σ m gᵀ p_c taken as printed, with g pointing down: the sign is flipped."""
    p1, p2 = _com_positions(q, arm)
    return float(arm["m1"] * np.dot(gravity, p1) + arm["m2"] * np.dot(gravity, p2))


def gravity_dh(q, arm, gravity):
    """The gradient of that P, by central differences."""
    h = 1e-6
    return np.array([(potential_dh(q + e, arm, gravity) - potential_dh(q - e, arm, gravity)) / (2 * h)
                     for e in np.eye(2) * h])
''',
        "answer-skater": '''
def skater_momentum(q, qd, skater):
    return (skater["I"] + skater["m"] * q[1] ** 2) * qd[0]


def skater_torques(q, qd, qdd, skater):
    """The Coriolis torque with a factor 1 (r² differentiated as r ṙ)."""
    I, m, r = skater["I"], skater["m"], q[1]
    return np.array([(I + m * r * r) * qdd[0] + m * r * qd[1] * qd[0], m * qdd[1] - m * r * qd[0] ** 2])
''',
        "answer-frames": '''
def frame_acceleration(omega, omega_dot, p_rel, v_rel, a_rel, a_origin):
    """The Coriolis term without its 2."""
    return (np.asarray(a_origin) + np.cross(omega_dot, p_rel) + np.cross(omega, np.cross(omega, p_rel))
            + np.cross(omega, v_rel) + np.asarray(a_rel))
'''}, {"lagrange-pendulum-static", "lagrange-mass-db4", "lagrange-gravity-db4", "lagrange-gravity-random",
       "lagrange-coriolis-cqd", "lagrange-skater-momentum"}),
}
#: What a failure message must say, for a few checks: (check id, words).
MESSAGES = {
    "00_tour": [("tour-rotation-verdict", "det(R) > 0"), ("tour-holding-gravity", "gravity=gravity")],
    "01_lie_groups": [("lie-log-pi", "symmetric part"), ("lie-axioms-inverse", "inverse: expected False, got True")],
    "02_lie_algebra": [("twist-small-ad", "Modern Robotics"), ("twist-wrench-point", "F = [p × f; f]")],
    "03_inertia": [("inertia-energy", "v_c = v + ω × p_c"), ("inertia-physical-moments", "eigvalsh"),
                   ("inertia-cad-origin", "likely mistake: your answer seems to use the values taken at the origin as I_c")],
    "04_lagrange": [("lagrange-pendulum-dynamic", "I_{O,u} = I_c + m ℓ²"), ("lagrange-coriolis-skew", "skew"),
                    ("lagrange-dh-potential", "likely mistake: your potential seems to be +Σ m_i g_physᵀ p_{c_i}"),
                    ("lagrange-dh-gravity", "likely mistake: your g(q) has the wrong sign"),
                    ("lagrange-skater-torques", "2 m q₂ q̇₂ q̇₁"),
                    ("lagrange-frames-platform", "likely mistake: your Coriolis term seems to be ω × v_rel"),
                    ("lagrange-frames-general", "likely mistake: your Coriolis term seems to be ω × v_rel")],
}


@pytest.mark.parametrize("stem", LESSONS)
def test_wrong_answers_get_exactly_the_partial_credit_and_a_readable_message(stem):
    name = LESSONS[stem]
    ns = dict(namespace("solutions", stem))
    replaced, passing = WRONG[stem]
    for source in replaced.values():
        exec(source, ns)
    ex = load_exercise(name)
    for seed in (1, 2):
        results = verdicts(name, ns, seed)
        assert {cid for cid, v in results.items() if v.passed} == passing
        for cid, v in results.items():
            if not v.passed:
                assert v.status == "failed" and v.message.startswith(f"✗ [{cid}]"), v.message
                assert ("expected" in v.message and "got" in v.message) or "raised" in v.message, v.message
        for cid, words in MESSAGES[stem]:
            assert words in results[cid].message, results[cid].message
    assert sum(ex.checks[c].points for c in passing) < POINTS[stem]


def test_a_library_stand_in_is_reported_as_used_library():
    from lessonlib.grading import NotAvailableWhileGrading

    def uses_library(*a, **k):
        raise NotAvailableWhileGrading("lessonlib.so3.exp is not available while grading")
    v = run_check(load_exercise("lie_groups01").checks["lie-exp"], [local(uses_library)], seed=1, student="s")
    assert v.status == "used-library"


def test_a_wrong_return_type_fails_readably_not_as_a_checker_error():
    ex = load_exercise("lie_groups01")
    v = run_check(ex.checks["lie-axioms-closure"], [local(lambda elements, tol=1e-9: [True] * 4)], seed=1, student="s")
    assert v.status == "failed" and "expected a dict with the keys" in v.message
    ex = load_exercise("tour00")
    v = run_check(ex.checks["tour-rotation-error"], [local(lambda R, tol=1e-6: 0.0)], seed=1, student="s")
    assert v.status == "failed" and "expected a pair (error, ok)" in v.message
    ex = load_exercise("lie_algebra02")
    v = run_check(ex.checks["twist-bracket"], [local(lambda x, y: np.zeros(5))], seed=1, student="s")
    assert v.status == "failed" and "expected shape (6,), got (5,)" in v.message


# --- the references themselves --------------------------------------------------------------------------------

def test_worked_numbers_of_the_seeds_and_lessons():
    from lessonlib.grading.checks.exercises import lagrange04, lie_groups01
    db4 = lagrange04.DB4_ARM
    assert np.allclose(lagrange04.gravity_closed(np.zeros(2), db4), [(2943 + 981) / 80, 981 / 80])   # q = 0
    assert np.allclose(lagrange04.gravity_closed([0.0, np.pi / 2], db4), [2943 / 80, 0.0])
    assert np.isclose(lagrange04.mass_closed(np.zeros(2), db4)[1, 1], 5 / 12)
    assert lagrange04._self_test(np.array([0.3, -1.1]), np.array([0.5, 2.0]), db4).n == 2
    assert lie_groups01.axioms_reference(lie_groups01.cube_group()) == dict.fromkeys(lie_groups01.AXIOMS, True)
    assert lie_groups01.axioms_reference([np.eye(3), np.zeros((3, 3))]) == {
        "closure": True, "associativity": True, "identity": True, "inverse": False}
    assert len(lie_groups01.cube_group()) == 24


# --- notebooks, registry, sandbox targets ----------------------------------------------------------------------

@pytest.mark.parametrize("stem", LESSONS)
def test_exercise_and_solution_are_in_sync(stem):
    ex_nb, sol_nb = read("exercises", stem), read("solutions", stem)
    assert authoring.sync_errors(ex_nb, sol_nb) == []
    exercise = load_exercise(LESSONS[stem])
    assert exercise.notebook == f"{stem}.ipynb" and sol_nb.metadata["lessonlib"]["exercise"] == LESSONS[stem]
    ids = [c.metadata["lessonlib"]["id"] for c in sol_nb.cells if "check" in c.metadata.get("tags", [])]
    assert ids == list(exercise.checks) and sum(exercise.checks[i].points for i in ids) == POINTS[stem]
    assert all(c.metadata["editable"] is False and c.metadata["deletable"] is False
               for c in ex_nb.cells if "check" in c.metadata.get("tags", []))
    assert all(authoring.is_stub(s) for s in answers(ex_nb).values())
    assert not any(authoring.is_stub(s) for k, s in answers(sol_nb).items() if k != "answer-student-id")


def test_check_ids_are_unique_across_every_exercise():
    ids = [cid for name in exercise_names() for cid in load_exercise(name).checks]
    assert len(ids) == len(set(ids))


def test_check_functions_follow_the_naming_scheme():
    """``checks/exercises/__init__.py``: a registered check is ``check_<its id without the exercise's prefix>``,
    and no other function of an exercise module (or of its package's submodules) starts with ``check_``."""
    import inspect
    import sys
    for name in exercise_names():
        checks = load_exercise(name).checks
        for cid, check in checks.items():
            assert check.run.__name__ == "check_" + cid.split("-", 1)[1].replace("-", "_"), (name, cid)
        registered = {check.run for check in checks.values()}
        package = f"lessonlib.grading.checks.exercises.{name}"
        modules = [m for key, m in sys.modules.items() if key == package or key.startswith(package + ".")]
        defined = [f for m in modules for _, f in inspect.getmembers(m, inspect.isfunction) if f.__module__ == m.__name__]
        assert {f.__name__ for f in defined if f.__name__.startswith("check_") and f not in registered} == set(), name
        assert len(registered) == len(checks)


def _top_level_functions(path):
    return {n.name for n in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


@pytest.mark.parametrize("name", sorted(LESSONS.values()))
def test_every_blocked_target_exists_so_the_sandbox_really_stubs_it(name):
    pkg = ROOT / "lessonlib"
    for target in load_exercise(name).blocked:
        module, _, function = target.partition(":")
        rel = pathlib.Path(*module.split(".")[1:])
        assert (pkg / rel).is_dir() or (pkg / rel).with_suffix(".py").is_file(), target
        if function:
            assert function in _top_level_functions((pkg / rel).with_suffix(".py")), target
