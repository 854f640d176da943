"""The one robot Model every algorithm of the course consumes.

A Model is a kinematic tree of ``n`` rigid bodies joined by ``n`` one-degree-of-freedom joints
(revolute or prismatic). As in ``course/NOTATION.md``, bodies and joints are ``i = 1 .. n`` in the
formulas and entry ``i-1`` of every array: joint ``i`` moves body ``i``, which hangs from body
``parent(i) < i`` (the fixed base is body 0); in code ``model.parent[i-1] = parent(i) − 1``, the base
being ``BASE = -1``. Because every parent has a smaller number than its child, the algorithms need
only two flat loops — one outward (``i = 1 .. n``), one inward (``i = n .. 1``) — and branched trees
come for free (Featherstone's numbering).

Geometry. Body frame ``{i}`` (origin ``O_i``) is attached to the moving body of joint ``i``. Its pose
in the parent body's frame is ::

    T_{parent(i),i}(q_i) = T_{tree,i} exp(S_i^∧ q_i)     (product of exponentials, [LG, 串联机器人运动方程])

where ``T_{tree,i}`` (``T_tree[i-1]``) is the pose at ``q_i = 0`` and ``S_i = [ω; v]``
(``S[i-1]``) is the joint screw in body frame ``{i}`` (:attr:`Joint.screw`): ``s [u_i; r × u_i]`` for a
revolute joint about the unit axis ``u_i`` through the point ``r``, ``s [0; u_i]`` for a prismatic
joint along ``u_i``, with ``s = Joint.scale`` — 1 for every real joint, when ``S_i`` is a unit screw;
otherwise ``S_i`` is scaled, not a unit screw. In Featherstone's notation ``S_i`` is the motion
subspace and ``X_i = Ad(T_{parent(i),i}⁻¹)`` the motion transform from the parent into body ``i``.

Inertia. ``inertia[i-1]`` is ``𝓘_i``, body ``i``'s 6×6 spatial inertia about ``O_i``, in body-frame
axes (:func:`lessonlib.spatial.inertia`).

The Model is immutable: no algorithm changes it, and its arrays are read-only.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _validate as validate
from .. import se3, spatial
from ..conventions import BASE, DEFAULT_GRAVITY, gravity_vector, spatial_vector

REVOLUTE = "revolute"
PRISMATIC = "prismatic"
JOINT_KINDS = (REVOLUTE, PRISMATIC)


def _readonly(a):
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class Joint:
    """A one-degree-of-freedom joint, described in the frame of the body it moves.

    For joint ``i``: ``kind``: ``"revolute"`` or ``"prismatic"``; ``axis``: the unit axis ``u_i``, in
    body frame ``{i}``; ``point``: a point ``r`` on the axis, in body frame ``{i}`` (revolute only;
    default the origin ``O_i``); ``scale``: the body turns (slides) by ``scale · q_i`` — 1 for every
    real joint; Modern Robotics' synthetic 3-link example has a screw of norm √2, which
    :func:`from_poe` keeps as ``scale``.

    >>> Joint("revolute", [0, 0, 1]).screw
    array([0., 0., 1., 0., 0., 0.])
    >>> Joint("prismatic", [1, 0, 0]).screw
    array([0., 0., 0., 1., 0., 0.])
    """

    kind: str
    axis: np.ndarray
    point: np.ndarray = field(default_factory=lambda: np.zeros(3))
    name: str = ""
    scale: float = 1.0

    def __post_init__(self):
        validate.one_of(self.kind, JOINT_KINDS, "kind")
        axis = validate.unit_vector(self.axis, "axis")
        point = validate.vector(self.point, 3, "point")
        if self.kind == PRISMATIC:
            point = np.zeros(3)
        object.__setattr__(self, "axis", _readonly(axis))
        object.__setattr__(self, "point", _readonly(point))
        object.__setattr__(self, "name", str(self.name))
        object.__setattr__(self, "scale", validate.positive(self.scale, "scale"))

    @property
    def screw(self):
        """The joint screw ``S_i = [ω; v]`` in body frame ``{i}`` (``model.S[i-1]``), **scaled**, not a
        unit screw in general: ``scale · [u_i; r × u_i]`` (revolute about the unit axis ``u_i`` through
        ``r``: ``−u_i × r`` is the velocity of the body point at ``O_i``) or ``scale · [0; u_i]``
        (prismatic). The body's twist relative to its parent is ``S_i q̇_i``; ``S_i`` is a unit screw
        (``|ω| = 1``, or ``ω = 0`` and ``|v| = 1``) only when ``scale = 1`` — the unit screw is
        ``S_i / scale``, the angle (or slide) ``scale · q_i``.

        >>> Joint("revolute", [0, 0, 1], [1, 0, 0], scale=2.0).screw      # z through (1, 0, 0), twice as fast
        array([ 0.,  0.,  2.,  0., -2.,  0.])
        """
        if self.kind == REVOLUTE:
            return self.scale * spatial_vector(self.axis, np.cross(self.point, self.axis))
        return self.scale * spatial_vector(np.zeros(3), self.axis)

    @property
    def is_revolute(self):
        return self.kind == REVOLUTE

    def __eq__(self, other):
        return (isinstance(other, Joint) and self.kind == other.kind and self.name == other.name
                and self.scale == other.scale
                and np.array_equal(self.axis, other.axis) and np.array_equal(self.point, other.point))

    def __hash__(self):
        return hash((self.kind, self.name, self.scale, self.axis.tobytes(), self.point.tobytes()))


@dataclass(frozen=True)
class Frame:
    """A named frame fixed to a body (a tool, a sensor, a merged URDF link).

    ``body``: index of the body it is fixed to (``BASE`` for the world); ``T``: its pose in that
    body's frame (4×4).
    """

    name: str
    body: int
    T: np.ndarray

    def __post_init__(self):
        T = se3.check_transform(self.T, f"frame {self.name!r} T")
        object.__setattr__(self, "T", _readonly(T))


class Model:
    """An immutable kinematic tree with inertias: the input of every algorithm of the course.

    Parameters
    ----------
    Entry ``i-1`` of each sequence is body (joint) ``i``.

    parent : sequence of int, length n — ``parent[i-1] = parent(i) − 1 < i − 1``, ``BASE = -1`` for the base.
    joints : sequence of :class:`Joint`, length n — ``joints[i-1]`` is joint ``i``, which moves body ``i``.
    T_tree : (n, 4, 4) — ``T_{tree,i}``, the pose of body frame ``{i}`` in its parent's frame at ``q_i = 0``.
    inertia : (n, 6, 6) — ``𝓘_i``, the spatial inertia of body ``i`` about ``O_i``, body axes.
    body_names : names of the bodies (default ``body0`` …).
    gravity : default gravity ``g_phys`` (world frame), used when an algorithm gets ``gravity=None``.
    frames : extra named frames fixed to bodies (:class:`Frame`), e.g. an end-effector.
    name : the robot's name.

    Attributes: ``n``, ``parent``, ``joints``, ``joint_names``, ``body_names``, ``T_tree``,
    ``inertia`` (``𝓘_i``), ``mass`` (``m_i``), ``com`` (``p_{c_i}``), ``I_com`` (``I_{c_i}``) per body,
    ``S`` (n, 6) the joint screws ``S_i`` (:attr:`Joint.screw`, scaled by ``Joint.scale``), ``gravity``
    (``g_phys``), ``frames``, ``children``.
    """

    def __init__(self, parent, joints, T_tree, inertia, *, body_names=None, gravity=None,
                 frames=(), name="robot"):
        parent = validate.parents(parent, BASE)
        n = len(parent)
        joints = validate.items(joints, n, "joints", "joints (one per body)", Joint)
        T_tree = validate.array(T_tree, (n, 4, 4), "T_tree")
        for i in range(n):
            se3.check_transform(T_tree[i], f"T_tree[{i}]")
        inertia = validate.array(inertia, (n, 6, 6), "inertia")
        params = [spatial.inertia_params(spatial.check_spatial_inertia(inertia[i], f"inertia[{i}]"))
                  for i in range(n)]
        body_names = validate.items(tuple(f"body{i}" for i in range(n)) if body_names is None else body_names,
                                    n, "body_names", "names")
        frames = validate.items(frames, None, "frames", "frames", Frame)
        for k, f in enumerate(frames):
            validate.body_index(f.body, n, f"frames[{k}] ({f.name!r}) body", BASE)

        self.name = str(name)
        self.n = n
        self.parent = parent
        self.joints = joints
        self.joint_names = tuple(j.name or f"joint{i}" for i, j in enumerate(joints))
        self.body_names = body_names
        self.T_tree = _readonly(T_tree)
        self.inertia = _readonly(0.5 * (inertia + inertia.transpose(0, 2, 1)))
        self.mass = _readonly([m for m, _, _ in params])
        self.com = _readonly(np.reshape([c for _, c, _ in params], (n, 3)))
        self.I_com = _readonly(np.reshape([I for _, _, I in params], (n, 3, 3)))
        self.S = _readonly(np.reshape([j.screw for j in joints], (n, 6)))
        self.gravity = _readonly(gravity_vector(gravity, DEFAULT_GRAVITY))
        self.frames = frames
        self.children = tuple(tuple(j for j in range(n) if parent[j] == i) for i in range(n))
        self._frozen = True

    def __setattr__(self, key, value):
        if getattr(self, "_frozen", False):
            raise AttributeError(f"Model is immutable: cannot set {key!r}")
        object.__setattr__(self, key, value)

    def __repr__(self):
        kinds = "".join("R" if j.is_revolute else "P" for j in self.joints)
        chain = "chain" if self.is_chain else "tree"
        return f"<Model {self.name!r}: n={self.n}, joints {kinds}, {chain}, mass {self.mass.sum():.4g} kg>"

    @property
    def is_chain(self):
        """True when every body hangs from the previous one (a serial chain)."""
        return all(p == i - 1 for i, p in enumerate(self.parent))

    def joint_transform(self, i, q_i):
        """``T_tree[i] · exp(S[i]^∧ q_i)`` for the code index ``i``: the pose ``T_{parent(k),k}`` of body
        ``k = i + 1`` in its parent's frame, at the joint value ``q_i`` (the course's ``q_k``)."""
        return self.T_tree[i] @ se3.exp(self.S[i] * q_i)

    def frame(self, name):
        """The :class:`Frame` called ``name``."""
        for f in self.frames:
            if f.name == name:
                return f
        raise ValueError(f"name: no frame called {name!r}; frames are {[f.name for f in self.frames]}")

    def ancestors(self, i):
        """Bodies on the path from the base to body ``i``, base side first, ``i`` included."""
        path = []
        while i != BASE:
            path.append(i)
            i = self.parent[i]
        return path[::-1]

    def replace(self, **changes):
        """A new Model with some constructor arguments changed (the Model itself never changes)."""
        args = dict(parent=self.parent, joints=self.joints, T_tree=self.T_tree, inertia=self.inertia,
                    body_names=self.body_names, gravity=self.gravity, frames=self.frames, name=self.name)
        args.update(changes)
        return Model(args.pop("parent"), args.pop("joints"), args.pop("T_tree"), args.pop("inertia"),
                     **args)

    # --- input validation shared by every algorithm (the checks live in lessonlib._validate) ----
    def check_q(self, x, name="q"):
        """``x`` as a float array of shape (n,), or ``ValueError`` naming ``name`` (q, qd, qdd, tau, …)."""
        return validate.joint_vector(self, x, name)

    def check_f_ext(self, f_ext, name="f_ext"):
        """``f_ext`` as an (n, 6) array of body wrenches ``[μ; f]`` (None -> None): ``f_ext[i-1]`` is
        ``F^ext_i``, the wrench the environment applies on body ``i``, in body frame ``{i}``, moment about
        its origin ``O_i``."""
        return validate.body_wrenches(self, f_ext, name)

    def gravity_or_default(self, gravity):
        """The gravity 3-vector to use: ``gravity``, or the model's default when None."""
        return self.gravity if gravity is None else gravity_vector(gravity)
