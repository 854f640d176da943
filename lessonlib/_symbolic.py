"""Sympy plumbing of the Lie-group modules (:mod:`lessonlib.so3`, :mod:`lessonlib.se3`): not mathematics.

The Lie-group functions accept sympy input (a sympy object, or a list / object array that holds
one) and then return sympy matrices; these helpers recognise such input and bring it into shape.
Sympy is imported only when symbolic input arrives.

>>> import sympy as sp
>>> is_symbolic([0, 0, sp.Symbol("t")]), is_symbolic([0.0, 1.0, 2.0])
(True, False)
>>> sym_vector([1.0, 0, 2], 3, "w").T                # integer-valued floats become integers
Matrix([[1, 0, 2]])
"""
from __future__ import annotations

import math

import numpy as np


def is_symbolic(x):
    """True if ``x`` is a sympy object or a list / tuple / object array that holds one."""
    if isinstance(x, np.ndarray):
        return x.dtype == object and any(is_symbolic(e) for e in x.flat)
    if isinstance(x, (list, tuple)):
        return any(is_symbolic(e) for e in x)
    return type(x).__module__.startswith("sympy")


def clean(e):
    """Sympy expression; integer-valued floats become exact integers (1.0 → 1): tidy output."""
    import sympy as sp
    e = sp.sympify(e)
    whole = {f: sp.Integer(int(f)) for f in e.atoms(sp.Float) if float(f).is_integer()}
    return e.xreplace(whole) if whole else e


def sym_vector(x, n, name):
    """Sympy column n-vector from a list, array or 1-row / 1-column sympy Matrix."""
    import sympy as sp
    try:
        v = sp.Matrix(x)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected a {n}-vector, got {x!r} ({err})") from None
    if v.shape not in ((n, 1), (1, n)):
        raise ValueError(f"{name}: expected a {n}-vector, got shape {v.shape}")
    return v.reshape(n, 1).applyfunc(clean)


def sym_matrix(x, shape, name):
    """Sympy matrix of the given shape."""
    import sympy as sp
    try:
        M = sp.Matrix(x)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected a {shape[0]}x{shape[1]} matrix, "
                         f"got {x!r} ({err})") from None
    if M.shape != shape:
        raise ValueError(f"{name}: expected a {shape[0]}x{shape[1]} matrix, got shape {M.shape}")
    return M.applyfunc(clean)


def numeric_norm(v):
    """Float norm of a sympy vector whose entries are numbers, else None (cannot be checked)."""
    if v.free_symbols:
        return None
    return math.sqrt(sum(float(e) ** 2 for e in v))


def times(s, k):
    """s·k, leaving s untouched when k is exactly 1."""
    return s if k == 1 else s * k


def factor_angle(x, name):
    """Write a sympy vector as ``r · s`` with numeric ratios ``r`` and one scalar expression ``s``.

    Returns ``(r, s)``, or ``(None, None)`` when every entry is zero; ValueError when the entries
    are not numeric multiples of one expression (e.g. ``[a, b, 0]`` with two symbols).
    """
    import sympy as sp
    nonzero = [e for e in x if e != 0]
    if not nonzero:
        return None, None
    s = nonzero[0]
    r = x.applyfunc(lambda e: sp.simplify(e / s))
    if r.free_symbols:
        raise ValueError(f"{name}: cannot write {list(x)} as (numeric unit axis) x (angle); "
                         "call exp(axis, angle) with the axis and the angle separately")
    return r.applyfunc(clean), s
