"""External-torque estimation with the generalized-momentum observer ([DB4 §4.3]; [De Luca & Mattone 2005]).

[DB4 §4.3] lists the external torque among the terms of the standard form and says that an observer
can estimate it. The observer of [De Luca & Mattone 2005] needs only what the controller already
has — the joint positions and velocities, the commanded joint torques and the model ``M, C, g`` —
and no joint acceleration and no force sensor.

Convention (the course's sign, [WJ]): ``M q̈ + C(q, q̇) q̇ + g + τ_f = τ + τ_ext`` with
``τ_ext = Jᵀ F`` the torques of the wrench ``F`` that the **environment applies on the robot**
(``f_ext`` of the algorithms). [DB4] writes ``M q̈ + C q̇ + G + τ_f + τ_ext = τ``: its ``τ_ext`` is
the load the robot must overcome, ``τ_ext[DB4] = −τ_ext`` here.

Generalized momentum ``p = M(q) q̇``. With the Christoffel ``C`` (:func:`~lessonlib.dynamics.coriolis_matrix`,
for which ``Ṁ = C + Cᵀ``)::

    ṗ = Ṁ q̇ + M q̈ = τ + Cᵀ q̇ − g − τ_f + τ_ext

so ``ṗ`` is known up to ``τ_ext``, without ``q̈``. The residual ::

    r(t) = K (p(t) − ∫₀ᵗ (τ + Cᵀ q̇ − g − τ_f + r) ds − p(0))

obeys ``ṙ = K (τ_ext − r)``: each joint's ``r_i`` follows ``τ_ext,i`` as a first-order low-pass
filter with time constant ``1/K_i`` (``K`` diagonal, > 0). Without contact ``r ≈ 0``; a collision
is flagged when ``|r_i|`` exceeds a threshold (set above the model and sensor errors).

Discrete time (sample time ``dt``): with ``h = Cᵀ q̇ − g − τ_f`` (a function of the measured state)
and ``τ̄_k`` the joint torque over the sample, the integral is accumulated as
``I_{k+1} = I_k + dt (τ̄_k + ½ (h_k + h_{k+1}) + r_k)`` (trapezoid rule for ``h``, the residual
held), then ``r_{k+1} = K (p_{k+1} − I_{k+1} − p_0)``; for ``K dt ≪ 1`` the residual's pole is
``1 − K dt ≈ e^{−K dt}``.

* :func:`observer_start`, :func:`observer_step` — the observer one sample at a time (a controller,
  or a lesson that pushes the arm live);
* :func:`run_observer` — the observer over a recorded trajectory (``t, q, q̇, τ``);
* :func:`push_and_observe` — a simulation in which a wrench pushes a body for a while, with the
  true ``τ_ext = Jᵀ F`` and the observer's estimate side by side.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..conventions import ANG, BASE, LIN, spatial_vector
from ..kinematics import fk, jacobian, resolve_body
from .crba import crba
from .simulate import simulate
from .terms import coriolis_matrix, gravity_torques


@dataclass(frozen=True)
class ObserverState:
    """The observer's memory at sample ``k``: ``p0 = M(q_0) q̇_0``, the integral ``I_k``, the residual
    ``r_k`` (≈ ``τ_ext``) and ``h = Cᵀ q̇ − g − τ_f`` at the sample's state."""

    p0: np.ndarray
    integral: np.ndarray
    r: np.ndarray
    h: np.ndarray


def _gain(K, n):
    K = np.asarray(K, dtype=float)
    K = np.full(n, float(K)) if K.ndim == 0 else K
    if K.shape != (n,) or not np.all(np.isfinite(K)) or np.any(K <= 0):
        raise ValueError(f"K: expected a scalar or {n} finite gains > 0 (1/s), got {K!r}")
    return K


def _state_rate(model, q, qd, gravity, friction):
    """``h = Cᵀ q̇ − g − τ_f``: the part of ``ṗ`` that depends on the state only."""
    h = coriolis_matrix(model, q, qd).T @ qd - gravity_torques(model, q, gravity=gravity)
    if friction is not None:
        h = h - np.asarray(friction(qd), dtype=float)
    return h


def observer_start(model, q0, qd0, *, gravity=None, friction=None):
    """The observer at the first sample: ``p0 = M(q0) q̇0``, ``I = 0``, ``r = 0``, ``h(q0, q̇0)``."""
    q0, qd0 = model.check_q(q0, "q0"), model.check_q(qd0, "qd0")
    n = model.n
    return ObserverState(p0=crba(model, q0) @ qd0, integral=np.zeros(n), r=np.zeros(n),
                         h=_state_rate(model, q0, qd0, gravity, friction))


def observer_step(model, state, tau, q_next, qd_next, dt, *, K, gravity=None, friction=None):
    """One sample of the momentum observer: the state at the next sample ``(q_next, q̇_next)``.

    ``state``: the :class:`ObserverState` at the current sample; ``tau`` the joint torques applied
    during the sample (held by a digital controller); ``dt`` > 0 the sample time; ``K`` the observer
    gains (1/s, scalar or (n,)); ``gravity``, ``friction`` (the friction model the controller
    knows, ``qd -> τ_f``, or None) as for :func:`observer_start`. Returns the new
    :class:`ObserverState`; its ``r`` estimates ``τ_ext`` (course sign, module docstring).
    Cost: one CRBA, one ``coriolis_matrix`` (2n + 1 RNEA calls), one ``gravity_torques``.
    """
    K = _gain(K, model.n)
    tau = model.check_q(tau, "tau")
    q_next, qd_next = model.check_q(q_next, "q_next"), model.check_q(qd_next, "qd_next")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt: expected a sample time > 0 (s), got {dt!r}")
    h_next = _state_rate(model, q_next, qd_next, gravity, friction)
    integral = state.integral + dt * (tau + 0.5 * (state.h + h_next) + state.r)
    r = K * (crba(model, q_next) @ qd_next - integral - state.p0)
    return ObserverState(p0=state.p0, integral=integral, r=r, h=h_next)


@dataclass(frozen=True)
class ObserverRun:
    """The observer over a trajectory: ``t`` (N,), ``r`` (N, n) residuals (≈ ``τ_ext``), ``K`` (n,),
    ``threshold`` (n,), ``collision`` (N,) True where some ``|r_i| > threshold_i``, ``detected_at``
    the first such time (None if never)."""

    t: np.ndarray
    r: np.ndarray
    K: np.ndarray
    threshold: np.ndarray
    collision: np.ndarray
    detected_at: float | None


def _threshold(threshold, n):
    th = np.asarray(np.inf if threshold is None else threshold, dtype=float)
    th = np.full(n, float(th)) if th.ndim == 0 else th
    if th.shape != (n,) or np.any(np.isnan(th)) or np.any(th <= 0):
        raise ValueError(f"threshold: expected a scalar or {n} values > 0 (N·m or N), got {threshold!r}")
    return th


def run_observer(model, t, Q, QD, TAU, *, K, threshold=None, gravity=None, friction=None):
    """The momentum observer over recorded samples ``t`` (N,), ``Q, QD, TAU`` (N, n).

    ``TAU`` are samples of the joint torques (a :class:`~lessonlib.dynamics.simulate.Trajectory`'s
    ``tau``, a continuous function of time): the torque over a sample is taken as the mean of its two
    ends. (A digital controller that holds its torque over the sample calls :func:`observer_step`
    with that torque instead.) ``threshold``: collision threshold on ``|r_i|`` (scalar or (n,); None: never flag).
    Returns an :class:`ObserverRun`.
    """
    t = np.asarray(t, dtype=float)
    Q, QD, TAU = (np.asarray(x, dtype=float) for x in (Q, QD, TAU))
    for name, x in (("Q", Q), ("QD", QD), ("TAU", TAU)):
        if x.shape != (t.size, model.n):
            raise ValueError(f"{name}: expected shape ({t.size}, {model.n}) (one row per time in t), got {x.shape}")
    if t.ndim != 1 or t.size < 2 or np.any(np.diff(t) <= 0):
        raise ValueError(f"t: expected at least two increasing sample times, got shape {t.shape}")
    K = _gain(K, model.n)
    th = _threshold(threshold, model.n)
    state = observer_start(model, Q[0], QD[0], gravity=gravity, friction=friction)
    r = np.zeros_like(Q)
    for k in range(t.size - 1):
        tau_mean = 0.5 * (TAU[k] + TAU[k + 1])                  # samples of a continuous torque
        state = observer_step(model, state, tau_mean, Q[k + 1], QD[k + 1], t[k + 1] - t[k], K=K,
                              gravity=gravity, friction=friction)
        r[k + 1] = state.r
    collision = np.any(np.abs(r) > th, axis=1)
    detected = float(t[np.argmax(collision)]) if collision.any() else None
    return ObserverRun(t=t, r=r, K=K, threshold=th, collision=collision, detected_at=detected)


@dataclass(frozen=True)
class PushRun:
    """A simulated push: ``trajectory`` (the :class:`~lessonlib.dynamics.simulate.Trajectory`),
    ``tau_ext`` (N, n) the true ``Jᵀ F`` at every sample (0 outside the push), ``observer`` the
    :class:`ObserverRun` on the trajectory's ``q, q̇, τ``."""

    trajectory: object
    tau_ext: np.ndarray
    observer: ObserverRun


def push_and_observe(model, q0, qd0, torque_fn, *, at, wrench, t_on, t_off, dt, duration, K, threshold=None,
                     gravity=None, friction=None, integrator="rk4"):
    """Simulate the arm while the environment pushes it at ``at`` with ``wrench`` for ``t_on ≤ t < t_off``; observe it.

    ``at``: a body index or a frame name of ``model.frames`` (e.g. ``"tip"``) — the point pushed.
    ``wrench`` ``[n; f]`` is applied **by the environment on the robot** (course sign), in world
    axes, moment about that point: a push with a fixed direction while the arm moves.
    ``torque_fn`` drives the arm (e.g. :func:`~lessonlib.dynamics.control.gravity_compensation`);
    ``friction`` acts in the simulation and is known to the observer. The true
    ``τ_ext = J_bodyᵀ F_body`` comes from :func:`~lessonlib.kinematics.jacobian`, independently of
    the simulation's ``f_ext`` route. Returns a :class:`PushRun`.
    """
    wrench = np.asarray(wrench, dtype=float)
    if wrench.shape != (6,) or not np.all(np.isfinite(wrench)):
        raise ValueError(f"wrench: expected a finite wrench [n; f] of shape (6,), got {wrench!r}")
    try:
        b, T_b_point = resolve_body(model, at)
    except ValueError as err:
        raise ValueError(f"at: expected a body index or a frame name ({err})") from None
    if b == BASE:
        raise ValueError(f"at: expected a point on a moving body, got {at!r} (fixed to the base)")
    if not t_on < t_off:
        raise ValueError(f"t_on, t_off: expected t_on < t_off, got {t_on!r}, {t_off!r}")

    def body_wrench(t, q):
        """The push as ``f_ext[b]``: body axes, moment about the body origin."""
        if not t_on <= t + 1e-12 < t_off:
            return np.zeros(6)
        R = fk(model, q)[b][:3, :3]
        n, f = R.T @ wrench[ANG], R.T @ wrench[LIN]             # world axes -> body axes, at the point
        r = T_b_point[:3, 3]                                     # the point, from the body origin
        return spatial_vector(n + np.cross(r, f), f)

    def f_ext(t, q, qd):
        F = np.zeros((model.n, 6))
        F[b] = body_wrench(t, q)
        return F

    traj = simulate(model, q0, qd0, torque_fn, dt, duration, integrator=integrator, gravity=gravity,
                    friction=friction, f_ext=f_ext, progress=False)
    tau_ext = np.array([jacobian(model, q, body=b, frame="body").T @ body_wrench(t, q)
                        for t, q in zip(traj.t, traj.q)])
    run = run_observer(model, traj.t, traj.q, traj.qd, traj.tau, K=K, threshold=threshold, gravity=gravity,
                       friction=friction)
    return PushRun(trajectory=traj, tau_ext=tau_ext, observer=run)


__all__ = ["ObserverState", "ObserverRun", "PushRun", "observer_start", "observer_step", "run_observer",
           "push_and_observe"]
