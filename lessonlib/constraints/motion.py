"""Closed kinematic loops in time: inverse dynamics along a motion, and stabilised simulation.

:func:`inverse_dynamics_along` completes each sample of a prescribed motion of the independent
coordinates and solves (12.4) for the actuator torques and the loop-closure forces;
:func:`simulate` integrates the forward dynamics with the course's one RK4 step
(:func:`lessonlib.dynamics.simulate.rk4_step`) and keeps the loops closed (Baumgarte
[Baumgarte 1972], coordinate projection, or both).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _validate as validate
from ..dynamics.simulate import rk4_step
from .assembly import project, state_from_independent
from .closed import check_baumgarte, forward_dynamics, inverse_dynamics
from .closure import constraint_terms
from .loops import check_closed

STABILIZATIONS = ("baumgarte", "projection", "both", "none")


class ClosedMotion(NamedTuple):
    """Result of :func:`inverse_dynamics_along`: arrays over time (first axis)."""

    q: np.ndarray       # (T, n)
    qd: np.ndarray      # (T, n)
    qdd: np.ndarray     # (T, n)
    tau: np.ndarray     # (T, k)  actuator torques
    lam: np.ndarray     # (T, m)  loop-closure multipliers


def inverse_dynamics_along(cm, Y, YD, YDD, q_guess, *, gravity=None, method="noc"):
    """Inverse dynamics along a prescribed motion of the independent coordinates.

    ``Y, YD, YDD``: (T, dof) (or (T,) when dof = 1). Each sample is completed by
    :func:`state_from_independent` (warm-started from the previous ``q``, so the mechanism stays on
    the branch of ``q_guess``), then :func:`inverse_dynamics`. Returns a :class:`ClosedMotion`.
    """
    check_closed(cm)
    Y, YD, YDD = (np.asarray(v, dtype=float).reshape(len(v), -1) for v in (Y, YD, YDD))
    if not (Y.shape == YD.shape == YDD.shape) or Y.shape[1] != cm.dof:
        raise ValueError(f"Y, YD, YDD: expected three arrays of shape (T, {cm.dof}), "
                         f"got {Y.shape}, {YD.shape}, {YDD.shape}")
    q = cm.check_q(q_guess, "q_guess")
    rows = []
    for y, yd, ydd in zip(Y, YD, YDD):
        q, qd, qdd = state_from_independent(cm, y, yd, ydd, q)
        r = inverse_dynamics(cm, q, qd, qdd, gravity=gravity, method=method)
        rows.append((q, qd, qdd, r.tau, r.lam))
    return ClosedMotion(*(np.array(col) for col in zip(*rows)))


@dataclass(frozen=True)
class ClosedTrajectory:
    """Result of :func:`simulate`: samples ``t`` (T,), ``q``, ``qd`` (T, n), ``tau`` (T, k) and the
    loop-closure error ``phi`` (T, m) and ``velocity_error`` ``G q̇`` (T, m) at each sample."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    phi: np.ndarray
    velocity_error: np.ndarray

    @property
    def drift(self):
        """Largest ``|φ|`` over the run (m or rad): how far the loops came apart."""
        return float(np.max(np.abs(self.phi)))


def simulate(cm, q0, qd0, torque_fn, dt, duration, *, gravity=None, stabilization="baumgarte",
             baumgarte=(10.0, 10.0), method="multipliers"):
    """Simulate the closed chain with fixed-step RK4 and a loop-closure stabilisation.

    ``torque_fn(t, q, qd) -> tau`` (k,), or None for an unactuated run (τ = 0). ``stabilization``:

    * ``"baumgarte"`` — the accelerations obey ``G q̈ = γ − 2α G q̇ − β² φ`` (``baumgarte = (α, β)``);
    * ``"projection"`` — plain ``G q̈ = γ``, then :func:`project` ``(q, q̇)`` after every step;
    * ``"both"``; ``"none"`` — plain ``G q̈ = γ`` (the loops drift apart slowly: for comparison).

    ``q0, qd0`` are projected onto the constraints first. Cost: 4 :func:`forward_dynamics` per step.
    """
    check_closed(cm)
    validate.one_of(stabilization, STABILIZATIONS, "stabilization")
    dt, duration = float(dt), float(duration)
    if not (dt > 0 and np.isfinite(dt)):
        raise ValueError(f"dt: expected a finite step > 0 (s), got {dt!r}")
    if not (duration >= dt and np.isfinite(duration)):
        raise ValueError(f"duration: expected a finite duration >= dt (s), got {duration!r}")
    k = len(cm.actuated)
    tau_of = (lambda t, q, qd: np.zeros(k)) if torque_fn is None else torque_fn
    bg = check_baumgarte(baumgarte) if stabilization in ("baumgarte", "both") else None
    projecting = stabilization in ("projection", "both")
    q, qd = project(cm, q0, qd0)

    def acceleration(t, q, qd):
        tau = cm.check_tau(tau_of(t, q, qd), "torque_fn(t, q, qd)")
        return forward_dynamics(cm, q, qd, tau, gravity=gravity, method=method, baumgarte=bg)

    steps = int(round(duration / dt))
    T, Q, QD, TAU, PHI, VE = [], [], [], [], [], []

    def record(t, q, qd):
        T.append(t)
        Q.append(q)
        QD.append(qd)
        TAU.append(cm.check_tau(tau_of(t, q, qd), "torque_fn(t, q, qd)"))
        phi, G, _ = constraint_terms(cm, q)
        PHI.append(phi)
        VE.append(G @ qd)

    record(0.0, q, qd)
    for s in range(steps):
        t = s * dt
        q, qd = rk4_step(acceleration, t, q, qd, acceleration(t, q, qd), dt)
        if projecting:
            q, qd = project(cm, q, qd)
        record((s + 1) * dt, q, qd)
    return ClosedTrajectory(*(np.array(a) for a in (T, Q, QD, TAU, PHI, VE)))
