"""Checks of exercise 12: constrained dynamics — the four-bar's constraint Jacobian, its NOC, the crank
torque, and the power redistribution for a parallel arm ([LG, 约束动力学], [LG, 平面四连杆的动力学],
[LG, 并联臂]; the NOC after [Angeles & Lee 1988]).

The student writes six functions. The references here are closed-form planar formulas written for
the checker (judge side), each cross-checked once against :mod:`lessonlib.constraints` (the library's
own route, which is blocked in the graded kernel) and, for the torque, against the independent sympy
Lagrange derivation. The notebook's "use np.linalg.solve, not an inverse" is enforced by
``fourbar-noc``'s ill-conditioned cases: ``G N = 0`` must hold to a relative ``1e-12``, which a solve
keeps and ``inv(G_dep) @ G_ind`` does not.

Known mistakes (judge side: the formulas with one piece replaced): ``q_2`` read as the coupler's
absolute angle, ``q_1`` moving the crank alone, ``p_rocker − p_coupler`` for the gap ``ψ = p_coupler − p_rocker``,
the coupler's own axes (the lesson's local axes at C) where world axes are asked, ``γ = +Ġ q̇``, the coupler's
rate ``q̇_2`` for ``q̇_1 + q̇_2``; in the NOC the wrong sign, rows not put back in joint order, an inverse; in
the crank torque ``G_dep⁻¹ γ`` dropped or with the wrong sign, the velocity terms dropped; in the power balance
``J_y⁻¹`` for ``J_y⁻ᵀ``, ``J_e,k⁻¹`` for ``J_e,k⁻ᵀ``, a column of ``J_e,k⁻¹`` for a row. The crank-torque check also
receives the student's ``four_bar_G``, ``noc_independent`` and ``four_bar_gamma`` to say which one is
wrong on a failing case.

The contact solve (part f, [WJ §2.3]) is checked against the saddle-point (KKT) system solved at once
(judge side), on random ``M, h, J, J̇q̇, ν, τ`` and on the matrices of sample robots (a chain, a tree,
a prismatic joint), where the KKT route is cross-checked once against
:func:`lessonlib.constraints.contact_forward_dynamics` (blocked in the graded kernel). Its known mistakes:
the force's sign flipped, ``J̇ q̇`` left out of ``γ``, ``Jᵀ ν λ`` put on the wrong side when forming ``q̈``,
the force returned as the world vector ``λ ν``, ``q̈`` of the free arm (``M⁻¹(τ − h)``, no contact), and the
normal not normalised.

=========================  ======  ==============================================================
check                      points  what it tests
=========================  ======  ==============================================================
``fourbar-jacobian``       1       ``four_bar_G``: the 2×3 pin-gap Jacobian, world axes
``fourbar-noc``            1       ``noc_independent``: ``N = [I; −G_dep⁻¹ G_ind]`` for any ``G``, by a solve
``fourbar-gamma``          1       ``four_bar_gamma``: ``γ = −Ġ q̇`` (world axes)
``fourbar-crank-torque``   2       ``crank_torque``: the course's four-bar along random crank states
``fivebar-power``          1       ``redistribute``: ``τ_a = J_y⁻ᵀ Σ J_e,k⁻ᵀ τ^(k)`` ([LG, 并联臂]'s recipe)
``contact-solve``          2       ``contact_solve``: ``q̈`` and the normal force ``λ`` of a point on a frictionless plane
=========================  ======  ==============================================================
"""
from __future__ import annotations

from functools import lru_cache, partial

import numpy as np

from lessonlib.constraints import (FOUR_BAR, constraint_bias, constraint_jacobian, four_bar, four_bar_lagrange, four_bar_q,
                            inverse_dynamics, noc, state_from_independent)
from lessonlib.constraints.contact import contact_forward_dynamics, contact_kinematics
from lessonlib.check import random_state
from lessonlib.dynamics import bias_forces, crba
from lessonlib import samples
from .. import display
from ..checker import Exercise, Variant

#: What a graded kernel may not use, module by module: the constraint layer's own φ, G, γ, NOC, dynamics,
#: assembly, motions and oracles (``four_bar``, ``four_bar_q``, ``FOUR_BAR`` and the dynamics of trees stay available).
_BLOCKED = {
    "closure": ("constraint_terms", "space_terms", "loop_residual", "loop_jacobian", "loop_bias", "constraint_residual",
                "constraint_jacobian", "constraint_bias"),
    "noc": ("noc", "noc_from_jacobian", "null_space", "ndot_yd", "_dependent_solve"),
    "closed": ("reduced_dynamics", "inverse_dynamics", "forward_dynamics", "constraint_forces", "closure_wrenches",
               "joint_wrenches"),
    "assembly": ("_newton", "assemble", "project", "state_from_independent"),
    "motion": ("inverse_dynamics_along", "simulate"),
    "mechanisms": ("four_bar_lagrange", "parallel_inverse_dynamics"),
    "contact": ("contact_forward_dynamics", "contact_kinematics"),
}

EXERCISE = Exercise(
    "constrained12", notebook="12_constrained.ipynb", title="Lesson 12 — constrained dynamics",
    blocked=tuple(f"lessonlib.constraints.{module}:{f}" for module, names in _BLOCKED.items() for f in names),
    copy_targets=tuple(f"lessonlib.constraints.{module}" for module in _BLOCKED))


# --- reference quantities (judge side) ---------------------------------------------------------

def _e(a):
    return np.array([np.cos(a), np.sin(a)])


def _e_perp(a):                      # d e(a) / da
    return np.array([-np.sin(a), np.cos(a)])


def pin_gap_jacobian(q, lengths):
    """``G = ∂ψ/∂q``, ``ψ = p_coupler − p_rocker``, ``p_coupler = l2 u(q1) + l3 u(q1 + q2)``,
    ``p_rocker = (l1, 0) + l4 u(q3)`` (``q1`` is ``q[0]``)."""
    _, L2, L3, L4 = lengths
    t3 = q[0] + q[1]
    return np.column_stack([L2 * _e_perp(q[0]) + L3 * _e_perp(t3), L3 * _e_perp(t3), -L4 * _e_perp(q[2])])


def pin_gap_gamma(q, qd, lengths):
    """``γ = −Ġ q̇ = l2 q̇1² u(q1) + l3 (q̇1 + q̇2)² u(q1 + q2) − l4 q̇3² u(q3)``."""
    _, L2, L3, L4 = lengths
    w3 = qd[0] + qd[1]
    return L2 * qd[0] ** 2 * _e(q[0]) + L3 * w3**2 * _e(q[0] + q[1]) - L4 * qd[2] ** 2 * _e(q[2])


def noc_reference(G, independent):
    G = np.asarray(G, dtype=float)
    n = G.shape[1]
    dep = [i for i in range(n) if i not in independent]
    N = np.zeros((n, len(independent)))
    N[list(independent)] = np.eye(len(independent))
    N[dep] = -np.linalg.solve(G[:, dep], G[:, list(independent)])
    return N


def _rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def random_lengths(ctx):
    """A random crank-rocker (Grashof, crank shortest and next to the ground)."""
    while True:
        crank = ctx.rng.uniform(0.05, 0.15)
        ground, coupler, rocker = ctx.rng.uniform(0.25, 0.5, 3)
        L = (ground, crank, coupler, rocker)
        if min(L) == crank and crank + max(L) < sum(L) - crank - max(L) - 1e-3:
            return tuple(float(x) for x in L)


@lru_cache(maxsize=1)
def _lagrange():
    """The sympy four-bar (derived once per judge process, about a second)."""
    return four_bar_lagrange(FOUR_BAR)


@lru_cache(maxsize=1)
def _self_test_against_library():
    """The closed forms above agree with the library's spanning-tree constraint layer (rotated into
    the coupler's axes) at closed, velocity-consistent states."""
    fb = four_bar()
    for theta in (0.3, 2.0, -1.4):
        q, qd, _ = state_from_independent(fb, [theta], [1.7], [0.0], four_bar_q(FOUR_BAR, theta))
        R = _rot(q[0] + q[1])                    # coupler axes (frame A) in the world
        assert np.allclose(R @ constraint_jacobian(fb, q), pin_gap_jacobian(q, FOUR_BAR.lengths), atol=1e-12)
        assert np.allclose(R @ constraint_bias(fb, q, qd), pin_gap_gamma(q, qd, FOUR_BAR.lengths), atol=1e-10)
        assert np.allclose(noc(fb, q), noc_reference(pin_gap_jacobian(q, FOUR_BAR.lengths), [0]), atol=1e-12)
    return True


#: ``fourbar-noc``'s ill-conditioned cases: ``‖G N‖ / (‖G‖ ‖N_true‖)`` of a solve stays ≤ 1e-16 (measured), an
#: inverse's ≥ 4e-9 at condition number 1e12 (300 draws); the bound sits between, far from both.
NOC_RTOL = 1e-12
NOC_ILL_CONDITION = 1e12


def ill_conditioned_constraint(ctx):
    """``(G, independent, N_true)``: a random ``G`` whose ``G_dep`` has condition number 1e12, with a known NOC."""
    n = int(ctx.rng.integers(3, 6))
    m = int(ctx.rng.integers(2, n))
    independent = sorted(ctx.rng.choice(n, size=n - m, replace=False).tolist())
    dependent = [i for i in range(n) if i not in independent]
    U, _ = np.linalg.qr(ctx.rng.normal(size=(m, m)))
    V, _ = np.linalg.qr(ctx.rng.normal(size=(m, m)))
    G_d = U @ np.diag(np.logspace(0.0, -np.log10(NOC_ILL_CONDITION), m)) @ V.T
    X_true = ctx.rng.normal(size=(m, n - m))
    G = np.zeros((m, n))
    G[:, dependent], G[:, independent] = G_d, -G_d @ X_true
    N_true = np.zeros((n, n - m))
    N_true[independent], N_true[dependent] = np.eye(n - m), X_true
    return G, independent, N_true


# --- known mistakes (judge side): the formulas with one piece replaced ------------------------------

def jacobian_with(q, lengths, *, coupler=lambda q: q[0] + q[1], crank_moves_coupler=True, sign=1.0, axes=None):
    """``G = ∂ψ/∂q`` — or a slip: another ``coupler`` angle, ``q_1`` not moving the coupler, ``−ψ``
    (``sign``), or ``axes(q)`` (a rotation) to express G in."""
    _, L2, L3, L4 = lengths
    t3 = coupler(q)
    G = sign * np.column_stack([L2 * _e_perp(q[0]) + (L3 * _e_perp(t3) if crank_moves_coupler else 0.0),
                                L3 * _e_perp(t3), -L4 * _e_perp(q[2])])
    return G if axes is None else axes(q).T @ G


def gamma_with(q, qd, lengths, *, coupler_rate=lambda qd: qd[0] + qd[1], sign=1.0, axes=None):
    """``γ = −Ġ q̇`` — or a slip: another ``coupler_rate``, ``+Ġ q̇`` (``sign``), or another frame ``axes(q)``."""
    _, L2, L3, L4 = lengths
    gamma = sign * (L2 * qd[0] ** 2 * _e(q[0]) + L3 * coupler_rate(qd) ** 2 * _e(q[0] + q[1])
                    - L4 * qd[2] ** 2 * _e(q[2]))
    return gamma if axes is None else axes(q).T @ gamma


def _coupler_axes(q):                      # the coupler's frame: the lesson's axes at the pin C
    return _rot(q[0] + q[1])


def noc_with(G, independent, *, sign=-1.0, reorder=True, solve=np.linalg.solve):
    """``N = [I; −G_dep⁻¹ G_ind]`` in joint order — or a slip: another ``sign``, rows not ``reorder``-ed, another
    ``solve(G_dep, G_ind)``."""
    G = np.asarray(G, dtype=float)
    n, independent = G.shape[1], list(independent)
    dependent = [i for i in range(n) if i not in independent]
    X = sign * solve(G[:, dependent], G[:, independent])
    if not reorder:
        return np.vstack([np.eye(len(independent)), X])
    N = np.zeros((n, len(independent)))
    N[independent], N[dependent] = np.eye(len(independent)), X
    return N


def crank_with(theta2, theta2_d, theta2_dd, *, gamma_sign=1.0, velocity_terms=True):
    """The crank torque by the NOC of the tree — or a slip: ``G_dep⁻¹ γ`` with another ``gamma_sign`` (0: dropped),
    or the tree's velocity terms dropped (gravity only)."""
    tree, lengths = four_bar().tree, FOUR_BAR.lengths
    q = four_bar_q(FOUR_BAR, theta2)
    G = pin_gap_jacobian(q, lengths)
    n = noc_reference(G, [0])[:, 0]
    qd, qdd = n * theta2_d, n * theta2_dd
    qdd[1:] += gamma_sign * np.linalg.solve(G[:, 1:], pin_gap_gamma(q, qd, lengths))
    h = bias_forces(tree, q, qd) if velocity_terms else bias_forces(tree, q, np.zeros(3))
    return float(n @ (crba(tree, q) @ qdd + h))


def redistribute_with(J, tau, actuated, *, row=lambda Jinv, a: Jinv[a], outer=lambda A: A.T,
                      inner=lambda Jk: Jk.T):
    """``τ_a = J_y⁻ᵀ Σ J_e,k⁻ᵀ τ^(k)`` — or a slip: J_y built from another slice of ``J_e,k⁻¹``, ``outer``/``inner``
    without the transposes."""
    A = np.array([row(np.linalg.inv(Jk), a) for Jk, a in zip(J, actuated)])
    return np.linalg.solve(outer(A), sum(np.linalg.solve(inner(Jk), tk) for Jk, tk in zip(J, tau)))


G_Q1_ABSOLUTE = Variant("your G seems to take q2 (q[1]) as the coupler's absolute angle; q2 is relative to the crank, "
                        "the coupler's angle is q1 + q2", four_bar_G=partial(jacobian_with, coupler=lambda q: q[1]))
G_CRANK_ONLY = Variant("your first column seems to move the crank only; turning q1 (the crank, q[0]) carries the "
                       "coupler too (its angle is q1 + q2)", four_bar_G=partial(jacobian_with, crank_moves_coupler=False))
G_SIGN = Variant("your G seems to be ∂(p_rocker − p_coupler)/∂q; the gap ψ is coupler tip minus rocker tip",
                 four_bar_G=partial(jacobian_with, sign=-1.0))
G_LOCAL_AXES = Variant("your G seems to be in the coupler's own axes (the lesson's local axes at C); here G is asked "
                       "in world axes", four_bar_G=partial(jacobian_with, axes=_coupler_axes))
NOC_SIGN = Variant("your dependent rows seem to be +G_dep⁻¹ G_ind; from G_ind ẏ + G_dep q̇_dep = 0 they are "
                   "−G_dep⁻¹ G_ind",
                   noc_independent=partial(noc_with, sign=+1.0))
NOC_NOT_REORDERED = Variant("your N seems to stack [I; −G_dep⁻¹ G_ind] without putting the rows back in joint order",
                            noc_independent=partial(noc_with, reorder=False))
NOC_INVERSE = Variant("your N seems to come from an inverse, inv(G_dep) @ G_ind, which loses digits when G_dep is "
                      "ill-conditioned; np.linalg.solve(G_dep, G_ind) does not",
                      noc_independent=partial(noc_with, solve=lambda A, B: np.linalg.inv(A) @ B))
GAMMA_SIGN = Variant("your γ seems to be +Ġ q̇; γ = −Ġ q̇", four_bar_gamma=partial(gamma_with, sign=-1.0))
GAMMA_COUPLER_RATE = Variant("your γ seems to use q̇2 as the coupler's rate; its absolute rate is q̇1 + q̇2",
                             four_bar_gamma=partial(gamma_with, coupler_rate=lambda qd: qd[1]))
GAMMA_LOCAL_AXES = Variant("your γ seems to be in the coupler's own axes (the lesson's local axes at C); here it "
                           "is asked in world axes", four_bar_gamma=partial(gamma_with, axes=_coupler_axes))
CT_GAMMA_DROPPED = Variant("your q̈ seems to lack the term [0; G_dep⁻¹ γ]: N θ̈2 alone violates G q̈ = γ", crank_torque=partial(crank_with, gamma_sign=0.0))
CT_GAMMA_SIGN = Variant("your q̈ seems to add −G_dep⁻¹ γ; G q̈ = γ needs +G_dep⁻¹ γ in the dependent rows",
                        crank_torque=partial(crank_with, gamma_sign=-1.0))
CT_NO_VELOCITY = Variant("your torque seems to lack the tree's velocity terms: bias_forces(TREE, q, qd) with the "
                         "loop's qd, not 0", crank_torque=partial(crank_with, velocity_terms=False))
RD_A_NOT_TRANSPOSED = Variant("your τ_a seems to solve with J_y where J_yᵀ belongs: τ_a = J_y⁻ᵀ Σ_k J_e,k⁻ᵀ τ^(k)",
                              redistribute=partial(redistribute_with, outer=lambda A: A))
RD_J_NOT_TRANSPOSED = Variant("your chains' torques seem to be mapped with J_e,k⁻¹ where J_e,k⁻ᵀ belongs",
                              redistribute=partial(redistribute_with, inner=lambda Jk: Jk))
RD_COLUMN = Variant("your J_y seems to take column actuated[k] of J_e,k⁻¹; the motor's rate is row actuated[k] of "
                    "J_e,k⁻¹ times ṗ_e", redistribute=partial(redistribute_with, row=lambda Jinv, a: Jinv[:, a]))


def _loop_suspects(ctx, four_bar_G, noc_independent, four_bar_gamma, q, qd):
    """Probes of the student's G, NOC and gamma at this closed state, for a failing ``crank_torque``."""
    G = pin_gap_jacobian(q, FOUR_BAR.lengths)
    return (ctx.suspect(four_bar_G, q, FOUR_BAR.lengths, expected=G, call="four_bar_G(q, FOUR_BAR.lengths)",
                        see="fourbar-jacobian"),
            ctx.suspect(noc_independent, G, [0], expected=noc_reference(G, [0]), call="noc_independent(G, [0])",
                        see="fourbar-noc"),
            ctx.suspect(four_bar_gamma, q, qd, FOUR_BAR.lengths, expected=pin_gap_gamma(q, qd, FOUR_BAR.lengths),
                        call="four_bar_gamma(q, qd, FOUR_BAR.lengths)", see="fourbar-gamma"))


# --- (a) the constraint Jacobian -----------------------------------------------------------------

@EXERCISE.check("fourbar-jacobian", points=1, functions=("four_bar_G",), title="the four-bar's constraint Jacobian G(q)",
                variants=(G_Q1_ABSOLUTE, G_CRANK_ONLY, G_SIGN, G_LOCAL_AXES))
def check_jacobian(ctx, four_bar_G):
    _self_test_against_library()
    for lengths in [FOUR_BAR.lengths] + [random_lengths(ctx) for _ in range(3)]:
        q = ctx.rng.uniform(-np.pi, np.pi, 3)
        got = ctx.call(four_bar_G, q, lengths)
        ctx.expect_close("G (2, 3)", got, pin_gap_jacobian(q, lengths),
                         hint="column j is the derivative of (coupler tip − rocker tip) with respect to q_j, in world "
                              "axes; q2 (q[1]) is the coupler's angle relative to the crank")


# --- (b) the natural orthogonal complement -------------------------------------------------------

@EXERCISE.check("fourbar-noc", points=1, functions=("noc_independent",),
                title="the NOC N = [I; −G_dep⁻¹ G_ind] of any constraint Jacobian, by a solve",
                variants=(NOC_SIGN, NOC_NOT_REORDERED, NOC_INVERSE))
def check_noc(ctx, noc_independent):
    cases = [(pin_gap_jacobian(four_bar_q(FOUR_BAR, 0.5), FOUR_BAR.lengths), [0])]
    while len(cases) < 4:
        n = int(ctx.rng.integers(3, 7))
        m = int(ctx.rng.integers(1, n))
        independent = sorted(ctx.rng.choice(n, size=n - m, replace=False).tolist())
        G = ctx.rng.normal(size=(m, n))
        if np.linalg.cond(np.delete(G, independent, axis=1)) < 50:     # a well-posed G_d
            cases.append((G, independent))
    for G, independent in cases:
        got = ctx.call(noc_independent, G, independent)
        expected = noc_reference(G, independent)
        ctx.expect_close(f"N {expected.shape}", got, expected,
                         hint="rows of the independent coordinates are the identity; the others solve G_dep X = −G_ind")
    for _ in range(3):                                                  # the instruction "solve, not an inverse"
        G, independent, N_true = ill_conditioned_constraint(ctx)
        call = (f"noc_independent(G {G.shape}, independent={independent}) with G_dep of condition number "
                f"{NOC_ILL_CONDITION:.0e}")
        N = ctx.expect_shape(f"N {N_true.shape}", ctx.call(noc_independent, G, independent), N_true.shape, call=call)
        r = float(np.linalg.norm(G @ N) / (np.linalg.norm(G, 2) * np.linalg.norm(N_true, 2)))
        if r > NOC_RTOL:
            ctx.fail(f"relative residual |G N| / (|G| |N|): expected <= {NOC_RTOL:g}, got {r:.2g}", call=call, got=N,
                     hint="np.linalg.solve(G_dep, G_ind) keeps G N = 0 to rounding error; inv(G_dep) @ G_ind loses about "
                          "cond(G_dep) * 1e-16 of it")


# --- (c) the acceleration constraint --------------------------------------------------------------

@EXERCISE.check("fourbar-gamma", points=1, functions=("four_bar_gamma",), title="the acceleration constraint γ = −Ġ q̇",
                variants=(GAMMA_SIGN, GAMMA_COUPLER_RATE, GAMMA_LOCAL_AXES))
def check_gamma(ctx, four_bar_gamma):
    for lengths in [FOUR_BAR.lengths] + [random_lengths(ctx) for _ in range(3)]:
        q, qd = ctx.rng.uniform(-np.pi, np.pi, 3), ctx.rng.normal(size=3) * 3
        got = ctx.call(four_bar_gamma, q, qd, lengths)
        ctx.expect_close("gamma (2,)", got, pin_gap_gamma(q, qd, lengths),
                         hint="differentiate G q̇ once more with q̈ = 0: each link contributes its centripetal term "
                              "(world axes)")


# --- (d) the crank torque ----------------------------------------------------------------------------

@EXERCISE.check("fourbar-crank-torque", points=2, functions=("crank_torque",),
                helpers=("four_bar_G", "noc_independent", "four_bar_gamma"),
                title="the crank torque of the course's four-bar",
                variants=(CT_GAMMA_DROPPED, CT_GAMMA_SIGN, CT_NO_VELOCITY))
def check_crank_torque(ctx, crank_torque, *loop):
    fb, lagrange = four_bar(), _lagrange()
    thetas = [0.0, np.pi / 2] + ctx.rng.uniform(-np.pi, np.pi, 3).tolist()
    for theta in thetas:
        theta_d, theta_dd = float(ctx.rng.uniform(-8, 8)), float(ctx.rng.uniform(-30, 30))
        q, qd, qdd = state_from_independent(fb, [theta], [theta_d], [theta_dd], four_bar_q(FOUR_BAR, theta))
        expected = float(inverse_dynamics(fb, q, qd, qdd).tau[0])
        assert abs(expected - lagrange.crank_torque(theta, theta_d, theta_dd)[0]) < 1e-9, "self-test: Lagrange"
        assert abs(expected - crank_with(theta, theta_d, theta_dd)) < 1e-9, "self-test: the NOC of the tree"
        with ctx.suspects(*_loop_suspects(ctx, *loop, q, qd)):
            got = ctx.call(crank_torque, theta, theta_d, theta_dd)
            ctx.expect_close("tau (N·m)", np.reshape(got, -1) if np.size(got) == 1 else got, [expected],
                             hint="q̇ = N θ̇2, q̈ = N θ̈2 + [0; G_dep⁻¹ γ], then τ = Nᵀ (M q̈ + c + g) of the tree")


# --- (e) [LG, 并联臂]'s parallel-arm recipe ---------------------------------------------------------------

@EXERCISE.check("fivebar-power", points=1, functions=("redistribute",),
                title="motor torques of a parallel arm by the power balance",
                variants=(RD_A_NOT_TRANSPOSED, RD_J_NOT_TRANSPOSED, RD_COLUMN))
def check_power(ctx, redistribute):
    for _ in range(4):
        k = int(ctx.rng.integers(2, 4))                    # chains, each with k joints and a k-dim tip
        J = [ctx.rng.normal(size=(k, k)) + 2 * np.eye(k) for _ in range(k)]
        tau = [ctx.rng.normal(size=k) for _ in range(k)]
        actuated = ctx.rng.integers(0, k, size=k).tolist()
        A = np.array([np.linalg.inv(Jk)[a] for Jk, a in zip(J, actuated)])
        expected = np.linalg.solve(A.T, sum(np.linalg.solve(Jk.T, tk) for Jk, tk in zip(J, tau)))
        # independent identity: equal power for a random tip velocity
        xd = ctx.rng.normal(size=k)
        assert np.isclose(expected @ (A @ xd), sum(tk @ np.linalg.solve(Jk, xd) for Jk, tk in zip(J, tau))), "self-test"
        got = ctx.call(redistribute, np.array(J), np.array(tau), actuated)
        ctx.expect_close(f"tau_a ({k},)", got, expected,
                         hint="row k of J_y is row actuated[k] of J_e,k⁻¹; τ_a = J_y⁻ᵀ Σ_k J_e,k⁻ᵀ τ^(k)")


# --- (f) contact with an unknown force ([WJ §2.3]) ----------------------------------------------------

def contact_kkt(M, h, J, Jdot_qd, normal, tau):
    """``(q̈, λ)`` from the saddle-point system ``[[M, −Gᵀ], [G, 0]] [q̈; λ] = [τ − h; γ]``, ``G = νᵀJ``,
    ``γ = −νᵀ J̇q̇``, ``ν = normal / |normal|``, solved at once (not by the Schur complement)."""
    nu = np.asarray(normal, dtype=float) / np.linalg.norm(normal)
    G = nu @ J
    K = np.block([[M, -G[:, None]], [G[None, :], np.zeros((1, 1))]])
    x = np.linalg.solve(K, np.append(tau - h, -nu @ Jdot_qd))
    return x[:-1], float(x[-1])


def contact_with(M, h, J, Jdot_qd, normal, tau, *, force_sign=1.0, gamma=True, side=1.0, vector=False, free=False,
                 normalise=True):
    """The Schur-complement solve (12.11) — or a slip: the returned force negated (``force_sign``), ``γ`` dropped,
    ``M⁻¹Gᵀλ`` subtracted (``side``), the force as the world vector ``λν``, the free ``q̈``, ``ν`` not normalised."""
    nu = np.asarray(normal, dtype=float) / (np.linalg.norm(normal) if normalise else 1.0)
    G = nu @ J
    qdd_free = np.linalg.solve(M, tau - h)
    Minv_G = np.linalg.solve(M, G)
    lam = ((-nu @ Jdot_qd if gamma else 0.0) - G @ qdd_free) / (G @ Minv_G)
    qdd = qdd_free if free else qdd_free + side * Minv_G * lam
    return qdd, (force_sign * lam * nu if vector else force_sign * lam)


CONTACT_ROBOTS = (("planar_2link", "tip", (0.0, 0.0, 0.0)), ("branched_tree", 2, (0.3, 0.0, 0.0)),
                  ("scara", 3, (0.0, 0.0, 0.1)))


def robot_contact_case(ctx, name, body, point):
    """``(M, h, J, J̇q̇, normal, τ)`` of a sample robot at a random state whose point slides in the plane."""
    model = samples.ALL[name]()
    while True:
        q, qd, _ = random_state(model, ctx.rng)
        ck = contact_kinematics(model, q, qd, body=body, point=point)
        u = ck.pd / np.linalg.norm(ck.pd)
        normal = ctx.rng.normal(size=3)
        normal -= (normal @ u) * u                       # ν ⟂ ṗ: the point moves along the plane
        if np.linalg.norm(normal @ ck.J) > 0.1 * np.linalg.norm(normal):      # the point can move along ν
            break
    tau = ctx.rng.normal(scale=5.0, size=model.n)
    case = (crba(model, q), bias_forces(model, q, qd), ck.J, ck.Jdot_qd, normal, tau)
    qdd, lam = contact_forward_dynamics(model, q, qd, tau, body=body, point=point, normal=normal)
    kkt = contact_kkt(*case)
    assert np.allclose(kkt[0], qdd, atol=1e-9) and abs(kkt[1] - lam) < 1e-9, "self-test: KKT = library"
    return case


def random_contact_case(ctx):
    """Random ``(M, h, J, J̇q̇, normal, τ)``: M symmetric positive definite, a normal of any length."""
    n = int(ctx.rng.integers(2, 7))
    A = ctx.rng.normal(size=(n, n))
    M = A @ A.T + n * np.eye(n)
    while True:
        J, normal = ctx.rng.normal(size=(3, n)), ctx.rng.normal(size=3) * ctx.rng.uniform(0.3, 3.0)
        if np.linalg.norm(normal @ J) > 0.3 * np.linalg.norm(normal):
            break
    return M, ctx.rng.normal(scale=3.0, size=n), J, ctx.rng.normal(scale=2.0, size=3), normal, \
        ctx.rng.normal(scale=5.0, size=n)


C_FORCE_SIGN = Variant("your force seems to have the wrong sign: λ is positive when the surface pushes, along ν "
                       "(M q̈ + h = τ + Jᵀν λ)", contact_solve=partial(contact_with, force_sign=-1.0))
C_NO_JDOT = Variant("your solve seems to leave out J̇q̇: the point's acceleration is J q̈ + J̇q̇, so νᵀJ q̈ = −νᵀJ̇q̇, "
                    "not 0", contact_solve=partial(contact_with, gamma=False))
C_WRONG_SIDE = Variant("your q̈ seems to subtract M⁻¹Jᵀν λ: the wall's generalised force Jᵀν λ sits on the right, "
                       "beside τ, so q̈ = M⁻¹(τ − h) + M⁻¹Jᵀν λ", contact_solve=partial(contact_with, side=-1.0))
C_WORLD_VECTOR = Variant("your force seems to be the world vector λ ν; return the scalar λ (N)",
                         contact_solve=partial(contact_with, vector=True))
C_FREE = Variant("your q̈ seems to be the free arm's M⁻¹(τ − h), as if there were no wall; add M⁻¹Jᵀν λ",
                 contact_solve=partial(contact_with, free=True))
C_NOT_NORMALISED = Variant("your force seems to use the normal as given; normalise it first (ν = normal / |normal|)",
                           contact_solve=partial(contact_with, normalise=False))


@EXERCISE.check("contact-solve", points=2, functions=("contact_solve",),
                title="contact with an unknown force: q̈ and the normal force",
                variants=(C_FORCE_SIGN, C_NO_JDOT, C_WRONG_SIDE, C_WORLD_VECTOR, C_FREE, C_NOT_NORMALISED))
def check_solve(ctx, contact_solve):
    cases = [robot_contact_case(ctx, *robot) for robot in CONTACT_ROBOTS]
    cases += [random_contact_case(ctx) for _ in range(3)]
    for case in cases:
        qdd, lam = contact_kkt(*case)
        call = f"contact_solve(M, h, J, Jdot_qd, normal, tau) with n = {len(qdd)}"
        got_qdd, got_lam = ctx.expect_tuple(ctx.call(contact_solve, *case), ("qdd", "force"), call=call)
        ctx.expect_close(f"qdd ({len(qdd)},)", got_qdd, qdd, call=call,
                         hint="q̈ = M⁻¹(τ − h) + M⁻¹Gᵀλ with G = νᵀJ; the point may not accelerate along ν")
        if np.size(got_lam) != 1:                          # a vector (λ ν?): say so with its numbers
            force = ctx.expect_shape("force (N)", got_lam, np.shape(got_lam), call=call)
            ctx.fail(f"force (N): expected one number, the scalar λ; got shape {force.shape}:\n{force}", call=call,
                     got=force, hint="λ is the size of the wall's push along ν (N), not the force vector")
        ctx.expect_close("force (N)", np.reshape(got_lam, -1), [lam], call=call,
                         hint="λ = (γ − G M⁻¹(τ − h)) / (G M⁻¹ Gᵀ), γ = −νᵀJ̇q̇, ν = normal / |normal|; a scalar")
