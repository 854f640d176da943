"""The ABA on a block of samples: the loops of :func:`lessonlib.dynamics.aba`, each line on N samples."""
from __future__ import annotations

import numpy as np

from ..conventions import BASE
from .frames import (BIAS_COLUMNS, BIAS_ROWS, COLUMN, FROM_UPPER, SYMMETRIC, UPPER, BlockJoints, add_bias_acceleration,
                     momentum_rate)


class SingularPivot(Exception):
    """Raised by :func:`aba_block`: ``D`` (``D_i`` of ``joint`` at ``sample`` of the block) is not above
    the model's smallest pivot, so the mass matrix is singular there (:func:`lessonlib._validate.singular_mass_matrix`)."""

    def __init__(self, joint, sample, D):
        super().__init__(joint, sample, D)
        self.joint, self.sample, self.D = joint, sample, D


def aba_block(frames, work, Q, QD, TAU, a_0, F, *, D_min):
    """Joint accelerations ``q̈`` (n, N) of a block; ``Q, QD, TAU`` (n, N); ``F`` (6, n, N), (6, n, 1) or None.

    ``work``: the call's :class:`.frames.Workspace`; ``F`` the wrenches ``F^ext`` in body frames,
    component-major. Bodies' quantities are stored component-major (``v[:, i-1]`` the twist ``V_i``
    of body ``i``). Articulated inertias ``𝓘^A`` (code ``I_A``) are stored by their 21 coordinates
    (:data:`.frames.SYMMETRIC`); with the joint screw a unit vector (times ``scale``),
    ``U = 𝓘^A S`` is a column of ``𝓘^A`` (gathered from the coordinates) and ``D = Sᵀ U`` one entry.
    The other code names are :mod:`lessonlib.dynamics.aba`'s: ``c`` for ``A^×``, ``p_A, p_a`` for
    ``F^A, F^a``, ``u_i = τ_i − S_iᵀ F^A_i``. A ``D_i`` not
    above ``D_min`` (:func:`lessonlib._validate.smallest_pivot`) raises :class:`SingularPivot`, as
    :func:`lessonlib.dynamics.aba` raises for one sample: it is never divided by.
    """
    n, N = Q.shape
    X, parent, row, s, I = BlockJoints(frames, Q), frames.parent, frames.row, frames.scale, frames.inertia
    qd = s[:, None] * QD
    v, Iv, c = work.empty("v", (6, n, N)), work.empty("Iv", (6, n, N)), [None] * n
    zero = work.empty("zero", (6, N))
    zero[...] = 0.0
    for i in range(n):                                      # 1. outward: velocities
        v[:, i] = X.motion_to_child(i, zero if parent[i] == BASE else v[:, parent[i]])
        v[row[i], i] += qd[i]                               # V_i = X_i V_p + S_i q̇_i
        Iv[:, i] = I[i] @ v[:, i]
        c_i = np.zeros((6, N))
        add_bias_acceleration(c_i, v[:, i], row[i], qd[i])  # A^×_i = ad(V_i) S_i q̇_i
        c[i] = c_i[list(BIAS_ROWS[row[i]])]                 # its non-zero rows
    p_A = momentum_rate(v, Iv, work.empty("p_A", (6, n, N)), work)        # F^A = V ×* 𝓘V − F^ext
    if F is not None:
        for i in range(n):
            p_A[:, i] -= frames.wrench_to_J[i] @ F[:, i]
    I_A = work.empty("I_A", (SYMMETRIC.size, n, N))
    I_A[...] = frames.inertia_z.T[:, :, None]
    U, D, u = work.empty("U", (6, n, N)), work.empty("D", (n, N)), work.empty("u", (n, N))
    for i in reversed(range(n)):                            # 2. inward: articulated inertias
        k = row[i]
        U[:, i] = s[i] * COLUMN[k](I_A[:, i])               # U_i = 𝓘^A_i S_i
        D[i] = s[i] * U[k, i]                               # D_i = S_iᵀ U_i
        regular = D[i] > D_min
        if not regular.all():
            sample = int(np.argmin(regular))                # the first sample where D_i vanished
            raise SingularPivot(i, sample, float(D[i, sample]))
        u[i] = TAU[i] - s[i] * p_A[k, i]                    # u_i = τ_i − S_iᵀ F^A_i
        if parent[i] != BASE:
            U_D = U[:, i] / D[i]
            I_a = I_A[:, i] - FROM_UPPER(U[UPPER[0], i] * U_D[UPPER[1]])      # 𝓘^a = 𝓘^A − U Uᵀ / D
            I_a_c = BIAS_COLUMNS[k](I_a).reshape(6, -1, N)                  # the columns of 𝓘^a that A^× uses
            p_a = p_A[:, i] + U_D * u[i]                                    # F^a = F^A + 𝓘^a A^× + U u / D
            p_a += (I_a_c * c[i]).sum(axis=1)
            I_A[:, parent[i]] += X.inertia_to_parent(i, I_a)
            p_A[:, parent[i]] += X.force_to_parent(i, p_a)
    a, qdd = work.empty("a", (6, n, N)), np.empty((n, N))
    base = work.empty("base", (6, N))
    base[...] = a_0[:, None]
    for i in range(n):                                      # 3. outward: accelerations
        a[:, i] = X.motion_to_child(i, base if parent[i] == BASE else a[:, parent[i]])
        a[list(BIAS_ROWS[row[i]]), i] += c[i]               # A'_i = X_i A_p + A^×_i
        qdd[i] = (u[i] - np.einsum("in,in->n", U[:, i], a[:, i])) / D[i]  # q̈_i = (u_i − U_iᵀ A'_i) / D_i
        a[row[i], i] += s[i] * qdd[i]                       # A_i = A'_i + S_i q̈_i
    return qdd
