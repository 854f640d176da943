"""Adaptive computed-torque control of Slotine and Li ([Slotine & Li 1987]; pointed to by [RNE05] §七).

[RNE05] ends with the case of an unknown load: the inverse dynamics is only as good as its
parameters, and "Slotine–Li adaptive control" corrects them while tracking. The controller uses
the fact that the dynamics are linear in the parameters ([DB4 §4.3]) with a regressor built for
a *reference* velocity and acceleration, and the fact that ``Ṁ − 2C`` is skew-symmetric for the
Christoffel ``C``.

Reference motion, sliding variable and control law (``q̃ = q − q_d``, ``Λ, K_s, Γ`` positive definite)::

    q̇_r = q̇_d − Λ q̃,      q̈_r = q̈_d − Λ (q̇ − q̇_d),      s = q̇ − q̇_r = (q̃)˙ + Λ q̃
    τ    = Y(q, q̇, q̇_r, q̈_r) â − K_s s
    â̇    = −Γ Yᵀ s

with the regressor ``Y(q, q̇, v, a) θ = M(q) a + C(q, q̇) v + g(q)`` (:func:`slotine_li_regressor`).
With ``M s' = τ − (M q̈_r + C q̇_r + g) − C s`` the closed loop is ``M ṡ + C s + K_s s = Y θ̃``
(``θ̃ = â − θ``) and ``V = ½ sᵀ M s + ½ θ̃ᵀ Γ⁻¹ θ̃`` has ``V̇ = −sᵀ K_s s + ½ sᵀ (Ṁ − 2C) s = −sᵀ K_s s ≤ 0``:
the skew-symmetry is what cancels the middle term. Hence ``s → 0`` and ``q̃ → 0`` (Barbalat); the
estimates ``â`` converge to the true parameters only if the desired motion is *persistently
exciting* (the stacked ``Y`` along it has full rank), and only the base parameters
(:func:`~lessonlib.dynamics.regressor.base_parameters`) can converge: the controller adapts those.

Regressor. ``c(q, q̇) = C(q, q̇) q̇`` is the quadratic form ``Σ_jk Γ_ijk q̇_j q̇_k`` with the symmetric
Christoffel symbols, so ``C(q, q̇) v = Σ_jk Γ_ijk q̇_j v_k`` is its polarisation:
``C(q, q̇) v = ½ (c(q̇ + v) − c(q̇) − c(v))``. Each ``c`` is linear in the parameters, computed by:
:func:`~lessonlib.dynamics.regressor.regressor` with ``q̈ = 0`` and no gravity; ``M a + g`` by one
more regressor call (``q̇ = 0``). Four regressor calls, O(n²).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import positive
from ..conventions import ZERO_GRAVITY
from .aba import aba
from .crba import crba
from .regressor import base_parameters, inertial_parameters, regressor
from .simulate import rk4


def slotine_li_regressor(model, q, qd, v, a, *, gravity=None):
    """``Y`` (n, 10 n) with ``Y θ = M(q) a + C(q, q̇) v + g(q)``, ``C`` the Christoffel matrix (``Ṁ − 2C`` skew).

    ``θ``: the standard parameters of :func:`~lessonlib.dynamics.regressor.inertial_parameters`;
    ``v``, ``a``: any velocity and acceleration (the controller's ``q̇_r``, ``q̈_r``); ``gravity``
    world 3-vector (None: the model's default). With ``v = q̇``, ``a = q̈`` it is the inverse
    dynamics regressor. Computed by: four regressor calls (module docstring), O(n²).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> from lessonlib.dynamics import rnea
    >>> arm = samples.planar_2link()
    >>> q, qd, qdd = np.array([0.3, -0.2]), np.array([1.0, 0.5]), np.array([-2.0, 3.0])
    >>> Y = slotine_li_regressor(arm, q, qd, qd, qdd)
    >>> bool(np.allclose(Y @ inertial_parameters(arm), rnea(arm, q, qd, qdd)))
    True
    """
    q, qd, v, a = (model.check_q(x, name) for x, name in ((q, "q"), (qd, "qd"), (v, "v"), (a, "a")))
    zero = np.zeros(model.n)

    def c(x):                                    # velocity torques c(q, x) = C(q, x) x, as a regressor
        return regressor(model, q, x, zero, gravity=ZERO_GRAVITY)

    return regressor(model, q, zero, a, gravity=gravity) + 0.5 * (c(qd + v) - c(qd) - c(v))


def adaptation_gains(model, reference, t, *, rate, base=None, gravity=None):
    """Adaptation gains ``Γ_j = rate / mean_t ‖Y_b[:, j]‖²`` normalised by how strongly ``reference`` excites each base parameter.

    With one gain for all parameters, a parameter whose regressor column is large (a mass moment
    seen through gravity, ``≈ g``) adapts fast and stiffly while one seen only through small
    accelerations barely moves; dividing by the mean squared column along the desired motion
    (``reference`` sampled at the times ``t``, with ``q̇_r = q̇_d``, ``q̈_r = q̈_d``) evens the rates
    out (a diagonal preconditioner of ``Γ Σ Yᵀ Y``). ``rate`` > 0 (1/s · N·m·s/rad, compare with
    ``K_s``). Returns ``Γ`` (r,) for :func:`simulate_slotine_li`.
    """
    rate = positive(rate, "rate")
    base = base_parameters(model, gravity=gravity) if base is None else base
    t = np.atleast_1d(np.asarray(t, dtype=float))
    power = np.zeros(base.rank)
    for tk in t:
        q_d, qd_d, qdd_d = reference(tk)
        power += (slotine_li_regressor(model, q_d, qd_d, qd_d, qdd_d, gravity=gravity)[:, base.independent] ** 2).sum(0)
    power /= t.size
    if np.any(power <= 0):
        raise ValueError(f"reference: does not excite base parameters {np.flatnonzero(power <= 0).tolist()} at all")
    return rate / power


def _positive(x, n, name):
    x = np.asarray(x, dtype=float)
    x = np.full(n, float(x)) if x.ndim == 0 else x
    if x.shape != (n,) or not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise ValueError(f"{name}: expected a scalar or {n} finite values > 0, got {x!r}")
    return x


@dataclass(frozen=True)
class AdaptiveRun:
    """A simulated run of :func:`simulate_slotine_li`, one row per sample ``t[k] = k·dt``.

    ``q, qd`` (N+1, n) the robot; ``q_d`` (N+1, n) the desired motion; ``tau`` (N+1, n) the control
    torques; ``theta_hat`` (N+1, r) the estimated base parameters, ``theta`` (r,) the true ones;
    ``V`` (N+1,) the Lyapunov function ``½ sᵀ M s + ½ θ̃ᵀ Γ⁻¹ θ̃``; ``base`` the
    :class:`~lessonlib.dynamics.regressor.BaseParameters` adapted.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    q_d: np.ndarray
    tau: np.ndarray
    theta_hat: np.ndarray
    theta: np.ndarray
    V: np.ndarray
    base: object

    @property
    def tracking_error(self):
        """``|q − q_d|`` (N+1, n)."""
        return np.abs(self.q - self.q_d)

    @property
    def parameter_error(self):
        """``|â − θ|`` relative to ``|θ|`` per base parameter, (N+1, r)."""
        return np.abs(self.theta_hat - self.theta) / np.maximum(np.abs(self.theta), 1e-12)


def simulate_slotine_li(model, reference, *, Lambda, K_s, Gamma, dt, duration, theta_hat0=None, q0=None, qd0=None,
                        base=None, gravity=None, tau_max=None):
    """Track ``reference(t) -> (q_d, q̇_d, q̈_d)`` on ``model`` with the Slotine–Li controller, adapting the base parameters.

    The robot is ``model`` (its true inertias); the controller knows its kinematics and adapts the
    base parameters ``θ_b`` of ``base`` (default :func:`~lessonlib.dynamics.regressor.base_parameters`
    of the model), starting from ``theta_hat0`` (r,) (default zeros: nothing known). Gains ``Lambda``
    (1/s), ``K_s`` (N·m·s/rad), ``Gamma`` (adaptation rate, one per base parameter): scalars or
    vectors (diagonal matrices), > 0. ``q0, qd0``: initial state (default on the reference).
    ``tau_max``: optional actuator limits (scalar or (n,)): the torque is clipped to ``±tau_max``
    (the adaptation still uses ``s``; see :func:`~lessonlib.dynamics.control.saturated`).

    The state ``(q, q̇, â)`` is integrated with classical RK4 (step ``dt``), the robot by
    :func:`~lessonlib.dynamics.aba`. Returns an :class:`AdaptiveRun`.
    """
    if not callable(reference):
        raise ValueError(f"reference: expected a function t -> (q_d, qd_d, qdd_d), got {type(reference).__name__}")
    n = model.n
    base = base_parameters(model, gravity=gravity) if base is None else base
    r = base.rank
    Lam, Ks, Gam = _positive(Lambda, n, "Lambda"), _positive(K_s, n, "K_s"), _positive(Gamma, r, "Gamma")
    theta = base.reduce(inertial_parameters(model))
    a0 = np.zeros(r) if theta_hat0 is None else np.asarray(theta_hat0, dtype=float)
    if a0.shape != (r,) or not np.all(np.isfinite(a0)):
        raise ValueError(f"theta_hat0: expected {r} finite base parameters, got {theta_hat0!r}")
    limit = None if tau_max is None else _positive(tau_max, n, "tau_max")
    dt, duration = (positive(x, name, "a finite number > 0 (s)") for name, x in (("dt", dt), ("duration", duration)))
    qd_ref0 = reference(0.0)
    q = model.check_q(qd_ref0[0] if q0 is None else q0, "q0").copy()
    qd = model.check_q(qd_ref0[1] if qd0 is None else qd0, "qd0").copy()

    def control(t, q, qd, a_hat):
        q_d, qd_d, qdd_d = reference(t)
        qd_r = qd_d - Lam * (q - q_d)
        qdd_r = qdd_d - Lam * (qd - qd_d)
        s = qd - qd_r
        Y = slotine_li_regressor(model, q, qd, qd_r, qdd_r, gravity=gravity)[:, base.independent]
        tau = Y @ a_hat - Ks * s
        if limit is not None:
            tau = np.clip(tau, -limit, limit)
        return tau, -Gam * (Y.T @ s), s

    def derivative(t, q, qd, a_hat):
        tau, a_dot, _ = control(t, q, qd, a_hat)
        return qd, aba(model, q, qd, tau, gravity=gravity), a_dot

    n_steps = max(1, int(np.ceil(duration / dt - 1e-9)))
    t = dt * np.arange(n_steps + 1)
    Q, QD, QDES, TAU = (np.zeros((n_steps + 1, n)) for _ in range(4))
    A_HAT, V = np.zeros((n_steps + 1, r)), np.zeros(n_steps + 1)
    a_hat = a0.copy()
    for k in range(n_steps + 1):
        tau, _, s = control(t[k], q, qd, a_hat)
        Q[k], QD[k], QDES[k], TAU[k], A_HAT[k] = q, qd, reference(t[k])[0], tau, a_hat
        err = a_hat - theta
        V[k] = 0.5 * s @ crba(model, q) @ s + 0.5 * err @ (err / Gam)
        if k == n_steps:
            break
        q, qd, a_hat = rk4(derivative, t[k], (q, qd, a_hat), dt)
    return AdaptiveRun(t=t, q=Q, qd=QD, q_d=QDES, tau=TAU, theta_hat=A_HAT, theta=theta, V=V, base=base)


__all__ = ["slotine_li_regressor", "simulate_slotine_li", "adaptation_gains", "AdaptiveRun"]
