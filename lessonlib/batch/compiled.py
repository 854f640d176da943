"""The same three algorithms compiled with numba (optional: ``pip install lessonlib[fast]``).

One loop over the samples; inside it, for each sample, the loops over the bodies of
:mod:`lessonlib.dynamics` on the joint frames of :mod:`.frames` — the constant part of a joint
transform as a 3×3 rotation and a translation, the joint turn ``R_z(θ)`` on the x and y rows, the
joint screw (a unit vector times ``scale``) as a row or a column; composite inertias carried by their 10 rigid-body
coordinates, articulated inertias as symmetric 6×6 matrices. Nothing is allocated per sample, and
each small product is written out row by row on scalars, which the compiler pipelines. The NumPy kernels (:mod:`.inverse_dynamics`,
:mod:`.mass_matrix`, :mod:`.forward_dynamics`) compute the same numbers and stay the reference:
the tests hold the two to 1e-10 of each other and of the per-sample algorithms.

Importing this module raises ImportError when numba is not installed; ``lessonlib.batch`` then
uses the NumPy kernels.
"""
from __future__ import annotations

import numba
import numpy as np

from ..conventions import ANG_X, ANG_Y, ANG_Z, LIN_X, LIN_Y, LIN_Z
from .frames import RIGID

FASTMATH = {"reassoc", "contract"}                   # sums may be regrouped and fused (no NaN tricks)
jit = numba.njit(cache=True, nogil=True, fastmath=FASTMATH)
inline = numba.njit(cache=True, nogil=True, fastmath=FASTMATH, inline="always")   # helpers


# --- joint transforms on one sample ------------------------------------------------------------------

@inline
def motion_to_child(T_C, revolute, c, s, theta, m, out):
    """``out = X_J(θ) X_C m``: a parent's motion vector in the child's joint frame.

    ``X_C = Ad(T_C⁻¹)`` with ``T_C = (R, p)`` the joint frame's pose in its parent's at ``q = 0``:
    ``ω' = Rᵀ ω``, ``v' = Rᵀ (v − p × ω)`` — a 3×3 rotation and a translation, not a 6×6 product.
    """
    w0, w1, w2 = m[ANG_X], m[ANG_Y], m[ANG_Z]
    p0, p1, p2 = T_C[0, 3], T_C[1, 3], T_C[2, 3]
    u0 = m[LIN_X] - (p1 * w2 - p2 * w1)             # v − p × ω
    u1 = m[LIN_Y] - (p2 * w0 - p0 * w2)
    u2 = m[LIN_Z] - (p0 * w1 - p1 * w0)
    for r in range(3):
        out[ANG_X + r] = T_C[0, r] * w0 + T_C[1, r] * w1 + T_C[2, r] * w2
        out[LIN_X + r] = T_C[0, r] * u0 + T_C[1, r] * u1 + T_C[2, r] * u2
    if revolute:                                     # R_z(θ)ᵀ on ω and on v
        for x in (ANG_X, LIN_X):
            a, b = out[x], out[x + 1]
            out[x] = c * a + s * b
            out[x + 1] = c * b - s * a
    else:                                            # v ← v − θ e_z × ω
        out[LIN_X] += theta * out[ANG_Y]
        out[LIN_Y] -= theta * out[ANG_X]


@inline
def joint_force(revolute, c, s, theta, f):
    """``X_J(θ)ᵀ F`` for a wrench ``F = [μ; f]`` as six scalars ``μ_x, μ_y, μ_z, f_x, f_y, f_z`` (``n0 ..``
    and ``f0 ..`` in code): a wrench across the joint, to the parent's side."""
    n0, n1, n2, f0, f1, f2 = f[ANG_X], f[ANG_Y], f[ANG_Z], f[LIN_X], f[LIN_Y], f[LIN_Z]
    if revolute:                                     # R_z(θ) on μ and on f
        return c * n0 - s * n1, s * n0 + c * n1, n2, c * f0 - s * f1, s * f0 + c * f1, f2
    return n0 - theta * f1, n1 + theta * f0, n2, f0, f1, f2          # μ ← μ + θ e_z × f


@inline
def add_force_to_parent(T_C, revolute, c, s, theta, f, f_p, sign):
    """``f_p += sign · X_Cᵀ X_J(θ)ᵀ f``: a child's wrench ``[μ; f]`` added to its parent's (``f' = R f``,
    ``μ' = R μ + p × f'``, with ``T_C = (R, p)`` as in :func:`motion_to_child`)."""
    n0, n1, n2, f0, f1, f2 = joint_force(revolute, c, s, theta, f)
    g0 = T_C[0, 0] * f0 + T_C[0, 1] * f1 + T_C[0, 2] * f2             # f' = R f
    g1 = T_C[1, 0] * f0 + T_C[1, 1] * f1 + T_C[1, 2] * f2
    g2 = T_C[2, 0] * f0 + T_C[2, 1] * f1 + T_C[2, 2] * f2
    p0, p1, p2 = T_C[0, 3], T_C[1, 3], T_C[2, 3]
    f_p[ANG_X] += sign * (T_C[0, 0] * n0 + T_C[0, 1] * n1 + T_C[0, 2] * n2 + p1 * g2 - p2 * g1)   # R μ + p × f'
    f_p[ANG_Y] += sign * (T_C[1, 0] * n0 + T_C[1, 1] * n1 + T_C[1, 2] * n2 + p2 * g0 - p0 * g2)
    f_p[ANG_Z] += sign * (T_C[2, 0] * n0 + T_C[2, 1] * n1 + T_C[2, 2] * n2 + p0 * g1 - p1 * g0)
    f_p[LIN_X] += sign * g0
    f_p[LIN_Y] += sign * g1
    f_p[LIN_Z] += sign * g2


@inline
def add_inertia_to_parent(X_C, revolute, c, s, theta, M, M_p, A, B):
    """``M_p += X_Cᵀ X_J(θ)ᵀ M X_J(θ) X_C`` for a symmetric 6×6 ``M``; ``A``, ``B`` scratch 6×6."""
    for j in range(6):                               # A = X_Jᵀ M: the joint's force map on each column
        A[ANG_X, j], A[ANG_Y, j], A[ANG_Z, j], A[LIN_X, j], A[LIN_Y, j], A[LIN_Z, j] = joint_force(
            revolute, c, s, theta, M[:, j])
    for r in range(6):                               # A ← A X_J = (X_Jᵀ Aᵀ)ᵀ: and on each row
        A[r, ANG_X], A[r, ANG_Y], A[r, ANG_Z], A[r, LIN_X], A[r, LIN_Y], A[r, LIN_Z] = joint_force(
            revolute, c, s, theta, A[r])
    for r in range(6):                               # B = A X_C
        a0, a1, a2, a3, a4, a5 = A[r, 0], A[r, 1], A[r, 2], A[r, 3], A[r, 4], A[r, 5]
        for j in range(6):
            B[r, j] = a0 * X_C[0, j] + a1 * X_C[1, j] + a2 * X_C[2, j] + a3 * X_C[3, j] + a4 * X_C[4, j] + a5 * X_C[5, j]
    for r in range(6):                               # M_p += X_Cᵀ B (symmetric: upper triangle, mirrored)
        x0, x1, x2, x3, x4, x5 = X_C[0, r], X_C[1, r], X_C[2, r], X_C[3, r], X_C[4, r], X_C[5, r]
        for j in range(r, 6):
            e = x0 * B[0, j] + x1 * B[1, j] + x2 * B[2, j] + x3 * B[3, j] + x4 * B[4, j] + x5 * B[5, j]
            M_p[r, j] += e
            if j != r:
                M_p[j, r] += e


# The rigid-body coordinates of frames.RIGID: m, h_z, Ī_zz, Ī_xx + Ī_yy unchanged by a turn about z;
# (Ī_xz, Ī_yz) and (h_x, h_y) turning by θ; ((Ī_xx − Ī_yy)/2, Ī_xy) by 2θ.
assert (RIGID.fixed, RIGID.turn, RIGID.turn2) == (slice(0, 4), (slice(4, 6), slice(6, 8)), (slice(8, 9), slice(9, 10)))


@inline
def slide_coordinates(slide, theta, z, w):
    """``w = z + θ K1 z + θ² K2 z``: a prismatic joint's slide along z, on coordinates."""
    for r in range(z.shape[0]):
        acc = z[r]
        for j in range(z.shape[0]):
            acc += (theta * slide[0, r, j] + theta * theta * slide[1, r, j]) * z[j]
        w[r] = acc


@inline
def add_rigid_inertia_to_parent(K_C, slide, revolute, c, s, theta, z, z_p, w):
    """``z_p += coordinates of X_Cᵀ X_J(θ)ᵀ I X_J(θ) X_C``, ``I`` a rigid-body inertia given by its 10
    coordinates ``z``; ``K_C`` (10, 10) the congruence with ``X_C``, ``slide`` (2, 10, 10) the
    prismatic joint's, or None when the model has no prismatic joint (numba then compiles the turn
    alone, which it keeps in registers); ``w`` scratch."""
    if slide is None or revolute:                    # turn about z: R I Rᵀ
        c2, s2 = 2.0 * c * c - 1.0, 2.0 * s * c
        w0, w1, w2, w3 = z[0], z[1], z[2], z[3]
        w4, w6 = c * z[4] - s * z[6], s * z[4] + c * z[6]
        w5, w7 = c * z[5] - s * z[7], s * z[5] + c * z[7]
        w8, w9 = c2 * z[8] - s2 * z[9], s2 * z[8] + c2 * z[9]
    else:                                            # slide along z
        slide_coordinates(slide, theta, z, w)
        w0, w1, w2, w3, w4, w5, w6, w7, w8, w9 = w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9]
    for r in range(10):
        z_p[r] += (K_C[r, 0] * w0 + K_C[r, 1] * w1 + K_C[r, 2] * w2 + K_C[r, 3] * w3 + K_C[r, 4] * w4
                   + K_C[r, 5] * w5 + K_C[r, 6] * w6 + K_C[r, 7] * w7 + K_C[r, 8] * w8 + K_C[r, 9] * w9)


@inline
def add_matvec(A, x, out, sign):
    """``out += sign · A x`` for a 6×6 ``A``."""
    x0, x1, x2, x3, x4, x5 = x[0], x[1], x[2], x[3], x[4], x[5]
    for r in range(6):
        out[r] += sign * (A[r, 0] * x0 + A[r, 1] * x1 + A[r, 2] * x2 + A[r, 3] * x3 + A[r, 4] * x4 + A[r, 5] * x5)


@inline
def add_momentum_rate(v, h, out):
    """``out += ad*(V) h = [ω × h_n + v × h_f; ω × h_f]`` for a twist ``V = [ω; v]`` and a spatial
    momentum ``h = 𝓘V = [h_n; h_f]`` (``h`` is not the bias force here)."""
    w0, w1, w2, v0, v1, v2 = v[ANG_X], v[ANG_Y], v[ANG_Z], v[LIN_X], v[LIN_Y], v[LIN_Z]
    n0, n1, n2, f0, f1, f2 = h[ANG_X], h[ANG_Y], h[ANG_Z], h[LIN_X], h[LIN_Y], h[LIN_Z]
    out[ANG_X] += w1 * n2 - w2 * n1 + v1 * f2 - v2 * f1
    out[ANG_Y] += w2 * n0 - w0 * n2 + v2 * f0 - v0 * f2
    out[ANG_Z] += w0 * n1 - w1 * n0 + v0 * f1 - v1 * f0
    out[LIN_X] += w1 * f2 - w2 * f1
    out[LIN_Y] += w2 * f0 - w0 * f2
    out[LIN_Z] += w0 * f1 - w1 * f0


@inline
def bias_acceleration(v, revolute, qd, out):
    """``out = ad(V) S q̇`` (``A^×``) for the joint-frame screw (``e_ωz`` revolute: ``[ω × z; v × z]``,
    ``e_vz`` prismatic: ``[0; ω × z]``)."""
    for r in range(6):
        out[r] = 0.0
    if revolute:
        out[ANG_X], out[ANG_Y] = v[ANG_Y] * qd, -v[ANG_X] * qd
        out[LIN_X], out[LIN_Y] = v[LIN_Y] * qd, -v[LIN_X] * qd
    else:
        out[LIN_X], out[LIN_Y] = v[ANG_Y] * qd, -v[ANG_X] * qd


@inline
def body_force(inertia, v, out, h):
    """``out += V ×* 𝓘V`` (``v``, ``inertia`` in code; ``h`` scratch): the velocity product of a body."""
    for r in range(6):
        h[r] = 0.0
    add_matvec(inertia, v, h, 1.0)
    add_momentum_rate(v, h, out)


@inline
def external(F, k, i, wrench_to_J, out):
    """``out −= Ad(T_i_J)ᵀ F^ext`` (the body's wrench from ``f_ext``, body frame, moved to the joint
    frame) when there are wrenches (``F`` (N or 1 or 0, n, 6))."""
    if F.shape[0] > 0:
        add_matvec(wrench_to_J[i], F[k if F.shape[0] > 1 else 0, i], out, -1.0)


# --- the algorithms, sample by sample ----------------------------------------------------------------
# Arguments: the joint frames (parent, revolute, row = k of S = scale · e_k, scale, T_C and
# X_C = Ad(T_C⁻¹), inertia, wrench_to_J: see frames.JointFrames), then per sample Theta = scale · Q and C, S its cosine and
# sine (N, n), the joint-space inputs (N, n), a_0 = A_0 = [0; −g_phys], F (N, n, 6) or (1, n, 6) or (0, n, 6)
# wrenches F^ext on the bodies (body frames, about the body origins), and the output. Entry i-1 is body i.

@jit
def rnea(parent, revolute, row, scale, T_C, X_C, inertia, wrench_to_J, Theta, C, S, QD, QDD, a_0, F, tau):
    """``tau[k]`` = the RNEA's torques at sample ``k``."""
    N, n = Theta.shape
    v, a, f, h, zero = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6)), np.zeros(6), np.zeros(6)
    for k in range(N):
        theta, c, s = Theta[k], C[k], S[k]
        for i in range(n):                                        # outward: motion
            p = parent[i]
            motion_to_child(T_C[i], revolute[i], c[i], s[i], theta[i], zero if p < 0 else v[p], v[i])
            motion_to_child(T_C[i], revolute[i], c[i], s[i], theta[i], a_0 if p < 0 else a[p], a[i])
            qd = scale[i] * QD[k, i]
            v[i, row[i]] += qd                                    # V_i = X_i V_p + S_i q̇_i
            bias_acceleration(v[i], revolute[i], qd, f[i])        # A_i = X_i A_p + ad(V_i) S_i q̇_i + S_i q̈_i
            for r in range(6):
                a[i, r] += f[i, r]
                f[i, r] = 0.0
            a[i, row[i]] += scale[i] * QDD[k, i]
            add_matvec(inertia[i], a[i], f[i], 1.0)              # F_i = 𝓘_i A_i + V_i ×* 𝓘_i V_i − F^ext_i
            body_force(inertia[i], v[i], f[i], h)
            external(F, k, i, wrench_to_J, f[i])
        for i in range(n - 1, -1, -1):                            # inward: forces
            tau[k, i] = scale[i] * f[i, row[i]]                   # τ_i = S_iᵀ F_i
            if parent[i] >= 0:
                add_force_to_parent(T_C[i], revolute[i], c[i], s[i], theta[i], f[i], f[parent[i]], 1.0)


@jit
def crba(parent, revolute, row, scale, T_C, X_C, inertia_r, K_C, slide, column, Theta, C, S, M):
    """``M[k]`` = the CRBA's mass matrix at sample ``k`` (full and symmetric). Composite inertias are
    rigid-body inertias, carried by their 10 coordinates: ``inertia_r`` (n, 10), ``K_C`` (n, 10, 10)
    the congruences with ``X_C``, ``slide`` (2, 10, 10) or None, ``column`` (n, 6, 10) maps coordinates to
    ``𝓘^c S_i / scale_i``."""
    N, n = Theta.shape
    I_c, w, F, G = np.zeros((n, 10)), np.zeros(10), np.zeros(6), np.zeros(6)
    for k in range(N):
        theta, c, s = Theta[k], C[k], S[k]
        for i in range(n):
            for r in range(10):
                I_c[i, r] = inertia_r[i, r]
        for i in range(n - 1, -1, -1):                            # composite inertias
            if parent[i] >= 0:
                add_rigid_inertia_to_parent(K_C[i], slide, revolute[i], c[i], s[i], theta[i], I_c[i],
                                            I_c[parent[i]], w)
        for i in range(n):
            for j in range(n):
                M[k, i, j] = 0.0
        for i in range(n):
            z = I_c[i]                                            # F = 𝓘^c_i S_i
            z0, z1, z2, z3, z4, z5, z6, z7, z8, z9 = z[0], z[1], z[2], z[3], z[4], z[5], z[6], z[7], z[8], z[9]
            for r in range(6):
                L = column[i, r]
                F[r] = scale[i] * (L[0] * z0 + L[1] * z1 + L[2] * z2 + L[3] * z3 + L[4] * z4
                                   + L[5] * z5 + L[6] * z6 + L[7] * z7 + L[8] * z8 + L[9] * z9)
            M[k, i, i] = scale[i] * F[row[i]]
            j = i
            while parent[j] >= 0:                                 # walk toward the base: F ← X_jᵀ F
                for r in range(6):
                    G[r] = 0.0
                add_force_to_parent(T_C[j], revolute[j], c[j], s[j], theta[j], F, G, 1.0)
                for r in range(6):
                    F[r] = G[r]
                j = parent[j]
                M[k, i, j] = scale[j] * F[row[j]]
                M[k, j, i] = M[k, i, j]


@jit
def aba(parent, revolute, row, scale, T_C, X_C, inertia, wrench_to_J, Theta, C, S, QD, TAU, a_0, F, D_min, singular,
        qdd):
    """``qdd[k]`` = the ABA's accelerations at sample ``k``. A ``D_i`` not above ``D_min`` stops the run
    and leaves ``singular = (k, i, D_i)`` (the caller raises): it is never divided by."""
    N, n = Theta.shape
    v, cb, a, p_A, U = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    I_A, I_a, A, B = np.zeros((n, 6, 6)), np.zeros((6, 6)), np.zeros((6, 6)), np.zeros((6, 6))
    D, u, h, p_a, zero = np.zeros(n), np.zeros(n), np.zeros(6), np.zeros(6), np.zeros(6)
    for k in range(N):
        theta, c, s = Theta[k], C[k], S[k]
        for i in range(n):                                        # 1. outward: velocities
            p = parent[i]
            motion_to_child(T_C[i], revolute[i], c[i], s[i], theta[i], zero if p < 0 else v[p], v[i])
            qd = scale[i] * QD[k, i]
            v[i, row[i]] += qd                                    # v_i = X v_p + S q̇
            bias_acceleration(v[i], revolute[i], qd, cb[i])       # A^×_i = ad(V_i) S_i q̇_i
            for r in range(6):
                p_A[i, r] = 0.0
                for j in range(6):
                    I_A[i, r, j] = inertia[i, r, j]               # 𝓘^A_i = 𝓘_i
            body_force(inertia[i], v[i], p_A[i], h)               # F^A_i = V_i ×* 𝓘_i V_i − F^ext_i
            external(F, k, i, wrench_to_J, p_A[i])
        for i in range(n - 1, -1, -1):                            # 2. inward: articulated inertias
            kk, si = row[i], scale[i]
            for r in range(6):
                U[i, r] = si * I_A[i, r, kk]                      # U_i = 𝓘^A_i S_i
            D[i] = si * U[i, kk]                                  # D_i = S_iᵀ U_i
            if not D[i] > D_min:                                  # a singular mass matrix
                singular[0], singular[1], singular[2] = k, i, D[i]
                return
            u[i] = TAU[k, i] - si * p_A[i, kk]                    # u_i = τ_i − S_iᵀ F^A_i
            p = parent[i]
            if p >= 0:
                for r in range(6):                                # 𝓘^a = 𝓘^A − U Uᵀ / D
                    U_D = U[i, r] / D[i]
                    for j in range(6):
                        I_a[r, j] = I_A[i, r, j] - U_D * U[i, j]
                    p_a[r] = p_A[i, r] + U_D * u[i]               # F^a = F^A + 𝓘^a A^× + U u / D
                add_matvec(I_a, cb[i], p_a, 1.0)
                add_inertia_to_parent(X_C[i], revolute[i], c[i], s[i], theta[i], I_a, I_A[p], A, B)
                add_force_to_parent(T_C[i], revolute[i], c[i], s[i], theta[i], p_a, p_A[p], 1.0)
        for i in range(n):                                        # 3. outward: accelerations
            p = parent[i]
            motion_to_child(T_C[i], revolute[i], c[i], s[i], theta[i], a_0 if p < 0 else a[p], a[i])
            acc = u[i]
            for r in range(6):
                a[i, r] += cb[i, r]                               # A'_i = X_i A_p + A^×_i
                acc -= U[i, r] * a[i, r]
            qdd[k, i] = acc / D[i]                                # q̈_i = (u_i − U_iᵀ A'_i) / D_i
            a[i, row[i]] += scale[i] * qdd[k, i]                  # A_i = A'_i + S_i q̈_i
