"""lessonlib.batch: whole trajectories agree with the per-sample algorithms and with Pinocchio.

Every test runs on both backends: the NumPy kernels (always) and the numba-compiled kernels (when
numba is installed, ``pip install lessonlib[fast]``).
"""
import numpy as np
import pytest

from lessonlib import batch, samples, se3, so3
from lessonlib.batch import frames as fr
from lessonlib.dynamics import aba, crba, rnea
from lessonlib.kinematics import joint_transforms
from lessonlib.model import Joint

TOL = 1e-10


def _with_scales(model, seed):
    """The same tree with every joint scaled (the body moves by scale · q), like MR's √2 screw."""
    rng = np.random.default_rng(seed)
    return model.replace(joints=[Joint(j.kind, j.axis, j.point, name=j.name, scale=rng.uniform(0.5, 2.0))
                                 for j in model.joints])


MODELS = {**samples.ALL,
          "panda": samples.panda,
          "random_tree_7": lambda: samples.random_model(7, seed=11),
          "random_tree_9": lambda: samples.random_model(9, seed=12),
          "random_chain_6": lambda: samples.random_model(6, seed=13, tree=False),
          "scaled_tree_6": lambda: _with_scales(samples.random_model(6, seed=14), 15)}


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request):
    return MODELS[request.param]()


@pytest.fixture(params=batch.BACKENDS)
def backend(request):
    if request.param not in batch.available_backends():
        pytest.skip(f"{request.param} is not installed")
    return request.param


def assert_close(got, want, tol=TOL):
    """Agreement to ``tol`` relative to max(1, max |want|)."""
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    assert np.abs(got - want).max(initial=0.0) <= tol * scale, np.abs(got - want).max()


def trajectory(model, N, seed):
    rng = np.random.default_rng(seed)
    Q, QD, QDD = rng.uniform(-2.5, 2.5, (3, N, model.n))
    return Q, QD, QDD, rng.normal(size=3) * 5.0, rng.normal(size=(N, model.n, 6))


def test_every_sample_agrees_with_the_per_sample_algorithms(model, backend):
    N = 6
    Q, QD, QDD, g, F = trajectory(model, N, seed=1)
    assert_close(batch.rnea(model, Q, QD, QDD, gravity=g, f_ext=F, backend=backend),
                 np.array([rnea(model, Q[k], QD[k], QDD[k], gravity=g, f_ext=F[k]) for k in range(N)]))
    assert_close(batch.rnea(model, Q, QD, QDD, backend=backend),            # the model's gravity, no contact
                 np.array([rnea(model, Q[k], QD[k], QDD[k]) for k in range(N)]))
    assert_close(batch.crba(model, Q, backend=backend), np.array([crba(model, q) for q in Q]))
    assert_close(batch.aba(model, Q, QD, QDD, gravity=g, f_ext=F, backend=backend),
                 np.array([aba(model, Q[k], QD[k], QDD[k], gravity=g, f_ext=F[k]) for k in range(N)]))
    assert_close(batch.aba(model, Q, QD, QDD, backend=backend),
                 np.array([aba(model, Q[k], QD[k], QDD[k]) for k in range(N)]))


def test_one_set_of_wrenches_is_broadcast_over_the_samples(model, backend):
    Q, QD, QDD, g, F = trajectory(model, 4, seed=2)
    assert_close(batch.rnea(model, Q, QD, QDD, f_ext=F[0], backend=backend),
                 batch.rnea(model, Q, QD, QDD, f_ext=np.broadcast_to(F[0], F.shape), backend="numpy"))
    assert_close(batch.aba(model, Q, QD, QDD, gravity=g, f_ext=F[0], backend=backend),
                 np.array([aba(model, Q[k], QD[k], QDD[k], gravity=g, f_ext=F[0]) for k in range(4)]))


@pytest.mark.parametrize("name", ["panda", "ur5", "branched_tree", "rpr_arm", "scara", "random_tree_9"])
def test_pinocchio_agrees_on_chains_trees_and_prismatic_joints(name, backend):
    oracles = pytest.importorskip("oracles")
    arm = MODELS[name]()
    pin = oracles.PinOracle(arm)
    N = 5
    Q, QD, QDD, g, F = trajectory(arm, N, seed=21)
    tau = batch.rnea(arm, Q, QD, QDD, gravity=g, f_ext=F, backend=backend)
    assert_close(tau, np.array([pin.rnea(Q[k], QD[k], QDD[k], gravity=g, f_ext=F[k]) for k in range(N)]), 1e-9)
    assert_close(batch.crba(arm, Q, backend=backend), np.array([pin.crba(q) for q in Q]), 1e-9)
    assert_close(batch.aba(arm, Q, QD, tau, gravity=g, f_ext=F, backend=backend),
                 np.array([pin.aba(Q[k], QD[k], tau[k], gravity=g, f_ext=F[k]) for k in range(N)]), 1e-9)


def test_the_two_backends_agree_on_a_long_trajectory():
    if "numba" not in batch.available_backends():
        pytest.skip("numba is not installed")
    arm = samples.random_model(8, seed=31)                      # tree with prismatic joints
    Q, QD, QDD, g, F = trajectory(arm, 3000, seed=32)           # more than one NumPy block
    tau = batch.rnea(arm, Q, QD, QDD, gravity=g, f_ext=F, backend="numba")
    assert_close(tau, batch.rnea(arm, Q, QD, QDD, gravity=g, f_ext=F, backend="numpy"))
    assert_close(batch.crba(arm, Q, backend="numba"), batch.crba(arm, Q, backend="numpy"))
    assert_close(batch.aba(arm, Q, QD, tau, gravity=g, f_ext=F, backend="numba"), QDD)
    assert_close(batch.aba(arm, Q, QD, tau, gravity=g, f_ext=F, backend="numpy"), QDD)


def test_blocks_of_samples_join_seamlessly(monkeypatch):
    arm = samples.random_model(5, seed=3)
    Q, QD, QDD, g, F = trajectory(arm, 11, seed=4)
    run = lambda: (batch.rnea(arm, Q, QD, QDD, f_ext=F, backend="numpy"), batch.crba(arm, Q, backend="numpy"),  # noqa: E731
                   batch.aba(arm, Q, QD, QDD, f_ext=F, backend="numpy"))
    whole = run()
    monkeypatch.setattr(batch, "BLOCK", 4)                # 11 samples = blocks of 4, 4, 3
    for got, want in zip(run(), whole):
        assert_close(got, want)


def test_seed003_numbers_and_a_round_trip(backend):
    arm = samples.planar_2link()
    Z = np.zeros((2, 2))
    assert np.allclose(batch.rnea(arm, Z, Z, Z, gravity=[0, -10, 0], backend=backend), [[20.0, 5.0]] * 2, atol=1e-12)
    arm = samples.panda()
    Q, QD, QDD, g, F = trajectory(arm, 5, seed=5)
    tau = batch.rnea(arm, Q, QD, QDD, gravity=g, f_ext=F, backend=backend)
    assert_close(batch.aba(arm, Q, QD, tau, gravity=g, f_ext=F, backend=backend), QDD)     # FD(ID(q̈)) = q̈
    M = batch.crba(arm, Q, backend=backend)
    assert np.allclose(M, M.transpose(0, 2, 1)) and np.all(np.linalg.eigvalsh(M) > 0)


def test_empty_trajectory(backend):
    arm = samples.ur5()
    E = np.zeros((0, 6))
    assert batch.rnea(arm, E, E, E, backend=backend).shape == (0, 6)
    assert batch.crba(arm, E, backend=backend).shape == (0, 6, 6)
    assert batch.aba(arm, E, E, E, backend=backend).shape == (0, 6)


@pytest.mark.parametrize("call, match", [
    (lambda a, Z: batch.rnea(a, Z[0], Z, Z), r"Q: expected shape \(N, 3\)"),
    (lambda a, Z: batch.rnea(a, Z, Z[:, :2], Z), r"QD: expected shape \(4, 3\)"),
    (lambda a, Z: batch.rnea(a, Z, Z, Z[:3]), r"QDD: expected shape \(4, 3\)"),
    (lambda a, Z: batch.rnea(a, Z, Z, Z, f_ext=np.zeros((4, 3, 3))), r"f_ext: expected shape \(4, 3, 6\) or \(3, 6\)"),
    (lambda a, Z: batch.rnea(a, Z, Z, Z, gravity=[0, 1]), "gravity"),
    (lambda a, Z: batch.rnea(a, Z + np.nan, Z, Z), "Q: contains non-finite"),
    (lambda a, Z: batch.rnea(a, [["a"] * 3] * 4, Z, Z), "Q: expected numbers"),
    (lambda a, Z: batch.crba(a, np.zeros((4, 2))), r"Q: expected shape \(N, 3\)"),
    (lambda a, Z: batch.aba(a, Z, Z, Z.T), r"TAU: expected shape \(4, 3\)"),
    (lambda a, Z: batch.aba(a, Z, Z, Z, f_ext=np.zeros(6)), "f_ext"),
    (lambda a, Z: batch.aba(a, Z, Z, Z, f_ext=np.full((3, 6), np.inf)), "f_ext: contains non-finite"),
    (lambda a, Z: batch.rnea(a, Z, Z, Z, backend="fortran"), r"backend: expected one of \('numpy', 'numba'\)"),
    (lambda a, Z: batch.crba(a, Z, backend=1), "backend"),
])
def test_bad_inputs_name_the_argument_and_shape(call, match):
    arm = samples.planar_3link()
    with pytest.raises(ValueError, match=match):
        call(arm, np.zeros((4, 3)))


def test_asking_for_numba_without_it_says_how_to_install(monkeypatch):
    monkeypatch.setattr(batch, "available_backends", lambda: ("numpy",))
    Z = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"backend: 'numba' needs numba.*lessonlib\[fast\]"):
        batch.rnea(samples.planar_3link(), Z, Z, Z, backend="numba")
    assert batch.rnea(samples.planar_3link(), Z, Z, Z).shape == (2, 3)      # None: what is installed


# --- the pieces: joint frames, coordinates, cos/sin ---------------------------------------------------

def test_joint_frames_split_each_joint_transform_into_a_constant_and_a_turn():
    """X_J(θ)·X_C equals X_i_p seen from the joint frames, and z is the joint axis."""
    arm = samples.random_model(6, seed=7)                 # revolute and prismatic joints, a tree
    jf = batch.joint_frames(arm)
    q = np.linspace(-2, 2, arm.n)
    X = joint_transforms(arm, q)
    joints = fr.BlockJoints(jf, q[:, None])
    for i in range(arm.n):
        X_J = np.stack([joints.motion_to_child(i, e[:, None])[:, 0] for e in np.eye(6)], axis=1)
        T_i_J = fr.frame_on_axis(arm.joints[i])
        p = arm.parent[i]
        T_p_J = np.eye(4) if p < 0 else fr.frame_on_axis(arm.joints[p])
        assert np.allclose(X_J, se3.Ad(se3.inv(T_i_J)) @ X[i] @ se3.Ad(T_p_J), atol=1e-12)
        assert np.allclose(T_i_J[:3, 2], arm.joints[i].axis)
        F = np.stack([joints.force_to_parent(i, e[:, None])[:, 0] for e in np.eye(6)], axis=1)
        assert np.allclose(F, X_J.T, atol=1e-12)                              # the wrench map is X_i_pᵀ
        M = np.random.default_rng(i).normal(size=(6, 6))
        M = M + M.T
        got = fr.SYMMETRIC.matrix(joints.inertia_to_parent(i, fr.SYMMETRIC.of(M)[:, None])[:, 0])
        assert np.allclose(got, X_J.T @ M @ X_J, atol=1e-12)


@pytest.mark.parametrize("space", [fr.SYMMETRIC, fr.RIGID], ids=["symmetric", "rigid"])
def test_coordinates_turn_congruence_and_slide(space):
    rng = np.random.default_rng(3)
    M = space.matrix(rng.normal(size=space.size))
    assert np.allclose(M, M.T) and np.allclose(space.matrix(space.of(M)), M, atol=1e-14)
    theta = 0.83
    z, R = space.of(M), np.kron(np.eye(2), so3.rot_z(theta))
    w = z.copy()
    for angle, (x, y) in ((theta, space.turn), (2 * theta, space.turn2)):
        w[x], w[y] = np.cos(angle) * z[x] - np.sin(angle) * z[y], np.sin(angle) * z[x] + np.cos(angle) * z[y]
    assert np.allclose(space.matrix(w), R @ M @ R.T, atol=1e-13)             # a turn about z: pairs only
    X = se3.Ad(se3.exp(rng.normal(size=6)))
    assert np.allclose(space.matrix(space.congruence(X) @ z), X.T @ M @ X, atol=1e-12)
    X_J = se3.Ad(se3.from_Rp(np.eye(3), [0.0, 0.0, -theta]))                # a prismatic joint's slide
    K1, K2 = space.slide
    assert np.allclose(space.matrix(z + theta * K1 @ z + theta ** 2 * K2 @ z), X_J.T @ M @ X_J, atol=1e-13)


def test_rigid_coordinates_are_mass_first_moment_and_inertia():
    I = samples.random_inertia(np.random.default_rng(4))
    m, h, I_O = I[3, 3], so3.vee(I[:3, 3:]), I[:3, :3]
    assert np.allclose(fr.RIGID.of(I), [m, h[2], I_O[2, 2], I_O[0, 0] + I_O[1, 1], I_O[0, 2], h[0], I_O[1, 2], h[1],
                                        (I_O[0, 0] - I_O[1, 1]) / 2, I_O[0, 1]])


def test_cos_sin_from_the_half_angle_tangent():
    theta = np.concatenate([np.linspace(-40, 40, 10001), [np.pi, -np.pi, 0.0, np.pi / 2, 3 * np.pi, 1e5]])
    c, s = fr.cos_sin(theta)
    assert np.abs(c - np.cos(theta)).max() < 1e-14 and np.abs(s - np.sin(theta)).max() < 1e-14


def test_an_unusable_numba_falls_back_to_numpy_when_no_backend_is_asked_for(monkeypatch):
    def broken():
        raise ImportError("numba: simulated broken install")
    monkeypatch.setattr(batch, "available_backends", lambda: ("numba", "numpy"))
    monkeypatch.setattr(batch, "_compiled", broken)
    arm, Z = samples.planar_2link(), np.zeros((2, 2))
    assert np.allclose(batch.rnea(arm, Z, Z, Z, gravity=[0, -10, 0]), [[20.0, 5.0]] * 2)
    with pytest.raises(ImportError, match="simulated"):
        batch.rnea(arm, Z, Z, Z, backend="numba")                 # asked for explicitly: the error shows
