"""Model-based joint controllers and reference trajectories ([DB4 §4.3]).

Each controller is a function ``torque_fn(t, q, qd) -> τ_a`` for
:func:`~lessonlib.dynamics.simulate.simulate`, built from a Model — the *controller's* model,
which may differ from the simulated one (an identified or deliberately wrong model). Computed
torque also takes the inverse dynamics as a function ``τ = inverse_dynamics(q, q̇, q̈)``, e.g. an
identified base-parameter model ``τ = Y_b(q, q̇, q̈) θ_b`` ([DB4 §4.4]), which is no Model.

* :func:`gravity_compensation` — ``τ = g(q) + K_p (q_ref − q) − K_d q̇``;
  ``g(q)`` computed by: :func:`~lessonlib.dynamics.gravity_torques` (``rnea(q, 0, 0)``).
* :func:`computed_torque` — ``τ = M(q)(q̈_d + K_d ė + K_p e) + c(q, q̇) + g(q)``, ``e = q_d − q``
  ([DB4 §4.3]): the inverse dynamics with the commanded acceleration, computed by: one
  :func:`~lessonlib.dynamics.rnea` call ``rnea(q, q̇, q̈_d + K_d ė + K_p e)`` (the same as
  :func:`~lessonlib.dynamics.crba` times that acceleration plus the bias ``rnea(q, q̇, 0)``).
  With the exact model the closed loop is ``ë + K_d ė + K_p e = 0``: linear, decoupled.
* :func:`quintic` — the rest-to-rest minimum-jerk reference ``(q_d, q̇_d, q̈_d)(t)``.

Gains ``Kp``, ``Kd`` are scalars or one value per joint (diagonal gains), ≥ 0.

>>> import numpy as np
>>> from lessonlib import samples
>>> arm = samples.planar_2link()
>>> hold = gravity_compensation(arm)
>>> hold(0.0, np.zeros(2), np.zeros(2)).round(9)                  # horizontal arm: 9.81·(0.5 + 1.5), 9.81·0.5
array([19.62 ,  4.905])
"""
from __future__ import annotations

import numpy as np

from .._validate import positive
from ..model import Model
from .rnea import rnea
from .terms import gravity_torques


def _gain(K, n, name):
    """A gain as an (n,) float array (scalar broadcast), checked finite and ≥ 0.

    ``n`` None (the joint count is not known yet): a scalar stays a 0-d array, a vector any length.
    """
    count = "n" if n is None else n
    try:
        K = np.asarray(0.0 if K is None else K, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a scalar or {count} numbers >= 0, got {K!r}") from None
    if K.ndim == 0 and n is not None:
        K = np.full(n, float(K))
    shape_ok = K.ndim <= 1 if n is None else K.shape == (n,)
    if not shape_ok or not np.all(np.isfinite(K)) or np.any(K < 0):
        raise ValueError(f"{name}: expected a scalar or {count} finite values >= 0, got {K!r}")
    return K


def gravity_compensation(model, *, gravity=None, Kp=None, Kd=None, q_ref=None):
    """PD control plus gravity compensation: ``τ = g(q) + K_p (q_ref − q) − K_d q̇``.

    With ``Kp`` and ``Kd`` None the arm is weightless: it holds any pose at rest and keeps moving
    with whatever velocity it has (only ``c`` and inertia act). ``q_ref`` is required when ``Kp``
    is given. ``g(q)`` computed by: :func:`~lessonlib.dynamics.gravity_torques` (one RNEA call).
    Returns ``torque_fn(t, q, qd)``.
    """
    n = model.n
    Kp_, Kd_ = _gain(Kp, n, "Kp"), _gain(Kd, n, "Kd")
    if Kp is not None and q_ref is None:
        raise ValueError("q_ref: required when Kp is given (the pose the spring pulls toward), got None")
    q_ref = np.zeros(n) if q_ref is None else model.check_q(q_ref, "q_ref").copy()

    def torque_fn(t, q, qd):
        return gravity_torques(model, q, gravity=gravity) + Kp_ * (q_ref - q) - Kd_ * qd

    return torque_fn


def computed_torque(model, reference, Kp, Kd, *, gravity=None):
    """Computed-torque (inverse-dynamics) control of [DB4 §4.3].

    ``τ = M(q)(q̈_d + K_d ė + K_p e) + c(q, q̇) + g(q)``, ``e = q_d − q``, ``ė = q̇_d − q̇``, computed
    by: ``rnea(q, q̇, q̈_d + K_d ė + K_p e)`` — one RNEA call, O(n). ``reference(t)`` returns
    ``(q_d, q̇_d, q̈_d)``, e.g. :func:`quintic`. Critical damping: ``K_d = 2 √K_p``.
    Returns ``torque_fn(t, q, qd)``.

    ``model`` is the controller's model: a :class:`~lessonlib.model.Model` (the inverse dynamics
    is its RNEA, with ``gravity``), or any inverse dynamics ``τ = f(q, q̇, q̈)`` — an object with a
    method ``inverse_dynamics(q, qd, qdd)`` (an :class:`~lessonlib.dynamics.regressor.Identification`)
    or a callable, e.g. ``lambda q, qd, qdd: base.regressor_base(q, qd, qdd) @ theta_b``. Such a
    function carries its own gravity (``gravity`` must stay None) and is called once per step with
    the commanded acceleration; its result must have the shape of ``q``.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> from lessonlib.dynamics import crba, bias_forces
    >>> arm = samples.planar_2link()
    >>> ref = quintic([0.0, 0.0], [1.0, -0.5], 2.0)
    >>> ctrl = computed_torque(arm, ref, Kp=100.0, Kd=20.0)
    >>> q, qd = np.array([0.1, 0.2]), np.array([0.3, -0.1])
    >>> q_d, qd_d, qdd_d = ref(0.7)
    >>> v = qdd_d + 20.0 * (qd_d - qd) + 100.0 * (q_d - q)
    >>> bool(np.allclose(ctrl(0.7, q, qd), crba(arm, q) @ v + bias_forces(arm, q, qd)))
    True
    >>> by_function = computed_torque(lambda q, qd, qdd: rnea(arm, q, qd, qdd), ref, Kp=100.0, Kd=20.0)
    >>> bool(np.allclose(by_function(0.7, q, qd), ctrl(0.7, q, qd)))       # any inverse dynamics will do
    True
    """
    if not callable(reference):
        raise ValueError(f"reference: expected a function t -> (q_d, qd_d, qdd_d), got {type(reference).__name__}")
    if not isinstance(model, Model):
        return _computed_torque_with(_inverse_dynamics(model, gravity), reference, Kp, Kd)
    n = model.n
    Kp, Kd = _gain(Kp, n, "Kp"), _gain(Kd, n, "Kd")

    def torque_fn(t, q, qd):
        q_d, qd_d, qdd_d = reference(t)
        v = qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q)          # commanded acceleration
        return rnea(model, q, qd, v, gravity=gravity)

    return torque_fn


def _inverse_dynamics(dynamics, gravity):
    """The function ``(q, q̇, q̈) -> τ`` of an object with ``inverse_dynamics``, or of a callable."""
    if gravity is not None:
        raise ValueError(f"gravity: applies to a Model only (an inverse-dynamics function carries its own "
                         f"gravity); expected None, got {gravity!r}")
    method = getattr(dynamics, "inverse_dynamics", None)
    if callable(method):
        return method
    if callable(dynamics):
        return dynamics
    raise ValueError(f"model: expected a Model, an object with inverse_dynamics(q, qd, qdd) or a callable "
                     f"(q, qd, qdd) -> tau, got {type(dynamics).__name__}")


def _computed_torque_with(inverse_dynamics, reference, Kp, Kd):
    """:func:`computed_torque` around an inverse-dynamics function (n is known only at the first call)."""
    Kp, Kd = _gain(Kp, None, "Kp"), _gain(Kd, None, "Kd")

    def torque_fn(t, q, qd):
        n = len(q)
        for name, K in (("Kp", Kp), ("Kd", Kd)):
            if K.size not in (1, n):
                raise ValueError(f"{name}: expected a scalar or {n} values (one per joint), got {K.size}")
        q_d, qd_d, qdd_d = reference(t)
        v = qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q)          # commanded acceleration
        tau = np.asarray(inverse_dynamics(q, qd, v), dtype=float)
        if tau.shape != (n,):
            raise ValueError(f"model: the inverse dynamics returned shape {tau.shape}, expected ({n},) like q")
        return tau

    return torque_fn


def quintic(q0, qf, duration, *, t0=0.0):
    """Rest-to-rest minimum-jerk reference from ``q0`` to ``qf`` in ``duration`` seconds, from ``t0``.

    ``q_d(t) = q0 + (qf − q0) s(τ)``, ``τ = (t − t0)/duration`` clipped to [0, 1],
    ``s = 10τ³ − 15τ⁴ + 6τ⁵`` (the quintic with zero velocity and acceleration at both ends, which
    minimises the integral of the squared jerk). Before ``t0`` it waits at ``q0``, after the end it
    holds ``qf``. Returns ``reference(t) -> (q_d, q̇_d, q̈_d)``: each (n,) for a scalar ``t``,
    (len(t), n) for an array.

    >>> ref = quintic([0.0], [2.0], 1.0)
    >>> [x.round(6).tolist() for x in ref(0.5)]                      # half-way: peak velocity 15/8 · 2
    [[1.0], [3.75], [0.0]]
    """
    q0 = np.atleast_1d(np.asarray(q0, dtype=float))
    qf = np.atleast_1d(np.asarray(qf, dtype=float))
    if q0.ndim != 1 or q0.shape != qf.shape or not (np.all(np.isfinite(q0)) and np.all(np.isfinite(qf))):
        raise ValueError(f"q0, qf: expected two finite vectors of the same length, got shapes {q0.shape}, {qf.shape}")
    T = positive(duration, "duration")
    dq = qf - q0

    def reference(t):
        t = np.asarray(t, dtype=float)
        tau = np.clip((t - t0) / T, 0.0, 1.0)[..., None]
        moving = ((t - t0 > 0) & (t - t0 < T))[..., None]
        s = tau**3 * (10 - 15 * tau + 6 * tau**2)
        sd = np.where(moving, 30 * tau**2 * (1 - tau) ** 2 / T, 0.0)
        sdd = np.where(moving, 60 * tau * (1 - tau) * (1 - 2 * tau) / T**2, 0.0)
        return q0 + dq * s, dq * sd, dq * sdd

    return reference


def saturated(torque_fn, tau_max):
    """The controller ``torque_fn`` behind actuators that cannot exceed ``|τ_i| ≤ τ_max,i`` ([RNE05] §五).

    ``τ = clip(torque_fn(t, q, q̇), −τ_max, τ_max)``; ``tau_max`` a scalar or one limit per joint
    (N·m or N, > 0). [RNE05]: a computed torque is only a demand; when it exceeds the motor's
    limit the arm cannot follow the planned acceleration, and clipping the command does not make it
    track. With computed torque (no integral term) nothing winds up: once the demand is back inside
    the limits, the error decays as ``ë + K_d ė + K_p e = 0`` again from wherever the saturation left it.

    >>> import numpy as np
    >>> weak = saturated(lambda t, q, qd: np.array([5.0, -0.5]), tau_max=[2.0, 1.0])
    >>> weak(0.0, np.zeros(2), np.zeros(2))
    array([ 2. , -0.5])
    """
    if not callable(torque_fn):
        raise ValueError(f"torque_fn: expected a function (t, q, qd) -> tau, got {type(torque_fn).__name__}")
    limit = _gain(tau_max, None, "tau_max")
    if np.any(limit <= 0):
        raise ValueError(f"tau_max: expected limits > 0, got {tau_max!r}")

    def torque(t, q, qd):
        tau = np.asarray(torque_fn(t, q, qd), dtype=float)
        if limit.size not in (1, tau.size):
            raise ValueError(f"tau_max: expected a scalar or {tau.size} limits (one per joint), got {limit.size}")
        return np.clip(tau, -limit, limit)

    return torque
