"""Closed kinematic loops: a spanning tree plus loop-closure constraints (seed 001 "约束动力学", seed 002 NOC).

A mechanism with loops (a four-bar, a parallel arm) is modelled as a **spanning tree** — cut one
joint in every loop and the rest is an ordinary :class:`~lessonlib.model.Model` with coordinates
``q`` (n,) — plus one :class:`LoopConstraint` per cut joint, which says that a frame ``A`` fixed on
body ``a`` and a frame ``B`` fixed on body ``b`` (or on the base) move together in some directions.

Convention. The loop-closure rows are components of the **relative twist of A with respect to B,
at A, in A's axes**, ``V_rel = Ad(T_0A⁻¹)(V_a − V_b)`` (``V_a``, ``V_b`` the space twists of the two
bodies, ``[ω; v]``). The joint that was cut allows some components and forbids the others:

====================  ===========================  ==================================================
``kind``              forbidden rows of ``V_rel``   position residual ``φ`` (zero when closed)
====================  ===========================  ==================================================
``"revolute"``        ``ω_x, ω_y, v_x, v_y, v_z``   ``R_Aᵀ(p_A − p_B)`` and ``[u_y, −u_x]``, ``u = R_Aᵀ z_B``
``"point"``           ``v_x, v_y, v_z``             ``R_Aᵀ(p_A − p_B)`` (a ball joint)
``"planar_revolute"`` ``v_x, v_y``                  ``(R_Aᵀ(p_A − p_B))_{x,y}`` (pin of a planar linkage)
====================  ===========================  ==================================================

(the revolute axis is A's z-axis). Stacking the forbidden rows of all constraints gives::

    G(q) q̇ = 0                  velocity level, G (m, n) the constraint Jacobian          (12.2)
    G(q) q̈ = γ(q, q̇) = −Ġ q̇     acceleration level                                        (12.3)

and ``φ(q) = 0`` at the position level; ``dφ/dt = G q̇`` wherever ``φ = 0``. A ``"planar_revolute"``
is the right cut for a planar linkage: its three out-of-plane rows would be identically zero
(``G`` rank-deficient); the algorithms here still work then (least squares), but the multipliers of
those rows are not determined by the dynamics (statically indeterminate), and the minimum-norm
answer is returned.

Constraint forces. ``Gᵀ λ`` is the joint torque produced by the wrench ``w_A = Pᵀ λ`` (``P`` picks
the forbidden rows) that body ``b`` applies **on** body ``a`` at the point A, in A's axes ``[n; f]``
(and ``−w_A`` on body ``b``). With the actuator torques ``τ_a`` on the joints ``actuated`` (``B`` the
n×k selection matrix) the equations of motion of the closed chain are::

    M(q) q̈ + c(q, q̇) + g(q) = B τ_a + Gᵀ λ,        G q̈ = γ                              (12.4)

Natural orthogonal complement (自然正交补, NOC; Angeles & Lee 1988, seed 002). ``N(q)`` (n, dof)
with ``G N = 0``: every admissible velocity is ``q̇ = N ẏ``. Premultiplying (12.4) by ``Nᵀ`` removes
``λ`` (``Nᵀ Gᵀ = 0``), which is the whole idea of the NOC — and of the DeNOC, where the "constraints"
are the joints of a serial chain and ``N = N_l N_d`` (seed 002)::

    Nᵀ M N ÿ + Nᵀ (M Ṅ ẏ + c + g) = Nᵀ B τ_a                                              (12.5)

With **independent coordinates** ``y = q[independent]`` (the rest, ``q_d``, dependent) the NOC is
``N = [I; −G_d⁻¹ G_i]`` (rows reordered into place) and ``Ṅ ẏ = [0; G_d⁻¹ γ]``; when the independent
coordinates are the actuated joints, ``Nᵀ B = I`` and (12.5) is the power argument of seed 001's
parallel-arm recipe: ``τ_a · ẏ = (M q̈ + c + g) · q̇``. An orthonormal NOC comes from the SVD.

>>> from lessonlib.constraints import four_bar
>>> fb = four_bar()
>>> q = assemble(fb, [0.5, 1.0, 1.5])              # crank held at 0.5 rad, the loop closed by Newton
>>> bool(abs(constraint_residual(fb, q)).max() < 1e-12)
True
>>> G, N = constraint_jacobian(fb, q), noc(fb, q)
>>> G.shape, N.shape, bool(abs(G @ N).max() < 1e-12)
((2, 3), (3, 1), True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import se3
from ..conventions import ANG, ASSEMBLY_TOL, BASE, CONSISTENCY_TOL, LIN, RANK_TOL
from ..dynamics import bias_forces, crba, rnea_trace
from ..kinematics import fk
from ..model import Model

__all__ = ["LoopConstraint", "ClosedChainModel", "CONSTRAINT_KINDS", "constraint_residual",
           "constraint_jacobian", "constraint_bias", "noc", "NOC_METHODS", "ReducedDynamics",
           "reduced_dynamics", "ClosedInverseDynamics", "inverse_dynamics", "forward_dynamics",
           "constraint_forces", "closure_wrenches", "joint_wrenches", "assemble", "project",
           "state_from_independent", "inverse_dynamics_along", "ClosedMotion", "simulate",
           "ClosedTrajectory", "ASSEMBLY_TOL", "CONSISTENCY_TOL", "RANK_TOL"]

#: Forbidden rows of the relative twist ``[ω; v]`` (indices 0..5) for each kind of cut joint.
CONSTRAINT_KINDS = {"revolute": (0, 1, 3, 4, 5), "point": (3, 4, 5), "planar_revolute": (3, 4)}
#: Row labels (in A's axes) for tables and plots.
_ROW_NAMES = ("n_x", "n_y", "n_z", "f_x", "f_y", "f_z")
NOC_METHODS = ("independent", "svd")
FD_METHODS = ("multipliers", "noc")
ID_METHODS = ("noc", "multipliers")
STABILIZATIONS = ("baumgarte", "projection", "both", "none")


# --------------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------------
def _as_transform(T, name):
    T = np.asarray(T, dtype=float)
    if T.shape == (3,):
        T = se3.from_Rp(np.eye(3), T)
    if T.shape != (4, 4):
        raise ValueError(f"{name}: expected a 4x4 transform (or a 3-vector: a point), got shape {T.shape}")
    se3.check_transform(T, name)
    return T


@dataclass(frozen=True)
class LoopConstraint:
    """One cut joint: frame A on ``body_a`` and frame B on ``body_b`` move together (see the module doc).

    ``T_a_point`` (4×4, or a 3-vector for a pure offset) is A's pose in body ``a``'s frame;
    ``T_b_point`` B's pose in body ``b``'s frame (``body_b = BASE``: in the world). ``kind``:
    ``"revolute"`` (about A's z-axis), ``"point"`` or ``"planar_revolute"``; ``name`` for tables.

    >>> c = LoopConstraint(1, [0.35, 0, 0], 2, [0.3, 0, 0], "planar_revolute")
    >>> c.rows
    (3, 4)
    """

    body_a: int
    T_a_point: np.ndarray
    body_b: int
    T_b_point: np.ndarray
    kind: str = "revolute"
    name: str = ""

    def __post_init__(self):
        if self.kind not in CONSTRAINT_KINDS:
            raise ValueError(f"kind: expected one of {tuple(CONSTRAINT_KINDS)}, got {self.kind!r}")
        for attr in ("body_a", "body_b"):
            v = getattr(self, attr)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"{attr}: expected a body index (BASE = -1 allowed for body_b), got {v!r}")
            object.__setattr__(self, attr, int(v))
        if self.body_a == BASE:
            raise ValueError("body_a: expected a moving body (put the base side in body_b), got BASE")
        if self.body_a == self.body_b:
            raise ValueError(f"body_b: a loop joins two different bodies, got body_a = body_b = {self.body_a}")
        for attr in ("T_a_point", "T_b_point"):
            T = _as_transform(getattr(self, attr), attr)
            T.setflags(write=False)
            object.__setattr__(self, attr, T)

    @property
    def rows(self):
        """Indices (into ``[ω; v]``) of the relative-twist components this joint forbids."""
        return CONSTRAINT_KINDS[self.kind]


def _indices(x, n, name):
    idx = tuple(int(i) for i in np.atleast_1d(np.asarray(x, dtype=int))) if x is not None else None
    if idx is None:
        return None
    if any(not 0 <= i < n for i in idx) or len(set(idx)) != len(idx):
        raise ValueError(f"{name}: expected distinct joint indices in [0, {n - 1}], got {x!r}")
    return idx


class ClosedChainModel:
    """A spanning-tree :class:`~lessonlib.model.Model` closed by :class:`LoopConstraint` s.

    Parameters: ``tree`` — the Model (coordinates ``q``, (n,)); ``constraints`` — the loop
    closures; ``actuated`` — indices of the joints with a motor (τ acts there, the other joints are
    free); ``independent`` — indices of the coordinates ``y`` that parametrise the motion (the NOC
    ``[I; −G_d⁻¹G_i]`` and :func:`assemble` use them). Either defaults to the other; give at least
    one (``actuated=()`` with ``independent`` for a passive mechanism).

    Attributes: ``tree``, ``constraints``, ``n``, ``m`` (constraint rows), ``dof``
    (= ``len(independent)``), ``actuated``, ``independent``, ``dependent``, ``B`` (n, k) the
    actuation matrix, ``row_labels``, ``gravity``, ``name``. Immutable.
    """

    def __init__(self, tree, constraints, *, actuated=None, independent=None, name=None):
        if not isinstance(tree, Model):
            raise ValueError(f"tree: expected a lessonlib Model, got {type(tree).__name__}")
        constraints = tuple(constraints)
        if not constraints:
            raise ValueError("constraints: expected at least one LoopConstraint (else use the tree Model)")
        for k, c in enumerate(constraints):
            if not isinstance(c, LoopConstraint):
                raise ValueError(f"constraints: entry {k} must be a LoopConstraint, got {type(c).__name__}")
            if not 0 <= c.body_a < tree.n or not BASE <= c.body_b < tree.n:
                raise ValueError(f"constraints: entry {k} joins bodies {c.body_a}, {c.body_b}; "
                                 f"the tree has bodies 0..{tree.n - 1} (and BASE = -1)")
        actuated = _indices(actuated, tree.n, "actuated")
        independent = _indices(independent, tree.n, "independent")
        if actuated is None and independent is None:
            raise ValueError("actuated, independent: give at least one (joint indices)")
        actuated = independent if actuated is None else actuated
        independent = actuated if independent is None else independent
        m = sum(len(c.rows) for c in constraints)
        if len(independent) < tree.n - m:
            raise ValueError(f"independent: {m} constraint rows leave at least {tree.n - m} degrees of "
                             f"freedom, got {len(independent)} independent coordinates {independent}")
        B = np.zeros((tree.n, len(actuated)))
        for k, i in enumerate(actuated):
            B[i, k] = 1.0
        B.setflags(write=False)
        labels = []
        for k, c in enumerate(constraints):
            tag = c.name or f"loop{k}"
            labels += [f"{tag}:{_ROW_NAMES[r]}" for r in c.rows]
        self.__dict__.update(
            tree=tree, constraints=constraints, n=tree.n, m=m, actuated=actuated, independent=independent,
            dependent=tuple(i for i in range(tree.n) if i not in independent), dof=len(independent), B=B,
            row_labels=tuple(labels), gravity=tree.gravity, name=tree.name if name is None else str(name))

    def __setattr__(self, key, value):
        raise AttributeError(f"ClosedChainModel is immutable: cannot set {key!r}")

    def __repr__(self):
        kinds = ", ".join(c.kind for c in self.constraints)
        return (f"<ClosedChainModel {self.name!r}: tree n={self.n}, {len(self.constraints)} loop(s) ({kinds}), "
                f"m={self.m} rows, dof={self.dof}, actuated {self.actuated}>")

    def check_q(self, x, name="q"):
        """``x`` as a float array of shape (n,) (the tree's coordinates), or ``ValueError``."""
        return self.tree.check_q(x, name)

    def check_tau(self, tau, name="tau"):
        """``tau`` as a float array of shape (k,) — one torque per actuated joint."""
        a = np.atleast_1d(np.asarray(tau, dtype=float))
        k = len(self.actuated)
        if a.shape != (k,):
            raise ValueError(f"{name}: expected {k} actuator torques (joints {self.actuated}), got shape {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name}: contains non-finite values: {a}")
        return a


def _check_closed(cm):
    if not isinstance(cm, ClosedChainModel):
        raise ValueError(f"cm: expected a ClosedChainModel, got {type(cm).__name__}")


# --------------------------------------------------------------------------------------------------
# Kinematics of the constraints
# --------------------------------------------------------------------------------------------------
def _skew(p):
    return np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])


def _bracket(a, b):
    """``ad(a) b = [ω_a × ω_b; ω_a × v_b + v_a × ω_b]`` (the Lie bracket of two twists), unvalidated.

    >>> a, b = np.arange(6.0), np.array([1.0, -1.0, 2.0, 0.5, 0.0, -3.0])
    >>> bool(np.allclose(_bracket(a, b), se3.ad(a) @ b))
    True
    """
    w_a, v_a, w_b, v_b = a[ANG], a[LIN], b[ANG], b[LIN]
    return np.concatenate([np.cross(w_a, w_b), np.cross(w_a, v_b) + np.cross(v_a, w_b)])


def _Ad_inv(T):
    """``Ad(T⁻¹) = [[Rᵀ, 0], [−Rᵀ[p], Rᵀ]]`` of a transform the caller built itself (no validation:
    the inner loops' version of ``se3.Ad(se3.inv(T))``).

    >>> T = se3.exp(np.array([0.1, -0.2, 0.3, 1.0, 2.0, -1.0]))
    >>> bool(np.allclose(_Ad_inv(T), se3.Ad(se3.inv(T))))
    True
    """
    R, p = T[:3, :3], T[:3, 3]
    X = np.zeros((6, 6))
    X[ANG, ANG] = X[LIN, LIN] = R.T
    X[LIN, ANG] = -R.T @ _skew(p)
    return X


class _SpaceTerms(NamedTuple):
    T: np.ndarray       # (n, 4, 4) body poses
    xi: np.ndarray      # (n, 6) space-frame joint screws Ad(T_0_j) S_j = columns of J_s
    V: np.ndarray       # (n, 6) space twists of the bodies
    Jdqd: np.ndarray    # (n, 6) J̇_s q̇ of every body


def _space_terms(model, q, qd=None):
    """Space twists and ``J̇_s q̇``: ``V_i = V_p + ξ_i q̇_i``, ``(J̇q̇)_i = (J̇q̇)_p + q̇_i ad(V_i) ξ_i``.

    ``d/dt Ad(T_0_j) S_j = ad(V_j) Ad(T_0_j) S_j`` (the column of joint ``j`` turns with body ``j``).
    """
    T = fk(model, q)
    R, p, S = T[:, :3, :3], T[:, :3, 3], model.S
    w = np.einsum("nij,nj->ni", R, S[:, ANG])
    xi = np.concatenate([w, np.cross(p, w) + np.einsum("nij,nj->ni", R, S[:, LIN])], axis=1)   # Ad(T_0j) S_j
    V, Jdqd = np.zeros((model.n, 6)), np.zeros((model.n, 6))
    if qd is not None:
        for i in range(model.n):
            p = model.parent[i]
            V_p, b_p = (np.zeros(6), np.zeros(6)) if p == BASE else (V[p], Jdqd[p])
            V[i] = V_p + xi[i] * qd[i]
            Jdqd[i] = b_p + qd[i] * _bracket(V[i], xi[i])
    return _SpaceTerms(T, xi, V, Jdqd)


def _space_jacobian(model, st, body):
    J = np.zeros((6, model.n))
    if body != BASE:
        for j in model.ancestors(body):
            J[:, j] = st.xi[j]
    return J


def _frames(c, st):
    """World poses of the two constraint frames A and B."""
    T_A = st.T[c.body_a] @ c.T_a_point
    T_B = c.T_b_point if c.body_b == BASE else st.T[c.body_b] @ c.T_b_point
    return T_A, T_B


def _constraint_terms(cm, q, qd=None):
    """``(φ, G, γ)`` from one forward-kinematics pass (``γ`` is None without ``qd``). See the
    public functions for the formulas."""
    st = _space_terms(cm.tree, q, qd)
    phi, G, gamma = [], [], []
    zero = np.zeros(6)
    for c in cm.constraints:
        rows = list(c.rows)
        T_A, T_B = _frames(c, st)
        R_A = T_A[:3, :3]
        u = R_A.T @ T_B[:3, 2]
        phi.append(np.concatenate([[u[1], -u[0], 0.0], R_A.T @ (T_A[:3, 3] - T_B[:3, 3])])[rows])
        X_A = _Ad_inv(T_A)
        J_rel = _space_jacobian(cm.tree, st, c.body_a) - _space_jacobian(cm.tree, st, c.body_b)
        G.append((X_A @ J_rel)[rows])
        if qd is not None:
            V_a, b_a = st.V[c.body_a], st.Jdqd[c.body_a]
            V_b, b_b = (zero, zero) if c.body_b == BASE else (st.V[c.body_b], st.Jdqd[c.body_b])
            V_rel = X_A @ (V_a - V_b)
            gamma.append((_bracket(X_A @ V_a, V_rel) - X_A @ (b_a - b_b))[rows])
    return np.concatenate(phi), np.vstack(G), (None if qd is None else np.concatenate(gamma))


def constraint_residual(cm, q):
    """Position-level loop-closure residual ``φ(q)`` (m,), zero when every loop is closed.

    Convention: the module table — the offset ``p_A − p_B`` in A's axes (m) for the forbidden
    linear rows; for ``"revolute"`` also the misalignment of the axes, ``[u_y, −u_x]`` with
    ``u = R_Aᵀ z_B`` (≈ the small rotation about A's x and y, rad). ``dφ/dt = G q̇`` where ``φ = 0``.
    """
    _check_closed(cm)
    return _constraint_terms(cm, cm.check_q(q))[0]


def constraint_jacobian(cm, q):
    """The constraint Jacobian ``G(q)`` (m, n): ``G q̇`` stacks the forbidden relative-twist rows (12.2).

    Computed by: the space Jacobians of the two bodies, ``G = P Ad(T_0A⁻¹)(J_s,a − J_s,b)``
    (``P`` picks the rows of the constraint's kind).

    >>> from lessonlib.constraints import four_bar
    >>> fb = four_bar()
    >>> G = constraint_jacobian(fb, assemble(fb, [0.0, 1.2, 1.9]))
    >>> G.shape
    (2, 3)
    """
    _check_closed(cm)
    return _constraint_terms(cm, cm.check_q(q))[1]


def constraint_bias(cm, q, qd):
    """``γ(q, q̇) = −Ġ q̇`` (m,): the right-hand side of ``G q̈ = γ`` (12.3).

    Convention: ``d/dt V_rel = −ad(V_A) V_rel + Ad(T_0A⁻¹)(J_rel q̈ + J̇_rel q̇)`` with ``V_A`` the
    body twist of frame A (``d/dt Ad(T⁻¹) = −ad(V_body) Ad(T⁻¹)``), so
    ``γ = P [ad(V_A) V_rel − Ad(T_0A⁻¹) J̇_rel q̇]``; ``J̇_s q̇`` of a body sums
    ``q̇_j ad(V_j) Ad(T_0j) S_j`` over the joints ``j`` that move it.
    """
    _check_closed(cm)
    return _constraint_terms(cm, cm.check_q(q), cm.check_q(qd, "qd"))[2]


# --------------------------------------------------------------------------------------------------
# The natural orthogonal complement
# --------------------------------------------------------------------------------------------------
def _rank(G):
    s = np.linalg.svd(G, compute_uv=False)
    return int(np.sum(s > RANK_TOL * max(1.0, s[0] if s.size else 0.0)))


def _dependent_solve(cm, G, rhs):
    """Least-squares solution ``x`` of ``G_d x = rhs`` (``G_d``: columns of the dependent coordinates)."""
    G_d = G[:, list(cm.dependent)]
    if G_d.shape[1] and _rank(G_d) < G_d.shape[1]:
        raise ValueError(f"q: the dependent coordinates {cm.dependent} are not determined by the independent "
                         f"ones {cm.independent} here (G_d is singular): a singular configuration of this "
                         f"choice of independent coordinates")
    return np.linalg.lstsq(G_d, rhs, rcond=None)[0] if G_d.shape[1] else np.zeros(0)


def noc(cm, q, *, method="independent"):
    """A natural orthogonal complement ``N(q)`` (n, dof) of the constraints: ``G N = 0``, ``q̇ = N ẏ``.

    ``method``:

    * ``"independent"`` — ``N = [I; −G_d⁻¹ G_i]`` (rows back in joint order): ``ẏ = q̇[independent]``
      (seeds 001/002: the constrained rates are solved from the free ones). ``ValueError`` where
      ``G_d`` is singular.
    * ``"svd"`` — an orthonormal basis of the null space of ``G`` (``Nᵀ N = I``), from the SVD. Its
      columns are not unique (any rotation of them is another basis) and need not vary smoothly.

    >>> from lessonlib.constraints import four_bar
    >>> fb = four_bar()
    >>> q = assemble(fb, [1.0, 1.0, 2.0])
    >>> N = noc(fb, q)
    >>> float(N[0, 0])                                 # the crank is the independent coordinate
    1.0
    >>> bool(abs(noc(fb, q, method="svd").T @ N).max() > 0)
    True
    """
    _check_closed(cm)
    if method not in NOC_METHODS:
        raise ValueError(f"method: expected one of {NOC_METHODS}, got {method!r}")
    return _noc(cm, constraint_jacobian(cm, q), method)


def _null_space(G):
    """Orthonormal basis (columns) of the null space of ``G``, from the SVD."""
    _, s, Vt = np.linalg.svd(G)
    r = int(np.sum(s > RANK_TOL * max(1.0, s[0])))
    return Vt[r:].T.copy()


def _noc(cm, G, method):
    if method == "svd":
        N = _null_space(G)
        if N.shape[1] != cm.dof:
            raise ValueError(f"q: the constraints leave {N.shape[1]} degrees of freedom here, "
                             f"the model expects {cm.dof}: a singular configuration")
        return N
    N = np.zeros((cm.n, cm.dof))
    N[list(cm.independent), :] = np.eye(cm.dof)
    N[list(cm.dependent), :] = -_dependent_solve(cm, G, G[:, list(cm.independent)])
    return N


def _ndot_yd(cm, q, qd):
    """``Ṅ ẏ`` of the independent-coordinates NOC: ``[0; G_d⁻¹ γ]`` (rows in joint order)."""
    _, G, gamma = _constraint_terms(cm, q, qd)
    out = np.zeros(cm.n)
    out[list(cm.dependent)] = _dependent_solve(cm, G, gamma)
    return out


class ReducedDynamics(NamedTuple):
    """The reduced equation (12.5) ``M ÿ + h = B τ_a`` in the independent coordinates ``y``.

    ``M`` (dof, dof) = ``Nᵀ M_tree N``; ``h`` (dof,) = ``Nᵀ(M_tree Ṅ ẏ + c + g)``; ``B`` (dof, k) =
    ``Nᵀ B_tree``; ``N`` (n, dof) the NOC; ``Ndot_yd`` (n,) = ``Ṅ ẏ``.
    """

    M: np.ndarray
    h: np.ndarray
    B: np.ndarray
    N: np.ndarray
    Ndot_yd: np.ndarray


def reduced_dynamics(cm, q, qd, *, gravity=None):
    """The NOC-reduced equations of motion at ``(q, q̇)`` (12.5), with the independent-coordinates NOC.

    Computed by: :func:`~lessonlib.dynamics.crba` (``M``), ``rnea(q, q̇, 0)`` (``c + g``),
    :func:`noc` and ``Ṅẏ = [0; G_d⁻¹ γ]``. ``q̇`` must satisfy ``G q̇ = 0``.
    """
    _check_closed(cm)
    q, qd = _check_state(cm, q, qd)
    M = crba(cm.tree, q)
    h = bias_forces(cm.tree, q, qd, gravity=gravity)
    N = noc(cm, q)
    Nd = _ndot_yd(cm, q, qd)
    return ReducedDynamics(N.T @ M @ N, N.T @ (M @ Nd + h), N.T @ cm.B, N, Nd)


# --------------------------------------------------------------------------------------------------
# Dynamics
# --------------------------------------------------------------------------------------------------
def _too_big(err, scale):
    return float(np.max(np.abs(err), initial=0.0)) > CONSISTENCY_TOL * (1.0 + scale)


def _check_state(cm, q, qd, qdd=None):
    """Validate shapes and that ``(q, q̇[, q̈])`` satisfies the closures (else ``ValueError``)."""
    q = cm.check_q(q)
    qd = cm.check_q(qd, "qd")
    phi, G, gamma = _constraint_terms(cm, q, qd)
    if _too_big(phi, 0.0):
        raise ValueError(f"q: the loops are not closed (max |φ| = {np.max(np.abs(phi)):.2e}); use assemble()")
    if _too_big(G @ qd, np.abs(G).max() * np.abs(qd).max()):
        raise ValueError(f"qd: violates the closure G q̇ = 0 (max |G q̇| = {np.max(np.abs(G @ qd)):.2e}); "
                         f"use q̇ = N ẏ")
    if qdd is None:
        return q, qd
    qdd = cm.check_q(qdd, "qdd")
    err = G @ qdd - gamma
    if _too_big(err, np.abs(G).max() * np.abs(qdd).max() + np.abs(gamma).max()):
        raise ValueError(f"qdd: violates the closure G q̈ = γ (max error {np.max(np.abs(err)):.2e}); "
                         f"use q̈ = N ÿ + Ṅ ẏ")
    return q, qd, qdd


class ClosedInverseDynamics(NamedTuple):
    """Result of :func:`inverse_dynamics`: actuator torques ``tau`` (k,) and multipliers ``lam`` (m,)."""

    tau: np.ndarray
    lam: np.ndarray


def inverse_dynamics(cm, q, qd, qdd, *, gravity=None, method="noc"):
    """Actuator torques and loop-closure forces along an admissible motion: solves (12.4) for ``τ_a, λ``.

    ``method``:

    * ``"noc"`` — ``τ_a = (NᵀB)⁻¹ Nᵀ τ_tree`` with ``τ_tree = rnea_tree(q, q̇, q̈)`` (12.5), then
      ``λ`` from ``Gᵀ λ = τ_tree − B τ_a`` (least squares);
    * ``"multipliers"`` — ``[B  Gᵀ] [τ_a; λ] = τ_tree`` solved at once (least squares).

    ``(q, q̇, q̈)`` must satisfy ``φ = 0``, ``G q̇ = 0``, ``G q̈ = γ`` (e.g. from
    :func:`state_from_independent`), else ``ValueError``. ``λ`` is the wrench body ``b`` applies on
    body ``a`` at A, in A's axes, in the rows of :attr:`ClosedChainModel.row_labels`
    (:func:`closure_wrenches` turns it into world vectors). Computed by: the tree's CRBA and bias
    (``M q̈ + c + g``), :func:`constraint_jacobian`, :func:`noc`.
    """
    _check_closed(cm)
    if method not in ID_METHODS:
        raise ValueError(f"method: expected one of {ID_METHODS}, got {method!r}")
    q, qd, qdd = _check_state(cm, q, qd, qdd)
    tau_tree = crba(cm.tree, q) @ qdd + bias_forces(cm.tree, q, qd, gravity=gravity)
    G = constraint_jacobian(cm, q)
    if method == "noc":
        N = _noc(cm, G, "independent")
        NB = N.T @ cm.B
        tau = np.linalg.lstsq(NB, N.T @ tau_tree, rcond=None)[0]
        lam = np.linalg.lstsq(G.T, tau_tree - cm.B @ tau, rcond=None)[0]
    else:
        x = np.linalg.lstsq(np.hstack([cm.B, G.T]), tau_tree, rcond=None)[0]
        tau, lam = x[:len(cm.actuated)], x[len(cm.actuated):]
    return ClosedInverseDynamics(tau, lam)


def _check_baumgarte(baumgarte):
    try:
        alpha, beta = (float(x) for x in baumgarte)
    except (TypeError, ValueError):
        raise ValueError(f"baumgarte: expected (alpha, beta) in 1/s or None, got {baumgarte!r}") from None
    if not (alpha >= 0 and beta >= 0 and np.isfinite(alpha) and np.isfinite(beta)):
        raise ValueError(f"baumgarte: expected finite (alpha, beta) >= 0, got {baumgarte!r}")
    return alpha, beta


def forward_dynamics(cm, q, qd, tau, *, gravity=None, method="multipliers", baumgarte=None):
    """Joint accelerations ``q̈`` (n,) of the closed chain under actuator torques ``tau`` (k,).

    ``method``:

    * ``"multipliers"`` — the saddle-point system ``[[M, −Gᵀ], [G, 0]] [q̈; λ] = [Bτ − c − g; γ*]``
      (least squares: redundant rows are allowed);
    * ``"noc"`` — ``q̈ = q̈_p + N z`` with ``q̈_p = G⁺ γ*`` and ``(NᵀMN) z = Nᵀ(Bτ − c − g − M q̈_p)``
      (the SVD NOC).

    ``baumgarte``: None, or ``(α, β)`` (1/s) for Baumgarte's stabilisation ``γ* = γ − 2α G q̇ − β² φ``
    (the closure errors then obey ``ë + 2α ė + β² e = 0`` instead of drifting away). Does not check
    that ``(q, q̇)`` is on the constraint (a simulation never is, exactly).
    """
    _check_closed(cm)
    if method not in FD_METHODS:
        raise ValueError(f"method: expected one of {FD_METHODS}, got {method!r}")
    q = cm.check_q(q)
    qd = cm.check_q(qd, "qd")
    tau = cm.check_tau(tau)
    M = crba(cm.tree, q)
    rhs = cm.B @ tau - bias_forces(cm.tree, q, qd, gravity=gravity)
    phi, G, gamma = _constraint_terms(cm, q, qd)
    if baumgarte is not None:
        alpha, beta = _check_baumgarte(baumgarte)
        gamma = gamma - 2.0 * alpha * (G @ qd) - beta**2 * phi
    if method == "multipliers":
        K = np.zeros((cm.n + cm.m, cm.n + cm.m))
        K[:cm.n, :cm.n], K[:cm.n, cm.n:], K[cm.n:, :cm.n] = M, -G.T, G
        return np.linalg.lstsq(K, np.concatenate([rhs, gamma]), rcond=None)[0][:cm.n]
    N = _null_space(G)
    qdd_p = np.linalg.pinv(G, rcond=RANK_TOL) @ gamma
    z = np.linalg.solve(N.T @ M @ N, N.T @ (rhs - M @ qdd_p))
    return qdd_p + N @ z


def constraint_forces(cm, q, qd, qdd, tau, *, gravity=None):
    """Multipliers ``λ`` (m,) that make (12.4) hold: ``Gᵀ λ = M q̈ + c + g − B τ`` (least squares).

    Use it after :func:`forward_dynamics` (same ``q, q̇, τ``) to see the loop-closure forces.
    """
    _check_closed(cm)
    q = cm.check_q(q)
    qd = cm.check_q(qd, "qd")
    qdd = cm.check_q(qdd, "qdd")
    tau = cm.check_tau(tau)
    tau_tree = crba(cm.tree, q) @ qdd + bias_forces(cm.tree, q, qd, gravity=gravity)
    return np.linalg.lstsq(constraint_jacobian(cm, q).T, tau_tree - cm.B @ tau, rcond=None)[0]


def _wrench_on_a(cm, lam):
    """Per constraint, the A-frame wrench ``Pᵀ λ_c`` (6,)."""
    lam = np.asarray(lam, dtype=float)
    if lam.shape != (cm.m,):
        raise ValueError(f"lam: expected {cm.m} multipliers (rows {cm.row_labels}), got shape {lam.shape}")
    out, k = [], 0
    for c in cm.constraints:
        w = np.zeros(6)
        w[list(c.rows)] = lam[k:k + len(c.rows)]
        k += len(c.rows)
        out.append(w)
    return out


def closure_wrenches(cm, q, lam):
    """World view of the loop-closure forces: ``(points, wrenches)``, each per constraint.

    ``points`` (c, 3): where A is, world coordinates; ``wrenches`` (c, 6): ``[n; f]`` that body ``b``
    applies on body ``a``, moment about A, **world axes** (body ``a`` applies the opposite on ``b``).
    """
    _check_closed(cm)
    q = cm.check_q(q)
    st = _space_terms(cm.tree, q)
    points, wrenches = [], []
    for c, w in zip(cm.constraints, _wrench_on_a(cm, lam)):
        T_A, _ = _frames(c, st)
        R = T_A[:3, :3]
        points.append(T_A[:3, 3])
        wrenches.append(np.concatenate([R @ w[ANG], R @ w[LIN]]))
    return np.array(points), np.array(wrenches)


def joint_wrenches(cm, q, qd, qdd, lam, *, gravity=None):
    """The wrench each **tree** joint transmits, (n, 6): ``[n; f]`` from the parent (or the ground)
    onto body ``i``, moment about body ``i``'s origin, **world axes**.

    Computed by: :func:`~lessonlib.dynamics.rnea_trace` of the tree with the loop-closure wrenches
    applied as external forces (``+w`` on body ``a``, ``−w`` on body ``b``). The torque about each
    joint axis is then the actuator torque (zero on passive joints): a check of ``λ``. Together with
    :func:`closure_wrenches` these are all the joint (constraint) forces of the mechanism.
    """
    _check_closed(cm)
    q = cm.check_q(q)
    st = _space_terms(cm.tree, q)
    F = np.zeros((cm.n, 6))
    for c, w_A in zip(cm.constraints, _wrench_on_a(cm, lam)):
        T_A, _ = _frames(c, st)
        w_s = se3.Ad(se3.inv(T_A)).T @ w_A                # the same wrench in space coordinates
        F[c.body_a] += se3.Ad(st.T[c.body_a]).T @ w_s     # ... in body a's frame, about its origin
        if c.body_b != BASE:
            F[c.body_b] -= se3.Ad(st.T[c.body_b]).T @ w_s
    f = rnea_trace(cm.tree, q, qd, qdd, gravity=gravity, f_ext=F).f
    out = np.empty_like(f)
    for i in range(cm.n):
        R = st.T[i][:3, :3]
        out[i] = np.concatenate([R @ f[i][ANG], R @ f[i][LIN]])
    return out


# --------------------------------------------------------------------------------------------------
# Positions: assembly and projection
# --------------------------------------------------------------------------------------------------
def _newton(cm, q, free, tol, max_iter, what):
    for _ in range(max_iter):
        phi, G, _ = _constraint_terms(cm, q)
        if np.max(np.abs(phi)) < tol:
            return q
        q = q.copy()
        q[free] -= np.linalg.lstsq(G[:, free], phi, rcond=None)[0]
    phi = constraint_residual(cm, q)
    if np.max(np.abs(phi)) < tol:
        return q
    raise ValueError(f"q_guess: {what} did not close the loops in {max_iter} Newton steps "
                     f"(max |φ| = {np.max(np.abs(phi)):.2e}); try a guess nearer a closed configuration")


def assemble(cm, q_guess, *, fixed=None, tol=ASSEMBLY_TOL, max_iter=50):
    """Close the loops: ``q`` with ``φ(q) = 0``, by Newton's method on the coordinates not ``fixed``.

    ``fixed`` (default ``cm.independent``) keep their values from ``q_guess``; the others start
    from ``q_guess`` and take the least-squares Newton step ``G_free Δq = −φ`` until ``max |φ| <
    tol``. Which branch (e.g. open or crossed four-bar) you get depends on the guess.
    ``ValueError`` if it does not converge.
    """
    _check_closed(cm)
    q = cm.check_q(q_guess, "q_guess").copy()
    fixed = cm.independent if fixed is None else _indices(fixed, cm.n, "fixed")
    free = [i for i in range(cm.n) if i not in fixed]
    if not free:
        raise ValueError("fixed: every coordinate is fixed; nothing left to close the loops with")
    return _newton(cm, q, free, tol, max_iter, "assemble()")


def project(cm, q, qd, *, tol=ASSEMBLY_TOL, max_iter=20):
    """Coordinate projection: the nearest ``(q, q̇)`` on the constraints, returned as a pair.

    ``q`` by minimum-norm Newton steps on all coordinates (``Δq = −G⁺ φ``), then ``q̇`` by removing
    its component that violates ``G q̇ = 0`` (``q̇ − G⁺ G q̇``, the orthogonal projection onto the
    admissible velocities). Used after each step of :func:`simulate` with ``stabilization="projection"``.
    """
    _check_closed(cm)
    q = _newton(cm, cm.check_q(q).copy(), list(range(cm.n)), tol, max_iter, "project()")
    qd = cm.check_q(qd, "qd")
    G = constraint_jacobian(cm, q)
    return q, qd - np.linalg.pinv(G, rcond=RANK_TOL) @ (G @ qd)


def state_from_independent(cm, y, yd, ydd, q_guess):
    """The full state ``(q, q̇, q̈)`` (each (n,)) for given independent coordinates and their rates.

    ``q``: :func:`assemble` from ``q_guess`` with ``q[independent] = y``; ``q̇ = N ẏ``;
    ``q̈ = N ÿ + Ṅ ẏ`` (independent-coordinates NOC, ``Ṅ ẏ = [0; G_d⁻¹ γ]``).
    """
    _check_closed(cm)
    y, yd, ydd = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (y, yd, ydd))
    for name, v in (("y", y), ("yd", yd), ("ydd", ydd)):
        if v.shape != (cm.dof,) or not np.all(np.isfinite(v)):
            raise ValueError(f"{name}: expected {cm.dof} finite values (coordinates {cm.independent}), "
                             f"got {v!r}")
    q = cm.check_q(q_guess, "q_guess").copy()
    q[list(cm.independent)] = y
    q = assemble(cm, q)
    N = noc(cm, q)
    qd = N @ yd
    return q, qd, N @ ydd + _ndot_yd(cm, q, qd)


class ClosedMotion(NamedTuple):
    """Result of :func:`inverse_dynamics_along`: arrays over time (first axis)."""

    q: np.ndarray       # (T, n)
    qd: np.ndarray      # (T, n)
    qdd: np.ndarray     # (T, n)
    tau: np.ndarray     # (T, k)  actuator torques
    lam: np.ndarray     # (T, m)  loop-closure multipliers


def inverse_dynamics_along(cm, Y, YD, YDD, q_guess, *, gravity=None, method="noc"):
    """Inverse dynamics along a prescribed motion of the independent coordinates.

    ``Y, YD, YDD``: (T, dof) (or (T,) when dof = 1). Each sample is completed by
    :func:`state_from_independent` (warm-started from the previous ``q``, so the mechanism stays on
    the branch of ``q_guess``), then :func:`inverse_dynamics`. Returns a :class:`ClosedMotion`.
    """
    _check_closed(cm)
    Y, YD, YDD = (np.asarray(v, dtype=float).reshape(len(v), -1) for v in (Y, YD, YDD))
    if not (Y.shape == YD.shape == YDD.shape) or Y.shape[1] != cm.dof:
        raise ValueError(f"Y, YD, YDD: expected three arrays of shape (T, {cm.dof}), "
                         f"got {Y.shape}, {YD.shape}, {YDD.shape}")
    q = cm.check_q(q_guess, "q_guess")
    rows = []
    for y, yd, ydd in zip(Y, YD, YDD):
        q, qd, qdd = state_from_independent(cm, y, yd, ydd, q)
        r = inverse_dynamics(cm, q, qd, qdd, gravity=gravity, method=method)
        rows.append((q, qd, qdd, r.tau, r.lam))
    return ClosedMotion(*(np.array(col) for col in zip(*rows)))


# --------------------------------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClosedTrajectory:
    """Result of :func:`simulate`: samples ``t`` (T,), ``q``, ``qd`` (T, n), ``tau`` (T, k) and the
    loop-closure error ``phi`` (T, m) and ``velocity_error`` ``G q̇`` (T, m) at each sample."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    phi: np.ndarray
    velocity_error: np.ndarray

    @property
    def drift(self):
        """Largest ``|φ|`` over the run (m or rad): how far the loops came apart."""
        return float(np.max(np.abs(self.phi)))


def simulate(cm, q0, qd0, torque_fn, dt, duration, *, gravity=None, stabilization="baumgarte",
             baumgarte=(10.0, 10.0), method="multipliers"):
    """Simulate the closed chain with fixed-step RK4 and a loop-closure stabilisation.

    ``torque_fn(t, q, qd) -> tau`` (k,), or None for an unactuated run (τ = 0). ``stabilization``:

    * ``"baumgarte"`` — the accelerations obey ``G q̈ = γ − 2α G q̇ − β² φ`` (``baumgarte = (α, β)``);
    * ``"projection"`` — plain ``G q̈ = γ``, then :func:`project` ``(q, q̇)`` after every step;
    * ``"both"``; ``"none"`` — plain ``G q̈ = γ`` (the loops drift apart slowly: for comparison).

    ``q0, qd0`` are projected onto the constraints first. Cost: 4 :func:`forward_dynamics` per step.
    """
    _check_closed(cm)
    if stabilization not in STABILIZATIONS:
        raise ValueError(f"stabilization: expected one of {STABILIZATIONS}, got {stabilization!r}")
    dt, duration = float(dt), float(duration)
    if not (dt > 0 and np.isfinite(dt)):
        raise ValueError(f"dt: expected a finite step > 0 (s), got {dt!r}")
    if not (duration >= dt and np.isfinite(duration)):
        raise ValueError(f"duration: expected a finite duration >= dt (s), got {duration!r}")
    k = len(cm.actuated)
    tau_of = (lambda t, q, qd: np.zeros(k)) if torque_fn is None else torque_fn
    bg = _check_baumgarte(baumgarte) if stabilization in ("baumgarte", "both") else None
    projecting = stabilization in ("projection", "both")
    q, qd = project(cm, q0, qd0)

    def f(t, q, qd):
        tau = cm.check_tau(tau_of(t, q, qd), "torque_fn(t, q, qd)")
        return qd, forward_dynamics(cm, q, qd, tau, gravity=gravity, method=method, baumgarte=bg)

    steps = int(round(duration / dt))
    T, Q, QD, TAU, PHI, VE = [], [], [], [], [], []

    def record(t, q, qd):
        T.append(t)
        Q.append(q)
        QD.append(qd)
        TAU.append(cm.check_tau(tau_of(t, q, qd), "torque_fn(t, q, qd)"))
        phi, G, _ = _constraint_terms(cm, q)
        PHI.append(phi)
        VE.append(G @ qd)

    record(0.0, q, qd)
    for s in range(steps):
        t = s * dt
        k1 = f(t, q, qd)
        k2 = f(t + dt / 2, q + dt / 2 * k1[0], qd + dt / 2 * k1[1])
        k3 = f(t + dt / 2, q + dt / 2 * k2[0], qd + dt / 2 * k2[1])
        k4 = f(t + dt, q + dt * k3[0], qd + dt * k3[1])
        q = q + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        qd = qd + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        if projecting:
            q, qd = project(cm, q, qd)
        record((s + 1) * dt, q, qd)
    return ClosedTrajectory(*(np.array(a) for a in (T, Q, QD, TAU, PHI, VE)))
