"""The vectorised kinematics (Rodrigues' formula for every joint at once) against se3.exp, joint by joint."""
import numpy as np
import pytest

from lessonlib import samples, se3
from lessonlib import kinematics
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


def test_the_model_knows_no_kinematics_tables_and_the_cache_is_read_only():
    model = samples.scara()
    assert not [name for name in vars(model) if "tree_hat" in name or "X_tree" in name or "prismatic" in name]
    X = joint_transforms(model, [0.1, 0.2, 0.3, 0.4])
    tables = kinematics._TABLES[model]                       # filled by the first call, kept per Model
    assert tables.prismatic.tolist() == [i for i, j in enumerate(model.joints) if not j.is_revolute]
    with pytest.raises(ValueError):
        tables.X_tree[0, 0, 0] = 1.0
    assert np.array_equal(joint_transforms(model, [0.1, 0.2, 0.3, 0.4]), X)
    other = samples.scara()                                  # an equal but distinct Model has its own entry
    joint_transforms(other, np.zeros(4))
    assert kinematics._TABLES[other] is not tables
