"""Splicing models: one arm mounted on a body of another ([LG, 串联臂拼接], [LG, 开环并联臂拼接]).

[LG, 串联臂拼接] splices a *child* arm onto the last link of a *parent* arm by adding one term to each pass
of the Lie-group recursion: going out, the child's first link receives the parent link's twist
(and acceleration, gravity included) moved into the child's base frame by the adjoint of the
mounting pose, ``Ad(T_sb)``; coming back, the child's base wrench returns to the parent link
through the transpose, ``Ad(T_sb)ᵀ``. Several children on one link (an open-loop "parallel" arm,
a torso with two arms) simply sum their wrenches there.

With the course's :class:`~lessonlib.model.Model` that extra term is already part of every
algorithm, so splicing is bookkeeping. A root body ``i`` of the child (``child.parent[i] = BASE``)
sits at ``T_tree[i]`` in the child's base frame ``{c}``; mounted with ``{c}`` at pose
``T_body_childbase`` on body ``b`` of the parent, its pose in body ``b``'s frame at ``q_i = 0`` is::

    T_b_i = T_body_childbase · T_tree_child[i]                                     (12.1)

and every algorithm's outward step ``v_i = Ad(T_b_i(q_i)⁻¹) v_b + S_i q̇_i`` is exactly the seed's
spliced step ``q̇_1⁰ = θ̇_1 s_1⁰ + H_1⁻¹ Ad(T_sb) q̇_parent`` (``H_1⁻¹ = Ad(exp(−S_1 q_1))`` and
``Ad(T_sb) = Ad((T_body_childbase · T_tree_child[i])⁻¹)`` in our naming), while the inward step
``f_b += Ad(T_b_i⁻¹)ᵀ f_i`` is the seed's ``Ad(T_bs)⁻ᵀ (H_1ᵀ)⁻¹ P_child`` term. The child's
bodies are renumbered after the parent's (``parent[i] < i`` still holds), so the spliced Model
runs through RNEA, CRBA, ABA, DeNOC, … unchanged, and gives the same numbers as a Model built in
one piece (tests/test_constraints.py checks every algorithm).

Names: joint, body and frame names of the child that clash with the parent's are prefixed
(``prefix``, default ``"<child name>/"``). The spliced Model keeps the parent's gravity.

>>> import numpy as np
>>> from lessonlib import samples
>>> arm = attach(samples.planar_2link(), samples.pendulum(), 1, np.eye(4))   # a pendulum on the forearm
>>> arm.n, arm.parent
(3, (-1, 0, 1))
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import se3
from ..conventions import BASE
from ..model import Frame, Joint, Model

__all__ = ["attach", "attach_many", "split", "Split"]


def _check_model(model, name):
    if not isinstance(model, Model):
        raise ValueError(f"{name}: expected a lessonlib Model, got {type(model).__name__}")


def _mount(parent, body, T_body_childbase):
    """``(b, T_b_c)``: the parent body (BASE allowed) and the pose of the child's base frame on it."""
    T = np.asarray(T_body_childbase, dtype=float)
    if T.shape != (4, 4):
        raise ValueError(f"T_body_childbase: expected a 4x4 homogeneous transform, got shape {T.shape}")
    se3.check_transform(T, "T_body_childbase")
    if body is None:
        return BASE, T
    if isinstance(body, str):
        f = parent.frame(body)
        return f.body, f.T @ T
    if isinstance(body, (bool, np.bool_)) or not isinstance(body, (int, np.integer)):
        raise ValueError(f"body: expected a body index, a frame name or None (the base), got {body!r}")
    b = int(body)
    if not -parent.n <= b < parent.n:
        raise ValueError(f"body: expected an index in [-{parent.n}, {parent.n - 1}] of model "
                         f"{parent.name!r}, a frame name or None (the base), got {body}")
    return b % parent.n, T


def _unique(names, taken, prefix):
    """``names`` with every entry already in ``taken`` prefixed (repeatedly, until unique)."""
    out = []
    for name in names:
        new = name
        while new in taken:
            new = prefix + new
        taken.add(new)
        out.append(new)
    return out


def attach(parent, child, body, T_body_childbase, *, name=None, prefix=None):
    """Splice ``child`` onto ``body`` of ``parent``; returns one :class:`~lessonlib.model.Model`.

    Convention: eq. (12.1) — the child's base frame sits at ``T_body_childbase`` (4×4) in the frame
    of ``body``; the child's root bodies get ``parent = body`` and ``T_tree = T_body_childbase ·
    T_tree_child``. Bodies ``0 .. parent.n − 1`` are the parent's, unchanged; the child's follow in
    their own order (``q = [q_parent; q_child]``). The result keeps the parent's gravity.

    Parameters: ``body`` — a body index of ``parent`` (negative counts from the end), the name of
    one of its frames (then ``T_body_childbase`` is relative to that frame), or ``None`` for the
    parent's fixed base (the child then becomes a second tree in the same world); ``name`` — the
    new Model's name (default ``"<parent>+<child>"``); ``prefix`` — put before any joint, body or
    frame name of the child that clashes with the parent's (default ``"<child name>/"``).

    Call it again (or :func:`attach_many`) to hang several children: a tree.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> from lessonlib.kinematics import fk
    >>> arm, rod = samples.planar_2link(), samples.pendulum()
    >>> both = attach(arm, rod, -1, np.eye(4))
    >>> q = np.array([0.3, -0.2, 0.5])
    >>> bool(np.allclose(fk(both, q)[2], fk(arm, q[:2])[1] @ fk(rod, q[2:])[0]))
    True
    """
    _check_model(parent, "parent")
    _check_model(child, "child")
    b, T_b_c = _mount(parent, body, T_body_childbase)
    n_p = parent.n
    prefix = f"{child.name}/" if prefix is None else str(prefix)

    parents = list(parent.parent) + [b if p == BASE else p + n_p for p in child.parent]
    T_tree = np.concatenate([parent.T_tree, [T_b_c @ T if p == BASE else T
                                             for T, p in zip(child.T_tree, child.parent)]])
    inertia = np.concatenate([parent.inertia, child.inertia])

    joint_names = _unique(child.joint_names, set(parent.joint_names), prefix)
    joints = list(parent.joints) + [Joint(j.kind, j.axis, j.point, name=nm, scale=j.scale)
                                    for j, nm in zip(child.joints, joint_names)]
    body_names = list(parent.body_names) + _unique(child.body_names, set(parent.body_names), prefix)
    frame_names = _unique([f.name for f in child.frames], {f.name for f in parent.frames}, prefix)
    frames = list(parent.frames)
    for f, nm in zip(child.frames, frame_names):
        frames.append(Frame(nm, b, T_b_c @ f.T) if f.body == BASE else Frame(nm, f.body + n_p, f.T))

    return Model(parents, joints, T_tree, inertia, body_names=body_names, gravity=parent.gravity,
                 frames=frames, name=f"{parent.name}+{child.name}" if name is None else name)


def attach_many(parent, attachments, *, name=None):
    """Splice several children: ``attachments`` is a sequence of ``(child, body, T_body_childbase)``.

    Equivalent to calling :func:`attach` once per entry, in order; ``body`` always refers to the
    body numbering of ``parent`` (bodies added by earlier entries can be named by their new index,
    ``parent.n + …``, or by a frame name). [LG, 开环并联臂拼接]'s open-loop parallel arm is this: several
    child arms on one link, whose base wrenches add up on that link in the inward pass.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> rod = samples.pendulum()
    >>> tree = attach_many(rod, [(rod, 0, np.eye(4)), (rod, 0, np.eye(4))])
    >>> tree.parent, tree.children[0]
    ((-1, 0, 0), (1, 2))
    """
    _check_model(parent, "parent")
    model = parent
    for k, entry in enumerate(attachments):
        if not isinstance(entry, (tuple, list)) or len(entry) != 3:
            raise ValueError(f"attachments: entry {k} must be (child, body, T_body_childbase), got {entry!r}")
        child, body, T = entry
        model = attach(model, child, body, T)
    if name is not None:
        model = model.replace(name=name)
    return model


@dataclass(frozen=True)
class Split:
    """The two pieces of :func:`split` and how to put them back.

    ``trunk``, ``branch``: Models; ``body``: the trunk body the branch hangs from (``None``: the
    base); ``T_body_childbase``: identity (the branch's base frame is that body's frame);
    ``trunk_bodies``, ``branch_bodies``: the original indices of each piece's bodies.
    ``attach(s.trunk, s.branch, s.body, s.T_body_childbase)`` rebuilds the model, with the bodies
    in the order ``trunk_bodies + branch_bodies``.
    """

    trunk: Model
    branch: Model
    body: int | None
    T_body_childbase: np.ndarray
    trunk_bodies: tuple
    branch_bodies: tuple


def _sub_model(model, bodies, keep_base_frames, name):
    """The Model of ``bodies`` (closed under "parent, when in ``bodies``"), renumbered in order."""
    index = {old: new for new, old in enumerate(bodies)}
    parent = [index.get(model.parent[i], BASE) for i in bodies]
    frames = [Frame(f.name, index[f.body], f.T) for f in model.frames if f.body in index]
    if keep_base_frames:
        frames += [f for f in model.frames if f.body == BASE]
    return Model(parent, [model.joints[i] for i in bodies], model.T_tree[list(bodies)],
                 model.inertia[list(bodies)], body_names=[model.body_names[i] for i in bodies],
                 gravity=model.gravity, frames=frames, name=name)


def split(model, at_body):
    """Cut ``model`` above body ``at_body``: the subtree rooted there becomes a separate arm.

    Returns a :class:`Split`. The branch is the subtree of ``at_body``; its base frame is the frame
    of ``at_body``'s parent body (or the world), so its root keeps its ``T_tree``. The trunk is
    everything else, with the frames on its bodies and on the base. For a chain cut at ``k`` the
    pieces are bodies ``0..k−1`` and ``k..n−1``, and re-attaching gives back the same Model.

    >>> from lessonlib import samples
    >>> s = split(samples.seed002_7dof(), 3)
    >>> s.trunk.n, s.branch.n, s.body
    (3, 4, 2)
    """
    _check_model(model, "model")
    if isinstance(at_body, (bool, np.bool_)) or not isinstance(at_body, (int, np.integer)):
        raise ValueError(f"at_body: expected a body index, got {at_body!r}")
    k = int(at_body)
    if not 0 <= k < model.n:
        raise ValueError(f"at_body: expected an index in [0, {model.n - 1}], got {at_body}")
    branch = [i for i in range(model.n) if k in model.ancestors(i)]
    trunk = [i for i in range(model.n) if i not in branch]
    if not trunk:
        raise ValueError(f"at_body: cutting {model.name!r} at body {k} leaves nothing in the trunk")
    p = model.parent[k]
    return Split(_sub_model(model, trunk, True, f"{model.name}[trunk]"),
                 _sub_model(model, branch, False, f"{model.name}[branch]"),
                 None if p == BASE else trunk.index(p), np.eye(4), tuple(trunk), tuple(branch))
