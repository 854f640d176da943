"""Forward kinematics, Jacobians and body twists of a Model.

Bodies and joints are ``i = 1 .. n`` (``course/NOTATION.md``), entry ``i-1`` of every array.

Poses: ``fk(model, q)[i-1] = T_{0,i}`` (code ``T_0_i``), the pose of body frame ``{i}`` in the world,
built outward by ``T_{0,i} = T_{0,parent(i)} T_{tree,i} exp(S_i^∧ q_i)`` (product of exponentials,
[LG, 串联机器人运动方程]).

Jacobians (rows ``[ω; v]``, one column per joint; columns of joints that do not move the body are 0):

* ``frame="space"`` — the twist in world axes whose linear part is the velocity of the body point
  that is instantaneously at the world origin (Modern Robotics' space Jacobian ``J_s``):
  column ``j`` is ``S_{s,j} = Ad(T_{0,j}) S_j``.
* ``frame="body"`` — the twist in body-frame axes about the body origin (``J_b``; ``J_i`` for body
  ``i``): column ``j`` is ``Ad(T_{i,j}) S_j`` with ``T_{i,j} = T_{0,i}⁻¹ T_{0,j}``. ``J_s = Ad(T_{0,i}) J_b``.
* ``frame="hybrid"`` — the angular velocity and the velocity of the body origin, both in world axes:
  ``diag(R_{0,i}, R_{0,i}) J_b``. This is the classical geometric Jacobian of [Siciliano et al. 2009] and
  [Craig 2005] **with its two halves in the other order**: they stack ``[v; ω]`` (linear rows
  first), this course ``[ω; v]``; swap the row blocks (``conventions.swap_order(J, kind="columns")``)
  to compare with them.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from . import _validate as validate
from . import se3
from ._operators import Ad_inv, rot6
from .conventions import BASE

FRAMES = ("space", "body", "hybrid")


@dataclass(frozen=True)
class _JointTables:
    """Per-model constants of the vectorised joint transforms (computed once per Model, read-only).

    Joint ``i`` turns (slides) body ``i`` by ``θ_i = scale_i q_i`` about the unit screw
    ``S̄_i = S_i / scale_i`` (code ``unit``; ``S_i`` is scaled, :attr:`Joint.screw`). A joint screw has
    zero pitch, so Rodrigues' formula holds in SE(3) and for its adjoint (``(S̄^∧)³ = −S̄^∧``,
    ``ad(S̄)³ = −ad(S̄)``; ``1`` the identity)::

        exp(S̄^∧ θ)   = 1 + sin θ S̄^∧    + (1 − cos θ) (S̄^∧)²
        Ad(exp(S̄^∧ θ)) = 1 + sin θ ad(S̄)  + (1 − cos θ) ad(S̄)²

    and a prismatic joint (``(S̄^∧)² = ad(S̄)² = 0``) has ``θ`` in place of ``sin θ``. Hence
    ``T_{parent(i),i}(q_i) = T_tree + sin θ · T_tree S̄^∧ + (1 − cos θ) · T_tree (S̄^∧)²`` and
    ``X_i(q_i) = Ad(exp(−S̄^∧ θ)) X_tree = X_tree − sin θ · ad(S̄) X_tree + (1 − cos θ) · ad(S̄)² X_tree``
    with ``T_tree = T_{tree,i}`` and the constant ``X_tree = Ad(T_tree⁻¹)``: every joint transform of a
    configuration in three array operations. Entry ``i-1`` of each array is joint ``i``.
    """

    scale: np.ndarray           # (n,) Joint.scale
    prismatic: np.ndarray       # indices of the prismatic joints
    T_hat: np.ndarray           # (n, 4, 4) T_tree S̄^∧
    T_hat2: np.ndarray          # (n, 4, 4) T_tree (S̄^∧)²
    X_tree: np.ndarray          # (n, 6, 6) Ad(T_tree⁻¹)
    ad_X: np.ndarray            # (n, 6, 6) ad(S̄) X_tree
    ad2_X: np.ndarray           # (n, 6, 6) ad(S̄)² X_tree

    @classmethod
    def of(cls, model):
        scale = np.array([j.scale for j in model.joints], dtype=float)
        unit = model.S / scale[:, None]
        hat = np.array([se3.hat(s) for s in unit]).reshape(model.n, 4, 4)
        ad = np.array([se3.ad(s) for s in unit]).reshape(model.n, 6, 6)
        X_tree = Ad_inv(model.T_tree).reshape(model.n, 6, 6)
        tables = cls(scale, np.array([i for i, j in enumerate(model.joints) if not j.is_revolute], dtype=int),
                     model.T_tree @ hat, model.T_tree @ hat @ hat, X_tree, ad @ X_tree, ad @ ad @ X_tree)
        for array in vars(tables).values():
            array.setflags(write=False)
        return tables


#: model -> its _JointTables; a Model that goes away takes its entry along.
_TABLES = weakref.WeakKeyDictionary()


def _tables(model):
    tables = _TABLES.get(model)
    if tables is None:
        tables = _TABLES[model] = _JointTables.of(model)
    return tables


def _rodrigues(tables, q):
    """Coefficients of Rodrigues' formula for every joint: ``(sin θ_i, 1 − cos θ_i)``, ``θ_i = scale_i q_i``.

    Each is an (n, 1, 1) array, ready to scale the (n, k, k) stacks of :class:`_JointTables`.
    A prismatic joint gets ``θ_i`` in place of ``sin θ_i`` (its ``(S̄^∧)²`` is zero, so the second
    coefficient does not matter). See :class:`_JointTables` for the identities.
    """
    theta = (tables.scale * q)[:, None, None]
    s = np.sin(theta)
    if tables.prismatic.size:                            # a prismatic joint slides: θ in place of sin θ
        s[tables.prismatic] = theta[tables.prismatic]
    return s, 1.0 - np.cos(theta)


def fk(model, q):
    """World poses ``T_{0,i}`` of all body frames, shape (n, 4, 4), entry ``i-1`` for body ``i``.

    ``T_{parent(i),i}(q_i) = T_{tree,i} exp(S_i^∧ q_i)`` for every joint at once, by Rodrigues' formula
    ``exp(S̄^∧ θ) = 1 + sin θ S̄^∧ + (1 − cos θ) (S̄^∧)²`` (``S̄ = S_i / scale``, ``θ = scale · q_i``;
    equal to ``model.joint_transform(i-1, q_i)``), then one outward loop
    ``T_{0,i} = T_{0,parent(i)} T_{parent(i),i}``.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()
    >>> np.round(fk(arm, [0.0, 0.0])[-1][:3, 3], 12) + 0.0      # joint 2 sits 1 m out along x
    array([1., 0., 0.])
    """
    q = model.check_q(q)
    tables = _tables(model)
    s, c = _rodrigues(tables, q)
    T_p = model.T_tree + s * tables.T_hat + c * tables.T_hat2
    T = np.empty((model.n, 4, 4))
    for i in range(model.n):
        p = model.parent[i]
        T[i] = T_p[i] if p == BASE else T[p].dot(T_p[i])
    return T


def joint_transforms(model, q, *, checked=True):
    """Motion transforms ``X_i = Ad(T_{parent(i),i}(q_i)⁻¹) = Ad(T_{i,parent(i)})`` from each parent into
    each body, (n, 6, 6), entry ``i-1`` for joint ``i``.

    Featherstone's ``Xup``: a twist ``V_p`` of the parent ``p = parent(i)``, in parent coordinates,
    maps to body ``i`` coordinates by ``X_i V_p``; a wrench ``F_i`` of body ``i`` maps back by
    ``X_iᵀ F_i``.

    Computed for all joints in one vectorised pass by Rodrigues' formula for the adjoint,
    ``X_i = Ad(exp(−S̄^∧ θ)) X_tree = X_tree − sin θ · ad(S̄) X_tree + (1 − cos θ) · ad(S̄)² X_tree``,
    with ``X_tree = Ad(T_tree⁻¹)`` and the two products computed once per Model (and kept here, in
    a cache of this module: the Model itself knows nothing of them).

    ``checked=False`` skips the validation of ``q``, for an algorithm that has just validated it
    (``model.check_q``): ``q`` must then be a float array of shape (n,).

    >>> import numpy as np
    >>> from lessonlib import samples, se3
    >>> arm = samples.planar_2link()
    >>> X = joint_transforms(arm, [0.3, -0.4])
    >>> bool(np.allclose(X[1], se3.Ad(se3.inv(arm.joint_transform(1, -0.4)))))
    True
    """
    if checked:
        q = model.check_q(q)
    tables = _tables(model)
    s, c = _rodrigues(tables, q)
    return tables.X_tree - s * tables.ad_X + c * tables.ad2_X


def frame_pose(model, q, name):
    """World pose of the named frame (``model.frames``), 4×4."""
    f = model.frame(name)
    if f.body == BASE:
        return f.T.copy()
    return fk(model, q)[f.body] @ f.T


def resolve_body(model, body):
    """``(index, T_body_point)`` for a body index or a frame name.

    A negative index counts from the end, Python style (``-1`` is the last body — not the base:
    name a base frame to mean the base). A frame on the base gives ``(BASE, T_0_frame)``.
    """
    if isinstance(body, str):
        f = model.frame(body)
        return f.body, f.T
    b = int(body)
    if not -model.n <= b < model.n:
        raise ValueError(f"body: expected an index in [-{model.n}, {model.n - 1}] or a frame name, got {body}")
    return b % model.n, np.eye(4)


def wrench_at_body(model, frame, F):
    """A wrench given at a frame, moved to the body the frame is fixed on: ``(body, F_body)``.

    Convention: ``F = [μ; f]`` in the axes of ``frame``, moment about the frame's origin;
    ``F_body`` is the same wrench in body axes, moment about the body origin (what ``f_ext[body]``
    takes, ``body`` the code index): ``F_body = Ad(T_bf⁻¹)ᵀ F``, with ``T_bf`` (code ``T_b_f``) the
    frame's pose on its body. The power is invariant: the frame's twist is ``V_f = Ad(T_bf⁻¹) V_b``,
    so ``F_bodyᵀ V_b = Fᵀ V_f``.
    ``frame``: a name of ``model.frames`` or a body index (:func:`resolve_body`; an index gives
    ``F`` back unchanged). A frame on the base gives ``BASE`` and the wrench in world axes about
    the world origin. No ``q``: the frame does not move on its body.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                    # frame "tip": 1 m along x of body 2 (index 1)
    >>> body, F_body = wrench_at_body(arm, "tip", [0, 0, 0, 0, -10.0, 0])     # 10 N along -y at the tip
    >>> body, F_body + 0.0                              # about O_2: μ = (1, 0, 0) × (0, -10, 0)
    (1, array([  0.,   0., -10.,   0., -10.,   0.]))
    """
    F = validate.wrench(F, "F")
    b, T_b_f = resolve_body(model, frame)
    return b, Ad_inv(T_b_f).T @ F


def jacobian(model, q, body=-1, frame="space"):
    """Geometric Jacobian of a body (or named frame), shape (6, n), rows ``[ω; v]``.

    ``body``: body index (``-1`` is the last body) or a frame name from ``model.frames``;
    ``frame``: ``"space"``, ``"body"`` or ``"hybrid"`` (see the module docstring).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()
    >>> J = jacobian(arm, [0.0, 0.0], body=-1, frame="space")
    >>> J[:, 1].round(12) + 0.0                     # joint 2: z-axis through (1, 0, 0)
    array([ 0.,  0.,  1.,  0., -1.,  0.])
    """
    validate.one_of(frame, FRAMES, "frame")
    b, T_b_point = resolve_body(model, body)
    J = np.zeros((6, model.n))
    if b == BASE:                                         # a frame fixed to the base never moves
        return J
    T = fk(model, q)
    T_0_b = T[b] @ T_b_point
    for j in model.ancestors(b):
        J[:, j] = se3.Ad(T[j]) @ model.S[j]              # space-frame column Ad(T_0_j) S_j
    if frame == "space":
        return J
    J_body = Ad_inv(T_0_b) @ J
    if frame == "body":
        return J_body
    return rot6(T_0_b[:3, :3]) @ J_body                 # both halves turned into world axes


def body_twists(model, q, qd):
    """Body twists ``V_i = [ω_i; v_i]`` of every body in its own frame ``{i}``, shape (n, 6), row ``i-1``
    for body ``i``.

    Outward recursion ``V_i = X_i V_p + S_i q̇_i`` with ``X_i = Ad(T_{p,i}⁻¹)``, ``p = parent(i)``
    ([WJ §2.2]).
    """
    q = model.check_q(q)
    qd = model.check_q(qd, "qd")
    X = joint_transforms(model, q)
    v = np.zeros((model.n, 6))
    for i in range(model.n):
        v_p = np.zeros(6) if model.parent[i] == BASE else v[model.parent[i]]
        v[i] = X[i] @ v_p + model.S[i] * qd[i]
    return v
