"""Forward dynamics by the articulated-body algorithm (Featherstone; seed 000 §2.3), O(n).

Three passes in the course's notation (``X[i] = X_i_p``, ``a_0 = [0; −g]``):

1. outward — velocities and velocity-product accelerations:
   ``v_i = X_i_p v_p + S_i q̇_i``, ``c_i = ad(v_i) S_i q̇_i``,
   ``I^A_i = I_i``, ``p^A_i = ad*(v_i) I_i v_i − f_ext,i``;
2. inward — articulated inertias: ``U_i = I^A_i S_i``, ``D_i = S_iᵀ U_i``,
   ``u_i = τ_i − S_iᵀ p^A_i``; the parent receives
   ``I^a = I^A_i − U_i U_iᵀ / D_i`` and ``p^a = p^A_i + I^a c_i + U_i u_i / D_i`` through ``X_i_p``;
3. outward — accelerations: ``a'_i = X_i_p a_p + c_i``, ``q̈_i = (u_i − U_iᵀ a'_i) / D_i``,
   ``a_i = a'_i + S_i q̈_i``.
"""
from __future__ import annotations

import numpy as np

from ..conventions import BASE
from ..kinematics import joint_transforms
from ..se3 import ad, ad_dual
from ._inputs import base_acceleration, state


def aba(model, q, qd, tau, *, gravity=None, f_ext=None):
    """Joint accelerations ``q̈ = FD(q, q̇, τ)`` by the articulated-body algorithm.

    ``f_ext`` (n, 6): wrenches the environment applies on the bodies (body frames).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.pendulum()                       # horizontal rod released: q̈ = m g ℓ / I_O
    >>> aba(arm, [np.pi / 2], [0.0], [0.0]).round(10)
    array([-14.715])
    """
    q, qd = state(model, q, qd)
    tau = model.check_q(tau, "tau")
    F_ext = model.check_f_ext(f_ext)
    S, parent, n = model.S, model.parent, model.n
    X = joint_transforms(model, q)
    v, c = np.zeros((n, 6)), np.zeros((n, 6))
    I_A, p_A = np.array(model.inertia), np.zeros((n, 6))
    for i in range(n):                                   # 1. outward: velocities
        v_p = np.zeros(6) if parent[i] == BASE else v[parent[i]]
        v[i] = X[i] @ v_p + S[i] * qd[i]
        c[i] = ad(v[i]) @ S[i] * qd[i]
        p_A[i] = ad_dual(v[i]) @ I_A[i] @ v[i]
        if F_ext is not None:
            p_A[i] -= F_ext[i]
    U, D, u = np.zeros((n, 6)), np.zeros(n), np.zeros(n)
    for i in reversed(range(n)):                         # 2. inward: articulated inertias
        U[i] = I_A[i] @ S[i]
        D[i] = S[i] @ U[i]
        u[i] = tau[i] - S[i] @ p_A[i]
        if parent[i] != BASE:
            I_a = I_A[i] - np.outer(U[i], U[i]) / D[i]
            p_a = p_A[i] + I_a @ c[i] + U[i] * u[i] / D[i]
            I_A[parent[i]] += X[i].T @ I_a @ X[i]
            p_A[parent[i]] += X[i].T @ p_a
    a_0 = base_acceleration(model, gravity)
    a, qdd = np.zeros((n, 6)), np.zeros(n)
    for i in range(n):                                   # 3. outward: accelerations
        a_p = a_0 if parent[i] == BASE else a[parent[i]]
        a[i] = X[i] @ a_p + c[i]
        qdd[i] = (u[i] - U[i] @ a[i]) / D[i]
        a[i] += S[i] * qdd[i]
    return qdd
