"""The same robot for the peer libraries: Modern Robotics lists and a Robotics Toolbox DH robot.

Built from a lessonlib Model so every library times exactly the same arm; :func:`agreement` checks
a peer's numbers against ours before anything is timed.

* Modern Robotics wants ``Mlist`` (the link frames' relative poses at q = 0), ``Glist`` (spatial
  inertias in the link frames) and ``Slist`` (space screws at q = 0). Our body frames serve as MR's
  link frames: ``M_{i-1,i} = T_tree[i]``, ``G_i = inertia[i]``, ``S_i = Ad(T_0_i(0)) S_i^body``.
* Robotics Toolbox's C ``rne`` and its pure-Python ``rne_python`` exist for ``DHRobot`` only, so a
  revolute chain is rewritten in modified (Craig) DH form: frame ``F_i`` on joint axis ``i``, its x
  axis along the common normal to axis ``i+1``; link ``i`` then carries its mass, COM and inertia
  expressed in ``F_i``. Any revolute chain has such frames (parallel axes: the normal through the
  previous frame's foot; intersecting axes: x = z_i × z_{i+1}).
"""
from __future__ import annotations

import numpy as np

from lessonlib import se3
from lessonlib.kinematics import fk
from lessonlib.model import to_poe

TOL = 1e-9


def agreement(name, got, want, tol=TOL):
    """Largest error of a peer relative to max(1, |ours|); raises if above ``tol``."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    if not err <= tol:
        raise AssertionError(f"{name}: disagrees with lessonlib by {err:.3g} (relative)")
    return err


def _require_unit_chain(model, who):
    if not model.is_chain:
        raise ValueError(f"{who} needs a serial chain, got the tree {model.name!r}")
    if any(j.scale != 1.0 for j in model.joints):
        raise ValueError(f"{who} needs unit joint screws")


# --- Modern Robotics -------------------------------------------------------------------------------

def mr_lists(model):
    """``(Mlist, Glist, Slist)`` of Modern Robotics for a chain (end-effector frame = last link frame)."""
    _require_unit_chain(model, "Modern Robotics")
    M, G, S = to_poe(model, ee=np.eye(4))
    return list(M), list(G), S


# --- Robotics Toolbox: modified DH ------------------------------------------------------------------

def _frame(z, x, origin):
    T = np.eye(4)
    T[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    T[:3, 3] = origin
    return T


def _perpendicular(z, hint):
    """Unit vector ⟂ z, as close to ``hint`` as possible."""
    x = hint - (hint @ z) * z
    if np.linalg.norm(x) < 1e-9:
        x = np.cross(z, np.eye(3)[np.argmin(np.abs(z))])
    return x / np.linalg.norm(x)


def _angle(a, b, axis):
    """Angle that turns unit vector ``a`` into ``b`` about ``axis`` (both ⟂ axis)."""
    return float(np.arctan2(np.cross(a, b) @ axis, a @ b))


def mdh_frames(model):
    """World poses ``F_i`` (at q = 0) of modified-DH frames on the joint axes of a revolute chain."""
    _require_unit_chain(model, "modified DH")
    if not all(j.is_revolute for j in model.joints):
        raise ValueError("modified DH here handles revolute joints only")
    T0 = fk(model, np.zeros(model.n))
    z = [T0[i][:3, :3] @ j.axis for i, j in enumerate(model.joints)]
    o = [T0[i][:3, :3] @ j.point + T0[i][:3, 3] for i, j in enumerate(model.joints)]
    origins, xs = [o[0]], []
    for i in range(model.n - 1):                            # common normal from axis i to axis i+1
        P, d = origins[i], o[i + 1] - origins[i]
        c = np.cross(z[i], z[i + 1])
        if np.linalg.norm(c) < 1e-9:                        # parallel: the normal through P
            x = _perpendicular(z[i], d if np.linalg.norm(d - (d @ z[i]) * z[i]) > 1e-9
                               else (xs[-1] if xs else np.eye(3)[np.argmin(np.abs(z[i]))]))
            nxt = P + (d - (d @ z[i]) * z[i])
        else:                                               # closest points of two skew lines
            A = np.array([[z[i] @ z[i], -z[i] @ z[i + 1]], [z[i] @ z[i + 1], -z[i + 1] @ z[i + 1]]])
            t, s = np.linalg.solve(A, [d @ z[i], d @ z[i + 1]])
            P = origins[i] + t * z[i]
            nxt = o[i + 1] + s * z[i + 1]
            gap = nxt - P
            x = gap / np.linalg.norm(gap) if np.linalg.norm(gap) > 1e-9 else c / np.linalg.norm(c)
        origins[i] = P
        xs.append(x)
        origins.append(nxt)
    xs.append(_perpendicular(z[-1], xs[-1] if xs else np.array([1.0, 0.0, 0.0])))
    return [_frame(z[i], xs[i], origins[i]) for i in range(model.n)]


def mdh_parameters(model):
    """``(base, links)``: the base pose and per link ``dict(alpha, a, d, offset, m, r, I)``."""
    F = mdh_frames(model)
    T0 = fk(model, np.zeros(model.n))
    base = F[0]                                            # frame 0 coincides with F_0 at q = 0
    links = []
    for i in range(model.n):
        prev = F[i - 1] if i else base
        rel = se3.inv(prev) @ F[i]                           # = Rx(α) Tx(a) Rz(θ0) Tz(d)
        alpha = float(np.arctan2(-rel[1, 2], rel[2, 2]))
        a = float(rel[0, 3])
        offset = float(np.arctan2(-rel[0, 1], rel[0, 0]))
        d = float(rel[:3, 2] @ rel[:3, 3])
        T_F_body = se3.inv(F[i]) @ T0[i]                     # body frame in F_i (constant)
        R = T_F_body[:3, :3]
        links.append(dict(alpha=alpha, a=a, d=d, offset=offset, m=float(model.mass[i]),
                          r=R @ model.com[i] + T_F_body[:3, 3], I=R @ model.I_com[i] @ R.T))
    return base, links


def rtb_dh_robot(model):
    """A Robotics Toolbox ``DHRobot`` (modified DH) of a revolute chain, with our inertias."""
    import roboticstoolbox as rtb
    from spatialmath import SE3
    base, links = mdh_parameters(model)
    robot = rtb.DHRobot([rtb.RevoluteMDH(d=L["d"], a=L["a"], alpha=L["alpha"], offset=L["offset"], m=L["m"],
                                         r=L["r"], I=L["I"], Jm=0.0, G=1.0, B=0.0, Tc=[0.0, 0.0])
                         for L in links], name=f"{model.name}_mdh", base=SE3(base, check=False))
    robot.gravity = np.array(model.gravity)
    return robot


# --- Pinocchio -------------------------------------------------------------------------------------

def pinocchio_model(model):
    """A Pinocchio model of a chain: joint frame ``J_i`` = body frame ``i`` moved to the axis point."""
    import pinocchio as pin
    _require_unit_chain(model, "the Pinocchio twin")
    pm = pin.Model()
    pm.gravity.linear = np.array(model.gravity)
    shift = [j.point if j.is_revolute else np.zeros(3) for j in model.joints]      # T_body_J = Trans(r)
    for i, joint in enumerate(model.joints):
        placement = model.T_tree[i].copy()
        placement[:3, 3] += placement[:3, :3] @ shift[i]
        if i:
            placement[:3, 3] -= shift[i - 1]
        kind = pin.JointModelRevoluteUnaligned if joint.is_revolute else pin.JointModelPrismaticUnaligned
        jid = pm.addJoint(i, kind(*joint.axis), pin.SE3(placement[:3, :3], placement[:3, 3]), model.joint_names[i])
        pm.appendBodyToJoint(jid, pin.Inertia(model.mass[i], model.com[i] - shift[i], model.I_com[i]),
                             pin.SE3.Identity())
    return pm
