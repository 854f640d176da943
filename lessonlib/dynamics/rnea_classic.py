"""Inverse dynamics by the classic 3-vector Newton–Euler recursion (Luh–Walker–Paul, Craig).

Course: [LG, 牛顿欧拉递推动力学] (Craig's outward/inward equations, [Craig 2005]), [DB4 §4.1],
[RNE05] (the static checks); lesson 05 §2, eqs. (5.2)–(5.3). The same torques as the spatial
:func:`~lessonlib.dynamics.rnea.rnea`, written with separate angular and linear 3-vectors, as most
textbooks do.

Convention (``course/NOTATION.md``; Craig's letters are mapped there): bodies and joints
``i = 1 .. n``, entry ``i-1`` of every array; every vector of body ``i`` is expressed in body frame
``{i}``; ``R = R_{j,i}`` and ``p = p_{j,i}`` are the **current** orientation and origin of frame
``{i}`` in its parent's frame ``{j}``, ``j = parent(i)`` (``T_{j,i}(q_i) = model.joint_transform(i-1,
q_i)``), so ``Rᵀ = R_{i,j}`` maps parent coordinates into ``{i}``; ``a_i`` is the real (classical)
acceleration of ``O_i``, and gravity is folded in as the base acceleration ``a_0 = −g_phys``
([LG, 牛顿欧拉递推动力学]: "令 0v̇0 = G"); ``f_ext[i-1] = F^ext_i = [μ; f]`` is the wrench the
environment applies on body ``i``, in body frame ``{i}``, moment about ``O_i``.

Joint ``i`` turns (revolute) or slides (prismatic) along the unit axis ``u_i`` (body frame ``{i}``;
code ``e``), through the point ``r`` (revolute, ``Joint.point``; ``r = 0`` for prismatic joints), at
the rate ``s q̇_i`` where ``s = Joint.scale`` (1 for every real joint). ``r`` is fixed in both
bodies, so the outward pass first carries the acceleration to the axis point (a point of the
parent), then from the axis point to ``O_i`` (a point of body ``i``). With ``r = 0`` these are
exactly Craig's equations (lesson 05's (5.2)–(5.3)).

Outward pass (motion), ``i = 1 .. n`` (parent quantities ``ω_j, ω̇_j, a_j``; for the base
``ω_0 = ω̇_0 = 0``)::

    ω_i    = Rᵀ ω_j + u_i s q̇_i                                  (revolute; prismatic: Rᵀ ω_j)
    ω̇_i    = Rᵀ ω̇_j + (Rᵀ ω_j) × u_i s q̇_i + u_i s q̈_i            (revolute; prismatic: Rᵀ ω̇_j)
    p_r    = p + R r                                             (axis point, parent frame; code rho)
    a_r    = Rᵀ (a_j + ω̇_j × p_r + ω_j × (ω_j × p_r))             (axis point as a point of the parent)
           + 2 ω_i × u_i s q̇_i + u_i s q̈_i                        (prismatic only: Craig 6.47)
    a_i    = a_r + ω̇_i × (−r) + ω_i × (ω_i × (−r))                (from the axis point to O_i)
    a_{c_i} = a_i + ω̇_i × p_{c_i} + ω_i × (ω_i × p_{c_i})          (centre of mass p_{c_i})
    m_i a_{c_i},      I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i               (Newton's force, Euler's moment)

Inward pass (forces), ``i = n .. 1``; ``f_i, μ_i`` start as ``m_i a_{c_i}`` and
``I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i + p_{c_i} × m_i a_{c_i}`` minus the external wrench, and each child
``k`` of ``i`` (pose ``R_{i,k}, p_{i,k}`` in frame ``{i}``) adds::

    f_i += R_{i,k} f_k,            μ_i += R_{i,k} μ_k + p_{i,k} × (R_{i,k} f_k)

so that, when ``i`` is reached, ``f_i, μ_i`` are the force and the moment (about ``O_i``) that body
``i``'s parent exerts on it through joint ``i``. The joint torque is the moment about the axis
(revolute) or the force along it (prismatic)::

    τ_i = s (u_i · (μ_i − r × f_i))      (revolute)        τ_i = s (u_i · f_i)      (prismatic)

The code's names: ``w, wd, vd`` for ``ω, ω̇, a``; ``vd_r``, ``vd_c`` for ``a_r``, ``a_{c_i}``; ``c``
for ``p_c``; ``F``, ``N`` for Craig's inertial force and moment ``m_i a_{c_i}``,
``I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i``; ``f``, ``n`` for ``f``, ``μ`` (Craig's ``f_i``, ``n_i``).
"""
from __future__ import annotations

import numpy as np

from ..conventions import ANG, BASE, LIN
from ._inputs import base_acceleration, state


def rnea_classic(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by the classic Newton–Euler recursion (3-vectors).

    Convention: see the module docstring — body-frame 3-vectors, classical accelerations,
    ``a_0 = −g_phys``; the result equals :func:`~lessonlib.dynamics.rnea.rnea` (the spatial form).

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` ``g_phys``, a world 3-vector (None: the model's
    default); ``f_ext`` (n, 6): ``f_ext[i-1] = F^ext_i = [μ; f]``, the wrench the environment applies
    on body ``i``, in body frame ``{i}``, moment about ``O_i`` (None: no contact). Returns ``tau``
    (n,). Cost O(n).

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                  # [RNE05]: two horizontal 1 m / 1 kg rods
    >>> rnea_classic(arm, [0, 0], [0, 0], [0, 0], gravity=[0, -10, 0]).round(9) + 0.0
    array([20.,  5.])
    """
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    a_0 = base_acceleration(model, gravity)                      # A_0 = [ω̇_0; a_0] = [0; −g_phys]
    parent, m, c, I_c = model.parent, model.mass, model.com, model.I_com
    R, p = np.zeros((model.n, 3, 3)), np.zeros((model.n, 3))
    w, wd, vd = np.zeros((model.n, 3)), np.zeros((model.n, 3)), np.zeros((model.n, 3))
    f, n = np.zeros((model.n, 3)), np.zeros((model.n, 3))      # force f_i and moment μ_i (Craig's f_i, n_i)
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
