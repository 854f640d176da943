"""Checks of exercise 12: constrained dynamics — the four-bar's constraint Jacobian, its NOC, the crank
torque, and seed 001's power redistribution for a parallel arm (seed 001 "约束动力学", seed 002 NOC).

The student writes five functions. The references here are closed-form planar formulas written for
the checker (judge side), each cross-checked once against :mod:`lessonlib.constraints` (the library's
own route, which is blocked in the graded kernel) and, for the torque, against the independent sympy
Lagrange derivation.

=========================  ======  ==============================================================
check                      points  what it tests
=========================  ======  ==============================================================
``fourbar-jacobian``       1       ``four_bar_G``: the 2×3 pin-gap Jacobian, world axes
``fourbar-noc``            1       ``noc_independent``: ``N = [I; −G_d⁻¹ G_i]`` for any ``G``
``fourbar-gamma``          1       ``four_bar_gamma``: ``γ = −Ġ q̇`` (world axes)
``fourbar-crank-torque``   2       ``crank_torque``: the course's four-bar along random crank states
``fivebar-power``          1       ``redistribute``: ``τ_a = A⁻ᵀ Σ J_k⁻ᵀ τ_k`` (seed 001's recipe)
=========================  ======  ==============================================================
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...constraints import (FOUR_BAR, constraint_bias, constraint_jacobian, four_bar, four_bar_lagrange, four_bar_q,
                            inverse_dynamics, noc, state_from_independent)
from ..checker import Exercise

#: What a graded kernel may not use, module by module: the constraint layer's own φ, G, γ, NOC, dynamics,
#: assembly, motions and oracles (``four_bar``, ``four_bar_q``, ``FOUR_BAR`` and the dynamics of trees stay available).
_BLOCKED = {
    "closure": ("constraint_terms", "space_terms", "loop_residual", "loop_jacobian", "loop_bias", "constraint_residual",
                "constraint_jacobian", "constraint_bias"),
    "noc": ("noc", "noc_from_jacobian", "null_space", "ndot_yd", "_dependent_solve"),
    "closed": ("reduced_dynamics", "inverse_dynamics", "forward_dynamics", "constraint_forces", "closure_wrenches",
               "joint_wrenches"),
    "assembly": ("_newton", "assemble", "project", "state_from_independent"),
    "motion": ("inverse_dynamics_along", "simulate"),
    "mechanisms": ("four_bar_lagrange", "parallel_inverse_dynamics"),
}

EXERCISE = Exercise(
    "constrained12", notebook="12_constrained.ipynb", title="Lesson 12 — constrained dynamics",
    blocked=tuple(f"lessonlib.constraints.{module}:{f}" for module, names in _BLOCKED.items() for f in names),
    copy_targets=tuple(f"lessonlib.constraints.{module}" for module in _BLOCKED))


# --- reference quantities (judge side) ---------------------------------------------------------

def _e(a):
    return np.array([np.cos(a), np.sin(a)])


def _e_perp(a):                      # d e(a) / da
    return np.array([-np.sin(a), np.cos(a)])


def pin_gap_jacobian(q, lengths):
    """``∂(p − r)/∂q`` with ``p = L2 e(q0) + L3 e(q0 + q1)`` (coupler tip), ``r = (L1, 0) + L4 e(q2)``."""
    _, L2, L3, L4 = lengths
    t3 = q[0] + q[1]
    return np.column_stack([L2 * _e_perp(q[0]) + L3 * _e_perp(t3), L3 * _e_perp(t3), -L4 * _e_perp(q[2])])


def pin_gap_gamma(q, qd, lengths):
    """``γ = −Ġ q̇ = L2 q̇0² e(q0) + L3 (q̇0 + q̇1)² e(q0 + q1) − L4 q̇2² e(q2)``."""
    _, L2, L3, L4 = lengths
    w3 = qd[0] + qd[1]
    return L2 * qd[0] ** 2 * _e(q[0]) + L3 * w3**2 * _e(q[0] + q[1]) - L4 * qd[2] ** 2 * _e(q[2])


def noc_reference(G, independent):
    G = np.asarray(G, dtype=float)
    n = G.shape[1]
    dep = [i for i in range(n) if i not in independent]
    N = np.zeros((n, len(independent)))
    N[list(independent)] = np.eye(len(independent))
    N[dep] = -np.linalg.solve(G[:, dep], G[:, list(independent)])
    return N


def _rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def random_lengths(ctx):
    """A random crank-rocker (Grashof, crank shortest and next to the ground)."""
    while True:
        crank = ctx.rng.uniform(0.05, 0.15)
        ground, coupler, rocker = ctx.rng.uniform(0.25, 0.5, 3)
        L = (ground, crank, coupler, rocker)
        if min(L) == crank and crank + max(L) < sum(L) - crank - max(L) - 1e-3:
            return tuple(float(x) for x in L)


@lru_cache(maxsize=1)
def _lagrange():
    """The sympy four-bar (derived once per judge process, about a second)."""
    return four_bar_lagrange(FOUR_BAR)


@lru_cache(maxsize=1)
def _self_test_against_library():
    """The closed forms above agree with the library's spanning-tree constraint layer (rotated into
    the coupler's axes) at closed, velocity-consistent states."""
    fb = four_bar()
    for theta in (0.3, 2.0, -1.4):
        q, qd, _ = state_from_independent(fb, [theta], [1.7], [0.0], four_bar_q(FOUR_BAR, theta))
        R = _rot(q[0] + q[1])                    # coupler axes (frame A) in the world
        assert np.allclose(R @ constraint_jacobian(fb, q), pin_gap_jacobian(q, FOUR_BAR.lengths), atol=1e-12)
        assert np.allclose(R @ constraint_bias(fb, q, qd), pin_gap_gamma(q, qd, FOUR_BAR.lengths), atol=1e-10)
        assert np.allclose(noc(fb, q), noc_reference(pin_gap_jacobian(q, FOUR_BAR.lengths), [0]), atol=1e-12)
    return True


# --- (a) the constraint Jacobian -----------------------------------------------------------------

@EXERCISE.check("fourbar-jacobian", points=1, functions=("four_bar_G",),
                title="the four-bar's constraint Jacobian G(q)")
def jacobian_check(ctx, four_bar_G):
    _self_test_against_library()
    for lengths in [FOUR_BAR.lengths] + [random_lengths(ctx) for _ in range(3)]:
        q = ctx.rng.uniform(-np.pi, np.pi, 3)
        call = f"four_bar_G(q={np.round(q, 4).tolist()}, lengths={tuple(round(x, 4) for x in lengths)})"
        got = ctx.call(four_bar_G, q, lengths)
        ctx.expect_close("G (2, 3)", got, pin_gap_jacobian(q, lengths), call=call,
                         hint="column j is the derivative of (coupler tip − rocker tip) with respect to q_j; "
                              "q1 is the coupler's angle relative to the crank")


# --- (b) the natural orthogonal complement -------------------------------------------------------

@EXERCISE.check("fourbar-noc", points=1, functions=("noc_independent",),
                title="the NOC N = [I; −G_d⁻¹ G_i] of any constraint Jacobian")
def noc_check(ctx, noc_independent):
    cases = [(pin_gap_jacobian(four_bar_q(FOUR_BAR, 0.5), FOUR_BAR.lengths), [0])]
    while len(cases) < 4:
        n = int(ctx.rng.integers(3, 7))
        m = int(ctx.rng.integers(1, n))
        independent = sorted(ctx.rng.choice(n, size=n - m, replace=False).tolist())
        G = ctx.rng.normal(size=(m, n))
        if np.linalg.cond(np.delete(G, independent, axis=1)) < 50:     # a well-posed G_d
            cases.append((G, independent))
    for G, independent in cases:
        call = f"noc_independent(G {G.shape}, independent={independent})"
        got = ctx.call(noc_independent, G, independent)
        expected = noc_reference(G, independent)
        ctx.expect_close(f"N {expected.shape}", got, expected, call=call,
                         hint="rows of the independent coordinates are the identity; the others solve G_d x = −G_i")


# --- (c) the acceleration constraint --------------------------------------------------------------

@EXERCISE.check("fourbar-gamma", points=1, functions=("four_bar_gamma",),
                title="the acceleration constraint γ = −Ġ q̇")
def gamma_check(ctx, four_bar_gamma):
    for lengths in [FOUR_BAR.lengths] + [random_lengths(ctx) for _ in range(3)]:
        q, qd = ctx.rng.uniform(-np.pi, np.pi, 3), ctx.rng.normal(size=3) * 3
        call = (f"four_bar_gamma(q={np.round(q, 4).tolist()}, qd={np.round(qd, 4).tolist()}, "
                f"lengths={tuple(round(x, 4) for x in lengths)})")
        got = ctx.call(four_bar_gamma, q, qd, lengths)
        ctx.expect_close("gamma (2,)", got, pin_gap_gamma(q, qd, lengths), call=call,
                         hint="differentiate G q̇ once more with q̈ = 0: each link contributes its centripetal term")


# --- (d) the crank torque ----------------------------------------------------------------------------

@EXERCISE.check("fourbar-crank-torque", points=2, functions=("crank_torque",),
                title="the crank torque of the course's four-bar")
def crank_torque_check(ctx, crank_torque):
    fb, lagrange = four_bar(), _lagrange()
    thetas = [0.0, np.pi / 2] + ctx.rng.uniform(-np.pi, np.pi, 3).tolist()
    for theta in thetas:
        theta_d, theta_dd = float(ctx.rng.uniform(-8, 8)), float(ctx.rng.uniform(-30, 30))
        q, qd, qdd = state_from_independent(fb, [theta], [theta_d], [theta_dd], four_bar_q(FOUR_BAR, theta))
        expected = float(inverse_dynamics(fb, q, qd, qdd).tau[0])
        assert abs(expected - lagrange.crank_torque(theta, theta_d, theta_dd)[0]) < 1e-9, "self-test: Lagrange"
        call = f"crank_torque({theta:.4f}, {theta_d:.4f}, {theta_dd:.4f})"
        got = ctx.call(crank_torque, theta, theta_d, theta_dd)
        ctx.expect_close("tau (N·m)", np.reshape(got, -1) if np.size(got) == 1 else got, [expected], call=call,
                         hint="q̇ = N θ̇2, q̈ = N θ̈2 + [0; G_d⁻¹ γ], then τ = Nᵀ (M q̈ + c + g) of the tree")


# --- (e) seed 001's parallel-arm recipe ----------------------------------------------------------------

@EXERCISE.check("fivebar-power", points=1, functions=("redistribute",),
                title="motor torques of a parallel arm by the power balance")
def power_check(ctx, redistribute):
    for _ in range(4):
        k = int(ctx.rng.integers(2, 4))                    # chains, each with k joints and a k-dim tip
        J = [ctx.rng.normal(size=(k, k)) + 2 * np.eye(k) for _ in range(k)]
        tau = [ctx.rng.normal(size=k) for _ in range(k)]
        actuated = ctx.rng.integers(0, k, size=k).tolist()
        A = np.array([np.linalg.inv(Jk)[a] for Jk, a in zip(J, actuated)])
        expected = np.linalg.solve(A.T, sum(np.linalg.solve(Jk.T, tk) for Jk, tk in zip(J, tau)))
        # independent identity: equal power for a random tip velocity
        xd = ctx.rng.normal(size=k)
        assert np.isclose(expected @ (A @ xd), sum(tk @ np.linalg.solve(Jk, xd) for Jk, tk in zip(J, tau))), "self-test"
        call = f"redistribute(J: {k} chains of {k}x{k}, tau: {k} x ({k},), actuated={actuated})"
        got = ctx.call(redistribute, np.array(J), np.array(tau), actuated)
        ctx.expect_close(f"tau_a ({k},)", got, expected, call=call,
                         hint="row k of A is row actuated[k] of J_k⁻¹; τ_a = A⁻ᵀ Σ_k J_k⁻ᵀ τ_k")
