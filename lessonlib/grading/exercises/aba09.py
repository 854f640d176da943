"""Checks of exercise 09: the articulated-body algorithm and measured complexity (seed 000 §2.3).

The student writes three functions; each check feeds them random inputs drawn from ``ctx.rng`` and
compares with the library (``aba``) or with a reference inward pass written here (itself checked
against ``aba``), and with identities that use no ABA at all: ``D_i = S_iᵀ I^A_i S_i`` is the Schur
complement of the CRBA mass matrix, ``ABA(RNEA(q̈)) = q̈``, and the free elbow of seed 003's arm.

============================  ======  ===================================================================
check                         points  what it tests
============================  ======  ===================================================================
``aba-inward-ia``             1       ``articulated_inertias``: the articulated-body inertias ``I^A_i``
``aba-inward-pa``             1       ... the bias wrenches ``p^A_i`` (external wrenches folded into ``p``)
``aba-inward-schur``          1       ... ``S_iᵀ I^A_i S_i`` = Schur complement of ``M`` (CRBA), no ABA used
``aba-full-chain``            2       ``aba`` on random chains (revolute and prismatic), random gravity
``aba-full-identities``       1       ``aba(RNEA(q̈)) = q̈`` (UR5, random chains); the free elbow
``aba-slope-power``           1       ``power_law_fit`` on exact power laws ``t = a nᵖ``
``aba-slope-measured``        1       ``power_law_fit`` on noisy timings ``a + b n + c n²``
============================  ======  ===================================================================
"""
from __future__ import annotations

import numpy as np

from ... import samples
from ...conventions import base_acceleration
from ...dynamics import aba, crba, rnea
from ...kinematics import body_twists, joint_transforms
from ...se3 import ad, ad_dual
from ..checker import Exercise
from ._common import random_chain, random_gravity

EXERCISE = Exercise(
    "aba09", notebook="09_aba.ipynb", title="Lesson 09 — the articulated-body algorithm and complexity",
    blocked=("lessonlib.dynamics", "lessonlib.batch", "lessonlib.check", "lessonlib.constraints"),
    copy_targets=("lessonlib.dynamics.aba", "lessonlib.batch"))


# --- reference quantities (judge side; never sent to the kernel) ------------------------------


def inward_reference(X, S, I, c, p, tau):
    """The ABA inward pass for a chain: articulated inertias ``I^A`` (n, 6, 6) and bias wrenches ``p^A`` (n, 6)."""
    n = len(S)
    IA, pA = np.array(I, dtype=float), np.array(p, dtype=float)
    for i in reversed(range(n)):
        U = IA[i] @ S[i]
        D = S[i] @ U
        u = tau[i] - S[i] @ pA[i]
        if i > 0:
            Ia = IA[i] - np.outer(U, U) / D
            pa = pA[i] + Ia @ c[i] + U * u / D
            IA[i - 1] += X[i].T @ Ia @ X[i]
            pA[i - 1] += X[i].T @ pa
    return IA, pA


def accelerations_from(X, S, c, IA, pA, tau, a0):
    """The third ABA pass (outward) from given ``I^A, p^A``: the joint accelerations ``q̈``."""
    n = len(S)
    qdd, a_prev = np.zeros(n), np.asarray(a0, dtype=float)
    for i in range(n):
        a_i = X[i] @ a_prev + c[i]
        U = IA[i] @ S[i]
        qdd[i] = (tau[i] - S[i] @ pA[i] - U @ a_i) / (S[i] @ U)
        a_prev = a_i + S[i] * qdd[i]
    return qdd


def schur_complements(M):
    """``D_i = M_ii − M_i,>i M_>i,>i⁻¹ M_>i,i``: the inertia joint i feels with the outboard joints free."""
    n = len(M)
    return np.array([M[i, i] - (M[i, i + 1:] @ np.linalg.solve(M[i + 1:, i + 1:], M[i + 1:, i]) if i < n - 1 else 0.0)
                     for i in range(n)])


def inward_case(ctx, *, with_fext=False):
    """A random chain state and the inputs ``X, S, I, c, p, tau`` of the inward pass (plus the reference)."""
    model = random_chain(ctx)
    n = model.n
    q, qd, tau = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), ctx.rng.normal(size=n) * 5
    F = ctx.rng.normal(size=(n, 6)) if with_fext else np.zeros((n, 6))
    X = joint_transforms(model, q)
    v = body_twists(model, q, qd)
    S, I = model.S.copy(), model.inertia.copy()
    c = np.array([ad(v[i]) @ S[i] * qd[i] for i in range(n)])
    p = np.array([ad_dual(v[i]) @ I[i] @ v[i] for i in range(n)]) - F
    IA, pA = inward_reference(X, S, I, c, p, tau)
    g = random_gravity(ctx)
    assert np.allclose(accelerations_from(X, S, c, IA, pA, tau, base_acceleration(g)),
                       aba(model, q, qd, tau, gravity=g, f_ext=F), atol=1e-8), "checker self-test: inward vs aba"
    return model, q, (X, S, I, c, p, tau), (IA, pA)



# --- (a) the inward pass ------------------------------------------------------------------------

@EXERCISE.check("aba-inward-ia", points=1, functions=("articulated_inertias",),
                title="inward pass: articulated-body inertias I^A_i")
def inward_ia(ctx, articulated_inertias):
    for _ in range(3):
        model, _, args, (IA, _) = inward_case(ctx)
        call = f"articulated_inertias(X, S, I, c, p, tau) on a random {model.n}-link chain"
        got, _ = ctx.expect_tuple(ctx.call(articulated_inertias, *args), ("IA", "pA"), call=call)
        ctx.expect_close("IA (n, 6, 6)", got, IA, call=call,
                         hint="start from I^A_i = I_i; going inward, I^A_(i-1) += X_i^T (I^A_i - U_i U_i^T / D_i) X_i "
                              "with U_i = I^A_i S_i, D_i = S_i^T U_i")


@EXERCISE.check("aba-inward-pa", points=1, functions=("articulated_inertias",),
                title="inward pass: bias wrenches p^A_i")
def inward_pa(ctx, articulated_inertias):
    for _ in range(3):
        model, _, args, (_, pA) = inward_case(ctx, with_fext=True)
        call = f"articulated_inertias(X, S, I, c, p, tau) on a random {model.n}-link chain (p includes -f_ext)"
        _, got = ctx.expect_tuple(ctx.call(articulated_inertias, *args), ("IA", "pA"), call=call)
        ctx.expect_close("pA (n, 6)", got, pA, call=call,
                         hint="p^a_i = p^A_i + I^a_i c_i + U_i u_i / D_i with u_i = tau_i - S_i^T p^A_i; "
                              "p^A_(i-1) += X_i^T p^a_i")


@EXERCISE.check("aba-inward-schur", points=1, functions=("articulated_inertias",),
                title="inward pass: S_i^T I^A_i S_i is the Schur complement of M(q)")
def inward_schur(ctx, articulated_inertias):
    for _ in range(2):
        model, q, args, _ = inward_case(ctx)
        call = f"articulated_inertias(X, S, I, c, p, tau) on a random {model.n}-link chain"
        IA, _ = ctx.expect_tuple(ctx.call(articulated_inertias, *args), ("IA", "pA"), call=call)
        IA = ctx.expect_shape("IA", IA, (model.n, 6, 6), call=call)
        D = np.array([S_i @ IA_i @ S_i for S_i, IA_i in zip(model.S, IA)])
        ctx.expect_close("D_i = S_i^T IA_i S_i for every joint", D, schur_complements(crba(model, q)),
                         call=call + ", compared with the CRBA mass matrix",
                         hint="with the outboard joints free, joint i feels M_ii - M_i,>i (M_>i,>i)^-1 M_>i,i; "
                              "the last body's I^A is its own rigid inertia")


# --- (b) the whole ABA ---------------------------------------------------------------------------

@EXERCISE.check("aba-full-chain", points=2, functions=("aba",),
                title="full ABA on random chains")
def full_chain(ctx, aba_student):
    cases = []
    for _ in range(4):
        model = random_chain(ctx)
        n = model.n
        cases.append((model, ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), 5 * ctx.rng.normal(size=n),
                      random_gravity(ctx)))
    for model, q, qd, tau, g in cases:
        call = f"aba(model, q, qd, tau, gravity=g) on {model.name!r} (n = {model.n})"
        ctx.expect_close("qdd (n,)", ctx.call(aba_student, model, q, qd, tau, gravity=g),
                         aba(model, q, qd, tau, gravity=g), call=call,
                         hint="three passes: velocities out, articulated inertias in, "
                              "accelerations out from a0 = [0; -g]")
    model, q, qd, tau, _ = cases[-1]
    call = f"aba(model, q, qd, tau) with gravity=None on {model.name!r}"
    ctx.expect_close("qdd (n,)", ctx.call(aba_student, model, q, qd, tau), aba(model, q, qd, tau), call=call,
                     hint="gravity=None means the model's default, model.gravity")


@EXERCISE.check("aba-full-identities", points=1, functions=("aba",),
                title="full ABA: ABA(RNEA(qdd)) = qdd, and the free elbow")
def full_identities(ctx, aba_student):
    ur5 = samples.ur5()
    models = [ur5, random_chain(ctx, 3, 6)]
    for model in models:
        n = model.n
        q, qd, qdd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), ctx.rng.normal(size=n)
        tau = rnea(model, q, qd, qdd)
        call = f"aba(model, q, qd, tau = rnea(model, q, qd, qdd)) on {model.name!r} (n = {n})"
        ctx.expect_close("qdd (n,)", ctx.call(aba_student, model, q, qd, tau), qdd, call=call,
                         hint="forward dynamics undoes inverse dynamics: you should get the qdd that produced tau")
    two = samples.planar_2link()                                   # seed 003's rods, stretched out, at rest
    push = ctx.rng.uniform(0.5, 3.0)
    M = crba(two, np.zeros(2))
    expected = push / (M[0, 0] - M[0, 1] ** 2 / M[1, 1])
    call = f"aba(planar_2link, q=0, qd=0, tau=({push:.4g}, 0), gravity=0): the shoulder with a free elbow"
    got = ctx.expect_shape("qdd", ctx.call(aba_student, two, np.zeros(2), np.zeros(2), np.array([push, 0.0]),
                                           gravity=np.zeros(3)), (2,), call=call)
    ctx.expect_close("qdd_1 = tau_1 / (M11 - M12^2 / M22)", got[0], expected, call=call,
                     hint="with the elbow free the shoulder feels the Schur complement, not M11")


# --- (c) log-log slopes --------------------------------------------------------------------------------

def fit_pair(ctx, result, call):
    result = ctx.expect_tuple(result, ("p", "a"), call=call)
    return (ctx.expect_shape("p", result[0], (), call=call), ctx.expect_shape("a", result[1], (), call=call))


def chain_lengths(ctx):
    n0 = int(ctx.rng.integers(2, 5))
    return np.array(sorted({int(round(n0 * 2 ** (k / 2))) for k in range(int(ctx.rng.integers(5, 9)))}), dtype=float)


@EXERCISE.check("aba-slope-power", points=1, functions=("power_law_fit",),
                title="log-log fit of exact power laws")
def slope_power(ctx, power_law_fit):
    for p in (1.0, 2.0, 3.0, ctx.rng.uniform(0.3, 3.5)):
        n = chain_lengths(ctx)
        a = 10 ** ctx.rng.uniform(-7, -3)                          # seconds per n^p
        call = f"power_law_fit(n, t) for t = {a:.3g} n^{p:.4g}, n = {n.astype(int).tolist()}"
        p_got, a_got = fit_pair(ctx, ctx.call(power_law_fit, n, a * n ** p), call)
        ctx.expect_close("p (the slope)", p_got, p, call=call,
                         hint="fit a straight line to (log n, log t): its slope is p, its intercept log a")
        ctx.expect_close("a (the prefactor)", a_got / a, 1.0, call=call,
                         hint="the intercept of the line is log a: return a = exp(intercept), not the intercept")


@EXERCISE.check("aba-slope-measured", points=1, functions=("power_law_fit",),
                title="log-log fit of noisy measured timings")
def slope_measured(ctx, power_law_fit):
    for _ in range(3):
        n = chain_lengths(ctx)
        a, b, c = 10 ** ctx.rng.uniform(-5, -4), 10 ** ctx.rng.uniform(-6, -5), 10 ** ctx.rng.uniform(-8, -6)
        t = (a + b * n + c * n**2) * np.exp(ctx.rng.normal(0.0, 0.05, n.size))
        p, intercept = np.polyfit(np.log(n), np.log(t), 1)
        call = f"power_law_fit(n, t) for timings like a + b n + c n^2 with noise, n = {n.astype(int).tolist()}"
        p_got, a_got = fit_pair(ctx, ctx.call(power_law_fit, n, t), call)
        ctx.expect_close("p (the slope)", p_got, p, call=call,
                         hint="least squares over all points of log t = p log n + log a (numpy.polyfit of degree 1)")
        ctx.expect_close("a / exp(intercept)", a_got / np.exp(intercept), 1.0, call=call)
