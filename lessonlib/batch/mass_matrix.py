"""The CRBA on a block of samples: the loops of :func:`lessonlib.dynamics.crba`, each line on N samples."""
from __future__ import annotations

import numpy as np

from ..conventions import BASE
from .frames import RIGID, RIGID_COLUMN, BlockJoints


def crba_block(frames, work, Q):
    """Mass matrices ``M`` (n, n, N) of a block ``Q`` (n, N); ``work`` the call's :class:`.frames.Workspace`.

    One inward loop, ``i = n .. 1`` (entry ``i-1``). At joint ``i`` the composite inertia ``𝓘^c_i``
    (code ``I_c``) is complete (its children have added theirs), so its column ``𝓘^c_i S_i`` is known;
    ``F[:, j-1]`` holds the column of every body ``j`` of the subtree of ``i``, carried down to frame
    ``{i}`` by the joints on the way, so ``M_ji = S_iᵀ F_j`` for all of them at once; then the whole
    subtree's columns, and ``𝓘^c_i``, move on to the parent ``p = parent(i)``: ``F ← X_iᵀ F``,
    ``𝓘^c_p += X_iᵀ 𝓘^c_i X_i``. Composite inertias are rigid-body inertias: they are carried by their
    10 :data:`.frames.RIGID` coordinates.
    """
    n, N = Q.shape
    X, parent, row, s = BlockJoints(frames, Q), frames.parent, frames.row, frames.scale
    I_c = work.empty("I_c", (RIGID.size, n, N))                            # composite inertias
    I_c[...] = frames.inertia_r.T[:, :, None]
    F, M = work.empty("F", (6, n, N)), work.empty("M", (n, n, N))
    M[...] = 0.0
    for i in reversed(range(n)):
        sub = frames.subtree[i]
        F[:, i] = s[i] * (RIGID_COLUMN[row[i]] @ I_c[:, i])               # F_i = 𝓘^c_i S_i
        M[sub, i] = s[i] * F[row[i], sub]                                 # M_ji = S_iᵀ F_j
        M[i, sub] = M[sub, i]
        if parent[i] != BASE:
            F[:, sub] = X.force_to_parent(i, F[:, sub])
            I_c[:, parent[i]] += X.inertia_to_parent(i, I_c[:, i], RIGID)
    return M
