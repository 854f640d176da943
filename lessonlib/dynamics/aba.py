"""Forward dynamics by the articulated-body algorithm ([WJ §2.3], [Featherstone 2008] §7.3), O(n).

Convention (``course/NOTATION.md``, lesson 09): bodies and joints ``i = 1 .. n``, entry ``i-1`` of every
array; 6-vectors of body ``i`` in body frame ``{i}``, about ``O_i``: twists ``V_i = [ω; v]``, spatial
accelerations ``A_i``, wrenches ``[μ; f]``; ``X_i`` maps the parent's motion into ``{i}``; ``𝓘_i`` is
body ``i``'s spatial inertia; gravity enters as the base acceleration ``A_0 = [0; −g_phys]``;
``f_ext[i-1] = F^ext_i`` is the wrench the environment applies on body ``i``, in body frame ``{i}``,
moment about ``O_i``. ``p = parent(i)``.

1. outward — velocities, and each body's velocity-product acceleration and bias wrench::

       V_i = X_i V_p + S_i q̇_i,     A^×_i = V_i × S_i q̇_i,
       𝓘^A_i = 𝓘_i,                 F^A_i = V_i ×* 𝓘_i V_i − F^ext_i

2. inward, ``i = n .. 1`` — articulated inertias; each body hands its parent what its subtree weighs
   through joint ``i`` (the joint's own direction removed)::

       D_i = S_iᵀ 𝓘^A_i S_i
       𝓘^a_i = 𝓘^A_i − 𝓘^A_i S_i S_iᵀ 𝓘^A_i / D_i
       F^a_i = F^A_i + 𝓘^a_i A^×_i + 𝓘^A_i S_i (τ_i − S_iᵀ F^A_i) / D_i
       𝓘^A_p += X_iᵀ 𝓘^a_i X_i,              F^A_p += X_iᵀ F^a_i

3. outward — accelerations::

       A'_i = X_i A_p + A^×_i
       q̈_i = (τ_i − S_iᵀ F^A_i − S_iᵀ 𝓘^A_i A'_i) / D_i
       A_i = A'_i + S_i q̈_i

``D_i`` is the articulated inertia about joint ``i``'s axis; it vanishes only when what moves
with the joint has no inertia about its axis (a thin rod spinning about its own axis): then the
mass matrix is singular and :func:`aba` raises ``ValueError`` naming the joint. The code's names
(Featherstone's): ``v, a`` for ``V, A``; ``c`` for ``A^×``; ``I, I_A, I_a`` for ``𝓘, 𝓘^A, 𝓘^a``;
``p_A, p_a`` for ``F^A, F^a``; ``U_i = 𝓘^A_i S_i`` and ``u_i = τ_i − S_iᵀ F^A_i`` (code ``U``, ``u``);
``a_i`` in loop 3 is first ``A'_i``. What is local to one body is evaluated for every body at once
(``F^A_i`` reuses the ``ad(V_i)`` of ``A^×_i``, as ``ad*(V) = −ad(V)ᵀ``); the loops index Python lists
of per-body arrays (cheaper than slicing a stacked array; ``v_rows`` holds the rows of ``v``, so
``V_i += X_i V_p`` completes ``v``) and ``A.dot(x)`` is ``A @ x`` (on 6-vectors NumPy's ``@`` costs
about twice as much).
"""
from __future__ import annotations

import numpy as np

from .._operators import ad, matvec
from ..conventions import BASE
from ..kinematics import joint_transforms
from ._inputs import base_acceleration, singular_mass_matrix, smallest_pivot, state


def aba(model, q, qd, tau, *, gravity=None, f_ext=None):
    """Joint accelerations ``q̈ = FD(q, q̇, τ)`` by the articulated-body algorithm.

    ``f_ext`` (n, 6): ``f_ext[i-1] = F^ext_i = [μ; f]`` is the wrench the environment applies on body
    ``i``, in body frame ``{i}``, moment about its origin ``O_i`` (None: none). ``gravity``:
    ``g_phys``, a world 3-vector (None: the model's default). ``ValueError`` when the mass matrix is
    singular (see the module docstring).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.pendulum()                       # horizontal rod released: q̈ = m g_0 ℓ / I_{O,z}
    >>> aba(arm, [np.pi / 2], [0.0], [0.0]).round(10)
    array([-14.715])
    """
    q, qd = state(model, q, qd)
    tau = model.check_q(tau, "tau")
    F_ext = model.check_f_ext(f_ext)
    parent, n = model.parent, model.n
    S, I = list(model.S), model.inertia                  # S_i (as a list: the loops index it), 𝓘_i
    X = list(joint_transforms(model, q, checked=False))  # q checked above
    vJ = model.S * qd[:, None]                           # S_i q̇_i of every joint (row i-1: joint i)
    v = vJ.copy()
    v_rows = list(v)
    for i in range(n):                                   # 1. outward: velocities
        p = parent[i]
        if p != BASE:
            v_rows[i] += X[i].dot(v_rows[p])             # V_i = X_i V_p + S_i q̇_i
    ad_v = ad(v)
    c = list(matvec(ad_v, vJ))                           # A^×_i = ad(V_i) S_i q̇_i, every body at once
    I_A = list(np.array(I))                              # articulated inertias 𝓘^A_i and bias wrenches F^A_i,
    p_A = -matvec(ad_v.transpose(0, 2, 1), matvec(I, v))  # ad*(V_i) 𝓘_i V_i (ad* = −adᵀ), completed inward
    if F_ext is not None:
        p_A -= F_ext
    p_A = list(p_A)
    D_min = smallest_pivot(model)                        # D_i below this: a singular mass matrix
    U, D, u = [None] * n, [0.0] * n, [0.0] * n
    for i in reversed(range(n)):                         # 2. inward: 𝓘^A, F^A (U = 𝓘^A S, u = τ − Sᵀ F^A)
        U[i] = I_A[i].dot(S[i])
        D[i] = S[i].dot(U[i])
        u[i] = tau[i] - S[i].dot(p_A[i])
        if not D[i] > D_min:
            raise singular_mass_matrix(model, i, f"D_{i} = S_iᵀ I^A_i S_i", D[i])
        p = parent[i]
        if p != BASE:
            U_D = U[i] / D[i]
            I_a = I_A[i] - U[i][:, None] * U_D               # 𝓘^a_i = 𝓘^A_i − U_i U_iᵀ / D_i
            p_a = p_A[i] + I_a.dot(c[i]) + U_D * u[i]        # F^a_i = F^A_i + 𝓘^a_i A^×_i + U_i u_i / D_i
            I_A[p] += X[i].T.dot(I_a).dot(X[i])
            p_A[p] += p_a.dot(X[i])                      # X_iᵀ F^a_i
    a_0 = base_acceleration(model, gravity)
    a, qdd = [None] * n, np.empty(n)
    for i in range(n):                                   # 3. outward: accelerations
        p = parent[i]
        a_i = X[i].dot(a_0 if p == BASE else a[p]) + c[i]        # A'_i = X_i A_p + A^×_i
        qdd[i] = (u[i] - U[i].dot(a_i)) / D[i]
        a[i] = a_i + S[i] * qdd[i]
    return qdd
