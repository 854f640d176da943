"""Student bugs of exercise 04 (lagrange04): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import lagrange04 as M04

SKATER_L = "return float(_L_spin(q[0], q[1], qd[0], qd[1], 0.0, 0.0, skater[\"I\"], skater[\"m\"]))"
SKATER_TAU = ("return np.array(_tau_skater(q[0], q[1], qd[0], qd[1], qdd[0], qdd[1], skater[\"I\"], skater[\"m\"]), "
              "dtype=float)")


def skater_by_hand(coriolis, centrifugal):
    """``skater_torques`` typed in by hand, with the Coriolis term of τ₁ and the centrifugal term of τ₂ given."""
    return (f'I, m, r = skater["I"], skater["m"], q[1]\n    return np.array([(I + m * r * r) * qdd[0] + {coriolis}, '
            f'm * qdd[1] {centrifugal}])')


CASES = [
    ("lagrange04", [("answer-dh", "P_dh = -(m1 * g_vec.dot", "P_dh = (m1 * g_vec.dot")],
     {"lagrange-dh-potential": M04.P_SIGN, "lagrange-dh-gravity": M04.G_SIGN}),
    ("lagrange04", [("answer-dh", "sp.Matrix([lc1 - l1, 0, 0, 1])", "sp.Matrix([lc1, 0, 0, 1])"),
                    ("answer-dh", "sp.Matrix([lc2 - l2, 0, 0, 1])", "sp.Matrix([lc2, 0, 0, 1])")],
     {"lagrange-dh-potential": M04.P_AT_JOINT, "lagrange-dh-gravity": M04.G_AT_JOINT}),
    ("lagrange04", [("answer-dh", "sp.Matrix([lc1 - l1, 0, 0, 1])", "sp.Matrix([-l1 / 2, 0, 0, 1])"),
                    ("answer-dh", "sp.Matrix([lc2 - l2, 0, 0, 1])", "sp.Matrix([-l2 / 2, 0, 0, 1])")],
     {"lagrange-dh-potential": M04.P_MIDPOINT, "lagrange-dh-gravity": M04.G_MIDPOINT}),
    ("lagrange04", [("answer-dh", "T_02 = T_01 * dh_matrix(l2, 0, 0, q2)", "T_02 = dh_matrix(l2, 0, 0, q2)")],
     {"lagrange-dh-potential": M04.P_NOT_CHAINED}),
    ("lagrange04", [("answer-dh", "g_vec = sp.Matrix([gx, gy, gz])",
                     "g_vec = sp.Matrix([0, -sp.sqrt(gx**2 + gy**2 + gz**2), 0])")],
     {"lagrange-dh-potential": M04.P_DOWN_Y, "lagrange-dh-gravity": M04.G_DOWN_Y}),
    ("lagrange04", [("answer-skater", "L_spin = plain(T_skater.diff(theta_t.diff(t)))", "L_spin = plain(T_skater)")],
     {"lagrange-skater-momentum": M04.L_ENERGY}),
    ("lagrange04", [("answer-skater", SKATER_L, 'return float(skater["I"] * qd[0])')],
     {"lagrange-skater-momentum": M04.L_HUB_ONLY}),
    ("lagrange04", [("answer-skater", SKATER_L, 'return float(skater["m"] * q[1] ** 2 * qd[0])')],
     {"lagrange-skater-momentum": M04.L_MASS_ONLY}),
    ("lagrange04", [("answer-skater", SKATER_TAU, skater_by_hand("m * r * qd[1] * qd[0]", "- m * r * qd[0] ** 2"))],
     {"lagrange-skater-torques": M04.T_CORIOLIS_ONCE}),
    ("lagrange04", [("answer-skater", SKATER_TAU, skater_by_hand("0.0", "- m * r * qd[0] ** 2"))],
     {"lagrange-skater-torques": M04.T_NO_CORIOLIS}),
    ("lagrange04", [("answer-skater", "T_skater.diff(x.diff(t)).diff(t) - T_skater.diff(x)",
                     "T_skater.diff(x.diff(t)).diff(t) + T_skater.diff(x)")],
     {"lagrange-skater-torques": M04.T_CENTRIFUGAL_SIGN}),
    ("lagrange04", [("answer-skater", "T_skater.diff(x.diff(t)).diff(t) - T_skater.diff(x)",
                     "T_skater.diff(x.diff(t)).diff(t)")],
     {"lagrange-skater-torques": M04.T_NO_CENTRIFUGAL}),
]
