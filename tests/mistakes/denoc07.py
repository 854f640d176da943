"""Student bugs of exercise 07 (denoc07): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import denoc07 as M07

CASES = [
    ("denoc07", [("answer-blocks", "A[LIN, ANG] = -so3.hat", "A[LIN, ANG] = so3.hat")],
     {"denoc-twist-prop": M07.TP_SIGN}),
    ("denoc07", [("answer-blocks", "A[LIN, ANG] = -so3.hat", "A[ANG, LIN] = so3.hat")],
     {"denoc-twist-prop": M07.TP_ABOVE}),
    ("denoc07", [("answer-blocks", "lever = np.asarray(O, dtype=float) - np.asarray(r, dtype=float)",
                  "lever = np.asarray(r, dtype=float) - np.asarray(O, dtype=float)")],
     {"denoc-joint-rate": M07.LEVER_REVERSED}),
    ("denoc07", [("answer-blocks", "np.concatenate([e, np.cross(e, lever)])", "np.concatenate([e, np.zeros(3)])")],
     {"denoc-joint-rate": M07.NO_LEVER}),
    ("denoc07", [("answer-blocks", "return np.concatenate([np.zeros(3), e])", "return np.concatenate([e, np.zeros(3)])")],
     {"denoc-joint-rate": M07.PRISMATIC_TURNS}),
    ("denoc07", [("answer-n", "R @ joint.axis, O[k] + R @ joint.point, O[k]", "joint.axis, joint.point, O[k]")],
     {"denoc-nd": M07.ND_LOCAL_AXES}),
    ("denoc07", [("answer-n", "O[k] + R @ joint.point, O[k])", "O[k] + R @ joint.point, np.zeros(3))")],
     {"denoc-nd": M07.ND_WORLD_ORIGIN}),
    ("denoc07", [("answer-n", "twist_propagation(O[k] - O[j])", "twist_propagation(O[j] - O[k])")],
     {"denoc-nl": M07.NL_SIGN}),
    ("denoc07", [("answer-n", "for j in range(k + 1):", "for j in range(max(k - 1, 0), k + 1):")],
     {"denoc-nl": M07.NL_BIDIAGONAL}),
    ("denoc07", [("answer-n", "N_l[rows, 6 * j:6 * j + 6] =", "N_l[6 * j:6 * j + 6, rows] =")],
     {"denoc-nl": M07.NL_ABOVE}),
    ("denoc07", [("answer-inertia", "turn @ model.inertia[k] @ turn.T", "model.inertia[k]")],
     {"denoc-nmn": M07.GI_BODY_AXES, "denoc-nmn-swc16": M07.GI_BODY_AXES}),
    ("denoc07", [("answer-inertia", "turn @ model.inertia[k] @ turn.T", "turn.T @ model.inertia[k] @ turn")],
     {"denoc-nmn": M07.GI_TURNED_BACK, "denoc-nmn-swc16": M07.GI_TURNED_BACK}),
    ("denoc07", [("answer-inertia", "N = N_l @ N_d", "N = N_d")],
     {"denoc-nmn": M07.GI_NO_NL, "denoc-nmn-swc16": M07.GI_NO_NL}),
    ("denoc07", [("answer-denoc", " + A_dot @ t_in", "")],
     {"denoc-tau-chain": M07.TAU_NO_ADOT, "denoc-tau-swc16": M07.TAU_NO_ADOT}),
    ("denoc07", [("answer-denoc", " + W @ p[k] * qd[k]", "")],
     {"denoc-tau-chain": M07.TAU_NO_WP, "denoc-tau-swc16": M07.TAU_NO_WP}),
    ("denoc07", [("answer-denoc", "W @ M_k @ E @ t", "W @ M_k @ t")],
     {"denoc-tau-chain": M07.TAU_NO_E, "denoc-tau-swc16": M07.TAU_NO_E}),
    ("denoc07", [("answer-denoc", "np.concatenate([np.zeros(3), -g])", "np.concatenate([np.zeros(3), g])")],
     {"denoc-tau-chain": M07.TAU_GRAVITY_SIGN, "denoc-tau-swc16": M07.TAU_GRAVITY_SIGN,
      "denoc-tau-identities": M07.TAU_GRAVITY_SIGN}),
    ("denoc07", [("answer-denoc", "g = model.gravity if gravity is None else", "g = np.zeros(3) if gravity is None else")],
     {"denoc-tau-chain": M07.TAU_NONE_IS_ZERO, "denoc-tau-swc16": M07.TAU_NONE_IS_ZERO}),
    ("denoc07", [("answer-denoc", "A[k].T @ w[k]", "A[k] @ w[k]")],
     {"denoc-tau-chain": M07.TAU_A_NOT_TRANSPOSED, "denoc-tau-swc16": M07.TAU_A_NOT_TRANSPOSED,
      "denoc-tau-identities": M07.TAU_A_NOT_TRANSPOSED}),
    ("denoc07", [("answer-denoc", "M_k = turn @ model.inertia[k] @ turn.T", "M_k = model.inertia[k]")],
     {"denoc-tau-chain": M07.TAU_BODY_AXES, "denoc-tau-swc16": M07.TAU_BODY_AXES,
      "denoc-tau-identities": M07.TAU_BODY_AXES}),
]
