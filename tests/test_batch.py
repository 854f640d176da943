"""lessonlib.batch: whole trajectories agree with the per-sample algorithms on every sample robot."""
import numpy as np
import pytest

from lessonlib import batch, samples
from lessonlib.dynamics import aba, crba, rnea
from lessonlib.model import Joint

TOL = 1e-10


def _with_scales(model, seed):
    """The same tree with every joint scaled (the body moves by scale · q), like MR's √2 screw."""
    rng = np.random.default_rng(seed)
    return model.replace(joints=[Joint(j.kind, j.axis, j.point, name=j.name, scale=rng.uniform(0.5, 2.0))
                                 for j in model.joints])


MODELS = {**samples.ALL,
          "random_tree_7": lambda: samples.random_model(7, seed=11),
          "random_tree_9": lambda: samples.random_model(9, seed=12),
          "random_chain_6": lambda: samples.random_model(6, seed=13, tree=False),
          "scaled_tree_6": lambda: _with_scales(samples.random_model(6, seed=14), 15)}


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request):
    return MODELS[request.param]()


def assert_close(got, want):
    """Agreement to TOL relative to max(1, max |want|)."""
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max()))
    assert np.abs(got - want).max() <= TOL * scale, np.abs(got - want).max()


def trajectory(model, N, seed):
    rng = np.random.default_rng(seed)
    Q, QD, QDD = rng.uniform(-2.5, 2.5, (3, N, model.n))
    return Q, QD, QDD, rng.normal(size=3) * 5.0, rng.normal(size=(N, model.n, 6))


def test_every_sample_agrees_with_the_per_sample_algorithms(model):
    N = 6
    Q, QD, QDD, g, F = trajectory(model, N, seed=1)
    assert_close(batch.rnea(model, Q, QD, QDD, gravity=g, f_ext=F),
                 np.array([rnea(model, Q[k], QD[k], QDD[k], gravity=g, f_ext=F[k]) for k in range(N)]))
    assert_close(batch.rnea(model, Q, QD, QDD),                      # the model's gravity, no contact
                 np.array([rnea(model, Q[k], QD[k], QDD[k]) for k in range(N)]))
    assert_close(batch.crba(model, Q), np.array([crba(model, q) for q in Q]))
    assert_close(batch.aba(model, Q, QD, QDD, gravity=g, f_ext=F),
                 np.array([aba(model, Q[k], QD[k], QDD[k], gravity=g, f_ext=F[k]) for k in range(N)]))


def test_one_set_of_wrenches_is_broadcast_over_the_samples(model):
    Q, QD, QDD, g, F = trajectory(model, 4, seed=2)
    assert_close(batch.rnea(model, Q, QD, QDD, f_ext=F[0]),
                 batch.rnea(model, Q, QD, QDD, f_ext=np.broadcast_to(F[0], F.shape)))
    assert_close(batch.aba(model, Q, QD, QDD, gravity=g, f_ext=F[0]),
                 np.array([aba(model, Q[k], QD[k], QDD[k], gravity=g, f_ext=F[0]) for k in range(4)]))


def test_blocks_of_samples_join_seamlessly(monkeypatch):
    arm = samples.random_model(5, seed=3)
    Q, QD, QDD, g, F = trajectory(arm, 11, seed=4)
    whole = (batch.rnea(arm, Q, QD, QDD, f_ext=F), batch.crba(arm, Q), batch.aba(arm, Q, QD, QDD, f_ext=F))
    monkeypatch.setattr(batch, "BLOCK", 4)                # 11 samples = blocks of 4, 4, 3
    in_blocks = (batch.rnea(arm, Q, QD, QDD, f_ext=F), batch.crba(arm, Q), batch.aba(arm, Q, QD, QDD, f_ext=F))
    for got, want in zip(in_blocks, whole):
        assert_close(got, want)


def test_seed003_numbers_and_a_round_trip():
    arm = samples.planar_2link()
    Z = np.zeros((2, 2))
    assert np.allclose(batch.rnea(arm, Z, Z, Z, gravity=[0, -10, 0]), [[20.0, 5.0]] * 2, atol=1e-12)
    arm = samples.panda()
    Q, QD, QDD, g, F = trajectory(arm, 5, seed=5)
    tau = batch.rnea(arm, Q, QD, QDD, gravity=g, f_ext=F)
    assert_close(batch.aba(arm, Q, QD, tau, gravity=g, f_ext=F), QDD)            # FD(ID(q̈)) = q̈
    M = batch.crba(arm, Q)
    assert np.allclose(M, M.transpose(0, 2, 1)) and np.all(np.linalg.eigvalsh(M) > 0)


def test_empty_trajectory():
    arm = samples.ur5()
    E = np.zeros((0, 6))
    assert batch.rnea(arm, E, E, E).shape == (0, 6)
    assert batch.crba(arm, E).shape == (0, 6, 6)
    assert batch.aba(arm, E, E, E).shape == (0, 6)


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
])
def test_bad_inputs_name_the_argument_and_shape(call, match):
    arm = samples.planar_3link()
    with pytest.raises(ValueError, match=match):
        call(arm, np.zeros((4, 3)))


def test_joint_frames_put_each_joint_on_z():
    """The joint-frame transform X_J(θ)·X_C equals X_i_p seen from the joint frames."""
    from lessonlib import se3
    from lessonlib.kinematics import joint_transforms
    arm = samples.random_model(6, seed=7)
    jf = batch.joint_frames(arm)
    q = np.linspace(-2, 2, arm.n)
    X = joint_transforms(arm, q)
    joints = batch._joint_states(jf, q[:, None])
    for i in range(arm.n):
        X_J = np.stack([batch._X(jf, joints, i, e[:, None])[:, 0] for e in np.eye(6)], axis=1)
        # X_i_p in joint frames: Ad(T_i_J)⁻¹ X_i_p Ad(T_p_J), with T_p_J = 1 for the base
        T_i_J = batch._frame_on_axis(arm.joints[i])
        p = arm.parent[i]
        T_p_J = np.eye(4) if p < 0 else batch._frame_on_axis(arm.joints[p])
        assert np.allclose(X_J, se3.Ad(se3.inv(T_i_J)) @ X[i] @ se3.Ad(T_p_J), atol=1e-12)
        assert np.allclose(batch._frame_on_axis(arm.joints[i])[:3, 2], arm.joints[i].axis)
