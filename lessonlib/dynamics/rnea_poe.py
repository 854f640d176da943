"""Inverse dynamics by the Lie-group (product-of-exponentials) recursion in zero-configuration frames.

Course: [LG, the recursive formulas], after [Selig 2005] and [Park, Bobrow & Ploen 1995]; lesson 06. The
same torques as the spatial :func:`~lessonlib.dynamics.rnea.rnea`; what changes is where the
quantities live.

Convention — the zero-configuration (home) frame, superscript ``0`` (``course/NOTATION.md``; [LG]'s
superscript ``0`` too): every quantity of body ``i`` is pulled back to where body ``i`` sits at ``q = 0``
and written in world axes. With ``T_{0,i}(0)`` the home pose of body ``i`` (Modern Robotics' ``M_i``;
``M_home[i-1] = fk(model, 0)[i-1]`` here — ``M`` alone is the mass matrix), a body-frame twist
``V_i`` becomes ``V^0_i = Ad(T_{0,i}(0)) V_i`` and a body-frame wrench ``F_i`` (``F^ext_i`` included:
``f_ext[i-1]``, body frame ``{i}``, about ``O_i``) becomes ``Ad(T_{0,i}(0)⁻¹)ᵀ F_i``. Because all home
frames are one fixed frame, consecutive bodies are related by the joint motion alone. Bodies and
joints are ``i = 1 .. n``, entry ``i-1`` of every array.

=====================  ================================================================  ==============  =========================
course                 meaning                                                           [LG]            code
=====================  ================================================================  ==============  =========================
``S^0_i``              joint screw at q = 0, world axes: ``Ad(T_{0,i}(0)) S_i``           ``s_i⁰``        ``S0[i-1]``
``H_i``                ``Ad(exp(S^0_i q_i)) = exp(q_i ad(S^0_i))``                       ``H_i``         ``H[i-1]``
``𝓘^0_i``              spatial inertia at home: ``Ad(T_{0,i}(0)⁻¹)ᵀ 𝓘_i Ad(T_{0,i}(0)⁻¹)``  ``N_i⁰``        ``N[i-1]``
``V^0_i``              twist of body i, pulled back to home                              ``q̇_i⁰``        ``V[i-1]``
``A^0_i``              its spatial acceleration with gravity folded in                   ``q̈_i⁰ − g_i⁰``  ``Vd_g[i-1]``
``A_0 = [0; −g_phys]``  gravity as the base's acceleration (world)                        ``−g``          ``base_acceleration``
``F^{0,self}_i``       wrench body i needs (inertia, gyroscopic, minus contact)          ``Q_i⁰``        ``Q[i-1]``
``F^0_i``              wrench joint i transmits (body i and everything outboard)         ``P_i⁰``        ``P[i-1]``
``ad*(V) 𝓘V``          ``−ad(V)ᵀ 𝓘V`` (``ad_dual``)                                        ``{s, M}``      ``ad_dual(V) @ N @ V``
=====================  ================================================================  ==============  =========================

Outward pass, ``i = 1 .. n`` (``p = parent(i)``; for the base ``V^0_0 = 0``, ``A^0_0 = A_0 = [0; −g_phys]``)::

    H_i = Ad(exp(S^0_i q_i))
    V^0_i = S^0_i q̇_i + H_i⁻¹ V^0_p
    A^0_i = S^0_i q̈_i + [V^0_i, S^0_i] q̇_i + H_i⁻¹ A^0_p                  ([ξ, η] = ad(ξ) η)
    F^{0,self}_i = 𝓘^0_i A^0_i + ad*(V^0_i) 𝓘^0_i V^0_i − Ad(T_{0,i}(0)⁻¹)ᵀ F^ext_i

Inward pass, ``i = n .. 1``: ``F^0_i`` starts as ``F^{0,self}_i``, and then::

    τ_i = S^0_iᵀ F^0_i,        F^0_p += H_i⁻ᵀ F^0_i

([LG, the recursive formulas] writes ``F^0_i = F^{0,self}_i + H_{i+1}⁻ᵀ F^0_{i+1}`` for a 6-link chain; on a
tree each body sends its ``F^0`` to its parent). ``Joint.scale`` is part of ``S_i`` and so of ``S^0_i``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import se3
from .._operators import Ad, Ad_inv, ad, ad_dual
from ..conventions import BASE
from ..kinematics import fk
from ._inputs import base_acceleration, state


def _rnea_poe(model, q, qd, qdd, gravity, f_ext):
    """The two passes; returns ``(tau, M_home, S0, N, H, V, Vd_g, Q, P)`` (see :class:`PoETrace`)."""
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    parent, n = model.parent, model.n
    M_home = fk(model, np.zeros(n))                           # home poses T_{0,i}(0) of the bodies
    S0 = np.array([Ad(M_home[i]) @ model.S[i] for i in range(n)])
    X_home = Ad_inv(M_home)                                   # Ad(T_{0,i}(0)⁻¹): home frame -> body frame
    N = np.array([X_home[i].T @ model.inertia[i] @ X_home[i] for i in range(n)])
    H, H_inv = np.zeros((n, 6, 6)), np.zeros((n, 6, 6))
    V, Vd_g, Q = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    minus_g = base_acceleration(model, gravity)               # A_0 = [0; −g_phys]
    for i in range(n):                                        # outward: motion
        H[i] = Ad(se3.exp(S0[i] * q[i]))
        H_inv[i] = Ad(se3.exp(-S0[i] * q[i]))
        V_p, Vd_g_p = (np.zeros(6), minus_g) if parent[i] == BASE else (V[parent[i]], Vd_g[parent[i]])
        V[i] = qd[i] * S0[i] + H_inv[i] @ V_p
        Vd_g[i] = qdd[i] * S0[i] + qd[i] * ad(V[i]) @ S0[i] + H_inv[i] @ Vd_g_p
        Q[i] = N[i] @ Vd_g[i] + ad_dual(V[i]) @ N[i] @ V[i]
        if F_ext is not None:
            Q[i] -= X_home[i].T @ F_ext[i]                    # F^ext: body frame -> home frame
    P = Q.copy()
    tau = np.zeros(n)
    for i in reversed(range(n)):                              # inward: forces
        tau[i] = P[i] @ S0[i]
        if parent[i] != BASE:
            P[parent[i]] += H_inv[i].T @ P[i]
    return tau, M_home, S0, N, H, V, Vd_g, Q, P


def rnea_poe(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by [LG, the recursive formulas]'s Lie-group recursion in home frames.

    Convention: see the module docstring (zero-configuration frames, ``H_i = Ad(exp(S^0_i q_i))``,
    gravity folded in as ``A_0 = [0; −g_phys]``); the result equals
    :func:`~lessonlib.dynamics.rnea.rnea`.

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` ``g_phys``, a world 3-vector (None: the model's
    default); ``f_ext`` (n, 6): ``f_ext[i-1] = F^ext_i = [μ; f]``, the wrench the environment applies
    on body ``i``, in **body frame** ``{i}``, moment about ``O_i`` (not the home frame: the function
    moves it there) (None: no contact). Returns ``tau`` (n,). Cost O(n).

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                  # [RNE05]: two horizontal 1 m / 1 kg rods
    >>> rnea_poe(arm, [0, 0], [0, 0], [0, 0], gravity=[0, -10, 0]).round(9) + 0.0
    array([20.,  5.])
    """
    return _rnea_poe(model, q, qd, qdd, gravity, f_ext)[0]


@dataclass(frozen=True)
class PoETrace:
    """Every intermediate value of one :func:`rnea_poe` call (for the lessons).

    Row ``i-1`` of each array is body (joint) ``i``. ``M_home`` (n, 4, 4) home poses ``T_{0,i}(0)``
    (world, q = 0; ``M`` is its old name, kept as an alias); ``S0`` (n, 6) joint screws ``S^0_i``;
    ``N`` (n, 6, 6) home-frame inertias ``𝓘^0_i``; ``H`` (n, 6, 6) ``H_i = Ad(exp(S^0_i q_i))``;
    ``V`` (n, 6) twists ``V^0_i``; ``Vd_g`` (n, 6) spatial accelerations ``A^0_i`` (gravity included);
    ``Q`` (n, 6) body wrenches ``F^{0,self}_i``; ``P`` (n, 6) joint wrenches ``F^0_i``; ``tau`` (n,).
    Identities: ``V^0_i = Ad(T_{0,i}(0)) V_i`` (``V_i`` the body twist) and the space twist of body
    ``i`` is ``V_{s,i} = H_{a_1} ⋯ H_{a_k} V^0_i``, the product over the path ``a_1 .. a_k = i`` from
    the base ([LG, the recursive formulas], on a chain: ``V_{s,j} = H_1 H_2 ⋯ H_j V^0_j``).
    """

    tau: np.ndarray
    M_home: np.ndarray
    S0: np.ndarray
    N: np.ndarray
    H: np.ndarray
    V: np.ndarray
    Vd_g: np.ndarray
    Q: np.ndarray
    P: np.ndarray

    @property
    def M(self):
        """The old name of :attr:`M_home` (the letter ``M`` is the mass matrix); use ``M_home``."""
        return self.M_home


def rnea_poe_trace(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """The same computation as :func:`rnea_poe`, returning a :class:`PoETrace` of every pass value.

    Arguments as for :func:`rnea_poe`: ``f_ext[i-1] = F^ext_i`` the environment's wrench on body ``i``,
    in body frame ``{i}``, moment about ``O_i`` (the trace's wrenches are in home coordinates).

    >>> from lessonlib import samples
    >>> tr = rnea_poe_trace(samples.planar_2link(), [0.3, 0.0], [0, 0], [0, 0])
    >>> tr.S0[1].round(12) + 0.0                      # joint 2 at home: z-axis through (1, 0, 0)
    array([ 0.,  0.,  1.,  0., -1.,  0.])
    """
    return PoETrace(*_rnea_poe(model, q, qd, qdd, gravity, f_ext))
