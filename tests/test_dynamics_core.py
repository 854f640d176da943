"""Spatial RNEA, CRBA, ABA and the standard-form terms: the source texts' worked numbers, identities, Pinocchio."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.check import random_state
from lessonlib.dynamics import (aba, bias_forces, coriolis_matrix, crba, forward_dynamics, gravity_torques,
                                jacobian_transpose_force, mass_matrix_via_rnea, rnea, rnea_trace,
                                velocity_torques)
from lessonlib.kinematics import fk, jacobian

from oracles import PinOracle

SAMPLES = dict(samples.ALL)
RANDOM = {f"random{n}_{s}": (lambda n=n, s=s: samples.random_model(n, seed=s)) for n, s in
          [(1, 0), (3, 1), (6, 2), (8, 3), (8, 4)]}
ALL_MODELS = {**SAMPLES, **RANDOM}


@pytest.fixture(scope="module", params=sorted(ALL_MODELS))
def model(request):
    return ALL_MODELS[request.param]()


def random_wrenches(model, rng):
    return rng.normal(size=(model.n, 6))


# --- the worked numbers of [RNE05], [WJ §2.1], [DB4 §4.2] -----------------------------------------

def test_rne05_two_horizontal_rods():
    arm = samples.planar_2link()
    zero = np.zeros(2)
    assert np.allclose(rnea(arm, zero, zero, zero, gravity=[0, -10, 0]), [20.0, 5.0], atol=1e-12)
    tip_load = np.zeros((2, 6))
    tip_load[1] = [0, 0, -10.0 * 1.0, 0, -10.0, 0]   # 1 kg at x = 1 m on link 2: f = (0, −10, 0), n = r × f
    assert np.allclose(rnea(arm, zero, zero, zero, gravity=[0, -10, 0], f_ext=tip_load), [40.0, 15.0], atol=1e-12)


@pytest.mark.parametrize("q", [0.0, 0.3, -1.2, np.pi / 2, 2.5])
def test_wj_pendulum(q):
    arm = samples.pendulum(m=2.0, length=0.8)
    I_O, m, ell, g0 = 2.0 * 0.8**2 / 3, 2.0, 0.4, 9.81
    for qdd in (0.0, 1.7):
        assert rnea(arm, [q], [0.9], [qdd])[0] == pytest.approx(I_O * qdd + m * g0 * ell * np.sin(q), abs=1e-12)


def test_db4_mass_matrix_closed_form():
    arm = samples.seed004_2link()
    l1 = l2 = 0.5
    m1 = m2 = 5.0
    I1 = I2 = m1 * l1**2 / 12
    for q2 in np.linspace(-np.pi, np.pi, 9):
        c2 = np.cos(q2)
        M11 = m1 * l1**2 / 4 + m2 * (l1**2 + l2**2 / 4 + l1 * l2 * c2) + I1 + I2
        M12 = m2 * (l2**2 / 4 + l1 * l2 * c2 / 2) + I2
        M22 = m2 * l2**2 / 4 + I2
        assert np.allclose(crba(arm, [0.4, q2]), [[M11, M12], [M12, M22]], atol=1e-12)


def test_craig_planar_point_masses():
    """Craig's 2R arm with point masses m1, m2 at the link ends (Introduction to Robotics, §6.7)."""
    from lessonlib import spatial
    from lessonlib.model import Joint, Model
    l1, l2, m1, m2, g = 0.7, 0.4, 2.0, 1.5, 9.81
    arm = Model([-1, 0], [Joint("revolute", [0, 0, 1])] * 2,
                [np.eye(4), np.array([[1, 0, 0, l1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])],
                [spatial.inertia(m1, [l1, 0, 0], np.zeros((3, 3))), spatial.inertia(m2, [l2, 0, 0], np.zeros((3, 3)))],
                gravity=[0, -g, 0])
    rng = np.random.default_rng(7)
    for _ in range(5):
        (t1, t2), (d1, d2), (a1, a2) = rng.normal(size=(3, 2))
        c1, c2, s2, c12 = np.cos(t1), np.cos(t2), np.sin(t2), np.cos(t1 + t2)
        tau1 = (m2 * l2**2 * (a1 + a2) + m2 * l1 * l2 * c2 * (2 * a1 + a2) + (m1 + m2) * l1**2 * a1
                - m2 * l1 * l2 * s2 * d2**2 - 2 * m2 * l1 * l2 * s2 * d1 * d2 + m2 * l2 * g * c12 + (m1 + m2) * l1 * g * c1)
        tau2 = m2 * l1 * l2 * c2 * a1 + m2 * l1 * l2 * s2 * d1**2 + m2 * l2 * g * c12 + m2 * l2**2 * (a1 + a2)
        assert np.allclose(rnea(arm, [t1, t2], [d1, d2], [a1, a2]), [tau1, tau2], atol=1e-12)


def test_ur5_reference_torques():
    """Modern Robotics' UR5 parameters at θ = (0, π/6, π/4, π/3, π/2, 2π/3), θ̇ = 0.2, θ̈ = 0.1, g = 9.81,
    Ftip = 0.1 applied BY the end effector: the torques Modern Robotics' own InverseDynamics computes
    (tests/test_rnea_forms.py checks that), not a documented example."""
    from lessonlib import se3
    arm = samples.ur5()
    q = np.array([0, np.pi / 6, np.pi / 4, np.pi / 3, np.pi / 2, 2 * np.pi / 3])
    f_ext = np.zeros((6, 6))
    f_ext[5] = se3.Ad(se3.inv(arm.frame("ee").T)).T @ -(0.1 * np.ones(6))
    tau = rnea(arm, q, 0.2 * np.ones(6), 0.1 * np.ones(6), gravity=[0, 0, -9.81], f_ext=f_ext)
    assert np.allclose(tau, [0.012767, -41.147698, -3.780934, 0.032310, 0.036953, 0.103367], atol=2e-6)


# --- identities on every model ----------------------------------------------------------------

def test_crba_equals_rnea_columns_and_is_spd(model):
    for seed in range(3):
        q, _, _ = random_state(model, seed)
        M = crba(model, q)
        assert np.allclose(M, mass_matrix_via_rnea(model, q), atol=1e-10)
        assert np.array_equal(M, M.T)
        assert np.linalg.eigvalsh(M)[0] > 0


def test_standard_form_and_aba_roundtrip(model):
    rng = np.random.default_rng(11)
    for seed in range(3):
        q, qd, qdd = random_state(model, seed)
        g = rng.normal(size=3) * 5
        F = random_wrenches(model, rng)
        tau = rnea(model, q, qd, qdd, gravity=g, f_ext=F)
        assert np.allclose(crba(model, q) @ qdd + bias_forces(model, q, qd, gravity=g, f_ext=F), tau, atol=1e-10)
        for method in ("aba", "crba", "rnea_columns"):
            got = forward_dynamics(model, q, qd, tau, method=method, gravity=g, f_ext=F)
            assert np.allclose(got, qdd, rtol=1e-8, atol=1e-8), method


def test_coriolis_is_christoffel(model):
    h = 1e-6
    for seed in range(2):
        q, qd, _ = random_state(model, seed)
        C = coriolis_matrix(model, q, qd)
        assert np.allclose(C @ qd, velocity_torques(model, q, qd), atol=1e-10)
        assert np.allclose(C @ qd, bias_forces(model, q, qd) - gravity_torques(model, q), atol=1e-10)
        M_dot = (crba(model, q + h * qd) - crba(model, q - h * qd)) / (2 * h)
        N = M_dot - 2 * C
        assert np.allclose(N, -N.T, atol=1e-6)
        # Christoffel symbols are symmetric in (j, k): C(q̇) y = C(y) q̇
        y = np.random.default_rng(seed).normal(size=model.n)
        assert np.allclose(C @ y, coriolis_matrix(model, q, y) @ qd, atol=1e-10)


def test_jacobian_transpose_force(model):
    rng = np.random.default_rng(3)
    q, _, _ = random_state(model, 5)
    F = rng.normal(size=6)
    for body in {0, model.n - 1}:
        assert np.allclose(jacobian_transpose_force(model, q, F, frame="body", body=body),
                           jacobian(model, q, body=body, frame="body").T @ F, atol=1e-10)
        assert np.allclose(jacobian_transpose_force(model, q, F, body=body, frame="space"),
                           jacobian(model, q, body=body, frame="space").T @ F, atol=1e-10)


def test_trace_matches_rnea(model):
    q, qd, qdd = random_state(model, 2)
    tr = rnea_trace(model, q, qd, qdd)
    assert np.array_equal(tr.tau, rnea(model, q, qd, qdd))
    assert tr.v.shape == tr.a.shape == tr.f.shape == (model.n, 6)
    assert np.allclose([model.S[i] @ tr.f[i] for i in range(model.n)], tr.tau)


# --- Pinocchio oracle --------------------------------------------------------------------------

def test_against_pinocchio(model):
    oracle = PinOracle(model)
    rng = np.random.default_rng(5)
    for seed in range(3):
        q, qd, qdd = random_state(model, seed)
        g = rng.normal(size=3) * 5
        F = random_wrenches(model, rng)
        assert np.allclose(rnea(model, q, qd, qdd, gravity=g), oracle.rnea(q, qd, qdd, gravity=g), atol=1e-9)
        assert np.allclose(rnea(model, q, qd, qdd, gravity=g, f_ext=F),
                           oracle.rnea(q, qd, qdd, gravity=g, f_ext=F), atol=1e-9)
        assert np.allclose(crba(model, q), oracle.crba(q), atol=1e-9)
        tau = rng.normal(size=model.n) * 3
        for f in (None, F):
            ours = aba(model, q, qd, tau, gravity=g, f_ext=f)
            theirs = oracle.aba(q, qd, tau, gravity=g, f_ext=f)
            assert np.allclose(ours, theirs, rtol=1e-8, atol=1e-8 * max(1.0, np.abs(theirs).max()))
        assert np.allclose(gravity_torques(model, q, gravity=g), oracle.gravity_torques(q, gravity=g), atol=1e-9)
        assert np.allclose(bias_forces(model, q, qd, gravity=g), oracle.bias(q, qd, gravity=g), atol=1e-9)
        assert np.allclose(coriolis_matrix(model, q, qd), oracle.coriolis(q, qd), atol=1e-9)
        assert np.allclose(fk(model, q), oracle.fk(q), atol=1e-9)
        assert np.allclose(jacobian(model, q, body=model.n - 1, frame="body"),
                           oracle.jacobian_body(q, model.n - 1), atol=1e-9)


# --- validation --------------------------------------------------------------------------------

def test_bad_inputs_name_the_argument():
    arm = samples.planar_2link()
    with pytest.raises(ValueError, match="q: expected shape"):
        rnea(arm, [0, 0, 0], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="qd:"):
        rnea(arm, [0, 0], [0, np.nan], [0, 0])
    with pytest.raises(ValueError, match="qdd:"):
        rnea(arm, [0, 0], [0, 0], [[0, 0]])
    with pytest.raises(ValueError, match="gravity"):
        rnea(arm, [0, 0], [0, 0], [0, 0], gravity=[0, 9.81])
    with pytest.raises(ValueError, match="f_ext"):
        rnea(arm, [0, 0], [0, 0], [0, 0], f_ext=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="tau"):
        aba(arm, [0, 0], [0, 0], [0])
    with pytest.raises(ValueError, match="method"):
        forward_dynamics(arm, [0, 0], [0, 0], [0, 0], method="magic")
