"""kinematics.wrench_at_body: a wrench at a named frame moved to its body origin, and its use in Jᵀ F."""
import numpy as np
import pytest

from lessonlib import samples, se3, so3
from lessonlib.conventions import BASE, LIN
from lessonlib.dynamics import jacobian_transpose_force, rnea
from lessonlib.kinematics import body_twists, fk, frame_pose, jacobian, wrench_at_body
from lessonlib.model import Frame


def with_frames(model):
    """``model`` plus a rotated, offset frame on body 0 and one on the base (the samples' frames are kept)."""
    extra = (Frame("rotated", 0, se3.from_Rp(so3.exp([0.3, -0.7, 1.1]), [0.2, -0.1, 0.05])),
             Frame("bench", BASE, se3.from_Rp(so3.rot_z(0.4), [0.5, 0.0, 0.1])))
    return model.replace(frames=tuple(model.frames) + extra)


def test_a_tip_force_becomes_a_moment_about_the_body_origin():
    body, F_body = wrench_at_body(samples.planar_2link(), "tip", [0.0, 0.0, 0.0, 0.0, -10.0, 0.0])
    assert body == 1
    np.testing.assert_allclose(F_body, [0, 0, -10.0, 0, -10.0, 0], atol=1e-15)   # 1 m × 10 N, same force
    body, F_body = wrench_at_body(samples.pendulum(), "tip", [0.0, 0.0, 2.0, 3.0, 0.0, 0.0])
    np.testing.assert_allclose(F_body, [0, 0, 2.0 + 3.0, 3.0, 0, 0], atol=1e-15)  # r × f = (0, 0, 3)


@pytest.mark.parametrize("name", ["ur5", "rpr_arm", "planar_3link"])
def test_power_is_invariant_and_jacobians_agree(name):
    model = with_frames(samples.ALL[name]())
    rng = np.random.default_rng(1)
    q, qd = rng.uniform(-1, 1, (2, model.n))
    for f in model.frames:
        if f.body == BASE:
            continue
        F = rng.normal(size=6)
        body, F_body = wrench_at_body(model, f.name, F)
        assert body == f.body
        V_b = body_twists(model, q, qd)[body]
        V_f = se3.Ad(se3.inv(f.T)) @ V_b                                    # the frame's twist in its own axes
        assert F_body @ V_b == pytest.approx(F @ V_f, abs=1e-12)
        np.testing.assert_allclose(jacobian(model, q, body=body, frame="body").T @ F_body,
                                   jacobian(model, q, body=f.name, frame="body").T @ F, atol=1e-12)
        np.testing.assert_allclose(F_body[LIN], f.T[:3, :3] @ F[LIN], atol=1e-12)   # the force only turns


@pytest.mark.parametrize("name", ["ur5", "rpr_arm", "planar_3link", "pendulum"])
def test_jacobian_transpose_force_at_named_frames(name):
    model = with_frames(samples.ALL[name]())
    rng = np.random.default_rng(2)
    q = rng.uniform(-1, 1, model.n)
    zero = np.zeros(model.n)
    for f in model.frames:
        F = rng.normal(size=6)
        tau = jacobian_transpose_force(model, q, F, frame="body", body=f.name)
        if f.body == BASE:
            np.testing.assert_array_equal(tau, zero)
            continue
        np.testing.assert_allclose(tau, jacobian(model, q, body=f.name, frame="body").T @ F, atol=1e-10)
        f_ext = np.zeros((model.n, 6))
        f_ext[f.body] = wrench_at_body(model, f.name, F)[1]
        np.testing.assert_allclose(tau, -rnea(model, q, zero, zero, gravity=[0, 0, 0], f_ext=f_ext), atol=1e-12)
        np.testing.assert_allclose(jacobian_transpose_force(model, q, F, body=f.name, frame="space"),
                                   jacobian(model, q, body=f.name, frame="space").T @ F, atol=1e-10)
        assert np.linalg.norm(frame_pose(model, q, f.name) - fk(model, q)[f.body] @ f.T) < 1e-12


def test_body_indices_base_frames_and_validation():
    model = with_frames(samples.ur5())
    F = np.arange(1.0, 7.0)
    body, F_body = wrench_at_body(model, -1, F)                               # a body: already at its origin
    assert body == model.n - 1
    np.testing.assert_array_equal(F_body, F)
    body, F_world = wrench_at_body(model, "bench", F)                         # a base frame: world axes, origin
    assert body == BASE
    T = model.frame("bench").T
    np.testing.assert_allclose(F_world, se3.Ad(se3.inv(T)).T @ F, atol=1e-15)
    np.testing.assert_allclose(F_world[LIN], so3.rot_z(0.4) @ F[LIN], atol=1e-15)
    with pytest.raises(ValueError, match="F: expected a finite wrench"):
        wrench_at_body(model, "ee", np.ones(3))
    with pytest.raises(ValueError, match="F: expected a finite wrench"):
        wrench_at_body(model, "ee", [np.nan, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="no frame called 'hand'"):
        wrench_at_body(model, "hand", F)
    with pytest.raises(ValueError, match="body: expected an index"):
        wrench_at_body(model, model.n, F)
