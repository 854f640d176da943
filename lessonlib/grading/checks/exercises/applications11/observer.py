"""Exercise 11 (e): the generalised-momentum observer ([DB4 §4.3]; [De Luca & Mattone 2005]).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples
from lessonlib.dynamics import ObserverState, coriolis_matrix, crba, gravity_torques, observer_step, push_and_observe
from lessonlib.dynamics.control import gravity_compensation
from ... import display
from ...checker import Variant
from .._common import random_chain
from ._exercise import EXERCISE


# --- (e) the generalized-momentum observer ([DB4 §4.3]; [De Luca & Mattone 2005]) ------------------------------

def observer_with(model, state, tau, q_next, qd_next, dt, K, *, transpose=True, gravity_sign=-1.0, held=1.0,
                  trapezoid=True, course_sign=1.0):
    """One sample of the observer, ``I ← I + dt (τ + ½(h_k + h_k+1) + r)``, ``r ← K_o (M q̇ − I − p0)``,
    with the known rate ``h = Cᵀq̇ − g``
    — or a slip: ``C`` for ``Cᵀ``, ``+g``, the residual not fed back (``held = 0``), ``h_k`` only, [DB4]'s sign."""
    q, qd, p0, integral, r = (np.asarray(x, dtype=float) for x in state)

    def h(q, qd):
        C = coriolis_matrix(model, q, qd)
        return (C.T if transpose else C) @ qd + gravity_sign * gravity_torques(model, q)

    h_k, h_next = h(q, qd), h(q_next, qd_next)
    integral = integral + dt * (tau + (0.5 * (h_k + h_next) if trapezoid else h_k) + held * course_sign * r)
    r = course_sign * np.asarray(K) * (crba(model, q_next) @ qd_next - integral - p0)
    return q_next, qd_next, p0, integral, r


def observer_reference(model, state, tau, q_next, qd_next, dt, K):
    """The library's :func:`observer_step` on the same sample (its state rebuilt from the student's tuple)."""
    q, qd, p0, integral, r = state
    h = coriolis_matrix(model, q, qd).T @ qd - gravity_torques(model, q)
    new = observer_step(model, ObserverState(p0=p0, integral=integral, r=r, h=h), tau, q_next, qd_next, dt, K=K)
    return q_next, qd_next, p0, new.integral, new.r


OBS_C = Variant("your observer seems to use C(q, q̇) q̇ where Cᵀ(q, q̇) q̇ belongs: ṗ = τ + Cᵀq̇ − g + τ_ext "
                "(Ṁ = C + Cᵀ)", observer_step=partial(observer_with, transpose=False))
OBS_GRAVITY = Variant("your observer seems to add g(q); the momentum changes by ṗ = τ + Cᵀq̇ − g(q) + τ_ext",
                      observer_step=partial(observer_with, gravity_sign=1.0))
OBS_NO_R = Variant("your integral seems to lack + r: the residual must be fed back, I ← I + dt (τ + (Cᵀq̇ − g) + r), "
                   "which makes ṙ = K (τ_ext − r)", observer_step=partial(observer_with, held=0.0))
OBS_RECTANGLE = Variant("your integral seems to take the known rate Cᵀq̇ − g at the current sample only; the "
                        "instruction is the "
                        "trapezoid rule, ½ (h_k + h_k+1)", observer_step=partial(observer_with, trapezoid=False))
OBS_DB4_SIGN = Variant("your residual seems to estimate [DB4]'s τ_ext (the load the robot overcomes, −τ_ext "
                       "here); the course's τ_ext is what the environment applies on the robot: r = K (p − ∫(τ + Cᵀq̇ "
                       "− g + r) − p(0))", observer_step=partial(observer_with, course_sign=-1.0))
OBSERVER_MISTAKES = (OBS_C, OBS_GRAVITY, OBS_NO_R, OBS_RECTANGLE, OBS_DB4_SIGN)


def _observer_state(ctx, model):
    n = model.n
    q, qd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n)
    return q, qd, ctx.rng.normal(size=n), ctx.rng.normal(size=n), ctx.rng.normal(size=n)


@EXERCISE.check("app-observer-step", points=1, functions=("observer_step",),
                title="one sample of the generalized-momentum observer", variants=OBSERVER_MISTAKES)
def check_observer_step(ctx, observer_step_student):
    for k in range(3):
        model = random_chain(ctx, n_max=4)
        state = _observer_state(ctx, model)
        tau, dt = ctx.rng.normal(size=model.n) * 5, float(ctx.rng.uniform(1e-3, 1e-2))
        q_next, qd_next = state[0] + dt * state[1] + ctx.rng.normal(size=model.n) * 0.01, ctx.rng.normal(size=model.n)
        K = float(ctx.rng.uniform(5, 100)) if k == 0 else ctx.rng.uniform(5, 100, model.n)
        call = (f"observer_step(model, state, tau, q_next, qd_next, dt={dt:.4g}, K) on a random {model.n}-link chain, "
                f"{'scalar K' if k == 0 else 'K per joint'}")
        got = ctx.expect_tuple(ctx.call(observer_step_student, model, state, tau, q_next, qd_next, dt, K),
                               ("q", "qd", "p0", "integral", "r"), call=call)
        expected = observer_reference(model, state, tau, q_next, qd_next, dt, K)
        for name, g, e in zip(("q (the next sample's)", "qd (the next sample's)", "p0 (unchanged)"), got, expected):
            ctx.expect_close(name, g, e, call=call, hint="the new state is (q_next, qd_next, p0, integral, r)")
        ctx.expect_close("integral", got[3], expected[3], call=call,
                         hint="I_k+1 = I_k + dt (τ + ½ (h_k + h_k+1) + r_k) with the known rate "
                              "h = C(q, q̇)ᵀ q̇ − g(q) at each sample")
        ctx.expect_close("r", got[4], expected[4], call=call,
                         hint="r_k+1 = K (M(q_k+1) q̇_k+1 − I_k+1 − p0)")


@EXERCISE.check("app-observer-push", points=1, functions=("observer_step",),
                title="the observer's residual follows a push on the arm", variants=OBSERVER_MISTAKES)
def check_observer_push(ctx, observer_step_student):
    model = (samples.planar_2link(), samples.planar_3link(), samples.seed004_2link())[int(ctx.rng.integers(3))]
    n, K = model.n, float(ctx.rng.uniform(40, 80))
    q0 = ctx.rng.uniform(-1, 1, n)
    force = ctx.rng.uniform(2, 6) * np.array([*ctx.rng.normal(size=2), 0.0]) / np.sqrt(2)
    ctrl = gravity_compensation(model, Kp=30.0, Kd=8.0, q_ref=q0)
    run = push_and_observe(model, q0, np.zeros(n), ctrl, at=n - 1, wrench=np.r_[0.0, 0.0, 0.0, force], t_on=0.1,
                           t_off=0.4, dt=0.004, duration=0.5, K=K)
    traj = run.trajectory
    state = (traj.q[0], traj.qd[0], crba(model, traj.q[0]) @ traj.qd[0], np.zeros(n), np.zeros(n))
    r = np.zeros_like(traj.q)
    for k in range(traj.t.size - 1):
        tau = 0.5 * (traj.tau[k] + traj.tau[k + 1])
        call = (f"observer_step(model, state, tau, q_next, qd_next, dt=0.004, K={K:.4g}) at t = {traj.t[k]:.3f} s on "
                f"{model.name!r} while a force {display.array(force)} N pushes the last link "
                "from t = 0.1 to 0.4 s")
        state = ctx.expect_tuple(ctx.call(observer_step_student, model, state, tau, traj.q[k + 1], traj.qd[k + 1],
                                          traj.t[k + 1] - traj.t[k], K), ("q", "qd", "p0", "integral", "r"), call=call)
        r[k + 1] = ctx.expect_shape("r", state[4], (n,), call=call)
    scale = float(np.abs(run.tau_ext).max())
    settled = (traj.t >= 0.1 + 6 / K) & (traj.t < 0.4 - 1e-9)
    free = traj.t < 0.1 - 1e-9
    call = f"your observer_step, sample after sample, on {model.name!r} pushed from t = 0.1 to 0.4 s, K = {K:.4g} 1/s"
    ctx.expect_close("r before the push (no contact: zero)", r[free], np.zeros_like(r[free]), atol=0.02 * scale,
                     call=call, hint="without contact and with the exact model, ṙ = −K r keeps r at 0")
    ctx.expect_close("r once the push has lasted 6/K (the external torques Jᵀ F)", r[settled], run.tau_ext[settled],
                     atol=0.03 * scale, call=call,
                     hint="r follows τ_ext like a first-order filter with time constant 1/K: ṙ = K (τ_ext − r)")
    ctx.expect_close("r (every sample)", r, run.observer.r, atol=1e-6 * max(1.0, scale), call=call)
