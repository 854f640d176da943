"""Whole trajectories at once: RNEA, CRBA and ABA vectorised over N samples (arrays (N, n)).

The same algorithms, with the same loops over the bodies, as :mod:`lessonlib.dynamics`; only
each line now acts on all N samples at once. Spatial vectors are stored ``(6, N)`` (components ×
samples) and 6×6 matrices ``(6, 6, N)``, so a constant 6×6 operator is one BLAS product on the
whole trajectory and everything else is elementwise arithmetic on rows of length N.

Joint frames (Featherstone's convention). Our Model allows any joint screw ``S_i`` in body frame
``i``; Featherstone instead puts each body frame on its joint, z along the axis, where a revolute
joint is a rotation about z and a prismatic one a translation along z. Re-expressing every body in
such a *joint frame* ``J_i`` (origin on the axis, z along it; fixed to body ``i``, computed once per
Model) splits each motion transform into a constant and a cheap per-sample part::

    X_i_p(q) = X_J(θ_i) · X_C,i        X_C,i = Ad(T_Jp_Ji(0)⁻¹)   (constant 6×6)
    X_J(θ)   = Ad(Rz(θ)⁻¹) (revolute)  or  Ad(Tz(θ)⁻¹) (prismatic),     θ_i = scale_i q_i

and the joint screw is a unit vector (``ω_z`` or ``v_z``), so ``τ_i = S_iᵀ f_i`` is one row of
``f_i``. Torques, mass matrices and accelerations do not depend on the frames bodies are
described in, so the results equal the per-sample algorithms' (tests: to 1e-10).

Convention: as everywhere in the course — ``[ω; v]`` / ``[n; f]``, gravity as the base
acceleration ``a_0 = [0; −g]``, ``f_ext`` the wrenches the environment applies on the bodies, each
in its body frame about the body origin (shape ``(N, n, 6)``, or ``(n, 6)`` for the same wrenches
at every sample).

>>> import numpy as np
>>> from lessonlib import samples
>>> arm = samples.planar_2link()                  # seed 003: held horizontal, g = 10: τ = (20, 5)
>>> Q = np.zeros((3, 2))
>>> rnea(arm, Q, Q, Q, gravity=[0, -10, 0]).round(9) + 0.0
array([[20.,  5.],
       [20.,  5.],
       [20.,  5.]])
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from . import se3
from .conventions import ANG, BASE, LIN, base_acceleration

__all__ = ["rnea", "crba", "aba"]

#: Samples per block: the (6, 6, N) arrays of a block stay in the processor's cache.
BLOCK = 2048


# --- per-model constants: the joint frames ------------------------------------------------------

@dataclass(frozen=True)
class JointFrames:
    """A Model's bodies re-expressed in joint frames (see the module docstring); computed once.

    ``X_C`` (n, 6, 6) constant parts of the motion transforms; ``inertia`` (n, 6, 6) spatial
    inertias about the joint-frame origins, joint-frame axes; ``wrench_to_J`` (n, 6, 6) maps a
    body-frame wrench to the joint frame (``Ad(T_i_J)ᵀ``); ``row`` (n,) the component of a spatial
    vector the joint moves (2 = ``ω_z`` for revolute, 5 = ``v_z`` for prismatic); ``scale`` (n,).
    """

    X_C: np.ndarray
    inertia: np.ndarray
    wrench_to_J: np.ndarray
    row: tuple
    revolute: tuple
    scale: np.ndarray


_FRAMES = weakref.WeakKeyDictionary()


def _frame_on_axis(joint):
    """Pose ``T_i_J`` of a joint frame in body frame ``i``: origin on the axis, z along it."""
    z = joint.axis
    helper = np.eye(3)[np.argmin(np.abs(z))]              # the unit vector least parallel to z
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    R = np.column_stack([x, np.cross(z, x), z])
    return se3.from_Rp(R, joint.point if joint.is_revolute else np.zeros(3))


def joint_frames(model):
    """The :class:`JointFrames` of a Model (cached: a Model never changes)."""
    frames = _FRAMES.get(model)
    if frames is None:
        T_i_J = [_frame_on_axis(j) for j in model.joints]
        X_C, inertia, wrench_to_J = [], [], []
        for i, p in enumerate(model.parent):
            T_Jp_i = model.T_tree[i] if p == BASE else se3.inv(T_i_J[p]) @ model.T_tree[i]
            X_C.append(se3.Ad(se3.inv(T_Jp_i @ T_i_J[i])))
            Ad_i_J = se3.Ad(T_i_J[i])                        # v_body = Ad(T_i_J) v_J
            inertia.append(Ad_i_J.T @ model.inertia[i] @ Ad_i_J)
            wrench_to_J.append(Ad_i_J.T)
        frames = JointFrames(X_C=np.array(X_C).reshape(-1, 6, 6), inertia=np.array(inertia).reshape(-1, 6, 6),
                             wrench_to_J=np.array(wrench_to_J).reshape(-1, 6, 6),
                             row=tuple(2 if j.is_revolute else 5 for j in model.joints),
                             revolute=tuple(j.is_revolute for j in model.joints),
                             scale=np.array([j.scale for j in model.joints], dtype=float))
        _FRAMES[model] = frames
    return frames


# --- the joint transform X_J(θ) on stacks of samples ---------------------------------------------
# Arrays have the 6 spatial components on axis 0 and the samples last; m[0::3] are the x rows of
# both halves ([ω_x, v_x]), m[1::3] the y rows. cos θ, sin θ, θ have the samples' shape (N,).

def _motion(joint, m):
    """``X_J(θ) m`` for motion vectors ``m`` (6, ..., N): into the joint frame after the joint moved."""
    out = m.copy()
    if joint.revolute:                                    # Rz(θ)ᵀ on ω and on v
        c, s = joint.cos, joint.sin
        out[0::3] = c * m[0::3] + s * m[1::3]
        out[1::3] = c * m[1::3] - s * m[0::3]
    else:                                                 # v ← v + (−θ e_z) × ω
        out[3] += joint.theta * m[1]
        out[4] -= joint.theta * m[0]
    return out


def _force(joint, f):
    """``X_J(θ)ᵀ f`` for wrenches ``f`` (6, ..., N): back to the parent side of the joint."""
    out = f.copy()
    if joint.revolute:                                    # Rz(θ) on n and on f
        c, s = joint.cos, joint.sin
        out[0::3] = c * f[0::3] - s * f[1::3]
        out[1::3] = s * f[0::3] + c * f[1::3]
    else:                                                 # n ← n − (−θ e_z) × f
        out[0] -= joint.theta * f[4]
        out[1] += joint.theta * f[3]
    return out


@dataclass
class _JointState:
    """One joint over all samples of a block: its kind and ``θ``, ``cos θ``, ``sin θ`` (N,)."""

    revolute: bool
    theta: np.ndarray
    cos: np.ndarray = None
    sin: np.ndarray = None

    def __post_init__(self):
        if self.revolute:
            self.cos, self.sin = np.cos(self.theta), np.sin(self.theta)


def _joint_states(jf, Q):
    """The joint states of a block ``Q`` (n, N)."""
    return [_JointState(r, s * q) for r, s, q in zip(jf.revolute, jf.scale, Q)]


def _X(jf, joints, i, m):
    """``X_i_p m`` for motion vectors ``m`` (6, N) of the parent."""
    return _motion(joints[i], jf.X_C[i] @ m)


def _XT(jf, joints, i, f):
    """``X_i_pᵀ f`` for wrenches ``f`` (6, ...) of body ``i``: the wrench in the parent's frame."""
    g = _force(joints[i], f)
    return (jf.X_C[i].T @ g.reshape(6, -1)).reshape(g.shape)


def _congruence(jf, joints, i, Y):
    """``X_i_pᵀ Y X_i_p`` for symmetric 6×6 matrices ``Y`` (6, 6, N): an inertia in the parent's frame."""
    return _XT(jf, joints, i, _XT(jf, joints, i, Y).swapaxes(0, 1))


def _cross(a, b):
    """``a × b`` for 3-vectors stored (3, N)."""
    return np.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _ad_times_S(v, row, qd):
    """Velocity product ``ad(v) S q̇`` for the unit joint screw ``S = e_row`` (joint frame)."""
    c = np.zeros_like(v)
    if row == 2:                                          # ad(v) e_ωz = [ω × z; v × z]
        c[0::3] = v[1::3] * qd
        c[1::3] = -v[0::3] * qd
    else:                                                 # ad(v) e_vz = [0; ω × z]
        c[3] = v[1] * qd
        c[4] = -v[0] * qd
    return c


def _ad_dual(v, h):
    """``ad*(v) h = [ω × h_n + v × h_f; ω × h_f]`` for twists and momenta stored (6, N)."""
    return np.concatenate([_cross(v[ANG], h[ANG]) + _cross(v[LIN], h[LIN]), _cross(v[ANG], h[LIN])])


def _matvec(I, x):
    """``I_k x_k`` for every sample: a constant (6, 6) or per-sample (6, 6, N) matrix times (6, N)."""
    return I @ x if I.ndim == 2 else np.einsum("ijn,jn->in", I, x)


# --- input checking ------------------------------------------------------------------------------

def _trajectory(model, X, name, N=None):
    """``X`` as a float (N, n) array of finite numbers, or ValueError naming ``name``."""
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected numbers, got {type(X).__name__} ({exc})") from None
    want = f"({'N' if N is None else N}, {model.n})"
    if A.ndim != 2 or A.shape[1] != model.n or (N is not None and A.shape[0] != N):
        raise ValueError(f"{name}: expected shape {want} (samples × joints of {model.name!r}), got {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError(f"{name}: contains non-finite values")
    return A


def _wrenches(model, f_ext, N):
    """``f_ext`` as a float (N, n, 6) or (n, 6) array, or ValueError."""
    if f_ext is None:
        return None
    try:
        F = np.asarray(f_ext, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"f_ext: expected numbers, got {type(f_ext).__name__} ({exc})") from None
    if F.shape not in ((N, model.n, 6), (model.n, 6)):
        raise ValueError(f"f_ext: expected shape ({N}, {model.n}, 6) or ({model.n}, 6) (wrenches [n; f] "
                         f"on the bodies, body frames), got {F.shape}")
    if not np.isfinite(F).all():
        raise ValueError("f_ext: contains non-finite values")
    return F


def _blocks(N):
    return [slice(start, min(start + BLOCK, N)) for start in range(0, N, BLOCK)] or [slice(0, 0)]


def _per_sample(model, block, arrays, gravity, F):
    """Rows (N, n) of ``block(model, *columns, a_0, F)`` run on ``BLOCK`` samples at a time.

    ``arrays`` are the (N, n) joint-space inputs, handed to the kernel as (n, N) columns;
    ``F`` the wrenches, (n, 6) for every sample or (N, n, 6).
    """
    N = arrays[0].shape[0]
    a_0 = base_acceleration(model.gravity_or_default(gravity))
    out = np.empty((N, model.n))
    for b in _blocks(N):
        F_b = None if F is None else (F if F.ndim == 2 else F[b])
        out[b] = block(model, *(x[b].T for x in arrays), a_0, F_b).T
    return out


# --- the algorithms ------------------------------------------------------------------------------

def rnea(model, Q, QD, QDD, *, gravity=None, f_ext=None):
    """Joint torques ``τ`` (N, n) of a whole trajectory by the RNEA, one row per sample.

    ``Q, QD, QDD`` (N, n); ``gravity`` world 3-vector (None: the model's default); ``f_ext``
    (N, n, 6) or (n, 6) wrenches on the bodies (body frames). Equals
    ``[dynamics.rnea(model, Q[k], QD[k], QDD[k], ...) for k in range(N)]``.
    """
    Q = _trajectory(model, Q, "Q")
    N = Q.shape[0]
    QD, QDD = _trajectory(model, QD, "QD", N), _trajectory(model, QDD, "QDD", N)
    return _per_sample(model, _rnea_block, (Q, QD, QDD), gravity, _wrenches(model, f_ext, N))


def _rnea_block(model, Q, QD, QDD, a_0, F):
    """RNEA on one block; ``Q, QD, QDD`` (n, N); returns ``τ`` (n, N)."""
    jf, parent, n, N = joint_frames(model), model.parent, model.n, Q.shape[1]
    joints = _joint_states(jf, Q)
    v, a, f = [None] * n, [None] * n, [None] * n
    zero, a_base = np.zeros((6, N)), np.repeat(a_0[:, None], N, axis=1)
    for i in range(n):                                   # outward: motion
        p, k, s = parent[i], jf.row[i], jf.scale[i]
        v_p, a_p = (zero, a_base) if p == BASE else (v[p], a[p])
        v[i] = _X(jf, joints, i, v_p)
        v[i][k] += s * QD[i]                             # + S_i q̇_i
        a[i] = _X(jf, joints, i, a_p) + _ad_times_S(v[i], k, s * QD[i])
        a[i][k] += s * QDD[i]                            # + S_i q̈_i
        I = jf.inertia[i]
        f[i] = I @ a[i] + _ad_dual(v[i], I @ v[i])
        if F is not None:
            f[i] -= jf.wrench_to_J[i] @ (F[i][:, None] if F.ndim == 2 else F[:, i].T)
    tau = np.empty((n, N))
    for i in reversed(range(n)):                         # inward: forces
        tau[i] = jf.scale[i] * f[i][jf.row[i]]           # τ_i = S_iᵀ f_i
        if parent[i] != BASE:
            f[parent[i]] += _XT(jf, joints, i, f[i])
    return tau


def crba(model, Q):
    """Mass matrices ``M`` (N, n, n) of a whole trajectory by the CRBA, one per sample."""
    Q = _trajectory(model, Q, "Q")
    N = Q.shape[0]
    M = np.empty((N, model.n, model.n))
    for b in _blocks(N):
        M[b] = _crba_block(model, Q[b].T).transpose(2, 0, 1)
    return M


def _crba_block(model, Q):
    """CRBA on one block ``Q`` (n, N); returns ``M`` (n, n, N)."""
    jf, parent, n, N = joint_frames(model), model.parent, model.n, Q.shape[1]
    joints = _joint_states(jf, Q)
    I_c = [np.repeat(jf.inertia[i][:, :, None], N, axis=2) for i in range(n)]   # composite inertias
    for i in reversed(range(n)):
        if parent[i] != BASE:
            I_c[parent[i]] += _congruence(jf, joints, i, I_c[i])
    M = np.zeros((n, n, N))
    for i in range(n):
        F = jf.scale[i] * I_c[i][:, jf.row[i]]            # F = I^c_i S_i
        M[i, i] = jf.scale[i] * F[jf.row[i]]
        j = i
        while parent[j] != BASE:                          # walk toward the base
            F = _XT(jf, joints, j, F)
            j = parent[j]
            M[i, j] = M[j, i] = jf.scale[j] * F[jf.row[j]]
    return M


def aba(model, Q, QD, TAU, *, gravity=None, f_ext=None):
    """Joint accelerations ``q̈`` (N, n) of a whole trajectory by the ABA, one row per sample.

    ``f_ext`` (N, n, 6) or (n, 6): wrenches the environment applies on the bodies (body frames).
    """
    Q = _trajectory(model, Q, "Q")
    N = Q.shape[0]
    QD, TAU = _trajectory(model, QD, "QD", N), _trajectory(model, TAU, "TAU", N)
    return _per_sample(model, _aba_block, (Q, QD, TAU), gravity, _wrenches(model, f_ext, N))


def _aba_block(model, Q, QD, TAU, a_0, F):
    """ABA on one block; ``Q, QD, TAU`` (n, N); returns ``q̈`` (n, N)."""
    jf, parent, n, N = joint_frames(model), model.parent, model.n, Q.shape[1]
    joints = _joint_states(jf, Q)
    v, c, I_A, p_A = [None] * n, [None] * n, [None] * n, [None] * n
    zero = np.zeros((6, N))
    for i in range(n):                                   # 1. outward: velocities
        k, qd = jf.row[i], jf.scale[i] * QD[i]
        v[i] = _X(jf, joints, i, zero if parent[i] == BASE else v[parent[i]])
        v[i][k] += qd
        c[i] = _ad_times_S(v[i], k, qd)
        I_A[i] = np.repeat(jf.inertia[i][:, :, None], N, axis=2)
        p_A[i] = _ad_dual(v[i], jf.inertia[i] @ v[i])
        if F is not None:
            p_A[i] -= jf.wrench_to_J[i] @ (F[i][:, None] if F.ndim == 2 else F[:, i].T)
    U, D, u = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):                         # 2. inward: articulated inertias
        k, s = jf.row[i], jf.scale[i]
        U[i] = s * I_A[i][:, k]                          # U_i = I^A_i S_i
        D[i] = s * U[i][k]                               # D_i = S_iᵀ U_i
        u[i] = TAU[i] - s * p_A[i][k]                    # u_i = τ_i − S_iᵀ p^A_i
        if parent[i] != BASE:
            I_a = I_A[i] - U[i][:, None] * (U[i] / D[i])[None, :]
            p_a = p_A[i] + _matvec(I_a, c[i]) + U[i] * (u[i] / D[i])
            I_A[parent[i]] += _congruence(jf, joints, i, I_a)
            p_A[parent[i]] += _XT(jf, joints, i, p_a)
    a, qdd = [None] * n, np.empty((n, N))
    a_base = np.repeat(a_0[:, None], N, axis=1)
    for i in range(n):                                   # 3. outward: accelerations
        k, s = jf.row[i], jf.scale[i]
        a[i] = _X(jf, joints, i, a_base if parent[i] == BASE else a[parent[i]]) + c[i]
        qdd[i] = (u[i] - np.einsum("in,in->n", U[i], a[i])) / D[i]
        a[i][k] += s * qdd[i]                            # a_i = a'_i + S_i q̈_i
    return qdd
