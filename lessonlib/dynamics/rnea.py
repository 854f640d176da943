"""Inverse dynamics by the recursive Newton–Euler algorithm, spatial form (seed 000 §2.2, seed 003).

Convention: spatial vectors ``[ω; v]`` / ``[n; f]`` in body coordinates; ``X[i] = X_i_p`` maps
parent motion into body ``i``; gravity enters as the base acceleration ``a_0 = [0; −g]``;
``f_ext[i]`` is the wrench the environment applies on body ``i`` (body frame, about its origin).

Outward pass (motion), ``i = 0 .. n−1``::

    v_i = X_i_p v_p + S_i q̇_i
    a_i = X_i_p a_p + S_i q̈_i + ad(v_i) S_i q̇_i

Each body's Newton–Euler equation (local: it needs only that body's ``v_i, a_i``)::

    f_i = I_i a_i + ad*(v_i) I_i v_i − f_ext,i          (ad* = ad_dual = −adᵀ)

Inward pass (forces), ``i = n−1 .. 0``::

    f_p += X_i_pᵀ f_i,      τ_i = S_iᵀ f_i             (seed 003: the force goes back by the transpose)

Speed (about 45 µs for a 7-joint arm, see ``benchmarks/bench_dynamics.py``): the joint transforms
come from one vectorised call; the recursions — the only part that must go body by body — hold
nothing but the recursive lines (the outward pass as one affine step per body, see ``_rnea``), and
the local Newton–Euler equations and ``τ = Sᵀf`` run for all bodies at once. Inside the loops
``A.dot(x)`` is ``A @ x``: on small vectors NumPy's ``@`` costs about twice as much.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..conventions import BASE
from ..kinematics import _joint_transforms
from ._inputs import base_acceleration, state
from ._operators import ad, ad_dual, matvec

#: The outward pass carries each body's motion as one homogeneous 13-vector ``m_i = [v_i; a_i; 1]``.
_V, _A, _ONE = slice(0, 6), slice(6, 12), 12


def _rnea(model, q, qd, qdd, gravity, f_ext):
    """The passes; returns ``(tau, X, v, a, f)`` (``f`` after the inward accumulation)."""
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    S, I, parent, n = model.S, model.inertia, model.parent, model.n
    X = _joint_transforms(model, q)
    # The outward pass is one affine step per body on the motion [v_i; a_i]:
    #     v_i = X_i v_p + S_i q̇_i
    #     a_i = X_i a_p + S_i q̈_i + ad(v_i) S_i q̇_i  =  X_i a_p + S_i q̈_i − ad(S_i q̇_i) X_i v_p
    # (ad(v) S q̇ = −ad(S q̇) v, and ad(S q̇) S q̇ = 0). Appending a 1, as a 4×4 pose does for a
    # rigid motion, makes the step linear:  m_i = B_i m_p  with  m_i = [v_i; a_i; 1],
    #     B_i = [[X_i, 0, S_i q̇_i], [−ad(S_i q̇_i) X_i, X_i, S_i q̈_i], [0, 0, 1]],   m_0 = [0; a_0; 1].
    # Every B_i is built before the loop, so the recursion itself is one product per body.
    vJ = S * qd[:, None]
    B = np.zeros((n, 13, 13))
    B[:, _V, _V] = B[:, _A, _A] = X
    B[:, _A, _V] = ad(-vJ) @ X
    B[:, _V, _ONE] = vJ
    B[:, _A, _ONE] = S * qdd[:, None]
    B[:, _ONE, _ONE] = 1.0
    m_0 = np.zeros(13)
    m_0[_A] = base_acceleration(model, gravity)
    m_0[_ONE] = 1.0
    m = [None] * n
    for i in range(n):                                   # outward: motion
        p = parent[i]
        m[i] = B[i].dot(m_0 if p == BASE else m[p])
    m = np.array(m).reshape(n, 13)
    v, a = m[:, _V], m[:, _A]
    f = matvec(I, a) + matvec(ad_dual(v), matvec(I, v))    # every body's Newton–Euler equation
    if F_ext is not None:
        f -= F_ext
    for i in reversed(range(n)):                         # inward: forces
        p = parent[i]
        if p != BASE:
            f[p] += X[i].T.dot(f[i])
    tau = (S * f).sum(axis=1)                            # τ_i = S_iᵀ f_i
    return tau, X, v, a, f


def rnea(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by the spatial recursive Newton–Euler algorithm.

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` world 3-vector (None: the model's default);
    ``f_ext`` (n, 6) environment wrenches on the bodies, body frames (None: no contact).
    Returns ``tau`` (n,), the actuator torques/forces. Cost O(n).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                  # seed 003: two horizontal 1 m / 1 kg rods
    >>> rnea(arm, [0, 0], [0, 0], [0, 0], gravity=[0, -10, 0]).round(9) + 0.0
    array([20.,  5.])
    """
    return _rnea(model, q, qd, qdd, gravity, f_ext)[0]


@dataclass(frozen=True)
class RNEATrace:
    """Every intermediate value of one RNEA call (for the lessons).

    ``X`` (n, 6, 6) motion transforms ``X_i_p``; ``v``, ``a`` (n, 6) body twists and spatial
    accelerations (gravity included, as ``a_0 = [0; −g]``); ``f`` (n, 6) the wrench each body's
    joint transmits (``f_i`` after the inward pass, in body frame ``i``); ``tau`` (n,).
    """

    tau: np.ndarray
    X: np.ndarray
    v: np.ndarray
    a: np.ndarray
    f: np.ndarray


def rnea_trace(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """The same computation as :func:`rnea`, returning an :class:`RNEATrace` of every pass value."""
    return RNEATrace(*_rnea(model, q, qd, qdd, gravity, f_ext))
