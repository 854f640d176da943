"""Exercise 11 (f): computed torque behind actuator limits ([RNE05] §五).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples
from lessonlib.dynamics import bias_forces, crba, gravity_torques, rnea, simulate
from lessonlib.dynamics.control import computed_torque, quintic, saturated
from ...checker import Variant
from .._common import random_chain
from ._exercise import EXERCISE
from .control import desired, library_ct, random_gains


# --- (f) torque limits ([RNE05] §五) ---------------------------------------------------------------------

def limited_with(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, tau_max, gravity=None, *, clip="both"):
    """The computed torque clipped to ``±tau_max`` per joint — or a slip: only the upper side (``clip="upper"``),
    the limit applied to ``M v`` before ``c + g`` (``"before_bias"``), the whole vector scaled (``"scaled"``)."""
    limit = np.asarray(tau_max, dtype=float)
    if clip == "before_bias":
        v = qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q)
        return np.clip(crba(model, q) @ v, -limit, limit) + bias_forces(model, q, qd, gravity=gravity)
    tau = library_ct(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=gravity)
    if clip == "upper":
        return np.minimum(tau, limit)
    if clip == "scaled":
        return tau * min(1.0, float(np.min(limit / np.maximum(np.abs(tau), 1e-300))))
    return np.clip(tau, -limit, limit)


def tracking_with(model, q0, q1, move_time, Kp, Kd, tau_max, dt, duration, *, law=None, error_sign=1.0):
    """``E = q_d(t) − q(t)`` (N+1, n) of computed torque behind actuator limits on a quintic move — or a slip:
    another ``law(reference)`` for the controller, or ``q − q_d`` (``error_sign = −1``)."""
    reference = quintic(q0, q1, move_time)
    control = computed_torque(model, reference, Kp, Kd)
    torque = saturated(control, tau_max) if law is None else law(model, reference, Kp, Kd, tau_max)
    traj = simulate(model, q0, np.zeros(model.n), torque, dt, duration, progress=False)
    return error_sign * (reference(traj.t)[0] - traj.q)


LIM_UPPER = Variant("your limit seems to cut only the positive side (np.minimum): an actuator is limited both ways, "
                    "−τ_max ≤ τ ≤ τ_max (np.clip)", limited_computed_torque=partial(limited_with, clip="upper"))
LIM_BEFORE_BIAS = Variant("your limit seems to be applied to M(q) q̈_cmd before c(q, q̇) + g(q) are added; "
                          "the actuator "
                          "limits the whole torque it delivers",
                          limited_computed_torque=partial(limited_with, clip="before_bias"))
LIM_SCALED = Variant("your limit seems to scale the whole torque vector down (keeping its direction); each "
                     "actuator saturates on its own: clip joint by joint",
                     limited_computed_torque=partial(limited_with, clip="scaled"))
RUN_NO_LIMIT = Variant("your run seems not to limit the torque: the controller of your simulation must be "
                       "limited_computed_torque", track_with_limits=partial(
                           tracking_with, law=lambda model, ref, Kp, Kd, tau_max: computed_torque(model, ref, Kp, Kd)))
RUN_UPPER = Variant("your run's limit seems to cut only the positive side", track_with_limits=partial(
    tracking_with, law=lambda model, ref, Kp, Kd, tau_max: lambda t, q, qd: np.minimum(
        computed_torque(model, ref, Kp, Kd)(t, q, qd), tau_max)))
RUN_ERROR_SIGN = Variant("your E seems to be q − q_d = q̃; the array asked for is q_d(t) − q(t) = −q̃",
                         track_with_limits=partial(tracking_with, error_sign=-1.0))


@EXERCISE.check("app-limits-law", points=1, functions=("limited_computed_torque",), helpers=("computed_torque",),
                title="computed torque behind actuator limits", variants=(LIM_UPPER, LIM_BEFORE_BIAS, LIM_SCALED))
def check_limits_law(ctx, limited_computed_torque, computed_torque_student):
    for k in range(4):
        model = random_chain(ctx, n_max=5)
        n = model.n
        q, qd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n)
        q_d, qd_d, qdd_d = desired(ctx, n)
        Kp, Kd = random_gains(ctx, n, scalar=k % 2 == 0)
        tau = library_ct(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd)
        tau_max = (np.abs(tau) * ctx.rng.uniform(0.3, 1.6, n) if k < 3
                   else float(np.median(np.abs(tau))))                 # some joints saturate, some do not
        expected = saturated(lambda t, q_, qd_: tau, tau_max)(0.0, q, qd)
        with ctx.suspects(ctx.suspect(computed_torque_student, model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, expected=tau,
                                      call="computed_torque(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd)", see="app-ct-law")):
            got = ctx.call(limited_computed_torque, model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, tau_max)
            ctx.expect_close("tau (n,)", got, expected,
                             hint="the computed torque (your computed_torque), then each joint clipped to "
                                  "[−tau_max_j, tau_max_j]: np.clip(tau, -tau_max, tau_max)")


@EXERCISE.check("app-limits-run", points=1, functions=("track_with_limits",),
                title="tracking a fast move with torque-limited actuators",
                variants=(RUN_NO_LIMIT, RUN_UPPER, RUN_ERROR_SIGN))
def check_limits_run(ctx, track_with_limits):
    model = samples.planar_2link()
    q0 = np.array([-np.pi / 2, 0.0])                                 # hanging straight down
    q1 = q0 + np.array([ctx.rng.uniform(1.0, 1.6), -ctx.rng.uniform(0.6, 1.2)])
    move_time, Kp, Kd = float(ctx.rng.uniform(0.45, 0.55)), 400.0, 40.0
    planned = quintic(q0, q1, move_time)
    tau_plan = np.array([rnea(model, *planned(t)) for t in np.linspace(0.0, move_time, 61)])
    tau_max = np.maximum(np.abs(tau_plan.min(axis=0)) * ctx.rng.uniform(0.5, 0.8, 2),
                         1.3 * np.abs(gravity_torques(model, q1)))   # too weak for the move, strong enough to hold
    assert np.all(tau_max < np.minimum(tau_plan.max(axis=0), -tau_plan.min(axis=0))), "self-test: both sides saturate"
    expected = tracking_with(model, q0, q1, move_time, Kp, Kd, tau_max, 0.005, 1.0)
    assert np.abs(expected).max() > 0.01, "checker self-test: the limits must bite"
    E = ctx.expect_shape("E (201, 2)", ctx.call(track_with_limits, model, q0, q1, move_time, Kp, Kd, tau_max, 0.005,
                                                1.0), expected.shape)
    ctx.expect_close("max |E| per joint (rad)", np.abs(E).max(axis=0), np.abs(expected).max(axis=0),
                     hint="simulate(model, q0, 0, torque_fn, dt, duration) with torque_fn(t, q, qd) = "
                          "limited_computed_torque(model, q, qd, *quintic(q0, q1, move_time)(t), Kp, Kd, tau_max); "
                          "E = q_d(t) − q(t) at the trajectory's times")
    ctx.expect_close("E (every sample)", E, expected)
