"""Student bugs of exercise 11 (applications11): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises.applications11 import adaptive as M11_SL
from lessonlib.grading.checks.exercises.applications11 import control as M11_CONTROL
from lessonlib.grading.checks.exercises.applications11 import friction as M11_FRICTION
from lessonlib.grading.checks.exercises.applications11 import identification as M11_FIT
from lessonlib.grading.checks.exercises.applications11 import limits as M11_LIMITS
from lessonlib.grading.checks.exercises.applications11 import measurement as M11_MEAS
from lessonlib.grading.checks.exercises.applications11 import observer as M11_OBSERVER

LIMIT_CLIP = "return np.clip(tau, -np.asarray(tau_max), np.asarray(tau_max))"
CT_V = "v = qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q)"
CT_BIAS = "bias_forces(model, q, qd, gravity=gravity)"
FIT_LSTSQ = "np.linalg.lstsq(W, TAU.ravel(), rcond=None)[0]"
BUTTER = 'sos = signal.butter(4, cutoff, fs=fs, output="sos")'
CT_CHECKS = ("app-ct-law", "app-ct-closed-loop")


CASES = [
    ("applications11", [("answer-pd", "g = rnea(model, q, zero, zero, gravity=gravity)", "g = rnea(model, q, zero, zero)")],
     {"app-gravity-hold": M11_CONTROL.GRAVITY_NOT_PASSED, "app-pd-gravity": M11_CONTROL.GRAVITY_NOT_PASSED}),
    ("applications11", [("answer-ct", "Kd * (qd_d - qd) + Kp * (q_d - q)", "Kd * (qd - qd_d) + Kp * (q - q_d)")],
     dict.fromkeys(CT_CHECKS, M11_CONTROL.CT_ERROR_SIGN)),
    ("applications11", [("answer-ct", "Kd * (qd_d - qd)", "-Kd * qd")],
     dict.fromkeys(CT_CHECKS, M11_CONTROL.CT_DAMP_QD)),
    ("applications11", [("answer-ct", CT_V, "v = qdd_d"),
                        ("answer-ct", "crba(model, q) @ v +",
                         "crba(model, q) @ v + Kd * (qd_d - qd) + Kp * (q_d - q) +")],
     dict.fromkeys(CT_CHECKS, M11_CONTROL.CT_GAINS_OUTSIDE)),
    ("applications11", [("answer-ct", " + " + CT_BIAS, "")], dict.fromkeys(CT_CHECKS, M11_CONTROL.CT_NO_BIAS)),
    ("applications11", [("answer-ct", CT_BIAS, "bias_forces(model, q, qd, gravity=np.zeros(3))")],
     dict.fromkeys(CT_CHECKS, M11_CONTROL.CT_NO_GRAVITY)),
    ("applications11", [("answer-ct", CT_BIAS, "gravity_torques(model, q, gravity=gravity)")],
     dict.fromkeys(CT_CHECKS, M11_CONTROL.CT_NO_VELOCITY)),
    ("applications11", [("answer-ct", "return crba(model, q) @ v + " + CT_BIAS, "return rnea(model, q, qd, v)")],
     dict.fromkeys(CT_CHECKS, M11_CONTROL.CT_GRAVITY_NOT_PASSED)),
    ("applications11", [("answer-fit", "TAU.ravel()", "TAU.T.ravel()")],
     dict.fromkeys(("app-fit-exact", "app-fit-stable", "app-fit-noisy", "app-fit-r2"), M11_FIT.FIT_TAU_ORDER)),
    ("applications11", [("answer-fit", FIT_LSTSQ, "np.linalg.inv(W.T @ W) @ W.T @ TAU.ravel()")],
     {"app-fit-stable": M11_FIT.FIT_NORMAL_EQUATIONS}),
    ("applications11", [("answer-fit", FIT_LSTSQ, "np.linalg.solve(W.T @ W, W.T @ TAU.ravel())")],
     {"app-fit-stable": M11_FIT.FIT_NORMAL_EQUATIONS}),
    ("applications11", [("answer-fit", "((TAU - TAU.mean(axis=0)) ** 2).sum()", "(TAU ** 2).sum()")],
     {"app-fit-r2": M11_FIT.R2_NOT_CENTRED}),
    ("applications11", [("answer-fit", "r2 = 1 - ((TAU", "r2 = ((TAU")],
     {"app-fit-exact": M11_FIT.R2_SHARE, "app-fit-r2": M11_FIT.R2_SHARE}),
    ("applications11", [("answer-fit", "TAU.mean(axis=0)", "TAU.mean()")], {"app-fit-r2": M11_FIT.R2_GLOBAL_MEAN}),
    ("applications11", [("answer-fit", "r2 = 1 - ((TAU - TAU_hat) ** 2).sum() / ((TAU - TAU.mean(axis=0)) ** 2).sum()",
                         "r2 = np.mean([1 - ((TAU[:, j] - TAU_hat[:, j]) ** 2).sum()"
                         " / ((TAU[:, j] - TAU[:, j].mean()) ** 2).sum() for j in range(TAU.shape[1])])")],
     {"app-fit-r2": M11_FIT.R2_JOINT_AVERAGE}),
    ("applications11", [("answer-friction", "sigma * e], axis=-1)", "e], axis=-1)")],
     {"app-friction-columns": M11_FRICTION.COL_NO_SIGN}),
    ("applications11", [("answer-friction", "sigma * (1 - e)", "sigma")],
     {"app-friction-columns": M11_FRICTION.COL_COULOMB_SIGMA}),
    ("applications11", [("answer-friction", "e = np.exp(-(QD / np.asarray(vs, dtype=float)) ** 2)",
                         "e = np.exp(-np.abs(QD / np.asarray(vs, dtype=float)))")],
     {"app-friction-columns": M11_FRICTION.COL_EXPONENT}),
    ("applications11", [("answer-friction", "sigma = np.tanh(QD / 1e-3)", "sigma = np.sign(QD)")],
     {"app-friction-columns": M11_FRICTION.COL_SIGN}),
    ("applications11", [("answer-friction", "for vs in itertools.product(vs_grid, repeat=n):",
                         "for vs in ([v] * n for v in vs_grid):")], {"app-friction-fit": M11_FRICTION.FIT_SHARED}),
    ("applications11", [("answer-friction", "row_w = np.tile(weights, N)", "row_w = np.ones(N * n)")],
     {"app-friction-fit": M11_FRICTION.FIT_UNWEIGHTED}),
    ("applications11", [("answer-friction", "y = TAU.ravel() * row_w", "y = TAU.ravel()")],
     {"app-friction-fit": M11_FRICTION.FIT_TAU_UNWEIGHTED}),
    ("applications11", [("answer-friction", "row_w = np.tile(weights, N)", "row_w = np.tile(np.sqrt(weights), N)")],
     {"app-friction-fit": M11_FRICTION.FIT_SQRT_WEIGHTS}),
    ("applications11", [("answer-observer", "coriolis_matrix(model, q, qd).T @ qd", "coriolis_matrix(model, q, qd) @ qd")],
     {"app-observer-step": M11_OBSERVER.OBS_C, "app-observer-push": M11_OBSERVER.OBS_C}),
    ("applications11", [("answer-observer", "- gravity_torques(model, q)", "+ gravity_torques(model, q)")],
     {"app-observer-step": M11_OBSERVER.OBS_GRAVITY, "app-observer-push": M11_OBSERVER.OBS_GRAVITY}),
    ("applications11", [("answer-observer", "known_rate(q_next, qd_next)) + r)", "known_rate(q_next, qd_next)))")],
     {"app-observer-step": M11_OBSERVER.OBS_NO_R, "app-observer-push": M11_OBSERVER.OBS_NO_R}),
    ("applications11", [("answer-observer", "0.5 * (known_rate(q, qd) + known_rate(q_next, qd_next))", "known_rate(q, qd)")],
     {"app-observer-step": M11_OBSERVER.OBS_RECTANGLE, "app-observer-push": M11_OBSERVER.OBS_RECTANGLE}),
    ("applications11", [("answer-observer", "known_rate(q_next, qd_next)) + r)", "known_rate(q_next, qd_next)) - r)"),
                        ("answer-observer", "r = K * (", "r = -K * (")],
     {"app-observer-step": M11_OBSERVER.OBS_DB4_SIGN, "app-observer-push": M11_OBSERVER.OBS_DB4_SIGN}),
    ("applications11", [("answer-limits", LIMIT_CLIP, "return np.minimum(tau, tau_max)")],
     {"app-limits-law": M11_LIMITS.LIM_UPPER, "app-limits-run": M11_LIMITS.RUN_UPPER}),
    ("applications11", [("answer-limits", "tau = computed_torque(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=gravity)\n    "
                         + LIMIT_CLIP, "v = qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q)\n    return np.clip(crba(model, q) @ v, "
                         "-np.asarray(tau_max), np.asarray(tau_max)) + bias_forces(model, q, qd, gravity=gravity)")],
     {"app-limits-law": M11_LIMITS.LIM_BEFORE_BIAS}),
    ("applications11", [("answer-limits", LIMIT_CLIP, "return tau * min(1.0, np.min(np.asarray(tau_max) / np.abs(tau)))")],
     {"app-limits-law": M11_LIMITS.LIM_SCALED}),
    ("applications11", [("answer-limits", "return limited_computed_torque(model, q, qd, *reference(t), Kp, Kd, tau_max)",
                         "return computed_torque(model, q, qd, *reference(t), Kp, Kd)")],
     {"app-limits-run": M11_LIMITS.RUN_NO_LIMIT}),
    ("applications11", [("answer-limits", "return reference(traj.t)[0] - traj.q", "return traj.q - reference(traj.t)[0]")],
     {"app-limits-run": M11_LIMITS.RUN_ERROR_SIGN}),
    ("applications11", [("answer-sl", "return regressor(model, q, zero, a) + 0.5 * (c(qd + v) - c(qd) - c(v))",
                         "return regressor(model, q, qd, a)")], {"app-sl-regressor": M11_SL.Y_C_QD}),
    ("applications11", [("answer-sl", "return regressor(model, q, zero, a) + 0.5 * (c(qd + v) - c(qd) - c(v))",
                         "return regressor(model, q, v, a)")], {"app-sl-regressor": M11_SL.Y_C_V}),
    ("applications11", [("answer-sl", "+ 0.5 * (c(qd + v)", "+ (c(qd + v)")], {"app-sl-regressor": M11_SL.Y_NO_HALF}),
    ("applications11", [("answer-sl", "regressor(model, q, x, zero, gravity=np.zeros(3))", "regressor(model, q, x, zero)")],
     {"app-sl-regressor": M11_SL.Y_C_GRAVITY}),
    ("applications11", [("answer-sl", "-Gamma * (Y.T @ s)", "Gamma * (Y.T @ s)")],
     {"app-sl-law": M11_SL.SL_ADAPT_SIGN, "app-sl-closed-loop": M11_SL.SL_ADAPT_SIGN}),
    ("applications11", [("answer-sl", "q_err = q - q_d", "q_err = q_d - q"),
                        ("answer-sl", "qdd_r = qdd_d - Lambda * (qd - qd_d)", "qdd_r = qdd_d - Lambda * (qd_d - qd)")],
     {"app-sl-law": M11_SL.SL_ERROR_SIGN, "app-sl-closed-loop": M11_SL.SL_ERROR_SIGN}),
    ("applications11", [("answer-sl", "s = qd - qd_r", "s = qd_r - qd")],
     {"app-sl-law": M11_SL.SL_S_SIGN, "app-sl-closed-loop": M11_SL.SL_S_SIGN}),
    ("applications11", [("answer-sl", "Y = sl_regressor(model, q, qd, qd_r, qdd_r)[:, columns]",
                         "Y = sl_regressor(model, q, qd, qd_d, qdd_d)[:, columns]")],
     {"app-sl-law": M11_SL.SL_DESIRED_Y, "app-sl-closed-loop": M11_SL.SL_DESIRED_Y}),
    ("applications11", [("answer-measured", "return signal.sosfiltfilt(", "return signal.sosfilt(")],
     {"app-meas-filter": M11_MEAS.FILT_CAUSAL, "app-meas-data": M11_MEAS.DATA_CAUSAL}),
    ("applications11", [("answer-measured", BUTTER, 'sos = signal.butter(4, 2 * np.pi * cutoff, fs=fs, output="sos")')],
     {"app-meas-filter": M11_MEAS.FILT_RAD}),
    ("applications11", [("answer-measured", BUTTER, 'sos = signal.butter(4, cutoff / fs, output="sos")')],
     {"app-meas-filter": M11_MEAS.FILT_NORMALISED}),
    ("applications11", [("answer-measured", "TAU_f = lowpass(TAU, fs, cutoff)", "TAU_f = TAU")],
     {"app-meas-data": M11_MEAS.DATA_TAU_RAW}),
    ("applications11", [("answer-measured", "QD = np.gradient(Q_f, t, axis=0)", "QD = np.gradient(Q, t, axis=0)")],
     {"app-meas-data": M11_MEAS.DATA_Q_RAW}),
]
