"""Forward dynamics by the articulated-body algorithm (Featherstone; seed 000 §2.3), O(n).

Three passes in the course's notation (``X[i] = X_i_p``, ``a_0 = [0; −g]``):

1. outward — velocities ``v_i = X_i_p v_p + S_i q̇_i``; then, body by body (local, so for all
   bodies at once), the velocity-product acceleration ``c_i = ad(v_i) S_i q̇_i`` and
   ``I^A_i = I_i``, ``p^A_i = ad*(v_i) I_i v_i − f_ext,i``;
2. inward — articulated inertias: ``U_i = I^A_i S_i``, ``D_i = S_iᵀ U_i``,
   ``u_i = τ_i − S_iᵀ p^A_i``; the parent receives
   ``I^a = I^A_i − U_i U_iᵀ / D_i`` and ``p^a = p^A_i + I^a c_i + U_i u_i / D_i`` through ``X_i_p``;
3. outward — accelerations: ``a'_i = X_i_p a_p + c_i``, ``q̈_i = (u_i − U_iᵀ a'_i) / D_i``,
   ``a_i = a'_i + S_i q̈_i``.

Inside the loops ``A.dot(x)`` is ``A @ x`` (NumPy's ``@`` costs about twice as much on 6-vectors).
"""
from __future__ import annotations

import numpy as np

from ..conventions import BASE
from ..kinematics import _joint_transforms
from ._inputs import base_acceleration, state
from ._operators import ad, ad_dual, matvec

_ZERO = np.zeros(6)
_ZERO.setflags(write=False)


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
    S, I, parent, n = model.S, model.inertia, model.parent, model.n
    X = _joint_transforms(model, q)
    vJ = S * qd[:, None]                                 # joint velocities S_i q̇_i
    v = [None] * n
    for i in range(n):                                   # 1. outward: velocities
        p = parent[i]
        v[i] = X[i].dot(_ZERO if p == BASE else v[p]) + vJ[i]
    v = np.array(v).reshape(n, 6)
    c = -matvec(ad(vJ), v)                               # c_i = ad(v_i) S_i q̇_i = −ad(S_i q̇_i) v_i
    I_A = list(np.array(I))                              # articulated inertias and bias forces,
    p_A = list(matvec(ad_dual(v), matvec(I, v)))         # filled inward (rows: updated in place)
    if F_ext is not None:
        p_A = [p_A_i - F_i for p_A_i, F_i in zip(p_A, F_ext)]
    U, D, u = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):                         # 2. inward: articulated inertias
        S_i = S[i]
        U[i] = U_i = I_A[i].dot(S_i)
        D[i] = D_i = S_i.dot(U_i)
        u[i] = u_i = tau[i] - S_i.dot(p_A[i])
        p = parent[i]
        if p != BASE:
            X_i = X[i]
            I_a = I_A[i] - U_i[:, None] * (U_i / D_i)     # I^A_i − U_i U_iᵀ / D_i
            p_a = p_A[i] + I_a.dot(c[i]) + U_i * (u_i / D_i)
            I_A[p] += X_i.T.dot(I_a.dot(X_i))
            p_A[p] += X_i.T.dot(p_a)
    a_0 = base_acceleration(model, gravity)
    a, qdd = [None] * n, np.empty(n)
    for i in range(n):                                   # 3. outward: accelerations
        p = parent[i]
        a_i = X[i].dot(a_0 if p == BASE else a[p]) + c[i]
        qdd[i] = qdd_i = (u[i] - U[i].dot(a_i)) / D[i]
        a[i] = a_i + S[i] * qdd_i
    return qdd
