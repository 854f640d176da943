"""Simulation: integrate the forward dynamics in time ([WJ §2.3], [DB4 §4.3]).

One step of a simulation is one (or a few) forward-dynamics solves plus an integration rule. The
state is ``(q, q̇)``; its derivative is ``(q̇, q̈)`` with

    q̈ = FD(q, q̇, τ_a − τ_f(q̇)),   i.e.  M q̈ + c + g + τ_f = τ_a + τ_ext,

computed by: :func:`~lessonlib.dynamics.forward_dynamics` (``method="aba"`` by default, or
``"crba"`` / ``"rnea_columns"``), with ``τ_a = torque_fn(t, q, q̇)``, ``τ_f = friction(q̇)`` and the
environment's wrenches ``f_ext`` (which give ``τ_ext``).

Integrators (``h = dt``), each one a named step function (:data:`STEPS`):

* ``"euler"`` (explicit, :func:`euler_step`): ``q⁺ = q + h q̇``, ``q̇⁺ = q̇ + h q̈(q, q̇)`` — gains
  energy, step by step;
* ``"semi_implicit_euler"`` (:func:`semi_implicit_euler_step`): ``q̇⁺ = q̇ + h q̈(q, q̇)``,
  ``q⁺ = q + h q̇⁺``. It is the symplectic Euler method — energy error bounded and oscillating —
  only when ``q̇`` is the momentum up to a constant factor: a constant ``M`` (one joint about a
  fixed axis, e.g. the pendulum) and no velocity-dependent forces. For an arm whose ``M(q)``
  changes with the configuration this step in ``(q, q̇)`` is **not** symplectic (the symplectic
  method works on ``(q, p = M q̇)`` and is implicit there), and the energy error can grow
  ([Hairer, Lubich & Wanner 2006]); watch the energy column;
* ``"rk4"`` (:func:`rk4_step`): classical fourth-order Runge–Kutta on ``(q, q̇)`` — four FD solves
  per step, error O(h⁴) (also the step of :func:`lessonlib.constraints.simulate`). It is
  :func:`rk4` for the state ``(q, q̇)``; :func:`rk4` also integrates states of more parts (an
  adaptive controller's ``(q, q̇, θ̂)``, :func:`~lessonlib.dynamics.adaptive.simulate_slotine_li`).

[WJ §2.3] warns that ID/FD agreeing at one instant does not make a long simulation accurate; the
energy column of the :class:`Trajectory` is there to watch that.

>>> import numpy as np
>>> from lessonlib import samples
>>> rod = samples.pendulum()
>>> traj = simulate(rod, [0.5], [0.0], None, dt=0.01, duration=1.0)
>>> traj.q.shape, float(traj.t[-1])
((101, 1), 1.0)
>>> bool(np.ptp(traj.energy) < 1e-6)                  # RK4, no friction: energy conserved
True
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from .. import _validate as validate
from .energy import total_energy
from .terms import FD_METHODS, forward_dynamics

#: With ``progress=None`` a progress bar is shown for runs of more steps than this.
PROGRESS_MIN_STEPS = 2000


def euler_step(acceleration, t, q, qd, qdd, dt):
    """Explicit Euler: ``q⁺ = q + h q̇``, ``q̇⁺ = q̇ + h q̈``; ``qdd = acceleration(t, q, qd)`` is given."""
    return q + dt * qd, qd + dt * qdd


def semi_implicit_euler_step(acceleration, t, q, qd, qdd, dt):
    """Semi-implicit Euler: ``q̇⁺ = q̇ + h q̈``, then ``q⁺ = q + h q̇⁺`` (see the module docstring)."""
    qd_next = qd + dt * qdd
    return q + dt * qd_next, qd_next


def rk4(rate, t, x, dt, *, k1=None):
    """One classical Runge–Kutta step of ``ẋ = rate(t, *x)``, the state ``x`` a tuple of arrays.

    ``rate(t, *x)`` returns the tuple of their derivatives; ``k1``: ``rate(t, *x)``, when the caller
    has it already (the first stage). Returns the state at ``t + dt``, a tuple like ``x``::

        k1 = f(t, x),  k2 = f(t + h/2, x + h/2 k1),  k3 = f(t + h/2, x + h/2 k2),  k4 = f(t + h, x + h k3)
        x⁺ = x + h/6 (k1 + 2 k2 + 2 k3 + k4)

    >>> (y,) = rk4(lambda t, y: (-y,), 0.0, (np.array([1.0]),), 0.1)
    >>> round(float(y[0]), 7), round(float(np.exp(-0.1)), 7)          # ẏ = −y: e^(−t)
    (0.9048375, 0.9048374)
    """
    def at(k, h):
        return tuple(xi + h * ki for xi, ki in zip(x, k))
    k1 = rate(t, *x) if k1 is None else k1
    k2 = rate(t + dt / 2, *at(k1, dt / 2))
    k3 = rate(t + dt / 2, *at(k2, dt / 2))
    k4 = rate(t + dt, *at(k3, dt))
    return tuple(xi + dt / 6 * (a + 2 * b + 2 * c + d) for xi, a, b, c, d in zip(x, k1, k2, k3, k4))


def rk4_step(acceleration, t, q, qd, qdd, dt):
    """One classical Runge–Kutta step of ``d/dt (q, q̇) = (q̇, q̈)`` with ``q̈ = acceleration(t, q, q̇)``.

    ``qdd`` is ``acceleration(t, q, qd)``, the first stage, which the caller has already computed.
    Returns ``(q⁺, q̇⁺)`` at ``t + dt``; three more calls of ``acceleration``.

    >>> q, qd = rk4_step(lambda t, q, qd: -q, 0.0, np.array([1.0]), np.array([0.0]), np.array([-1.0]), 0.1)
    >>> round(float(q[0]), 6), round(float(np.cos(0.1)), 6)              # q̈ = −q from rest at 1: cos t
    (0.995004, 0.995004)
    """
    return rk4(lambda t, q, qd: (qd, acceleration(t, q, qd)), t, (q, qd), dt, k1=(qd, qdd))


#: The integrators of :func:`simulate`: name -> step ``(acceleration, t, q, q̇, q̈, dt) -> (q⁺, q̇⁺)``.
STEPS = {"rk4": rk4_step, "semi_implicit_euler": semi_implicit_euler_step, "euler": euler_step}
INTEGRATORS = tuple(STEPS)


@dataclass(frozen=True)
class Trajectory:
    """A simulated motion, one row per sample ``t[k] = k·dt``.

    ``t`` (N+1,) s; ``q``, ``qd``, ``qdd`` (N+1, n) joint positions, velocities, accelerations;
    ``tau`` (N+1, n) actuator torques ``τ_a = torque_fn(t, q, q̇)``; ``energy`` (N+1,) total
    mechanical energy ``T + U`` (J) (see :mod:`lessonlib.dynamics.energy`). Arrays are read-only.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    energy: np.ndarray

    def __post_init__(self):
        for name in ("t", "q", "qd", "qdd", "tau", "energy"):
            a = np.array(getattr(self, name), dtype=float)
            a.setflags(write=False)
            object.__setattr__(self, name, a)


def _in_notebook():
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def _progress_bar(n_steps, progress):
    """A tqdm bar (tqdm.auto: a widget in notebooks) or None."""
    if progress is None:
        progress = n_steps > PROGRESS_MIN_STEPS and (sys.stderr.isatty() or _in_notebook())
    if not progress:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=n_steps, desc="simulate", unit="step")


def simulate(model, q0, qd0, torque_fn, dt, duration, *, integrator="rk4", gravity=None, friction=None,
             f_ext=None, method="aba", progress=None):
    """Simulate the arm from ``(q0, qd0)`` for ``duration`` seconds with fixed step ``dt``.

    Parameters
    ----------
    torque_fn : ``torque_fn(t, q, qd) -> τ_a`` (n,), the actuator torques (a controller from
        :mod:`lessonlib.dynamics.control`, or any function); None means zero torque (a free fall).
    dt, duration : step and length (s), both > 0; the run has ``N = ceil(duration/dt)`` steps,
        samples at ``t = k·dt``, ``k = 0..N``.
    integrator : ``"rk4"`` (default), ``"semi_implicit_euler"`` or ``"euler"`` (module docstring).
    gravity : world 3-vector (None: the model's default).
    friction : ``friction(qd) -> τ_f`` (a :class:`~lessonlib.dynamics.friction.Friction`, or any
        function), None for none.
    f_ext : the environment's wrenches on the bodies, (n, 6) (constant), or a function
        ``f_ext(t, q, qd) -> (n, 6)``; None for none. ``f_ext[i] = [n; f]`` acts on body ``i``, in
        body frame ``i``, moment about its origin.
    method : forward-dynamics method of :func:`~lessonlib.dynamics.forward_dynamics`.
    progress : None (a tqdm bar when there are more than ``PROGRESS_MIN_STEPS`` steps and stderr
        is a terminal or the code runs in a notebook), True (always) or False (never). In notebooks
        checked by nbval pass ``progress=False``: the bar's text changes from run to run.

    Returns a :class:`Trajectory`. Deterministic: the same inputs give the same arrays.
    """
    validate.one_of(integrator, INTEGRATORS, "integrator")
    validate.one_of(method, FD_METHODS, "method")
    dt = validate.positive(dt, "dt")
    duration = validate.positive(duration, "duration")
    if torque_fn is not None and not callable(torque_fn):
        raise ValueError(f"torque_fn: expected a function (t, q, qd) -> tau or None, got {type(torque_fn).__name__}")
    if friction is not None and not callable(friction):
        raise ValueError(f"friction: expected a function qd -> tau_f (e.g. Friction(...)) or None, "
                         f"got {type(friction).__name__}")
    if f_ext is not None and not callable(f_ext):
        f_ext = model.check_f_ext(f_ext)
    q = model.check_q(q0, "q0").copy()
    qd = model.check_q(qd0, "qd0").copy()
    zero = np.zeros(model.n)

    def torque(t, q, qd):
        return zero if torque_fn is None else model.check_q(torque_fn(t, q, qd), "torque_fn(t, q, qd)")

    def acceleration(t, q, qd, tau=None):
        """``q̈ = FD(q, q̇, τ_a − τ_f)`` with the wrenches of the environment (``τ_a`` from torque_fn)."""
        tau = torque(t, q, qd) if tau is None else tau
        net = tau if friction is None else tau - model.check_q(friction(qd), "friction(qd)")
        F = f_ext(t, q, qd) if callable(f_ext) else f_ext
        return forward_dynamics(model, q, qd, net, method=method, gravity=gravity, f_ext=F)

    step = STEPS[integrator]
    n_steps = max(1, int(np.ceil(duration / dt - 1e-9)))
    t = dt * np.arange(n_steps + 1)
    Q, QD, QDD, TAU = (np.zeros((n_steps + 1, model.n)) for _ in range(4))
    energy = np.zeros(n_steps + 1)
    bar = _progress_bar(n_steps, progress)
    try:
        for k in range(n_steps + 1):
            tau = torque(t[k], q, qd)
            qdd = acceleration(t[k], q, qd, tau)
            Q[k], QD[k], QDD[k], TAU[k] = q, qd, qdd, tau
            energy[k] = total_energy(model, q, qd, gravity=gravity)
            if k == n_steps:
                break
            q, qd = step(acceleration, t[k], q, qd, qdd, dt)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return Trajectory(t=t, q=Q, qd=QD, qdd=QDD, tau=TAU, energy=energy)
