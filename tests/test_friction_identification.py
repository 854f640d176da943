"""Identification of inertial base parameters together with joint friction ([DB4 §4.4]), validated on another trajectory."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.dynamics import Friction
from lessonlib.dynamics.friction import coulomb_smooth, friction_regressor, stribeck
from lessonlib.dynamics.regressor import (EXCITATION_BAND_HZ, RESONANCE_HZ, check_excitation_band, fourier_trajectory,
                                          identify, identify_with_friction, inertial_parameters, synthetic_measurements)

NOISE = 0.05                                         # N·m, torque-sensor noise
TRUE_FRICTION = Friction(viscous=[0.4, 0.2], coulomb=[1.0, 0.5], static=[1.6, 0.9], stribeck_velocity=[0.05, 0.1])


def measurements(arm, seed, friction=TRUE_FRICTION, noise=NOISE):
    """One 10 s period of a 0.1–5 Hz Fourier excitation sampled at 100 Hz; torques = rigid body + friction + noise."""
    base_freq, harmonics = 0.1, 50
    assert check_excitation_band(base_freq, harmonics) == EXCITATION_BAND_HZ
    traj = fourier_trajectory(arm.n, harmonics=harmonics, base_freq=base_freq, amplitude=0.8, seed=seed)
    Q, QD, QDD, TAU = synthetic_measurements(arm, traj, np.arange(0.0, 10.0, 0.01), torque_noise=noise, seed=seed + 100)
    return Q, QD, QDD, TAU + friction(QD)


@pytest.fixture(scope="module")
def study():
    """[DB4 §4.4] in simulation: identify with three friction laws, validate on a different trajectory."""
    arm = samples.seed004_2link()
    data, validation = measurements(arm, seed=1), measurements(arm, seed=7)
    fits = {law: identify_with_friction(arm, *data, law=law, weights=[1 / NOISE] * 2)
            for law in ("none", "coulomb_viscous", "stribeck")}
    rms = {law: float(np.sqrt(((validation[3] - fit.predict(*validation[:3])) ** 2).mean())) for law, fit in fits.items()}
    return arm, fits, rms


def test_friction_regressor_reproduces_the_friction_laws():
    qd = np.linspace(-1.0, 1.0, 41)[:, None] * [1.0, 0.5]
    Phi = friction_regressor(qd, "stribeck", vs=[0.05, 0.1])
    expected = stribeck(qd, [1.0, 0.5], [1.6, 0.9], [0.05, 0.1], [0.4, 0.2])
    assert np.allclose(np.einsum("snk,nk->sn", Phi, [[0.4, 1.0, 1.6], [0.2, 0.5, 0.9]]), expected, atol=1e-12)
    Phi = friction_regressor(qd, "coulomb_viscous")
    assert np.allclose(Phi[..., 0] * 0.3 + Phi[..., 1] * 0.7, 0.3 * qd + coulomb_smooth(qd, 0.7), atol=1e-12)
    assert friction_regressor(qd, "none").shape == (41, 2, 0)


def test_the_stribeck_model_recovers_the_true_friction_and_stribeck_velocity(study):
    arm, fits, _ = study
    fit = fits["stribeck"]
    assert np.allclose(fit.vs, [0.05, 0.1], rtol=0.2)
    assert np.allclose(fit.friction, [[0.4, 1.0, 1.6], [0.2, 0.5, 0.9]], rtol=0.1, atol=0.03)
    theta_b = fit.base.reduce(inertial_parameters(arm))
    assert np.allclose(fit.theta_base, theta_b, rtol=0.02, atol=0.01)
    assert fit.residual_rms == pytest.approx(NOISE, rel=0.15)             # only the sensor noise is left


def test_validation_torques_improve_with_friction_and_more_with_stribeck(study):
    _, _, rms = study
    assert rms["coulomb_viscous"] < 0.5 * rms["none"]
    assert rms["stribeck"] < 0.8 * rms["coulomb_viscous"]
    assert rms["stribeck"] == pytest.approx(NOISE, rel=0.2)


def test_without_friction_columns_it_is_the_plain_least_squares(study):
    arm = samples.seed004_2link()
    data = measurements(arm, seed=1)
    plain = identify(arm, *data, weights=[1 / NOISE] * 2)
    assert np.allclose(study[1]["none"].theta_base, plain.theta_base, atol=1e-9)


def test_noise_free_coulomb_viscous_data_is_fitted_exactly():
    arm = samples.planar_2link()
    friction = Friction(viscous=[0.3, 0.1], coulomb=[0.8, 0.2])
    data = measurements(arm, seed=2, friction=friction, noise=0.0)
    fit = identify_with_friction(arm, *data, law="coulomb_viscous")
    assert np.allclose(fit.friction, [[0.3, 0.8], [0.1, 0.2]], atol=1e-8)
    assert fit.residual_rms < 1e-8
    assert np.allclose(fit.friction_torques(data[1]), friction(data[1]), atol=1e-8)


def test_excitation_band_is_checked_against_the_resonance():
    assert RESONANCE_HZ == 12.0
    assert check_excitation_band(0.1, 50) == (0.1, 5.0)
    with pytest.raises(ValueError, match="resonance"):
        check_excitation_band(0.2, 50)                                     # 10 Hz: too close to 12 Hz


def test_bad_inputs_name_the_argument():
    arm = samples.planar_2link()
    Z = np.zeros((20, 2))
    with pytest.raises(ValueError, match="law"):
        identify_with_friction(arm, Z, Z, Z, Z, law="dahl")
    with pytest.raises(ValueError, match="TAU"):
        identify_with_friction(arm, Z, Z, Z, np.zeros((20, 3)))
    with pytest.raises(ValueError, match="vs_grid"):
        identify_with_friction(arm, Z, Z, Z, Z, vs_grid=[-1.0])
    with pytest.raises(ValueError, match="vs: the Stribeck law"):
        friction_regressor(Z, "stribeck")
