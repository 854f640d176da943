"""Joint frames and the structured transforms of :mod:`lessonlib.batch`, applied to blocks of samples.

**Joint frames** (Featherstone's convention). Each body is re-expressed in a frame ``J_i`` fixed to
it, with its origin on the joint axis and z along the axis (computed once per Model). Then every
motion transform ``X_i`` (joint ``i = 1 .. n``, entry ``i-1``) splits into a constant 6×6 and a cheap
per-sample part::

    X_i(q_i) = X_J(θ_i) · X_C,i        X_C,i = Ad(T_Jp_Ji(0)⁻¹)                 (constant)
    X_J(θ)   = Ad(R_z(θ)⁻¹) (revolute)  or  Ad(Tz(θ)⁻¹) (prismatic),     θ_i = scale_i · q_i

and the joint screw is ``S_i = scale_i · e_k`` with ``e_k`` a unit 6-vector (code index ``k = 2``,
``ω_z``, or ``k = 5``, ``v_z``): ``S_iᵀ F`` is one row of a wrench ``F`` and ``𝓘 S_i`` one column of a
spatial inertia ``𝓘``.

**Layout.** Arrays hold the samples on their last axis: a spatial vector of a block is ``(6, N)``, so
a constant 6×6 operator is one BLAS product on the whole block and the per-sample part acts on rows
of length N. ``X_J(θ)`` only turns the x and y rows of ``[ω; v]`` (rows 0, 3 and 1, 4) by ``θ``.

**Symmetric 6×6 matrices** are stored by their independent entries only — 21 for an articulated
inertia (:data:`SYMMETRIC`), 10 for a composite inertia, which is a rigid-body inertia (:data:`RIGID`)
— in coordinates chosen so that a rotation about z, ``𝓘 ↦ R 𝓘 Rᵀ`` with ``R = diag(R_z, R_z)``, is
cheap: some coordinates do not change (``I_zz``-type entries, the traces and the antisymmetric part
of the x-y blocks), pairs turn by ``θ`` (the ``xz`` / ``yz`` entries) or by ``2θ`` (the traceless
symmetric parts of the x-y blocks, Mohr's circle). The congruence with the constant ``X_C`` is then
one 21×21 or 10×10 product on the block (:attr:`JointFrames.K_C`, :attr:`JointFrames.K_C_rigid`).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from .. import se3, so3
from .._operators import Ad_inv
from ..conventions import ANG, ANG_X, ANG_Y, ANG_Z, BASE, LIN, LIN_X, LIN_Y, LIN_Z

REVOLUTE_ROW, PRISMATIC_ROW = ANG_Z, LIN_Z      # S = scale · e_k: ω_z for revolute joints, v_z for prismatic
#: The x rows ``[ω_x, v_x]`` and the y rows ``[ω_y, v_y]`` of a spatial vector (views, not copies):
#: what a turn about z mixes.
X_ROWS = slice(ANG_X, None, LIN_X - ANG_X)
Y_ROWS = slice(ANG_Y, None, LIN_Y - ANG_Y)


# --- coordinates of symmetric 6×6 matrices in which a turn about z is cheap ------------------------------
# Each coordinate is a linear function of the entries, {(row, column): coefficient}; they come in the
# order: unchanged by a turn about z, x members of the pairs that turn by θ, their y members, x and
# y members of the pairs that turn by 2θ. A pair (x, y) turns as a vector: (c x − s y, s x + c y).

class Coordinates:
    """Coordinates of a space of symmetric 6×6 matrices (all of them, or the rigid-body inertias).

    ``basis`` (36, d): the space's matrices (row-major) spanned by its columns. ``Z`` (d, 36) reads
    the coordinates off a matrix, ``Z_inv`` (36, d) builds the matrix back; ``fixed``, ``turn``
    (x, y) and ``turn2`` (x, y) are the slices of the unchanged coordinates and of the pairs.
    """

    def __init__(self, fixed, turn_x, turn_y, turn2_x, turn2_y, basis):
        coordinates = fixed + turn_x + turn_y + turn2_x + turn2_y
        self.size = d = len(coordinates)
        self.Z = np.zeros((d, 36))
        for r, coordinate in enumerate(coordinates):
            for (a, b), coef in coordinate.items():
                self.Z[r, 6 * a + b] = coef
        self.Z_inv = basis @ np.linalg.inv(self.Z @ basis)
        f, t, t2 = len(fixed), len(turn_x), len(turn2_x)
        self.fixed = slice(0, f)
        self.turn = (slice(f, f + t), slice(f + t, f + 2 * t))
        self.turn2 = (slice(f + 2 * t, f + 2 * t + t2), slice(f + 2 * t + t2, d))
        plus, minus = (self.congruence(se3.Ad(se3.from_Rp(np.eye(3), [0.0, 0.0, -t]))) for t in (1.0, -1.0))
        #: The prismatic joint's ``X_J(θ)ᵀ M X_J(θ) = M + θ K1 M + θ² K2 M``, on coordinates.
        self.slide = ((plus - minus) / 2, (plus + minus) / 2 - np.eye(d))

    def of(self, M):
        """The coordinates ``(..., d)`` of matrices ``M`` (..., 6, 6) of the space."""
        return M.reshape(*M.shape[:-2], 36) @ self.Z.T

    def matrix(self, z):
        """The matrices (..., 6, 6) with coordinates ``z`` (..., d)."""
        return (z @ self.Z_inv.T).reshape(*z.shape[:-1], 6, 6)

    def congruence(self, X):
        """``z ↦ coordinates of Xᵀ M X`` (d, d), ``M`` given by its coordinates ``z``."""
        return self.Z @ np.kron(X.T, X.T) @ self.Z_inv

    def columns(self, columns):
        """The (6·len(columns), d) map from coordinates to the entries of those columns (row-major)."""
        return self.Z_inv.reshape(6, 6, self.size)[:, list(columns)].reshape(-1, self.size)


def _symmetric_basis():
    """(36, 21): the symmetric matrices with one upper-triangle entry (and its mirror) equal to 1."""
    basis = np.zeros((36, 21))
    for k, (a, b) in enumerate(zip(*np.triu_indices(6))):
        basis[6 * a + b, k] = basis[6 * b + a, k] = 1.0
    return basis


def _rigid_basis():
    """(36, 10): the spatial inertias ``[Ī  ĥ; ĥᵀ  m 1]`` of a unit ``m``, ``h`` or ``Ī`` entry."""
    basis = []
    for e in np.eye(10):
        m, h, (xx, yy, zz, xy, xz, yz) = e[0], e[1:4], e[4:]
        I = np.zeros((6, 6))
        I[ANG, ANG] = [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
        I[ANG, LIN] = so3.hat(h)
        I[LIN, ANG] = I[ANG, LIN].T
        I[LIN, LIN] = m * np.eye(3)
        basis.append(I.ravel())
    return np.array(basis).T


#: All symmetric 6×6 matrices (articulated inertias): 21 coordinates. Unchanged by a turn about z:
#: the zz-type entries, the traces and the antisymmetric part of the x-y blocks; turning by θ: the
#: xz and yz entries; by 2θ: the traceless symmetric part of the x-y blocks (Mohr's circle).
SYMMETRIC = Coordinates(
    fixed=[{(ANG_Z, ANG_Z): 1}, {(ANG_Z, LIN_Z): 1}, {(LIN_Z, LIN_Z): 1},
           {(ANG_X, ANG_X): 1, (ANG_Y, ANG_Y): 1}, {(LIN_X, LIN_X): 1, (LIN_Y, LIN_Y): 1},
           {(ANG_X, LIN_X): 1, (ANG_Y, LIN_Y): 1}, {(ANG_Y, LIN_X): 1, (ANG_X, LIN_Y): -1}],
    turn_x=[{(ANG_X, ANG_Z): 1}, {(ANG_X, LIN_Z): 1}, {(LIN_X, ANG_Z): 1}, {(LIN_X, LIN_Z): 1}],
    turn_y=[{(ANG_Y, ANG_Z): 1}, {(ANG_Y, LIN_Z): 1}, {(LIN_Y, ANG_Z): 1}, {(LIN_Y, LIN_Z): 1}],
    turn2_x=[{(ANG_X, ANG_X): .5, (ANG_Y, ANG_Y): -.5}, {(LIN_X, LIN_X): .5, (LIN_Y, LIN_Y): -.5},
             {(ANG_X, LIN_X): .5, (ANG_Y, LIN_Y): -.5}],
    turn2_y=[{(ANG_X, ANG_Y): 1}, {(LIN_X, LIN_Y): 1}, {(ANG_X, LIN_Y): .5, (ANG_Y, LIN_X): .5}],
    basis=_symmetric_basis())

#: Rigid-body spatial inertias ``[Ī ĥ; ĥᵀ m1]`` (composite inertias): 10 coordinates — ``m``,
#: ``h_z``, ``Ī_zz``, ``Ī_xx + Ī_yy`` unchanged; ``(Ī_xz, Ī_yz)`` and ``(h_x, h_y)`` turning by θ;
#: ``((Ī_xx − Ī_yy)/2, Ī_xy)`` by 2θ.
RIGID = Coordinates(
    fixed=[{(LIN_Z, LIN_Z): 1}, {(ANG_Y, LIN_X): 1}, {(ANG_Z, ANG_Z): 1},
           {(ANG_X, ANG_X): 1, (ANG_Y, ANG_Y): 1}],
    turn_x=[{(ANG_X, ANG_Z): 1}, {(ANG_Z, LIN_Y): 1}],
    turn_y=[{(ANG_Y, ANG_Z): 1}, {(ANG_X, LIN_Z): 1}],
    turn2_x=[{(ANG_X, ANG_X): .5, (ANG_Y, ANG_Y): -.5}],
    turn2_y=[{(ANG_X, ANG_Y): 1}],
    basis=_rigid_basis())


class SparseMap:
    """A constant matrix with at most two non-zeros per row, applied to (d, N) blocks by gathering
    rows: ``L z = c₁ z[j₁] + c₂ z[j₂]`` row by row (cheaper than a dense product for these maps)."""

    def __init__(self, L):
        m = L.shape[0]
        self.index, self.coef = np.zeros((2, m), dtype=np.intp), np.zeros((2, m, 1))
        for r in range(m):
            nonzero = np.flatnonzero(np.abs(L[r]) > 1e-12)
            if len(nonzero) > 2:
                raise ValueError(f"L: expected at most two non-zeros per row, row {r} has {len(nonzero)}")
            self.index[:len(nonzero), r] = nonzero
            self.coef[:len(nonzero), r, 0] = L[r, nonzero]

    def __call__(self, z):
        out = self.coef[0] * z[self.index[0]]
        out += self.coef[1] * z[self.index[1]]
        return out


#: Upper-triangle index pairs (a ≤ b) of a 6×6 matrix, in row order.
UPPER = np.triu_indices(6)
#: The :data:`SYMMETRIC` coordinates of a symmetric matrix from its upper-triangle entries.
FROM_UPPER = SparseMap(SYMMETRIC.Z @ _symmetric_basis())

#: ``U = 𝓘 S`` for ``S = e_k``: column k of ``𝓘`` from its coordinates (k = 2 and 5), for
#: :data:`SYMMETRIC` and :data:`RIGID` coordinates.
COLUMN = {k: SparseMap(SYMMETRIC.columns([k])) for k in (REVOLUTE_ROW, PRISMATIC_ROW)}
RIGID_COLUMN = {k: RIGID.columns([k]) for k in (REVOLUTE_ROW, PRISMATIC_ROW)}

#: The rows of ``A^× = ad(V) S q̇`` (``c`` in code) that can be non-zero (``ω × z``, ``v × z``: x and y rows), per ``k``,
#: and the map from :data:`SYMMETRIC` coordinates to those columns (6 · rows).
BIAS_ROWS = {REVOLUTE_ROW: (ANG_X, ANG_Y, LIN_X, LIN_Y), PRISMATIC_ROW: (LIN_X, LIN_Y)}
BIAS_COLUMNS = {k: SparseMap(SYMMETRIC.columns(rows)) for k, rows in BIAS_ROWS.items()}


# --- per-model constants -----------------------------------------------------------------------------

@dataclass(frozen=True)
class JointFrames:
    """A Model's bodies re-expressed in joint frames (see the module docstring); computed once.

    ``T_C`` (n, 4, 4) the joint frames' poses in their parents' at ``q = 0`` and ``X_C`` (n, 6, 6)
    ``= Ad(T_C⁻¹)``, the constant parts of the motion transforms, ``X_C_T`` their transposes;
    ``inertia`` (n, 6, 6) spatial inertias about the joint-frame origins, joint-frame axes, and
    ``inertia_z`` (n, 21) and ``inertia_r`` (n, 10) their :data:`SYMMETRIC` and :data:`RIGID`
    coordinates; ``K_C`` (n, 21, 21) and ``K_C_rigid`` (n, 10, 10) the congruence ``X_Cᵀ · X_C``
    on those coordinates; ``wrench_to_J`` (n, 6, 6) maps a body-frame wrench to the joint frame
    (``Ad(T_i_J)ᵀ``); ``row`` (n,) the k of ``S_i = scale_i e_k``; ``revolute`` (n,) bools;
    ``scale`` (n,); ``parent`` (n,); ``subtree`` (n,) the bodies supported by each joint (a
    slice when they are numbered contiguously, else an index array).
    """

    T_C: np.ndarray
    X_C: np.ndarray
    X_C_T: np.ndarray
    inertia: np.ndarray
    inertia_z: np.ndarray
    inertia_r: np.ndarray
    K_C: np.ndarray
    K_C_rigid: np.ndarray
    wrench_to_J: np.ndarray
    row: tuple
    revolute: tuple
    scale: np.ndarray
    parent: tuple
    subtree: tuple

    @property
    def n(self):
        return len(self.parent)


_FRAMES = weakref.WeakKeyDictionary()


def frame_on_axis(joint):
    """Pose ``T_i_J`` of a joint frame in body frame ``i``: origin on the axis, z along it."""
    z = joint.axis
    helper = np.eye(3)[np.argmin(np.abs(z))]              # the unit vector least parallel to z
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    R = np.column_stack([x, np.cross(z, x), z])
    return se3.from_Rp(R, joint.point if joint.is_revolute else np.zeros(3))


def _subtrees(parent):
    """For each body, the bodies of its subtree (itself and all its descendants)."""
    members = [[i] for i in range(len(parent))]
    for i in reversed(range(len(parent))):
        if parent[i] != BASE:
            members[parent[i]] += members[i]
    out = []
    for m in members:
        m = sorted(m)
        out.append(slice(m[0], m[-1] + 1) if m[-1] - m[0] + 1 == len(m) else np.array(m))
    return tuple(out)


def joint_frames(model):
    """The :class:`JointFrames` of a Model (cached: a Model never changes)."""
    frames = _FRAMES.get(model)
    if frames is None:
        T_i_J = [frame_on_axis(j) for j in model.joints]
        T_C, inertia, wrench_to_J = [], [], []
        for i, p in enumerate(model.parent):
            T_Jp_i = model.T_tree[i] if p == BASE else se3.inv(T_i_J[p]) @ model.T_tree[i]
            T_C.append(T_Jp_i @ T_i_J[i])
            Ad_i_J = se3.Ad(T_i_J[i])                        # v_body = Ad(T_i_J) v_J
            inertia.append(Ad_i_J.T @ model.inertia[i] @ Ad_i_J)
            wrench_to_J.append(Ad_i_J.T)
        T_C, inertia = np.array(T_C).reshape(-1, 4, 4), np.array(inertia).reshape(-1, 6, 6)
        X_C = Ad_inv(T_C)
        frames = JointFrames(T_C=T_C, X_C=X_C, X_C_T=np.ascontiguousarray(X_C.transpose(0, 2, 1)),
                             inertia=inertia, inertia_z=SYMMETRIC.of(inertia), inertia_r=RIGID.of(inertia),
                             K_C=np.array([SYMMETRIC.congruence(X) for X in X_C]).reshape(-1, 21, 21),
                             K_C_rigid=np.array([RIGID.congruence(X) for X in X_C]).reshape(-1, 10, 10),
                             wrench_to_J=np.array(wrench_to_J).reshape(-1, 6, 6),
                             row=tuple(REVOLUTE_ROW if j.is_revolute else PRISMATIC_ROW for j in model.joints),
                             revolute=tuple(j.is_revolute for j in model.joints),
                             scale=np.array([j.scale for j in model.joints], dtype=float),
                             parent=tuple(int(p) for p in model.parent), subtree=_subtrees(model.parent))
        _FRAMES[model] = frames
    return frames


# --- the arrays of a block, and its joints -----------------------------------------------------------------

class Workspace:
    """The large arrays of a kernel, allocated once per call and reused from block to block.

    Fresh arrays of a few hundred kB would come from the operating system at every block (and
    fault their pages in again); reusing them keeps a block's arrays where the cache has them.
    """

    def __init__(self):
        self._arrays = {}

    def empty(self, name, shape):
        """The array called ``name`` with this shape (uninitialised the first time)."""
        a = self._arrays.get(name)
        if a is None or a.shape != shape:
            a = self._arrays[name] = np.empty(shape)
        return a


# --- the joints of one block of samples -----------------------------------------------------------------

def cos_sin(theta):
    """``cos θ, sin θ`` from ``t = tan(θ/2)``: ``((1 − t²) / (1 + t²), 2t / (1 + t²))``.

    The same numbers to a few ulps, in a fifth of the time: NumPy's ``tan`` is vectorised where its
    double-precision ``cos`` and ``sin`` are not. At ``θ = ±π`` ``t`` is about 1.6e16 and the
    formulas still give ``(−1, 1.2e−16)``, as ``cos`` and ``sin`` do.
    """
    t = np.tan(0.5 * theta)
    t2 = t * t
    r = 1.0 / (1.0 + t2)
    cos = (1.0 - t2) * r
    r += r
    r *= t
    return cos, r


class BlockJoints:
    """The joint transforms ``X_i = X_J(θ_i) X_C,i`` of a block of N samples, applied structurally.

    ``theta`` (n, N) = ``scale · q``; ``cos``, ``sin`` of ``θ`` and of ``2θ`` are computed once per
    block. Each method takes the joint's code index ``i`` (joint ``i+1``) and arrays with the 6 (or 21)
    components first and the samples last; any axes between are other quantities sharing the same
    transform. In the method docstrings ``X_i`` is that joint's transform.
    """

    def __init__(self, frames, Q):
        self.frames = frames
        self.theta = frames.scale[:, None] * Q
        self.cos, self.sin = cos_sin(self.theta)
        self.cos2 = 2.0 * self.cos * self.cos - 1.0
        self.sin2 = 2.0 * self.sin * self.cos

    def motion_to_child(self, i, m):
        """``X_i m`` (new array) for motion vectors ``m`` (6, ..., N) in the parent's joint frame."""
        out = (self.frames.X_C[i] @ m.reshape(6, -1)).reshape(m.shape)
        x, y = out[X_ROWS], out[Y_ROWS]                   # [ω_x, v_x] and [ω_y, v_y]
        if self.frames.revolute[i]:                       # R_z(θ)ᵀ on ω and on v
            c, s = self.cos[i], self.sin[i]
            x_new = c * x
            x_new += s * y
            y *= c
            y -= s * x
            x[...] = x_new
        else:                                             # v ← v − θ e_z × ω
            theta = self.theta[i]
            out[LIN_X] += theta * out[ANG_Y]
            out[LIN_Y] -= theta * out[ANG_X]
        return out

    def force_to_parent(self, i, f):
        """``X_iᵀ F`` (new array) for wrenches ``F`` (``f`` in code; 6, ..., N) of the body: in the
        parent's frame."""
        g = f.copy()
        if self.frames.revolute[i]:                       # R_z(θ) on μ and on f
            c, s = self.cos[i], self.sin[i]
            x, y = g[X_ROWS], g[Y_ROWS]
            x *= c
            x -= s * f[Y_ROWS]
            y *= c
            y += s * f[X_ROWS]
        else:                                             # μ ← μ + θ e_z × f
            theta = self.theta[i]
            g[ANG_X] -= theta * f[LIN_Y]
            g[ANG_Y] += theta * f[LIN_X]
        return (self.frames.X_C_T[i] @ g.reshape(6, -1)).reshape(f.shape)

    def inertia_to_parent(self, i, z, space=SYMMETRIC):
        """``X_iᵀ 𝓘 X_i`` (new array) for matrices ``𝓘`` of ``space`` given by coordinates ``z`` (d, N)."""
        w = z.copy()
        if self.frames.revolute[i]:                       # R 𝓘 Rᵀ, R = diag(R_z(θ), R_z(θ))
            for cos, sin, (X, Y) in ((self.cos[i], self.sin[i], space.turn), (self.cos2[i], self.sin2[i], space.turn2)):
                x, y = w[X], w[Y]
                x *= cos
                x -= sin * z[Y]
                y *= cos
                y += sin * z[X]
        else:                                             # 𝓘 + θ K1 𝓘 + θ² K2 𝓘
            theta = self.theta[i]
            w += theta * (space.slide[0] @ z + theta * (space.slide[1] @ z))
        K_C = self.frames.K_C if space is SYMMETRIC else self.frames.K_C_rigid
        return K_C[i] @ w


# --- velocity products -------------------------------------------------------------------------------------
# Arrays of all bodies are stored component-major, (6, n, N): each component is a contiguous plane.

def cross(a, b, out, tmp):
    """``out = a × b`` for 3-vectors stored component-major, (3, ...); ``tmp`` a scratch plane."""
    for x, y, z in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        np.multiply(a[y], b[z], out=out[x])
        np.multiply(a[z], b[y], out=tmp)
        out[x] -= tmp
    return out


def momentum_rate(v, h, out, work):
    """``out = ad*(V) h = [ω × h_n + v × h_f; ω × h_f]`` for twists ``V = [ω; v]`` (``v`` in code) and
    spatial momenta ``h = 𝓘V = [h_n; h_f]`` (6, n, N; ``h`` is not the bias force here)."""
    tmp, other = work.empty("plane", v.shape[1:]), work.empty("cross", (3, *v.shape[1:]))
    cross(v[ANG], h[ANG], out[ANG], tmp)
    out[ANG] += cross(v[LIN], h[LIN], other, tmp)
    cross(v[ANG], h[LIN], out[LIN], tmp)
    return out


def add_bias_acceleration(a, v, k, qd):
    """``A += ad(V) S q̇`` for ``S = e_k`` (joint frame): ``ad(V) e_ωz = [ω × z; v × z]``, ``ad(V) e_vz = [0; ω × z]``.

    ``a`` (``A``), ``v`` (``V``) (6, N); changes ``a`` in place.
    """
    if k == REVOLUTE_ROW:
        a[X_ROWS] += v[Y_ROWS] * qd
        a[Y_ROWS] -= v[X_ROWS] * qd
    else:
        a[LIN_X] += v[ANG_Y] * qd
        a[LIN_Y] -= v[ANG_X] * qd
