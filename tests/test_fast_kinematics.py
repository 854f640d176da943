"""The vectorised kinematics (Rodrigues' formula for every joint at once) against se3.exp, joint by joint."""
import numpy as np
import pytest

from lessonlib import samples, se3
from lessonlib.dynamics._operators import ad, ad_dual, matvec
from lessonlib.kinematics import fk, joint_transforms
from lessonlib.model import Joint


def scaled(model, seed):
    rng = np.random.default_rng(seed)
    return model.replace(joints=[Joint(j.kind, j.axis, j.point, name=j.name, scale=rng.uniform(0.3, 2.5))
                                 for j in model.joints])


MODELS = {"random_tree": lambda: samples.random_model(8, seed=21),
          "scaled_random_tree": lambda: scaled(samples.random_model(8, seed=22), 23),
          "scara": samples.scara, "panda": samples.panda}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_rodrigues_equals_the_exponential_for_large_angles(name):
    model = MODELS[name]()
    rng = np.random.default_rng(24)
    for q in rng.uniform(-10, 10, (5, model.n)):
        X = joint_transforms(model, q)
        T = fk(model, q)
        for i in range(model.n):
            T_p_i = model.joint_transform(i, q[i])                      # T_tree · se3.exp(S_i q_i)
            assert np.allclose(X[i], se3.Ad(se3.inv(T_p_i)), atol=1e-12)
            p = model.parent[i]
            assert np.allclose(T[i], T_p_i if p < 0 else T[p] @ T_p_i, atol=1e-12)


def test_model_constants_are_read_only():
    model = samples.scara()
    assert model._prismatic_joints.tolist() == [i for i, j in enumerate(model.joints) if not j.is_revolute]
    with pytest.raises(ValueError):
        model._X_tree[0, 0, 0] = 1.0


def test_unvalidated_operators_equal_se3_and_take_stacks():
    rng = np.random.default_rng(25)
    V = rng.normal(size=(4, 6))
    assert np.array_equal(ad(V), np.array([se3.ad(v) for v in V]))
    assert np.array_equal(ad_dual(V), np.array([se3.ad_dual(v) for v in V]))
    M = rng.normal(size=(4, 6, 6))
    assert np.allclose(matvec(M, V), np.einsum("nij,nj->ni", M, V))
