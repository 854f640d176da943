"""Checks of exercise 01: groups and SO(3) — hat/vee, exp by Rodrigues, log (also near π), the axioms.

[LG, 李群] and [LG, 李代数] (the exponential map, 指数映射). The student writes ``hat``, ``vee``, ``so3_exp``, ``so3_log`` and
``group_axioms`` with NumPy only: while grading, all of ``lessonlib``'s Lie-group code (and the
modules that could compute a rotation for them: model, kinematics, dynamics, ...) and SciPy /
SymPy (``expm``, ``Rotation``, ``Matrix.exp``) are unavailable. Each check compares with the
library and with identities of the result itself (``[ω]x = ω × x``, ``RᵀR = I``, ``Rφ = φ``,
``exp(log R) = R``).

========================  ======  =============================================================
check                     points  what it tests
========================  ======  =============================================================
``lie-hat``               1       ``hat``: ``[ω]`` with ``[ω]x = ω × x``
``lie-vee``               1       ``vee``: the 3-vector of a skew matrix
``lie-exp``               1       ``so3_exp``: Rodrigues' formula at ordinary angles
``lie-exp-edges``         1       ``so3_exp`` at θ = 0, tiny θ and θ beyond π
``lie-log``               1       ``so3_log`` at ordinary angles and at the identity
``lie-log-pi``            1       ``so3_log`` near and at θ = π (symmetric part of R)
``lie-axioms-closure``    1       ``group_axioms``: closure and identity on finite sets
``lie-axioms-inverse``    1       ``group_axioms``: inverse and associativity on finite sets
========================  ======  =============================================================
"""
from __future__ import annotations

import itertools

import numpy as np

from lessonlib import so3
from .. import display
from ..checker import Exercise
from ._common import expect_bool

EXERCISE = Exercise(
    "lie_groups01", notebook="01_lie_groups.ipynb", title="Lesson 01 — groups, SO(3), exp and log",
    blocked=("lessonlib.so3", "lessonlib.se3", "lessonlib.spatial", "lessonlib.model", "lessonlib.kinematics",
             "lessonlib.dynamics", "lessonlib.batch", "lessonlib.check", "lessonlib.constraints",
             "lessonlib.samples", "lessonlib.viz", "lessonlib.complexity"),
    copy_targets=("lessonlib.so3",),
    denied=("scipy", "sympy"))

#: Modern Robotics' documented MatrixExp3 example: exp([1, 2, 3]).
MR_EXP = np.array([[-0.69492056, 0.71352099, 0.08929286],
                   [-0.19200697, -0.30378504, 0.93319235],
                   [0.69297817, 0.6313497, 0.34810748]])
#: The group axioms, in the order of the returned dict's keys.
AXIOMS = ("closure", "associativity", "identity", "inverse")
#: Tolerance of "the same element" in group_axioms (the notebook states it).
AXIOM_TOL = 1e-9
#: A finite group of singular matrices: its identity is the projection P, so inverses exist only within the set
#: (the notebook's "search the set, not np.linalg.inv" is what passes it).
PROJECTION_GROUP = "{P, -P} for a projection P onto a plane (a group whose identity is P, not I)"


def random_unit(ctx):
    u = ctx.rng.normal(size=3)
    return u / np.linalg.norm(u)


# --- (a) hat and vee ------------------------------------------------------------------------------

@EXERCISE.check("lie-hat", points=1, functions=("hat",), title="hat: the skew matrix [ω] with [ω]x = ω × x")
def check_hat(ctx, hat):
    for w in [np.array([1.0, 2.0, 3.0])] + [ctx.rng.normal(size=3) * 2 for _ in range(3)]:
        W = ctx.expect_shape("[ω] (3, 3)", ctx.call(hat, w), (3, 3))
        x = ctx.rng.normal(size=3)
        ctx.expect_close(f"[ω] @ x for x = {display.array(x)}", W @ x, np.cross(w, x),
                         hint="[ω] x must equal the cross product ω × x = np.cross(w, x)")
        ctx.expect_close("[ω]", W, so3.hat(w))


@EXERCISE.check("lie-vee", points=1, functions=("vee",), title="vee: the 3-vector of a skew matrix")
def check_vee(ctx, vee):
    for w in [np.array([1.0, 2.0, 3.0])] + [ctx.rng.normal(size=3) * 2 for _ in range(3)]:
        ctx.expect_close("ω (3,)", ctx.call(vee, so3.hat(w)), w,
                         hint="ω = (W[2, 1], W[0, 2], W[1, 0]), so that vee(hat(ω)) = ω")


# --- (b) exp by Rodrigues' formula ----------------------------------------------------------------

def _expect_rotation(ctx, R, phi):
    """The identities every exp(φ) satisfies, with specific messages: RᵀR = I, det R = 1, Rφ = φ."""
    ctx.expect_close("R.T @ R (must be the identity)", R.T @ R, np.eye(3),
                     hint="Rodrigues: R = I + (sin θ/θ)[φ] + ((1 - cos θ)/θ²)[φ]² with θ = |φ|")
    ctx.expect_close("det R", np.linalg.det(R), 1.0)
    ctx.expect_close("R @ φ (the axis does not move)", R @ phi, phi,
                     hint="exp([φ]) turns about φ itself, so R φ = φ: check that hat satisfies [φ] x = φ × x and that the formula "
                          "uses φ")


@EXERCISE.check("lie-exp", points=1, functions=("so3_exp",), title="so3_exp: Rodrigues' formula")
def check_exp(ctx, so3_exp):
    cases = [np.array([1.0, 2.0, 3.0])] + [random_unit(ctx) * ctx.rng.uniform(0.2, 3.0) for _ in range(4)]
    assert np.allclose(so3.exp(cases[0]), MR_EXP, atol=1e-8), "checker self-test: Modern Robotics' example"
    for phi in cases:
        R = ctx.expect_shape("R (3, 3)", ctx.call(so3_exp, phi), (3, 3))
        _expect_rotation(ctx, R, phi)
        ctx.expect_close("R", R, so3.exp(phi))


@EXERCISE.check("lie-exp-edges", points=1, functions=("so3_exp",), title="so3_exp at θ = 0, tiny θ and θ > π")
def check_exp_edges(ctx, so3_exp):
    u = random_unit(ctx)
    cases = [("θ = 0", np.zeros(3)), ("θ = 1e-12", 1e-12 * u), ("θ = 1e-7", 1e-7 * random_unit(ctx)),
             ("θ = π", np.pi * random_unit(ctx)), ("θ = 5 rad", 5.0 * random_unit(ctx)),
             ("θ = 2π", 2 * np.pi * random_unit(ctx))]
    for label, phi in cases:
        call = f"so3_exp({display.array(phi)})  ({label})"
        R = ctx.expect_shape("R (3, 3)", ctx.call(so3_exp, phi), (3, 3), call=call)
        ctx.expect_close("R", R, so3.exp(phi), call=call,
                         hint="at θ = 0 the formula divides 0 by 0: the limit is R = I (use I + [φ] for tiny θ)")


# --- (c) log ------------------------------------------------------------------------------------------

@EXERCISE.check("lie-log", points=1, functions=("so3_log",), title="so3_log at ordinary angles and at the identity")
def check_log(ctx, so3_log):
    P = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])       # MR's MatrixLog3 example
    cases = [("the identity (θ = 0)", np.eye(3), np.zeros(3)),
             ("the cyclic permutation (θ = 2π/3)", P, so3.log(P))]
    cases += [(f"exp(φ), θ = {t:.3f}", so3.exp(t * u), t * u)
              for t, u in ((ctx.rng.uniform(0.1, 2.5), random_unit(ctx)) for _ in range(4))]
    assert np.allclose(so3.log(P), 2 * np.pi / (3 * np.sqrt(3)) * np.ones(3)), "checker self-test: MR's example"
    for label, R, phi in cases:
        call = f"so3_log(R) with R = {label}"
        got = ctx.expect_shape("φ (3,)", ctx.call(so3_log, R), (3,), call=call)
        ctx.expect_close("φ", got, phi, call=call,
                         hint="cos θ = (tr R - 1)/2 and sin θ · u = vee(R - R.T)/2; at θ = 0 return zeros")


@EXERCISE.check("lie-log-pi", points=1, functions=("so3_log",), title="so3_log near and at a half-turn θ = π")
def check_log_pi(ctx, so3_log):
    for delta in (1e-3, 1e-6, 1e-10, 0.0):
        u = random_unit(ctx)
        theta = np.pi - delta
        R = so3.exp(theta * u)
        call = f"so3_log(R) with R = exp(θ u), θ = π - {delta:g}, u = {display.array(u)}"
        got = ctx.expect_shape("φ (3,)", ctx.call(so3_log, R), (3,), call=call)
        hint = ("near π, sin θ ≈ 0 and the skew part of R says almost nothing about the axis: take u from the "
                "symmetric part (R + R.T)/2 - cos θ I = (1 - cos θ) u uᵀ, and its sign from the skew part")
        if delta > 0:
            ctx.expect_close("φ", got, theta * u, call=call, hint=hint)
        else:                                              # at exactly π, φ and -φ are both right
            ctx.expect_close("|φ| (must be π)", np.linalg.norm(got), np.pi, call=call, hint=hint)
            ctx.expect_close("exp(φ) (must give back R)", so3.exp(got), R, call=call, hint=hint)


# --- (d) the group axioms on finite sets of matrices ------------------------------------------------

def _member(S, A, tol):
    return bool(np.any(np.abs(S - A).max(axis=(1, 2)) <= tol))


def axioms_reference(S, tol=AXIOM_TOL):
    """The four axioms for a finite set ``S`` (k, n, n) under matrix multiplication (judge side)."""
    S = np.asarray(S, dtype=float)
    k = len(S)
    products = np.einsum("aij,bjk->abik", S, S)
    closure = all(_member(S, products[a, b], tol) for a in range(k) for b in range(k))
    left = np.einsum("aij,bcjk->abcik", S, products)                    # A (B C)
    right = np.einsum("abij,cjk->abcik", products, S)                   # (A B) C
    assoc = bool(np.abs(left - right).max() <= tol)
    identities = [e for e in range(k) if all(np.abs(products[e, a] - S[a]).max() <= tol
                                             and np.abs(products[a, e] - S[a]).max() <= tol for a in range(k))]
    e = S[identities[0]] if identities else None
    inverse = e is not None and all(
        any(np.abs(products[a, b] - e).max() <= tol and np.abs(products[b, a] - e).max() <= tol for b in range(k))
        for a in range(k))
    return {"closure": closure, "associativity": assoc, "identity": bool(identities), "inverse": inverse}


def rotation_about(u, angle):
    return so3.exp(np.asarray(u, dtype=float) * angle)


def cyclic(u, k):
    """C_k: the k rotations about the axis u by multiples of 2π/k."""
    return [rotation_about(u, 2 * np.pi * j / k) for j in range(k)]


def dihedral(k, R0):
    """D_k (2k elements): C_k about z plus k half-turns about in-plane axes, conjugated by R0."""
    els = cyclic([0, 0, 1], k) + [rotation_about([np.cos(np.pi * j / k), np.sin(np.pi * j / k), 0], np.pi)
                                  for j in range(k)]
    return [R0 @ E @ R0.T for E in els]


def cube_group():
    """The 24 rotations of a cube: signed permutation matrices with det = +1."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            M = np.zeros((3, 3))
            M[range(3), perm] = signs
            if np.linalg.det(M) > 0:
                out.append(M)
    return out


def in_se3(Rs, T):
    """Rotations Rs about a line through T's origin, as 4x4 transforms: T R T⁻¹."""
    Ti = np.linalg.inv(T)
    out = []
    for R in Rs:
        E = np.eye(4)
        E[:3, :3] = R
        out.append(T @ E @ Ti)
    return out


def _finite_sets(ctx):
    """Named finite sets of matrices (groups and non-groups), with small rounding noise and shuffled."""
    u, R0 = random_unit(ctx), so3.exp(ctx.rng.normal(size=3))
    k = int(ctx.rng.integers(3, 7))
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = so3.exp(ctx.rng.normal(size=3)), ctx.rng.uniform(-1, 1, 3)
    half_turns = [np.eye(3)] + [rotation_about(a, np.pi) for a in np.eye(3)]
    C = cyclic(u, k)
    P = np.diag([1.0, 1.0, 0.0])
    P_turned = R0 @ P @ R0.T                                            # a projection onto a tilted plane
    groups = {
        f"C{k}: the {k} rotations about one axis by multiples of 360°/{k}": C,
        f"D{k}: {k} rotations about z and {k} half-turns, rotated": dihedral(k, R0),
        "the 24 rotations of a cube": cube_group(),
        "the Klein four-group {I, half-turns about x, y, z}": half_turns,
        "{I, a reflection in the xy plane} (a group that is not in SO(3))": [np.eye(3), np.diag([1.0, 1.0, -1.0])],
        "{I}": [np.eye(3)],
        f"C{k} about a line not through the origin, as 4x4 transforms": in_se3(C, T),
        PROJECTION_GROUP: [P_turned, -P_turned],
    }
    others = {
        f"C{k} without one of its rotations": C[:1] + C[2:],
        f"C{k} without the identity": C[1:],
        f"C{k} plus one more rotation": C + [so3.exp(ctx.rng.normal(size=3))],
        "{I, a quarter-turn}": [np.eye(3), rotation_about(u, np.pi / 2)],
        "{a half-turn} alone": [rotation_about(u, np.pi)],
        "{I, a projection diag(1, 1, 0)}": [np.eye(3), P],
        "{I, the zero matrix}": [np.eye(3), np.zeros((3, 3))],
        "the cube's rotations without one of them": cube_group()[:5] + cube_group()[6:],
    }
    return groups, others


def _prepare(ctx, elements):
    S = np.array(elements, dtype=float)
    S = S[ctx.rng.permutation(len(S))]
    return S + 1e-13 * ctx.rng.normal(size=S.shape)                    # rounding-sized noise


def _axioms_call(ctx, group_axioms, label, elements, keys):
    S = _prepare(ctx, elements)
    expected = axioms_reference(S)
    call = f"group_axioms(elements) with elements = {label} ({len(S)} matrices, {S.shape[1]}x{S.shape[2]})"
    got = ctx.call(group_axioms, S, tol=AXIOM_TOL)
    if not isinstance(got, dict) or set(got) != set(AXIOMS):
        ctx.fail(f"expected a dict with the keys {list(AXIOMS)}, got "
                 + (f"the keys {sorted(got)}" if isinstance(got, dict) else type(got).__name__), call=call)
    for key in keys:
        value = expect_bool(ctx, got[key], key, call=call)
        if value != expected[key]:
            ctx.fail(f"{key}: expected {expected[key]}, got {value}", call=call, hint=HINTS[key])


HINTS = {
    "closure": "closure: every product A @ B of two elements (also A @ A) must be in the set, up to tol",
    "identity": "identity: some element e of the set with e @ A = A @ e = A for every A in the set",
    "inverse": ("inverse: for every A some B in the set with A @ B = B @ A = e, the set's own identity element "
                "(which need not be I: a projection P is the identity of {P, -P}); search the set for B — "
                "np.linalg.inv looks for A^-1 with A A^-1 = I, which a projection does not have; no e means False"),
    "associativity": "associativity: A @ (B @ C) = (A @ B) @ C for all triples, up to tol",
}


@EXERCISE.check("lie-axioms-closure", points=1, functions=("group_axioms",),
                title="group_axioms: closure and identity on finite sets of matrices")
def check_axioms_closure(ctx, group_axioms):
    groups, others = _finite_sets(ctx)
    names_g, names_o = list(groups), list(others)
    picks = ([names_g[i] for i in ctx.rng.choice(len(names_g), 3, replace=False)]
             + [names_o[i] for i in ctx.rng.choice(len(names_o), 4, replace=False)])
    for label in [picks[i] for i in ctx.rng.permutation(len(picks))]:
        _axioms_call(ctx, group_axioms, label, {**groups, **others}[label], ("closure", "identity"))


@EXERCISE.check("lie-axioms-inverse", points=1, functions=("group_axioms",),
                title="group_axioms: inverse and associativity on finite sets of matrices")
def check_axioms_inverse(ctx, group_axioms):
    groups, others = _finite_sets(ctx)
    names_g = [name for name in groups if name != PROJECTION_GROUP]
    picks = [names_g[i] for i in ctx.rng.choice(len(names_g), 2, replace=False)] + [PROJECTION_GROUP]
    picks += ["{I, a projection diag(1, 1, 0)}", "{I, the zero matrix}", f"{list(others)[0]}", f"{list(others)[1]}"]
    for label in [picks[i] for i in ctx.rng.permutation(len(picks))]:
        _axioms_call(ctx, group_axioms, label, {**groups, **others}[label], ("inverse", "associativity"))
