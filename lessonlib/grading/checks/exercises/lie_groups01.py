"""Checks of exercise 01: groups and SO(3) — hat/vee, exp by Rodrigues, log (also near π), the axioms.

[LG, 李群] and [LG, 李代数] (the exponential map, 指数映射). The student writes ``hat``, ``vee``, ``so3_exp``, ``so3_log`` and
``group_axioms`` with NumPy only: while grading, all of ``lessonlib``'s Lie-group code (and the
modules that could compute a rotation for them: model, kinematics, dynamics, ...) and SciPy /
SymPy (``expm``, ``Rotation``, ``Matrix.exp``) are unavailable. Each check compares with the
library and with identities of the result itself (``[ω]x = ω × x``, ``RᵀR = I``, ``Rφ = φ``,
``exp(log R) = R``).

Known mistakes (the reference with one slip, judge side): ``hat`` giving ``−[ω]``; ``vee`` reading the
transposed entries or all three below the diagonal; Rodrigues' coefficients swapped, ``(1 − cos θ)/θ`` for
``(1 − cos θ)/θ²``, the unit-axis form with ``[φ]`` for ``[u]``, ``[φ]²`` entry by entry, ``exp(−[φ])``, 0/0 at
θ = 0; ``log`` giving NaN at the identity, ``−φ``, the axis ``u`` alone, and near π: the skew part alone (φ = 0
or NaN at a half-turn), the axis without its sign, the axis from a column of ``R + I``; ``group_axioms`` comparing
exactly, skipping ``A @ A``, taking ``I`` for the identity, ``A @ B = I`` or ``Aᵀ`` for the inverse.

========================  ======  =============================================================
check                     points  what it tests
========================  ======  =============================================================
``lie-hat``               1       ``hat``: ``[ω]`` with ``[ω]x = ω × x``
``lie-vee``               1       ``vee``: the 3-vector of a skew matrix
``lie-exp``               1       ``so3_exp``: Rodrigues' formula at ordinary angles
``lie-exp-edges``         1       ``so3_exp`` at θ = 0, tiny θ and θ beyond π
``lie-log``               1       ``so3_log`` at ordinary angles and at the identity
``lie-log-pi``            1       ``so3_log`` at an exactly symmetric half-turn, near θ = π (±u)
``lie-axioms-closure``    1       ``group_axioms``: closure and identity on finite sets ({P, -P} and
                                  a lone half-turn always among them)
``lie-axioms-inverse``    1       ``group_axioms``: inverse and associativity on finite sets
========================  ======  =============================================================
"""
from __future__ import annotations

import itertools
from functools import partial

import numpy as np

from lessonlib import so3
from .. import display
from ..checker import Exercise, Variant
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
#: A set whose only product missing from it is an element times itself (H @ H = I).
LONE_HALF_TURN = "{a half-turn} alone"


def random_unit(ctx):
    u = ctx.rng.normal(size=3)
    return u / np.linalg.norm(u)


def _expect_finite(ctx, what, got, shape, *, call="", hint=""):
    """``got`` as an array of ``shape`` (:meth:`Context.expect_shape`); NaN or inf in it fails with ``hint`` and
    with where the NaNs are as the numbers (a 0/0 gives them: a known mistake is recognised by their places)."""
    try:
        arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.shape == tuple(shape) and not np.all(np.isfinite(arr)):
        ctx.fail(f"{what}: expected finite numbers, got NaN or inf (a division 0/0?):\n"
                 f"{display.indent(display.array(arr), 4)}", call=call,
                 hint=hint, got=np.isfinite(arr))
    return ctx.expect_shape(what, got, shape, call=call)


# --- (a) hat and vee ------------------------------------------------------------------------------

HAT_NEGATED = Variant("your [ω] seems to be its transpose −[ω] (every sign flipped): its first row is (0, −ω₃, ω₂), "
                      "so that [ω]x = ω × x", hat=lambda w: -so3.hat(w))
VEE_TRANSPOSED = Variant("your vee seems to read the transposed entries (W[1, 2], W[2, 0], W[0, 1]), which are −ω; "
                         "ω = (W[2, 1], W[0, 2], W[1, 0])",
                         vee=lambda W: np.array([W[1][2], W[2][0], W[0][1]], dtype=float))
VEE_BELOW = Variant("your vee seems to read all three entries below the diagonal: W[2, 0] is −ω₂; ω₂ is W[0, 2], "
                    "above it", vee=lambda W: np.array([W[2][1], W[2][0], W[1][0]], dtype=float))


@EXERCISE.check("lie-hat", points=1, functions=("hat",), title="hat: the skew matrix [ω] with [ω]x = ω × x",
                variants=(HAT_NEGATED,))
def check_hat(ctx, hat):
    for w in [np.array([1.0, 2.0, 3.0])] + [ctx.rng.normal(size=3) * 2 for _ in range(3)]:
        W = ctx.expect_shape("[ω] (3, 3)", ctx.call(hat, w), (3, 3))
        x = ctx.rng.normal(size=3)
        ctx.expect_close(f"[ω] @ x for x = {display.array(x)}", W @ x, np.cross(w, x),
                         hint="[ω] x must equal the cross product ω × x = np.cross(w, x)")
        ctx.expect_close("[ω]", W, so3.hat(w))


@EXERCISE.check("lie-vee", points=1, functions=("vee",), title="vee: the 3-vector of a skew matrix",
                variants=(VEE_TRANSPOSED, VEE_BELOW))
def check_vee(ctx, vee):
    for w in [np.array([1.0, 2.0, 3.0])] + [ctx.rng.normal(size=3) * 2 for _ in range(3)]:
        ctx.expect_close("ω (3,)", ctx.call(vee, so3.hat(w)), w,
                         hint="ω = (W[2, 1], W[0, 2], W[1, 0]), so that vee(hat(ω)) = ω")


# --- (b) exp by Rodrigues' formula ----------------------------------------------------------------

def exp_with(phi, *, a=lambda t: np.sin(t) / t, b=lambda t: (1.0 - np.cos(t)) / t**2, sign=1.0,
             square=lambda K: K @ K, small=True):
    """Rodrigues' R = I + a(θ)[φ] + b(θ)[φ]² with the limits 1 and 1/2 for tiny θ — or with a slip: other
    coefficients ``a``, ``b``, ``sign`` · a(θ)[φ], another ``square`` of [φ], no ``small``-angle case."""
    phi = np.asarray(phi, dtype=float)
    t, K = np.linalg.norm(phi), so3.hat(phi)
    if small and t < 1e-8:
        return np.eye(3) + sign * K + 0.5 * square(K)
    with np.errstate(all="ignore"):
        return np.eye(3) + sign * a(t) * K + b(t) * square(K)


EXP_SWAPPED = Variant("your formula seems to have its two coefficients swapped: sin θ/θ goes with [φ] and "
                      "(1 − cos θ)/θ² with [φ]²", so3_exp=partial(exp_with, a=lambda t: (1.0 - np.cos(t)) / t**2,
                                                                  b=lambda t: np.sin(t) / t))
EXP_THETA_NOT_SQUARED = Variant("your [φ]² term seems to be divided by θ, not θ²: its coefficient is (1 − cos θ)/θ²",
                                so3_exp=partial(exp_with, b=lambda t: (1.0 - np.cos(t)) / t))
EXP_UNIT_AXIS_FORM = Variant("your formula seems to be I + sin θ [u] + (1 − cos θ)[u]² with [φ] in place of the unit "
                             "axis [u] = [φ]/θ: with [φ] the coefficients are sin θ/θ and (1 − cos θ)/θ²",
                             so3_exp=partial(exp_with, a=np.sin, b=lambda t: 1.0 - np.cos(t)))
EXP_ENTRYWISE_SQUARE = Variant("your [φ]² seems to square entry by entry (K**2 or K * K); it is the matrix product "
                               "K @ K", so3_exp=partial(exp_with, square=lambda K: K * K))
EXP_BACKWARDS = Variant("your R seems to be exp(−[φ]) = Rᵀ, a turn the other way: check the sign of the "
                        "(sin θ/θ)[φ] term, and that your hat passes lie-hat ([φ]x = φ × x)",
                        so3_exp=partial(exp_with, sign=-1.0))
EXP_ZERO_DIVIDES = Variant("your so3_exp seems to divide 0 by 0 at θ = 0 (NaN): for tiny θ use the limits "
                           "sin θ/θ → 1 and (1 − cos θ)/θ² → 1/2", so3_exp=partial(exp_with, small=False))
EXP_MISTAKES = (EXP_SWAPPED, EXP_THETA_NOT_SQUARED, EXP_UNIT_AXIS_FORM, EXP_ENTRYWISE_SQUARE, EXP_BACKWARDS)



def _expect_rotation(ctx, R, phi):
    """The identities every exp(φ) satisfies, with specific messages: RᵀR = I, det R = 1, Rφ = φ."""
    ctx.expect_close("R.T @ R (must be the identity)", R.T @ R, np.eye(3),
                     hint="Rodrigues: R = I + (sin θ/θ)[φ] + ((1 - cos θ)/θ²)[φ]² with θ = |φ|")
    ctx.expect_close("det R", np.linalg.det(R), 1.0)
    ctx.expect_close("R @ φ (the axis does not move)", R @ phi, phi,
                     hint="exp([φ]) turns about φ itself, so R φ = φ: check that hat satisfies [φ] x = φ × x and that the formula "
                          "uses φ")


@EXERCISE.check("lie-exp", points=1, functions=("so3_exp",), title="so3_exp: Rodrigues' formula",
                variants=EXP_MISTAKES)
def check_exp(ctx, so3_exp):
    cases = [np.array([1.0, 2.0, 3.0])] + [random_unit(ctx) * ctx.rng.uniform(0.2, 3.0) for _ in range(4)]
    assert np.allclose(so3.exp(cases[0]), MR_EXP, atol=1e-8), "checker self-test: Modern Robotics' example"
    for phi in cases:
        R = _expect_finite(ctx, "R (3, 3)", ctx.call(so3_exp, phi), (3, 3))
        _expect_rotation(ctx, R, phi)
        ctx.expect_close("R", R, so3.exp(phi),
                         hint="R is a rotation about φ, but by the wrong angle or the wrong way round: compare your "
                              "coefficients with sin θ/θ and (1 - cos θ)/θ², and their signs")


@EXERCISE.check("lie-exp-edges", points=1, functions=("so3_exp",), title="so3_exp at θ = 0, tiny θ and θ > π",
                variants=(EXP_ZERO_DIVIDES,) + EXP_MISTAKES)
def check_exp_edges(ctx, so3_exp):
    u = random_unit(ctx)
    cases = [("θ = 0", np.zeros(3)), ("θ = 1e-12", 1e-12 * u), ("θ = 1e-7", 1e-7 * random_unit(ctx)),
             ("θ = π", np.pi * random_unit(ctx)), ("θ = 5 rad", 5.0 * random_unit(ctx)),
             ("θ = 2π", 2 * np.pi * random_unit(ctx))]
    for label, phi in cases:
        call = f"so3_exp({display.array(phi)})  ({label})"
        hint = ("at θ = 0 the formula divides 0 by 0: its limit is R = I (use I + [φ] for tiny θ)"
                if np.linalg.norm(phi) < 1e-6 else
                "Rodrigues' formula holds at every θ, π and beyond too: no special case, no wrapping of θ")
        R = _expect_finite(ctx, "R (3, 3)", ctx.call(so3_exp, phi), (3, 3), call=call, hint=hint)
        ctx.expect_close("R", R, so3.exp(phi), call=call, hint=hint)


# --- (c) log ------------------------------------------------------------------------------------------

def log_with(R, *, symmetric=lambda R, c: (R + R.T) / 2.0 - c * np.eye(3), near_pi=True, signed=True):
    """φ = log R as lesson 01 (1.8) reads it (θ by atan2, the axis from the symmetric part beyond 120°) — or with
    a slip: the axis from another matrix ``symmetric(R, cos θ)``, no ``near_pi`` case, no sign for the axis."""
    R = np.asarray(R, dtype=float)
    c = np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0)
    w = so3.vee(R - R.T) / 2.0
    s = np.linalg.norm(w)
    theta = np.arctan2(s, c)
    if theta < 1e-8:
        return w
    if c > -0.5 or not near_pi:
        with np.errstate(all="ignore"):
            return theta / s * w
    S = symmetric(R, c)
    k = np.argmax(np.diag(S))
    u = S[:, k] / np.linalg.norm(S[:, k])
    return theta * (-u if signed and u @ w < 0 else u)


def log_textbook(R, *, at_zero=True):
    """The textbook's φ = θ/(2 sin θ) vee(R − Rᵀ), θ = arccos((tr R − 1)/2): no symmetric part near π, and with
    ``at_zero=False`` no special case at θ = 0."""
    R = np.asarray(R, dtype=float)
    theta = np.arccos(np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0))
    if at_zero and theta < 1e-12:
        return np.zeros(3)
    with np.errstate(all="ignore"):
        return theta / (2.0 * np.sin(theta)) * so3.vee(R - R.T)


def _axis_alone(R):
    phi = so3.log(R)
    theta = np.linalg.norm(phi)
    return phi / theta if theta > 1e-8 else np.zeros(3)


LOG_ZERO_DIVIDES = Variant("your so3_log seems to divide by sin θ = 0 at the identity (NaN): at θ = 0 return φ = 0",
                           so3_log=partial(log_textbook, at_zero=False))
LOG_NEGATED = Variant("your φ seems to be −θu: sin θ u = ½ vee(R − Rᵀ), not ½ vee(Rᵀ − R) — or your vee returns −ω "
                      "(see lie-vee)", so3_log=lambda R: -so3.log(R))
LOG_AXIS_ALONE = Variant("your φ seems to be the unit axis u alone; so3_log returns the rotation vector φ = θ u",
                         so3_log=_axis_alone)
LOG_PI_SKEW_ONLY = Variant("your so3_log seems to read the axis from the skew part R − Rᵀ alone: at a half-turn it "
                           "is 0 (and near π mostly rounding), so φ comes out 0; take u from the symmetric part "
                           "(R + Rᵀ)/2 − cos θ I = (1 − cos θ) u uᵀ", so3_log=log_textbook)
LOG_PI_NAN = Variant("your so3_log seems to give NaN at a half-turn: there sin θ = 0 and R − Rᵀ = 0, so "
                     "θ/sin θ · ½ vee(R − Rᵀ) is 0/0 (and (tr R − 1)/2 may round below −1: clip it for arccos); take "
                     "u from the symmetric part (R + Rᵀ)/2 − cos θ I = (1 − cos θ) u uᵀ",
                     so3_log=partial(log_with, near_pi=False))
LOG_PI_AXIS_SIGN = Variant("near π your φ seems to come out as −θu: the symmetric part gives u only up to its sign; "
                           "take the sign that makes u · vee(R − Rᵀ) ≥ 0 (vee(R − Rᵀ) = 2 sin θ u)",
                           so3_log=partial(log_with, signed=False))
LOG_PI_R_PLUS_I = Variant("near π your axis seems to come from a column of R + I, which is 2 u uᵀ only at exactly "
                          "θ = π; take it from (R + Rᵀ)/2 − cos θ I = (1 − cos θ) u uᵀ",
                          so3_log=partial(log_with, symmetric=lambda R, c: R + np.eye(3)))


def _expect_phi(ctx, got, *, call, hint):
    """``got`` as the rotation vector φ (3,); a pair (θ, u) fails with a message saying so."""
    if isinstance(got, (tuple, list)) and len(got) == 2 and np.size(got[0]) == 1 and np.size(got[1]) == 3:
        ctx.fail(f"φ: expected the rotation vector φ = θ u, one array of shape (3,); got a pair "
                 f"({display.value(got[0])}, {display.value(got[1])}) — the angle θ and the axis u?", call=call,
                 hint="return theta * u, the rotation vector itself")
    return _expect_finite(ctx, "φ (3,)", got, (3,), call=call, hint=hint)

@EXERCISE.check("lie-log", points=1, functions=("so3_log",), title="so3_log at ordinary angles and at the identity",
                variants=(LOG_ZERO_DIVIDES, LOG_NEGATED, LOG_AXIS_ALONE))
def check_log(ctx, so3_log):
    P = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])       # MR's MatrixLog3 example
    cases = [("the identity (θ = 0)", np.eye(3), np.zeros(3)),
             ("the cyclic permutation (θ = 2π/3)", P, so3.log(P))]
    cases += [(f"exp(φ), θ = {t:.3f}", so3.exp(t * u), t * u)
              for t, u in ((ctx.rng.uniform(0.1, 2.5), random_unit(ctx)) for _ in range(4))]
    assert np.allclose(so3.log(P), 2 * np.pi / (3 * np.sqrt(3)) * np.ones(3)), "checker self-test: MR's example"
    hint = "cos θ = (tr R - 1)/2 and sin θ · u = vee(R - R.T)/2; at θ = 0 return zeros"
    for label, R, phi in cases:
        call = f"so3_log(R) with R = {label}"
        got = _expect_phi(ctx, ctx.call(so3_log, R), call=call, hint=hint)
        ctx.expect_close("φ", got, phi, call=call, hint=hint)


@EXERCISE.check("lie-log-pi", points=1, functions=("so3_log",), title="so3_log near and at a half-turn θ = π",
                variants=(LOG_PI_SKEW_ONLY, LOG_PI_NAN, LOG_PI_AXIS_SIGN, LOG_PI_R_PLUS_I))
def check_log_pi(ctx, so3_log):
    hint = ("near π, sin θ ≈ 0 and the skew part of R says almost nothing about the axis: take u from the "
            "symmetric part (R + R.T)/2 - cos θ I = (1 - cos θ) u uᵀ, and its sign from the skew part")
    cases = []                                             # (what R is, R, φ; None at exactly π, where ±φ are right)
    for delta in (0.0, 1e-3, 1e-6, 1e-10):                # the exact half-turn first: its skew part is exactly 0
        u = random_unit(ctx)
        if delta == 0:
            R = 2.0 * np.outer(u, u) - np.eye(3)
            assert np.allclose(R, so3.exp(np.pi * u), atol=1e-12) and np.array_equal(R, R.T), "checker self-test: π"
            cases.append((f"2 u uᵀ - I (θ = π exactly), u = {display.array(u)}", R, None))
            continue
        theta = np.pi - delta
        for axis in ((u, -u) if delta == 1e-3 else (u,)):  # u and -u: the same symmetric part, only the skew one differs
            cases.append((f"exp(θ u), θ = π - {delta:g}, u = {display.array(axis)}", so3.exp(theta * axis), theta * axis))
    for label, R, phi in cases:
        call = f"so3_log(R) with R = {label}"
        got = _expect_phi(ctx, ctx.call(so3_log, R), call=call, hint=hint)
        if phi is not None:
            ctx.expect_close("φ", got, phi, call=call, hint=hint)
        else:
            ctx.expect_close("|φ| (must be π)", np.linalg.norm(got), np.pi, call=call, hint=hint)
            ctx.expect_close("exp(φ) (must give back R)", so3.exp(got), R, call=call, hint=hint)


# --- (d) the group axioms on finite sets of matrices ------------------------------------------------

def _close(A, B, tol):
    """Are matrices ``A`` and ``B`` (and any leading axes, broadcast) the same element: every entry within ``tol``?"""
    return np.abs(A - B).max(axis=(-2, -1)) <= tol


def axioms_with(S, tol=AXIOM_TOL, *, close=_close, squares=True, identity_is_I=False, inverse_by="search"):
    """The four axioms for a finite set ``S`` (k, n, n) under matrix multiplication — or with a slip: another test
    ``close(A, B, tol)`` of "the same element", closure without the ``squares`` A @ A, ``I`` taken for the
    identity, the inverse by ``"I"`` (A @ B = I) or ``"transpose"`` (Aᵀ in the set)."""
    S = np.asarray(S, dtype=float)
    k, n = len(S), S.shape[-1]
    products = np.einsum("aij,bjk->abik", S, S)
    in_set = lambda A: bool(np.any(close(S, A, tol)))                  # noqa: E731
    closure = all(in_set(products[a, b]) for a in range(k) for b in range(k) if squares or a != b)
    left = np.einsum("aij,bcjk->abcik", S, products)                    # A (B C)
    right = np.einsum("abij,cjk->abcik", products, S)                   # (A B) C
    assoc = bool(np.all(close(left, right, tol)))
    if identity_is_I:
        units = [np.eye(n)] if in_set(np.eye(n)) else []
    else:
        units = [S[e] for e in range(k) if np.all(close(products[e], S, tol)) and np.all(close(products[:, e], S, tol))]
    if not units:
        inverse = False
    elif inverse_by == "transpose":
        inverse = all(in_set(A.T) for A in S)
    else:
        e = np.eye(n) if inverse_by == "I" else units[0]
        inverse = all(np.any(close(products[a], e, tol) & close(products[:, a], e, tol)) for a in range(k))
    return {"closure": closure, "associativity": assoc, "identity": bool(units), "inverse": bool(inverse)}


def axioms_reference(S, tol=AXIOM_TOL):
    """The four axioms for a finite set ``S`` (k, n, n) under matrix multiplication (judge side)."""
    return axioms_with(S, tol)


AXIOMS_EXACT = Variant("your comparisons seem to be exact (== or np.array_equal): products carry rounding errors "
                       "(~1e-13), so two matrices are the same element when np.abs(A - B).max() <= tol",
                       group_axioms=partial(axioms_with, close=lambda A, B, tol: np.all(A == B, axis=(-2, -1))))
CLOSURE_NO_SQUARES = Variant("your closure test seems to skip the products A @ A of an element with itself; closure "
                             "needs every A @ B, also with B = A", group_axioms=partial(axioms_with, squares=False))
IDENTITY_IS_I = Variant("your identity test seems to look for I in the set; the identity is whichever element e gives "
                        "e @ A = A @ e = A for every A — for {P, -P} that is P",
                        group_axioms=partial(axioms_with, identity_is_I=True))
INVERSE_AGAINST_I = Variant("your inverse test seems to look for A @ B = I (or to use np.linalg.inv); it is "
                            "A @ B = B @ A = e with the set's own identity e, which is P for {P, -P}",
                            group_axioms=partial(axioms_with, inverse_by="I"))
INVERSE_TRANSPOSE = Variant("your inverse test seems to take Aᵀ (or a pseudo-inverse) for A⁻¹ and look for it in the "
                            "set; that holds for rotations only, not for 4x4 transforms, projections or 0: search the "
                            "set for B with A @ B = B @ A = e",
                            group_axioms=partial(axioms_with, inverse_by="transpose"))


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
        LONE_HALF_TURN: [rotation_about(u, np.pi)],
        "{I, a projection diag(1, 1, 0)}": [np.eye(3), P],
        "{I, the zero matrix}": [np.eye(3), np.zeros((3, 3))],
        "the cube's rotations without one of them": cube_group()[:5] + cube_group()[6:],
    }
    return groups, others


def _prepare(ctx, elements):
    S = np.array(elements, dtype=float)
    S = S[ctx.rng.permutation(len(S))]
    return S + 1e-13 * ctx.rng.normal(size=S.shape)                    # rounding-sized noise


def _axioms_call(ctx, group_axioms, index, label, elements, keys):
    """Case number ``index`` of a check: ``group_axioms`` on the set ``label``, the axioms ``keys`` compared."""
    S = _prepare(ctx, elements)
    expected = axioms_reference(S)
    call = f"group_axioms(elements) with elements = {label} ({len(S)} matrices, {S.shape[1]}x{S.shape[2]})"
    got = ctx.call(group_axioms, S, tol=AXIOM_TOL)
    if not isinstance(got, dict) or set(got) != set(AXIOMS):
        ctx.fail(f"expected a dict with the keys {list(AXIOMS)}, got "
                 + (f"the keys {sorted(got)}" if isinstance(got, dict) else type(got).__name__), call=call)
    for key in keys:
        value = expect_bool(ctx, got[key], key, call=call)
        if value != expected[key]:                     # the numbers: which set, which axiom, the answer
            ctx.fail(f"{key}: expected {expected[key]}, got {value}", call=call, hint=HINTS[key],
                     got=[index, AXIOMS.index(key), value])


HINTS = {
    "closure": "closure: every product A @ B of two elements (also A @ A) must be in the set, up to tol",
    "identity": "identity: some element e of the set with e @ A = A @ e = A for every A in the set",
    "inverse": ("inverse: for every A some B in the set with A @ B = B @ A = e, the set's own identity element "
                "(which need not be I: a projection P is the identity of {P, -P}); search the set for B — "
                "np.linalg.inv looks for A^-1 with A A^-1 = I, which a projection does not have; no e means False"),
    "associativity": "associativity: A @ (B @ C) = (A @ B) @ C for all triples, up to tol",
}


@EXERCISE.check("lie-axioms-closure", points=1, functions=("group_axioms",),
                title="group_axioms: closure and identity on finite sets of matrices",
                variants=(AXIOMS_EXACT, CLOSURE_NO_SQUARES, IDENTITY_IS_I))
def check_axioms_closure(ctx, group_axioms):
    groups, others = _finite_sets(ctx)
    names_g = [name for name in groups if name != PROJECTION_GROUP]
    names_o = [name for name in others if name != LONE_HALF_TURN]
    picks = ([names_g[i] for i in ctx.rng.choice(len(names_g), 2, replace=False)] + [PROJECTION_GROUP, LONE_HALF_TURN]
             + [names_o[i] for i in ctx.rng.choice(len(names_o), 3, replace=False)])
    for index, label in enumerate([picks[i] for i in ctx.rng.permutation(len(picks))]):
        _axioms_call(ctx, group_axioms, index, label, {**groups, **others}[label], ("closure", "identity"))


@EXERCISE.check("lie-axioms-inverse", points=1, functions=("group_axioms",),
                title="group_axioms: inverse and associativity on finite sets of matrices",
                variants=(AXIOMS_EXACT, INVERSE_AGAINST_I, INVERSE_TRANSPOSE))
def check_axioms_inverse(ctx, group_axioms):
    groups, others = _finite_sets(ctx)
    names_g = [name for name in groups if name != PROJECTION_GROUP]
    picks = [names_g[i] for i in ctx.rng.choice(len(names_g), 2, replace=False)] + [PROJECTION_GROUP]
    picks += ["{I, a projection diag(1, 1, 0)}", "{I, the zero matrix}", f"{list(others)[0]}", f"{list(others)[1]}"]
    for index, label in enumerate([picks[i] for i in ctx.rng.permutation(len(picks))]):
        _axioms_call(ctx, group_axioms, index, label, {**groups, **others}[label], ("associativity", "inverse"))
