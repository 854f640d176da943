"""Student bugs of exercise 10 (simulation10): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import simulation10 as M10

WEIGHTED = "{x} + dt / 6 * (s1[{i}] + 2 * s2[{i}] + 2 * s3[{i}] + s4[{i}])"
STAGE2 = "s2 = x_dot(q + dt / 2 * s1[0], qd + dt / 2 * s1[1])"
STAGE3 = "s3 = x_dot(q + dt / 2 * s2[0], qd + dt / 2 * s2[1])"
STAGE4 = "s4 = x_dot(q + dt * s3[0], qd + dt * s3[1])"
RK4 = ("sim-rk4", "sim-rk4-order")
DRIFT = ("sim-drift-euler", "sim-drift-integrators")
STRIBECK = ("sim-stribeck", "sim-stribeck-limits")
TAU_F = "return level * direction + b * qd"

CASES = [
    ("simulation10", [("answer-semi-implicit", "return q + dt * qd_next, qd_next", "return q + dt * qd, qd_next")],
     {"sim-semi-implicit": M10.EXPLICIT_EULER}),
    ("simulation10", [("answer-semi-implicit", "aba(model, q, qd, tau, gravity=gravity)", "aba(model, q, qd, tau)")],
     {"sim-semi-implicit": M10.SEMI_GRAVITY_DROPPED}),
    ("simulation10", [("answer-rk4", WEIGHTED.format(x=x, i=i), WEIGHTED.format(x=x, i=i).replace("2 * ", ""))
                      for i, x in enumerate(("q", "qd"))],
     dict.fromkeys(RK4, M10.RK4_WEIGHTS)),
    ("simulation10", [("answer-rk4", STAGE2, STAGE2.replace("dt / 2", "dt")),
                      ("answer-rk4", STAGE3, STAGE3.replace("dt / 2", "dt"))],
     dict.fromkeys(RK4, M10.RK4_FULL_MIDDLE)),
    ("simulation10", [("answer-rk4", STAGE4, STAGE4.replace("dt *", "dt / 2 *"))],     # s3's line copied
     dict.fromkeys(RK4, M10.RK4_HALF_LAST)),
    ("simulation10", [("answer-rk4", STAGE3, STAGE2.replace("s2 =", "s3 ="))],          # s2's line copied
     dict.fromkeys(RK4, M10.RK4_STALE)),
    ("simulation10", [("answer-rk4", "aba(model, q, qd, tau, gravity=gravity)", "aba(model, q, qd, tau)")],
     {"sim-rk4": M10.RK4_GRAVITY_DROPPED}),
    ("simulation10", [("answer-drift", "q, qd = q + dt * qd, qd + dt * aba(model, q, qd, tau)",
                       "q = q + dt * qd\n            qd = qd + dt * aba(model, q, qd, tau)")],
     dict.fromkeys(DRIFT, M10.EULER_SEQUENTIAL)),
    ("simulation10", [("answer-drift", "return np.array(E) - E[0]", "return np.abs(np.array(E) - E[0])")],
     {"sim-drift-integrators": M10.DRIFT_ABS}),
    ("simulation10", [("answer-drift", "return np.array(E) - E[0]", "return (np.array(E) - E[0]) / E[0]")],
     dict.fromkeys(DRIFT, M10.DRIFT_RELATIVE)),
    ("simulation10", [("answer-drift", 'if integrator == "euler":', "if True:")],
     {"sim-drift-integrators": M10.DRIFT_ONLY_EULER}),
    ("simulation10", [("answer-stribeck", TAU_F, "return level + b * qd")],
     dict.fromkeys(STRIBECK, M10.STRIBECK_NO_DIRECTION)),
    ("simulation10", [("answer-stribeck", TAU_F, "return level * direction")],
     dict.fromkeys(STRIBECK, M10.STRIBECK_NO_VISCOUS)),
    ("simulation10", [("answer-stribeck", TAU_F, "return -(level * direction + b * qd)")],    # the force on the joint
     dict.fromkeys(STRIBECK, M10.STRIBECK_OPPOSING)),
    ("simulation10", [("answer-stribeck", "level = fc + (fs - fc)", "level = fs + (fc - fs)")],
     dict.fromkeys(STRIBECK, M10.STRIBECK_SWAPPED)),
    ("simulation10", [("answer-stribeck", "** delta)", "** 2)")],
     {"sim-stribeck": M10.STRIBECK_DELTA_FIXED}),
    ("simulation10", [("answer-stribeck", "np.exp(-np.abs(qd / vs) ** delta)", "np.exp(-np.abs(qd / vs))")],
     {"sim-stribeck": M10.STRIBECK_NOT_RAISED}),
    ("simulation10", [("answer-stribeck", "np.exp(-np.abs(qd / vs) ** delta)", "np.exp(np.abs(qd / vs) ** delta)")],
     {"sim-stribeck": M10.STRIBECK_GROWING}),
    ("simulation10", [("answer-stribeck", "np.sign(qd) if eps == 0 else np.tanh(qd / eps)", "np.sign(qd)")],
     {"sim-stribeck": M10.STRIBECK_SIGN_ONLY}),
]
