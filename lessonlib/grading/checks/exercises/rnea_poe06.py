"""Checks of exercise 06: Lie-group (product-of-exponentials) recursive dynamics ([LG, 串联机器人运动方程]).

The student writes the recursion in zero-configuration (home) frames from Modern Robotics' chain
description ``M_list`` (n+1, 4, 4), ``G_list`` (n, 6, 6), ``S_list`` (6, n) (the layout of
:func:`lessonlib.model.from_poe`). Each check feeds random chains drawn from ``ctx.rng`` and compares
with the library (``rnea_poe_trace``, ``rnea``) and with identities that do not use the
zero-configuration recursion at all: forward kinematics at ``q = 0``, ``scipy.linalg.expm`` of
``q_i ad(S^0_i)``, the space Jacobian, the body twists and spatial accelerations of the body-frame RNEA
moved by ``Ad(T_0i(0))``, Jacobian-transpose gravity and the CRBA mass matrix.

Known mistakes (judge side: the recursion written here with one piece replaced) include the home
pose not being a product (or multiplied the wrong way round), ``Ad(T_0i(0))`` where ``Ad(T_0i(0)⁻¹)``
belongs, ``H`` for ``q_i`` read as degrees or with the wrong sign, ``H_i`` where ``H_i⁻¹`` belongs, the
bracket dropped or turned around, gravity with the wrong sign and ``H_i⁻¹`` where ``H_i⁻ᵀ`` carries
wrenches back. The ``rnea_poe`` checks also receive the student's ``home_frames``, ``joint_adjoint``
and ``forward_pass`` to say which of them is wrong when ``rnea_poe`` fails.

Part (e) is [LG]'s closed form ``τ_i = Σ_j M_ij q̈_j + Σ_k,l B_ikl q̇_k q̇_l + g_i`` from the space-frame
joint screws ``S_s,i`` and link inertias ``𝓘_s,m`` at the current configuration (and the parent list, for
trees). ``M`` is compared with the CRBA (a recursion in body frames), first its symmetry; ``B``
through its symmetric part ``½(B_ikl + B_ilk)`` — the only part the dynamics fix — with the
Christoffel symbols from the RNEA's velocity torques (``coriolis_matrix`` polarised). Known mistakes:
``m ≥ i`` only (M not symmetric), one link's inertia for the sum, the chain's index sums on a tree;
in B the bracket order, either term dropped or its bracket turned around, the chain's sums on a tree,
the first term for every ``k < l`` on a tree (``k`` carries ``l`` is meant).

==========================  ======  =======================================================
check                       points  what it tests
==========================  ======  =======================================================
``poe-home-poses``          1       ``home_frames``: home poses ``T_0i(0) = T_{0,1}(0) ⋯ T_{i-1,i}(0)``
``poe-home-inertias``       1       ``home_frames``: ``𝓘^0_i = Ad(T_0i(0)⁻¹)ᵀ 𝓘_i Ad(T_0i(0)⁻¹)``
``poe-adjoint``             1       ``joint_adjoint``: ``H = Ad(exp(S^∧ q_i)) = expm(q_i ad(S))``
``poe-adjoint-chain``       1       ``joint_adjoint`` along a chain: ``H_1 ⋯ H_i S^0_i`` = space Jacobian
``poe-forward-v``           1       ``forward_pass``: twists ``V^0_i``
``poe-forward-a``           1       ``forward_pass``: ``A^0_i`` (gravity folded in)
``poe-rnea-chain``          2       ``rnea_poe`` on random chains (revolute and prismatic joints)
``poe-rnea-ur5``            1       ``rnea_poe`` on the UR5 (Modern Robotics' ``Mlist, Glist, Slist``)
``poe-rnea-identities``     1       ``rnea_poe`` against Jacobian-transpose gravity and CRBA
``poe-closed-a-chain``      1       ``mass_matrix_closed_form``: symmetric, = CRBA on random chains
``poe-closed-a-tree``       1       ``mass_matrix_closed_form`` on random trees
``poe-closed-b``            2       ``velocity_coefficients``: ``½(B_ikl + B_ilk)`` = Christoffel (chains, trees)
==========================  ======  =======================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np
from scipy.linalg import expm

from lessonlib import samples, se3, so3
from lessonlib.dynamics import coriolis_matrix, crba, rnea, rnea_poe_trace, rnea_trace
from lessonlib.kinematics import body_twists, fk, jacobian
from lessonlib.model import from_poe, to_poe
from .. import display
from ..checker import Exercise, Variant
from .rnea05 import gravity_by_jacobians
from ._common import random_gravity, random_model, random_state, random_tree

EXERCISE = Exercise(
    "rnea_poe06", notebook="06_lie_group_dynamics.ipynb",
    title="Lesson 06 — Lie-group recursive dynamics in the zero configuration",
    blocked=("lessonlib.dynamics", "lessonlib.batch", "lessonlib.check", "lessonlib.constraints",
             "lessonlib.kinematics"),
    copy_targets=("lessonlib.dynamics.rnea_poe", "lessonlib.dynamics.rnea", "lessonlib.dynamics.rnea_classic",
                  "lessonlib.dynamics.denoc", "lessonlib.dynamics.closed_form", "lessonlib.batch"))

#: Modern Robotics' UR5 test state (its InverseDynamics documentation, without the tip wrench).
UR5_STATE = (np.array([0, np.pi / 6, np.pi / 4, np.pi / 3, np.pi / 2, 2 * np.pi / 3]), 0.2 * np.ones(6),
             0.1 * np.ones(6))


# --- reference quantities (judge side; never sent to the kernel) ------------------------------


def random_poe_chain(ctx, n_min=2, n_max=6):
    """A random serial chain (revolute and prismatic joints) and its PoE lists (random end-effector)."""
    n = int(ctx.rng.integers(n_min, n_max + 1))
    model = samples.random_model(n, seed=int(ctx.rng.integers(2**31)), tree=False, prismatic=True)
    ee = se3.from_Rp(so3.exp(ctx.rng.normal(size=3)), ctx.rng.uniform(-0.3, 0.3, 3))
    lists = to_poe(model, ee)
    rebuilt = from_poe(*lists)
    q = ctx.rng.uniform(-1, 1, n)
    assert np.allclose(rnea(rebuilt, q, q, q), rnea(model, q, q, q), atol=1e-9), "checker self-test: from_poe"
    return rebuilt, lists


def random_screw(ctx, prismatic=False):
    """A unit joint screw: revolute ``[ω; −ω × r]`` through a random point, or prismatic ``[0; v]``."""
    axis = ctx.rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    if prismatic:
        return np.r_[np.zeros(3), axis]
    return np.r_[axis, -np.cross(axis, ctx.rng.uniform(-1, 1, 3))]


# --- known mistakes (judge side): the recursion with one piece replaced -----------------------------

def _after(pose, M):                       # the home pose grows outward: T_0i(0) = M_list[0] ⋯ M_list[i-1]
    return pose @ M


def _congruent(pose, G):                   # 𝓘^0_i = Ad(T_0i(0)^-1)ᵀ 𝓘_i Ad(T_0i(0)^-1)
    back = se3.Ad(se3.inv(pose))
    return back.T @ G @ back


def home_with(M_list, G_list, *, compose=_after, pull=_congruent, skip=0):
    """``(M, N0)`` of a chain — or a slip: another way to ``compose`` the home poses, to ``pull`` the
    inertias back, or ``skip`` the first entries of ``M_list``."""
    n = len(G_list)
    M, N0 = np.zeros((n, 4, 4)), np.zeros((n, 6, 6))
    pose = np.eye(4)
    for i in range(n):
        pose = compose(pose, M_list[i + skip])
        M[i], N0[i] = pose, pull(pose, G_list[i])
    return M, N0


def adjoint_with(s, theta, *, angle=lambda theta: theta, order=None):
    """``H = Ad(exp(S^∧ q_i))`` — or a slip: q_i read through ``angle``, or ``order = 1`` (``I + q_i ad(S)``)."""
    s = np.asarray(s, dtype=float)
    if order == 1:
        return np.eye(6) + angle(theta) * se3.ad(s)
    return se3.Ad(se3.exp(s * angle(theta)))


def _bracket(V, s):                        # [V^0_i, S^0_i] = ad(V^0_i) S^0_i
    return se3.ad(V) @ s


def forward_with(S0, q, qd, qdd, gravity, *, turn=-1.0, bracket=_bracket, gravity_sign=1.0, carry=True):
    """The forward pass in home coordinates — or a slip: ``H_i`` (``turn = +1``) for ``H_i⁻¹``, another
    ``bracket``, gravity times ``gravity_sign``, or the previous link's motion not ``carry``-ied."""
    n = len(q)
    V, Vd_g = np.zeros((n, 6)), np.zeros((n, 6))
    V_in, Vd_in = np.zeros(6), np.r_[np.zeros(3), -gravity_sign * np.asarray(gravity, dtype=float)]
    for i in range(n):
        H_inv = adjoint_with(S0[i], turn * q[i]) if carry else np.zeros((6, 6))
        V[i] = qd[i] * S0[i] + H_inv @ V_in
        Vd_g[i] = qdd[i] * S0[i] + qd[i] * bracket(V[i], S0[i]) + H_inv @ Vd_in
        V_in, Vd_in = V[i], Vd_g[i]
    return V, Vd_g


def _gyroscopic(V, N):                     # ad*(V) 𝓘 V ([LG]'s {V, 𝓘V})
    return se3.ad_dual(V) @ N @ V


def rnea_poe_with(M_list, G_list, S_list, q, qd, qdd, gravity, *, back=lambda H_inv: H_inv.T,
                  gyroscopic=_gyroscopic, **forward_slip):
    """The whole recursion — or a slip: wrenches carried ``back`` with another matrix than ``H_i⁻ᵀ``, another
    ``gyroscopic`` term, or a slip of the forward pass."""
    S0 = np.asarray(S_list, dtype=float).T
    _, N0 = home_with(M_list, G_list)
    V, Vd_g = forward_with(S0, q, qd, qdd, gravity, **forward_slip)
    n = len(q)
    P = np.array([N0[i] @ Vd_g[i] + gyroscopic(V[i], N0[i]) for i in range(n)])
    tau = np.zeros(n)
    for i in reversed(range(n)):
        tau[i] = P[i] @ S0[i]
        if i > 0:
            P[i - 1] = P[i - 1] + back(adjoint_with(S0[i], -q[i])) @ P[i]
    return tau


def _dropped(*args):
    return np.zeros(6)


HOME_NOT_PRODUCT = Variant("your home poses seem to be M_list[i-1] alone; T_0i(0) is the product M_list[0] @ ... @ "
                           "M_list[i-1] along the chain", home_frames=partial(home_with, compose=lambda pose, M: M))
HOME_REVERSED = Variant("your home poses seem to multiply in the wrong order (M_list[i-1] @ T_0,i−1(0)): each link's "
                        "pose in its parent goes on the right", home_frames=partial(home_with,
                                                                                    compose=lambda pose, M: M @ pose))
HOME_SHIFTED = Variant("your home poses seem to start at M_list[1]: M_list[0] places link 1 in the world (frame {0}) (it is "
                       "the last entry that is the end-effector, not a link)", home_frames=partial(home_with, skip=1))
N0_FORWARD = Variant("your 𝓘^0_i seems to use Ad(T_0i(0)) where Ad(T_0i(0)^-1) belongs (home coordinates -> link frame)",
                     home_frames=partial(home_with, pull=lambda pose, G: se3.Ad(pose).T @ G @ se3.Ad(pose)))
N0_OTHER_SIDE = Variant("your 𝓘^0_i seems to be Ad(T_0i(0)^-1) 𝓘_i Ad(T_0i(0)^-1)ᵀ (the transpose on the wrong side)",
                        home_frames=partial(home_with, pull=lambda pose, G: se3.Ad(se3.inv(pose)) @ G
                                            @ se3.Ad(se3.inv(pose)).T))
N0_NOT_PULLED = Variant("your 𝓘^0_i seems to be 𝓘_i itself (G_list[i-1]), not pulled back to the zero configuration",
                        home_frames=partial(home_with, pull=lambda pose, G: G))
H_SIGN = Variant("your H seems to be Ad(exp(−S^∧ q_i)) = H^-1: the sign of theta = q_i is turned around",
                 joint_adjoint=partial(adjoint_with, angle=lambda theta: -theta))
H_DEGREES = Variant("your joint_adjoint seems to read theta in degrees; the angles are in radians",
                    joint_adjoint=partial(adjoint_with, angle=np.deg2rad))
H_FIRST_ORDER = Variant("your H seems to be I + q_i ad(S), the first two terms of exp(q_i ad(S)) only",
                        joint_adjoint=partial(adjoint_with, order=1))
FWD_H = Variant("your forward pass seems to carry the previous link's motion with H_i instead of H_i^-1 = "
                "Ad(exp(−S^0∧_i q_i))", forward_pass=partial(forward_with, turn=+1.0))
FWD_NOT_CARRIED = Variant("your forward pass seems not to carry the previous link's motion: V^0_i = q̇_i S^0_i alone",
                          forward_pass=partial(forward_with, carry=False))
BRACKET_DROPPED = Variant("your accelerations seem to lack the bracket term q̇_i [V^0_i, S^0_i]",
                          forward_pass=partial(forward_with, bracket=_dropped))
BRACKET_SWAPPED = Variant("your bracket seems turned around, [S^0_i, V^0_i] = −[V^0_i, S^0_i]",
                          forward_pass=partial(forward_with, bracket=lambda V, s: se3.ad(s) @ V))
FWD_GRAVITY_SIGN = Variant("your forward pass seems to start from [0; +g_phys]; gravity folds in as A^0_0 = [0; −g_phys]",
                           forward_pass=partial(forward_with, gravity_sign=-1.0))
BACK_H = Variant("your backward pass seems to carry wrenches with H_iᵀ where H_i^-T belongs",
                 rnea_poe=partial(rnea_poe_with, back=lambda H_inv: np.linalg.inv(H_inv).T))
BACK_NOT_TRANSPOSED = Variant("your backward pass seems to carry wrenches with H_i^-1 where its transpose H_i^-T "
                              "belongs", rnea_poe=partial(rnea_poe_with, back=lambda H_inv: H_inv))
POE_GYRO_AD = Variant("your gyroscopic term seems to use ad(V) where ad*(V) = −ad(V)ᵀ belongs",
                      rnea_poe=partial(rnea_poe_with, gyroscopic=lambda V, N: se3.ad(V) @ N @ V))
POE_GRAVITY_SIGN = Variant("your rnea_poe seems to use gravity with the wrong sign: fold it in as A^0_0 = [0; −g_phys]",
                           rnea_poe=partial(rnea_poe_with, gravity_sign=-1.0))
POE_NO_BRACKET = Variant("your rnea_poe seems to lack the bracket term q̇_i [V^0_i, S^0_i] of the accelerations",
                         rnea_poe=partial(rnea_poe_with, bracket=_dropped))
RNEA_POE_MISTAKES = (BACK_H, BACK_NOT_TRANSPOSED, POE_GYRO_AD, POE_GRAVITY_SIGN, POE_NO_BRACKET)
#: At rest (the identities) the velocity terms vanish.
RNEA_POE_AT_REST_MISTAKES = (BACK_H, BACK_NOT_TRANSPOSED, POE_GRAVITY_SIGN)


def _helper_suspects(ctx, home_frames, joint_adjoint, forward_pass, model, lists, q, qd, qdd, g):
    """Probes of the student's earlier functions on this case's inputs, for a failing ``rnea_poe``."""
    M_list, G_list, S_list = lists
    trace = rnea_poe_trace(model, q, qd, qdd, gravity=g)
    S0 = np.asarray(S_list, dtype=float).T
    return (ctx.suspect(home_frames, M_list, G_list, expected=(trace.M_home, trace.N), call="home_frames(M_list, G_list)",
                        see="poe-home-inertias"),
            *(ctx.suspect(joint_adjoint, S0[i], q[i], expected=trace.H[i], call=f"joint_adjoint(S0[{i}], q[{i}])",
                          see="poe-adjoint") for i in range(model.n)),
            ctx.suspect(forward_pass, S0, q, qd, qdd, np.asarray(g, dtype=float), expected=(trace.V, trace.Vd_g),
                        call="forward_pass(S0, q, qd, qdd, gravity)", see="poe-forward-a"))


# --- (a) home frames -------------------------------------------------------------------------------

@EXERCISE.check("poe-home-poses", points=1, functions=("home_frames",),
                title="home poses T_0i(0) of the links (zero configuration)",
                variants=(HOME_NOT_PRODUCT, HOME_REVERSED, HOME_SHIFTED))
def check_home_poses(ctx, home_frames):
    for _ in range(3):
        model, (M_list, G_list, _) = random_poe_chain(ctx)
        M, _ = ctx.expect_tuple(ctx.call(home_frames, M_list, G_list), ("M", "N0"))
        ctx.expect_close(f"M ({model.n}, 4, 4)", M, fk(model, np.zeros(model.n)),
                         hint="T_0i(0) = M_list[0] @ M_list[1] @ ... @ M_list[i-1]; the last entry of M_list is the "
                              "end-effector frame, not a link")


def _built_on_home_poses(ctx, M, expected):
    """Fallout names its source: 𝓘^0_i is built on T_0i(0), so wrong home poses are named before 𝓘^0_i is compared."""
    try:
        wrong = np.shape(M) != expected.shape or not np.allclose(np.asarray(M, dtype=float), expected, atol=1e-6)
    except (TypeError, ValueError):
        wrong = True
    if wrong:
        ctx.fail("your N0 is built on your home poses T_0i(0), and they are wrong here (the check poe-home-poses "
                 "tests them alone): fix T_0i(0) first, then 𝓘^0_i", hint="T_0i(0) = M_list[0] @ ... @ M_list[i-1]")


@EXERCISE.check("poe-home-inertias", points=1, functions=("home_frames",),
                title="link inertias 𝓘^0_i pulled back to the zero configuration",
                variants=(N0_FORWARD, N0_OTHER_SIDE, N0_NOT_PULLED))
def check_home_inertias(ctx, home_frames):
    for _ in range(3):
        model, (M_list, G_list, S_list) = random_poe_chain(ctx)
        q, qd, qdd = random_state(ctx, model)
        trace = rnea_poe_trace(model, q, qd, qdd)
        M, N0 = ctx.expect_tuple(ctx.call(home_frames, M_list, G_list), ("M", "N0"))
        _built_on_home_poses(ctx, M, fk(model, np.zeros(model.n)))
        ctx.expect_close(f"N0 ({model.n}, 6, 6)", N0, trace.N,
                         hint="𝓘^0_i = Ad(T_0i(0)^-1)ᵀ 𝓘_i Ad(T_0i(0)^-1): a wrench moves with the transpose of the "
                              "inverse adjoint, so the inertia is congruent to 𝓘_i")


# --- (b) the joint adjoint H_i ---------------------------------------------------------------------

@EXERCISE.check("poe-adjoint", points=1, functions=("joint_adjoint",),
                title="H = Ad(exp(S^∧ q_i)) of one joint screw", variants=(H_SIGN, H_DEGREES, H_FIRST_ORDER))
def check_adjoint(ctx, joint_adjoint):
    cases = [(random_screw(ctx, prismatic=k == 3), ctx.rng.uniform(-np.pi, np.pi)) for k in range(4)]
    cases.append((np.array([0.0, 0.0, 1.0, 0.0, -1.0, 0.0]), np.pi / 2))      # z through (1, 0, 0), a quarter turn
    for s, theta in cases:
        H = ctx.call(joint_adjoint, s, theta)
        expected = expm(theta * se3.ad(s))
        assert np.allclose(expected, se3.Ad(se3.exp(theta * s)), atol=1e-9), "checker self-test: Ad exp = exp ad"
        ctx.expect_close("H (6, 6)", H, expected,
                         hint="H = Ad(T) with T = exp(S^∧ q_i) the 4x4 transform of the joint motion")


@EXERCISE.check("poe-adjoint-chain", points=1, functions=("joint_adjoint",),
                title="H_1 ... H_i S^0_i along a chain = the space Jacobian",
                variants=(H_SIGN, H_DEGREES, H_FIRST_ORDER))
def check_adjoint_chain(ctx, joint_adjoint):
    for _ in range(2):
        model, (_, _, S_list) = random_poe_chain(ctx, 3, 6)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        S0 = S_list.T
        H = [ctx.expect_shape("H (6, 6)", ctx.call(joint_adjoint, S0[i], q[i]), (6, 6),
                              call=f"joint_adjoint(S0[{i}], q[{i}])") for i in range(model.n)]
        path, current = np.eye(6), []
        for i in range(model.n):
            path = path @ H[i]
            current.append(path @ S0[i])
        ctx.expect_close("[H_1 ... H_i S^0_i for each i] (columns)", np.array(current).T,
                         jacobian(model, q, frame="space"),
                         call=f"joint_adjoint(S0[i], q[i]) for every joint of a random {model.n}-link chain",
                         hint="each H_i must be the motion of joint i alone: its own screw is unmoved, "
                              "H_i S^0_i = S^0_i")


# --- (c) the forward pass ----------------------------------------------------------------------------

def _forward_cases(ctx, trials=3):
    for _ in range(trials):
        model, (_, _, S_list) = random_poe_chain(ctx)
        q, qd, qdd = random_state(ctx, model)
        g = random_gravity(ctx)
        trace = rnea_poe_trace(model, q, qd, qdd, gravity=g)
        body = rnea_trace(model, q, qd, qdd, gravity=g)
        Ad_M = [se3.Ad(trace.M_home[i]) for i in range(model.n)]
        assert np.allclose(trace.V, [Ad_M[i] @ v for i, v in enumerate(body_twists(model, q, qd))], atol=1e-9)
        assert np.allclose(trace.Vd_g, [Ad_M[i] @ a for i, a in enumerate(body.a)], atol=1e-8), "self-test: a"
        yield model, S_list.T.copy(), (q, qd, qdd), g, trace


@EXERCISE.check("poe-forward-v", points=1, functions=("forward_pass",),
                title="forward pass: twists V^0_i in the zero configuration", variants=(FWD_H, FWD_NOT_CARRIED))
def check_forward_v(ctx, forward_pass):
    for model, S0, (q, qd, qdd), g, trace in _forward_cases(ctx):
        V, _ = ctx.expect_tuple(ctx.call(forward_pass, S0, q, qd, qdd, g), ("V", "Vd_g"))
        ctx.expect_close(f"V ({model.n}, 6)", V, trace.V,
                         hint="V^0_i = q̇_i S^0_i + H_i^-1 V^0_(i−1) with H_i^-1 = Ad(exp(−S^0∧_i q_i)), V^0_0 = 0")


@EXERCISE.check("poe-forward-a", points=1, functions=("forward_pass",),
                title="forward pass: accelerations with gravity folded in",
                variants=(FWD_H, BRACKET_DROPPED, BRACKET_SWAPPED, FWD_GRAVITY_SIGN))
def check_forward_a(ctx, forward_pass):
    for model, S0, (q, qd, qdd), g, trace in _forward_cases(ctx):
        _, Vd_g = ctx.expect_tuple(ctx.call(forward_pass, S0, q, qd, qdd, g), ("V", "Vd_g"))
        ctx.expect_close(f"Vd_g ({model.n}, 6)", Vd_g, trace.Vd_g,
                         hint="start from A^0_0 = [0; −g_phys]; then A^0_i = q̈_i S^0_i + q̇_i [V^0_i, S^0_i] + H_i^-1 A^0_(i−1), "
                              "with [ξ, η] = ad(ξ) η")


# --- (d) the whole recursion -----------------------------------------------------------------------
# The check cells also pass the student's home_frames, joint_adjoint and forward_pass: when rnea_poe
# fails, the message says which of them is wrong on the failing case.

_EARLIER = ("home_frames", "joint_adjoint", "forward_pass")


@EXERCISE.check("poe-rnea-chain", points=2, functions=("rnea_poe",), helpers=_EARLIER,
                title="rnea_poe on random chains", variants=RNEA_POE_MISTAKES)
def check_rnea_chain(ctx, rnea_poe, *earlier):
    rods = samples.planar_2link()                              # [RNE05]: two horizontal 1 m / 1 kg rods
    cases = [(rods, to_poe(rods), (np.zeros(2), np.zeros(2), np.zeros(2)), np.array([0.0, -10.0, 0.0]))]
    for _ in range(3):
        model, lists = random_poe_chain(ctx)
        cases.append((model, lists, random_state(ctx, model), random_gravity(ctx)))
    for model, lists, (q, qd, qdd), g in cases:
        call = f"rnea_poe(M_list, G_list, S_list, q, qd, qdd, gravity) on {model.name!r} (n = {model.n})"
        with ctx.suspects(*_helper_suspects(ctx, *earlier, model, lists, q, qd, qdd, g)):
            got = ctx.call(rnea_poe, *lists, q, qd, qdd, g)
            ctx.expect_close(f"tau ({model.n},)", got, rnea(model, q, qd, qdd, gravity=g), call=call,
                             hint="F^0,self_i = 𝓘^0_i A^0_i + ad_dual(V^0_i) 𝓘^0_i V^0_i; inward τ_i = F^0_i·S^0_i, "
                                  "F^0_(i−1) += H_i^-T F^0_i")


@EXERCISE.check("poe-rnea-ur5", points=1, functions=("rnea_poe",), helpers=_EARLIER,
                title="rnea_poe on the UR5 (Modern Robotics' Mlist, Glist, Slist)", variants=RNEA_POE_MISTAKES)
def check_rnea_ur5(ctx, rnea_poe, *earlier):
    ur5 = samples.ur5()
    lists = to_poe(ur5, ur5.frame("ee").T)
    g = np.array([0.0, 0.0, -9.81])
    cases = [UR5_STATE] + [random_state(ctx, ur5) for _ in range(2)]
    for q, qd, qdd in cases:
        call = "rnea_poe(Mlist, Glist, Slist, q, qd, qdd, gravity=(0, 0, -9.81)) on the UR5"
        with ctx.suspects(*_helper_suspects(ctx, *earlier, ur5, lists, q, qd, qdd, g)):
            got = ctx.call(rnea_poe, *lists, q, qd, qdd, g)
            ctx.expect_close("tau (6,)", got, rnea(ur5, q, qd, qdd), call=call)


@EXERCISE.check("poe-rnea-identities", points=1, functions=("rnea_poe",), helpers=_EARLIER,
                title="rnea_poe against Jacobian-transpose gravity and the CRBA mass matrix",
                variants=RNEA_POE_AT_REST_MISTAKES)
def check_rnea_identities(ctx, rnea_poe, *earlier):
    model, lists = random_poe_chain(ctx, 3, 6)
    q = ctx.rng.uniform(-np.pi, np.pi, model.n)
    g = random_gravity(ctx)
    zero = np.zeros(model.n)
    with ctx.suspects(*_helper_suspects(ctx, *earlier, model, lists, q, zero, zero, g)):
        ctx.expect_close(f"tau ({model.n},), the gravity torques", ctx.call(rnea_poe, *lists, q, zero, zero, g),
                         gravity_by_jacobians(model, q, g),
                         hint="at rest only gravity remains: A^0_i (Vd_g) of every link is A^0_0 = [0; −g_phys] pulled back by "
                              "the joints")
    columns = [ctx.expect_shape(f"column {j} of M",
                                ctx.call(rnea_poe, *lists, q, zero, np.eye(model.n)[j], np.zeros(3)),
                                (model.n,)) for j in range(model.n)]
    ctx.expect_close("M = [rnea_poe(q, 0, e_j, gravity=0) for j]", np.column_stack(columns), crba(model, q),
                     call=f"the mass matrix of a random {model.n}-link chain, column by column",
                     hint="with qd = 0 and no gravity, the torques for qdd = e_j are column j of M(q)")


# --- (e) [LG]'s closed form τ_i = Σ_j M_ij q̈_j + Σ_k,l B_ikl q̇_k q̇_l + g_i -----------------------------------
# The student gets the joint screws S_s,i and the link inertias 𝓘_s,m in the space frame at the current configuration
# and the parent list; M is checked against the CRBA (a recursion in body frames), B through its symmetric part
# against the Christoffel symbols of the RNEA's velocity torques (only ½(B_ikl + B_ilk) is fixed by the dynamics).

def closed_form_inputs(model, q):
    """``(s, N, parent)``: joint screws S_s,i (n, 6) and link inertias 𝓘_s,i (n, 6, 6) in the space frame at ``q``, and
    the parents."""
    T = fk(model, q)
    s = np.array([se3.Ad(T[i]) @ model.S[i] for i in range(model.n)])
    back = [se3.Ad(se3.inv(T[m])) for m in range(model.n)]
    N = np.array([X.T @ model.inertia[m] @ X for m, X in enumerate(back)])
    if model.is_chain:
        assert np.allclose(s.T, jacobian(model, q, frame="space"), atol=1e-9), "checker self-test: s = space Jacobian"
    return s, N, list(model.parent)


def christoffel(model, q):
    """``Γ[i, k, l] = ½(∂M_ik/∂q_l + ∂M_il/∂q_k − ∂M_kl/∂q_i)`` from the RNEA's velocity torques (``coriolis_matrix``)."""
    return np.stack([coriolis_matrix(model, q, e) for e in np.eye(model.n)], axis=2)


def subtree_sums(N, parent):
    """``𝓘^c_s,i``: the inertias of every link joint i carries (its subtree), summed from the leaves inward."""
    N_bar = np.array(N, dtype=float)
    for m in reversed(range(len(parent))):
        if parent[m] != -1:
            N_bar[parent[m]] += N_bar[m]
    return N_bar


def carried_by_both(parent):
    """``D[i, j]``: the deeper of i and j when one carries the other (their common subtree), else −1."""
    n = len(parent)
    D = np.full((n, n), -1)
    for j in range(n):
        k = j
        while k != -1:
            D[k, j] = D[j, k] = j
            k = parent[k]
    return D


def _suffix_sums(N, parent):               # the chain's 𝓘_s,i + … + 𝓘_s,n by index, whatever the tree
    return np.cumsum(np.asarray(N, dtype=float)[::-1], axis=0)[::-1]


def _larger_index(parent):                 # the chain's max(i, j), whatever the tree
    i, j = np.indices((len(parent),) * 2)
    return np.maximum(i, j)


def _row(parent):                          # m ≥ i only
    i, _ = np.indices((len(parent),) * 2)
    return i


def mass_closed_with(s, N, parent, *, composite=subtree_sums, deepest=carried_by_both):
    """``M_ij = S_s,iᵀ 𝓘^c_s,D(i,j) S_s,j`` (0 when neither joint carries the other) — or a slip in ``composite`` / ``deepest``."""
    s = np.asarray(s, dtype=float)
    N_bar, D = composite(N, parent), deepest(parent)
    n = len(parent)
    return np.array([[s[i] @ N_bar[D[i, j]] @ s[j] if D[i, j] != -1 else 0.0 for j in range(n)] for i in range(n)])


def velocity_closed_with(s, N, parent, *, composite=subtree_sums, deepest=carried_by_both, first=1.0, second=1.0,
                         by_index=False):
    """[LG]'s ``B_ikl = 1[k carries l] S_s,iᵀ 𝓘^c_s [S_s,k, S_s,l] + S_s,kᵀ 𝓘^c_s [S_s,i, S_s,l]`` — or a slip: a sign on either term,
    the chain's index sums on a tree, or the chain's ``[k < l]`` for "k carries l" (``by_index``)."""
    s = np.asarray(s, dtype=float)
    N_bar, D = composite(N, parent), deepest(parent)
    n = len(parent)
    B = np.zeros((n, n, n))
    for i in range(n):
        for k in range(n):
            for l in range(n):
                m = D[i, l]
                if m == -1:
                    continue
                if (k < l) if by_index else (D[k, l] == l and k != l):
                    B[i, k, l] += first * s[i] @ N_bar[m] @ se3.ad(s[k]) @ s[l]
                if D[m, k] != -1:
                    B[i, k, l] += second * s[k] @ N_bar[D[m, k]] @ se3.ad(s[i]) @ s[l]
    return B


A_ROW_ONLY = Variant("your M_ij seems to sum 𝓘_s,m over m ≥ i only, so M is not symmetric; the links that move with "
                     "both joints are m ≥ max(i, j): M_ij = S_s,iᵀ (𝓘_s,max(i,j) + … + 𝓘_s,n) S_s,j",
                     mass_matrix_closed_form=partial(mass_closed_with, deepest=_row))
A_OWN_LINK = Variant("your M_ij seems to use the inertia 𝓘_s,max(i,j) of one link only; it is the sum of every link "
                     "carried by both joints, 𝓘^c_s,max(i,j) = 𝓘_s,max(i,j) + … + 𝓘_s,n",
                     mass_matrix_closed_form=partial(mass_closed_with, composite=lambda N, parent: np.asarray(N)))
A_BY_INDEX = Variant("your M seems to use the chain's sums by index (m ≥ max(i, j)) on a tree: there 'm ≥ i' means "
                     "the links in the subtree of joint i, and M_ij = 0 when neither joint carries the other",
                     mass_matrix_closed_form=partial(mass_closed_with, composite=_suffix_sums, deepest=_larger_index))
B_BRACKET_ORDER = Variant("your first term seems to use [S_s,l, S_s,k]; the derivative of the screw S_s,l of a later "
                          "joint is q̇_k [S_s,k, S_s,l] (k < l)", velocity_coefficients=partial(velocity_closed_with,
                                                                                         first=-1.0))
B_NO_FIRST = Variant("your B seems to lack the term S_s,iᵀ 𝓘^c_s [S_s,k, S_s,l] that comes from the moving screws "
                     "(Ṡ_s,l = Σ_k<l q̇_k [S_s,k, S_s,l] in the link accelerations)",
                     velocity_coefficients=partial(velocity_closed_with, first=0.0))
B_NO_SECOND = Variant("your B seems to lack the term S_s,kᵀ 𝓘^c_s [S_s,i, S_s,l] of the gyroscopic wrenches "
                      "ad*(V_s,m) 𝓘_s,m V_s,m",
                      velocity_coefficients=partial(velocity_closed_with, second=0.0))
B_SECOND_SWAPPED = Variant("your second term seems to use [S_s,l, S_s,i]; pairing ad*(V_s,m) 𝓘_s,m V_s,m with S_s,i "
                           "gives V_s,mᵀ 𝓘_s,m [S_s,i, V_s,m]", velocity_coefficients=partial(velocity_closed_with, second=-1.0))
B_FIRST_BY_INDEX = Variant("your first term seems to be taken for every k < l; on a tree the screw S_s,l moves with "
                           "joint k only when joint k carries joint l (k on l's path from the base): "
                           "Ṡ_s,l = Σ_(k carries l) q̇_k [S_s,k, S_s,l]",
                           velocity_coefficients=partial(velocity_closed_with, by_index=True))
B_BY_INDEX = Variant("your B seems to use the chain's sums by index on a tree: the links in both formulas are those "
                     "in the subtree of the deepest joint, and only when the joints lie on one path from the base",
                     velocity_coefficients=partial(velocity_closed_with, composite=_suffix_sums,
                                                   deepest=_larger_index))

_A_HINT = ("M_ij = S_s,iᵀ 𝓘^c_s S_s,j with 𝓘^c_s = the sum of the inertias of every link moved by both joints: "
           "𝓘_s,max(i,j) + … + 𝓘_s,n on a chain, the subtree of the deeper joint on a tree (0 if neither carries the "
           "other)")


def _closed_form_a(ctx, mass_matrix_closed_form, models):
    for model in models:
        q = random_state(ctx, model)[0]
        s, N, parent = closed_form_inputs(model, q)
        A = ctx.expect_shape(f"M ({model.n}, {model.n})", ctx.call(mass_matrix_closed_form, s, N, parent),
                             (model.n, model.n))
        ctx.expect_close("M − Mᵀ (the closed form is symmetric)", A - A.T, np.zeros_like(A), hint=_A_HINT)
        ctx.expect_close("M (the CRBA's mass matrix)", A, crba(model, q), hint=_A_HINT)


@EXERCISE.check("poe-closed-a-chain", points=1, functions=("mass_matrix_closed_form",),
                title="closed form: M from the space-frame screws and inertias is the CRBA's mass matrix (chains)",
                variants=(A_ROW_ONLY, A_OWN_LINK))
def check_closed_a_chain(ctx, mass_matrix_closed_form):
    _closed_form_a(ctx, mass_matrix_closed_form, [random_model(ctx, tree=False) for _ in range(3)])


@EXERCISE.check("poe-closed-a-tree", points=1, functions=("mass_matrix_closed_form",),
                title="closed form: M on trees (the links carried by both joints)",
                variants=(A_ROW_ONLY, A_OWN_LINK, A_BY_INDEX))
def check_closed_a_tree(ctx, mass_matrix_closed_form):
    _closed_form_a(ctx, mass_matrix_closed_form, [random_tree(ctx) for _ in range(3)])


@EXERCISE.check("poe-closed-b", points=2, functions=("velocity_coefficients",),
                title="closed form: the symmetric part of B is the Christoffel symbols (chains and trees)",
                variants=(B_BRACKET_ORDER, B_NO_FIRST, B_NO_SECOND, B_SECOND_SWAPPED, B_BY_INDEX, B_FIRST_BY_INDEX))
def check_closed_b(ctx, velocity_coefficients):
    for model in [random_model(ctx, tree=False) for _ in range(2)] + [random_tree(ctx) for _ in range(2)]:
        q, qd, _ = random_state(ctx, model)
        s, N, parent = closed_form_inputs(model, q)
        n = model.n
        B = ctx.expect_shape(f"B ({n}, {n}, {n})", ctx.call(velocity_coefficients, s, N, parent), (n, n, n))
        ctx.expect_close("½ (B_ikl + B_ilk) (the Christoffel symbols Γ_ikl)", 0.5 * (B + B.transpose(0, 2, 1)),
                         christoffel(model, q),
                         hint="B_ikl = S_s,iᵀ 𝓘^c_s,max(i,l) [S_s,k, S_s,l] (only when joint k carries joint l: k < l on a chain) "
                              "+ S_s,kᵀ 𝓘^c_s,max(i,k,l) [S_s,i, S_s,l]; [ξ, η] = ad(ξ) η; on a tree 𝓘^c_s sums the "
                              "subtree of the deepest joint, 0 off one path")
