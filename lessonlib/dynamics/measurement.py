"""Identification from measured data: encoders, zero-phase filtering, differentiation ([DB4 §4.4] steps 1–2, 5).

A real arm gives joint angles from encoders — quantised to the encoder's resolution and sampled at a rate
``f_samp`` — and torques from sensors; the regressor needs ``q̇`` and ``q̈``, which nobody measures. [DB4 §4.4]'s
steps, one function each:

1. **acquire** (数据采集): :func:`encoder_readings` rounds each angle to a whole number of counts
   (:func:`simulated_record` makes a whole record from a model, an excitation and noisy torque sensors);
2. **pre-process** (数据预处理): :func:`zero_phase_lowpass` is a Butterworth low-pass run forward and backward
   (``scipy.signal.sosfiltfilt``): zero phase, so nothing is delayed; its gain is ``gain(f)``, exactly ½ at the
   cut-off ``f_cut`` (the source's 20 Hz). :func:`filtered_derivatives` filters ``q`` and differentiates it twice by
   central differences: each difference multiplies noise at frequency ``f`` by about ``2πf``, so the filter must
   remove what lies above the motion's band first. :func:`preprocess_measurements` applies the **same** filter
   to ``τ``: the torque must see what ``q̈`` saw — attenuated alike and not shifted against it — or the rows of the
   regression pair a filtered ``q̈`` with an unfiltered ``τ``;
3. **estimate**: :func:`identify_from_measurements` = :func:`preprocess_measurements` then
   :func:`~lessonlib.dynamics.regressor.identify`: [DB4]'s weighted formula
   ``π̂_b = (Y_bᵀ diag(w_j²) Y_b)⁻¹ Y_bᵀ diag(w_j²) τ``, solved on the rows scaled by ``w_j``;
5. **iterate** (迭代优化): :func:`identify_until_fit` runs rounds — each a :class:`Round` that states what it
   changes (the cut-off, the excitation) — until the validation fit reaches :data:`FIT_TARGET` (90 %).

Too low a cut-off attenuates the motion itself (a bias: the regressor sees a different motion than the one the
torques came from, and the dynamics are not linear in ``q``); too high a cut-off lets the differentiated
quantisation noise into ``q̈`` (noise, and a bias towards smaller inertias: errors in the regressor).

>>> t = np.arange(0.0, 2.0, 1e-3)                          # 1 kHz
>>> x = np.sin(2 * np.pi * 2.0 * t)                         # 2 Hz, well inside a 20 Hz pass band
>>> bool(np.allclose(zero_phase_lowpass(x, 1000.0, 20.0)[200:-200], x[200:-200], atol=1e-6))   # no lag
True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import signal

from .regressor import Identification, identify, synthetic_measurements

#: [DB4 §4.4] step 2: the torques are low-pass filtered at 20 Hz.
CUTOFF_HZ = 20.0
#: [DB4 §4.4] step 5: iterate while the fit on a validation trajectory is below 90 %.
FIT_TARGET = 0.90
#: Order of the Butterworth filter of one pass (the forward–backward filter has twice the order).
FILTER_ORDER = 4
#: :func:`preprocess_measurements` drops this many periods of the cut-off, ``TRIM_PERIODS / f_cut`` seconds, at both
#: ends of a record: there the filter's padding and the one-sided differences are not the motion (errors in ``q̈``
#: above 1e-3 of the signal; below 1e-4 past ``4 / f_cut``).
TRIM_PERIODS = 4.0


def _sample_rate(t):
    """``f_samp`` (Hz) of uniformly spaced sample times ``t`` (N,); ValueError otherwise."""
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or not np.all(np.isfinite(t)):
        raise ValueError(f"t: expected a 1-D array of at least 2 finite sample times, got shape {t.shape}")
    dt = np.diff(t)
    if dt[0] <= 0 or not np.allclose(dt, dt[0], rtol=1e-6, atol=0.0):
        raise ValueError(f"t: expected increasing, uniformly spaced sample times, got steps from {dt.min():g} "
                         f"to {dt.max():g} s")
    return 1.0 / dt[0]


def _samples(x, name):
    """``x`` as a finite float array with samples along axis 0."""
    x = np.asarray(x, dtype=float)
    if x.ndim not in (1, 2) or not np.all(np.isfinite(x)):
        raise ValueError(f"{name}: expected a finite array of shape (N,) or (N, n), got shape {x.shape}")
    return x


def encoder_readings(Q, resolution):
    """Joint positions as an incremental encoder reports them: ``Q`` rounded to whole counts.

    ``resolution``: the angle (rad) or travel (m) of one count, scalar or one per joint — e.g.
    ``2π / counts_per_rev`` for a revolute joint. The error is at most half a count.

    >>> encoder_readings([0.1, 0.2549], 0.01)
    array([0.1 , 0.25])
    """
    Q = _samples(Q, "Q")
    resolution = np.asarray(resolution, dtype=float)
    if resolution.ndim > 1 or (resolution.ndim == 1 and resolution.shape != Q.shape[-1:]) or \
            not np.all(np.isfinite(resolution)) or np.any(resolution <= 0):
        raise ValueError(f"resolution: expected a count size > 0 (rad or m), a scalar or one per joint "
                         f"{Q.shape[-1:]}, got {resolution!r}")
    return np.round(Q / resolution) * resolution


def butterworth(fs, cutoff, *, order=FILTER_ORDER):
    """The digital low-pass Butterworth filter of ``order`` at ``cutoff`` Hz for sample rate ``fs`` Hz (second-order
    sections, ``scipy.signal.butter(..., fs=fs, output="sos")``). ValueError unless ``0 < cutoff < fs/2``."""
    fs, cutoff = float(fs), float(cutoff)
    if not (np.isfinite(fs) and fs > 0):
        raise ValueError(f"fs: expected a sample rate > 0 in Hz, got {fs!r}")
    if not (np.isfinite(cutoff) and 0 < cutoff < fs / 2):
        raise ValueError(f"cutoff: expected a cut-off in Hz between 0 and the Nyquist frequency fs/2 = {fs / 2:g} Hz, "
                         f"got {cutoff!r}")
    if int(order) != order or not 1 <= order <= 10:
        raise ValueError(f"order: expected an integer filter order from 1 to 10, got {order!r}")
    return signal.butter(int(order), cutoff, btype="low", fs=fs, output="sos")


def zero_phase_lowpass(x, fs, cutoff, *, order=FILTER_ORDER):
    """``x`` (N,) or (N, n) low-pass filtered without phase shift: a Butterworth filter run forward, then backward.

    The backward pass undoes the forward pass's delay, so each frequency keeps its phase and is scaled by
    ``gain(f)``: about 1 in the pass band, ``1/2`` at ``cutoff`` (Hz), falling as ``(f/f_cut)^(−4·order)``
    above it. Both ends are padded by odd reflection (``scipy.signal.sosfiltfilt``). ValueError when
    ``cutoff`` is not below the Nyquist frequency ``fs/2`` or when ``x`` has too few samples for the padding.
    """
    x = _samples(x, "x")
    sos = butterworth(fs, cutoff, order=order)
    padlen = 3 * (2 * len(sos) + 1)
    if x.shape[0] <= padlen:
        raise ValueError(f"x: expected more than {padlen} samples for a forward-backward filter of order {order}, "
                         f"got {x.shape[0]}")
    return signal.sosfiltfilt(sos, x, axis=0, padlen=padlen)


def filtered_derivatives(t, Q, *, cutoff=CUTOFF_HZ, order=FILTER_ORDER):
    """``(Q_f, Q̇, Q̈)``, each like ``Q`` (N, n): positions filtered by :func:`zero_phase_lowpass`, then
    differentiated twice by second-order central differences (``numpy.gradient``; one-sided at the ends).

    ``t`` (N,) uniformly spaced sample times (s); ``cutoff`` (Hz, default the source's 20 Hz).

    >>> t = np.arange(0.0, 4.0, 1e-3)
    >>> q, qd, qdd = filtered_derivatives(t, np.sin(2 * np.pi * t))
    >>> mid = slice(500, -500)
    >>> bool(np.allclose(qdd[mid], -(2 * np.pi) ** 2 * np.sin(2 * np.pi * t[mid]), rtol=0, atol=1e-3))
    True
    """
    fs = _sample_rate(t)
    Q = _samples(Q, "Q")
    if Q.shape[0] != len(t):
        raise ValueError(f"Q: expected one row per sample time ({len(t)}), got shape {Q.shape}")
    Q_f = zero_phase_lowpass(Q, fs, cutoff, order=order)
    QD = np.gradient(Q_f, t, axis=0, edge_order=2)
    QDD = np.gradient(QD, t, axis=0, edge_order=2)
    return Q_f, QD, QDD


def preprocess_measurements(t, Q, TAU, *, cutoff=CUTOFF_HZ, order=FILTER_ORDER, decimate=1, trim=None):
    """[DB4 §4.4] step 2: measured ``(t, Q, TAU)`` → ``(Q, QD, QDD, TAU)`` for the regression, (M, n) each.

    ``Q`` (N, n) encoder readings and ``TAU`` (N, n) torques at the times ``t`` (N,). The positions go
    through :func:`filtered_derivatives`; the torques through the same :func:`zero_phase_lowpass` (same
    cut-off and order): every frequency of ``τ`` is scaled like the same frequency of ``qdd``, neither
    delayed against the other. The first and last ``trim`` seconds are dropped (default
    ``TRIM_PERIODS / cutoff``, the filter's start-up transients, but at most a tenth of the record). Then
    every ``decimate``-th sample is kept: after the low-pass, a 1 kHz record holds no more information than
    one sampled a few times above the cut-off, and the regression is cheaper.
    """
    fs, t = _sample_rate(t), np.asarray(t, dtype=float)
    TAU = _samples(TAU, "TAU")
    if TAU.shape != np.shape(Q):
        raise ValueError(f"TAU: expected the shape of Q {np.shape(Q)}, got {TAU.shape}")
    if int(decimate) != decimate or decimate < 1:
        raise ValueError(f"decimate: expected an integer >= 1, got {decimate!r}")
    trim = min(TRIM_PERIODS / float(cutoff), 0.1 * (t[-1] - t[0])) if trim is None else float(trim)
    edge = int(np.ceil(trim * fs - 1e-9)) if np.isfinite(trim) and trim >= 0 else -1
    if edge < 0 or 2 * edge >= len(t):
        raise ValueError(f"trim: expected seconds >= 0 leaving samples of the {t[-1] - t[0]:g} s record, "
                         f"got {trim!r}")
    Q_f, QD, QDD = filtered_derivatives(t, Q, cutoff=cutoff, order=order)
    TAU_f = zero_phase_lowpass(TAU, fs, cutoff, order=order)
    keep = slice(edge, len(t) - edge, int(decimate))
    return Q_f[keep], QD[keep], QDD[keep], TAU_f[keep]


def identify_from_measurements(model, t, Q, TAU, *, cutoff=CUTOFF_HZ, order=FILTER_ORDER, decimate=1, trim=None,
                               base=None, gravity=None, weights=None):
    """Base parameters from encoder readings and measured torques: :func:`preprocess_measurements`, then
    :func:`~lessonlib.dynamics.regressor.identify` (``base``, ``gravity``, ``weights`` as there: ``w_j = 1/σ_j``).

    >>> from lessonlib import samples
    >>> from lessonlib.dynamics.regressor import base_parameters, fourier_trajectory, inertial_parameters
    >>> arm, t = samples.planar_2link(), np.arange(0.0, 10.0, 1e-3)         # 10 s at 1 kHz
    >>> Q, TAU = simulated_record(arm, fourier_trajectory(2, seed=1), t, resolution=2 * np.pi / 2**20)
    >>> fit = identify_from_measurements(arm, t, Q, TAU, cutoff=20.0, decimate=10)
    >>> bool(np.allclose(fit.theta_base, fit.base.reduce(inertial_parameters(arm)), rtol=1e-3, atol=1e-4))
    True

    Returns the :class:`~lessonlib.dynamics.regressor.Identification` (its ``r2`` is the fit to the filtered
    torques it was estimated from).
    """
    data = preprocess_measurements(t, Q, TAU, cutoff=cutoff, order=order, decimate=decimate, trim=trim)
    return identify(model, *data, base=base, gravity=gravity, weights=weights)


def simulated_record(model, trajectory, t, *, resolution, torque_noise=0.0, seed=0, gravity=None):
    """What the sensors of step 1 report along ``trajectory`` (see
    :func:`~lessonlib.dynamics.regressor.fourier_trajectory`): ``(Q, TAU)``, (len(t), n) each.

    ``Q`` the exact positions through :func:`encoder_readings` (``resolution`` rad or m per count); ``TAU`` the
    model's inverse dynamics plus Gaussian noise of standard deviation ``torque_noise`` (``seed``).
    """
    Q, _, _, TAU = synthetic_measurements(model, trajectory, t, torque_noise=torque_noise, seed=seed,
                                          gravity=gravity)
    return encoder_readings(Q, resolution), TAU


# --- step 5: iterate until the fit is good enough ----------------------------------------------------------

@dataclass(frozen=True)
class Round:
    """One round of the identification loop: what it changes and the settings it uses.

    ``change`` a sentence saying what this round changes against the one before (the cut-off, the excitation);
    ``cutoff`` the filter's cut-off (Hz); ``excitation`` whatever the ``measure`` function of
    :func:`identify_until_fit` needs to run the excitation (e.g. the ``fourier_trajectory`` keywords).
    """

    change: str
    cutoff: float
    excitation: dict


@dataclass(frozen=True)
class RoundResult:
    """One round's outcome: the :class:`Round`, its :class:`~lessonlib.dynamics.regressor.Identification`, and
    ``validation_r2``, the fit of its predicted torques to the (filtered) torques of the validation record."""

    round: Round
    fit: Identification
    validation_r2: float


def validation_fit(fit, t, Q, TAU, *, cutoff=CUTOFF_HZ, order=FILTER_ORDER, decimate=1, trim=None):
    """``R²`` (pooled over joints, per-joint means) of ``fit``'s torques on another measured record ``(t, Q, TAU)``,
    pre-processed as the identification data were ([DB4 §4.4] step 4)."""
    Qv, QDv, QDDv, TAUv = preprocess_measurements(t, Q, TAU, cutoff=cutoff, order=order, decimate=decimate, trim=trim)
    residual = TAUv - fit.predict(Qv, QDv, QDDv)
    return float(1 - (residual ** 2).sum() / ((TAUv - TAUv.mean(axis=0)) ** 2).sum())


def identify_until_fit(model, rounds, measure, validation, *, target=FIT_TARGET, order=FILTER_ORDER, decimate=1,
                       base=None, gravity=None, weights=None):
    """[DB4 §4.4] step 5: identify round after round until the validation fit reaches ``target`` (0.90).

    ``rounds`` a sequence of :class:`Round`; ``measure(round) -> (t, Q, TAU)`` runs the round's excitation on the
    arm (or :func:`simulated_record`); ``validation`` ``(t, Q, TAU)`` a record of a different trajectory, filtered
    with each round's cut-off. Returns the list of :class:`RoundResult` up to and including the first that
    reaches ``target`` (all of them if none does).
    """
    if not 0 < target <= 1:
        raise ValueError(f"target: expected a fit in (0, 1], got {target!r}")
    rounds = list(rounds)
    if not rounds or not all(isinstance(r, Round) for r in rounds):
        raise ValueError(f"rounds: expected a non-empty sequence of Round, got {rounds!r}")
    results = []
    for plan in rounds:
        t, Q, TAU = measure(plan)
        fit = identify_from_measurements(model, t, Q, TAU, cutoff=plan.cutoff, order=order, decimate=decimate,
                                         base=base, gravity=gravity, weights=weights)
        r2 = validation_fit(fit, *validation, cutoff=plan.cutoff, order=order, decimate=decimate)
        results.append(RoundResult(plan, fit, r2))
        if r2 >= target:
            break
    return results
