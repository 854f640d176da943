"""The scalar coefficients of the closed forms of SO(3)'s exponential and its Jacobians.

With ``θ = |φ|`` and ``W = [φ]``, every series of :mod:`lessonlib.so3` (and the SE(3) blocks built
from them in :mod:`lessonlib.se3`) collapses to ``I + k₁ W + k₂ W²`` because ``W³ = −θ² W``
(Rodrigues)::

    exp(φ)       = I + a W + b W²
    J_l(φ)       = I + b W + c W²
    J_l(φ)⁻¹     = I − ½ W + d W²
    a = sin θ/θ,   b = (1 − cos θ)/θ²,   c = (θ − sin θ)/θ³,
    d = 1/θ² − (1 + cos θ)/(2θ sin θ)                   (singular at θ = 2π)

and the SE(3) coupling block needs the derivatives ``b′/θ = (a − 2b)/θ²``, ``c′/θ = (b − 3c)/θ²``.

Accuracy. ``a`` and ``b`` have cancellation-free forms (``b = ½ a(θ/2)²``) and only need a guard at
``θ = 0``. ``c``, ``b′/θ`` and ``c′/θ`` cancel catastrophically near 0 (relative error ~ 10 eps/θ²),
so below :data:`SERIES_BELOW` they use their Taylor series (alternating, entire: 12 terms leave a
truncation < 1e-18 at θ = 2.5). ``d = −(b′/θ)/(2b)`` inherits their accuracy without a series.
Measured against 50-digit arithmetic: relative error < 1e-15 for all θ in (0, π].

>>> round(a(0.0), 15), round(b(0.0), 15), round(c(0.0), 15)          # 1, 1/2, 1/6 at θ = 0
(1.0, 0.5, 0.166666666666667)
"""
from __future__ import annotations

import math

from .conventions import SMALL_ANGLE

#: Below this θ the cancelling coefficients use their Taylor series.
SERIES_BELOW = 2.5
_C_SERIES = tuple((-1) ** k / math.factorial(2 * k + 3) for k in range(12))
_DB_SERIES = tuple((-1) ** k * 2 * k / math.factorial(2 * k + 2) for k in range(1, 13))
_DC_SERIES = tuple((-1) ** k * 2 * k / math.factorial(2 * k + 3) for k in range(1, 13))


def _series(theta2, coeffs):
    """Σ coeffs[k] θ^(2k) by Horner's rule in θ²."""
    total = 0.0
    for coefficient in reversed(coeffs):
        total = total * theta2 + coefficient
    return total


def a(theta):
    """sin θ / θ."""
    if theta < SMALL_ANGLE:
        return 1.0 - theta * theta / 6.0
    return math.sin(theta) / theta


def b(theta):
    """(1 − cos θ)/θ², computed as ½ (sin(θ/2)/(θ/2))² (no cancellation)."""
    half = a(0.5 * theta)
    return 0.5 * half * half


def c(theta):
    """(θ − sin θ)/θ³."""
    if theta < SERIES_BELOW:
        return _series(theta * theta, _C_SERIES)
    return (theta - math.sin(theta)) / theta ** 3


def db(theta):
    """b′(θ)/θ = (a − 2b)/θ²."""
    if theta < SERIES_BELOW:
        return _series(theta * theta, _DB_SERIES)
    return (a(theta) - 2.0 * b(theta)) / (theta * theta)


def dc(theta):
    """c′(θ)/θ = (b − 3c)/θ²."""
    if theta < SERIES_BELOW:
        return _series(theta * theta, _DC_SERIES)
    return (b(theta) - 3.0 * c(theta)) / (theta * theta)


def d(theta):
    """1/θ² − (1 + cos θ)/(2θ sin θ) = −(b′/θ)/(2b); singular at θ = 2π."""
    return -db(theta) / (2.0 * b(theta))
