"""Input validation (the Lie-group modules :mod:`lessonlib.so3`, :mod:`lessonlib.se3`, and every positive
size or duration a caller gives): not mathematics.

Each function turns an argument into a float array (or float) of the expected shape, or raises
``ValueError`` naming the argument, what was expected and what it got.

>>> vector([1, 2, 3], 3, "w")
array([1., 2., 3.])
>>> vector([1, 2], 3, "w")
Traceback (most recent call last):
...
ValueError: w: expected a 3-vector, got shape (2,)
"""
from __future__ import annotations

import math

import numpy as np

from .conventions import ROTATION_TOL


def float_array(x, name, what):
    """``x`` as a float array, or ValueError naming ``name`` if it holds no real numbers."""
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected {what} of real numbers, got {x!r} ({err})") from None


def check_finite(a, name):
    """ValueError unless every entry of the float array ``a`` is finite."""
    if not np.isfinite(a).all():
        raise ValueError(f"{name}: expected finite values, got nan/inf in {a.tolist()}")


def vector(x, n, name):
    """Validated float n-vector (shape ``(n,)``, finite)."""
    a = float_array(x, name, f"a {n}-vector")
    if a.shape != (n,):
        raise ValueError(f"{name}: expected a {n}-vector, got shape {a.shape}")
    if not math.isfinite(sum(a.tolist())):        # cheap: a nan/inf makes the sum non-finite
        check_finite(a, name)
    return a


def matrix(x, shape, name):
    """Validated float matrix of the given shape (finite)."""
    a = float_array(x, name, f"a {shape[0]}x{shape[1]} matrix")
    if a.shape != shape:
        raise ValueError(f"{name}: expected a {shape[0]}x{shape[1]} matrix, got shape {a.shape}")
    if not math.isfinite(sum(a.ravel().tolist())):      # cheap: a nan/inf makes the sum non-finite
        check_finite(a, name)
    return a


def scalar(x, name):
    """Validated finite float."""
    if np.ndim(x) != 0:
        raise ValueError(f"{name}: expected a scalar, got shape {np.shape(x)}")
    try:
        value = float(x)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected a real scalar, got {x!r} ({err})") from None
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite scalar, got {value}")
    return value


def positive(x, name, expected="a finite number > 0"):
    """Validated finite float > 0 (a step, a duration, a rate, a length); the message says ``expected``.

    >>> positive("0.5", "dt")
    0.5
    >>> positive(float("nan"), "dt")
    Traceback (most recent call last):
    ...
    ValueError: dt: expected a finite number > 0, got nan
    """
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected {expected}, got {x!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name}: expected {expected}, got {x!r}")
    return value


def check_skew(W, name):
    """ValueError unless the float 3x3 ``W`` is skew-symmetric (to ROTATION_TOL, relative)."""
    asym = np.abs(W + W.T).max()
    if asym > ROTATION_TOL * max(1.0, np.abs(W).max()):
        raise ValueError(f"{name}: expected a skew-symmetric 3x3 matrix (W = -Wᵀ), "
                         f"got max|W + Wᵀ| = {asym:.3g}")
