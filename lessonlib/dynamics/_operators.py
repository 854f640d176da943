"""Unvalidated ``ad`` / ``ad_dual`` for the algorithms' inner loops (not an algorithm).

:func:`lessonlib.se3.ad` validates its argument (about 9 µs a call); inside a recursion the twist
is an array the algorithm has just computed, so the check is wasted. Since ``ad(ξ)`` is **linear**
in ``ξ``, ``ad(ξ) = Σ_k ξ_k ad(e_k)``, one matrix product with the six basis matrices — built once,
by ``se3.ad`` itself, so the convention still lives in one place — gives it in about 1 µs, and works
on a stack of twists ``(..., 6) → (..., 6, 6)`` too.

>>> import numpy as np
>>> from lessonlib import se3
>>> xi = np.array([0.1, -0.2, 0.3, 1.0, 2.0, -1.0])
>>> bool(np.array_equal(ad(xi), se3.ad(xi))), bool(np.array_equal(ad_dual(xi), se3.ad_dual(xi)))
(True, True)
"""
from __future__ import annotations

import numpy as np

from .. import se3

_BASIS = np.eye(6)
#: ad(e_k) and ad*(e_k) for the six unit twists, flattened: row k is ad(e_k).ravel().
_AD_BASIS = np.array([se3.ad(e) for e in _BASIS]).reshape(6, 36)
_AD_DUAL_BASIS = np.array([se3.ad_dual(e) for e in _BASIS]).reshape(6, 36)
_AD_BASIS.setflags(write=False)
_AD_DUAL_BASIS.setflags(write=False)


def ad(xi):
    """``ad(ξ)`` (6×6; a stack (..., 6) gives (..., 6, 6)) for a float array the caller has checked."""
    return xi.dot(_AD_BASIS).reshape(xi.shape[:-1] + (6, 6))


def ad_dual(xi):
    """``ad*(ξ) = −ad(ξ)ᵀ`` (6×6; stacks too) for a float array the caller has checked."""
    return xi.dot(_AD_DUAL_BASIS).reshape(xi.shape[:-1] + (6, 6))


def matvec(M, x):
    """``M_i x_i`` for every body ``i``: stacked matrices (n, k, k) times stacked vectors (n, k)."""
    return (M @ x[..., None])[..., 0]
