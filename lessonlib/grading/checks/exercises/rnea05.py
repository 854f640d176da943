"""Checks of exercise 05: the recursive Newton–Euler algorithm ([WJ §2.2], [RNE05], [DB4 §4.1]).

The student writes four functions; each check feeds them random inputs drawn from ``ctx.rng`` and
compares with the library (``rnea_trace``, ``rnea``) and with identities that do not use the RNEA
at all (moments of weights, Jacobian-transpose gravity, the CRBA mass matrix). Known mistakes
(a weight at the rod's end, ``X_i`` where ``X_iᵀ`` belongs, the velocity-product or gyroscopic term
dropped or turned around, ``f_ext`` with the wrong sign, gravity with the wrong sign or ignored) are
the lesson's recursion written here with one piece replaced; the full-RNEA checks also receive the
student's ``outward_pass`` and ``inward_pass`` to say which of them is wrong when ``rnea`` fails.

Part (e) is [LWP 1980]'s backward recursion in link coordinates (standard DH, 3-vectors) as its
erratum corrects it ([RNE05] §四): Step 6 computes the joint torque (``μ_i · (R_{i,i−1} e_z)`` or, for a
slide, ``f_i · (R_{i,i−1} e_z)``), Step 7 stops after the first link. The inputs (``m_i a_{c_i}``,
``I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i``, ``R_{i−1,i}``, ``R_{i,i−1} p_{i−1,i}``, ``p_{c_i}``: the arguments ``F``,
``N``, ``R``, ``p_star``, ``s_bar``) come from the spatial RNEA's body motion, the expected torques from the
RNEA (self-test: :func:`~lessonlib.dynamics.lwp1980`). Known mistakes: no stop (the last torque overwritten
through index −1), ``μ_i · (R_{i,i−1} e_z)`` for a slide, frame {i}'s ``e_z`` for frame {i−1}'s,
``R_{i,i+1}ᵀ`` to carry forces, the lever ``p_{c_i}`` for ``R_{i,i−1} p_{i−1,i} + p_{c_i}``,
``R_{i,i−1} p_{i−1,i} × (R_{i,i+1} f_{i+1})`` dropped.

========================  ======  ==========================================================
check                     points  what it tests
========================  ======  ==========================================================
``rnea-static``           1       ``static_torques``: two horizontal rods ([RNE05]: τ = (20, 5))
``rnea-static-tip``       1       ... with a point load at the tip ([RNE05]: τ = (40, 15))
``rnea-outward-v``        1       ``outward_pass``: body twists ``V_i``
``rnea-outward-a``        1       ``outward_pass``: spatial accelerations ``A_i`` (gravity as ``A_0``)
``rnea-inward``           1       ``inward_pass``: joint torques from given ``V, A``
``rnea-inward-fext``      1       ``inward_pass`` with external wrenches ``f_ext``
``rnea-full-chain``       2       ``rnea`` on random chains (revolute and prismatic joints)
``rnea-full-identities``  1       ``rnea`` against identities: Jacobian-transpose gravity, CRBA
``rnea-full-ur5``         1       ``rnea`` on the UR5 (Modern Robotics' parameters)
``rnea-lwp-revolute``     1       ``lwp_backward``: [RNE05]'s rods as DH, random revolute DH arms
``rnea-lwp-prismatic``    1       ``lwp_backward``: RPR arm, SCARA, random DH arms with slides
========================  ======  ==========================================================
"""
from __future__ import annotations

import numpy as np

from functools import partial

from lessonlib import samples, se3, so3, spatial
from lessonlib.conventions import ANG, LIN, base_acceleration
from lessonlib.dynamics import crba, lwp1980, rnea, rnea_trace
from lessonlib.kinematics import body_twists, fk, jacobian, joint_transforms
from lessonlib.model import Joint, Model, from_dh
from ..checker import Exercise, Variant
from ._common import random_chain, random_gravity, random_state

EXERCISE = Exercise(
    "rnea05", notebook="05_rnea.ipynb", title="Lesson 05 — the recursive Newton–Euler algorithm",
    blocked=("lessonlib.dynamics", "lessonlib.batch", "lessonlib.check", "lessonlib.kinematics:body_twists"),
    copy_targets=("lessonlib.dynamics.rnea", "lessonlib.dynamics.rnea_classic", "lessonlib.dynamics.rnea_poe",
                  "lessonlib.dynamics.denoc", "lessonlib.dynamics.lwp1980", "lessonlib.batch"))

#: [RNE05]'s worked case: two 1 m / 1 kg rods, g = 10 m/s²; (20, 5) N·m, (40, 15) with 1 kg at the tip.
RNE05_RODS = dict(L1=1.0, L2=1.0, m1=1.0, m2=1.0, g=10.0)


# --- reference quantities (judge side; never sent to the kernel) ------------------------------

def two_rods(L1, L2, m1, m2, g, tip_mass=0.0):
    """[RNE05]'s arm as a Model: uniform rods along body x, joints about z, gravity −y (g m/s²)."""
    T2 = np.eye(4)
    T2[0, 3] = L1
    rod = lambda m, L: np.diag([0.0, m * L * L / 12, m * L * L / 12])   # noqa: E731
    G1 = spatial.inertia(m1, [L1 / 2, 0, 0], rod(m1, L1))
    G2 = spatial.inertia(m2, [L2 / 2, 0, 0], rod(m2, L2))
    if tip_mass:
        G2 = G2 + spatial.inertia(tip_mass, [L2, 0, 0], np.zeros((3, 3)))
    z = [0.0, 0.0, 1.0]
    return Model([-1, 0], [Joint("revolute", z), Joint("revolute", z)], [np.eye(4), T2], [G1, G2],
                 gravity=[0.0, -g, 0.0], name="two_rods")


def static_reference(L1, L2, m1, m2, g, tip_mass=0.0):
    """Static torques two ways — moments of the weights, and the library's RNEA — which must agree."""
    tau2 = g * (m2 * L2 / 2 + tip_mass * L2)
    tau1 = g * (m1 * L1 / 2 + m2 * (L1 + L2 / 2) + tip_mass * (L1 + L2))
    by_rnea = rnea(two_rods(L1, L2, m1, m2, g, tip_mass), [0, 0], [0, 0], [0, 0])
    assert np.allclose(by_rnea, [tau1, tau2], atol=1e-9), "checker self-test: moments vs rnea"
    return np.array([tau1, tau2])


def gravity_by_jacobians(model, q, g):
    """``g(q) = −Σ m_i J_{c_i}ᵀ g_phys``: the gravity torques from COM Jacobians, without any RNEA."""
    T = fk(model, q)
    tau = np.zeros(model.n)
    for i in range(model.n):
        J = jacobian(model, q, body=i, frame="hybrid")                  # body-origin velocity, world axes
        r = T[i][:3, :3] @ model.com[i]                                  # origin → COM, world axes
        J_com = J[LIN] - np.cross(r, J[ANG].T).T                          # v_c = v_o + ω × r
        tau -= model.mass[i] * J_com.T @ np.asarray(g, dtype=float)
    return tau


# --- known mistakes (judge side): the lesson's equations with one piece replaced ------------------

def static_with(L1, L2, m1, m2, g, tip_mass=0.0, *, at=0.5, rod2_from_joint1=None):
    """Static torques with the rod weights at ``at`` × the rod's length; ``rod2_from_joint1``: rod 2's
    lever about joint 1 (default ``L1 + at·L2``)."""
    lever2 = L1 + at * L2 if rod2_from_joint1 is None else rod2_from_joint1(L1, L2)
    tau2 = g * (m2 * at * L2 + tip_mass * L2)
    return np.array([g * (m1 * at * L1 + m2 * lever2 + tip_mass * (L1 + L2)), tau2])


def _motion(X, m):                         # motion crosses joint i with X_i
    return X @ m


def _force(X, f):                          # force comes back with X_iᵀ
    return X.T @ f


def _velocity_product(v, vJ):              # ad(V_i) S_i q̇_i
    return se3.ad(v) @ vJ


def _gyroscopic(v, I):                     # ad*(V_i) 𝓘_i V_i
    return se3.ad_dual(v) @ I @ v


def outward_with(X, S, qd, qdd, a0, *, motion=_motion, product=_velocity_product, start=None):
    """The outward pass V_i = X_i V_(i−1) + S_i q̇_i, A_i = X_i A_(i−1) + S_i q̈_i + ad(V_i) S_i q̇_i — or a
    slip: another ``motion`` transform, another velocity ``product``, another ``start`` than ``a0`` (A_0)."""
    n = len(qd)
    v, a = np.zeros((n, 6)), np.zeros((n, 6))
    v_p, a_p = np.zeros(6), np.asarray(a0 if start is None else start, dtype=float)
    for i in range(n):
        v[i] = motion(X[i], v_p) + S[i] * qd[i]
        a[i] = motion(X[i], a_p) + S[i] * qdd[i] + product(v[i], S[i] * qd[i])
        v_p, a_p = v[i], a[i]
    return v, a


def inward_with(X, S, I, v, a, f_ext=None, *, force=_force, gyroscopic=_gyroscopic, f_ext_sign=-1.0, to_parent=True):
    """The inward pass F_i = 𝓘_i A_i + ad*(V_i) 𝓘_i V_i − F^ext_i, τ_i = S_iᵀF_i, F_(i−1) += X_iᵀF_i — or a
    slip in one of its pieces."""
    n = len(S)
    f = np.array([I[i] @ a[i] + gyroscopic(v[i], I[i]) for i in range(n)])
    if f_ext is not None:
        f = f + f_ext_sign * np.asarray(f_ext, dtype=float)
    tau = np.zeros(n)
    for i in reversed(range(n)):
        tau[i] = S[i] @ f[i]
        if i > 0 and to_parent:
            f[i - 1] += force(X[i], f[i])
    return tau


def rnea_with(model, q, qd, qdd, gravity=None, *, gravity_sign=1.0, default=None, **slip):
    """The whole RNEA of a chain from :func:`outward_with` and :func:`inward_with` — or with a slip: gravity times
    ``gravity_sign``; ``default(model, gravity)`` choosing the gravity; a slip of either pass."""
    g = (model.gravity if gravity is None else gravity) if default is None else default(model, gravity)
    X = joint_transforms(model, q)
    outward_slip = {k: slip.pop(k) for k in ("motion", "product") if k in slip}
    v, a = outward_with(X, model.S, qd, qdd, base_acceleration(gravity_sign * np.asarray(g, dtype=float)), **outward_slip)
    return inward_with(X, model.S, model.inertia, v, a, **slip)


def _dropped(*args):
    return np.zeros(6)


WEIGHTS_AT_ENDS = Variant("your rod weights seem to act at the rods' free ends (m l) instead of their middles "
                          "(m l / 2)", static_torques=partial(static_with, at=1.0))
ROD2_LEVER = Variant("your tau1 seems to take rod 2's weight at l₂ / 2 from joint 1; it hangs at l₁ + l₂ / 2",
                     static_torques=partial(static_with, rod2_from_joint1=lambda L1, L2: L2 / 2))
ROD2_FORGOTTEN = Variant("your tau1 seems to carry only rod 1's weight (and the load); rod 2 hangs from joint 1 too",
                         static_torques=partial(static_with, rod2_from_joint1=lambda L1, L2: 0.0))
OUT_TRANSPOSED = Variant("your outward pass seems to carry motion with X_iᵀ (the transpose belongs to forces on "
                         "the way back); twists and accelerations cross joint i with X_i",
                         outward_pass=partial(outward_with, motion=lambda X, m: X.T @ m))
OUT_NOT_CARRIED = Variant("your outward pass seems not to carry the parent's motion: V_i = S_i q̇_i alone, "
                          "without X_i V_(i−1)", outward_pass=partial(outward_with, motion=lambda X, m: 0.0 * m))
PRODUCT_DROPPED = Variant("your accelerations seem to lack the velocity-product term ad(V_i) S_i q̇_i",
                          outward_pass=partial(outward_with, product=_dropped))
PRODUCT_SWAPPED = Variant("your velocity-product term seems to have its arguments swapped, ad(S_i q̇_i) V_i "
                          "(= −ad(V_i) S_i q̇_i): it is ad(V_i) S_i q̇_i",
                          outward_pass=partial(outward_with, product=lambda v, vJ: se3.ad(vJ) @ v))
A0_DROPPED = Variant("your outward pass seems to start from A_0 = 0 instead of A_0 = [0; −g_phys]: gravity is lost",
                     outward_pass=lambda X, S, qd, qdd, a0: outward_with(X, S, qd, qdd, a0, start=np.zeros(6)))
IN_NOT_TRANSPOSED = Variant("your inward pass seems to use X_i instead of X_iᵀ to hand F_i to the parent (forces go "
                            "back with the transpose, so that the power FᵀV is the same in both frames)",
                            inward_pass=partial(inward_with, force=lambda X, f: X @ f))
GYRO_DROPPED = Variant("your body wrenches seem to lack the gyroscopic term ad*(V_i) 𝓘_i V_i",
                       inward_pass=partial(inward_with, gyroscopic=_dropped))
GYRO_AD = Variant("your gyroscopic term seems to use ad(V_i) where ad*(V_i) = −ad(V_i)ᵀ belongs",
                  inward_pass=partial(inward_with, gyroscopic=lambda v, I: se3.ad(v) @ I @ v))
NOT_HANDED_ON = Variant("your inward pass seems not to hand F_i to the parent: each τ_i = S_iᵀF_i of body i alone",
                        inward_pass=partial(inward_with, to_parent=False))
FEXT_ADDED = Variant("your f_ext seems to be added to F_i; the environment's wrench on body i is subtracted "
                     "(F_i = 𝓘_i A_i + … − F^ext_i)", inward_pass=partial(inward_with, f_ext_sign=+1.0))
FEXT_IGNORED = Variant("your inward pass seems to ignore f_ext", inward_pass=partial(inward_with, f_ext_sign=0.0))
INWARD_MISTAKES = (IN_NOT_TRANSPOSED, GYRO_DROPPED, GYRO_AD, NOT_HANDED_ON)

RNEA_GRAVITY_SIGN = Variant("your rnea seems to use gravity with the wrong sign: the base acceleration is "
                            "A_0 = [0; −g_phys], the base accelerating UP against gravity",
                            rnea=partial(rnea_with, gravity_sign=-1.0))
RNEA_GRAVITY_IGNORED = Variant("your rnea seems to ignore its gravity argument and always use model.gravity",
                               rnea=partial(rnea_with, default=lambda model, g: model.gravity))
RNEA_NONE_IS_ZERO = Variant("your rnea seems to treat gravity=None as no gravity; None means the model's default, "
                            "model.gravity", rnea=partial(rnea_with, default=lambda model, g: np.zeros(3) if g is None
                                                          else g))
RNEA_NOT_TRANSPOSED = Variant("your rnea seems to hand forces back with X_i instead of X_iᵀ",
                              rnea=partial(rnea_with, force=lambda X, f: X @ f))
RNEA_NO_PRODUCT = Variant("your rnea seems to lack the velocity-product term ad(V_i) S_i q̇_i of the accelerations",
                          rnea=partial(rnea_with, product=_dropped))
RNEA_NO_GYRO = Variant("your rnea seems to lack the gyroscopic term ad*(V_i) 𝓘_i V_i of the body wrenches",
                       rnea=partial(rnea_with, gyroscopic=_dropped))
RNEA_MISTAKES = (RNEA_GRAVITY_SIGN, RNEA_GRAVITY_IGNORED, RNEA_NONE_IS_ZERO, RNEA_NOT_TRANSPOSED, RNEA_NO_PRODUCT,
                 RNEA_NO_GYRO)
#: At rest (the identities) the velocity terms vanish; the UR5 is graded with its default gravity only.
RNEA_AT_REST_MISTAKES = (RNEA_GRAVITY_SIGN, RNEA_GRAVITY_IGNORED, RNEA_NOT_TRANSPOSED)
RNEA_DEFAULT_GRAVITY_MISTAKES = (RNEA_GRAVITY_SIGN, RNEA_NONE_IS_ZERO, RNEA_NOT_TRANSPOSED, RNEA_NO_PRODUCT, RNEA_NO_GYRO)


def _helper_suspects(ctx, outward_pass, inward_pass, model, q, qd, qdd, g):
    """Probes of the student's two passes on this case's inputs, for a failing ``rnea``."""
    trace = rnea_trace(model, q, qd, qdd, gravity=g)
    X, S = trace.X, model.S.copy()
    return (ctx.suspect(outward_pass, X, S, qd, qdd, base_acceleration(g), expected=(trace.v, trace.a),
                        call="outward_pass(X, S, qd, qdd, a0)", see="rnea-outward-a"),
            ctx.suspect(inward_pass, X, S, model.inertia.copy(), trace.v, trace.a, expected=trace.tau,
                        call="inward_pass(X, S, I, v, a)", see="rnea-inward"))


# --- (a) static torques ([RNE05]) -------------------------------------------------------------

@EXERCISE.check("rnea-static", points=1, functions=("static_torques",),
                title="static torques of two horizontal rods", variants=(WEIGHTS_AT_ENDS, ROD2_LEVER, ROD2_FORGOTTEN))
def check_static(ctx, static_torques):
    cases = [RNE05_RODS] + [dict(L1=ctx.rng.uniform(0.3, 2.0), L2=ctx.rng.uniform(0.3, 2.0),
                              m1=ctx.rng.uniform(0.5, 5.0), m2=ctx.rng.uniform(0.5, 5.0),
                              g=ctx.rng.uniform(1.0, 20.0)) for _ in range(3)]
    for c in cases:
        got = ctx.call(static_torques, c["L1"], c["L2"], c["m1"], c["m2"], c["g"])
        ctx.expect_close("(tau1, tau2)", got, static_reference(**c),
                         hint="each rod's weight acts at its middle; tau1 carries both rods, tau2 only the second")


@EXERCISE.check("rnea-static-tip", points=1, functions=("static_torques",),
                title="static torques with a load at the tip", variants=(WEIGHTS_AT_ENDS, ROD2_LEVER, ROD2_FORGOTTEN))
def check_static_tip(ctx, static_torques):
    cases = [dict(RNE05_RODS, tip_mass=1.0)] + [dict(L1=ctx.rng.uniform(0.3, 2.0), L2=ctx.rng.uniform(0.3, 2.0),
                                                  m1=ctx.rng.uniform(0.5, 5.0), m2=ctx.rng.uniform(0.5, 5.0),
                                                  g=ctx.rng.uniform(1.0, 20.0), tip_mass=ctx.rng.uniform(0.2, 3.0))
                                             for _ in range(3)]
    for c in cases:
        got = ctx.call(static_torques, c["L1"], c["L2"], c["m1"], c["m2"], c["g"], tip_mass=c["tip_mass"])
        ctx.expect_close("(tau1, tau2)", got, static_reference(**c),
                         hint="the tip load's weight acts at l₂ from joint 2 and at l₁ + l₂ from joint 1")


# --- (b) outward pass ----------------------------------------------------------------------------

def _outward_cases(ctx, trials=3):
    for _ in range(trials):
        model = random_chain(ctx)
        q, qd, qdd = random_state(ctx, model)
        g = random_gravity(ctx)
        trace = rnea_trace(model, q, qd, qdd, gravity=g)
        assert np.allclose(trace.v, body_twists(model, q, qd), atol=1e-9), "checker self-test: twists"
        yield model, qd, qdd, g, trace


@EXERCISE.check("rnea-outward-v", points=1, functions=("outward_pass",),
                title="outward pass: body twists V_i", variants=(OUT_TRANSPOSED, OUT_NOT_CARRIED))
def check_outward_v(ctx, outward_pass):
    for model, qd, qdd, g, trace in _outward_cases(ctx):
        v, _ = ctx.expect_tuple(ctx.call(outward_pass, trace.X, model.S.copy(), qd, qdd, base_acceleration(g)), ("v", "a"))
        ctx.expect_close("v (n, 6)", v, trace.v,
                         hint="V_i = X_i V_(i−1) + S_i q̇_i, starting from V_0 = 0")


@EXERCISE.check("rnea-outward-a", points=1, functions=("outward_pass",),
                title="outward pass: spatial accelerations A_i with gravity as A_0",
                variants=(OUT_TRANSPOSED, PRODUCT_DROPPED, PRODUCT_SWAPPED, A0_DROPPED))
def check_outward_a(ctx, outward_pass):
    for model, qd, qdd, g, trace in _outward_cases(ctx):
        _, a = ctx.expect_tuple(ctx.call(outward_pass, trace.X, model.S.copy(), qd, qdd, base_acceleration(g)), ("v", "a"))
        ctx.expect_close("a (n, 6)", a, trace.a,
                         hint="A_i = X_i A_(i−1) + S_i q̈_i + ad(V_i) S_i q̇_i, starting from A_0 = [0; −g_phys] (the argument a0)")


# --- (c) inward pass -------------------------------------------------------------------------------

@EXERCISE.check("rnea-inward", points=1, functions=("inward_pass",),
                title="inward pass: joint torques from V and A", variants=INWARD_MISTAKES)
def check_inward(ctx, inward_pass):
    for _ in range(3):
        model = random_chain(ctx)
        q, qd, qdd = random_state(ctx, model)
        trace = rnea_trace(model, q, qd, qdd, gravity=random_gravity(ctx))
        got = ctx.call(inward_pass, trace.X, model.S.copy(), model.inertia.copy(), trace.v, trace.a)
        ctx.expect_close("tau (n,)", got, trace.tau,
                         hint="F_i = 𝓘_i A_i + ad_dual(V_i) 𝓘_i V_i; τ_i = S_iᵀF_i; F_(i−1) += X_iᵀF_i")


@EXERCISE.check("rnea-inward-fext", points=1, functions=("inward_pass",),
                title="inward pass with external wrenches f_ext", variants=INWARD_MISTAKES + (FEXT_ADDED, FEXT_IGNORED))
def check_inward_fext(ctx, inward_pass):
    for _ in range(3):
        model = random_chain(ctx)
        q, qd, qdd = random_state(ctx, model)
        g = random_gravity(ctx)
        F = ctx.rng.normal(size=(model.n, 6))
        trace = rnea_trace(model, q, qd, qdd, gravity=g, f_ext=F)
        # independent identity: an environment wrench on body i changes τ by −J_iᵀ F^ext_i
        shift = -sum(jacobian(model, q, body=i, frame="body").T @ F[i] for i in range(model.n))
        assert np.allclose(trace.tau - rnea(model, q, qd, qdd, gravity=g), shift, atol=1e-8), "self-test: J^T f"
        got = ctx.call(inward_pass, trace.X, model.S.copy(), model.inertia.copy(), trace.v, trace.a, f_ext=F)
        ctx.expect_close("tau (n,)", got, trace.tau,
                         hint="F_i = 𝓘_i A_i + ad_dual(V_i) 𝓘_i V_i − F^ext_i, with F^ext_i = f_ext[i-1] the wrench the environment "
                              "applies ON body i (body frame {i}); τ_i = S_iᵀF_i; F_(i−1) += X_iᵀF_i")


# --- (d) the full RNEA ---------------------------------------------------------------------------
# The check cells also pass the student's outward_pass and inward_pass: when rnea fails, the message
# says whether one of them is wrong on the failing case (the student's rnea may call them).

_PASSES = ("outward_pass", "inward_pass")


@EXERCISE.check("rnea-full-chain", points=2, functions=("rnea",), helpers=_PASSES,
                title="full RNEA on random chains", variants=RNEA_MISTAKES)
def check_full_chain(ctx, rnea_student, outward_pass, inward_pass):
    arm = samples.planar_2link()                                   # [RNE05]'s rods held horizontal
    cases = [(arm, np.zeros(2), np.zeros(2), np.zeros(2), np.array([0.0, -10.0, 0.0]))]
    for _ in range(3):
        model = random_chain(ctx)
        cases.append((model, *random_state(ctx, model), random_gravity(ctx)))
    for model, q, qd, qdd, g in cases:
        with ctx.suspects(*_helper_suspects(ctx, outward_pass, inward_pass, model, q, qd, qdd, g)):
            got = ctx.call(rnea_student, model, q, qd, qdd, gravity=g)
            ctx.expect_close("tau (n,)", got, rnea(model, q, qd, qdd, gravity=g))
    model = cases[-1][0]
    q, qd, qdd = random_state(ctx, model)
    ctx.expect_close("tau (n,)", ctx.call(rnea_student, model, q, qd, qdd), rnea(model, q, qd, qdd),
                     hint="gravity=None means the model's default, model.gravity")


@EXERCISE.check("rnea-full-identities", points=1, functions=("rnea",), helpers=_PASSES,
                title="full RNEA against Jacobian-transpose gravity and the CRBA mass matrix",
                variants=RNEA_AT_REST_MISTAKES)
def check_full_identities(ctx, rnea_student, outward_pass, inward_pass):
    model = random_chain(ctx, 3, 6)
    q = ctx.rng.uniform(-np.pi, np.pi, model.n)
    g = random_gravity(ctx)
    zero = np.zeros(model.n)
    with ctx.suspects(*_helper_suspects(ctx, outward_pass, inward_pass, model, q, zero, zero, g)):
        ctx.expect_close("tau (n,), the gravity torques", ctx.call(rnea_student, model, q, zero, zero, gravity=g),
                         gravity_by_jacobians(model, q, g),
                         hint="with qd = qdd = 0 only gravity remains: τ = −Σ_i m_i J_{c_i}ᵀ g_phys")
    columns = [ctx.call(rnea_student, model, q, zero, np.eye(model.n)[j], gravity=np.zeros(3)) for j in range(model.n)]
    for j, col in enumerate(columns):
        ctx.expect_shape(f"column {j} of M", col, (model.n,), call="rnea(model, q, 0, e_j, gravity=0)")
    ctx.expect_close("M = [rnea(q, 0, e_j, gravity=0) for j]", np.column_stack(columns), crba(model, q),
                     call=f"the mass matrix of a random {model.n}-link chain, column by column",
                     hint="with qd = 0 and no gravity, rnea(q, 0, e_j) is column j of M(q), which is symmetric")


@EXERCISE.check("rnea-full-ur5", points=1, functions=("rnea",), helpers=_PASSES,
                title="full RNEA on the UR5 (Modern Robotics' parameters)",
                variants=RNEA_DEFAULT_GRAVITY_MISTAKES)
def check_full_ur5(ctx, rnea_student, outward_pass, inward_pass):
    ur5 = samples.ur5()
    theta = np.array([0, np.pi / 6, np.pi / 4, np.pi / 3, np.pi / 2, 2 * np.pi / 3])
    cases = [(theta, 0.2 * np.ones(6), 0.1 * np.ones(6))] + [random_state(ctx, ur5) for _ in range(2)]
    for q, qd, qdd in cases:
        with ctx.suspects(*_helper_suspects(ctx, outward_pass, inward_pass, ur5, q, qd, qdd, ur5.gravity)):
            ctx.expect_close("tau (6,)", ctx.call(rnea_student, ur5, q, qd, qdd), rnea(ur5, q, qd, qdd))


# --- (e) [LWP 1980]'s backward recursion with the erratum ([RNE05] §四) ------------------------------------
# Link coordinates, standard DH: joint i turns about (slides along) the z-axis of frame {i−1}; every vector of link i
# is in DH frame {i}. The student gets Steps 1-3 done (m_i a_{c_i} and I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i, the arguments
# F and N) and writes Steps 4-7: the backward recursion, with the erratum's Step 6 (the joint torque, eq. (45)) and
# Step 7 (stop after i = 1), for revolute and prismatic joints.

Z0 = np.array([0.0, 0.0, 1.0])


def lwp_inputs(model, q, qd, qdd, g):
    """``(F, N, R, p_star, s_bar)`` of Steps 1–3, from the spatial RNEA's body motion (not from ``lwp1980``).

    ``F[i-1] = m_i a_{c_i}`` (``a_{c_i}`` the mass centre's acceleration, gravity folded in as ``a_0 = −g_phys``),
    ``N[i-1] = I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i``; ``R[i-1] = R_{i−1,i}``, ``p_star[i-1] = R_{i,i−1} p_{i−1,i}``: O_i
    from O_{i−1}, in frame {i}; ``s_bar[i-1] = p_{c_i}``.
    """
    trace = rnea_trace(model, q, qd, qdd, gravity=g)
    n = model.n
    F, N, R, p_star = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3, 3)), np.zeros((n, 3))
    for i in range(n):
        w, v_o, wd = trace.v[i][ANG], trace.v[i][LIN], trace.a[i][ANG]
        c, I_c = model.com[i], model.I_com[i]
        a_origin = trace.a[i][LIN] + np.cross(w, v_o)                  # classical acceleration of the origin
        F[i] = model.mass[i] * (a_origin + np.cross(wd, c) + np.cross(w, np.cross(w, c)))
        N[i] = I_c @ wd + np.cross(w, I_c @ w)
        T = model.joint_transform(i, q[i])
        R[i], p_star[i] = T[:3, :3], T[:3, :3].T @ T[:3, 3]
    own = np.array([model.inertia[i] @ trace.a[i] + se3.ad_dual(trace.v[i]) @ model.inertia[i] @ trace.v[i]
                    for i in range(n)])
    assert np.allclose(own, np.hstack([N + np.cross(model.com, F), F]), atol=1e-8), "checker self-test: F, N"
    return F, N, R, p_star, model.com.copy()


def lwp_backward_with(F, N, R, p_star, s_bar, joint_types, *, stop=True, prismatic_force=True, axis=None,
                      carry=None, lever=None, transmitted=True):
    """Steps 4–7 of [LWP 1980] as corrected — or a slip: no stop after i = 1 (``stop=False``), ``μ_i · (R_{i,i−1} e_z)``
    for a slide, another joint ``axis`` in frame {i}, another ``carry`` of f_{i+1} into frame {i}, another ``lever``
    of m_i a_{c_i}, the transmitted force's moment ``R_{i,i−1} p_{i−1,i} × (R_{i,i+1} f_{i+1})`` dropped."""
    F, N, R, p_star, s_bar = (np.asarray(x, dtype=float) for x in (F, N, R, p_star, s_bar))
    n = len(F)
    carry = carry or (lambda Rn, x: Rn @ x)
    axis = axis or (lambda Ri: Ri.T @ Z0)                        # R_{i,i−1} e_z: frame {i−1}'s z seen from {i}
    lever = lever or (lambda p, s: p + s)
    tau = np.zeros(n)
    f_next, n_next, R_next = np.zeros(3), np.zeros(3), np.eye(3)    # Step 4: the free end
    i = n - 1
    while True:
        f_i = carry(R_next, f_next) + F[i]                          # Step 5
        n_i = (carry(R_next, n_next) + transmitted * np.cross(p_star[i], carry(R_next, f_next))
               + np.cross(lever(p_star[i], s_bar[i]), F[i]) + N[i])
        z = axis(R[i])                                              # Step 6
        tau[i] = f_i @ z if joint_types[i] == "P" and prismatic_force else n_i @ z
        if i == (0 if stop else -1):                                # Step 7
            break
        f_next, n_next, R_next = f_i, n_i, R[i]
        i -= 1
    return tau


def random_dh_arm(ctx, types):
    """A random standard-DH chain with joint ``types`` ("R"/"P"), random masses, mass centres and inertias."""
    n = len(types)
    inertia = []
    for _ in range(n):
        a, b, c = ctx.rng.uniform(0.02, 0.3, 3)
        turn = so3.exp(ctx.rng.normal(size=3))
        inertia.append(turn @ np.diag([b * b + c * c, a * a + c * c, a * a + b * b]) / 12 @ turn.T)
    masses = ctx.rng.uniform(0.5, 5.0, n)
    return from_dh(a=ctx.rng.uniform(-0.5, 0.5, n), alpha=ctx.rng.uniform(-np.pi, np.pi, n),
                   d=ctx.rng.uniform(-0.4, 0.4, n), theta=ctx.rng.uniform(-np.pi, np.pi, n), joint_types=types,
                   mass=masses, com=ctx.rng.uniform(-0.2, 0.2, (n, 3)),
                   inertia=[m * I for m, I in zip(masses, inertia)], name=f"random_dh_{types}")


def _lwp_case(ctx, model, q, qd, qdd, g, label):
    """The inputs for ``lwp_backward`` and the expected torques (the spatial RNEA; self-test: ``lwp1980``)."""
    expected = rnea(model, q, qd, qdd, gravity=g)
    assert np.allclose(lwp1980(model, q, qd, qdd, gravity=g), expected, atol=1e-9), "checker self-test: lwp1980"
    types = "".join("P" if j.kind == "prismatic" else "R" for j in model.joints)
    return lwp_inputs(model, q, qd, qdd, g) + (types,), expected, f"on {label} (joints {types!r})"


def rods_as_dh():
    """[RNE05]'s two horizontal rods as a standard-DH table: a = (1, 1), COMs at (−0.5, 0, 0), g = 10 along −y."""
    rod = np.diag([0.0, 1 / 12, 1 / 12])
    return from_dh(a=[1.0, 1.0], alpha=[0.0, 0.0], d=[0.0, 0.0], mass=[1.0, 1.0], com=[[-0.5, 0.0, 0.0]] * 2,
                   inertia=[rod, rod], gravity=[0.0, -10.0, 0.0], name="rods_dh")


LWP_NO_STOP = Variant("your backward recursion seems not to stop after i = 1 (the erratum's Step 7): it runs once "
                      "more for a 'link 0', and with 0-based arrays [i − 1] is [−1] — the last link's torque is "
                      "overwritten", lwp_backward=partial(lwp_backward_with, stop=False))
LWP_SLIDE_MOMENT = Variant("your torque of a prismatic joint seems to be μ_i · (R_{i,i−1} e_z); a slide transmits "
                           "force: τ_i = f_i · (R_{i,i−1} e_z) (the erratum's Step 6, as [RNE05] reports it)",
                           lwp_backward=partial(lwp_backward_with, prismatic_force=False))
LWP_AXIS_Z_I = Variant("your joint axis seems to be e_z = (0, 0, 1) of frame {i}; in standard D-H joint i moves "
                       "about the z-axis of frame {i−1}, which frame {i} sees as R_{i,i−1} e_z (the last row of "
                       "R_{i−1,i} = R[i-1])",
                       lwp_backward=partial(lwp_backward_with, axis=lambda Ri: Z0))
LWP_CARRY_TRANSPOSED = Variant("your recursion seems to carry f_{i+1}, μ_{i+1} into frame {i} with R_{i,i+1}ᵀ; "
                               "R_{i,i+1} (R[i]) takes frame-{i+1} vectors into frame {i}",
                               lwp_backward=partial(lwp_backward_with, carry=lambda Rn, x: Rn.T @ x))
LWP_LEVER = Variant("your moment of m_i a_{c_i} seems to use p_{c_i} alone; μ_i is taken about O_{i−1}, "
                    "so the lever of m_i a_{c_i} is R_{i,i−1} p_{i−1,i} + p_{c_i}",
                    lwp_backward=partial(lwp_backward_with, lever=lambda p, s: s))
LWP_NO_TRANSMITTED = Variant("your μ_i seems to lack R_{i,i−1} p_{i−1,i} × (R_{i,i+1} f_{i+1}): the force link i + 1 "
                             "pulls with acts at O_i, R_{i,i−1} p_{i−1,i} from O_{i−1}, where μ_i is taken",
                             lwp_backward=partial(lwp_backward_with, transmitted=False))
LWP_MISTAKES = (LWP_NO_STOP, LWP_AXIS_Z_I, LWP_CARRY_TRANSPOSED, LWP_LEVER, LWP_NO_TRANSMITTED)

_LWP_HINT = ("Step 5: f_i = R_{i,i+1} f_{i+1} + m_i a_{c_i}, μ_i = R_{i,i+1} μ_{i+1} + R_{i,i−1} p_{i−1,i} × "
             "(R_{i,i+1} f_{i+1}) + (R_{i,i−1} p_{i−1,i} + p_{c_i}) × m_i a_{c_i} + I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i "
             "(rows of F, p_star, s_bar, N); Step 6: τ_i = μ_i · (R_{i,i−1} e_z) (revolute) or f_i · (R_{i,i−1} e_z) "
             "(prismatic), R_{i,i−1} e_z = R[i-1].T @ (0, 0, 1); Step 7: stop after the first link")


def _lwp_check(ctx, lwp_backward, cases):
    for model, q, qd, qdd, g, label in cases:
        args, expected, where = _lwp_case(ctx, model, q, qd, qdd, g, label)
        call = f"lwp_backward(F, N, R, p_star, s_bar, joint_types) {where}"
        tau = ctx.expect_shape("tau (n,)", ctx.call(lwp_backward, *args), (model.n,), call=call)
        ctx.expect_close("tau (n,)", tau, expected, call=call, hint=_LWP_HINT)


@EXERCISE.check("rnea-lwp-revolute", points=1, functions=("lwp_backward",),
                title="LWP's backward recursion with the erratum: revolute arms", variants=LWP_MISTAKES)
def check_lwp_revolute(ctx, lwp_backward):
    rods = rods_as_dh()
    cases = [(rods, np.zeros(2), np.zeros(2), np.zeros(2), rods.gravity, "[RNE05]'s two rods held horizontal")]
    for _ in range(3):
        model = random_dh_arm(ctx, "R" * int(ctx.rng.integers(2, 7)))
        cases.append((model, *random_state(ctx, model), random_gravity(ctx), f"a random {model.n}-link DH arm"))
    _lwp_check(ctx, lwp_backward, cases)


@EXERCISE.check("rnea-lwp-prismatic", points=1, functions=("lwp_backward",),
                title="LWP's backward recursion with the erratum: arms with prismatic joints",
                variants=LWP_MISTAKES + (LWP_SLIDE_MOMENT,))
def check_lwp_prismatic(ctx, lwp_backward):
    cases = []
    for model in (samples.rpr_arm(), samples.scara()):
        cases.append((model, *random_state(ctx, model), model.gravity, f"{model.name!r}"))
    for _ in range(2):
        types = "".join(ctx.rng.choice(["R", "P"], size=int(ctx.rng.integers(2, 7))))
        types = types[:-1] + "P" if "P" not in types else types
        model = random_dh_arm(ctx, types)
        cases.append((model, *random_state(ctx, model), random_gravity(ctx), f"a random {model.n}-link DH arm"))
    _lwp_check(ctx, lwp_backward, cases)
