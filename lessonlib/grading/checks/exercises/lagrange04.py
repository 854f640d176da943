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
Known mistakes of (a)–(d), each a reference with one slip (``pendulum_with``, ``mass_with``,
``gravity_2link_with``, ``christoffel_with``, self-tested against the closed forms): the pendulum's gravity
term with −sin, cos or ℓ/2, I_{O,u} without m ℓ² or without I_c, ∂ℒ/∂q̇ not differentiated in time; M without the
links' rotation, with ω₂ = q̇₂, twice M (K without ½), link 2 hung from ℓ₁ or pointing along q₂ (the same two in
g(q), which also knows U's sign and x for y); C without the ½, with +∂M_jk/∂q_i, q̇_j for q̇_k, transposed, or
read off Ṁ q̇ − ½ ∂(q̇ᵀMq̇)/∂q (right C q̇, Ṁ − 2C not skew).

Two parts follow the sources' own cases. (e) [DB4 §4.2]'s arm in DH form: the potential energy with the
course's sign, ``U = −Σ m_i g_physᵀ p_{c_i}`` for a ``g_phys`` that points down, and ``g(q) = ∂U/∂q``, against
the product-of-exponentials Model of the same arm (``potential_energy``, RNEA gravity torques), in any
direction of gravity; known mistakes: [DB4]'s printed sign, the mass centre at ``+lc_i`` or at ``−l_i/2`` in
DH frame i, link 2 placed by T_{1,2} alone, gravity assumed along −y. (f) [LG]'s spinning skater (appendix on
the Coriolis force): the angular momentum ``L_z = ∂K/∂q̇₁``, conserved along a simulated pull-in with no
torque on the spin (``skater_pull_in``), and Lagrange's torques against the RNEA, with the Coriolis torque
``2 m q₂ q̇₂ q̇₁``; known mistakes: the kinetic energy for L_z, the hub or the mass left out, the Coriolis
factor 1 or 0, the centrifugal term's sign or absence. (g) A point seen from a moving frame ([LG]'s appendix and
its Newton–Euler section, lesson 04 §12): ``frame_acceleration`` returns ``p̈ = a_O + ω̇ × p_rel + ω × (ω × p_rel) +
2 ω × v_rel + a_rel`` in the frame's axes, against the second central difference of the point's *world* position
``p_O(t) + R(t) p_rel(t)`` (no formula of (4.14) in the reference): [LG]'s turning platform (the walker going
round, a walker crossing the centre, a random path) and frames that translate and turn about a changing axis;
known mistakes: the Coriolis term without the 2 or reversed (``v_rel × ω``), the centripetal term reversed
(``(ω × p_rel) × ω``) or lost (``(ω × ω) × p_rel``), ``a_rel`` with [LG]'s printed sign, the Euler term ``ω̇ × p_rel``
left out or reversed, ``a_O`` left out.

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
``lagrange-dh-potential``      1       ``potential_dh``: [DB4 §4.2]'s DH arm, ``U = −Σ m g_physᵀ p_c``
``lagrange-dh-gravity``        1       ``gravity_dh``: ``∂U/∂q`` = the PoE arm's g(q), any gravity
``lagrange-skater-momentum``   1       ``skater_momentum``: ``L_z`` constant along a pull-in (τ₁ = 0)
``lagrange-skater-torques``    1       ``skater_torques``: RNEA; ``τ₁(q̈₁ = 0) = 2 m q₂ q̇₂ q̇₁``
``lagrange-frames-platform``   1       ``frame_acceleration`` on [LG]'s platform: differenced world path
``lagrange-frames-general``    1       ... a frame translating and turning about a changing axis
=============================  ======  ======================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples, so3, spatial
from lessonlib.dynamics import (coriolis_matrix, crba, gravity_torques, moving_frame_acceleration, potential_energy, rnea,
                                skater_pull_in, velocity_torques)
from lessonlib.model import Joint, Model, from_dh
from .. import display
from ..checker import Exercise, Variant

EXERCISE = Exercise(
    "lagrange04", notebook="04_lagrange.ipynb", title="Lesson 04 — Lagrange's equations",
    blocked=("lessonlib.dynamics", "lessonlib.kinematics", "lessonlib.batch", "lessonlib.check",
             "lessonlib.constraints", "lessonlib.complexity", "lessonlib.viz"),
    copy_targets=("lessonlib.dynamics.lagrange", "lessonlib.dynamics.coriolis", "lessonlib.dynamics.energy",
                  "lessonlib.dynamics.moving_frames"))

#: [DB4 §4.2]: l₁ = l₂ = 0.5 m, m₁ = m₂ = 5 kg, COM at mid-link; I_{c_i,z} = m l²/12 (uniform rods).
DB4_ARM = dict(l1=0.5, lc1=0.25, lc2=0.25, m1=5.0, m2=5.0, I1=5 / 48, I2=5 / 48, g0=9.81)
_Z = [0.0, 0.0, 1.0]
FD_STEP = 1e-6


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
    """K = Σ ½ m_i |v_{c_i}|² + ½ I_{c_i,z} ω_i², with the COM velocities differentiated by hand."""
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
    assert np.isclose(0.5 * qd @ mass_closed(q, a) @ qd, kinetic_by_links(q, qd, a)), "checker self-test: K"
    dU = [(potential(q + e, a) - potential(q - e, a)) / (2 * FD_STEP) for e in np.eye(2) * FD_STEP]
    assert np.allclose(dU, gravity_closed(q, a), atol=1e-5), "checker self-test: dU/dq"
    dM = (mass_closed(q + FD_STEP * qd, a) - mass_closed(q - FD_STEP * qd, a)) / (2 * FD_STEP)
    assert np.allclose(dM, mass_rate_closed(q, qd, a), atol=1e-6), "checker self-test: Mdot"
    assert np.allclose(mass_with(q, a), mass_closed(q, a), atol=1e-9), "checker self-test: M of the known mistakes"
    assert np.allclose(gravity_2link_with(q, a), gravity_closed(q, a), atol=1e-9), "self-test: g of the known mistakes"
    assert np.allclose(christoffel_with(q, qd, a), christoffel_closed(q, qd, a), atol=1e-9), "self-test: C of the mistakes"
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

def pendulum_with(q, qd, qdd, link, *, own=True, parallel=True, lever=1.0, weight=np.sin, sign=1.0, rate=False):
    """``τ = (I_c + m ℓ²) q̈ + m g₀ ℓ sin q`` — or a slip: ``I_c`` (``own``) or ``m ℓ²`` (``parallel``) left out of
    I_{O,u}, ``lever · ℓ`` for ℓ, ``cos`` for ``sin`` (``weight``), the gravity term's ``sign``, or ``I_{O,u} q̇``
    where ``I_{O,u} q̈`` belongs (``rate``: ∂ℒ/∂q̇ not differentiated in time)."""
    ell = lever * link["ell"]
    inertia = own * link["I_c"] + parallel * link["m"] * ell**2
    return float(inertia * (qd if rate else qdd) + sign * link["m"] * link["g0"] * ell * weight(q))


PENDULUM_SIGN = Variant("your τ seems to have −m g₀ ℓ sin q: with q = 0 hanging down, U = m g₀ ℓ (1 − cos q) grows as the "
                        "link rises, and ℒ = K − U (not K + U), so τ = … + m g₀ ℓ sin q",
                        pendulum_torque=partial(pendulum_with, sign=-1.0))
PENDULUM_COS = Variant("your gravity torque seems to be m g₀ ℓ cos q, as if q were measured from the horizontal; here "
                       "q = 0 hangs straight down: U = m g₀ ℓ (1 − cos q), ∂U/∂q = m g₀ ℓ sin q",
                       pendulum_torque=partial(pendulum_with, weight=np.cos))
PENDULUM_HALF_WEIGHT = Variant("your gravity torque seems to be m g₀ (ℓ/2) sin q: ℓ (key \"ell\") is already the distance "
                               "from the axis to the COM, not the link's length, so U = m g₀ ℓ (1 − cos q)",
                               pendulum_torque=partial(pendulum_with, lever=0.5))
PENDULUM_HALF = Variant("your τ seems to use ℓ/2 where ℓ belongs (in I_{O,u} = I_c + m ℓ² and in m g₀ ℓ sin q): ℓ (key "
                        "\"ell\") is already the distance from the axis to the COM, not the link's length",
                        pendulum_torque=partial(pendulum_with, lever=0.5))
PENDULUM_NO_PARALLEL = Variant("your I_{O,u} seems to be I_c alone, the inertia about the COM; the link turns about the "
                               "axis O, ℓ away: I_{O,u} = I_c + m ℓ² (parallel axes, lesson 03)",
                               pendulum_torque=partial(pendulum_with, parallel=False))
PENDULUM_POINT_MASS = Variant("your I_{O,u} seems to be m ℓ² alone, a point mass at the COM: add the link's own I_c (key "
                              "\"I_c\"), I_{O,u} = I_c + m ℓ²", pendulum_torque=partial(pendulum_with, own=False))
PENDULUM_NOT_DIFFERENTIATED = Variant("your τ seems to have I_{O,u} q̇ where I_{O,u} q̈ belongs: ∂ℒ/∂q̇ = I_{O,u} q̇ must "
                                      "still be differentiated in time (.diff(t)) before ∂ℒ/∂q is subtracted",
                                      pendulum_torque=partial(pendulum_with, rate=True))


@EXERCISE.check("lagrange-pendulum-static", points=1, functions=("pendulum_torque",),
                title="pendulum_torque at rest: holding the link against gravity",
                variants=(PENDULUM_SIGN, PENDULUM_COS, PENDULUM_HALF_WEIGHT))
def check_pendulum_static(ctx, pendulum_torque):
    link = random_link(ctx)
    for q in [0.0, np.pi / 2] + list(ctx.rng.uniform(-np.pi, np.pi, 3)):
        call = f"pendulum_torque(q={q:.4f}, qd=0, qdd=0, link={display.params(link)})"
        tau = ctx.expect_shape("tau", ctx.call(pendulum_torque, q, 0.0, 0.0, link), (), call=call)
        ctx.expect_close("tau (N·m)", tau, pendulum_reference(q, 0.0, 0.0, link), call=call,
                         hint="U = m g₀ ℓ (1 − cos q) with q = 0 hanging down, so dU/dq = m g₀ ℓ sin q")


@EXERCISE.check("lagrange-pendulum-dynamic", points=1, functions=("pendulum_torque",),
                title="pendulum_torque in motion: I_{O,u} = I_c + m ℓ², no velocity term",
                variants=(PENDULUM_NO_PARALLEL, PENDULUM_POINT_MASS, PENDULUM_NOT_DIFFERENTIATED, PENDULUM_HALF,
                          PENDULUM_SIGN, PENDULUM_COS))
def check_pendulum_dynamic(ctx, pendulum_torque):
    for _ in range(4):
        link = random_link(ctx)
        q, qd, qdd = ctx.rng.uniform(-np.pi, np.pi), ctx.rng.normal() * 3, ctx.rng.normal() * 3
        call = f"pendulum_torque(q={q:.4f}, qd={qd:.4f}, qdd={qdd:.4f}, link={display.params(link)})"
        tau = ctx.expect_shape("tau", ctx.call(pendulum_torque, q, qd, qdd, link), (), call=call)
        ctx.expect_close("tau (N·m)", tau, pendulum_reference(q, qd, qdd, link), call=call,
                         hint="K = ½ I_{O,u} q̇² with I_{O,u} = I_c + m ℓ² (parallel axes, lesson 03); "
                              "tau does not depend on qd")


# --- (b) the mass matrix -------------------------------------------------------------------------------------

def com_jacobians(q, arm, *, elbow="l1", absolute=False):
    """``∂p_{c_1}/∂q`` and ``∂p_{c_2}/∂q`` (2, 2) each — or a slip: link 2 hung from link 1's COM (``elbow="lc1"``)
    instead of the elbow at l₁, or link 2 pointing along q₂ instead of q₁ + q₂ (``absolute``)."""
    s1, c1 = np.sin(q[0]), np.cos(q[0])
    phi, dphi = (q[1], [0.0, 1.0]) if absolute else (q[0] + q[1], [1.0, 1.0])
    along1 = np.array([[-s1, 0.0], [c1, 0.0]])
    return (arm["lc1"] * along1,
            arm[elbow] * along1 + arm["lc2"] * np.outer([-np.sin(phi), np.cos(phi)], dphi))


def mass_with(q, arm, *, rotation=True, relative=True, half=True, **com):
    """``M = Σ m_i J_iᵀ J_i + I_{c_i,z} w_i w_iᵀ`` (ω_i = w_i q̇) — or a slip: the links' rotation left out, ω₂ = q̇₂
    (``relative=False``), K without its ½ (``half=False``: twice M), or a COM slip of :func:`com_jacobians`."""
    J1, J2 = com_jacobians(q, arm, **com)
    w2 = np.array([1.0, 1.0]) if relative else np.array([0.0, 1.0])
    M = arm["m1"] * J1.T @ J1 + arm["m2"] * J2.T @ J2
    if rotation:
        M = M + arm["I1"] * np.diag([1.0, 0.0]) + arm["I2"] * np.outer(w2, w2)
    return M if half else 2 * M


MASS_NO_ROTATION = Variant("your M seems to lack the links' rotational energy ½ I_{c_i,z} ω_i² (keys \"I1\", \"I2\"): "
                           "K = Σ ½ m_i |v_{c_i}|² + ½ I_{c_i,z} ω_i², with ω₁ = q̇₁ and ω₂ = q̇₁ + q̇₂",
                           mass_matrix_2link=partial(mass_with, rotation=False))
MASS_OMEGA2 = Variant("your ω₂ seems to be q̇₂ alone in ½ I_{c_2,z} ω₂²: q₂ is measured from link 1, so link 2 turns at "
                      "ω₂ = q̇₁ + q̇₂", mass_matrix_2link=partial(mass_with, relative=False))
MASS_NO_HALF = Variant("your M seems to be twice the mass matrix: K = Σ ½ m_i |v_{c_i}|² + ½ I_{c_i,z} ω_i² keeps its "
                       "½, and then K = ½ q̇ᵀ M q̇ makes M the Hessian of K in q̇",
                       mass_matrix_2link=partial(mass_with, half=False))
MASS_ELBOW_AT_LC1 = Variant("your p_{c_2} seems to start from link 1's COM, ℓ₁ (cos q₁, sin q₁); link 2 hangs from the "
                            "elbow at the end of link 1: p_{c_2} = l₁ (cos q₁, sin q₁) + ℓ₂ (cos(q₁ + q₂), sin(q₁ + q₂))",
                            mass_matrix_2link=partial(mass_with, elbow="lc1"))
MASS_ABSOLUTE_Q2 = Variant("your p_{c_2} seems to point link 2 along the angle q₂; q₂ is measured from link 1, so link 2 "
                           "points along q₁ + q₂: p_{c_2} = l₁ (cos q₁, sin q₁) + ℓ₂ (cos(q₁ + q₂), sin(q₁ + q₂))",
                           mass_matrix_2link=partial(mass_with, absolute=True))
MASS_MISTAKES = (MASS_NO_ROTATION, MASS_OMEGA2, MASS_NO_HALF, MASS_ELBOW_AT_LC1, MASS_ABSOLUTE_Q2)


@EXERCISE.check("lagrange-mass-db4", points=1, functions=("mass_matrix_2link",),
                title="mass_matrix_2link with [DB4]'s numbers", variants=MASS_MISTAKES)
def check_mass_db4(ctx, mass_matrix_2link):
    for q2 in [0.0, np.pi / 2, np.pi, ctx.rng.uniform(-np.pi, np.pi)]:
        q = np.array([ctx.rng.uniform(-np.pi, np.pi), q2])
        _self_test(q, ctx.rng.normal(size=2), DB4_ARM)
        call = f"mass_matrix_2link(q={display.array(q)}, arm=[DB4 §4.2]'s {display.params(DB4_ARM)})"
        ctx.expect_close("M (2, 2)", ctx.call(mass_matrix_2link, q, DB4_ARM), mass_closed(q, DB4_ARM), call=call,
                         hint="K = Σ ½ m_i |v_{c_i}|² + ½ I_{c_i,z} ω_i² with ω_1 = qd1, ω_2 = qd1 + qd2; "
                              "M = hessian of K in qd")


@EXERCISE.check("lagrange-mass-random", points=1, functions=("mass_matrix_2link",),
                title="mass_matrix_2link on random arms: CRBA, and ½ q̇ᵀMq̇ = the links' kinetic energy",
                variants=MASS_MISTAKES)
def check_mass_random(ctx, mass_matrix_2link):
    for _ in range(3):
        arm = random_arm(ctx)
        q, qd = ctx.rng.uniform(-np.pi, np.pi, 2), ctx.rng.normal(size=2)
        model = _self_test(q, qd, arm)
        call = f"mass_matrix_2link(q={display.array(q)}, arm={display.params(arm)})"
        M = ctx.expect_shape("M (2, 2)", ctx.call(mass_matrix_2link, q, arm), (2, 2), call=call)
        ctx.expect_close(f"½ qdᵀ M qd for qd = {display.array(qd)} (the links' kinetic energy)", 0.5 * qd @ M @ qd,
                         kinetic_by_links(q, qd, arm), call=call,
                         hint="K = Σ ½ m_i |v_{c_i}|² + ½ I_{c_i,z} ω_i² with ω_1 = qd1, ω_2 = qd1 + qd2 and "
                              "v_c2 = d/dt (l1 (cos q1, sin q1) + lc2 (cos(q1+q2), sin(q1+q2))); "
                              "the COM of link i sits lc_i from its joint")
        ctx.expect_close("M (2, 2)", M, crba(model, q), call=call)


# --- (c) gravity ---------------------------------------------------------------------------------------------

def gravity_2link_with(q, arm, *, sign=1.0, axis=1, **com):
    """``g(q) = ∂U/∂q`` with ``U = Σ m_i g₀ y_{c_i}`` — or a slip: the ``sign`` of U, the x-coordinates for the heights
    (``axis=0``), or a COM slip of :func:`com_jacobians`."""
    J1, J2 = com_jacobians(q, arm, **com)
    return sign * arm["g0"] * (arm["m1"] * J1[axis] + arm["m2"] * J2[axis])


GRAVITY_SIGN = Variant("your g(q) has the wrong sign: U = Σ m_i g₀ y_{c_i} grows as the links rise (gravity points along "
                       "−y), and g(q) = +∂U/∂q is the torque that holds the arm still",
                       gravity_2link=partial(gravity_2link_with, sign=-1.0))
GRAVITY_X = Variant("your U seems to use the x-coordinates of the mass centres; gravity points along −y, so the heights "
                    "are the y's: U = Σ m_i g₀ y_{c_i}, y_{c_1} = ℓ₁ sin q₁, y_{c_2} = l₁ sin q₁ + ℓ₂ sin(q₁ + q₂)",
                    gravity_2link=partial(gravity_2link_with, axis=0))
GRAVITY_ELBOW_AT_LC1 = Variant("your y_{c_2} seems to start from link 1's COM, ℓ₁ sin q₁; link 2 hangs from the elbow at "
                               "the end of link 1: y_{c_2} = l₁ sin q₁ + ℓ₂ sin(q₁ + q₂) (the p_{c_2} of part (b))",
                               gravity_2link=partial(gravity_2link_with, elbow="lc1"))
GRAVITY_ABSOLUTE_Q2 = Variant("your y_{c_2} seems to point link 2 along the angle q₂; q₂ is measured from link 1: "
                              "y_{c_2} = l₁ sin q₁ + ℓ₂ sin(q₁ + q₂)",
                              gravity_2link=partial(gravity_2link_with, absolute=True))
#: With [DB4]'s ℓ₁ + ℓ₂ = l₁ and q₂ = 0 (its first three cases) the two y_{c_2} slips give the same numbers: [DB4]'s
#: check names neither, the random arms name each.
GRAVITY_MISTAKES = (GRAVITY_SIGN, GRAVITY_X, GRAVITY_ELBOW_AT_LC1, GRAVITY_ABSOLUTE_Q2)


@EXERCISE.check("lagrange-gravity-db4", points=1, functions=("gravity_2link",),
                title="gravity_2link with [DB4]'s numbers", variants=(GRAVITY_SIGN, GRAVITY_X))
def check_gravity_db4(ctx, gravity_2link):
    cases = [np.zeros(2), np.array([np.pi / 2, 0.0]), np.array([-np.pi / 2, 0.0])] + [ctx.rng.uniform(-np.pi, np.pi, 2)
                                                                                     for _ in range(2)]
    for q in cases:
        call = f"gravity_2link(q={display.array(q)}, arm=[DB4 §4.2]'s {display.params(DB4_ARM)})"
        ctx.expect_close("g (2,)", ctx.call(gravity_2link, q, DB4_ARM), gravity_closed(q, DB4_ARM), call=call,
                         hint="U = Σ m_i g0 y_ci with y_c1 = lc1 sin q1, y_c2 = l1 sin q1 + lc2 sin(q1 + q2); "
                              "g = dU/dq")


@EXERCISE.check("lagrange-gravity-random", points=1, functions=("gravity_2link",),
                title="gravity_2link on random arms: RNEA(q, 0, 0) and the gradient of U", variants=GRAVITY_MISTAKES)
def check_gravity_random(ctx, gravity_2link):
    for _ in range(3):
        arm = random_arm(ctx)
        q = ctx.rng.uniform(-np.pi, np.pi, 2)
        model = _self_test(q, ctx.rng.normal(size=2), arm)
        call = f"gravity_2link(q={display.array(q)}, arm={display.params(arm)})"
        ctx.expect_close("g (2,)", ctx.call(gravity_2link, q, arm), gravity_torques(model, q), call=call,
                         hint="the gravity term is dU/dq; use arm['g0'] and the COM distances lc1, lc2")


# --- (d) the Christoffel matrix -----------------------------------------------------------------------------

def christoffel_with(q, qd, arm, *, half=0.5, third=-1.0, by="k", transposed=False, christoffel=True):
    """``C_ij = Σ_k c_ijk q̇_k``, ``c_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)`` — or a slip: another factor for the
    ½ (``half``), the sign of the ``third`` term, ``q̇_j`` for ``q̇_k`` (``by="j"``), C transposed, or the C of
    ``Ṁ q̇ − ½ ∂(q̇ᵀMq̇)/∂q`` taken term by term (``christoffel=False``: C_ij = Σ_k (∂M_ij/∂q_k − ½ ∂M_jk/∂q_i) q̇_k)."""
    h = arm["m2"] * arm["l1"] * arm["lc2"] * np.sin(q[1])
    dM = np.array([np.zeros((2, 2)), [[-2 * h, -h], [-h, 0.0]]])         # dM[k] = ∂M/∂q_k (M depends on q₂ only)
    C = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            for k in range(2):
                if christoffel:
                    c = half * (dM[k][i, j] + dM[j][i, k] + third * dM[i][j, k])
                else:
                    c = dM[k][i, j] - 0.5 * dM[i][j, k]
                C[i, j] += c * (qd[k] if by == "k" else qd[j])
    return C.T if transposed else C


C_NO_HALF = Variant("your C seems to be twice Christoffel's: c_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) has a ½",
                    coriolis_2link=partial(christoffel_with, half=1.0))
C_THIRD_SIGN = Variant("your Christoffel symbols seem to add ∂M_jk/∂q_i; it is subtracted: "
                       "c_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)",
                       coriolis_2link=partial(christoffel_with, third=1.0))
C_VELOCITY_INDEX = Variant("your C seems to multiply c_ijk by q̇_j; the sum runs over k: C_ij = Σ_k c_ijk q̇_k",
                           coriolis_2link=partial(christoffel_with, by="j"))
C_TRANSPOSED = Variant("your C seems to be the transpose of Christoffel's (i and j swapped, C_ji in place of C_ij): row i "
                       "of C belongs to torque i, C_ij = Σ_k c_ijk q̇_k",
                       coriolis_2link=partial(christoffel_with, transposed=True))
C_NOT_CHRISTOFFEL = Variant("your C seems to be C_ij = Σ_k (∂M_ij/∂q_k − ½ ∂M_jk/∂q_i) q̇_k, read off Ṁ q̇ − ½ ∂(q̇ᵀMq̇)/∂q: "
                            "its C q̇ is right, but Ṁ − 2C is not skew; split ∂M_ij/∂q_k symmetrically, as in "
                            "c_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)",
                            coriolis_2link=partial(christoffel_with, christoffel=False))
CORIOLIS_MISTAKES = (C_NO_HALF, C_THIRD_SIGN, C_VELOCITY_INDEX, C_TRANSPOSED)


def _coriolis_case(ctx, coriolis_2link):
    """A random arm and state, the student's ``C`` (2, 2) for it, and the call as the messages show it."""
    arm = random_arm(ctx)
    q, qd = ctx.rng.uniform(-np.pi, np.pi, 2), ctx.rng.normal(size=2) * 2
    model = _self_test(q, qd, arm)
    call = f"coriolis_2link(q={display.array(q)}, qd={display.array(qd)}, arm={display.params(arm)})"
    C = ctx.expect_shape("C (2, 2)", ctx.call(coriolis_2link, q, qd, arm), (2, 2), call=call)
    return arm, q, qd, model, call, C


@EXERCISE.check("lagrange-coriolis-cqd", points=1, functions=("coriolis_2link",),
                title="coriolis_2link: C q̇ equals the velocity torques", variants=CORIOLIS_MISTAKES)
def check_coriolis_cqd(ctx, coriolis_2link):
    for _ in range(3):
        arm, q, qd, model, call, C = _coriolis_case(ctx, coriolis_2link)
        ctx.expect_close("C @ qd (the Coriolis and centrifugal torques)", C @ qd, velocity_torques(model, q, qd),
                         call=call,
                         hint="C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) qd_k (lesson 04, eq. 4.6)")


@EXERCISE.check("lagrange-coriolis-skew", points=1, functions=("coriolis_2link",),
                title="coriolis_2link is Christoffel's C: Ṁ − 2C is skew-symmetric",
                variants=(C_NOT_CHRISTOFFEL,) + CORIOLIS_MISTAKES)
def check_coriolis_skew(ctx, coriolis_2link):
    for _ in range(3):
        arm, q, qd, model, call, C = _coriolis_case(ctx, coriolis_2link)
        S = mass_rate_closed(q, qd, arm) - 2 * C
        ctx.expect_close("(Ṁ − 2C) + (Ṁ − 2C)ᵀ (must be zero)", S + S.T, np.zeros((2, 2)), call=call,
                         hint="only C q̇ is fixed by the physics; the Christoffel symbols pick the C with Ṁ − 2C skew")
        ctx.expect_close("C (2, 2)", C, coriolis_matrix(model, q, qd), call=call,
                         hint="row i of C belongs to torque i: C_ij = Σ_k c_ijk qd_k with "
                              "c_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)")


# --- (e) [DB4 §4.2]'s arm in DH form: the potential energy and its gradient -------------------------------
# DH frame i sits at the far end of link i (a_i = l_i along its x-axis), so the mass centre of link i is at
# (lc_i − l_i, 0, 0) in DH frame i. With g_phys the acceleration of a falling body (pointing down), the potential
# energy is U = −Σ m_i g_physᵀ p_{c_i} ([DB4] writes Σ m_i gᵀ p_{c_i}: with g_phys pointing down that is minus the
# height energy).

def dh_link(length, q):
    """[DB4 §4.2]'s DH transform of one link: (length, twist, offset, joint angle) = (l_i, 0, 0, q_i)."""
    c, s = np.cos(q), np.sin(q)
    return np.array([[c, -s, 0.0, length * c], [s, c, 0.0, length * s], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def _dh_com(arm, i):                       # the mass centre of link i in DH frame i
    return np.array([arm[f"lc{i}"] - arm[f"l{i}"], 0.0, 0.0])


def potential_with(q, arm, gravity, *, sign=-1.0, com=_dh_com, chained=True, falling=None):
    """``U = sign · Σ m_i g_physᵀ p_{c_i}`` of the DH arm — or a slip: the wrong ``sign``, another ``com`` in DH
    frame i, link 2 placed by T_{1,2} alone (``chained=False``), or gravity taken along −y whatever it is (``falling``)."""
    g = np.asarray(gravity, dtype=float) if falling is None else falling(np.asarray(gravity, dtype=float))
    T1 = dh_link(arm["l1"], q[0])
    T2 = T1 @ dh_link(arm["l2"], q[1]) if chained else dh_link(arm["l2"], q[1])
    p = [(T @ np.append(com(arm, i), 1.0))[:3] for i, T in ((1, T1), (2, T2))]
    return float(sign * (arm["m1"] * g @ p[0] + arm["m2"] * g @ p[1]))


def gravity_with(q, arm, gravity, **slip):
    """``g(q) = ∂U/∂q`` of :func:`potential_with` (with the same slip), by central differences (judge side)."""
    q = np.asarray(q, dtype=float)
    return np.array([(potential_with(q + e, arm, gravity, **slip) - potential_with(q - e, arm, gravity, **slip))
                     / (2 * FD_STEP) for e in np.eye(2) * FD_STEP])


def _down_y(g):                            # gravity along −y with the magnitude given
    return np.array([0.0, -np.linalg.norm(g), 0.0])


def _at_joint(arm, i):                     # COM lc_i along x of DH frame i, as if the frame sat at joint i
    return np.array([arm[f"lc{i}"], 0.0, 0.0])


def _midpoint(arm, i):                     # [DB4]'s own case, −l_i/2
    return np.array([-arm[f"l{i}"] / 2, 0.0, 0.0])


def dh_reference(q, arm, gravity):
    """``(U, g(q))`` from the product-of-exponentials Model of the same arm (no DH), self-tested against the DH Model."""
    poe = two_link_model(arm)
    dh = from_dh(a=[arm["l1"], arm["l2"]], alpha=[0.0, 0.0], d=[0.0, 0.0], mass=[arm["m1"], arm["m2"]],
                 com=[_dh_com(arm, 1), _dh_com(arm, 2)], inertia=[np.diag([0.0, arm["I1"], arm["I1"]]),
                                                                  np.diag([0.0, arm["I2"], arm["I2"]])])
    P, g = potential_energy(poe, q, gravity=gravity), gravity_torques(poe, q, gravity=gravity)
    assert np.isclose(P, potential_energy(dh, q, gravity=gravity), atol=1e-9), "checker self-test: U of DH vs PoE"
    assert np.allclose(g, gravity_torques(dh, q, gravity=gravity), atol=1e-9), "checker self-test: g of DH vs PoE"
    return P, g


#: [DB4 §4.2]'s numbers with l₂ = 0.5 m and gravity 9.81 m/s² along −y.
DB4_DH_ARM = dict(DB4_ARM, l2=0.5)
DB4_GRAVITY = np.array([0.0, -9.81, 0.0])


def random_dh_arm(ctx):
    arm = random_arm(ctx)
    arm["l2"] = arm["lc2"] / ctx.rng.uniform(0.3, 0.9)             # the COM lies on the link
    return arm


def random_plane_gravity(ctx):
    """A gravity vector in the arm's plane (any direction, 1–20 m/s²), sometimes with an out-of-plane part."""
    angle = ctx.rng.uniform(0, 2 * np.pi)
    g = ctx.rng.uniform(1.0, 20.0) * np.array([np.cos(angle), np.sin(angle), 0.0])
    g[2] = ctx.rng.choice([0.0, ctx.rng.normal() * 5])
    return g


def _dh_cases(ctx):
    """[DB4]'s numbers (arm along x, straight up, folded) then random arms, states and gravity vectors."""
    for q in (np.zeros(2), np.array([np.pi / 2, 0.0]), np.array([ctx.rng.uniform(-np.pi, np.pi), np.pi])):
        yield q, DB4_DH_ARM, DB4_GRAVITY, "[DB4 §4.2]'s " + display.params(DB4_DH_ARM)
    for _ in range(3):
        arm = random_dh_arm(ctx)
        yield ctx.rng.uniform(-np.pi, np.pi, 2), arm, random_plane_gravity(ctx), display.params(arm)


P_SIGN = Variant("your potential seems to be +Σ m_i g_physᵀ p_{c_i}, [DB4]'s sign with gravity pointing down: that is "
                 "minus the energy of height; with g_phys the acceleration of a falling body, U = −Σ m_i g_physᵀ p_{c_i}",
                 potential_dh=partial(potential_with, sign=1.0))
P_AT_JOINT = Variant("your mass centres seem to sit at (+lc_i, 0, 0) in DH frame i, as if the frame were at joint "
                     "i; DH frame i sits at the far end of link i, so the COM is at (lc_i − l_i, 0, 0)",
                     potential_dh=partial(potential_with, com=_at_joint))
P_MIDPOINT = Variant("your mass centres seem to sit at the middle of the links (−l_i/2 in DH frame i), [DB4]'s "
                     "special case; here the COM is lc_i from joint i: (lc_i − l_i, 0, 0)",
                     potential_dh=partial(potential_with, com=_midpoint))
P_NOT_CHAINED = Variant("your link-2 mass centre seems to be placed with T_{1,2} alone; in frame 0 it is T_{0,1} T_{1,2} p",
                        potential_dh=partial(potential_with, chained=False))
P_DOWN_Y = Variant("your potential seems to take gravity along −y whatever vector you are given; use gravity "
                   "itself: U = −Σ m_i g_physᵀ p_{c_i}", potential_dh=partial(potential_with, falling=_down_y))
G_SIGN = Variant("your g(q) has the wrong sign: it is +∂U/∂q with U = −Σ m_i g_physᵀ p_{c_i} (the torque that holds "
                 "the arm up), or your U has the sign of [DB4]'s Σ m_i gᵀ p_{c_i} with g_phys pointing down",
                 gravity_dh=partial(gravity_with, sign=1.0))
G_AT_JOINT = Variant("your g(q) seems to put the mass centres at (+lc_i, 0, 0) in DH frame i; DH frame i sits at "
                     "the far end of link i, so the COM is at (lc_i − l_i, 0, 0)",
                     gravity_dh=partial(gravity_with, com=_at_joint))
G_MIDPOINT = Variant("your g(q) seems to put the mass centres at the middle of the links (−l_i/2), [DB4]'s special "
                     "case; here the COM is lc_i from joint i", gravity_dh=partial(gravity_with, com=_midpoint))
G_DOWN_Y = Variant("your g(q) seems to take gravity along −y whatever vector you are given",
                   gravity_dh=partial(gravity_with, falling=_down_y))


@EXERCISE.check("lagrange-dh-potential", points=1, functions=("potential_dh",),
                title="potential_dh: the arm from a D-H table, U = −Σ m g_physᵀ p_c",
                variants=(P_SIGN, P_AT_JOINT, P_MIDPOINT, P_NOT_CHAINED, P_DOWN_Y))
def check_dh_potential(ctx, potential_dh):
    for q, arm, g, text in _dh_cases(ctx):
        call = f"potential_dh(q={display.array(q)}, arm={text}, gravity={display.array(g)})"
        P = ctx.expect_shape("U", ctx.call(potential_dh, q, arm, g), (), call=call)
        ctx.expect_close("U (J)", P, dh_reference(q, arm, g)[0], call=call,
                         hint="p_{c_i} = T_{0,i} (lc_i − l_i, 0, 0, 1) with T_{0,1} = DH(l1, 0, 0, q1), "
                              "T_{0,2} = T_{0,1} DH(l2, 0, 0, q2); "
                              "U = −Σ m_i g_physᵀ p_{c_i}: raising a mass against gravity raises U")


@EXERCISE.check("lagrange-dh-gravity", points=1, functions=("gravity_dh",), helpers=("potential_dh",),
                title="gravity_dh: g(q) = ∂U/∂q of the DH arm equals the PoE arm's",
                variants=(G_SIGN, G_AT_JOINT, G_MIDPOINT, G_DOWN_Y))
def check_dh_gravity(ctx, gravity_dh, potential_dh):
    for q, arm, g, text in _dh_cases(ctx):
        call = f"gravity_dh(q={display.array(q)}, arm={text}, gravity={display.array(g)})"
        P, expected = dh_reference(q, arm, g)
        with ctx.suspects(ctx.suspect(potential_dh, q, arm, g, expected=P, call=f"potential_dh(q={display.array(q)}, arm, gravity)",
                                      see="lagrange-dh-potential")):
            ctx.expect_close("g(q) (2,) (N·m)", ctx.call(gravity_dh, q, arm, g), expected, call=call,
                             hint="g(q) = ∂U/∂q with U = −Σ m_i g_physᵀ p_{c_i}: the torques that hold the arm still "
                                  "(the PoE arm of part (c) gives the same numbers)")


# --- (f) [LG]'s spinning skater: angular momentum and the Coriolis torque ---------------------------------
# q = (q₁, q₂) = (spin angle, radius): the hub's angle and the distance of the point mass m from the axis; I the hub's
# moment of inertia about the axis (the ball's own spin included). K = ½ (I + m q₂²) q̇₁² + ½ m q̇₂², U = 0 (level ice).

def skater_model(skater):
    """The library's skater with the dict's ``I`` and ``m`` (a ball of radius 5 cm; its own spin inside ``I``)."""
    radius = 0.05
    return samples.skater(hub_inertia=skater["I"] - 0.4 * skater["m"] * radius**2, mass=skater["m"], radius=radius)


def random_skater(ctx):
    m = ctx.rng.uniform(0.5, 5.0)
    return dict(I=0.4 * m * 0.05**2 + ctx.rng.uniform(0.2, 3.0), m=m)


def momentum_with(q, qd, skater, *, hub=True, mass=True, energy=False):
    """``L_z = (I + m q₂²) q̇₁`` — or a slip: the hub or the mass left out, or the kinetic energy instead."""
    inertia = skater["I"] * hub + skater["m"] * q[1] ** 2 * mass
    if energy:
        return 0.5 * inertia * qd[0] ** 2 + 0.5 * skater["m"] * qd[1] ** 2
    return inertia * qd[0]


def torques_with(q, qd, qdd, skater, *, coriolis=2.0, centrifugal=-1.0):
    """``τ₁ = (I + m q₂²) q̈₁ + 2 m q₂ q̇₂ q̇₁``, ``τ₂ = m q̈₂ − m q₂ q̇₁²`` — or another Coriolis factor or centrifugal sign."""
    I, m, r = skater["I"], skater["m"], q[1]
    return np.array([(I + m * r * r) * qdd[0] + coriolis * m * r * qd[1] * qd[0],
                     m * qdd[1] + centrifugal * m * r * qd[0] ** 2])


L_ENERGY = Variant("your skater_momentum seems to return the kinetic energy ½(I + m q₂²) q̇₁² + ½ m q̇₂²; the skater "
                   "keeps her angular momentum L_z = ∂K/∂q̇₁ = (I + m q₂²) q̇₁, not her energy (pulling in does work)",
                   skater_momentum=partial(momentum_with, energy=True))
L_HUB_ONLY = Variant("your L_z seems to be I q̇₁ alone: the mass at q₂ carries m q₂² q̇₁ of the angular momentum too",
                     skater_momentum=partial(momentum_with, mass=False))
L_MASS_ONLY = Variant("your L_z seems to be m q₂² q̇₁ alone: the hub's I q̇₁ belongs to it too",
                      skater_momentum=partial(momentum_with, hub=False))
T_CORIOLIS_ONCE = Variant("your τ₁ seems to have m q₂ q̇₂ q̇₁ where the Coriolis torque is 2 m q₂ q̇₂ q̇₁: "
                          "d/dt ((I + m q₂²) q̇₁) = (I + m q₂²) q̈₁ + 2 m q₂ q̇₂ q̇₁ (q₂² differentiates to 2 q₂ q̇₂)",
                          skater_torques=partial(torques_with, coriolis=1.0))
T_NO_CORIOLIS = Variant("your τ₁ seems to lack the Coriolis torque 2 m q₂ q̇₂ q̇₁: d/dt ∂K/∂q̇₁ differentiates "
                        "I + m q₂² too",
                        skater_torques=partial(torques_with, coriolis=0.0))
T_CENTRIFUGAL_SIGN = Variant("your τ₂ seems to have + m q₂ q̇₁²: the slide must pull the mass IN against the "
                             "centrifugal effect, τ₂ = m q̈₂ − m q₂ q̇₁² (−∂K/∂q₂ = −m q₂ q̇₁²)",
                             skater_torques=partial(torques_with, centrifugal=1.0))
T_NO_CENTRIFUGAL = Variant("your τ₂ seems to lack the centrifugal term − m q₂ q̇₁² (from −∂K/∂q₂)",
                           skater_torques=partial(torques_with, centrifugal=0.0))


@EXERCISE.check("lagrange-skater-momentum", points=1, functions=("skater_momentum",),
                title="skater_momentum: the angular momentum is conserved while the skater pulls in",
                variants=(L_ENERGY, L_HUB_ONLY, L_MASS_ONLY))
def check_skater_momentum(ctx, skater_momentum):
    for _ in range(2):
        skater = random_skater(ctx)
        q, qd = np.array([ctx.rng.uniform(-np.pi, np.pi), ctx.rng.uniform(0.1, 1.0)]), ctx.rng.normal(size=2) * 2
        call = f"skater_momentum(q={display.array(q)}, qd={display.array(qd)}, skater={display.params(skater)})"
        L = ctx.expect_shape("L_z", ctx.call(skater_momentum, q, qd, skater), (), call=call)
        ctx.expect_close("L_z (kg·m²/s)", L, (crba(skater_model(skater), q) @ qd)[0], call=call,
                         hint="L_z = ∂K/∂q̇₁ with K = ½ (I + m q₂²) q̇₁² + ½ m q̇₂² (the generalised momentum of the spin "
                              "joint)")
    skater = random_skater(ctx)
    omega0, r0, r1 = ctx.rng.uniform(1.0, 3.0), ctx.rng.uniform(0.6, 1.0), ctx.rng.uniform(0.2, 0.4)
    run = skater_pull_in(skater_model(skater), omega0=omega0, r0=r0, r1=r1, pull_time=0.8, duration=1.0, dt=0.01)
    L0 = (skater["I"] + skater["m"] * r0**2) * omega0
    for k in (0, 40, 60, 100):                                      # before, during and after the pull
        q, qd = run.trajectory.q[k], run.trajectory.qd[k]
        call = (f"skater_momentum(q={display.array(q)}, qd={display.array(qd)}, skater={display.params(skater)}) at t = {run.trajectory.t[k]:.2f} s "
                f"of a pull-in from q₂ = {r0:.3f} to {r1:.3f} m with no torque on the spin (τ₁ = 0)")
        ctx.expect_close("L_z (must stay at (I + m q₂(0)²) q̇₁(0))", ctx.call(skater_momentum, q, qd, skater), L0,
                         atol=1e-6 * max(1.0, abs(L0)), call=call,
                         hint="no torque about the axis: L_z stays constant while q̇₁ grows as q₂ shrinks; "
                              "the kinetic energy does not stay constant (the arms do work)")


@EXERCISE.check("lagrange-skater-torques", points=1, functions=("skater_torques",),
                title="skater_torques: Lagrange's equations of the skater and the Coriolis torque 2 m q₂ q̇₂ q̇₁",
                variants=(T_CORIOLIS_ONCE, T_NO_CORIOLIS, T_CENTRIFUGAL_SIGN, T_NO_CENTRIFUGAL))
def check_skater_torques(ctx, skater_torques):
    for _ in range(3):
        skater = random_skater(ctx)
        model = skater_model(skater)
        q = np.array([ctx.rng.uniform(-np.pi, np.pi), ctx.rng.uniform(0.1, 1.0)])
        qd, qdd = ctx.rng.normal(size=2) * 2, ctx.rng.normal(size=2) * 2
        call = f"skater_torques(q={display.array(q)}, qd={display.array(qd)}, qdd={display.array(qdd)}, skater={display.params(skater)})"
        ctx.expect_close("(tau1, tau2)", ctx.call(skater_torques, q, qd, qdd, skater), rnea(model, q, qd, qdd),
                         call=call, hint="d/dt ∂K/∂q̇ − ∂K/∂q with K = ½ (I + m q₂²) q̇₁² + ½ m q̇₂²: "
                                         "τ₁ = (I + m q₂²) q̈₁ + 2 m q₂ q̇₂ q̇₁, τ₂ = m q̈₂ − m q₂ q̇₁²")
    skater = random_skater(ctx)
    q = np.array([0.0, ctx.rng.uniform(0.2, 1.0)])
    qd = np.array([ctx.rng.uniform(1.0, 3.0), -ctx.rng.uniform(0.5, 2.0)])        # spinning, pulling in
    call = (f"skater_torques(q={display.array(q)}, qd={display.array(qd)}, qdd=(0, 0), skater={display.params(skater)}): keeping q̇₁ constant "
            "while the mass slides in")
    tau = ctx.expect_shape("(tau1, tau2)", ctx.call(skater_torques, q, qd, np.zeros(2), skater), (2,), call=call)
    ctx.expect_close("tau1 (the Coriolis torque 2 m q₂ q̇₂ q̇₁ = (d/dt m q₂²) q̇₁)", tau[0],
                     2 * skater["m"] * q[1] * qd[1] * qd[0], call=call,
                     hint="[LG]'s appendix: τ₁ = d(m q̇₁ q₂²)/dt = 2 m q̇₁ q₂ q̇₂; the Coriolis force on the mass is 2 m q̇₁ q̇₂")


# --- (g) a point seen from a moving frame: transport, Coriolis and relative acceleration ([LG], lesson 04 §12) -----
# All vectors in the moving frame's axes. The reference is the second time derivative of the point's WORLD position
# p(t) = p_O(t) + R(t) p_rel(t), by central differences (no formula of (4.14) in it), turned into the frame's axes.

FRAME_STEP = 1e-3                                   # 4th-order central differences: error ~ step⁴ × the 6th derivative


def _d1(f, t):
    h = FRAME_STEP
    return (-f(t + 2 * h) + 8 * f(t + h) - 8 * f(t - h) + f(t - 2 * h)) / (12 * h)


def _d2(f, t):
    h = FRAME_STEP
    return (-f(t + 2 * h) + 16 * f(t + h) - 30 * f(t) + 16 * f(t - h) - f(t - 2 * h)) / (12 * h * h)


def frame_case(R, origin, rel, t=0.0):
    """The inputs (ω, ω̇, p_rel, v_rel, a_rel, a_O in the frame's axes) and the differenced p̈ (frame axes) of one motion:
    ``R(t)`` the frame's orientation, ``origin(t)`` its origin, ``rel(t)`` the point's coordinates in the frame."""
    def w_world(s):
        return so3.vee(_d1(R, s) @ R(s).T)
    Rt = R(t)
    inputs = (Rt.T @ w_world(t), Rt.T @ _d1(w_world, t), rel(t), _d1(rel, t), _d2(rel, t), Rt.T @ _d2(origin, t))
    expected = Rt.T @ _d2(lambda s: origin(s) + R(s) @ rel(s), t)
    acc = moving_frame_acceleration(*inputs[:5], a_origin=inputs[5])
    assert np.allclose(acc.total, expected, atol=1e-7), "checker self-test: (4.14) vs the differenced world path"
    return tuple(np.asarray(x, dtype=float) for x in inputs), expected


def frame_acceleration_with(omega, omega_dot, p_rel, v_rel, a_rel, a_origin, *, coriolis=2.0, centripetal="right",
                            euler=1.0, origin=True, relative=1.0):
    """``p̈ = a_O + ω̇ × p_rel + ω × (ω × p_rel) + 2 ω × v_rel + a_rel`` — or a slip: another ``coriolis`` factor
    (−2: ``v_rel × ω``), the centripetal term with the wrong sign (``"flipped"``: ``(ω × p_rel) × ω``) or lost
    (``"none"``: ``(ω × ω) × p_rel = 0``), the Euler term's factor ``euler`` (0 left out, −1 ``p_rel × ω̇``),
    ``a_O`` left out, ``a_rel``'s sign ``relative`` (−1: [LG]'s printed ``+m v²/r``)."""
    w, w_dot, p, v, a, a_O = (np.asarray(x, dtype=float) for x in (omega, omega_dot, p_rel, v_rel, a_rel, a_origin))
    toward_axis = {"right": 1.0, "flipped": -1.0, "none": 0.0}[centripetal] * np.cross(w, np.cross(w, p))
    return (origin * a_O + euler * np.cross(w_dot, p) + toward_axis + coriolis * np.cross(w, v) + relative * a)


def _turn_z(rate):
    return lambda t: so3.rot_z(rate * t)


def platform_cases(ctx):
    """[LG]'s platform (fixed origin, constant rate about z): the walker going round (p_rel a circle of radius r at
    the speed v_w relative to the platform), a walker crossing the centre, and a random path in the platform's plane."""
    rate, r, nu = ctx.rng.uniform(0.3, 2.0), ctx.rng.uniform(0.5, 3.0), ctx.rng.uniform(0.5, 2.0)
    fixed = lambda t: np.zeros(3)
    yield ((_turn_z(rate), fixed, lambda t: r * np.array([np.cos(nu * t / r), np.sin(nu * t / r), 0.0])),
           f"[LG]'s walker: {r:.3f} m from the axis of a platform turning at {rate:.3f} rad/s, going round at "
           f"{nu:.3f} m/s relative to it")
    rate, speed, y0 = ctx.rng.uniform(0.3, 2.0) * ctx.rng.choice([-1, 1]), ctx.rng.uniform(0.3, 1.5), ctx.rng.uniform(-0.3, 0.3)
    yield ((_turn_z(rate), fixed, lambda t: np.array([-0.8 + speed * t, y0, 0.0])),
           f"a walker crossing a platform turning at {rate:.3f} rad/s, at {speed:.3f} m/s along its x-axis")
    rate = ctx.rng.uniform(-2.0, 2.0)
    c = ctx.rng.normal(size=(3, 2))
    yield ((_turn_z(rate), fixed, lambda t: np.append(c[0] + c[1] * t + c[2] * t * t, 0.0)),
           f"a point moving on a platform turning at {rate:.3f} rad/s")


def general_cases(ctx):
    """Random smooth motions: a frame that turns about a changing axis (ω̇ ∦ ω) and whose origin accelerates."""
    for _ in range(3):
        phi, p_O, p_rel = (ctx.rng.normal(size=(3, 3)) for _ in range(3))
        freq = ctx.rng.uniform(0.5, 2.0, 3)
        yield ((lambda t, phi=phi, f=freq[0]: so3.exp(phi[0] + phi[1] * t + phi[2] * np.sin(f * t)),
                lambda t, c=p_O, f=freq[1]: c[0] + c[1] * t + c[2] * np.cos(f * t),
                lambda t, c=p_rel, f=freq[2]: c[0] + c[1] * t * t + c[2] * np.sin(f * t)),
               "a frame turning about a changing axis, its origin accelerating, the point moving in it")


def _frame_check(ctx, frame_acceleration, cases):
    for (R, origin, rel), text in cases:
        inputs, expected = frame_case(R, origin, rel)
        names = ("omega", "omega_dot", "p_rel", "v_rel", "a_rel", "a_origin")
        call = "frame_acceleration(" + ", ".join(f"{n}={display.array(x)}" for n, x in zip(names, inputs)) + f"): {text}"
        ctx.expect_close("p̈ (3,) in the frame's axes (m/s²)", ctx.call(frame_acceleration, *inputs), expected, atol=1e-5,
                         call=call, hint="(4.14): p̈ = a_O + ω̇ × p_rel + ω × (ω × p_rel) + 2 ω × v_rel + a_rel; "
                                         "the reference differences the point's world position twice")


F_CORIOLIS_ONCE = Variant("your Coriolis term seems to be ω × v_rel; it is 2 ω × v_rel: the frame turns the relative "
                          "velocity (one ω × v_rel) and the relative motion carries the point to where the frame moves "
                          "faster (the other)", frame_acceleration=partial(frame_acceleration_with, coriolis=1.0))
F_CORIOLIS_SIGN = Variant("your Coriolis term seems to be 2 v_rel × ω, the opposite sign: a_cor = 2 ω × v_rel (ω first)",
                          frame_acceleration=partial(frame_acceleration_with, coriolis=-2.0))
F_CENTRIPETAL_SIGN = Variant("your centripetal term seems to point away from the axis ((ω × p_rel) × ω or "
                             "ω × (p_rel × ω)); it is ω × (ω × p_rel), towards the axis",
                             frame_acceleration=partial(frame_acceleration_with, centripetal="flipped"))
F_NO_CENTRIPETAL = Variant("your answer seems to lack the centripetal term ω × (ω × p_rel) (or to write it "
                           "(ω × ω) × p_rel, which is zero)",
                           frame_acceleration=partial(frame_acceleration_with, centripetal="none"))
F_RELATIVE_SIGN = Variant("your relative acceleration a_rel seems to enter with a minus sign — [LG]'s printed "
                          "+m v_M²/r for the walker: a_rel is the walker's own circle seen from the platform and points "
                          "to the axis; p̈ = … + a_rel",
                          frame_acceleration=partial(frame_acceleration_with, relative=-1.0))
F_NO_EULER = Variant("your answer seems to lack the tangential (Euler) term ω̇ × p_rel: the frame's angular "
                     "acceleration is part of the transport acceleration",
                     frame_acceleration=partial(frame_acceleration_with, euler=0.0))
F_EULER_SIGN = Variant("your tangential term seems to be p_rel × ω̇, the opposite sign: it is ω̇ × p_rel",
                       frame_acceleration=partial(frame_acceleration_with, euler=-1.0))
F_NO_ORIGIN = Variant("your answer seems to lack a_O, the acceleration of the frame's origin (a_origin): the "
                      "transport acceleration starts with it",
                      frame_acceleration=partial(frame_acceleration_with, origin=False))


@EXERCISE.check("lagrange-frames-platform", points=1, functions=("frame_acceleration",),
                title="frame_acceleration on [LG]'s turning platform: the walker going round and crossing",
                variants=(F_CORIOLIS_ONCE, F_CORIOLIS_SIGN, F_CENTRIPETAL_SIGN, F_NO_CENTRIPETAL, F_RELATIVE_SIGN))
def check_frames_platform(ctx, frame_acceleration):
    _frame_check(ctx, frame_acceleration, platform_cases(ctx))


@EXERCISE.check("lagrange-frames-general", points=1, functions=("frame_acceleration",),
                title="frame_acceleration for a frame that translates and turns about a changing axis",
                variants=(F_NO_EULER, F_EULER_SIGN, F_NO_ORIGIN, F_CORIOLIS_ONCE, F_CENTRIPETAL_SIGN))
def check_frames_general(ctx, frame_acceleration):
    _frame_check(ctx, frame_acceleration, general_cases(ctx))
