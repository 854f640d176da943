"""Identification from measured data ([DB4 §4.4] steps 1–2, 5): encoders, zero-phase filter, derivatives, pipeline.

Independent routes: the filter's gain against the closed form of a digital Butterworth filter
(``gain(f) = 1/(1 + (tan(πf/f_samp)/tan(πf_cut/f_samp))^(2N))``, a pass forward and one backward square it) and
its phase against a least-squares fit of sine and cosine; derivatives against the analytic ones; the quantisation
against its bound; the pipeline against the true base parameters of every sample robot (chains, trees,
prismatic joints) and the loop against a hand-run sequence of rounds.
"""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.dynamics import (Round, encoder_readings, filtered_derivatives, identify_from_measurements,
                                identify_until_fit, preprocess_measurements, simulated_record, validation_fit,
                                zero_phase_lowpass)
from lessonlib.dynamics.measurement import CUTOFF_HZ, FIT_TARGET, TRIM_PERIODS
from lessonlib.dynamics.regressor import base_parameters, fourier_trajectory, identify, inertial_parameters

ROBOTS = dict(samples.ALL, random_tree_prismatic=lambda: samples.random_model(5, seed=22, prismatic=True),
              random_chain=lambda: samples.random_model(4, seed=23, tree=False))
FS = 1000.0                                                        # [DB4 §4.4]: 1 kHz


def butterworth_gain_squared(f, fs, cutoff, order):
    """``gain(f)`` of the bilinear-transform Butterworth low-pass (pre-warped at the cut-off): the gain of the
    forward–backward filter, written from the formula, not from scipy."""
    ratio = np.tan(np.pi * np.asarray(f) / fs) / np.tan(np.pi * cutoff / fs)
    return 1.0 / (1.0 + ratio ** (2 * order))


def amplitude_and_phase(t, x, f):
    """Least-squares fit ``x ≈ A sin(2πft + φ)``: (A, φ)."""
    basis = np.column_stack([np.sin(2 * np.pi * f * t), np.cos(2 * np.pi * f * t)])
    s, c = np.linalg.lstsq(basis, x, rcond=None)[0]
    return np.hypot(s, c), np.arctan2(c, s)


# --- the filter ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("order", [2, 4])
@pytest.mark.parametrize("f", [0.5, 5.0, 12.0, 20.0, 30.0, 60.0])
def test_the_filter_keeps_the_phase_and_has_the_squared_butterworth_gain(f, order):
    t = np.arange(0.0, 20.0, 1 / FS)
    x = 1.3 * np.sin(2 * np.pi * f * t + 0.4)
    y = zero_phase_lowpass(x, FS, CUTOFF_HZ, order=order)
    mid = slice(2000, -2000)                                       # away from the padded ends
    amplitude, phase = amplitude_and_phase(t[mid], y[mid], f)
    gain = butterworth_gain_squared(f, FS, CUTOFF_HZ, order)
    assert amplitude == pytest.approx(1.3 * gain, rel=1e-4, abs=1e-9)
    if gain > 1e-3:
        assert phase == pytest.approx(0.4, abs=1e-5)               # zero phase: no lag, no lead


def test_the_gain_at_the_cut_off_is_one_half_and_a_one_pass_filter_would_lag():
    from scipy import signal
    t = np.arange(0.0, 20.0, 1 / FS)
    x = np.sin(2 * np.pi * CUTOFF_HZ * t)
    mid = slice(2000, -2000)
    amplitude, phase = amplitude_and_phase(t[mid], zero_phase_lowpass(x, FS, CUTOFF_HZ)[mid], CUTOFF_HZ)
    assert amplitude == pytest.approx(0.5, rel=1e-4) and phase == pytest.approx(0.0, abs=1e-5)
    causal = signal.sosfilt(signal.butter(4, CUTOFF_HZ, fs=FS, output="sos"), x)
    amplitude, phase = amplitude_and_phase(t[mid], causal[mid], CUTOFF_HZ)
    assert amplitude == pytest.approx(np.sqrt(0.5), rel=1e-4)
    assert phase == pytest.approx(-np.pi, abs=1e-4)                # 4th order: −180° at the cut-off


def test_the_filter_runs_along_the_samples_of_every_column():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    Y = zero_phase_lowpass(X, 200.0, 10.0)
    for j in range(3):
        assert np.array_equal(Y[:, j], zero_phase_lowpass(X[:, j], 200.0, 10.0))
    assert np.std(Y) < 0.5 * np.std(X)                             # white noise: most of it is above 10 Hz


# --- encoders and derivatives ----------------------------------------------------------------------------

def test_encoder_readings_are_whole_counts_within_half_a_count():
    rng = np.random.default_rng(1)
    Q = rng.uniform(-3, 3, (1000, 3))
    resolution = np.array([2 * np.pi / 2**12, 2 * np.pi / 2**17, 1e-5])     # two rotary, one linear (m)
    R = encoder_readings(Q, resolution)
    counts = R / resolution
    assert np.allclose(counts, np.round(counts), atol=1e-6)
    assert np.all(np.abs(R - Q) <= resolution / 2 * (1 + 1e-9))
    assert np.abs(R - Q).max(axis=0) == pytest.approx(resolution / 2, rel=0.02)   # the bound is reached
    assert np.std(R - Q, axis=0) == pytest.approx(resolution / np.sqrt(12), rel=0.1)


def test_derivatives_of_a_smooth_signal_match_the_analytic_ones():
    t = np.arange(0.0, 10.0, 1 / FS)
    w = 2 * np.pi * np.array([0.3, 1.1, 3.7])
    Q = np.column_stack([np.sin(w[0] * t), np.cos(w[1] * t) - 0.2 * np.sin(w[2] * t), t ** 2 / 20])
    QD = np.column_stack([w[0] * np.cos(w[0] * t), -w[1] * np.sin(w[1] * t) - 0.2 * w[2] * np.cos(w[2] * t),
                          t / 10])
    QDD = np.column_stack([-w[0] ** 2 * np.sin(w[0] * t),
                           -w[1] ** 2 * np.cos(w[1] * t) + 0.2 * w[2] ** 2 * np.sin(w[2] * t), np.full_like(t, 0.1)])
    q, qd, qdd = filtered_derivatives(t, Q, cutoff=CUTOFF_HZ)
    inner = slice(int(TRIM_PERIODS / CUTOFF_HZ * FS), -int(TRIM_PERIODS / CUTOFF_HZ * FS))
    assert np.abs(q - Q)[inner].max() < 1e-5              # gain 1 − (3.7/20)⁸ ≈ 1 − 1.4e-6 at 3.7 Hz
    assert np.abs(qd - QD)[inner].max() < 5e-4 * np.abs(QD).max()
    assert np.abs(qdd - QDD)[inner].max() < 5e-4 * np.abs(QDD).max()


def test_quantisation_noise_is_amplified_by_differentiation_unless_filtered():
    t = np.arange(0.0, 10.0, 1 / FS)
    exact = 0.5 * np.sin(2 * np.pi * 0.5 * t)
    measured = encoder_readings(exact, 2 * np.pi / 2**14)
    qdd_exact = -(2 * np.pi * 0.5) ** 2 * exact
    raw = np.gradient(np.gradient(measured, t), t)
    inner = slice(500, -500)
    raw_error = np.sqrt(np.mean((raw - qdd_exact)[inner] ** 2))
    errors = {fc: np.sqrt(np.mean((filtered_derivatives(t, measured, cutoff=fc)[2] - qdd_exact)[inner] ** 2))
              for fc in (5.0, 20.0, 100.0)}
    assert raw_error > 10 * np.abs(qdd_exact).max()                # half a count per ms² is a lot of rad/s²
    assert errors[5.0] < errors[20.0] < errors[100.0] < raw_error / 5
    assert errors[20.0] < 0.05 * np.abs(qdd_exact).max()          # a 14-bit encoder is coarse


# --- the pipeline ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_the_pipeline_recovers_the_base_parameters_of_every_sample_robot(name):
    model = ROBOTS[name]()
    t = np.arange(0.0, 4.0, 1 / 500.0)                             # one period of a 0.25–1 Hz excitation
    excite = fourier_trajectory(model.n, harmonics=4, base_freq=0.25, amplitude=0.3, seed=1)
    Q, TAU = simulated_record(model, excite, t, resolution=2 * np.pi / 2**24)
    base = base_parameters(model)
    fit = identify_from_measurements(model, t, Q, TAU, cutoff=CUTOFF_HZ, base=base, decimate=2)
    truth = base.reduce(inertial_parameters(model))
    assert np.abs(fit.theta_base - truth).max() < 2e-3 * np.abs(truth).max()
    assert fit.r2 > 1 - 1e-6


@pytest.mark.parametrize("name", ["seed004_2link", "rpr_arm"])
def test_with_noise_and_quantisation_the_estimate_is_within_a_few_percent(name):
    model = ROBOTS[name]()
    t = np.arange(0.0, 10.0, 1 / FS)
    excite = fourier_trajectory(model.n, harmonics=20, base_freq=0.1, amplitude=0.4, seed=3)
    Q, TAU = simulated_record(model, excite, t, resolution=2 * np.pi / 2**16, torque_noise=0.05, seed=4)
    base = base_parameters(model)
    fit = identify_from_measurements(model, t, Q, TAU, base=base, decimate=5)
    truth = base.reduce(inertial_parameters(model))
    assert np.linalg.norm(fit.theta_base - truth) < 0.03 * np.linalg.norm(truth)


def test_the_torque_must_be_filtered_like_the_acceleration():
    """A 1-DoF arm without gravity: τ = I q̈ is linear, so filtering commutes with it and the same filter on τ
    gives I exactly even with a cut-off inside the motion's band; pairing the filtered q̈ with the raw τ does not."""
    model = samples.pendulum()
    t = np.arange(0.0, 10.0, 1 / FS)
    excite = fourier_trajectory(1, harmonics=50, base_freq=0.1, amplitude=0.5, seed=5)          # 0.1–5 Hz
    Q, TAU = simulated_record(model, excite, t, resolution=1e-12, gravity=np.zeros(3))
    base = base_parameters(model, gravity=np.zeros(3))
    assert base.labels() == ["I_zz[1]"]
    trim = TRIM_PERIODS / 2.0                                      # 2 s: the filter's start-up at 2 Hz
    same = identify_from_measurements(model, t, Q, TAU, cutoff=2.0, trim=trim, base=base, gravity=np.zeros(3))
    assert same.theta_base[0] == pytest.approx(1 / 3, rel=1e-4)
    q, qd, qdd, _ = preprocess_measurements(t, Q, TAU, cutoff=2.0, trim=trim)
    edge = int(trim * FS)
    raw = identify(model, q, qd, qdd, TAU[edge:len(t) - edge], base=base, gravity=np.zeros(3))
    assert abs(raw.theta_base[0] - 1 / 3) > 0.05 / 3


def test_preprocessing_trims_the_ends_and_decimates():
    t = np.arange(0.0, 2.0, 1 / FS)
    Q, TAU = np.sin(t)[:, None] * [1.0, 2.0], np.cos(t)[:, None] * [1.0, 2.0]
    q, qd, qdd, tau = preprocess_measurements(t, Q, TAU, cutoff=20.0, decimate=4)
    assert q.shape == qd.shape == qdd.shape == tau.shape == (len(range(200, 1800, 4)), 2)
    assert np.allclose(tau, zero_phase_lowpass(TAU, FS, 20.0)[200:1800:4])
    assert len(preprocess_measurements(t, Q, TAU, cutoff=20.0, trim=0.0)[0]) == len(t)
    assert len(preprocess_measurements(t, Q, TAU, cutoff=1.0)[0]) == len(range(200, 1800))   # at most a tenth


# --- step 5: the loop ----------------------------------------------------------------------------------------

def test_the_loop_stops_at_the_first_round_that_reaches_the_target():
    model = samples.seed004_2link()
    base = base_parameters(model)
    t = np.arange(0.0, 10.0, 1 / FS)
    resolution, noise = 2 * np.pi / 2**14, 0.5

    def measure(plan):
        return (t, *simulated_record(model, fourier_trajectory(2, seed=1, **plan.excitation), t,
                                     resolution=resolution, torque_noise=noise, seed=2))

    validation = (t, *simulated_record(model, fourier_trajectory(2, harmonics=50, base_freq=0.1, amplitude=0.8, seed=7),
                                       t, resolution=resolution, torque_noise=noise, seed=3))
    slow = dict(harmonics=5, base_freq=0.1, amplitude=0.1)
    rich = dict(harmonics=50, base_freq=0.1, amplitude=0.8)
    rounds = [Round("first try: barely filtered", 80.0, slow), Round("cut-off lowered to 20 Hz", 20.0, slow),
              Round("excitation widened to 0.1–5 Hz, 0.8 rad", 20.0, rich), Round("never reached", 5.0, rich)]
    results = identify_until_fit(model, rounds, measure, validation, base=base, decimate=5)
    assert [r.round for r in results] == rounds[:3]
    r2 = [r.validation_r2 for r in results]
    assert r2[0] < r2[1] < FIT_TARGET <= r2[2]
    by_hand = identify_from_measurements(model, *measure(rounds[2]), cutoff=20.0, base=base, decimate=5)
    assert np.allclose(results[2].fit.theta_base, by_hand.theta_base)
    assert r2[2] == pytest.approx(validation_fit(by_hand, *validation, cutoff=20.0, decimate=5))
    truth = base.reduce(inertial_parameters(model))
    assert np.linalg.norm(results[2].fit.theta_base - truth) < 0.05 * np.linalg.norm(truth)


# --- errors -----------------------------------------------------------------------------------------------------

def test_errors_name_the_argument():
    t = np.arange(0.0, 1.0, 1e-3)
    x = np.sin(t)
    with pytest.raises(ValueError, match="cutoff: .*Nyquist frequency fs/2 = 500 Hz"):
        zero_phase_lowpass(x, 1000.0, 500.0)
    with pytest.raises(ValueError, match="cutoff"):
        zero_phase_lowpass(x, 1000.0, 0.0)
    with pytest.raises(ValueError, match="fs: "):
        zero_phase_lowpass(x, -1.0, 20.0)
    with pytest.raises(ValueError, match="order: "):
        zero_phase_lowpass(x, 1000.0, 20.0, order=2.5)
    with pytest.raises(ValueError, match="x: expected more than 15 samples"):
        zero_phase_lowpass(x[:15], 1000.0, 20.0)
    with pytest.raises(ValueError, match="x: expected a finite array"):
        zero_phase_lowpass(np.full(100, np.nan), 1000.0, 20.0)
    with pytest.raises(ValueError, match="resolution: "):
        encoder_readings(x, 0.0)
    with pytest.raises(ValueError, match="resolution: "):
        encoder_readings(np.zeros((5, 2)), [0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="t: expected increasing, uniformly spaced"):
        filtered_derivatives(t ** 2, x)
    with pytest.raises(ValueError, match="Q: expected one row per sample time"):
        filtered_derivatives(t, x[:-1])
    with pytest.raises(ValueError, match="TAU: expected the shape of Q"):
        preprocess_measurements(t, np.zeros((1000, 2)), np.zeros((1000, 3)))
    with pytest.raises(ValueError, match="decimate: "):
        preprocess_measurements(t, x, x, decimate=0)
    with pytest.raises(ValueError, match="trim: "):
        preprocess_measurements(t, x, x, trim=0.6)
    with pytest.raises(ValueError, match="rounds: "):
        identify_until_fit(samples.pendulum(), [], lambda plan: None, None)
    with pytest.raises(ValueError, match="target: "):
        identify_until_fit(samples.pendulum(), [Round("x", 20.0, {})], lambda plan: None, None, target=90)
