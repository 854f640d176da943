"""A point seen from a moving frame: transport, Coriolis and relative acceleration ([LG] appendix, [WJ]).

A frame with origin ``O`` translates and turns (angular velocity ``ω``, angular acceleration ``ω̇``); a
point ``P`` sits at ``p_rel`` from ``O`` and moves *in* the frame with the relative velocity ``v_rel`` and
the relative acceleration ``a_rel`` (相对速度, 相对加速度: the first and second time derivatives of its
coordinates in the moving frame). Differentiating ``p = p_O + R p_rel`` twice, with ``Ṙ x = ω × R x``,
gives the point's real acceleration (course eq. 4.14)::

    p̈ = a_O + ω̇ × p_rel + ω × (ω × p_rel)  +  2 ω × v_rel  +  a_rel
        └──── transport a_tr (牵连加速度) ───┘   Coriolis a_cor     relative
                                                  (科里奥利加速度)

The Coriolis term collects two equal halves: the frame turns the relative velocity (``ω × v_rel``) and
the relative motion carries the point to where the frame moves faster (``ω × v_rel`` again) — hence
the 2 that [LG]'s Newton–Euler section points out for a prismatic joint. Every vector here must be
written in **one** set of axes: the moving frame's (then ``v_rel = ṗ_rel`` literally) or the world's
(then ``p_rel``, ``v_rel``, ``a_rel`` are ``R`` times the frame's coordinates and their rates, and
``ω``, ``ω̇`` the world components); the cross products do not care which, as long as it is one.

:func:`platform_forces` is the case of [LG]'s turning platform (转盘): the frame turns about its own
``z``-axis at ``rate`` (rad/s) through a fixed origin, and the forces the platform must push a mass
``m`` with are ``m`` times the terms above — centripetal ``m ω × (ω × p_rel)``, Coriolis ``2 m ω ×
v_rel``, tangential ``m ω̇ × p_rel`` (the Euler term) and relative ``m a_rel``. For a walker at the
distance ``r`` from the axis going round at the speed ``v`` relative to the platform (``a_rel = −v²/r``
towards the axis) the radial parts sum to ``−m (v + ω r)² / r``: all three point inwards. [LG]
prints the first one as ``+m v²/r``; it is ``−m v²/r`` (lesson 04, §12).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import positive, scalar, vector


class FrameAcceleration(NamedTuple):
    """The terms of a point's acceleration seen from a moving frame (m/s², all in the caller's axes).

    ``origin`` ``a_O``; ``tangential`` ``ω̇ × p_rel`` (the Euler term); ``centripetal`` ``ω × (ω ×
    p_rel)``; ``coriolis`` ``2 ω × v_rel``; ``relative`` ``a_rel``. ``transport`` is the sum of the
    first three (the acceleration of the frame's point that ``P`` momentarily occupies), ``total`` the
    sum of all five, ``p̈``.
    """

    origin: np.ndarray
    tangential: np.ndarray
    centripetal: np.ndarray
    coriolis: np.ndarray
    relative: np.ndarray

    @property
    def transport(self):
        """``a_tr = a_O + ω̇ × p_rel + ω × (ω × p_rel)`` (牵连加速度)."""
        return self.origin + self.tangential + self.centripetal

    @property
    def total(self):
        """``p̈ = a_tr + a_cor + a_rel``, the point's real acceleration."""
        return self.transport + self.coriolis + self.relative


class PlatformForces(NamedTuple):
    """What a turning platform must push a mass with (N, platform axes), term by term (:func:`platform_forces`).

    ``centripetal`` ``m ω × (ω × p_rel)``; ``coriolis`` ``2 m ω × v_rel``; ``tangential`` ``m ω̇ × p_rel``;
    ``relative`` ``m a_rel``; ``total`` their sum, ``m p̈``. :meth:`along` gives the components along
    one direction.
    """

    centripetal: np.ndarray
    coriolis: np.ndarray
    tangential: np.ndarray
    relative: np.ndarray

    @property
    def total(self):
        """``m p̈``, the resultant force on the mass."""
        return self.centripetal + self.coriolis + self.tangential + self.relative

    def along(self, direction):
        """The four terms' components (N) along the unit vector ``direction`` (3,), as a PlatformForces of scalars."""
        u = vector(direction, 3, "direction")
        norm = np.linalg.norm(u)
        if not np.isclose(norm, 1.0, atol=1e-9):
            raise ValueError(f"direction: expected a unit 3-vector, got length {norm:.6g}")
        return PlatformForces(*(float(u @ term) for term in self))


def moving_frame_velocity(omega, p_rel, v_rel, *, v_origin=None):
    """The real velocity ``ṗ = v_O + ω × p_rel + v_rel`` of a point seen from a moving frame (m/s).

    ``omega`` (3,) the frame's angular velocity; ``p_rel`` (3,) the point's position from the frame's
    origin; ``v_rel`` (3,) its velocity relative to the frame; ``v_origin`` (3,) the origin's velocity
    (None: a fixed origin). All in one set of axes (module docstring).

    >>> moving_frame_velocity([0, 0, 2.0], [0.5, 0, 0], [0, 0.3, 0])      # walking round at 0.3 m/s, r = 0.5 m
    array([0. , 1.3, 0. ])
    """
    omega, p_rel, v_rel = vector(omega, 3, "omega"), vector(p_rel, 3, "p_rel"), vector(v_rel, 3, "v_rel")
    v_O = np.zeros(3) if v_origin is None else vector(v_origin, 3, "v_origin")
    return v_O + np.cross(omega, p_rel) + v_rel


def moving_frame_acceleration(omega, omega_dot, p_rel, v_rel, a_rel, *, a_origin=None):
    """The real acceleration of a point seen from a moving frame, term by term (course eq. 4.14).

    ``omega``, ``omega_dot`` (3,) the frame's angular velocity ``ω`` (rad/s) and acceleration ``ω̇``
    (rad/s²); ``p_rel`` (3,) the point's position from the frame's origin ``O`` (m); ``v_rel``,
    ``a_rel`` (3,) its velocity and acceleration relative to the frame (m/s, m/s²); ``a_origin`` (3,)
    ``a_O``, the acceleration of ``O`` (None: a fixed origin). All in one set of axes (module
    docstring). Returns a :class:`FrameAcceleration`; ``.total`` is ``p̈``.

    >>> acc = moving_frame_acceleration([0, 0, 2.0], [0, 0, 0], [0.5, 0, 0], [0.4, 0, 0], [0, 0, 0])
    >>> acc.centripetal, acc.coriolis             # towards the axis; sideways, 2 ω ṙ
    (array([-2.,  0.,  0.]), array([0. , 1.6, 0. ]))
    >>> bool(np.allclose(acc.total, acc.transport + acc.coriolis + acc.relative))
    True
    """
    omega, omega_dot = vector(omega, 3, "omega"), vector(omega_dot, 3, "omega_dot")
    p_rel, v_rel, a_rel = vector(p_rel, 3, "p_rel"), vector(v_rel, 3, "v_rel"), vector(a_rel, 3, "a_rel")
    a_O = np.zeros(3) if a_origin is None else vector(a_origin, 3, "a_origin")
    return FrameAcceleration(origin=a_O,
                             tangential=np.cross(omega_dot, p_rel),
                             centripetal=np.cross(omega, np.cross(omega, p_rel)),
                             coriolis=2.0 * np.cross(omega, v_rel),
                             relative=a_rel)


def platform_forces(mass, rate, p_rel, v_rel, a_rel, *, rate_dot=0.0):
    """The force a platform turning about its ``z``-axis must push a point mass with, split term by term.

    ``mass`` (kg, > 0); ``rate``, ``rate_dot`` the platform's angular velocity and acceleration about its
    ``z``-axis (rad/s, rad/s²; ``ω = rate·e_z``); ``p_rel``, ``v_rel``, ``a_rel`` (3,) the mass's position
    from a point on the axis, its velocity and acceleration relative to the platform, in platform axes.
    Returns :class:`PlatformForces` (N, platform axes); ``.total = m p̈``. [LG]'s walker (r = 0.5 m,
    going round at v = 0.3 m/s on a platform turning at 2 rad/s, m = 60 kg): every radial part points
    to the axis, and they add up to ``−m (v + ω r)² / r``:

    >>> r, v, w, m = 0.5, 0.3, 2.0, 60.0
    >>> F = platform_forces(m, w, [r, 0, 0], [0, v, 0], [-v**2 / r, 0, 0]).along([1.0, 0, 0])
    >>> F.relative, F.coriolis, F.centripetal          # −m v²/r, −2 m v ω, −m ω² r
    (-10.8, -72.0, -120.0)
    >>> bool(np.isclose(F.total, -m * (v + w * r) ** 2 / r))
    True
    """
    m = positive(mass, "mass", "a mass > 0 (kg)")
    w, w_dot = scalar(rate, "rate"), scalar(rate_dot, "rate_dot")
    acc = moving_frame_acceleration([0.0, 0.0, w], [0.0, 0.0, w_dot], p_rel, v_rel, a_rel)
    return PlatformForces(centripetal=m * acc.centripetal, coriolis=m * acc.coriolis,
                          tangential=m * acc.tangential, relative=m * acc.relative)


__all__ = ["FrameAcceleration", "PlatformForces", "moving_frame_acceleration", "moving_frame_velocity",
           "platform_forces"]
