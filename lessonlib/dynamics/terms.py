"""The standard form ``M(q) q̈ + c(q, q̇) + g(q) + τ_f = τ_a + τ_ext`` ([WJ §2.1]).

Sign of ``τ_ext``: here (as in [WJ §2.1]) ``τ_ext`` is the generalised force the environment applies
**on** the arm, so it sits on the right beside the actuators' ``τ_a``. [DB4 §4.3] writes the same
equation as ``M q̈ + C q̇ + G + τ_f + τ_ext = τ``, with its ``τ_ext`` a *load* torque on the left:
the two differ in sign, ``τ_ext[DB4] = −τ_ext[WJ]``.

Each term is named after the quantity and says which algorithm computes it. Following Modern
Robotics and Pinocchio, the velocity and gravity terms are the inverse dynamics with some inputs
set to zero ([WJ §2.3]'s table):

=====================================  ============================================
quantity                               computed by
=====================================  ============================================
``M(q)``                               :func:`crba` (or ``n`` RNEA calls: columns)
``c(q, q̇) + g(q)`` (bias)              ``rnea(q, q̇, 0)``
``g(q)``                               ``rnea(q, 0, 0)``
``C(q, q̇)`` with ``C q̇ = c``           polarisation of ``c``: ``2n + 1`` RNEA calls
``Jᵀ F`` (a wrench → torques)          ``−rnea(q, 0, 0, gravity=0, f_ext=F)``
``q̈ = FD(q, q̇, τ)``                    :func:`aba`, or ``M = L Lᵀ`` (Cholesky) and two triangular solves
=====================================  ============================================
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from .. import _validate as validate
from .. import se3
from ..conventions import BASE, RANK_TOL, ZERO_GRAVITY
from ..kinematics import fk, wrench_at_body
from ._inputs import singular_mass_matrix
from .aba import aba
from .crba import crba
from .rnea import rnea

FD_METHODS = ("aba", "crba", "rnea_columns")
#: Frames a wrench may be given in to :func:`jacobian_transpose_force`.
WRENCH_FRAMES = ("body", "space")


def mass_matrix(model, q):
    """``M(q)``, computed by: :func:`crba`."""
    return crba(model, q)


def mass_matrix_via_rnea(model, q):
    """``M(q)`` column by column, computed by: ``n`` RNEA calls ([WJ §2.3]'s table).

    Column ``j`` is ``ID(q, 0, e_j)`` with gravity off: with no velocity and no gravity the
    inverse dynamics is just ``M(q) q̈``. Slow (O(n²)), and the clearest way to see what ``M`` is.
    """
    n = model.n
    zero = np.zeros(n)
    return np.column_stack([rnea(model, q, zero, np.eye(n)[j], gravity=ZERO_GRAVITY) for j in range(n)])


def bias_forces(model, q, qd, *, gravity=None, f_ext=None):
    """``c(q, q̇) + g(q) − τ_ext``, computed by: ``rnea(q, q̇, 0)``.

    ``f_ext[i-1] = F^ext_i`` (giving ``τ_ext``): the wrench the environment applies on body ``i``, in
    body frame ``{i}``, moment about its origin ``O_i``, as for :func:`~lessonlib.dynamics.rnea.rnea`.
    """
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


def jacobian_transpose_force(model, q, F, *, frame, body=-1):
    """Joint torques ``τ_ext = Jᵀ F`` of a wrench ``F = [μ; f]`` applied **by the environment** on a body.

    [WJ §2.3]'s last table row: ``ID(q, 0, 0)`` with gravity off and the wrench as ``f_ext`` gives
    ``−Jᵀ F``. ``frame`` (required, no default — the same wrench means different numbers in
    different frames): ``"body"``, ``F`` in the body's frame, moment about its origin (``J`` the
    body Jacobian); ``"space"``, in world axes, moment about the world origin (``J`` the space
    Jacobian, :func:`lessonlib.kinematics.jacobian`'s default frame). ``body`` may be an index or a
    frame name of ``model.frames`` (with ``"body"``, ``F`` is then in that frame's axes about its
    origin, moved to the body by :func:`~lessonlib.kinematics.wrench_at_body`). Computed by: one
    RNEA call ``−rnea(q, 0, 0, gravity=0, f_ext=F on that body)``.
    """
    F = validate.wrench(F, "F")
    validate.one_of(frame, WRENCH_FRAMES, "frame")
    b, F_body = wrench_at_body(model, body, F)            # wrench at the named point -> body origin
    if b == BASE:                                         # a wrench on the base moves no joint
        return np.zeros(model.n)
    if frame == "space":                                  # wrench at world origin -> body frame
        F_body = se3.Ad(fk(model, q)[b]).T @ F
    f_ext = np.zeros((model.n, 6))
    f_ext[b] = F_body
    zero = np.zeros(model.n)
    return -rnea(model, q, zero, zero, gravity=ZERO_GRAVITY, f_ext=f_ext)


def cholesky(model, M):
    """``M = L Lᵀ`` with ``L`` lower triangular, column by column; ``ValueError`` naming the joint
    whose pivot vanishes (a singular mass matrix).

    Pivot ``j``, ``d_j = M_jj − Σ_{k<j} L_jk²``, is what joint ``j`` adds to the inertia beyond
    joints ``1 .. j−1`` (``M[j-1, j-1]`` in code); it is ``> 0`` for a positive definite ``M``. About
    ``n³/6`` multiplications.
    """
    n = len(M)
    L = np.zeros((n, n))
    d_min = RANK_TOL * np.abs(np.diag(M)).max()
    for j in range(n):
        d = M[j, j] - L[j, :j] @ L[j, :j]
        if not d > d_min:
            raise singular_mass_matrix(model, j, f"the Cholesky pivot of M(q) at joint {j}", d)
        L[j, j] = np.sqrt(d)
        L[j + 1:, j] = (M[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L


def forward_dynamics(model, q, qd, tau, *, method="aba", gravity=None, f_ext=None):
    """Joint accelerations ``q̈`` from ``M q̈ = τ − (c + g − τ_ext)``.

    ``method``: ``"aba"`` (O(n), :func:`aba`), ``"crba"`` (``M`` by CRBA, bias by RNEA) or
    ``"rnea_columns"`` (``M`` from ``n`` RNEA calls, [WJ §2.3]'s table). The last two solve
    ``M q̈ = b`` as the lessons do: ``M = L Lᵀ`` (:func:`cholesky`), then ``L y = b`` by forward and
    ``Lᵀ q̈ = y`` by back substitution — never ``inv(M)``. ``ValueError`` naming the joint when
    ``M`` is singular. ``f_ext[i-1] = F^ext_i``: the wrench the environment applies on body ``i``, in
    body frame ``{i}``, moment about its origin ``O_i``.
    """
    if method == "aba":
        return aba(model, q, qd, tau, gravity=gravity, f_ext=f_ext)
    validate.one_of(method, FD_METHODS, "method")
    tau = model.check_q(tau, "tau")
    M = crba(model, q) if method == "crba" else mass_matrix_via_rnea(model, q)
    h = bias_forces(model, q, qd, gravity=gravity, f_ext=f_ext)
    L = cholesky(model, M)                                    # M = L Lᵀ
    y = solve_triangular(L, tau - h, lower=True)              # L y = τ − h
    return solve_triangular(L.T, y, lower=False)              # Lᵀ q̈ = y
