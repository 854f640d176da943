"""Mechanical energy of a robot and its power balance ([WJ §2.1], [DB4 §4.2]).

Convention: body twists ``v_i = [ω_i; v_i]`` in body frame ``i`` at its origin; ``inertia[i]`` is
the spatial inertia about that origin, so a body's kinetic energy is ``½ v_iᵀ I_i v_i``. Gravity
``g`` is a world 3-vector; the potential energy is zero when every mass centre is at the height
of the world origin (only differences of ``U`` matter).

======================================  ==========================================================
quantity                                computed by
======================================  ==========================================================
``T = ½ Σ v_iᵀ I_i v_i``                :func:`lessonlib.kinematics.body_twists` (outward recursion)
``U = −Σ m_i gᵀ p_ci``                  :func:`lessonlib.kinematics.fk` and ``model.com``
``dE/dt``, ``"analytic"``               outward motion recursion: ``Σ v_iᵀ I_i a_i − Σ m_i gᵀ ṗ_ci``
``dE/dt``, ``"central_difference"``     :func:`total_energy` along ``(q + q̇ t, q̇ + q̈ t)``
======================================  ==========================================================

Neither route to ``dE/dt`` uses the equations of motion, so :func:`power_balance` is a real test
of them: along any motion ``M q̈ + c + g + τ_f = τ_a + τ_ext`` must give ([WJ §2.1])

    d(T + U)/dt = q̇ᵀ (τ_a + τ_ext − τ_f).

[WJ §2.1]'s single link (``q = 0`` hanging down): ``T = ½ I_O q̇²``, ``U = m g₀ ℓ (1 − cos q)``
up to a constant.

>>> import numpy as np
>>> from lessonlib import samples
>>> rod = samples.pendulum()                  # m = 1 kg, 1 m: ℓ = 0.5 m, I_O = 1/3 kg·m²
>>> round(kinetic_energy(rod, [0.4], [3.0]), 12)          # ½ · (1/3) · 3²
1.5
>>> round(potential_energy(rod, [np.pi / 2]) - potential_energy(rod, [0.0]), 12)   # m g₀ ℓ
4.905
"""
from __future__ import annotations

import numpy as np

from .. import _validate as validate
from .._operators import ad
from ..conventions import ANG, BASE, LIN
from ..kinematics import body_twists, fk, joint_transforms

ENERGY_RATE_METHODS = ("analytic", "central_difference")
#: Step of the central difference in :func:`energy_rate` (s), divided by max(1, |q̇|∞, |q̈|∞).
FD_STEP = 1e-3


def kinetic_energy(model, q, qd):
    """Kinetic energy ``T = ½ Σ v_iᵀ I_i v_i`` (J), computed by: :func:`~lessonlib.kinematics.body_twists`.

    Equal to ``½ q̇ᵀ M(q) q̇`` ([WJ §2.1]), which the tests check against :func:`crba`.

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()             # straight arm spinning as one rod of 2 m, 2 kg
    >>> round(kinetic_energy(arm, [0.0, 0.0], [1.0, 0.0]), 12)      # ½ · (2·2²/3) · 1²
    1.333333333333
    """
    v = body_twists(model, q, qd)
    return 0.5 * float(sum(v[i] @ model.inertia[i] @ v[i] for i in range(model.n)))


def _com_positions(model, q):
    """World positions of the body mass centres ``p_ci = R_0_i c_i + p_0_i``, (n, 3)."""
    T = fk(model, q)
    return np.einsum("nij,nj->ni", T[:, :3, :3], model.com) + T[:, :3, 3]


def center_of_mass(model, q):
    """The robot's mass centre ``Σ m_i p_ci / Σ m_i`` in the world (3,).

    Computed by: :func:`~lessonlib.kinematics.fk` and ``model.com``.

    >>> from lessonlib import samples
    >>> center_of_mass(samples.planar_2link(), [0.0, 0.0]).round(12) + 0.0    # rods' mid-points 0.5, 1.5
    array([1., 0., 0.])
    """
    p = _com_positions(model, q)
    return model.mass @ p / model.mass.sum()


def potential_energy(model, q, *, gravity=None):
    """Gravitational potential energy ``U = −Σ m_i gᵀ p_ci`` (J), computed by: :func:`~lessonlib.kinematics.fk`.

    ``gravity`` world 3-vector (None: the model's default). The datum is the world origin:
    ``U = 0`` when every mass centre lies in the plane through the origin normal to ``g``.
    Its gradient is the gravity torque, ``∂U/∂q = g(q)``.

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()                 # arm pointing straight up (+y): COMs at 0.5, 1.5 m
    >>> round(potential_energy(arm, [np.pi / 2, 0.0], gravity=[0, -10, 0]), 12)
    20.0
    """
    g = model.gravity_or_default(gravity)
    return -float(model.mass @ (_com_positions(model, q) @ g))


def total_energy(model, q, qd, *, gravity=None):
    """Total mechanical energy ``E = T + U`` (J): :func:`kinetic_energy` + :func:`potential_energy`."""
    return kinetic_energy(model, q, qd) + potential_energy(model, q, gravity=gravity)


def _energy_rate_analytic(model, q, qd, qdd, g):
    """``dT/dt = Σ v_iᵀ I_i a_i`` with the body accelerations of the outward motion recursion
    (``a_i = d/dt v_i`` in body coordinates, gravity off), plus ``dU/dt = −Σ m_i gᵀ ṗ_ci``."""
    X, S, I = joint_transforms(model, q), model.S, model.inertia
    T = fk(model, q)
    v, a = np.zeros((model.n, 6)), np.zeros((model.n, 6))
    dT = dU = 0.0
    for i in range(model.n):                             # outward: motion only, no forces
        p = model.parent[i]
        v_p, a_p = (np.zeros(6), np.zeros(6)) if p == BASE else (v[p], a[p])
        v[i] = X[i] @ v_p + S[i] * qd[i]
        a[i] = X[i] @ a_p + S[i] * qdd[i] + ad(v[i]) @ S[i] * qd[i]
        dT += v[i] @ I[i] @ a[i]
        pd_ci = T[i, :3, :3] @ (v[i][LIN] + np.cross(v[i][ANG], model.com[i]))   # COM velocity, world
        dU -= model.mass[i] * g @ pd_ci
    return float(dT + dU)


def _energy_rate_central_difference(model, q, qd, qdd, gravity):
    """Five-point central difference of ``E(q + q̇ t, q̇ + q̈ t)`` at ``t = 0`` (error O(h⁴))."""
    h = FD_STEP / max(1.0, np.abs(qd).max(), np.abs(qdd).max())

    def E(t):
        return total_energy(model, q + qd * t, qd + qdd * t, gravity=gravity)

    return (E(-2 * h) - 8 * E(-h) + 8 * E(h) - E(2 * h)) / (12 * h)


def energy_rate(model, q, qd, qdd, *, gravity=None, method="analytic"):
    """Rate of change ``dE/dt`` (W) of the mechanical energy along a motion through ``(q, q̇, q̈)``.

    ``method``:

    * ``"analytic"`` — ``Σ v_iᵀ I_i a_i − Σ m_i gᵀ ṗ_ci``: body twists and accelerations from the
      outward motion recursion ([WJ §2.2], without its force pass), COM velocities in the world.
    * ``"central_difference"`` — a five-point central difference of :func:`total_energy` along
      ``(q + q̇ t, q̇ + q̈ t)`` (which has the same first derivative as the motion at ``t = 0``),
      step ``FD_STEP / max(1, |q̇|∞, |q̈|∞)``: uses nothing but the energy itself.

    Neither uses ``M``, ``c``, ``g`` or the RNEA force pass.

    >>> from lessonlib import samples
    >>> rod = samples.pendulum()
    >>> round(energy_rate(rod, [np.pi / 2], [0.0], [5.0]), 12)     # at rest E is stationary, whatever q̈
    0.0
    >>> round(energy_rate(rod, [0.0], [2.0], [0.0]), 12)      # at the bottom: dE/dt = I_O q̇ q̈ = 0
    0.0
    >>> round(energy_rate(rod, [0.0], [2.0], [3.0]), 12)      # I_O q̇ q̈ = (1/3)·2·3
    2.0
    """
    validate.one_of(method, ENERGY_RATE_METHODS, "method")
    q = model.check_q(q, "q")
    qd = model.check_q(qd, "qd")
    qdd = model.check_q(qdd, "qdd")
    if method == "analytic":
        return _energy_rate_analytic(model, q, qd, qdd, model.gravity_or_default(gravity))
    return _energy_rate_central_difference(model, q, qd, qdd, gravity)


def power_balance(model, q, qd, qdd, tau_a, *, gravity=None, tau_ext=None, tau_f=None, method="analytic"):
    """Both sides of [WJ §2.1]'s energy balance ``d(T + U)/dt = q̇ᵀ (τ_a + τ_ext − τ_f)``.

    Returns ``(dE_dt, power)``: the energy rate by :func:`energy_rate` (``method`` as there), and
    the net power delivered by the actuators (``τ_a``) and the environment (``τ_ext``, e.g. from
    :func:`~lessonlib.dynamics.jacobian_transpose_force`) minus what friction (``τ_f``, the torque the
    actuator must overcome) dissipates. The two agree exactly when ``q̈`` solves
    ``M q̈ + c + g + τ_f = τ_a + τ_ext``; ``tau_ext``/``tau_f`` None mean zero.

    >>> from lessonlib import samples
    >>> from lessonlib.dynamics import forward_dynamics
    >>> arm = samples.planar_2link()
    >>> q, qd, tau = np.array([0.3, -0.5]), np.array([1.0, 2.0]), np.array([4.0, -1.0])
    >>> qdd = forward_dynamics(arm, q, qd, tau)
    >>> dE, P = power_balance(arm, q, qd, qdd, tau)
    >>> round(P, 12), bool(np.isclose(dE, P, rtol=1e-12))          # q̇ᵀ τ = 4 − 2
    (2.0, True)
    """
    qd = model.check_q(qd, "qd")
    net = model.check_q(tau_a, "tau_a").copy()
    if tau_ext is not None:
        net += model.check_q(tau_ext, "tau_ext")
    if tau_f is not None:
        net -= model.check_q(tau_f, "tau_f")
    return energy_rate(model, q, qd, qdd, gravity=gravity, method=method), float(qd @ net)
