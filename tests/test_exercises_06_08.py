"""Exercises 06–08 (PoE recursion, DeNOC, mass matrix and forward dynamics): checkers in-process, notebooks in sync.

Every checker runs here against the solution's own functions (which must pass, with a number-free
verdict line) and against typical wrong answers (which must fail with an expected-vs-got message and
a hint, and without hurting the checks they do not concern: partial credit). The graded kernel's
sandbox is probed for what each exercise blocks and what it must leave available. No kernel is
started except the sandbox probes (plain subprocesses); the full graded runs are the grading
framework's tests.
"""
from __future__ import annotations

import importlib
import json
import pathlib
import re
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.grading import copydetect
from lessonlib.grading.checks import authoring
from lessonlib.grading.checks.checker import CHECKER_ERROR, USED_LIBRARY, exercise_names, load_exercise, run_check
from lessonlib.grading import NotAvailableWhileGrading
from lessonlib.grading.checks.preview import local_function
from lessonlib.grading.checks.exercises import rnea_poe06, mass_matrix08
import sandbox_world
from grading_common import stated_points

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = {"rnea_poe06": "06_lie_group_dynamics.ipynb", "denoc07": "07_denoc.ipynb",
             "mass_matrix08": "08_mass_matrix_forward_dynamics.ipynb"}
POINTS = {name: stated_points(ROOT / "exercises" / nb) for name, nb in NOTEBOOKS.items()}   # each table of parts


local = local_function          # a student function as the checkers see it (plain-data round trip)


def answers_of(path):
    nb = nbformat.read(str(path), as_version=4)
    return {c.metadata["lessonlib"]["id"]: c.source for c in nb.cells if "answer" in c.metadata.get("tags", [])}


def solution_namespace(name, replace=None):
    """The solution's functions (setup cell + answer cells run here: trusted code), some answers replaced."""
    nb = nbformat.read(str(ROOT / "solutions" / NOTEBOOKS[name]), as_version=4)
    ns = {}
    exec(next(c.source for c in nb.cells if c.get("id") == "setup"), ns)
    for key, source in answers_of(ROOT / "solutions" / NOTEBOOKS[name]).items():
        exec((replace or {}).get(key, source), ns)
    return ns


def run(name, check_id, ns, seed=1, student="s"):
    check = load_exercise(name).checks[check_id]
    return run_check(check, [local(ns[f]) for f in check.functions], seed=seed, student=student)


def verdicts(name, ns, seed=3):
    return {cid: run(name, cid, ns, seed=seed).passed for cid in load_exercise(name).checks}


def edited(name, key, old, new):
    """The solution answer ``key`` with ``old`` replaced by ``new`` (which must occur)."""
    source = answers_of(ROOT / "solutions" / NOTEBOOKS[name])[key]
    assert old in source, (key, old)
    return {key: source.replace(old, new)}


def assert_helpful(v):
    assert not v.passed and v.status == "failed", v
    assert "expected" in v.message and "got" in v.message and "hint:" in v.message, v.message


# --- the solutions pass every check ----------------------------------------------------------------------

@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_check_passes_on_the_solution_with_a_number_free_line(name):
    ns = solution_namespace(name)
    ex = load_exercise(name)
    for cid, check in ex.checks.items():
        for seed, student in ((7, "ana"), (8, "bob")):                 # other inputs, the same line
            v = run(name, cid, ns, seed=seed, student=student)
            assert (v.passed, v.status, v.line) == (True, "passed", check.line), v.message
        title = re.sub(r"\[[^]]*\]", "", v.line.split("] ", 1)[1])
        assert not re.search(r"\d\.\d|\d{2}", title), v.line                    # no numeric answers leak


def test_check_ids_are_unique_across_all_exercise_modules():
    """A check cell names its check by id alone (the preview searches every module): ours must be unique."""
    ours = {cid: name for name in NOTEBOOKS for cid in load_exercise(name).checks}
    assert len(ours) == sum(len(load_exercise(name).checks) for name in NOTEBOOKS)
    assert set(NOTEBOOKS) <= set(exercise_names())
    for name in set(exercise_names()) - set(NOTEBOOKS):
        try:
            others = load_exercise(name).checks                 # a colleague's module (its own tests load it)
        except Exception:                                       # noqa: BLE001 (not this file's concern)
            continue
        assert not set(others) & set(ours), f"check ids of {name} clash with ours: {set(others) & set(ours)}"


# --- wrong answers fail readably, and only where they are wrong (partial credit) ----------------------------

def test_06_forgotten_bracket_costs_only_the_acceleration_checks():
    ns = solution_namespace("rnea_poe06", edited("rnea_poe06", "answer-forward",
                                                 " + qd[i] * (se3.ad(V[i]) @ S0[i])", ""))
    got = verdicts("rnea_poe06", ns)
    assert got == {"poe-home-poses": True, "poe-home-inertias": True, "poe-adjoint": True, "poe-adjoint-chain": True,
                   "poe-forward-v": True, "poe-forward-a": False, "poe-rnea-chain": False, "poe-rnea-ur5": False,
                   "poe-rnea-identities": True,                   # at rest (qd = 0) the bracket term vanishes
                   "poe-closed-a-chain": True, "poe-closed-a-tree": True, "poe-closed-b": True}   # (e) stands alone
    assert_helpful(run("rnea_poe06", "poe-forward-a", ns))


def test_06_wrong_home_poses_and_wrong_wrench_transport_fail_with_hints():
    ns = solution_namespace("rnea_poe06", edited("rnea_poe06", "answer-home", "pose = pose @ M_list[i]",
                                                 "pose = M_list[i]"))
    v = run("rnea_poe06", "poe-home-poses", ns)
    assert_helpful(v)
    assert "end-effector" in v.message
    ns = solution_namespace("rnea_poe06", edited("rnea_poe06", "answer-rnea-poe", "joint_adjoint(S0[i], -q[i]).T",
                                                 "joint_adjoint(S0[i], q[i]).T"))
    v = run("rnea_poe06", "poe-rnea-chain", ns)
    assert_helpful(v)
    assert "rnea_poe(M_list, G_list, S_list, q, qd, qdd, gravity)" in v.message
    ns = solution_namespace("rnea_poe06")
    ns["joint_adjoint"] = lambda s, theta: np.eye(6) + theta * rnea_poe06.se3.ad(s)     # first order only
    assert_helpful(run("rnea_poe06", "poe-adjoint", ns))
    assert not run("rnea_poe06", "poe-adjoint-chain", ns).passed


def test_07_on_axis_joint_rates_pass_only_where_the_frames_sit_on_the_axes():
    # Saha's p_k = [e; 0] is right for [SWC16]'s arm (its frames sit on the joint axes), wrong elsewhere
    ns = solution_namespace("denoc07", edited("denoc07", "answer-blocks", "np.concatenate([e, np.cross(e, lever)])",
                                              "np.concatenate([e, np.zeros(3)])"))
    got = verdicts("denoc07", ns)
    assert got == {"denoc-twist-prop": True, "denoc-joint-rate": False, "denoc-nd": False, "denoc-nl": True,
                   "denoc-nmn": False, "denoc-nmn-swc16": True, "denoc-tau-chain": False, "denoc-tau-swc16": True,
                   "denoc-tau-identities": False}
    v = run("denoc07", "denoc-joint-rate", ns)
    assert_helpful(v)
    assert "joint_rate_vector('revolute', [0., 0., 1.], [0., 0., 0.], [1., 0., 0.])" in v.message


def test_07_missing_Adot_term_and_unturned_inertias_fail_with_hints():
    ns = solution_namespace("denoc07", edited("denoc07", "answer-denoc", " + A_dot @ t_in", ""))
    got = verdicts("denoc07", ns)
    assert got["denoc-tau-chain"] is False and got["denoc-tau-identities"] is True     # at rest Ȧ t = 0
    assert_helpful(run("denoc07", "denoc-tau-chain", ns))
    ns = solution_namespace("denoc07", edited("denoc07", "answer-inertia", "turn @ model.inertia[k] @ turn.T",
                                              "model.inertia[k]"))
    assert_helpful(run("denoc07", "denoc-nmn", ns))
    assert run("denoc07", "denoc-nd", ns).passed
    wrong_sign = solution_namespace("denoc07", edited("denoc07", "answer-blocks", "A[LIN, ANG] = -so3.hat",
                                                      "A[LIN, ANG] = so3.hat"))
    v = run("denoc07", "denoc-twist-prop", wrong_sign)
    assert_helpful(v)
    assert "twist_propagation([1., 0., 0.])" in v.message


def test_08_gravity_left_on_and_chain_only_crba_fail_where_they_are_wrong():
    replace = {**edited("mass_matrix08", "answer-id-columns", "gravity=no_gravity", "gravity=None"),
               **edited("mass_matrix08", "answer-crba", "model.parent[i] != -1", "i > 0")}
    replace["answer-crba"] = (replace["answer-crba"].replace("composite[model.parent[i]]", "composite[i - 1]")
                              .replace("model.parent[k] != -1", "k > 0").replace("k = model.parent[k]", "k = k - 1"))
    ns = solution_namespace("mass_matrix08", replace)
    got = verdicts("mass_matrix08", ns)
    assert got == {"mass-id-columns": False, "mass-id-trees": False, "mass-crba-chain": True, "mass-crba-tree": False,
                   "mass-crba-energy": True, "mass-cholesky": True, "mass-cholesky-spd": True, "mass-cholesky-stable": True,
                   "mass-fd": True,
                   "mass-fd-roundtrip": False, "mass-jtf": True, "mass-gravity-stiffness": True,
                   "mass-natural-frequencies": True, "mass-natural-frequencies-trees": False}
    v = run("mass_matrix08", "mass-id-columns", ns)
    assert_helpful(v)
    assert "mass_matrix_from_id(<Model 'seed004_2link' n=2>, [0.7, 0. ])" in v.message and "gravity switched off" in v.message
    assert "model.parent" in run("mass_matrix08", "mass-crba-tree", ns).message
    assert "your crba is wrong on this case" in run("mass_matrix08", "mass-natural-frequencies-trees", ns).message


def test_08_natural_frequencies_by_eigh_pass_and_a_clipped_unstable_posture_fails():
    eigh_route = "from scipy.linalg import eigh\n"
    ns = solution_namespace("mass_matrix08")
    exec(eigh_route, ns)
    ns["natural_frequencies"] = lambda model, q, stiffness, gravity=None: np.sqrt(ns["eigh"](
        stiffness + ns["gravity_stiffness"](model, q, gravity=gravity), ns["crba"](model, q), eigvals_only=True)) / (2 * np.pi)
    assert run("mass_matrix08", "mass-natural-frequencies", ns).passed            # the text allows scipy's eigh
    with np.errstate(invalid="ignore"):                                          # √ of a negative: NaN, a refusal
        assert run("mass_matrix08", "mass-natural-frequencies-trees", ns).passed
        clipped = ns["natural_frequencies"]
        ns["natural_frequencies"] = lambda *args, **kwargs: np.nan_to_num(clipped(*args, **kwargs))
        v = run("mass_matrix08", "mass-natural-frequencies-trees", ns)
    assert not v.passed and "expected an error (or NaN)" in v.message and "statically unstable" in v.message


def test_08_inverse_fails_the_stability_check_and_a_sign_error_fails_jtf():
    ns = solution_namespace("mass_matrix08")
    ns["cholesky_solve"] = lambda M, b: np.linalg.inv(M) @ b
    for seed in range(5):                                    # inv's residual is ≥ 1e3 × the bound on every draw
        v = run("mass_matrix08", "mass-cholesky-stable", ns, seed=seed)
        assert not v.passed and "relative residual" in v.message and "hint:" in v.message
        assert run("mass_matrix08", "mass-cholesky", ns, seed=seed).passed
    ns["cholesky_solve"] = lambda M, b: np.linalg.solve(M, b)                  # solving (LU) is fine too
    assert run("mass_matrix08", "mass-cholesky-stable", ns).passed
    ns = solution_namespace("mass_matrix08", edited("mass_matrix08", "answer-jtf", "return -rnea", "return rnea"))
    v = run("mass_matrix08", "mass-jtf", ns)
    assert_helpful(v)
    assert "-J^T F" in v.message


def test_08_reference_quantities_are_db4s_numbers():
    arm = samples.seed004_2link()
    from lessonlib.dynamics import crba
    for q2 in (0.0, np.pi, 1.3):
        assert np.allclose(mass_matrix08.db4_mass_matrix(q2), crba(arm, [0.4, q2]), atol=1e-12)
    assert mass_matrix08.db4_mass_matrix(0.0)[1, 1] == pytest.approx(5 * 0.25 / 4 + 5 * 0.25 / 12)


def test_06_poe_lists_rebuild_the_ur5_of_modern_robotics():
    from lessonlib.dynamics import rnea
    from lessonlib.model import from_poe, to_poe
    ur5 = samples.ur5()
    M_list, G_list, S_list = to_poe(ur5, ur5.frame("ee").T)
    rebuilt = from_poe(M_list, G_list, S_list)
    q, qd, qdd = rnea_poe06.UR5_STATE
    assert np.allclose(rnea(rebuilt, q, qd, qdd), rnea(ur5, q, qd, qdd), atol=1e-12)
    assert np.allclose(S_list[:, 1], [0, 1, 0, -0.089159, 0, 0])                   # MR's Slist column 2


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stubs_and_library_stand_ins_get_the_right_status(name):
    ex = load_exercise(name)
    check = next(iter(ex.checks.values()))

    def stub(*a, **k):
        raise NotImplementedError("write it")

    def uses_library(*a, **k):
        raise NotAvailableWhileGrading("lessonlib.dynamics.x is not available while grading")
    v = run_check(check, [local(stub)] * len(check.functions), seed=1, student="s")
    assert v.status == "failed" and "raised NotImplementedError: write it" in v.message
    v = run_check(check, [local(uses_library)] * len(check.functions), seed=1, student="s")
    assert v.status == USED_LIBRARY
    for check in ex.checks.values():                         # no checker crashes on nonsense returns
        v = run_check(check, [local(lambda *a, **k: np.zeros(3))] * len(check.functions), seed=2, student="s")
        assert not v.passed and v.status != CHECKER_ERROR, (check.id, v.message)


# --- notebooks ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NOTEBOOKS)
def test_exercise_and_solution_are_in_sync(name):
    ex_nb = nbformat.read(str(ROOT / "exercises" / NOTEBOOKS[name]), as_version=4)
    sol_nb = nbformat.read(str(ROOT / "solutions" / NOTEBOOKS[name]), as_version=4)
    assert authoring.sync_errors(ex_nb, sol_nb) == []
    ex = load_exercise(name)
    ids = [c.metadata["lessonlib"]["id"] for c in sol_nb.cells if "check" in c.metadata.get("tags", [])]
    assert ids == list(ex.checks) and sum(ex.checks[i].points for i in ids) == POINTS[name]
    assert sol_nb.metadata["lessonlib"] == {"exercise": name} and ex.notebook == NOTEBOOKS[name]
    blank = answers_of(ROOT / "exercises" / NOTEBOOKS[name])
    solved = answers_of(ROOT / "solutions" / NOTEBOOKS[name])
    assert all(authoring.is_stub(s) for s in blank.values())
    assert not any(authoring.is_stub(s) for k, s in solved.items() if k != "answer-student-id")
    text = " ".join(c.source for c in sol_nb.cells if c.cell_type == "markdown")
    assert f"course/{NOTEBOOKS[name]}" in text                # points to the lesson notebook


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_solutions_are_not_copies_and_pasted_library_code_is(name):
    ex = load_exercise(name)
    targets = copydetect.library_functions(ex.copy_targets)
    solved = answers_of(ROOT / "solutions" / NOTEBOOKS[name])
    assert copydetect.find_copies(solved, targets) == []
    module = {"rnea_poe06": "rnea_poe", "denoc07": "denoc", "mass_matrix08": "crba"}[name]
    pasted = pathlib.Path(importlib.import_module(f"lessonlib.dynamics.{module}").__file__).read_text()
    copies = copydetect.find_copies({"cell": pasted}, targets)
    assert copies and max(c.ratio for c in copies) >= 0.97


# --- the graded kernel's sandbox: blocked and available ---------------------------------------------------------

PROBE = r'''
import numpy as np
from lessonlib import samples
arm = samples.planar_2link()
out = {}
for stmt in json.loads(sys.argv[3]):
    try:
        exec(stmt)
        out[stmt] = "ok"
    except BaseException as e:
        out[stmt] = type(e).__name__
print(json.dumps(out))
'''

OK, BLOCKED = "ok", "NotAvailableWhileGrading"
SANDBOX = {
    "rnea_poe06": {"from lessonlib import se3; se3.Ad(se3.exp(np.ones(6)))": OK,
                   "from scipy.linalg import expm": OK,
                   "from lessonlib.model import from_poe": OK,
                   "from lessonlib.dynamics import rnea_poe": BLOCKED,
                   "from lessonlib.kinematics import fk": BLOCKED,
                   "import lessonlib.batch as b; b.rnea": BLOCKED,
                   "import modern_robotics": "ModuleNotFoundError"},
    "denoc07": {"from lessonlib.kinematics import fk; fk(arm, [0, 0])": OK,
                "from lessonlib import so3; so3.hat([1, 2, 3])": OK,
                "from lessonlib.kinematics import jacobian; jacobian(arm, [0, 0])": BLOCKED,
                "from lessonlib.kinematics import body_twists; body_twists(arm, [0, 0], [0, 0])": BLOCKED,
                "from lessonlib.dynamics import denoc": BLOCKED,
                "from lessonlib.dynamics.denoc import twist_propagation": BLOCKED},
    "mass_matrix08": {"from lessonlib.dynamics import rnea; rnea(arm, [0, 0], [0, 0], [1, 0], gravity=(0, 0, 0))": OK,
                     "from scipy.linalg import solve_triangular, cho_factor, cho_solve": OK,
                     "from lessonlib.kinematics import joint_transforms; joint_transforms(arm, [0, 0])": OK,
                     "from lessonlib.dynamics import crba; crba(arm, [0, 0])": BLOCKED,
                     "from lessonlib.dynamics import aba; aba(arm, [0, 0], [0, 0], [0, 0])": BLOCKED,
                     "from lessonlib.dynamics import mass_matrix_via_rnea as f; f(arm, [0, 0])": BLOCKED,
                     "from lessonlib.dynamics import forward_dynamics as f; f(arm, [0, 0], [0, 0], [0, 0])": BLOCKED,
                     "from lessonlib.dynamics import jacobian_transpose_force as f; f(arm, [0, 0], [0] * 6)": BLOCKED,
                     "from lessonlib.dynamics import generalized_inertia as f; f(arm, [0, 0])": BLOCKED,
                     "from lessonlib.dynamics import lagrange_terms as f; f(arm, [0, 0], [0, 0])": BLOCKED,
                     "from lessonlib.dynamics import kinetic_energy as f; f(arm, [0, 0], [1, 0])": BLOCKED,
                     "from lessonlib.kinematics import jacobian; jacobian(arm, [0, 0])": BLOCKED,
                     "from lessonlib import batch; batch.crba(arm, np.zeros((1, 2)))": BLOCKED},
}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_sandbox_blocks_what_the_exercise_asks_for_and_keeps_what_it_needs(name, tmp_path):
    out, _ = sandbox_world.run(tmp_path, load_exercise(name), PROBE, json.dumps(list(SANDBOX[name])))
    assert out == SANDBOX[name]
