"""The standard form ``M(q) q̈ + c(q, q̇) + g(q) + τ_f = τ_a + τ_ext`` (seed 000 §2.1, seed 004 §4.3).

Each term is named after the quantity and says which algorithm computes it. Following Modern
Robotics and Pinocchio, the velocity and gravity terms are the inverse dynamics with some inputs
set to zero (seed 000's table):

=====================================  ============================================
quantity                               computed by
=====================================  ============================================
``M(q)``                               :func:`crba` (or ``n`` RNEA calls: columns)
``c(q, q̇) + g(q)`` (bias)              ``rnea(q, q̇, 0)``
``g(q)``                               ``rnea(q, 0, 0)``
``C(q, q̇)`` with ``C q̇ = c``           polarisation of ``c``: ``2n + 1`` RNEA calls
``Jᵀ F`` (tip wrench → torques)        ``rnea(q, 0, 0, gravity=0, f_ext=F)``
``q̈ = FD(q, q̇, τ)``                    :func:`aba`, or Cholesky of ``M`` with the bias
=====================================  ============================================
"""
from __future__ import annotations

import numpy as np

from .. import se3
from ..conventions import BASE
from ..kinematics import fk, wrench_at_body
from .aba import aba
from .crba import crba
from .rnea import rnea

ZERO_GRAVITY = (0.0, 0.0, 0.0)
FD_METHODS = ("aba", "crba", "rnea_columns")


def mass_matrix(model, q):
    """``M(q)``, computed by: :func:`crba`."""
    return crba(model, q)


def mass_matrix_via_rnea(model, q):
    """``M(q)`` column by column, computed by: ``n`` RNEA calls (seed 000's table).

    Column ``j`` is ``ID(q, 0, e_j)`` with gravity off: with no velocity and no gravity the
    inverse dynamics is just ``M(q) q̈``. Slow (O(n²)), and the clearest way to see what ``M`` is.
    """
    n = model.n
    zero = np.zeros(n)
    return np.column_stack([rnea(model, q, zero, np.eye(n)[j], gravity=ZERO_GRAVITY) for j in range(n)])


def bias_forces(model, q, qd, *, gravity=None, f_ext=None):
    """``c(q, q̇) + g(q) − τ_ext``, computed by: ``rnea(q, q̇, 0)``."""
    return rnea(model, q, qd, np.zeros(model.n), gravity=gravity, f_ext=f_ext)


def gravity_torques(model, q, *, gravity=None):
    """``g(q) = ∂U/∂q``, computed by: ``rnea(q, 0, 0)``."""
    zero = np.zeros(model.n)
    return rnea(model, q, zero, zero, gravity=gravity)


def velocity_torques(model, q, qd):
    """``c(q, q̇) = C(q, q̇) q̇`` (Coriolis and centrifugal), computed by: ``rnea(q, q̇, 0)`` with g = 0."""
    return rnea(model, q, qd, np.zeros(model.n), gravity=ZERO_GRAVITY)


def coriolis_matrix(model, q, qd):
    """The Christoffel-consistent ``C(q, q̇)``: ``C q̇ = c(q, q̇)`` and ``Ṁ − 2C`` skew-symmetric.

    ``c(q, q̇)`` is a quadratic form in ``q̇`` whose symmetric coefficients are the Christoffel
    symbols of the first kind ``Γ_ijk = ½(∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)``. Polarising it
    recovers ``C_ij = Σ_k Γ_ijk q̇_k`` exactly:
    ``C[:, j] = ½ (c(q̇ + e_j) − c(q̇) − c(e_j))``. Computed by: ``2n + 1`` RNEA calls (O(n²)).
    """
    qd = model.check_q(qd, "qd")
    c_qd = velocity_torques(model, q, qd)
    E = np.eye(model.n)
    return np.column_stack([0.5 * (velocity_torques(model, q, qd + E[j]) - c_qd - velocity_torques(model, q, E[j]))
                            for j in range(model.n)])


def jacobian_transpose_force(model, q, F, *, body=-1, frame="body"):
    """Joint torques that balance a wrench ``F = [n; f]`` applied **by the environment** on a body.

    Seed 000's last table row: ``τ_ext = Jᵀ F``. ``frame="body"``: ``F`` in the body's frame,
    moment about its origin; ``"space"``: in world axes, moment about the world origin.
    ``body`` may be an index or a frame name of ``model.frames`` (with ``"body"``, ``F`` is then in
    that frame's axes about its origin, moved to the body by
    :func:`~lessonlib.kinematics.wrench_at_body`). Computed by: one RNEA call
    ``−rnea(q, 0, 0, gravity=0, f_ext=F on that body)`` (equal to ``J(q)ᵀ F``).
    """
    F = np.asarray(F, dtype=float)
    if F.shape != (6,):
        raise ValueError(f"F: expected a wrench [n; f] of shape (6,), got {F.shape}")
    if frame not in ("body", "space"):
        raise ValueError(f"frame: expected 'body' or 'space', got {frame!r}")
    b, F_body = wrench_at_body(model, body, F)            # wrench at the named point -> body origin
    if b == BASE:                                         # a wrench on the base moves no joint
        return np.zeros(model.n)
    if frame == "space":                                  # wrench at world origin -> body frame
        F_body = se3.Ad(fk(model, q)[b]).T @ F
    f_ext = np.zeros((model.n, 6))
    f_ext[b] = F_body
    zero = np.zeros(model.n)
    return -rnea(model, q, zero, zero, gravity=ZERO_GRAVITY, f_ext=f_ext)


def forward_dynamics(model, q, qd, tau, *, method="aba", gravity=None, f_ext=None):
    """Joint accelerations ``q̈`` from ``M q̈ = τ − (c + g − τ_ext)``.

    ``method``: ``"aba"`` (O(n), :func:`aba`), ``"crba"`` (``M`` by CRBA, bias by RNEA, Cholesky
    solve) or ``"rnea_columns"`` (``M`` from ``n`` RNEA calls, seed 000's table, Cholesky solve).
    """
    if method == "aba":
        return aba(model, q, qd, tau, gravity=gravity, f_ext=f_ext)
    if method not in FD_METHODS:
        raise ValueError(f"method: expected one of {FD_METHODS}, got {method!r}")
    tau = model.check_q(tau, "tau")
    M = crba(model, q) if method == "crba" else mass_matrix_via_rnea(model, q)
    h = bias_forces(model, q, qd, gravity=gravity, f_ext=f_ext)
    L = np.linalg.cholesky(M)                             # M = L Lᵀ, never inv(M)
    return np.linalg.solve(L.T, np.linalg.solve(L, tau - h))
