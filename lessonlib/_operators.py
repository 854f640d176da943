"""Unchecked spatial operators for the algorithms' inner loops: the fast twins of :mod:`so3` / :mod:`se3`.

The public :func:`lessonlib.so3.hat`, :func:`lessonlib.se3.ad`, … validate their argument (a few
µs a call) and read like their formulas. Inside a recursion the argument is an array the algorithm
has just computed, so the check is wasted; these versions skip it, and every one of them also
takes a **stack** ``(..., 6)`` of twists (or ``(..., 4, 4)`` of poses) and returns a stack of
matrices. They are defined from the checked twins — the six basis matrices ``ad(e_k)`` are built by
:func:`lessonlib.se3.ad` itself — so the course's conventions live in one place, and
``tests/test_operators.py`` checks each against its twin on random inputs.

``ad`` and ``ad_dual`` are linear in the twist, ``ad(ξ) = Σ_k ξ_k ad(e_k)``: one matrix product
with the basis gives them (about 1 µs for one twist).

>>> import numpy as np
>>> from lessonlib import se3
>>> xi = np.array([0.1, -0.2, 0.3, 1.0, 2.0, -1.0])
>>> bool(np.array_equal(ad(xi), se3.ad(xi))), bool(np.array_equal(ad_dual(xi), se3.ad_dual(xi)))
(True, True)
>>> T = se3.exp(xi)
>>> bool(np.allclose(Ad(T), se3.Ad(T))), bool(np.allclose(Ad_inv(T), se3.Ad(se3.inv(T))))
(True, True)
"""
from __future__ import annotations

import numpy as np

from . import se3, so3
from .conventions import ANG, LIN

#: hat(e_k) (k = 0..2) and ad(e_k), ad*(e_k) (k = 0..5), flattened: row k is the k-th basis matrix.
_HAT_BASIS = np.array([so3.hat(e) for e in np.eye(3)]).reshape(3, 9)
_AD_BASIS = np.array([se3.ad(e) for e in np.eye(6)]).reshape(6, 36)
_AD_DUAL_BASIS = np.array([se3.ad_dual(e) for e in np.eye(6)]).reshape(6, 36)
for _basis in (_HAT_BASIS, _AD_BASIS, _AD_DUAL_BASIS):
    _basis.setflags(write=False)


def skew(w):
    """``[ω]`` (3×3) of a 3-vector, or a stack (..., 3) → (..., 3, 3): :func:`lessonlib.so3.hat`."""
    return w.dot(_HAT_BASIS).reshape(w.shape[:-1] + (3, 3))


def ad(xi):
    """``ad(ξ)`` (6×6) of a twist, or a stack (..., 6) → (..., 6, 6): :func:`lessonlib.se3.ad`."""
    return xi.dot(_AD_BASIS).reshape(xi.shape[:-1] + (6, 6))


def ad_dual(xi):
    """``ad*(ξ) = −ad(ξ)ᵀ`` (6×6, stacks too): :func:`lessonlib.se3.ad_dual`."""
    return xi.dot(_AD_DUAL_BASIS).reshape(xi.shape[:-1] + (6, 6))


def bracket(x, y):
    """The Lie bracket ``[x, y] = ad(x) y`` of two twists (or of two stacks (..., 6), pairwise)."""
    return (ad(x) @ y[..., None])[..., 0]


def rot6(R):
    """``diag(R, R)`` (6×6, stacks too): ``Ad`` of a pure rotation, which turns both halves of a
    spatial vector into other axes (same reference point)."""
    X = np.zeros(R.shape[:-2] + (6, 6))
    X[..., ANG, ANG] = X[..., LIN, LIN] = R
    return X


def Ad(T):
    """``Ad(T) = [[R, 0], [[p]R, R]]`` of a pose (4×4, stacks too): :func:`lessonlib.se3.Ad`."""
    X = rot6(T[..., :3, :3])
    X[..., LIN, ANG] = skew(T[..., :3, 3]) @ T[..., :3, :3]
    return X


def Ad_inv(T):
    """``Ad(T⁻¹) = [[Rᵀ, 0], [−Rᵀ[p], Rᵀ]]`` of a pose (4×4, stacks too): ``se3.Ad(se3.inv(T))``.

    The library's one writing of this matrix — Featherstone's motion transform ``X_B_A`` for
    ``T = T_A_B`` (:func:`lessonlib.spatial.plucker`), the joint transforms ``X_i_p`` and every change
    of a twist into a body's frame use it.
    """
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    X = rot6(Rt)
    X[..., LIN, ANG] = -Rt @ skew(T[..., :3, 3])
    return X


def matvec(M, x):
    """``M_i x_i`` for every ``i``: stacked matrices (n, k, k) times stacked vectors (n, k)."""
    return _matvec(M, x)


def vecdot(x, y):
    """``x_iᵀ y_i`` for every ``i``: two stacks of vectors (n, k) → (n,)."""
    return _vecdot(x, y)


def _matvec_by_matmul(M, x):
    return (M @ x[..., None])[..., 0]


def _vecdot_by_sum(x, y):
    return (x * y).sum(axis=-1)


#: NumPy 2.2 has ``matvec`` and NumPy 2.0 ``vecdot`` as generalized ufuncs: the same sums of products in
#: one call, which on the recursions' small stacks costs a third less; older NumPy gets the same values
#: by a product with a column and by a sum.
_matvec = getattr(np, "matvec", _matvec_by_matmul)
_vecdot = getattr(np, "vecdot", _vecdot_by_sum)
