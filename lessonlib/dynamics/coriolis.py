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

Foucault's pendulum ([LG]: "傅科摆"通过科式力证明地球自转的，赤道上观察不到现象): a spherical pendulum
on the turning Earth (:func:`~lessonlib.samples.foucault_pendulum`), seen in the Earth's frame,
swings in a plane that the Coriolis force turns at ``−Ω sin φ`` — not at all on the equator.
:func:`foucault_run` measures that rate from a simulation of the library's own dynamics.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .control import quintic
from .crba import crba
from ..conventions import spatial_vector
from ..kinematics import fk
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


# --- Foucault's pendulum ----------------------------------------------------------------------------

@dataclass(frozen=True)
class FoucaultRun:
    """A simulated Foucault pendulum (:func:`foucault_run`).

    ``trajectory`` the :class:`~lessonlib.dynamics.simulate.Trajectory`; ``bob`` (N, 3) the bob's
    position in the Earth's local frame (x east, y north, z up); ``swing_times`` and
    ``plane_angle`` the time and the direction (rad, counter-clockwise from east, unwrapped) of the
    swing plane at each turning point of the swing; ``precession_rate`` the slope of a line fitted
    to them (rad/s); ``expected_rate`` ``−Ω sin φ`` (clockwise in the northern hemisphere).
    """

    trajectory: object
    bob: np.ndarray
    swing_times: np.ndarray
    plane_angle: np.ndarray
    precession_rate: float
    expected_rate: float


def foucault_run(model, *, latitude, Omega, amplitude=0.1, g0=9.81, duration, dt):
    """Swing :func:`~lessonlib.samples.foucault_pendulum` on an Earth turning at ``Omega`` (rad/s) and measure the precession.

    The Earth joint starts at ``Omega`` with no torque (its huge inertia keeps it turning); the bob
    is released at rest *relative to the Earth*, ``amplitude`` rad to the north of the vertical, so
    it starts swinging in the north–south plane. Gravity ``g0`` acts on the bob along the Earth's
    local "down" (it turns with the Earth), applied as ``f_ext``. In the Earth's frame the only
    effect of the rotation that turns the swing plane is the Coriolis force ``−2 m Ω × v``: the plane
    precesses at ``−Ω sin φ`` (``φ = latitude``), the pendulum's classic signature. (The real Earth's
    ``Ω = 7.29e-5`` rad/s gives one turn in ``24 h / sin φ``; a lesson takes a faster Ω to see it.)
    Returns a :class:`FoucaultRun`.
    """
    if model.n != 3 or model.name != "foucault_pendulum":
        raise ValueError(f"model: expected samples.foucault_pendulum(...), got {model!r}")
    m, c = float(model.mass[2]), model.com[2]

    def f_ext(t, q, qd):
        T = fk(model, q)
        down_in_bob = T[2][:3, :3].T @ T[0][:3, :3] @ np.array([0.0, 0.0, -m * g0])   # Earth's down, bob axes
        F = np.zeros((3, 6))
        F[2] = spatial_vector(np.cross(c, down_in_bob), down_in_bob)      # Earth's pull at c, about the origin
        return F

    traj = simulate(model, [0.0, amplitude, 0.0], [Omega, 0.0, 0.0], None, dt, duration, f_ext=f_ext, progress=False)
    poses = [fk(model, q) for q in traj.q]
    bob = np.array([T[0][:3, :3].T @ (T[2][:3, :3] @ c + T[2][:3, 3] - T[0][:3, 3]) for T in poses])
    radius = np.hypot(bob[:, 0], bob[:, 1])
    turning = np.flatnonzero((radius[1:-1] > radius[:-2]) & (radius[1:-1] >= radius[2:])) + 1
    angle = np.unwrap(2 * np.arctan2(bob[turning, 1], bob[turning, 0])) / 2     # a plane: direction mod π
    rate = float(np.polyfit(traj.t[turning], angle, 1)[0]) if turning.size >= 2 else float("nan")
    return FoucaultRun(trajectory=traj, bob=bob, swing_times=traj.t[turning], plane_angle=angle,
                       precession_rate=rate, expected_rate=-Omega * np.sin(latitude))


__all__ += ["FoucaultRun", "foucault_run"]
