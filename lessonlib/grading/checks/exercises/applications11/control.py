"""Exercise 11 (a) and (b): PD control with gravity compensation, and the computed-torque law.

Its helpers (random gains, a desired state, the library's computed torque evaluated once) serve (f),
torque limits, and (g), Slotine–Li, too.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples
from lessonlib.dynamics import aba, bias_forces, crba, gravity_torques
from lessonlib.dynamics.control import computed_torque, gravity_compensation
from lessonlib.dynamics.regressor import inertial_parameters, model_with_parameters
from ...checker import Variant
from .._common import random_chain, random_gravity
from ._exercise import EXERCISE


# --- inputs and references shared with (f) and (g) ------------------------------------------------

def random_gains(ctx, n, scalar):
    """``(Kp, Kd)``: two floats, or two (n,) arrays (diagonal gains), both ≥ 0."""
    if scalar:
        Kp = float(ctx.rng.uniform(10.0, 400.0))
        return Kp, float(2 * np.sqrt(Kp) * ctx.rng.uniform(0.5, 1.5))
    Kp = ctx.rng.uniform(10.0, 400.0, n)
    return Kp, 2 * np.sqrt(Kp) * ctx.rng.uniform(0.5, 1.5, n)


def _gains_text(Kp):
    return "scalar gains" if np.ndim(Kp) == 0 else "per-joint gains (n,)"


def desired(ctx, n):
    """A desired state ``(q_d, q̇_d, q̈_d)``."""
    return ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), ctx.rng.normal(size=n)


def library_ct(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=None):
    """The library's computed-torque controller, for a constant reference, evaluated once."""
    return computed_torque(model, lambda t: (q_d, qd_d, qdd_d), Kp, Kd, gravity=gravity)(0.0, q, qd)


# --- (a) PD + gravity compensation -------------------------------------------------------------------

def pd_gravity_with(model, q, qd, q_ref, Kp, Kd, gravity=None, *, pass_gravity=True):
    """``τ = g(q) + K_p (q_ref − q) − K_d q̇`` — or the slip: ``gravity`` not passed on (always ``model.gravity``)."""
    g = gravity_torques(model, q, gravity=gravity if pass_gravity else None)
    return g + Kp * (np.asarray(q_ref, dtype=float) - q) - Kd * np.asarray(qd, dtype=float)


GRAVITY_NOT_PASSED = Variant("your g(q) seems to ignore the gravity argument: it uses model.gravity whatever the "
                             "caller asks; pass it on, rnea(model, q, 0, 0, gravity=gravity)",
                             pd_gravity=partial(pd_gravity_with, pass_gravity=False))


@EXERCISE.check("app-gravity-hold", points=1, functions=("pd_gravity",),
                title="gravity compensation holds the arm at rest", variants=(GRAVITY_NOT_PASSED,))
def check_gravity_hold(ctx, pd_gravity):
    for k, model in enumerate((samples.ur5(), random_chain(ctx, n_max=5))):
        n = model.n
        q = ctx.rng.uniform(-np.pi, np.pi, n)
        Kp, Kd = random_gains(ctx, n, scalar=k == 0)
        g = None if k == 0 else random_gravity(ctx)
        kwargs = {} if g is None else {"gravity": g}
        tau = ctx.expect_shape("tau", ctx.call(pd_gravity, model, q, np.zeros(n), q.copy(), Kp, Kd, **kwargs), (n,))
        ctx.expect_close("qdd = aba(model, q, 0, tau): the arm must float", aba(model, q, np.zeros(n), tau, gravity=g),
                         np.zeros(n),
                         hint="at q = q_ref and qd = 0 the PD part is zero and tau = g(q) = rnea(model, q, 0, 0)")
        ctx.expect_close("tau = g(q)", tau, gravity_torques(model, q, gravity=g),
                         hint="gravity=None means the model's default, model.gravity")


@EXERCISE.check("app-pd-gravity", points=1, functions=("pd_gravity",),
                title="PD control plus gravity compensation in any state", variants=(GRAVITY_NOT_PASSED,))
def check_pd_gravity(ctx, pd_gravity):
    for k in range(3):
        model = random_chain(ctx, n_max=5)
        n = model.n
        q, qd, q_ref = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), ctx.rng.uniform(-np.pi, np.pi, n)
        Kp, Kd = random_gains(ctx, n, scalar=k == 1)
        g = random_gravity(ctx)
        expected = gravity_compensation(model, gravity=g, Kp=Kp, Kd=Kd, q_ref=q_ref)(0.0, q, qd)
        ctx.expect_close("tau (n,)", ctx.call(pd_gravity, model, q, qd, q_ref, Kp, Kd, gravity=g), expected,
                         hint="tau = g(q) + Kp (q_ref - q) - Kd qd (the damping acts on qd itself)")


# --- (b) computed torque ---------------------------------------------------------------------------

def ct_with(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=None, *, error_sign=1.0, damp_qd=False,
            gains_inside=True, bias="c+g", pass_gravity=True):
    """``τ = M(q) v + c + g`` with ``v = q̈_d + K_d (q̇_d − q̇) + K_p (q_d − q)`` — or a slip: the errors with
    ``error_sign = −1`` (``q − q_d``), ``− K_d q̇`` for the damping (``damp_qd``), the gains outside ``M``
    (``gains_inside=False``: ``M q̈_d`` + the PD terms), another ``bias`` (``"none"``, ``"c"``: no gravity, ``"g"``:
    no velocity terms), or ``gravity`` not passed on (always ``model.gravity``)."""
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    damping = -Kd * qd if damp_qd else error_sign * Kd * (np.asarray(qd_d, dtype=float) - qd)
    feedback = damping + error_sign * Kp * (np.asarray(q_d, dtype=float) - q)
    M = crba(model, q)
    tau = M @ (qdd_d + feedback) if gains_inside else M @ np.asarray(qdd_d, dtype=float) + feedback
    g = gravity if pass_gravity else None
    return tau + {"c+g": lambda: bias_forces(model, q, qd, gravity=g), "none": lambda: 0.0,
                  "c": lambda: bias_forces(model, q, qd, gravity=np.zeros(3)),
                  "g": lambda: gravity_torques(model, q, gravity=g)}[bias]()


CT_ERROR_SIGN = Variant("your feedback seems to push away from the reference: with q̃ = q − q_d the commanded "
                        "acceleration is q̈_d − K_d q̃̇ − K_p q̃ = qdd_d + Kd (qd_d − qd) + Kp (q_d − q); yours "
                        "adds K_d q̃̇ + K_p q̃", computed_torque=partial(ct_with, error_sign=-1.0))
CT_DAMP_QD = Variant("your damping seems to act on q̇ itself (− K_d q̇, as in (a)'s PD law); computed torque "
                     "damps the velocity error: − K_d q̃̇ = Kd (qd_d − qd)",
                     computed_torque=partial(ct_with, damp_qd=True))
CT_GAINS_OUTSIDE = Variant("your PD terms seem to be added to the torque outside M(q): τ = M(q) q̈_d − K_d q̃̇ "
                           "− K_p q̃ + c + g; the gains belong inside, in the commanded acceleration "
                           "v = q̈_d − K_d q̃̇ − K_p q̃, then τ = M(q) v + c + g",
                           computed_torque=partial(ct_with, gains_inside=False))
CT_NO_BIAS = Variant("your τ seems to stop at M(q) v: the bias c(q, q̇) + g(q) is missing (bias_forces(model, q, "
                     "qd, gravity=gravity), or the whole τ from one rnea(model, q, qd, v, gravity=gravity))",
                     computed_torque=partial(ct_with, bias="none"))
CT_NO_GRAVITY = Variant("your bias seems to lack gravity: c(q, q̇) is there but g(q) is not (gravity switched "
                        "off?); bias_forces(model, q, qd, gravity=gravity) is c + g",
                        computed_torque=partial(ct_with, bias="c"))
CT_NO_VELOCITY = Variant("your bias seems to be g(q) alone: the velocity terms c(q, q̇) are missing; "
                         "bias_forces(model, q, qd, gravity=gravity) is c + g",
                         computed_torque=partial(ct_with, bias="g"))
CT_GRAVITY_NOT_PASSED = Variant("your c + g seems to ignore the gravity argument: it uses model.gravity whatever "
                                "the caller asks; pass it on (bias_forces(..., gravity=gravity) or rnea(..., "
                                "gravity=gravity))", computed_torque=partial(ct_with, pass_gravity=False))
_CT_VARIANTS = (CT_ERROR_SIGN, CT_DAMP_QD, CT_GAINS_OUTSIDE, CT_NO_BIAS, CT_NO_GRAVITY, CT_NO_VELOCITY,
                CT_GRAVITY_NOT_PASSED)


@EXERCISE.check("app-ct-law", points=2, functions=("computed_torque",),
                title="the computed-torque law", variants=_CT_VARIANTS)
def check_ct_law(ctx, computed_torque_student):
    for k in range(4):
        plant = random_chain(ctx, n_max=5, prismatic=k > 0)     # the first has velocity terms: no all-prismatic chain
        n = plant.n
        model = plant if k < 2 else model_with_parameters(plant, inertial_parameters(plant) * ctx.rng.uniform(0.8, 1.2))
        q, qd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n)
        q_d, qd_d, qdd_d = desired(ctx, n)
        Kp, Kd = random_gains(ctx, n, scalar=k % 2 == 0)
        g = random_gravity(ctx) if k != 1 else None
        kwargs = {} if g is None else {"gravity": g}
        which = "the controller's (wrong) model" if model is not plant else "the exact model"
        call = (f"computed_torque(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd{', gravity=g' if g is not None else ''}) "
                f"with {which} of a random {n}-link chain, {_gains_text(Kp)}")
        got = ctx.call(computed_torque_student, model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, **kwargs)
        ctx.expect_close("tau (n,)", got, library_ct(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=g), call=call,
                         hint="tau = M(q) (qdd_d + Kd (qd_d - qd) + Kp (q_d - q)) + c(q, qd) + g(q), "
                              "i.e. rnea(model, q, qd, v) with the commanded acceleration v")


@EXERCISE.check("app-ct-closed-loop", points=1, functions=("computed_torque",),
                title="computed torque linearises the loop: qdd = qdd_d + Kd e_dot + Kp e", variants=_CT_VARIANTS)
def check_ct_closed_loop(ctx, computed_torque_student):
    for k, model in enumerate((samples.ur5(), random_chain(ctx, n_max=5))):
        n = model.n
        q, qd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n)
        q_d, qd_d, qdd_d = desired(ctx, n)
        Kp, Kd = random_gains(ctx, n, scalar=k == 0)
        g = None if k == 0 else random_gravity(ctx)
        kwargs = {} if g is None else {"gravity": g}
        call = (f"computed_torque({model.name}, q, qd, q_d, qd_d, qdd_d, Kp, Kd"
                f"{', gravity=g' if g is not None else ''}), then the arm's forward dynamics aba(model, q, qd, tau)")
        tau = ctx.expect_shape("tau", ctx.call(computed_torque_student, model, q, qd, q_d, qd_d, qdd_d, Kp, Kd,
                                               **kwargs), (n,), call=call)
        ctx.expect_close("qdd of the arm driven by your tau", aba(model, q, qd, tau, gravity=g),
                         qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q), call=call,
                         hint="with the exact model, M qdd + c + g = tau gives qdd = v, the commanded acceleration: "
                              "e_ddot + Kd e_dot + Kp e = 0")
