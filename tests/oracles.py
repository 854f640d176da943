"""Independent oracles for the tests: a Pinocchio model built from a lessonlib Model.

Pinocchio is linear-first ``[v; ω]``; every conversion goes through ``conventions.swap_order``.
Its joint frames must have the joint axis through their origin, so joint ``i``'s Pinocchio frame
``J_i`` is body frame ``i`` shifted to the point ``r_i`` on the axis: ``T_i_J = Trans(r_i)``.
Pinocchio's CRBA also assumes every subtree is numbered contiguously (depth-first order), which
Featherstone's rule ``parent[i] < i`` does not promise; the twin is built in depth-first order and
every joint-space vector/matrix is permuted back (``order[k]`` = our body of Pinocchio joint k+1).
"""
from __future__ import annotations

import numpy as np
import pytest

from lessonlib import se3
from lessonlib.conventions import ANG, LIN, swap_order

pin = pytest.importorskip("pinocchio")


def _trans(p):
    return se3.from_Rp(np.eye(3), np.asarray(p, dtype=float))


class PinOracle:
    """A Pinocchio twin of a Model (joints with scale ≠ 1 are not representable)."""

    def __init__(self, model):
        if any(j.scale != 1.0 for j in model.joints):
            pytest.skip("Pinocchio has no scaled joints")
        self.model = model
        pm = pin.Model()
        pm.gravity.linear = np.array(model.gravity)
        self.order = self._depth_first(model)
        self.T_body_J = [_trans(j.point if j.is_revolute else np.zeros(3)) for j in model.joints]
        pin_id = {}
        for i in self.order:
            joint, p = model.joints[i], model.parent[i]
            placement = (np.eye(4) if p < 0 else se3.inv(self.T_body_J[p])) @ model.T_tree[i] @ self.T_body_J[i]
            jm = (pin.JointModelRevoluteUnaligned(*joint.axis) if joint.is_revolute
                  else pin.JointModelPrismaticUnaligned(*joint.axis))
            pin_id[i] = pm.addJoint(0 if p < 0 else pin_id[p], jm, pin.SE3(placement[:3, :3], placement[:3, 3]),
                                    joint.name or f"j{i}")
            r = self.T_body_J[i][:3, 3]
            pm.appendBodyToJoint(pin_id[i], pin.Inertia(model.mass[i], model.com[i] - r, model.I_com[i]),
                                 pin.SE3.Identity())
        self.pin_id = pin_id
        self.pm, self.data = pm, pm.createData()

    @staticmethod
    def _depth_first(model):
        order, stack = [], [i for i in reversed(range(model.n)) if model.parent[i] < 0]
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(reversed(model.children[i]))
        return np.array(order)

    def _to_pin(self, x):
        return np.asarray(x, dtype=float)[self.order]

    def _from_pin(self, x):
        out = np.empty_like(x)
        if x.ndim == 1:
            out[self.order] = x
        else:
            out[np.ix_(self.order, self.order)] = x
        return out

    def _gravity(self, gravity):
        self.pm.gravity.linear = np.array(self.model.gravity if gravity is None else gravity, dtype=float)

    def _fext(self, f_ext):
        forces = [pin.Force.Zero()]
        for i in self.order:
            F_J = se3.Ad(self.T_body_J[i]).T @ f_ext[i]      # wrench about the body origin -> about J's origin
            forces.append(pin.Force(F_J[LIN], F_J[ANG]))
        return forces

    def rnea(self, q, qd, qdd, gravity=None, f_ext=None):
        self._gravity(gravity)
        args = [self._to_pin(x) for x in (q, qd, qdd)] + ([] if f_ext is None else [self._fext(f_ext)])
        return self._from_pin(pin.rnea(self.pm, self.data, *args).copy())

    def aba(self, q, qd, tau, gravity=None, f_ext=None):
        self._gravity(gravity)
        args = [self._to_pin(x) for x in (q, qd, tau)] + ([] if f_ext is None else [self._fext(f_ext)])
        return self._from_pin(pin.aba(self.pm, self.data, *args).copy())

    def crba(self, q):
        M = pin.crba(self.pm, self.data, self._to_pin(q)).copy()
        return self._from_pin(np.triu(M) + np.triu(M, 1).T)

    def gravity_torques(self, q, gravity=None):
        self._gravity(gravity)
        return self._from_pin(pin.computeGeneralizedGravity(self.pm, self.data, self._to_pin(q)).copy())

    def bias(self, q, qd, gravity=None):
        self._gravity(gravity)
        return self._from_pin(pin.nonLinearEffects(self.pm, self.data, self._to_pin(q), self._to_pin(qd)).copy())

    def coriolis(self, q, qd):
        return self._from_pin(pin.computeCoriolisMatrix(self.pm, self.data, self._to_pin(q), self._to_pin(qd)).copy())

    def fk(self, q):
        pin.forwardKinematics(self.pm, self.data, self._to_pin(q))
        return np.array([self.data.oMi[self.pin_id[i]].homogeneous @ se3.inv(self.T_body_J[i])
                         for i in range(self.model.n)])

    def jacobian_body(self, q, body):
        """Body Jacobian of body ``body`` (our rows [ω; v], our body frame)."""
        J = pin.computeJointJacobian(self.pm, self.data, self._to_pin(q), self.pin_id[body]).reshape(6, -1)
        J_ours = np.empty_like(J)
        J_ours[:, self.order] = J                                   # LOCAL: joint frame J, linear-first
        return se3.Ad(self.T_body_J[body]) @ swap_order(J_ours, kind="columns")
