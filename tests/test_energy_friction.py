"""Energy, power balance ([WJ §2.1]) and friction models ([WJ §2.1], [DB4 §4.3])."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.dynamics import crba, forward_dynamics, gravity_torques, jacobian_transpose_force
from lessonlib.dynamics.energy import (center_of_mass, energy_rate, kinetic_energy, potential_energy,
                                       power_balance, total_energy)
from lessonlib.dynamics.friction import Friction, coulomb, coulomb_smooth, stribeck, viscous

ROBOTS = dict(samples.ALL, random_tree=lambda: samples.random_model(6, seed=11),
              random_chain=lambda: samples.random_model(5, seed=12, tree=False))


def random_states(model, k, seed):
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-np.pi, np.pi, model.n), rng.normal(size=model.n), rng.normal(size=model.n))
            for _ in range(k)]


# --- energy ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_kinetic_energy_is_half_qd_M_qd(name):
    model = ROBOTS[name]()
    for q, qd, _ in random_states(model, 4, seed=1):
        T = kinetic_energy(model, q, qd)
        assert T == pytest.approx(0.5 * qd @ crba(model, q) @ qd, rel=1e-12, abs=1e-14)
        assert T > 0


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_potential_energy_change_is_the_work_of_the_gravity_torques(name):
    """U(q1) − U(q0) = ∫ g(q)ᵀ dq along the straight path (Gauss–Legendre, 30 nodes).

    Gravity is tilted so that it does work on every sample (rpr_arm's joints feel none under the
    default gravity: its revolute axes are vertical and its prismatic axis horizontal)."""
    model = ROBOTS[name]()
    gravity = np.array([2.0, -3.0, -8.0])
    rng = np.random.default_rng(2)
    q0, q1 = rng.uniform(-1.5, 1.5, (2, model.n))
    s, w = np.polynomial.legendre.leggauss(30)
    s, w = 0.5 * (s + 1), 0.5 * w
    work = sum(wk * gravity_torques(model, q0 + sk * (q1 - q0), gravity=gravity) @ (q1 - q0)
               for sk, wk in zip(s, w))
    dU = potential_energy(model, q1, gravity=gravity) - potential_energy(model, q0, gravity=gravity)
    assert dU == pytest.approx(work, rel=1e-9, abs=1e-9)
    assert abs(dU) > 1e-3                                    # the check is not vacuous


def test_pendulum_energies_are_seed_000s():
    rod = samples.pendulum(m=2.0, length=1.2)                   # ℓ = 0.6, I_O = m L²/3 = 0.96
    m, ell, I_O, g0 = 2.0, 0.6, 0.96, 9.81
    for q, qd in [(0.0, 1.0), (0.7, -2.0), (np.pi / 2, 0.5), (3.0, 0.0)]:
        assert kinetic_energy(rod, [q], [qd]) == pytest.approx(0.5 * I_O * qd**2, rel=1e-12, abs=1e-15)
        dU = potential_energy(rod, [q]) - potential_energy(rod, [0.0])
        assert dU == pytest.approx(m * g0 * ell * (1 - np.cos(q)), rel=1e-12, abs=1e-12)
    assert potential_energy(rod, [0.0]) == pytest.approx(-m * g0 * ell)     # datum: the pivot's height
    assert total_energy(rod, [0.7], [-2.0]) == pytest.approx(
        0.5 * I_O * 4.0 - m * g0 * ell * np.cos(0.7), rel=1e-12)


def test_center_of_mass_and_potential_energy():
    arm = samples.planar_2link()                                 # 1 m / 1 kg rods
    assert center_of_mass(arm, [np.pi / 2, -np.pi / 2]) == pytest.approx([0.25, 0.75, 0.0], abs=1e-12)
    assert potential_energy(arm, [np.pi / 2, -np.pi / 2]) == pytest.approx(2 * 9.81 * 0.75, rel=1e-12)
    assert potential_energy(arm, [0.3, 0.4], gravity=[0, 0, 0]) == 0.0
    ur5 = samples.ur5()
    q = np.array([0.1, -0.4, 0.8, 0.2, -0.3, 0.5])
    M = ur5.mass.sum()
    assert potential_energy(ur5, q) == pytest.approx(M * 9.81 * center_of_mass(ur5, q)[2], rel=1e-12)


def _tip_wrench_case(model, q, seed):
    """A wrench on the last body (body frame) and its joint torques τ_ext = Jᵀ F."""
    F = np.random.default_rng(seed).normal(size=6)
    f_ext = np.zeros((model.n, 6))
    f_ext[-1] = F
    return f_ext, jacobian_transpose_force(model, q, F, body=-1, frame="body")


@pytest.mark.parametrize("name", ["planar_2link", "rpr_arm", "scara", "branched_tree", "ur5", "random_tree"])
@pytest.mark.parametrize("method", ["analytic", "central_difference"])
def test_power_balance_with_contact_and_friction(name, method):
    """d(T + U)/dt = q̇ᵀ(τ_a + τ_ext − τ_f) when q̈ comes from the forward dynamics ([WJ §2.1])."""
    model = ROBOTS[name]()
    friction = Friction(viscous=0.3, coulomb=0.4, static=0.6, stribeck_velocity=0.1)
    for k, (q, qd, tau_a) in enumerate(random_states(model, 3, seed=3)):
        f_ext, tau_ext = _tip_wrench_case(model, q, seed=k)
        tau_f = friction(qd)
        qdd = forward_dynamics(model, q, qd, tau_a - tau_f, f_ext=f_ext)
        dE, P = power_balance(model, q, qd, qdd, tau_a, tau_ext=tau_ext, tau_f=tau_f, method=method)
        scale = np.abs(qd) @ (np.abs(tau_a) + np.abs(tau_ext) + np.abs(tau_f))
        assert abs(dE - P) < 1e-6 * scale
        # leaving a term out breaks the balance: the test can fail
        _, P_no_friction = power_balance(model, q, qd, qdd, tau_a, tau_ext=tau_ext, method=method)
        assert abs(dE - P_no_friction) > 1e-3 * scale


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_energy_rate_routes_agree(name):
    model = ROBOTS[name]()
    for q, qd, qdd in random_states(model, 2, seed=4):
        analytic = energy_rate(model, q, qd, qdd)
        fd = energy_rate(model, q, qd, qdd, method="central_difference")
        assert analytic == pytest.approx(fd, rel=1e-8, abs=1e-8)


def test_energy_input_validation():
    arm = samples.planar_2link()
    with pytest.raises(ValueError, match="method"):
        energy_rate(arm, [0, 0], [0, 0], [0, 0], method="euler")
    with pytest.raises(ValueError, match="tau_ext"):
        power_balance(arm, [0, 0], [0, 0], [0, 0], [0, 0], tau_ext=[1.0])
    with pytest.raises(ValueError, match="qd"):
        kinetic_energy(arm, [0, 0], [0, 0, 0])
    with pytest.raises(ValueError, match="gravity"):
        potential_energy(arm, [0, 0], gravity=[0, 1])


# --- friction ----------------------------------------------------------------------------------

def test_viscous_and_coulomb_values():
    qd = np.array([2.0, -0.5, 0.0])
    assert viscous(qd, [0.1, 0.2, 0.3]) == pytest.approx([0.2, -0.1, 0.0])
    assert coulomb(qd, 0.7) == pytest.approx([0.7, -0.7, 0.0])
    Qd = np.array([[1.0, -1.0, 2.0], [-3.0, 0.0, 0.1]])            # a trajectory (N, n)
    assert coulomb(Qd, [0.1, 0.2, 0.3]) == pytest.approx(np.array([[0.1, -0.2, 0.3], [-0.1, 0.0, 0.3]]))
    assert viscous(Qd, 2.0).shape == (2, 3)


def test_smooth_coulomb_tends_to_coulomb():
    qd = np.concatenate([-np.logspace(-2, 1, 50), np.logspace(-2, 1, 50)])
    errors = [np.abs(coulomb_smooth(qd, 1.5, eps=eps) - coulomb(qd, 1.5)).max() for eps in (1e-1, 1e-2, 1e-3, 1e-4)]
    assert errors[0] > 0.5 and np.all(np.diff(errors) < 0)
    assert errors[-1] < 1e-12
    assert float(coulomb_smooth(1e-3, 2.0, eps=1e-3)) == pytest.approx(2 * np.tanh(1.0))


def test_smooth_models_are_continuous_and_odd():
    w = 1e-6 * np.arange(1, 50_001)                               # steps of 1e-6, symmetric about 0
    v = np.concatenate([-w[::-1], [0.0], w])
    for tau, max_slope in ((coulomb_smooth(v, 1.0, eps=1e-3), 1.0 / 1e-3),           # f_c/ε
                           (stribeck(v, 1.0, 1.5, 0.02, 0.3, eps=1e-3), 1.5 / 1e-3 + 0.3)):  # f_s/ε + b
        steps = np.abs(np.diff(tau))
        assert steps.max() <= max_slope * 1e-6 * (1 + 1e-6)
        assert steps.max() >= 0.99 * max_slope * 1e-6            # the steepest point is at rest
        assert np.array_equal(tau, -tau[::-1])                   # odd
        assert np.all(v * tau >= 0)                               # friction dissipates
    jump = coulomb([1e-9], 1.0) - coulomb([-1e-9], 1.0)           # the exact law jumps by 2 f_c
    assert jump == pytest.approx([2.0])


def test_stribeck_curve():
    fc, fs, vs, b = 1.0, 1.5, 0.1, 0.2
    assert float(stribeck(0.1, fc, fs, vs, b)) == pytest.approx((1 + 0.5 / np.e) * np.tanh(100) + 0.02, rel=1e-12)
    assert float(stribeck(0.0, fc, fs, vs, b)) == 0.0
    near_rest = np.linspace(-0.01, 0.01, 2001)
    tau = stribeck(near_rest, fc, fs, vs, b)
    assert np.all(np.abs(tau) <= fs + b * np.abs(near_rest) + 1e-15)          # bounded by f_s at rest
    assert np.abs(tau).max() == pytest.approx(fs, rel=0.02)                   # and it reaches it (breakaway)
    fast = np.array([2.0, -3.0])                                  # far beyond v_s: Coulomb + viscous
    assert stribeck(fast, fc, fs, vs, b) == pytest.approx(np.sign(fast) * fc + b * fast, rel=1e-12)
    assert stribeck([0.05], fc, fs, vs, b, eps=0) == pytest.approx([fc + (fs - fc) * np.exp(-0.25) + 0.01])
    v = np.linspace(0.01, 0.3, 100)                               # the Stribeck dip: decreasing, then rising
    tau = stribeck(v, fc, fs, vs, 0.0)
    assert np.all(np.diff(tau) < 0)


def test_friction_object():
    f = Friction(viscous=[0.1, 0.2], coulomb=0.5)
    assert f([1.0, -2.0]) == pytest.approx([0.6, -0.9])
    assert f([0.0, 0.0]) == pytest.approx([0.0, 0.0])
    exact = Friction(coulomb=0.5, smooth=False)
    assert exact([1e-8, -1e-8]) == pytest.approx([0.5, -0.5])
    s = Friction(viscous=0.1, coulomb=0.5, static=0.8, stribeck_velocity=0.05)
    assert s([0.05]) == pytest.approx(stribeck([0.05], 0.5, 0.8, 0.05, 0.1))
    with pytest.raises(AttributeError):
        f.viscous = 1.0                                           # frozen


def test_friction_validation():
    with pytest.raises(ValueError, match="b"):
        viscous([1.0], -0.1)
    with pytest.raises(ValueError, match="eps"):
        coulomb_smooth([1.0], 1.0, eps=0.0)
    with pytest.raises(ValueError, match="vs"):
        stribeck([1.0], 1.0, 1.2, 0.0, 0.1)
    with pytest.raises(ValueError, match="stribeck_velocity"):
        Friction(static=0.5)
    with pytest.raises(ValueError, match="coulomb"):
        Friction(coulomb=-1.0)
    with pytest.raises(ValueError, match="qd"):
        viscous([np.nan], 1.0)
