"""DeNOC ([SWC16]): the recursion against the spatial RNEA, the source texts' numbers, the 7-DoF
trajectory, the matrix form (N_l, N_d, NᵀMN, C) and the skew-symmetry statements."""
import zlib

import numpy as np
import pytest

from lessonlib import samples
from lessonlib.conventions import LIN
from lessonlib.dynamics.crba import crba
from lessonlib.dynamics.denoc import (REFERENCES, convective_inertia, denoc, denoc_matrices, generalized_inertia,
                                      twist_propagation)
from lessonlib.dynamics.rnea import rnea
from lessonlib.dynamics.terms import velocity_torques
from lessonlib.kinematics import fk, jacobian
from lessonlib.model import Joint

TOL = 1e-10


def assert_same_tau(got, want):
    scale = max(1.0, float(np.abs(want).max()))
    assert np.abs(got - want).max() <= TOL * scale, (got, want)


def random_inputs(model, rng):
    q, qd, qdd = rng.normal(size=(3, model.n))
    return q, qd, qdd, rng.normal(size=3) * 6.0, rng.normal(size=(model.n, 6))


def blk(k):
    return slice(6 * k, 6 * k + 6)


# --- the recursion against the spatial RNEA -----------------------------------------------------

@pytest.mark.parametrize("name", sorted(samples.ALL))
def test_denoc_agrees_with_rnea_on_every_sample(name):
    model = samples.ALL[name]()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(4):
        q, qd, qdd, g, F = random_inputs(model, rng)
        assert_same_tau(denoc(model, q, qd, qdd, gravity=g, f_ext=F), rnea(model, q, qd, qdd, gravity=g, f_ext=F))
    q, qd, qdd, _, _ = random_inputs(model, rng)
    assert_same_tau(denoc(model, q, qd, qdd), rnea(model, q, qd, qdd))


@pytest.mark.parametrize("tree", [True, False])
def test_denoc_agrees_with_rnea_on_random_trees(tree):
    rng = np.random.default_rng(17)
    for n in (1, 2, 4, 7, 11):
        for seed in range(4):
            model = samples.random_model(n, seed=seed, tree=tree, prismatic=True)
            q, qd, qdd, g, F = random_inputs(model, rng)
            assert_same_tau(denoc(model, q, qd, qdd, gravity=g, f_ext=F), rnea(model, q, qd, qdd, gravity=g, f_ext=F))


def test_denoc_agrees_with_rnea_with_scaled_joints_and_on_panda():
    rng = np.random.default_rng(3)
    for base in (samples.random_model(6, seed=1), samples.scara(), samples.branched_tree()):
        joints = tuple(Joint(j.kind, j.axis, j.point, name=j.name, scale=rng.uniform(0.5, 2.0)) for j in base.joints)
        model = base.replace(joints=joints)
        q, qd, qdd, g, F = random_inputs(model, rng)
        assert_same_tau(denoc(model, q, qd, qdd, gravity=g, f_ext=F), rnea(model, q, qd, qdd, gravity=g, f_ext=F))
    model = samples.panda()
    q, qd, qdd, g, F = random_inputs(model, rng)
    assert_same_tau(denoc(model, q, qd, qdd, gravity=g, f_ext=F), rnea(model, q, qd, qdd, gravity=g, f_ext=F))


def test_rne05_static_checks():
    arm = samples.planar_2link()
    zero = np.zeros(2)
    np.testing.assert_allclose(denoc(arm, zero, zero, zero, gravity=[0, -10, 0]), [20.0, 5.0], atol=1e-12)
    F = np.zeros((2, 6))
    F[1, LIN] = [0.0, -10.0, 0.0]                              # 1 kg at the tip, 1 m out along body x
    F[1, :3] = np.cross([1.0, 0.0, 0.0], F[1, LIN])
    np.testing.assert_allclose(denoc(arm, zero, zero, zero, gravity=[0, -10, 0], f_ext=F), [40.0, 15.0], atol=1e-12)


def test_swc16_seven_dof_trajectory():
    """[SWC16]'s experiment: every joint 0 -> π/3 in 2 s; DeNOC and Newton–Euler agree at all 201 samples."""
    arm = samples.seed002_7dof()
    Q, QD, QDD = samples.seed002_trajectory(np.linspace(0.0, 2.0, 201))
    assert Q.shape == (201, 7)
    tau = np.array([denoc(arm, q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    for k in range(201):
        assert_same_tau(tau[k], rnea(arm, Q[k], QD[k], QDD[k]))
    # [SWC16] fig. 4: joint 1 (vertical axis) needs no torque at the start and the end (at rest)
    assert abs(tau[0, 0]) < 1e-12 and abs(tau[-1, 0]) < 1e-12
    assert np.abs(tau[:, 1]).max() > 1.0                       # ... while joint 2 holds the arm up


# --- the matrix form ----------------------------------------------------------------------------

MATRIX_MODELS = {"planar_2link": samples.planar_2link, "rpr_arm": samples.rpr_arm, "scara": samples.scara,
                 "branched_tree": samples.branched_tree, "seed002_7dof": samples.seed002_7dof,
                 "random_tree": lambda: samples.random_model(6, seed=2, tree=True, prismatic=True)}


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", sorted(MATRIX_MODELS))
def test_matrices_structure_and_twists(name, reference):
    model = MATRIX_MODELS[name]()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    q, qd = rng.normal(size=(2, model.n))
    mats = denoc_matrices(model, q, qd, reference=reference)
    n = model.n
    assert mats.N_l.shape == (6 * n, 6 * n) and mats.N_d.shape == (6 * n, n) and mats.N.shape == (6 * n, n)
    np.testing.assert_allclose(mats.N, mats.N_l @ mats.N_d, atol=1e-14)
    T = fk(model, q)
    for i in range(n):
        path = model.ancestors(i)
        for j in range(n):
            block = mats.N_l[blk(i), blk(j)]
            if j in path:
                np.testing.assert_allclose(block, twist_propagation(mats.points[i] - mats.points[j]), atol=1e-14)
            else:
                assert not block.any()                          # A_ij = 0 unless j is on the path to i
        np.testing.assert_array_equal(mats.N_d[blk(i)][:, np.arange(n) != i], 0.0)
        # t = N θ̇ stacks the twists: ω and the velocity of the reference point, world axes
        J = jacobian(model, q, body=i, frame="hybrid") @ qd
        d = mats.points[i] - T[i][:3, 3]
        np.testing.assert_allclose(mats.t[blk(i)][:3], J[:3], atol=1e-12)
        np.testing.assert_allclose(mats.t[blk(i)][3:], J[3:] + np.cross(J[:3], d), atol=1e-12)
    # N_l⁻¹ is block "bidiagonal": 1 on the diagonal, −A_{k,parent} at (k, parent), 0 elsewhere
    N_l_inv = np.linalg.inv(mats.N_l)
    for i in range(n):
        for j in range(n):
            want = np.eye(6) if i == j else -mats.N_l[blk(i), blk(j)] if j == model.parent[i] else np.zeros((6, 6))
            np.testing.assert_allclose(N_l_inv[blk(i), blk(j)], want, atol=1e-12)


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", sorted(MATRIX_MODELS))
def test_generalized_inertia_is_crba_and_convective_inertia_gives_velocity_torques(name, reference):
    model = MATRIX_MODELS[name]()
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 1)
    q, qd = rng.normal(size=(2, model.n))
    np.testing.assert_allclose(generalized_inertia(model, q, reference=reference), crba(model, q), atol=1e-12)
    C = convective_inertia(model, q, qd, reference=reference)
    np.testing.assert_allclose(C @ qd, velocity_torques(model, q, qd), atol=1e-11)


@pytest.mark.parametrize("name", sorted(MATRIX_MODELS))
def test_N_dot_is_the_time_derivative_of_N(name):
    model = MATRIX_MODELS[name]()
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 2)
    q, qd = rng.normal(size=(2, model.n))
    for reference in REFERENCES:
        h = 1e-6
        fd = (denoc_matrices(model, q + h * qd, reference=reference).N
              - denoc_matrices(model, q - h * qd, reference=reference).N) / (2 * h)
        np.testing.assert_allclose(denoc_matrices(model, q, qd, reference=reference).N_dot, fd, atol=1e-7)


def test_projected_uncoupled_equations_give_the_rnea_torques():
    """τ = Nᵀ(M ṫ + W M E t − w_ext) with ṫ = N θ̈ + Ṅ θ̇ + [0; −g]: the constraint wrenches drop out."""
    model = samples.random_model(7, seed=9, tree=True, prismatic=True)
    rng = np.random.default_rng(9)
    q, qd, qdd, g, F = random_inputs(model, rng)
    mats = denoc_matrices(model, q, qd)
    T = fk(model, q)
    t_dot = mats.N @ qdd + mats.N_dot @ qd + np.tile(np.r_[0, 0, 0, -g], model.n)
    w_ext = np.concatenate([np.r_[T[k][:3, :3] @ F[k][:3], T[k][:3, :3] @ F[k][3:]] for k in range(model.n)])
    w = mats.M_blk @ t_dot + mats.W @ mats.M_blk @ mats.E @ mats.t - w_ext
    assert_same_tau(mats.N.T @ w, rnea(model, q, qd, qdd, gravity=g, f_ext=F))


def skew_defect(model, q, qd, reference):
    """|sym(İ − 2C)| / |İ − 2C| with İ by central differences along q̇."""
    h = 1e-6
    I_dot = (generalized_inertia(model, q + h * qd) - generalized_inertia(model, q - h * qd)) / (2 * h)
    S = I_dot - 2 * convective_inertia(model, q, qd, reference=reference)
    return np.abs(S + S.T).max() / 2 / np.abs(S).max()


@pytest.mark.parametrize("name", ["seed002_7dof", "branched_tree", "random_tree", "rpr_arm", "planar_2link"])
def test_convective_inertia_at_mass_centres_makes_I_dot_minus_2C_skew(name):
    model = MATRIX_MODELS[name]()
    rng = np.random.default_rng(21)
    for _ in range(3):
        q, qd = rng.normal(size=(2, model.n))
        assert skew_defect(model, q, qd, "com") < 1e-7


@pytest.mark.parametrize("name", ["seed002_7dof", "branched_tree", "random_tree"])
def test_convective_inertia_at_joint_points_is_not_skew_on_spatial_arms(name):
    model = MATRIX_MODELS[name]()
    rng = np.random.default_rng(22)
    q, qd = rng.normal(size=(2, model.n))
    assert skew_defect(model, q, qd, "origin") > 1e-2


def test_convective_inertia_at_joint_points_is_skew_when_all_axes_stay_parallel():
    """The module docstring's caveat: on planar arms and SCARA the O_k-referenced C happens to be skew too."""
    rng = np.random.default_rng(23)
    for model in (samples.planar_3link(), samples.scara()):
        q, qd = rng.normal(size=(2, model.n))
        assert skew_defect(model, q, qd, "origin") < 1e-7


def test_ur5_link_frames_at_mass_centres_make_both_references_one():
    model = samples.ur5()
    q, qd = np.random.default_rng(24).normal(size=(2, 6))
    np.testing.assert_allclose(convective_inertia(model, q, qd), convective_inertia(model, q, qd, reference="com"),
                               atol=1e-12)


# --- input validation ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    (dict(q=np.zeros(2)), "q: expected shape"),
    (dict(qd=np.zeros(4)), "qd: expected shape"),
    (dict(qdd=np.zeros((3, 1))), "qdd: expected shape"),
    (dict(qdd=np.array([0.0, 0.0, np.nan])), "qdd: contains non-finite"),
    (dict(gravity=[0.0, 9.81]), "gravity: expected a finite 3-vector"),
    (dict(f_ext=np.zeros((3, 3))), r"f_ext: expected 3 wrenches"),
    (dict(f_ext=np.full((3, 6), np.inf)), "f_ext: contains non-finite"),
])
def test_denoc_input_validation(kwargs, match):
    model = samples.rpr_arm()
    args = dict(q=np.zeros(3), qd=np.zeros(3), qdd=np.zeros(3))
    options = {k: v for k, v in kwargs.items() if k in ("gravity", "f_ext")}
    args.update({k: v for k, v in kwargs.items() if k not in options})
    with pytest.raises(ValueError, match=match):
        denoc(model, args["q"], args["qd"], args["qdd"], **options)


def test_matrix_functions_input_validation():
    model = samples.rpr_arm()
    with pytest.raises(ValueError, match="reference: expected one of"):
        denoc_matrices(model, np.zeros(3), reference="joint")
    with pytest.raises(ValueError, match="reference: expected one of"):
        generalized_inertia(model, np.zeros(3), reference="COM")
    with pytest.raises(ValueError, match="reference: expected one of"):
        convective_inertia(model, np.zeros(3), np.zeros(3), reference=None)
    with pytest.raises(ValueError, match="q: expected shape"):
        denoc_matrices(model, np.zeros(4))
    with pytest.raises(ValueError, match="qd: expected shape"):
        denoc_matrices(model, np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="qd: expected shape"):
        convective_inertia(model, np.zeros(3), np.zeros(5))
    with pytest.raises(ValueError, match="q: contains non-finite"):
        generalized_inertia(model, [0.0, np.nan, 0.0])
    with pytest.raises(TypeError):
        denoc(model, np.zeros(3), np.zeros(3), np.zeros(3), [0, 0, -9.81])
