"""Slotine–Li adaptive control: the regressor (Christoffel C, Ṁ − 2C skew) and the closed loop (tracking, convergence)."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.check import random_state
from lessonlib.dynamics import coriolis_matrix, crba, gravity_torques, lagrange_terms, rnea
from lessonlib.dynamics.adaptive import adaptation_gains, simulate_slotine_li, slotine_li_regressor
from lessonlib.dynamics.regressor import base_parameters, fourier_trajectory, inertial_parameters

MODELS = ["planar_2link", "seed004_2link", "rpr_arm", "scara", "branched_tree"]


def implied_C(model, q, qd):
    """The C(q, q̇) that the regressor uses: column j is Y(q, q̇, e_j, 0) θ without gravity."""
    theta = inertial_parameters(model)
    return np.column_stack([slotine_li_regressor(model, q, qd, e, np.zeros(model.n), gravity=[0, 0, 0]) @ theta
                            for e in np.eye(model.n)])


@pytest.mark.parametrize("name", MODELS)
def test_regressor_gives_M_a_plus_C_v_plus_g(name):
    arm = samples.ALL[name]()
    rng = np.random.default_rng(1)
    q, qd, _ = random_state(arm, 4)
    v, a = rng.normal(size=arm.n), rng.normal(size=arm.n)
    Y = slotine_li_regressor(arm, q, qd, v, a)
    expected = crba(arm, q) @ a + coriolis_matrix(arm, q, qd) @ v + gravity_torques(arm, q)
    assert np.allclose(Y @ inertial_parameters(arm), expected, atol=1e-10)


@pytest.mark.parametrize("name", ["planar_2link", "rpr_arm", "scara"])
def test_its_C_is_lagranges_christoffel_matrix(name):
    arm = samples.ALL[name]()
    q, qd, _ = random_state(arm, 6)
    assert np.allclose(implied_C(arm, q, qd), lagrange_terms(arm, q, qd)[1], atol=1e-10)


@pytest.mark.parametrize("name", MODELS)
def test_Mdot_minus_2C_is_skew_symmetric(name):
    """Ṁ by central differences of CRBA along q̇: independent of the regressor."""
    arm = samples.ALL[name]()
    q, qd, _ = random_state(arm, 8)
    h = 1e-6
    Mdot = (crba(arm, q + h * qd) - crba(arm, q - h * qd)) / (2 * h)
    N = Mdot - 2 * implied_C(arm, q, qd)
    assert np.abs(N + N.T).max() < 1e-6 * max(1.0, np.abs(Mdot).max())
    assert np.abs(N).max() > 1e-3                              # not trivially zero


def test_a_wrong_C_is_not_skew():
    """C' = C + S with S q̇ = 0 gives the same torques but Ṁ − 2C' is not skew: the property picks C."""
    arm = samples.planar_2link()
    q, qd, _ = random_state(arm, 3)
    C = implied_C(arm, q, qd)
    S = np.outer([1.0, -1.0], [qd[1], -qd[0]])                 # S q̇ = 0
    assert np.allclose(S @ qd, 0)
    h = 1e-6
    Mdot = (crba(arm, q + h * qd) - crba(arm, q - h * qd)) / (2 * h)
    N = Mdot - 2 * (C + S)
    assert np.abs(N + N.T).max() > 1e-2


def test_base_columns_carry_the_whole_regressor():
    arm = samples.planar_2link()
    base = base_parameters(arm)
    rng = np.random.default_rng(0)
    q, qd, v, a = rng.normal(size=(4, 2))
    Y = slotine_li_regressor(arm, q, qd, v, a)
    assert np.allclose(Y[:, base.independent] @ base.reduce(inertial_parameters(arm)), Y @ inertial_parameters(arm),
                       atol=1e-10)


@pytest.fixture(scope="module")
def exciting_run():
    """The 2R arm, nothing known at the start (â = 0), a persistently exciting Fourier reference."""
    arm = samples.planar_2link()
    ref = fourier_trajectory(2, harmonics=3, base_freq=0.5, amplitude=1.0, seed=3)
    Gamma = adaptation_gains(arm, ref, np.arange(0.0, 2.0, 0.02), rate=50.0)
    return simulate_slotine_li(arm, ref, Lambda=5.0, K_s=5.0, Gamma=Gamma, dt=0.01, duration=18.0,
                               q0=[0.3, -0.3], qd0=[0.0, 0.0])


def test_tracking_error_goes_to_zero(exciting_run):
    run = exciting_run
    err = run.tracking_error.max(axis=1)
    assert err[0] > 0.2
    assert err[run.t > 16.0].max() < 2e-3
    assert err[run.t > 16.0].max() < 0.01 * err[0]


def test_parameters_converge_on_a_persistently_exciting_trajectory(exciting_run):
    run = exciting_run
    rel = np.linalg.norm(run.theta_hat - run.theta, axis=1) / np.linalg.norm(run.theta)
    assert rel[0] == pytest.approx(1.0)
    assert rel[-1] < 0.02
    assert np.allclose(run.theta_hat[-1], run.theta, atol=0.02 * np.abs(run.theta).max())


def test_lyapunov_function_never_increases(exciting_run):
    V = exciting_run.V
    assert np.diff(V).max() < 1e-6 * V[0]
    assert V[-1] < 1e-3 * V[0]


def test_without_excitation_tracking_converges_but_parameters_do_not():
    """Holding one pose excites only what gravity shows there: q̃ → 0, â stays wrong."""
    arm = samples.planar_2link()

    def hold(t):
        return np.array([0.4, 0.8]), np.zeros(2), np.zeros(2)

    run = simulate_slotine_li(arm, hold, Lambda=5.0, K_s=5.0, Gamma=0.5, dt=0.01, duration=6.0,
                              q0=[0.2, 0.5], qd0=[0.0, 0.0])
    assert run.tracking_error[-1].max() < 2e-3
    rel = np.linalg.norm(run.theta_hat[-1] - run.theta) / np.linalg.norm(run.theta)
    assert rel > 0.15
    settled = np.abs(run.theta_hat[-1] - run.theta_hat[-101]).max()        # change over the last second
    assert settled < 0.01 * np.abs(run.theta).max()
    assert np.allclose(run.tau[-1], gravity_torques(arm, [0.4, 0.8]), atol=0.02)   # it learned to hold the pose


def test_torque_limits_are_respected():
    arm = samples.planar_2link()
    ref = fourier_trajectory(2, harmonics=3, base_freq=0.5, amplitude=1.0, seed=3)
    run = simulate_slotine_li(arm, ref, Lambda=5.0, K_s=5.0, Gamma=0.5, dt=0.01, duration=1.0, q0=[0.3, -0.3],
                              qd0=[0.0, 0.0], tau_max=[15.0, 6.0])
    assert np.all(np.abs(run.tau) <= [15.0, 6.0])
    assert np.any(np.abs(run.tau[:, 0]) == 15.0)


def test_first_step_torque_is_the_control_law():
    arm = samples.planar_2link()
    ref = fourier_trajectory(2, harmonics=2, base_freq=0.5, amplitude=0.5, seed=1)
    base = base_parameters(arm)
    a0 = base.reduce(inertial_parameters(arm))                    # exact parameters from the start
    run = simulate_slotine_li(arm, ref, Lambda=4.0, K_s=3.0, Gamma=1.0, dt=0.01, duration=0.02, theta_hat0=a0,
                              q0=[0.1, 0.2], qd0=[0.5, -0.5])
    q_d, qd_d, qdd_d = ref(0.0)
    q, qd = np.array([0.1, 0.2]), np.array([0.5, -0.5])
    qd_r, qdd_r = qd_d - 4.0 * (q - q_d), qdd_d - 4.0 * (qd - qd_d)
    s = qd - qd_r
    expected = crba(arm, q) @ qdd_r + coriolis_matrix(arm, q, qd) @ qd_r + gravity_torques(arm, q) - 3.0 * s
    assert np.allclose(run.tau[0], expected, atol=1e-10)
    assert not np.allclose(expected, rnea(arm, q, qd, qdd_r))     # C q̇_r is not c(q, q̇_r)


def test_bad_inputs_name_the_argument():
    arm = samples.planar_2link()
    ref = fourier_trajectory(2, seed=1)
    with pytest.raises(ValueError, match="Gamma"):
        simulate_slotine_li(arm, ref, Lambda=1.0, K_s=1.0, Gamma=[1.0, 2.0], dt=0.01, duration=0.1)
    with pytest.raises(ValueError, match="Lambda"):
        simulate_slotine_li(arm, ref, Lambda=-1.0, K_s=1.0, Gamma=1.0, dt=0.01, duration=0.1)
    with pytest.raises(ValueError, match="theta_hat0"):
        simulate_slotine_li(arm, ref, Lambda=1.0, K_s=1.0, Gamma=1.0, dt=0.01, duration=0.1, theta_hat0=[1.0])
    with pytest.raises(ValueError, match="v: expected shape"):
        slotine_li_regressor(arm, [0, 0], [0, 0], [0], [0, 0])
    with pytest.raises(ValueError, match="rate"):
        adaptation_gains(arm, ref, [0.0], rate=0.0)
    with pytest.raises(ValueError, match=r"rate: expected a finite number > 0, got None"):
        adaptation_gains(arm, ref, [0.0], rate=None)
    with pytest.raises(ValueError, match=r"dt: expected a finite number > 0 \(s\), got '0\.01x'"):
        simulate_slotine_li(arm, ref, Lambda=1.0, K_s=1.0, Gamma=1.0, dt="0.01x", duration=0.1)
