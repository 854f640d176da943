"""The joint-space mass matrix by the composite-rigid-body algorithm (seed 000 §2.3).

Inward pass: each body's composite inertia collects everything outboard of it::

    I^c_i = I_i + Σ_{children j} X_j_iᵀ I^c_j X_j_i

Then ``M_ii = S_iᵀ I^c_i S_i`` and, walking from ``i`` toward the base through its ancestors
``j``, ``F ← X_k_pᵀ F`` with ``F = I^c_i S_i`` gives ``M_ij = M_ji = S_jᵀ F``. Cost O(n·depth)
— at most O(n²); ``M`` is returned full and symmetric.

Inside the loops ``A.dot(B)`` is ``A @ B`` (NumPy's ``@`` costs about twice as much on 6-vectors).
"""
from __future__ import annotations

import numpy as np

from ..conventions import BASE
from ..kinematics import _joint_transforms
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
    X = _joint_transforms(model, q)
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
