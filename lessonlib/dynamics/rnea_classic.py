"""Inverse dynamics by the classic 3-vector Newton–Euler recursion (Luh–Walker–Paul, Craig).

Course: [LG, 牛顿欧拉递推动力学] (Craig's outward/inward equations, [Craig 2005]), [DB4 §4.1],
[RNE05] (the static checks). The same torques as the spatial :func:`~lessonlib.dynamics.rnea.rnea`,
written with separate angular and linear 3-vectors, as most textbooks do.

Convention: every vector of body ``i`` is expressed in body frame ``i``; ``R, p`` are the
**current** orientation and origin of frame ``i`` in its parent's frame
(``T_p_i(q_i) = model.joint_transform(i, q_i)``), so ``R.T`` maps parent coordinates into body
``i``; ``v̇_i`` is the real (classical) acceleration of the origin of frame ``i``, and gravity is
folded in as the base acceleration ``v̇_0 = −g`` ([LG, 牛顿欧拉递推动力学]: "令 0v̇0 = G"); ``f_ext[i] = [n; f]``
is the wrench the environment applies on body ``i`` (body frame ``i``, moment about its origin).

Joint ``i`` turns (revolute) or slides (prismatic) along the unit axis ``e`` (body frame ``i``),
through the point ``r`` (revolute; ``r = 0`` for prismatic joints), at the rate
``s·q̇_i`` where ``s = Joint.scale`` (1 for every real joint). ``r`` is fixed in both bodies, so the
outward pass first carries the acceleration to the axis point (a point of the parent), then from
the axis point to the origin of frame ``i`` (a point of body ``i``). With ``r = 0`` these are
exactly Craig's equations.

Outward pass (motion), ``i = 0 .. n−1`` (parent quantities ``ω_p, ω̇_p, v̇_p``)::

    ω_i   = Rᵀ ω_p + e s q̇_i                                     (revolute; prismatic: Rᵀ ω_p)
    ω̇_i   = Rᵀ ω̇_p + (Rᵀ ω_p) × e s q̇_i + e s q̈_i                (revolute; prismatic: Rᵀ ω̇_p)
    ρ     = p + R r                                              (axis point, parent frame)
    v̇_r   = Rᵀ (v̇_p + ω̇_p × ρ + ω_p × (ω_p × ρ))                  (axis point as a point of the parent)
          + 2 ω_i × e s q̇_i + e s q̈_i                             (prismatic only: Craig 6.47)
    v̇_i   = v̇_r + ω̇_i × (−r) + ω_i × (ω_i × (−r))                  (from the axis point to the origin)
    v̇_ci  = v̇_i + ω̇_i × c_i + ω_i × (ω_i × c_i)                    (centre of mass c_i)
    F_i   = m_i v̇_ci,      N_i = I_ci ω̇_i + ω_i × I_ci ω_i          (Newton, Euler)

Inward pass (forces), ``i = n−1 .. 0``; ``f_i, n_i`` start as ``F_i`` and ``N_i + c_i × F_i``
minus the external wrench, and each child ``j`` of ``i`` (pose ``R_j, p_j`` in frame ``i``) adds::

    f_i += R_j f_j,            n_i += R_j n_j + p_j × (R_j f_j)

so that, when ``i`` is reached, ``f_i, n_i`` are the force and the moment (about the origin of
frame ``i``) that body ``i``'s parent exerts on it through joint ``i``. The joint torque is the
moment about the axis (revolute) or the force along it (prismatic)::

    τ_i = s (e · (n_i − r × f_i))      (revolute)        τ_i = s (e · f_i)      (prismatic)
"""
from __future__ import annotations

import numpy as np

from ..conventions import ANG, BASE, LIN
from ._inputs import base_acceleration, state


def rnea_classic(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by the classic Newton–Euler recursion (3-vectors).

    Convention: see the module docstring — body-frame 3-vectors, classical accelerations,
    ``v̇_0 = −g``; the result equals :func:`~lessonlib.dynamics.rnea.rnea` (the spatial form).

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` world 3-vector (None: the model's default);
    ``f_ext`` (n, 6) wrenches ``[n; f]`` the environment applies on the bodies, body frames, about
    the body origins (None: no contact). Returns ``tau`` (n,). Cost O(n).

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                  # [RNE05]: two horizontal 1 m / 1 kg rods
    >>> rnea_classic(arm, [0, 0], [0, 0], [0, 0], gravity=[0, -10, 0]).round(9) + 0.0
    array([20.,  5.])
    """
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    a_0 = base_acceleration(model, gravity)                      # [ω̇_0; v̇_0] = [0; −g]
    parent, m, c, I_c = model.parent, model.mass, model.com, model.I_com
    R, p = np.zeros((model.n, 3, 3)), np.zeros((model.n, 3))
    w, wd, vd = np.zeros((model.n, 3)), np.zeros((model.n, 3)), np.zeros((model.n, 3))
    f, n = np.zeros((model.n, 3)), np.zeros((model.n, 3))      # force and moment (Craig's f_i, n_i)
    for i in range(model.n):                                     # outward: motion
        joint = model.joints[i]
        e, r, s = joint.axis, joint.point, joint.scale
        T_p_i = model.joint_transform(i, q[i])
        R[i], p[i] = T_p_i[:3, :3], T_p_i[:3, 3]
        if parent[i] == BASE:
            w_p, wd_p, vd_p = np.zeros(3), a_0[ANG], a_0[LIN]
        else:
            w_p, wd_p, vd_p = w[parent[i]], wd[parent[i]], vd[parent[i]]
        Rt = R[i].T
        rho = p[i] + R[i] @ r
        w[i] = Rt @ w_p
        wd[i] = Rt @ wd_p
        vd_r = Rt @ (vd_p + np.cross(wd_p, rho) + np.cross(w_p, np.cross(w_p, rho)))
        if joint.is_revolute:
            wd[i] += np.cross(w[i], e * s * qd[i]) + e * s * qdd[i]
            w[i] += e * s * qd[i]
        else:
            vd_r += 2 * np.cross(w[i], e * s * qd[i]) + e * s * qdd[i]
        vd[i] = vd_r + np.cross(wd[i], -r) + np.cross(w[i], np.cross(w[i], -r))
        vd_c = vd[i] + np.cross(wd[i], c[i]) + np.cross(w[i], np.cross(w[i], c[i]))
        F = m[i] * vd_c
        N = I_c[i] @ wd[i] + np.cross(w[i], I_c[i] @ w[i])
        f[i] = F
        n[i] = N + np.cross(c[i], F)
        if F_ext is not None:
            n[i] -= F_ext[i][ANG]
            f[i] -= F_ext[i][LIN]
    tau = np.zeros(model.n)
    for i in reversed(range(model.n)):                           # inward: forces
        joint = model.joints[i]
        e, r, s = joint.axis, joint.point, joint.scale
        if joint.is_revolute:
            tau[i] = s * (e @ (n[i] - np.cross(r, f[i])))
        else:
            tau[i] = s * (e @ f[i])
        if parent[i] != BASE:
            f_in_parent = R[i] @ f[i]
            f[parent[i]] += f_in_parent
            n[parent[i]] += R[i] @ n[i] + np.cross(p[i], f_in_parent)
    return tau
