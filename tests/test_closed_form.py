"""[LG]'s closed form τ = A θ̈ + B θ̇ θ̇ − C against CRBA, RNEA, Lagrange's Christoffel symbols and Pinocchio."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.check import random_state
from lessonlib.dynamics import crba, gravity_torques, lagrange_terms, rnea, rnea_poe
from lessonlib.dynamics.closed_form import closed_form_coefficients, closed_form_cost, closed_form_torques

from oracles import PinOracle

RANDOM = {f"random{n}_{s}{'' if tree else '_chain'}": (lambda n=n, s=s, tree=tree: samples.random_model(n, seed=s, tree=tree))
          for n, s, tree in [(1, 0, True), (3, 1, True), (6, 2, True), (8, 3, True), (8, 4, True), (5, 5, False),
                             (7, 6, False)]}
ALL_MODELS = {**samples.ALL, "panda": samples.panda, **RANDOM}


@pytest.fixture(scope="module", params=sorted(ALL_MODELS))
def model(request):
    return ALL_MODELS[request.param]()


def christoffel_by_differences(model, q, h=1e-6):
    """Γ_ijk = ½(∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i) with ∂M/∂q_k by central differences of CRBA."""
    n = model.n
    dM = np.array([(crba(model, q + h * e) - crba(model, q - h * e)) / (2 * h) for e in np.eye(n)])  # dM[k, i, j]
    return 0.5 * (dM.transpose(1, 2, 0) + dM.transpose(1, 0, 2) - dM)


def test_every_sample_has_a_prismatic_joint_and_a_tree_somewhere():
    models = [f() for f in ALL_MODELS.values()]
    assert any(not m.is_chain for m in models)
    assert any(not j.is_revolute for m in models for j in m.joints)


def test_A_is_the_crba_mass_matrix_and_symmetric(model):
    for seed in range(3):
        q, _, _ = random_state(model, seed)
        A, _, _ = closed_form_coefficients(model, q)
        assert np.array_equal(A, A.T)
        assert np.allclose(A, crba(model, q), rtol=0, atol=1e-9 * max(1.0, np.abs(A).max()))


def test_torques_agree_with_rnea_and_the_poe_recursion(model):
    for seed in range(3):
        q, qd, qdd = random_state(model, seed, scale=2.0)
        gravity = np.random.default_rng(seed).normal(size=3) * 5
        A, B, C = closed_form_coefficients(model, q, gravity=gravity)
        tau = closed_form_torques(A, B, C, qd, qdd)
        ref = rnea(model, q, qd, qdd, gravity=gravity)
        scale = max(1.0, np.abs(ref).max())
        assert np.allclose(tau, ref, rtol=0, atol=1e-9 * scale)
        assert np.allclose(tau, rnea_poe(model, q, qd, qdd, gravity=gravity), rtol=0, atol=1e-9 * scale)


def test_C_is_minus_the_gravity_torques(model):
    q, _, _ = random_state(model, 7)
    _, _, C = closed_form_coefficients(model, q)
    assert np.allclose(-C, gravity_torques(model, q), rtol=0, atol=1e-9 * max(1.0, np.abs(C).max()))


def test_symmetric_part_of_B_is_the_christoffel_form(model):
    q, _, _ = random_state(model, 11)
    _, B, _ = closed_form_coefficients(model, q)
    Gamma = christoffel_by_differences(model, q)
    assert np.allclose(B + B.transpose(0, 2, 1), 2 * Gamma, rtol=0, atol=1e-6 * max(1.0, np.abs(Gamma).max()))


@pytest.mark.parametrize("name", ["pendulum", "planar_2link", "planar_3link", "rpr_arm", "scara"])
def test_symmetric_part_of_B_matches_lagranges_christoffel_symbols(name):
    """Γ[:, :, k] = C(q, e_k) of the Lagrange route (sympy, no recursion)."""
    arm = samples.ALL[name]()
    q, _, _ = random_state(arm, 5)
    _, B, _ = closed_form_coefficients(arm, q)
    Gamma = np.stack([lagrange_terms(arm, q, e)[1] for e in np.eye(arm.n)], axis=2)
    assert np.allclose(0.5 * (B + B.transpose(0, 2, 1)), Gamma, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", ["ur5", "scara", "branched_tree", "random8_3"])
def test_christoffel_matrix_matches_pinocchio(name):
    arm = ALL_MODELS[name]()
    pin = PinOracle(arm)
    q, qd, _ = random_state(arm, 2)
    _, B, _ = closed_form_coefficients(arm, q)
    C_christoffel = 0.5 * (B + B.transpose(0, 2, 1)) @ qd       # C_ij = Σ_k Γ_ijk q̇_k
    assert np.allclose(C_christoffel, pin.coriolis(q, qd), atol=1e-9)


def test_B_is_lgs_unsymmetrised_form_on_the_two_link_arm():
    """[LG]'s B is not symmetric in (j, k); its symmetric part alone gives the velocity torques.

    Planar 2R (rods 1 m, 1 kg): c₁ = −m₂ l₁ l_c2 sin θ₂ (2 θ̇₁ θ̇₂ + θ̇₂²), c₂ = m₂ l₁ l_c2 sin θ₂ θ̇₁².
    """
    arm = samples.planar_2link()
    q2 = 0.7
    _, B, _ = closed_form_coefficients(arm, [0.3, q2])
    h = 1.0 * 1.0 * 0.5 * np.sin(q2)
    sym = B + B.transpose(0, 2, 1)
    assert np.allclose(sym[0], [[0, -2 * h], [-2 * h, -2 * h]], atol=1e-12)
    assert np.allclose(sym[1], [[2 * h, 0], [0, 0]], atol=1e-12)
    assert not np.allclose(B, B.transpose(0, 2, 1))


def test_tree_coefficients_vanish_between_branches():
    arm = samples.branched_tree()                       # bodies 1-2 (left arm) and 3-4 (right arm)
    A, B, _ = closed_form_coefficients(arm, random_state(arm, 0)[0])
    for i in (1, 2):
        for j in (3, 4):
            assert A[i, j] == 0.0 and A[j, i] == 0.0
            assert np.all(B[i, j, :] == 0.0) and np.all(B[i, :, j] == 0.0)


def test_cost_grows_as_n_cubed_against_the_recursions_n():
    small, big = closed_form_cost(5), closed_form_cost(50)
    assert small["stored"] == 5**3 + 5**2 + 5
    assert big["stored"] / small["stored"] > 800          # → (50/5)³ = 1000 as n grows
    assert big["recursion"] / small["recursion"] == pytest.approx(10.0)
    assert closed_form_cost(2)["evaluate"] < closed_form_cost(2)["recursion"]   # tiny arms: the table is cheap
    assert closed_form_cost(12)["evaluate"] > closed_form_cost(12)["recursion"]


def test_bad_inputs_name_the_argument():
    arm = samples.planar_2link()
    with pytest.raises(ValueError, match="q: expected shape"):
        closed_form_coefficients(arm, [0.0])
    with pytest.raises(ValueError, match="gravity"):
        closed_form_coefficients(arm, [0.0, 0.0], gravity=[0, 1])
    with pytest.raises(ValueError, match="A, B, C"):
        closed_form_torques(np.eye(2), np.zeros((2, 2)), np.zeros(2), [0, 0], [0, 0])
    with pytest.raises(ValueError, match="n: expected"):
        closed_form_cost(0)
