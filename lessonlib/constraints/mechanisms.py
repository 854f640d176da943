"""Sample closed-loop mechanisms: the planar four-bar and the planar five-bar parallel arm ([LG, 平面四连杆的动力学], [LG, 并联臂]).

* :func:`four_bar` — a crank-rocker (Grashof) four-bar as a :class:`ClosedChainModel`: the spanning
  tree is the crank–coupler chain plus the rocker, spliced at the base by
  :func:`~lessonlib.constraints.attach`; the coupler–rocker pin is the cut joint. Helpers: the
  closed-form position analysis :func:`four_bar_angles`, :func:`grashof`, :func:`crank_motion`.
* :func:`four_bar_lagrange` — an **independent** derivation of the four-bar's dynamics with sympy:
  absolute link angles, Lagrange's equations with multipliers for the loop closure; it shares only
  the parameter values with the spanning-tree route (no Model, no twist, no RNEA), so agreement
  between the two is real evidence.
* :func:`five_bar` — two actuated 2-link chains that meet at the end-effector, and
  :func:`parallel_inverse_dynamics` — [LG, 并联臂]'s recipe for parallel arms: split into serial chains,
  run the RNEA on each, redistribute the chain torques to the motors by the power (virtual-work)
  balance. :func:`five_bar_state` gives the chains' motion for an end-effector path.

Planar mechanisms move in the x–y plane (joint axes along z); gravity is ``(0, −9.81, 0)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from .. import se3, spatial
from ..conventions import PLANAR_GRAVITY, RANK_TOL
from ..dynamics import rnea
from ..kinematics import jacobian
from ..model import Frame, Joint, Model
from .loops import ClosedChainModel, LoopConstraint
from .compose import attach

__all__ = ["PLANAR_GRAVITY", "FourBarParams", "FOUR_BAR", "four_bar", "four_bar_angles", "four_bar_q",
           "grashof", "crank_motion", "FourBarLagrange", "four_bar_lagrange", "FiveBarParams", "FIVE_BAR",
           "five_bar_chains", "five_bar", "five_bar_state", "circle_path", "parallel_inverse_dynamics"]

_Z = np.array([0.0, 0.0, 1.0])


def _translation(x, y=0.0):
    return se3.from_Rp(np.eye(3), np.array([x, y, 0.0]))


def _planar_link(m, com_xy, I_zz):
    """A link moving in the x–y plane: mass, COM ``(x, y)`` in its frame, ``I_zz`` about the COM.

    The rotational inertia is that of a rod along x (``diag(0, I_zz, I_zz)``: physically valid, and
    only ``I_zz`` matters for planar motion).
    """
    return spatial.inertia(m, [com_xy[0], com_xy[1], 0.0], np.diag([0.0, I_zz, I_zz]))


def _positive(values, name, count):
    a = np.asarray(values, dtype=float).reshape(-1)
    if a.shape != (count,) or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(f"{name}: expected {count} finite values > 0, got {values!r}")
    return tuple(float(x) for x in a)


# --------------------------------------------------------------------------------------------------
# The four-bar
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FourBarParams:
    """Geometry and inertia of a planar four-bar (SI units).

    ``lengths = (ground, crank, coupler, rocker)``: pivot distances. The crank turns about the world
    origin ``O2``; the rocker about ``O4 = (ground, 0)``; the coupler joins the crank tip to the
    rocker tip. ``masses``, ``coms`` (x along the link from its pivot, y to the left of it) and
    ``I_zz`` (about the COM) for crank, coupler and rocker. ``I_zz=None``: thin rods, ``m L²/12``.
    """

    lengths: tuple = (0.4, 0.1, 0.35, 0.3)
    masses: tuple = (0.3, 0.8, 0.6)
    coms: tuple = ((0.05, 0.0), (0.175, 0.02), (0.15, 0.0))
    I_zz: tuple | None = None

    def __post_init__(self):
        object.__setattr__(self, "lengths", _positive(self.lengths, "lengths", 4))
        object.__setattr__(self, "masses", _positive(self.masses, "masses", 3))
        coms = np.asarray(self.coms, dtype=float)
        if coms.shape != (3, 2) or not np.all(np.isfinite(coms)):
            raise ValueError(f"coms: expected three (x, y) points, got {self.coms!r}")
        object.__setattr__(self, "coms", tuple(tuple(float(v) for v in c) for c in coms))
        if self.I_zz is None:
            L = self.lengths[1:]
            object.__setattr__(self, "I_zz", tuple(m * l * l / 12.0 for m, l in zip(self.masses, L)))
        else:
            object.__setattr__(self, "I_zz", _positive(self.I_zz, "I_zz", 3))


#: The course's crank-rocker: ground 0.4, crank 0.1, coupler 0.35, rocker 0.3 m (Grashof: 0.5 < 0.65).
FOUR_BAR = FourBarParams()


def grashof(lengths):
    """Grashof's classification of a four-bar with ``lengths = (ground, crank, coupler, rocker)``.

    With ``s, l`` the shortest and longest link and ``p, q`` the others: ``s + l < p + q`` lets the
    shortest link turn fully — a ``"crank-rocker"`` when it is adjacent to the ground, a
    ``"double-crank"`` when it is the ground, a ``"double-rocker"`` when it is the coupler;
    ``s + l = p + q`` is a ``"change-point"`` linkage; otherwise ``"non-Grashof"`` (no link turns fully).

    >>> grashof((0.4, 0.1, 0.35, 0.3))
    'crank-rocker'
    """
    L = _positive(lengths, "lengths", 4)
    s, l = min(L), max(L)
    p_plus_q = sum(L) - s - l
    if np.isclose(s + l, p_plus_q):
        return "change-point"
    if s + l > p_plus_q:
        return "non-Grashof"
    shortest = int(np.argmin(L))
    return {0: "double-crank", 1: "crank-rocker", 2: "double-rocker", 3: "crank-rocker"}[shortest]


def four_bar(params=FOUR_BAR, *, gravity=PLANAR_GRAVITY):
    """The planar four-bar as a :class:`ClosedChainModel` (crank actuated and independent).

    Spanning tree (3 bodies, joints about z): body 0 the crank (frame at ``O2``, x along the crank),
    body 1 the coupler (frame at the crank tip, ``q_1`` relative to the crank), body 2 the rocker
    (frame at ``O4``). So ``q = (θ2, θ3 − θ2, θ4)`` in absolute link angles. The cut joint is the
    coupler–rocker pin: a ``"planar_revolute"`` between ``(coupler, 0, 0)`` on body 1 and
    ``(rocker, 0, 0)`` on body 2 (2 rows: dof = 3 − 2 = 1). Frames ``"coupler_tip"`` and
    ``"rocker_tip"`` mark the pin on both sides (the viewer draws the closed loop through them).

    >>> fb = four_bar()
    >>> fb.n, fb.m, fb.dof, fb.actuated
    (3, 2, 1, (0,))
    """
    if not isinstance(params, FourBarParams):
        raise ValueError(f"params: expected a FourBarParams, got {type(params).__name__}")
    ground, crank, coupler, rocker = params.lengths
    m, c, I = params.masses, params.coms, params.I_zz
    chain = Model([-1, 0], [Joint("revolute", _Z, name="crank"), Joint("revolute", _Z, name="coupler")],
                  [np.eye(4), _translation(crank)],
                  [_planar_link(m[0], c[0], I[0]), _planar_link(m[1], c[1], I[1])],
                  body_names=("crank", "coupler"), gravity=gravity,
                  frames=(Frame("coupler_tip", 1, _translation(coupler)),), name="crank_coupler")
    rocker_arm = Model([-1], [Joint("revolute", _Z, name="rocker")], [np.eye(4)],
                       [_planar_link(m[2], c[2], I[2])], body_names=("rocker",), gravity=gravity,
                       frames=(Frame("rocker_tip", 0, _translation(rocker)),), name="rocker")
    tree = attach(chain, rocker_arm, None, _translation(ground), name="four_bar_tree")
    pin = LoopConstraint(1, _translation(coupler), 2, _translation(rocker), "planar_revolute", name="pin")
    return ClosedChainModel(tree, [pin], actuated=[0], name="four_bar")


def four_bar_angles(params, theta2, *, branch=1):
    """Closed-form position analysis: absolute coupler and rocker angles ``(θ3, θ4)`` for crank ``θ2``.

    The pin ``C`` is where the circle of radius ``coupler`` about the crank tip ``P`` meets the circle
    of radius ``rocker`` about ``O4``; ``branch=+1`` takes ``C`` to the left of the line from ``P`` to
    ``O4`` (above the ground at ``θ2 = 0``: the open configuration), ``−1`` the other (crossed).
    Works on arrays of ``θ2``. ``ValueError`` where the loop cannot close.

    >>> t3, t4 = four_bar_angles(FOUR_BAR, 0.0)       # crank along +x: P = (0.1, 0), O4 = (0.4, 0)
    >>> round(float(t3), 6), round(float(t4), 6)
    (0.94797, 1.895939)
    >>> pin = [0.1, 0.0] + 0.35 * np.array([np.cos(t3), np.sin(t3)])       # C from the crank side ...
    >>> bool(np.allclose(pin, [0.4 + 0.3 * np.cos(t4), 0.3 * np.sin(t4)]))   # ... and from the rocker
    True
    """
    ground, crank, coupler, rocker = params.lengths
    if branch not in (1, -1):
        raise ValueError(f"branch: expected +1 or -1, got {branch!r}")
    th = np.asarray(theta2, dtype=float)
    P = np.stack([crank * np.cos(th), crank * np.sin(th)])
    D = np.array([ground, 0.0]).reshape((2,) + (1,) * th.ndim) - P
    d = np.hypot(D[0], D[1])
    a = (coupler**2 - rocker**2 + d**2) / (2 * d)
    h2 = coupler**2 - a**2
    if np.any(h2 < 0):
        raise ValueError(f"theta2: the loop cannot close at some crank angle (links too short): {theta2!r}")
    u = D / d
    C = P + a * u + branch * np.sqrt(h2) * np.stack([-u[1], u[0]])
    theta3 = np.arctan2(C[1] - P[1], C[0] - P[0])
    theta4 = np.arctan2(C[1], C[0] - ground)
    return theta3, theta4


def four_bar_q(params, theta2, *, branch=1):
    """Tree coordinates ``q = (θ2, θ3 − θ2, θ4)`` of :func:`four_bar` at crank angle ``θ2`` (closed form)."""
    theta3, theta4 = four_bar_angles(params, theta2, branch=branch)
    return np.array([float(theta2), float(theta3 - theta2), float(theta4)])


def crank_motion(t, *, speed=2 * np.pi, ramp_time=0.0, theta0=0.0):
    """A crank motion ``(θ, θ̇, θ̈)`` (arrays like ``t``): constant ``speed``, or a smooth speed-up.

    With ``ramp_time = T > 0`` the speed rises from 0 as ``speed · (3x² − 2x³)``, ``x = t/T``, then
    stays constant (``θ̈`` continuous, zero at both ends of the ramp).

    >>> th, thd, thdd = crank_motion([0.0, 0.5, 2.0], ramp_time=1.0)
    >>> np.round(thd / (2 * np.pi), 6)
    array([0. , 0.5, 1. ])
    """
    t = np.asarray(t, dtype=float)
    if ramp_time < 0 or not np.isfinite(ramp_time):
        raise ValueError(f"ramp_time: expected a finite time >= 0 (s), got {ramp_time!r}")
    if ramp_time == 0:
        return theta0 + speed * t, np.full_like(t, speed), np.zeros_like(t)
    T = float(ramp_time)
    x = np.clip(t / T, 0.0, 1.0)
    ramp = t < T
    theta = np.where(ramp, speed * T * (x**3 - x**4 / 2), speed * T / 2 + speed * (t - T))
    theta_d = speed * (3 * x**2 - 2 * x**3)
    theta_dd = np.where(ramp, speed * (6 * x - 6 * x**2) / T, 0.0)
    return theta0 + theta, theta_d, theta_dd


@dataclass(frozen=True)
class FourBarLagrange:
    """The four-bar's equations by Lagrange with multipliers (:func:`four_bar_lagrange`).

    Symbolic (sympy, absolute angles ``θ = (θ2, θ3, θ4)``): ``M`` (3×3), ``h`` (3,) = velocity and
    gravity terms, ``Phi`` (2,) the loop closure ``P + L3 e(θ3) − O4 − L4 e(θ4)``, ``Phi_q`` (2×3).
    The equations are ``M θ̈ + h = [τ, 0, 0]ᵀ + Phi_qᵀ μ``, ``Phi = 0``; ``μ`` is the force (world
    axes) the rocker applies on the coupler at the pin.
    """

    symbols: tuple
    M: sp.Matrix
    h: sp.Matrix
    Phi: sp.Matrix
    Phi_q: sp.Matrix
    params: FourBarParams
    branch: int
    _numeric: object

    def crank_torque(self, theta2, theta2_d, theta2_dd):
        """``(τ, μ, θ, θ̇, θ̈)`` at one crank state: τ (scalar), μ (2,), absolute angles and rates (3,).

        Position by :func:`four_bar_angles`; rates from ``Phi_q θ̇ = 0`` and
        ``Phi_q θ̈ = −(d/dt Phi_q) θ̇``; then ``[e_1  Phi_qᵀ] [τ; μ] = M θ̈ + h``.
        """
        t3, t4 = four_bar_angles(self.params, theta2, branch=self.branch)
        th = np.array([float(theta2), float(t3), float(t4)])
        _, _, Phi_q, _ = self._numeric(th, np.zeros(3))
        Phi_q = np.asarray(Phi_q, dtype=float)
        thd = np.concatenate([[theta2_d], np.linalg.solve(Phi_q[:, 1:], -Phi_q[:, 0] * theta2_d)])
        M, h, Phi_q, Phidot_qd = (np.asarray(a, dtype=float) for a in self._numeric(th, thd))
        thdd = np.concatenate([[theta2_dd], np.linalg.solve(Phi_q[:, 1:],
                                                            -Phi_q[:, 0] * theta2_dd - Phidot_qd.ravel())])
        A = np.column_stack([[1.0, 0.0, 0.0], Phi_q.T])
        x = np.linalg.solve(A, M @ thdd + h.ravel())
        return float(x[0]), x[1:], th, thd, thdd


def four_bar_lagrange(params=FOUR_BAR, *, gravity=PLANAR_GRAVITY, branch=1):
    """Derive the four-bar's equations with sympy, independently of the spanning-tree model.

    Convention: absolute link angles ``θ2, θ3, θ4`` from the x-axis; link ``i``'s COM at
    ``pivot_i + R(θ_i) c_i``; ``T = Σ ½ (m_i |ċ_i|² + I_zz,i θ̇_i²)``, ``U = −Σ m_i gᵀ c_i``;
    Lagrange's equations ``d/dt ∂L/∂θ̇ − ∂L/∂θ = Q + Phi_qᵀ μ`` with the crank torque as ``Q =
    (τ, 0, 0)`` (the motor acts between the ground and the crank). Returns a :class:`FourBarLagrange`
    whose :meth:`~FourBarLagrange.crank_torque` evaluates it numerically (lambdified once here).
    """
    if not isinstance(params, FourBarParams):
        raise ValueError(f"params: expected a FourBarParams, got {type(params).__name__}")
    g = np.asarray(gravity, dtype=float)
    if g.shape != (3,):
        raise ValueError(f"gravity: expected a 3-vector, got {gravity!r}")
    ground, crank, coupler, rocker = (sp.nsimplify(v) for v in params.lengths)
    th = sp.symbols("theta2 theta3 theta4")
    thd = sp.symbols("theta2_d theta3_d theta4_d")
    e = lambda a: sp.Matrix([sp.cos(a), sp.sin(a)])                                    # noqa: E731
    R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])          # noqa: E731
    pivots = [sp.Matrix([0, 0]), crank * e(th[0]), sp.Matrix([ground, 0])]
    coms = [pivots[i] + R(th[i]) * sp.Matrix(params.coms[i]) for i in range(3)]
    qd = sp.Matrix(thd)
    T = 0
    U = 0
    for i in range(3):
        v = coms[i].jacobian(th) * qd
        T += sp.Rational(1, 2) * (params.masses[i] * (v.T * v)[0] + params.I_zz[i] * thd[i] ** 2)
        U += -params.masses[i] * (g[0] * coms[i][0] + g[1] * coms[i][1])
    M = sp.hessian(T, thd)
    p = sp.Matrix([sp.diff(T, v) for v in thd])
    # d/dt ∂T/∂θ̇ = M θ̈ + (∂p/∂θ) θ̇ ; h collects everything but M θ̈
    h = p.jacobian(th) * qd - sp.Matrix([sp.diff(T, a) for a in th]) + sp.Matrix([sp.diff(U, a) for a in th])
    Phi = pivots[1] + coupler * e(th[1]) - pivots[2] - rocker * e(th[2])
    Phi_q = Phi.jacobian(th)
    Phidot_qd = (Phi_q * qd).jacobian(th) * qd
    numeric = sp.lambdify([th, thd], [M, h, Phi_q, Phidot_qd], modules="numpy", cse=True)
    return FourBarLagrange((th, thd), M, h, Phi, Phi_q, params, branch, numeric)


# --------------------------------------------------------------------------------------------------
# The five-bar parallel arm
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FiveBarParams:
    """A planar five-bar: two 2-link chains from pivots ``(0, 0)`` and ``(base, 0)`` meeting at the tip.

    ``proximal``, ``distal``: link lengths of chain 1 and chain 2; ``masses = (proximal1, distal1,
    proximal2, distal2)`` (uniform rods, COM at mid-link); ``payload``: a point mass at the tip,
    carried by chain 1 only ([LG, 并联臂]: a shared part is counted once, in one chain).
    """

    base: float = 0.2
    proximal: tuple = (0.25, 0.25)
    distal: tuple = (0.3, 0.3)
    masses: tuple = (0.5, 0.4, 0.5, 0.4)
    payload: float = 0.3

    def __post_init__(self):
        object.__setattr__(self, "base", _positive([self.base], "base", 1)[0])
        object.__setattr__(self, "proximal", _positive(self.proximal, "proximal", 2))
        object.__setattr__(self, "distal", _positive(self.distal, "distal", 2))
        object.__setattr__(self, "masses", _positive(self.masses, "masses", 4))
        if not (np.isfinite(self.payload) and self.payload >= 0):
            raise ValueError(f"payload: expected a finite mass >= 0 (kg), got {self.payload!r}")


#: The course's five-bar: pivots 0.2 m apart, 0.25 m proximal and 0.3 m distal links, 0.3 kg payload.
FIVE_BAR = FiveBarParams()


def five_bar_chains(params=FIVE_BAR, *, gravity=PLANAR_GRAVITY):
    """The two serial chains of the five-bar, each a 2-link planar Model with a ``"tip"`` frame.

    Returns ``(chain1, chain2, T_0_base2)``: chain 1's base is the world; chain 2's base frame sits at
    ``T_0_base2`` (the pivot ``(base, 0)``). Joint 0 of each chain is its motor; joint 1 is passive.
    """
    if not isinstance(params, FiveBarParams):
        raise ValueError(f"params: expected a FiveBarParams, got {type(params).__name__}")
    chains = []
    for k in range(2):
        l1, l2 = params.proximal[k], params.distal[k]
        m1, m2 = params.masses[2 * k], params.masses[2 * k + 1]
        G2 = _planar_link(m2, (l2 / 2, 0.0), m2 * l2 * l2 / 12)
        if k == 0 and params.payload > 0:
            G2 = G2 + spatial.inertia(params.payload, [l2, 0.0, 0.0], np.zeros((3, 3)))
        chains.append(Model([-1, 0], [Joint("revolute", _Z, name=f"motor{k + 1}"),
                                      Joint("revolute", _Z, name=f"elbow{k + 1}")],
                            [np.eye(4), _translation(l1)],
                            [_planar_link(m1, (l1 / 2, 0.0), m1 * l1 * l1 / 12), G2],
                            body_names=(f"proximal{k + 1}", f"distal{k + 1}"), gravity=gravity,
                            frames=(Frame("tip", 1, _translation(l2)),), name=f"chain{k + 1}"))
    return chains[0], chains[1], _translation(params.base)


def five_bar(params=FIVE_BAR, *, gravity=PLANAR_GRAVITY):
    """The five-bar as a :class:`ClosedChainModel`: the two chains spliced at the base, tips pinned.

    Tree coordinates ``q = (motor1, elbow1, motor2, elbow2)`` (relative angles); the cut joint is
    the tip pin, a ``"planar_revolute"`` between chain 1's tip (body 1) and chain 2's tip (body 3);
    actuated and independent: the motors, joints 0 and 2 (dof 2).

    >>> fiv = five_bar()
    >>> fiv.n, fiv.m, fiv.dof, fiv.actuated
    (4, 2, 2, (0, 2))
    """
    chain1, chain2, T_0_base2 = five_bar_chains(params, gravity=gravity)
    tree = attach(chain1, chain2, None, T_0_base2, name="five_bar_tree")
    pin = LoopConstraint(1, _translation(params.distal[0]), 3, _translation(params.distal[1]),
                         "planar_revolute", name="tip")
    return ClosedChainModel(tree, [pin], actuated=[0, 2], name="five_bar")


def _two_link_ik(l1, l2, x, elbow):
    r2 = x[0] ** 2 + x[1] ** 2
    c2 = (r2 - l1**2 - l2**2) / (2 * l1 * l2)
    if abs(c2) > 1:
        raise ValueError(f"x: the point {x} is out of reach of a {l1} + {l2} m chain")
    q2 = elbow * np.arccos(c2)
    q1 = np.arctan2(x[1], x[0]) - np.arctan2(l2 * np.sin(q2), l1 + l2 * np.cos(q2))
    return np.array([q1, q2])


def five_bar_state(params, x, xd, xdd, *, elbows=(-1, 1)):
    """Tree coordinates ``(q, q̇, q̈)`` (each (4,)) of :func:`five_bar` for an end-effector motion.

    Chain by chain, with the 2-link closed forms (no constraint machinery): inverse kinematics with
    the elbow sign ``elbows[k]`` (+1: the elbow joint turns counter-clockwise, ``q_elbow > 0``), then
    ``q̇_k = J_k⁻¹ ẋ`` and ``q̈_k = J_k⁻¹ (ẍ − J̇_k q̇_k)`` with ``J_k`` the tip-point Jacobian and
    ``J̇_k q̇_k = −l1 θ̇1² e(θ1) − l2 (θ̇1 + θ̇2)² e(θ1 + θ2)``. The default ``(−1, 1)`` puts both
    elbows outward (chain 1's to the left, chain 2's to the right) for a tip above the base.
    """
    x, xd, xdd = (np.asarray(v, dtype=float).reshape(2) for v in (x, xd, xdd))
    out = []
    for k, base_x in enumerate((0.0, params.base)):
        l1, l2 = params.proximal[k], params.distal[k]
        q = _two_link_ik(l1, l2, x - [base_x, 0.0], elbows[k])
        a, b = q[0], q[0] + q[1]
        J = np.array([[-l1 * np.sin(a) - l2 * np.sin(b), -l2 * np.sin(b)],
                      [l1 * np.cos(a) + l2 * np.cos(b), l2 * np.cos(b)]])
        qd = np.linalg.solve(J, xd)
        wa, wb = qd[0], qd[0] + qd[1]
        Jdqd = -l1 * wa**2 * np.array([np.cos(a), np.sin(a)]) - l2 * wb**2 * np.array([np.cos(b), np.sin(b)])
        out.append((q, qd, np.linalg.solve(J, xdd - Jdqd)))
    return tuple(np.concatenate([out[0][i], out[1][i]]) for i in range(3))


def circle_path(t, center, radius, period):
    """A point going round a circle counter-clockwise: ``(x, ẋ, ẍ)``, each (2,) (scalar ``t``)."""
    w = 2 * np.pi / period
    c, s = np.cos(w * t), np.sin(w * t)
    center = np.asarray(center, dtype=float)
    return (center + radius * np.array([c, s]), radius * w * np.array([-s, c]),
            -radius * w * w * np.array([c, s]))


def _regular(A, problem):
    """``A`` unchanged, or ``ValueError`` when it is singular to ``RANK_TOL`` (``problem`` says where)."""
    sigma = np.linalg.svd(A, compute_uv=False)
    if not sigma[-1] > RANK_TOL * sigma[0]:
        raise ValueError(f"states: {problem} (σ_min/σ_max = {sigma[-1] / sigma[0]:.1e}): a singular pose of the "
                         "parallel arm, where the recipe's inverse does not exist; choose a pose away from it")
    return A


def parallel_inverse_dynamics(chains, states, *, actuated, tip="tip", task_rows=(3, 4), gravity=None):
    """Motor torques of a parallel arm by [LG, 并联臂]'s recipe: serial chains + the power balance.

    1. Cut the parallel arm into serial chains that meet at one point (each chain a Model ending in
       the frame ``tip``; a part shared by several chains belongs to one of them only).
    2. Inverse dynamics of each chain alone: ``τ_k = rnea(chain_k, q_k, q̇_k, q̈_k)`` — what its
       joints would need if every joint had a motor.
    3. Redistribute by power. With ``ẋ`` the tip velocity (rows ``task_rows`` of the hybrid tip
       Jacobian ``J_k``, square), ``q̇_k = J_k⁻¹ ẋ``; the motor rates are ``ẏ = A ẋ`` with row ``k`` of
       ``A`` the ``actuated[k]`` row of ``J_k⁻¹``. Equal power for every motion,
       ``τ_aᵀ ẏ = Σ_k τ_kᵀ q̇_k``, gives ``τ_a = A⁻ᵀ Σ_k J_k⁻ᵀ τ_k``.

    ``states``: one ``(q_k, q̇_k, q̈_k)`` per chain; ``actuated``: the motor's joint index in each
    chain. Returns ``τ_a`` (one per chain). ``ValueError`` at a singular pose: a chain whose ``J_k``
    is singular (stretched out or folded), or an ``A`` that is singular (the motors lose control
    of the tip).
    """
    if len(chains) != len(states) or len(chains) != len(actuated):
        raise ValueError(f"chains, states, actuated: expected one entry per chain, got "
                         f"{len(chains)}, {len(states)}, {len(actuated)}")
    rows = list(task_rows)
    A, total = [], 0.0
    for chain, (q, qd, qdd), a in zip(chains, states, actuated):
        J = jacobian(chain, q, tip, frame="hybrid")[rows]
        if J.shape[0] != J.shape[1]:
            raise ValueError(f"task_rows: chain {chain.name!r} has {chain.n} joints but {len(rows)} task rows; "
                             f"the recipe needs square chain Jacobians")
        J_inv = np.linalg.inv(_regular(J, f"chain {chain.name!r} at q = {np.round(q, 6).tolist()} has a "
                                          f"singular tip Jacobian (rows {rows})"))
        A.append(J_inv[a])
        total = total + J_inv.T @ rnea(chain, q, qd, qdd, gravity=gravity)
    A = _regular(np.array(A), "the motors' rates do not determine the tip's velocity (A is singular)")
    return np.linalg.solve(A.T, total)
