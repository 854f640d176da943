"""Exercises 09 (ABA), 10 (simulation) and 11 (applications): checkers, notebooks, sandbox.

Every checker runs in this process (no kernel) on the solution notebook's own functions, with the
same plain-data round trip as a preview, and on wrong implementations, which must fail with an
expected-vs-got message and a hint. The notebooks must be in sync with their checker modules, and
the graded kernel must block exactly the library functions each exercise asks for while keeping
the ones it permits. Kernel-based grading of the solutions is covered by the grader's own tests.
"""
from __future__ import annotations

import functools
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
from lessonlib.dynamics import aba, crba
from lessonlib.grading.checks import authoring
from lessonlib.grading.checks.checker import exercise_for_notebook, load_exercise, run_check
from lessonlib.grading.checks.preview import local_function
import sandbox_world
from grading_common import stated_points

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = {"aba09": "09_aba.ipynb", "simulation10": "10_simulation.ipynb", "applications11": "11_applications.ipynb"}
POINTS = {name: stated_points(ROOT / "exercises" / nb) for name, nb in NOTEBOOKS.items()}   # each table of parts


def answers_of(path):
    nb = nbformat.read(str(path), as_version=4)
    return {c.metadata["lessonlib"]["id"]: c.source for c in nb.cells if "answer" in c.metadata.get("tags", [])}


def solution_namespace(name):
    """The solution's functions, defined by running its setup and answer cells here (trusted code)."""
    nb = nbformat.read(str(ROOT / "solutions" / NOTEBOOKS[name]), as_version=4)
    ns = {}
    exec(next(c for c in nb.cells if c.get("id") == "setup").source, ns)
    for source in answers_of(ROOT / "solutions" / NOTEBOOKS[name]).values():
        exec(source, ns)
    return ns


local = local_function          # a student function as the checkers see it (plain-data round trip)


@functools.lru_cache(maxsize=None)
def _solution(name):
    return solution_namespace(name)


def verdict(name, check_id, *functions, seed=1):
    """The check on ``functions``; helpers the check also receives (and the test does not give) are the solution's."""
    check = load_exercise(name).checks[check_id]
    functions = functions + tuple(_solution(name)[h] for h in check.functions[len(functions):])
    return run_check(check, [local(f) for f in functions], seed=seed, student="s")


def failed(name, check_id, *functions, seed=1):
    """Run a check that must fail; returns its message (asserting the failure is the student's)."""
    v = verdict(name, check_id, *functions, seed=seed)
    assert not v.passed and v.status == "failed", v.message
    return v.message


@pytest.fixture(scope="module")
def sol():
    return {name: solution_namespace(name) for name in NOTEBOOKS}


# --- every check passes on the solution, prints a number-free line ---------------------------------------

@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_every_check_passes_on_the_solution(sol, name):
    ex = load_exercise(name)
    for cid, check in ex.checks.items():
        for seed, student in ((7, "ana"), (8, "bob")):
            v = run_check(check, [local(sol[name][f]) for f in check.functions], seed=seed, student=student)
            assert (v.passed, v.status, v.line) == (True, "passed", check.line), v.message
        assert not re.search(r"\d\.\d|\d{2}", check.line)                  # no numeric answers leak


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_and_checker_module_are_in_sync(name):
    ex_path, sol_path = ROOT / "exercises" / NOTEBOOKS[name], ROOT / "solutions" / NOTEBOOKS[name]
    ex_nb, sol_nb = nbformat.read(str(ex_path), as_version=4), nbformat.read(str(sol_path), as_version=4)
    assert authoring.sync_errors(ex_nb, sol_nb) == []
    exercise = load_exercise(name)
    assert exercise_for_notebook(NOTEBOOKS[name]) is exercise
    ids = [c.metadata["lessonlib"]["id"] for c in sol_nb.cells if "check" in c.metadata.get("tags", [])]
    assert ids == list(exercise.checks) and sum(exercise.checks[i].points for i in ids) == POINTS[name]
    blank, solved = answers_of(ex_path), answers_of(sol_path)
    assert all(authoring.is_stub(s) for s in blank.values())
    assert not any(authoring.is_stub(s) for k, s in solved.items() if k != "answer-student-id")


def test_check_ids_are_unique_across_all_exercise_modules():
    from lessonlib.grading.checks.checker import exercise_names
    seen = {}
    for name in exercise_names():
        for cid in load_exercise(name).checks:
            assert cid not in seen, f"{cid} in {name} and {seen[cid]}"
            seen[cid] = name


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_blocked_targets_exist_in_the_library(name):
    """A renamed library function would silently stay available: every blocked target must exist."""
    for target in load_exercise(name).blocked + load_exercise(name).copy_targets:
        module, _, function = target.partition(":")
        mod = importlib.import_module(module)
        assert not function or callable(getattr(mod, function)), target


# --- 09: ABA ---------------------------------------------------------------------------------------------------

def test_aba09_reference_inward_pass_and_schur_identity():
    from lessonlib.grading.checks.exercises.aba09 import schur_complements
    two = samples.planar_2link()
    M = crba(two, np.zeros(2))
    D = schur_complements(M)
    assert D[1] == pytest.approx(M[1, 1]) and D[0] == pytest.approx(M[0, 0] - M[0, 1] ** 2 / M[1, 1])
    qdd = aba(two, np.zeros(2), np.zeros(2), [1.0, 0.0], gravity=np.zeros(3))
    assert 1.0 / qdd[0] == pytest.approx(D[0], rel=1e-12)


def test_aba09_wrong_inward_passes_fail_with_hints(sol):
    good = sol["aba09"]["articulated_inertias"]

    def composite(X, S, I, c, p, tau):                   # passes the rigid inertia on: CRBA's, not articulated
        IA = np.array(I, float)
        for i in reversed(range(1, len(S))):
            IA[i - 1] += X[i].T @ IA[i] @ X[i]
        return IA, good(X, S, I, c, p, tau)[1]
    msg = failed("aba09", "aba-inward-ia", composite)
    assert "IA (n, 6, 6): expected" in msg and "\n  got\n" in msg and "hint: start from 𝓘^A_i = 𝓘_i" in msg
    msg = failed("aba09", "aba-inward-schur", composite)
    assert "D_i = S_iᵀ 𝓘^A_i S_i" in msg and "the Schur complements of the CRBA's M" in msg
    assert "outboard joints free" in msg

    def no_bias_velocity_term(X, S, I, c, p, tau):
        return good(X, S, I, np.zeros_like(c), p, tau)
    assert verdict("aba09", "aba-inward-ia", no_bias_velocity_term).passed        # c does not enter I^A
    assert "pA (n, 6): expected" in failed("aba09", "aba-inward-pa", no_bias_velocity_term)
    assert "expected a pair (IA, pA)" in failed("aba09", "aba-inward-ia", lambda *a: np.zeros(3))


def test_aba09_wrong_aba_fails_and_identities_catch_it(sol):
    good = sol["aba09"]["aba"]

    def gravity_sign(model, q, qd, tau, gravity=None):       # a_0 = [0; +g]
        g = model.gravity if gravity is None else np.asarray(gravity)
        return good(model, q, qd, tau, gravity=-g)
    msg = failed("aba09", "aba-full-chain", gravity_sign)
    assert "qdd (n,): expected" in msg and "gravity=[" in msg and "A_0 = [0; −g_phys]" in msg
    assert "ABA(RNEA" in failed("aba09", "aba-full-identities", gravity_sign)

    def ignores_default(model, q, qd, tau, gravity=None):
        return good(model, q, qd, tau, gravity=np.zeros(3) if gravity is None else gravity)
    assert "model.gravity" in failed("aba09", "aba-full-chain", ignores_default)

    def stub(*a, **k):
        raise NotImplementedError("write aba")
    assert "raised NotImplementedError: write aba" in failed("aba09", "aba-full-identities", stub)


def test_aba09_slope_fit_failures(sol):
    def intercept_not_prefactor(n, t):
        p, log_a = np.polyfit(np.log(n), np.log(t), 1)
        return p, log_a
    msg = failed("aba09", "aba-slope-power", intercept_not_prefactor)
    assert "your prefactor a divided by the true a = " in msg and "(1 when they agree)" in msg and "exp(intercept)" in msg

    def last_two_points(n, t):                               # a slope, but not the least-squares one
        p = np.log(t[-1] / t[-2]) / np.log(n[-1] / n[-2])
        return p, t[-1] / n[-1] ** p
    assert verdict("aba09", "aba-slope-power", last_two_points).passed             # exact power laws: any two points
    assert "p (the slope)" in failed("aba09", "aba-slope-measured", last_two_points)


# --- 10: simulation ---------------------------------------------------------------------------------------

def test_simulation10_explicit_euler_is_named_as_such(sol):
    from lessonlib.dynamics import aba as lib_aba

    def explicit(model, q, qd, tau, dt, gravity=None):
        return q + dt * qd, qd + dt * lib_aba(model, q, qd, tau, gravity=gravity)
    msg = failed("simulation10", "sim-semi-implicit", explicit)
    assert "is explicit Euler" in msg and "NEW velocity" in msg


def test_simulation10_wrong_rk4_fails_both_checks(sol):
    good = sol["simulation10"]["rk4_step"]
    from lessonlib.dynamics import aba as lib_aba

    def midpoint(model, q, qd, tau, dt, gravity=None):         # second order: RK2
        f = lambda q, qd: (qd, lib_aba(model, q, qd, tau, gravity=gravity))   # noqa: E731
        k1 = f(q, qd)
        k2 = f(q + dt / 2 * k1[0], qd + dt / 2 * k1[1])
        return q + dt * k2[0], qd + dt * k2[1]
    msg = failed("simulation10", "sim-rk4", midpoint)
    assert "q_next: expected" in msg and "ẋ(4) = ẋ(x + Δt ẋ(3))" in msg
    msg = failed("simulation10", "sim-rk4-order", midpoint)
    ratio = float(re.search(r"divided the one-step error by ([\d.]+)", msg).group(1))
    assert 6 < ratio < 10 and "8 second" in msg                                 # local error O(h³)
    assert verdict("simulation10", "sim-rk4-order", good).passed
    assert "expected a pair (q_next, qd_next)" in failed("simulation10", "sim-rk4", lambda *a, **k: np.zeros(2))


def test_simulation10_drift_failures_are_summarised(sol):
    good = sol["simulation10"]["energy_drift"]

    def absolute_energy(model, q0, qd0, dt, steps, integrator="euler"):     # forgot to subtract E_0
        from lessonlib.dynamics.energy import total_energy
        return good(model, q0, qd0, dt, steps, integrator) + total_energy(model, q0, qd0)
    msg = failed("simulation10", "sim-drift-euler", absolute_energy)
    assert "first differs at k = 0" in msg and "first entry is 0" in msg and len(msg) < 1200

    def one_short(model, q0, qd0, dt, steps, integrator="euler"):
        return good(model, q0, qd0, dt, steps, integrator)[:-1]
    assert "expected shape" in failed("simulation10", "sim-drift-euler", one_short)

    def always_euler(model, q0, qd0, dt, steps, integrator="euler"):
        return good(model, q0, qd0, dt, steps, "euler")
    assert verdict("simulation10", "sim-drift-euler", always_euler).passed
    assert "integrator='semi_implicit_euler'" in failed("simulation10", "sim-drift-integrators", always_euler)


def test_simulation10_drift_ordering_holds_for_the_pendulum():
    from lessonlib.grading.checks.exercises.simulation10 import INTEGRATORS, drift_reference
    rod = samples.pendulum()
    for q0 in (0.3, 1.4, -2.5):
        worst = [np.abs(drift_reference(rod, [q0], [0.0], 0.01, 150, i)).max() for i in INTEGRATORS]
        assert worst[2] < worst[1] < worst[0]                                     # rk4 < semi-implicit < euler


def test_simulation10_stribeck_failures(sol):
    good = sol["simulation10"]["stribeck"]

    def no_abs(qd, fc, fs, vs, b, delta=2.0, eps=1e-3):        # (qd/vs)^delta: nan or wrong for fractional delta
        qd = np.asarray(qd, float)
        return (fc + (fs - fc) * np.exp(-np.sign(qd) * (np.abs(qd) / vs) ** delta)) * np.tanh(qd / eps) + b * qd
    msg = failed("simulation10", "sim-stribeck", no_abs)
    assert "tau_f (n,): expected" in msg and "exp(-|qd / v_s|^delta)" in msg

    def wrong_sign(qd, fc, fs, vs, b, delta=2.0, eps=1e-3):
        return -good(qd, fc, fs, vs, b, delta=delta, eps=eps)
    assert "f_s = f_c" in failed("simulation10", "sim-stribeck-limits", wrong_sign)

    def hump_everywhere(qd, fc, fs, vs, b, delta=2.0, eps=1e-3):  # static level never decays
        return good(qd, fs, fs, vs, b, delta=delta, eps=eps)
    assert "tau_f far from rest (|qd| >> v_s): expected" in failed("simulation10", "sim-stribeck-limits", hump_everywhere)


# --- 11: applications --------------------------------------------------------------------------------------

def test_applications11_pd_and_computed_torque_failures(sol):
    ct = sol["applications11"]["computed_torque"]

    def no_gravity_comp(model, q, qd, q_ref, Kp, Kd, gravity=None):
        return Kp * (q_ref - q) - Kd * qd
    msg = failed("applications11", "app-gravity-hold", no_gravity_comp)
    assert "the arm must float" in msg and "rnea(model, q, 0, 0)" in msg

    def no_inertia(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=None):   # PD + bias: M missing
        from lessonlib.dynamics import bias_forces
        return qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q) + bias_forces(model, q, qd, gravity=gravity)
    msg = failed("applications11", "app-ct-law", no_inertia)
    assert "tau (n,): expected" in msg and "rnea(model, q, qd, v)" in msg
    assert "qdd of the arm driven by your tau" in failed("applications11", "app-ct-closed-loop", no_inertia)

    def swapped_errors(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=None):   # e = q - q_d
        return ct(model, q, qd, 2 * q - q_d, 2 * qd - qd_d, qdd_d, Kp, Kd, gravity=gravity)
    assert "e_ddot + Kd e_dot + Kp e = 0" in failed("applications11", "app-ct-closed-loop", swapped_errors)


def test_applications11_fit_failures(sol):
    good = sol["applications11"]["fit_parameters"]

    def global_mean(W, TAU):
        theta, _ = good(W, TAU)
        res = TAU - (W @ theta).reshape(TAU.shape)
        return theta, 1 - (res**2).sum() / ((TAU - TAU.mean()) ** 2).sum()
    assert verdict("applications11", "app-fit-exact", global_mean).passed
    assert verdict("applications11", "app-fit-noisy", global_mean).passed
    assert "TAU.mean(axis=0)" in failed("applications11", "app-fit-r2", global_mean)

    def column_major(W, TAU):                                  # stacks tau joint after joint: wrong rows
        theta = np.linalg.lstsq(W, TAU.ravel(order="F"), rcond=None)[0]
        return theta, 1.0
    msg = failed("applications11", "app-fit-exact", column_major)
    assert "theta (the true base parameters)" in msg and "TAU.ravel()" in msg
    assert "normal equations" in failed("applications11", "app-fit-noisy", column_major)
    assert "expected a pair (theta, r2)" in failed("applications11", "app-fit-r2", lambda W, TAU: W)


# --- the graded kernel: blocked and permitted library functions ---------------------------------------------

PROBES = {
    "simulation10": (
        "from lessonlib.dynamics import aba, crba, forward_dynamics, rnea\n"
        "from lessonlib.dynamics.energy import total_energy\n"
        "from lessonlib.dynamics.friction import Friction, viscous\n"
        "arm = samples.pendulum()\n"
        "out['aba'] = float(aba(arm, [1.5707963267948966], [0.0], [0.0])[0])\n"
        "out['energy'] = float(total_energy(arm, [0.0], [1.0]))\n",
        ["from lessonlib.dynamics.simulate import simulate; simulate(arm, [0.0], [0.0], None, 0.01, 0.01)",
         "from lessonlib.dynamics import simulate; simulate(arm, [0.0], [0.0], None, 0.01, 0.01)",
         "Friction(coulomb=1.0, static=2.0, stribeck_velocity=0.1)([0.5])",
         "from lessonlib.dynamics.friction import stribeck; stribeck(0.1, 1, 2, 0.1, 0)",
         "import lessonlib.constraints.closed as cc; cc.simulate"]),
    "applications11": (
        "from lessonlib.dynamics import aba, bias_forces, crba, gravity_torques, rnea\n"
        "from lessonlib.dynamics.regressor import base_parameters, regressor\n"
        "arm = samples.planar_2link()\n"
        "out['g'] = gravity_torques(arm, [0.0, 0.0]).round(6).tolist()\n"
        "out['rank'] = base_parameters(arm).rank\n",
        ["from lessonlib.dynamics.control import computed_torque; computed_torque(arm, None, 1, 1)",
         "from lessonlib.dynamics import gravity_compensation; gravity_compensation(arm)",
         "from lessonlib.dynamics.regressor import identify; identify(arm, None, None, None, None)",
         # the private helper behind computed_torque is the whole control law: reachable, it bypassed the block
         "from lessonlib.dynamics.control import _computed_torque_with; _computed_torque_with(None, None, 1, 1)",
         # (h): the filter and the pre-processing of measured data
         "from lessonlib.dynamics.measurement import zero_phase_lowpass; zero_phase_lowpass([0.0] * 99, 100.0, 9.0)",
         "from lessonlib.dynamics import preprocess_measurements; preprocess_measurements(None, None, None)",
         "from lessonlib.dynamics.measurement import butterworth; butterworth(100.0, 9.0)"]),
}


@pytest.mark.parametrize("name", list(PROBES))
def test_graded_kernel_blocks_the_exercise_and_keeps_the_dynamics(tmp_path, name):
    allowed, blocked = PROBES[name]
    probe = (
        "import lessonlib\n"
        "from lessonlib import samples\n"
        "out = {'file': lessonlib.__file__}\n"
        + allowed +
        f"for stmt in {blocked!r}:\n"
        "    try:\n"
        "        exec(stmt)\n"
        "        out[stmt] = 'ok'\n"
        "    except BaseException as e:\n"
        "        out[stmt] = type(e).__name__\n"
        "print(json.dumps(out))\n")
    out, _ = sandbox_world.run(tmp_path, load_exercise(name), probe)
    assert out.pop("file").startswith(str(tmp_path / "sandbox" / "lib"))
    for stmt in blocked:
        assert out.pop(stmt) == "NotAvailableWhileGrading", stmt
    if name == "simulation10":
        from lessonlib.dynamics.energy import total_energy
        energy = total_energy(samples.pendulum(), [0.0], [1.0])
        assert out == {"aba": pytest.approx(-14.715), "energy": pytest.approx(energy)}
    else:
        assert out == {"g": [19.62, 4.905], "rank": 6}


# --- the copy detector knows the libraries these exercises ask for ---------------------------------------

@pytest.mark.parametrize("name, module, function, student_name", [
    ("aba09", "lessonlib.dynamics.aba", "aba", "aba"),
    ("applications11", "lessonlib.dynamics.regressor", "identify", "fit_parameters"),
])
def test_pasted_library_code_is_a_copy_and_the_solutions_are_not(name, module, function, student_name):
    import inspect

    from lessonlib.grading import copydetect
    targets = copydetect.library_functions(load_exercise(name).copy_targets)
    pasted = inspect.getsource(getattr(importlib.import_module(module), function)).replace(f"def {function}(",
                                                                                         f"def {student_name}(")
    copies = copydetect.find_copies({"answer-x": pasted}, targets)
    assert [(c.function, c.target) for c in copies] == [(student_name, f"{module}.{function}")]
    assert copydetect.find_copies(answers_of(ROOT / "solutions" / NOTEBOOKS[name]), targets) == []


def test_applications11_measured_data_check_holds_for_every_setting(sol):
    """app-meas-data draws a sample rate, a cut-off (5 Hz up to 6 % of the rate) and an excitation per student; its
    own reference must pass its self-test on all of them (seed 25 once put 5 Hz harmonics against a 5.4 Hz cut-off:
    a checker-error for an honest student)."""
    check = load_exercise("applications11").checks["app-meas-data"]
    for seed in range(30):
        v = run_check(check, [local(sol["applications11"][f]) for f in check.functions], seed=seed, student="s")
        assert v.passed, (seed, v.status, v.message[:300])
