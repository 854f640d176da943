"""Student bugs of exercise 06 (rnea_poe06): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import rnea_poe06 as M06

CF_A_BODY = ("            m = deeper(parent, i, j)\n            if m is not None:                        # otherwise no link "
             "moves with both joints\n                A[i, j] = s[i] @ N_bar[m] @ s[j]\n")


CASES = [
    ("rnea_poe06", [("answer-home", "pose = pose @ M_list[i]", "pose = M_list[i]")],
     {"poe-home-poses": M06.HOME_NOT_PRODUCT}),
    ("rnea_poe06", [("answer-home", "pose = pose @ M_list[i]", "pose = M_list[i] @ pose")],
     {"poe-home-poses": M06.HOME_REVERSED}),
    ("rnea_poe06", [("answer-home", "pose = pose @ M_list[i]", "pose = pose @ M_list[i + 1]")],
     {"poe-home-poses": M06.HOME_SHIFTED}),
    ("rnea_poe06", [("answer-home", "back = se3.Ad(se3.inv(pose))", "back = se3.Ad(pose)")],
     {"poe-home-inertias": M06.N0_FORWARD}),
    ("rnea_poe06", [("answer-home", "N0[i] = back.T @ G_list[i] @ back", "N0[i] = back @ G_list[i] @ back.T")],
     {"poe-home-inertias": M06.N0_OTHER_SIDE}),
    ("rnea_poe06", [("answer-home", "N0[i] = back.T @ G_list[i] @ back", "N0[i] = G_list[i]")],
     {"poe-home-inertias": M06.N0_NOT_PULLED}),
    ("rnea_poe06", [("answer-adjoint", "* theta))", "* -theta))")],
     {"poe-adjoint": M06.H_SIGN, "poe-adjoint-chain": M06.H_SIGN}),
    ("rnea_poe06", [("answer-adjoint", "* theta))", "* np.radians(theta)))")],
     {"poe-adjoint": M06.H_DEGREES, "poe-adjoint-chain": M06.H_DEGREES}),
    ("rnea_poe06", [("answer-adjoint", "return se3.Ad(se3.exp(np.asarray(s, dtype=float) * theta))",
                     "return np.eye(6) + theta * se3.ad(np.asarray(s, dtype=float))")],
     {"poe-adjoint": M06.H_FIRST_ORDER, "poe-adjoint-chain": M06.H_FIRST_ORDER}),
    ("rnea_poe06", [("answer-forward", "H_inv = joint_adjoint(S0[i], -q[i])", "H_inv = joint_adjoint(S0[i], q[i])")],
     {"poe-forward-v": M06.FWD_H, "poe-forward-a": M06.FWD_H}),
    ("rnea_poe06", [("answer-forward", "V[i] = qd[i] * S0[i] + H_inv @ V_in", "V[i] = qd[i] * S0[i]")],
     {"poe-forward-v": M06.FWD_NOT_CARRIED}),
    ("rnea_poe06", [("answer-forward", " + qd[i] * (se3.ad(V[i]) @ S0[i])", "")],
     {"poe-forward-a": M06.BRACKET_DROPPED, "poe-rnea-chain": M06.POE_NO_BRACKET,
      "poe-rnea-ur5": M06.POE_NO_BRACKET}),
    ("rnea_poe06", [("answer-forward", "se3.ad(V[i]) @ S0[i]", "se3.ad(S0[i]) @ V[i]")],
     {"poe-forward-a": M06.BRACKET_SWAPPED}),
    ("rnea_poe06", [("answer-forward", "Vd_in[LIN] = -np.asarray(gravity", "Vd_in[LIN] = np.asarray(gravity")],
     {"poe-forward-a": M06.FWD_GRAVITY_SIGN, "poe-rnea-chain": M06.POE_GRAVITY_SIGN,
      "poe-rnea-ur5": M06.POE_GRAVITY_SIGN, "poe-rnea-identities": M06.POE_GRAVITY_SIGN}),
    ("rnea_poe06", [("answer-rnea-poe", "joint_adjoint(S0[i], -q[i]).T @ P[i]", "joint_adjoint(S0[i], q[i]).T @ P[i]")],
     {"poe-rnea-chain": M06.BACK_H, "poe-rnea-ur5": M06.BACK_H, "poe-rnea-identities": M06.BACK_H}),
    ("rnea_poe06", [("answer-rnea-poe", "joint_adjoint(S0[i], -q[i]).T @ P[i]", "joint_adjoint(S0[i], -q[i]) @ P[i]")],
     {"poe-rnea-chain": M06.BACK_NOT_TRANSPOSED, "poe-rnea-ur5": M06.BACK_NOT_TRANSPOSED,
      "poe-rnea-identities": M06.BACK_NOT_TRANSPOSED}),
    ("rnea_poe06", [("answer-rnea-poe", "se3.ad_dual(V[i]) @ (N0[i] @ V[i])", "se3.ad(V[i]) @ (N0[i] @ V[i])")],
     {"poe-rnea-chain": M06.POE_GYRO_AD, "poe-rnea-ur5": M06.POE_GYRO_AD}),
    ("rnea_poe06", [("answer-closed-form", CF_A_BODY, "            A[i, j] = s[i] @ N_bar[i] @ s[j]\n")],
     {"poe-closed-a-chain": M06.A_ROW_ONLY, "poe-closed-a-tree": M06.A_ROW_ONLY}),
    ("rnea_poe06", [("answer-closed-form", "N_bar = carried_inertias(N, parent)\n    A = np.zeros((n, n))",
                     "N_bar = np.array(N, dtype=float)\n    A = np.zeros((n, n))")],
     {"poe-closed-a-chain": M06.A_OWN_LINK, "poe-closed-a-tree": M06.A_OWN_LINK}),
    ("rnea_poe06", [("answer-closed-form", "N_bar = carried_inertias(N, parent)\n    A = np.zeros((n, n))",
                     "N_bar = np.cumsum(np.asarray(N)[::-1], axis=0)[::-1]\n    A = np.zeros((n, n))"),
                    ("answer-closed-form", "m = deeper(parent, i, j)", "m = max(i, j)")],
     {"poe-closed-a-tree": M06.A_BY_INDEX}),
    ("rnea_poe06", [("answer-closed-form", "se3.ad(s[k]) @ s[l]", "se3.ad(s[l]) @ s[k]")],
     {"poe-closed-b": M06.B_BRACKET_ORDER}),
    ("rnea_poe06", [("answer-closed-form", "B[i, k, l] += s[i] @ N_bar[m] @ se3.ad(s[k]) @ s[l]", "pass")],
     {"poe-closed-b": M06.B_NO_FIRST}),
    ("rnea_poe06", [("answer-closed-form", "B[i, k, l] += s[k] @ N_bar[m] @ se3.ad(s[i]) @ s[l]", "pass")],
     {"poe-closed-b": M06.B_NO_SECOND}),
    ("rnea_poe06", [("answer-closed-form", "se3.ad(s[i]) @ s[l]", "se3.ad(s[l]) @ s[i]")],
     {"poe-closed-b": M06.B_SECOND_SWAPPED}),
    ("rnea_poe06", [("answer-closed-form", "N_bar = carried_inertias(N, parent)\n    B = np.zeros((n, n, n))",
                     "N_bar = np.cumsum(np.asarray(N)[::-1], axis=0)[::-1]\n    B = np.zeros((n, n, n))"),
                    ("answer-closed-form", "m = deeper(parent, i, l)", "m = max(i, l)"),
                    ("answer-closed-form", "deeper(parent, k, l) == l", "max(k, l) == l"),
                    ("answer-closed-form", "m = deeper(parent, m, k)", "m = max(m, k)")],
     {"poe-closed-b": M06.B_BY_INDEX}),
    ("rnea_poe06", [("answer-closed-form", "if k != l and deeper(parent, k, l) == l:", "if k < l:")],
     {"poe-closed-b": M06.B_FIRST_BY_INDEX}),
]
