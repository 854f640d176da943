"""The RNEA on a block of samples: the loops of :func:`lessonlib.dynamics.rnea`, each line on N samples."""
from __future__ import annotations

import numpy as np

from ..conventions import BASE
from .frames import BlockJoints, add_bias_acceleration, momentum_rate


def rnea_block(frames, work, Q, QD, QDD, a_0, F):
    """Joint torques ``τ`` (n, N) of a block; ``Q, QD, QDD`` (n, N); ``F`` (6, n, N), (6, n, 1) or None.

    ``work``: the call's :class:`.frames.Workspace`. Bodies' quantities are stored component-major
    (``f[:, i]`` (6, N) the wrench of body ``i``); twist and acceleration side by side,
    ``va[:, i]`` (6, 2, N) = ``[v_i, a_i]``, so one joint transform moves both. The Newton–Euler
    equations of all bodies are one set of operations after the outward loop.
    """
    n, N = Q.shape
    X, parent, row, I = BlockJoints(frames, Q), frames.parent, frames.row, frames.inertia
    qd, qdd = frames.scale[:, None] * QD, frames.scale[:, None] * QDD       # S_i q̇_i = e_k · qd_i
    va, Iva = work.empty("va", (6, n, 2, N)), work.empty("Iva", (6, n, 2, N))
    base = work.empty("base", (6, 2, N))
    base[:, 0], base[:, 1] = 0.0, a_0[:, None]              # v_0 = 0, a_0 = [0; −g]
    for i in range(n):                                      # outward: motion
        va_i = va[:, i]
        va_i[...] = X.motion_to_child(i, base if parent[i] == BASE else va[:, parent[i]])
        v, a, k = va_i[:, 0], va_i[:, 1], row[i]
        v[k] += qd[i]                                       # v_i = X v_p + S q̇
        add_bias_acceleration(a, v, k, qd[i])               # a_i = X a_p + ad(v_i) S q̇ + S q̈
        a[k] += qdd[i]
        Iva[:, i] = (I[i] @ va_i.reshape(6, 2 * N)).reshape(6, 2, N)        # [I v, I a]
    f = momentum_rate(va[:, :, 0], Iva[:, :, 0], work.empty("f", (6, n, N)), work)      # f = I a + v ×* I v
    f += Iva[:, :, 1]
    if F is not None:
        for i in range(n):
            f[:, i] -= frames.wrench_to_J[i] @ F[:, i]      # minus the environment's wrenches
    for i in reversed(range(n)):                            # inward: forces
        if parent[i] != BASE:
            f[:, parent[i]] += X.force_to_parent(i, f[:, i])
    return frames.scale[:, None] * f[list(row), np.arange(n)]             # τ_i = S_iᵀ f_i
