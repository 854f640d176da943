"""[LG]'s appendix on the Coriolis force (科式力), with the course's own dynamics: the spinning skater.

A skater spinning on the ice pulls her arms in and turns faster. No torque acts about the vertical
axis, so the angular momentum ``L = (I + m r²) θ̇`` stays constant and ``θ̇`` grows as ``r``
shrinks; the kinetic energy ``½ (I + m r²) θ̇²`` = ``L² / (2 (I + m r²))`` *grows* — paid for by
the work her muscles do pulling the arms in against the centrifugal force. Seen from the arm,
the body rotating under it pushes sideways with the Coriolis force ``2 m θ̇ ṙ``, whose moment
``2 m r ṙ θ̇`` is exactly the rate at which the arm's angular momentum changes.

:func:`~lessonlib.samples.skater` is that system as a robot: a hub turning about z (joint 1) and a
mass sliding radially (joint 2, prismatic, ``q₂ = r``). Its equations of motion,

    τ₁ = (I + m r²) θ̈ + 2 m r ṙ θ̇,        τ₂ = m r̈ − m r θ̇²,

come out of every algorithm of the course: the ``2 m r ṙ θ̇`` is the velocity term of joint 1 (in
[LG]'s closed form, ``B₁₁₂ + B₁₂₁ = 2 m r``: a Lie bracket of the two joint screws), the
``− m r θ̇²`` the centrifugal term of joint 2. :func:`skater_pull_in` lets the hub spin freely
(``τ₁ = 0``), pulls the mass in with the slide's actuator and records what is conserved and what
is not.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .control import quintic
from .crba import crba
from .energy import kinetic_energy
from .simulate import simulate


@dataclass(frozen=True)
class SkaterRun:
    """A simulated pull-in of :func:`skater_pull_in`, one row per sample.

    ``trajectory`` the :class:`~lessonlib.dynamics.simulate.Trajectory` (``q = (θ, r)``);
    ``angular_momentum`` (N,) ``L = (M q̇)₁``, the generalized momentum of the spin joint;
    ``kinetic_energy`` (N,) J; ``work`` (N,) the work done by the slide's actuator so far,
    ``∫ ṙ τ₂ dt`` (trapezoid rule); ``coriolis_torque`` (N,) ``2 m r ṙ θ̇``, the torque the spin
    joint would need to keep ``θ̇`` constant.
    """

    trajectory: object
    angular_momentum: np.ndarray
    kinetic_energy: np.ndarray
    work: np.ndarray
    coriolis_torque: np.ndarray


def skater_pull_in(model, *, omega0, r0, r1, pull_time, duration, dt, Kp=400.0, Kd=40.0):
    """Spin the hub at ``omega0`` (rad/s) with the mass at ``r0``, then pull it to ``r1`` in ``pull_time`` seconds.

    ``model``: :func:`~lessonlib.samples.skater` (or any Model whose joint 1 spins about the vertical
    axis and whose joint 2 slides radially). The spin joint is free (``τ₁ = 0``); the slide follows a
    rest-to-rest :func:`~lessonlib.dynamics.quintic` from ``r0`` to ``r1`` under PD control
    (``Kp``, ``Kd``) plus the centrifugal feed-forward ``−m r θ̇²``. Returns a :class:`SkaterRun`.

    >>> from lessonlib import samples
    >>> run = skater_pull_in(samples.skater(), omega0=2.0, r0=0.8, r1=0.3, pull_time=1.0, duration=1.5, dt=0.01)
    >>> L = run.angular_momentum
    >>> bool(abs(L[-1] - L[0]) < 1e-6 * L[0])                  # no torque about the axis: L is conserved
    True
    """
    if model.n != 2 or model.joints[0].kind != "revolute" or model.joints[1].kind != "prismatic":
        raise ValueError(f"model: expected a spin joint and a radial slide (samples.skater()), got {model!r}")
    m = float(model.mass[1])
    reference = quintic([r0], [r1], pull_time)

    def torque_fn(t, q, qd):
        r_d, rd_d, rdd_d = (x[0] for x in reference(t))
        r, rd = q[1], qd[1]
        centrifugal = -m * r * qd[0] ** 2                      # τ₂ = m r̈ − m r θ̇²
        return np.array([0.0, m * rdd_d + centrifugal + Kp * (r_d - r) + Kd * (rd_d - rd)])

    traj = simulate(model, [0.0, r0], [omega0, 0.0], torque_fn, dt, duration, progress=False)
    L = np.array([(crba(model, q) @ qd)[0] for q, qd in zip(traj.q, traj.qd)])
    T = np.array([kinetic_energy(model, q, qd) for q, qd in zip(traj.q, traj.qd)])
    power = traj.qd[:, 1] * traj.tau[:, 1]
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(traj.t))])
    coriolis = 2 * m * traj.q[:, 1] * traj.qd[:, 1] * traj.qd[:, 0]
    return SkaterRun(trajectory=traj, angular_momentum=L, kinetic_energy=T, work=work, coriolis_torque=coriolis)


__all__ = ["SkaterRun", "skater_pull_in"]
