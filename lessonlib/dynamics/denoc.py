"""Inverse dynamics with the decoupled natural orthogonal complement, DeNOC ([Saha 1999]; [SWC16]).

Course: [SWC16] (Shen, Wu & Chen 2016, after [Saha 1999] and [Angeles & Lee 1988]), whose equations
were images and are lost in the course's copy: the formulation below follows Saha's papers, in the
course's letters (lesson 07, ``course/NOTATION.md``). The same torques as the spatial
:func:`~lessonlib.dynamics.rnea.rnea`, derived the other way round: write the *uncoupled*
Newton–Euler equations of every link, then remove the constraint wrenches by premultiplying with the
orthogonal complement ``Nᵀ`` of the constraints.

Convention (Saha's classical formulation): every vector is in **world axes** (subscript ``w``); the
twist of body ``k`` is ``V_{w,k} = [ω_k; v_k]`` with ``v_k`` the velocity of its reference point
``O_k`` (the origin of body frame ``{k}``; :func:`denoc_matrices` can also take the centre of mass);
``V̇_{w,k}`` is its **classical** time derivative (``v̇_k = a_k`` is the real acceleration of ``O_k`` —
not the spatial acceleration ``A_k``); gravity is folded in as ``V̇_{w,0} = [0; −g_phys]`` (``A_0``,
which has the same numbers); ``f_ext[k-1]`` is ``F^ext_k = [μ; f]``, the wrench the environment
applies on body ``k``, in **body frame** ``{k}``, moment about ``O_k`` (rotated to world axes inside).
Bodies and joints are numbered ``k = 1 .. n`` as in the lessons; the code's arrays count from 0
(row ``k-1`` is body ``k``).

Symbols (course / [SWC16]), their code names, and what they are in the spatial vocabulary:

=========================  ======================================================  ==================  ==============================
course ([SWC16])           definition here                                         code                spatial / Lie-group name
=========================  ======================================================  ==================  ==============================
``V_{w,k}`` (``t_k``)      ``[ω_k; v_k]`` about ``O_k``, world axes                ``t``               twist ``diag(R_0k, R_0k) V_k``
``Φ_{k,j}`` (``A_kj``)     ``[[1, 0], [−[Δp], 1]]``, ``Δp = O_k − O_j``            ``A``               ``Ad`` of a translation by
                                                                                                       ``−Δp``: a change of reference
                                                                                                       point (``xlt(Δp)``)
``S_{w,k}`` (``p_k``)      ``s [u_k; u_k × (O_k − r_k)]`` (revolute),              ``p``, ``N_d``      joint screw ``S_k`` in world
                           ``s [0; u_k]`` (prismatic)                                                  axes about ``O_k``
``𝓘_{w,k}`` (``M_k``)      ``[[I_{w,k}, m[d_{w,k}]], [−m[d_{w,k}], m1]]``          ``M_k``, ``M_blk``  spatial inertia ``𝓘_k``, rotated
``Ω_k`` (``Ω_k``)          ``diag([ω_k], [ω_k])``                                  ``W_k``, ``W``      ``d/dt`` of a body-fixed 6-vector
``Π`` (``E_k``)            ``diag(1, 0)``                                          ``E``               —
``F_{w,k}`` (``w_k``)      wrench of the inward pass at ``O_k``                    ``w``               ``F_k``, rotated to world axes
``N_l``, ``N_d``           block lower-triangular ``Φ_kj``; block-diagonal         ``N_l``, ``N_d``    Modern Robotics' ``L``, ``A``
                           ``S_{w,k}``
``N = N_l N_d``            ``𝐕_w = N q̇`` (``𝐕_w``: all ``V_{w,k}`` stacked)         ``N``               the stacked Jacobians
``M = Nᵀ 𝓘_w N``           ``M(q)`` (``I``: [SWC16]'s generalised inertia)          —                   ``M(q)`` (CRBA)
``C_DeNOC`` (``C``)        ``Nᵀ(𝓘_w Ṅ + Ω 𝓘_w Π N)``, convective inertia           —                   a Coriolis matrix ``C(q, q̇)``
=========================  ======================================================  ==================  ==============================

``u_k`` is joint ``k``'s unit axis, ``r_k`` a point on it, ``s`` the joint's ``scale`` (1 for every
real joint), all in world axes; ``I_{w,k} = R_0k I_O R_0kᵀ`` and ``d_{w,k} = R_0k p_{c_k}`` (the centre of
mass from ``O_k``). Saha puts ``O_k`` on joint axis ``k`` and writes ``S_{w,k} = [u_k; 0]``; with
standard-DH frames (``O_k`` off the axis) the term ``u_k × (O_k − r_k)`` is the velocity of ``O_k`` that
the joint itself produces. ``Φ_{k,j}`` for a non-adjacent pair is the product along the path, which is
again ``[[1, 0], [−[O_k − O_j], 1]]``; on a tree ``Φ_{k,j} = 0`` unless ``j`` is an ancestor of ``k``
(or ``k`` itself).

Recursion (two flat loops; ``j = parent(k)``, ``V_{w,0} = 0``, ``O_0`` the world origin)::

    V_{w,k} = Φ_{k,j} V_{w,j} + S_{w,k} q̇_k
    V̇_{w,k} = Φ_{k,j} V̇_{w,j} + Φ̇_{k,j} V_{w,j} + S_{w,k} q̈_k + Ω_k S_{w,k} q̇_k     (Ṡ_{w,k} = Ω_k S_{w,k})
    F_{w,k} = 𝓘_{w,k} V̇_{w,k} + Ω_k 𝓘_{w,k} Π V_{w,k} − F^ext_k (world axes)          (uncoupled Newton–Euler)
    τ_k = S_{w,k}ᵀ F_{w,k},      F_{w,j} += Φ_{k,j}ᵀ F_{w,k}                          (inward, k = n .. 1)

``Φ̇_{k,j}`` has lower-left block ``−[Δṗ]`` with ``Δṗ = v_k − v_j`` (which is ``ω_j × Δp`` when
``O_k`` is fixed in body ``j``, as in Saha's papers; with a prismatic joint or ``O_k`` off the axis
the joint's own motion adds to it).

What we checked about ``Ω 𝓘_w Π V_w``: it gives ``[ω × I_O ω; m ω × (ω × d)]``, and with
``𝓘_w V̇_w = [I_O ω̇ + m d × v̇_O; m (v̇_O + ω̇ × d)]`` this is exactly Newton's and Euler's laws about a
body point ``O`` that is not the centre of mass (moment ``I_O ω̇ + ω × I_O ω + m d × v̇_O``, force
``m a_c``). So the form is right for any reference point; the tests confirm it against the RNEA.

Skew-symmetry: ``C_DeNOC q̇`` is the right velocity term for either reference point, but
``Ṁ − 2C_DeNOC`` is skew-symmetric only when the twists are referenced at the **centres of mass**
(``𝓘_{w,k} = diag(R_0k I_c R_0kᵀ, m1)``: then ``𝓘̇_w − 2Ω𝓘_wΠ = diag(−[ω]I_c − I_c[ω], 0)`` is skew).
Referenced at ``O_k`` off the centre of mass the ``m[d_{w,k}]`` blocks break it: the symmetric part of
``Ṁ − 2C_DeNOC`` is then ``Σ_k m_k (J_{ω,k}ᵀ [ω_k][d_{w,k}] J_{v,k} + J_{v,k}ᵀ [d_{w,k}][ω_k] J_{ω,k})``
(``J_{ω,k}, J_{v,k}`` the angular and linear rows of ``N`` for body ``k``). It vanishes when every
``d_{w,k} = 0`` (``reference="com"``) and also, by accident, when all joint axes stay parallel (planar
arms, SCARA: ``ω_k`` is along every revolute axis, so ``J_{ω,k}ᵀ [ω_k] = 0``) — a planar example cannot
show the difference, and neither can the UR5 sample, whose link frames sit at the centres of mass
(``d_{w,k} = 0``); [SWC16]'s 7-DoF arm does. Use ``reference="com"`` when a lesson needs the skew
property.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as validate
from .._operators import ad, rot6, skew
from ..conventions import ANG, BASE, LIN, spatial_vector
from ..kinematics import fk
from ._inputs import base_acceleration, state

REFERENCES = ("origin", "com")

#: ``Π = diag(1, 0)`` ([SWC16]'s ``E_k``): keeps the angular part of a twist.
E = np.diag([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])


def twist_propagation(a):
    """``Φ = [[1, 0], [−[a], 1]]`` (``Φ_{k,j}`` with ``a = Δp = O_k − O_j``): carries a twist from point
    ``O_j`` to ``O_k = O_j + a``.

    Convention: ``[ω; v_k] = Φ [ω; v_j]`` with ``v_k = v_j + ω × a`` (same body, same axes);
    ``Φᵀ`` carries a wrench ``[μ; f]`` back: ``μ_j = μ_k + a × f``.

    >>> import numpy as np
    >>> (twist_propagation([1.0, 0, 0]) @ [0, 0, 1.0, 0, 0, 0])[LIN]     # ω = z, 1 m out along x
    array([0., 1., 0.])
    """
    A = np.eye(6)
    A[LIN, ANG] = -skew(np.asarray(a, dtype=float))
    return A


def _W(omega):
    """``Ω_k = diag([ω], [ω]) = ad([ω; 0])`` (``W_k`` in code): ``d/dt`` of a body-fixed 6-vector is ``Ω_k`` times it."""
    return ad(spatial_vector(omega, np.zeros(3)))


def _joint_rate_vector(joint, T_0_k, O_k):
    """``S_{w,k}`` (``p_k`` in code): the twist (world axes, about the point ``O_k``) that a unit joint rate gives body ``k``."""
    R = T_0_k[:3, :3]
    e = R @ joint.axis
    p = np.zeros(6)
    if joint.is_revolute:
        r = R @ joint.point + T_0_k[:3, 3]                   # a point r_k on the axis, world
        p[ANG], p[LIN] = e, np.cross(e, O_k - r)
    else:
        p[LIN] = e
    return joint.scale * p


def _link_mass_matrix(model, k, R, reference):
    """``𝓘_{w,k}`` (``M_k`` in code): body ``k``'s spatial inertia in world axes, about the reference point
    (``"origin"``: ``O_k``; ``"com"``: the centre of mass)."""
    if reference == "origin":
        G = model.inertia[k]
    else:
        G = np.zeros((6, 6))
        G[ANG, ANG], G[LIN, LIN] = model.I_com[k], model.mass[k] * np.eye(3)
    X = rot6(R)
    return X @ G @ X.T


def denoc(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by the DeNOC recursion ([SWC16] eq. (15), trees allowed).

    Convention: see the module docstring — world axes, twists about the body origins ``O_k``,
    classical accelerations with ``V̇_{w,0} = [0; −g_phys]``; the result equals
    :func:`~lessonlib.dynamics.rnea.rnea`.

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` ``g_phys``, a world 3-vector (None: the model's
    default); ``f_ext`` (n, 6): ``f_ext[k-1] = F^ext_k = [μ; f]``, the wrench the environment applies
    on body ``k``, in **body frame** ``{k}``, moment about ``O_k`` (not world axes: the function rotates
    it) (None: no contact). Returns ``tau`` (n,). Cost O(n).

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                  # [RNE05]: two horizontal 1 m / 1 kg rods
    >>> denoc(arm, [0, 0], [0, 0], [0, 0], gravity=[0, -10, 0]).round(9) + 0.0
    array([20.,  5.])
    """
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    parent, n = model.parent, model.n
    T = np.zeros((n, 4, 4))
    A, p = np.zeros((n, 6, 6)), np.zeros((n, 6))
    t, t_dot, w = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    t_0_dot = base_acceleration(model, gravity)                   # V̇_{w,0} = [0; −g_phys] (world axes)
    for k in range(n):                                            # outward: twists, accelerations (body k+1)
        T_p_k = model.joint_transform(k, q[k])
        if parent[k] == BASE:
            T[k], O_p, t_p, t_p_dot = T_p_k, np.zeros(3), np.zeros(6), t_0_dot
        else:
            T[k] = T[parent[k]] @ T_p_k
            O_p, t_p, t_p_dot = T[parent[k]][:3, 3], t[parent[k]], t_dot[parent[k]]
        R_k, O_k = T[k][:3, :3], T[k][:3, 3]
        A[k] = twist_propagation(O_k - O_p)
        p[k] = _joint_rate_vector(model.joints[k], T[k], O_k)
        t[k] = A[k] @ t_p + p[k] * qd[k]
        A_dot = twist_propagation(t[k][LIN] - t_p[LIN]) - np.eye(6)       # Φ̇: lower-left −[Δṗ]
        W_k = _W(t[k][ANG])
        t_dot[k] = A[k] @ t_p_dot + A_dot @ t_p + p[k] * qdd[k] + W_k @ p[k] * qd[k]
        M_k = _link_mass_matrix(model, k, R_k, "origin")
        w[k] = M_k @ t_dot[k] + W_k @ M_k @ E @ t[k]
        if F_ext is not None:
            w[k] -= rot6(R_k) @ F_ext[k]                          # F^ext: body axes -> world axes, still about O_k
    tau = np.zeros(n)
    for k in reversed(range(n)):                                  # inward: wrenches F_{w,k}
        tau[k] = p[k] @ w[k]
        if parent[k] != BASE:
            w[parent[k]] += A[k].T @ w[k]
    return tau


@dataclass(frozen=True)
class DeNOCMatrices:
    """The DeNOC matrices of a configuration ([SWC16] eqs. (6)–(14)), for the lessons.

    ``N_l`` (6n, 6n) block lower-triangular, block ``(k, j)`` = ``Φ_{k,j}`` when ``j`` is ``k`` or an
    ancestor of ``k``, else 0; ``N_d`` (6n, n) block-diagonal in the ``S_{w,k}``; ``N = N_l N_d`` (6n, n);
    ``M_blk`` (6n, 6n) ``𝓘_w``, block-diagonal in the ``𝓘_{w,k}``; ``W`` (6n, 6n) ``𝛀``, block-diagonal
    in the ``Ω_k``; ``E`` (6n, 6n) ``𝚷``, block-diagonal in ``Π``; ``N_dot`` (6n, n) ``Ṅ``, the time
    derivative of ``N``; ``t`` (6n,) ``𝐕_w = N q̇``, the stacked twists ``V_{w,k}``; ``points`` (n, 3)
    the reference points (world); ``reference``: ``"origin"`` (body origins ``O_k``) or ``"com"``
    (centres of mass). Body ``k`` (``k = 1 .. n``) is block ``[6(k−1) : 6k]`` of a stacked vector.
    """

    N_l: np.ndarray
    N_d: np.ndarray
    N: np.ndarray
    M_blk: np.ndarray
    W: np.ndarray
    E: np.ndarray
    N_dot: np.ndarray
    t: np.ndarray
    points: np.ndarray
    reference: str


def _check_reference(reference):
    validate.one_of(reference, REFERENCES, "reference")


def denoc_matrices(model, q, qd=None, *, reference="origin"):
    """The DeNOC matrices ``N_l, N_d, N, 𝓘_w, 𝛀, 𝚷, Ṅ`` at ``(q, q̇)`` as a :class:`DeNOCMatrices`.

    ``qd`` (default zero) enters only the velocity-dependent ``𝛀``, ``Ṅ`` and ``𝐕_w`` (``W``,
    ``N_dot``, ``t`` in code); ``reference`` chooses the point each body's twist refers to:
    ``"origin"`` (Saha's ``O_k``, the body-frame origin) or ``"com"`` (the centre of mass). Dense
    matrices: O(n²) memory, for teaching; the recursion :func:`denoc` never forms them.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> mats = denoc_matrices(samples.planar_2link(), [0.0, 0.0], [1.0, 0.0])
    >>> mats.t[6:].round(12) + 0.0                    # V_{w,2}: body 2's origin 1 m out, at 1 m/s along y
    array([0., 0., 1., 0., 1., 0.])
    """
    _check_reference(reference)
    (q,) = state(model, q)
    qd = np.zeros(model.n) if qd is None else model.check_q(qd, "qd")
    n = model.n
    T = fk(model, q)
    P = np.array([T[k][:3, :3] @ (model.com[k] if reference == "com" else np.zeros(3)) + T[k][:3, 3]
                  for k in range(n)])
    N_l, N_d = np.zeros((6 * n, 6 * n)), np.zeros((6 * n, n))
    M_blk, W, E_blk = np.zeros((6 * n, 6 * n)), np.zeros((6 * n, 6 * n)), np.zeros((6 * n, 6 * n))
    for k in range(n):
        blk = slice(6 * k, 6 * k + 6)
        N_d[blk, k] = _joint_rate_vector(model.joints[k], T[k], P[k])
        M_blk[blk, blk] = _link_mass_matrix(model, k, T[k][:3, :3], reference)
        E_blk[blk, blk] = E
        for j in model.ancestors(k):
            N_l[blk, 6 * j:6 * j + 6] = twist_propagation(P[k] - P[j])
    N = N_l @ N_d
    t = N @ qd
    t_k = t.reshape(n, 6)                             # the twist V_{w,k} of each body
    N_l_dot = np.zeros_like(N_l)
    for k in range(n):
        blk = slice(6 * k, 6 * k + 6)
        W[blk, blk] = _W(t_k[k][ANG])
        for j in model.ancestors(k):                   # Φ̇_{k,j}: lower-left −[v_k − v_j]
            N_l_dot[blk, 6 * j:6 * j + 6] = twist_propagation(t_k[k][LIN] - t_k[j][LIN]) - np.eye(6)
    N_dot = N_l_dot @ N_d + N_l @ W @ N_d              # Ṡ_{w,k} = Ω_k S_{w,k}
    return DeNOCMatrices(N_l, N_d, N, M_blk, W, E_blk, N_dot, t, P, reference)


def generalized_inertia(model, q, *, reference="origin"):
    """``M(q) = Nᵀ 𝓘_w N``, the mass matrix ([SWC16]'s generalised inertia; equals CRBA's). O(n³), for teaching.

    >>> from lessonlib import samples
    >>> round(float(generalized_inertia(samples.pendulum(), [0.7])[0, 0]), 12)     # I_O = m L² / 3
    0.333333333333
    """
    mats = denoc_matrices(model, q, reference=reference)
    return mats.N.T @ mats.M_blk @ mats.N


def convective_inertia(model, q, qd, *, reference="origin"):
    """``C_DeNOC(q, q̇) = Nᵀ(𝓘_w Ṅ + 𝛀 𝓘_w 𝚷 N)``, [SWC16]'s convective inertia: ``C_DeNOC q̇ = c``, the
    velocity torques. In code ``𝓘_w, 𝛀, 𝚷`` are ``M_blk, W, E``.

    With ``reference="origin"`` (Saha's) ``Ṁ − 2C_DeNOC`` is in general **not** skew-symmetric; with
    ``reference="com"`` (twists about the centres of mass) it is. O(n³), for teaching.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.branched_tree()
    >>> q, qd = [0.1, 0.2, 0.3, 0.4, 0.5], [1.0, -2.0, 0.5, 1.5, -1.0]
    >>> C_O, C_C = convective_inertia(arm, q, qd), convective_inertia(arm, q, qd, reference="com")
    >>> bool(np.allclose(C_O, C_C)), bool(np.allclose(C_O @ qd, C_C @ qd))     # different C, same C q̇
    (False, True)
    """
    qd = model.check_q(qd, "qd")
    mats = denoc_matrices(model, q, qd, reference=reference)
    return mats.N.T @ (mats.M_blk @ mats.N_dot + mats.W @ mats.M_blk @ mats.E @ mats.N)
