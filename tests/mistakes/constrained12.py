"""Student bugs of exercise 12 (constrained12): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import constrained12 as M12

CASES = [
    ("constrained12", [("answer-jacobian", "theta2, theta3, theta4 = q[0], q[0] + q[1], q[2]",
                        "theta2, theta3, theta4 = q[0], q[1], q[2]")], {"fourbar-jacobian": M12.G_Q1_ABSOLUTE}),
    ("constrained12", [("answer-jacobian", "L2 * d(theta2) + L3 * d(theta3), L3", "L2 * d(theta2), L3")],
     {"fourbar-jacobian": M12.G_CRANK_ONLY}),
    ("constrained12", [("answer-jacobian", "return np.column_stack([", "return -np.column_stack([")],
     {"fourbar-jacobian": M12.G_SIGN}),
    ("constrained12", [("answer-jacobian", "    return np.column_stack([", "    G = np.column_stack(["),
                       ("answer-jacobian", "-L4 * d(theta4)])",
                        "-L4 * d(theta4)])\n    c, s = np.cos(theta3), np.sin(theta3)\n"
                        "    return np.array([[c, s], [-s, c]]) @ G")],
     {"fourbar-jacobian": M12.G_LOCAL_AXES}),
    ("constrained12", [("answer-noc", "N[dependent, :] = -np.linalg.solve", "N[dependent, :] = np.linalg.solve")],
     {"fourbar-noc": M12.NOC_SIGN}),
    ("constrained12", [("answer-noc", "    N[independent, :] = np.eye(len(independent))\n"
                        "    N[dependent, :] = -np.linalg.solve(G[:, dependent], G[:, independent])\n    return N",
                        "    return np.vstack([np.eye(len(independent)), "
                        "-np.linalg.solve(G[:, dependent], G[:, independent])])")],
     {"fourbar-noc": M12.NOC_NOT_REORDERED}),
    ("constrained12", [("answer-noc", "-np.linalg.solve(G[:, dependent], G[:, independent])",
                        "-np.linalg.inv(G[:, dependent]) @ G[:, independent]")],
     {"fourbar-noc": M12.NOC_INVERSE}),
    ("constrained12", [("answer-gamma", "    return L2 * qd[0] ** 2 * e(q[0]) + L3 * w3 ** 2 * e(q[0] + q[1]) - L4 * qd[2] ** 2 * e(q[2])",
                        "    return -(L2 * qd[0] ** 2 * e(q[0]) + L3 * w3 ** 2 * e(q[0] + q[1]) - L4 * qd[2] ** 2 * e(q[2]))")],
     {"fourbar-gamma": M12.GAMMA_SIGN}),
("constrained12", [("answer-gamma", "w3 = qd[0] + qd[1]", "w3 = qd[1]")], {"fourbar-gamma": M12.GAMMA_COUPLER_RATE}),
    ("constrained12", [("answer-gamma", "    return L2 * qd[0] ** 2",
                        "    c, s = np.cos(q[0] + q[1]), np.sin(q[0] + q[1])\n    return np.array([[c, s], [-s, c]]) @ (L2 * qd[0] ** 2"),
                       ("answer-gamma", "- L4 * qd[2] ** 2 * e(q[2])", "- L4 * qd[2] ** 2 * e(q[2]))")],
     {"fourbar-gamma": M12.GAMMA_LOCAL_AXES}),
    ("constrained12", [("answer-crank-torque",
                        "    qdd[1:] += np.linalg.solve(G[:, 1:], four_bar_gamma(q, qd, FOUR_BAR.lengths))\n", "")],
     {"fourbar-crank-torque": M12.CT_GAMMA_DROPPED}),
    ("constrained12", [("answer-crank-torque", "qdd[1:] += np.linalg.solve", "qdd[1:] -= np.linalg.solve")],
     {"fourbar-crank-torque": M12.CT_GAMMA_SIGN}),
    ("constrained12", [("answer-crank-torque", "bias_forces(TREE, q, qd)", "bias_forces(TREE, q, 0 * qd)")],
     {"fourbar-crank-torque": M12.CT_NO_VELOCITY}),
    ("constrained12", [("answer-redistribute", "np.linalg.solve(A.T, sum(", "np.linalg.solve(A, sum(")],
     {"fivebar-power": M12.RD_A_NOT_TRANSPOSED}),
    ("constrained12", [("answer-redistribute", "np.linalg.solve(J_k.T, t_k)", "np.linalg.solve(J_k, t_k)")],
     {"fivebar-power": M12.RD_J_NOT_TRANSPOSED}),
    ("constrained12", [("answer-redistribute", "np.linalg.inv(J_k)[a]", "np.linalg.inv(J_k)[:, a]")],
     {"fivebar-power": M12.RD_COLUMN}),
    ("constrained12", [("answer-contact-solve", "return qdd_free + Minv_G * force, float(force)",
                        "return qdd_free + Minv_G * force, -float(force)")], {"contact-solve": M12.C_FORCE_SIGN}),
    ("constrained12", [("answer-contact-solve", "gamma = -nu @ Jdot_qd", "gamma = 0.0")],
     {"contact-solve": M12.C_NO_JDOT}),
    ("constrained12", [("answer-contact-solve", "return qdd_free + Minv_G * force,", "return qdd_free - Minv_G * force,")],
     {"contact-solve": M12.C_WRONG_SIDE}),
    ("constrained12", [("answer-contact-solve", "float(force)", "force * nu")], {"contact-solve": M12.C_WORLD_VECTOR}),
    ("constrained12", [("answer-contact-solve", "return qdd_free + Minv_G * force, float(force)",
                        "return qdd_free, float(force)")], {"contact-solve": M12.C_FREE}),
    ("constrained12", [("answer-contact-solve", "nu = np.asarray(normal, dtype=float) / np.linalg.norm(normal)",
                        "nu = np.asarray(normal, dtype=float)")], {"contact-solve": M12.C_NOT_NORMALISED}),
]
