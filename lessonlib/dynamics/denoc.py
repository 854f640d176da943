"""Inverse dynamics with the decoupled natural orthogonal complement, DeNOC ([Saha 1999]; [SWC16]).

Course: [SWC16] (Shen, Wu & Chen 2016, after [Saha 1999] and [Angeles & Lee 1988]), whose equations
were images and are lost in the course's copy: the formulation below follows Saha's papers. The same torques as the spatial :func:`~lessonlib.dynamics.rnea.rnea`, derived the
other way round: write the *uncoupled* Newton–Euler equations of every link, then remove the
constraint wrenches by premultiplying with the orthogonal complement ``Nᵀ`` of the constraints.

Convention (Saha's classical formulation): every vector is in **world axes**; the twist of link
``k`` is ``t_k = [ω_k; v_k]`` with ``v_k`` the velocity of its reference point ``O_k`` (the origin of
body frame ``k``; :func:`denoc_matrices` can also take the mass centre ``C_k``); ``ṫ_k`` is its
**classical** time derivative (``v̇_k`` is the real acceleration of ``O_k`` — not Featherstone's
spatial acceleration); gravity is folded in as ``ṫ_0 = [0; −g]``; ``f_ext[i] = [n; f]`` is the
wrench the environment applies on body ``i`` (body frame ``i``, moment about its origin).

Symbols, and what they are in the spatial (Featherstone / Lie-group) vocabulary:

====================  ====================================================  =============================
Saha ([SWC16])       definition here                                       spatial / Lie-group name
====================  ====================================================  =============================
``t_k``               ``[ω_k; v_k]`` at ``O_k``, world axes                  twist ``diag(R_k, R_k) v_k``
``A_{k,j}``           ``[[1, O], [−[a]×, 1]]``, ``a = O_k − O_j``            ``Ad(Trans(−a))``: a shift of
                                                                            reference point (``xlt(a)``)
``p_k``               ``s [e_k; e_k × (O_k − r_k)]`` (revolute),            joint screw ``S_k`` in world
                      ``s [0; e_k]`` (prismatic)                            axes at ``O_k``
``M_k``               ``[[I_O, m[d]×], [−m[d]×, m1]]``, ``d = C_k − O_k``   spatial inertia ``I_k``, rotated
``W_k`` (Ω_k)         ``diag([ω_k]×, [ω_k]×)``                              ``ṫ`` of a body-fixed vector
``E_k``               ``diag(1, O)``                                        —
``N_l``, ``N_d``      block lower-triangular ``A_ij``; block-diagonal ``p_k``  Modern Robotics' ``L``, ``A``
``N = N_l N_d``       ``t = N θ̇``                                           the stacked Jacobians
``I = Nᵀ M N``        generalised inertia                                   ``M(q)`` (CRBA)
``C = Nᵀ(M Ṅ + W M E N)``  convective inertia                               ``C(q, q̇)`` (one factorisation)
====================  ====================================================  =============================

``e_k`` is the joint's unit axis, ``r_k`` a point on it, ``s`` the joint's ``scale`` (1 for every
real joint), all in world axes. Saha puts ``O_k`` on joint axis ``k`` and writes ``p_k = [e_k; 0]``;
with standard-DH frames (``O_k`` off the axis) the term ``e_k × (O_k − r_k)`` is the velocity of
``O_k`` that the joint itself produces. ``A_{i,j}`` for a non-adjacent pair is the product along the
path, which is again ``[[1, O], [−[O_i − O_j]×, 1]]``; on a tree ``A_ij = 0`` unless ``j`` is an
ancestor of ``i`` (or ``i`` itself).

Recursion (two flat loops; ``k−1`` is the parent ``p``, ``t_0 = 0``, ``O_0`` the world origin)::

    t_k = A_{k,p} t_p + p_k θ̇_k
    ṫ_k = A_{k,p} ṫ_p + Ȧ_{k,p} t_p + p_k θ̈_k + W_k p_k θ̇_k     (ṗ_k = W_k p_k)
    w_k = M_k ṫ_k + W_k M_k E_k t_k − w_k^ext                      (uncoupled Newton–Euler)
    τ_k = p_kᵀ w_k,      w_p += A_{k,p}ᵀ w_k                       (inward, k = n−1 .. 0)

``Ȧ_{k,p}`` has lower-left block ``−[ȧ]×`` with ``ȧ = v_k − v_p`` (which is ``ω_p × a`` when
``O_k`` is fixed in link ``p``, as in Saha's papers; with a prismatic joint or ``O_k`` off the axis
the joint's own motion adds to it).

What we checked about ``W M E t``: it gives ``[ω × I_O ω; m ω × (ω × d)]``, and with
``M ṫ = [I_O ω̇ + m d × v̇_O; m (v̇_O + ω̇ × d)]`` this is exactly Newton's and Euler's laws about a
body point ``O`` that is not the mass centre (moment ``I_O ω̇ + ω × I_O ω + m d × v̇_O``, force
``m a_C``). So the form is right for any reference point; the tests confirm it against the RNEA.

Skew-symmetry: ``C θ̇`` is the right velocity term for either reference point, but ``İ − 2C`` is
skew-symmetric only when the twists are referenced at the **mass centres**
(``M_k = diag(I_C, m1)``: then ``Ṁ − 2WME = diag(−[ω]I_C − I_C[ω], O)`` is skew). Referenced at
``O_k ≠ C_k`` the ``m[d]×`` blocks break it: the symmetric part of ``İ − 2C`` is then
``Σ_k m_k (J_ωkᵀ [ω_k]×[d_k]× J_vk + J_vkᵀ [d_k]×[ω_k]× J_ωk)`` (``J_ωk, J_vk`` the angular and
linear rows of ``N`` for link ``k``). It vanishes when every ``d_k = 0`` (``reference="com"``) and
also, by accident, when all joint axes stay parallel (planar arms, SCARA: ``ω_k`` is along every
revolute axis, so ``J_ωkᵀ [ω_k]× = 0``) — a planar example cannot show the difference, and neither can
the UR5 sample, whose link frames sit at the mass centres (``d_k = 0``); [SWC16]'s 7-DoF arm does.
Use ``reference="com"`` when a lesson needs the skew property.
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

#: ``E_k = diag(1, O)``: keeps the angular part of a twist.
E = np.diag([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])


def twist_propagation(a):
    """``A = [[1, O], [−[a]×, 1]]``: carries a twist from point ``O_j`` to ``O_k = O_j + a``.

    Convention: ``[ω; v_k] = A [ω; v_j]`` with ``v_k = v_j + ω × a`` (same body, same axes);
    ``Aᵀ`` carries a wrench back: ``n_j = n_k + a × f``.

    >>> import numpy as np
    >>> (twist_propagation([1.0, 0, 0]) @ [0, 0, 1.0, 0, 0, 0])[LIN]     # ω = z, 1 m out along x
    array([0., 1., 0.])
    """
    A = np.eye(6)
    A[LIN, ANG] = -skew(np.asarray(a, dtype=float))
    return A


def _W(omega):
    """``W_k = diag([ω]×, [ω]×) = ad([ω; 0])`` ([SWC16]'s Ω_k): ``d/dt`` of a body-fixed 6-vector is ``W_k`` times it."""
    return ad(spatial_vector(omega, np.zeros(3)))


def _joint_rate_vector(joint, T_0_k, O_k):
    """``p_k``: the twist (world axes, at point ``O_k``) that a unit joint rate gives link ``k``."""
    R = T_0_k[:3, :3]
    e = R @ joint.axis
    p = np.zeros(6)
    if joint.is_revolute:
        r = R @ joint.point + T_0_k[:3, 3]                   # a point on the axis, world
        p[ANG], p[LIN] = e, np.cross(e, O_k - r)
    else:
        p[LIN] = e
    return joint.scale * p


def _link_mass_matrix(model, k, R, reference):
    """``M_k`` in world axes about the reference point (``"origin"``: ``O_k``; ``"com"``: ``C_k``)."""
    if reference == "origin":
        G = model.inertia[k]
    else:
        G = np.zeros((6, 6))
        G[ANG, ANG], G[LIN, LIN] = model.I_com[k], model.mass[k] * np.eye(3)
    X = rot6(R)
    return X @ G @ X.T


def denoc(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by the DeNOC recursion ([SWC16] eq. (15), trees allowed).

    Convention: see the module docstring — world axes, twists at the body origins ``O_k``,
    classical accelerations with ``ṫ_0 = [0; −g]``; the result equals
    :func:`~lessonlib.dynamics.rnea.rnea`.

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` world 3-vector (None: the model's default);
    ``f_ext`` (n, 6) wrenches ``[n; f]`` the environment applies on the bodies, body frames, about
    the body origins (None: no contact). Returns ``tau`` (n,). Cost O(n).

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
    t_0_dot = base_acceleration(model, gravity)                   # ṫ_0 = [0; −g] (world axes)
    for k in range(n):                                            # outward: twists, accelerations
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
        A_dot = twist_propagation(t[k][LIN] - t_p[LIN]) - np.eye(6)       # lower-left −[ȧ]×
        W_k = _W(t[k][ANG])
        t_dot[k] = A[k] @ t_p_dot + A_dot @ t_p + p[k] * qdd[k] + W_k @ p[k] * qd[k]
        M_k = _link_mass_matrix(model, k, R_k, "origin")
        w[k] = M_k @ t_dot[k] + W_k @ M_k @ E @ t[k]
        if F_ext is not None:
            w[k] -= rot6(R_k) @ F_ext[k]                          # body axes -> world axes, still about O_k
    tau = np.zeros(n)
    for k in reversed(range(n)):                                  # inward: wrenches
        tau[k] = p[k] @ w[k]
        if parent[k] != BASE:
            w[parent[k]] += A[k].T @ w[k]
    return tau


@dataclass(frozen=True)
class DeNOCMatrices:
    """The DeNOC matrices of a configuration ([SWC16] eqs. (6)–(14)), for the lessons.

    ``N_l`` (6n, 6n) block lower-triangular, block ``(i, j)`` = ``A_ij`` when ``j`` is ``i`` or an
    ancestor of ``i``, else 0; ``N_d`` (6n, n) block-diagonal in the ``p_k``; ``N = N_l N_d`` (6n, n);
    ``M_blk`` (6n, 6n) block-diagonal in the ``M_k``; ``W`` (6n, 6n) block-diagonal in the ``W_k``;
    ``E`` (6n, 6n) block-diagonal in the ``E_k``; ``N_dot`` (6n, n) the time derivative of ``N``;
    ``t`` (6n,) the stacked twists ``N θ̇``; ``points`` (n, 3) the reference points (world);
    ``reference``: ``"origin"`` (body origins ``O_k``) or ``"com"`` (mass centres ``C_k``).
    Block ``k`` of a stacked vector is ``[6k : 6k + 6]``.
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
    """The DeNOC matrices ``N_l, N_d, N, M, W, E, Ṅ`` at ``(q, q̇)`` as a :class:`DeNOCMatrices`.

    ``qd`` (default zero) enters only the velocity-dependent ``W``, ``Ṅ`` and ``t``;
    ``reference`` chooses the point each link's twist refers to: ``"origin"`` (Saha's ``O_k``,
    the body-frame origin) or ``"com"`` (the mass centre). Dense matrices: O(n²) memory, for
    teaching; the recursion :func:`denoc` never forms them.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> mats = denoc_matrices(samples.planar_2link(), [0.0, 0.0], [1.0, 0.0])
    >>> mats.t[6:].round(12) + 0.0                    # link 2 origin: 1 m out, moving at 1 m/s along y
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
    t_k = t.reshape(n, 6)                             # the twist of each link
    N_l_dot = np.zeros_like(N_l)
    for k in range(n):
        blk = slice(6 * k, 6 * k + 6)
        W[blk, blk] = _W(t_k[k][ANG])
        for j in model.ancestors(k):                   # d/dt A_kj: lower-left −[v_k − v_j]×
            N_l_dot[blk, 6 * j:6 * j + 6] = twist_propagation(t_k[k][LIN] - t_k[j][LIN]) - np.eye(6)
    N_dot = N_l_dot @ N_d + N_l @ W @ N_d              # ṗ_k = W_k p_k
    return DeNOCMatrices(N_l, N_d, N, M_blk, W, E_blk, N_dot, t, P, reference)


def generalized_inertia(model, q, *, reference="origin"):
    """``I(θ) = Nᵀ M N``, the generalised inertia (the mass matrix; equals CRBA's). O(n³), for teaching.

    >>> from lessonlib import samples
    >>> round(float(generalized_inertia(samples.pendulum(), [0.7])[0, 0]), 12)     # I_O = m L² / 3
    0.333333333333
    """
    mats = denoc_matrices(model, q, reference=reference)
    return mats.N.T @ mats.M_blk @ mats.N


def convective_inertia(model, q, qd, *, reference="origin"):
    """``C(θ, θ̇) = Nᵀ(M Ṅ + W M E N)``, [SWC16]'s convective inertia: ``C θ̇`` = the velocity torques.

    With ``reference="origin"`` (Saha's) ``İ − 2C`` is in general **not** skew-symmetric; with
    ``reference="com"`` (twists at the mass centres) it is. O(n³), for teaching.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.branched_tree()
    >>> q, qd = [0.1, 0.2, 0.3, 0.4, 0.5], [1.0, -2.0, 0.5, 1.5, -1.0]
    >>> C_O, C_C = convective_inertia(arm, q, qd), convective_inertia(arm, q, qd, reference="com")
    >>> bool(np.allclose(C_O, C_C)), bool(np.allclose(C_O @ qd, C_C @ qd))     # different C, same C θ̇
    (False, True)
    """
    qd = model.check_q(qd, "qd")
    mats = denoc_matrices(model, q, qd, reference=reference)
    return mats.N.T @ (mats.M_blk @ mats.N_dot + mats.W @ mats.M_blk @ mats.E @ mats.N)
