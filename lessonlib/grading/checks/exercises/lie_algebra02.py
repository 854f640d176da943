"""Checks of exercise 02: the Lie algebra se(3) — hat, Ad, ad and the bracket, wrenches and power.

[LG, 李代数], [LG, 换位子], [LG, 惯量和力旋量] and [WJ §2.2] (F = [μ; f], P = FᵀV, X = Ad). The
student writes ``se3_hat``, ``Ad``, ``ad``, ``bracket``, ``wrench_of_force`` and ``wrench_in_b``;
``so3.hat`` is theirs to use (lesson 01), everything that computes Ad / ad for them is unavailable
while grading (``lessonlib.se3``, ``spatial``, ``kinematics``, ...; Modern Robotics is refused
anyway). Each check compares with the library and with the defining identities:
``(Ad(T)ξ)^∧ = T ξ^∧ T⁻¹``, ``Ad(T₁T₂) = Ad(T₁)Ad(T₂)``, ``[ξ, η] = −[η, ξ]``, Jacobi, seed
001's basis brackets, and the invariance of the power ``FᵀV``.

Known mistakes (judge side: the reference with one piece replaced): ``ξ^∧`` built from ``[v; ω]`` or with
``[ω]ᵀ``; ``Ad(T)`` with ``[p]R`` in the top-right block (the ``[v; ω]`` layout), ``R[p]`` for ``[p]R``, or
``Ad(T⁻¹)``; ``ad(ξ)`` with ``[v]`` top-right (``ad* = −adᵀ``, the wrenches' matrix) or ``ω`` and ``v`` swapped;
the bracket with the opposite sign or read back linear part first; the moment ``f × p`` or the force
first; ``F_b`` as ``Ad(T_ab) F_a``, ``Ad(T_ab)⁻¹ F_a`` (the twists' rule), ``Ad(T_ab)⁻ᵀ F_a`` (the rule back to
{a}) or with ``+ p × f_a`` in its moment (``[p]ᵀ = −[p]`` forgotten).

=========================  ======  ==========================================================
check                      points  what it tests
=========================  ======  ==========================================================
``twist-hat``              1       ``se3_hat``: the 4x4 matrix of a twist; ``ξ^∧[p; 1]``
``twist-adjoint``          1       ``Ad``: against the library and ``T ξ^∧ T⁻¹``
``twist-adjoint-group``    1       ``Ad``: a homomorphism; Modern Robotics' documented example
``twist-small-ad``         1       ``ad``: the 6x6 ``[[ [ω], 0 ], [ [v], [ω] ]]``
``twist-bracket``          1       ``bracket``: commutator, antisymmetry, Jacobi, [LG, 换位子]'s table
``twist-wrench-point``     1       ``wrench_of_force``: ``[p × f; f]``
``twist-wrench-frame``     1       ``wrench_in_b``: ``F_b = Ad(T_ab)ᵀ F_a``, equal power
``twist-wrench-spanner``   1       both, on lesson 02's spanner (4 W in every frame)
=========================  ======  ==========================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import se3, so3
from lessonlib.conventions import ANG, LIN
from .. import display
from ..checker import Exercise, Variant

EXERCISE = Exercise(
    "lie_algebra02", notebook="02_lie_algebra.ipynb", title="Lesson 02 — the Lie algebra, Ad, ad, twists and wrenches",
    blocked=("lessonlib.se3", "lessonlib.spatial", "lessonlib.model", "lessonlib.kinematics", "lessonlib.dynamics",
             "lessonlib.batch", "lessonlib.check", "lessonlib.constraints", "lessonlib.samples", "lessonlib.viz",
             "lessonlib.complexity"),
    copy_targets=("lessonlib.se3",))

#: Modern Robotics' documented Adjoint example: a quarter-turn about x, p = (0, 0, 3).
MR_T = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 3], [0, 0, 0, 1]], dtype=float)
MR_AD = np.array([[1, 0, 0, 0, 0, 0], [0, 0, -1, 0, 0, 0], [0, 1, 0, 0, 0, 0],
                  [0, 0, 3, 1, 0, 0], [3, 0, 0, 0, 0, -1], [0, 0, 0, 0, 1, 0]], dtype=float)
#: Modern Robotics' documented ad example: ad([1, 2, 3, 4, 5, 6]).
MR_ad = np.array([[0, -3, 2, 0, 0, 0], [3, 0, -1, 0, 0, 0], [-2, 1, 0, 0, 0, 0],
                  [0, -6, 5, 0, -3, 2], [6, 0, -4, 3, 0, -1], [-5, 4, 0, -2, 1, 0]], dtype=float)
#: The se(3) basis: unit rotations e1, e2, e3 and unit translations e4, e5, e6 ([LG] names them w_i, w_j, w_k, v_i, v_j, v_k).
BASIS = ("e1", "e2", "e3", "e4", "e5", "e6")


def random_twist(ctx, scale=1.0):
    return ctx.rng.normal(size=6) * scale


def random_transform(ctx):
    return se3.exp(ctx.rng.normal(size=6))


def _vee4(X):
    """The twist of a 4x4 matrix (no validation: it may come from a wrong answer)."""
    return np.array([X[2, 1], X[0, 2], X[1, 0], X[0, 3], X[1, 3], X[2, 3]])


# --- known mistakes (judge side): the reference with one piece replaced ----------------------------------

def _hat_swapped(xi):                      # [v] top-left, ω in the last column
    xi = np.asarray(xi, dtype=float)
    return se3.hat(np.r_[xi[LIN], xi[ANG]])


def _hat_skew_transposed(xi):              # [ω]ᵀ = −[ω] top-left
    X = se3.hat(xi)
    X[:3, :3] = X[:3, :3].T
    return X


def adjoint_with(T, *, corner="bottom-left", lever=lambda p, R: so3.hat(p) @ R, inverse=False):
    """``Ad(T) = [[R, 0], [[p]R, R]]`` — or a slip: the lever block in another ``corner``, another ``lever``,
    the adjoint of ``T⁻¹``."""
    T = np.asarray(T, dtype=float)
    if inverse:
        T = se3.inv(T)
    R, p = T[:3, :3], T[:3, 3]
    A = np.zeros((6, 6))
    A[ANG, ANG] = A[LIN, LIN] = R
    A[(LIN, ANG) if corner == "bottom-left" else (ANG, LIN)] = lever(p, R)
    return A


def small_ad_with(xi, *, corner="bottom-left", swap=False):
    """``ad(ξ) = [[ [ω], 0 ], [ [v], [ω] ]]`` — or a slip: ``[v]`` top-right (``−ad(ξ)ᵀ``), ω and v swapped."""
    xi = np.asarray(xi, dtype=float)
    w, v = (xi[LIN], xi[ANG]) if swap else (xi[ANG], xi[LIN])
    A = np.zeros((6, 6))
    A[ANG, ANG] = A[LIN, LIN] = so3.hat(w)
    A[(LIN, ANG) if corner == "bottom-left" else (ANG, LIN)] = so3.hat(v)
    return A


def bracket_with(xi, eta, *, sign=1.0, linear_first=False):
    """``[ξ, η] = (ξ^∧η^∧ − η^∧ξ^∧)^∨`` — or a slip: the opposite ``sign``, the 4x4 read back ``linear_first``."""
    Z = sign * (se3.hat(xi) @ se3.hat(eta) - se3.hat(eta) @ se3.hat(xi))
    w, v = so3.vee(Z[:3, :3]), Z[:3, 3]
    return np.r_[v, w] if linear_first else np.r_[w, v]


def wrench_of_force_with(f, p, *, moment=lambda p, f: np.cross(p, f), force_first=False):
    """``F = [p × f; f]`` — or a slip: another ``moment``, the force first."""
    f, p = np.asarray(f, dtype=float), np.asarray(p, dtype=float)
    return np.r_[f, moment(p, f)] if force_first else np.r_[moment(p, f), f]


def wrench_in_b_with(T_ab, F_a, *, rule=lambda A: A.T):
    """``F_b = Ad(T_ab)ᵀ F_a`` — or another ``rule`` applied to ``Ad(T_ab)``."""
    return rule(se3.Ad(np.asarray(T_ab, dtype=float))) @ np.asarray(F_a, dtype=float)


def _wrench_moment_added(T_ab, F_a):       # μ_b = Rᵀ(μ_a + p × f_a): Ad(T_ab)ᵀ with [p]ᵀ = −[p] forgotten
    T_ab, F_a = np.asarray(T_ab, dtype=float), np.asarray(F_a, dtype=float)
    R, p = T_ab[:3, :3], T_ab[:3, 3]
    return np.r_[R.T @ (F_a[ANG] + np.cross(p, F_a[LIN])), R.T @ F_a[LIN]]


HAT_SWAPPED = Variant("your ξ^∧ seems to take ω and v the other way round: angular part first, ω = xi[:3] goes "
                      "into the top-left block [ω] and v = xi[3:] into the last column", se3_hat=_hat_swapped)
HAT_SKEW_TRANSPOSED = Variant("your top-left block seems to be [ω]ᵀ = −[ω]: it is [ω] = so3.hat(ω), with "
                              "[ω] p = ω × p", se3_hat=_hat_skew_transposed)
AD_CORNER = Variant("your Ad(T) seems to have [p]R in the top-right block (the layout of the [v; ω] order); with "
                    "twists [ω; v] it is the bottom-left block: Ad(T) = [[R, 0], [[p]R, R]]",
                    Ad=partial(adjoint_with, corner="top-right"))
AD_R_P = Variant("your bottom-left block seems to be R[p] (R @ so3.hat(p)); it is [p]R = so3.hat(p) @ R",
                 Ad=partial(adjoint_with, lever=lambda p, R: R @ so3.hat(p)))
AD_OF_INVERSE = Variant("your Ad(T) seems to be Ad(T⁻¹) = [[Rᵀ, 0], [−Rᵀ[p], Rᵀ]]; Ad(T) takes R and p as they "
                        "stand in T: [[R, 0], [[p]R, R]]", Ad=partial(adjoint_with, inverse=True))
ADJOINT_MISTAKES = (AD_CORNER, AD_R_P, AD_OF_INVERSE)
SMALL_AD_COADJOINT = Variant("your ad(ξ) seems to have [v] in the top-right block: that is −ad(ξ)ᵀ, the matrix "
                             "that acts on wrenches; on twists [v] is the bottom-left block, ad(ξ) = "
                             "[[ [ω], 0 ], [ [v], [ω] ]]", ad=partial(small_ad_with, corner="top-right"))
SMALL_AD_SWAPPED = Variant("your ad(ξ) seems to take ω and v the other way round: ω = xi[:3] goes into the "
                           "diagonal blocks [ω], v = xi[3:] into the bottom-left block [v]",
                           ad=partial(small_ad_with, swap=True))
BRACKET_SIGN = Variant("your bracket seems to have the opposite sign, η^∧ξ^∧ − ξ^∧η^∧ (= ad(η) ξ); it is "
                       "[ξ, η] = (ξ^∧η^∧ − η^∧ξ^∧)^∨ = ad(ξ) η", bracket=partial(bracket_with, sign=-1.0))
BRACKET_VEE_SWAPPED = Variant("your bracket seems to read the 4x4 commutator back linear part first; (·)^∨ "
                              "gives [ω; v] = [vee of the top-left 3x3; the top-right column]",
                              bracket=partial(bracket_with, linear_first=True))
WRENCH_CROSS_ORDER = Variant("your moment seems to be f × p = −(p × f); the moment of f about the origin is "
                             "μ = p × f, the lever p first",
                             wrench_of_force=partial(wrench_of_force_with, moment=lambda p, f: np.cross(f, p)))
WRENCH_FORCE_FIRST = Variant("your wrench seems to put the force first; moment first, as twists put ω first: "
                             "F = [μ; f] = [p × f; f]", wrench_of_force=partial(wrench_of_force_with, force_first=True))
WRENCH_NOT_TRANSPOSED = Variant("your F_b seems to be Ad(T_ab) F_a; a wrench changes frame with the transpose, "
                                "F_b = Ad(T_ab)ᵀ F_a, so that F_bᵀV_b = F_aᵀV_a",
                                wrench_in_b=partial(wrench_in_b_with, rule=lambda A: A))
WRENCH_TWIST_RULE = Variant("your F_b seems to be Ad(T_ab)⁻¹ F_a = Ad(T_ba) F_a, the rule that takes a twist "
                            "from {a} to {b}; a wrench goes with F_b = Ad(T_ab)ᵀ F_a",
                            wrench_in_b=partial(wrench_in_b_with, rule=np.linalg.inv))
WRENCH_BACKWARDS = Variant("your F_b seems to be Ad(T_ab)⁻ᵀ F_a = Ad(T_ba)ᵀ F_a, which takes a wrench from {b} "
                           "to {a}; from {a} to {b} it is F_b = Ad(T_ab)ᵀ F_a",
                           wrench_in_b=partial(wrench_in_b_with, rule=lambda A: np.linalg.inv(A).T))
WRENCH_MOMENT_ADDED = Variant("your μ_b seems to be Rᵀ(μ_a + p × f_a): the top-right block of Ad(T_ab)ᵀ is "
                              "([p]R)ᵀ = Rᵀ[p]ᵀ = −Rᵀ[p], so μ_b = Rᵀ(μ_a − p × f_a), f_b = Rᵀ f_a",
                              wrench_in_b=_wrench_moment_added)
WRENCH_FRAME_MISTAKES = (WRENCH_NOT_TRANSPOSED, WRENCH_TWIST_RULE, WRENCH_BACKWARDS, WRENCH_MOMENT_ADDED)


def _in_spanner(variant):
    """The same mistake in the spanner check, which receives both functions (the other one right)."""
    return Variant(variant.mistake, **{"wrench_of_force": wrench_of_force_with, "wrench_in_b": wrench_in_b_with,
                                       **variant.functions})


SPANNER_MISTAKES = tuple(map(_in_spanner, (WRENCH_CROSS_ORDER, WRENCH_FORCE_FIRST) + WRENCH_FRAME_MISTAKES))


# --- (a) hat in se(3) -------------------------------------------------------------------------------

@EXERCISE.check("twist-hat", points=1, functions=("se3_hat",), title="se3_hat: the 4x4 matrix of a twist [ω; v]",
                variants=(HAT_SWAPPED, HAT_SKEW_TRANSPOSED))
def check_hat(ctx, se3_hat):
    for xi in [np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])] + [random_twist(ctx) for _ in range(3)]:
        X = ctx.expect_shape("ξ^∧ (4, 4)", ctx.call(se3_hat, xi), (4, 4))
        p = ctx.rng.normal(size=3)
        ctx.expect_close(f"ξ^∧ @ [p; 1] for p = {display.array(p)} (velocity of the point p)", X @ np.r_[p, 1.0],
                         np.r_[np.cross(xi[ANG], p) + xi[LIN], 0.0],
                         hint="ξ^∧ = [[ [ω], v ], [0, 0]]: angular part first, ω = xi[:3], v = xi[3:]")
        ctx.expect_close("ξ^∧", X, se3.hat(xi))


# --- (b) Ad ----------------------------------------------------------------------------------------------

@EXERCISE.check("twist-adjoint", points=1, functions=("Ad",),
                title="Ad(T): the adjoint map that changes a twist's frame", variants=ADJOINT_MISTAKES)
def check_adjoint(ctx, Ad):
    for _ in range(4):
        T = random_transform(ctx)
        A = ctx.expect_shape("Ad(T) (6, 6)", ctx.call(Ad, T), (6, 6))
        xi = random_twist(ctx)
        ctx.expect_close(f"(Ad(T) ξ)^∧ for ξ = {display.array(xi)} (must be T ξ^∧ T⁻¹)", se3.hat(A @ xi),
                         T @ se3.hat(xi) @ se3.inv(T),
                         hint="Ad(T) = [[R, 0], [[p] R, R]] with R = T[:3, :3], p = T[:3, 3]")
        ctx.expect_close("Ad(T)", A, se3.Ad(T))


@EXERCISE.check("twist-adjoint-group", points=1, functions=("Ad",),
                title="Ad(T1 T2) = Ad(T1) Ad(T2), Ad(T⁻¹) = Ad(T)⁻¹, Modern Robotics' example",
                variants=ADJOINT_MISTAKES)
def check_adjoint_group(ctx, Ad):
    call = f"Ad(T) with T = Modern Robotics' example\n{display.indent(display.array(MR_T))}"
    ctx.expect_close("Ad(T)", ctx.call(Ad, MR_T), MR_AD, call=call,
                     hint="Ad(T) = [[R, 0], [[p] R, R]] with R = T[:3, :3], p = T[:3, 3]")
    for _ in range(3):
        T1, T2 = random_transform(ctx), random_transform(ctx)
        A1, A2, A12, A1inv = (ctx.expect_shape("Ad (6, 6)", ctx.call(Ad, T), (6, 6))
                              for T in (T1, T2, T1 @ T2, se3.inv(T1)))
        ctx.expect_close("Ad(T1 @ T2) - Ad(T1) @ Ad(T2)", A12 - A1 @ A2, np.zeros((6, 6)),
                         call="Ad of a product of two random transforms",
                         hint="Ad(T) = [[R, 0], [[p] R, R]] turns products into products: Ad(T1 T2) = Ad(T1) Ad(T2)")
        ctx.expect_close("Ad(inv(T)) @ Ad(T)", A1inv @ A1, np.eye(6),
                         call="Ad of a random transform and of its inverse")


# --- (c) ad and the bracket ---------------------------------------------------------------------------

@EXERCISE.check("twist-small-ad", points=1, functions=("ad",), title="ad(ξ): the bracket as a 6x6 matrix",
                variants=(SMALL_AD_COADJOINT, SMALL_AD_SWAPPED))
def check_small_ad(ctx, ad):
    call = "ad([1, 2, 3, 4, 5, 6]) (Modern Robotics' example)"
    ctx.expect_close("ad(ξ)", ctx.call(ad, np.arange(1.0, 7.0)), MR_ad, call=call,
                     hint="ad(ξ) = [[ [ω], 0 ], [ [v], [ω] ]]")
    for _ in range(3):
        x, y = random_twist(ctx), random_twist(ctx)
        A = ctx.expect_shape("ad(ξ) (6, 6)", ctx.call(ad, x), (6, 6))
        X, Y = se3.hat(x), se3.hat(y)
        ctx.expect_close(f"ad(ξ) @ η for η = {display.array(y)} (must be (ξ^∧η^∧ − η^∧ξ^∧)^∨)", A @ y, _vee4(X @ Y - Y @ X))
        ctx.expect_close("ad(ξ)", A, se3.ad(x))


@EXERCISE.check("twist-bracket", points=1, functions=("bracket",), helpers=("se3_hat", "ad"),
                title="bracket: [ξ, η] = (ξ^∧η^∧ − η^∧ξ^∧)^∨, antisymmetric, Jacobi, the basis table of [LG]",
                variants=(BRACKET_SIGN, BRACKET_VEE_SWAPPED))
def check_bracket(ctx, bracket, se3_hat, ad):
    """A wrong bracket built on a wrong ``se3_hat`` or ``ad`` names the helper to fix (fallout names its source)."""
    x0 = np.array([0.3, -0.5, 0.7, 1.1, -0.4, 0.2])         # a fixed probe: the cases' random draws stay as they were
    with ctx.suspects(ctx.suspect(se3_hat, x0, expected=se3.hat(x0), call="se3_hat(ξ)", see="twist-hat"),
                      ctx.suspect(ad, x0, expected=se3.ad(x0), call="ad(ξ)", see="twist-small-ad")):
        _bracket_cases(ctx, bracket)


def _bracket_cases(ctx, bracket):
    E = np.eye(6)
    for a, b in ((0, 1), (1, 2), (2, 0), (0, 4), (1, 5), (2, 3), (3, 4), (0, 3)):     # [LG, 换位子]'s table
        call = f"bracket({BASIS[a]}, {BASIS[b]}) ([LG]'s basis twists)"
        ctx.expect_close(f"[{BASIS[a]}, {BASIS[b]}]", ctx.call(bracket, E[a], E[b]), se3.ad(E[a]) @ E[b], call=call,
                         hint="rotations bracket like the cross product, [e1, e5] = e6, translations commute")
    for _ in range(2):
        x, y, z = random_twist(ctx), random_twist(ctx), random_twist(ctx)
        xy = ctx.expect_shape("[ξ, η] (6,)", ctx.call(bracket, x, y), (6,))
        ctx.expect_close("[ξ, η]", xy, _vee4(se3.hat(x) @ se3.hat(y) - se3.hat(y) @ se3.hat(x)),
                         hint="[ξ, η] = (ξ^∧η^∧ − η^∧ξ^∧)^∨ = ad(ξ) η")
        yx = ctx.expect_shape("[η, ξ] (6,)", ctx.call(bracket, y, x), (6,))
        ctx.expect_close("[ξ, η] + [η, ξ] (antisymmetry)", xy + yx, np.zeros(6),
                         call=f"bracket(ξ, η) and bracket(η, ξ) with ξ = {display.array(x)}, η = {display.array(y)}")
        jac = np.zeros(6)
        for (a, b, c), (na, nb, nc) in zip(((x, y, z), (y, z, x), (z, x, y)),
                                           (("ξ", "η", "ζ"), ("η", "ζ", "ξ"), ("ζ", "ξ", "η"))):
            inner = ctx.expect_shape(f"[{nb}, {nc}] (6,)", ctx.call(bracket, b, c), (6,))
            jac += ctx.expect_shape(f"[{na}, [{nb}, {nc}]] (6,)", ctx.call(bracket, a, inner), (6,))
        ctx.expect_close("[ξ, [η, ζ]] + [η, [ζ, ξ]] + [ζ, [ξ, η]] (Jacobi)", jac, np.zeros(6),
                         call="the Jacobi identity on three random twists")


# --- (d) wrenches and power ---------------------------------------------------------------------------

def wrench_reference(f, p):
    return np.r_[np.cross(p, f), f]


@EXERCISE.check("twist-wrench-point", points=1, functions=("wrench_of_force",),
                title="wrench_of_force: a force at a point as a wrench [μ; f]",
                variants=(WRENCH_CROSS_ORDER, WRENCH_FORCE_FIRST))
def check_wrench_point(ctx, wrench_of_force):
    for _ in range(4):
        f, p = ctx.rng.normal(size=3) * 10, ctx.rng.normal(size=3)
        F = ctx.expect_shape("F (6,)", ctx.call(wrench_of_force, f, p), (6,))
        V = random_twist(ctx)
        ctx.expect_close(f"F @ V for the twist V = {display.array(V)} (power = f · velocity of the point p)", F @ V,
                         f @ (V[LIN] + np.cross(V[ANG], p)),
                         hint="moment first: F = [p × f; f] (the moment of f about the origin)")
        ctx.expect_close("F", F, wrench_reference(f, p))


@EXERCISE.check("twist-wrench-frame", points=1, functions=("wrench_in_b",),
                title="wrench_in_b: F_b = Ad(T_ab)ᵀ F_a keeps the power FᵀV", variants=WRENCH_FRAME_MISTAKES)
def check_wrench_frame(ctx, wrench_in_b):
    for _ in range(4):
        T_ab, F_a = random_transform(ctx), random_twist(ctx, 5.0)
        F_b = ctx.expect_shape("F_b (6,)", ctx.call(wrench_in_b, T_ab, F_a), (6,))
        for _ in range(3):
            V_b = random_twist(ctx)
            V_a = se3.Ad(T_ab) @ V_b
            ctx.expect_close(f"F_b @ V_b for V_b = {display.array(V_b)} (must equal F_a @ V_a = {F_a @ V_a:.6f})", F_b @ V_b,
                             F_a @ V_a,
                             hint="V_a = Ad(T_ab) V_b, and equal power for every V_b forces F_b = Ad(T_ab).T @ F_a")
        ctx.expect_close("F_b", F_b, se3.Ad(T_ab).T @ F_a)


@EXERCISE.check("twist-wrench-spanner", points=1, functions=("wrench_of_force", "wrench_in_b"),
                title="the spanner of lesson 02: 4 W in every frame, frames compose", variants=SPANNER_MISTAKES)
def check_wrench_spanner(ctx, wrench_of_force, wrench_in_b):
    omega, p_bolt, f, p_hand = np.array([0, 0, 2.0]), np.array([0.05, 0, 0]), np.array([0, 20.0, 0]), np.array([0.15, 0, 0])
    V_a = np.r_[omega, np.cross(p_bolt, omega)]
    F_a = ctx.expect_shape("F_a (6,)", ctx.call(wrench_of_force, f, p_hand), (6,))
    ctx.expect_close("F_a @ V_a (the hand's power, W)", F_a @ V_a, 4.0,
                     call=("wrench_of_force(f=[0, 20, 0], p=[0.15, 0, 0]), the bolt turning at 2 rad/s "
                           "about the vertical line through (0.05, 0, 0) m"), hint="F = [p × f; f]; P = F · V")
    for _ in range(3):
        T_ab = se3.from_Rp(so3.rot_z(ctx.rng.uniform(-3, 3)) @ so3.rot_x(ctx.rng.uniform(-1, 1)),
                           ctx.rng.uniform(-0.2, 0.2, 3))
        T_bc = random_transform(ctx)
        call = "wrench_in_b(T_ab, F_a) for the spanner's wrench and a random frame {b}"
        F_b = ctx.expect_shape("F_b (6,)", ctx.call(wrench_in_b, T_ab, F_a), (6,), call=call)
        V_b = se3.Ad(se3.inv(T_ab)) @ V_a
        ctx.expect_close("F_b @ V_b (W)", F_b @ V_b, 4.0, call=call, hint="the power does not depend on the frame")
        F_c = ctx.expect_shape("F_c (6,)", ctx.call(wrench_in_b, T_bc, F_b), (6,))
        F_ac = ctx.expect_shape("F_c (6,)", ctx.call(wrench_in_b, T_ab @ T_bc, F_a), (6,),
                                call="wrench_in_b(T_ab @ T_bc, F_a)")
        ctx.expect_close("wrench_in_b(T_bc, wrench_in_b(T_ab, F_a)) (must equal wrench_in_b(T_ab @ T_bc, F_a))",
                         F_c, F_ac, call="two frame changes in a row")
