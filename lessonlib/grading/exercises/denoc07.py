"""Checks of exercise 07: the decoupled natural orthogonal complement, DeNOC (seed 002, after Saha).

The student builds Saha's matrices piece by piece — the twist-propagation matrix ``A_{k,j}``, the
joint-rate vector ``p_k``, ``N_l`` and ``N_d`` of a chain, the generalised inertia ``Nᵀ M N`` — and
then the O(n) DeNOC recursion for the joint torques. Each check feeds inputs drawn from ``ctx.rng``
and compares with the library (``lessonlib.dynamics.denoc``) and with identities that use neither
DeNOC nor its matrices: the rigid-body velocity field ``v_k = v_j + ω × a``, the body twists of the
kinematics rotated to world axes (``t = N q̇``), the CRBA mass matrix, the kinetic energy
``½ Σ v_iᵀ I_i v_i``, the spatial RNEA, Jacobian-transpose gravity.

======================  ======  ==============================================================
check                   points  what it tests
======================  ======  ==============================================================
``denoc-twist-prop``    1       ``twist_propagation``: ``A = [[1, O], [−[a]×, 1]]``
``denoc-joint-rate``    1       ``joint_rate_vector``: ``p_k`` of revolute and prismatic joints
``denoc-nd``            1       ``denoc_N``: ``N_d`` (block-diagonal in the ``p_k``)
``denoc-nl``            1       ``denoc_N``: ``N_l`` (block lower-triangular) and ``t = N_l (N_d q̇)``
``denoc-nmn``           1       ``generalized_inertia``: ``Nᵀ M N`` = CRBA on random chains
``denoc-nmn-seed002``   1       ... on seed 002's 7-DoF arm, and ``½ q̇ᵀ I q̇`` = kinetic energy
``denoc-tau-chain``     2       ``denoc``: joint torques on random chains (= RNEA)
``denoc-tau-seed002``   1       ``denoc`` along seed 002's trajectory (0 → π/3 in 2 s)
``denoc-tau-identities`` 1      ``denoc`` against Jacobian-transpose gravity and CRBA columns
======================  ======  ==============================================================
"""
from __future__ import annotations

import numpy as np

from ... import samples, so3
from ...conventions import ANG, LIN
from ...dynamics import crba, rnea
from ...dynamics.denoc import denoc_matrices, twist_propagation
from ...dynamics.energy import kinetic_energy
from ...kinematics import body_twists, fk
from ..checker import Exercise
from .rnea05 import gravity_by_jacobians
from ._common import random_chain, random_gravity, random_state

EXERCISE = Exercise(
    "denoc07", notebook="07_denoc.ipynb", title="Lesson 07 — DeNOC: the decoupled natural orthogonal complement",
    blocked=("lessonlib.dynamics", "lessonlib.batch", "lessonlib.check", "lessonlib.constraints",
             "lessonlib.kinematics:jacobian", "lessonlib.kinematics:body_twists"),
    copy_targets=("lessonlib.dynamics.denoc", "lessonlib.dynamics.rnea", "lessonlib.dynamics.rnea_poe",
                  "lessonlib.dynamics.rnea_classic", "lessonlib.dynamics.crba", "lessonlib.batch"))


# --- reference quantities (judge side; never sent to the kernel) ------------------------------



def rate_vector(kind, e, r, O):
    """``p = [e; e × (O − r)]`` (revolute through ``r``) or ``[0; e]`` (prismatic), at the point ``O``."""
    p = np.zeros(6)
    if kind == "revolute":
        p[ANG], p[LIN] = e, np.cross(e, np.asarray(O) - np.asarray(r))
    else:
        p[LIN] = e
    return p


def world_twists(model, q, qd):
    """``t_k = diag(R_k, R_k) v_k``: the body twists in world axes at the body origins (no DeNOC)."""
    R = fk(model, q)[:, :3, :3]
    v = body_twists(model, q, qd)
    return np.concatenate([np.r_[R[k] @ v[k][ANG], R[k] @ v[k][LIN]] for k in range(model.n)])


def joint_motions(model, q, qd):
    """``N_d q̇``: the stacked ``p_k q̇_k`` (world axes, at the body origins), built here without DeNOC."""
    T = fk(model, q)
    out = []
    for k, joint in enumerate(model.joints):
        R, O = T[k][:3, :3], T[k][:3, 3]
        out.append(joint.scale * rate_vector(joint.kind, R @ joint.axis, O + R @ joint.point, O) * qd[k])
    return np.concatenate(out)



# --- (a) the building blocks A and p ---------------------------------------------------------------

@EXERCISE.check("denoc-twist-prop", points=1, functions=("twist_propagation",),
                title="twist-propagation matrix A = [[1, O], [-[a]x, 1]]")
def twist_prop(ctx, twist_propagation_student):
    cases = [np.array([1.0, 0.0, 0.0])] + [ctx.rng.uniform(-1, 1, 3) for _ in range(3)]
    for a in cases:
        call = f"twist_propagation(a={np.round(a, 4).tolist()})"
        A = ctx.call(twist_propagation_student, a)
        expected = np.eye(6)
        expected[LIN, ANG] = -so3.hat(a)
        assert np.allclose(expected, twist_propagation(a)), "checker self-test: A"
        ctx.expect_close("A (6, 6)", A, expected, call=call,
                         hint="A [w; v] must be [w; v + w x a]: the same body seen from a point a further on")
    a, b = ctx.rng.uniform(-1, 1, 3), ctx.rng.uniform(-1, 1, 3)
    ctx.expect_close("A(a) @ A(b)", ctx.expect_shape("A(a)", ctx.call(twist_propagation_student, a), (6, 6))
                     @ ctx.expect_shape("A(b)", ctx.call(twist_propagation_student, b), (6, 6)),
                     twist_propagation(a + b), call="twist_propagation(a) @ twist_propagation(b)",
                     hint="two shifts of the reference point add up: A(a) A(b) = A(a + b)")


@EXERCISE.check("denoc-joint-rate", points=1, functions=("joint_rate_vector",),
                title="joint-rate vector p_k of revolute and prismatic joints")
def joint_rate(ctx, joint_rate_vector):
    cases = [("revolute", np.array([0.0, 0.0, 1.0]), np.zeros(3), np.array([1.0, 0.0, 0.0]))]
    for kind in ("revolute", "revolute", "prismatic", "revolute", "prismatic"):
        e = ctx.rng.normal(size=3)
        cases.append((kind, e / np.linalg.norm(e), ctx.rng.uniform(-1, 1, 3), ctx.rng.uniform(-1, 1, 3)))
    for kind, e, r, O in cases:
        call = (f"joint_rate_vector({kind!r}, e={np.round(e, 4).tolist()}, r={np.round(r, 4).tolist()}, "
                f"O={np.round(O, 4).tolist()})")
        ctx.expect_close("p (6,)", ctx.call(joint_rate_vector, kind, e, r, O), rate_vector(kind, e, r, O), call=call,
                         hint="a unit joint rate gives the twist [e; velocity of O]: for a revolute joint O moves "
                              "on a circle about the axis through r; a prismatic joint slides along e and does not "
                              "turn")


# --- (b) N_l and N_d of a chain ----------------------------------------------------------------------

def _n_cases(ctx, trials=3):
    models = [samples.seed002_7dof()] + [random_chain(ctx) for _ in range(trials - 1)]
    for model in models:
        q, qd, _ = random_state(ctx, model)
        mats = denoc_matrices(model, q, qd)
        assert np.allclose(mats.t, world_twists(model, q, qd), atol=1e-9), "checker self-test: t = N qd"
        assert np.allclose(mats.N_d @ qd, joint_motions(model, q, qd), atol=1e-12), "checker self-test: N_d qd"
        yield model, q, qd, mats


@EXERCISE.check("denoc-nd", points=1, functions=("denoc_N",),
                title="N_d of a chain: block-diagonal in the joint-rate vectors")
def n_d(ctx, denoc_N):
    for model, q, _, mats in _n_cases(ctx):
        call = f"denoc_N(model, q) on {model.name!r} (n = {model.n})"
        _, N_d = ctx.expect_tuple(ctx.call(denoc_N, model, q), ("N_l", "N_d"), call=call)
        ctx.expect_close(f"N_d ({6 * model.n}, {model.n})", N_d, mats.N_d, call=call,
                         hint="rows 6k..6k+5 of column k hold p_k in world axes at O_k, the origin of body frame k; "
                              "everything else is 0")


@EXERCISE.check("denoc-nl", points=1, functions=("denoc_N",),
                title="N_l of a chain, and t = N_l N_d qd")
def n_l(ctx, denoc_N):
    for model, q, qd, mats in _n_cases(ctx):
        call = f"denoc_N(model, q) on {model.name!r} (n = {model.n})"
        N_l, N_d = ctx.expect_tuple(ctx.call(denoc_N, model, q), ("N_l", "N_d"), call=call)
        N_l = ctx.expect_shape("N_l", N_l, (6 * model.n, 6 * model.n), call=call)
        ctx.expect_close(f"N_l ({6 * model.n}, {6 * model.n})", N_l, mats.N_l, call=call,
                         hint="block (k, j) is A_kj = A(O_k - O_j) for j <= k (the identity on the diagonal), 0 above")
        ctx.expect_close("t = N_l (p_k qd_k stacked) (world twists)", N_l @ joint_motions(model, q, qd),
                         world_twists(model, q, qd), call=call + " with a random qd",
                         hint="row block k of N_l sums what every link up to k passes on to O_k")


# --- (c) the generalised inertia -------------------------------------------------------------------

@EXERCISE.check("denoc-nmn", points=1, functions=("generalized_inertia",),
                title="generalised inertia N^T M N = CRBA on random chains")
def nmn(ctx, generalized_inertia):
    for _ in range(3):
        model = random_chain(ctx)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        call = f"generalized_inertia(model, q) on a random {model.n}-link chain"
        ctx.expect_close(f"I ({model.n}, {model.n})", ctx.call(generalized_inertia, model, q), crba(model, q),
                         call=call, hint="M_k = diag(R_k, R_k) I_k diag(R_k, R_k)^T: the body inertia about O_k, "
                                         "turned to world axes; I = N^T diag(M_1..M_n) N")


@EXERCISE.check("denoc-nmn-seed002", points=1, functions=("generalized_inertia",),
                title="N^T M N on seed 002's 7-DoF arm, and the kinetic energy")
def nmn_seed002(ctx, generalized_inertia):
    arm = samples.seed002_7dof()
    for _ in range(2):
        q, qd, _ = random_state(ctx, arm)
        call = "generalized_inertia(seed002_7dof, q)"
        I = ctx.call(generalized_inertia, arm, q)
        ctx.expect_close("I (7, 7)", I, crba(arm, q), call=call)
        ctx.expect_close("kinetic energy 1/2 qd^T I qd", 0.5 * qd @ np.asarray(I, dtype=float) @ qd,
                         kinetic_energy(arm, q, qd), call=call + " with a random qd")


# --- (d) the recursion -----------------------------------------------------------------------------

@EXERCISE.check("denoc-tau-chain", points=2, functions=("denoc",),
                title="DeNOC joint torques on random chains")
def tau_chain(ctx, denoc):
    rods = samples.planar_2link()                              # seed 003: two horizontal 1 m / 1 kg rods
    cases = [(rods, np.zeros(2), np.zeros(2), np.zeros(2), np.array([0.0, -10.0, 0.0]))]
    for _ in range(3):
        model = random_chain(ctx)
        cases.append((model, *random_state(ctx, model), random_gravity(ctx)))
    for model, q, qd, qdd, g in cases:
        call = f"denoc(model, q, qd, qdd, gravity=g) on {model.name!r} (n = {model.n})"
        ctx.expect_close(f"tau ({model.n},)", ctx.call(denoc, model, q, qd, qdd, gravity=g),
                         rnea(model, q, qd, qdd, gravity=g), call=call,
                         hint="forward: t_k, then td_k = A td_(k-1) + Adot t_(k-1) + p_k qdd_k + W_k p_k qd_k from "
                              "td_0 = [0; -g]; backward: w_k = M_k td_k + W_k M_k E t_k + A_(k+1,k)^T w_(k+1), "
                              "tau_k = p_k . w_k")
    model = cases[-1][0]
    q, qd, qdd = random_state(ctx, model)
    ctx.expect_close(f"tau ({model.n},)", ctx.call(denoc, model, q, qd, qdd), rnea(model, q, qd, qdd),
                     call=f"denoc(model, q, qd, qdd) with gravity=None on {model.name!r}",
                     hint="gravity=None means the model's default, model.gravity")


@EXERCISE.check("denoc-tau-seed002", points=1, functions=("denoc",),
                title="DeNOC along seed 002's trajectory (7 joints, 0 to pi/3 in 2 s)")
def tau_seed002(ctx, denoc):
    arm = samples.seed002_7dof()
    t = np.r_[1.0, ctx.rng.uniform(0.0, 2.0, 3)]
    Q, QD, QDD = samples.seed002_trajectory(t)
    for k in range(len(t)):
        call = f"denoc(seed002_7dof, q(t), qd(t), qdd(t)) at t = {t[k]:.4g} s"
        ctx.expect_close("tau (7,)", ctx.call(denoc, arm, Q[k], QD[k], QDD[k]), rnea(arm, Q[k], QD[k], QDD[k]),
                         call=call)


@EXERCISE.check("denoc-tau-identities", points=1, functions=("denoc",),
                title="DeNOC against Jacobian-transpose gravity and the CRBA mass matrix")
def tau_identities(ctx, denoc):
    model = random_chain(ctx, 3, 6)
    q = ctx.rng.uniform(-np.pi, np.pi, model.n)
    g = random_gravity(ctx)
    zero = np.zeros(model.n)
    ctx.expect_close(f"tau ({model.n},)", ctx.call(denoc, model, q, zero, zero, gravity=g),
                     gravity_by_jacobians(model, q, g), call="denoc(model, q, 0, 0, gravity=g): the gravity torques",
                     hint="at rest only gravity remains: every td_k is [0; -g]")
    columns = [ctx.expect_shape(f"column {j} of M", ctx.call(denoc, model, q, zero, np.eye(model.n)[j],
                                                             gravity=np.zeros(3)),
                                (model.n,), call=f"denoc(model, q, 0, e_{j}, gravity=0)") for j in range(model.n)]
    ctx.expect_close("M = [denoc(q, 0, e_j, gravity=0) for j]", np.column_stack(columns), crba(model, q),
                     call=f"the mass matrix of a random {model.n}-link chain, column by column",
                     hint="with qd = 0 and no gravity, denoc(q, 0, e_j) is column j of I = N^T M N")
