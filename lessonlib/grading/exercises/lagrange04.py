"""Checks of exercise 04: Lagrange's equations — the pendulum, and M, g, C of the two-link arm.

[WJ §2.1] (the single link, τ = I_O q̈ + m g₀ ℓ sin q) and [DB4 §4.2] (the four Lagrange
steps, the two-link M(q)). The student derives with sympy in the answer cells and returns
**numbers**: the grader only ever receives plain data from the kernel, so each function takes
the state and a dict of the arm's parameters and evaluates the student's own derivation
(``sp.lambdify``). While grading, every dynamics route of the library is unavailable
(``lessonlib.dynamics``, ``kinematics``, ``batch``, ``check``, ``constraints``); sympy stays.

The two-link arm is [DB4 §4.2]'s, with the centres of mass at distances ``lc1``, ``lc2`` from the
joints ([DB4]: ``lc = l/2``), so the closed form of the lesson has to be derived, not copied.
References: a Model of the same arm (CRBA, RNEA, the polarised Christoffel matrix), closed forms
(self-tested against the Model), link-by-link kinetic energies and central differences.

=============================  ======  ======================================================
check                          points  what it tests
=============================  ======  ======================================================
``lagrange-pendulum-static``   1       ``pendulum_torque`` at rest: m g₀ ℓ sin q
``lagrange-pendulum-dynamic``  1       ... in motion: (I_c + m ℓ²) q̈, no velocity term
``lagrange-mass-db4``          1       ``mass_matrix_2link`` with [DB4 §4.2]'s numbers
``lagrange-mass-random``       1       ... random arms: CRBA, ½ q̇ᵀ M q̇ = Σ link energies
``lagrange-gravity-db4``       1       ``gravity_2link`` with [DB4 §4.2]'s numbers
``lagrange-gravity-random``    1       ... random arms: RNEA(q, 0, 0) and ∂U/∂q
``lagrange-coriolis-cqd``      1       ``coriolis_2link``: C q̇ = RNEA(q, q̇, 0) without gravity
``lagrange-coriolis-skew``     1       ... C is Christoffel's: Ṁ − 2C skew-symmetric
=============================  ======  ======================================================
"""
from __future__ import annotations

import numpy as np

from ... import spatial
from ...dynamics import coriolis_matrix, crba, gravity_torques, rnea, velocity_torques
from ...model import Joint, Model
from ..checker import Exercise

EXERCISE = Exercise(
    "lagrange04", notebook="04_lagrange.ipynb", title="Lesson 04 — Lagrange's equations",
    blocked=("lessonlib.dynamics", "lessonlib.kinematics", "lessonlib.batch", "lessonlib.check",
             "lessonlib.constraints", "lessonlib.complexity", "lessonlib.viz"),
    copy_targets=("lessonlib.dynamics.lagrange",))

#: [DB4 §4.2]: l₁ = l₂ = 0.5 m, m₁ = m₂ = 5 kg, COM at mid-link; I_i = m l²/12 (uniform rods).
DB4_ARM = dict(l1=0.5, lc1=0.25, lc2=0.25, m1=5.0, m2=5.0, I1=5 / 48, I2=5 / 48, g0=9.81)
_Z = [0.0, 0.0, 1.0]
FD_STEP = 1e-6


def fmt(x):
    return np.array2string(np.asarray(x, dtype=float), precision=4, separator=", ", suppress_small=True)


def fmt_params(p):
    return "{" + ", ".join(f"{k}: {v:.4g}" for k, v in p.items()) + "}"


# --- the arms as Models (judge side) --------------------------------------------------------------------

def pendulum_model(link):
    """[WJ §2.1]'s link: COM ``ell`` below the axis when q = 0, inertia ``I_c`` about the COM axis."""
    G = spatial.inertia(link["m"], [0.0, -link["ell"], 0.0], np.diag([link["I_c"], 0.0, link["I_c"]]))
    return Model([-1], [Joint("revolute", _Z)], [np.eye(4)], [G], gravity=[0.0, -link["g0"], 0.0], name="pendulum")


def two_link_model(arm):
    """[DB4 §4.2]'s planar arm: joints about z, link i along its body x, COM at lc_i, gravity −y."""
    T2 = np.eye(4)
    T2[0, 3] = arm["l1"]
    G = [spatial.inertia(arm[f"m{i}"], [arm[f"lc{i}"], 0.0, 0.0], np.diag([0.0, arm[f"I{i}"], arm[f"I{i}"]]))
         for i in (1, 2)]
    return Model([-1, 0], [Joint("revolute", _Z), Joint("revolute", _Z)], [np.eye(4), T2], G,
                 gravity=[0.0, -arm["g0"], 0.0], name="two_link")


# --- closed forms (self-tested against the Models) ----------------------------------------------------

def mass_closed(q, a):
    c2 = np.cos(q[1])
    m12 = a["m2"] * (a["lc2"] ** 2 + a["l1"] * a["lc2"] * c2) + a["I2"]
    m11 = (a["m1"] * a["lc1"] ** 2 + a["I1"]
           + a["m2"] * (a["l1"] ** 2 + a["lc2"] ** 2 + 2 * a["l1"] * a["lc2"] * c2) + a["I2"])
    return np.array([[m11, m12], [m12, a["m2"] * a["lc2"] ** 2 + a["I2"]]])


def mass_rate_closed(q, qd, a):
    """Ṁ = ∂M/∂q₂ · q̇₂."""
    s = -a["m2"] * a["l1"] * a["lc2"] * np.sin(q[1]) * qd[1]
    return np.array([[2 * s, s], [s, 0.0]])


def gravity_closed(q, a):
    c1, c12 = np.cos(q[0]), np.cos(q[0] + q[1])
    g2 = a["m2"] * a["lc2"] * a["g0"] * c12
    return np.array([(a["m1"] * a["lc1"] + a["m2"] * a["l1"]) * a["g0"] * c1 + g2, g2])


def christoffel_closed(q, qd, a):
    h = a["m2"] * a["l1"] * a["lc2"] * np.sin(q[1])
    return np.array([[-h * qd[1], -h * (qd[0] + qd[1])], [h * qd[0], 0.0]])


def potential(q, a):
    """U = Σ m_i g₀ y_ci (zero level: the base)."""
    y1 = a["lc1"] * np.sin(q[0])
    y2 = a["l1"] * np.sin(q[0]) + a["lc2"] * np.sin(q[0] + q[1])
    return a["g0"] * (a["m1"] * y1 + a["m2"] * y2)


def kinetic_by_links(q, qd, a):
    """T = Σ ½ m_i |v_ci|² + ½ I_i ω_i², with the COM velocities differentiated by hand."""
    s1, c1, s12, c12 = np.sin(q[0]), np.cos(q[0]), np.sin(q[0] + q[1]), np.cos(q[0] + q[1])
    w1, w2 = qd[0], qd[0] + qd[1]
    v1 = a["lc1"] * w1 * np.array([-s1, c1])
    v2 = a["l1"] * w1 * np.array([-s1, c1]) + a["lc2"] * w2 * np.array([-s12, c12])
    return 0.5 * (a["m1"] * v1 @ v1 + a["m2"] * v2 @ v2 + a["I1"] * w1**2 + a["I2"] * w2**2)


def _self_test(q, qd, a):
    model = two_link_model(a)
    assert np.allclose(crba(model, q), mass_closed(q, a), atol=1e-9), "checker self-test: M"
    assert np.allclose(gravity_torques(model, q), gravity_closed(q, a), atol=1e-9), "checker self-test: g"
    assert np.allclose(coriolis_matrix(model, q, qd), christoffel_closed(q, qd, a), atol=1e-9), "self-test: C"
    assert np.isclose(0.5 * qd @ mass_closed(q, a) @ qd, kinetic_by_links(q, qd, a)), "checker self-test: T"
    dU = [(potential(q + e, a) - potential(q - e, a)) / (2 * FD_STEP) for e in np.eye(2) * FD_STEP]
    assert np.allclose(dU, gravity_closed(q, a), atol=1e-5), "checker self-test: dU/dq"
    dM = (mass_closed(q + FD_STEP * qd, a) - mass_closed(q - FD_STEP * qd, a)) / (2 * FD_STEP)
    assert np.allclose(dM, mass_rate_closed(q, qd, a), atol=1e-6), "checker self-test: Mdot"
    return model


def random_arm(ctx):
    l1 = ctx.rng.uniform(0.3, 1.2)
    m1, m2 = ctx.rng.uniform(0.5, 8.0, 2)
    return dict(l1=l1, lc1=l1 * ctx.rng.uniform(0.2, 0.8), lc2=ctx.rng.uniform(0.1, 1.0), m1=m1, m2=m2,
                I1=m1 * ctx.rng.uniform(0.005, 0.1), I2=m2 * ctx.rng.uniform(0.005, 0.1), g0=ctx.rng.uniform(1.0, 20.0))


def random_link(ctx):
    m = ctx.rng.uniform(0.3, 5.0)
    return dict(m=m, ell=ctx.rng.uniform(0.1, 1.0), I_c=m * ctx.rng.uniform(0.001, 0.1), g0=ctx.rng.uniform(1.0, 20.0))


def pendulum_reference(q, qd, qdd, link):
    tau = rnea(pendulum_model(link), [q], [qd], [qdd])[0]
    closed = (link["I_c"] + link["m"] * link["ell"] ** 2) * qdd + link["m"] * link["g0"] * link["ell"] * np.sin(q)
    assert np.isclose(tau, closed, atol=1e-9), "checker self-test: [WJ §2.1]'s single link"
    return tau


# --- (a) the pendulum -----------------------------------------------------------------------------------

@EXERCISE.check("lagrange-pendulum-static", points=1, functions=("pendulum_torque",),
                title="pendulum_torque at rest: holding the link against gravity")
def check_pendulum_static(ctx, pendulum_torque):
    link = random_link(ctx)
    for q in [0.0, np.pi / 2] + list(ctx.rng.uniform(-np.pi, np.pi, 3)):
        call = f"pendulum_torque(q={q:.4f}, qd=0, qdd=0, link={fmt_params(link)})"
        tau = ctx.expect_shape("tau", ctx.call(pendulum_torque, q, 0.0, 0.0, link), (), call=call)
        ctx.expect_close("tau (N·m)", tau, pendulum_reference(q, 0.0, 0.0, link), call=call,
                         hint="U = m g0 ell (1 - cos q) with q = 0 hanging down, so dU/dq = m g0 ell sin q")


@EXERCISE.check("lagrange-pendulum-dynamic", points=1, functions=("pendulum_torque",),
                title="pendulum_torque in motion: I_O = I_c + m ell², no velocity term")
def check_pendulum_dynamic(ctx, pendulum_torque):
    for _ in range(4):
        link = random_link(ctx)
        q, qd, qdd = ctx.rng.uniform(-np.pi, np.pi), ctx.rng.normal() * 3, ctx.rng.normal() * 3
        call = f"pendulum_torque(q={q:.4f}, qd={qd:.4f}, qdd={qdd:.4f}, link={fmt_params(link)})"
        tau = ctx.expect_shape("tau", ctx.call(pendulum_torque, q, qd, qdd, link), (), call=call)
        ctx.expect_close("tau (N·m)", tau, pendulum_reference(q, qd, qdd, link), call=call,
                         hint="T = ½ I_O qd² with I_O = I_c + m ell² (parallel axes, lesson 03); "
                              "tau does not depend on qd")


# --- (b) the mass matrix -------------------------------------------------------------------------------------

@EXERCISE.check("lagrange-mass-db4", points=1, functions=("mass_matrix_2link",),
                title="mass_matrix_2link with [DB4]'s numbers")
def check_mass_db4(ctx, mass_matrix_2link):
    for q2 in [0.0, np.pi / 2, np.pi, ctx.rng.uniform(-np.pi, np.pi)]:
        q = np.array([ctx.rng.uniform(-np.pi, np.pi), q2])
        _self_test(q, ctx.rng.normal(size=2), DB4_ARM)
        call = f"mass_matrix_2link(q={fmt(q)}, arm=[DB4 §4.2]'s {fmt_params(DB4_ARM)})"
        ctx.expect_close("M (2, 2)", ctx.call(mass_matrix_2link, q, DB4_ARM), mass_closed(q, DB4_ARM), call=call,
                         hint="T = Σ ½ m_i |v_ci|² + ½ I_i ω_i² with ω_1 = qd1, ω_2 = qd1 + qd2; "
                              "M = hessian of T in qd")


@EXERCISE.check("lagrange-mass-random", points=1, functions=("mass_matrix_2link",),
                title="mass_matrix_2link on random arms: CRBA, and ½ q̇ᵀMq̇ = the links' kinetic energy")
def check_mass_random(ctx, mass_matrix_2link):
    for _ in range(3):
        arm = random_arm(ctx)
        q, qd = ctx.rng.uniform(-np.pi, np.pi, 2), ctx.rng.normal(size=2)
        model = _self_test(q, qd, arm)
        call = f"mass_matrix_2link(q={fmt(q)}, arm={fmt_params(arm)})"
        M = ctx.expect_shape("M (2, 2)", ctx.call(mass_matrix_2link, q, arm), (2, 2), call=call)
        ctx.expect_close(f"½ qdᵀ M qd for qd = {fmt(qd)} (the links' kinetic energy)", 0.5 * qd @ M @ qd,
                         kinetic_by_links(q, qd, arm), call=call,
                         hint="v_c2 = d/dt (l1 (cos q1, sin q1) + lc2 (cos(q1+q2), sin(q1+q2))); "
                              "the COM of link i sits lc_i from its joint")
        ctx.expect_close("M (2, 2)", M, crba(model, q), call=call)


# --- (c) gravity ---------------------------------------------------------------------------------------------

@EXERCISE.check("lagrange-gravity-db4", points=1, functions=("gravity_2link",),
                title="gravity_2link with [DB4]'s numbers")
def check_gravity_db4(ctx, gravity_2link):
    cases = [np.zeros(2), np.array([np.pi / 2, 0.0]), np.array([-np.pi / 2, 0.0])] + [ctx.rng.uniform(-np.pi, np.pi, 2)
                                                                                     for _ in range(2)]
    for q in cases:
        call = f"gravity_2link(q={fmt(q)}, arm=[DB4 §4.2]'s {fmt_params(DB4_ARM)})"
        ctx.expect_close("g (2,)", ctx.call(gravity_2link, q, DB4_ARM), gravity_closed(q, DB4_ARM), call=call,
                         hint="U = Σ m_i g0 y_ci with y_c1 = lc1 sin q1, y_c2 = l1 sin q1 + lc2 sin(q1 + q2); "
                              "g = dU/dq")


@EXERCISE.check("lagrange-gravity-random", points=1, functions=("gravity_2link",),
                title="gravity_2link on random arms: RNEA(q, 0, 0) and the gradient of U")
def check_gravity_random(ctx, gravity_2link):
    for _ in range(3):
        arm = random_arm(ctx)
        q = ctx.rng.uniform(-np.pi, np.pi, 2)
        model = _self_test(q, ctx.rng.normal(size=2), arm)
        call = f"gravity_2link(q={fmt(q)}, arm={fmt_params(arm)})"
        ctx.expect_close("g (2,)", ctx.call(gravity_2link, q, arm), gravity_torques(model, q), call=call,
                         hint="the gravity term is dU/dq; use arm['g0'] and the COM distances lc1, lc2")


# --- (d) the Christoffel matrix -----------------------------------------------------------------------------

@EXERCISE.check("lagrange-coriolis-cqd", points=1, functions=("coriolis_2link",),
                title="coriolis_2link: C q̇ equals the velocity torques")
def check_coriolis_cqd(ctx, coriolis_2link):
    for _ in range(3):
        arm = random_arm(ctx)
        q, qd = ctx.rng.uniform(-np.pi, np.pi, 2), ctx.rng.normal(size=2) * 2
        model = _self_test(q, qd, arm)
        call = f"coriolis_2link(q={fmt(q)}, qd={fmt(qd)}, arm={fmt_params(arm)})"
        C = ctx.expect_shape("C (2, 2)", ctx.call(coriolis_2link, q, qd, arm), (2, 2), call=call)
        ctx.expect_close("C @ qd (the Coriolis and centrifugal torques)", C @ qd, velocity_torques(model, q, qd),
                         call=call,
                         hint="C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) qd_k (lesson 04, eq. 4.6)")


@EXERCISE.check("lagrange-coriolis-skew", points=1, functions=("coriolis_2link",),
                title="coriolis_2link is Christoffel's C: Ṁ − 2C is skew-symmetric")
def check_coriolis_skew(ctx, coriolis_2link):
    for _ in range(3):
        arm = random_arm(ctx)
        q, qd = ctx.rng.uniform(-np.pi, np.pi, 2), ctx.rng.normal(size=2) * 2
        model = _self_test(q, qd, arm)
        call = f"coriolis_2link(q={fmt(q)}, qd={fmt(qd)}, arm={fmt_params(arm)})"
        C = ctx.expect_shape("C (2, 2)", ctx.call(coriolis_2link, q, qd, arm), (2, 2), call=call)
        S = mass_rate_closed(q, qd, arm) - 2 * C
        ctx.expect_close("(Ṁ − 2C) + (Ṁ − 2C)ᵀ (must be zero)", S + S.T, np.zeros((2, 2)), call=call,
                         hint="only C q̇ is fixed by the physics; the Christoffel symbols pick the C with Ṁ − 2C skew")
        ctx.expect_close("C (2, 2)", C, coriolis_matrix(model, q, qd), call=call)
