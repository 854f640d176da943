"""Student bugs of exercise 08 (mass_matrix08): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import mass_matrix08 as M08

CHOLESKY_LOOPS = '''    n = len(b)
    y = np.zeros(n)
    for i in range(n):                              # forward substitution: L y = b
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    x = np.zeros(n)
    for i in reversed(range(n)):                    # back substitution: L^T x = y
        x[i] = (y[i] - L[i + 1:, i] @ x[i + 1:]) / L[i, i]
    return x
'''
FACTOR_AND_LOOPS = "    L = np.linalg.cholesky(M)\n" + CHOLESKY_LOOPS


CASES = [
    ("mass_matrix08", [("answer-id-columns", "gravity=no_gravity", "gravity=None")],
     {"mass-id-columns": M08.ID_GRAVITY_ON, "mass-id-trees": M08.ID_GRAVITY_ON}),
    ("mass_matrix08", [("answer-crba", "model.parent[i] != -1", "i > 0"),
                       ("answer-crba", "composite[model.parent[i]]", "composite[i - 1]"),
                       ("answer-crba", "model.parent[k] != -1", "k > 0"), ("answer-crba", "k = model.parent[k]", "k = k - 1")],
     {"mass-crba-tree": M08.CRBA_CHAIN_WALK}),
    ("mass_matrix08", [("answer-crba", "X[i].T @ composite[i] @ X[i]", "X[i] @ composite[i] @ X[i].T")],
     {"mass-crba-chain": M08.CRBA_NOT_TRANSPOSED, "mass-crba-tree": M08.CRBA_NOT_TRANSPOSED,
      "mass-crba-energy": M08.CRBA_NOT_TRANSPOSED}),
    ("mass_matrix08", [("answer-crba", "force = X[k].T @ force", "force = X[k] @ force")],
     {"mass-crba-chain": M08.CRBA_STEP_NOT_TRANSPOSED, "mass-crba-tree": M08.CRBA_STEP_NOT_TRANSPOSED,
      "mass-crba-energy": M08.CRBA_STEP_NOT_TRANSPOSED}),
    ("mass_matrix08", [("answer-crba", "composite[model.parent[i]] += X[i].T @ composite[i] @ X[i]", "pass")],
     {"mass-crba-chain": M08.CRBA_NOT_COMPOSITE, "mass-crba-tree": M08.CRBA_NOT_COMPOSITE,
      "mass-crba-energy": M08.CRBA_NOT_COMPOSITE}),
    ("mass_matrix08", [("answer-crba", "            M[i, k] = M[k, i]\n", "")],
     {"mass-crba-chain": M08.CRBA_HALF, "mass-crba-tree": M08.CRBA_HALF, "mass-crba-energy": M08.CRBA_HALF}),
    ("mass_matrix08", [("answer-fd", CHOLESKY_LOOPS, "    return np.linalg.solve(L, np.linalg.solve(L.T, b))\n")],
     {"mass-cholesky": M08.CHOL_ORDER, "mass-cholesky-spd": M08.CHOL_ORDER, "mass-cholesky-stable": M08.CHOL_ORDER}),
    ("mass_matrix08", [("answer-fd", CHOLESKY_LOOPS, "    return np.linalg.solve(L, np.linalg.solve(L, b))\n")],
     {"mass-cholesky": M08.CHOL_NO_TRANSPOSE, "mass-cholesky-spd": M08.CHOL_NO_TRANSPOSE,
      "mass-cholesky-stable": M08.CHOL_NO_TRANSPOSE}),
    ("mass_matrix08", [("answer-fd", "    return x\n", "    return y\n")],
     {"mass-cholesky": M08.CHOL_FORWARD_ONLY, "mass-cholesky-spd": M08.CHOL_FORWARD_ONLY,
      "mass-cholesky-stable": M08.CHOL_FORWARD_ONLY}),
    ("mass_matrix08", [("answer-fd", FACTOR_AND_LOOPS, "    return np.linalg.solve(M, b)\n")],
     {"mass-cholesky-spd": M08.CHOL_NO_FACTOR}),
    ("mass_matrix08", [("answer-fd", FACTOR_AND_LOOPS, "    return np.linalg.inv(M) @ b\n")],
     {"mass-cholesky-spd": M08.CHOL_NO_FACTOR, "mass-cholesky-stable": M08.CHOL_INV_M}),
    ("mass_matrix08", [("answer-fd", CHOLESKY_LOOPS,
                        "    L_inv = np.linalg.inv(L)\n    return L_inv.T @ (L_inv @ b)\n")],
     {"mass-cholesky-stable": M08.CHOL_INV_L}),
    ("mass_matrix08", [("answer-fd", "np.asarray(tau, dtype=float) - h", "np.asarray(tau, dtype=float) + h")],
     {"mass-fd": M08.FD_BIAS_SIGN, "mass-fd-roundtrip": M08.FD_BIAS_SIGN}),
    ("mass_matrix08", [("answer-fd", "gravity=gravity, f_ext=f_ext)", "gravity=np.zeros(3), f_ext=f_ext)")],
     {"mass-fd": M08.FD_BIAS_NO_GRAVITY, "mass-fd-roundtrip": M08.FD_BIAS_NO_GRAVITY}),
    ("mass_matrix08", [("answer-fd", "gravity=gravity, f_ext=f_ext)", "f_ext=f_ext)")],
     {"mass-fd-roundtrip": M08.FD_GRAVITY_NOT_PASSED}),
    ("mass_matrix08", [("answer-fd", "gravity=gravity, f_ext=f_ext)", "gravity=gravity)")],
     {"mass-fd-roundtrip": M08.FD_FEXT_DROPPED}),
    ("mass_matrix08", [("answer-jtf", "return -rnea", "return rnea")], {"mass-jtf": M08.JTF_SIGN}),
    ("mass_matrix08", [("answer-jtf", "gravity=np.zeros(3), f_ext=wrenches", "f_ext=wrenches")],
     {"mass-jtf": M08.JTF_GRAVITY_ON}),
]

NF = "answer-natural-frequencies"
EIGENVALUES = "    eigenvalues = np.linalg.eigvalsh(0.5 * (A + A.T))"
CASES += [
    ("mass_matrix08", [(NF, "return np.column_stack(columns)", "return -np.column_stack(columns)")],
     {"mass-gravity-stiffness": M08.GS_SIGN}),
    ("mass_matrix08", [(NF, "zero, zero, gravity=gravity)", "zero, zero)")],
     {"mass-gravity-stiffness": M08.GS_GRAVITY_NOT_PASSED}),
    ("mass_matrix08", [(NF, " + gravity_stiffness(model, q, gravity=gravity)", "")],
     {"mass-natural-frequencies": M08.NF_NO_GRAVITY, "mass-natural-frequencies-trees": M08.NF_NO_GRAVITY}),
    ("mass_matrix08", [(NF, " + gravity_stiffness(model, q, gravity=gravity)", " - gravity_stiffness(model, q, gravity=gravity)")],
     {"mass-natural-frequencies": M08.NF_GRAVITY_SIGN, "mass-natural-frequencies-trees": M08.NF_GRAVITY_SIGN}),
    ("mass_matrix08", [(NF, "return np.sqrt(eigenvalues) / (2 * np.pi)", "return np.sqrt(eigenvalues)")],
     {"mass-natural-frequencies": M08.NF_RAD_PER_S, "mass-natural-frequencies-trees": M08.NF_RAD_PER_S}),
    ("mass_matrix08", [(NF, EIGENVALUES, "    eigenvalues = np.linalg.eigvalsh(K_total)")],
     {"mass-natural-frequencies": M08.NF_NO_MASS, "mass-natural-frequencies-trees": M08.NF_NO_MASS}),
    ("mass_matrix08", [(NF, EIGENVALUES, "    eigenvalues = np.linalg.eigvalsh(L @ L.T)")],
     {"mass-natural-frequencies": M08.NF_MASS_ONLY, "mass-natural-frequencies-trees": M08.NF_MASS_ONLY}),
    ("mass_matrix08", [(NF, "return np.sqrt(eigenvalues) / (2 * np.pi)", "return eigenvalues / (2 * np.pi)")],
     {"mass-natural-frequencies": M08.NF_NO_ROOT, "mass-natural-frequencies-trees": M08.NF_NO_ROOT}),
    ("mass_matrix08", [(NF, EIGENVALUES, "    eigenvalues = np.linalg.eig(np.linalg.solve(L @ L.T, K_total))[0].real"),
                       (NF, "    if eigenvalues[0] < 0:", "    if eigenvalues.min() < 0:")],
     {"mass-natural-frequencies": M08.NF_NOT_SORTED, "mass-natural-frequencies-trees": M08.NF_NOT_SORTED}),
    ("mass_matrix08", [(NF, "gravity_stiffness(model, q, gravity=gravity)", "gravity_stiffness(model, q)")],
     {"mass-natural-frequencies-trees": M08.NF_GRAVITY_NOT_PASSED}),
]
