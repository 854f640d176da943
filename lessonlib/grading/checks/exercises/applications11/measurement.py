"""Exercise 11 (h): measured data — the zero-phase low-pass and the pre-processing of encoder readings ([DB4 §4.4]).

The oracle of ``app-meas-filter`` is the closed form of the digital Butterworth filter, not scipy: a sum of
sinusoids comes out of a forward–backward filter with each sinusoid scaled by
``gain(f) = 1/(1 + (tan(πf/f_samp)/tan(πf_cut/f_samp))^8)`` and its phase unchanged. ``app-meas-data`` compares the
student's ``(Q_f, Q̇, Q̈, τ_f)`` with the analytic derivatives of filtered sinusoids (the same closed form), then on a
quantised, noisy record of a two-link arm with the library's pipeline (itself self-tested against the analytic
route first). Both compare the samples away from the ends of the record (``6/f_cut`` seconds dropped at each end;
``preprocess_measurements`` drops ``4/f_cut``): there the padding of the filter decides, which the exercise leaves
open.
"""
from __future__ import annotations

from functools import partial

import numpy as np
from scipy import signal

from lessonlib import samples
from lessonlib.dynamics.measurement import filtered_derivatives, simulated_record, zero_phase_lowpass
from lessonlib.dynamics.regressor import fourier_trajectory
from ... import display
from ...checker import Variant
from ._exercise import EXERCISE

ORDER = 4


def lowpass_with(x, fs, cutoff, *, passes="both", unit="Hz"):
    """The 4th-order Butterworth low-pass along axis 0, run forward and backward — or a slip: one pass forward only
    (``passes="forward"``), the cut-off given in rad/s (``unit="rad/s"``), or normalised by ``f_samp`` instead of
    the Nyquist frequency ``f_samp/2`` (``unit="fs"``)."""
    x = np.asarray(x, dtype=float)
    if unit == "rad/s":
        sos = signal.butter(ORDER, 2 * np.pi * cutoff, fs=fs, output="sos")
    elif unit == "fs":
        sos = signal.butter(ORDER, cutoff / fs, output="sos")
    else:
        sos = signal.butter(ORDER, cutoff, fs=fs, output="sos")
    return signal.sosfilt(sos, x, axis=0) if passes == "forward" else signal.sosfiltfilt(sos, x, axis=0)


def measured_with(t, Q, TAU, cutoff, *, filter_q=True, filter_tau=True, passes="both"):
    """``(Q_f, Q̇, Q̈, τ_f)``: Q and TAU through the same zero-phase low-pass, Q differentiated twice by central
    differences — or a slip: the derivatives taken of the unfiltered Q (``filter_q=False``), TAU left as measured
    (``filter_tau=False``), a one-pass filter (``passes="forward"``)."""
    t = np.asarray(t, dtype=float)
    fs = 1.0 / (t[1] - t[0])
    Q_f = lowpass_with(Q, fs, cutoff, passes=passes)
    QD = np.gradient(Q_f if filter_q else np.asarray(Q, dtype=float), t, axis=0)
    QDD = np.gradient(QD, t, axis=0)
    TAU_f = lowpass_with(TAU, fs, cutoff, passes=passes) if filter_tau else np.asarray(TAU, dtype=float)
    return Q_f, QD, QDD, TAU_f


def butterworth_gain(f, fs, cutoff):
    """``gain(f)`` of the digital (bilinear, pre-warped) Butterworth low-pass of order 4: the gain of the
    forward–backward filter, from the formula."""
    return 1.0 / (1.0 + (np.tan(np.pi * np.asarray(f) / fs) / np.tan(np.pi * cutoff / fs)) ** (2 * ORDER))


def sinusoids(ctx, t, n, fs, cutoff, ratios):
    """``n`` columns, each a sum of sinusoids at ``ratios · cutoff`` with random amplitudes and phases: the signal,
    and the closed form of what the filter and the central differences make of it (``(3, N, n)``): the filtered
    signal, its first and second difference. A central difference maps ``sin(ωt)`` to exactly
    ``f_samp sin(ω/f_samp) cos(ωt)`` (``ω`` at first order), so the oracle needs no tolerance for the differencing."""
    out = np.zeros((4, len(t), n))
    for j in range(n):
        for ratio in ratios:
            f = ratio * cutoff * ctx.rng.uniform(0.95, 1.05)
            a, phase, w = ctx.rng.uniform(0.2, 1.0), ctx.rng.uniform(0, 2 * np.pi), 2 * np.pi * f
            g = butterworth_gain(f, fs, cutoff)
            s, c = np.sin(w * t + phase), np.cos(w * t + phase)
            d = fs * np.sin(w / fs)                                   # the central difference's gain
            out[:, :, j] += a * np.array([s, g * s, g * d * c, -g * d ** 2 * s])
    return out[0], out[1:]


def setting(ctx):
    """A sample rate (Hz), a cut-off (Hz, at most 6 % of it: even 2π times it stays below Nyquist), the times of a
    record of 6 s, and the samples compared (6/f_cut seconds dropped at each end)."""
    fs = float(ctx.rng.choice([500.0, 1000.0]))
    cutoff = float(np.round(ctx.rng.uniform(5.0, 0.06 * fs), 1))
    t = np.arange(int(6 * fs)) / fs
    edge = int(np.ceil(6 / cutoff * fs))
    return fs, cutoff, t, slice(edge, len(t) - edge)


FILT_CAUSAL = Variant("your filter seems to run once, forward only (sosfilt / lfilter): that delays every "
                      "frequency (a phase lag, −180° at the cut-off for order 4) and q̈ no longer lines up with τ; "
                      "run it forward and backward (sosfiltfilt)", lowpass=partial(lowpass_with, passes="forward"))
FILT_RAD = Variant("your cut-off seems to be 2π·f_cut, a value in rad/s given where scipy expects Hz: with "
                   "fs=... butter takes the cut-off in the same unit as fs, Hz",
                   lowpass=partial(lowpass_with, unit="rad/s"))
FILT_NORMALISED = Variant("your cut-off seems to be normalised by f_samp: without fs=..., butter wants "
                          "f_cut / (f_samp/2) (a fraction of the Nyquist frequency), so f_cut / f_samp halves it; "
                          "simpler: butter(4, f_cut, fs=f_samp, output='sos')",
                          lowpass=partial(lowpass_with, unit="fs"))
DATA_TAU_RAW = Variant("your τ seems to be left unfiltered: pass TAU through the same low-pass as Q, so that every "
                       "frequency of τ is scaled like the same frequency of q̈ and nothing is shifted between them",
                       measured_data=partial(measured_with, filter_tau=False))
DATA_Q_RAW = Variant("your q̇ and q̈ seem to be differences of the unfiltered readings: each difference multiplies "
                     "noise at frequency f by about 2πf; filter Q first, then differentiate the filtered Q",
                     measured_data=partial(measured_with, filter_q=False))
DATA_CAUSAL = Variant("your Q and τ seem to be filtered once, forward only: the same delay on both is still a "
                      "phase lag against the motion the regressor is evaluated at; filter forward and backward "
                      "(your lowpass)", measured_data=partial(measured_with, passes="forward"))


@EXERCISE.check("app-meas-filter", points=1, functions=("lowpass",),
                title="the zero-phase Butterworth low-pass", variants=(FILT_CAUSAL, FILT_RAD, FILT_NORMALISED))
def check_meas_filter(ctx, lowpass):
    for n in (1, 3):
        fs, cutoff, t, inner = setting(ctx)
        x, (expected, _, _) = sinusoids(ctx, t, n, fs, cutoff, ratios=(0.3, 1.0, 1.6))
        x = x[:, 0] if n == 1 else x
        expected = expected[:, 0] if n == 1 else expected
        call = (f"lowpass(x {x.shape}, fs={fs:g}, cutoff={cutoff:g}): sinusoids at 0.3, 1 and 1.6 times the cut-off "
                f"(their gains |H|² {display.array(butterworth_gain(np.array([0.3, 1.0, 1.6]) * cutoff, fs, cutoff))})")
        got = ctx.expect_shape(f"lowpass(x) {x.shape}", ctx.call(lowpass, x, fs, cutoff), x.shape, call=call)
        ctx.expect_close(f"the filtered signal, samples {inner.start}…{inner.stop - 1} (away from the ends)",
                         got[inner], expected[inner], atol=1e-4, call=call,
                         hint="sos = scipy.signal.butter(4, cutoff, fs=fs, output='sos'); "
                              "sosfiltfilt(sos, x, axis=0): each sinusoid keeps its phase, scaled by gain(f) "
                              "(½ at the cut-off)")


@EXERCISE.check("app-meas-data", points=2, functions=("measured_data",), helpers=("lowpass",),
                title="pre-processing measured data: filtered derivatives, the same filter on τ",
                variants=(DATA_TAU_RAW, DATA_Q_RAW, DATA_CAUSAL))
def check_meas_data(ctx, measured_data, lowpass):
    names = ("Q_f", "QD", "QDD", "TAU_f")
    fs, cutoff, t, inner = setting(ctx)
    Q, (Q_f, QD, QDD) = sinusoids(ctx, t, 2, fs, cutoff, ratios=(0.05, 0.2, 0.9))
    TAU, (TAU_f, _, _) = sinusoids(ctx, t, 2, fs, cutoff, ratios=(0.1, 0.5, 2.0))
    call = (f"measured_data(t {t.shape}, Q {Q.shape}, TAU {TAU.shape}, cutoff={cutoff:g}), sample rate {fs:g} Hz: "
            f"sinusoids from 0.05 to 2 times the cut-off")
    probe = ctx.suspect(lowpass, TAU, fs, cutoff, expected=lowpass_with(TAU, fs, cutoff),
                        call=f"lowpass(TAU, fs={fs:g}, cutoff={cutoff:g})", see="app-meas-filter")
    with ctx.suspects(probe):
        got = ctx.expect_tuple(ctx.call(measured_data, t, Q, TAU, cutoff), names, call=call)
        for name, value, expected in zip(names, got, (Q_f, QD, QDD, TAU_f)):
            scale = np.abs(expected).max()
            ctx.expect_close(f"{name} (away from the ends) / {scale:.3g}",
                             np.asarray(ctx.expect_shape(name, value, Q.shape, call=call))[inner] / scale,
                             expected[inner] / scale, atol=1e-4, call=call,
                             hint="Q_f = lowpass(Q, fs, cutoff), QD = np.gradient(Q_f, t, axis=0), "
                                  "QDD = np.gradient(QD, t, axis=0), TAU_f = lowpass(TAU, fs, cutoff)")
    model = samples.seed004_2link()
    harmonics = int(min(50, cutoff / 4 / 0.1))           # the excitation's top at most a quarter of the cut-off, as
    excite = fourier_trajectory(2, harmonics=harmonics, base_freq=0.1, amplitude=0.8,      # [DB4]'s 5 Hz under 20 Hz
                                seed=int(ctx.rng.integers(2**31)))
    Q, TAU = simulated_record(model, excite, t, resolution=2 * np.pi / 2**14, torque_noise=0.5,
                              seed=int(ctx.rng.integers(2**31)))
    reference = (*filtered_derivatives(t, Q, cutoff=cutoff, order=ORDER), zero_phase_lowpass(TAU, fs, cutoff))
    _, _, qdd_exact = excite(t)
    assert np.abs(reference[2] - qdd_exact)[inner].max() < 0.05 * np.abs(qdd_exact).max() * (1 + cutoff / 10), \
        "checker self-test: the reference's q̈ against the exact one"
    call = (f"measured_data(t, Q, TAU, cutoff={cutoff:g}) on {model.name!r}: a 14-bit encoder at {fs:g} Hz, "
            f"torque noise 0.5 N·m, an excitation of 0.1–{harmonics / 10:g} Hz")
    with ctx.suspects(ctx.suspect(lowpass, TAU, fs, cutoff, expected=reference[3],
                                  call=f"lowpass(TAU, fs={fs:g}, cutoff={cutoff:g})", see="app-meas-filter")):
        got = ctx.expect_tuple(ctx.call(measured_data, t, Q, TAU, cutoff), names, call=call)
        for name, value, expected in zip(names, got, reference):
            scale = np.abs(expected[inner]).max()
            ctx.expect_close(f"{name} (away from the ends) / {scale:.3g}",
                             np.asarray(ctx.expect_shape(name, value, Q.shape, call=call))[inner] / scale,
                             expected[inner] / scale, atol=1e-6, call=call)
