"""Closed kinematic loops, the closure kinematics: ``φ(q)``, ``G(q)`` and ``γ(q, q̇)`` ([LG, 约束动力学]).

Stacking the forbidden rows (:data:`~lessonlib.constraints.loops.CONSTRAINT_KINDS`) of the relative
twists of all the cut joints gives::

    G(q) q̇ = 0                  velocity level, G (m, n) the constraint Jacobian          (12.2)
    G(q) q̈ = γ(q, q̇) = −Ġ q̇     acceleration level                                        (12.3)

and ``φ(q) = 0`` at the position level; ``dφ/dt = G q̇`` wherever ``φ = 0``. All three come from one
forward-kinematics pass over the spanning tree (:func:`constraint_terms`).

>>> from lessonlib.constraints import assemble, four_bar
>>> fb = four_bar()
>>> q = assemble(fb, [0.5, 1.0, 1.5])              # crank held at 0.5 rad, the loop closed by Newton
>>> bool(abs(constraint_residual(fb, q)).max() < 1e-12), constraint_jacobian(fb, q).shape
(True, (2, 3))
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._operators import Ad_inv, bracket
from ..conventions import ANG, BASE, LIN, spatial_vector
from ..kinematics import fk
from .loops import check_closed


class _SpaceTerms(NamedTuple):
    T: np.ndarray       # (n, 4, 4) body poses
    xi: np.ndarray      # (n, 6) space-frame joint screws Ad(T_0_j) S_j = columns of J_s
    V: np.ndarray       # (n, 6) space twists of the bodies
    Jdqd: np.ndarray    # (n, 6) J̇_s q̇ of every body


def space_terms(model, q, qd=None):
    """Space twists and ``J̇_s q̇``: ``V_i = V_p + ξ_i q̇_i``, ``(J̇q̇)_i = (J̇q̇)_p + q̇_i ad(V_i) ξ_i``.

    ``d/dt Ad(T_0_j) S_j = ad(V_j) Ad(T_0_j) S_j`` (the column of joint ``j`` turns with body ``j``).
    """
    T = fk(model, q)
    R, p, S = T[:, :3, :3], T[:, :3, 3], model.S
    w = np.einsum("nij,nj->ni", R, S[:, ANG])
    xi = spatial_vector(w, np.cross(p, w) + np.einsum("nij,nj->ni", R, S[:, LIN]))   # Ad(T_0j) S_j
    V, Jdqd = np.zeros((model.n, 6)), np.zeros((model.n, 6))
    if qd is not None:
        for i in range(model.n):
            p = model.parent[i]
            V_p, b_p = (np.zeros(6), np.zeros(6)) if p == BASE else (V[p], Jdqd[p])
            V[i] = V_p + xi[i] * qd[i]
            Jdqd[i] = b_p + qd[i] * bracket(V[i], xi[i])
    return _SpaceTerms(T, xi, V, Jdqd)


def _space_jacobian(model, st, body):
    """Space Jacobian ``J_s`` (6, n) of a body (zero for the base): the columns ``Ad(T_0_j) S_j`` of its ancestors."""
    J = np.zeros((6, model.n))
    if body != BASE:
        for j in model.ancestors(body):
            J[:, j] = st.xi[j]
    return J


def constraint_frames(c, st):
    """World poses of the two constraint frames A and B."""
    T_A = st.T[c.body_a] @ c.T_a_point
    T_B = c.T_b_point if c.body_b == BASE else st.T[c.body_b] @ c.T_b_point
    return T_A, T_B


def loop_residual(c, st):
    """``φ`` of one cut joint: the offset ``R_Aᵀ(p_A − p_B)`` and the axis misalignment ``[u_y, −u_x]``,
    ``u = R_Aᵀ z_B``, in the forbidden rows."""
    T_A, T_B = constraint_frames(c, st)
    R_A = T_A[:3, :3]
    u = R_A.T @ T_B[:3, 2]
    return spatial_vector([u[1], -u[0], 0.0], R_A.T @ (T_A[:3, 3] - T_B[:3, 3]))[list(c.rows)]


def loop_jacobian(tree, c, st):
    """``G`` of one cut joint: ``P Ad(T_0A⁻¹)(J_s,a − J_s,b)``, the forbidden rows of the relative twist."""
    T_A, _ = constraint_frames(c, st)
    J_rel = _space_jacobian(tree, st, c.body_a) - _space_jacobian(tree, st, c.body_b)
    return (Ad_inv(T_A) @ J_rel)[list(c.rows)]


def loop_bias(c, st):
    """``γ`` of one cut joint: ``P [ad(V_A) V_rel − Ad(T_0A⁻¹) J̇_rel q̇]`` (see :func:`constraint_bias`)."""
    T_A, _ = constraint_frames(c, st)
    X_A = Ad_inv(T_A)
    zero = np.zeros(6)
    V_a, b_a = st.V[c.body_a], st.Jdqd[c.body_a]
    V_b, b_b = (zero, zero) if c.body_b == BASE else (st.V[c.body_b], st.Jdqd[c.body_b])
    V_rel = X_A @ (V_a - V_b)
    return (bracket(X_A @ V_a, V_rel) - X_A @ (b_a - b_b))[list(c.rows)]


def constraint_terms(cm, q, qd=None):
    """``(φ, G, γ)`` from one forward-kinematics pass (``γ`` is None without ``qd``)."""
    st = space_terms(cm.tree, q, qd)
    phi = np.concatenate([loop_residual(c, st) for c in cm.constraints])
    G = np.vstack([loop_jacobian(cm.tree, c, st) for c in cm.constraints])
    gamma = None if qd is None else np.concatenate([loop_bias(c, st) for c in cm.constraints])
    return phi, G, gamma


def constraint_residual(cm, q):
    """Position-level loop-closure residual ``φ(q)`` (m,), zero when every loop is closed.

    Convention: the module table — the offset ``p_A − p_B`` in A's axes (m) for the forbidden
    linear rows; for ``"revolute"`` also the misalignment of the axes, ``[u_y, −u_x]`` with
    ``u = R_Aᵀ z_B`` (≈ the small rotation about A's x and y, rad). ``dφ/dt = G q̇`` where ``φ = 0``.
    """
    check_closed(cm)
    st = space_terms(cm.tree, cm.check_q(q))
    return np.concatenate([loop_residual(c, st) for c in cm.constraints])


def constraint_jacobian(cm, q):
    """The constraint Jacobian ``G(q)`` (m, n): ``G q̇`` stacks the forbidden relative-twist rows (12.2).

    Computed by: the space Jacobians of the two bodies, ``G = P Ad(T_0A⁻¹)(J_s,a − J_s,b)``
    (``P`` picks the rows of the constraint's kind).

    >>> from lessonlib.constraints import assemble, four_bar
    >>> fb = four_bar()
    >>> G = constraint_jacobian(fb, assemble(fb, [0.0, 1.2, 1.9]))
    >>> G.shape
    (2, 3)
    """
    check_closed(cm)
    st = space_terms(cm.tree, cm.check_q(q))                 # poses and space Jacobian columns of the tree
    return np.vstack([loop_jacobian(cm.tree, c, st) for c in cm.constraints])


def constraint_bias(cm, q, qd):
    """``γ(q, q̇) = −Ġ q̇`` (m,): the right-hand side of ``G q̈ = γ`` (12.3).

    Convention: ``d/dt V_rel = −ad(V_A) V_rel + Ad(T_0A⁻¹)(J_rel q̈ + J̇_rel q̇)`` with ``V_A`` the
    body twist of frame A (``d/dt Ad(T⁻¹) = −ad(V_body) Ad(T⁻¹)``), so
    ``γ = P [ad(V_A) V_rel − Ad(T_0A⁻¹) J̇_rel q̇]``; ``J̇_s q̇`` of a body sums
    ``q̇_j ad(V_j) Ad(T_0j) S_j`` over the joints ``j`` that move it.
    """
    check_closed(cm)
    st = space_terms(cm.tree, cm.check_q(q), cm.check_q(qd, "qd"))
    return np.concatenate([loop_bias(c, st) for c in cm.constraints])
