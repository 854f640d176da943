"""Student bugs of exercise 01 (lie_groups01): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import lie_groups01 as M01

HV, EXP, LOG, AX = "answer-hat-vee", "answer-exp", "answer-log", "answer-axioms"
RODRIGUES = "np.sin(theta) / theta * K + (1.0 - np.cos(theta)) / theta**2 * K @ K"
#: The textbook's log (lesson 01 (1.8)) with θ = 0 handled, written before the solution's own lines.
TEXTBOOK_LOG = ("    theta = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))\n"
                "    if theta < 1e-12:\n        return np.zeros(3)\n"
                "    return theta / (2 * np.sin(theta)) * vee(R - R.T)\n")
SEARCH_INVERSE = "all(any(same(A @ B, units[0]) and same(B @ A, units[0]) for B in S) for A in S)"

CASES = [
    ("lie_groups01", [(HV, "[[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]]", "[[0.0, z, -y], [-z, 0.0, x], [y, -x, 0.0]]")],
     {"lie-hat": M01.HAT_NEGATED, "lie-exp": M01.EXP_BACKWARDS, "lie-exp-edges": M01.EXP_BACKWARDS}),
    ("lie_groups01", [(HV, "np.array([W[2, 1], W[0, 2], W[1, 0]])", "np.array([W[1, 2], W[2, 0], W[0, 1]])")],
     {"lie-vee": M01.VEE_TRANSPOSED, "lie-log": M01.LOG_NEGATED}),
    ("lie_groups01", [(HV, "np.array([W[2, 1], W[0, 2], W[1, 0]])", "np.array([W[2, 1], W[2, 0], W[1, 0]])")],
     {"lie-vee": M01.VEE_BELOW}),
    ("lie_groups01", [(EXP, RODRIGUES, "(1.0 - np.cos(theta)) / theta**2 * K + np.sin(theta) / theta * K @ K")],
     {"lie-exp": M01.EXP_SWAPPED, "lie-exp-edges": M01.EXP_SWAPPED}),
    ("lie_groups01", [(EXP, "(1.0 - np.cos(theta)) / theta**2 * K @ K", "(1.0 - np.cos(theta)) / theta * K @ K")],
     {"lie-exp": M01.EXP_THETA_NOT_SQUARED, "lie-exp-edges": M01.EXP_THETA_NOT_SQUARED}),
    ("lie_groups01", [(EXP, RODRIGUES, "np.sin(theta) * K + (1.0 - np.cos(theta)) * K @ K")],
     {"lie-exp": M01.EXP_UNIT_AXIS_FORM, "lie-exp-edges": M01.EXP_UNIT_AXIS_FORM}),
    ("lie_groups01", [(EXP, "theta**2 * K @ K", "theta**2 * K**2")],
     {"lie-exp": M01.EXP_ENTRYWISE_SQUARE, "lie-exp-edges": M01.EXP_ENTRYWISE_SQUARE}),
    ("lie_groups01", [(EXP, "return np.eye(3) + np.sin(theta)", "return np.eye(3) - np.sin(theta)")],
     {"lie-exp": M01.EXP_BACKWARDS, "lie-exp-edges": M01.EXP_BACKWARDS}),
    ("lie_groups01", [(EXP, "    if theta < 1e-8:", "    if False:")],
     {"lie-exp-edges": M01.EXP_ZERO_DIVIDES}),
    ("lie_groups01", [(LOG, "    if theta < 1e-8:\n        return w", "    if False:\n        return w")],
     {"lie-log": M01.LOG_ZERO_DIVIDES}),
    ("lie_groups01", [(LOG, "w = vee(R - R.T) / 2.0", "w = vee(R.T - R) / 2.0")],
     {"lie-log": M01.LOG_NEGATED}),
    ("lie_groups01", [(LOG, "return theta / s * w", "return w / s"),
                      (LOG, "return theta * (-u if u @ w < 0 else u)", "return -u if u @ w < 0 else u")],
     {"lie-log": M01.LOG_AXIS_ALONE}),
    ("lie_groups01", [(LOG, "    R = np.asarray(R, dtype=float)\n", "    R = np.asarray(R, dtype=float)\n" + TEXTBOOK_LOG)],
     {"lie-log-pi": M01.LOG_PI_SKEW_ONLY}),
    ("lie_groups01", [(LOG, "if c > -0.5:", "if True:")],
     {"lie-log-pi": M01.LOG_PI_NAN}),
    ("lie_groups01", [(LOG, "return theta * (-u if u @ w < 0 else u)", "return theta * u")],
     {"lie-log-pi": M01.LOG_PI_AXIS_SIGN}),
    ("lie_groups01", [(LOG, "S = (R + R.T) / 2.0 - c * np.eye(3)", "S = R + np.eye(3)")],
     {"lie-log-pi": M01.LOG_PI_R_PLUS_I}),
    ("lie_groups01", [(AX, "np.abs(A - B).max() <= tol", "np.array_equal(A, B)")],
     {"lie-axioms-closure": M01.AXIOMS_EXACT, "lie-axioms-inverse": M01.AXIOMS_EXACT}),
    ("lie_groups01", [(AX, "closure = all(member(A @ B) for A in S for B in S)",
                       "closure = all(member(S[i] @ S[j]) for i in range(len(S)) for j in range(len(S)) if i != j)")],
     {"lie-axioms-closure": M01.CLOSURE_NO_SQUARES}),
    ("lie_groups01", [(AX, "units = [E for E in S if all(same(E @ A, A) and same(A @ E, A) for A in S)]",
                       "units = [np.eye(S.shape[1])] if member(np.eye(S.shape[1])) else []")],
     {"lie-axioms-closure": M01.IDENTITY_IS_I}),
    ("lie_groups01", [(AX, SEARCH_INVERSE, SEARCH_INVERSE.replace("units[0]", "np.eye(len(A))"))],
     {"lie-axioms-inverse": M01.INVERSE_AGAINST_I}),
    ("lie_groups01", [(AX, SEARCH_INVERSE, "all(member(A.T) for A in S)")],
     {"lie-axioms-inverse": M01.INVERSE_TRANSPOSE}),
]
