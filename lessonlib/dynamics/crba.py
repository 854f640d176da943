"""The joint-space mass matrix by the composite-rigid-body algorithm — first published as method 3 of
[Walker & Orin 1982]; here after [WJ §2.3] and [Featherstone 2008] §6.2.

Convention (``course/NOTATION.md``): spatial vectors ``[ω; v]`` in body coordinates; bodies ``1..n`` (entry
``i-1`` of every array); ``X_i`` maps parent motion into body ``i``; ``𝓘_i`` is body ``i``'s spatial inertia
about its origin.

Inward pass, ``i = n .. 1``: each body's composite inertia collects everything outboard of it::

    𝓘^c_i = 𝓘_i + Σ_{children j} X_jᵀ 𝓘^c_j X_j

Then, for each joint ``i``: ``F = 𝓘^c_i S_i``, ``M_ii = S_iᵀ F``, and walking from ``i`` toward the
base through its ancestors ``j`` (``F ← X_kᵀ F`` carries the force one joint inward)::

    M_ij = M_ji = S_jᵀ F

Cost O(n·depth) — at most O(n²); ``M`` is returned full and symmetric. Inside the loops ``A.dot(B)``
is ``A @ B`` (on 6-vectors NumPy's ``@`` costs about twice as much).
"""
from __future__ import annotations

import numpy as np

from ..conventions import BASE
from ..kinematics import joint_transforms
from ._inputs import state


def crba(model, q):
    """Mass matrix ``M(q)`` (n, n), symmetric positive definite, by the CRBA.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.pendulum()                       # I_O = m L² / 3 = 1/3
    >>> float(crba(arm, [0.7])[0, 0] * 3)
    1.0
    """
    (q,) = state(model, q)
    S, parent, n = model.S, model.parent, model.n
    X = joint_transforms(model, q)
    I_c = np.array(model.inertia)                        # composite inertias, filled inward
    for i in reversed(range(n)):
        if parent[i] != BASE:
            I_c[parent[i]] += X[i].T.dot(I_c[i]).dot(X[i])
    M = np.zeros((n, n))
    for i in range(n):
        F = I_c[i].dot(S[i])
        M[i, i] = S[i].dot(F)
        j = i
        while parent[j] != BASE:                          # walk toward the base
            F = X[j].T.dot(F)
            j = parent[j]
            M[i, j] = M[j, i] = S[j].dot(F)
    return M
