"""Build a Model from a Denavit–Hartenberg table (standard or modified convention).

Standard DH (Denavit–Hartenberg 1955, Spong): frame ``i`` sits at the far end of link ``i``;
joint ``i`` moves about/along ``z_{i-1}``::

    T_{i-1,i} = Rz(θ_i) · Tz(d_i) · Tx(a_i) · Rx(α_i)

Modified DH ([Craig 2005]; [SWC16] and [LG, 牛顿欧拉递推动力学] use it): frame ``i`` sits on
joint ``i``'s axis; ``α_{i-1}, a_{i-1}`` describe the previous link::

    T_{i-1,i} = Rx(α_{i-1}) · Tx(a_{i-1}) · Rz(θ_i) · Tz(d_i)

Body frame ``i`` of the Model is DH frame ``i`` in both cases (the Model's convention, see
:mod:`lessonlib.model.core`). The joint variable is ``θ_i`` (revolute) or ``d_i`` (prismatic); the
table's ``theta``/``d`` entry of a moving joint is its offset at ``q_i = 0``.
"""
from __future__ import annotations

import numpy as np

from .. import se3, so3, spatial
from .core import PRISMATIC, REVOLUTE, Frame, Joint, Model

_Z_AXIS = np.array([0.0, 0.0, 1.0])


def _Rx(alpha):
    return se3.from_Rp(so3.rot_x(alpha), np.zeros(3))


def _Rz(theta):
    return se3.from_Rp(so3.rot_z(theta), np.zeros(3))


def _trans(x, y, z):
    return se3.from_Rp(np.eye(3), np.array([x, y, z], dtype=float))


def dh_transform(a, alpha, d, theta, *, modified=False):
    """One DH link transform ``T_{i-1,i}`` (see the module docstring for the two conventions).

    >>> import numpy as np
    >>> T = dh_transform(1.0, 0.0, 0.0, np.pi / 2)          # standard: rotate, then reach out along x_i
    >>> np.round(T[:3, 3], 12) + 0.0
    array([0., 1., 0.])
    """
    if modified:
        return _Rx(alpha) @ _trans(a, 0, 0) @ _Rz(theta) @ _trans(0, 0, d)
    return _Rz(theta) @ _trans(0, 0, d) @ _trans(a, 0, 0) @ _Rx(alpha)


def _as_column(name, values, n):
    v = np.asarray(values if values is not None else np.zeros(n), dtype=float)
    if v.shape != (n,):
        raise ValueError(f"{name}: expected {n} values (one per joint), got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name}: contains non-finite values")
    return v


def from_dh(a, alpha, d, theta=None, *, joint_types=None, modified=False, mass, com, inertia,
            gravity=None, names=None, name="dh_robot", tool=None):
    """A serial-chain Model from a DH table with per-link mass, COM and inertia.

    Parameters
    ----------
    a, alpha, d, theta : length-n sequences — the DH table (for ``modified=True`` row ``i`` holds
        ``α_{i-1}, a_{i-1}, d_i, θ_i``, exactly as [Craig 2005] and [SWC16] tabulate it). ``theta``
        defaults to zeros. The entry of the moving variable is its offset at ``q = 0``.
    joint_types : sequence of ``"revolute"``/``"prismatic"`` (or ``"R"``/``"P"``); default all revolute.
    modified : False for standard DH, True for modified (Craig) DH.
    mass : (n,) link masses (kg); com : (n, 3) centres of mass in DH frame ``i``;
    inertia : (n, 3, 3) rotational inertias about the COM in DH-frame-``i`` axes.
    tool : optional 4×4 pose of an end-effector frame ``"tool"`` in the last DH frame.

    >>> import numpy as np
    >>> arm = from_dh([1.0, 1.0], [0, 0], [0, 0], mass=[1, 1], com=[[-0.5, 0, 0]] * 2,
    ...               inertia=[np.diag([0, 1 / 12, 1 / 12])] * 2)
    >>> arm.n, arm.is_chain
    (2, True)
    """
    a = np.asarray(a, dtype=float)
    n = a.size
    a = _as_column("a", a, n)
    alpha = _as_column("alpha", alpha, n)
    d = _as_column("d", d, n)
    theta = _as_column("theta", theta, n)
    kinds = [REVOLUTE] * n if joint_types is None else [_joint_kind(k, i) for i, k in enumerate(joint_types)]
    if len(kinds) != n:
        raise ValueError(f"joint_types: expected {n} entries, got {len(kinds)}")
    mass = _as_column("mass", mass, n)
    com = np.asarray(com, dtype=float)
    inertia = np.asarray(inertia, dtype=float)
    if com.shape != (n, 3):
        raise ValueError(f"com: expected shape ({n}, 3), got {com.shape}")
    if inertia.shape != (n, 3, 3):
        raise ValueError(f"inertia: expected shape ({n}, 3, 3), got {inertia.shape}")

    joints, T_tree = [], []
    for i in range(n):
        label = names[i] if names is not None else f"joint{i + 1}"
        if modified:   # T = [Rx(α)Tx(a) Rz(θ0)Tz(d0)] · Rz(q) or · Tz(q): the joint acts last, along z_i
            T0 = dh_transform(a[i], alpha[i], d[i], theta[i], modified=True)
            joints.append(Joint(kinds[i], _Z_AXIS, np.zeros(3), name=label))
        else:          # T = Rz(q)·T0 = T0·exp(Ad(T0⁻¹) S q): the axis is z_{i-1}, seen from frame i
            T0 = dh_transform(a[i], alpha[i], d[i], theta[i], modified=False)
            R0, p0 = se3.to_Rp(T0)
            joints.append(Joint(kinds[i], R0.T @ _Z_AXIS, -R0.T @ p0, name=label))
        T_tree.append(T0)
    G = [spatial.inertia(mass[i], com[i], inertia[i]) for i in range(n)]
    frames = () if tool is None else (Frame("tool", n - 1, tool),)
    return Model(list(range(-1, n - 1)), joints, np.array(T_tree), np.array(G), gravity=gravity,
                 body_names=tuple(f"link{i + 1}" for i in range(n)), frames=frames, name=name)


def _joint_kind(k, i):
    k = str(k).lower()
    if k in ("r", REVOLUTE):
        return REVOLUTE
    if k in ("p", PRISMATIC):
        return PRISMATIC
    raise ValueError(f"joint_types: entry {i} must be 'revolute'/'R' or 'prismatic'/'P', got {k!r}")

