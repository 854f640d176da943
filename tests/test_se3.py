"""Tests of lessonlib.se3: group and algebra identities over many random inputs, the se(3) basis
bracket table of [LG, 换位子], Jacobians (identities, finite differences, high precision near 0),
half-turns, sympy support, Modern Robotics as an oracle, and every ValueError."""
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonlib import se3, so3
from lessonlib.conventions import ANG, LIN

N = 200                      # random samples per seeded identity test
I4, I6 = np.eye(4), np.eye(6)


def random_twist(rng, max_angle=math.pi):
    """Twist [ω; v] with |ω| uniform in [0, max_angle) and v standard normal."""
    u = rng.normal(size=3)
    return np.concatenate([u / np.linalg.norm(u) * rng.uniform(0, max_angle), rng.normal(size=3)])


def random_transform(rng):
    return se3.from_Rp(so3.exp(random_twist(rng)[ANG]), rng.normal(size=3) * 2)


def assert_transform(T, tol=1e-12):
    assert T.dtype == np.float64 and T.shape == (4, 4)
    np.testing.assert_array_equal(T[3], [0, 0, 0, 1])
    assert so3.is_rotation(T[:3, :3], tol=tol)


def bracket(X, Y):
    return X @ Y - Y @ X


twist = st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=6, max_size=6).map(np.array)


# --- algebra ----------------------------------------------------------------------------------

def test_hat_vee_roundtrip_and_layout():
    np.testing.assert_array_equal(
        se3.hat([1, 2, 3, 4, 5, 6]), [[0, -3, 2, 4], [3, 0, -1, 5], [-2, 1, 0, 6], [0, 0, 0, 0]])
    rng = np.random.default_rng(1)
    for _ in range(N):
        xi = rng.normal(size=6)
        np.testing.assert_array_equal(se3.vee(se3.hat(xi)), xi)
        p = rng.normal(size=3)           # hat(ξ) acts on homogeneous points as ω × p + v
        np.testing.assert_allclose((se3.hat(xi) @ np.r_[p, 1])[:3],
                                   np.cross(xi[ANG], p) + xi[LIN], atol=1e-14)


def test_ad_explicit_layout():
    """ad(ξ) = [[ [ω], 0 ], [ [v], [ω] ]] ([LG, 换位子], se(3)), and ad_dual = −adᵀ."""
    xi = np.array([1., 2., 3., 4., 5., 6.])
    W, V = so3.hat(xi[ANG]), so3.hat(xi[LIN])
    np.testing.assert_array_equal(se3.ad(xi), np.block([[W, np.zeros((3, 3))], [V, W]]))
    np.testing.assert_array_equal(se3.ad_dual(xi), -se3.ad(xi).T)
    np.testing.assert_array_equal(se3.ad_dual(xi), np.block([[W, V], [np.zeros((3, 3)), W]]))


# [E_i, E_j] for the basis E1..E6 = rotations about x, y, z, then translations along x, y, z
# ([ω; v] order), as written in [LG, 换位子] (se(3)): ±k stands for ±E_k, 0 for zero.
BRACKET_TABLE = [
    # E1  E2  E3  E4  E5  E6
    [0, +3, -2, 0, +6, -5],     # E1 = w_i: [w_i, w_j] = w_k, [w_i, v_j] = v_k, [w_i, v_k] = -v_j
    [-3, 0, +1, -6, 0, +4],     # E2 = w_j: [w_j, w_k] = w_i, [w_j, v_k] = v_i
    [+2, -1, 0, +5, -4, 0],     # E3 = w_k: [w_k, w_i] = w_j, [w_k, v_i] = v_j
    [0, +6, -5, 0, 0, 0],       # E4 = v_i: translations commute with translations
    [-6, 0, +4, 0, 0, 0],       # E5 = v_j
    [+5, -4, 0, 0, 0, 0],       # E6 = v_k
]


def table_entry(k):
    return np.zeros(6) if k == 0 else np.sign(k) * I6[abs(k) - 1]


@pytest.mark.parametrize("i", range(6))
@pytest.mark.parametrize("j", range(6))
def test_se3_basis_bracket_table(i, j):
    expected = table_entry(BRACKET_TABLE[i][j])
    Ei, Ej = se3.hat(I6[i]), se3.hat(I6[j])
    np.testing.assert_array_equal(se3.vee(bracket(Ei, Ej)), expected)
    np.testing.assert_array_equal(se3.ad(I6[i]) @ I6[j], expected)


def test_bracket_identities():
    rng = np.random.default_rng(2)
    for _ in range(N):
        x, y, z = rng.normal(size=(3, 6))
        X, Y = se3.hat(x), se3.hat(y)
        np.testing.assert_allclose(se3.hat(se3.ad(x) @ y), bracket(X, Y), atol=1e-13)
        np.testing.assert_allclose(se3.ad(x) @ y, -se3.ad(y) @ x, atol=1e-14)    # antisymmetry
        jacobi = (se3.ad(x) @ se3.ad(y) @ z + se3.ad(y) @ se3.ad(z) @ x
                  + se3.ad(z) @ se3.ad(x) @ y)
        np.testing.assert_allclose(jacobi, 0, atol=1e-12)
        np.testing.assert_allclose(se3.ad(se3.ad(x) @ y),                         # ad is a Lie
                                   bracket(se3.ad(x), se3.ad(y)), atol=1e-12)     # algebra map
        np.testing.assert_array_equal(se3.ad_dual(x), -se3.ad(x).T)


@settings(max_examples=50, deadline=None)
@given(twist, twist)
def test_bracket_property(x, y):
    np.testing.assert_allclose(se3.hat(se3.ad(x) @ y), bracket(se3.hat(x), se3.hat(y)),
                               atol=1e-12)


# --- Ad ---------------------------------------------------------------------------------------

def test_Ad_explicit_layout():
    T = random_transform(np.random.default_rng(3))
    R, p = se3.to_Rp(T)
    np.testing.assert_allclose(se3.Ad(T), np.block([[R, np.zeros((3, 3))], [so3.hat(p) @ R, R]]),
                               atol=0)


def test_Ad_identities():
    rng = np.random.default_rng(4)
    for _ in range(N):
        X, Y, T = random_transform(rng), random_transform(rng), random_transform(rng)
        xi, eta = rng.normal(size=(2, 6))
        np.testing.assert_allclose(se3.Ad(X @ Y), se3.Ad(X) @ se3.Ad(Y), atol=1e-12)
        np.testing.assert_allclose(se3.Ad(se3.inv(X)), np.linalg.inv(se3.Ad(X)), atol=1e-12)
        np.testing.assert_allclose(se3.hat(se3.Ad(T) @ xi), T @ se3.hat(xi) @ se3.inv(T),
                                   atol=1e-12)
        Ad = se3.Ad(T)
        np.testing.assert_allclose(se3.ad(Ad @ xi), Ad @ se3.ad(xi) @ np.linalg.inv(Ad),
                                   atol=1e-11)
        np.testing.assert_allclose(se3.ad(Ad @ xi) @ (Ad @ eta), Ad @ (se3.ad(xi) @ eta),
                                   atol=1e-11)                      # Ad preserves the bracket
        np.testing.assert_allclose(se3.exp(Ad @ xi), T @ se3.exp(xi) @ se3.inv(T),
                                   atol=1e-11)                      # e^{Ad_g X} = g e^X g⁻¹


def test_power_is_invariant_under_change_of_frame():
    """A wrench changes with Ad(T)^-T when the twist changes with Ad(T): F·V is frame-free."""
    rng = np.random.default_rng(5)
    for _ in range(N):
        T = random_transform(rng)
        V_b, F_b = rng.normal(size=(2, 6))
        V_a = se3.Ad(T) @ V_b
        F_a = np.linalg.solve(se3.Ad(T).T, F_b)
        assert math.isclose(F_a @ V_a, F_b @ V_b, rel_tol=1e-10, abs_tol=1e-10)
        np.testing.assert_allclose(se3.Ad(T).T @ F_a, F_b, atol=1e-11)
        x = rng.normal(size=6)                                      # ad* is the dual of ad
        assert math.isclose((se3.ad_dual(x) @ F_a) @ V_a, -F_a @ (se3.ad(x) @ V_a),
                            rel_tol=1e-10, abs_tol=1e-10)


# --- group: exp, log, inv ---------------------------------------------------------------------

def test_group_axioms():
    rng = np.random.default_rng(6)
    for _ in range(100):
        A, B, C = (random_transform(rng) for _ in range(3))
        assert_transform(A @ B)                                              # closure
        np.testing.assert_allclose((A @ B) @ C, A @ (B @ C), atol=1e-13)      # associativity
        np.testing.assert_array_equal(se3.exp(np.zeros(6)) @ A, A)            # identity
        np.testing.assert_allclose(se3.inv(A) @ A, I4, atol=1e-13)            # inverse
        np.testing.assert_allclose(A @ se3.inv(A), I4, atol=1e-13)
        assert_transform(se3.inv(A))


def test_exp_matches_matrix_power_series():
    rng = np.random.default_rng(7)
    for _ in range(50):
        Xi = se3.hat(random_twist(rng, 3.0))
        series, term = I4.copy(), I4.copy()
        for k in range(1, 40):
            term = term @ Xi / k
            series += term
        np.testing.assert_allclose(se3.exp(se3.vee(Xi)), series, atol=1e-13)


def test_exp_of_pure_translation_and_pure_rotation():
    np.testing.assert_array_equal(se3.exp([0, 0, 0, 1, 2, 3]), se3.from_Rp(np.eye(3), [1, 2, 3]))
    np.testing.assert_allclose(se3.exp([0, 0, 0.5, 0, 0, 0]), se3.from_Rp(so3.rot_z(0.5), np.zeros(3)),
                               atol=1e-16)


def test_log_exp_and_exp_log_are_identity():
    rng = np.random.default_rng(8)
    for _ in range(N):
        xi = random_twist(rng, math.pi - 1e-6)
        np.testing.assert_allclose(se3.log(se3.exp(xi)), xi, atol=1e-11)
        T = random_transform(rng)
        xi_T = se3.log(T)
        assert np.linalg.norm(xi_T[ANG]) <= math.pi + 1e-12
        np.testing.assert_allclose(se3.exp(xi_T), T, atol=1e-12)


@pytest.mark.parametrize("theta", [0.0, 1e-12, 1e-8, 1e-5, 1e-3])
def test_log_exp_at_small_angles_is_relatively_exact(theta):
    rng = np.random.default_rng(9)
    for _ in range(20):
        xi = random_twist(rng)
        xi[ANG] *= theta / np.linalg.norm(xi[ANG])
        np.testing.assert_allclose(se3.log(se3.exp(xi)), xi, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("delta", [1e-10, -1e-10, 0.0, 1e-7])
def test_log_near_half_turns(delta):
    rng = np.random.default_rng(10)
    for _ in range(30):
        xi = random_twist(rng)
        xi[ANG] *= (math.pi - delta) / np.linalg.norm(xi[ANG])
        T = se3.exp(xi)
        back = se3.log(T)
        assert np.linalg.norm(back[ANG]) <= math.pi + 1e-12
        np.testing.assert_allclose(se3.exp(back), T, atol=1e-12)
        if delta > 0:
            np.testing.assert_allclose(back, xi, atol=1e-9)


def test_from_Rp_to_Rp_roundtrip():
    rng = np.random.default_rng(11)
    for _ in range(50):
        R, p = so3.exp(rng.normal(size=3)), rng.normal(size=3)
        T = se3.from_Rp(R, p)
        R2, p2 = se3.to_Rp(T)
        np.testing.assert_array_equal(R2, R)
        np.testing.assert_array_equal(p2, p)
        np.testing.assert_array_equal(T[3], [0, 0, 0, 1])


def test_exp_of_screw_and_angle():
    rng = np.random.default_rng(12)
    for _ in range(50):
        w = rng.normal(size=3)
        w /= np.linalg.norm(w)
        q, h, a = rng.normal(size=3), rng.normal(), rng.uniform(-4, 4)
        S = np.r_[w, -np.cross(w, q) + h * w]              # screw through q with pitch h
        np.testing.assert_allclose(se3.exp(S, a), se3.exp(S * a), atol=1e-15)
        P = np.r_[np.zeros(3), w]                           # prismatic
        np.testing.assert_allclose(se3.exp(P, a), se3.from_Rp(np.eye(3), w * a), atol=1e-15)


# --- Jacobians --------------------------------------------------------------------------------

def fd_left(xi, h=1e-6):
    """Central differences of log(exp(ξ + h e_i) exp(ξ)⁻¹)/(2h): the left Jacobian."""
    T0i = se3.inv(se3.exp(xi))
    return np.column_stack([(se3.log(se3.exp(xi + h * e) @ T0i)
                             - se3.log(se3.exp(xi - h * e) @ T0i)) / (2 * h) for e in I6])


def fd_right(xi, h=1e-6):
    T0i = se3.inv(se3.exp(xi))
    return np.column_stack([(se3.log(T0i @ se3.exp(xi + h * e))
                             - se3.log(T0i @ se3.exp(xi - h * e))) / (2 * h) for e in I6])


def test_jacobians_match_finite_differences():
    rng = np.random.default_rng(13)
    xis = [random_twist(rng, 3.0) for _ in range(40)]
    xis += [np.zeros(6), np.r_[0, 0, 0, 1, 2, 3], np.r_[1e-7, 0, 0, 1, 2, 3]]
    for xi in xis:
        np.testing.assert_allclose(se3.left_jacobian(xi), fd_left(xi), atol=1e-7)
        np.testing.assert_allclose(se3.right_jacobian(xi), fd_right(xi), atol=1e-7)


@settings(max_examples=30, deadline=None)
@given(twist.filter(lambda x: np.linalg.norm(x[ANG]) < 3.0))
def test_left_jacobian_property_finite_differences(xi):
    np.testing.assert_allclose(se3.left_jacobian(xi), fd_left(xi), atol=1e-7)


def test_jacobian_identities():
    rng = np.random.default_rng(14)
    for _ in range(N):
        xi = random_twist(rng, 3.0)
        Jl, Jr = se3.left_jacobian(xi), se3.right_jacobian(xi)
        np.testing.assert_allclose(Jl, se3.Ad(se3.exp(xi)) @ Jr, atol=1e-12)
        np.testing.assert_allclose(Jl, se3.right_jacobian(-xi), atol=1e-15)
        np.testing.assert_allclose(Jl @ se3.left_jacobian_inv(xi), I6, atol=1e-11)
        np.testing.assert_allclose(Jr @ se3.right_jacobian_inv(xi), I6, atol=1e-11)
        np.testing.assert_allclose(Jl @ xi, xi, atol=1e-12)
        np.testing.assert_array_equal(Jl[ANG, LIN], 0)                        # [[J, 0], [Q, J]]
        np.testing.assert_allclose(Jl[ANG, ANG], so3.left_jacobian(xi[ANG]), atol=0)
        np.testing.assert_allclose(Jl[LIN, LIN], so3.left_jacobian(xi[ANG]), atol=0)


def test_left_jacobian_is_the_series_of_seed_001():
    """J_l(ξ) = Σ ad(ξ)ᵏ/(k+1)! ([LG, 李群导数]: x_d = Σ adᵏ(x) ẋ/(k+1)!)."""
    rng = np.random.default_rng(15)
    for _ in range(50):
        xi = random_twist(rng, 3.0)
        A = se3.ad(xi)
        series, term = I6.copy(), I6.copy()
        for k in range(1, 50):
            term = term @ A / (k + 1)
            series += term
        np.testing.assert_allclose(se3.left_jacobian(xi), series, atol=1e-12)


def hp_series(M, coeff, terms=60):
    """Σ coeff(k) Mᵏ in 50-digit arithmetic, M given as floats (converted exactly)."""
    M = sp.Matrix(M.tolist()).applyfunc(lambda e: sp.Float(e, 50))
    total, power = sp.eye(M.shape[0]), sp.eye(M.shape[0])
    for k in range(1, terms):
        power = power * M
        total += power * coeff(k)
    return total


def as_float(M):
    return np.array(M.tolist(), dtype=float)


@pytest.mark.parametrize("theta", [1e-8, 1e-5, 1e-3, 0.5, 2.4, 2.6])
def test_exp_and_jacobians_against_high_precision(theta):
    """Blockwise relative error against 50-digit power series, at and above the series
    thresholds; the Q block is where cancellation would show."""
    xi = np.r_[theta * np.array([0.6, 0.8, 0.0]), 0.3, -1.2, 0.7]
    T_ref = as_float(hp_series(se3.hat(xi), lambda k: sp.Rational(1, math.factorial(k))))
    J_hp = hp_series(se3.ad(xi), lambda k: sp.Rational(1, math.factorial(k + 1)))
    J_ref, Ji_ref = as_float(J_hp), as_float(J_hp.inv())
    for got, ref in [(se3.exp(xi), T_ref), (se3.left_jacobian(xi), J_ref),
                     (se3.left_jacobian_inv(xi), Ji_ref)]:
        for rows in (slice(0, 3), slice(3, got.shape[0])):
            for cols in (slice(0, 3), slice(3, got.shape[1])):
                scale = np.abs(ref[rows, cols]).max()
                assert np.abs(got[rows, cols] - ref[rows, cols]).max() <= 4e-15 * scale


# --- sympy ------------------------------------------------------------------------------------

theta = sp.Symbol("theta")


def test_exp_of_symbolic_screw_substituted_equals_numeric():
    rng = np.random.default_rng(16)
    for _ in range(4):
        w = rng.normal(size=3)
        w /= np.linalg.norm(w)
        S = np.r_[w, -np.cross(w, rng.normal(size=3))]
        T = se3.exp(S, theta)
        assert isinstance(T, sp.MatrixBase) and T.free_symbols == {theta}
        assert T.has(sp.sin(theta)) and T.has(sp.cos(theta))
        for a in (0.0, 0.4, -2.5):
            np.testing.assert_allclose(as_float(T.subs(theta, a)), se3.exp(S * a), atol=1e-13)
        T2 = se3.exp(sp.Matrix(S) * theta)                   # factored: S × theta
        np.testing.assert_allclose(as_float(T2.subs(theta, 0.9)), se3.exp(S * 0.9), atol=1e-13)


def test_exp_symbolic_exact_cases():
    c, s = sp.cos(theta), sp.sin(theta)
    expected = sp.Matrix([[c, -s, 0, 1 - c], [s, c, 0, -s], [0, 0, 1, 0], [0, 0, 0, 1]])
    assert se3.exp([0, 0, 1, 0, -1, 0], theta) == expected   # z axis through (1, 0, 0)
    assert se3.exp(np.array([0., 0., 1., 0., -1., 0.]) * theta) == expected
    assert se3.exp([0, 0, 0, 0, 0, 1], theta) == sp.Matrix(
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, theta], [0, 0, 0, 1]])
    assert se3.exp(sp.zeros(6, 1)) == sp.eye(4)


def test_Ad_ad_inv_of_symbolic_inputs():
    a, b, c = sp.symbols("a b c")
    T = se3.from_Rp(so3.rot_z(theta), [a, b, c])
    Ad = se3.Ad(T)
    R, p = so3.rot_z(theta), sp.Matrix([a, b, c])
    assert Ad == sp.Matrix(sp.BlockMatrix([[R, sp.zeros(3)], [so3.hat(p) * R, R]]))
    values = {theta: 0.7, a: 1.0, b: -2.0, c: 0.5}
    T_num = as_float(T.subs(values))
    np.testing.assert_allclose(as_float(Ad.subs(values)), se3.Ad(T_num), atol=1e-15)
    assert sp.simplify(se3.inv(T) * T - sp.eye(4)).is_zero_matrix
    np.testing.assert_allclose(as_float(se3.inv(T).subs(values)), se3.inv(T_num), atol=1e-15)
    R2, p2 = se3.to_Rp(T)
    assert R2 == R and p2 == p

    x = sp.Matrix(sp.symbols("w1:4 v1:4"))
    y = sp.Matrix(sp.symbols("y1:7"))
    assert isinstance(se3.ad(x), sp.MatrixBase)
    assert se3.ad(x)[:3, :3] == so3.hat(x[:3, :]) and se3.ad(x)[3:, :3] == so3.hat(x[3:, :])
    assert se3.ad(x)[:3, 3:] == sp.zeros(3)
    assert sp.expand(se3.hat(se3.ad(x) * y) - bracket(se3.hat(x), se3.hat(y))).is_zero_matrix
    assert se3.ad_dual(x) == -se3.ad(x).T
    assert se3.vee(se3.hat(x)) == x
    assert se3.hat(list(x)) == se3.hat(x)


def test_numeric_results_are_float_arrays():
    T = se3.exp([1, 2, 3, 4, 5, 6])
    for result in [T, se3.hat([1, 2, 3, 4, 5, 6]), se3.vee(se3.hat([1, 2, 3, 4, 5, 6])),
                   se3.log(np.eye(4, dtype=int)), se3.inv(T), se3.Ad(T), se3.ad([1, 2, 3, 4, 5, 6]),
                   se3.ad_dual((1, 2, 3, 4, 5, 6)), se3.exp([0, 0, 1, 0, 0, 0], 2),
                   se3.from_Rp(np.eye(3, dtype=int), [1, 2, 3]), se3.left_jacobian([1, 2, 3, 4, 5, 6]),
                   se3.right_jacobian_inv([1, 2, 3, 4, 5, 6])]:
        assert isinstance(result, np.ndarray) and result.dtype == np.float64


# --- Modern Robotics as an oracle (its twists are [ω; v] too) ----------------------------------

mr = pytest.importorskip("modern_robotics")
T_MR = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 3], [0, 0, 0, 1]])


def test_modern_robotics_docstring_examples():
    Xi = np.array([[0, 0, 0, 0], [0, 0, -1.57079632, 2.35619449],
                   [0, 1.57079632, 0, 2.35619449], [0, 0, 0, 0]])
    np.testing.assert_allclose(se3.exp(se3.vee(Xi)), T_MR, atol=1e-6)
    np.testing.assert_allclose(se3.hat(se3.log(T_MR)), [[0, 0, 0, 0], [0, 0, -1.57079633, 2.35619449],
                                                        [0, 1.57079633, 0, 2.35619449], [0, 0, 0, 0]],
                               atol=1e-8)
    np.testing.assert_allclose(se3.Ad(T_MR), [[1, 0, 0, 0, 0, 0], [0, 0, -1, 0, 0, 0],
                                              [0, 1, 0, 0, 0, 0], [0, 0, 3, 1, 0, 0],
                                              [3, 0, 0, 0, 0, -1], [0, 0, 0, 0, 1, 0]], atol=0)
    np.testing.assert_array_equal(se3.ad([1, 2, 3, 4, 5, 6]),
                                  [[0, -3, 2, 0, 0, 0], [3, 0, -1, 0, 0, 0], [-2, 1, 0, 0, 0, 0],
                                   [0, -6, 5, 0, -3, 2], [6, 0, -4, 3, 0, -1], [-5, 4, 0, -2, 1, 0]])
    np.testing.assert_allclose(se3.inv(T_MR), [[1, 0, 0, 0], [0, 0, 1, -3], [0, -1, 0, 0],
                                               [0, 0, 0, 1]], atol=0)


def test_agrees_with_modern_robotics_on_random_inputs():
    rng = np.random.default_rng(17)
    for _ in range(N):
        xi = random_twist(rng, 3.0) * rng.uniform(0.1, 1.0)
        T = random_transform(rng)
        np.testing.assert_allclose(se3.exp(xi), mr.MatrixExp6(mr.VecTose3(xi)), atol=1e-12)
        np.testing.assert_allclose(se3.log(T), mr.se3ToVec(mr.MatrixLog6(T)), atol=1e-8)
        np.testing.assert_allclose(se3.Ad(T), mr.Adjoint(T), atol=1e-15)
        np.testing.assert_allclose(se3.ad(xi), mr.ad(xi), atol=0)
        np.testing.assert_allclose(se3.inv(T), mr.TransInv(T), atol=1e-15)
        np.testing.assert_allclose(se3.hat(xi), mr.VecTose3(xi), atol=0)


# --- invalid input ----------------------------------------------------------------------------

@pytest.mark.parametrize("func", [se3.hat, se3.exp, se3.ad, se3.ad_dual, se3.left_jacobian,
                                  se3.right_jacobian, se3.left_jacobian_inv, se3.right_jacobian_inv])
def test_twist_functions_reject_bad_twists(func):
    with pytest.raises(ValueError, match=r"xi: expected a 6-vector, got shape \(5,\)"):
        func(np.zeros(5))
    with pytest.raises(ValueError, match=r"xi: expected a 6-vector, got shape \(6, 1\)"):
        func(np.zeros((6, 1)))
    with pytest.raises(ValueError, match=r"xi: expected finite values, got nan/inf"):
        func([0, 0, 0, np.nan, 0, 0])
    with pytest.raises(ValueError, match=r"xi: expected finite values"):
        func([np.inf, 0, 0, 0, 0, 0])


@pytest.mark.parametrize("func", [se3.log, se3.inv, se3.Ad, se3.to_Rp, se3.check_transform])
def test_transform_functions_reject_bad_transforms(func):
    good = se3.exp([0.1, 0.2, 0.3, 1, 2, 3])
    with pytest.raises(ValueError, match=r"T: expected a 4x4 matrix, got shape \(3, 3\)"):
        func(np.eye(3))
    bad = good.copy()
    bad[3] = [0, 0, 1, 1]
    with pytest.raises(ValueError, match=r"T: expected bottom row \[0, 0, 0, 1\], got \[0.0, 0.0, 1.0, 1.0\]"):
        func(bad)
    bad = good.copy()
    bad[:3, :3] *= 1.1
    with pytest.raises(ValueError, match=r"T\[:3, :3\]: expected a rotation matrix .*got max\|RᵀR − I\| = 0.21"):
        func(bad)
    bad = good.copy()
    bad[:3, :3] = np.diag([-1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"T\[:3, :3\]: expected det\(R\) = \+1 .*a reflection"):
        func(bad)
    bad = good.copy()
    bad[0, 3] = np.nan
    with pytest.raises(ValueError, match=r"T: expected finite values, got nan/inf"):
        func(bad)
    bad = good.copy()
    bad[1, 1] = np.inf
    with pytest.raises(ValueError, match=r"T: expected finite values"):
        func(bad)


def test_check_transform_names_the_argument():
    with pytest.raises(ValueError, match=r"^T_a_b: expected bottom row"):
        se3.check_transform(np.zeros((4, 4)), name="T_a_b")
    T = se3.exp([0.1, 0.2, 0.3, 1, 2, 3])
    assert np.array_equal(se3.check_transform(T), T)


def test_other_invalid_inputs():
    with pytest.raises(ValueError, match=r"Xi: expected bottom row \[0, 0, 0, 0\]"):
        se3.vee(np.eye(4))
    with pytest.raises(ValueError, match=r"Xi\[:3, :3\]: expected a skew-symmetric 3x3 matrix"):
        se3.vee(np.block([[np.ones((3, 4))], [np.zeros((1, 4))]]))
    with pytest.raises(ValueError, match=r"Xi: expected a 4x4 matrix, got shape \(6,\)"):
        se3.vee(np.zeros(6))
    with pytest.raises(ValueError, match=r"R: expected a rotation matrix"):
        se3.from_Rp(np.ones((3, 3)), [0, 0, 0])
    with pytest.raises(ValueError, match=r"p: expected a 3-vector, got shape \(4,\)"):
        se3.from_Rp(np.eye(3), [0, 0, 0, 1])
    with pytest.raises(ValueError, match=r"xi: expected a unit screw \(\|ω\| = 1, or ω = 0 and \|v\| = 1\) "
                                         r"when angle is given, got \|ω\| = 2, \|v\| = 0"):
        se3.exp([0, 0, 2, 0, 0, 0], 0.3)
    with pytest.raises(ValueError, match=r"xi: expected a unit screw .*got \|ω\| = 0, \|v\| = 3"):
        se3.exp([0, 0, 0, 0, 0, 3], theta)
    with pytest.raises(ValueError, match=r"angle: expected a finite scalar"):
        se3.exp([0, 0, 1, 0, 0, 0], np.inf)
    a, b = sp.symbols("a b")
    with pytest.raises(ValueError, match=r"xi: cannot write \[0, 0, a, b, 0, 0\] as \(numeric unit axis\)"):
        se3.exp([0, 0, a, b, 0, 0])
    with pytest.raises(ValueError, match=r"xi: expected a 6-vector, got shape \(3, 1\)"):
        se3.ad(sp.Matrix([a, b, 0]))
    with pytest.raises(ValueError, match=r"T: expected a 4x4 matrix, got shape \(3, 3\)"):
        se3.Ad(sp.eye(3) * a)


def test_screw_axis_rebuilds_the_twist():
    rng = np.random.default_rng(31)
    for _ in range(50):
        xi = rng.normal(size=6)
        s = se3.screw_axis(xi)
        rebuilt = s.magnitude * np.r_[s.axis, -np.cross(s.axis, s.point) + s.pitch * s.axis]
        np.testing.assert_allclose(rebuilt, xi, atol=1e-12)
        assert abs(s.point @ s.axis) < 1e-12                      # the point nearest the origin
    s = se3.screw_axis([0, 0, 0, 0, 3.0, 4.0])
    assert s.pitch == np.inf and s.magnitude == 5.0 and np.allclose(s.axis, [0, 0.6, 0.8])
    with pytest.raises(ValueError, match="zero twist"):
        se3.screw_axis(np.zeros(6))
    with pytest.raises(ValueError, match="xi"):
        se3.screw_axis([1.0, 2.0])
