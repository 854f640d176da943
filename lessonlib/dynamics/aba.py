"""Forward dynamics by the articulated-body algorithm ([WJ §2.3], [Featherstone 2008] §7.3), O(n).

Convention: spatial vectors ``[ω; v]`` / ``[n; f]`` in body coordinates; ``X[i] = X_i_p`` maps
parent motion into body ``i``; gravity enters as the base acceleration ``a_0 = [0; −g]``;
``f_ext[i]`` is the wrench the environment applies on body ``i`` (body frame, about its origin).

1. outward — velocities, and each body's velocity-product acceleration and bias force::

       v_i = X_i v_p + S_i q̇_i,     c_i = ad(v_i) S_i q̇_i,
       I^A_i = I_i,                 p^A_i = ad*(v_i) I_i v_i − f_ext,i

2. inward — articulated inertias; each body hands its parent what its subtree weighs through
   joint ``i`` (the joint's own direction removed)::

       U_i = I^A_i S_i,   D_i = S_iᵀ U_i,   u_i = τ_i − S_iᵀ p^A_i
       I^a_i = I^A_i − U_i U_iᵀ / D_i,      p^a_i = p^A_i + I^a_i c_i + U_i u_i / D_i
       I^A_p += X_iᵀ I^a_i X_i,              p^A_p += X_iᵀ p^a_i

3. outward — accelerations::

       a'_i = X_i a_p + c_i,   q̈_i = (u_i − U_iᵀ a'_i) / D_i,   a_i = a'_i + S_i q̈_i

``D_i`` is the articulated inertia about joint ``i``'s axis; it vanishes only when what moves
with the joint has no inertia about its axis (a thin rod spinning about its own axis): then the
mass matrix is singular and :func:`aba` raises ``ValueError`` naming the joint. What is local to
one body is evaluated for every body at once (``p^A_i`` reuses the ``ad(v_i)`` of ``c_i``, as
``ad*(v) = −ad(v)ᵀ``); the loops index Python lists of per-body arrays (cheaper than slicing a
stacked array; ``v_rows`` holds the rows of ``v``, so ``v_i += X_i v_p`` completes ``v``) and
``A.dot(x)`` is ``A @ x`` (on 6-vectors NumPy's ``@`` costs about twice as much).
"""
from __future__ import annotations

import numpy as np

from .._operators import ad, matvec
from ..conventions import BASE
from ..kinematics import joint_transforms
from ._inputs import base_acceleration, singular_mass_matrix, smallest_pivot, state


def aba(model, q, qd, tau, *, gravity=None, f_ext=None):
    """Joint accelerations ``q̈ = FD(q, q̇, τ)`` by the articulated-body algorithm.

    ``f_ext`` (n, 6): ``f_ext[i] = [n; f]`` is the wrench the environment applies on body ``i``, in
    body frame ``i``, moment about its origin (None: none). ``ValueError`` when the mass matrix is
    singular (see the module docstring).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.pendulum()                       # horizontal rod released: q̈ = m g ℓ / I_O
    >>> aba(arm, [np.pi / 2], [0.0], [0.0]).round(10)
    array([-14.715])
    """
    q, qd = state(model, q, qd)
    tau = model.check_q(tau, "tau")
    F_ext = model.check_f_ext(f_ext)
    parent, n = model.parent, model.n
    S, I = list(model.S), model.inertia                  # per-body values as lists: the loops index them
    X = list(joint_transforms(model, q, checked=False))  # q checked above
    vJ = model.S * qd[:, None]                           # S_i q̇_i of every joint
    v = vJ.copy()
    v_rows = list(v)
    for i in range(n):                                   # 1. outward: velocities
        p = parent[i]
        if p != BASE:
            v_rows[i] += X[i].dot(v_rows[p])             # v_i = X_i v_p + S_i q̇_i
    ad_v = ad(v)
    c = list(matvec(ad_v, vJ))                           # c_i = ad(v_i) S_i q̇_i, every body at once
    I_A = list(np.array(I))                              # articulated inertias and bias forces,
    p_A = -matvec(ad_v.transpose(0, 2, 1), matvec(I, v))  # ad*(v_i) I_i v_i (ad* = −adᵀ), completed inward
    if F_ext is not None:
        p_A -= F_ext
    p_A = list(p_A)
    D_min = smallest_pivot(model)                        # D_i below this: a singular mass matrix
    U, D, u = [None] * n, [0.0] * n, [0.0] * n
    for i in reversed(range(n)):                         # 2. inward: articulated inertias
        U[i] = I_A[i].dot(S[i])
        D[i] = S[i].dot(U[i])
        u[i] = tau[i] - S[i].dot(p_A[i])
        if not D[i] > D_min:
            raise singular_mass_matrix(model, i, f"D_{i} = S_iᵀ I^A_i S_i", D[i])
        p = parent[i]
        if p != BASE:
            U_D = U[i] / D[i]
            I_a = I_A[i] - U[i][:, None] * U_D               # I^A_i − U_i U_iᵀ / D_i
            p_a = p_A[i] + I_a.dot(c[i]) + U_D * u[i]        # p^A_i + I^a_i c_i + U_i u_i / D_i
            I_A[p] += X[i].T.dot(I_a).dot(X[i])
            p_A[p] += p_a.dot(X[i])                      # X_iᵀ p^a_i
    a_0 = base_acceleration(model, gravity)
    a, qdd = [None] * n, np.empty(n)
    for i in range(n):                                   # 3. outward: accelerations
        p = parent[i]
        a_i = X[i].dot(a_0 if p == BASE else a[p]) + c[i]
        qdd[i] = (u[i] - U[i].dot(a_i)) / D[i]
        a[i] = a_i + S[i] * qdd[i]
    return qdd
