"""The dynamics are linear in the inertial parameters: ``τ = Y(q, q̇, q̈) θ`` ([DB4 §4.3–4.4]).

Letters: this module writes the standard parameters ``θ`` (lesson 11 and ``course/NOTATION.md``: bold π), the
base parameters ``θ_b = K θ`` (π_b = K_b π) and the stacked regressor ``W`` (bold Y); parameter labels count bodies
from 1.

Standard parameters. Body ``i`` has ten, in the order :data:`PARAMETER_NAMES`::

    θ_i = [m, m c_x, m c_y, m c_z, I_xx, I_xy, I_xz, I_yy, I_yz, I_zz]

``c`` is the mass centre in body frame ``i``; ``I_..`` are the entries of the rotational inertia
matrix **about the body-frame origin** (not the COM), in body axes: ``I_O = I_c + m([c]ᵀ[c])``,
so ``I_xy = −∫ x y dm``. The spatial inertia is linear in them, ``I_i = Σ_k θ_ik E_k``
(:data:`INERTIA_BASIS`), and ``θ = [θ_0; …; θ_{n−1}]`` has ``10 n`` entries.

Regressor (computed by: the spatial RNEA of [WJ §2.2] with every wrench replaced by the 6×10n
matrix that maps ``θ`` to it). Each body's wrench is linear in its own parameters,

    f_i = I_i a_i + v_i ×* I_i v_i = A(v_i, a_i) θ_i,   A[:, k] = E_k a_i + ad*(v_i) E_k v_i,

and the inward pass ``f_p += X_i_pᵀ f_i``, ``τ_i = S_iᵀ f_i`` is linear too, so it carries the
matrices instead of the vectors: two loops, exactly the shape of :func:`~lessonlib.dynamics.rnea`.

Base parameters. Some columns of ``Y`` are zero or combinations of others for every motion
(a link's parameters that never move, a mass that only appears as ``m l`` …). Regressors stacked
over random states reveal them numerically (Gautier's method): the rank ``r`` from the singular
values, ``r`` independent columns by QR (Gram–Schmidt) in a fixed column order. The base
parameters ``θ_b = K θ`` are the only combinations that the torques can reveal, and
``τ = Y_b θ_b`` with ``Y_b`` the independent columns. Identification ([DB4 §4.4]: exciting
Fourier trajectory, least squares, R² on the torques) estimates ``θ_b``.

>>> import numpy as np
>>> from lessonlib import samples
>>> from lessonlib.dynamics import rnea
>>> arm = samples.planar_2link()
>>> q, qd, qdd = np.array([0.3, -0.2]), np.array([1.0, 0.5]), np.array([-2.0, 3.0])
>>> bool(np.allclose(regressor(arm, q, qd, qdd) @ inertial_parameters(arm), rnea(arm, q, qd, qdd)))
True
>>> base_parameters(arm).rank           # planar 2R, gravity in the plane: 3 per link
6
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as validate
from .. import so3, spatial
from .._operators import ad, ad_dual
from ..conventions import ANG, BASE, LIN
from ..kinematics import joint_transforms
from ..samples import random_state
from ._inputs import base_acceleration, state
from .friction import FRICTION_PARAMETERS, SMOOTH_EPS, STRIBECK_DELTA, friction_regressor

#: Order of a body's ten standard inertial parameters (inertia about the body-frame origin).
PARAMETER_NAMES = ("m", "mc_x", "mc_y", "mc_z", "I_xx", "I_xy", "I_xz", "I_yy", "I_yz", "I_zz")
#: (row, column) of the rotational-inertia entries I_xx, I_xy, I_xz, I_yy, I_yz, I_zz.
_INERTIA_ENTRIES = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))


def _inertia_basis():
    """``E`` (10, 6, 6): ``I(θ) = Σ_k θ_k E_k`` for one body, in the order of PARAMETER_NAMES."""
    E = np.zeros((10, 6, 6))
    E[0][LIN, LIN] = np.eye(3)                                    # m
    for k in range(3):                                            # m c: [[0, m[c]], [m[c]ᵀ, 0]]
        E[1 + k][ANG, LIN] = so3.hat(np.eye(3)[k])
        E[1 + k][LIN, ANG] = so3.hat(np.eye(3)[k]).T
    for k, (r, c) in enumerate(_INERTIA_ENTRIES):                 # I_O, symmetric
        I_O = E[4 + k][ANG, ANG]                                  # a view of the angular block
        I_O[r, c] = I_O[c, r] = 1.0
    E.setflags(write=False)
    return E


#: Basis of the spatial inertia: ``I_i = Σ_k θ_ik INERTIA_BASIS[k]``.
INERTIA_BASIS = _inertia_basis()


def body_parameters(G):
    """The ten standard parameters of one spatial inertia ``G`` (about the body origin)."""
    m, mc, I_O = spatial.mass(G), so3.vee(0.5 * (G[ANG, LIN] - G[ANG, LIN].T)), G[ANG, ANG]
    return np.concatenate([[m], mc, [I_O[r, c] for r, c in _INERTIA_ENTRIES]])


def inertial_parameters(model):
    """Standard parameter vector ``θ`` (10 n,) of a model, body after body (order: :data:`PARAMETER_NAMES`).

    >>> from lessonlib import samples
    >>> inertial_parameters(samples.pendulum()).round(6)     # 1 kg rod, COM (0, −0.5, 0), I_zz about the pivot 1/3
    array([ 1.      ,  0.      , -0.5     ,  0.      ,  0.333333,  0.      ,
            0.      ,  0.      ,  0.      ,  0.333333])
    """
    return np.concatenate([body_parameters(G) for G in model.inertia])


def parameter_labels(model):
    """Names of the entries of ``θ``: ``"m[1]"``, ``"mc_x[1]"``, …, ``"I_zz[n]"`` — bodies counted from 1, as the
    course counts them (``course/NOTATION.md``); ``mc_x`` is the mass times the x-coordinate of the centre of mass."""
    return tuple(f"{name}[{i + 1}]" for i in range(model.n) for name in PARAMETER_NAMES)


def model_with_parameters(model, theta):
    """A new Model with the inertias given by ``θ`` (10 n,): the inverse of :func:`inertial_parameters`.

    Raises ``ValueError`` naming the body when its parameters are not a physical rigid body
    (mass ≤ 0, or a COM inertia that is not positive semi-definite or violates the triangle
    inequalities) — an identified ``θ`` need not be.
    """
    theta = np.asarray(theta, dtype=float)
    if theta.shape != (10 * model.n,) or not np.all(np.isfinite(theta)):
        raise ValueError(f"theta: expected {10 * model.n} finite standard parameters, got shape {theta.shape}")
    G = np.einsum("bk,kij->bij", theta.reshape(model.n, 10), INERTIA_BASIS)
    for i in range(model.n):
        try:
            spatial.check_spatial_inertia(G[i], f"theta (body {i}, {model.body_names[i]!r})")
        except ValueError as err:
            values = ", ".join(f"{k}={v:.6g}" for k, v in zip(PARAMETER_NAMES, theta[10 * i:10 * i + 10]))
            raise ValueError(f"{err}; its parameters: {values}") from None
    return model.replace(inertia=G)


def body_regressor(v, a):
    """``A(v, a)`` (6, 10): the body wrench ``I a + v ×* I v = A θ_body`` for a twist ``v``, acceleration ``a``.

    Column ``k`` is ``E_k a + ad*(v) E_k v`` (:data:`INERTIA_BASIS`).
    """
    return (INERTIA_BASIS @ a).T + ad_dual(v) @ (INERTIA_BASIS @ v).T


def regressor(model, q, qd, qdd, *, gravity=None):
    """The regressor ``Y(q, qd, qdd)`` (n, 10 n): ``τ = Y θ`` exactly (``θ``: :func:`inertial_parameters`).

    Computed by: the RNEA recursion ([WJ §2.2]) carrying 6×10n matrices instead of wrenches;
    gravity enters as ``a_0 = [0; −g]`` (``gravity`` None: the model's default). Cost O(n²).
    """
    q, qd, qdd = state(model, q, qd, qdd)
    S, parent, n = model.S, model.parent, model.n
    X = joint_transforms(model, q)
    a_0 = base_acceleration(model, gravity)
    v, a = np.zeros((n, 6)), np.zeros((n, 6))
    F = np.zeros((n, 6, 10 * n))                    # F[i] θ = wrench transmitted by joint i
    for i in range(n):                               # outward: motion, and each body's own wrench
        p = parent[i]
        v_p, a_p = (np.zeros(6), a_0) if p == BASE else (v[p], a[p])
        v[i] = X[i] @ v_p + S[i] * qd[i]
        a[i] = X[i] @ a_p + S[i] * qdd[i] + ad(v[i]) @ S[i] * qd[i]
        F[i][:, 10 * i:10 * i + 10] = body_regressor(v[i], a[i])
    Y = np.zeros((n, 10 * n))
    for i in reversed(range(n)):                     # inward: forces
        Y[i] = S[i] @ F[i]
        if parent[i] != BASE:
            F[parent[i]] += X[i].T @ F[i]
    return Y


# --- base parameters ---------------------------------------------------------------------------

#: Order in which :func:`base_parameters` tries the columns: body by body from the base, and within a
#: body the rotational inertia first, then ``m c``, then ``m`` (indices into PARAMETER_NAMES).
COLUMN_PRIORITY = (4, 5, 6, 7, 8, 9, 1, 2, 3, 0)


def _independent_columns(W, order, threshold):
    """Greedy column selection: walk ``order``, keep a column of ``W`` when its part orthogonal to the
    columns kept so far is longer than ``threshold`` (Gram–Schmidt, applied twice)."""
    basis, kept = np.zeros((W.shape[0], 0)), []
    for j in order:
        r = W[:, j] - basis @ (basis.T @ W[:, j])
        r -= basis @ (basis.T @ r)                                 # re-orthogonalise: "twice is enough"
        if np.linalg.norm(r) > threshold:
            kept.append(j)
            basis = np.column_stack([basis, r / np.linalg.norm(r)])
    return np.array(kept, dtype=int)


def stacked_regressor(model, Q, QD, QDD, *, gravity=None):
    """Regressors of many samples stacked row-wise, (N·n, 10 n), matching ``TAU.ravel()`` of (N, n) torques."""
    return np.vstack([regressor(model, q, qd, qdd, gravity=gravity) for q, qd, qdd in zip(Q, QD, QDD)])


@dataclass(frozen=True)
class BaseParameters:
    """A base (minimal) parameter set of a model: ``θ_b = K θ`` and ``τ = Y_b θ_b``.

    ``independent`` (r,) indices of the columns of ``Y`` kept (ascending); ``dependent`` the
    others; ``K`` (r, 10 n) the combination matrix (``K[:, independent] = 1``); ``rank`` r;
    ``model``, ``gravity`` those the set was computed for (the base set depends on gravity).
    """

    model: object
    gravity: np.ndarray
    independent: np.ndarray
    dependent: np.ndarray
    K: np.ndarray
    rank: int

    def __post_init__(self):
        for name in ("gravity", "independent", "dependent", "K"):
            getattr(self, name).setflags(write=False)

    def reduce(self, theta):
        """Base parameters ``θ_b = K θ`` of a standard parameter vector ``θ`` (10 n,)."""
        return self.K @ np.asarray(theta, dtype=float)

    def regressor_base(self, q, qd, qdd):
        """``Y_b(q, q̇, q̈)`` (n, r): the independent columns of :func:`regressor`; ``τ = Y_b θ_b``."""
        return regressor(self.model, q, qd, qdd, gravity=self.gravity)[:, self.independent]

    def labels(self, *, tol=1e-9):
        """Each base parameter as a readable combination, e.g. ``"I_zz[1] + 1·m[2]"`` (bodies counted from 1).

        Coefficients smaller than ``tol`` times the largest in their row are left out.
        """
        names = parameter_labels(self.model)
        out = []
        for row, k in zip(self.K, self.independent):
            terms = [names[k]]
            big = np.abs(row).max()
            for j in self.dependent:
                if abs(row[j]) > tol * big:
                    terms.append(f"{'−' if row[j] < 0 else '+'} {abs(row[j]):.6g}·{names[j]}")
            out.append(" ".join(terms))
        return out


def base_parameters(model, *, gravity=None, n_samples=100, seed=0, tol=1e-8):
    """The base parameter set of ``model``, from regressors stacked over random states.

    ``n_samples`` random states (:func:`lessonlib.samples.random_state`, ``seed``) give ``W`` (n_samples·n, 10 n),
    compressed to its triangular factor ``R`` (``W = Q R``: same column dependencies). The rank
    ``r`` is the number of singular values above ``tol`` times the largest, ``σ₁``. The independent
    columns are picked greedily in the order :data:`COLUMN_PRIORITY` (a column is kept when its part
    orthogonal to those kept before it is longer than ``tol·σ₁``) and ``β`` solves
    ``W_dep = W_ind β``, so that ``K[:, independent] = 1``, ``K[:, dependent] = β``.

    Gautier's numerical method pivots the QR on column norms instead; a fixed order gives the same
    ``r`` and reproduces the classical regrouping rules (Khalil & Kleinfinger): a child's
    parameters are folded into its parent's, e.g. for a planar 2R arm ``ZZ1R = I_zz[1] + l₁² m[2]``
    and ``MX1R = mc_x[1] + l₁ m[2]``. Returns a :class:`BaseParameters`.

    >>> from lessonlib import samples
    >>> base_parameters(samples.pendulum()).labels()     # the rod: m c_x, m c_y and I_zz about the pivot
    ['mc_x[1]', 'mc_y[1]', 'I_zz[1]']
    >>> base_parameters(samples.seed004_2link()).labels()[:3]        # l₁ = 0.5 m
    ['mc_x[1] + 0.5·m[2]', 'mc_y[1]', 'I_zz[1] + 0.25·m[2]']
    """
    if int(n_samples) < 10:
        raise ValueError(f"n_samples: expected at least 10 random states, got {n_samples!r}")
    if not (np.isfinite(tol) and 0 < tol < 1):
        raise ValueError(f"tol: expected a relative tolerance in (0, 1), got {tol!r}")
    g = model.gravity_or_default(gravity)
    W = np.linalg.qr(stacked_regressor(model, *random_state(model, seed, size=int(n_samples)), gravity=g),
                     mode="r")
    sigma = np.linalg.svd(W, compute_uv=False)
    r = int(np.sum(sigma > tol * sigma[0]))
    order = [10 * i + k for i in range(model.n) for k in COLUMN_PRIORITY]
    independent = _independent_columns(W, order, tol * sigma[0])
    if len(independent) != r:
        raise ValueError(f"tol: the column selection found {len(independent)} independent columns but the "
                         f"singular values give rank {r}; try more n_samples or another tol (got {tol})")
    independent = np.sort(independent)
    dependent = np.setdiff1d(np.arange(10 * model.n), independent)
    beta = np.linalg.lstsq(W[:, independent], W[:, dependent], rcond=None)[0]
    K = np.zeros((r, 10 * model.n))
    K[:, independent] = np.eye(r)
    K[:, dependent] = beta
    return BaseParameters(model=model, gravity=g, independent=independent, dependent=dependent, K=K, rank=r)


# --- exciting trajectories and identification ----------------------------------------------------

def fourier_trajectory(n_joints, *, harmonics=5, base_freq=0.1, seed=0, amplitude=0.5, offset=None):
    """A random finite-Fourier-series exciting trajectory ([Swevers et al. 1997]; [DB4 §4.4]).

    ``q_j(t) = q_j0 + Σ_{l=1..L} (a_jl / (l ω_f)) sin(l ω_f t) − (b_jl / (l ω_f)) cos(l ω_f t)``,
    ``ω_f = 2π·base_freq``; periodic with period ``1/base_freq``, so the data can cover whole
    periods. The random coefficients (``seed``) are scaled so that ``|q_j − q_j0| ≤ amplitude``
    (rad or m); ``offset`` is ``q_0`` (default zeros). Returns ``trajectory(t) -> (q, q̇, q̈)``,
    (n,) each for a scalar ``t``, (len(t), n) for an array.

    >>> traj = fourier_trajectory(2, seed=1)
    >>> q, qd, qdd = traj(np.linspace(0.0, 10.0, 1001))
    >>> q.shape, bool(np.abs(q).max() <= 0.5), bool(np.allclose(q[0], q[-1]))    # one 10 s period
    ((1001, 2), True, True)
    """
    n, L = int(n_joints), int(harmonics)
    if n < 1 or L < 1:
        raise ValueError(f"n_joints, harmonics: expected integers >= 1, got {n_joints!r}, {harmonics!r}")
    base_freq, amplitude = validate.positive(base_freq, "base_freq"), validate.positive(amplitude, "amplitude")
    q0 = np.zeros(n) if offset is None else np.asarray(offset, dtype=float)
    if q0.shape != (n,):
        raise ValueError(f"offset: expected shape ({n},), got {q0.shape}")
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, (n, L)), rng.uniform(-1, 1, (n, L))
    w = 2 * np.pi * base_freq * np.arange(1, L + 1)                  # l ω_f
    scale = amplitude / (np.hypot(a, b) / w).sum(axis=1, keepdims=True)  # bound of |q − q0| = amplitude
    a, b = a * scale, b * scale

    def trajectory(t):
        t = np.asarray(t, dtype=float)
        s, c = np.sin(t[..., None, None] * w), np.cos(t[..., None, None] * w)   # (..., 1, L)
        q = q0 + ((a / w) * s - (b / w) * c).sum(-1)
        qd = (a * c + b * s).sum(-1)
        qdd = (w * (-a * s + b * c)).sum(-1)
        return q, qd, qdd

    return trajectory


def synthetic_measurements(model, trajectory, t, *, torque_noise=0.0, seed=0, gravity=None):
    """Simulated identification data: ``(Q, QD, QDD, TAU)``, each (len(t), n).

    The motion is ``trajectory(t)``; the torques are the model's inverse dynamics (computed by:
    :func:`regressor` ``@`` :func:`inertial_parameters`, equal to RNEA) plus Gaussian noise of
    standard deviation ``torque_noise`` (N·m or N), drawn with ``seed``.
    """
    if not (np.isfinite(torque_noise) and torque_noise >= 0):
        raise ValueError(f"torque_noise: expected a finite number >= 0, got {torque_noise!r}")
    Q, QD, QDD = (np.atleast_2d(x) for x in trajectory(np.atleast_1d(np.asarray(t, dtype=float))))
    theta = inertial_parameters(model)
    TAU = stacked_regressor(model, Q, QD, QDD, gravity=gravity) @ theta
    TAU = TAU.reshape(Q.shape) + np.random.default_rng(seed).normal(0.0, torque_noise, Q.shape)
    return Q, QD, QDD, TAU


@dataclass(frozen=True)
class Identification:
    """Result of :func:`identify`.

    ``theta_base`` (r,) least-squares estimate of the base parameters; ``std`` (r,) their standard
    deviations (from the residual variance and ``(W_bᵀ W_b)⁻¹``; weighted: of the weighted residuals
    and ``(W_bᵀ D W_b)⁻¹``); ``residual_rms`` (N·m, unweighted); ``r2`` the coefficient of
    determination of the predicted torques (all joints, unweighted), ``r2_joint`` per joint;
    ``cond`` the condition number of the stacked base regressor ``W_b`` (row-weighted when
    ``weights`` were given: the matrix that was solved); ``base`` the set; ``weights`` (n,) the
    per-joint weights used, or None (ordinary least squares).
    """

    theta_base: np.ndarray
    std: np.ndarray
    residual_rms: float
    r2: float
    r2_joint: np.ndarray
    cond: float
    base: BaseParameters
    weights: np.ndarray | None = None

    @property
    def relative_std(self):
        """``std / |θ_b|``: small for well-excited parameters (Swevers' criterion), large for poorly excited ones."""
        return self.std / np.abs(self.theta_base)

    def inverse_dynamics(self, q, qd, qdd):
        """The identified model's torques for one state: ``τ = Y_b(q, q̇, q̈) θ_b`` (n,).

        The inverse dynamics that :func:`~lessonlib.dynamics.control.computed_torque` accepts in
        place of a Model ([DB4 §4.4]: close the loop with the identified model).
        """
        return self.base.regressor_base(q, qd, qdd) @ self.theta_base

    def predict(self, Q, QD, QDD):
        """Predicted torques (N, n) for the samples (N, n) of another trajectory (validation)."""
        Q = np.atleast_2d(Q)
        W = np.vstack([self.base.regressor_base(q, qd, qdd) for q, qd, qdd in zip(Q, np.atleast_2d(QD),
                                                                                  np.atleast_2d(QDD))])
        return (W @ self.theta_base).reshape(Q.shape)


def _r2(measured, predicted):
    ss_res = ((measured - predicted) ** 2).sum(axis=0)
    ss_tot = ((measured - measured.mean(axis=0)) ** 2).sum(axis=0)
    return ss_res, ss_tot


def identify(model, Q, QD, QDD, TAU, *, base=None, gravity=None, weights=None):
    """Least-squares estimate of the base parameters from measured motion and torques.

    ``Q, QD, QDD, TAU`` (N, n); ``base`` a :class:`BaseParameters` (default: ``base_parameters(model,
    gravity=gravity)``). Solves ``min ‖W_b θ_b − τ‖²`` with ``W_b`` the stacked base regressors
    (``numpy.linalg.lstsq``). Returns an :class:`Identification`.

    ``weights`` (n,) > 0, one per joint: weighted least squares ``min Σ_k Σ_j (w_j (W_b θ_b − τ)_kj)²``,
    solved as ordinary least squares on the rows of joint ``j`` scaled by ``w_j``. [DB4 §4.4]
    weights each joint by its torque-sensor noise: ``w_j = 1/σ_j`` (the best linear unbiased
    estimate when the noise of joint ``j`` has standard deviation ``σ_j``). Scaling all weights by
    one factor changes nothing; None (default) is ordinary least squares.

    >>> from lessonlib import samples
    >>> arm = samples.planar_2link()
    >>> data = synthetic_measurements(arm, fourier_trajectory(2, seed=1), np.linspace(0, 10, 200),
    ...                               torque_noise=0.01, seed=2)
    >>> ols, wls = identify(arm, *data), identify(arm, *data, weights=[1 / 0.01, 1 / 0.01])
    >>> bool(np.allclose(ols.theta_base, wls.theta_base)), bool(np.allclose(ols.std, wls.std))   # equal σ_j
    (True, True)
    """
    Q, QD, QDD, TAU = (np.asarray(x, dtype=float) for x in (Q, QD, QDD, TAU))
    for name, x in (("Q", Q), ("QD", QD), ("QDD", QDD), ("TAU", TAU)):
        if x.ndim != 2 or x.shape[1] != model.n or x.shape[0] != Q.shape[0] or not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: expected a finite array of shape (N, {model.n}) like Q {Q.shape}, "
                             f"got {x.shape}")
    base = base_parameters(model, gravity=gravity) if base is None else base
    if not isinstance(base, BaseParameters) or base.model.n != model.n:
        raise ValueError(f"base: expected the BaseParameters of a {model.n}-joint model, got {base!r}")
    if weights is not None:
        weights = np.asarray(weights, dtype=float)
        if weights.shape != (model.n,) or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
            raise ValueError(f"weights: expected {model.n} finite values > 0 (one per joint, e.g. 1/σ_j), "
                             f"got {weights!r}")
    W = np.vstack([base.regressor_base(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    if W.shape[0] < base.rank:
        raise ValueError(f"Q: expected at least {base.rank} torque values (N·n) for {base.rank} base parameters, "
                         f"got {W.shape[0]}")
    row_weight = np.ones(W.shape[0]) if weights is None else np.tile(weights, Q.shape[0])   # rows: sample, joint
    W_w = W * row_weight[:, None]
    theta, *_ = np.linalg.lstsq(W_w, TAU.ravel() * row_weight, rcond=None)
    residual = TAU - (W @ theta).reshape(TAU.shape)
    dof = max(W.shape[0] - base.rank, 1)
    sigma2 = float(((residual.ravel() * row_weight) ** 2).sum()) / dof
    _, s, Vt = np.linalg.svd(W_w, full_matrices=False)
    std = np.sqrt(sigma2 * ((Vt.T / s) ** 2).sum(axis=1))          # sqrt(diag(σ² (W_wᵀW_w)⁻¹))
    ss_res, ss_tot = _r2(TAU, TAU - residual)
    return Identification(theta_base=theta, std=std, residual_rms=float(np.sqrt((residual**2).mean())),
                          r2=float(1 - ss_res.sum() / ss_tot.sum()), r2_joint=1 - ss_res / ss_tot,
                          cond=float(s[0] / s[-1]), base=base,
                          weights=None if weights is None else weights.copy())


# --- identification with joint friction ([DB4 §4.4]) ----------------------------------------------

#: [DB4 §4.4]'s excitation band (Hz): finite Fourier series with harmonics from 0.1 to 5 Hz ...
EXCITATION_BAND_HZ = (0.1, 5.0)
#: ... because joint 2 of its arm has a structural resonance near 12 Hz, which the rigid model lacks.
RESONANCE_HZ = 12.0


def check_excitation_band(base_freq, harmonics, *, resonance_hz=RESONANCE_HZ, margin=2.0):
    """The band ``(f_min, f_max)`` (Hz) of :func:`fourier_trajectory` ``(base_freq, harmonics)``, checked against a resonance.

    A rigid-body model cannot explain the torques of an excited structural mode; a lightly damped
    mode at ``f_r`` amplifies a component at ``f`` by about ``1/|1 − (f/f_r)²|``, so the excitation
    must stay well below it. [DB4 §4.4] caps the band at 5 Hz for a 12 Hz resonance (a factor 2.4,
    amplification ≤ 1.21). Raises ``ValueError`` when ``f_max > resonance_hz / margin``.

    >>> check_excitation_band(0.1, 50)                  # [DB4 §4.4]: 0.1 ... 5 Hz
    (0.1, 5.0)
    """
    f_min, f_max = float(base_freq), float(base_freq) * int(harmonics)
    if not (np.isfinite(f_min) and f_min > 0 and int(harmonics) >= 1):
        raise ValueError(f"base_freq, harmonics: expected > 0 and >= 1, got {base_freq!r}, {harmonics!r}")
    if f_max > resonance_hz / margin:
        raise ValueError(f"harmonics: the highest harmonic {f_max:g} Hz is above {resonance_hz:g} Hz / {margin:g}: "
                         f"it would excite the structural resonance (lower harmonics or base_freq)")
    return f_min, round(f_max, 12)


@dataclass(frozen=True)
class FrictionIdentification:
    """Result of :func:`identify_with_friction`.

    ``law`` the friction law; ``theta_base`` (r,) the inertial base parameters; ``friction`` (n, k)
    each joint's friction parameters in the order ``FRICTION_PARAMETERS[law]`` (``b, f_c[, f_s]``);
    ``vs`` (n,) the Stribeck velocities found by the search (None for the other laws);
    ``residual_rms`` (N·m), ``r2``, ``r2_joint`` on the identification data (unweighted); ``base``,
    ``weights``, ``delta``, ``eps`` as used.
    """

    law: str
    theta_base: np.ndarray
    friction: np.ndarray
    vs: np.ndarray | None
    residual_rms: float
    r2: float
    r2_joint: np.ndarray
    base: BaseParameters
    weights: np.ndarray | None
    delta: float
    eps: float

    def friction_torques(self, QD):
        """The identified ``τ_f`` (N, n) at joint velocities ``QD`` (N, n)."""
        Phi = friction_regressor(np.atleast_2d(QD), self.law, vs=self.vs, delta=self.delta, eps=self.eps)
        return np.einsum("snk,nk->sn", Phi, self.friction)

    def predict(self, Q, QD, QDD):
        """Predicted joint torques (N, n): ``Y_b θ_b + τ_f(q̇)`` (validation on another trajectory)."""
        Q, QD, QDD = (np.atleast_2d(x) for x in (Q, QD, QDD))
        W = np.vstack([self.base.regressor_base(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
        return (W @ self.theta_base).reshape(Q.shape) + self.friction_torques(QD)


def _friction_block(Phi):
    """Stacked friction columns (N·n, n·k): row (sample s, joint j) holds Φ[s, j] in joint j's k columns."""
    N, n, k = Phi.shape
    F = np.zeros((N, n, n, k))
    F[:, np.arange(n), np.arange(n), :] = Phi
    return F.reshape(N * n, n * k)


def identify_with_friction(model, Q, QD, QDD, TAU, *, law="stribeck", base=None, gravity=None, weights=None,
                           vs_grid=None, sweeps=2, delta=STRIBECK_DELTA, eps=SMOOTH_EPS):
    """Identify the inertial base parameters together with each joint's friction ([DB4 §4.4]).

    ``τ = Y_b(q, q̇, q̈) θ_b + τ_f(q̇)`` with ``τ_f`` one of :data:`~lessonlib.dynamics.friction.FRICTION_PARAMETERS`:
    ``"none"``, ``"coulomb_viscous"`` (``b q̇ + f_c σ(q̇)``) or ``"stribeck"``
    (``(f_c + (f_s − f_c) e^{−|q̇/v_s|^δ}) σ(q̇) + b q̇``, :func:`~lessonlib.dynamics.friction.stribeck`).
    The inertial and friction columns are stacked into one (weighted) least-squares problem:
    ``weights`` (n,) as in :func:`identify` (``w_j = 1/σ_j``, [DB4 §4.4]'s weighting by sensor noise).

    Stribeck. The law is linear in ``(b, f_c, f_s)`` but not in the Stribeck velocity ``v_s``. For
    fixed ``v_s`` the problem is linear least squares; the ``v_s`` of each joint is found by a 1-D
    search over ``vs_grid`` (default 61 values geometrically spaced from 1e-3 to 3 rad/s or m/s):
    joint after joint, keeping the others fixed, the value with the smallest weighted residual is
    kept; ``sweeps`` passes over the joints (separable least squares, coordinate search).

    Returns a :class:`FrictionIdentification`.
    """
    validate.one_of(law, FRICTION_PARAMETERS, "law")
    Q, QD, QDD, TAU = (np.asarray(x, dtype=float) for x in (Q, QD, QDD, TAU))
    for name, x in (("Q", Q), ("QD", QD), ("QDD", QDD), ("TAU", TAU)):
        if x.ndim != 2 or x.shape[1] != model.n or x.shape[0] != Q.shape[0] or not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: expected a finite array of shape (N, {model.n}) like Q {Q.shape}, got {x.shape}")
    base = base_parameters(model, gravity=gravity) if base is None else base
    n = model.n
    if weights is not None:
        weights = np.asarray(weights, dtype=float)
        if weights.shape != (n,) or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
            raise ValueError(f"weights: expected {n} finite values > 0 (one per joint, e.g. 1/σ_j), got {weights!r}")
    vs_grid = np.geomspace(1e-3, 3.0, 61) if vs_grid is None else np.asarray(vs_grid, dtype=float)
    if vs_grid.ndim != 1 or vs_grid.size < 1 or np.any(~np.isfinite(vs_grid)) or np.any(vs_grid <= 0):
        raise ValueError(f"vs_grid: expected a 1-D array of Stribeck velocities > 0, got {vs_grid!r}")
    W_b = np.vstack([base.regressor_base(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    row_weight = np.ones(W_b.shape[0]) if weights is None else np.tile(weights, Q.shape[0])
    y = TAU.ravel()

    def stacked(vs):
        return np.hstack([W_b, _friction_block(friction_regressor(QD, law, vs=vs, delta=delta, eps=eps))])

    def cost(vs):
        """Weighted residual ``min_x ‖D(W x − y)‖²`` for a trial ``v_s`` (normal equations: fast, for the search)."""
        Ww, yw = stacked(vs) * row_weight[:, None], y * row_weight
        b = Ww.T @ yw
        return float(yw @ yw - b @ np.linalg.lstsq(Ww.T @ Ww, b, rcond=None)[0])

    vs = None
    if law == "stribeck":
        vs = np.full(n, vs_grid[vs_grid.size // 2])
        for _ in range(int(sweeps)):
            for j in range(n):
                costs = []
                for v in vs_grid:
                    trial = vs.copy()
                    trial[j] = v
                    costs.append(cost(trial))
                vs[j] = vs_grid[int(np.argmin(costs))]
    W = stacked(vs)
    x, *_ = np.linalg.lstsq(W * row_weight[:, None], y * row_weight, rcond=None)
    residual = y - W @ x
    k = len(FRICTION_PARAMETERS[law])
    residual = residual.reshape(TAU.shape)
    ss_res, ss_tot = _r2(TAU, TAU - residual)
    return FrictionIdentification(law=law, theta_base=x[:base.rank], friction=x[base.rank:].reshape(n, k), vs=vs,
                                  residual_rms=float(np.sqrt((residual**2).mean())),
                                  r2=float(1 - ss_res.sum() / ss_tot.sum()), r2_joint=1 - ss_res / ss_tot, base=base,
                                  weights=None if weights is None else weights.copy(), delta=float(delta),
                                  eps=float(eps))
