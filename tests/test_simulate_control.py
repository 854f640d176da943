"""Simulation (integrators, energy, friction, external wrenches) and model-based control ([DB4 §4.3])."""
import numpy as np
import pytest

from lessonlib import samples, spatial
from lessonlib.dynamics import bias_forces, crba, forward_dynamics, rnea
from lessonlib.dynamics.control import computed_torque, gravity_compensation, quintic
from lessonlib.dynamics.regressor import base_parameters, fourier_trajectory, identify, synthetic_measurements
from lessonlib.dynamics.energy import kinetic_energy
from lessonlib.dynamics.friction import Friction
from lessonlib.dynamics.simulate import Trajectory, simulate
from lessonlib.kinematics import fk

Q0_DOUBLE = np.array([-np.pi / 2 + 1.0, 0.5])      # planar_2link released 1 rad from hanging, elbow bent


def crossing_times(t, x):
    """Times of the upward zero crossings of x(t), by linear interpolation."""
    k = np.where((x[:-1] < 0) & (x[1:] >= 0))[0]
    return t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])


# --- simulation --------------------------------------------------------------------------------

def test_pendulum_small_angle_period():
    """T = 2π √(I_O / (m g ℓ)) for small swings ([WJ §2.1]'s single link)."""
    rod = samples.pendulum(m=1.5, length=0.8)
    I_O, m, g, ell = 1.5 * 0.8**2 / 3, 1.5, 9.81, 0.4
    period = 2 * np.pi * np.sqrt(I_O / (m * g * ell))              # 1.46 s
    traj = simulate(rod, [0.01], [0.0], None, dt=5e-3, duration=3.5)
    measured = np.diff(crossing_times(traj.t, traj.q[:, 0])).mean()
    assert measured == pytest.approx(period, rel=0.005)
    assert measured == pytest.approx(period, rel=1e-4)            # in fact much closer (amplitude 0.01 rad)


def test_rk4_conserves_energy_of_the_double_pendulum():
    arm = samples.planar_2link()
    traj = simulate(arm, Q0_DOUBLE, [0.0, 0.0], None, dt=1e-3, duration=2.0)
    T_max = max(kinetic_energy(arm, q, qd) for q, qd in zip(traj.q, traj.qd))    # ≈ 11 J: a real swing
    assert T_max > 5.0
    assert np.abs(traj.energy - traj.energy[0]).max() < 1e-6 * T_max


def test_explicit_euler_gains_energy_and_semi_implicit_stays_bounded():
    arm = samples.planar_2link()
    euler = simulate(arm, Q0_DOUBLE, [0.0, 0.0], None, dt=1e-3, duration=2.0, integrator="euler")
    symplectic = simulate(arm, Q0_DOUBLE, [0.0, 0.0], None, dt=1e-3, duration=2.0,
                          integrator="semi_implicit_euler")
    gain = euler.energy - euler.energy[0]
    assert gain[-1] > 0.1                                          # J, over 2 s
    assert np.all(gain >= 0) and np.mean(np.diff(euler.energy) > 0) > 0.95
    drift = symplectic.energy - symplectic.energy[0]
    assert np.abs(drift).max() < 0.5 * gain[-1]
    assert 0.3 < np.mean(np.diff(symplectic.energy) > 0) < 0.7     # it goes both ways


def test_semi_implicit_euler_energy_error_does_not_grow():
    rod = samples.pendulum()
    runs = {name: simulate(rod, [1.0], [0.0], None, dt=1e-2, duration=20.0, integrator=name, progress=False)
            for name in ("euler", "semi_implicit_euler")}
    half = 1000
    err = {name: np.abs(r.energy - r.energy[0]) for name, r in runs.items()}
    assert err["semi_implicit_euler"][half:].max() < 1.2 * err["semi_implicit_euler"][:half].max()
    assert err["semi_implicit_euler"].max() < 0.05
    assert err["euler"][half:].max() > 1.5 * err["euler"][:half].max()


def test_viscous_friction_dissipates_energy():
    arm = samples.planar_2link()
    b = 0.5
    traj = simulate(arm, Q0_DOUBLE, [0.0, 0.0], None, dt=2e-3, duration=2.0, friction=Friction(viscous=b))
    dE = np.diff(traj.energy)
    assert np.all(dE <= 1e-12)                                     # monotonic
    assert traj.energy[0] - traj.energy[-1] > 1.0
    dissipated = np.trapezoid(b * (traj.qd**2).sum(axis=1), traj.t)   # ∫ q̇ᵀ B q̇ dt
    assert traj.energy[0] - traj.energy[-1] == pytest.approx(dissipated, rel=1e-4)


def test_external_wrench_can_cancel_gravity():
    """f_ext as a function: the wrench that holds each body's weight lets the arm float."""
    arm = samples.planar_2link()
    g = arm.gravity

    def anti_gravity(t, q, qd):
        R = fk(arm, q)[:, :3, :3]
        f = -arm.mass[:, None] * np.einsum("nji,j->ni", R, g)      # −m g in body axes
        return np.hstack([np.cross(arm.com, f), f])               # moment about the body origin
    traj = simulate(arm, [0.3, -0.8], [0.0, 0.0], None, dt=1e-2, duration=1.0, f_ext=anti_gravity)
    assert np.abs(traj.q - [0.3, -0.8]).max() < 1e-12
    pushed = simulate(arm, [0.3, -0.8], [0.0, 0.0], None, dt=1e-2, duration=0.2,
                      f_ext=np.tile([0, 0, 0, 0, 1.0, 0], (2, 1)))   # constant push along body y
    assert pushed.qdd[0] == pytest.approx(forward_dynamics(arm, [0.3, -0.8], [0, 0], [0, 0],
                                                           f_ext=np.tile([0, 0, 0, 0, 1.0, 0], (2, 1))))


def test_trajectory_record_and_determinism():
    arm = samples.planar_3link()
    ctrl = gravity_compensation(arm, Kp=5.0, Kd=1.0, q_ref=[0.2, 0.1, 0.0])
    a = simulate(arm, [0.0, 0.0, 0.0], [0.1, 0.0, -0.1], ctrl, dt=0.01, duration=0.095, integrator="euler")
    b = simulate(arm, [0.0, 0.0, 0.0], [0.1, 0.0, -0.1], ctrl, dt=0.01, duration=0.095, integrator="euler")
    assert isinstance(a, Trajectory)
    assert a.t.shape == (11,) and a.q.shape == a.qd.shape == a.qdd.shape == a.tau.shape == (11, 3)
    assert a.t[-1] == pytest.approx(0.10)                          # N = ceil(duration / dt)
    for name in ("t", "q", "qd", "qdd", "tau", "energy"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
        assert not getattr(a, name).flags.writeable
    k = 4                                                          # each row is consistent
    assert a.tau[k] == pytest.approx(ctrl(a.t[k], a.q[k], a.qd[k]))
    assert a.qdd[k] == pytest.approx(forward_dynamics(arm, a.q[k], a.qd[k], a.tau[k]))
    assert a.q[k + 1] == pytest.approx(a.q[k] + 0.01 * a.qd[k])   # explicit Euler
    crba_run = simulate(arm, [0.0, 0.0, 0.0], [0.1, 0.0, -0.1], ctrl, dt=0.01, duration=0.05, method="crba")
    aba_run = simulate(arm, [0.0, 0.0, 0.0], [0.1, 0.0, -0.1], ctrl, dt=0.01, duration=0.05)
    assert np.allclose(crba_run.q, aba_run.q, rtol=0, atol=1e-12)


def test_progress_bar(capsys):
    rod = samples.pendulum()
    simulate(rod, [0.1], [0.0], None, dt=0.01, duration=0.1, progress=True)
    assert "simulate" in capsys.readouterr().err
    simulate(rod, [0.1], [0.0], None, dt=0.01, duration=0.1)      # short run: no bar
    assert capsys.readouterr().err == ""


def test_simulate_validation():
    rod = samples.pendulum()
    for kwargs, name in [(dict(dt=0.0), "dt"), (dict(dt=-1e-3), "dt"), (dict(duration=0.0), "duration"),
                         (dict(duration=float("nan")), "duration"), (dict(integrator="rk45"), "integrator"),
                         (dict(method="lagrange"), "method"), (dict(friction=0.3), "friction")]:
        args = dict(dt=0.01, duration=0.1) | kwargs
        with pytest.raises(ValueError, match=name):
            simulate(rod, [0.1], [0.0], None, **args)
    with pytest.raises(ValueError, match="torque_fn"):
        simulate(rod, [0.1], [0.0], lambda t, q, qd: np.zeros(2), dt=0.01, duration=0.1)
    with pytest.raises(ValueError, match="q0"):
        simulate(rod, [0.1, 0.2], [0.0], None, dt=0.01, duration=0.1)
    with pytest.raises(ValueError, match="f_ext"):
        simulate(rod, [0.1], [0.0], None, dt=0.01, duration=0.1, f_ext=np.zeros((2, 6)))


# --- control -----------------------------------------------------------------------------------

def test_quintic_reference():
    ref = quintic([0.0, 1.0], [2.0, -1.0], 2.0, t0=0.5)
    q, qd, qdd = ref(np.array([0.0, 0.5, 1.5, 2.5, 3.0]))
    assert q == pytest.approx(np.array([[0, 1], [0, 1], [1, 0], [2, -1], [2, -1]]))
    assert qd[2] == pytest.approx([1.875, -1.875])                  # 15/8 · Δq / T at mid-way
    assert np.all(qd[[0, 1, 3, 4]] == 0) and np.all(qdd[[0, 1, 3, 4]] == 0)
    t = np.linspace(0.6, 2.4, 7)                                   # derivatives by central differences
    h = 1e-6
    assert ref(t)[1] == pytest.approx((ref(t + h)[0] - ref(t - h)[0]) / (2 * h), abs=1e-7)
    assert ref(t)[2] == pytest.approx((ref(t + h)[1] - ref(t - h)[1]) / (2 * h), abs=1e-6)
    assert ref(1.5)[0].shape == (2,)
    with pytest.raises(ValueError, match="duration"):
        quintic([0.0], [1.0], 0.0)
    with pytest.raises(ValueError, match=r"duration: expected a finite number > 0, got '2 s'"):
        quintic([0.0], [1.0], "2 s")


@pytest.mark.parametrize("name", ["planar_3link", "rpr_arm", "branched_tree"])
def test_computed_torque_is_inverse_dynamics_with_the_commanded_acceleration(name):
    arm = samples.ALL[name]()
    rng = np.random.default_rng(5)
    ref = quintic(rng.normal(size=arm.n), rng.normal(size=arm.n), 1.0)
    Kp, Kd = rng.uniform(10, 50, arm.n), 7.0
    ctrl = computed_torque(arm, ref, Kp, Kd, gravity=[0.0, 1.0, -9.0])
    q, qd = rng.normal(size=(2, arm.n))
    q_d, qd_d, qdd_d = ref(0.4)
    v = qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q)
    expected = crba(arm, q) @ v + bias_forces(arm, q, qd, gravity=[0.0, 1.0, -9.0])
    assert ctrl(0.4, q, qd) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["planar_3link", "rpr_arm"])
def test_computed_torque_tracks_a_quintic_exactly(name):
    """With the exact model the error obeys ë + K_d ė + K_p e = 0: e(t) = e₀ (1 + ωt) e^{−ωt} (ω = 10)."""
    arm = samples.ALL[name]()
    q_start, q_goal = np.array([0.2, 0.1, -0.3]), np.array([1.0, 0.25, 0.5])
    ref = quintic(q_start, q_goal, 1.5)
    e0 = np.array([0.05, -0.03, 0.04])
    traj = simulate(arm, q_start - e0, np.zeros(3), computed_torque(arm, ref, 100.0, 20.0), dt=1e-2, duration=2.5)
    e = ref(traj.t)[0] - traj.q
    assert e == pytest.approx(e0 * ((1 + 10 * traj.t) * np.exp(-10 * traj.t))[:, None], abs=1e-6)
    assert np.abs(traj.q[-1] - q_goal).max() < 1e-6
    assert np.abs(traj.qd[-1]).max() < 1e-6


def test_computed_torque_with_a_wrong_model_does_not_track_exactly():
    arm = samples.planar_3link()
    heavier = arm.replace(inertia=[spatial.inertia(1.2 * m, c, 1.2 * I)
                                   for m, c, I in zip(arm.mass, arm.com, arm.I_com)])
    ref = quintic([0.2, 0.1, -0.3], [1.0, 0.25, 0.5], 1.5)
    traj = simulate(arm, [0.2, 0.1, -0.3], np.zeros(3), computed_torque(heavier, ref, 100.0, 20.0),
                    dt=1e-2, duration=1.5)
    assert np.abs(ref(traj.t)[0] - traj.q).max() > 1e-3


def test_computed_torque_from_an_inverse_dynamics_function_matches_the_model_path():
    arm = samples.rpr_arm()
    rng = np.random.default_rng(8)
    ref = quintic(rng.normal(size=3), rng.normal(size=3), 1.0)
    Kp, Kd = [30.0, 40.0, 50.0], 9.0
    by_model = computed_torque(arm, ref, Kp, Kd)
    calls = []

    def inverse_dynamics(q, qd, qdd):
        calls.append(qdd)
        return rnea(arm, q, qd, qdd)

    class Dynamics:                                    # an object with an inverse_dynamics method
        def inverse_dynamics(self, q, qd, qdd):
            return rnea(arm, q, qd, qdd)

    for t, (q, qd) in zip((0.1, 0.4, 0.9), rng.normal(size=(3, 2, 3))):
        expected = by_model(t, q, qd)
        assert computed_torque(inverse_dynamics, ref, Kp, Kd)(t, q, qd) == pytest.approx(expected, rel=1e-14, abs=1e-12)
        assert computed_torque(Dynamics(), ref, Kp, Kd)(t, q, qd) == pytest.approx(expected, rel=1e-14, abs=1e-12)
        q_d, qd_d, qdd_d = ref(t)
        np.testing.assert_allclose(calls[-1], qdd_d + 9.0 * (qd_d - qd) + np.array(Kp) * (q_d - q), rtol=1e-14)


def test_computed_torque_closes_the_loop_with_an_identified_model():
    """[DB4 §4.4]: the base-parameter model identified from noiseless data tracks like the true model."""
    arm = samples.planar_3link()
    base = base_parameters(arm)
    data = synthetic_measurements(arm, fourier_trajectory(arm.n, seed=2, base_freq=0.5), 0.02 * np.arange(100))
    result = identify(arm, *data, base=base)
    theta_b = result.theta_base
    q_start, q_goal, e0 = np.array([0.2, 0.1, -0.3]), np.array([1.0, 0.25, 0.5]), np.array([0.05, -0.03, 0.04])
    ref = quintic(q_start, q_goal, 1.5)
    exact = np.array(e0 * ((1 + 10 * np.linspace(0, 2.0, 201)) * np.exp(-10 * np.linspace(0, 2.0, 201)))[:, None])
    for controller in (result, lambda q, qd, qdd: base.regressor_base(q, qd, qdd) @ theta_b):
        traj = simulate(arm, q_start - e0, np.zeros(3), computed_torque(controller, ref, 100.0, 20.0),
                        dt=1e-2, duration=2.0, progress=False)
        assert ref(traj.t)[0] - traj.q == pytest.approx(exact, abs=1e-6)    # ë + 20 ė + 100 e = 0, as with arm
    wrong = identify(arm, data[0], data[1], data[2], 1.2 * data[3], base=base)      # torques 20 % off
    traj = simulate(arm, q_start - e0, np.zeros(3), computed_torque(wrong, ref, 100.0, 20.0), dt=1e-2, duration=2.0,
                    progress=False)
    assert np.abs(ref(traj.t)[0] - traj.q - exact).max() > 1e-3


def test_computed_torque_with_a_function_validates():
    ref = quintic([0.0, 0.0], [1.0, 1.0], 1.0)
    two_joints = lambda q, qd, qdd: qdd                  # a unit-inertia double integrator
    assert computed_torque(two_joints, ref, 4.0, [1.0, 2.0])(0.0, np.zeros(2), np.ones(2)).tolist() == [-1.0, -2.0]
    with pytest.raises(ValueError, match="gravity: applies to a Model only"):
        computed_torque(two_joints, ref, 1.0, 1.0, gravity=[0.0, 0.0, -9.81])
    with pytest.raises(ValueError, match="model: expected a Model"):
        computed_torque("ur5", ref, 1.0, 1.0)
    with pytest.raises(ValueError, match="Kp"):
        computed_torque(two_joints, ref, [[1.0]], 1.0)
    with pytest.raises(ValueError, match="Kd: expected a scalar or 2 values"):
        computed_torque(two_joints, ref, 1.0, [1.0, 2.0, 3.0])(0.0, np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match=r"model: the inverse dynamics returned shape \(3,\)"):
        computed_torque(lambda q, qd, qdd: np.zeros(3), ref, 1.0, 1.0)(0.0, np.zeros(2), np.zeros(2))


@pytest.mark.parametrize("name", ["planar_3link", "ur5"])
def test_gravity_compensation_holds_a_pose(name):
    arm = samples.ALL[name]()
    q_ref = np.random.default_rng(6).uniform(-1, 1, arm.n)
    # soft gains: K_d / M_min must stay well inside RK4's stability region at dt = 10 ms
    hold = gravity_compensation(arm, Kp=2.0, Kd=0.5, q_ref=q_ref)
    traj = simulate(arm, q_ref, np.zeros(arm.n), hold, dt=1e-2, duration=1.0)
    assert np.abs(traj.q - q_ref).max() < 1e-9
    weightless = simulate(arm, q_ref, np.zeros(arm.n), gravity_compensation(arm), dt=1e-2, duration=0.5)
    assert np.abs(weightless.q - q_ref).max() < 1e-9
    falls = simulate(arm, q_ref, np.zeros(arm.n), None, dt=1e-2, duration=0.5)       # without it
    assert np.abs(falls.q - q_ref).max() > 1e-2


def test_gravity_compensation_pd_converges_and_validates():
    arm = samples.planar_2link()
    hold = gravity_compensation(arm, Kp=[30.0, 20.0], Kd=[10.0, 8.0], q_ref=[0.5, -0.5])
    traj = simulate(arm, [0.0, 0.0], [0.0, 0.0], hold, dt=1e-2, duration=8.0, progress=False)
    assert traj.q[-1] == pytest.approx([0.5, -0.5], abs=1e-4)
    with pytest.raises(ValueError, match="q_ref"):
        gravity_compensation(arm, Kp=10.0)
    with pytest.raises(ValueError, match="Kd"):
        gravity_compensation(arm, Kd=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Kp"):
        computed_torque(arm, quintic([0, 0], [1, 1], 1.0), -1.0, 2.0)
    with pytest.raises(ValueError, match="reference"):
        computed_torque(arm, [0.0, 1.0], 1.0, 2.0)
