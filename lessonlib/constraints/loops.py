"""Closed kinematic loops, the model: a spanning tree plus loop-closure constraints ([LG, 约束动力学]).

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

(the revolute axis is A's z-axis). A ``"planar_revolute"`` is the right cut for a planar linkage:
a full revolute's three out-of-plane rows would be identically zero there (``G`` rank-deficient);
the algorithms still work then (least squares), but the multipliers of those rows are not
determined by the dynamics (statically indeterminate), and the minimum-norm answer is returned.

The closure kinematics (``φ``, ``G``, ``γ``) is :mod:`.closure`, the natural orthogonal complement
:mod:`.noc`, the dynamics :mod:`.closed`, closing the loops :mod:`.assembly`, motions in time
:mod:`.motion`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as validate
from .. import se3
from ..conventions import ANG_X, ANG_Y, ANG_Z, BASE, LIN_X, LIN_Y, LIN_Z
from ..model import Model

#: Forbidden rows of the relative twist ``[ω; v]`` (indices 0..5) for each kind of cut joint.
CONSTRAINT_KINDS = {"revolute": (ANG_X, ANG_Y, LIN_X, LIN_Y, LIN_Z), "point": (LIN_X, LIN_Y, LIN_Z),
                    "planar_revolute": (LIN_X, LIN_Y)}
#: Row labels (in A's axes) for tables and plots: the components of the constraint wrench ``[n; f]``.
ROW_NAMES = {ANG_X: "n_x", ANG_Y: "n_y", ANG_Z: "n_z", LIN_X: "f_x", LIN_Y: "f_y", LIN_Z: "f_z"}


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
        validate.one_of(self.kind, CONSTRAINT_KINDS, "kind")
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


def joint_indices(x, n, name):
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
        actuated = joint_indices(actuated, tree.n, "actuated")
        independent = joint_indices(independent, tree.n, "independent")
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
            labels += [f"{tag}:{ROW_NAMES[r]}" for r in c.rows]
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


def check_closed(cm):
    if not isinstance(cm, ClosedChainModel):
        raise ValueError(f"cm: expected a ClosedChainModel, got {type(cm).__name__}")
