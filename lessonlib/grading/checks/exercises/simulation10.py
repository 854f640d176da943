"""Checks of exercise 10: integrator steps, energy drift and Stribeck friction ([WJ §2.1], [WJ §2.3]; [DB4 §4.3], [DB4 §4.4]).

The student's integrators take a :class:`~lessonlib.model.Model` and call the library's forward
dynamics (``lessonlib.dynamics.aba``) — the exercise is the integration rule, not the dynamics — while
``lessonlib.dynamics.simulate.simulate`` is unavailable. Each check compares with ``simulate`` (one
step, or a whole run) and with identities that do not use it: the order of the semi-implicit
update, the local error of RK4 falling like ``Δt⁵``, the ordering of the three integrators' energy
errors, and the limits of the Stribeck curve. Known mistakes (judge side: the reference with one piece
replaced, ``semi_implicit_with``, ``rk4_with``, ``drift_with``, ``stribeck_with``): the semi-implicit step's
position moved with the old velocity (explicit Euler); gravity not passed on to ``aba``; RK4's weights 1, 1, 1, 1,
its middle stages a whole step ahead, its last stage half a step ahead, ẋ(3) taken from ẋ(1); explicit Euler's
q̈ taken at the new q, the drift as |E_k − E_0| or divided by E_0, explicit Euler for every integrator; the
Stribeck torque without its direction, its viscous term or its sign (the force on the joint), f_s and f_c swapped,
the exponent 2 or 1 whatever δ, e^{+|q̇/v_s|^δ}, sign(q̇) whatever ε.

===========================  ======  ================================================================
check                        points  what it tests
===========================  ======  ================================================================
``sim-semi-implicit``        1       ``semi_implicit_euler_step`` against ``simulate`` (one step)
``sim-rk4``                  2       ``rk4_step`` against ``simulate`` (one step), random chains
``sim-rk4-order``            1       ``rk4_step``: local error against a fine reference falls like ``Δt⁵``
``sim-drift-euler``          1       ``energy_drift`` with explicit Euler against ``simulate``'s energy
``sim-drift-integrators``    1       ``energy_drift`` with the other two; RK4 < semi-implicit < Euler
``sim-stribeck``             1       ``stribeck`` against the library's friction model
``sim-stribeck-limits``      1       ``stribeck``: f_s = f_c, rest, far from rest, odd, dissipative
===========================  ======  ================================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples
from lessonlib.dynamics import aba
from lessonlib.dynamics.energy import total_energy
from lessonlib.dynamics.friction import stribeck
from lessonlib.dynamics.simulate import simulate
from ..checker import Exercise, Variant
from ._common import random_chain, random_gravity

EXERCISE = Exercise(
    "simulation10", notebook="10_simulation.ipynb", title="Lesson 10 — integrators, energy drift and friction",
    blocked=("lessonlib.dynamics.simulate:simulate", "lessonlib.dynamics.simulate:rk4",
             "lessonlib.dynamics.simulate:rk4_step", "lessonlib.dynamics.simulate:semi_implicit_euler_step",
             "lessonlib.dynamics.simulate:euler_step", "lessonlib.dynamics.friction:stribeck",
             "lessonlib.dynamics.friction:coulomb_smooth", "lessonlib.dynamics.friction:friction_regressor",
             "lessonlib.constraints"),
    copy_targets=("lessonlib.dynamics.simulate", "lessonlib.dynamics.friction"))

INTEGRATORS = ("euler", "semi_implicit_euler", "rk4")


# --- reference quantities (judge side; never sent to the kernel) ------------------------------


def one_step(model, q, qd, tau, dt, integrator, gravity=None):
    """``(q⁺, q̇⁺)`` after one step of the library's ``simulate`` with the constant torque ``tau``."""
    traj = simulate(model, q, qd, lambda t, q, qd: tau, dt=dt, duration=dt, integrator=integrator,
                    gravity=gravity, progress=False)
    return traj.q[1], traj.qd[1]


def drift_reference(model, q0, qd0, dt, steps, integrator):
    """``E_k − E_0``, k = 0..steps, of a free (zero-torque) run of the library's ``simulate``."""
    traj = simulate(model, q0, qd0, None, dt=dt, duration=steps * dt, integrator=integrator, progress=False)
    assert len(traj.t) == steps + 1, "checker self-test: number of samples"
    return traj.energy - traj.energy[0]


# --- known mistakes (judge side): the step with one piece replaced ------------------------------------

def semi_implicit_with(model, q, qd, tau, dt, gravity=None, *, new_velocity=True, pass_gravity=True):
    """One semi-implicit Euler step — or a slip: the position moved with the old velocity (explicit Euler), or
    ``gravity`` not passed on to ``aba`` (the model's default acts)."""
    qd_next = qd + dt * aba(model, q, qd, tau, gravity=gravity if pass_gravity else None)
    return q + dt * (qd_next if new_velocity else qd), qd_next


def rk4_with(model, q, qd, tau, dt, gravity=None, *, weights=(1.0, 2.0, 2.0, 1.0), middle=0.5, last=1.0, stale=False,
             pass_gravity=True):
    """One RK4 step of x = (q, q̇) — or a slip: other ``weights`` over 6, the middle stages at ``middle`` Δt, the last at
    ``last`` Δt, ẋ(3) taken from ẋ(1) (``stale``), or ``gravity`` not passed on to ``aba``."""
    def x_dot(q, qd):
        return qd, aba(model, q, qd, tau, gravity=gravity if pass_gravity else None)

    s1 = x_dot(q, qd)
    s2 = x_dot(q + middle * dt * s1[0], qd + middle * dt * s1[1])
    s3 = x_dot(q + middle * dt * (s1 if stale else s2)[0], qd + middle * dt * (s1 if stale else s2)[1])
    s4 = x_dot(q + last * dt * s3[0], qd + last * dt * s3[1])
    return tuple(x + dt / 6 * sum(w * s[part] for w, s in zip(weights, (s1, s2, s3, s4)))
                 for part, x in enumerate((q, qd)))


EXPLICIT_EULER = Variant("your q_next seems to be q + dt * qd, which is explicit Euler: semi-implicit Euler moves the "
                         "position with the NEW velocity, q_next = q + dt * qd_next",
                         semi_implicit_euler_step=partial(semi_implicit_with, new_velocity=False))
SEMI_GRAVITY_DROPPED = Variant("your semi_implicit_euler_step seems to ignore its gravity argument, so that aba uses "
                               "model.gravity: pass it on, aba(..., gravity=gravity)",
                               semi_implicit_euler_step=partial(semi_implicit_with, pass_gravity=False))
RK4_WEIGHTS = Variant("your x_next seems to weigh the four slopes 1, 1, 1, 1 over 6; the middle two count twice: "
                      "x_next = x + Δt/6 (ẋ(1) + 2 ẋ(2) + 2 ẋ(3) + ẋ(4))",
                      rk4_step=partial(rk4_with, weights=(1.0, 1.0, 1.0, 1.0)))
RK4_FULL_MIDDLE = Variant("your ẋ(2) and ẋ(3) seem to be taken a whole step ahead, at x + Δt ẋ(1) and x + Δt ẋ(2); the "
                          "middle stages sit half a step ahead: ẋ(2) = ẋ(x + Δt/2 ẋ(1)), ẋ(3) = ẋ(x + Δt/2 ẋ(2))",
                          rk4_step=partial(rk4_with, middle=1.0))
RK4_HALF_LAST = Variant("your ẋ(4) seems to be taken at x + Δt/2 ẋ(3); the last stage sits a whole step ahead: "
                        "ẋ(4) = ẋ(x + Δt ẋ(3))", rk4_step=partial(rk4_with, last=0.5))
RK4_STALE = Variant("your ẋ(3) seems to be taken at x + Δt/2 ẋ(1), where ẋ(2) was; the third stage starts from the "
                    "second slope: ẋ(3) = ẋ(x + Δt/2 ẋ(2))", rk4_step=partial(rk4_with, stale=True))
RK4_GRAVITY_DROPPED = Variant("your rk4_step seems to ignore its gravity argument, so that aba uses model.gravity: "
                              "pass it on in every stage, aba(..., gravity=gravity)",
                              rk4_step=partial(rk4_with, pass_gravity=False))


def _step_pair(ctx, result, n):
    """Unpack a ``(q, qd)`` result into two (n,) arrays, failing readably."""
    result = ctx.expect_tuple(result, ("q_next", "qd_next"))
    return ctx.expect_shape("q_next", result[0], (n,)), ctx.expect_shape("qd_next", result[1], (n,))


def _step_cases(ctx, trials=3):
    for k in range(trials):
        model = random_chain(ctx, n_max=4)
        n = model.n
        g = random_gravity(ctx) if k % 2 == 0 else None
        yield (model, ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), 3 * ctx.rng.normal(size=n),
               float(ctx.rng.uniform(0.01, 0.04)), g)


# --- (a) one step ------------------------------------------------------------------------------------

@EXERCISE.check("sim-semi-implicit", points=1, functions=("semi_implicit_euler_step",),
                title="one step of semi-implicit Euler (symplectic when the inertia is constant)",
                variants=(EXPLICIT_EULER, SEMI_GRAVITY_DROPPED))
def check_semi_implicit(ctx, semi_implicit_euler_step):
    for model, q, qd, tau, dt, g in _step_cases(ctx):
        kwargs = {} if g is None else {"gravity": g}
        q1, qd1 = _step_pair(ctx, ctx.call(semi_implicit_euler_step, model, q, qd, tau, dt, **kwargs), model.n)
        ref_q, ref_qd = one_step(model, q, qd, tau, dt, "semi_implicit_euler", gravity=g)
        ctx.expect_close("qd_next", qd1, ref_qd,
                         hint="qd_next = qd + dt * qdd with qdd = aba(model, q, qd, tau, gravity=gravity)")
        ctx.expect_close("q_next", q1, ref_q, hint="q_next = q + dt * qd_next (the new velocity)")


@EXERCISE.check("sim-rk4", points=2, functions=("rk4_step",),
                title="one step of classical Runge-Kutta (RK4)",
                variants=(RK4_WEIGHTS, RK4_FULL_MIDDLE, RK4_HALF_LAST, RK4_STALE, RK4_GRAVITY_DROPPED))
def check_rk4(ctx, rk4_step):
    for model, q, qd, tau, dt, g in _step_cases(ctx):
        kwargs = {} if g is None else {"gravity": g}
        q1, qd1 = _step_pair(ctx, ctx.call(rk4_step, model, q, qd, tau, dt, **kwargs), model.n)
        ref_q, ref_qd = one_step(model, q, qd, tau, dt, "rk4", gravity=g)
        hint = ("ẋ(1) = ẋ(x), ẋ(2) = ẋ(x + Δt/2 ẋ(1)), ẋ(3) = ẋ(x + Δt/2 ẋ(2)), ẋ(4) = ẋ(x + Δt ẋ(3)), "
                "x_next = x + Δt/6 (ẋ(1) + 2 ẋ(2) + 2 ẋ(3) + ẋ(4)), with x = (q, q̇), "
                "ẋ(x) = (q̇, aba(model, q, qd, tau)) and Δt = dt")
        ctx.expect_close("q_next", q1, ref_q, hint=hint)
        ctx.expect_close("qd_next", qd1, ref_qd, hint=hint)


@EXERCISE.check("sim-rk4-order", points=1, functions=("rk4_step",),
                title="RK4: the local error falls like Δt to the fifth",
                variants=(RK4_WEIGHTS, RK4_FULL_MIDDLE, RK4_HALF_LAST, RK4_STALE))
def check_rk4_order(ctx, rk4_step):
    model = samples.pendulum()
    for _ in range(3):
        q, qd = ctx.rng.uniform(-1.5, 1.5, 1), ctx.rng.normal(size=1)
        errors = []
        for h in (0.01, 0.005):
            fine = simulate(model, q, qd, None, dt=h / 32, duration=h, progress=False)     # error ~ 32⁻⁴ of a step
            q1, qd1 = _step_pair(ctx, ctx.call(rk4_step, model, q, qd, np.zeros(1), h), 1)
            errors.append(max(abs(q1[0] - fine.q[-1, 0]), abs(qd1[0] - fine.qd[-1, 0])))
        ratio = errors[0] / max(errors[1], 1e-300)
        if not ratio > 27.0:
            ctx.fail(f"halving the step from 0.01 s to 0.005 s divided the one-step error by {ratio:.3g}: expected "
                     "about 32, a fourth-order method's local error falling like Δt^5 (got the errors "
                     f"{errors[0]:.3g}, {errors[1]:.3g} against a 32-times finer simulation)",
                     call="rk4_step on the pendulum",
                     got=errors, atol=1e-6 * max(errors),
                     hint="about 4 means first order (Euler), 8 second, 16 third: check the stage points and the "
                          "weights 1, 2, 2, 1 over 6")


# --- (b) energy drift ----------------------------------------------------------------------------------

def drift_with(model, q0, qd0, dt, steps, integrator="euler", *, sequential=False, measure=lambda E, E0: E - E0,
               only_euler=False):
    """``E_k − E_0`` of a free run — or a slip: the explicit Euler step's q̈ taken at the new q (``sequential``), another
    ``measure`` of the drift, or explicit Euler whatever the ``integrator`` (``only_euler``)."""
    q, qd = np.array(q0, dtype=float), np.array(qd0, dtype=float)
    tau = np.zeros(model.n)
    E = [total_energy(model, q, qd)]
    for _ in range(steps):
        if integrator == "euler" or only_euler:
            q_next = q + dt * qd
            q, qd = q_next, qd + dt * aba(model, q_next if sequential else q, qd, tau)
        elif integrator == "semi_implicit_euler":
            q, qd = semi_implicit_with(model, q, qd, tau, dt)
        else:
            q, qd = rk4_with(model, q, qd, tau, dt)
        E.append(total_energy(model, q, qd))
    return measure(np.array(E), E[0])


EULER_SEQUENTIAL = Variant("your explicit Euler step seems to move q first and then take q̈ at the NEW q; (10.2) takes "
                           "both updates from the old state, q⁺ = q + Δt q̇ and q̇⁺ = q̇ + Δt q̈(q, q̇) (assign them "
                           "together: q, qd = q + dt * qd, qd + dt * aba(model, q, qd, tau))",
                           energy_drift=partial(drift_with, sequential=True))
#: Not a mistake of sim-drift-euler: explicit Euler's drift is often positive all along (|E_k − E_0| = E_k − E_0).
DRIFT_ABS = Variant("your drift seems to be |E_k − E_0|; return the signed E_k − E_0 (an integrator can lose energy as "
                    "well as gain it)", energy_drift=partial(drift_with, measure=lambda E, E0: np.abs(E - E0)))
DRIFT_RELATIVE = Variant("your drift seems to be divided by E_0; return E_k − E_0 in joules, not relative to the "
                         "starting energy", energy_drift=partial(drift_with, measure=lambda E, E0: (E - E0) / E0))
DRIFT_ONLY_EULER = Variant("your energy_drift seems to step with explicit Euler whatever integrator it is given; use "
                           "semi_implicit_euler_step for \"semi_implicit_euler\" and rk4_step for \"rk4\"",
                           energy_drift=partial(drift_with, only_euler=True))


def _drift_case(ctx):
    model = samples.planar_2link() if ctx.rng.uniform() < 0.5 else samples.planar_3link()
    q0 = ctx.rng.uniform(-np.pi / 2, np.pi / 2, model.n)
    return model, q0, np.zeros(model.n), 0.01, int(ctx.rng.integers(80, 151))


def _drift_of(ctx, energy_drift, model, q0, qd0, dt, steps, integrator):
    got = ctx.expect_shape("E_k - E_0", ctx.call(energy_drift, model, q0, qd0, dt, steps, integrator=integrator),
                           (steps + 1,))
    expected = drift_reference(model, q0, qd0, dt, steps, integrator)
    error = np.abs(got - expected)
    atol = ctx.atol * max(1.0, np.abs(expected).max())
    if error.max() > atol:                                  # a readable summary instead of two long arrays
        k = int(np.argmax(error > atol))
        ctx.fail(f"E_k - E_0 first differs at k = {k} (t = {k * dt:.4g} s): expected {expected[k]:.6g} J, got "
                 f"{got[k]:.6g} J; at the end (k = {steps}) expected {expected[-1]:.6g} J, got {got[-1]:.6g} J; "
                 f"largest error {error.max():.3g} > tolerance {atol:.3g}", got=got, atol=atol,
                 hint="E_0 is the energy at the start (so the first entry is 0), then one entry per step, "
                      "with zero torque and the model's default gravity")
    return got


@EXERCISE.check("sim-drift-euler", points=1, functions=("energy_drift",),
                title="energy drift of explicit Euler", variants=(EULER_SEQUENTIAL, DRIFT_RELATIVE))
def check_drift_euler(ctx, energy_drift):
    model, q0, qd0, dt, steps = _drift_case(ctx)
    _drift_of(ctx, energy_drift, model, q0, qd0, dt, steps, "euler")


@EXERCISE.check("sim-drift-integrators", points=1, functions=("energy_drift",),
                title="energy drift of semi-implicit Euler and RK4",
                variants=(DRIFT_ONLY_EULER, DRIFT_ABS, DRIFT_RELATIVE, EULER_SEQUENTIAL))
def check_drift_integrators(ctx, energy_drift):
    model, q0, qd0, dt, steps = _drift_case(ctx)
    for integrator in ("semi_implicit_euler", "rk4"):
        _drift_of(ctx, energy_drift, model, q0, qd0, dt, steps, integrator)
    rod = samples.pendulum()                              # one link: the three errors always order the same way
    q0 = ctx.rng.choice([-1.0, 1.0], 1) * ctx.rng.uniform(0.3, 2.5, 1)
    worst = {integrator: np.abs(_drift_of(ctx, energy_drift, rod, q0, np.zeros(1), dt, steps, integrator)).max()
             for integrator in INTEGRATORS}
    if not worst["rk4"] < worst["semi_implicit_euler"] < worst["euler"]:
        ctx.fail("expected the largest |E_k - E_0| of the pendulum to order rk4 < semi_implicit_euler < euler, got "
                 + ", ".join(f"{k}: {v:.3g} J" for k, v in worst.items()), got=list(worst.values()),
                 call=f"energy_drift on the pendulum with each of {', '.join(INTEGRATORS)}")


# --- (c) Stribeck friction ---------------------------------------------------------------------------------

def stribeck_params(ctx, n):
    fc = ctx.rng.uniform(0.1, 2.0, n)
    return dict(fc=fc, fs=fc * ctx.rng.uniform(1.0, 2.5, n), vs=ctx.rng.uniform(0.02, 0.3, n),
                b=ctx.rng.uniform(0.0, 1.0, n))


def stribeck_with(qd, fc, fs, vs, b, delta=2.0, eps=1e-3, *, power=None, growing=False, swapped=False, direction=True,
                  smooth=True, viscous=True, sign=1.0):
    """(10.8) — or a slip: the ratio raised to a fixed ``power`` instead of δ, e^{+|q̇/v_s|^δ} (``growing``), f_s and f_c
    ``swapped``, no ``direction`` tanh(q̇/ε), sign(q̇) whatever ε (``smooth=False``), no ``viscous`` term, or the whole
    torque with the other ``sign``."""
    qd = np.asarray(qd, dtype=float)
    fc, fs = (fs, fc) if swapped else (fc, fs)
    ratio = np.abs(qd / vs) ** (delta if power is None else power)
    level = fc + (fs - fc) * np.exp(ratio if growing else -ratio)
    turn = (np.tanh(qd / eps) if smooth and eps != 0 else np.sign(qd)) if direction else 1.0
    return sign * (level * turn + viscous * b * qd)


STRIBECK_NO_DIRECTION = Variant("your tau_f seems to lack the direction tanh(q̇/ε) of the level f_c + (f_s − f_c) "
                                "e^{−|q̇/v_s|^δ}: friction turns with q̇ (sign(q̇) for eps = 0)",
                                stribeck=partial(stribeck_with, direction=False))
STRIBECK_NO_VISCOUS = Variant("your tau_f seems to lack the viscous term b q̇ of (10.8)",
                              stribeck=partial(stribeck_with, viscous=False))
STRIBECK_OPPOSING = Variant("your tau_f seems to have the sign opposite to q̇, the force friction puts on the joint; "
                            "[WJ]'s τ_f is what the actuator must overcome (M q̈ + c + g + τ_f = τ_a), with the sign "
                            "of q̇", stribeck=partial(stribeck_with, sign=-1.0))
STRIBECK_SWAPPED = Variant("your level seems to start at f_c and tend to f_s: near rest the static (breakaway) level f_s "
                           "acts, and it decays to the Coulomb level f_c: f_c + (f_s − f_c) e^{−|q̇/v_s|^δ}",
                           stribeck=partial(stribeck_with, swapped=True))
STRIBECK_DELTA_FIXED = Variant("your decay seems to use the exponent 2 whatever delta is given: it is e^{−|q̇/v_s|^δ} "
                               "with δ = delta", stribeck=partial(stribeck_with, power=2.0))
STRIBECK_NOT_RAISED = Variant("your decay seems to be e^{−|q̇/v_s|}, the ratio not raised to δ: it is e^{−|q̇/v_s|^δ} "
                              "(δ = 2 by default)", stribeck=partial(stribeck_with, power=1.0))
#: Named only while e^{+|q̇/v_s|^δ} stays moderate: the student's numbers must agree with it to 1e-6, absolutely.
STRIBECK_GROWING = Variant("your decay seems to be e^{+|q̇/v_s|^δ}, which grows without bound as q̇ leaves rest; the "
                           "exponent is negative: e^{−|q̇/v_s|^δ} falls from 1 at rest to 0 when sliding",
                           stribeck=partial(stribeck_with, growing=True))
STRIBECK_SIGN_ONLY = Variant("your direction seems to be sign(q̇) whatever eps is given; eps > 0 asks for the smooth "
                             "tanh(q̇/ε), and only eps = 0 for sign(q̇)", stribeck=partial(stribeck_with, smooth=False))


@EXERCISE.check("sim-stribeck", points=1, functions=("stribeck",),
                title="the Stribeck friction curve",
                variants=(STRIBECK_NO_DIRECTION, STRIBECK_NO_VISCOUS, STRIBECK_OPPOSING, STRIBECK_SWAPPED,
                          STRIBECK_DELTA_FIXED, STRIBECK_NOT_RAISED, STRIBECK_GROWING, STRIBECK_SIGN_ONLY))
def check_stribeck(ctx, stribeck_student):
    shapes = ((2.0, 1e-3), (float(ctx.rng.uniform(0.5, 3.0)), float(ctx.rng.uniform(0.005, 0.05))), (2.0, 0.0))
    for delta, eps in shapes:
        n = int(ctx.rng.integers(3, 8))
        qd = ctx.rng.normal(0.0, 0.3, n)
        p = stribeck_params(ctx, n)
        got = ctx.call(stribeck_student, qd, p["fc"], p["fs"], p["vs"], p["b"], delta=delta, eps=eps)
        ctx.expect_close("tau_f (n,)", got, stribeck(qd, p["fc"], p["fs"], p["vs"], p["b"], delta=delta, eps=eps),
                         hint="(f_c + (f_s - f_c) exp(-|qd / v_s|^delta)) tanh(qd / eps) + b qd; "
                                         "eps = 0 means sign(qd) instead of tanh")
    qd, p = float(ctx.rng.uniform(0.01, 0.2)), dict(fc=1.0, fs=1.5, vs=0.1, b=0.2)
    ctx.expect_close("tau_f", ctx.call(stribeck_student, qd, 1.0, 1.5, 0.1, 0.2),
                     stribeck(qd, 1.0, 1.5, 0.1, 0.2), hint="delta=2 and eps=1e-3 by default")


@EXERCISE.check("sim-stribeck-limits", points=1, functions=("stribeck",),
                title="the Stribeck curve's limits: no hump, rest, sliding, odd, dissipative",
                variants=(STRIBECK_NO_DIRECTION, STRIBECK_NO_VISCOUS, STRIBECK_OPPOSING, STRIBECK_SWAPPED))
def check_stribeck_limits(ctx, stribeck_student):
    n = 6
    p = stribeck_params(ctx, n)
    eps = float(ctx.rng.uniform(0.005, 0.02))
    qd = ctx.rng.normal(0.0, 0.2, n)
    flat = ctx.call(stribeck_student, qd, p["fc"], p["fc"], p["vs"], p["b"], eps=eps)
    ctx.expect_close("tau_f with f_s = f_c", flat, p["fc"] * np.tanh(qd / eps) + p["b"] * qd,
                     hint="with f_s = f_c the hump vanishes: smoothed Coulomb plus viscous, f_c tanh(qd/eps) + b qd")
    args = (p["fc"], p["fs"], p["vs"], p["b"])
    ctx.expect_close("tau_f at rest", ctx.call(stribeck_student, np.zeros(n), *args, eps=eps),
                     np.zeros(n), hint="tanh(0) = 0 and b * 0 = 0")
    fast = np.sign(ctx.rng.normal(size=n)) * ctx.rng.uniform(20.0, 40.0, n) * p["vs"]      # |qd| >> v_s, eps
    ctx.expect_close("tau_f far from rest (|qd| >> v_s)", ctx.call(stribeck_student, fast, *args, eps=eps),
                     p["fc"] * np.sign(fast) + p["b"] * fast,
                     hint="sliding fast, the static level has decayed: f_c sign(qd) + b qd")
    tau = ctx.expect_shape("tau_f", ctx.call(stribeck_student, qd, p["fc"], p["fs"], p["vs"], p["b"], eps=eps), (n,))
    ctx.expect_close("stribeck(-qd) = -stribeck(qd)",
                     ctx.call(stribeck_student, -qd, p["fc"], p["fs"], p["vs"], p["b"], eps=eps), -tau,
                     hint="friction is odd in the velocity, tau_f(-qd) = -tau_f(qd): the level depends on |qd|, the "
                         "direction on tanh(qd / eps)")
    if np.any(qd * tau < 0):
        ctx.fail(f"friction must dissipate, qd * tau_f >= 0 for every joint; got qd * tau_f = {qd * tau}", got=qd * tau,
                 call="stribeck(qd, ...)", hint="tau_f has the sign of qd ([WJ]: M qdd + c + g + tau_f = tau_a)")
