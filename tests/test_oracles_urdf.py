"""Every dynamics algorithm on the shipped real-robot URDFs against Pinocchio loading the same file.

Pinocchio is an independent implementation and parses the URDF itself (fixed links merged, joint
frames = child link frames = our body frames), so this checks from_urdf and the algorithms at once.
It is linear-first: wrenches are converted with the ``Force(linear, angular)`` constructor.
"""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.check import random_state
from lessonlib.conventions import ANG, LIN
from lessonlib.dynamics import (aba, bias_forces, coriolis_matrix, crba, denoc, gravity_torques, rnea,
                                rnea_classic, rnea_poe)
from lessonlib.model import from_urdf

pin = pytest.importorskip("pinocchio")

pytestmark = pytest.mark.filterwarnings("ignore:.*<mimic> is ignored")

ROBOTS = ["panda", "panda_gripper", "ur5", "xarm7", "double_pendulum", "test_arm"]


class PinURDF:
    def __init__(self, path, model):
        self.pm = pin.buildModelFromUrdf(path)
        self.data = self.pm.createData()
        assert [self.pm.names[j] for j in range(1, self.pm.njoints)] == list(model.joint_names)
        self.nq = [self.pm.joints[j].nq for j in range(1, self.pm.njoints)]
        self.idx_q = [self.pm.joints[j].idx_q for j in range(1, self.pm.njoints)]

    def q(self, q):
        """Our joint angles as Pinocchio's configuration (continuous joints are (cos, sin))."""
        out = np.zeros(self.pm.nq)
        for qi, nq, iq in zip(q, self.nq, self.idx_q):
            out[iq:iq + nq] = [np.cos(qi), np.sin(qi)] if nq == 2 else [qi]
        return out

    def gravity(self, g):
        self.pm.gravity.linear = np.asarray(g, dtype=float)

    def forces(self, f_ext):
        return [pin.Force.Zero()] + [pin.Force(f[LIN], f[ANG]) for f in f_ext]


@pytest.fixture(scope="module", params=ROBOTS)
def robot(request):
    path = samples.robot_path(request.param)
    model = from_urdf(path)
    return model, PinURDF(path, model)


def test_inverse_dynamics_all_forms(robot):
    model, ref = robot
    rng = np.random.default_rng(0)
    for seed in range(4):
        q, qd, qdd = random_state(model, seed)
        g = rng.normal(size=3) * 5
        F = rng.normal(size=(model.n, 6))
        ref.gravity(g)
        expected = pin.rnea(ref.pm, ref.data, ref.q(q), qd, qdd, ref.forces(F))
        for algorithm in (rnea, rnea_classic, rnea_poe, denoc):
            got = algorithm(model, q, qd, qdd, gravity=g, f_ext=F)
            assert np.allclose(got, expected, rtol=0, atol=1e-9), algorithm.__name__


def test_mass_matrix_bias_gravity_coriolis(robot):
    model, ref = robot
    for seed in range(4):
        q, qd, _ = random_state(model, seed)
        ref.gravity(model.gravity)
        qp = ref.q(q)
        M = pin.crba(ref.pm, ref.data, qp)
        assert np.allclose(crba(model, q), np.triu(M) + np.triu(M, 1).T, atol=1e-9)
        assert np.allclose(gravity_torques(model, q), pin.computeGeneralizedGravity(ref.pm, ref.data, qp), atol=1e-9)
        assert np.allclose(bias_forces(model, q, qd), pin.nonLinearEffects(ref.pm, ref.data, qp, qd), atol=1e-9)
        assert np.allclose(coriolis_matrix(model, q, qd), pin.computeCoriolisMatrix(ref.pm, ref.data, qp, qd),
                           atol=1e-9)


def test_forward_dynamics_with_and_without_wrench(robot):
    model, ref = robot
    rng = np.random.default_rng(1)
    for seed in range(4):
        q, qd, _ = random_state(model, seed)
        tau = rng.normal(size=model.n) * 5
        F = rng.normal(size=(model.n, 6))
        ref.gravity(model.gravity)
        for f in (None, F):
            args = () if f is None else (ref.forces(f),)
            expected = pin.aba(ref.pm, ref.data, ref.q(q), qd, tau, *args)
            got = aba(model, q, qd, tau, f_ext=f)
            assert np.allclose(got, expected, rtol=1e-8, atol=1e-8 * max(1.0, np.abs(expected).max()))
