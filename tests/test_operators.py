"""lessonlib._operators, the unchecked fast operators of the algorithms, against their checked twins
in so3 / se3: one input at a time and stacks, on random inputs, plus the identities that define them."""
import numpy as np
import pytest

from lessonlib import _operators as ops
from lessonlib import se3, so3

N = 200


@pytest.fixture
def rng():
    return np.random.default_rng(2024)


def random_poses(rng, count):
    return np.array([se3.exp(rng.normal(size=6) * [1, 1, 1, 2, 2, 2]) for _ in range(count)])


def test_skew_equals_so3_hat_and_is_the_cross_product(rng):
    W = rng.normal(size=(N, 3))
    X = rng.normal(size=(N, 3))
    S = ops.skew(W)
    assert S.shape == (N, 3, 3)
    for w, s, x in zip(W, S, X):
        assert np.array_equal(s, so3.hat(w))
        assert np.array_equal(ops.skew(w), so3.hat(w))
        np.testing.assert_allclose(s @ x, np.cross(w, x), atol=1e-14)


def test_ad_and_ad_dual_equal_se3_one_by_one_and_stacked(rng):
    V = rng.normal(size=(N, 6))
    A, D = ops.ad(V), ops.ad_dual(V)
    assert A.shape == D.shape == (N, 6, 6)
    for v, a, d in zip(V, A, D):
        assert np.array_equal(a, se3.ad(v)) and np.array_equal(ops.ad(v), se3.ad(v))
        assert np.array_equal(d, se3.ad_dual(v)) and np.array_equal(ops.ad_dual(v), se3.ad_dual(v))
    np.testing.assert_array_equal(D, -np.swapaxes(A, 1, 2))          # ad* = −adᵀ
    stack = V.reshape(10, 20, 6)                                      # any leading shape
    assert np.array_equal(ops.ad(stack), A.reshape(10, 20, 6, 6))


def test_bracket_is_the_commutator_of_the_4x4_matrices(rng):
    X, Y = rng.normal(size=(2, N, 6))
    B = ops.bracket(X, Y)
    for x, y, b in zip(X, Y, B):
        hx, hy = se3.hat(x), se3.hat(y)
        np.testing.assert_allclose(se3.hat(b), hx @ hy - hy @ hx, atol=1e-12)
        np.testing.assert_allclose(ops.bracket(x, y), se3.ad(x) @ y, atol=1e-14)
    np.testing.assert_allclose(ops.bracket(X, X), 0.0, atol=1e-14)


def test_Ad_and_Ad_inv_equal_se3_and_change_the_frame_of_a_twist(rng):
    T = random_poses(rng, N)
    A, Ai = ops.Ad(T), ops.Ad_inv(T)
    assert A.shape == Ai.shape == (N, 6, 6)
    for t, a, ai, xi in zip(T, A, Ai, rng.normal(size=(N, 6))):
        np.testing.assert_allclose(a, se3.Ad(t), atol=1e-13)
        np.testing.assert_allclose(ai, se3.Ad(se3.inv(t)), atol=1e-13)
        np.testing.assert_allclose(a @ ai, np.eye(6), atol=1e-12)
        np.testing.assert_allclose(se3.hat(a @ xi), t @ se3.hat(xi) @ se3.inv(t), atol=1e-12)   # defining identity
        np.testing.assert_allclose(ops.Ad(t), a, atol=0)


def test_rot6_is_Ad_of_a_pure_rotation(rng):
    R = np.array([so3.exp(w) for w in rng.normal(size=(20, 3))])
    for r, x in zip(R, ops.rot6(R)):
        np.testing.assert_allclose(x, se3.Ad(se3.from_Rp(r, np.zeros(3))), atol=1e-15)


@pytest.mark.parametrize("matvec", [ops.matvec, ops._matvec_by_matmul], ids=["matvec", "older NumPy"])
def test_matvec_multiplies_each_matrix_by_its_vector(rng, matvec):
    M, V = rng.normal(size=(7, 6, 6)), rng.normal(size=(7, 6))
    for A in (M, M.transpose(0, 2, 1)):                 # rnea multiplies by ad(v)ᵀ, a transposed view
        want = np.array([m @ v for m, v in zip(A, V)])
        np.testing.assert_allclose(matvec(A, V), want, rtol=0, atol=1e-14)
        assert matvec(A, V).shape == (7, 6)
    np.testing.assert_allclose(matvec(M[:, :3], V), [m[:3] @ v for m, v in zip(M, V)], rtol=0, atol=1e-14)


@pytest.mark.parametrize("vecdot", [ops.vecdot, ops._vecdot_by_sum], ids=["vecdot", "older NumPy"])
def test_vecdot_takes_the_dot_product_of_each_pair(rng, vecdot):
    X, Y = rng.normal(size=(2, 7, 6))
    np.testing.assert_allclose(vecdot(X, Y), [x @ y for x, y in zip(X, Y)], rtol=0, atol=1e-14)
    assert vecdot(X, Y).shape == (7,)


def test_the_bases_cannot_be_changed_by_a_caller():
    with pytest.raises(ValueError):
        ops._AD_BASIS[0, 0] = 1.0
