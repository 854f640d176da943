"""Checks of exercise 11: gravity compensation, computed-torque control, identification ([DB4 §4.3], [DB4 §4.4]).

The student's controllers take a :class:`~lessonlib.model.Model` and may use the library's dynamics
(``rnea``, ``crba``, ``bias_forces``): the exercise is the control law, so only the library's
controllers (``lessonlib.dynamics.control``) are unavailable. The fit takes the stacked base
regressor and the measured torques; the library's ``identify`` is unavailable. Each check compares
with the library and with an identity that does not use it: a gravity-compensated arm at rest does
not accelerate, the computed-torque loop obeys ``q̈ = q̈_d + K_d ė + K_p e`` (forward dynamics of the
commanded torque), noise-free data give back the true base parameters with ``R² = 1``, and the
least-squares residual is orthogonal to the regressor. The notebook's "solve it on W, not through the
normal equations" is enforced by ``app-fit-stable``: a ``W`` of condition number 1e7, where
``(WᵀW)⁻¹ Wᵀ τ`` (with an inverse or a solve) loses about ``cond(W)² · 1e-16`` of θ and ``lstsq`` about
``cond(W) · 1e-16``.

=========================  ======  ====================================================================
check                      points  what it tests
=========================  ======  ====================================================================
``app-gravity-hold``       1       ``pd_gravity`` at the reference pose, at rest: ``τ = g(q)``, the arm floats
``app-pd-gravity``         1       ``pd_gravity`` in any state, scalar and per-joint gains
``app-ct-law``             2       ``computed_torque`` against the library's controller (also a wrong model)
``app-ct-closed-loop``     1       ``computed_torque``: ``ABA(q, q̇, τ) = q̈_d + K_d ė + K_p e`` (UR5, chains)
``app-fit-exact``          1       ``fit_parameters`` on noise-free data: the true ``θ_b`` and ``R² = 1``
``app-fit-stable``         1       ``fit_parameters`` on a badly conditioned ``W``: solved on W, not WᵀW
``app-fit-noisy``          1       ``fit_parameters`` on noisy data: ``θ_b`` as ``identify``; normal equations
``app-fit-r2``             1       ``fit_parameters``: ``R²`` as ``identify`` (per-joint means)
=========================  ======  ====================================================================
"""
from __future__ import annotations

import numpy as np

from ... import samples
from ...dynamics import aba, gravity_torques
from ...dynamics.control import computed_torque, gravity_compensation
from ...dynamics.regressor import (base_parameters, fourier_trajectory, identify, inertial_parameters,
                                   model_with_parameters, synthetic_measurements)
from ..checker import Exercise
from ._common import random_chain, random_gravity

EXERCISE = Exercise(
    "applications11", notebook="11_applications.ipynb",
    title="Lesson 11 — gravity compensation, computed torque, identification",
    blocked=("lessonlib.dynamics.control:computed_torque", "lessonlib.dynamics.control:gravity_compensation",
             "lessonlib.dynamics.regressor:identify", "lessonlib.dynamics.regressor:_r2"),
    copy_targets=("lessonlib.dynamics.control", "lessonlib.dynamics.regressor"))


# --- reference quantities (judge side; never sent to the kernel) ------------------------------



def random_gains(ctx, n, scalar):
    """``(Kp, Kd)``: two floats, or two (n,) arrays (diagonal gains), both ≥ 0."""
    if scalar:
        Kp = float(ctx.rng.uniform(10.0, 400.0))
        return Kp, float(2 * np.sqrt(Kp) * ctx.rng.uniform(0.5, 1.5))
    Kp = ctx.rng.uniform(10.0, 400.0, n)
    return Kp, 2 * np.sqrt(Kp) * ctx.rng.uniform(0.5, 1.5, n)


def gains_text(Kp):
    return "scalar gains" if np.ndim(Kp) == 0 else "per-joint gains (n,)"


def desired(ctx, n):
    """A desired state ``(q_d, q̇_d, q̈_d)``."""
    return ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), ctx.rng.normal(size=n)


def library_ct(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=None):
    """The library's computed-torque controller, for a constant reference, evaluated once."""
    return computed_torque(model, lambda t: (q_d, qd_d, qdd_d), Kp, Kd, gravity=gravity)(0.0, q, qd)


# --- (a) PD + gravity compensation -------------------------------------------------------------------

@EXERCISE.check("app-gravity-hold", points=1, functions=("pd_gravity",),
                title="gravity compensation holds the arm at rest")
def gravity_hold(ctx, pd_gravity):
    for k, model in enumerate((samples.ur5(), random_chain(ctx, n_max=5))):
        n = model.n
        q = ctx.rng.uniform(-np.pi, np.pi, n)
        Kp, Kd = random_gains(ctx, n, scalar=k == 0)
        g = None if k == 0 else random_gravity(ctx)
        kwargs = {} if g is None else {"gravity": g}
        call = (f"pd_gravity({model.name}, q, qd=0, q_ref=q, Kp, Kd{', gravity=g' if g is not None else ''}) "
                f"with {gains_text(Kp)}")
        tau = ctx.expect_shape("tau", ctx.call(pd_gravity, model, q, np.zeros(n), q.copy(), Kp, Kd, **kwargs), (n,),
                               call=call)
        ctx.expect_close("qdd = aba(model, q, 0, tau): the arm must float", aba(model, q, np.zeros(n), tau, gravity=g),
                         np.zeros(n), call=call,
                         hint="at q = q_ref and qd = 0 the PD part is zero and tau = g(q) = rnea(model, q, 0, 0)")
        ctx.expect_close("tau = g(q)", tau, gravity_torques(model, q, gravity=g), call=call,
                         hint="gravity=None means the model's default, model.gravity")


@EXERCISE.check("app-pd-gravity", points=1, functions=("pd_gravity",),
                title="PD control plus gravity compensation in any state")
def pd_law(ctx, pd_gravity):
    for k in range(3):
        model = random_chain(ctx, n_max=5)
        n = model.n
        q, qd, q_ref = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), ctx.rng.uniform(-np.pi, np.pi, n)
        Kp, Kd = random_gains(ctx, n, scalar=k == 1)
        g = random_gravity(ctx)
        call = f"pd_gravity(model, q, qd, q_ref, Kp, Kd, gravity=g) on a random {n}-link chain, {gains_text(Kp)}"
        expected = gravity_compensation(model, gravity=g, Kp=Kp, Kd=Kd, q_ref=q_ref)(0.0, q, qd)
        ctx.expect_close("tau (n,)", ctx.call(pd_gravity, model, q, qd, q_ref, Kp, Kd, gravity=g), expected, call=call,
                         hint="tau = g(q) + Kp (q_ref - q) - Kd qd (the damping acts on qd itself)")


# --- (b) computed torque ---------------------------------------------------------------------------

@EXERCISE.check("app-ct-law", points=2, functions=("computed_torque",),
                title="the computed-torque law")
def ct_law(ctx, computed_torque_student):
    for k in range(4):
        plant = random_chain(ctx, n_max=5)
        n = plant.n
        model = plant if k < 2 else model_with_parameters(plant, inertial_parameters(plant) * ctx.rng.uniform(0.8, 1.2))
        q, qd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n)
        q_d, qd_d, qdd_d = desired(ctx, n)
        Kp, Kd = random_gains(ctx, n, scalar=k % 2 == 0)
        g = random_gravity(ctx) if k != 1 else None
        kwargs = {} if g is None else {"gravity": g}
        which = "the controller's (wrong) model" if model is not plant else "the exact model"
        call = (f"computed_torque(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd{', gravity=g' if g is not None else ''}) "
                f"with {which} of a random {n}-link chain, {gains_text(Kp)}")
        got = ctx.call(computed_torque_student, model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, **kwargs)
        ctx.expect_close("tau (n,)", got, library_ct(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=g), call=call,
                         hint="tau = M(q) (qdd_d + Kd (qd_d - qd) + Kp (q_d - q)) + c(q, qd) + g(q), "
                              "i.e. rnea(model, q, qd, v) with the commanded acceleration v")


@EXERCISE.check("app-ct-closed-loop", points=1, functions=("computed_torque",),
                title="computed torque linearises the loop: qdd = qdd_d + Kd e_dot + Kp e")
def ct_closed_loop(ctx, computed_torque_student):
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


# --- (c) least squares and R² ------------------------------------------------------------------------

def fit_data(ctx, noise):
    """``(model, base, θ_b true, W (N·n, r), TAU (N, n), Q, QD, QDD)`` from a Fourier excitation."""
    choice = int(ctx.rng.integers(4))
    model = (samples.planar_2link(), samples.seed004_2link(), samples.planar_3link(),
             samples.random_model(3, seed=int(ctx.rng.integers(2**31)), tree=False, prismatic=False))[choice]
    base = base_parameters(model)
    excite = fourier_trajectory(model.n, harmonics=5, base_freq=0.1, seed=int(ctx.rng.integers(2**31)), amplitude=1.0)
    t = np.arange(int(ctx.rng.integers(60, 121))) * 0.1
    Q, QD, QDD, TAU = synthetic_measurements(model, excite, t, torque_noise=noise, seed=int(ctx.rng.integers(2**31)))
    W = np.vstack([base.regressor_base(*s) for s in zip(Q, QD, QDD)])
    return model, base, base.reduce(inertial_parameters(model)), W, TAU, Q, QD, QDD


def fit_result(ctx, result, r, call):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        ctx.fail(f"expected a pair (theta, r2), got {type(result).__name__}"
                 + (f" of length {len(result)}" if isinstance(result, (tuple, list)) else ""), call=call)
    return ctx.expect_shape("theta", result[0], (r,), call=call), ctx.expect_shape("r2", result[1], (), call=call)


def fit_call(model, W, TAU, noise):
    return (f"fit_parameters(W {W.shape}, TAU {TAU.shape}) for {model.name!r}, "
            + ("noise-free torques" if noise == 0 else f"torque noise {noise:.3g} N·m"))


@EXERCISE.check("app-fit-exact", points=1, functions=("fit_parameters",),
                title="least squares recovers the base parameters from noise-free data")
def fit_exact(ctx, fit_parameters):
    model, base, theta_b, W, TAU, *_ = fit_data(ctx, 0.0)
    call = fit_call(model, W, TAU, 0.0)
    theta, r2 = fit_result(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
    ctx.expect_close("theta (the true base parameters)", theta, theta_b, call=call,
                     hint="solve min ||W theta - tau||^2 with tau = TAU.ravel() (sample after sample), "
                          "e.g. numpy.linalg.lstsq(W, tau, rcond=None)[0]")
    ctx.expect_close("r2", r2, 1.0, call=call, hint="a perfect fit leaves no residual: R^2 = 1")


#: Condition number of ``app-fit-stable``'s regressor, and the relative accuracy of θ it asks for: ``lstsq``
#: (QR / SVD of W) reaches ≤ 4e-10 there, the normal equations ≥ 1.7e-5 (cond(W)² eps; both measured over 300 draws).
FIT_ILL_CONDITION = 1e7
FIT_RTOL = 1e-6


def badly_conditioned_fit(ctx):
    """``(W (N·n, r), TAU (N, n), θ)`` with noise-free ``TAU = W θ`` and singular values of W from 1 to 1e-7."""
    N, n, r = int(ctx.rng.integers(40, 80)), int(ctx.rng.integers(2, 4)), int(ctx.rng.integers(6, 11))
    U, _ = np.linalg.qr(ctx.rng.normal(size=(N * n, r)))
    V, _ = np.linalg.qr(ctx.rng.normal(size=(r, r)))
    W = U @ np.diag(np.logspace(0.0, -np.log10(FIT_ILL_CONDITION), r)) @ V.T
    theta = ctx.rng.normal(size=r)
    return W, (W @ theta).reshape(N, n), theta


@EXERCISE.check("app-fit-stable", points=1, functions=("fit_parameters",),
                title="least squares on a badly conditioned regressor: solved on W, not on W^T W")
def fit_stable(ctx, fit_parameters):
    for _ in range(2):
        W, TAU, theta_true = badly_conditioned_fit(ctx)
        call = (f"fit_parameters(W {W.shape}, TAU {TAU.shape}) with W of condition number {FIT_ILL_CONDITION:.0e} "
                "and noise-free torques")
        theta, _ = fit_result(ctx, ctx.call(fit_parameters, W, TAU), W.shape[1], call)
        ctx.expect_close("theta (the true parameters)", theta, theta_true,
                         atol=FIT_RTOL * float(np.abs(theta_true).max()), call=call,
                         hint="the normal equations W^T W theta = W^T tau square the condition number (1e14 here: "
                              "about 1e-2 of theta is lost, with an inverse or a solve alike); numpy.linalg.lstsq "
                              "works on W itself")


@EXERCISE.check("app-fit-noisy", points=1, functions=("fit_parameters",),
                title="least squares on noisy torques")
def fit_noisy(ctx, fit_parameters):
    noise = float(ctx.rng.uniform(0.05, 0.5))
    model, base, _, W, TAU, Q, QD, QDD = fit_data(ctx, noise)
    call = fit_call(model, W, TAU, noise)
    theta, _ = fit_result(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
    reference = identify(model, Q, QD, QDD, TAU, base=base)
    ctx.expect_close("W^T (tau - W theta) (the normal equations)", W.T @ (TAU.ravel() - W @ theta), np.zeros(base.rank),
                     atol=ctx.atol * max(1.0, np.abs(W.T @ TAU.ravel()).max()), call=call,
                     hint="the least-squares residual is orthogonal to every column of W; "
                          "stack tau as TAU.ravel() to match W's rows")
    ctx.expect_close("theta", theta, reference.theta_base, call=call)


@EXERCISE.check("app-fit-r2", points=1, functions=("fit_parameters",),
                title="the coefficient of determination R^2 of the fit")
def fit_r2(ctx, fit_parameters):
    for _ in range(2):
        noise = float(ctx.rng.uniform(0.2, 2.0))
        model, base, _, W, TAU, Q, QD, QDD = fit_data(ctx, noise)
        call = fit_call(model, W, TAU, noise)
        _, r2 = fit_result(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
        ctx.expect_close("r2", r2, identify(model, Q, QD, QDD, TAU, base=base).r2, call=call,
                         hint="R^2 = 1 - sum (tau - tau_hat)^2 / sum (tau - tau_bar_j)^2 over all samples and joints, "
                              "tau_bar_j the mean torque of joint j (TAU.mean(axis=0))")
