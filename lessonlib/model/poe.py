"""Build a Model from Modern Robotics' product-of-exponentials description (Lynch & Park §8.3).

Modern Robotics describes an open chain by

* ``M_list`` (n+1, 4, 4): ``M_{i-1,i}``, the home pose of link frame ``i`` in link frame ``i-1``
  (frame 0 is the space frame; the last entry places the end-effector frame in link ``n``'s frame);
* ``G_list`` (n, 6, 6): the spatial inertia of link ``i`` in link frame ``i`` (``[ω; v]`` order —
  Modern Robotics is angular-first like the course);
* ``S_list`` (6, n): the screw axes ``S_i`` in the space frame at the home configuration, as columns.

With ``M_i = M_{0,1} ⋯ M_{i-1,i}`` the body-frame screw is ``A_i = Ad(M_i⁻¹) S_i`` and
``T_{i-1,i}(θ_i) = M_{i-1,i} exp([A_i] θ_i)``: exactly the Model's ``T_tree[i] · exp([S_i] q_i)``.
The end-effector frame becomes the Model frame ``"ee"`` on the last body.
"""
from __future__ import annotations

import math

import numpy as np

from .. import se3
from .._operators import Ad_inv
from ..conventions import UNIT_TOL
from .core import PRISMATIC, REVOLUTE, Frame, Joint, Model


def joint_from_screw(A, name=""):
    """The :class:`Joint` whose screw (in its body frame) is ``A = [ω; v]``.

    ``|ω| > 0`` (pitch must be 0) gives a revolute joint about ``ω/|ω|`` through
    ``r = ω × v / |ω|²``; ``ω = 0`` gives a prismatic joint along ``v/|v|``. A non-unit screw keeps
    its norm as the joint's ``scale``.

    >>> j = joint_from_screw([0, 0, 1, 0, -2, 0])     # z-axis through (2, 0, 0)
    >>> j.kind, j.point.tolist()
    ('revolute', [2.0, 0.0, 0.0])
    """
    A = np.asarray(A, dtype=float)
    if A.shape != (6,) or not np.all(np.isfinite(A)) or not np.any(A):
        raise ValueError(f"screw: expected a finite, non-zero 6-vector [ω; v], got {A!r}")
    s = se3.screw_axis(A)
    if math.isinf(s.pitch):
        return Joint(PRISMATIC, s.axis, name=name, scale=s.magnitude)
    if abs(s.pitch) > UNIT_TOL:
        raise ValueError(f"screw: {name or 'joint'} has pitch {s.pitch:.6g}; only revolute "
                         "(pitch 0) and prismatic joints are supported")
    return Joint(REVOLUTE, s.axis, s.point, name=name, scale=s.magnitude)


def from_poe(M_list, G_list, S_list, *, gravity=None, name="poe_robot", joint_names=None):
    """A serial-chain Model from Modern Robotics' ``Mlist, Glist, Slist``.

    Parameters: ``M_list`` (n+1, 4, 4) relative home poses, ``G_list`` (n, 6, 6) link spatial
    inertias in link frames, ``S_list`` (6, n) space-frame screw axes as columns. The algorithms
    then take Modern Robotics' ``thetalist`` as ``q`` and return its ``taulist``.

    >>> import numpy as np
    >>> M_list = [np.eye(4)] * 2
    >>> M_list[1] = np.array([[1, 0, 0, 1.0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    >>> G_list = [np.diag([0.1, 0.1, 0.1, 1.0, 1.0, 1.0])]
    >>> arm = from_poe(M_list, G_list, np.array([[0, 0, 1, 0, 0, 0]]).T)
    >>> arm.n, [f.name for f in arm.frames]
    (1, ['ee'])
    """
    M_list = np.asarray(M_list, dtype=float)
    G_list = np.asarray(G_list, dtype=float)
    S_list = np.asarray(S_list, dtype=float)
    if S_list.ndim != 2 or S_list.shape[0] != 6:
        raise ValueError(f"S_list: expected shape (6, n) with screw axes as columns, got {S_list.shape}")
    n = S_list.shape[1]
    if M_list.shape != (n + 1, 4, 4):
        raise ValueError(f"M_list: expected shape ({n + 1}, 4, 4) (n link frames + end-effector), "
                         f"got {M_list.shape}")
    if G_list.shape != (n, 6, 6):
        raise ValueError(f"G_list: expected shape ({n}, 6, 6), got {G_list.shape}")
    for i in range(n + 1):
        se3.check_transform(M_list[i], f"M_list[{i}]")
    M_home = np.eye(4)
    joints = []
    for i in range(n):
        M_home = M_home @ M_list[i]
        A_i = Ad_inv(M_home) @ S_list[:, i]
        joints.append(joint_from_screw(A_i, name=joint_names[i] if joint_names else f"joint{i + 1}"))
    return Model(list(range(-1, n - 1)), joints, M_list[:n], G_list, gravity=gravity, name=name,
                 body_names=tuple(f"link{i + 1}" for i in range(n)), frames=(Frame("ee", n - 1, M_list[n]),))


def to_poe(model, ee=None):
    """Modern Robotics' ``(M_list, G_list, S_list)`` of a serial chain: the inverse of :func:`from_poe`.

    ``M_list[i] = T_tree[i]`` (home pose of link ``i`` in link ``i−1``) followed by the end-effector
    frame ``ee`` in the last link's frame (default: the model's frame ``"ee"`` on the last body if it
    has one, else the identity); ``G_list[i]`` the link inertias; ``S_list`` (6, n) the space-frame
    screws at home, ``S_i = Ad(M_i) A_i`` with ``M_i = M_{0,1} ⋯ M_{i−1,i}``. Scaled screws keep their
    norm, so ``from_poe(*to_poe(model))`` reproduces ``model``'s dynamics.

    >>> import numpy as np
    >>> M_list, G_list, S_list = to_poe(from_poe(np.array([np.eye(4), np.eye(4)]), [np.eye(6)],
    ...                                          np.array([[0, 0, 1, 0, 0, 0.]]).T))
    >>> M_list.shape, G_list.shape, S_list[:, 0].tolist()
    ((2, 4, 4), (1, 6, 6), [0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    """
    if not model.is_chain:
        raise ValueError(f"model: Modern Robotics' lists describe a serial chain, got the tree {model.name!r}")
    if ee is None:
        frames = [f for f in model.frames if f.name == "ee" and f.body == model.n - 1]
        ee = frames[0].T if frames else np.eye(4)
    se3.check_transform(np.asarray(ee, dtype=float), "ee")
    M_home, S_list = np.eye(4), np.zeros((6, model.n))
    for i in range(model.n):
        M_home = M_home @ model.T_tree[i]
        S_list[:, i] = se3.Ad(M_home) @ model.S[i]
    return np.concatenate([model.T_tree, [np.asarray(ee, dtype=float)]]), np.array(model.inertia), S_list
