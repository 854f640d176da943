"""SE(3): rigid transforms, twists in se(3), Ad / ad / ad*, and the Jacobians of exp.

Course: [LG] (the Lie-group notes): SE(3) = SO(3) ⋉ R³ (section 李群), se(3) 伴随 (Ad; section
伴随表示), se(3) 换位子 (ad and the basis brackets; section 换位子), 李群导数; [WJ §2.2] (X = Ad, ad,
ad* in the RNEA).

Conventions, stated once for the whole module:

* A twist is angular-first, ``ξ = [ω; v]`` (``xi[ANG]``, ``xi[LIN]``); a wrench is ``[n; f]``.
* ``hat(ξ) = [[ [ω], v ], [0, 0]]`` (4x4); ``T = [[R, p], [0, 1]]``.
* ``Ad(T) = [[R, 0], [[p]R, R]]`` so that ``hat(Ad(T) ξ) = T hat(ξ) T⁻¹``;
  ``ad(ξ) = [[ [ω], 0 ], [ [v], [ω] ]]`` so that ``hat(ad(x) y) = [hat x, hat y]``;
  ``ad_dual(ξ) = −ad(ξ)ᵀ`` acts on wrenches.
* Jacobians: ``exp(ξ + δ) ≈ exp(J_l(ξ) δ) exp(ξ) ≈ exp(ξ) exp(J_r(ξ) δ)``,
  ``J_l(ξ) = Σ ad(ξ)ᵏ/(k+1)! = [[J, 0], [Q, J]]`` (J the SO(3) left Jacobian of ω, Q Barfoot's
  coupling block in angular-first order), ``J_l(ξ) = J_r(−ξ) = Ad(exp ξ) J_r(ξ)``.

Numeric inputs give float numpy arrays; sympy inputs give sympy matrices for hat, vee, exp
(of a unit screw times a symbolic angle), inv, Ad, ad, ad_dual, from_Rp and to_Rp.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _rodrigues as rodrigues
from . import so3
from ._symbolic import clean, factor_angle, is_symbolic, numeric_norm, sym_matrix, sym_vector, times
from ._validate import check_skew, matrix, scalar, vector
from .conventions import ANG, LIN, ROTATION_TOL, UNIT_TOL, spatial_vector

__all__ = [
    "hat", "vee", "exp", "log", "inv", "Ad", "ad", "ad_dual",
    "left_jacobian", "right_jacobian", "left_jacobian_inv", "right_jacobian_inv",
    "from_Rp", "to_Rp", "check_transform", "screw_axis", "ScrewAxis",
]

class ScrewAxis(NamedTuple):
    """A twist's screw: unit ``axis`` ŝ, ``point`` q on it, ``pitch`` h and ``magnitude`` θ (:func:`screw_axis`)."""

    axis: np.ndarray
    point: np.ndarray
    pitch: float
    magnitude: float


_BOTTOM = np.array([0.0, 0.0, 0.0, 1.0])
_Z3 = np.zeros((3, 3))


def _blocks(A, B, C, D):
    """The 6x6 matrix [[A, B], [C, D]] of 3x3 blocks."""
    M = np.empty((6, 6))
    M[ANG, ANG], M[ANG, LIN], M[LIN, ANG], M[LIN, LIN] = A, B, C, D
    return M


def _sym_blocks(A, B, C, D):
    """The sympy 6x6 matrix [[A, B], [C, D]] of 3x3 blocks (as :func:`_blocks`)."""
    import sympy as sp
    M = sp.zeros(6, 6)
    M[ANG, ANG], M[ANG, LIN], M[LIN, ANG], M[LIN, LIN] = A, B, C, D
    return M


# --- building and splitting transforms --------------------------------------------------------


def check_transform(T, name="T"):
    """Validate a homogeneous transform; return it as a float (4, 4) array, else ValueError.

    Convention: T = [[R, p], [0, 1]] with R ∈ SO(3) ([LG, 李群]: SE(3)); the bottom row
    must be [0, 0, 0, 1] to ROTATION_TOL. The message names ``name``, the expected and got.

    Parameters: T (4, 4); name — the argument name used in the message.

    >>> check_transform(np.diag([1., 1., 1., 2.]))
    Traceback (most recent call last):
    ...
    ValueError: T: expected bottom row [0, 0, 0, 1], got [0.0, 0.0, 0.0, 2.0]
    """
    T = matrix(T, (4, 4), name)
    bottom = T[3].tolist()
    if bottom != [0.0, 0.0, 0.0, 1.0] and not np.abs(T[3] - _BOTTOM).max() <= ROTATION_TOL:
        raise ValueError(f"{name}: expected bottom row [0, 0, 0, 1], got {bottom}")
    so3.check_rotation(T[:3, :3], name=f"{name}[:3, :3]")
    return T


def from_Rp(R, p):
    """Homogeneous transform T = [[R, p], [0, 1]].

    Convention: T_a_b = from_Rp(R_a_b, p_a_b) maps coordinates in b to a: x_a = R x_b + p;
    to_Rp(from_Rp(R, p)) = (R, p) ([LG, 李群]: the semidirect product SO(3) ⋉ R³).

    Parameters: R (3, 3) rotation (validated); p (3,) position of b's origin in a.
    Sympy input gives a sympy Matrix.

    >>> T = from_Rp(so3.rot_z(0.5), [1., 2., 3.])
    >>> bool(np.allclose(T @ [0., 0., 0., 1.], [1., 2., 3., 1.]))
    True
    """
    if is_symbolic(R) or is_symbolic(p):
        import sympy as sp
        R, p = sym_matrix(R, (3, 3), "R"), sym_vector(p, 3, "p")
        return sp.Matrix.vstack(sp.Matrix.hstack(R, p), sp.Matrix([[0, 0, 0, 1]]))
    T = np.eye(4)
    T[:3, :3] = so3.check_rotation(R)
    T[:3, 3] = vector(p, 3, "p")
    return T


def to_Rp(T):
    """Split a transform into (R, p).

    Convention: T = [[R, p], [0, 1]]; from_Rp(*to_Rp(T)) = T ([LG, 李群]: SE(3) = SO(3) ⋉ R³).

    Parameters: T (4, 4) transform (validated). Returns R (3, 3), p (3,) (copies; sympy
    input gives sympy matrices).

    >>> T = exp([0.1, 0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(from_Rp(*to_Rp(T)), T))
    True
    """
    if is_symbolic(T):
        T = sym_matrix(T, (4, 4), "T")
        return T[:3, :3], T[:3, 3]
    T = check_transform(T)
    return T[:3, :3].copy(), T[:3, 3].copy()


# --- algebra ----------------------------------------------------------------------------------


def hat(xi):
    """4x4 matrix hat(ξ) ∈ se(3) of a twist ξ = [ω; v].

    Convention: hat(ξ) = [[ [ω], v ], [0, 0]]; vee(hat(ξ)) = ξ ([LG, 换位子]: x^).

    Parameters: xi (6,) twist [ω; v] in any one frame. Sympy input gives a sympy Matrix.

    >>> xi = np.array([1., 2., 3., 4., 5., 6.])
    >>> bool(np.array_equal(vee(hat(xi)), xi))
    True
    """
    if is_symbolic(xi):
        import sympy as sp
        xi = sym_vector(xi, 6, "xi")
        return sp.Matrix.vstack(sp.Matrix.hstack(so3.hat(xi[ANG, :]), xi[LIN, :]), sp.zeros(1, 4))
    xi = vector(xi, 6, "xi")
    Xi = np.zeros((4, 4))
    Xi[:3, :3] = so3.hat(xi[ANG])
    Xi[:3, 3] = xi[LIN]
    return Xi


def vee(Xi):
    """Twist ξ = [ω; v] of a 4x4 matrix Xi = hat(ξ) ∈ se(3).

    Convention: vee(hat(ξ)) = ξ ([LG, 换位子]); Xi's top-left block must be skew
    and its bottom row zero.

    Parameters: Xi (4, 4). Returns (6,) (a sympy column for sympy input).

    >>> Xi = hat([0.1, 0.2, 0.3, 1., 2., 3.])
    >>> bool(np.array_equal(hat(vee(Xi)), Xi))
    True
    """
    if is_symbolic(Xi):
        import sympy as sp
        Xi = sym_matrix(Xi, (4, 4), "Xi")
        xi = sp.zeros(6, 1)
        xi[ANG, 0], xi[LIN, 0] = so3.vee(Xi[:3, :3]), Xi[:3, 3]
        return xi
    Xi = matrix(Xi, (4, 4), "Xi")
    if np.abs(Xi[3]).max() > ROTATION_TOL:
        raise ValueError(f"Xi: expected bottom row [0, 0, 0, 0], got {Xi[3].tolist()}")
    check_skew(Xi[:3, :3], "Xi[:3, :3]")
    return spatial_vector([Xi[2, 1], Xi[0, 2], Xi[1, 0]], Xi[:3, 3])


def screw_axis(xi):
    """The screw axis of a twist (Chasles): direction ``ŝ``, point ``q``, pitch ``h``, magnitude ``θ``.

    Convention: ``ξ = [ω; v] = θ [ŝ; −ŝ × q + h ŝ]`` with ``θ = |ω|``, ``ŝ = ω/|ω|``,
    ``h = ωᵀv / |ω|²`` (m/rad) and ``q = ω × v / |ω|²`` the point of the axis nearest the origin
    ([Lynch & Park 2017] §3.3.2, [LG, 速度旋量]). A pure translation (``ω = 0``) has ``ŝ = v/|v|``,
    ``q = 0``, ``h = ∞`` and ``θ = |v|``; the zero twist raises ``ValueError``.

    >>> s = screw_axis([0.0, 0.0, 2.0, 0.0, -2.0, 0.1])      # turn about z through (1, 0, 0), climbing
    >>> s.axis.tolist(), s.point.tolist(), round(s.pitch, 6), s.magnitude
    ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], 0.05, 2.0)
    """
    xi = vector(xi, 6, "xi")
    w, v = xi[ANG], xi[LIN]
    theta = float(np.linalg.norm(w))
    if theta > UNIT_TOL * max(1.0, float(np.linalg.norm(v))):
        return ScrewAxis(w / theta, np.cross(w, v) / theta**2, float(w @ v) / theta**2, theta)
    speed = float(np.linalg.norm(v))
    if speed == 0.0:
        raise ValueError("xi: the zero twist has no screw axis")
    return ScrewAxis(v / speed, np.zeros(3), math.inf, speed)


def ad(xi):
    """Adjoint of the algebra, ad(ξ) = [[ [ω], 0 ], [ [v], [ω] ]] (6x6), the twist cross product.

    Convention: ad(x) y = vee([hat x, hat y]) (Lie bracket, [LG, 换位子]);
    ad(x) y = −ad(y) x.

    Parameters: xi (6,) twist [ω; v]. Sympy input gives a sympy Matrix.

    >>> x, y = np.array([1., 2., 3., 4., 5., 6.]), np.array([.5, -1., 2., 0., 1., -2.])
    >>> bool(np.allclose(hat(ad(x) @ y), hat(x) @ hat(y) - hat(y) @ hat(x)))
    True
    """
    if is_symbolic(xi):
        import sympy as sp
        xi = sym_vector(xi, 6, "xi")
        W, V = so3.hat(xi[ANG, :]), so3.hat(xi[LIN, :])
        return _sym_blocks(W, sp.zeros(3, 3), V, W)
    xi = vector(xi, 6, "xi")
    W, V = so3.hat(xi[ANG]), so3.hat(xi[LIN])
    return _blocks(W, _Z3, V, W)


def ad_dual(xi):
    """Dual adjoint ad*(ξ) = −ad(ξ)ᵀ = [[ [ω], [v] ], [0, [ω]]] (6x6), acting on wrenches.

    Convention: (ad_dual(ξ) f) · y = −f · (ad(ξ) y) for a wrench f = [n; f] and twist y
    ([WJ §2.2]: the force cross product V×* = −ad_Vᵀ, as in the bias force V×* I V).

    Parameters: xi (6,) twist [ω; v]. Sympy input gives a sympy Matrix.

    >>> xi = np.array([1., 2., 3., 4., 5., 6.])
    >>> bool(np.array_equal(ad_dual(xi), -ad(xi).T))
    True
    """
    if is_symbolic(xi):
        return -ad(xi).T
    xi = vector(xi, 6, "xi")
    W, V = so3.hat(xi[ANG]), so3.hat(xi[LIN])
    return _blocks(W, V, _Z3, W)


def Ad(T):
    """Adjoint of the group, Ad(T) = [[R, 0], [[p]R, R]] (6x6): changes a twist's frame.

    Convention: hat(Ad(T) ξ) = T hat(ξ) T⁻¹; twist ξ_a = Ad(T_a_b) ξ_b, and a wrench changes
    as f_b = Ad(T_a_b)ᵀ f_a, keeping the power Fᵀ V ([LG, 伴随表示]: s_a = Ad(ᵃ_bT) s_b;
    [WJ §2.2]: X_i = Ad(ⁱT_p)).

    Parameters: T (4, 4) transform T_a_b (validated). Sympy input gives a sympy Matrix.

    >>> T, xi = exp([0.1, 0.2, 0.3, 1., 2., 3.]), np.array([.5, -1., 2., 0., 1., -2.])
    >>> bool(np.allclose(hat(Ad(T) @ xi), T @ hat(xi) @ inv(T)))
    True
    """
    if is_symbolic(T):
        import sympy as sp
        T = sym_matrix(T, (4, 4), "T")
        R, p = T[:3, :3], T[:3, 3]
        return _sym_blocks(R, sp.zeros(3, 3), so3.hat(p) * R, R)
    T = check_transform(T)
    R, p = T[:3, :3], T[:3, 3]
    return _blocks(R, _Z3, so3.hat(p) @ R, R)


# --- group ------------------------------------------------------------------------------------


def inv(T):
    """Inverse transform T⁻¹ = [[Rᵀ, −Rᵀp], [0, 1]].

    Convention: T inv(T) = I; inv(T_a_b) = T_b_a ([LG, 李群]: the inverse axiom).

    Parameters: T (4, 4) transform (validated). Sympy input gives a sympy Matrix.

    >>> T = exp([0.1, 0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(T @ inv(T), np.eye(4)))
    True
    """
    if is_symbolic(T):
        R, p = to_Rp(T)
        return from_Rp(R.T, -R.T * p)
    T = check_transform(T)
    Rt = T[:3, :3].T
    Ti = np.eye(4)
    Ti[:3, :3] = Rt
    Ti[:3, 3] = -Rt @ T[:3, 3]
    return Ti


def exp(xi, angle=None):
    """Transform T = exp(hat(ξ)) ∈ SE(3) of a twist ξ = [ω; v] (exponential coordinates).

    Convention: exp(ξ) = [[exp(ω), V(ω) v], [0, 1]] with V = so3.left_jacobian
    = I + ((1 − cos θ)/θ²)[ω] + ((θ − sin θ)/θ³)[ω]², θ = |ω|; log(exp(ξ)) = ξ for θ < π
    ([Lynch & Park 2017] ch. 3; the product of exponentials T = e^[S₁]q₁ ⋯ M of [LG, 串联机器人运动方程]).

    Parameters: xi (6,) twist [ω; v]. With ``angle`` given, xi is a unit screw S (|ω| = 1,
    or ω = 0 and |v| = 1) and the result is exp(S·angle); either may be sympy (e.g.
    ``exp(S, theta)`` → sympy Matrix in sin θ, cos θ). A sympy xi without ``angle`` must be
    (numeric screw) × (one expression). Returns a float (4, 4) array or a sympy Matrix.

    >>> xi = np.array([0.1, 0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(exp(xi) @ exp(-xi), np.eye(4)))
    True
    """
    if angle is not None:
        return _exp_screw_angle(xi, angle)
    if is_symbolic(xi):
        return _exp_symbolic_vector(sym_vector(xi, 6, "xi"))
    xi = vector(xi, 6, "xi")
    w, v = xi[ANG], xi[LIN]
    T = np.empty((4, 4))
    T[:3, :3] = so3.exp(w)
    T[:3, 3] = so3.left_jacobian(w) @ v                 # V(ω) v
    T[3] = _BOTTOM
    return T


def _check_screw(w_norm, v_norm):
    if abs(w_norm - 1.0) <= UNIT_TOL or (w_norm <= UNIT_TOL and abs(v_norm - 1.0) <= UNIT_TOL):
        return
    raise ValueError("xi: expected a unit screw (|ω| = 1, or ω = 0 and |v| = 1) when angle is "
                     f"given, got |ω| = {w_norm:.6g}, |v| = {v_norm:.6g}")


def _exp_screw_angle(S, angle):
    """exp(S θ) for a unit screw S; sympy if either is sympy."""
    if not (is_symbolic(S) or is_symbolic(angle)):
        S = vector(S, 6, "xi")
        _check_screw(math.sqrt(S[ANG] @ S[ANG]), math.sqrt(S[LIN] @ S[LIN]))
        return exp(S * scalar(angle, "angle"))
    import sympy as sp
    S = sym_vector(S, 6, "xi")
    w_norm, v_norm = numeric_norm(S[ANG, :]), numeric_norm(S[LIN, :])
    if w_norm is not None and v_norm is not None:
        _check_screw(w_norm, v_norm)
    return _screw_symbolic(S, sp.sympify(angle))


def _screw_symbolic(S, theta):
    """exp(S θ) for a unit sympy screw S (MR eq. 3.88 / prismatic when ω = 0)."""
    import sympy as sp
    w, v = S[ANG, :], S[LIN, :]
    if all(e == 0 for e in w):
        return from_Rp(sp.eye(3), v * theta)
    W = so3.hat(w)
    W2 = W * W
    R = sp.eye(3) + sp.sin(theta) * W + (1 - sp.cos(theta)) * W2
    G = sp.eye(3) * theta + (1 - sp.cos(theta)) * W + (theta - sp.sin(theta)) * W2
    return from_Rp(R, G * v)


def _exp_symbolic_vector(xi):
    """exp of a sympy twist written as (numeric screw) × (angle)."""
    import sympy as sp
    r, s = factor_angle(xi, "xi")
    if r is None:
        return sp.eye(4)
    k = sp.sqrt(sum(e ** 2 for e in r[ANG, :]))
    if k == 0:
        k = sp.sqrt(sum(e ** 2 for e in r[LIN, :]))
    return _screw_symbolic((r / k).applyfunc(clean), times(s, clean(k)))


def log(T):
    """Twist ξ = log(T) = [φ; J_l(φ)⁻¹ p] with |φ| ∈ [0, π], the inverse of exp.

    Convention: exp(log(T)) = T; φ = so3.log(R) (robust at half-turns), v = V(φ)⁻¹ p
    ([Lynch & Park 2017] ch. 3; V = so3.left_jacobian).

    Parameters: T (4, 4) transform (validated). Returns xi (6,) = [ω; v].

    >>> xi = np.array([0.1, 0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(log(exp(xi)), xi))
    True
    """
    T = check_transform(T)
    phi = so3.log(T[:3, :3])
    return spatial_vector(phi, so3.left_jacobian_inv(phi) @ T[:3, 3])


# --- Jacobians --------------------------------------------------------------------------------


def _Q(w, v):
    """Coupling block Q(ω, v) = Σ_{n,m} [ω]ⁿ[v][ω]ᵐ/(n+m+2)! of J_l (Barfoot's Q, [ω; v] order).

    Q is the derivative of the SO(3) J_l(ω) = I + b[ω] + c[ω]² in the direction v:
    Q = b[v] + c([ω][v] + [v][ω]) + (ω·v)((b′/θ)[ω] + (c′/θ)[ω]²).
    """
    theta = math.sqrt(w @ w)
    W, V = so3.hat(w), so3.hat(v)
    return (rodrigues.b(theta) * V + rodrigues.c(theta) * (W @ V + V @ W)
            + (w @ v) * (rodrigues.db(theta) * W + rodrigues.dc(theta) * (W @ W)))


def left_jacobian(xi):
    """Left Jacobian J_l(ξ) of SE(3) (6x6), [[J, 0], [Q, J]] in [ω; v] order.

    Convention: exp(ξ + δ) ≈ exp(J_l(ξ) δ) exp(ξ) for small δ; J_l(ξ) = Σ ad(ξ)ᵏ/(k+1)!
    ([LG, 李群导数]: x_d = Σ adᵏ(x) ẋ/(k+1)!); J_l(ξ) = Ad(exp ξ) J_r(ξ).

    Parameters: xi (6,) twist [ω; v]. Returns (6, 6).

    >>> xi = np.array([0.1, -0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(left_jacobian(xi), Ad(exp(xi)) @ right_jacobian(xi)))
    True
    """
    xi = vector(xi, 6, "xi")
    J = so3.left_jacobian(xi[ANG])
    return _blocks(J, _Z3, _Q(xi[ANG], xi[LIN]), J)


def right_jacobian(xi):
    """Right Jacobian J_r(ξ) of SE(3) (6x6).

    Convention: exp(ξ + δ) ≈ exp(ξ) exp(J_r(ξ) δ) for small δ; J_r(ξ) = J_l(−ξ)
    ([LG, 李群导数], with the derivative taken on the right).

    Parameters: xi (6,) twist [ω; v]. Returns (6, 6).

    >>> xi = np.array([0.1, -0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(right_jacobian(xi), left_jacobian(-xi)))
    True
    """
    return left_jacobian(-vector(xi, 6, "xi"))


def left_jacobian_inv(xi):
    """Inverse left Jacobian J_l(ξ)⁻¹ = [[J⁻¹, 0], [−J⁻¹QJ⁻¹, J⁻¹]] (6x6).

    Convention: log(exp(ε) exp(ξ)) ≈ ξ + J_l(ξ)⁻¹ ε for small ε ([LG, 李群导数]:
    ẋ = J_l⁻¹ x_d); singular where |ω| is a nonzero multiple of 2π.

    Parameters: xi (6,) twist [ω; v]. Returns (6, 6).

    >>> xi = np.array([0.1, -0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(left_jacobian_inv(xi) @ left_jacobian(xi), np.eye(6)))
    True
    """
    xi = vector(xi, 6, "xi")
    Ji = so3.left_jacobian_inv(xi[ANG])
    return _blocks(Ji, _Z3, -Ji @ _Q(xi[ANG], xi[LIN]) @ Ji, Ji)


def right_jacobian_inv(xi):
    """Inverse right Jacobian J_r(ξ)⁻¹ = J_l(−ξ)⁻¹ (6x6).

    Convention: log(exp(ξ) exp(ε)) ≈ ξ + J_r(ξ)⁻¹ ε for small ε ([LG, 李群导数]).

    Parameters: xi (6,) twist [ω; v]. Returns (6, 6).

    >>> xi = np.array([0.1, -0.2, 0.3, 1., 2., 3.])
    >>> bool(np.allclose(right_jacobian_inv(xi) @ right_jacobian(xi), np.eye(6)))
    True
    """
    return left_jacobian_inv(-vector(xi, 6, "xi"))
