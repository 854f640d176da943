"""Inverse dynamics by the recursive Newton–Euler algorithm, spatial form ([WJ §2.2], [RNE05]).

Convention: spatial vectors ``[ω; v]`` / ``[n; f]`` in body coordinates; ``X[i] = X_i_p`` maps
parent motion into body ``i``; gravity enters as the base acceleration ``a_0 = [0; −g]``;
``f_ext[i]`` is the wrench the environment applies on body ``i`` (body frame, about its origin).

Outward pass (motion), ``i = 0 .. n−1`` (parent ``p``; the base has ``v = 0``, ``a = a_0``)::

    v_i = X_i v_p + S_i q̇_i
    a_i = X_i a_p + S_i q̈_i + ad(v_i) S_i q̇_i

Each body's Newton–Euler equation (local: it needs only that body's ``v_i, a_i``)::

    f_i = I_i a_i + ad*(v_i) I_i v_i − f_ext,i          (ad* = ad_dual = −adᵀ)

Inward pass (forces), ``i = n−1 .. 0``::

    f_p += X_iᵀ f_i               ([RNE05]: the force goes back by the transpose)

and then, every ``f_i`` being complete, ``τ_i = S_iᵀ f_i``.

The equations are those of Featherstone's ``ID.m`` ([Featherstone 2008] §5.3, Table 5.1), but the
code is not a line-by-line transcription of it. ``ID.m`` runs one outward loop (``jcalc``, ``Xup``,
``v``, ``a``, ``f`` of each body in turn) and one inward loop that computes ``τ_i`` as it passes; here,
for speed, everything that is local to one body is computed for all bodies at once, outside the
loops: the joint transforms (:func:`~lessonlib.kinematics.joint_transforms`, Rodrigues' formula on
every joint in one pass), the joint rates ``S_i q̇_i``, the joint's own acceleration terms
``S_i q̈_i + ad(v_i) S_i q̇_i`` (they need only ``v_i``, so the outward pass is a velocity loop and
then an acceleration loop), the Newton–Euler equations (reusing ``ad(v_i)`` as
``ad*(v_i) = −ad(v_i)ᵀ``) and the torques ``S_iᵀ f_i`` once the inward loop has summed every
``f_i``. Each loop starts a body from its own terms and adds what its parent passes on
(``v_i = S_i q̇_i``, then ``v_i += X_i v_p``); inside the loops ``A.dot(x)`` is ``A @ x`` (on
6-vectors NumPy's ``@`` costs about twice as much), the loops index Python lists (``v_rows`` holds
the rows of ``v``: adding to a row adds to ``v``), and ``X_iᵀ f_i`` is computed as the row
``f_iᵀ X_i``. One more difference: ``ID.m`` takes the external forces in base coordinates, this
function in body coordinates (above). :mod:`lessonlib.batch` runs the same passes over whole
trajectories.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._operators import ad, matvec, vecdot
from ..conventions import BASE
from ..kinematics import joint_transforms
from ._inputs import base_acceleration, state


def _rnea(model, q, qd, qdd, gravity, f_ext):
    """The passes; returns ``(tau, X, v, a, f)`` (``X`` a list; ``f`` after the inward accumulation)."""
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    S, I, parent, n = model.S, model.inertia, model.parent, model.n
    X = list(joint_transforms(model, q, checked=False))       # X_i of every joint (q checked above)
    a_0 = base_acceleration(model, gravity)
    vJ = S * qd[:, None]                                       # S_i q̇_i of every joint
    v = vJ.copy()
    v_rows = list(v)
    for i in range(n):                                         # outward: velocities
        p = parent[i]
        if p != BASE:
            v_rows[i] += X[i].dot(v_rows[p])                   # v_i = X_i v_p + S_i q̇_i
    ad_v = ad(v)
    a = S * qdd[:, None] + matvec(ad_v, vJ)                    # S_i q̈_i + ad(v_i) S_i q̇_i, every body at once
    a_rows = list(a)
    for i in range(n):                                         # outward: accelerations
        p = parent[i]
        a_rows[i] += X[i].dot(a_0 if p == BASE else a_rows[p])  # a_i = X_i a_p + S_i q̈_i + ad(v_i) S_i q̇_i
    f = matvec(I, a) - matvec(ad_v.transpose(0, 2, 1), matvec(I, v))   # I_i a_i + ad*(v_i) I_i v_i, every body
    if F_ext is not None:
        f -= F_ext
    f_rows = list(f)
    for i in reversed(range(n)):                               # inward: forces
        p = parent[i]
        if p != BASE:
            f_rows[p] += f_rows[i].dot(X[i])                   # f_p += X_iᵀ f_i
    tau = vecdot(S, f)                                         # τ_i = S_iᵀ f_i, every joint at once
    return tau, X, v, a, f


def rnea(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by the spatial recursive Newton–Euler algorithm.

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` world 3-vector (None: the model's default);
    ``f_ext`` (n, 6): ``f_ext[i] = [n; f]`` is the wrench the environment applies on body ``i``, in
    body frame ``i``, moment about its origin (None: no contact). Returns ``tau`` (n,), the actuator
    torques/forces. Cost O(n).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                  # [RNE05]: two horizontal 1 m / 1 kg rods
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
    """The same computation as :func:`rnea`, returning an :class:`RNEATrace` of every pass value.

    Arguments as for :func:`rnea`: ``f_ext[i]`` the environment's wrench on body ``i``, in body frame
    ``i``, moment about its origin; the trace's ``f[i]`` is in body frame ``i`` too.
    """
    tau, X, v, a, f = _rnea(model, q, qd, qdd, gravity, f_ext)
    return RNEATrace(tau, np.array(X), v, a, f)
