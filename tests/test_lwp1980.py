"""Luh–Walker–Paul 1980 in link coordinates: with the erratum it is the RNEA; without each correction it is wrong."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.check import random_state
from lessonlib.dynamics import rnea
from lessonlib.dynamics.lwp1980 import ERRATUM, lwp1980
from lessonlib.model import from_dh


def random_dh_arm(seed, joint_types):
    """A random standard-DH chain (random a, α, d, offsets, masses, COMs and rotated inertias)."""
    rng = np.random.default_rng(seed)
    n = len(joint_types)
    inertia = []
    for _ in range(n):
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        inertia.append(R @ np.diag(rng.uniform(0.03, 0.05, 3)) @ R.T)            # any two sum above the third
    return from_dh(a=rng.uniform(-0.4, 0.4, n), alpha=rng.uniform(-np.pi, np.pi, n), d=rng.uniform(-0.3, 0.3, n),
                   theta=rng.uniform(-1, 1, n), joint_types=joint_types, mass=rng.uniform(0.5, 3.0, n),
                   com=rng.uniform(-0.2, 0.2, (n, 3)), inertia=inertia, name=f"dh{seed}")


ARMS = {"rpr_arm": samples.rpr_arm, "scara": samples.scara,
        "dh_RPRPR": lambda: random_dh_arm(1, "RPRPR"), "dh_PRRP": lambda: random_dh_arm(2, "PRRP"),
        "dh_RRRRRR": lambda: random_dh_arm(3, "RRRRRR")}


@pytest.mark.parametrize("name", sorted(ARMS))
def test_with_the_erratum_it_equals_the_rnea(name):
    arm = ARMS[name]()
    for seed in range(3):
        q, qd, qdd = random_state(arm, seed, scale=2.0)
        assert np.allclose(lwp1980(arm, q, qd, qdd), rnea(arm, q, qd, qdd), atol=1e-10)
    q, qd, qdd = random_state(arm, 9)
    g = [1.0, -2.0, -9.0]
    assert np.allclose(lwp1980(arm, q, qd, qdd, gravity=g), rnea(arm, q, qd, qdd, gravity=g), atol=1e-10)


def test_without_step6_no_torque_is_computed():
    arm = samples.rpr_arm()
    q, qd, qdd = random_state(arm, 0)
    assert np.all(np.isnan(lwp1980(arm, q, qd, qdd, erratum=ERRATUM - {"step6"})))


@pytest.mark.parametrize("name", ["rpr_arm", "dh_RRRRRR"])
def test_without_the_stop_at_link_1_the_last_torque_is_overwritten(name):
    arm = ARMS[name]()
    q, qd, qdd = random_state(arm, 1)
    tau, ref = lwp1980(arm, q, qd, qdd, erratum=ERRATUM - {"step7"}), rnea(arm, q, qd, qdd)
    assert np.allclose(tau[:-1], ref[:-1], atol=1e-10)                # joints 1 .. n−1 are still right
    assert abs(tau[-1] - ref[-1]) > 1e-3                              # joint n got the extra pass's value


@pytest.mark.parametrize("name", ["rpr_arm", "dh_RPRPR", "dh_PRRP"])
def test_without_the_eq38_correction_prismatic_arms_get_wrong_torques(name):
    arm = ARMS[name]()
    q, qd, qdd = random_state(arm, 2, scale=2.0)
    tau, ref = lwp1980(arm, q, qd, qdd, erratum=ERRATUM - {"eq38"}), rnea(arm, q, qd, qdd)
    assert np.abs(tau - ref).max() > 1e-2
    zero_qd = lwp1980(arm, q, np.zeros(arm.n), qdd, erratum=ERRATUM - {"eq38"})   # a Coriolis term: needs q̇
    assert np.allclose(zero_qd, rnea(arm, q, np.zeros(arm.n), qdd), atol=1e-10)


def test_eq38_does_not_matter_without_prismatic_joints_or_when_the_slide_is_parallel_to_omega():
    """All-revolute arms never use eq. (38); the SCARA's quill slides along the (vertical) rotation axis,
    so ω × ż = 0 and the wrong factor cancels."""
    for name in ("dh_RRRRRR", "scara"):
        arm = ARMS[name]()
        q, qd, qdd = random_state(arm, 4, scale=2.0)
        assert np.allclose(lwp1980(arm, q, qd, qdd, erratum=ERRATUM - {"eq38"}), rnea(arm, q, qd, qdd), atol=1e-10)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="erratum"):
        lwp1980(samples.rpr_arm(), [0, 0, 0], [0, 0, 0], [0, 0, 0], erratum={"step8"})
    with pytest.raises(ValueError, match="serial chain"):
        lwp1980(samples.branched_tree(), np.zeros(5), np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError, match="standard-DH"):
        lwp1980(samples.planar_2link(), [0, 0], [0, 0], [0, 0])          # joints about body z at body origin
