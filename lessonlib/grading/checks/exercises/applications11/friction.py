"""Exercise 11 (d): friction identified with the inertia, the Stribeck velocity searched ([DB4 §4.4]).
"""
from __future__ import annotations

from functools import partial
from itertools import product

import numpy as np

from lessonlib import samples
from lessonlib.dynamics.friction import Friction, SMOOTH_EPS, friction_regressor, stribeck
from lessonlib.dynamics.regressor import (base_parameters, check_excitation_band, fourier_trajectory,
                                          identify_with_friction, inertial_parameters, synthetic_measurements)
from ... import display
from ...checker import Variant
from ._exercise import EXERCISE


# --- (d) identification with friction ([DB4 §4.4]): the Stribeck columns and the search for v_s -----------------

def stribeck_columns_with(QD, vs, *, sigma=None, static_sign=True, coulomb="sliding", power=2.0):
    """The friction columns (N, n, 3) = ``(q̇, tanh(q̇/ε)(1 − hump), tanh(q̇/ε) hump)``, ``hump = exp(−(q̇/v_s)²)`` —
    or a slip: another smooth sign ``sigma``, the static column without the sign, the Coulomb column the sign alone,
    another exponent ``power``."""
    QD = np.asarray(QD, dtype=float)
    s = np.tanh(QD / SMOOTH_EPS) if sigma is None else sigma(QD)
    e = np.exp(-np.abs(QD / np.asarray(vs, dtype=float)) ** power)
    return np.stack([QD, s * (1 - e) if coulomb == "sliding" else s, s * e if static_sign else e], axis=-1)


def stacked_friction(Phi):
    """Row (sample k, joint j) of the stacked friction columns holds joint j's three columns of sample k in
    joint j's place."""
    N, n, k = Phi.shape
    F = np.zeros((N, n, n, k))
    F[:, np.arange(n), np.arange(n), :] = Phi
    return F.reshape(N * n, n * k)


def fit_with(W, QD, TAU, vs_grid, weights, *, shared=False, row_scale=lambda w: w, scale_tau=True):
    """Weighted least squares of ``[𝐘_b, friction columns(v_s)]`` for every ``v_s`` of the grid per joint
    (all combinations), the best kept — or a slip: one ``v_s`` for all joints (``shared``), rows scaled by
    another ``row_scale(w)``, the regressor's rows scaled but not τ's (``scale_tau=False``)."""
    W, QD, TAU = (np.asarray(x, dtype=float) for x in (W, QD, TAU))
    n, r = TAU.shape[1], W.shape[1]
    scale = np.tile(row_scale(np.asarray(weights, dtype=float)), TAU.shape[0])
    combos = [np.full(n, v) for v in vs_grid] if shared else [np.array(c) for c in product(vs_grid, repeat=n)]
    best = None
    for vs in combos:
        A = np.hstack([W, stacked_friction(stribeck_columns_with(QD, vs))]) * scale[:, None]
        y = TAU.ravel() * (scale if scale_tau else 1.0)
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

    Returns ``(model, base, π_b, friction (2, 3) = (b, f_c, f_s), v_s (2,), W, Q, QD, QDD, TAU)``.
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
                      "of f_s is tanh(q̇/ε) hump", stribeck_columns=partial(stribeck_columns_with, static_sign=False))
COL_COULOMB_SIGMA = Variant("your Coulomb column seems to be tanh(q̇/ε) alone; with f_s multiplying tanh(q̇/ε) hump "
                            "it is "
                            "tanh(q̇/ε)(1 − hump): τ_f = b q̇ + f_c tanh(q̇/ε)(1 − hump) + f_s tanh(q̇/ε) hump",
                            stribeck_columns=partial(stribeck_columns_with, coulomb="plain"))
COL_EXPONENT = Variant("your e seems to be exp(−|q̇/v_s|); the Stribeck curve here is Gaussian, exp(−(q̇/v_s)²)",
                       stribeck_columns=partial(stribeck_columns_with, power=1.0))
COL_SIGN = Variant("your smooth sign seems to be np.sign(q̇); use tanh(q̇/ε) with ε = 1e-3, the smooth sign the data "
                   "were made with (they differ within a few ε of rest)",
                   stribeck_columns=partial(stribeck_columns_with, sigma=np.sign))
FIT_SHARED = Variant("your search seems to try one v_s for all joints; each joint has its own Stribeck velocity: "
                     "search the grid for every joint (all combinations)",
                     fit_with_friction=partial(fit_with, shared=True))
FIT_UNWEIGHTED = Variant("your fit seems to ignore the weights: scale the rows of joint j (𝐘_b and τ alike) by w_j",
                         fit_with_friction=partial(fit_with, row_scale=np.ones_like))
FIT_TAU_UNWEIGHTED = Variant("your fit seems to scale the rows of 𝐘_b (and the friction columns) by w_j but not τ: "
                             "a weighted least-squares row is the whole equation w_j (𝐘_b π_b + … − τ) = 0, so τ's "
                             "row is scaled by the same w_j", fit_with_friction=partial(fit_with, scale_tau=False))
FIT_SQRT_WEIGHTS = Variant("your rows seem to be scaled by √w_j, as if w_j were the diagonal of the weight matrix in "
                           "(𝐘_bᵀD𝐘_b)⁻¹𝐘_bᵀDτ; with w_j = 1/σ_j the rows are scaled by w_j (D = diag(w_j²))",
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
        ctx.expect_close(f"the friction columns (40, {n}, 3)", ctx.call(stribeck_columns, QD, vs), expected, call=call,
                         hint="columns[k, j] = (q̇, tanh(q̇/ε)(1 − hump), tanh(q̇/ε) hump) with ε = 1e-3, "
                              "hump = exp(−(q̇/v_s,j)²): "
                              "then Phi @ (b, f_c, f_s) is the Stribeck torque")


@EXERCISE.check("app-friction-fit", points=2, functions=("fit_with_friction",), helpers=("stribeck_columns",),
                title="inertial and friction parameters together, the Stribeck velocity searched",
                variants=(FIT_SHARED, FIT_UNWEIGHTED, FIT_TAU_UNWEIGHTED, FIT_SQRT_WEIGHTS))
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
                     hint="minimise Σ_k Σ_j (w_j (𝐘_b π_b + (friction columns) (b, f_c, f_s) − τ)_kj)²: "
                          "multiply the rows "
                          "of joint j, 𝐘_b and τ alike, by w_j")
    ctx.expect_close("phi (weighted least squares)", got[1], reference.friction, call=call)
