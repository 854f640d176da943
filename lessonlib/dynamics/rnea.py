"""Inverse dynamics by the recursive Newton–Euler algorithm, spatial form ([WJ §2.2], [RNE05]).

Convention (``course/NOTATION.md``, lesson 05): bodies and joints ``i = 1 .. n``, entry ``i-1`` of every
array (``q[i-1]`` is ``q_i``); 6-vectors of body ``i`` in body frame ``{i}``, about its origin ``O_i``:
twists ``V_i = [ω; v]``, spatial accelerations ``A_i``, wrenches ``F_i = [μ; f]``; ``X_i =
Ad(T_{i,parent(i)})`` maps the parent's motion into ``{i}`` and ``X_iᵀ`` carries wrenches back; ``S_i``
is joint ``i``'s screw (``model.S[i-1]``) and ``𝓘_i`` body ``i``'s spatial inertia about ``O_i``
(``model.inertia[i-1]``); gravity enters as the base acceleration ``A_0 = [0; −g_phys]``;
``f_ext[i-1] = F^ext_i`` is the wrench the environment applies on body ``i``, in body frame ``{i}``,
moment about ``O_i``.

Outward pass (motion), ``i = 1 .. n`` (``V_0 = 0``; ``p = parent(i)``)::

    V_i = X_i V_p + S_i q̇_i
    A_i = X_i A_p + S_i q̈_i + V_i × S_i q̇_i                 (V× = ad(V))

Each body's Newton–Euler equation (local: it needs only that body's ``V_i, A_i``)::

    F^self_i = 𝓘_i A_i + V_i ×* 𝓘_i V_i − F^ext_i            (V×* = ad*(V) = −ad(V)ᵀ)

Inward pass (forces), ``i = n .. 1``: ``F_i`` starts as ``F^self_i`` and, once every child has added
its share, is complete::

    F_p += X_iᵀ F_i               ([RNE05]: the force goes back by the transpose)
    τ_i = S_iᵀ F_i

What the code is. :func:`_rnea` runs these passes as two outward loops (velocities, then
accelerations) and one inward loop, and computes everything that is local to one body for all
bodies at once, outside the loops: the joint transforms ``X_i`` (:func:`~lessonlib.kinematics.joint_transforms`,
Rodrigues' formula on every joint in one pass), the joint rates ``S_i q̇_i``, the joint's own
acceleration terms ``S_i q̈_i + V_i × S_i q̇_i`` (they need only ``V_i``, hence the velocity loop first),
the Newton–Euler equations (reusing ``ad(V_i)`` as ``ad*(V_i) = −ad(V_i)ᵀ``) and the torques
``S_iᵀ F_i`` once the inward loop has summed every ``F_i``. Each loop starts a body from its own terms
and adds what its parent passes on (``V_i = S_i q̇_i``, then ``V_i += X_i V_p``). Inside the loops
``A.dot(x)`` is ``A @ x`` (on 6-vectors NumPy's ``@`` costs about twice as much), the loops index
Python lists (``v_rows`` holds the rows of ``v``: adding to a row adds to ``v``), and ``X_iᵀ F_i`` is
computed as the row ``F_iᵀ X_i``. The code's names: ``v, a, f`` for ``V, A, F`` (``f`` holds
``F^self_i`` before the inward loop, ``F_i`` after it), ``I`` for ``𝓘``, ``a_0`` for ``A_0``,
``F_ext`` for the checked ``f_ext``, ``vJ`` for ``S_i q̇_i``.

The equations are those of Featherstone's ``ID.m`` ([Featherstone 2008] §5.3, Table 5.1); the
code is organised as above, not as ``ID.m``'s single outward loop (``jcalc``, ``Xup``, ``v``, ``a``,
``f`` of each body in turn) and inward loop. ``ID.m`` also takes the external forces in base
coordinates; this function takes them in body coordinates (above). :mod:`lessonlib.batch` runs
the same passes over whole trajectories.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._operators import ad, matvec, vecdot
from ..conventions import BASE
from ..kinematics import joint_transforms
from ._inputs import base_acceleration, state


def _rnea(model, q, qd, qdd, gravity, f_ext):
    """The passes; returns ``(tau, X, v, a, f)``: ``τ``, the ``X_i`` (a list), ``V_i``, ``A_i`` and ``F_i``
    (``f`` after the inward accumulation), row ``i-1`` for body ``i``."""
    q, qd, qdd = state(model, q, qd, qdd)
    F_ext = model.check_f_ext(f_ext)
    S, I, parent, n = model.S, model.inertia, model.parent, model.n
    X = list(joint_transforms(model, q, checked=False))       # X_i of every joint (q checked above)
    a_0 = base_acceleration(model, gravity)
    vJ = S * qd[:, None]                                       # S_i q̇_i of every joint
    v = vJ.copy()
    v_rows = list(v)
    for i in range(n):                                         # outward: velocities (row i is body i+1)
        p = parent[i]
        if p != BASE:
            v_rows[i] += X[i].dot(v_rows[p])                   # V_i = X_i V_p + S_i q̇_i
    ad_v = ad(v)
    a = S * qdd[:, None] + matvec(ad_v, vJ)                    # S_i q̈_i + ad(V_i) S_i q̇_i, every body at once
    a_rows = list(a)
    for i in range(n):                                         # outward: accelerations
        p = parent[i]
        a_rows[i] += X[i].dot(a_0 if p == BASE else a_rows[p])  # A_i = X_i A_p + S_i q̈_i + ad(V_i) S_i q̇_i
    f = matvec(I, a) - matvec(ad_v.transpose(0, 2, 1), matvec(I, v))   # 𝓘_i A_i + ad*(V_i) 𝓘_i V_i, every body
    if F_ext is not None:
        f -= F_ext
    f_rows = list(f)
    for i in reversed(range(n)):                               # inward: forces
        p = parent[i]
        if p != BASE:
            f_rows[p] += f_rows[i].dot(X[i])                   # F_p += X_iᵀ F_i
    tau = vecdot(S, f)                                         # τ_i = S_iᵀ F_i, every joint at once
    return tau, X, v, a, f


def rnea(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """Joint torques ``τ = ID(q, q̇, q̈)`` by the spatial recursive Newton–Euler algorithm.

    Parameters: ``q, qd, qdd`` (n,); ``gravity`` ``g_phys``, a world 3-vector (None: the model's
    default); ``f_ext`` (n, 6): ``f_ext[i-1] = F^ext_i = [μ; f]`` is the wrench the environment applies
    on body ``i``, in body frame ``{i}``, moment about its origin ``O_i`` (None: no contact). Returns
    ``tau`` (n,), the actuator torques/forces. Cost O(n).

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

    Row ``i-1`` of each array is body (joint) ``i``. ``X`` (n, 6, 6) motion transforms ``X_i``; ``v``
    (n, 6) body twists ``V_i``; ``a`` (n, 6) spatial accelerations ``A_i`` (gravity included, as
    ``A_0 = [0; −g_phys]``); ``f`` (n, 6) ``F_i``, the wrench joint ``i`` transmits to body ``i`` (after
    the inward pass, in body frame ``{i}``, about ``O_i``); ``tau`` (n,) ``τ``.
    """

    tau: np.ndarray
    X: np.ndarray
    v: np.ndarray
    a: np.ndarray
    f: np.ndarray


def rnea_trace(model, q, qd, qdd, *, gravity=None, f_ext=None):
    """The same computation as :func:`rnea`, returning an :class:`RNEATrace` of every pass value.

    Arguments as for :func:`rnea`: ``f_ext[i-1] = F^ext_i`` the environment's wrench on body ``i``, in
    body frame ``{i}``, moment about ``O_i``; the trace's ``f[i-1] = F_i`` is in body frame ``{i}`` too.
    """
    tau, X, v, a, f = _rnea(model, q, qd, qdd, gravity, f_ext)
    return RNEATrace(tau, np.array(X), v, a, f)
