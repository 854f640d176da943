"""Lagrange's route: joint equations from the kinetic and potential energies ([WJ §2.1], [DB4 §4.2]).

This module is the course's **independent oracle**. It uses only the Lie-group functions
(:func:`lessonlib.se3.exp`, :func:`~lessonlib.se3.inv`, :func:`~lessonlib.se3.Ad`) on sympy
matrices and never calls a recursive dynamics algorithm, so agreement with RNEA, CRBA and ABA is
real evidence and not a tautology.

Convention: [DB4 §4.2]'s four steps, with the Model's geometry and the course's spatial
vectors ``[ω; v]``:

1. Poses. ``T_p_i(q_i) = T_tree[i] · exp([S_i] q_i)`` (product of exponentials) and
   ``T_0_i = T_0_p · T_p_i``, with ``q_i`` a sympy symbol.
2. Velocities. Body ``i``'s twist in its own frame is ``v_i = J_i q̇``, with the body Jacobian
   ``J_i = Ad(T_p_i⁻¹) J_p + S_i e_iᵀ`` (column ``j`` is ``Ad(T_i_j) S_j`` for each ancestor
   ``j`` of ``i``, zero otherwise).
3. Energies. ``T = Σ_i ½ (m_i v_ciᵀ v_ci + ω_iᵀ I_ci ω_i) = Σ_i ½ v_iᵀ G_i v_i = ½ q̇ᵀ M(q) q̇``
   with the spatial inertia ``G_i`` about the body origin, so ``M = Σ_i J_iᵀ G_i J_i``;
   ``U = −Σ_i m_i gᵀ p_ci`` with ``p_ci = T_0_i (c_i; 1)`` the mass centre in the world and ``g``
   the world gravity vector (zero level: the world origin).
4. Euler–Lagrange ``d/dt ∂L/∂q̇ − ∂L/∂q = τ`` with ``L = T − U`` gives the standard form
   ``M(q) q̈ + C(q, q̇) q̇ + g(q) = τ`` where ``g = ∂U/∂q`` and ``C`` holds the Christoffel
   symbols of the first kind::

       C_ij = Σ_k Γ_ijk q̇_k,   Γ_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)

   (this ``C`` makes ``Ṁ − 2C`` skew-symmetric).

Numbers. The model's constants enter as exact rationals: a float that is, to 4 ulp, a fraction
with denominator ≤ 10⁶ becomes that fraction (``0.5 → 1/2``, ``5·0.5²/12 → 5/48``), values below
1e-14 (e.g. ``cos(π/2)`` in a DH table) become 0, any other float the rational of its shortest
decimal form. The symbolic results are therefore exact for the course's sample arms and within
a few ulp of the float model otherwise.

Cost (symbolic derivation + ``lambdify``, first call, measured on the course's 2-core machine):
2-DoF arms ≈ 0.3–0.6 s, ``planar_3link`` ≈ 1–2.5 s and ``rpr_arm`` ≈ 0.5–1.3 s (both simplified),
``scara`` ≈ 0.5 s, the UR5 (6 DoF) ≈ 4–5 s, [SWC16]'s 7-DoF arm ≈ 9 s. ``C`` is symbolic for
every size (the Christoffel sums are cheap once ``∂M/∂q_k`` exist); the numeric functions
lambdify ``M``, ``∂M/∂q_k`` and ``g`` and form ``C`` from the same sums in numpy. Results are cached per Model
object (and per gravity), so only the first call pays: build a sample once and reuse it.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from .. import se3
from ..conventions import BASE

__all__ = ["LagrangeEquations", "lagrange_symbolic", "lagrange_numeric", "lagrange_terms"]

#: ``simplify="auto"`` runs ``trigsimp`` only for models with at most this many joints.
AUTO_SIMPLIFY_MAX_DOF = 3
#: Model constants smaller than this (in magnitude) are float noise and enter as exact 0.
_ZERO = 1e-14
_MAX_DENOMINATOR = 10**6

# Caches, keyed weakly by the (immutable) Model: a Model that goes away takes its entries along.
_DERIVATIONS = weakref.WeakKeyDictionary()      # model -> _Derivation (gravity kept symbolic)
_EQUATIONS = weakref.WeakKeyDictionary()        # model -> {(gravity, simplify): LagrangeEquations, …}
_NUMERIC = weakref.WeakKeyDictionary()          # model -> lambdified (q, q̇, g) -> (M, C, g)


@dataclass(frozen=True, eq=False)
class LagrangeEquations:
    """The joint equations ``M(q) q̈ + C(q, q̇) q̇ + g(q) = τ`` of one Model, as sympy objects.

    Convention: ``T = ½ q̇ᵀ M q̇``, ``U = −Σ m_i gᵀ p_ci``, ``g = ∂U/∂q``,
    ``C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k`` ([WJ §2.1], [DB4 §4.2]).

    Fields: ``q``, ``qd``, ``qdd`` — tuples of sympy symbols ``q1..qn``, ``qd1..qdn``,
    ``qdd1..qddn``; ``M`` (n, n), ``C`` (n, n), ``g`` (n, 1) — immutable sympy matrices;
    ``dM`` — the tuple ``(∂M/∂q_1, …, ∂M/∂q_n)``; ``T``, ``U`` — kinetic and potential energy
    (J); ``gravity`` — the world gravity vector used (floats); ``simplified`` — whether
    ``trigsimp`` was applied; ``model_name``.
    """

    q: tuple
    qd: tuple
    qdd: tuple
    M: sp.ImmutableMatrix
    C: sp.ImmutableMatrix
    g: sp.ImmutableMatrix
    dM: tuple
    T: sp.Expr
    U: sp.Expr
    gravity: tuple
    simplified: bool
    model_name: str

    @property
    def n(self):
        """Number of joints."""
        return len(self.q)

    @property
    def c(self):
        """Velocity term ``c(q, q̇) = C(q, q̇) q̇`` (n, 1): Coriolis and centrifugal torques."""
        return sp.ImmutableMatrix(self.C * sp.Matrix(self.qd))

    @property
    def tau_expr(self):
        """The standard form ``τ = M q̈ + C q̇ + g`` (n, 1) in the symbols ``q, qd, qdd``."""
        return sp.ImmutableMatrix(self.M * sp.Matrix(self.qdd) + self.c + self.g)

    @property
    def Mdot(self):
        """``Ṁ = Σ_k ∂M/∂q_k q̇_k`` (n, n); ``Ṁ − 2C`` is skew-symmetric."""
        out = sp.zeros(self.n, self.n)
        for dM_k, qd_k in zip(self.dM, self.qd):
            out += dM_k * qd_k
        return sp.ImmutableMatrix(out)

    @property
    def L(self):
        """The Lagrangian ``L = T − U``."""
        return self.T - self.U


@dataclass(frozen=True, eq=False)
class _Derivation:
    """Raw (unsimplified) equations of a Model with the gravity vector left as symbols."""

    q: tuple
    qd: tuple
    qdd: tuple
    gravity: tuple          # three sympy Dummies (g_x, g_y, g_z)
    M: sp.ImmutableMatrix
    dM: tuple
    U: sp.Expr
    g: sp.ImmutableMatrix


# --- exact constants --------------------------------------------------------------------------

def _exact(x):
    """A float model constant as an exact sympy Rational (see the module docstring)."""
    x = float(x)
    if abs(x) < _ZERO:
        return sp.Integer(0)
    f = Fraction(x).limit_denominator(_MAX_DENOMINATOR)
    if abs(float(f) - x) <= 4 * np.spacing(abs(x)):
        return sp.Rational(f.numerator, f.denominator)
    return sp.Rational(repr(x))


def _exact_matrix(a):
    a = np.atleast_2d(np.asarray(a, dtype=float))
    return sp.Matrix(a.shape[0], a.shape[1], [_exact(x) for x in a.flat])


def _exact_vector(a):
    return sp.Matrix([_exact(x) for x in np.asarray(a, dtype=float)])


# --- the derivation ---------------------------------------------------------------------------

def _symbols(n):
    return (sp.symbols(f"q1:{n + 1}"), sp.symbols(f"qd1:{n + 1}"), sp.symbols(f"qdd1:{n + 1}"))


def _christoffel(M_dq, qd):
    """``C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) q̇_k`` from ``M_dq[k] = ∂M/∂q_k``."""
    n = len(qd)
    half = sp.Rational(1, 2)
    return sp.ImmutableMatrix(n, n, lambda i, j: sp.Add(*[
        half * (M_dq[k][i, j] + M_dq[j][i, k] - M_dq[i][j, k]) * qd[k] for k in range(n)]))


def _symmetric(n, entry):
    """The symmetric n×n matrix whose upper triangle is ``entry(i, j)``, i ≤ j."""
    A = sp.zeros(n, n)
    for i in range(n):
        for j in range(i, n):
            A[i, j] = A[j, i] = entry(i, j)
    return A


def _derive(model):
    """Steps 1–4 of the module docstring for one Model (cached; gravity stays symbolic)."""
    if model in _DERIVATIONS:
        return _DERIVATIONS[model]
    n = model.n
    q, qd, qdd = _symbols(n)
    gravity = sp.symbols("g_x g_y g_z", cls=sp.Dummy)
    g_world = sp.Matrix(gravity)
    T_0 = [None] * n                                  # world poses T_0_i
    J = [None] * n                                    # body Jacobians J_i (6, n)
    M = sp.zeros(n, n)
    U = sp.Integer(0)
    for i in range(n):                                # outward: poses, Jacobians, energies
        joint, S_i = model.joints[i], _exact_vector(model.S[i])
        scale = _exact(joint.scale)                   # 1 for every real joint
        T_p_i = _exact_matrix(model.T_tree[i]) * se3.exp(S_i / scale, angle=scale * q[i])
        p = model.parent[i]
        T_0[i] = T_p_i if p == BASE else T_0[p] * T_p_i
        J[i] = sp.zeros(6, n) if p == BASE else se3.Ad(se3.inv(T_p_i)) * J[p]
        J[i][:, i] = S_i
        G_i = _exact_matrix(model.inertia[i])
        GJ = G_i * J[i]
        M += _symmetric(n, lambda a, b: (J[i][:, a].T * GJ[:, b])[0])       # J_iᵀ G_i J_i
        p_ci = T_0[i][:3, :3] * _exact_vector(model.com[i]) + T_0[i][:3, 3]
        U -= _exact(model.mass[i]) * (g_world.T * p_ci)[0]                 # −m_i gᵀ p_ci
    M = sp.ImmutableMatrix(M)
    dM = tuple(sp.ImmutableMatrix(_symmetric(n, lambda a, b: M[a, b].diff(q_k))) for q_k in q)
    g = sp.ImmutableMatrix([U.diff(q_k) for q_k in q])
    out = _Derivation(q=q, qd=qd, qdd=qdd, gravity=gravity, M=M, dM=dM, U=U, g=g)
    _DERIVATIONS[model] = out
    return out


def _check_simplify(simplify):
    if isinstance(simplify, (bool, np.bool_)):
        return bool(simplify)
    if simplify == "auto":
        return None
    raise ValueError(f"simplify: expected True, False or 'auto', got {simplify!r}")


def lagrange_symbolic(model, *, gravity=None, simplify="auto"):
    """Equations of motion ``M(q) q̈ + C(q, q̇) q̇ + g(q) = τ`` derived from the energies (sympy).

    Convention: ``T = ½ q̇ᵀ M q̇`` with ``M = Σ J_iᵀ G_i J_i`` (body Jacobians, spatial inertias),
    ``U = −Σ m_i gᵀ p_ci``, ``g = ∂U/∂q``, ``C`` from the Christoffel symbols of ``M``
    ([WJ §2.1], [DB4 §4.2]; see the module docstring). Uses no dynamics algorithm.

    Parameters: ``model`` — a :class:`~lessonlib.model.Model`; ``gravity`` — world gravity
    3-vector (None: the model's default); ``simplify`` — ``True`` (``trigsimp`` every entry of
    ``M``, ``U`` and ``g``; slow beyond 3 joints), ``False`` (raw expressions) or ``"auto"``
    (simplify when ``n ≤ 3``). Returns an immutable :class:`LagrangeEquations`, cached per
    Model, gravity and simplify: calling again returns the same object.

    [WJ §2.1]'s pendulum (uniform 1 m, 1 kg rod; q = 0 hangs down): ``M = [I_O] = [1/3]``,
    ``g = m g₀ ℓ sin q`` with ℓ = 0.5 m:

    >>> from lessonlib import samples
    >>> eq = lagrange_symbolic(samples.pendulum())
    >>> eq.M, eq.g, eq.C
    (Matrix([[1/3]]), Matrix([[981*sin(q1)/200]]), Matrix([[0]]))
    >>> eq.tau_expr
    Matrix([[qdd1/3 + 981*sin(q1)/200]])
    """
    flag = _check_simplify(simplify)
    g_vec = model.gravity_or_default(gravity)
    simplified = model.n <= AUTO_SIMPLIFY_MAX_DOF if flag is None else flag
    key = (tuple(float(x) for x in g_vec), simplified)
    per_model = _EQUATIONS.setdefault(model, {})
    if key in per_model:
        return per_model[key]
    d = _derive(model)
    M, dM, C, T = _inertial_part(model, d, simplified)
    values = dict(zip(d.gravity, (_exact(x) for x in g_vec)))
    U = d.U.xreplace(values)
    if simplified:
        U = sp.trigsimp(U)
        g = sp.ImmutableMatrix([sp.trigsimp(U.diff(q_k)) for q_k in d.q])
    else:
        g = d.g.xreplace(values)
    eq = LagrangeEquations(q=d.q, qd=d.qd, qdd=d.qdd, M=M, C=C, g=g, dM=dM, T=T, U=U,
                           gravity=key[0], simplified=simplified, model_name=model.name)
    per_model[key] = eq
    return eq


def _inertial_part(model, d, simplified):
    """``(M, dM, C, T)``, which do not depend on gravity: shared by every gravity (cached)."""
    per_model = _EQUATIONS.setdefault(model, {})
    key = ("inertial", simplified)
    if key not in per_model:
        M, dM = d.M, d.dM
        if simplified:
            M = sp.ImmutableMatrix(_symmetric(model.n, lambda a, b: sp.trigsimp(M[a, b])))
            dM = tuple(sp.ImmutableMatrix(M.diff(q_k)) for q_k in d.q)
        qd = sp.Matrix(d.qd)
        per_model[key] = (M, dM, _christoffel(dM, d.qd), (qd.T * M * qd)[0] / 2)
    return per_model[key]


def _numeric(model):
    """``(q, g_world) -> (M, ∂M/∂q_1, …, ∂M/∂q_n, g)``: the raw derivation, lambdified once per Model."""
    if model not in _NUMERIC:
        d = _derive(model)
        _NUMERIC[model] = sp.lambdify([d.q, d.gravity], [d.M, *d.dM, d.g], modules="numpy", cse=True)
    return _NUMERIC[model]


def lagrange_terms(model, q, qd, *, gravity=None):
    """``(M, C, g)`` at one state, evaluated from the Lagrange equations (numpy arrays).

    Convention: as :func:`lagrange_symbolic` (``C`` from the Christoffel symbols, so ``C q̇ = c``
    and ``Ṁ − 2C`` is skew). The raw symbolic ``M``, ``∂M/∂q_k`` and ``g`` (gravity kept as three
    symbols) are lambdified once per Model (numpy backend, ``cse=True``); ``C`` is then assembled
    numerically from the same Christoffel formula, ``C_ij = Σ_k Γ_ijk q̇_k`` — identical to the
    symbolic ``C`` and much cheaper to compile for 6–7 joints. Any gravity costs nothing extra.

    Parameters: ``q``, ``qd`` (n,); ``gravity`` world 3-vector (None: the model's default).
    Returns ``M`` (n, n), ``C`` (n, n), ``g`` (n,).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> M, C, g = lagrange_terms(samples.pendulum(), [np.pi / 2], [1.0])
    >>> float(M[0, 0]), float(C[0, 0]), round(float(g[0]), 12)     # m g₀ ℓ = 9.81 · 0.5
    (0.3333333333333333, 0.0, 4.905)
    """
    q = model.check_q(q, "q")
    qd = model.check_q(qd, "qd")
    return _terms(model, q, qd, model.gravity_or_default(gravity))


def _terms(model, q, qd, g_vec):
    n = model.n
    M, *dM, g = _numeric(model)(q, g_vec)
    M_dq = np.asarray(dM, dtype=float).reshape(n, n, n)          # M_dq[k, i, j] = ∂M_ij/∂q_k
    Gamma = 0.5 * (M_dq.transpose(1, 2, 0) + M_dq.transpose(1, 0, 2) - M_dq)   # Γ[i, j, k]
    C = Gamma @ qd                                                 # C_ij = Σ_k Γ_ijk q̇_k
    return np.asarray(M, dtype=float).reshape(n, n), C, np.asarray(g, dtype=float).reshape(n)


def lagrange_numeric(model, q, qd, qdd, *, gravity=None):
    """Joint torques ``τ = M(q) q̈ + C(q, q̇) q̇ + g(q)`` from the Lagrange equations, (n,).

    Convention: as :func:`lagrange_symbolic`; no friction, no external forces. Evaluates the
    lambdified equations of :func:`lagrange_terms` (the first call per Model pays for the
    derivation). Parameters: ``q``, ``qd``, ``qdd`` (n,); ``gravity`` world 3-vector or None.

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> tau = lagrange_numeric(samples.pendulum(), [np.pi / 2], [0.0], [3.0])   # I_O q̈ + m g₀ ℓ
    >>> round(float(tau[0]), 12)
    5.905
    """
    q = model.check_q(q, "q")
    qd = model.check_q(qd, "qd")
    qdd = model.check_q(qdd, "qdd")
    M, C, g = _terms(model, q, qd, model.gravity_or_default(gravity))
    return M @ qdd + C @ qd + g
