"""Checks of exercise 02: the Lie algebra se(3) — hat, Ad, ad and the bracket, wrenches and power.

[LG, 李代数], [LG, 换位子], [LG, 惯量和力旋量] and [WJ §2.2] (F = [μ; f], P = FᵀV, X = Ad). The
student writes ``se3_hat``, ``Ad``, ``ad``, ``bracket``, ``wrench_of_force`` and ``wrench_in_b``;
``so3.hat`` is theirs to use (lesson 01), everything that computes Ad / ad for them is unavailable
while grading (``lessonlib.se3``, ``spatial``, ``kinematics``, ...; Modern Robotics is refused
anyway). Each check compares with the library and with the defining identities:
``(Ad(T)ξ)^∧ = T ξ^∧ T⁻¹``, ``Ad(T₁T₂) = Ad(T₁)Ad(T₂)``, ``[ξ, η] = −[η, ξ]``, Jacobi, seed
001's basis brackets, and the invariance of the power ``FᵀV``.

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

import numpy as np

from lessonlib import se3, so3
from lessonlib.conventions import ANG, LIN
from .. import display
from ..checker import Exercise

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


# --- (a) hat in se(3) -------------------------------------------------------------------------------

@EXERCISE.check("twist-hat", points=1, functions=("se3_hat",), title="se3_hat: the 4x4 matrix of a twist [ω; v]")
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
                title="Ad(T): the adjoint map that changes a twist's frame")
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
                title="Ad(T1 T2) = Ad(T1) Ad(T2), Ad(T⁻¹) = Ad(T)⁻¹, Modern Robotics' example")
def check_adjoint_group(ctx, Ad):
    call = f"Ad(T) with T = Modern Robotics' example\n{display.indent(display.array(MR_T))}"
    ctx.expect_close("Ad(T)", ctx.call(Ad, MR_T), MR_AD, call=call)
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

@EXERCISE.check("twist-small-ad", points=1, functions=("ad",), title="ad(ξ): the bracket as a 6x6 matrix")
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
                title="bracket: [ξ, η] = (ξ^∧η^∧ − η^∧ξ^∧)^∨, antisymmetric, Jacobi, the basis table of [LG]")
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
                title="wrench_of_force: a force at a point as a wrench [μ; f]")
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
                title="wrench_in_b: F_b = Ad(T_ab)ᵀ F_a keeps the power FᵀV")
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
                title="the spanner of lesson 02: 4 W in every frame, frames compose")
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
