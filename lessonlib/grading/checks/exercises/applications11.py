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

Parts (d)–(g) are what [DB4 §4.3–4.4] and [RNE05] add; the library's versions are stubbed in the
graded kernel (``blocked``). (d) Friction identified with the inertia ([DB4 §4.4]): the Stribeck
columns against ``friction_regressor`` (self-tested against ``stribeck``), and the fit with ``v_s``
searched on noise-free data (the true ``v_s``, ``θ_b`` and friction) and on noisy, weighted data
(``identify_with_friction``). (e) The generalised-momentum observer ([DB4 §4.3]): one sample against
``observer_step``, then the student's step run sample after sample on a simulated push
(``push_and_observe``): ``r ≈ 0`` before, ``r ≈ Jᵀ F`` once the push has lasted ``6/K``. (f) Torque
limits ([RNE05] §五): the clipped computed torque (``saturated``) and a torque-limited run against the
library's. (g) Slotine–Li ([Slotine & Li 1987]): the regressor ``Y θ = M a + C(q, q̇) v + g`` against
the CRBA, ``coriolis_matrix`` and gravity torques, the law against ``slotine_li_regressor``, and the
closed loop (the student's law inside the checker's RK4): ``V = ½ sᵀMs + ½ θ̃ᵀΓ⁻¹θ̃`` never increases,
and the estimates end where the law's own closed loop takes them (``V`` does not increase without adaptation
either: the true model's torque with ``â`` held fixed).

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
``app-friction-columns``   1       ``stribeck_columns``: ``(q̇, σ(1 − e), σ e)``, σ = tanh(q̇/ε)
``app-friction-fit``       2       ``fit_with_friction``: true ``v_s, θ_b, φ`` (noise-free); weighted fit (noisy)
``app-observer-step``      1       ``observer_step``: one sample, as the library's
``app-observer-push``      1       ``observer_step`` sample after sample: ``r`` follows ``Jᵀ F`` of a push
``app-limits-law``         1       ``limited_computed_torque``: the computed torque clipped joint by joint
``app-limits-run``         1       ``track_with_limits``: tracking errors of a torque-limited fast move
``app-sl-regressor``       1       ``sl_regressor``: ``Y θ = M a + C(q, q̇) v + g``
``app-sl-law``             1       ``sl_control``: ``τ = Y â − K_D s``, ``â̇ = −Γ Yᵀ s``
``app-sl-closed-loop``     1       ``sl_control`` in closed loop: ``V`` never increases, ``â`` adapts as the law
=========================  ======  ====================================================================
"""
from __future__ import annotations

from functools import partial
from itertools import product

import numpy as np

from lessonlib import samples
from lessonlib.dynamics import (ObserverState, aba, adaptation_gains, bias_forces, coriolis_matrix, crba, gravity_torques,
                         observer_step, push_and_observe, rnea, simulate, simulate_slotine_li,
                         slotine_li_regressor)
from lessonlib.dynamics.control import computed_torque, gravity_compensation, quintic, saturated
from lessonlib.dynamics.friction import SMOOTH_EPS, Friction, friction_regressor, stribeck
from lessonlib.dynamics.regressor import (base_parameters, check_excitation_band, fourier_trajectory, identify,
                                   identify_with_friction, inertial_parameters, model_with_parameters, regressor,
                                   synthetic_measurements)
from lessonlib.dynamics.simulate import rk4
from .. import display
from ..checker import Exercise, Variant
from ._common import random_chain, random_gravity

EXERCISE = Exercise(
    "applications11", notebook="11_applications.ipynb",
    title="Lesson 11 — gravity compensation, computed torque, identification",
    blocked=("lessonlib.dynamics.control:computed_torque", "lessonlib.dynamics.control:_computed_torque_with",
             "lessonlib.dynamics.control:gravity_compensation",
             "lessonlib.dynamics.control:saturated", "lessonlib.dynamics.regressor:identify",
             "lessonlib.dynamics.regressor:_r2", "lessonlib.dynamics.regressor:identify_with_friction",
             "lessonlib.dynamics.regressor:_friction_block", "lessonlib.dynamics.friction:friction_regressor",
             "lessonlib.dynamics.friction:stribeck", "lessonlib.dynamics.observer:observer_start",
             "lessonlib.dynamics.observer:observer_step", "lessonlib.dynamics.observer:run_observer",
             "lessonlib.dynamics.observer:push_and_observe", "lessonlib.dynamics.observer:_state_rate",
             "lessonlib.dynamics.adaptive:slotine_li_regressor", "lessonlib.dynamics.adaptive:simulate_slotine_li",
             "lessonlib.dynamics.adaptive:adaptation_gains"),
    copy_targets=("lessonlib.dynamics.control", "lessonlib.dynamics.regressor", "lessonlib.dynamics.friction",
                  "lessonlib.dynamics.observer", "lessonlib.dynamics.adaptive"))


# --- reference quantities (judge side; never sent to the kernel) ------------------------------


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

@EXERCISE.check("app-gravity-hold", points=1, functions=("pd_gravity",),
                title="gravity compensation holds the arm at rest")
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
                title="PD control plus gravity compensation in any state")
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

@EXERCISE.check("app-ct-law", points=2, functions=("computed_torque",),
                title="the computed-torque law")
def check_ct_law(ctx, computed_torque_student):
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
                f"with {which} of a random {n}-link chain, {_gains_text(Kp)}")
        got = ctx.call(computed_torque_student, model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, **kwargs)
        ctx.expect_close("tau (n,)", got, library_ct(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=g), call=call,
                         hint="tau = M(q) (qdd_d + Kd (qd_d - qd) + Kp (q_d - q)) + c(q, qd) + g(q), "
                              "i.e. rnea(model, q, qd, v) with the commanded acceleration v")


@EXERCISE.check("app-ct-closed-loop", points=1, functions=("computed_torque",),
                title="computed torque linearises the loop: qdd = qdd_d + Kd e_dot + Kp e")
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


def _expect_fit(ctx, result, r, call):
    """A fit's ``(theta (r,), r2)``, or a readable failure."""
    theta, r2 = ctx.expect_tuple(result, ("theta", "r2"), call=call)
    return ctx.expect_shape("theta", theta, (r,), call=call), ctx.expect_shape("r2", r2, (), call=call)


def _fit_call(model, W, TAU, noise):
    return (f"fit_parameters(W {W.shape}, TAU {TAU.shape}) for {model.name!r}, "
            + ("noise-free torques" if noise == 0 else f"torque noise {noise:.3g} N·m"))


@EXERCISE.check("app-fit-exact", points=1, functions=("fit_parameters",),
                title="least squares recovers the base parameters from noise-free data")
def check_fit_exact(ctx, fit_parameters):
    model, base, theta_b, W, TAU, *_ = fit_data(ctx, 0.0)
    call = _fit_call(model, W, TAU, 0.0)
    theta, r2 = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
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
def check_fit_stable(ctx, fit_parameters):
    for _ in range(2):
        W, TAU, theta_true = badly_conditioned_fit(ctx)
        call = (f"fit_parameters(W {W.shape}, TAU {TAU.shape}) with W of condition number {FIT_ILL_CONDITION:.0e} "
                "and noise-free torques")
        theta, _ = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), W.shape[1], call)
        ctx.expect_close("theta (the true parameters)", theta, theta_true,
                         atol=FIT_RTOL * float(np.abs(theta_true).max()), call=call,
                         hint="the normal equations W^T W theta = W^T tau square the condition number (1e14 here: "
                              "about 1e-2 of theta is lost, with an inverse or a solve alike); numpy.linalg.lstsq "
                              "works on W itself")


@EXERCISE.check("app-fit-noisy", points=1, functions=("fit_parameters",),
                title="least squares on noisy torques")
def check_fit_noisy(ctx, fit_parameters):
    noise = float(ctx.rng.uniform(0.05, 0.5))
    model, base, _, W, TAU, Q, QD, QDD = fit_data(ctx, noise)
    call = _fit_call(model, W, TAU, noise)
    theta, _ = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
    reference = identify(model, Q, QD, QDD, TAU, base=base)
    ctx.expect_close("W^T (tau - W theta) (the normal equations)", W.T @ (TAU.ravel() - W @ theta), np.zeros(base.rank),
                     atol=ctx.atol * max(1.0, np.abs(W.T @ TAU.ravel()).max()), call=call,
                     hint="the least-squares residual is orthogonal to every column of W; "
                          "stack tau as TAU.ravel() to match W's rows")
    ctx.expect_close("theta", theta, reference.theta_base, call=call)


@EXERCISE.check("app-fit-r2", points=1, functions=("fit_parameters",),
                title="the coefficient of determination R^2 of the fit")
def check_fit_r2(ctx, fit_parameters):
    for _ in range(2):
        noise = float(ctx.rng.uniform(0.2, 2.0))
        model, base, _, W, TAU, Q, QD, QDD = fit_data(ctx, noise)
        call = _fit_call(model, W, TAU, noise)
        _, r2 = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
        ctx.expect_close("r2", r2, identify(model, Q, QD, QDD, TAU, base=base).r2, call=call,
                         hint="R^2 = 1 - sum (tau - tau_hat)^2 / sum (tau - tau_bar_j)^2 over all samples and joints, "
                              "tau_bar_j the mean torque of joint j (TAU.mean(axis=0))")


# --- (d) identification with friction ([DB4 §4.4]): the Stribeck columns and the search for v_s -----------------

def stribeck_columns_with(QD, vs, *, sigma=None, static_sign=True, coulomb="sliding", power=2.0):
    """``Φ`` (N, n, 3) = ``(q̇, σ(1 − e), σ e)``, ``σ = tanh(q̇/ε)``, ``e = exp(−(q̇/v_s)²)`` — or a slip: another
    ``sigma``, the static column without σ, the Coulomb column σ alone, another exponent ``power``."""
    QD = np.asarray(QD, dtype=float)
    s = np.tanh(QD / SMOOTH_EPS) if sigma is None else sigma(QD)
    e = np.exp(-np.abs(QD / np.asarray(vs, dtype=float)) ** power)
    return np.stack([QD, s * (1 - e) if coulomb == "sliding" else s, s * e if static_sign else e], axis=-1)


def stacked_friction(Phi):
    """Row (sample k, joint j) of the stacked friction columns holds ``Φ[k, j]`` in joint j's three columns."""
    N, n, k = Phi.shape
    F = np.zeros((N, n, n, k))
    F[:, np.arange(n), np.arange(n), :] = Phi
    return F.reshape(N * n, n * k)


def fit_with(W, QD, TAU, vs_grid, weights, *, shared=False, row_scale=lambda w: w):
    """Weighted least squares of ``[W, Φ(v_s)]`` for every ``v_s`` of the grid per joint (all combinations), the
    best kept — or a slip: one ``v_s`` for all joints (``shared``), rows scaled by another ``row_scale(w)``."""
    W, QD, TAU = (np.asarray(x, dtype=float) for x in (W, QD, TAU))
    n, r = TAU.shape[1], W.shape[1]
    scale = np.tile(row_scale(np.asarray(weights, dtype=float)), TAU.shape[0])
    combos = [np.full(n, v) for v in vs_grid] if shared else [np.array(c) for c in product(vs_grid, repeat=n)]
    best = None
    for vs in combos:
        A = np.hstack([W, stacked_friction(stribeck_columns_with(QD, vs))]) * scale[:, None]
        y = TAU.ravel() * scale
        x = np.linalg.lstsq(A, y, rcond=None)[0]
        cost = float(np.sum((A @ x - y) ** 2))
        if best is None or cost < best[0]:
            best = (cost, x, vs)
    _, x, vs = best
    return x[:r], x[r:].reshape(n, 3), vs


#: The Stribeck velocities the fit searches (rad/s): six values from 0.02 to 0.5.
VS_GRID = np.geomspace(0.02, 0.5, 6)


def friction_data(ctx, sigma):
    """A 2-joint arm on a Fourier excitation (0.1–1 Hz) with Stribeck friction; torque noise ``sigma`` (2,) per joint.

    Returns ``(model, base, θ_b, friction (2, 3) = (b, f_c, f_s), v_s (2,), W, Q, QD, QDD, TAU)``.
    """
    choice = int(ctx.rng.integers(3))
    model = (samples.planar_2link(), samples.seed004_2link(),
             samples.random_model(2, seed=int(ctx.rng.integers(2**31)), tree=False, prismatic=False))[choice]
    base = base_parameters(model)
    assert check_excitation_band(0.1, 10) == (0.1, 1.0)
    excite = fourier_trajectory(2, harmonics=10, base_freq=0.1, seed=int(ctx.rng.integers(2**31)), amplitude=0.8)
    Q, QD, QDD, TAU = synthetic_measurements(model, excite, np.arange(250) * 0.04)
    vs = VS_GRID[ctx.rng.choice(VS_GRID.size, 2, replace=False)]
    b, fc = ctx.rng.uniform(0.05, 0.5, 2), ctx.rng.uniform(0.2, 1.5, 2)
    fs = fc + ctx.rng.uniform(0.3, 1.5, 2)
    TAU = TAU + Friction(viscous=b, coulomb=fc, static=fs, stribeck_velocity=vs)(QD) + ctx.rng.normal(size=TAU.shape) * sigma
    W = np.vstack([base.regressor_base(*x) for x in zip(Q, QD, QDD)])
    return model, base, base.reduce(inertial_parameters(model)), np.column_stack([b, fc, fs]), vs, W, Q, QD, QDD, TAU


COL_NO_SIGN = Variant("your static column seems to be e alone; friction changes sign with the velocity: the column "
                      "of f_s is σ(q̇) e", stribeck_columns=partial(stribeck_columns_with, static_sign=False))
COL_COULOMB_SIGMA = Variant("your Coulomb column seems to be σ(q̇) alone; with f_s multiplying σ e it is σ (1 − e): "
                            "τ_f = b q̇ + f_c σ (1 − e) + f_s σ e",
                            stribeck_columns=partial(stribeck_columns_with, coulomb="plain"))
COL_EXPONENT = Variant("your e seems to be exp(−|q̇/v_s|); the Stribeck curve here is Gaussian, exp(−(q̇/v_s)²)",
                       stribeck_columns=partial(stribeck_columns_with, power=1.0))
COL_SIGN = Variant("your σ(q̇) seems to be np.sign(q̇); use tanh(q̇/ε) with ε = 1e-3, the smooth sign the data "
                   "were made with (they differ within a few ε of rest)",
                   stribeck_columns=partial(stribeck_columns_with, sigma=np.sign))
FIT_SHARED = Variant("your search seems to try one v_s for all joints; each joint has its own Stribeck velocity: "
                     "search the grid for every joint (all combinations)",
                     fit_with_friction=partial(fit_with, shared=True))
FIT_UNWEIGHTED = Variant("your fit seems to ignore the weights: scale the rows of joint j (W and τ alike) by w_j",
                         fit_with_friction=partial(fit_with, row_scale=np.ones_like))
FIT_SQRT_WEIGHTS = Variant("your rows seem to be scaled by √w_j, as if w_j were the diagonal of the weight matrix in "
                           "(WᵀDW)⁻¹WᵀDτ; with w_j = 1/σ_j the rows are scaled by w_j (D = diag(w_j²))",
                           fit_with_friction=partial(fit_with, row_scale=np.sqrt))


@EXERCISE.check("app-friction-columns", points=1, functions=("stribeck_columns",),
                title="the Stribeck friction columns of the regressor",
                variants=(COL_NO_SIGN, COL_COULOMB_SIGMA, COL_EXPONENT, COL_SIGN))
def check_friction_columns(ctx, stribeck_columns):
    for _ in range(2):
        n = int(ctx.rng.integers(2, 5))
        QD = ctx.rng.choice([-1.0, 1.0], size=(40, n)) * 10 ** ctx.rng.uniform(-3.3, 0.5, (40, n))
        vs = ctx.rng.uniform(0.02, 0.5, n)
        expected = friction_regressor(QD, "stribeck", vs=vs)
        phi = np.column_stack([ctx.rng.uniform(0.05, 0.5, n), ctx.rng.uniform(0.2, 1.5, n), ctx.rng.uniform(1.5, 3, n)])
        law = stribeck(QD, fc=phi[:, 1], fs=phi[:, 2], vs=vs, b=phi[:, 0])
        assert np.allclose(np.einsum("knc,nc->kn", expected, phi), law), "checker self-test: columns vs stribeck()"
        call = f"stribeck_columns(QD {QD.shape}, vs={display.array(vs)}) (speeds from 5e-4 to 3 rad/s)"
        ctx.expect_close(f"Phi (40, {n}, 3)", ctx.call(stribeck_columns, QD, vs), expected, call=call,
                         hint="Phi[k, j] = (q̇, σ(1 − e), σ e) with σ = tanh(q̇/ε), ε = 1e-3, e = exp(−(q̇/v_s,j)²): "
                              "then Phi @ (b, f_c, f_s) is the Stribeck torque")


@EXERCISE.check("app-friction-fit", points=2, functions=("fit_with_friction",), helpers=("stribeck_columns",),
                title="inertial and friction parameters together, the Stribeck velocity searched",
                variants=(FIT_SHARED, FIT_UNWEIGHTED, FIT_SQRT_WEIGHTS))
def check_friction_fit(ctx, fit_with_friction, stribeck_columns):
    model, base, theta, phi, vs, W, Q, QD, QDD, TAU = friction_data(ctx, np.zeros(2))
    weights = 1.0 / ctx.rng.uniform(0.005, 0.05, 2)
    call = (f"fit_with_friction(W {W.shape}, QD {QD.shape}, TAU {TAU.shape}, vs_grid, weights) for {model.name!r}, "
            f"noise-free torques, true v_s = {display.array(vs)}")
    with ctx.suspects(ctx.suspect(stribeck_columns, QD, vs, expected=friction_regressor(QD, "stribeck", vs=vs),
                                  call="stribeck_columns(QD, true vs)", see="app-friction-columns")):
        got = ctx.expect_tuple(ctx.call(fit_with_friction, W, QD, TAU, VS_GRID, weights), ("theta", "phi", "vs"),
                               call=call)
        ctx.expect_close("vs (the true Stribeck velocities)", got[2], vs, call=call,
                         hint="for every pair (v_s1, v_s2) of the grid solve the least squares of [W, friction columns] "
                              "and keep the pair with the smallest residual: noise-free data fit exactly at the true pair")
        ctx.expect_close("theta (the true base parameters)", got[0], theta, call=call)
        ctx.expect_close("phi (the true (b, f_c, f_s) per joint)", got[1], phi, call=call)
    sigma = ctx.rng.uniform(0.005, 0.02, 2) * np.array([1.0, 5.0])[ctx.rng.permutation(2)]
    model, base, theta, phi, vs, W, Q, QD, QDD, TAU = friction_data(ctx, sigma)
    weights = 1.0 / sigma
    reference = identify_with_friction(model, Q, QD, QDD, TAU, law="stribeck", base=base, weights=weights,
                                       vs_grid=VS_GRID)
    call = (f"fit_with_friction(W, QD, TAU, vs_grid, weights = 1/σ = {display.array(weights)}) for "
            f"{model.name!r}, torque noise σ = {display.array(sigma)} N·m per joint")
    got = ctx.expect_tuple(ctx.call(fit_with_friction, W, QD, TAU, VS_GRID, weights), ("theta", "phi", "vs"), call=call)
    ctx.expect_close("vs", got[2], reference.vs, call=call)
    ctx.expect_close("theta (weighted least squares)", got[0], reference.theta_base, call=call,
                     hint="minimise Σ_k Σ_j (w_j (W θ + Φ φ − τ)_kj)²: multiply the rows of joint j, W and τ alike, by w_j")
    ctx.expect_close("phi (weighted least squares)", got[1], reference.friction, call=call)


# --- (e) the generalized-momentum observer ([DB4 §4.3]; [De Luca & Mattone 2005]) ------------------------------

def observer_with(model, state, tau, q_next, qd_next, dt, K, *, transpose=True, gravity_sign=-1.0, held=1.0,
                  trapezoid=True, course_sign=1.0):
    """One sample of the observer, ``I ← I + dt (τ + ½(h_k + h_k+1) + r)``, ``r ← K (M q̇ − I − p0)``, ``h = Cᵀq̇ − g``
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
OBS_NO_R = Variant("your integral seems to lack + r: the residual must be fed back, I ← I + dt (τ + h + r), "
                   "which makes ṙ = K (τ_ext − r)", observer_step=partial(observer_with, held=0.0))
OBS_RECTANGLE = Variant("your integral seems to take h at the current sample only; the instruction is the "
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
                         hint="I_k+1 = I_k + dt (τ + ½ (h_k + h_k+1) + r_k) with h = C(q, q̇)ᵀ q̇ − g(q) at each sample")
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
LIM_BEFORE_BIAS = Variant("your limit seems to be applied to M(q) v before c(q, q̇) + g(q) are added; the actuator "
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
RUN_ERROR_SIGN = Variant("your E seems to be q − q_d; the tracking error is e = q_d(t) − q(t)",
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


# --- (g) Slotine–Li adaptive control ([Slotine & Li 1987], pointed to by [RNE05] §七) ------------------------

def sl_regressor_with(model, q, qd, v, a, *, velocity="polarised", half=0.5, c_gravity=False):
    """``Y`` with ``Y θ = M a + C(q, q̇) v + g`` — or a slip: ``c(q, q̇)`` or ``c(q, v)`` as the velocity term, no ½ in
    the polarisation, or gravity left in the ``c(·)`` calls."""
    zero = np.zeros(model.n)
    g_c = None if c_gravity else np.zeros(3)

    def c(x):
        return regressor(model, q, x, zero, gravity=g_c)

    if velocity == "qd":
        return regressor(model, q, qd, a)
    if velocity == "v":
        return regressor(model, q, v, a)
    return regressor(model, q, zero, a) + half * (c(np.asarray(qd) + v) - c(qd) - c(v))


def sl_control_with(model, q, qd, q_d, qd_d, qdd_d, a_hat, columns, Lambda, K_D, Gamma, *, adapt=-1.0, error=1.0,
                    s_sign=1.0, desired_y=False):
    """Slotine–Li: ``τ = Y(q, q̇, q̇_r, q̈_r) â − K_D s``, ``â̇ = −Γ Yᵀ s`` — or a slip: ``+Γ``, ``q̃ = q_d − q``,
    ``s = q̇_r − q̇``, the regressor at the desired motion (``q̇_d, q̈_d``)."""
    q_err = error * (np.asarray(q) - q_d)
    qd_r = qd_d - Lambda * q_err
    qdd_r = qdd_d - Lambda * error * (np.asarray(qd) - qd_d)
    s = s_sign * (qd - qd_r)
    v, a = (qd_d, qdd_d) if desired_y else (qd_r, qdd_r)
    Y = slotine_li_regressor(model, q, qd, v, a)[:, np.asarray(columns, dtype=int)]
    return Y @ a_hat - K_D * s, adapt * Gamma * (Y.T @ s)


Y_C_QD = Variant("your velocity term seems to be c(q, q̇) = C(q, q̇) q̇ (the inverse-dynamics regressor at q̇); "
                 "Slotine–Li needs C(q, q̇) v for the reference velocity v",
                 sl_regressor=partial(sl_regressor_with, velocity="qd"))
Y_C_V = Variant("your velocity term seems to be c(q, v) = C(q, v) v; the controller needs C(q, q̇) v (then Ṁ − 2C "
                "is skew and V decreases): polarise, ½ (c(q̇ + v) − c(q̇) − c(v))",
                sl_regressor=partial(sl_regressor_with, velocity="v"))
Y_NO_HALF = Variant("your polarisation seems to lack the ½: c(q̇ + v) − c(q̇) − c(v) = 2 C(q, q̇) v",
                    sl_regressor=partial(sl_regressor_with, half=1.0))
Y_C_GRAVITY = Variant("your c(·) regressor calls seem to include gravity; each c(x) = C(q, x) x must be computed "
                      "with gravity=(0, 0, 0), or ½(g − g − g) leaves only half of g(q)",
                      sl_regressor=partial(sl_regressor_with, c_gravity=True))
SL_ADAPT_SIGN = Variant("your adaptation seems to be +Γ Yᵀ s; it is â̇ = −Γ Yᵀ s, which cancels the parameter term "
                        "in V̇", sl_control=partial(sl_control_with, adapt=1.0))
SL_ERROR_SIGN = Variant("your q̃ seems to be q_d − q; Slotine–Li's q̃ = q − q_d, so that q̇_r = q̇_d − Λ q̃ pulls "
                        "toward q_d", sl_control=partial(sl_control_with, error=-1.0))
SL_S_SIGN = Variant("your s seems to be q̇_r − q̇; it is s = q̇ − q̇_r (the sliding variable q̃' + Λ q̃)",
                    sl_control=partial(sl_control_with, s_sign=-1.0))
SL_DESIRED_Y = Variant("your regressor seems to be taken at the desired motion (q̇_d, q̈_d); Slotine–Li takes it at "
                       "the reference motion (q̇_r, q̈_r) = (q̇_d − Λ q̃, q̈_d − Λ q̃')",
                       sl_control=partial(sl_control_with, desired_y=True))


@EXERCISE.check("app-sl-regressor", points=1, functions=("sl_regressor",),
                title="the Slotine–Li regressor: Y θ = M a + C(q, q̇) v + g",
                variants=(Y_C_QD, Y_C_V, Y_NO_HALF, Y_C_GRAVITY))
def check_sl_regressor(ctx, sl_regressor):
    for _ in range(3):
        model = random_chain(ctx, n_max=4)
        n = model.n
        q, qd, v, a = ctx.rng.uniform(-np.pi, np.pi, n), *ctx.rng.normal(size=(3, n))
        Y = ctx.expect_shape(f"Y ({n}, {10 * n})", ctx.call(sl_regressor, model, q, qd, v, a), (n, 10 * n))
        ctx.expect_close("Y @ inertial_parameters(model)", Y @ inertial_parameters(model),
                         crba(model, q) @ a + coriolis_matrix(model, q, qd) @ v + gravity_torques(model, q),
                         hint="Y θ = M(q) a + C(q, q̇) v + g(q): regressor(model, q, 0, a) gives M a + g; C(q, q̇) v = "
                              "½ (c(q̇ + v) − c(q̇) − c(v)) with c(x) = regressor(model, q, x, 0, gravity=(0, 0, 0))")
        ctx.expect_close("Y (every column)", Y, slotine_li_regressor(model, q, qd, v, a))


@EXERCISE.check("app-sl-law", points=1, functions=("sl_control",), helpers=("sl_regressor",),
                title="the Slotine–Li control law and adaptation",
                variants=(SL_ADAPT_SIGN, SL_ERROR_SIGN, SL_S_SIGN, SL_DESIRED_Y))
def check_sl_law(ctx, sl_control, sl_regressor):
    for k in range(3):
        model = random_chain(ctx, n_max=3)
        n, base = model.n, base_parameters(model)
        q, qd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n)
        q_d, qd_d, qdd_d = desired(ctx, n)
        a_hat, Gamma = ctx.rng.normal(size=base.rank), ctx.rng.uniform(0.1, 10, base.rank)
        Lambda, K_D = (float(ctx.rng.uniform(1, 10)), float(ctx.rng.uniform(1, 10))) if k == 0 else \
            (ctx.rng.uniform(1, 10, n), ctx.rng.uniform(1, 10, n))
        columns = base.independent
        expected = sl_control_with(model, q, qd, q_d, qd_d, qdd_d, a_hat, columns, Lambda, K_D, Gamma)
        qd_r = qd_d - Lambda * (q - q_d)
        qdd_r = qdd_d - Lambda * (qd - qd_d)
        with ctx.suspects(ctx.suspect(sl_regressor, model, q, qd, qd_r, qdd_r,
                                      expected=slotine_li_regressor(model, q, qd, qd_r, qdd_r),
                                      call="sl_regressor(model, q, qd, qd_r, qdd_r)", see="app-sl-regressor")):
            tau, a_dot = ctx.expect_tuple(ctx.call(sl_control, model, q, qd, q_d, qd_d, qdd_d, a_hat, columns, Lambda,
                                                   K_D, Gamma), ("tau", "a_hat_dot"))
            ctx.expect_close("tau (n,)", tau, expected[0],
                             hint="q̃ = q − q_d, q̇_r = q̇_d − Λ q̃, q̈_r = q̈_d − Λ (q̇ − q̇_d), s = q̇ − q̇_r; "
                                  "Y = sl_regressor(model, q, q̇, q̇_r, q̈_r)[:, columns]; τ = Y â − K_D s")
            ctx.expect_close("a_hat_dot (r,)", a_dot, expected[1], hint="â̇ = −Γ Yᵀ s (Γ elementwise)")


def _sl_lyapunov(model, reference, theta, Gamma, Lambda, t, q, qd, a_hat):
    """``V = ½ sᵀ M s + ½ θ̃ᵀ Γ⁻¹ θ̃`` with ``s = q̇ − q̇_r``, ``q̇_r = q̇_d − Λ (q − q_d)``."""
    q_d, qd_d, _ = reference(t)
    s = qd - (qd_d - Lambda * (q - q_d))
    return 0.5 * s @ crba(model, q) @ s + 0.5 * (a_hat - theta) @ ((a_hat - theta) / Gamma)


@EXERCISE.check("app-sl-closed-loop", points=1, functions=("sl_control",),
                title="Slotine–Li in closed loop: V = ½ sᵀMs + ½ θ̃ᵀΓ⁻¹θ̃ never increases",
                variants=(SL_ADAPT_SIGN, SL_ERROR_SIGN, SL_S_SIGN, SL_DESIRED_Y))
def check_sl_closed_loop(ctx, sl_control):
    # A draw whose reference excites one base parameter only weakly gets a large Γ_j, and the closed loop can be too
    # stiff for RK4 at dt: redraw (judge side, before the student's function is called) until the law as asked
    # stays finite along the whole run.
    for _ in range(20):
        model = (samples.planar_2link(), samples.seed004_2link())[int(ctx.rng.integers(2))]
        base = base_parameters(model)
        theta = base.reduce(inertial_parameters(model))
        reference = fourier_trajectory(2, harmonics=3, base_freq=0.2, seed=int(ctx.rng.integers(2**31)),
                                       amplitude=0.8)
        Gamma = adaptation_gains(model, reference, np.arange(0.0, 5.0, 0.05), rate=float(ctx.rng.uniform(20, 60)))
        Lambda, K_D, dt = 5.0, float(ctx.rng.uniform(3, 6)), 0.01
        q, qd = reference(0.0)[0] + ctx.rng.uniform(-0.3, 0.3, 2), np.zeros(2)
        a_hat = np.zeros(base.rank)
        steps = 150
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                asked = simulate_slotine_li(model, reference, Lambda=Lambda, K_D=K_D, Gamma=Gamma, dt=dt,
                                            duration=steps * dt, q0=q, qd0=qd)      # the law as asked, judge side
        except (ValueError, FloatingPointError):
            continue
        if np.all(np.isfinite(asked.V)):
            break
    else:
        raise RuntimeError("checker: no draw of the Slotine–Li run stayed finite in 20 tries")

    def control(t, q, qd, a_hat):
        q_d, qd_d, qdd_d = reference(t)
        got = ctx.expect_tuple(ctx.call(sl_control, model, q, qd, q_d, qd_d, qdd_d, a_hat, base.independent, Lambda,
                                        K_D, Gamma), ("tau", "a_hat_dot"), call=call)
        tau = ctx.expect_shape("tau", got[0], (2,), call=call)
        return tau, ctx.expect_shape("a_hat_dot", got[1], (base.rank,), call=call)

    def rate(t, q, qd, a_hat):
        tau, a_dot = control(t, q, qd, a_hat)
        try:
            return qd, aba(model, q, qd, tau), a_dot
        except ValueError:                                          # the motion blew up
            ctx.fail(f"the arm's motion under your torques is no longer finite at t = {t:.2f} s", call=call,
                     got=[np.inf])

    def lyapunov(t, q, qd, a_hat):
        return _sl_lyapunov(model, reference, theta, Gamma, Lambda, t, q, qd, a_hat)

    call = (f"sl_control(...) driving {model.name!r} from 0.3 rad off a Fourier reference, a_hat = 0, Lambda = 5, "
            f"K_D = {K_D:.3g}, dt = 0.01 s (classical RK4)")
    V = [lyapunov(0.0, q, qd, a_hat)]
    x = (q, qd, a_hat)
    for k in range(steps):
        t = k * dt
        x = rk4(rate, t, x, dt)
        V.append(lyapunov(t + dt, *x))
        # V̇ ≤ 0 holds for the exact motion; an RK4 step can still raise V by its truncation error where V̇ ≈ 0,
        # and the law as asked shows that error on this very run: allow as much, and 1e-6 V(0) on top
        slack = max(asked.V[k + 1] - asked.V[k], 0.0) + 1e-6 * V[0]
        ctx.expect_close(f"V(t = {t + dt:.2f} s) − V(t = {t:.2f} s) (V must not increase)", max(V[-1] - V[-2], 0.0),
                         0.0, atol=slack, call=call,
                         hint="V̇ = −sᵀ K_D s ≤ 0 only with â̇ = −Γ Yᵀ s and Y at (q̇_r, q̈_r), s = q̇ − q̇_r")
    # V never increases also without adaptation (θ̃ constant, e.g. the true model's torque): the estimates must move
    # as the law says, so they end where the law's own closed loop ends.
    ctx.expect_close(f"a_hat at t = {steps * dt:.2f} s (the estimates the adaptation law reaches along this run)",
                     x[2], asked.theta_hat[-1], atol=1e-6 * max(1.0, float(np.abs(asked.theta_hat[-1]).max())),
                     call=call,
                     hint="the estimates adapt while the arm tracks: â̇ = −Γ Yᵀ s with Y = sl_regressor(model, q, q̇, "
                          "q̇_r, q̈_r)[:, columns]; a law that keeps â fixed (or uses the true model) does not adapt")
