"""Regressor τ = Y θ, base parameters and identification ([DB4 §4.3–4.4])."""
import numpy as np
import pytest

from lessonlib import samples, spatial
from lessonlib.dynamics import rnea
from lessonlib.dynamics.regressor import (INERTIA_BASIS, PARAMETER_NAMES, BaseParameters, base_parameters,
                                          body_regressor, fourier_trajectory, identify, inertial_parameters,
                                          model_with_parameters, regressor, stacked_regressor,
                                          synthetic_measurements)
from lessonlib.samples import random_state
from lessonlib.se3 import ad_dual

ROBOTS = dict(samples.ALL, random_tree=lambda: samples.random_model(6, seed=21),
              random_tree_prismatic=lambda: samples.random_model(7, seed=22, prismatic=True),
              random_chain=lambda: samples.random_model(5, seed=23, tree=False))


def states(model, k, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(3, model.n)) for _ in range(k)]


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_regressor_times_parameters_is_rnea(name):
    model = ROBOTS[name]()
    theta = inertial_parameters(model)
    assert theta.shape == (10 * model.n,)
    for k, (q, qd, qdd) in enumerate(states(model, 4, seed=1)):
        gravity = None if k % 2 == 0 else [1.0, -2.0, -9.0]
        tau = rnea(model, q, qd, qdd, gravity=gravity)
        assert regressor(model, q, qd, qdd, gravity=gravity) @ theta == pytest.approx(tau, rel=1e-10, abs=1e-10)


def test_regressor_is_linear_in_the_parameters():
    """Y does not depend on θ: doubling every inertia doubles the torques, any θ gives rnea of its model."""
    model = samples.branched_tree()
    q, qd, qdd = states(model, 1, seed=2)[0]
    theta = inertial_parameters(model)
    Y = regressor(model, q, qd, qdd)
    assert rnea(model_with_parameters(model, 2 * theta), q, qd, qdd) == pytest.approx(2 * Y @ theta, rel=1e-10)
    other = samples.random_model(5, seed=3)                       # same kinematics, other inertias
    swapped = model.replace(inertia=other.inertia)
    assert rnea(swapped, q, qd, qdd) == pytest.approx(Y @ inertial_parameters(swapped), rel=1e-10)


def test_standard_parameters_of_the_pendulum():
    """1 kg, 1 m rod hanging along −y: m c = (0, −0.5, 0), I about the pivot diag(1/3, 0, 1/3)."""
    theta = dict(zip(PARAMETER_NAMES, inertial_parameters(samples.pendulum())))
    expected = dict(m=1.0, mc_x=0.0, mc_y=-0.5, mc_z=0.0, I_xx=1 / 3, I_xy=0.0, I_xz=0.0, I_yy=0.0,
                    I_yz=0.0, I_zz=1 / 3)
    assert theta == pytest.approx(expected, abs=1e-15)


def test_inertia_basis_and_body_regressor():
    rng = np.random.default_rng(4)
    G = samples.random_inertia(rng)
    theta = inertial_parameters(samples.random_model(1, seed=0).replace(inertia=[G]))
    assert np.einsum("k,kij->ij", theta, INERTIA_BASIS) == pytest.approx(G, abs=1e-14)
    m, c, I_c = spatial.inertia_params(G)
    I_O = I_c + m * (c @ c * np.eye(3) - np.outer(c, c))         # parallel axis: about the body origin
    assert theta == pytest.approx(np.r_[m, m * c, I_O[0, 0], I_O[0, 1], I_O[0, 2], I_O[1, 1], I_O[1, 2], I_O[2, 2]])
    v, a = rng.normal(size=(2, 6))
    assert body_regressor(v, a) @ theta == pytest.approx(G @ a + ad_dual(v) @ G @ v, rel=1e-12)


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_parameters_round_trip(name):
    model = ROBOTS[name]()
    theta = inertial_parameters(model)
    rebuilt = model_with_parameters(model, theta)
    assert rebuilt is not model
    assert np.allclose(rebuilt.inertia, model.inertia, rtol=0, atol=1e-13)
    assert inertial_parameters(rebuilt) == pytest.approx(theta, abs=1e-13)


def test_model_with_parameters_rejects_unphysical_parameters():
    model = samples.planar_2link()
    theta = inertial_parameters(model)
    bad = theta.copy()
    bad[10] = -1.0                                                 # body 1: negative mass
    with pytest.raises(ValueError, match=r"theta \(body 1"):
        model_with_parameters(model, bad)
    bad = theta.copy()
    bad[9] = 10.0                                                  # body 0: I_zz ≫ I_xx + I_yy (triangle)
    with pytest.raises(ValueError, match=r"theta \(body 0.*triangle"):
        model_with_parameters(model, bad)
    with pytest.raises(ValueError, match="theta"):
        model_with_parameters(model, theta[:-1])


# --- base parameters ---------------------------------------------------------------------------

def test_planar_arms_have_3n_base_parameters():
    """Planar nR arm, gravity in the plane: b = 3n (ZZ_iR, MX_iR, MY_i); without gravity 3n − 2
    (the first link's first moments do no work)."""
    for name, n in [("planar_2link", 2), ("seed004_2link", 2), ("planar_3link", 3)]:
        model = samples.ALL[name]()
        assert base_parameters(model).rank == 3 * n
        assert base_parameters(model, gravity=[0, 0, 0]).rank == 3 * n - 2
    assert base_parameters(samples.pendulum()).rank == 3
    assert base_parameters(samples.pendulum(), gravity=[0, 0, 0]).labels() == ["I_zz[1]"]


def test_planar_2r_regrouping_is_the_classical_one():
    """ZZ1R = I_zz1 + l₁² m₂, MX1R = mc_x1 + l₁ m₂ (Khalil–Kleinfinger), l₁ = 0.5 m for [DB4 §4.2]'s arm."""
    base = base_parameters(samples.seed004_2link())
    assert base.labels() == ["mc_x[1] + 0.5·m[2]", "mc_y[1]", "I_zz[1] + 0.25·m[2]", "mc_x[2]", "mc_y[2]",
                             "I_zz[2]"]
    theta = inertial_parameters(samples.seed004_2link())             # 5 kg, 0.5 m rods, COM mid-link
    assert base.reduce(theta) == pytest.approx(
        [5 * 0.25 + 0.5 * 5, 0, 5 * 0.25 / 3 + 0.25 * 5, 5 * 0.25, 0, 5 * 0.25 / 3], abs=1e-12)


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_base_regressor_reproduces_the_full_regressor(name):
    """Y θ = Y_b (K θ) for any θ (not only physical ones), on states the construction never saw;
    the rank is the numerical rank of a fresh stack."""
    model = ROBOTS[name]()
    base = base_parameters(model)
    assert isinstance(base, BaseParameters)
    assert base.K.shape == (base.rank, 10 * model.n)
    assert np.array_equal(base.K[:, base.independent], np.eye(base.rank))
    assert len(base.independent) + len(base.dependent) == 10 * model.n
    W = stacked_regressor(model, *random_state(model, 99, size=40))
    assert base.rank == np.linalg.matrix_rank(W)
    thetas = np.column_stack([inertial_parameters(model), np.random.default_rng(7).normal(size=(10 * model.n, 2))])
    for q, qd, qdd in states(model, 3, seed=8):
        Y = regressor(model, q, qd, qdd)
        assert base.regressor_base(q, qd, qdd) @ base.reduce(thetas) == pytest.approx(Y @ thetas, rel=1e-9,
                                                                                         abs=1e-9)


def test_base_parameter_counts():
    counts = {name: base_parameters(samples.ALL[name]()).rank for name in ("rpr_arm", "scara", "ur5", "seed002_7dof")}
    assert counts == {"rpr_arm": 7, "scara": 8, "ur5": 36, "seed002_7dof": 43}


def test_base_parameters_validation():
    with pytest.raises(ValueError, match="n_samples"):
        base_parameters(samples.planar_2link(), n_samples=3)
    with pytest.raises(ValueError, match="tol"):
        base_parameters(samples.planar_2link(), tol=0.0)


# --- exciting trajectory and identification ----------------------------------------------------

def test_fourier_trajectory():
    traj = fourier_trajectory(3, harmonics=4, base_freq=0.5, seed=3, amplitude=0.8, offset=[0.1, -0.2, 0.3])
    t = np.linspace(0.0, 2.0, 801)                                  # one period (2 s)
    q, qd, qdd = traj(t)
    assert q.shape == (801, 3)
    assert q[0] == pytest.approx(q[-1]) and qd[0] == pytest.approx(qd[-1])
    assert np.abs(q - [0.1, -0.2, 0.3]).max() <= 0.8
    assert np.abs(q - [0.1, -0.2, 0.3]).max() > 0.4                # the bound is not loose
    assert q.mean(axis=0) == pytest.approx([0.1, -0.2, 0.3], abs=1e-3)
    h = 1e-6
    assert qd == pytest.approx((traj(t + h)[0] - traj(t - h)[0]) / (2 * h), abs=1e-6)
    assert qdd == pytest.approx((traj(t + h)[1] - traj(t - h)[1]) / (2 * h), abs=1e-5)
    assert traj(0.3)[0].shape == (3,)
    assert np.array_equal(fourier_trajectory(3, seed=3)(t)[0], fourier_trajectory(3, seed=3)(t)[0])
    with pytest.raises(ValueError, match="base_freq"):
        fourier_trajectory(2, base_freq=0.0)
    with pytest.raises(ValueError, match=r"amplitude: expected a finite number > 0, got 'large'"):
        fourier_trajectory(2, amplitude="large")               # a ValueError, not numpy's TypeError


@pytest.fixture(scope="module")
def ur5_identification():
    """UR5, Fourier trajectory (5 harmonics of 0.2 Hz, |q − q0| ≤ 1 rad), 500 samples at 100 Hz."""
    model = samples.ur5()
    base = base_parameters(model)
    traj = fourier_trajectory(model.n, seed=1, amplitude=1.0, base_freq=0.2)
    t = 0.01 * np.arange(500)
    return model, base, traj, t, base.reduce(inertial_parameters(model))


def test_identification_recovers_the_base_parameters_from_noiseless_data(ur5_identification):
    model, base, traj, t, truth = ur5_identification
    result = identify(model, *synthetic_measurements(model, traj, t), base=base)
    assert np.linalg.norm(result.theta_base - truth) < 1e-8 * np.linalg.norm(truth)
    assert result.r2 == pytest.approx(1.0, abs=1e-12)
    assert result.residual_rms < 1e-10
    assert 10 < result.cond < 1e3                                    # ≈ 76 for this trajectory
    for q, qd, qdd in states(model, 3, seed=4):                      # the identified inverse dynamics is RNEA's
        assert result.inverse_dynamics(q, qd, qdd) == pytest.approx(rnea(model, q, qd, qdd), abs=1e-8)


def test_identification_from_noisy_torques(ur5_identification):
    """σ = 0.5 N·m torque noise: predicted torques R² > 0.99 (also on another trajectory), θ_b within
    5 % overall, each estimate within 4 of its standard deviations, and the well-excited
    parameters (relative standard deviation < 2 %) within 5 %."""
    model, base, traj, t, truth = ur5_identification
    result = identify(model, *synthetic_measurements(model, traj, t, torque_noise=0.5, seed=1), base=base)
    assert result.r2 > 0.99
    assert result.residual_rms == pytest.approx(0.5, rel=0.1)
    assert np.linalg.norm(result.theta_base - truth) < 0.05 * np.linalg.norm(truth)
    assert np.all(np.abs(result.theta_base - truth) < 4 * result.std)
    well = result.relative_std < 0.02
    assert well.sum() >= 3
    assert np.all(np.abs(result.theta_base[well] - truth[well]) < 0.05 * np.abs(truth[well]))
    other = fourier_trajectory(model.n, seed=7, amplitude=1.0, base_freq=0.2)
    Q, QD, QDD, TAU = synthetic_measurements(model, other, t[::2], torque_noise=0.5, seed=3)
    residual = TAU - result.predict(Q, QD, QDD)
    assert 1 - (residual**2).sum() / ((TAU - TAU.mean(axis=0)) ** 2).sum() > 0.99


@pytest.fixture(scope="module")
def planar_identification():
    """planar_3link (9 base parameters), a Fourier trajectory sampled 250 times in 5 s, noiseless torques."""
    arm = samples.planar_3link()
    base = base_parameters(arm)
    data = synthetic_measurements(arm, fourier_trajectory(arm.n, seed=3, base_freq=0.2), np.linspace(0, 5, 250))
    return arm, base, data, base.reduce(inertial_parameters(arm))


def test_weighted_identification_is_the_weighted_normal_equations(planar_identification):
    arm, base, (Q, QD, QDD, TAU), truth = planar_identification
    noisy = TAU + np.random.default_rng(0).normal(size=TAU.shape) * [0.02, 0.5, 0.1]
    w = np.array([50.0, 2.0, 10.0])
    result = identify(arm, Q, QD, QDD, noisy, base=base, weights=w)
    W = stacked_regressor(arm, Q, QD, QDD)[:, base.independent]
    D = np.tile(w**2, len(Q))                                           # row j of sample k weighs w_j²
    expected = np.linalg.solve(W.T @ (D[:, None] * W), W.T @ (D * noisy.ravel()))
    np.testing.assert_allclose(result.theta_base, expected, rtol=1e-9)
    r = noisy.ravel() - W @ expected                                    # std from the weighted residuals
    cov = (D @ r**2) / (W.shape[0] - base.rank) * np.linalg.inv(W.T @ (D[:, None] * W))
    np.testing.assert_allclose(result.std, np.sqrt(np.diag(cov)), rtol=1e-8)
    assert result.residual_rms == pytest.approx(np.sqrt(np.mean(r**2)), rel=1e-9)     # unweighted, in N·m
    np.testing.assert_array_equal(result.weights, w)
    scaled = identify(arm, Q, QD, QDD, noisy, base=base, weights=7.0 * w)    # one common factor changes nothing
    np.testing.assert_allclose(scaled.theta_base, result.theta_base, rtol=1e-10)
    np.testing.assert_allclose(scaled.std, result.std, rtol=1e-10)
    ols = identify(arm, Q, QD, QDD, noisy, base=base)
    ones = identify(arm, Q, QD, QDD, noisy, base=base, weights=[1, 1, 1])
    assert ols.weights is None
    np.testing.assert_allclose(ones.theta_base, ols.theta_base, rtol=1e-10)
    np.testing.assert_allclose(ones.std, ols.std, rtol=1e-10)
    np.testing.assert_allclose(ols.theta_base, np.linalg.lstsq(W, noisy.ravel(), rcond=None)[0], rtol=1e-9)


def test_weights_one_over_sigma_beat_ordinary_least_squares(planar_identification):
    """Joint noise σ = (0.02, 0.5, 0.1) N·m ([DB4 §4.4]: weights from each sensor's noise level):
    over 6 noise draws WLS with w_j = 1/σ_j has a mean squared parameter error below 30 % of OLS's
    (≈ 7 % here), and each WLS estimate lies within 4 of its standard deviations."""
    arm, base, (Q, QD, QDD, TAU), truth = planar_identification
    sigma = np.array([0.02, 0.5, 0.1])
    err_ols, err_wls = [], []
    for seed in range(6):
        noisy = TAU + np.random.default_rng(seed).normal(size=TAU.shape) * sigma
        ols = identify(arm, Q, QD, QDD, noisy, base=base)
        wls = identify(arm, Q, QD, QDD, noisy, base=base, weights=1 / sigma)
        err_ols.append(np.sum((ols.theta_base - truth) ** 2))
        err_wls.append(np.sum((wls.theta_base - truth) ** 2))
        assert np.all(np.abs(wls.theta_base - truth) < 4 * wls.std)
    assert np.mean(err_wls) < 0.3 * np.mean(err_ols)


def test_identify_validation():
    model = samples.planar_2link()
    Q = np.zeros((5, 2))
    with pytest.raises(ValueError, match="TAU"):
        identify(model, Q, Q, Q, np.zeros((5, 3)))
    for bad in ([1.0, 0.0], [1.0, -2.0], [1.0, 2.0, 3.0], [np.inf, 1.0]):
        with pytest.raises(ValueError, match="weights: expected 2 finite values > 0"):
            identify(model, Q, Q, Q, Q, weights=bad)
    with pytest.raises(ValueError, match="torque_noise"):
        synthetic_measurements(model, fourier_trajectory(2), [0.0, 1.0], torque_noise=-1.0)
