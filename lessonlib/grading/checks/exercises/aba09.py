"""Checks of exercise 09: the articulated-body algorithm and measured complexity ([WJ §2.3]).

The student writes three functions; each check feeds them random inputs drawn from ``ctx.rng`` and
compares with the library (``aba``) or with a reference inward pass written here (itself checked
against ``aba``), and with identities that use no ABA at all: ``D_i = S_iᵀ 𝓘^A_i S_i`` is the Schur
complement of the CRBA mass matrix, ``ABA(RNEA(q̈)) = q̈``, and the free elbow of [RNE05]'s arm.

Known mistakes (judge side: the passes written here with one piece replaced): ``X 𝓘^a Xᵀ`` for
``Xᵀ 𝓘^a X``, the joint not freed (``𝓘^a = 𝓘^A``), the terms ``𝓘^a A^×`` or ``U u / D`` dropped, ``u`` with
the wrong sign, ``X F^a`` for ``Xᵀ F^a``; in the whole ABA gravity with the wrong sign or ``None`` read
as no gravity, the velocity product ``A^×_i`` or the gyroscopic bias ``ad*(V_i) 𝓘_i V_i`` dropped or turned
around; in the fit, the intercept returned for ``a``, base-10 logarithms mixed with ``exp``, or a slope from
the end points. The ``aba`` checks also receive the student's ``articulated_inertias`` to say whether it is
wrong on a failing case.

============================  ======  ===================================================================
check                         points  what it tests
============================  ======  ===================================================================
``aba-inward-ia``             1       ``articulated_inertias``: the articulated-body inertias ``𝓘^A_i``
``aba-inward-pa``             1       ... the bias wrenches ``F^A_i`` (external wrenches folded into ``p``)
``aba-inward-schur``          1       ... ``S_iᵀ 𝓘^A_i S_i`` = Schur complement of ``M`` (CRBA), no ABA used
``aba-full-chain``            2       ``aba`` on random chains (revolute and prismatic), random gravity
``aba-full-identities``       1       ``aba(RNEA(q̈)) = q̈`` (UR5, random chains); the free elbow
``aba-slope-power``           1       ``power_law_fit`` on exact power laws ``t = a nᵖ``
``aba-slope-measured``        1       ``power_law_fit`` on noisy timings ``a + b n + c n²``
============================  ======  ===================================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples
from lessonlib.conventions import base_acceleration
from lessonlib.dynamics import aba, crba, rnea
from lessonlib.kinematics import body_twists, joint_transforms
from lessonlib.se3 import ad, ad_dual
from ..checker import Exercise, Variant
from ._common import random_chain, random_gravity, read_only

EXERCISE = Exercise(
    "aba09", notebook="09_aba.ipynb", title="Lesson 09 — the articulated-body algorithm and complexity",
    blocked=("lessonlib.dynamics", "lessonlib.batch", "lessonlib.check", "lessonlib.constraints"),
    copy_targets=("lessonlib.dynamics.aba", "lessonlib.batch"))


# --- reference quantities (judge side; never sent to the kernel) ------------------------------


def inward_reference(X, S, I, c, p, tau):
    """The ABA inward pass for a chain: articulated inertias ``𝓘^A`` (n, 6, 6) and bias wrenches ``F^A`` (n, 6)."""
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
    """The third ABA pass (outward) from given ``𝓘^A, F^A``: the joint accelerations ``q̈``."""
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


def _inward_case(ctx, *, with_fext=False):
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
    return model, q, read_only(X, S, I, c, p, tau), (IA, pA)


# --- known mistakes (judge side): the passes with one piece replaced -------------------------------

def inward_with(X, S, I, c, p, tau, *, carry=lambda X, I: X.T @ I @ X, hand=lambda X, f: X.T @ f, free=True,
                c_term=True, u_term=True, u_sign=-1.0):
    """The inward pass — or a slip: another way to ``carry`` 𝓘^a or ``hand`` F^a to the parent, the joint
    not ``free``-d (𝓘^a = 𝓘^A), the ``c_term`` 𝓘^a A^× or the ``u_term`` U u / D dropped, ``u`` with another sign."""
    n = len(S)
    IA, pA = np.array(I, dtype=float), np.array(p, dtype=float)
    for i in reversed(range(n)):
        U = IA[i] @ S[i]
        D = S[i] @ U
        u = tau[i] + u_sign * S[i] @ pA[i]
        if i > 0:
            Ia = IA[i] - np.outer(U, U) / D if free else IA[i]
            pa = pA[i] + (Ia @ c[i] if c_term else 0.0) + (U * u / D if u_term else 0.0)
            IA[i - 1] += carry(X[i], Ia)
            pA[i - 1] += hand(X[i], pa)
    return IA, pA


def aba_with(model, q, qd, tau, gravity=None, *, default=None, gravity_sign=1.0,
             product=lambda v, vJ: ad(v) @ vJ, gyroscopic=lambda v, I: ad_dual(v) @ I @ v):
    """The whole ABA of a chain — or a slip: ``default`` choosing the gravity, gravity times ``gravity_sign``,
    another velocity ``product`` A^×_i or ``gyroscopic`` bias ad*(V_i) 𝓘_i V_i."""
    g = (model.gravity if gravity is None else gravity) if default is None else default(model, gravity)
    n, X, S, I = model.n, joint_transforms(model, q), model.S, model.inertia
    v = body_twists(model, q, qd)
    c = np.array([product(v[i], S[i] * qd[i]) for i in range(n)])
    p = np.array([gyroscopic(v[i], I[i]) for i in range(n)])
    IA, pA = inward_with(X, S, I, c, p, tau)
    return accelerations_from(X, S, c, IA, pA, tau, base_acceleration(gravity_sign * np.asarray(g, dtype=float)))


def fit_with(n, t, *, log=np.log, exp=np.exp, prefactor=True, end_points=False):
    """``(p, a)`` of ``t = a n^p`` on log-log axes — or a slip: another ``log``/``exp`` pair, the intercept for
    ``a`` (``prefactor = False``), or the slope through the ``end_points`` only."""
    x, y = log(np.asarray(n, dtype=float)), log(np.asarray(t, dtype=float))
    if end_points:
        p = (y[-1] - y[0]) / (x[-1] - x[0])
        intercept = y[0] - p * x[0]
    else:
        p, intercept = np.polyfit(x, y, 1)
    return float(p), float(exp(intercept) if prefactor else intercept)


def _dropped(*args):
    return np.zeros(6)


IA_NOT_TRANSPOSED = Variant("your inward pass seems to carry 𝓘^a_i to the parent as X_i 𝓘^a_i X_iᵀ; it is "
                            "X_iᵀ 𝓘^a_i X_i", articulated_inertias=partial(inward_with, carry=lambda X, I: X @ I @ X.T))
IA_NOT_FREED = Variant("your inward pass seems to hand the parent 𝓘^A_i itself, not 𝓘^a_i = 𝓘^A_i − U_i U_iᵀ / D_i: "
                       "joint i is not freed (that is the composite inertia of the CRBA)",
                       articulated_inertias=partial(inward_with, free=False))
PA_NO_C = Variant("your F^a_i seems to lack the term 𝓘^a_i A^×_i", articulated_inertias=partial(inward_with, c_term=False))
PA_NO_U = Variant("your F^a_i seems to lack the term U_i u_i / D_i", articulated_inertias=partial(inward_with,
                                                                                                  u_term=False))
PA_U_SIGN = Variant("your u_i seems to be τ_i + S_iᵀF^A_i; it is τ_i − S_iᵀF^A_i",
                    articulated_inertias=partial(inward_with, u_sign=+1.0))
PA_NOT_TRANSPOSED = Variant("your inward pass seems to hand F^a_i to the parent with X_i; wrenches go back with "
                            "X_iᵀ", articulated_inertias=partial(inward_with, hand=lambda X, f: X @ f))
ABA_GRAVITY_SIGN = Variant("your aba seems to use gravity with the wrong sign: start from A_0 = [0; −g_phys]",
                           aba=partial(aba_with, gravity_sign=-1.0))
ABA_NONE_IS_ZERO = Variant("your aba seems to treat gravity=None as no gravity; None means model.gravity",
                           aba=partial(aba_with, default=lambda model, g: np.zeros(3) if g is None else g))
ABA_NO_PRODUCT = Variant("your aba seems to lack the velocity-product accelerations A^×_i = ad(V_i) S_i q̇_i",
                         aba=partial(aba_with, product=_dropped))
ABA_PRODUCT_SWAPPED = Variant("your A^×_i seems to have its arguments swapped, ad(S_i q̇_i) V_i = −ad(V_i) S_i q̇_i",
                              aba=partial(aba_with, product=lambda v, vJ: ad(vJ) @ v))
ABA_NO_GYRO = Variant("your aba seems to lack the gyroscopic bias ad*(V_i) 𝓘_i V_i (the starting F^A_i)",
                      aba=partial(aba_with, gyroscopic=_dropped))
FIT_INTERCEPT = Variant("your a seems to be the intercept log a of the line; return a = exp(intercept)",
                        power_law_fit=partial(fit_with, prefactor=False))
FIT_MIXED_LOGS = Variant("your fit seems to take base-10 logarithms but exp of the intercept: use one base (np.log "
                         "with np.exp, or np.log10 with 10**)", power_law_fit=partial(fit_with, log=np.log10))
FIT_END_POINTS = Variant("your slope seems to come from the first and last points only; fit all points by least "
                         "squares", power_law_fit=partial(fit_with, end_points=True))
ABA_MISTAKES = (ABA_GRAVITY_SIGN, ABA_NONE_IS_ZERO, ABA_NO_PRODUCT, ABA_PRODUCT_SWAPPED, ABA_NO_GYRO)


def _inward_suspect(ctx, articulated_inertias, model, q, qd, tau):
    """The probe of the student's inward pass on this case (no external wrench), for a failing ``aba``."""
    n, X, S, I = model.n, joint_transforms(model, q), model.S.copy(), model.inertia.copy()
    v = body_twists(model, q, qd)
    c = np.array([ad(v[i]) @ S[i] * qd[i] for i in range(n)])
    p = np.array([ad_dual(v[i]) @ I[i] @ v[i] for i in range(n)])
    return ctx.suspect(articulated_inertias, X, S, I, c, p, np.asarray(tau, dtype=float),
                       expected=inward_reference(X, S, I, c, p, tau), call="articulated_inertias(X, S, I, c, p, tau)",
                       see="aba-inward-pa")


# --- (a) the inward pass ------------------------------------------------------------------------

@EXERCISE.check("aba-inward-ia", points=1, functions=("articulated_inertias",),
                title="inward pass: articulated-body inertias 𝓘^A_i", variants=(IA_NOT_TRANSPOSED, IA_NOT_FREED))
def check_inward_ia(ctx, articulated_inertias):
    for _ in range(3):
        model, _, args, (IA, _) = _inward_case(ctx)
        got, _ = ctx.expect_tuple(ctx.call(articulated_inertias, *args), ("IA", "pA"))
        ctx.expect_close("IA (n, 6, 6)", got, IA,
                         hint="start from 𝓘^A_i = 𝓘_i; going inward, 𝓘^A_(i−1) += X_iᵀ (𝓘^A_i − U_i U_iᵀ / D_i) X_i "
                              "with U_i = 𝓘^A_i S_i, D_i = S_iᵀU_i")


@EXERCISE.check("aba-inward-pa", points=1, functions=("articulated_inertias",),
                title="inward pass: bias wrenches F^A_i", variants=(PA_NO_C, PA_NO_U, PA_U_SIGN, PA_NOT_TRANSPOSED))
def check_inward_pa(ctx, articulated_inertias):
    for _ in range(3):
        model, _, args, (_, pA) = _inward_case(ctx, with_fext=True)
        call = f"articulated_inertias(X, S, I, c, p, tau) on a random {model.n}-link chain (p includes -f_ext)"
        _, got = ctx.expect_tuple(ctx.call(articulated_inertias, *args), ("IA", "pA"), call=call)
        ctx.expect_close("pA (n, 6)", got, pA, call=call,
                         hint="F^a_i = F^A_i + 𝓘^a_i A^×_i + U_i u_i / D_i with u_i = τ_i − S_iᵀF^A_i; "
                              "F^A_(i−1) += X_iᵀF^a_i")


@EXERCISE.check("aba-inward-schur", points=1, functions=("articulated_inertias",),
                title="inward pass: S_iᵀ𝓘^A_iS_i is the Schur complement of M(q)",
                variants=(IA_NOT_TRANSPOSED, IA_NOT_FREED))
def check_inward_schur(ctx, articulated_inertias):
    for _ in range(2):
        model, q, args, _ = _inward_case(ctx)
        IA, _ = ctx.expect_tuple(ctx.call(articulated_inertias, *args), ("IA", "pA"))
        IA = ctx.expect_shape("IA", IA, (model.n, 6, 6))
        D = np.array([S_i @ IA_i @ S_i for S_i, IA_i in zip(model.S, IA)])
        ctx.expect_close("D_i = S_iᵀ 𝓘^A_i S_i for every joint (the Schur complements of the CRBA's M)", D,
                         schur_complements(crba(model, q)),
                         hint="with the outboard joints free, joint i feels M_ii - M_i,>i (M_>i,>i)^-1 M_>i,i; "
                              "the last body's 𝓘^A is its own rigid inertia")


# --- (b) the whole ABA ---------------------------------------------------------------------------

@EXERCISE.check("aba-full-chain", points=2, functions=("aba",), helpers=("articulated_inertias",),
                title="full ABA on random chains", variants=ABA_MISTAKES)
def check_full_chain(ctx, aba_student, articulated_inertias):
    cases = []
    for _ in range(4):
        model = random_chain(ctx)
        n = model.n
        cases.append((model, ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), 5 * ctx.rng.normal(size=n),
                      random_gravity(ctx)))
    for model, q, qd, tau, g in cases:
        with ctx.suspects(_inward_suspect(ctx, articulated_inertias, model, q, qd, tau)):
            ctx.expect_close("qdd (n,)", ctx.call(aba_student, model, q, qd, tau, gravity=g),
                             aba(model, q, qd, tau, gravity=g),
                             hint="three passes: velocities out, articulated inertias in, "
                                  "accelerations out from A_0 = [0; −g_phys]")
    model, q, qd, tau, _ = cases[-1]
    ctx.expect_close("qdd (n,)", ctx.call(aba_student, model, q, qd, tau), aba(model, q, qd, tau),
                     hint="gravity=None means the model's default, model.gravity")


@EXERCISE.check("aba-full-identities", points=1, functions=("aba",), helpers=("articulated_inertias",),
                title="full ABA: ABA(RNEA(qdd)) = qdd, and the free elbow", variants=ABA_MISTAKES)
def check_full_identities(ctx, aba_student, articulated_inertias):
    ur5 = samples.ur5()
    models = [ur5, random_chain(ctx, 3, 6)]
    for model in models:
        n = model.n
        q, qd, qdd = ctx.rng.uniform(-np.pi, np.pi, n), ctx.rng.normal(size=n), ctx.rng.normal(size=n)
        tau = rnea(model, q, qd, qdd)
        call = f"aba(model, q, qd, tau = rnea(model, q, qd, qdd)) on {model.name!r} (n = {n})"
        with ctx.suspects(_inward_suspect(ctx, articulated_inertias, model, q, qd, tau)):
            ctx.expect_close("qdd (n,)", ctx.call(aba_student, model, q, qd, tau), qdd, call=call,
                             hint="forward dynamics undoes inverse dynamics: you should get the qdd that produced tau")
    two = samples.planar_2link()                                   # [RNE05]'s rods, stretched out, at rest
    push = ctx.rng.uniform(0.5, 3.0)
    M = crba(two, np.zeros(2))
    expected = push / (M[0, 0] - M[0, 1] ** 2 / M[1, 1])
    call = f"aba(planar_2link, q=0, qd=0, tau=({push:.4g}, 0), gravity=0): the shoulder with a free elbow"
    got = ctx.expect_shape("qdd", ctx.call(aba_student, two, np.zeros(2), np.zeros(2), np.array([push, 0.0]),
                                           gravity=np.zeros(3)), (2,), call=call)
    ctx.expect_close("qdd_1 = tau_1 / (M11 - M12^2 / M22)", got[0], expected, call=call,
                     hint="with the elbow free the shoulder feels the Schur complement M11 - M12^2 / M22 of M(q)")


# --- (c) log-log slopes --------------------------------------------------------------------------------

def _fit_pair(ctx, result, call):
    result = ctx.expect_tuple(result, ("p", "a"), call=call)
    return (ctx.expect_shape("p", result[0], (), call=call), ctx.expect_shape("a", result[1], (), call=call))


def _chain_lengths(ctx):
    n0 = int(ctx.rng.integers(2, 5))
    return np.array(sorted({int(round(n0 * 2 ** (k / 2))) for k in range(int(ctx.rng.integers(5, 9)))}), dtype=float)


@EXERCISE.check("aba-slope-power", points=1, functions=("power_law_fit",),
                title="log-log fit of exact power laws", variants=(FIT_INTERCEPT, FIT_MIXED_LOGS))
def check_slope_power(ctx, power_law_fit):
    for p in (1.0, 2.0, 3.0, ctx.rng.uniform(0.3, 3.5)):
        n = _chain_lengths(ctx)
        a = 10 ** ctx.rng.uniform(-7, -3)                          # seconds per n^p
        call = f"power_law_fit(n, t) for t = {a:.3g} n^{p:.4g}, n = {n.astype(int).tolist()}"
        p_got, a_got = _fit_pair(ctx, ctx.call(power_law_fit, n, a * n ** p), call)
        ctx.expect_close("p (the slope)", p_got, p, call=call,
                         hint="fit a straight line to (log n, log t): its slope is p, its intercept log a")
        ctx.expect_close(f"your prefactor a divided by the true a = {a:.3g} (1 when they agree)", a_got / a, 1.0,
                         call=call, hint="the line's intercept is log a, so a = exp(intercept)")


@EXERCISE.check("aba-slope-measured", points=1, functions=("power_law_fit",),
                title="log-log fit of noisy measured timings", variants=(FIT_INTERCEPT, FIT_MIXED_LOGS, FIT_END_POINTS))
def check_slope_measured(ctx, power_law_fit):
    for _ in range(3):
        n = _chain_lengths(ctx)
        a, b, c = 10 ** ctx.rng.uniform(-5, -4), 10 ** ctx.rng.uniform(-6, -5), 10 ** ctx.rng.uniform(-8, -6)
        t = (a + b * n + c * n**2) * np.exp(ctx.rng.normal(0.0, 0.05, n.size))
        p, intercept = np.polyfit(np.log(n), np.log(t), 1)
        call = f"power_law_fit(n, t) for timings like a + b n + c n^2 with noise, n = {n.astype(int).tolist()}"
        p_got, a_got = _fit_pair(ctx, ctx.call(power_law_fit, n, t), call)
        ctx.expect_close("p (the slope)", p_got, p, call=call,
                         hint="least squares over all points of log t = p log n + log a (numpy.polyfit of degree 1)")
        ctx.expect_close("a / exp(intercept)", a_got / np.exp(intercept), 1.0, call=call)
