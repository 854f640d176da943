"""Inverse dynamics by the Lie-group (product-of-exponentials) recursion in zero-configuration frames.

Course: [LG, the recursive formulas], after [Selig 2005] and [Park, Bobrow & Ploen 1995]. The same torques as the spatial
:func:`~lessonlib.dynamics.rnea.rnea`; what changes is where the quantities live.

Convention — the zero-configuration (home) frame, [LG]'s superscript ``0``: every quantity of
body ``i`` is pulled back to where body ``i`` sits at ``q = 0`` and written in world axes. With
``M_i`` the home pose of body ``i`` (the course's and Modern Robotics' name; ``M_home[i] =
fk(model, 0)[i]`` here), a body-frame twist ``v_i`` becomes ``V_i⁰ = Ad(M_i) v_i`` and a body-frame
wrench ``f_i`` (``f_ext`` included: body frame ``i``, about its origin) becomes ``Ad(M_i⁻¹)ᵀ f_i``. Because all
home frames are one fixed frame, consecutive bodies are related by the joint motion alone:

=================  ==========================================================  =========================
symbol ([LG])      meaning                                                     here
=================  ==========================================================  =========================
``s_i⁰``           joint screw at q = 0, world axes: ``Ad(M_i) S_i``            ``S0[i]``
``H_i``            ``Ad(exp(θ_i s_i⁰)) = exp(θ_i ad(s_i⁰))``                    ``H[i]``
``N_i⁰``           spatial inertia at home: ``Ad(M_i⁻¹)ᵀ I_i Ad(M_i⁻¹)``         ``N[i]``
``q̇_i⁰`` (V_i⁰)    twist of body i, pulled back to home                        ``V[i]``
``q̈_i⁰ − g_i⁰``    its acceleration with gravity folded in                     ``Vd_g[i]``
``g``              gravity as a twist acceleration ``[0; g]`` (world)          ``−a_0``
``Q_i⁰``           wrench body i needs (inertia, gyroscopic, minus contact)     ``Q[i]``
``P_i⁰``           wrench joint i transmits (Q of body i and everything outboard) ``P[i]``
``{s, M}``         ``−ad(s)ᵀ M`` (``ad_dual``)                                  ``ad_dual(s) @ M``
=================  ==========================================================  =========================

Outward pass, ``i = 0 .. n−1`` (parent ``p``; for the base ``V_p = 0``, ``q̈_p⁰ − g_p⁰ = [0; −g]``)::

    H_i = Ad(exp(θ_i s_i⁰))
    V_i⁰ = θ̇_i s_i⁰ + H_i⁻¹ V_p⁰
    (q̈_i⁰ − g_i⁰) = θ̈_i s_i⁰ + θ̇_i [V_i⁰, s_i⁰] + H_i⁻¹ (q̈_p⁰ − g_p⁰)          ([x, y] = ad(x) y)
    Q_i⁰ = N_i⁰ (q̈_i⁰ − g_i⁰) + {V_i⁰, N_i⁰ V_i⁰} − F_ext,i⁰

Inward pass, ``i = n−1 .. 0``: ``P_i⁰`` starts as ``Q_i⁰``, and then::

    τ_i = (P_i⁰)ᵀ s_i⁰,        P_p⁰ += H_i⁻ᵀ P_i⁰

([LG, the recursive formulas] writes ``P_i⁰ = Q_i⁰ + H_{i+1}⁻ᵀ P_{i+1}⁰`` for a 6-link chain; on a tree each body sends
its ``P`` to its parent). ``Joint.scale`` is part of ``S_i`` and so of ``s_i⁰``.
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
    """The two passes; returns ``(tau, M_home, S0, N, H, V, Vd_g, Q, P)``."""
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    parent, n = model.parent, model.n
    M_home = fk(model, np.zeros(n))                           # home poses M_i of the bodies
    S0 = np.array([Ad(M_home[i]) @ model.S[i] for i in range(n)])
    X_home = Ad_inv(M_home)                                   # Ad(M_i⁻¹): home frame -> body frame
    N = np.array([X_home[i].T @ model.inertia[i] @ X_home[i] for i in range(n)])
    H, H_inv = np.zeros((n, 6, 6)), np.zeros((n, 6, 6))
    V, Vd_g, Q = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    minus_g = base_acceleration(model, gravity)               # q̈_0 − g = [0; −g]
    for i in range(n):                                        # outward: motion
        H[i] = Ad(se3.exp(S0[i] * q[i]))
        H_inv[i] = Ad(se3.exp(-S0[i] * q[i]))
        V_p, Vd_g_p = (np.zeros(6), minus_g) if parent[i] == BASE else (V[parent[i]], Vd_g[parent[i]])
        V[i] = qd[i] * S0[i] + H_inv[i] @ V_p
        Vd_g[i] = qdd[i] * S0[i] + qd[i] * ad(V[i]) @ S0[i] + H_inv[i] @ Vd_g_p
        Q[i] = N[i] @ Vd_g[i] + ad_dual(V[i]) @ N[i] @ V[i]
        if F_ext is not None:
            Q[i] -= X_home[i].T @ F_ext[i]                    # body frame -> home frame
    P = Q.copy()
    tau = np.zeros(n)
    for i in reversed(range(n)):                              # inward: forces
        tau[i] = P[i] @ S0[i]
        if parent[i] != BASE:
            P[parent[i]] += H_inv[i].T @ P[i]
    return tau, M_home, S0, N, H, V, Vd_g, Q, P


def rnea_poe(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by [LG, the recursive formulas]'s Lie-group recursion in home frames.

    Convention: see the module docstring (zero-configuration frames, ``H_i = Ad(exp(θ_i s_i⁰))``,
    gravity folded in as ``q̈_0 − g = [0; −g]``); the result equals
    :func:`~lessonlib.dynamics.rnea.rnea`.

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` world 3-vector (None: the model's default);
    ``f_ext`` (n, 6) wrenches ``[n; f]`` the environment applies on the bodies, body frames, about
    the body origins (None: no contact). Returns ``tau`` (n,). Cost O(n).

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                  # [RNE05]: two horizontal 1 m / 1 kg rods
    >>> rnea_poe(arm, [0, 0], [0, 0], [0, 0], gravity=[0, -10, 0]).round(9) + 0.0
    array([20.,  5.])
    """
    return _rnea_poe(model, q, qd, qdd, gravity, f_ext)[0]


@dataclass(frozen=True)
class PoETrace:
    """Every intermediate value of one :func:`rnea_poe` call (for the lessons).

    ``M_home`` (n, 4, 4) home poses ``M_i`` (world, q = 0; ``M`` is its old name, kept as an alias);
    ``S0`` (n, 6) joint screws ``s_i⁰``;
    ``N`` (n, 6, 6) home-frame inertias ``N_i⁰``; ``H`` (n, 6, 6) ``Ad(exp(θ_i s_i⁰))``;
    ``V`` (n, 6) twists ``V_i⁰``; ``Vd_g`` (n, 6) ``q̈_i⁰ − g_i⁰``; ``Q`` (n, 6) body wrenches
    ``Q_i⁰``; ``P`` (n, 6) joint wrenches ``P_i⁰``; ``tau`` (n,). Identities: ``V_i⁰ = Ad(M_i) v_i``
    (``v_i`` the body twist) and the space twist of body ``i`` is ``H_{a_1} ⋯ H_{a_k} V_i⁰``, the
    product over the path ``a_1 .. a_k = i`` from the base ([LG, the recursive formulas]: ``q̇_j = H_1 H_2 ⋯ H_j q̇_j⁰``).
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
        """The old name of :attr:`M_home` (the letter ``M`` is the mass matrix elsewhere); use ``M_home``."""
        return self.M_home


def rnea_poe_trace(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """The same computation as :func:`rnea_poe`, returning a :class:`PoETrace` of every pass value.

    Arguments as for :func:`rnea_poe`: ``f_ext[i]`` the environment's wrench on body ``i``, in body
    frame ``i``, moment about its origin (the trace's wrenches are in home coordinates).

    >>> from lessonlib import samples
    >>> tr = rnea_poe_trace(samples.planar_2link(), [0.3, 0.0], [0, 0], [0, 0])
    >>> tr.S0[1].round(12) + 0.0                      # joint 2 at home: z-axis through (1, 0, 0)
    array([ 0.,  0.,  1.,  0., -1.,  0.])
    """
    return PoETrace(*_rnea_poe(model, q, qd, qdd, gravity, f_ext))
