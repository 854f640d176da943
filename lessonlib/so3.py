"""SO(3): rotations, their Lie algebra so(3) and the Jacobians of the exponential map.

Course: [LG] (the Lie-group notes), sections 李群 (group axioms, SO(3)), 李代数 (so(3) = skew 3x3
matrices), 伴随表示 (Ad), 换位子 (the bracket), 李群导数 (derivative of the exponential).

Conventions, stated once for the whole module:

* ``hat(ω) = [ω]`` is the skew matrix with ``[ω] x = ω × x``; ``vee`` is its inverse.
* ``exp(φ) = I + (sin θ/θ) [φ] + ((1 − cos θ)/θ²) [φ]²`` with ``θ = |φ|`` (Rodrigues);
  ``log`` is its inverse with ``θ ∈ [0, π]``.
* Jacobians: ``exp(φ + δ) ≈ exp(J_l(φ) δ) exp(φ) ≈ exp(φ) exp(J_r(φ) δ)`` for small ``δ``;
  ``J_l(φ) = Σ [φ]ᵏ/(k+1)!`` ([LG, 李群导数]: x_d = Σ adᵏ(x) ẋ/(k+1)!), ``J_l(φ) = J_r(−φ)``,
  ``J_l(φ) = R J_r(φ)`` with ``R = exp(φ)``.

Numeric inputs give float numpy arrays. Sympy inputs (a sympy object, or a list / object array
holding one) give sympy matrices where it makes sense: ``hat``, ``vee``, ``inv``, ``rot_x/y/z``
and ``exp`` (of a unit axis times a symbolic angle).
"""
from __future__ import annotations

import math

import numpy as np

from . import _rodrigues as rodrigues
from ._symbolic import clean, factor_angle, is_symbolic, numeric_norm, sym_matrix, sym_vector, times
from ._validate import check_skew, matrix, scalar, vector
from .conventions import ROTATION_TOL, SMALL_ANGLE, UNIT_TOL

__all__ = [
    "hat", "vee", "exp", "log", "inv",
    "left_jacobian", "right_jacobian", "left_jacobian_inv", "right_jacobian_inv",
    "rot_x", "rot_y", "rot_z", "is_rotation", "check_rotation",
]

_I3 = np.eye(3)
_I3.flags.writeable = False


def _skew(x, y, z):
    """The skew matrix of (x, y, z): the body of :func:`hat` for validated floats."""
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


# --- algebra ----------------------------------------------------------------------------------


def hat(w):
    """Skew matrix [ω] ∈ so(3) of a 3-vector ω.

    Convention: [ω] x = ω × x; vee(hat(ω)) = ω ([LG, 换位子]: ω^).

    Parameters: w (3,) — an angular velocity or rotation vector, in any frame; sympy input
    gives a sympy Matrix.

    >>> w, x = np.array([1., 2., 3.]), np.array([-1., 0.5, 2.])
    >>> bool(np.allclose(hat(w) @ x, np.cross(w, x)))
    True
    """
    if is_symbolic(w):
        import sympy as sp
        x, y, z = sym_vector(w, 3, "w")
        return sp.Matrix([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return _skew(*vector(w, 3, "w").tolist())


def vee(W):
    """The 3-vector ω of a skew matrix W = [ω] ∈ so(3).

    Convention: vee(hat(ω)) = ω, i.e. ω = (W₃₂, W₁₃, W₂₁) ([LG, 换位子]: so(3) ≅ R³).

    Parameters: W (3, 3) skew-symmetric (checked to ROTATION_TOL); sympy input gives a sympy
    column Matrix.

    >>> w = np.array([1., 2., 3.])
    >>> bool(np.array_equal(vee(hat(w)), w))
    True
    """
    if is_symbolic(W):
        import sympy as sp
        W = sym_matrix(W, (3, 3), "W")
        return sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])
    W = matrix(W, (3, 3), "W")
    check_skew(W, "W")
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


# --- group ------------------------------------------------------------------------------------


def exp(phi, angle=None):
    """Rotation matrix R = exp([φ]) ∈ SO(3) of a rotation vector φ (Rodrigues' formula).

    Convention: exp(φ) = I + (sin θ/θ)[φ] + ((1 − cos θ)/θ²)[φ]², θ = |φ|; R rotates by θ
    about φ/θ, and log(exp(φ)) = φ for θ < π (Rodrigues' formula, [Lynch & Park 2017] ch. 3).

    Parameters: phi (3,) — rotation vector; R = exp(phi) maps coordinates in the rotated frame
    to the frame phi is expressed in. With ``angle`` given, phi is a unit axis ω and the result
    is exp(ω·angle); either may be sympy (e.g. ``exp([0, 0, 1], theta)`` → sympy Matrix with
    cos θ, sin θ). A sympy phi without ``angle`` must be (numeric axis) × (one expression).
    Returns a float (3, 3) array, or a sympy Matrix for sympy input.

    >>> phi = np.array([0.3, -0.2, 0.5])
    >>> R = exp(phi)
    >>> bool(np.allclose(R.T @ R, np.eye(3)) and np.allclose(R @ phi, phi))
    True
    """
    if angle is not None:
        return _exp_axis_angle(phi, angle)
    if is_symbolic(phi):
        return _exp_symbolic_vector(sym_vector(phi, 3, "phi"))
    phi = vector(phi, 3, "phi")
    theta = math.sqrt(phi @ phi)
    W = hat(phi)
    return _I3 + rodrigues.a(theta) * W + rodrigues.b(theta) * (W @ W)


def _check_unit(norm, name):
    if abs(norm - 1.0) > UNIT_TOL:
        raise ValueError(f"{name}: expected a unit axis (|ω| = 1) when angle is given, "
                         f"got |ω| = {norm:.6g}")


def _exp_axis_angle(axis, angle):
    """exp(ω θ) for a unit axis ω; sympy if either is sympy."""
    if not (is_symbolic(axis) or is_symbolic(angle)):
        w = vector(axis, 3, "phi")
        _check_unit(math.sqrt(w @ w), "phi")
        return exp(w * scalar(angle, "angle"))
    import sympy as sp
    w = sym_vector(axis, 3, "phi")
    norm = numeric_norm(w)
    if norm is not None:
        _check_unit(norm, "phi")
    return _rodrigues_symbolic(w, sp.sympify(angle))


def _rodrigues_symbolic(w, theta):
    """I + sin θ [ω] + (1 − cos θ)[ω]² for a unit sympy axis ω."""
    import sympy as sp
    W = hat(w)
    return sp.eye(3) + sp.sin(theta) * W + (1 - sp.cos(theta)) * (W * W)


def _exp_symbolic_vector(phi):
    """exp of a sympy rotation vector written as (numeric axis) × (angle)."""
    import sympy as sp
    r, s = factor_angle(phi, "phi")
    if r is None:
        return sp.eye(3)
    k = sp.sqrt(sum(e ** 2 for e in r))
    return _rodrigues_symbolic((r / k).applyfunc(clean), times(s, clean(k)))


#: Below this cos θ (θ > 120°) log takes the axis from the symmetric part of R.
_NEAR_PI_COS = -0.5


def log(R):
    """Rotation vector φ = log(R) with |φ| = θ ∈ [0, π], the inverse of exp.

    Convention: exp(log(R)) = R; (trace R − 1)/2 = cos θ and vee(R − Rᵀ)/2 = sin θ · u
    ([Lynch & Park 2017] ch. 3). Near θ = π the axis comes from the symmetric part R + Rᵀ
    = 2 cos θ I + 2(1 − cos θ) u uᵀ and the sign from the skew part, so half-turns and
    near-half-turns are exact to rounding.

    Parameters: R (3, 3) rotation (validated by check_rotation). Returns phi (3,).

    >>> phi = np.array([0.3, -0.2, 0.5])
    >>> bool(np.allclose(log(exp(phi)), phi))
    True
    """
    return _log(check_rotation(R))


def _log(R):
    """log of a validated float rotation matrix."""
    w = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])   # vee(R − Rᵀ)/2 = sin θ · u
    s = math.sqrt(w @ w)                                                             # sin θ
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)                                    # (trace R − 1)/2 = cos θ
    theta = math.atan2(s, c)
    if c < _NEAR_PI_COS:
        return theta * _axis_near_pi(R, c, w)
    if theta < SMALL_ANGLE:
        return (1.0 + theta * theta / 6.0) * w                 # θ / sin θ
    return (theta / s) * w


def _axis_near_pi(R, c, w):
    """Unit axis u from (R + Rᵀ)/2 − cos θ I = (1 − cos θ) u uᵀ, signed so that u · w ≥ 0."""
    S = 0.5 * (R + R.T) - c * _I3
    k = int(np.argmax(np.diag(S)))          # the largest |u_k|: a well-conditioned column
    u = S[:, k] / math.sqrt(S[:, k] @ S[:, k])
    return -u if u @ w < 0.0 else u


def inv(R):
    """Inverse rotation R⁻¹ = Rᵀ.

    Convention: R inv(R) = I; if R = R_a_b (frame b in a) then inv(R) = R_b_a
    ([LG, 李群]: the inverse axiom, C⁻¹ ∈ SO(3)).

    Parameters: R (3, 3) rotation (validated); sympy input gives its sympy transpose.

    >>> R = exp([0.1, 0.2, 0.3])
    >>> bool(np.allclose(R @ inv(R), np.eye(3)))
    True
    """
    if is_symbolic(R):
        return sym_matrix(R, (3, 3), "R").T
    return check_rotation(R).T.copy()


def _axis_rotation(angle, i, j):
    """Rotation by ``angle`` in the (i, j) coordinate plane (about the third axis)."""
    if is_symbolic(angle):
        import sympy as sp
        c, s = sp.cos(angle), sp.sin(angle)
        R = sp.eye(3)
    else:
        a = scalar(angle, "angle")
        c, s = math.cos(a), math.sin(a)
        R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def rot_x(angle):
    """Rotation about the x axis by ``angle`` (rad).

    Convention: rot_x(a) = exp([1, 0, 0] a) = [[1, 0, 0], [0, cos a, −sin a], [0, sin a, cos a]]
    ([LG, 李群]: SO(3); frame b rotated about a's x axis gives R_a_b = rot_x(a)).

    Parameters: angle — float, or a sympy expression (gives a sympy Matrix).

    >>> bool(np.allclose(rot_x(0.7), exp([0.7, 0., 0.])))
    True
    """
    return _axis_rotation(angle, 1, 2)


def rot_y(angle):
    """Rotation about the y axis by ``angle`` (rad).

    Convention: rot_y(a) = exp([0, 1, 0] a) = [[cos a, 0, sin a], [0, 1, 0], [−sin a, 0, cos a]]
    ([LG, 李群]: SO(3)).

    Parameters: angle — float, or a sympy expression (gives a sympy Matrix).

    >>> bool(np.allclose(rot_y(0.7), exp([0., 0.7, 0.])))
    True
    """
    return _axis_rotation(angle, 2, 0)


def rot_z(angle):
    """Rotation about the z axis by ``angle`` (rad).

    Convention: rot_z(a) = exp([0, 0, 1] a) = [[cos a, −sin a, 0], [sin a, cos a, 0], [0, 0, 1]]
    ([LG, 李群]: SO(3)).

    Parameters: angle — float, or a sympy expression (gives a sympy Matrix).

    >>> bool(np.allclose(rot_z(0.7) @ rot_z(-0.7), np.eye(3)))
    True
    """
    return _axis_rotation(angle, 0, 1)


# --- Jacobians --------------------------------------------------------------------------------


def left_jacobian(phi):
    """Left Jacobian J_l(φ) of SO(3).

    Convention: exp(φ + δ) ≈ exp(J_l(φ) δ) exp(φ) for small δ;
    J_l(φ) = Σ [φ]ᵏ/(k+1)! = I + ((1 − cos θ)/θ²)[φ] + ((θ − sin θ)/θ³)[φ]²
    ([LG, 李群导数]: x_d = Σ adᵏ(x) ẋ/(k+1)!). Also the V matrix of se3.exp.

    Parameters: phi (3,) rotation vector. Returns (3, 3).

    >>> phi = np.array([0.1, -0.2, 0.3])
    >>> bool(np.allclose(left_jacobian(phi), exp(phi) @ right_jacobian(phi)))
    True
    """
    phi = vector(phi, 3, "phi")
    theta = math.sqrt(phi @ phi)
    W = hat(phi)
    return _I3 + rodrigues.b(theta) * W + rodrigues.c(theta) * (W @ W)


def right_jacobian(phi):
    """Right Jacobian J_r(φ) of SO(3).

    Convention: exp(φ + δ) ≈ exp(φ) exp(J_r(φ) δ) for small δ; J_l(φ) = J_r(−φ)
    ([LG, 李群导数], with the derivative taken on the right).

    Parameters: phi (3,) rotation vector. Returns (3, 3).

    >>> phi = np.array([0.1, -0.2, 0.3])
    >>> bool(np.allclose(left_jacobian(phi), right_jacobian(-phi)))
    True
    """
    return left_jacobian(-vector(phi, 3, "phi"))


def left_jacobian_inv(phi):
    """Inverse of the left Jacobian, J_l(φ)⁻¹ (singular where θ is a nonzero multiple of 2π).

    Convention: J_l(φ)⁻¹ = I − ½[φ] + (1/θ² − (1 + cos θ)/(2θ sin θ))[φ]²; it maps a left
    perturbation back: log(exp(ε) exp(φ)) ≈ φ + J_l(φ)⁻¹ ε (also se3.log's V⁻¹; [LG,
    李群导数]: ẋ = J_l⁻¹ x_d).

    Parameters: phi (3,) rotation vector. Returns (3, 3).

    >>> phi = np.array([0.1, -0.2, 0.3])
    >>> bool(np.allclose(left_jacobian_inv(phi) @ left_jacobian(phi), np.eye(3)))
    True
    """
    phi = vector(phi, 3, "phi")
    theta = math.sqrt(phi @ phi)
    W = hat(phi)
    return _I3 - 0.5 * W + rodrigues.d(theta) * (W @ W)


def right_jacobian_inv(phi):
    """Inverse of the right Jacobian, J_r(φ)⁻¹ = J_l(−φ)⁻¹.

    Convention: log(exp(φ) exp(ε)) ≈ φ + J_r(φ)⁻¹ ε for small ε ([LG, 李群导数]).

    Parameters: phi (3,) rotation vector. Returns (3, 3).

    >>> phi = np.array([0.1, -0.2, 0.3])
    >>> bool(np.allclose(right_jacobian_inv(phi) @ right_jacobian(phi), np.eye(3)))
    True
    """
    return left_jacobian_inv(-vector(phi, 3, "phi"))


# --- validation -------------------------------------------------------------------------------


def _det3(R):
    (a, b, c), (d, e, f), (g, h, i) = R.tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def check_rotation(R, name="R", *, tol=ROTATION_TOL):
    """Validate a rotation matrix; return it as a float (3, 3) array, else raise ValueError.

    Convention: R ∈ SO(3) ⇔ RᵀR = I and det R = +1 ([LG, 李群]: SO(n)); checked to ``tol``
    (max-abs of RᵀR − I). The message names ``name`` and says what was expected and got.

    Parameters: R (3, 3); name — the argument name used in the message.

    >>> check_rotation(np.diag([1., 1., -1.]))
    Traceback (most recent call last):
    ...
    ValueError: R: expected det(R) = +1 (a rotation), got det(R) = -1 (a reflection)
    """
    R = matrix(R, (3, 3), name)
    err = np.abs(R.T @ R - _I3).max()
    if not err <= tol:
        raise ValueError(f"{name}: expected a rotation matrix (orthonormal: "
                         f"max|RᵀR − I| <= {tol:g}), got max|RᵀR − I| = {err:.3g}")
    det = _det3(R)
    if det < 0.0:
        raise ValueError(f"{name}: expected det(R) = +1 (a rotation), got det(R) = {det:.3g} "
                         "(a reflection)")
    return R


def is_rotation(R, tol=ROTATION_TOL):
    """True if R is a rotation matrix: RᵀR = I (to ``tol``) and det R = +1.

    Convention: the predicate of check_rotation ([LG, 李群]: SO(n)); a sympy matrix is
    checked by simplification.

    Parameters: R (3, 3), numeric or sympy.

    >>> is_rotation(exp([0.1, 0.2, 0.3])), is_rotation(np.diag([1., 1., -1.]))
    (True, False)
    """
    if is_symbolic(R):
        import sympy as sp
        M = sp.Matrix(R)
        return (M.shape == (3, 3) and sp.simplify(M.T * M - sp.eye(3)).is_zero_matrix is True
                and sp.simplify(M.det() - 1) == 0)
    try:
        check_rotation(R, tol=tol)
    except ValueError:
        return False
    return True
