"""Contact with an unknown force: a point of the arm held on a fixed frictionless plane ([WJ §2.3]; [RNE05] question 3).

When the arm presses on a rigid surface (刚性表面), the torques alone no longer fix the accelerations:
the surface pushes back with a force nobody gave us (环境反力, an unknown constraint force 约束力).
With the contact point ``p_ct`` (world position), its world linear-velocity Jacobian ``J_ct``
(``ṗ_ct = J_ct q̇``, 3×n) and the unit normal ``ν`` of the plane (world axes, pointing out of the
surface towards the arm), the normal force ``λ`` (N, ``> 0`` when the surface pushes) enters as a
generalised force and the point may not accelerate into or out of the plane::

    M q̈ + h = τ + J_ctᵀ ν λ                                                           (12.9)
    νᵀ p̈_ct = νᵀ (J_ct q̈ + J̇_ct q̇) = 0                                                  (12.10)

Eliminating ``q̈`` with ``q̈_free = M⁻¹ (τ − h)`` (the free forward dynamics) and ``a = J_ctᵀ ν``
(n,) gives one scalar equation for ``λ`` — its coefficient ``aᵀ M⁻¹ a`` is the Schur complement of
``M`` in the KKT matrix ``[[M, −a], [aᵀ, 0]]``, the inverse of the effective mass along ``ν``::

    λ = −(aᵀ q̈_free + νᵀ J̇_ct q̇) / (aᵀ M⁻¹ a),     q̈ = q̈_free + M⁻¹ a λ                (12.11)

``J̇_ct q̇`` is the **classical** acceleration of the point when ``q̈ = 0``: with the space twist
``V_s = [ω; v_s]`` of the body and ``V̇_s = J_s q̈ + J̇_s q̇``, the point's velocity is
``ṗ_ct = v_s + ω × p_ct`` and its acceleration ``p̈_ct = v̇_s + ω̇ × p_ct + ω × ṗ_ct``; the last
term (centripetal) is what the spatial acceleration ``V̇_s`` alone leaves out.

Energy: the surface does not move, so a state on it has ``νᵀ ṗ_ct = 0`` and the contact force does
no work, ``q̇ᵀ J_ctᵀ ν λ = λ νᵀ ṗ_ct = 0``: ``dE/dt = q̇ᵀ τ`` through contact ([WJ §2.1]).

The contact is unilateral: ``λ < 0`` would mean the wall pulls — the point would leave the surface,
and (12.9)–(12.10) no longer describe the motion (the free forward dynamics does).

Layer: above :mod:`lessonlib.dynamics` (imports kinematics, dynamics and :func:`.closure.space_terms`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import cho_solve

from .. import _validate as validate
from .. import so3
from ..conventions import ANG, BASE, LIN, RANK_TOL
from ..dynamics import bias_forces, crba
from ..dynamics.terms import cholesky
from ..kinematics import resolve_body
from .closure import space_terms


class ContactKinematics(NamedTuple):
    """The contact point's kinematics (world axes): position ``p`` (3,), Jacobian ``J`` (3, n) with
    ``ṗ = J q̇``, velocity ``pd`` (3,) and ``Jdot_qd`` = ``J̇ q̇`` (3,), its classical acceleration at ``q̈ = 0``."""

    p: np.ndarray
    J: np.ndarray
    pd: np.ndarray
    Jdot_qd: np.ndarray


class ContactDynamics(NamedTuple):
    """Result of :func:`contact_forward_dynamics`: ``qdd`` (n,) and the normal force ``force`` (N, float)."""

    qdd: np.ndarray
    force: float


def check_normal(normal, name="normal"):
    """The unit normal ``ν``: ``normal`` (3,) divided by its length; ``ValueError`` for a zero vector."""
    nu = validate.vector(normal, 3, name)
    length = float(np.linalg.norm(nu))
    if not length > RANK_TOL:
        raise ValueError(f"{name}: expected a nonzero 3-vector (the plane's normal, world axes), got {nu.tolist()}")
    return nu / length


def contact_kinematics(model, q, qd, *, body, point):
    """Position, world linear-velocity Jacobian, velocity and ``J̇ q̇`` of a point of the arm.

    ``body``: a body index or a frame name (:func:`~lessonlib.kinematics.resolve_body`); ``point``
    (3,): the point in that body's (frame's) coordinates (m). A point on the base never moves (``J = 0``).

    Computed by: the space twists ``V_s`` and ``J̇_s q̇`` of the bodies (one outward pass), then
    ``J = J_s,v − [p] J_s,ω``, ``ṗ = v_s + ω × p`` and ``J̇ q̇ = (J̇_s q̇)_v + (J̇_s q̇)_ω × p + ω × ṗ``.

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                        # frame "tip": 1 m along x of body 2
    >>> ck = contact_kinematics(arm, [0.0, 0.0], [1.0, 0.0], body="tip", point=[0, 0, 0])
    >>> ck.p + 0.0, ck.pd + 0.0                             # 2 m out, turning at 1 rad/s
    (array([2., 0., 0.]), array([0., 2., 0.]))
    >>> ck.Jdot_qd + 0.0                                     # centripetal: −ω² r towards joint 1
    array([-2.,  0.,  0.])
    """
    q = model.check_q(q)
    qd = model.check_q(qd, "qd")
    r = validate.vector(point, 3, "point")
    b, T_b_f = resolve_body(model, body)
    r_b = T_b_f[:3, :3] @ r + T_b_f[:3, 3]                 # the point in body coordinates
    if b == BASE:                                          # a point on the base stays put
        return ContactKinematics(r_b, np.zeros((3, model.n)), np.zeros(3), np.zeros(3))
    st = space_terms(model, q, qd)
    p = st.T[b, :3, :3] @ r_b + st.T[b, :3, 3]
    J_s = np.zeros((6, model.n))
    for j in model.ancestors(b):
        J_s[:, j] = st.xi[j]                               # column j: Ad(T_0_j) S_j
    J = J_s[LIN] - so3.hat(p) @ J_s[ANG]                   # v_s + ω × p
    w, v_s = st.V[b][ANG], st.V[b][LIN]
    pd = v_s + np.cross(w, p)
    wd, vd_s = st.Jdqd[b][ANG], st.Jdqd[b][LIN]            # V̇_s at q̈ = 0
    return ContactKinematics(p, J, pd, vd_s + np.cross(wd, p) + np.cross(w, pd))


def contact_forward_dynamics(model, q, qd, tau, *, body, point, normal, gravity=None):
    """Forward dynamics with a point held on a fixed frictionless plane: ``(qdd, force)`` from (12.9)–(12.11).

    ``body``, ``point``: the contact point as in :func:`contact_kinematics`; ``normal`` (3,): the
    plane's normal in world axes, pointing towards the arm (normalised here; ``ValueError`` if zero);
    ``force``: the normal force ``λ`` (N), positive when the surface pushes, so that
    ``M q̈ + h = τ + J_ctᵀ ν λ`` and ``νᵀ p̈_ct = 0``. ``λ < 0`` means a real (unilateral) contact
    would open. The state should keep the point on the plane (``νᵀ ṗ_ct = 0``); it is not checked.
    ``ValueError`` when the point cannot move along ``normal`` at ``q`` (``νᵀ J_ct = 0``: the force
    is then undetermined).

    Computed by: :func:`~lessonlib.dynamics.crba` and ``M = L Lᵀ`` (Cholesky), ``h`` by
    ``rnea(q, q̇, 0)``, :func:`contact_kinematics`, then the Schur complement (12.11).

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                        # gravity along −y
    >>> q = [np.pi / 2, -np.pi / 2]                          # link 1 up, link 2 along +x: tip at (1, 1)
    >>> qdd, lam = contact_forward_dynamics(arm, q, [0, 0], [0, 0], body="tip", point=[0, 0, 0],
    ...                                     normal=[0, 1, 0])   # a table under the tip
    >>> round(lam, 6)                                        # the table carries half of link 2's weight
    4.905
    >>> ck = contact_kinematics(arm, q, [0, 0], body="tip", point=[0, 0, 0])
    >>> round(float(ck.J[1] @ qdd), 12) + 0.0                       # the tip does not sink into the table
    0.0
    """
    q = model.check_q(q)
    qd = model.check_q(qd, "qd")
    tau = model.check_q(tau, "tau")
    nu = check_normal(normal)
    ck = contact_kinematics(model, q, qd, body=body, point=point)
    a = ck.J.T @ nu                                          # generalised direction of the normal force
    if not np.linalg.norm(a) > RANK_TOL * max(1.0, np.linalg.norm(ck.J)):
        raise ValueError(f"body, point, normal: the contact is degenerate at this q — the point {np.asarray(point).tolist()} "
                         f"of body {body!r} cannot move along normal {nu.tolist()} (νᵀ J_ct = 0), so the "
                         f"normal force is undetermined")
    M = crba(model, q)
    h = bias_forces(model, q, qd, gravity=gravity)
    L = cholesky(model, M)                                   # M = L Lᵀ
    qdd_free = cho_solve((L, True), tau - h)                 # the free forward dynamics
    Minv_a = cho_solve((L, True), a)
    lam = -(a @ qdd_free + nu @ ck.Jdot_qd) / (a @ Minv_a)   # (12.11)
    return ContactDynamics(qdd_free + Minv_a * lam, float(lam))
