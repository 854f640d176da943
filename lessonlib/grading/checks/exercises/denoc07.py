"""Checks of exercise 07: the decoupled natural orthogonal complement, DeNOC ([SWC16], after [Saha 1999]).

The student builds Saha's matrices piece by piece — the twist-propagation matrix ``Φ_{k,j}``, the
joint screw in world axes ``S_w,k``, ``N_l`` and ``N_d`` of a chain, the generalised inertia ``M = Nᵀ 𝓘_w N``
— and then the O(n) DeNOC recursion for the joint torques. Each check feeds inputs drawn from ``ctx.rng``
and compares with the library (``lessonlib.dynamics.denoc``) and with identities that use neither
DeNOC nor its matrices: the rigid-body velocity field ``v_k = v_j + ω × Δp``, the body twists of the
kinematics rotated to world axes (``V_w = N q̇``), the CRBA mass matrix, the kinetic energy
``½ Σ V_kᵀ 𝓘_k V_k``, the spatial RNEA, Jacobian-transpose gravity.

Known mistakes (judge side: Saha's formulas written here with one piece replaced): the sign or the
place of the ``−[Δp]`` block, the lever of ``S_w,k`` turned around or missing, a prismatic joint that
turns, the lesson's local axes (``joint.axis``, ``joint.point`` as stored) where world axes are asked,
``S_w,k`` at the world origin or on the joint axis, ``N_l`` with the wrong sign, only its first subdiagonal,
without its diagonal or with its blocks above the diagonal, the link inertias not turned (or turned the
wrong way), ``N_d`` for ``N``, and in the recursion ``Φ̇ V_w`` or ``Ω S_w q̇`` dropped, ``Φ̇`` with Φ's identity
blocks, ``Π`` forgotten, gravity with the wrong sign, ``Φ`` for ``Φᵀ``, the backward pass run outward.
The ``generalized_inertia`` checks also receive ``denoc_N``, the ``denoc`` checks ``twist_propagation``
and ``joint_rate_vector``, to say which of them is wrong when the answer fails.

======================  ======  ==============================================================
check                   points  what it tests
======================  ======  ==============================================================
``denoc-twist-prop``    1       ``twist_propagation``: ``Φ = [[1, 0], [−[Δp], 1]]``
``denoc-joint-rate``    1       ``joint_rate_vector``: ``S_w,k`` of revolute and prismatic joints
``denoc-nd``            1       ``denoc_N``: ``N_d`` (block-diagonal in the ``S_w,k``)
``denoc-nl``            1       ``denoc_N``: ``N_l`` (block lower-triangular) and ``V_w = N_l (N_d q̇)``
``denoc-nmn``           1       ``generalized_inertia``: ``Nᵀ 𝓘_w N`` = CRBA on random chains
``denoc-nmn-swc16``     1       ... on [SWC16]'s 7-DoF arm, and ``½ q̇ᵀ M q̇`` = kinetic energy
``denoc-tau-chain``     2       ``denoc``: joint torques on random chains (= RNEA)
``denoc-tau-swc16``     1       ``denoc`` along [SWC16]'s trajectory (0 → π/3 in 2 s)
``denoc-tau-identities`` 1      ``denoc`` against Jacobian-transpose gravity and CRBA columns
======================  ======  ==============================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples, so3
from lessonlib.conventions import ANG, LIN, base_acceleration
from lessonlib.dynamics import crba, rnea
from lessonlib.dynamics.denoc import denoc_matrices, twist_propagation
from lessonlib.dynamics.energy import kinetic_energy
from lessonlib.kinematics import body_twists, fk
from ..checker import Exercise, Variant
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
    """``S_w = [u; u × (O − p)]`` (revolute through ``p``) or ``[0; u]`` (prismatic), at the point ``O``; the
    arguments keep [SWC16]'s letters, ``e`` = u and ``r`` = p."""
    p = np.zeros(6)
    if kind == "revolute":
        p[ANG], p[LIN] = e, np.cross(e, np.asarray(O) - np.asarray(r))
    else:
        p[LIN] = e
    return p


def world_twists(model, q, qd):
    """``V_w,k = diag(R_0,k, R_0,k) V_k``: the body twists in world axes at the body origins (no DeNOC)."""
    R = fk(model, q)[:, :3, :3]
    v = body_twists(model, q, qd)
    return np.concatenate([np.r_[R[k] @ v[k][ANG], R[k] @ v[k][LIN]] for k in range(model.n)])


def joint_motions(model, q, qd):
    """``N_d q̇``: the stacked ``S_w,k q̇_k`` (world axes, at the body origins), built here without DeNOC."""
    T = fk(model, q)
    out = []
    for k, joint in enumerate(model.joints):
        R, O = T[k][:3, :3], T[k][:3, 3]
        out.append(joint.scale * rate_vector(joint.kind, R @ joint.axis, O + R @ joint.point, O) * qd[k])
    return np.concatenate(out)


# --- known mistakes (judge side): Saha's formulas with one piece replaced ---------------------------

def propagation_with(a, *, sign=-1.0, above=False):
    """``Φ(Δp) = [[1, 0], [−[Δp], 1]]`` — or a slip: the block with another ``sign``, or ``above`` the diagonal."""
    A = np.eye(6)
    A[(ANG, LIN) if above else (LIN, ANG)] = sign * so3.hat(np.asarray(a, dtype=float))
    return A


def rate_with(kind, e, r, O, *, lever=lambda O, r: O - r, prismatic_turns=False):
    """``S_w = [u; u × (O − p)]`` or ``[0; u]`` — or a slip: another ``lever``, a prismatic joint that turns."""
    e = np.asarray(e, dtype=float)
    if kind == "prismatic":
        return np.r_[e, np.zeros(3)] if prismatic_turns else np.r_[np.zeros(3), e]
    return np.r_[e, np.cross(e, lever(np.asarray(O, dtype=float), np.asarray(r, dtype=float)))]


def _world_rate(joint, T, O):              # S_w,k: axis and point turned into world axes, at O_k
    R = T[:3, :3]
    return rate_vector(joint.kind, R @ joint.axis, T[:3, 3] + R @ joint.point, O)


def denoc_N_with(model, q, *, rate=_world_rate, block=lambda O, k, j: twist_propagation(O[k] - O[j]),
                 pairs=lambda k: range(k + 1), above=False):
    """``(N_l, N_d)`` of a chain — or a slip: another joint screw ``rate``, another ``block`` Φ_kj, other
    ``pairs`` (k, j) filled, the blocks placed ``above`` the diagonal."""
    n, T = model.n, fk(model, q)
    O = T[:, :3, 3]
    N_l, N_d = np.zeros((6 * n, 6 * n)), np.zeros((6 * n, n))
    for k in range(n):
        N_d[6 * k:6 * k + 6, k] = rate(model.joints[k], T[k], O[k])
        for j in pairs(k):
            rows, cols = slice(6 * k, 6 * k + 6), slice(6 * j, 6 * j + 6)
            N_l[(cols, rows) if above else (rows, cols)] = block(O, k, j)
    return N_l, N_d


def _turned(R, I):                         # 𝓘_w,k = diag(R_0,k, R_0,k) 𝓘_k diag(R_0,k, R_0,k)ᵀ
    R6 = np.kron(np.eye(2), R)
    return R6 @ I @ R6.T


def inertia_with(model, q, *, turn=_turned, with_N_l=True):
    """``M = Nᵀ 𝓘_w N`` — or a slip: the link inertias ``turn``-ed otherwise, or ``N_d`` alone for ``N``."""
    N_l, N_d = denoc_N_with(model, q)
    N = N_l @ N_d if with_N_l else N_d
    R = fk(model, q)[:, :3, :3]
    M_blk = np.zeros((6 * model.n, 6 * model.n))
    for k in range(model.n):
        M_blk[6 * k:6 * k + 6, 6 * k:6 * k + 6] = turn(R[k], model.inertia[k])
    return N.T @ M_blk @ N


def denoc_with(model, q, qd, qdd, gravity=None, *, default=None, gravity_sign=1.0, a_dot=True, w_p=True, keep=None,
               turn=_turned, back=lambda A, w: A.T @ w, a_dot_identity=False, backward=reversed):
    """The DeNOC recursion of a chain — or a slip: ``default`` choosing the gravity, gravity times
    ``gravity_sign``, ``Φ̇ V_w`` or ``Ω S_w q̇`` dropped, ``Φ̇`` with Φ's identity blocks kept
    (``a_dot_identity``), ``keep`` (Π) replaced, inertias ``turn``-ed otherwise, wrenches carried ``back``
    otherwise, the ``backward`` pass run in another order."""
    g = (model.gravity if gravity is None else gravity) if default is None else default(model, gravity)
    E = np.diag([1.0, 1, 1, 0, 0, 0]) if keep is None else keep
    T = fk(model, q)
    p, A, w = [], [], []
    O_in, t_in, td_in = np.zeros(3), np.zeros(6), base_acceleration(gravity_sign * np.asarray(g, dtype=float))
    for k in range(model.n):
        R, O = T[k][:3, :3], T[k][:3, 3]
        p.append(_world_rate(model.joints[k], T[k], O))
        A.append(twist_propagation(O - O_in))
        t = A[k] @ t_in + p[k] * qd[k]
        W = np.kron(np.eye(2), so3.hat(t[ANG]))
        td = A[k] @ td_in + p[k] * qdd[k]
        if a_dot:
            td = td + (twist_propagation(t[LIN] - t_in[LIN]) - (0 if a_dot_identity else np.eye(6))) @ t_in
        if w_p:
            td = td + W @ p[k] * qd[k]
        M_k = turn(R, model.inertia[k])
        w.append(M_k @ td + W @ M_k @ E @ t)
        O_in, t_in, td_in = O, t, td
    tau = np.zeros(model.n)
    for k in backward(range(model.n)):
        tau[k] = p[k] @ w[k]
        if k > 0:
            w[k - 1] = w[k - 1] + back(A[k], w[k])
    return tau


TP_SIGN = Variant("your Φ seems to have +[Δp] where −[Δp] belongs: v_k = v_j + ω × Δp = v_j − [Δp] ω",
                  twist_propagation=partial(propagation_with, sign=+1.0))
TP_ABOVE = Variant("your Φ seems to be transposed: the [Δp] block belongs below the diagonal (the shift changes v, "
                   "not ω)", twist_propagation=partial(propagation_with, sign=+1.0, above=True))
LEVER_REVERSED = Variant("your lever seems turned around, u × (p − O): the velocity of O is u × (O − p)",
                         joint_rate_vector=partial(rate_with, lever=lambda O, r: r - O))
NO_LEVER = Variant("your S_w,k seems to be [u; 0] for a revolute joint (Saha's form with O on the axis); here O may "
                   "sit off the axis: [u; u × (O − p)]", joint_rate_vector=partial(rate_with, lever=lambda O, r: 0 * O))
PRISMATIC_TURNS = Variant("your prismatic S_w,k seems to be [u; 0]: a prismatic joint slides along u and does not "
                          "turn, [0; u]", joint_rate_vector=partial(rate_with, prismatic_turns=True))
ND_LOCAL_AXES = Variant("your N_d seems to use the joint's axis and point as stored (body frame {k}) where world axes "
                        "are asked: u = R_0,k axis, p = O_k + R_0,k point",
                        denoc_N=partial(denoc_N_with, rate=lambda joint, T, O: rate_vector(joint.kind, joint.axis,
                                                                                           joint.point, O)))
ND_WORLD_ORIGIN = Variant("your S_w,k seem to be referenced at the world origin (a space-Jacobian column); the "
                          "reference point is O_k, the origin of body frame {k}",
                          denoc_N=partial(denoc_N_with, rate=lambda joint, T, O: _world_rate(joint, T, np.zeros(3))))
NL_SIGN = Variant("your N_l blocks seem to be Φ(O_j − O_k); block (k, j) is Φ_kj = Φ(O_k − O_j)",
                  denoc_N=partial(denoc_N_with, block=lambda O, k, j: twist_propagation(O[j] - O[k])))
NL_BIDIAGONAL = Variant("your N_l seems to hold only Φ_(k,k−1) next to the diagonal (that is the shape of N_l^-1); "
                        "block (k, j) is Φ_kj for every j ≤ k",
                        denoc_N=partial(denoc_N_with, pairs=lambda k: range(max(k - 1, 0), k + 1)))
NL_NO_DIAGONAL = Variant("your N_l seems to lack its diagonal blocks: block (k, k) is Φ_kk = Φ(0) = 1 (link k moves "
                         "with its own joint too)", denoc_N=partial(denoc_N_with, pairs=lambda k: range(k)))
ND_ON_AXIS = Variant("your S_w,k seem to be taken on the joint axis (O = p, no lever u × (O − p)): the reference point "
                     "is O_k, the origin of body frame {k}, which need not lie on the axis",
                     denoc_N=partial(denoc_N_with, rate=lambda joint, T, O: _world_rate(
                         joint, T, T[:3, 3] + T[:3, :3] @ joint.point)))
NL_ABOVE = Variant("your N_l seems to have its blocks above the diagonal: block (k, j), rows of link k, holds Φ_kj "
                   "for j ≤ k", denoc_N=partial(denoc_N_with, above=True))
GI_BODY_AXES = Variant("your link inertias seem to stay in body axes: turn them to world axes, "
                       "𝓘_w,k = diag(R_0,k, R_0,k) 𝓘_k diag(R_0,k, R_0,k)ᵀ", generalized_inertia=partial(inertia_with,
                                                                                       turn=lambda R, I: I))
GI_TURNED_BACK = Variant("your link inertias seem to be turned the wrong way, diag(R_0,k, R_0,k)ᵀ 𝓘_k "
                         "diag(R_0,k, R_0,k)",
                         generalized_inertia=partial(inertia_with, turn=lambda R, I: _turned(R.T, I)))
GI_NO_NL = Variant("your M seems to be N_dᵀ 𝓘_w N_d: N = N_l N_d", generalized_inertia=partial(inertia_with,
                                                                                           with_N_l=False))
TAU_NO_ADOT = Variant("your accelerations seem to lack the term Φ̇_(k,k−1) V_w,k−1",
                      denoc=partial(denoc_with, a_dot=False))
TAU_NO_WP = Variant("your accelerations seem to lack the term Ω_k S_w,k q̇_k (Ṡ_w,k q̇_k)",
                    denoc=partial(denoc_with, w_p=False))
TAU_NO_E = Variant("your wrenches seem to use Ω_k 𝓘_w,k V_w,k where Ω_k 𝓘_w,k Π V_w,k belongs (Π keeps only the "
                   "angular part)", denoc=partial(denoc_with, keep=np.eye(6)))
TAU_ADOT_IDENTITY = Variant("your Φ̇_(k,k−1) seems to keep Φ's identity blocks: Φ̇ is zero except its lower-left block "
                            "−[Δṗ_k], i.e. Φ(Δṗ_k) − 1", denoc=partial(denoc_with, a_dot_identity=True))
TAU_BACKWARD_FORWARD = Variant("your backward pass seems to run from the base outward, so τ_k = S_w,kᵀ F_w,k is taken "
                               "before Φ_(k+1,k)ᵀ F_w,k+1 is added: run it from k = n down to 1",
                               denoc=partial(denoc_with, backward=iter))
TAU_GRAVITY_SIGN = Variant("your denoc seems to use gravity with the wrong sign: V̇_w,0 = [0; −g_phys]",
                           denoc=partial(denoc_with, gravity_sign=-1.0))
TAU_NONE_IS_ZERO = Variant("your denoc seems to treat gravity=None as no gravity; None means model.gravity",
                           denoc=partial(denoc_with, default=lambda model, g: np.zeros(3) if g is None else g))
TAU_A_NOT_TRANSPOSED = Variant("your backward pass seems to hand F_w,k back with Φ_(k,k−1) where its transpose belongs",
                               denoc=partial(denoc_with, back=lambda A, w: A @ w))
TAU_BODY_AXES = Variant("your 𝓘_w,k seem to stay in body axes: turn them to world axes, diag(R_0,k, R_0,k) 𝓘_k "
                        "diag(R_0,k, R_0,k)ᵀ", denoc=partial(denoc_with, turn=lambda R, I: I))
DENOC_MISTAKES = (TAU_NO_ADOT, TAU_ADOT_IDENTITY, TAU_NO_WP, TAU_NO_E, TAU_GRAVITY_SIGN, TAU_NONE_IS_ZERO,
                  TAU_A_NOT_TRANSPOSED, TAU_BACKWARD_FORWARD, TAU_BODY_AXES)
#: At rest (the identities) the velocity terms vanish, and gravity is always given.
DENOC_AT_REST_MISTAKES = (TAU_GRAVITY_SIGN, TAU_A_NOT_TRANSPOSED, TAU_BACKWARD_FORWARD, TAU_BODY_AXES)


def _n_suspect(ctx, denoc_N, model, q):
    """The probe of the student's ``denoc_N`` on this configuration, for a failing ``generalized_inertia``."""
    mats = denoc_matrices(model, q)
    return ctx.suspect(denoc_N, model, q, expected=(mats.N_l, mats.N_d), call="denoc_N(model, q)", see="denoc-nl")


def _blocks_suspects(ctx, twist_propagation_student, joint_rate_vector, model, q):
    """Probes of the student's Φ and S_w on this configuration, for a failing ``denoc``."""
    T = fk(model, q)
    O = np.vstack([np.zeros(3), T[:, :3, 3]])
    probes = []
    for k, joint in enumerate(model.joints):
        R = T[k][:3, :3]
        e, r = R @ joint.axis, O[k + 1] + R @ joint.point
        probes.append(ctx.suspect(joint_rate_vector, joint.kind, e, r, O[k + 1],
                                  expected=rate_vector(joint.kind, e, r, O[k + 1]),
                                  call=f"joint_rate_vector({joint.kind!r}, e, r, O) of joint {k + 1}", see="denoc-joint-rate"))
        probes.append(ctx.suspect(twist_propagation_student, O[k + 1] - O[k], expected=twist_propagation(O[k + 1] - O[k]),
                                  call=f"twist_propagation(O_{k + 1} − O_{k})" if k else "twist_propagation(O_1)",
                                  see="denoc-twist-prop"))
    return probes


# --- (a) the building blocks Φ and S_w -------------------------------------------------------------

@EXERCISE.check("denoc-twist-prop", points=1, functions=("twist_propagation",),
                title="twist-propagation matrix Φ = [[1, 0], [−[Δp], 1]]", variants=(TP_SIGN, TP_ABOVE))
def check_twist_prop(ctx, twist_propagation_student):
    cases = [np.array([1.0, 0.0, 0.0])] + [ctx.rng.uniform(-1, 1, 3) for _ in range(3)]
    for a in cases:
        A = ctx.call(twist_propagation_student, a)
        expected = np.eye(6)
        expected[LIN, ANG] = -so3.hat(a)
        assert np.allclose(expected, twist_propagation(a)), "checker self-test: Φ"
        ctx.expect_close("Φ (6, 6)", A, expected,
                         hint="Φ(Δp) [ω; v] must be [ω; v + ω × Δp]: the same body seen from a point Δp further on")
    a, b = ctx.rng.uniform(-1, 1, 3), ctx.rng.uniform(-1, 1, 3)
    ctx.expect_close("Φ(a) @ Φ(b)", ctx.expect_shape("Φ(a)", ctx.call(twist_propagation_student, a), (6, 6))
                     @ ctx.expect_shape("Φ(b)", ctx.call(twist_propagation_student, b), (6, 6)),
                     twist_propagation(a + b), call="twist_propagation(a) @ twist_propagation(b)",
                     hint="two shifts of the reference point add up: Φ(a) Φ(b) = Φ(a + b)")


@EXERCISE.check("denoc-joint-rate", points=1, functions=("joint_rate_vector",),
                title="joint screw S_w,k of revolute and prismatic joints",
                variants=(LEVER_REVERSED, NO_LEVER, PRISMATIC_TURNS))
def check_joint_rate(ctx, joint_rate_vector):
    cases = [("revolute", np.array([0.0, 0.0, 1.0]), np.zeros(3), np.array([1.0, 0.0, 0.0]))]
    for kind in ("revolute", "revolute", "prismatic", "revolute", "prismatic"):
        e = ctx.rng.normal(size=3)
        cases.append((kind, e / np.linalg.norm(e), ctx.rng.uniform(-1, 1, 3), ctx.rng.uniform(-1, 1, 3)))
    for kind, e, r, O in cases:
        ctx.expect_close("S_w (6,)", ctx.call(joint_rate_vector, kind, e, r, O), rate_vector(kind, e, r, O),
                         hint="a unit joint rate gives the twist [u; velocity of O]: for a revolute joint O moves "
                              "on a circle about the axis through p; a prismatic joint slides along u and does not "
                              "turn")


# --- (b) N_l and N_d of a chain ----------------------------------------------------------------------

def _n_cases(ctx, trials=3):
    models = [samples.seed002_7dof()] + [random_chain(ctx) for _ in range(trials - 1)]
    for model in models:
        q, qd, _ = random_state(ctx, model)
        mats = denoc_matrices(model, q, qd)
        assert np.allclose(mats.t, world_twists(model, q, qd), atol=1e-9), "checker self-test: V_w = N qd"
        assert np.allclose(mats.N_d @ qd, joint_motions(model, q, qd), atol=1e-12), "checker self-test: N_d qd"
        yield model, q, qd, mats


@EXERCISE.check("denoc-nd", points=1, functions=("denoc_N",),
                title="N_d of a chain: block-diagonal in the joint screws S_w,k",
                variants=(ND_LOCAL_AXES, ND_WORLD_ORIGIN, ND_ON_AXIS))
def check_nd(ctx, denoc_N):
    for model, q, _, mats in _n_cases(ctx):
        _, N_d = ctx.expect_tuple(ctx.call(denoc_N, model, q), ("N_l", "N_d"))
        ctx.expect_close(f"N_d ({6 * model.n}, {model.n})", N_d, mats.N_d,
                         hint="column k − 1 holds S_w,k in rows 6(k−1)..6k−1 (block k), in world axes at O_k, the origin of body "
                              "frame {k}; everything else is 0")


@EXERCISE.check("denoc-nl", points=1, functions=("denoc_N",),
                title="N_l of a chain, and V_w = N_l N_d q̇", variants=(NL_SIGN, NL_BIDIAGONAL, NL_NO_DIAGONAL, NL_ABOVE))
def check_nl(ctx, denoc_N):
    for model, q, qd, mats in _n_cases(ctx):
        N_l, N_d = ctx.expect_tuple(ctx.call(denoc_N, model, q), ("N_l", "N_d"))
        N_l = ctx.expect_shape("N_l", N_l, (6 * model.n, 6 * model.n))
        ctx.expect_close(f"N_l ({6 * model.n}, {6 * model.n})", N_l, mats.N_l,
                         hint="block (k, j) is Φ_kj = Φ(O_k − O_j) for j ≤ k (the identity on the diagonal), 0 above")
        ctx.expect_close("V_w = N_l (S_w,k q̇_k stacked) for a random q̇ (world twists)", N_l @ joint_motions(model, q, qd),
                         world_twists(model, q, qd),
                         hint="row block k of N_l sums what every link up to k passes on to O_k")


# --- (c) the generalised inertia -------------------------------------------------------------------

@EXERCISE.check("denoc-nmn", points=1, functions=("generalized_inertia",), helpers=("denoc_N",),
                title="generalised inertia Nᵀ𝓘_w N = CRBA on random chains",
                variants=(GI_BODY_AXES, GI_TURNED_BACK, GI_NO_NL))
def check_nmn(ctx, generalized_inertia, denoc_N):
    for _ in range(3):
        model = random_chain(ctx)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        with ctx.suspects(_n_suspect(ctx, denoc_N, model, q)):
            ctx.expect_close(f"M ({model.n}, {model.n})", ctx.call(generalized_inertia, model, q), crba(model, q),
                             hint="𝓘_w,k = diag(R_0,k, R_0,k) 𝓘_k diag(R_0,k, R_0,k)ᵀ: the body inertia about O_k, "
                                  "turned to world axes; M = Nᵀ diag(𝓘_w,1..𝓘_w,n) N")


@EXERCISE.check("denoc-nmn-swc16", points=1, functions=("generalized_inertia",), helpers=("denoc_N",),
                title="Nᵀ𝓘_w N on [SWC16]'s 7-DoF arm, and the kinetic energy",
                variants=(GI_BODY_AXES, GI_TURNED_BACK, GI_NO_NL))
def check_nmn_swc16(ctx, generalized_inertia, denoc_N):
    arm = samples.seed002_7dof()
    for _ in range(2):
        q, qd, _ = random_state(ctx, arm)
        with ctx.suspects(_n_suspect(ctx, denoc_N, arm, q)):
            I = ctx.call(generalized_inertia, arm, q)
            ctx.expect_close("M (7, 7)", I, crba(arm, q))
        ctx.expect_close("kinetic energy ½ q̇ᵀMq̇ for a random q̇", 0.5 * qd @ np.asarray(I, dtype=float) @ qd,
                         kinetic_energy(arm, q, qd))


# The denoc checks also pass the student's twist_propagation and joint_rate_vector (see _blocks_suspects).
_BLOCKS = ("twist_propagation", "joint_rate_vector")


# --- (d) the recursion -----------------------------------------------------------------------------

@EXERCISE.check("denoc-tau-chain", points=2, functions=("denoc",), helpers=_BLOCKS,
                title="DeNOC joint torques on random chains", variants=DENOC_MISTAKES)
def check_tau_chain(ctx, denoc, *blocks):
    rods = samples.planar_2link()                              # [RNE05]: two horizontal 1 m / 1 kg rods
    cases = [(rods, np.zeros(2), np.zeros(2), np.zeros(2), np.array([0.0, -10.0, 0.0]))]
    for _ in range(3):
        model = random_chain(ctx)
        cases.append((model, *random_state(ctx, model), random_gravity(ctx)))
    for model, q, qd, qdd, g in cases:
        with ctx.suspects(*_blocks_suspects(ctx, *blocks, model, q)):
            ctx.expect_close(f"tau ({model.n},)", ctx.call(denoc, model, q, qd, qdd, gravity=g),
                             rnea(model, q, qd, qdd, gravity=g),
                             hint="forward: V_w,k, then V̇_w,k = Φ_(k,k−1) V̇_w,k−1 + Φ̇_(k,k−1) V_w,k−1 + S_w,k q̈_k "
                                  "+ Ω_k S_w,k q̇_k from V̇_w,0 = [0; −g_phys]; backward: F_w,k = 𝓘_w,k V̇_w,k "
                                  "+ Ω_k 𝓘_w,k Π V_w,k + Φ_(k+1,k)ᵀ F_w,k+1, τ_k = S_w,kᵀF_w,k")
    model = cases[-1][0]
    q, qd, qdd = random_state(ctx, model)
    ctx.expect_close(f"tau ({model.n},)", ctx.call(denoc, model, q, qd, qdd), rnea(model, q, qd, qdd),
                     hint="gravity=None means the model's default, model.gravity")


@EXERCISE.check("denoc-tau-swc16", points=1, functions=("denoc",), helpers=_BLOCKS,
                title="DeNOC along the lesson's re-enactment of [SWC16]'s trajectory (7 joints, 0 to π/3 in 2 s)", variants=DENOC_MISTAKES)
def check_tau_swc16(ctx, denoc, *blocks):
    arm = samples.seed002_7dof()
    t = np.r_[1.0, ctx.rng.uniform(0.0, 2.0, 3)]
    Q, QD, QDD = samples.seed002_trajectory(t)
    for k in range(len(t)):
        call = f"denoc(seed002_7dof, q(t), qd(t), qdd(t)) at t = {t[k]:.4g} s"
        with ctx.suspects(*_blocks_suspects(ctx, *blocks, arm, Q[k])):
            ctx.expect_close("tau (7,)", ctx.call(denoc, arm, Q[k], QD[k], QDD[k]), rnea(arm, Q[k], QD[k], QDD[k]),
                             call=call)


@EXERCISE.check("denoc-tau-identities", points=1, functions=("denoc",), helpers=_BLOCKS,
                title="DeNOC against Jacobian-transpose gravity and the CRBA mass matrix",
                variants=DENOC_AT_REST_MISTAKES)
def check_tau_identities(ctx, denoc, *blocks):
    model = random_chain(ctx, 3, 6)
    q = ctx.rng.uniform(-np.pi, np.pi, model.n)
    g = random_gravity(ctx)
    zero = np.zeros(model.n)
    with ctx.suspects(*_blocks_suspects(ctx, *blocks, model, q)):
        ctx.expect_close(f"tau ({model.n},), the gravity torques", ctx.call(denoc, model, q, zero, zero, gravity=g),
                         gravity_by_jacobians(model, q, g),
                         hint="at rest only gravity remains: every V̇_w,k is [0; −g_phys]")
    columns = [ctx.expect_shape(f"column {j} of M", ctx.call(denoc, model, q, zero, np.eye(model.n)[j],
                                                             gravity=np.zeros(3)),
                                (model.n,)) for j in range(model.n)]
    ctx.expect_close("M = [denoc(q, 0, e_j, gravity=0) for j]", np.column_stack(columns), crba(model, q),
                     call=f"the mass matrix of a random {model.n}-link chain, column by column",
                     hint="with qd = 0 and no gravity, denoc(q, 0, e_j) is column j of M = Nᵀ𝓘_w N")
