"""Student bugs of exercise 09 (aba09): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import aba09 as M09

CASES = [
    ("aba09", [("answer-inward", "IA[i - 1] += X[i].T @ Ia @ X[i]", "IA[i - 1] += X[i] @ Ia @ X[i].T")],
     {"aba-inward-ia": M09.IA_NOT_TRANSPOSED, "aba-inward-schur": M09.IA_NOT_TRANSPOSED}),
    ("aba09", [("answer-inward", "Ia = IA[i] - np.outer(U, U) / D", "Ia = IA[i]")],
     {"aba-inward-ia": M09.IA_NOT_FREED, "aba-inward-schur": M09.IA_NOT_FREED}),
    ("aba09", [("answer-inward", "pa = pA[i] + Ia @ c[i] + U * u / D", "pa = pA[i] + U * u / D")],
     {"aba-inward-pa": M09.PA_NO_C}),
    ("aba09", [("answer-inward", "pa = pA[i] + Ia @ c[i] + U * u / D", "pa = pA[i] + Ia @ c[i]")],
     {"aba-inward-pa": M09.PA_NO_U}),
    ("aba09", [("answer-inward", "u = tau[i] - S[i] @ pA[i]", "u = tau[i] + S[i] @ pA[i]")],
     {"aba-inward-pa": M09.PA_U_SIGN}),
    ("aba09", [("answer-inward", "pA[i - 1] += X[i].T @ pa", "pA[i - 1] += X[i] @ pa")],
     {"aba-inward-pa": M09.PA_NOT_TRANSPOSED}),
    ("aba09", [("answer-aba", "a_prev[LIN] = -g", "a_prev[LIN] = g")],
     {"aba-full-chain": M09.ABA_GRAVITY_SIGN, "aba-full-identities": M09.ABA_GRAVITY_SIGN}),
    ("aba09", [("answer-aba", "g = model.gravity if gravity is None else", "g = np.zeros(3) if gravity is None else")],
     {"aba-full-chain": M09.ABA_NONE_IS_ZERO, "aba-full-identities": M09.ABA_NONE_IS_ZERO}),
    ("aba09", [("answer-aba", "c[i] = se3.ad(v[i]) @ S[i] * qd[i]", "c[i] = 0 * S[i]")],
     {"aba-full-chain": M09.ABA_NO_PRODUCT, "aba-full-identities": M09.ABA_NO_PRODUCT}),
    ("aba09", [("answer-aba", "c[i] = se3.ad(v[i]) @ S[i] * qd[i]", "c[i] = se3.ad(S[i] * qd[i]) @ v[i]")],
     {"aba-full-chain": M09.ABA_PRODUCT_SWAPPED, "aba-full-identities": M09.ABA_PRODUCT_SWAPPED}),
    ("aba09", [("answer-aba", "p = np.array([se3.ad_dual(v[i]) @ I[i] @ v[i] for i in range(n)])", "p = np.zeros((n, 6))")],
     {"aba-full-chain": M09.ABA_NO_GYRO, "aba-full-identities": M09.ABA_NO_GYRO}),
    ("aba09", [("answer-slope", "float(np.exp(log_a))", "float(log_a)")],
     {"aba-slope-power": M09.FIT_INTERCEPT, "aba-slope-measured": M09.FIT_INTERCEPT}),
    ("aba09", [("answer-slope", "np.polyfit(np.log(n), np.log(t), 1)", "np.polyfit(np.log10(n), np.log10(t), 1)")],
     {"aba-slope-power": M09.FIT_MIXED_LOGS, "aba-slope-measured": M09.FIT_MIXED_LOGS}),
    ("aba09", [("answer-slope", "p, log_a = np.polyfit(np.log(n), np.log(t), 1)",
                "x, y = np.log(n), np.log(t)\n    p = (y[-1] - y[0]) / (x[-1] - x[0])\n    log_a = y[0] - p * x[0]")],
     {"aba-slope-measured": M09.FIT_END_POINTS}),
]
