"""Tests of lessonlib.so3: identities over many random inputs, accuracy near 0 and π,
finite-difference Jacobians, sympy support, Modern Robotics as an oracle, and every ValueError."""
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonlib import _rodrigues as rodrigues
from lessonlib import so3

N = 300                      # random samples per seeded identity test
I3 = np.eye(3)


def random_phi(rng, max_angle=math.pi):
    """Rotation vector with a uniform axis and an angle uniform in [0, max_angle)."""
    u = rng.normal(size=3)
    return u / np.linalg.norm(u) * rng.uniform(0.0, max_angle)


def random_rotation(rng):
    """Haar-random rotation from a QR factorisation (independent of so3.exp)."""
    Q, R = np.linalg.qr(rng.normal(size=(3, 3)))
    Q = Q * np.sign(np.diag(R))
    return Q if np.linalg.det(Q) > 0 else -Q


def assert_rotation(R, tol=1e-12):
    assert R.dtype == np.float64 and R.shape == (3, 3)
    np.testing.assert_allclose(R.T @ R, I3, atol=tol)
    assert abs(np.linalg.det(R) - 1.0) < tol


vec3 = st.lists(st.floats(-3.0, 3.0, allow_nan=False), min_size=3, max_size=3).map(np.array)


# --- algebra ----------------------------------------------------------------------------------

def test_hat_is_cross_product_and_vee_inverts_it():
    rng = np.random.default_rng(1)
    for _ in range(N):
        w, x = rng.normal(size=3), rng.normal(size=3)
        W = so3.hat(w)
        np.testing.assert_allclose(W @ x, np.cross(w, x), atol=1e-14)
        np.testing.assert_array_equal(W, -W.T)
        np.testing.assert_array_equal(so3.vee(W), w)


def test_hat_explicit_entries():
    np.testing.assert_array_equal(so3.hat([1, 2, 3]), [[0, -3, 2], [3, 0, -1], [-2, 1, 0]])


def test_bracket_of_so3_basis_is_cross_product():
    """[LG, 换位子], so(3): [X, Y] = Z, [Z, X] = Y, [Y, Z] = X for the coordinate axes."""
    X, Y, Z = (so3.hat(e) for e in I3)
    np.testing.assert_array_equal(X @ Y - Y @ X, Z)
    np.testing.assert_array_equal(Z @ X - X @ Z, Y)
    np.testing.assert_array_equal(Y @ Z - Z @ Y, X)
    rng = np.random.default_rng(2)
    for _ in range(50):
        x, y = rng.normal(size=3), rng.normal(size=3)
        Xm, Ym = so3.hat(x), so3.hat(y)
        np.testing.assert_allclose(Xm @ Ym - Ym @ Xm, so3.hat(np.cross(x, y)), atol=1e-13)


# --- exp / log --------------------------------------------------------------------------------

def test_exp_is_a_rotation_about_phi():
    rng = np.random.default_rng(3)
    for _ in range(N):
        phi = rng.normal(size=3) * 3
        R = so3.exp(phi)
        assert_rotation(R)
        np.testing.assert_allclose(R @ phi, phi, atol=1e-12)
        theta = np.linalg.norm(phi)
        assert math.isclose((np.trace(R) - 1) / 2, math.cos(theta), abs_tol=1e-13)


def test_exp_of_zero_is_identity():
    np.testing.assert_array_equal(so3.exp(np.zeros(3)), I3)


def test_exp_matches_matrix_power_series():
    rng = np.random.default_rng(4)
    for _ in range(50):
        W = so3.hat(random_phi(rng, 3.0))
        series, term = I3.copy(), I3.copy()
        for k in range(1, 40):
            term = term @ W / k
            series += term
        np.testing.assert_allclose(so3.exp(so3.vee(W)), series, atol=1e-14)


def test_log_exp_is_identity_below_pi():
    rng = np.random.default_rng(5)
    for _ in range(N):
        phi = random_phi(rng, math.pi - 1e-6)
        np.testing.assert_allclose(so3.log(so3.exp(phi)), phi, atol=1e-12)


@pytest.mark.parametrize("theta", [0.0, 1e-300, 1e-12, 1e-8, 1e-6, 1e-5, 1e-3, 0.1])
def test_log_exp_is_relatively_exact_at_small_angles(theta):
    rng = np.random.default_rng(6)
    for _ in range(20):
        u = rng.normal(size=3)
        phi = theta * u / np.linalg.norm(u)
        np.testing.assert_allclose(so3.log(so3.exp(phi)), phi, rtol=1e-14, atol=0)


def test_exp_log_is_identity_on_random_rotations():
    rng = np.random.default_rng(7)
    for _ in range(N):
        R = random_rotation(rng)
        phi = so3.log(R)
        assert np.linalg.norm(phi) <= math.pi + 1e-12
        np.testing.assert_allclose(so3.exp(phi), R, atol=1e-13)


@settings(max_examples=60, deadline=None)
@given(vec3)
def test_exp_log_property(phi):
    R = so3.exp(phi)
    np.testing.assert_allclose(so3.exp(so3.log(R)), R, atol=1e-12)


AXES = [np.array(a, float) / np.linalg.norm(a) for a in
        ([1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, -2, 3], [-0.3, 0.1, -0.9], [1, 1, 1])]


@pytest.mark.parametrize("axis", AXES, ids=lambda a: np.array2string(a, precision=2))
@pytest.mark.parametrize("delta", [-1e-10, 0.0, 1e-10, 1e-7, -1e-7])
def test_log_at_and_near_half_turns(axis, delta):
    """exp(axis (π − δ)): log gives a valid axis and angle, exp(log R) = R to 1e-12."""
    theta = math.pi - delta
    R = so3.exp(axis * theta)
    phi = so3.log(R)
    assert np.linalg.norm(phi) <= math.pi + 1e-12
    np.testing.assert_allclose(so3.exp(phi), R, atol=1e-12)
    expected = axis * theta if theta <= math.pi else -axis * (2 * math.pi - theta)
    if delta == 0.0:     # an exact half-turn: ±axis·π are the same rotation
        assert min(np.abs(phi - expected).max(), np.abs(phi + expected).max()) < 1e-12
    else:
        np.testing.assert_allclose(phi, expected, atol=1e-12)


def test_log_of_exact_half_turns():
    for R, axis in [(so3.rot_x(math.pi), [1, 0, 0]), (so3.rot_y(math.pi), [0, 1, 0]),
                    (so3.rot_z(math.pi), [0, 0, 1]), (np.diag([-1., -1., 1.]), [0, 0, 1]),
                    (np.diag([1., -1., -1.]), [1, 0, 0]), (np.diag([-1., 1., -1.]), [0, 1, 0])]:
        phi = so3.log(R)
        assert math.isclose(np.linalg.norm(phi), math.pi, rel_tol=1e-15)
        np.testing.assert_allclose(np.abs(phi), np.abs(axis) * math.pi, atol=1e-15)
        np.testing.assert_allclose(so3.exp(phi), R, atol=1e-15)


def test_log_within_1e9_of_random_half_turns():
    rng = np.random.default_rng(8)
    for _ in range(200):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        R = so3.exp(rng.normal(size=3) * 1e-9) @ so3.exp(u * math.pi)
        phi = so3.log(R)
        assert np.linalg.norm(phi) <= math.pi + 1e-12
        np.testing.assert_allclose(so3.exp(phi), R, atol=1e-12)


# --- group axioms -----------------------------------------------------------------------------

def test_group_axioms():
    rng = np.random.default_rng(9)
    for _ in range(100):
        A, B, C = (so3.exp(random_phi(rng)) for _ in range(3))
        assert_rotation(A @ B)                                              # closure
        assert so3.is_rotation(A @ B @ C)
        np.testing.assert_allclose((A @ B) @ C, A @ (B @ C), atol=1e-14)     # associativity
        np.testing.assert_array_equal(so3.exp(np.zeros(3)) @ A, A)            # identity
        np.testing.assert_allclose(so3.inv(A) @ A, I3, atol=1e-14)            # inverse
        np.testing.assert_allclose(A @ so3.inv(A), I3, atol=1e-14)
        assert_rotation(so3.inv(A))


def test_rot_xyz_are_exp_of_axes():
    for a in np.linspace(-4, 4, 17):
        np.testing.assert_allclose(so3.rot_x(a), so3.exp([a, 0, 0]), atol=1e-15)
        np.testing.assert_allclose(so3.rot_y(a), so3.exp([0, a, 0]), atol=1e-15)
        np.testing.assert_allclose(so3.rot_z(a), so3.exp([0, 0, a]), atol=1e-15)
    np.testing.assert_allclose(so3.rot_z(math.pi / 2), [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-16)
    np.testing.assert_allclose(so3.rot_x(math.pi / 2), [[1, 0, 0], [0, 0, -1], [0, 1, 0]], atol=1e-16)
    np.testing.assert_allclose(so3.rot_y(math.pi / 2), [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], atol=1e-16)


def test_exp_of_axis_and_angle():
    rng = np.random.default_rng(10)
    for _ in range(50):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        a = rng.uniform(-5, 5)
        np.testing.assert_allclose(so3.exp(u, a), so3.exp(u * a), atol=1e-15)


def test_exp_is_rotation_of_a_point_by_adjoint_identity():
    """Ad for SO(3): R hat(w) Rᵀ = hat(R w) ([LG, 伴随表示], so(3))."""
    rng = np.random.default_rng(11)
    for _ in range(N):
        R, w = so3.exp(random_phi(rng)), rng.normal(size=3)
        np.testing.assert_allclose(R @ so3.hat(w) @ R.T, so3.hat(R @ w), atol=1e-13)


# --- Jacobians --------------------------------------------------------------------------------

def fd_left(phi, h=1e-6):
    """Central differences of log(exp(φ + h e_i) exp(φ)⁻¹) / (2h): the left Jacobian."""
    R0t = so3.exp(phi).T
    cols = [(so3.log(so3.exp(phi + h * e) @ R0t) - so3.log(so3.exp(phi - h * e) @ R0t)) / (2 * h)
            for e in I3]
    return np.column_stack(cols)


def fd_right(phi, h=1e-6):
    R0t = so3.exp(phi).T
    cols = [(so3.log(R0t @ so3.exp(phi + h * e)) - so3.log(R0t @ so3.exp(phi - h * e))) / (2 * h)
            for e in I3]
    return np.column_stack(cols)


def test_jacobians_match_finite_differences():
    rng = np.random.default_rng(12)
    phis = [random_phi(rng, 3.0) for _ in range(60)] + [np.zeros(3), np.array([1e-7, 0, 0])]
    for phi in phis:
        np.testing.assert_allclose(so3.left_jacobian(phi), fd_left(phi), atol=1e-7)
        np.testing.assert_allclose(so3.right_jacobian(phi), fd_right(phi), atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(vec3.filter(lambda p: np.linalg.norm(p) < 3.0))
def test_left_jacobian_property_finite_differences(phi):
    np.testing.assert_allclose(so3.left_jacobian(phi), fd_left(phi), atol=1e-7)


def test_jacobian_identities():
    rng = np.random.default_rng(13)
    for _ in range(N):
        phi = random_phi(rng, 3.0)
        Jl, Jr = so3.left_jacobian(phi), so3.right_jacobian(phi)
        np.testing.assert_allclose(Jl, so3.exp(phi) @ Jr, atol=1e-13)            # J_l = R J_r
        np.testing.assert_allclose(Jl, so3.right_jacobian(-phi), atol=1e-15)     # J_l(φ) = J_r(−φ)
        np.testing.assert_allclose(Jl @ so3.left_jacobian_inv(phi), I3, atol=1e-12)
        np.testing.assert_allclose(Jr @ so3.right_jacobian_inv(phi), I3, atol=1e-12)
        np.testing.assert_allclose(Jl @ phi, phi, atol=1e-13)                    # J φ = φ


def test_left_jacobian_is_the_series_of_seed_001():
    """J_l(φ) = Σ [φ]ᵏ/(k+1)! ([LG, 李群导数])."""
    rng = np.random.default_rng(14)
    for _ in range(50):
        W = so3.hat(random_phi(rng, 3.0))
        series, term = I3.copy(), I3.copy()
        for k in range(1, 40):
            term = term @ W / (k + 1)
            series += term
        np.testing.assert_allclose(so3.left_jacobian(so3.vee(W)), series, atol=1e-14)


# --- accuracy near 0 against high-precision sympy ---------------------------------------------

t = sp.Symbol("t", positive=True)
COEFFICIENTS = {                       # lessonlib._rodrigues: the closed forms they stand for
    "a": sp.sin(t) / t,
    "b": (1 - sp.cos(t)) / t**2,
    "c": (t - sp.sin(t)) / t**3,
    "d": 1 / t**2 - (1 + sp.cos(t)) / (2 * t * sp.sin(t)),
    "db": (sp.sin(t) / t - 2 * (1 - sp.cos(t)) / t**2) / t**2,
    "dc": ((1 - sp.cos(t)) / t**2 - 3 * (t - sp.sin(t)) / t**3) / t**2,
}
THETAS = [1e-300, 1e-12, 1e-8, 1e-5, 1e-3, 0.1, 0.7, 1.3, 2.0, 2.49, 2.51, 3.0, math.pi - 1e-9]


def exact(expr, theta):
    """expr at the exact binary value of theta, 30 correct digits (sympy's adaptive evalf)."""
    return float(sp.N(expr, 30, subs={t: sp.Rational(theta)}))


@pytest.mark.parametrize("name", sorted(COEFFICIENTS))
def test_coefficients_are_relatively_accurate(name):
    f = getattr(rodrigues, name)
    for theta in THETAS:
        ref = exact(COEFFICIENTS[name], theta) if theta > 1e-200 else exact(
            sp.limit(COEFFICIENTS[name], t, 0), 1.0)
        assert abs(f(theta) - ref) <= 1e-15 * abs(ref), (name, theta, f(theta), ref)


def hp_series(W, coeff, terms=60):
    """Σ coeff(k) Wᵏ in 50-digit arithmetic, W given as floats (converted exactly)."""
    W = sp.Matrix(W.tolist()).applyfunc(lambda e: sp.Float(e, 50))
    total, power = sp.eye(W.shape[0]), sp.eye(W.shape[0])
    for k in range(1, terms):
        power = power * W
        total += power * coeff(k)
    return total


def as_float(M):
    return np.array(M.tolist(), dtype=float)


def assert_entrywise_relative(got, ref, rtol):
    err = np.abs(got - ref)
    assert np.all(err <= rtol * np.abs(ref) + 1e-300), (err / np.maximum(np.abs(ref), 1e-300)).max()


@pytest.mark.parametrize("theta", [1e-8, 1e-5, 1e-3, 0.5, 2.4, 2.6, 3.1])
def test_exp_and_jacobians_entrywise_against_high_precision(theta):
    """φ = θ (0.6, 0.8, 0): entry (0, 1) isolates the [φ]² coefficient, (0, 2) the [φ] one.

    Near π, sin θ amplifies the rounding of θ = |φ| itself (condition θ cot θ ≈ 75 at 3.1),
    so there the check is absolute.
    """
    phi = theta * np.array([0.6, 0.8, 0.0])
    W = so3.hat(phi)
    exp_ref = hp_series(W, lambda k: sp.Rational(1, math.factorial(k)))
    jl_ref = hp_series(W, lambda k: sp.Rational(1, math.factorial(k + 1)))
    pairs = [(so3.exp(phi), as_float(exp_ref)), (so3.left_jacobian(phi), as_float(jl_ref)),
             (so3.left_jacobian_inv(phi), as_float(jl_ref.inv()))]
    for got, ref in pairs:
        if theta < 3:
            assert_entrywise_relative(got, ref, 2e-15)
        else:
            np.testing.assert_allclose(got, ref, rtol=0, atol=2e-15)


# --- sympy ------------------------------------------------------------------------------------

theta = sp.Symbol("theta")


def test_rot_xyz_symbolic():
    c, s = sp.cos(theta), sp.sin(theta)
    assert so3.rot_x(theta) == sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])
    assert so3.rot_y(theta) == sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    assert so3.rot_z(theta) == sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    assert isinstance(so3.rot_z(theta), sp.MatrixBase)


def test_exp_symbolic_axis_angle_equals_rot():
    assert so3.exp([0, 0, 1], theta) == so3.rot_z(theta)
    assert so3.exp(np.array([1.0, 0.0, 0.0]), theta) == so3.rot_x(theta)
    assert so3.exp(sp.Matrix([0, theta, 0])) == so3.rot_y(theta)
    assert so3.exp([0, 0, 2 * theta]) == so3.rot_z(2 * theta)
    assert so3.exp(sp.Matrix([0, 0, 0])) == sp.eye(3)


def test_exp_symbolic_substituted_equals_numeric():
    rng = np.random.default_rng(15)
    for _ in range(5):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        a = rng.uniform(-3, 3)
        R = so3.exp(u, theta)
        assert R.free_symbols == {theta}
        np.testing.assert_allclose(as_float(R.subs(theta, a)), so3.exp(u * a), atol=1e-14)
    R = so3.exp([theta, theta, 0])                     # factored as √2 θ about (1, 1, 0)/√2
    np.testing.assert_allclose(as_float(R.subs(theta, 0.7)), so3.exp([0.7, 0.7, 0]), atol=1e-14)


def test_hat_vee_inv_is_rotation_symbolic():
    a, b, c = sp.symbols("a b c")
    W = so3.hat([a, b, c])
    assert W == sp.Matrix([[0, -c, b], [c, 0, -a], [-b, a, 0]])
    assert so3.hat(sp.Matrix([a, b, c])) == W
    assert so3.vee(W) == sp.Matrix([a, b, c])
    assert so3.inv(so3.rot_x(theta)) == so3.rot_x(theta).T
    assert sp.simplify(so3.inv(so3.rot_x(theta)) - so3.rot_x(-theta)).is_zero_matrix
    assert so3.is_rotation(so3.rot_z(theta)) is True
    assert so3.is_rotation(sp.diag(1, 1, -1)) is False


def test_numeric_results_are_float_arrays():
    for result in [so3.hat([1, 2, 3]), so3.exp([1, 2, 3]), so3.exp([0, 0, 1], 2),
                   so3.log(np.eye(3, dtype=int)), so3.inv(np.eye(3)), so3.rot_x(1),
                   so3.vee([[0, -3, 2], [3, 0, -1], [-2, 1, 0]]), so3.left_jacobian([1, 2, 3]),
                   so3.right_jacobian_inv((0.1, 0.2, 0.3))]:
        assert isinstance(result, np.ndarray) and result.dtype == np.float64


# --- Modern Robotics as an oracle -------------------------------------------------------------

mr = pytest.importorskip("modern_robotics")


def test_modern_robotics_docstring_examples():
    np.testing.assert_allclose(
        so3.exp(so3.vee([[0, -3, 2], [3, 0, -1], [-2, 1, 0]])),
        [[-0.69492056, 0.71352099, 0.08929286],
         [-0.19200697, -0.30378504, 0.93319235],
         [0.69297817, 0.6313497, 0.34810748]], atol=1e-8)
    np.testing.assert_allclose(
        so3.hat(so3.log([[0, 0, 1], [1, 0, 0], [0, 1, 0]])),
        [[0, -1.20919958, 1.20919958], [1.20919958, 0, -1.20919958],
         [-1.20919958, 1.20919958, 0]], atol=1e-8)


def test_agrees_with_modern_robotics_on_random_inputs():
    rng = np.random.default_rng(16)
    for _ in range(N):
        phi = rng.normal(size=3) * 2
        np.testing.assert_allclose(so3.exp(phi), mr.MatrixExp3(mr.VecToso3(phi)), atol=1e-12)
        R = random_rotation(rng)
        np.testing.assert_allclose(so3.hat(so3.log(R)), mr.MatrixLog3(R), atol=1e-9)
        np.testing.assert_allclose(so3.hat(phi), mr.VecToso3(phi), atol=0)
        np.testing.assert_allclose(so3.inv(R), mr.RotInv(R), atol=0)


# --- invalid input ----------------------------------------------------------------------------

@pytest.mark.parametrize("func", [so3.hat, so3.exp, so3.left_jacobian, so3.right_jacobian,
                                  so3.left_jacobian_inv, so3.right_jacobian_inv])
def test_vector_functions_reject_bad_vectors(func):
    name = "w" if func is so3.hat else "phi"
    with pytest.raises(ValueError, match=rf"{name}: expected a 3-vector, got shape \(4,\)"):
        func(np.zeros(4))
    with pytest.raises(ValueError, match=rf"{name}: expected a 3-vector, got shape \(3, 1\)"):
        func(np.zeros((3, 1)))
    with pytest.raises(ValueError, match=rf"{name}: expected finite values, got nan/inf"):
        func([0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match=rf"{name}: expected finite values"):
        func([0.0, np.inf, -np.inf])
    with pytest.raises(ValueError, match=rf"{name}: expected a 3-vector of real numbers"):
        func(["a", "b", "c"])


@pytest.mark.parametrize("func", [so3.log, so3.inv, so3.check_rotation])
def test_matrix_functions_reject_non_rotations(func):
    with pytest.raises(ValueError, match=r"R: expected a 3x3 matrix, got shape \(4, 4\)"):
        func(np.eye(4))
    with pytest.raises(ValueError, match=r"R: expected a rotation matrix .*got max\|RᵀR − I\| = 3$"):
        func(2 * np.eye(3))
    with pytest.raises(ValueError,
                       match=r"R: expected det\(R\) = \+1 .*got det\(R\) = -1 \(a reflection\)"):
        func(np.diag([1.0, -1.0, 1.0]))
    with pytest.raises(ValueError, match=r"R: expected finite values, got nan/inf"):
        func(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match=r"R: expected finite values"):
        func(np.diag([np.inf, 1.0, 1.0]))


def test_check_rotation_names_the_argument_and_tolerates_rounding():
    with pytest.raises(ValueError, match=r"^R_a_b: expected a rotation matrix"):
        so3.check_rotation(np.ones((3, 3)), name="R_a_b")
    R = so3.exp([0.1, 0.2, 0.3]) + 1e-9
    assert np.array_equal(so3.check_rotation(R), R)
    assert so3.is_rotation(R) and not so3.is_rotation(R, tol=1e-12)
    assert not so3.is_rotation(np.eye(2)) and not so3.is_rotation(np.full((3, 3), np.nan))


def test_other_invalid_inputs():
    with pytest.raises(ValueError, match=r"W: expected a skew-symmetric 3x3 matrix"):
        so3.vee(np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"W: expected a 3x3 matrix, got shape \(3,\)"):
        so3.vee(np.ones(3))
    with pytest.raises(ValueError, match=r"angle: expected a scalar, got shape \(2,\)"):
        so3.rot_x([1.0, 2.0])
    with pytest.raises(ValueError, match=r"angle: expected a finite scalar, got nan"):
        so3.rot_z(float("nan"))
    with pytest.raises(ValueError, match=r"angle: expected a real scalar"):
        so3.rot_y("x")
    with pytest.raises(ValueError,
                       match=r"phi: expected a unit axis \(\|ω\| = 1\) when angle is given, got \|ω\| = 2"):
        so3.exp([0, 0, 2.0], 0.5)
    with pytest.raises(ValueError, match=r"phi: expected a unit axis"):
        so3.exp([0, 0, 2], theta)
    with pytest.raises(ValueError, match=r"angle: expected a scalar"):
        so3.exp([0, 0, 1], np.ones(3))
    a, b = sp.symbols("a b")
    with pytest.raises(ValueError,
                       match=r"phi: cannot write \[a, b, 0\] as \(numeric unit axis\) x \(angle\)"):
        so3.exp([a, b, 0])
    with pytest.raises(ValueError, match=r"phi: expected a 3-vector, got shape \(4, 1\)"):
        so3.exp(sp.Matrix([a, 0, 0, 0]))
    with pytest.raises(ValueError, match=r"W: expected a 3x3 matrix, got shape \(2, 2\)"):
        so3.vee(sp.Matrix([[0, a], [-a, 0]]))
