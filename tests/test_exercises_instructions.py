"""Every exercise's instructions agree with its checks: what the text forbids fails, what it accepts passes.

Where a notebook says how to do something ("never an inverse", "through the Cholesky factor",
"np.linalg.solve, not an inverse", "search the set, not np.linalg.inv", "tol = 1e-9 * max(1, |I_c|)",
"on W, not the normal equations", "do not change the arrays you were given"), an answer that does it
the forbidden way fails a check, on several seeds; where the text says a way is accepted (scipy's
triangular solver, ``ad(x) @ y`` for the bracket, a hand derivation, a one-piece ``rnea``, a
``forward_dynamics`` on ``np.linalg.solve``), that way passes. Each answer is the solution notebook's
own function with the one change under test, run through the in-process checker path.
"""
from __future__ import annotations

import math
import pathlib

import nbformat
import numpy as np
import pytest
import scipy.linalg

from lessonlib.grading.checks.checker import load_exercise, run_check
from lessonlib.grading.checks.preview import local_function

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = {"lie_groups01": "01_lie_groups.ipynb", "lie_algebra02": "02_lie_algebra.ipynb",
             "inertia03": "03_inertia.ipynb", "lagrange04": "04_lagrange.ipynb", "rnea05": "05_rnea.ipynb",
             "rnea_poe06": "06_lie_group_dynamics.ipynb", "mass_matrix08": "08_mass_matrix_forward_dynamics.ipynb",
             "aba09": "09_aba.ipynb", "applications11": "11_applications.ipynb", "constrained12": "12_constrained.ipynb"}
SEEDS = (0, 1, 2, 3, 4)


def solution(name):
    """The solution notebook's setup and answer cells run here (trusted code): its namespace."""
    nb = nbformat.read(str(ROOT / "solutions" / NOTEBOOKS[name]), as_version=4)
    ns = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and "check" not in cell.metadata.get("tags", []):
            exec(cell.source, ns)
    return ns


def verdict(name, check_id, ns, seed):
    check = load_exercise(name).checks[check_id]
    return run_check(check, [local_function(ns[f]) for f in check.functions], seed=seed, student="s")


def passes(name, check_id, ns, seeds=SEEDS):
    return all(verdict(name, check_id, ns, seed).passed for seed in seeds)


def fails(name, check_id, ns, seeds=SEEDS, *, says=""):
    for seed in seeds:
        v = verdict(name, check_id, ns, seed)
        if v.passed or v.status != "failed" or says not in v.message:
            return False
    return True


# --- 01: "find inverses by searching the set, not with np.linalg.inv" --------------------------------------

def test_01_group_axioms_with_np_linalg_inv_fails_on_a_group_whose_identity_is_not_I():
    ns = solution("lie_groups01")
    assert passes("lie_groups01", "lie-axioms-inverse", ns)

    def with_inv(elements, tol=1e-9):
        found = ns["group_axioms"](elements, tol)
        try:
            found["inverse"] = all(any(np.abs(np.linalg.inv(A) - B).max() <= tol for B in elements) for A in elements)
        except np.linalg.LinAlgError:
            found["inverse"] = False
        return found
    assert fails("lie_groups01", "lie-axioms-inverse", {"group_axioms": with_inv}, says="{P, -P}")


# --- 02: the bracket "from the commutator"; ad(x) @ y is accepted, as the text says -------------------------

def test_02_bracket_as_ad_x_y_is_accepted():
    ns = solution("lie_algebra02")
    ns["bracket"] = lambda x, y: ns["ad"](x) @ np.asarray(y, dtype=float)
    assert passes("lie_algebra02", "twist-bracket", ns)


# --- 03: "use tol = 1e-9 * max(1, abs(I_c).max()) for every comparison" ---------------------------------

def test_03_a_looser_tolerance_fails_and_the_stated_one_passes():
    ns = solution("inertia03")
    assert passes("inertia03", "inertia-physical-mass", ns) and passes("inertia03", "inertia-physical-moments", ns)

    def loose(m, c, I_c, tol=1e-6):
        I_c = np.asarray(I_c, dtype=float)
        if not m > 0 or np.abs(I_c - I_c.T).max() > tol:
            return False
        I1, I2, I3 = np.linalg.eigvalsh((I_c + I_c.T) / 2)
        return bool(I1 >= -tol and I1 + I2 >= I3 - tol)
    for check_id in ("inertia-physical-mass", "inertia-physical-moments"):
        assert fails("inertia03", check_id, {"is_physical": loose}, says="tolerance:"), check_id


# --- 04: "derive with sympy" — what is graded is the numbers; a typed-in derivation passes --------------------

def test_04_a_hand_derivation_in_numpy_is_accepted():
    from lessonlib.grading.checks.exercises import lagrange04
    ns = {"mass_matrix_2link": lambda q, arm: lagrange04.mass_closed(np.asarray(q), arm),
          "gravity_2link": lambda q, arm: lagrange04.gravity_closed(np.asarray(q), arm)}
    for check_id in ("lagrange-mass-db4", "lagrange-mass-random", "lagrange-gravity-db4", "lagrange-gravity-random"):
        assert passes("lagrange04", check_id, ns), check_id


# --- 05, 06: "put (b) and (c) together", "use your functions from (a)-(c)" — a one-piece answer passes ---------

def test_05_and_06_answers_that_do_not_call_the_earlier_functions_are_accepted():
    from lessonlib.grading.checks.exercises import rnea05, rnea_poe06
    ns = solution("rnea05")
    ns["rnea"] = rnea05.rnea_with                                   # one piece, no outward_pass / inward_pass
    for check_id in ("rnea-full-chain", "rnea-full-identities", "rnea-full-ur5"):
        assert passes("rnea05", check_id, ns, seeds=(0, 1)), check_id
    ns = solution("rnea_poe06")
    ns["rnea_poe"] = rnea_poe06.rnea_poe_with
    for check_id in ("poe-rnea-chain", "poe-rnea-ur5", "poe-rnea-identities"):
        assert passes("rnea_poe06", check_id, ns, seeds=(0, 1)), check_id


# --- 08: "through the Cholesky factor", "never an inverse", scipy allowed; forward_dynamics graded on qdd ------

def _lower(M):
    return np.linalg.cholesky(M)


SOLVES = {
    "np.linalg.solve": lambda M, b: np.linalg.solve(M, b),
    "np.linalg.lstsq": lambda M, b: np.linalg.lstsq(M, b, rcond=None)[0],
    "inv(M) @ b": lambda M, b: np.linalg.inv(M) @ b,
    "inv(L)^T (inv(L) b)": lambda M, b: (lambda Li: Li.T @ (Li @ b))(np.linalg.inv(_lower(M))),
    "inv(L^T) @ inv(L) @ b": lambda M, b: np.linalg.inv(_lower(M).T) @ np.linalg.inv(_lower(M)) @ b,
    "solve_triangular": lambda M, b: scipy.linalg.solve_triangular(
        _lower(M).T, scipy.linalg.solve_triangular(_lower(M), b, lower=True), lower=False),
    "cho_factor/cho_solve": lambda M, b: scipy.linalg.cho_solve(scipy.linalg.cho_factor(M), b),
}
#: Which of mass-cholesky, mass-cholesky-spd, mass-cholesky-stable each way passes.
EXPECTED_08 = {
    "np.linalg.solve": (True, False, True), "np.linalg.lstsq": (True, False, True),
    "inv(M) @ b": (True, False, False), "inv(L)^T (inv(L) b)": (True, True, False),
    "inv(L^T) @ inv(L) @ b": (True, True, False),
    "solve_triangular": (True, True, True), "cho_factor/cho_solve": (True, True, True),
}


@pytest.mark.parametrize("how", SOLVES)
def test_08_only_a_solve_through_the_cholesky_factor_passes_all_three_checks(how):
    ns = {"cholesky_solve": SOLVES[how]}
    got = tuple(passes("mass_matrix08", cid, ns) for cid in ("mass-cholesky", "mass-cholesky-spd",
                                                              "mass-cholesky-stable"))
    assert got == EXPECTED_08[how], (how, got)


def _own_cholesky(sqrt):
    """Substitution loops with a hand-written factor; ``sqrt`` of a negative pivot decides how it fails."""
    def cholesky_solve(M, b):
        n = len(b)
        L = np.zeros((n, n))
        for j in range(n):
            L[j, j] = sqrt(M[j, j] - L[j, :j] @ L[j, :j])
            for i in range(j + 1, n):
                L[i, j] = (M[i, j] - L[i, :j] @ L[j, :j]) / L[j, j]
        y = np.zeros(n)
        for i in range(n):
            y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
        x = np.zeros(n)
        for i in reversed(range(n)):
            x[i] = (y[i] - L[i + 1:, i] @ x[i + 1:]) / L[i, i]
        return x
    return cholesky_solve


@pytest.mark.parametrize("sqrt", [math.sqrt, np.sqrt], ids=["math.sqrt raises", "np.sqrt gives NaN"])
def test_08_a_hand_written_factor_passes_all_three_whatever_its_square_root_does(sqrt):
    ns = {"cholesky_solve": _own_cholesky(sqrt)}
    with np.errstate(invalid="ignore"):
        for cid in ("mass-cholesky", "mass-cholesky-spd", "mass-cholesky-stable"):
            assert passes("mass_matrix08", cid, ns), cid


def test_08_the_solution_passes_and_the_refusal_is_explained():
    ns = solution("mass_matrix08")
    for cid in ("mass-cholesky", "mass-cholesky-spd", "mass-cholesky-stable"):
        assert passes("mass_matrix08", cid, ns), cid
    def stub(M, b):
        raise NotImplementedError("write cholesky_solve")
    assert fails("mass_matrix08", "mass-cholesky-spd", {"cholesky_solve": stub}, says="NotImplementedError")

    def refuses_everything(M, b):                          # a refusal must come from the factor, not from habit
        raise np.linalg.LinAlgError("never")
    assert fails("mass_matrix08", "mass-cholesky-spd", {"cholesky_solve": refuses_everything})
    v = verdict("mass_matrix08", "mass-cholesky-spd", {"cholesky_solve": SOLVES["np.linalg.solve"]}, 0)
    assert "expected an error (or NaN), got finite numbers" in v.message and "not positive definite" in v.message
    v = verdict("mass_matrix08", "mass-cholesky-stable", {"cholesky_solve": SOLVES["inv(L)^T (inv(L) b)"]}, 0)
    assert "relative residual" in v.message and "inv(L)" in v.message


def test_08_forward_dynamics_on_np_linalg_solve_is_accepted_as_the_text_says():
    ns = solution("mass_matrix08")
    ns["forward_dynamics"] = lambda model, q, qd, tau, gravity=None, f_ext=None: np.linalg.solve(
        ns["crba"](model, q), np.asarray(tau) - ns["rnea"](model, q, qd, np.zeros(model.n), gravity=gravity,
                                                           f_ext=f_ext))
    assert passes("mass_matrix08", "mass-fd", ns, seeds=(0, 1))
    assert passes("mass_matrix08", "mass-fd-roundtrip", ns, seeds=(0, 1))


# --- 09: "do not change the arrays you were given" -----------------------------------------------------------

def test_09_an_inward_pass_that_changes_its_input_fails_the_aba_checks():
    ns = solution("aba09")
    source = nbformat.read(str(ROOT / "solutions" / NOTEBOOKS["aba09"]), as_version=4)
    inward = next(c.source for c in source.cells if c.metadata.get("lessonlib", {}).get("id") == "answer-inward")
    assert "IA = np.array(I, dtype=float)" in inward
    exec(inward.replace("IA = np.array(I, dtype=float)", "IA = I"), ns)         # adds to the caller's array
    v = verdict("aba09", "aba-full-chain", ns, 0)
    assert not v.passed and "read-only" in v.message, v.message


# --- 11: "solve it on W, not through the normal equations" --------------------------------------------------

def _fit(solve):
    def fit_parameters(W, TAU):
        tau = TAU.ravel()
        theta = solve(W, tau)
        residual = TAU - (W @ theta).reshape(TAU.shape)
        return theta, float(1 - (residual ** 2).sum() / ((TAU - TAU.mean(axis=0)) ** 2).sum())
    return fit_parameters


FITS = {"lstsq": (lambda W, t: np.linalg.lstsq(W, t, rcond=None)[0], True),
        "QR": (lambda W, t: (lambda Q, R: np.linalg.solve(R, Q.T @ t))(*np.linalg.qr(W)), True),
        "pinv": (lambda W, t: np.linalg.pinv(W) @ t, True),
        "inv(W^T W) W^T tau": (lambda W, t: np.linalg.inv(W.T @ W) @ W.T @ t, False),
        "solve(W^T W, W^T tau)": (lambda W, t: np.linalg.solve(W.T @ W, W.T @ t), False)}


@pytest.mark.parametrize("how", FITS)
def test_11_the_normal_equations_fail_the_badly_conditioned_fit(how):
    solve, accepted = FITS[how]
    ns = {"fit_parameters": _fit(solve)}
    assert passes("applications11", "app-fit-stable", ns) is accepted
    assert passes("applications11", "app-fit-exact", ns, seeds=(0, 1))           # ordinary W: any way works


# --- 12: "use np.linalg.solve, not an inverse" ---------------------------------------------------------------

@pytest.mark.parametrize("how, accepted", [("solve", True), ("lstsq", True), ("inv", False)])
def test_12_an_inverse_fails_the_ill_conditioned_noc(how, accepted):
    solve = {"solve": np.linalg.solve, "lstsq": lambda A, B: np.linalg.lstsq(A, B, rcond=None)[0],
             "inv": lambda A, B: np.linalg.inv(A) @ B}[how]

    def noc_independent(G, independent):
        G = np.asarray(G, dtype=float)
        dependent = [i for i in range(G.shape[1]) if i not in independent]
        N = np.zeros((G.shape[1], len(independent)))
        N[list(independent)] = np.eye(len(independent))
        N[dependent] = -solve(G[:, dependent], G[:, list(independent)])
        return N
    assert passes("constrained12", "fourbar-noc", {"noc_independent": noc_independent}) is accepted
