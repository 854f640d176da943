"""Closed kinematic loops, the dynamics: inverse and forward dynamics with the loop-closure forces ([LG, 约束动力学]).

Constraint forces. ``Gᵀ λ`` is the joint torque produced by the wrench ``w_A = Pᵀ λ`` (``P`` picks
the forbidden rows) that body ``b`` applies **on** body ``a`` at the point A, in A's axes ``[n; f]``
(and ``−w_A`` on body ``b``). With the actuator torques ``τ_a`` on the joints ``actuated`` (``B`` the
n×k selection matrix) the equations of motion of the closed chain are::

    M(q) q̈ + c(q, q̇) + g(q) = B τ_a + Gᵀ λ,        G q̈ = γ                              (12.4)

and premultiplied by a natural orthogonal complement ``N`` (:mod:`.noc`, ``q̇ = N ẏ``)::

    Nᵀ M N ÿ + Nᵀ (M Ṅ ẏ + c + g) = Nᵀ B τ_a                                              (12.5)

When the independent coordinates are the actuated joints, ``Nᵀ B = I`` and (12.5) is the power
argument of [LG, 并联臂]'s parallel-arm recipe: ``τ_a · ẏ = (M q̈ + c + g) · q̇``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _validate as validate
from .. import se3
from .._operators import Ad_inv, matvec, rot6
from ..conventions import BASE, CONSISTENCY_TOL, RANK_TOL
from ..dynamics import bias_forces, crba, rnea_trace
from .closure import constraint_frames, constraint_jacobian, constraint_terms, space_terms
from .loops import check_closed
from .noc import ndot_yd, noc, noc_from_jacobian, null_space

FD_METHODS = ("multipliers", "noc")
ID_METHODS = ("noc", "multipliers")


def _too_big(err, scale):
    return float(np.max(np.abs(err), initial=0.0)) > CONSISTENCY_TOL * (1.0 + scale)


def _check_state(cm, q, qd, qdd=None):
    """Validate shapes and that ``(q, q̇[, q̈])`` satisfies the closures (else ``ValueError``)."""
    q = cm.check_q(q)
    qd = cm.check_q(qd, "qd")
    phi, G, gamma = constraint_terms(cm, q, qd)
    if _too_big(phi, 0.0):
        raise ValueError(f"q: the loops are not closed (max |φ| = {np.max(np.abs(phi)):.2e}); use assemble()")
    if _too_big(G @ qd, np.abs(G).max() * np.abs(qd).max()):
        raise ValueError(f"qd: violates the closure G q̇ = 0 (max |G q̇| = {np.max(np.abs(G @ qd)):.2e}); "
                         f"use q̇ = N ẏ")
    if qdd is None:
        return q, qd
    qdd = cm.check_q(qdd, "qdd")
    err = G @ qdd - gamma
    if _too_big(err, np.abs(G).max() * np.abs(qdd).max() + np.abs(gamma).max()):
        raise ValueError(f"qdd: violates the closure G q̈ = γ (max error {np.max(np.abs(err)):.2e}); "
                         f"use q̈ = N ÿ + Ṅ ẏ")
    return q, qd, qdd


class ReducedDynamics(NamedTuple):
    """The reduced equation (12.5) ``M ÿ + h = B τ_a`` in the independent coordinates ``y``.

    ``M`` (dof, dof) = ``Nᵀ M_tree N``; ``h`` (dof,) = ``Nᵀ(M_tree Ṅ ẏ + c + g)``; ``B`` (dof, k) =
    ``Nᵀ B_tree``; ``N`` (n, dof) the NOC; ``Ndot_yd`` (n,) = ``Ṅ ẏ``.
    """

    M: np.ndarray
    h: np.ndarray
    B: np.ndarray
    N: np.ndarray
    Ndot_yd: np.ndarray


def reduced_dynamics(cm, q, qd, *, gravity=None):
    """The NOC-reduced equations of motion at ``(q, q̇)`` (12.5), with the independent-coordinates NOC.

    Computed by: :func:`~lessonlib.dynamics.crba` (``M``), ``rnea(q, q̇, 0)`` (``c + g``),
    :func:`noc` and ``Ṅẏ = [0; G_d⁻¹ γ]``. ``q̇`` must satisfy ``G q̇ = 0``.
    """
    check_closed(cm)
    q, qd = _check_state(cm, q, qd)
    M = crba(cm.tree, q)
    h = bias_forces(cm.tree, q, qd, gravity=gravity)
    N = noc(cm, q)
    Nd = ndot_yd(cm, q, qd)
    return ReducedDynamics(N.T @ M @ N, N.T @ (M @ Nd + h), N.T @ cm.B, N, Nd)


class ClosedInverseDynamics(NamedTuple):
    """Result of :func:`inverse_dynamics`: actuator torques ``tau`` (k,) and multipliers ``lam`` (m,)."""

    tau: np.ndarray
    lam: np.ndarray


def inverse_dynamics(cm, q, qd, qdd, *, gravity=None, method="noc"):
    """Actuator torques and loop-closure forces along an admissible motion: solves (12.4) for ``τ_a, λ``.

    ``method``:

    * ``"noc"`` — ``τ_a = (NᵀB)⁻¹ Nᵀ τ_tree`` with ``τ_tree = rnea_tree(q, q̇, q̈)`` (12.5), then
      ``λ`` from ``Gᵀ λ = τ_tree − B τ_a`` (least squares);
    * ``"multipliers"`` — ``[B  Gᵀ] [τ_a; λ] = τ_tree`` solved at once (least squares).

    ``(q, q̇, q̈)`` must satisfy ``φ = 0``, ``G q̇ = 0``, ``G q̈ = γ`` (e.g. from
    :func:`state_from_independent`), else ``ValueError``. ``λ`` is the wrench body ``b`` applies on
    body ``a`` at A, in A's axes, in the rows of :attr:`ClosedChainModel.row_labels`
    (:func:`closure_wrenches` turns it into world vectors). Computed by: the tree's CRBA and bias
    (``M q̈ + c + g``), :func:`constraint_jacobian`, :func:`noc`.
    """
    check_closed(cm)
    validate.one_of(method, ID_METHODS, "method")
    q, qd, qdd = _check_state(cm, q, qd, qdd)
    tau_tree = crba(cm.tree, q) @ qdd + bias_forces(cm.tree, q, qd, gravity=gravity)
    G = constraint_jacobian(cm, q)
    if method == "noc":
        N = noc_from_jacobian(cm, G, "independent")
        NB = N.T @ cm.B
        tau = np.linalg.lstsq(NB, N.T @ tau_tree, rcond=None)[0]
        lam = np.linalg.lstsq(G.T, tau_tree - cm.B @ tau, rcond=None)[0]
    else:
        x = np.linalg.lstsq(np.hstack([cm.B, G.T]), tau_tree, rcond=None)[0]
        tau, lam = x[:len(cm.actuated)], x[len(cm.actuated):]
    return ClosedInverseDynamics(tau, lam)


def check_baumgarte(baumgarte):
    try:
        alpha, beta = (float(x) for x in baumgarte)
    except (TypeError, ValueError):
        raise ValueError(f"baumgarte: expected (alpha, beta) in 1/s or None, got {baumgarte!r}") from None
    if not (alpha >= 0 and beta >= 0 and np.isfinite(alpha) and np.isfinite(beta)):
        raise ValueError(f"baumgarte: expected finite (alpha, beta) >= 0, got {baumgarte!r}")
    return alpha, beta


def forward_dynamics(cm, q, qd, tau, *, gravity=None, method="multipliers", baumgarte=None):
    """Joint accelerations ``q̈`` (n,) of the closed chain under actuator torques ``tau`` (k,).

    ``method``:

    * ``"multipliers"`` — the saddle-point system ``[[M, −Gᵀ], [G, 0]] [q̈; λ] = [Bτ − c − g; γ*]``
      (least squares: redundant rows are allowed);
    * ``"noc"`` — ``q̈ = q̈_p + N z`` with ``q̈_p = G⁺ γ*`` and ``(NᵀMN) z = Nᵀ(Bτ − c − g − M q̈_p)``
      (the SVD NOC).

    ``baumgarte``: None, or ``(α, β)`` (1/s) for Baumgarte's stabilisation ``γ* = γ − 2α G q̇ − β² φ``
    (the closure errors then obey ``ë + 2α ė + β² e = 0`` instead of drifting away). Does not check
    that ``(q, q̇)`` is on the constraint (a simulation never is, exactly).
    """
    check_closed(cm)
    validate.one_of(method, FD_METHODS, "method")
    q = cm.check_q(q)
    qd = cm.check_q(qd, "qd")
    tau = cm.check_tau(tau)
    M = crba(cm.tree, q)
    rhs = cm.B @ tau - bias_forces(cm.tree, q, qd, gravity=gravity)
    phi, G, gamma = constraint_terms(cm, q, qd)
    if baumgarte is not None:
        alpha, beta = check_baumgarte(baumgarte)
        gamma = gamma - 2.0 * alpha * (G @ qd) - beta**2 * phi
    if method == "multipliers":
        K = np.zeros((cm.n + cm.m, cm.n + cm.m))
        K[:cm.n, :cm.n], K[:cm.n, cm.n:], K[cm.n:, :cm.n] = M, -G.T, G
        return np.linalg.lstsq(K, np.concatenate([rhs, gamma]), rcond=None)[0][:cm.n]
    N = null_space(G)
    qdd_p = np.linalg.pinv(G, rcond=RANK_TOL) @ gamma
    z = np.linalg.solve(N.T @ M @ N, N.T @ (rhs - M @ qdd_p))
    return qdd_p + N @ z


def constraint_forces(cm, q, qd, qdd, tau, *, gravity=None):
    """Multipliers ``λ`` (m,) that make (12.4) hold: ``Gᵀ λ = M q̈ + c + g − B τ`` (least squares).

    Use it after :func:`forward_dynamics` (same ``q, q̇, τ``) to see the loop-closure forces.
    """
    check_closed(cm)
    q = cm.check_q(q)
    qd = cm.check_q(qd, "qd")
    qdd = cm.check_q(qdd, "qdd")
    tau = cm.check_tau(tau)
    tau_tree = crba(cm.tree, q) @ qdd + bias_forces(cm.tree, q, qd, gravity=gravity)
    return np.linalg.lstsq(constraint_jacobian(cm, q).T, tau_tree - cm.B @ tau, rcond=None)[0]


def _wrench_on_a(cm, lam):
    """Per constraint, the A-frame wrench ``Pᵀ λ_c`` (6,)."""
    lam = np.asarray(lam, dtype=float)
    if lam.shape != (cm.m,):
        raise ValueError(f"lam: expected {cm.m} multipliers (rows {cm.row_labels}), got shape {lam.shape}")
    out, k = [], 0
    for c in cm.constraints:
        w = np.zeros(6)
        w[list(c.rows)] = lam[k:k + len(c.rows)]
        k += len(c.rows)
        out.append(w)
    return out


def closure_wrenches(cm, q, lam):
    """World view of the loop-closure forces: ``(points, wrenches)``, each per constraint.

    ``points`` (c, 3): where A is, world coordinates; ``wrenches`` (c, 6): ``[n; f]`` that body ``b``
    applies on body ``a``, moment about A, **world axes** (body ``a`` applies the opposite on ``b``).
    """
    check_closed(cm)
    q = cm.check_q(q)
    st = space_terms(cm.tree, q)
    points, wrenches = [], []
    for c, w in zip(cm.constraints, _wrench_on_a(cm, lam)):
        T_A, _ = constraint_frames(c, st)
        points.append(T_A[:3, 3])
        wrenches.append(rot6(T_A[:3, :3]) @ w)            # A's axes -> world axes, still about A
    return np.array(points), np.array(wrenches)


def joint_wrenches(cm, q, qd, qdd, lam, *, gravity=None):
    """The wrench each **tree** joint transmits, (n, 6): ``[n; f]`` from the parent (or the ground)
    onto body ``i``, moment about body ``i``'s origin, **world axes**.

    Computed by: :func:`~lessonlib.dynamics.rnea_trace` of the tree with the loop-closure wrenches
    applied as external forces (``+w`` on body ``a``, ``−w`` on body ``b``). The torque about each
    joint axis is then the actuator torque (zero on passive joints): a check of ``λ``. Together with
    :func:`closure_wrenches` these are all the joint (constraint) forces of the mechanism.
    """
    check_closed(cm)
    q = cm.check_q(q)
    st = space_terms(cm.tree, q)
    F = np.zeros((cm.n, 6))
    for c, w_A in zip(cm.constraints, _wrench_on_a(cm, lam)):
        T_A, _ = constraint_frames(c, st)
        w_s = Ad_inv(T_A).T @ w_A                         # the same wrench in space coordinates
        F[c.body_a] += se3.Ad(st.T[c.body_a]).T @ w_s     # ... in body a's frame, about its origin
        if c.body_b != BASE:
            F[c.body_b] -= se3.Ad(st.T[c.body_b]).T @ w_s
    f = rnea_trace(cm.tree, q, qd, qdd, gravity=gravity, f_ext=F).f
    return matvec(rot6(st.T[:, :3, :3]), f)              # body axes -> world axes, about the body origins
