"""Natural frequencies about a posture (lesson 08, [DB4 §4.3]) against routes that share no code with them.

* ``∂g/∂q`` (analytic, CRBA-shaped) against central differences of ``gravity_torques`` (RNEA), and the
  symmetry a Hessian of the potential energy must have — on every sample robot and random trees with
  prismatic joints, under the default gravity and a tilted one;
* the frequencies against a finite-difference linearisation of the forward dynamics (ABA) about
  ``(q, q̇ = 0)`` with the holding torque ``τ(q') = g(q) − K (q' − q)``: ``A = ∂q̈/∂q``, ``f = √eig(−A) / 2π``;
* by hand: the pendulum ``f = √((k + m g₀ ℓ cos q) / I_O) / 2π`` and the skater (a spring-mass on a slider);
* edge cases and the errors that name ``stiffness``.
"""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.dynamics import aba, crba, gravity_stiffness, gravity_torques, natural_frequencies

SAMPLES = dict(samples.ALL)
RANDOM = {f"random{n}_{s}": (lambda n=n, s=s: samples.random_model(n, seed=s)) for n, s in
          [(1, 0), (3, 1), (4, 5), (6, 2), (8, 3), (8, 4)]}
RANDOM_CHAINS = {f"chain{n}_{s}": (lambda n=n, s=s: samples.random_model(n, seed=s, tree=False)) for n, s in
                 [(3, 7), (5, 8)]}
ALL_MODELS = {**SAMPLES, **RANDOM, **RANDOM_CHAINS}
TILTED = np.array([1.5, -2.0, -9.0])          # a gravity no sample is built for: every joint feels it


@pytest.fixture(scope="module", params=sorted(ALL_MODELS))
def model(request):
    return ALL_MODELS[request.param]()


def central_difference(fun, q, h):
    """``∂fun/∂q`` (columns) by central differences of step ``h``."""
    return np.column_stack([(fun(q + h * e) - fun(q - h * e)) / (2 * h) for e in np.eye(len(q))])


def holding_stiffness(model, q, dg_dq, rng):
    """A random symmetric ``K`` that makes ``K + ∂g/∂q`` positive definite: diagonally dominant, with
    entries near the mass matrix's diagonal so that the frequencies are of order 1 Hz."""
    n = model.n
    B = rng.normal(size=(n, n)) * 0.2
    m = np.diag(crba(model, q))
    K = (B + B.T) * np.sqrt(np.outer(m, m))
    K += np.diag(np.abs(K).sum(axis=1) + np.abs(dg_dq).sum(axis=1) + rng.uniform(1.0, 40.0, n) * m)
    return K


def linearised_frequencies(model, q, K, gravity=None, h=1e-6):
    """``√eig(−∂q̈/∂q) / 2π`` with ``q̈(q') = ABA(q', 0, g(q) − K (q' − q))``: no M, no ∂g/∂q anywhere."""
    g_q = gravity_torques(model, q, gravity=gravity)
    zero = np.zeros(model.n)
    A = central_difference(lambda qq: aba(model, qq, zero, g_q - K @ (qq - q), gravity=gravity), q, h)
    w2 = np.linalg.eigvals(-A)
    assert np.abs(w2.imag).max() <= 1e-6 * np.abs(w2).max()           # −A = M⁻¹(K + ∂g/∂q): real spectrum
    return np.sqrt(np.sort(w2.real)) / (2 * np.pi)


# --- ∂g/∂q ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("gravity", [None, TILTED], ids=["default", "tilted"])
def test_gravity_stiffness_is_the_jacobian_of_the_gravity_torques(model, gravity):
    for seed in range(3):
        q = samples.random_state(model, seed)[0]
        dg_dq = gravity_stiffness(model, q, gravity=gravity)
        fd = central_difference(lambda qq: gravity_torques(model, qq, gravity=gravity), q, 1e-6)
        scale = max(1.0, np.abs(fd).max())
        assert dg_dq.shape == (model.n, model.n)
        assert np.allclose(dg_dq, fd, atol=1e-7 * scale, rtol=0)
        # a Hessian of U: the finite-difference Jacobian (which knows nothing of the formula) is symmetric too
        assert np.allclose(fd, fd.T, atol=1e-7 * scale, rtol=0)
        assert np.array_equal(dg_dq, dg_dq.T)


def test_gravity_stiffness_is_not_zero_where_gravity_acts():
    """Guards the tests above against a model set where every ∂g/∂q happens to vanish."""
    for name in ("planar_3link", "ur5", "branched_tree", "seed002_7dof"):
        arm = SAMPLES[name]()
        assert np.abs(gravity_stiffness(arm, samples.random_state(arm, 1)[0])).max() > 1.0
    rpr = samples.rpr_arm()                          # prismatic joint 2: its entries need a tilted gravity
    assert np.abs(gravity_stiffness(rpr, [0.3, 0.1, -0.4], gravity=TILTED)[:, 1]).max() > 0.1


def test_gravity_stiffness_scales_with_gravity(model):
    q = samples.random_state(model, 4)[0]
    assert np.allclose(gravity_stiffness(model, q, gravity=2.5 * TILTED), 2.5 * gravity_stiffness(model, q,
                                                                                                gravity=TILTED))
    assert np.array_equal(gravity_stiffness(model, q, gravity=[0, 0, 0]), np.zeros((model.n, model.n)))


def test_pendulum_gravity_stiffness_by_hand():
    m, length, g0 = 2.0, 0.8, 9.81
    rod = samples.pendulum(m=m, length=length)
    for q in (0.0, 0.4, np.pi / 2, 2.0, np.pi):
        assert gravity_stiffness(rod, [q])[0, 0] == pytest.approx(m * g0 * length / 2 * np.cos(q), abs=1e-12)


def test_prismatic_gravity_stiffness_by_hand():
    """A slider (joint 2) on an arm turning about a horizontal axis (joint 1): ``g_1 = m g₀ r cos q₁`` for the
    slider's mass at distance ``r = q₂``, ``g_2 = m g₀ sin q₁``; so ``∂g_1/∂q₂ = ∂g_2/∂q₁ = m g₀ cos q₁``."""
    arm = samples.skater()
    m, g0 = 2.0, 9.81
    sideways = [0.0, -g0, 0.0]                        # the hub's axis z is now horizontal
    for q1, r in [(0.0, 0.3), (0.7, 0.5), (2.0, -0.2)]:
        G = gravity_stiffness(arm, [q1, r], gravity=sideways)
        assert G[0, 1] == pytest.approx(m * g0 * np.cos(q1), abs=1e-12)
        assert G[1, 1] == pytest.approx(0.0, abs=1e-12)          # a translation does not turn the weight
        assert G[0, 0] == pytest.approx(-m * g0 * r * np.sin(q1), abs=1e-12)


# --- the frequencies ------------------------------------------------------------------------------

@pytest.mark.parametrize("gravity", [None, TILTED], ids=["default", "tilted"])
def test_frequencies_match_a_linearisation_of_the_forward_dynamics(model, gravity):
    rng = np.random.default_rng(11)
    for seed in range(2):
        q = samples.random_state(model, seed)[0]
        K = holding_stiffness(model, q, gravity_stiffness(model, q, gravity=gravity), rng)
        f = natural_frequencies(model, q, K, gravity=gravity)
        assert f.shape == (model.n,)
        assert np.all(np.diff(f) >= 0) and f[0] > 0
        assert np.allclose(f, linearised_frequencies(model, q, K, gravity), rtol=1e-5, atol=0)


def test_frequencies_solve_the_generalized_eigenproblem(model):
    """Each ``(2π f)²`` makes ``K + ∂g/∂q − (2π f)² M`` singular (a route through determinants, not eigh)."""
    rng = np.random.default_rng(3)
    q = samples.random_state(model, 2)[0]
    G = gravity_stiffness(model, q)
    K = holding_stiffness(model, q, G, rng)
    M = crba(model, q)
    for f in natural_frequencies(model, q, K):
        s = np.linalg.svd(K + G - (2 * np.pi * f) ** 2 * M, compute_uv=False)
        assert s[-1] <= 1e-9 * np.linalg.norm(K + G, 2)


@pytest.mark.parametrize("q", [0.0, 0.5, -1.2, 1.5, 2.6])
@pytest.mark.parametrize("k", [0.0, 3.0, 50.0])
def test_pendulum_by_hand(q, k):
    m, length, g0 = 1.5, 0.6, 9.81
    I_O, ell = m * length**2 / 3, length / 2
    stiffness = k + m * g0 * ell * np.cos(q)
    if stiffness < 0:
        with pytest.raises(ValueError, match="stiffness"):
            natural_frequencies(samples.pendulum(m=m, length=length), [q], [k])
        return
    f = natural_frequencies(samples.pendulum(m=m, length=length), [q], [k])
    assert f[0] == pytest.approx(np.sqrt(stiffness / I_O) / (2 * np.pi), rel=1e-12)


def test_skater_by_hand_a_spring_mass_on_a_slider():
    """No gravity stiffness (gravity along the spin axis), a diagonal M: the two springs ring alone."""
    arm = samples.skater()
    I_hub, m, rho = 1.0, 2.0, 0.05
    for r in (0.1, 0.4):
        I = I_hub + 0.4 * m * rho**2 + m * r**2
        f = natural_frequencies(arm, [0.3, r], [20.0, 800.0])
        expected = sorted([np.sqrt(20.0 / I) / (2 * np.pi), np.sqrt(800.0 / m) / (2 * np.pi)])
        assert np.allclose(f, expected, rtol=1e-12)


def test_neutral_direction_is_zero_hz():
    arm = samples.skater()                            # spin joint without a spring: free to turn
    f = natural_frequencies(arm, [0.3, 0.2], [0.0, 800.0])
    assert f[0] == 0.0
    assert f[1] == pytest.approx(np.sqrt(800.0 / 2.0) / (2 * np.pi), rel=1e-12)


def test_vector_stiffness_is_a_diagonal_matrix():
    arm = samples.ur5()
    q = samples.random_state(arm, 0)[0]
    k = np.array([900.0, 1200.0, 700.0, 300.0, 200.0, 100.0])
    assert np.array_equal(natural_frequencies(arm, q, k), natural_frequencies(arm, q, np.diag(k)))


def test_a_payload_lowers_the_frequencies_without_gravity():
    """More mass, same springs, no gravity stiffness: every frequency drops (Rayleigh's monotonicity)."""
    arm = samples.planar_3link()
    q = [0.3, -0.6, 0.9]
    heavier = arm.replace(inertia=np.array([G * (1.0 if i < 2 else 3.0) for i, G in enumerate(arm.inertia)]))
    k = [400.0, 300.0, 200.0]
    light, heavy = (natural_frequencies(a, q, k, gravity=[0, 0, 0]) for a in (arm, heavier))
    assert np.all(heavy < light)


def test_stiffer_springs_raise_the_frequencies(model):
    q = samples.random_state(model, 1)[0]
    K = holding_stiffness(model, q, gravity_stiffness(model, q), np.random.default_rng(0))
    f = natural_frequencies(model, q, K)
    assert np.allclose(natural_frequencies(model, q, 4.0 * K, gravity=[0, 0, 0]),
                       2.0 * natural_frequencies(model, q, K, gravity=[0, 0, 0]))
    assert np.all(natural_frequencies(model, q, K + np.eye(model.n)) > f)


# --- errors ---------------------------------------------------------------------------------------

def test_unstable_posture_is_refused_with_the_smallest_eigenvalue():
    rod = samples.pendulum()                          # upright: ∂g/∂q = −m g₀ ℓ = −4.905
    unstable = r"stiffness: the posture is statically unstable .*smallest eigenvalue -2\.905"
    with pytest.raises(ValueError, match=unstable):
        natural_frequencies(rod, [np.pi], [2.0])
    assert natural_frequencies(rod, [np.pi], [4.905 + 1e-6])[0] > 0


@pytest.mark.parametrize("stiffness, match", [
    ([1.0, 2.0], r"stiffness: expected an \(3,\) vector or an \(3, 3\) matrix"),
    (np.ones((3, 2)), r"stiffness: expected an \(3,\) vector or an \(3, 3\) matrix"),
    ([1.0, np.nan, 2.0], "stiffness: expected finite values"),
    (np.full((3, 3), np.inf), "stiffness: expected finite values"),
    (np.triu(np.ones((3, 3))) * 50, "stiffness: a joint stiffness matrix must be symmetric"),
    ("stiff", "stiffness: expected"),
])
def test_bad_stiffness_is_named(stiffness, match):
    with pytest.raises(ValueError, match=match):
        natural_frequencies(samples.planar_3link(), [0.1, 0.2, 0.3], stiffness)


def test_bad_q_and_gravity_are_named():
    with pytest.raises(ValueError, match="q"):
        natural_frequencies(samples.planar_3link(), [0.1, 0.2], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="gravity"):
        natural_frequencies(samples.planar_3link(), [0.1, 0.2, 0.3], [1.0, 1.0, 1.0], gravity=[0, 1])
    with pytest.raises(ValueError, match="gravity"):
        gravity_stiffness(samples.planar_3link(), [0.1, 0.2, 0.3], gravity=[0, np.nan, 1])
