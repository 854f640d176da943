"""Exercise 11 (c): least squares on the stacked base regressor, and R².
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples
from lessonlib.dynamics.regressor import (base_parameters, fourier_trajectory, identify, inertial_parameters,
                                          synthetic_measurements)
from ... import display
from ...checker import Variant
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


_STACK_HINT = ("solve min ||𝐘_b π_b − τ||² (W in code) with τ = TAU.ravel() (sample after sample), "
               "e.g. numpy.linalg.lstsq(W, tau, rcond=None)[0]")


# --- known mistakes (judge side): the fit with one piece replaced --------------------------------------

def fit_with(W, TAU, *, order="C", normal_equations=False, r2="pooled"):
    """``(π̂_b, R²)`` by ``lstsq`` on ``W`` with ``τ = TAU.ravel()`` — or a slip: ``τ`` stacked joint after joint
    (``order="F"``), the normal equations ``(WᵀW)⁻¹Wᵀτ``, or another ``r2``: ``"not-centred"`` (``1 − SS_res/Στ²``),
    ``"share"`` (``SS_res/SS_tot``), ``"global-mean"`` (one mean for all joints), ``"joint-average"`` (the mean of
    the joints' own R²)."""
    W, TAU = np.asarray(W, dtype=float), np.asarray(TAU, dtype=float)
    tau = TAU.ravel(order=order)
    theta = np.linalg.inv(W.T @ W) @ W.T @ tau if normal_equations else np.linalg.lstsq(W, tau, rcond=None)[0]
    res = ((TAU - (W @ theta).reshape(TAU.shape)) ** 2).sum(axis=0)           # SS_res and SS_tot per joint
    tot = ((TAU - (TAU.mean() if r2 == "global-mean" else TAU.mean(axis=0))) ** 2).sum(axis=0)
    if r2 == "not-centred":
        tot = (TAU ** 2).sum(axis=0)
    if r2 == "joint-average":
        return theta, float(np.mean(1 - res / tot))
    share = res.sum() / tot.sum()
    return theta, float(share if r2 == "share" else 1 - share)


FIT_TAU_ORDER = Variant("your τ seems to be stacked joint after joint (TAU.T.ravel() or order='F'); W's rows go "
                        "sample after sample, joint after joint within a sample: τ = TAU.ravel()",
                        fit_parameters=partial(fit_with, order="F"))
FIT_NORMAL_EQUATIONS = Variant("your fit seems to go through the normal equations (𝐘_bᵀ𝐘_b)⁻¹𝐘_bᵀτ (with an inverse "
                               "or a solve): they square the condition number of 𝐘_b, 1e14 here; solve on W itself: "
                               "numpy.linalg.lstsq(W, tau, rcond=None)[0] (or a QR of W, or np.linalg.pinv(W))",
                               fit_parameters=partial(fit_with, normal_equations=True))
R2_NOT_CENTRED = Variant("your R² seems to divide by Σ τ_kj² (the torques not centred): the denominator is "
                         "Σ (τ_kj − τ̄_j)², τ̄_j the mean torque of joint j (TAU.mean(axis=0))",
                         fit_parameters=partial(fit_with, r2="not-centred"))
R2_SHARE = Variant("your R² seems to be the residual's share SS_res / SS_tot; R² = 1 − SS_res / SS_tot",
                   fit_parameters=partial(fit_with, r2="share"))
R2_GLOBAL_MEAN = Variant("your R² seems to centre every torque on one mean over all joints (TAU.mean()); each joint "
                         "has its own mean τ̄_j (TAU.mean(axis=0))", fit_parameters=partial(fit_with, r2="global-mean"))
R2_JOINT_AVERAGE = Variant("your R² seems to be the average of each joint's own R²; the notebook's R² pools all "
                           "samples and joints: one sum over k and j above the fraction and one below",
                           fit_parameters=partial(fit_with, r2="joint-average"))


@EXERCISE.check("app-fit-exact", points=1, functions=("fit_parameters",),
                title="least squares recovers the base parameters from noise-free data",
                variants=(FIT_TAU_ORDER, R2_SHARE))
def check_fit_exact(ctx, fit_parameters):
    model, base, theta_b, W, TAU, *_ = fit_data(ctx, 0.0)
    call = _fit_call(model, W, TAU, 0.0)
    theta, r2 = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
    ctx.expect_close("theta (the true base parameters)", theta, theta_b, call=call, hint=_STACK_HINT)
    ctx.expect_close("r2", r2, 1.0, call=call, hint="a perfect fit leaves no residual: R^2 = 1")


#: Condition number of ``app-fit-stable``'s regressor, and the relative accuracy of θ it asks for: ``lstsq``
#: (QR / SVD of W) reaches ≤ 4e-10 there, the normal equations ≥ 1.7e-5 (cond(W)² eps; both measured over 300 draws).
FIT_ILL_CONDITION = 1e7
FIT_RTOL = 1e-6
#: The normal equations lose from 1e-5 to 0.4 of θ there, depending on the draw; an answer is recognised as
#: :data:`FIT_NORMAL_EQUATIONS` when ``log10`` of its relative error is within this many decades of theirs (an inverse
#: or a solve of ``WᵀW`` alike: 294 draws in 300).
FIT_DECADES = 2.0


def conditioned_fit(ctx, cond):
    """``(W (N·n, r), TAU (N, n), π_b)``: noise-free ``TAU = W π_b``, the singular values of W from 1 to ``1/cond``."""
    N, n, r = int(ctx.rng.integers(40, 80)), int(ctx.rng.integers(2, 4)), int(ctx.rng.integers(6, 11))
    U, _ = np.linalg.qr(ctx.rng.normal(size=(N * n, r)))
    V, _ = np.linalg.qr(ctx.rng.normal(size=(r, r)))
    W = U @ np.diag(np.logspace(0.0, -np.log10(cond), r)) @ V.T
    theta = ctx.rng.normal(size=r)
    return W, (W @ theta).reshape(N, n), theta


@EXERCISE.check("app-fit-stable", points=1, functions=("fit_parameters",),
                title="least squares on a badly conditioned regressor: solved on W, not on W^T W",
                variants=(FIT_NORMAL_EQUATIONS, FIT_TAU_ORDER))
def check_fit_stable(ctx, fit_parameters):
    W, TAU, theta_true = conditioned_fit(ctx, 10.0)           # first a W any solve handles: a wrong fit fails here
    call = f"fit_parameters(W {W.shape}, TAU {TAU.shape}) with W of condition number 10 and noise-free torques"
    theta, _ = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), W.shape[1], call)
    ctx.expect_close("theta (the true parameters)", theta, theta_true, call=call, hint=_STACK_HINT)
    for _ in range(2):
        W, TAU, theta_true = conditioned_fit(ctx, FIT_ILL_CONDITION)
        call = (f"fit_parameters(W {W.shape}, TAU {TAU.shape}) with W of condition number {FIT_ILL_CONDITION:.0e} "
                "and noise-free torques")
        theta, _ = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), W.shape[1], call)
        err = float(np.abs(theta - theta_true).max() / np.abs(theta_true).max())
        if err > FIT_RTOL:
            # the digits an unstable fit loses are rounding noise: it is recognised by how many (log10 of the error)
            ctx.fail(f"theta (the true parameters): relative error max|theta - pi_b| / max|pi_b| expected <= "
                     f"{FIT_RTOL:g}, got {err:.2g}\n  expected\n{display.indent(display.array(theta_true, 6), 4)}\n"
                     f"  got\n{display.indent(display.array(theta, 6), 4)}", call=call, got=np.log10(err),
                     atol=FIT_DECADES,
                     hint="the normal equations 𝐘_bᵀ𝐘_b π_b = 𝐘_bᵀτ square the condition number (1e14 here: about "
                          "1e-2 of theta is lost, with an inverse or a solve alike); numpy.linalg.lstsq works on W "
                          "itself")


@EXERCISE.check("app-fit-noisy", points=1, functions=("fit_parameters",),
                title="least squares on noisy torques", variants=(FIT_TAU_ORDER,))
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
                title="the coefficient of determination R^2 of the fit",
                variants=(R2_NOT_CENTRED, R2_SHARE, R2_GLOBAL_MEAN, R2_JOINT_AVERAGE, FIT_TAU_ORDER))
def check_fit_r2(ctx, fit_parameters):
    for _ in range(2):
        noise = float(ctx.rng.uniform(0.2, 2.0))
        model, base, _, W, TAU, Q, QD, QDD = fit_data(ctx, noise)
        call = _fit_call(model, W, TAU, noise)
        _, r2 = _expect_fit(ctx, ctx.call(fit_parameters, W, TAU), base.rank, call)
        ctx.expect_close("r2", r2, identify(model, Q, QD, QDD, TAU, base=base).r2, call=call,
                         hint="R^2 = 1 - sum (tau - tau_hat)^2 / sum (tau - tau_bar_j)^2 over all samples and joints, "
                              "tau_bar_j the mean torque of joint j (TAU.mean(axis=0))")
