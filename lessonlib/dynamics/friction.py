"""Joint friction models ``τ_f(q̇)`` ([WJ §2.1], [DB4 §4.3–4.4]).

Convention ([WJ §2.1]): ``τ_f`` is the torque the actuator must overcome, so it has the sign of
the velocity and enters the standard form as ``M q̈ + c + g + τ_f = τ_a + τ_ext``; the power it
dissipates is ``q̇ᵀ τ_f ≥ 0``. Every parameter is per joint: a scalar (same for every joint) or a
sequence broadcast against ``qd``; all parameters must be ≥ 0.

==========================  ===========================================================
model                       ``τ_f(q̇)`` per joint
==========================  ===========================================================
:func:`viscous`             ``b q̇``                                    ([WJ §2.1]: ``B_v q̇``)
:func:`coulomb`             ``f_c sign(q̇)``                           (discontinuous at 0)
:func:`coulomb_smooth`      ``f_c tanh(q̇ / ε)``                       (→ coulomb as ε → 0)
:func:`stribeck`            ``(f_c + (f_s − f_c) e^{−|q̇/v_s|^δ}) tanh(q̇/ε) + b q̇``
==========================  ===========================================================

The smooth forms replace ``sign`` by ``tanh(q̇/ε)`` so that an ODE integrator can step through
``q̇ = 0``; they cannot make a joint *stick* (that needs a stick–slip model), only slow it down.

>>> import numpy as np
>>> viscous([2.0, -1.0], b=0.5)
array([ 1. , -0.5])
>>> coulomb([2.0, -1.0, 0.0], fc=[0.3, 0.3, 0.3])
array([ 0.3, -0.3,  0. ])
>>> friction = Friction(viscous=0.1, coulomb=0.2)            # smooth Coulomb, ε = 1e-3 rad/s
>>> friction([1.0, -1.0]).round(12)
array([ 0.3, -0.3])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as validate

#: Default smoothing velocity ε (rad/s or m/s) of ``tanh(q̇/ε)``.
SMOOTH_EPS = 1e-3
#: Default exponent δ of the Stribeck curve (2: Gaussian).
STRIBECK_DELTA = 2.0


def _velocity(qd):
    qd = np.asarray(qd, dtype=float)
    if not np.all(np.isfinite(qd)):
        raise ValueError(f"qd: expected finite joint velocities, got {qd}")
    return qd


def _param(x, name, *, positive=False):
    """A friction parameter as a float array, checked ≥ 0 (or > 0)."""
    a = np.asarray(x, dtype=float)
    bad = ~np.isfinite(a) | ((a <= 0) if positive else (a < 0))
    if np.any(bad):
        raise ValueError(f"{name}: expected finite values {'> 0' if positive else '>= 0'} "
                         f"(scalar or one per joint), got {x!r}")
    return a


def _sign(qd, eps):
    """``sign(q̇)`` (``eps = 0``) or its smooth version ``tanh(q̇/ε)``."""
    return np.sign(qd) if eps == 0 else np.tanh(qd / eps)


def viscous(qd, b):
    """Viscous friction ``τ_f = b q̇`` (``b`` in N·m·s/rad or N·s/m, ≥ 0)."""
    return _param(b, "b") * _velocity(qd)


def coulomb(qd, fc):
    """Coulomb friction ``τ_f = f_c sign(q̇)`` (``f_c`` ≥ 0, N·m or N); zero exactly at ``q̇ = 0``."""
    return _param(fc, "fc") * np.sign(_velocity(qd))


def coulomb_smooth(qd, fc, *, eps=SMOOTH_EPS):
    """Smoothed Coulomb friction ``τ_f = f_c tanh(q̇/ε)``; tends to :func:`coulomb` as ``ε → 0``.

    >>> round(float(coulomb_smooth(1e-3, 2.0, eps=1e-3)), 6)       # 2 tanh(1)
    1.523188
    """
    return _param(fc, "fc") * np.tanh(_velocity(qd) / float(_param(eps, "eps", positive=True)))


def stribeck(qd, fc, fs, vs, b, *, delta=STRIBECK_DELTA, eps=SMOOTH_EPS):
    """Stribeck friction: static level ``f_s`` near rest, Coulomb level ``f_c`` when sliding, plus viscous.

    ``τ_f = (f_c + (f_s − f_c) exp(−|q̇/v_s|^δ)) tanh(q̇/ε) + b q̇``; ``v_s`` > 0 is the Stribeck
    velocity, ``δ`` > 0 the shape exponent (2: Gaussian), ``ε`` the smoothing velocity
    (``eps=0``: the discontinuous ``sign``). Near rest ``|τ_f| ≤ max(f_s, f_c) + b|q̇|``.

    >>> round(float(stribeck(0.1, fc=1.0, fs=1.5, vs=0.1, b=0.2)), 6)   # (1 + 0.5/e)·tanh(100) + 0.02
    1.203940
    """
    qd = _velocity(qd)
    fc, fs, b = _param(fc, "fc"), _param(fs, "fs"), _param(b, "b")
    vs = _param(vs, "vs", positive=True)
    delta = float(_param(delta, "delta", positive=True))
    eps = float(_param(eps, "eps"))
    level = fc + (fs - fc) * np.exp(-np.abs(qd / vs) ** delta)
    return level * _sign(qd, eps) + b * qd


@dataclass(frozen=True)
class Friction:
    """A joint friction law, callable as ``tau_f = friction(qd)`` (for :func:`~lessonlib.dynamics.simulate.simulate`).

    ``viscous`` ``b``; ``coulomb`` ``f_c``; ``static`` ``f_s`` and ``stribeck_velocity`` ``v_s``
    (give both to use :func:`stribeck`, neither for viscous + Coulomb); ``delta`` the Stribeck
    exponent; ``smooth`` replaces ``sign`` by ``tanh(q̇/eps)``. Each parameter is a scalar or one
    value per joint.

    >>> f = Friction(viscous=0.1, coulomb=0.5, static=0.8, stribeck_velocity=0.05)
    >>> f([0.0, 1.0]).round(6)                                       # at rest: 0; sliding: 0.5 + 0.1
    array([0. , 0.6])
    """

    viscous: object = 0.0
    coulomb: object = 0.0
    static: object = None
    stribeck_velocity: object = None
    delta: float = STRIBECK_DELTA
    smooth: bool = True
    eps: float = SMOOTH_EPS

    def __post_init__(self):
        _param(self.viscous, "viscous")
        _param(self.coulomb, "coulomb")
        if (self.static is None) != (self.stribeck_velocity is None):
            raise ValueError("static, stribeck_velocity: give both (Stribeck model) or neither, "
                             f"got static={self.static!r}, stribeck_velocity={self.stribeck_velocity!r}")
        if self.static is not None:
            _param(self.static, "static")
            _param(self.stribeck_velocity, "stribeck_velocity", positive=True)
        _param(self.delta, "delta", positive=True)
        _param(self.eps, "eps", positive=True)

    def __call__(self, qd):
        """``τ_f(q̇)``, the same shape as ``qd``."""
        eps = self.eps if self.smooth else 0.0
        if self.static is not None:
            return stribeck(qd, self.coulomb, self.static, self.stribeck_velocity, self.viscous,
                            delta=self.delta, eps=eps)
        qd = _velocity(qd)
        return _param(self.coulomb, "coulomb") * _sign(qd, eps) + viscous(qd, self.viscous)


# --- friction as a regressor (identification, [DB4 §4.4]) -------------------------------------------

#: Friction laws :func:`friction_regressor` knows, with the names of their per-joint parameters.
FRICTION_PARAMETERS = {"none": (), "coulomb_viscous": ("b", "fc"), "stribeck": ("b", "fc", "fs")}


def friction_regressor(qd, law, *, vs=None, delta=STRIBECK_DELTA, eps=SMOOTH_EPS):
    """``Φ`` (..., k) with ``τ_f,j = Φ[..., j, :] · φ_j``: each friction law as linear in its parameters.

    ``law``:

    * ``"none"``: k = 0;
    * ``"coulomb_viscous"``: ``φ = (b, f_c)``, ``Φ = (q̇, σ(q̇))``;
    * ``"stribeck"``: ``φ = (b, f_c, f_s)``, ``Φ = (q̇, σ(q̇)(1 − e), σ(q̇) e)`` with
      ``e = exp(−|q̇/v_s|^δ)`` — :func:`stribeck` rewritten as ``f_c σ (1 − e) + f_s σ e + b q̇``.
      It is linear in ``(b, f_c, f_s)`` only for a given Stribeck velocity ``vs`` (scalar or one per
      joint), which an identification must search for separately.

    ``σ(q̇) = tanh(q̇/ε)`` (``eps`` > 0; ``eps=0``: ``sign``). ``qd`` (..., n).

    >>> import numpy as np
    >>> Phi = friction_regressor(np.array([[0.1, -2.0]]), "stribeck", vs=0.1)
    >>> bool(np.allclose(Phi @ [0.2, 1.0, 1.5], stribeck([[0.1, -2.0]], 1.0, 1.5, 0.1, 0.2)))
    True
    """
    validate.one_of(law, FRICTION_PARAMETERS, "law")
    qd = _velocity(qd)
    sigma = _sign(qd, float(_param(eps, "eps")))
    if law == "none":
        return np.zeros(qd.shape + (0,))
    if law == "coulomb_viscous":
        return np.stack([qd, sigma], axis=-1)
    if vs is None:
        raise ValueError("vs: the Stribeck law needs the Stribeck velocity (scalar or one per joint), got None")
    e = np.exp(-np.abs(qd / _param(vs, "vs", positive=True)) ** float(_param(delta, "delta", positive=True)))
    return np.stack([qd, sigma * (1 - e), sigma * e], axis=-1)
