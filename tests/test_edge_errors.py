"""Edges where an answer used to be silently wrong now raise a ValueError that names the culprit.

- a mass matrix that is singular (a thin rod spinning about its own axis, the only body beyond a
  joint): ABA divided by D = 0, the Cholesky routes raised a bare LinAlgError; batch.aba gave inf
  and a RuntimeWarning (both backends) — it now raises dynamics.aba's error, naming the sample;
- seed-001-style parallel inverse dynamics at a singular pose (inv of a singular Jacobian);
- conventions.swap_order guessed from the shape (a stack of six twists became a 6×6 operator);
- jacobian_transpose_force defaulted to frame="body" while kinematics.jacobian defaults to "space".
"""
import re
import warnings

import numpy as np
import pytest

from lessonlib import batch, samples, spatial
from lessonlib.constraints import five_bar_chains, parallel_inverse_dynamics
from lessonlib.conventions import swap_order
from lessonlib.dynamics import aba, crba, forward_dynamics, jacobian_transpose_force, rnea
from lessonlib.kinematics import jacobian
from lessonlib.model import Joint, Model

FD_ROUTES = {"aba": lambda m, q, qd, tau: aba(m, q, qd, tau),
             "crba": lambda m, q, qd, tau: forward_dynamics(m, q, qd, tau, method="crba"),
             "rnea_columns": lambda m, q, qd, tau: forward_dynamics(m, q, qd, tau, method="rnea_columns")}


def spinning_rod_arm(I_axis=0.0):
    """planar_2link whose second body is a 1 m rod lying along joint 2's own axis (z): no inertia
    about that axis when ``I_axis`` is 0 — valid as a rigid body, singular as a mechanism."""
    arm = samples.planar_2link()
    rod = spatial.inertia(1.0, [0.0, 0.0, 0.5], np.diag([1 / 12, 1 / 12, I_axis]))
    return arm.replace(inertia=[arm.inertia[0], rod], name="spinning_rod")


def spinning_rod_tree():
    """branched_tree whose left forearm (body 2, joint 'left_elbow' about its y axis) is a rod along that axis."""
    tree = samples.branched_tree()
    rod = spatial.inertia(1.0, [0.0, 0.2, 0.0], np.diag([0.01, 0.0, 0.01]))
    G = np.array(tree.inertia)
    G[2] = rod
    return tree.replace(inertia=G, name="tree_with_rod")


@pytest.mark.parametrize("route", sorted(FD_ROUTES))
def test_a_singular_mass_matrix_is_reported_with_the_joint_not_divided_by(route):
    arm = spinning_rod_arm()
    q, qd, tau = np.array([0.3, -0.7]), np.array([0.5, 2.0]), np.array([1.0, 0.5])
    assert np.linalg.matrix_rank(crba(arm, q)) == 1                # the model itself is accepted: M is singular
    np.testing.assert_allclose(rnea(arm, q, qd, [1.0, 2.0])[1], 0.0, atol=1e-12)   # no torque moves joint 2
    with pytest.raises(ValueError, match=r"model: the mass matrix of 'spinning_rod' is singular at joint 1 "
                                         r"\('joint2'\).*thin rod spinning about its own axis"):
        FD_ROUTES[route](arm, q, qd, tau)


@pytest.mark.parametrize("route", sorted(FD_ROUTES))
def test_the_singular_joint_is_named_on_a_tree_too(route):
    tree = spinning_rod_tree()
    q, qd = np.linspace(0.2, 1.0, 5), np.linspace(-1.0, 1.0, 5)
    with pytest.raises(ValueError, match=r"singular at joint 2 \('left_elbow'\)"):
        FD_ROUTES[route](tree, q, qd, np.ones(5))


@pytest.mark.parametrize("route", sorted(FD_ROUTES))
def test_a_small_but_real_inertia_about_the_axis_still_solves(route):
    arm = spinning_rod_arm(I_axis=1e-6)
    q, qd, qdd = np.array([0.3, -0.7]), np.array([0.5, 2.0]), np.array([-1.0, 3.0])
    tau = rnea(arm, q, qd, qdd)
    np.testing.assert_allclose(FD_ROUTES[route](arm, q, qd, tau), qdd, rtol=1e-6)


def test_forward_dynamics_solves_by_cholesky_and_triangular_solves():
    """The crba route is M = L Lᵀ and two substitutions: the same q̈ as a general solve."""
    from lessonlib.dynamics.terms import cholesky
    model = samples.seed002_7dof()
    q, qd, tau = samples.random_state(model, 3)
    M = crba(model, q)
    L = cholesky(model, M)
    np.testing.assert_allclose(L, np.linalg.cholesky(M), atol=1e-12)
    assert np.array_equal(L, np.tril(L))
    h = rnea(model, q, qd, np.zeros(7))
    np.testing.assert_allclose(forward_dynamics(model, q, qd, tau, method="crba"), np.linalg.solve(M, tau - h),
                               rtol=1e-10)


def pointing_rod_arm():
    """A point mass on joint 0's axis (z) carrying a 1 m rod that joint 1 (about x) swings out of the
    x-y plane: at q_1 = ±π/2 the rod lies along z and nothing has inertia about joint 0's axis, so
    ``M`` is singular at joint 0 in that configuration only."""
    point = spatial.inertia(1.0, [0.0, 0.0, 0.0], np.zeros((3, 3)))
    rod = spatial.inertia(1.0, [0.0, 0.5, 0.0], np.diag([1 / 12, 0.0, 1 / 12]))
    return Model([-1, 0], [Joint("revolute", [0, 0, 1], name="swivel"), Joint("revolute", [1, 0, 0], name="tilt")],
                 [np.eye(4)] * 2, [point, rod], name="pointing_rod")


def _backends():
    return [pytest.param(b, marks=pytest.mark.skipif(b not in batch.available_backends(), reason=f"{b} not installed"))
            for b in batch.BACKENDS]


def _without_value_and_sample(message):
    """The message with the vanished quantity's value and the trajectory's sample left out."""
    message = re.sub(r" at sample \d+ of the trajectory", "", message)
    return re.sub(r"(S_iᵀ I\^A_i S_i) = \S+, so", r"\1 = ..., so", message)


@pytest.mark.parametrize("backend", _backends())
def test_batch_aba_raises_the_error_of_dynamics_aba_naming_the_sample(backend):
    arm = spinning_rod_arm()
    Q, QD, TAU = np.array([[0.3, -0.7], [0.1, 0.2]]), np.array([[0.5, 2.0], [0.0, 0.0]]), np.ones((2, 2))
    with pytest.raises(ValueError) as one:
        aba(arm, Q[0], QD[0], TAU[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                             # no division by D = 0 (it warned before)
        with pytest.raises(ValueError) as many:
            batch.aba(arm, Q, QD, TAU, backend=backend)
    expected = (r"^model: the mass matrix of 'spinning_rod' is singular at joint 1 \('joint2'\) at sample 0 of the "
                r"trajectory: D_1 = S_iᵀ I\^A_i S_i = \S+, so no torque determines its acceleration\. .*thin rod "
                r"spinning about its own axis")
    assert re.match(expected, str(many.value), re.S), str(many.value)
    assert re.match(expected.replace(" at sample 0 of the trajectory", ""), str(one.value), re.S), str(one.value)
    assert _without_value_and_sample(str(many.value)) == _without_value_and_sample(str(one.value))


@pytest.mark.parametrize("backend", _backends())
def test_batch_aba_names_the_first_singular_sample(backend):
    arm = pointing_rod_arm()
    Q = np.array([[0.0, 0.0], [0.4, 0.3], [0.2, np.pi / 2], [0.0, 0.0]])
    QD, TAU = np.zeros((4, 2)), np.ones((4, 2))
    np.testing.assert_allclose(batch.aba(arm, Q[:2], QD[:2], TAU[:2], backend=backend),
                               [aba(arm, q, qd, tau) for q, qd, tau in zip(Q[:2], QD[:2], TAU[:2])], rtol=1e-10)
    with pytest.raises(ValueError) as one:
        aba(arm, Q[2], QD[2], TAU[2])
    with pytest.raises(ValueError, match=r"singular at joint 0 \('swivel'\) at sample 2 of the trajectory: D_0 ") as many:
        batch.aba(arm, Q, QD, TAU, backend=backend)
    assert _without_value_and_sample(str(many.value)) == _without_value_and_sample(str(one.value))


@pytest.mark.parametrize("backend", _backends())
def test_batch_aba_finds_a_singular_sample_in_a_later_block(backend, monkeypatch):
    monkeypatch.setattr(batch, "BLOCK", 3)
    arm = pointing_rod_arm()
    Q = np.zeros((8, 2))
    Q[6, 1] = -np.pi / 2
    with pytest.raises(ValueError, match=r"singular at joint 0 \('swivel'\) at sample 6 of the trajectory"):
        batch.aba(arm, Q, np.zeros((8, 2)), np.ones((8, 2)), backend=backend)


# --- the parallel arm at a singular pose --------------------------------------------------------

def chain_state(q):
    return np.array(q, dtype=float), np.array([0.4, -0.2]), np.array([1.0, 0.5])


def test_parallel_inverse_dynamics_refuses_a_chain_at_a_singular_pose():
    chain1, chain2, _ = five_bar_chains()
    regular = chain_state([2.0, -1.2])
    for elbow in (0.0, np.pi):                                     # stretched out, folded back
        states = [chain_state([0.3, elbow]), regular]
        with pytest.raises(ValueError, match=r"states: chain 'chain1' at q = \[0\.3, .*\] has a singular tip "
                                             r"Jacobian \(rows \[3, 4\]\) \(σ_min/σ_max = .*singular pose"):
            parallel_inverse_dynamics([chain1, chain2], states, actuated=[0, 0])


def test_parallel_inverse_dynamics_refuses_motors_that_lose_the_tip():
    chain1, _, _ = five_bar_chains()
    state = chain_state([0.3, 1.1])
    with pytest.raises(ValueError, match=r"states: the motors' rates do not determine the tip's velocity "
                                         r"\(A is singular\)"):
        parallel_inverse_dynamics([chain1, chain1], [state, state], actuated=[0, 0])


def test_parallel_inverse_dynamics_near_but_not_at_a_singularity_still_answers():
    chain1, chain2, _ = five_bar_chains()
    states = [chain_state([0.3, 1e-4]), chain_state([2.0, -1.2])]
    tau = parallel_inverse_dynamics([chain1, chain2], states, actuated=[0, 0])
    assert tau.shape == (2,) and np.all(np.isfinite(tau))
    J = jacobian(chain1, states[0][0], "tip", frame="hybrid")[[3, 4]]
    assert np.linalg.cond(J) > 1e3                                 # genuinely ill-conditioned, yet accepted


# --- swap_order: the caller says what the array is -----------------------------------------------

def test_swap_order_of_six_twists_permutes_each_twist_not_the_stack():
    V = samples.random_state(samples.ur5(), 1)[0][:, None] * np.arange(1.0, 7.0)   # (6, 6): six twists, rows
    swapped = swap_order(V, kind="vector")
    np.testing.assert_array_equal(swapped, np.hstack([V[:, 3:], V[:, :3]]))
    np.testing.assert_array_equal(swap_order(V, kind="operator"), np.hstack([V[:, 3:], V[:, :3]])[[3, 4, 5, 0, 1, 2]])
    np.testing.assert_array_equal(swap_order(V.T, kind="columns"), swapped.T)


def test_swap_order_needs_the_kind_and_checks_the_shape():
    with pytest.raises(TypeError, match="kind"):
        swap_order(np.zeros(6))
    with pytest.raises(ValueError, match=r"kind: expected one of \('vector', 'operator', 'columns'\).*got 'twist'"):
        swap_order(np.zeros(6), kind="twist")
    with pytest.raises(ValueError, match=r"x: expected a 6x6 operator .*got shape \(6,\)"):
        swap_order(np.zeros(6), kind="operator")
    with pytest.raises(ValueError, match=r"x: expected a 6xk matrix of column vectors .*got shape \(3, 6\)"):
        swap_order(np.zeros((3, 6)), kind="columns")
    with pytest.raises(ValueError, match=r"x: expected a 6-vector .*got shape \(6, 3\)"):
        swap_order(np.zeros((6, 3)), kind="vector")


# --- jacobian_transpose_force: the frame is always said -------------------------------------------

def test_jacobian_transpose_force_requires_the_frame():
    arm = samples.ur5()
    q, F = samples.random_state(arm, 2)[0], np.arange(1.0, 7.0)
    with pytest.raises(TypeError, match="frame"):
        jacobian_transpose_force(arm, q, F, body="ee")
    with pytest.raises(ValueError, match=r"frame: expected one of \('body', 'space'\), got 'hybrid'"):
        jacobian_transpose_force(arm, q, F, frame="hybrid")
    np.testing.assert_allclose(jacobian_transpose_force(arm, q, F, frame="space"), jacobian(arm, q).T @ F,
                               atol=1e-10)                         # the same default meaning as jacobian's
