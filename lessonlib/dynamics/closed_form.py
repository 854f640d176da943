"""The closed-form equations of motion ``τ_i = A_ij θ̈_j + B_ijk θ̇_j θ̇_k − C_i`` ([LG, 串联机器人运动方程]).

[LG] (after [Selig 2005]) writes every link's Newton–Euler equation in one fixed frame, adds them
from the tip inward to remove the joint reactions, pairs the sum with the joint screw and expands
the link twists in the joint screws. Everything lives in the **space frame at the current
configuration** (world axes, moments about the world origin). The letters below are [LG]'s; lesson 06 and
``course/NOTATION.md`` write ``θ`` as q, ``s_i`` as S_{s,i}, ``N_m`` as 𝓘_{s,m}, ``N̄_i`` as 𝓘^c_{s,i}, the link twist
``q̇_m`` as V_{s,m}, ``[k < l]`` as 𝟙[k<l], and ``A``, ``C`` as the mass matrix M and −g(q):

==================  ===========================================================  ===================
symbol ([LG])       meaning                                                      here
==================  ===========================================================  ===================
``s_i``             joint screw ``s_i(θ) = H_1 ⋯ H_i s_i⁰ = Ad(T_0_i) S_i``       ``s[i]``
``N_m``             spatial inertia of link m, world axes: ``Ad(T_0_m⁻¹)ᵀ I_m Ad(T_0_m⁻¹)``  ``N[m]``
``N_i + … + N_n``   the links carried by joint i (a tree: the subtree of body i)  ``N_bar[i]``
``[s_k, s_l]``      Lie bracket ``ad(s_k) s_l``                                    ``bracket[k, l]``
``g``               gravity as a twist acceleration ``[0; g]``                     ``g_twist``
==================  ===========================================================  ===================

Link ``m``'s twist is ``q̇_m = Σ_{k ≤ m} θ̇_k s_k`` and, because a screw fixed in link ``l`` moves
as ``ṡ_l = [q̇_l, s_l]``, its acceleration is ``q̈_m = Σ_{k ≤ m} θ̈_k s_k + Σ_{k < l ≤ m} θ̇_k θ̇_l [s_k, s_l]``.
Putting both in ``τ_i = Σ_{m ≥ i} s_iᵀ (N_m (q̈_m − g) + {q̇_m, N_m q̇_m})`` (with
``s_iᵀ {q̇, N q̇} = q̇ᵀ N [s_i, q̇]``) gives the coefficients::

    A_ij  = Σ_{m ≥ max(i, j)} s_iᵀ N_m s_j               = s_iᵀ N̄_max(i,j) s_j
    B_ikl = [k < l] s_iᵀ N̄_max(i,l) [s_k, s_l]  +  s_kᵀ N̄_max(i,k,l) [s_i, s_l]
    C_i   = s_iᵀ (N_i + … + N_n) g                       = s_iᵀ N̄_i g

so ``τ = A θ̈ + Σ_kl B[:, k, l] θ̇_k θ̇_l − C``. ``A`` is the mass matrix, visibly symmetric, and
the sums ``N̄`` are the composite inertias of the CRBA; ``C = −g(q)`` in the standard form.

Trees: "``m ≥ i``" means "``m`` in the subtree of ``i``", "``k ≤ m``" means "``k`` on the path from
the base to ``m``", and ``max(i, j)`` is the deeper of the two when one carries the other (otherwise
no link is carried by both and the coefficient is 0). In ``B`` the first term needs ``k`` to be an
ancestor of ``l`` (it comes from ``ṡ_l``).

Which ``B``. Only the part of ``B`` symmetric in its last two indices is determined by the dynamics:
``B_ikl + B_ilk = 2 Γ_ikl`` with the Christoffel symbols ``Γ_ikl = ½(∂A_ik/∂θ_l + ∂A_il/∂θ_k − ∂A_kl/∂θ_i)``.
:func:`closed_form_coefficients` returns [LG]'s ``B`` as derived above (not symmetrised); use
``0.5 * (B + B.transpose(0, 2, 1))`` for the Christoffel symbols.

Cost. The coefficients hold ``n² + n³ + n`` numbers and take O(n³) work; evaluating
``τ`` from them costs O(n³) more for every new velocity. The recursion
(:func:`~lessonlib.dynamics.rnea_poe`) computes the same ``τ`` in O(n) and stores O(n): see
:func:`closed_form_cost`.
"""
from __future__ import annotations

import numpy as np

from .._operators import Ad_inv
from ..conventions import BASE
from ..kinematics import fk
from ..se3 import Ad, ad
from ._inputs import base_acceleration, state


def _carried_by_both(model):
    """``D[i, j]``: the deeper of bodies ``i, j`` when one lies on the other's path from the base, else −1.

    The links carried by both joints ``i`` and ``j`` are then exactly the subtree of ``D[i, j]``.
    """
    n = model.n
    D = np.full((n, n), -1, dtype=int)
    for j in range(n):
        for i in model.ancestors(j):                 # i on the path base -> j (j included)
            D[i, j] = D[j, i] = j
    return D


def closed_form_coefficients(model, q, *, gravity=None):
    """The coefficients ``(A, B, C)`` of ``τ = A q̈ + Σ_jk B[:, j, k] q̇_j q̇_k − C`` at ``q``.

    Built from [LG]'s screw and inertia formulas in the space frame (module docstring), not from
    any recursive algorithm: ``A`` (n, n) the mass matrix (symmetric), ``B`` (n, n, n) [LG]'s
    velocity coefficients (only ``B + B.transpose(0, 2, 1) = 2Γ`` is unique), ``C`` (n,) the
    gravity coefficients, ``C = −g(q)``. Chains, trees and prismatic joints. ``gravity``: world
    3-vector (None: the model's default). Cost O(n³) (see :func:`closed_form_cost`).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> A, B, C = closed_form_coefficients(samples.planar_2link(), [0.0, 0.0], gravity=[0, -10, 0])
    >>> -C.round(9) + 0.0                           # [RNE05]'s horizontal rods: τ = −C = (20, 5) N·m
    array([20.,  5.])
    >>> bool(np.array_equal(A, A.T))
    True
    """
    (q,) = state(model, q)
    n, parent = model.n, model.parent
    T = fk(model, q)
    s = np.array([Ad(T[i]) @ model.S[i] for i in range(n)])              # joint screws, world
    X = Ad_inv(T)                                                          # world -> body m
    N = np.array([X[m].T @ model.inertia[m] @ X[m] for m in range(n)])    # link inertias, world
    N_bar = N.copy()                                                        # N_i + … + N_n (subtree)
    for m in reversed(range(n)):
        if parent[m] != BASE:
            N_bar[parent[m]] += N_bar[m]
    g_twist = -base_acceleration(model, gravity)                            # [0; g]
    D = _carried_by_both(model)
    bracket = np.array([[ad(s[k]) @ s[l] for l in range(n)] for k in range(n)])   # [s_k, s_l]

    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):                      # symmetric: [LG] computes the upper triangle only
            if D[i, j] != -1:
                A[i, j] = A[j, i] = s[i] @ N_bar[D[i, j]] @ s[j]

    B = np.zeros((n, n, n))
    for i in range(n):
        for k in range(n):
            for l in range(n):
                m = D[i, l]
                if m == -1:
                    continue
                if D[k, l] == l and k != l:                                 # k < l: k carries l
                    B[i, k, l] += s[i] @ N_bar[m] @ bracket[k, l]
                if D[m, k] != -1:
                    B[i, k, l] += s[k] @ N_bar[D[m, k]] @ bracket[i, l]

    C = np.array([s[i] @ N_bar[i] @ g_twist for i in range(n)])
    return A, B, C


def closed_form_torques(A, B, C, qd, qdd):
    """``τ = A q̈ + Σ_jk B[:, j, k] q̇_j q̇_k − C`` from the coefficients of :func:`closed_form_coefficients`.

    >>> import numpy as np
    >>> A, B, C = np.eye(1), np.full((1, 1, 1), 2.0), np.array([-3.0])
    >>> closed_form_torques(A, B, C, [1.0], [0.5])               # 0.5 + 2·1·1 + 3
    array([5.5])
    """
    A, B, C = (np.asarray(x, dtype=float) for x in (A, B, C))
    n = C.shape[0]
    if A.shape != (n, n) or B.shape != (n, n, n) or C.shape != (n,):
        raise ValueError(f"A, B, C: expected shapes ({n}, {n}), ({n}, {n}, {n}), ({n},), "
                         f"got {A.shape}, {B.shape}, {C.shape}")
    qd, qdd = np.asarray(qd, dtype=float), np.asarray(qdd, dtype=float)
    if qd.shape != (n,) or qdd.shape != (n,):
        raise ValueError(f"qd, qdd: expected shape ({n},), got {qd.shape}, {qdd.shape}")
    return A @ qdd + np.einsum("ijk,j,k->i", B, qd, qd) - C


def closed_form_cost(n):
    """Storage and multiplications of the closed form against the recursion, for a chain of ``n`` joints.

    Returns a dict of counts (numbers stored, multiplications; dense 6-vectors and 6×6 matrices,
    as our code computes them):

    * ``"stored"``: ``n² + n³ + n`` coefficients (``A``, ``B``, ``C``) against the recursion's
      ``O(n)`` (for :func:`~lessonlib.dynamics.rnea_poe`: ``H_i`` 36, ``V_i``, ``V̇_i − g_i``,
      ``Q_i``, ``P_i`` 6 each, per link: ``60 n``);
    * ``"build"``: multiplications to form the coefficients — ``n²`` screw pairs ``s_iᵀ N̄ s_j``
      (36 + 6 each), ``n³`` entries of ``B`` with two such products each, ``n²`` brackets (36 each);
    * ``"evaluate"``: ``τ`` from stored coefficients for one new ``(q̇, q̈)``: ``n² + 2 n³``;
    * ``"recursion"``: the recursion's multiplications per call, ``270 n`` (seven dense 6×6
      products per link — ``H⁻¹ V``, ``H⁻¹ a``, ``ad(V) s``, ``N a``, ``N V``, ``ad*(V) (N V)``,
      ``H⁻ᵀ P`` — at 36 each, plus three scalings of a 6-vector).

    >>> c = closed_form_cost(6)
    >>> c["stored"], c["evaluate"]
    (258, 468)
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"n: expected a number of joints >= 1, got {n!r}")
    pair = 36 + 6                                       # s_iᵀ (N s_j): one 6×6 product, one dot
    return {"stored": n * n + n**3 + n,
            "build": n * n * pair + 2 * n**3 * pair + n * n * 36,
            "evaluate": n * n + 2 * n**3,
            "recursion": 7 * 36 * n + 18 * n,
            "recursion_stored": 60 * n}
