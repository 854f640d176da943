"""Model, builders (DH / PoE), spatial algebra and kinematics."""
import numpy as np
import pytest

from lessonlib import samples, se3, so3, spatial
from lessonlib.conventions import ANG, LIN
from lessonlib.kinematics import body_twists, fk, frame_pose, jacobian, joint_transforms
from lessonlib.model import Frame, Joint, Model, dh_transform, from_dh, from_poe, joint_from_screw, to_poe

MODELS = {**samples.ALL, "random_tree": lambda: samples.random_model(7, seed=3),
          "random_chain": lambda: samples.random_model(5, seed=4, tree=False)}


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request):
    return MODELS[request.param]()


# --- spatial ----------------------------------------------------------------------------------

def test_ad_dual_is_minus_ad_transpose_and_power_invariance():
    rng = np.random.default_rng(0)
    for _ in range(50):
        v, w, f = rng.normal(size=(3, 6))
        assert np.allclose(spatial.cross_force(v), -spatial.cross_motion(v).T)
        # (v ×* f) · w = −f · (v × w): the force cross product is the dual of the motion one
        assert np.isclose((spatial.cross_force(v) @ f) @ w, -f @ (spatial.cross_motion(v) @ w))
        R, p = so3.exp(rng.normal(size=3)), rng.normal(size=3)
        X = spatial.plucker(R, p)
        assert np.isclose((np.linalg.inv(X).T @ f) @ (X @ w), f @ w)
        R2, p2 = spatial.plucker_to_Rp(X)
        assert np.allclose(R2, R) and np.allclose(p2, p)


def test_inertia_roundtrip_and_transform():
    rng = np.random.default_rng(1)
    for _ in range(20):
        G = samples.random_inertia(rng)
        m, c, I_c = spatial.inertia_params(G)
        assert np.allclose(spatial.inertia(m, c, I_c), G)
        T = se3.exp(rng.normal(size=6))
        v = rng.normal(size=6)
        G_B = spatial.transform_inertia(se3.Ad(T), G)      # kinetic energy is frame-independent
        assert np.isclose(v @ G_B @ v, (se3.Ad(T) @ v) @ G @ (se3.Ad(T) @ v))


@pytest.mark.parametrize("m, I_c, msg", [
    (-1.0, np.eye(3), "mass"),
    (1.0, np.diag([1.0, 1.0, 3.0]), "triangle"),
    (1.0, np.diag([1.0, -0.1, 1.0]), "semi-definite"),
    (1.0, np.array([[1, 0.2, 0], [0, 1, 0], [0, 0, 1.0]]), "symmetric"),
    (np.nan, np.eye(3), "mass"),
])
def test_inertia_rejects_unphysical(m, I_c, msg):
    with pytest.raises(ValueError, match=msg):
        spatial.inertia(m, [0, 0, 0], I_c)


def test_thin_rod_is_accepted():
    G = spatial.inertia(1.0, [0.5, 0, 0], np.diag([0.0, 1 / 12, 1 / 12]))
    assert G[LIN, LIN][0, 0] == 1.0


# --- Model --------------------------------------------------------------------------------------

def _one_body(**kw):
    args = dict(parent=[-1], joints=[Joint("revolute", [0, 0, 1])], T_tree=[np.eye(4)],
                inertia=[spatial.inertia(1, [0, 0, 0], np.eye(3))])
    args.update(kw)
    return Model(args.pop("parent"), args.pop("joints"), args.pop("T_tree"), args.pop("inertia"), **args)


@pytest.mark.parametrize("kw, msg", [
    (dict(parent=[0]), "parent"),
    (dict(joints=[]), "joints"),
    (dict(T_tree=np.zeros((1, 4, 4))), "T_tree"),
    (dict(inertia=[np.eye(6) * -1]), "inertia"),
    (dict(inertia=np.zeros((2, 6, 6))), "inertia"),
    (dict(gravity=[0, 0]), "gravity"),
    (dict(body_names=["a", "b"]), "body_names"),
])
def test_model_validation(kw, msg):
    with pytest.raises(ValueError, match=msg):
        _one_body(**kw)


def test_parent_must_precede_child():
    with pytest.raises(ValueError, match=r"parent\[1\]"):
        _one_body(parent=[-1, 1], joints=[Joint("revolute", [0, 0, 1])] * 2, T_tree=[np.eye(4)] * 2,
                  inertia=[spatial.inertia(1, [0, 0, 0], np.eye(3))] * 2)


@pytest.mark.parametrize("kind, axis, msg", [("helical", [0, 0, 1], "kind"), ("revolute", [0, 0, 2], "unit"),
                                             ("revolute", [0, 0], "axis"), ("prismatic", [np.inf, 0, 0], "axis")])
def test_joint_validation(kind, axis, msg):
    with pytest.raises(ValueError, match=msg):
        Joint(kind, axis)


def test_model_is_immutable():
    arm = samples.planar_2link()
    with pytest.raises(AttributeError):
        arm.n = 3
    with pytest.raises(ValueError):
        arm.inertia[0, 0, 0] = 5.0
    assert arm.replace(name="copy").name == "copy" and arm.name == "planar_2link"


def test_model_checks_state_shapes():
    arm = samples.planar_3link()
    with pytest.raises(ValueError, match=r"q: expected shape \(3,\)"):
        fk(arm, [0, 0])


def test_tree_structure():
    tree = samples.branched_tree()
    assert tree.parent == (-1, 0, 1, 0, 3) and not tree.is_chain
    assert tree.children[0] == (1, 3) and tree.ancestors(4) == [0, 3, 4]


# --- DH -----------------------------------------------------------------------------------------

def test_standard_dh_frames_are_dh_frames():
    """fk of a standard-DH model is the product of the textbook link transforms."""
    rng = np.random.default_rng(2)
    a, alpha, d, theta = rng.normal(size=(4, 4))
    kinds = "RPRP"
    arm = from_dh(a, alpha, d, theta, joint_types=kinds, mass=[1] * 4, com=np.zeros((4, 3)),
                  inertia=[np.eye(3) * 0.1] * 4)
    for _ in range(5):
        q = rng.normal(size=4)
        T = np.eye(4)
        for i in range(4):
            th, dd = (theta[i] + q[i], d[i]) if kinds[i] == "R" else (theta[i], d[i] + q[i])
            T = T @ dh_transform(a[i], alpha[i], dd, th)
            assert np.allclose(fk(arm, q)[i], T, atol=1e-12)


def test_modified_dh_frames_are_craig_frames():
    rng = np.random.default_rng(3)
    a, alpha, d, theta = rng.normal(size=(4, 3))
    arm = from_dh(a, alpha, d, theta, joint_types="RRP", modified=True, mass=[1] * 3, com=np.zeros((3, 3)),
                  inertia=[np.eye(3) * 0.1] * 3)
    q = rng.normal(size=3)
    T = np.eye(4)
    for i in range(3):
        th, dd = (theta[i] + q[i], d[i]) if i < 2 else (theta[i], d[i] + q[i])
        T = T @ so3_T(so3.rot_x(alpha[i]), [a[i], 0, 0]) @ so3_T(so3.rot_z(th), [0, 0, 0]) @ so3_T(np.eye(3), [0, 0, dd])
        assert np.allclose(fk(arm, q)[i], T, atol=1e-12)


def so3_T(R, p):
    return se3.from_Rp(R, np.asarray(p, dtype=float))


def test_swc16_dh_table():
    arm = samples.seed002_7dof()
    T = fk(arm, np.zeros(7))
    assert np.allclose(T[0][:3, 3], [0, 0, 0.246])
    assert np.allclose(T[-1][:3, 3], [0, 0, 0.246 + 0.304 + 0.317 + 0.295])   # stretched straight up at q = 0


def test_dh_validation():
    with pytest.raises(ValueError, match="alpha"):
        from_dh([0, 0], [0], [0, 0], mass=[1, 1], com=np.zeros((2, 3)), inertia=[np.eye(3)] * 2)
    with pytest.raises(ValueError, match="joint_types"):
        from_dh([0], [0], [0], joint_types="X", mass=[1], com=np.zeros((1, 3)), inertia=[np.eye(3)])


# --- PoE (Modern Robotics) -------------------------------------------------------------------

def test_from_poe_matches_modern_robotics_fk():
    mr = pytest.importorskip("modern_robotics")
    arm = samples.ur5()
    M_home = np.linalg.multi_dot([np.eye(4)] + [arm.T_tree[i] for i in range(6)] + [arm.frame("ee").T])
    S = np.column_stack([se3.Ad(fk(arm, np.zeros(6))[i]) @ arm.S[i] for i in range(6)])
    rng = np.random.default_rng(4)
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, 6)
        assert np.allclose(frame_pose(arm, q, "ee"), mr.FKinSpace(M_home, S, q), atol=1e-12)
        assert np.allclose(jacobian(arm, q, frame="space"), mr.JacobianSpace(S, q), atol=1e-12)


def test_joint_from_screw_keeps_scale():
    j = joint_from_screw([1, 0, 1, 0, 1, 0])
    assert j.kind == "revolute" and np.isclose(j.scale, np.sqrt(2))
    assert np.allclose(j.screw, [1, 0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="pitch"):
        joint_from_screw([0, 0, 1, 0, 0, 1])


def test_joint_screw_is_scaled_not_unit():
    """``Joint.screw`` is ``scale`` times the unit screw: the twist per unit ``q̇``."""
    for kind, axis, point in [("revolute", [0, 1, 0], [0.3, 0.0, -0.2]), ("prismatic", [0, 0, 1], [0, 0, 0])]:
        unit, scaled = Joint(kind, axis, point), Joint(kind, axis, point, scale=2.5)
        np.testing.assert_allclose(scaled.screw, 2.5 * unit.screw)
        assert np.isclose(np.linalg.norm(unit.screw[ANG] if kind == "revolute" else unit.screw[LIN]), 1.0)
        np.testing.assert_allclose(unit.screw[LIN] if kind == "revolute" else unit.screw[ANG],
                                   np.cross(point, axis) if kind == "revolute" else 0.0)
    arm = samples.planar_2link().replace(joints=[Joint("revolute", [0, 0, 1], scale=2.0)] * 2)
    np.testing.assert_allclose(arm.S, [j.screw for j in arm.joints])
    np.testing.assert_allclose(arm.joint_transform(0, 0.5), se3.exp(arm.S[0] * 0.5))     # turns by 2 · 0.5 rad
    np.testing.assert_allclose(arm.joint_transform(0, 0.5)[:3, :3], so3.rot_z(1.0), atol=1e-15)


def test_from_poe_validation():
    with pytest.raises(ValueError, match="M_list"):
        from_poe(np.zeros((1, 4, 4)), np.zeros((1, 6, 6)), np.zeros((6, 1)))
    with pytest.raises(ValueError, match="S_list"):
        from_poe(np.zeros((2, 4, 4)), np.zeros((1, 6, 6)), np.zeros(6))


# --- kinematics -----------------------------------------------------------------------------

def test_jacobians_match_finite_differences_of_fk(model):
    rng = np.random.default_rng(5)
    q = rng.uniform(-1, 1, model.n)
    h = 1e-6
    T = fk(model, q)
    for body in range(model.n):
        J_s = jacobian(model, q, body=body, frame="space")
        J_b = jacobian(model, q, body=body, frame="body")
        J_h = jacobian(model, q, body=body, frame="hybrid")
        for j in range(model.n):
            dq = np.zeros(model.n)
            dq[j] = h
            dT = (fk(model, q + dq)[body] - fk(model, q - dq)[body]) / (2 * h)
            V_s = se3.vee(dT @ se3.inv(T[body]))                  # space twist  Ṫ T⁻¹
            V_b = se3.vee(se3.inv(T[body]) @ dT)                  # body twist   T⁻¹ Ṫ
            assert np.allclose(J_s[:, j], V_s, atol=1e-7)
            assert np.allclose(J_b[:, j], V_b, atol=1e-7)
            assert np.allclose(J_h[ANG, j], V_s[ANG], atol=1e-7)
            assert np.allclose(J_h[LIN, j], dT[:3, 3], atol=1e-7)   # origin velocity, world axes


def test_body_twists_equal_jacobian_times_rates(model):
    rng = np.random.default_rng(6)
    q, qd = rng.uniform(-1, 1, (2, model.n))
    V = body_twists(model, q, qd)
    for i in range(model.n):
        assert np.allclose(V[i], jacobian(model, q, body=i, frame="body") @ qd, atol=1e-12)


def test_joint_transforms_are_inverse_adjoints(model):
    q = np.linspace(-1, 1, model.n)
    X = joint_transforms(model, q)
    for i in range(model.n):
        assert np.allclose(X[i], se3.Ad(se3.inv(model.joint_transform(i, q[i]))), atol=1e-12)


def test_jacobian_of_named_frames_and_validation():
    arm = samples.planar_2link()
    J = jacobian(arm, [0.0, 0.0], body="tip", frame="hybrid")
    assert np.allclose(J[LIN], [[0, 0], [2, 1], [0, 0]])        # tip 2 m out: ẏ = 2 q̇1 + q̇2
    with pytest.raises(ValueError, match="frame"):
        jacobian(arm, [0, 0], frame="world")
    with pytest.raises(ValueError, match="body"):
        jacobian(arm, [0, 0], body=5)
    with pytest.raises(ValueError, match="name"):
        jacobian(arm, [0, 0], body="nope")


def test_to_poe_inverts_from_poe():
    arm = samples.ur5()
    M, G, S = to_poe(arm)
    back = from_poe(M, G, S)
    assert np.allclose(back.T_tree, arm.T_tree) and np.allclose(back.S, arm.S) and np.allclose(back.inertia, arm.inertia)
    assert np.allclose(M[-1], arm.frame("ee").T)
    chain = samples.random_model(5, seed=2, tree=False)
    M, G, S = to_poe(chain)
    assert np.allclose(M[-1], np.eye(4))
    q = np.linspace(-1, 1, 5)
    assert np.allclose(fk(from_poe(M, G, S), q), fk(chain, q), atol=1e-12)
    with pytest.raises(ValueError, match="tree"):
        to_poe(samples.branched_tree())
