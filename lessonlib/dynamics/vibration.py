"""Small vibrations about a posture: ``M`` sets the natural frequencies ([DB4 §4.3]: M(q) 决定系统固有频率).

Convention (``course/NOTATION.md``, lesson 08): spatial vectors ``[ω; v]`` in body coordinates; bodies and
joints ``1..n`` (entry ``i-1`` of every array); ``X_i`` maps parent motion into body ``i``, ``X_iᵀ`` carries
wrenches back; ``S_i`` is joint ``i``'s screw; ``𝓘^c_i`` the composite inertia of body ``i``'s subtree;
``A_0 = [0; −g_phys]`` the base acceleration that stands for gravity.

Letters as in lesson 08: ``𝒦`` the joint stiffness (关节刚度; code ``stiffness``; ``K`` is the kinetic
energy), ``Δq`` a small displacement of the joints, ``f_nat`` a natural frequency (Hz), ``φ`` a mode shape.

The setting. A posture ``q`` is held by joint springs of stiffness ``𝒦`` (N·m/rad or N/m) and a constant
torque that balances gravity there, ``τ(q + Δq) = g(q) − 𝒦 Δq`` (the springs of a servo, or the
flexibility of a gear). Near ``q``, with no velocity (the velocity terms are quadratic in ``q̇`` and drop
out of the linearisation)::

    M(q) Δq̈ = τ(q + Δq) − g(q + Δq) ≈ −(𝒦 + ∂g/∂q) Δq                        (8.11)

so the motion is undamped vibration. A mode ``Δq = φ sin(2π f_nat t)`` needs the generalized symmetric
eigenproblem

    (𝒦 + ∂g/∂q) φ = (2π f_nat)² M φ                                          (8.12)

whose ``n`` roots ``f_nat`` (Hz) are the natural frequencies (固有频率) and ``φ`` the mode shapes (振型).
``M`` is symmetric positive definite, so with ``M = L Lᵀ`` (Cholesky) the problem is the ordinary
symmetric eigenproblem of ``L⁻¹ (𝒦 + ∂g/∂q) L⁻ᵀ`` (same eigenvalues ``(2π f_nat)²``; its eigenvectors are
``Lᵀ φ``), formed by two triangular solves, never an inverse. A heavier arm or payload (a larger ``M``)
lowers the frequencies; a stiffer joint raises them.

Gravity stiffness (重力刚度) ``∂g/∂q``. It is the Hessian of the potential energy ``U`` (``g = ∂U/∂q``), so
it is symmetric. Derivation, in the world frame (subscript ``s``; ``X_{s,i} = Ad(T_{0,i})`` takes body
``i``'s motion into world coordinates): with no motion every body's spatial acceleration is ``A_0``, so the
inward pass of the RNEA gives

    g_i = S_{s,i}ᵀ 𝓘^c_{s,i} A_0,        i.e. ``g_i = −S_iᵀ F_i`` with ``F_i = −𝓘^c_i A_0`` the weight
                                         of body ``i``'s subtree as a wrench.

Turn joint ``k``, an ancestor of ``i`` or ``i`` itself, by ``ε``: joint ``i``'s screw and the whole
subtree of ``i`` move rigidly by ``E = exp(ε S_{s,k})``, ``S_{s,i} → Ad(E) S_{s,i}`` and ``𝓘^c_{s,i} →
Ad(E)⁻ᵀ 𝓘^c_{s,i} Ad(E)⁻¹``, while gravity ``A_0`` stays put. So
``g_i → S_{s,i}ᵀ 𝓘^c_{s,i} Ad(E)⁻¹ A_0``, and with ``d/dε Ad(E)⁻¹ = −ad(S_{s,k})`` and ``−ad(S) A_0 = ad(A_0) S``::

    ∂g_i/∂q_k = S_{s,i}ᵀ 𝓘^c_{s,i} ad(A_0) S_{s,k}        (k = i or an ancestor of i)

The pairing of a screw with a wrench does not depend on the frame, so in body ``i``'s frame, with
``A_i = X_i A_parent(i)`` (``A_0`` carried out to body ``i``: the RNEA's accelerations at rest) and
``S_k`` carried out to body ``i``, this is ``S_iᵀ 𝓘^c_i ad(A_i) (X_{i←k} S_k)``. Written as
``(X_{i←k}ᵀ ad(A_i)ᵀ 𝓘^c_i S_i)ᵀ S_k`` it is the CRBA with ``𝓘^c_i`` replaced by ``ad(A_i)ᵀ 𝓘^c_i``: start with
``F = ad(A_i)ᵀ 𝓘^c_i S_i``, step toward the base with ``F ← X_jᵀ F`` and read ``S_kᵀ F`` at each ancestor.
Joints on different branches do not move each other's subtrees (entry 0). The entries with ``k`` a
descendant of ``i`` come from the symmetry of the Hessian (``tests/test_natural_frequencies.py`` checks
every entry against central differences of :func:`~lessonlib.dynamics.gravity_torques`). A prismatic ``k``
translates the subtree, and ``ad(A_0)`` of a translation is zero: ``∂g_i/∂q_k = 0`` for ``i`` at or
beyond ``k``, while the entry for an ancestor ``i`` (a longer lever) is not.

The single link of [WJ §2.1] (``q = 0`` hanging down; rod of mass ``m``, COM at ``ℓ``, ``I_O`` about the
pivot): ``g = m g₀ ℓ sin q``, ``∂g/∂q = m g₀ ℓ cos q``, and ``f_nat = (1/2π) √((𝒦 + m g₀ ℓ cos q) / I_O)``.

>>> import numpy as np
>>> from lessonlib import samples
>>> rod = samples.pendulum()              # 1 kg, 1 m: ℓ = 0.5 m, I_O = 1/3 kg·m²
>>> float(gravity_stiffness(rod, [0.0])[0, 0])          # m g₀ ℓ, hanging down
4.905
>>> f = natural_frequencies(rod, [0.0], [0.0])          # no spring: a pendulum, √(m g₀ ℓ / I_O) / 2π
>>> bool(np.isclose(f[0], np.sqrt(4.905 * 3) / (2 * np.pi)))
True
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import eigvalsh, solve_triangular

from .. import _validate as validate
from .._operators import ad
from ..conventions import BASE, RANK_TOL
from ..kinematics import joint_transforms
from ._inputs import base_acceleration, state
from .crba import crba
from .terms import cholesky

#: Tolerance of "``stiffness`` is symmetric", relative to its largest entry (and at least 1).
SYMMETRY_TOL = 1e-9


def gravity_stiffness(model, q, *, gravity=None):
    """The gravity stiffness ``∂g/∂q`` (n, n) at ``q``: symmetric, the Hessian of the potential energy.

    Computed by: the CRBA's two loops with ``𝓘^c_i`` replaced by ``ad(A_i)ᵀ 𝓘^c_i`` (module docstring),
    ``A_i`` the base acceleration ``A_0 = [0; −g_phys]`` carried out to body ``i``. Analytic, no finite
    differences; ``gravity`` None means the model's default. Cost O(n·depth), as the CRBA.

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                 # [RNE05]'s rods, stretched out horizontally
    >>> gravity_stiffness(arm, [0.0, 0.0]).round(12) + 0.0      # a horizontal arm's torques are at their peak
    array([[0., 0.],
           [0., 0.]])
    """
    (q,) = state(model, q)
    S, parent, n = model.S, model.parent, model.n
    X = joint_transforms(model, q, checked=False)
    a_0 = base_acceleration(model, gravity)
    A = np.zeros((n, 6))
    for i in range(n):                                   # outward: gravity's acceleration in each body
        A[i] = X[i] @ (a_0 if parent[i] == BASE else A[parent[i]])
    I_c = np.array(model.inertia)                        # composite inertias, filled inward
    for i in reversed(range(n)):
        if parent[i] != BASE:
            I_c[parent[i]] += X[i].T @ I_c[i] @ X[i]
    dg_dq = np.zeros((n, n))
    for i in range(n):
        F = ad(A[i]).T @ I_c[i] @ S[i]
        dg_dq[i, i] = S[i] @ F
        j = i
        while parent[j] != BASE:                         # walk toward the base
            F = X[j].T @ F
            j = parent[j]
            dg_dq[i, j] = dg_dq[j, i] = S[j] @ F
    return dg_dq


def joint_stiffness(model, stiffness):
    """``stiffness`` as the (n, n) matrix ``𝒦``: an (n,) vector is its diagonal; a matrix must be symmetric.

    Raises ``ValueError`` naming ``stiffness`` for another shape, a non-finite entry or an asymmetric matrix.
    """
    n = model.n
    K = validate.float_array(stiffness, "stiffness", f"an ({n},) vector or an ({n}, {n}) matrix (N·m/rad or N/m)")
    if K.shape == (n,):
        K = np.diag(validate.vector(K, n, "stiffness", f"an ({n},) vector of joint stiffnesses"))
    elif K.shape == (n, n):
        validate.check_finite(K, "stiffness")
        validate.symmetric(K, "stiffness", "a joint stiffness matrix", SYMMETRY_TOL)
    else:
        raise ValueError(f"stiffness: expected an ({n},) vector or an ({n}, {n}) matrix of joint stiffnesses, "
                         f"got shape {K.shape}")
    return 0.5 * (K + K.T)


def natural_frequencies(model, q, stiffness, *, gravity=None):
    """The undamped natural frequencies (Hz, ascending, (n,)) of the arm held at ``q`` by joint springs.

    ``stiffness``: the joint stiffness ``𝒦``, an (n,) vector (a diagonal ``𝒦``) or a symmetric (n, n)
    matrix, N·m/rad for revolute and N/m for prismatic joints. Solves ``(𝒦 + ∂g/∂q) φ = (2π f_nat)² M φ``
    (module docstring) with ``M`` from :func:`~lessonlib.dynamics.crba`, ``∂g/∂q`` from
    :func:`gravity_stiffness`, ``M = L Lᵀ`` and two triangular solves.

    Raises ``ValueError`` naming ``stiffness`` when ``𝒦 + ∂g/∂q`` is not positive semi-definite: the
    posture is then statically unstable (a push grows instead of oscillating — an inverted pendulum
    with too weak a spring), and there is no frequency to report; the message gives the smallest
    eigenvalue of ``𝒦 + ∂g/∂q`` (N·m/rad), which a lecturer can show as the amount of spring missing. A
    direction with neither spring nor gravity (e.g. a vertical-axis joint with ``𝒦 = 0``) is neutral: 0 Hz.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> rod = samples.pendulum()
    >>> float(natural_frequencies(rod, [np.pi], [10.0])[0].round(4))   # upright: √((10 − 4.905) · 3) / 2π
    0.6222
    """
    (q,) = state(model, q)
    K_total = joint_stiffness(model, stiffness) + gravity_stiffness(model, q, gravity=gravity)   # 𝒦 + ∂g/∂q
    scale = max(1.0, float(np.abs(K_total).max()))
    lowest = float(eigvalsh(K_total)[0])
    if lowest < -RANK_TOL * scale:
        raise ValueError(f"stiffness: the posture is statically unstable — 𝒦 + ∂g/∂q is not positive "
                         f"semi-definite (smallest eigenvalue {lowest:.6g}); a stiffer spring is needed to hold it")
    L = cholesky(model, crba(model, q))                            # M = L Lᵀ
    K_scaled = solve_triangular(L, solve_triangular(L, K_total, lower=True).T, lower=True)   # L⁻¹ (𝒦 + ∂g/∂q) L⁻ᵀ
    omega_sq = eigvalsh(0.5 * (K_scaled + K_scaled.T))             # (2π f_nat)², ascending
    return np.sqrt(np.clip(omega_sq, 0.0, None)) / (2 * np.pi)
