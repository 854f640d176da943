"""Exercise 11 (c): least squares on the stacked base regressor, and R².
"""
from __future__ import annotations

import numpy as np

from lessonlib import samples
from lessonlib.dynamics.regressor import (base_parameters, fourier_trajectory, identify, inertial_parameters,
                                          synthetic_measurements)
from ._exercise import EXERCISE


# --- (c) least squares and R² ------------------------------------------------------------------------

def fit_data(ctx, noise):
    """``(model, base, π_b true, W = 𝐘_b (N·n, r), TAU (N, n), Q, QD, QDD)`` from a Fourier excitation."""
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
                     hint="solve min ||𝐘_b π_b − τ||² (W in code) with τ = TAU.ravel() (sample after sample), "
                          "e.g. numpy.linalg.lstsq(W, tau, rcond=None)[0]")
    ctx.expect_close("r2", r2, 1.0, call=call, hint="a perfect fit leaves no residual: R^2 = 1")


#: Condition number of ``app-fit-stable``'s regressor, and the relative accuracy of θ it asks for: ``lstsq``
#: (QR / SVD of W) reaches ≤ 4e-10 there, the normal equations ≥ 1.7e-5 (cond(W)² eps; both measured over 300 draws).
FIT_ILL_CONDITION = 1e7
FIT_RTOL = 1e-6


def badly_conditioned_fit(ctx):
    """``(W (N·n, r), TAU (N, n), π_b)`` with noise-free ``TAU = W π_b`` and singular values of W from 1 to 1e-7."""
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
                         hint="the normal equations 𝐘_bᵀ𝐘_b π_b = 𝐘_bᵀτ square the condition number (1e14 here: "
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
