"""Student bugs of exercise 04 (lagrange04): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import lagrange04 as M04

SKATER_L = "return float(_L_spin(q[0], q[1], qd[0], qd[1], 0.0, 0.0, skater[\"I\"], skater[\"m\"]))"
SKATER_TAU = ("return np.array(_tau_skater(q[0], q[1], qd[0], qd[1], qdd[0], qdd[1], skater[\"I\"], skater[\"m\"]), "
              "dtype=float)")


PENDULUM_L = "L_pendulum = (I_c + m * ell**2) * q_t.diff(t) ** 2 / 2 - m * g0 * ell * (1 - sp.cos(q_t))"
KINETIC = "T_kin = (m1 * v_c1.dot(v_c1) + m2 * v_c2.dot(v_c2) + I1 * qd1**2 + I2 * (qd1 + qd2) ** 2) / 2"
CHRISTOFFEL = "(M_sym[i, j].diff(qs[k]) + M_sym[i, k].diff(qs[j]) - M_sym[j, k].diff(qs[i])) / 2 * qds[k]"
MASS_AND_GRAVITY = ("lagrange-mass-db4", "lagrange-mass-random", "lagrange-gravity-random")   # [DB4]'s g names neither
CORIOLIS = ("lagrange-coriolis-cqd", "lagrange-coriolis-skew")
FRAMES = ("lagrange-frames-platform", "lagrange-frames-general")
CENTRIPETAL = "np.cross(omega, np.cross(omega, p_rel))"


def skater_by_hand(coriolis, centrifugal):
    """``skater_torques`` typed in by hand, with the Coriolis term of τ₁ and the centrifugal term of τ₂ given."""
    return (f'I, m, r = skater["I"], skater["m"], q[1]\n    return np.array([(I + m * r * r) * qdd[0] + {coriolis}, '
            f'm * qdd[1] {centrifugal}])')


CASES = [
    ("lagrange04", [("answer-pendulum", "/ 2 - m * g0", "/ 2 + m * g0")],                     # ℒ = K + U
     {"lagrange-pendulum-static": M04.PENDULUM_SIGN, "lagrange-pendulum-dynamic": M04.PENDULUM_SIGN}),
    ("lagrange04", [("answer-pendulum", "(1 - sp.cos(q_t))", "sp.sin(q_t)")],                 # q from the horizontal
     {"lagrange-pendulum-static": M04.PENDULUM_COS, "lagrange-pendulum-dynamic": M04.PENDULUM_COS}),
    ("lagrange04", [("answer-pendulum", PENDULUM_L, "L_pendulum = (I_c + m * (ell / 2)**2) * q_t.diff(t) ** 2 / 2 "
                                                    "- m * g0 * (ell / 2) * (1 - sp.cos(q_t))")],
     {"lagrange-pendulum-static": M04.PENDULUM_HALF_WEIGHT, "lagrange-pendulum-dynamic": M04.PENDULUM_HALF}),
    ("lagrange04", [("answer-pendulum", "(I_c + m * ell**2) * q_t", "I_c * q_t")],
     {"lagrange-pendulum-dynamic": M04.PENDULUM_NO_PARALLEL}),
    ("lagrange04", [("answer-pendulum", "(I_c + m * ell**2) * q_t", "m * ell**2 * q_t")],
     {"lagrange-pendulum-dynamic": M04.PENDULUM_POINT_MASS}),
    ("lagrange04", [("answer-pendulum", "L_pendulum.diff(q_t.diff(t)).diff(t)", "L_pendulum.diff(q_t.diff(t))")],
     {"lagrange-pendulum-dynamic": M04.PENDULUM_NOT_DIFFERENTIATED}),
    ("lagrange04", [("answer-mass", KINETIC, "T_kin = (m1 * v_c1.dot(v_c1) + m2 * v_c2.dot(v_c2)) / 2")],
     {"lagrange-mass-db4": M04.MASS_NO_ROTATION, "lagrange-mass-random": M04.MASS_NO_ROTATION}),
    ("lagrange04", [("answer-mass", "I2 * (qd1 + qd2) ** 2", "I2 * qd2 ** 2")],
     {"lagrange-mass-db4": M04.MASS_OMEGA2, "lagrange-mass-random": M04.MASS_OMEGA2}),
    ("lagrange04", [("answer-mass", KINETIC, KINETIC.replace("T_kin = (", "T_kin = ").replace(" ** 2) / 2", " ** 2"))],
     {"lagrange-mass-db4": M04.MASS_NO_HALF, "lagrange-mass-random": M04.MASS_NO_HALF}),
    ("lagrange04", [("answer-mass", "l1 * sp.cos(q1) + lc2", "lc1 * sp.cos(q1) + lc2"),        # (c) reuses p_c2
                    ("answer-mass", "l1 * sp.sin(q1) + lc2", "lc1 * sp.sin(q1) + lc2")],
     dict(zip(MASS_AND_GRAVITY, [M04.MASS_ELBOW_AT_LC1] * 2 + [M04.GRAVITY_ELBOW_AT_LC1]))),
    ("lagrange04", [("answer-mass", "lc2 * sp.cos(q1 + q2)", "lc2 * sp.cos(q2)"),
                    ("answer-mass", "lc2 * sp.sin(q1 + q2)", "lc2 * sp.sin(q2)")],
     dict(zip(MASS_AND_GRAVITY, [M04.MASS_ABSOLUTE_Q2] * 2 + [M04.GRAVITY_ABSOLUTE_Q2]))),
    ("lagrange04", [("answer-gravity", "U_pot = g0 *", "U_pot = -g0 *")],
     {"lagrange-gravity-db4": M04.GRAVITY_SIGN, "lagrange-gravity-random": M04.GRAVITY_SIGN}),
    ("lagrange04", [("answer-gravity", "m1 * p_c1[1] + m2 * p_c2[1]", "m1 * p_c1[0] + m2 * p_c2[0]")],
     {"lagrange-gravity-db4": M04.GRAVITY_X, "lagrange-gravity-random": M04.GRAVITY_X}),
    ("lagrange04", [("answer-coriolis", CHRISTOFFEL, CHRISTOFFEL.replace(" / 2", ""))],
     dict.fromkeys(CORIOLIS, M04.C_NO_HALF)),
    ("lagrange04", [("answer-coriolis", CHRISTOFFEL, CHRISTOFFEL.replace("- M_sym[j, k]", "+ M_sym[j, k]"))],
     dict.fromkeys(CORIOLIS, M04.C_THIRD_SIGN)),
    ("lagrange04", [("answer-coriolis", CHRISTOFFEL, CHRISTOFFEL.replace("qds[k]", "qds[j]"))],
     dict.fromkeys(CORIOLIS, M04.C_VELOCITY_INDEX)),
    ("lagrange04", [("answer-coriolis", "sp.Matrix(2, 2, lambda i, j:", "sp.Matrix(2, 2, lambda j, i:")],
     dict.fromkeys(CORIOLIS, M04.C_TRANSPOSED)),
    ("lagrange04", [("answer-coriolis", CHRISTOFFEL,                          # Ṁ q̇ − ½ ∂(q̇ᵀMq̇)/∂q, term by term
                     "(M_sym[i, j].diff(qs[k]) - M_sym[j, k].diff(qs[i]) / 2) * qds[k]")],
     {"lagrange-coriolis-skew": M04.C_NOT_CHRISTOFFEL}),
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
    # (g) moving frames: both checks where a slip shows in both, the general check alone for ω̇ and a_O
    ("lagrange04", [("answer-frames", "coriolis = 2 * np.cross(omega, v_rel)", "coriolis = np.cross(omega, v_rel)")],
     dict.fromkeys(FRAMES, M04.F_CORIOLIS_ONCE)),
    ("lagrange04", [("answer-frames", "coriolis = 2 * np.cross(omega, v_rel)", "coriolis = 2 * np.cross(v_rel, omega)")],
     {"lagrange-frames-platform": M04.F_CORIOLIS_SIGN}),
    ("lagrange04", [("answer-frames", CENTRIPETAL, "np.cross(np.cross(omega, p_rel), omega)")],
     dict.fromkeys(FRAMES, M04.F_CENTRIPETAL_SIGN)),
    ("lagrange04", [("answer-frames", CENTRIPETAL, "np.cross(np.cross(omega, omega), p_rel)")],
     {"lagrange-frames-platform": M04.F_NO_CENTRIPETAL}),
    ("lagrange04", [("answer-frames", "return transport + coriolis + a_rel", "return transport + coriolis - a_rel")],
     {"lagrange-frames-platform": M04.F_RELATIVE_SIGN}),
    ("lagrange04", [("answer-frames", "a_origin + np.cross(omega_dot, p_rel) + ", "a_origin + ")],
     {"lagrange-frames-general": M04.F_NO_EULER}),
    ("lagrange04", [("answer-frames", "np.cross(omega_dot, p_rel)", "np.cross(p_rel, omega_dot)")],
     {"lagrange-frames-general": M04.F_EULER_SIGN}),
    ("lagrange04", [("answer-frames", "transport = a_origin + ", "transport = ")],
     {"lagrange-frames-general": M04.F_NO_ORIGIN}),
]
