"""URDF import: every shipped robot against Pinocchio, hand-computed cases, DH agreement, errors.

Pinocchio is the independent oracle: it parses the same file with urdfdom and its own fixed-joint
merging. Pinocchio is linear-first ``[v; ω]``; :func:`lessonlib.conventions.swap_order` converts.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from lessonlib import kinematics, se3, spatial
from lessonlib.conventions import BASE, swap_order
from lessonlib.model import from_dh, from_urdf
from lessonlib.samples import robot_path

pin = pytest.importorskip("pinocchio")

SHIPPED = ["panda", "panda_gripper", "ur5", "xarm7", "double_pendulum", "test_arm"]
ATOL = 1e-9
N_SAMPLES = 20


# --- helpers --------------------------------------------------------------------------------

def _Rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _Ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _Rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _T(R=np.eye(3), p=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def _rpy_of(R):
    """URDF roll, pitch, yaw of R = Rz(yaw) Ry(pitch) Rx(roll) (|pitch| < pi/2)."""
    return (math.atan2(R[2, 1], R[2, 2]), math.asin(-R[2, 0]), math.atan2(R[1, 0], R[0, 0]))


def _fmt(v):
    return " ".join(repr(float(x)) for x in v)


def _inertia_xml(I):
    I = np.asarray(I, dtype=float).tolist()
    return (f'<inertia ixx="{I[0][0]!r}" ixy="{I[0][1]!r}" ixz="{I[0][2]!r}" '
            f'iyy="{I[1][1]!r}" iyz="{I[1][2]!r}" izz="{I[2][2]!r}"/>')


def _pin_q(pmodel, q):
    """Pinocchio configuration of our joint values (continuous joints use nq = 2: cos, sin)."""
    qp = np.zeros(pmodel.nq)
    for i, qi in enumerate(q):
        jm = pmodel.joints[i + 1]
        if jm.nq == 2:
            qp[jm.idx_q:jm.idx_q + 2] = math.cos(qi), math.sin(qi)
        else:
            qp[jm.idx_q] = qi
    return qp


def _ang_first_columns(J):
    """Pinocchio's linear-first Jacobian (6, n) with angular-first rows."""
    J = np.asarray(J).reshape(6, -1)         # pinocchio returns (6,) when nv = 1
    return swap_order(J, kind="columns")


def _pin_model(xml_or_path):
    """Pinocchio's model of a URDF file (a Path, or a str that is no XML) or of an XML string."""
    if isinstance(xml_or_path, Path) or not xml_or_path.lstrip().startswith("<"):
        return pin.buildModelFromUrdf(str(xml_or_path))
    return pin.buildModelFromXML(xml_or_path)


def _assert_matches_pinocchio(model, pmodel, n_samples=N_SAMPLES, seed=0):
    """Structure, inertias, fk, frames and the three Jacobians agree with Pinocchio."""
    pdata = pmodel.createData()
    assert pmodel.njoints - 1 == model.n
    assert tuple(pmodel.names[1:]) == model.joint_names
    assert [p - 1 for p in pmodel.parents[1:]] == list(model.parent)
    for i in range(model.n):
        np.testing.assert_allclose(model.inertia[i], swap_order(pmodel.inertias[i + 1].matrix(), kind="operator"),
                                   atol=ATOL, err_msg=f"inertia of body {i} ({model.body_names[i]})")
    rng = np.random.default_rng(seed)
    for _ in range(n_samples):
        q = rng.uniform(-math.pi, math.pi, model.n)
        qp = _pin_q(pmodel, q)
        pin.forwardKinematics(pmodel, pdata, qp)
        pin.updateFramePlacements(pmodel, pdata)
        pin.computeJointJacobians(pmodel, pdata, qp)
        T = kinematics.fk(model, q)
        for i in range(model.n):
            np.testing.assert_allclose(T[i], pdata.oMi[i + 1].homogeneous, atol=ATOL)
            for ours, ref in (("body", pin.LOCAL), ("hybrid", pin.LOCAL_WORLD_ALIGNED),
                              ("space", pin.WORLD)):
                J_pin = pin.getJointJacobian(pmodel, pdata, i + 1, ref)
                np.testing.assert_allclose(kinematics.jacobian(model, q, body=i, frame=ours),
                                           _ang_first_columns(J_pin), atol=ATOL,
                                           err_msg=f"{ours} Jacobian of body {i}")
        for f in model.frames:
            fid = pmodel.getFrameId(f.name, pin.BODY)
            assert fid < len(pmodel.frames), f.name
            np.testing.assert_allclose(kinematics.frame_pose(model, q, f.name),
                                       pdata.oMf[fid].homogeneous, atol=ATOL, err_msg=f.name)


# --- every shipped URDF against Pinocchio -----------------------------------------------------

def test_every_shipped_file_is_tested():
    assert sorted(p.stem for p in Path(robot_path("ur5")).parent.glob("*.urdf")) == sorted(SHIPPED)


@pytest.mark.parametrize("robot", SHIPPED)
def test_shipped_urdf_matches_pinocchio(robot, recwarn):
    path = robot_path(robot)
    model = from_urdf(path)
    assert model.name == robot
    _assert_matches_pinocchio(model, _pin_model(path))


def test_shipped_robot_structure():
    panda = from_urdf(robot_path("panda"))
    assert (panda.n, panda.is_chain) == (7, True)
    assert {f.name: f.body for f in panda.frames} == {
        "panda_link0": BASE, "panda_link8": 6, "panda_hand": 6, "panda_hand_tcp": 6,
        "panda_leftfinger": 6, "panda_rightfinger": 6}
    # link7 (0.735522) + hand (0.73) + two fingers (0.015 each) on the last body
    assert panda.mass[6] == pytest.approx(0.735522 + 0.73 + 0.03, abs=1e-12)
    # at q = 0 the TCP is 0.088 m out along x and 0.333+0.316+0.384-0.107-0.1034 m up
    np.testing.assert_allclose(kinematics.frame_pose(panda, np.zeros(7), "panda_hand_tcp")[:3, 3],
                               [0.088, 0.0, 0.333 + 0.316 + 0.384 - 0.107 - 0.1034], atol=1e-12)

    with pytest.warns(UserWarning, match="panda_finger_joint2"):
        gripper = from_urdf(robot_path("panda_gripper"))
    assert gripper.n == 9 and not gripper.is_chain
    assert gripper.joint_names[7:] == ("panda_finger_joint1", "panda_finger_joint2")
    assert [j.kind for j in gripper.joints[7:]] == ["prismatic", "prismatic"]
    assert gripper.parent[7:] == (6, 6)
    np.testing.assert_allclose(gripper.joints[8].axis, [0, -1, 0])

    ur5 = from_urdf(robot_path("ur5"))
    np.testing.assert_allclose(ur5.mass, [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879])
    assert {f.name: f.body for f in ur5.frames} == {
        "world": BASE, "base_link": BASE, "base": BASE, "ee_link": 5, "tool0": 5}

    xarm = from_urdf(robot_path("xarm7"))
    np.testing.assert_allclose(xarm.mass, [2.382, 1.869, 1.6383, 1.7269, 1.3203, 1.325, 0.17])

    arm = from_urdf(robot_path("test_arm"))
    assert arm.joint_names == ("j1_yaw", "j2_shoulder", "j3_slide", "j4_wrist", "j5_aux",
                               "j6_aux_slide")
    assert arm.parent == (BASE, 0, 1, 2, 1, 4)
    assert [j.kind for j in arm.joints] == ["revolute", "revolute", "prismatic", "revolute",
                                            "revolute", "prismatic"]
    assert arm.mass[3] == pytest.approx(0.6 + 0.4)       # link4 + the merged tool


def test_ur5_is_modern_robotics_ur5():
    """ur5.urdf is Modern Robotics' UR5: Pinocchio's RNEA on the file gives the torques Modern Robotics'
    InverseDynamics computes for its UR5 parameters (tests/test_rnea_forms.py), Ftip applied at tool0."""
    path = robot_path("ur5")
    pmodel = _pin_model(path)
    pdata = pmodel.createData()
    q = np.array([0, math.pi / 6, math.pi / 4, math.pi / 3, math.pi / 2, 2 * math.pi / 3])
    F_tip = 0.1 * np.ones(6)                     # [m; f] applied BY the end effector, tool0 frame
    tool0 = pmodel.frames[pmodel.getFrameId("tool0", pin.BODY)]
    f_ext = [pin.Force.Zero() for _ in range(pmodel.njoints)]
    f_ext[6] = tool0.placement.act(pin.Force(-F_tip[3:], -F_tip[:3]))
    tau = pin.rnea(pmodel, pdata, q, 0.2 * np.ones(6), 0.1 * np.ones(6), f_ext)
    np.testing.assert_allclose(tau, [0.012767, -41.147698, -3.780934, 0.032310, 0.036953, 0.103367],
                               atol=1e-6)
    # ... and our tool0 frame is Modern Robotics' end-effector frame M at q = 0
    np.testing.assert_allclose(kinematics.frame_pose(from_urdf(path), np.zeros(6), "tool0"),
                               [[-1, 0, 0, 0.81725], [0, 0, 1, 0.19145], [0, 1, 0, -0.005491],
                                [0, 0, 0, 1]], atol=1e-8)


def test_double_pendulum_static_torques():
    """[RNE05]: two horizontal 1 m, 1 kg rods, g = 10: holding torques (20, 5) N m,
    computed as tau = -sum_k J_com,k^T m_k g from the model's Jacobians."""
    arm = from_urdf(robot_path("double_pendulum"), gravity=(0, 0, -10))
    q = np.array([math.pi / 2, 0.0])
    T = kinematics.fk(arm, q)
    tau = np.zeros(2)
    for k in range(arm.n):
        J = kinematics.jacobian(arm, q, body=k, frame="hybrid")
        r = T[k][:3, :3] @ arm.com[k]                      # body origin -> COM, world axes
        J_com = J[3:] - np.cross(r, J[:3].T).T             # v_com = v_O + w x r
        tau -= J_com.T @ (arm.mass[k] * arm.gravity)
    np.testing.assert_allclose(tau, [20.0, 5.0], atol=1e-12)
    np.testing.assert_allclose(kinematics.frame_pose(arm, q, "tip")[:3, 3], [-2, 0, 0], atol=1e-12)


# --- hand-written cases -----------------------------------------------------------------------

_LIM = '<limit effort="1" lower="-3" upper="3" velocity="1"/>'


def _link(name, m=1.0, xyz="0 0 0", rpy="0 0 0", inertia="0.01 0.02 0.025 0 0 0"):
    ixx, iyy, izz, ixy, ixz, iyz = inertia.split()
    return (f'<link name="{name}"><inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{m}"/>'
            f'<inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="{ixy}" ixz="{ixz}" iyz="{iyz}"/>'
            f'</inertial></link>')


def _joint(name, parent, child, kind="revolute", xyz="0 0 0", rpy="0 0 0", axis="0 0 1", extra=""):
    return (f'<joint name="{name}" type="{kind}"><origin xyz="{xyz}" rpy="{rpy}"/>'
            f'<parent link="{parent}"/><child link="{child}"/><axis xyz="{axis}"/>{_LIM}{extra}</joint>')


def _robot(*parts, name="r"):
    return f'<robot name="{name}">' + "".join(parts) + "</robot>"


def test_rpy_on_joint_and_inertial():
    xml = _robot('<link name="base"/>',
                 _link("l1", m=2.0, xyz="0.1 -0.2 0.3", rpy="0.5 -0.4 1.2",
                       inertia="0.01 0.02 0.025 0.001 -0.002 0.0015"),
                 _joint("j1", "base", "l1", xyz="0.4 0.5 0.6", rpy="0.3 0.2 -0.7", axis="1 0 0"))
    model = from_urdf(xml)
    # joint origin: T = Trans(xyz) Rz(yaw) Ry(pitch) Rx(roll), by hand
    np.testing.assert_allclose(model.T_tree[0], _T(_Rz(-0.7) @ _Ry(0.2) @ _Rx(0.3), [0.4, 0.5, 0.6]),
                               atol=1e-15)
    # inertial: COM at xyz, tensor axes rotated by rpy
    R = _Rz(1.2) @ _Ry(-0.4) @ _Rx(0.5)
    I = np.array([[0.01, 0.001, -0.002], [0.001, 0.02, 0.0015], [-0.002, 0.0015, 0.025]])
    assert model.mass[0] == pytest.approx(2.0)
    np.testing.assert_allclose(model.com[0], [0.1, -0.2, 0.3], atol=1e-15)
    np.testing.assert_allclose(model.I_com[0], R @ I @ R.T, atol=1e-15)
    # q rotates about the child-frame x axis
    np.testing.assert_allclose(kinematics.fk(model, [0.8])[0], model.T_tree[0] @ _T(_Rx(0.8)),
                               atol=1e-14)
    _assert_matches_pinocchio(model, _pin_model(xml), n_samples=5)


def test_fixed_link_merged_into_parent_body():
    """A fixed child link's mass, COM and inertia combine with its parent's (parallel axis)."""
    xml = _robot('<link name="base"/>',
                 _link("a", m=2.0, xyz="0.1 0 0", inertia="0.01 0.02 0.03 0 0 0"),
                 _link("b", m=1.0, xyz="0.2 0 0", inertia="0.01 0.02 0.03 0 0 0"),
                 _joint("ja", "base", "a", axis="0 0 1"),
                 '<joint name="jb" type="fixed"><origin xyz="0 0 0.5" rpy="0 0 1.5707963267948966"/>'
                 '<parent link="a"/><child link="b"/></joint>')
    model = from_urdf(xml)
    assert model.n == 1 and model.body_names == ("a",)
    # by hand: b's COM in a is Rz(90°)(0.2, 0, 0) + (0, 0, 0.5) = (0, 0.2, 0.5); b's tensor axes
    # are turned by 90° about z, so diag(0.01, 0.02, 0.03) becomes diag(0.02, 0.01, 0.03) in a.
    c_a, c_b = np.array([0.1, 0, 0]), np.array([0, 0.2, 0.5])
    c = (2.0 * c_a + 1.0 * c_b) / 3.0
    I_c = np.diag([0.01, 0.02, 0.03]) + np.diag([0.02, 0.01, 0.03])
    for m_k, c_k in ((2.0, c_a), (1.0, c_b)):
        d = c_k - c
        I_c = I_c + m_k * (d @ d * np.eye(3) - np.outer(d, d))
    assert model.mass[0] == pytest.approx(3.0)
    np.testing.assert_allclose(model.com[0], [0.2 / 3, 0.2 / 3, 0.5 / 3], atol=1e-15)
    np.testing.assert_allclose(model.I_com[0], I_c, atol=1e-15)
    np.testing.assert_allclose(model.frame("b").T, _T(_Rz(math.pi / 2), [0, 0, 0.5]), atol=1e-15)
    assert model.frame("b").body == 0 and model.frame("base").body == BASE
    _assert_matches_pinocchio(model, _pin_model(xml), n_samples=5)


def test_massless_moving_link_takes_the_mass_of_its_fixed_children():
    xml = _robot('<link name="base"/>', '<link name="hub"/>',
                 _link("weight", m=1.5, xyz="0 0 0.1"),
                 _joint("j", "base", "hub"),
                 '<joint name="fix" type="fixed"><origin xyz="0.3 0 0"/>'
                 '<parent link="hub"/><child link="weight"/></joint>')
    model = from_urdf(xml)
    assert model.mass[0] == pytest.approx(1.5)
    np.testing.assert_allclose(model.com[0], [0.3, 0, 0.1], atol=1e-15)


def test_continuous_joint_is_an_unbounded_revolute():
    xml = _robot('<link name="base"/>', _link("wheel"),
                 _joint("spin", "base", "wheel", kind="continuous", xyz="0 0 0.2", axis="0 1 0"))
    model = from_urdf(xml)
    assert model.joints[0].kind == "revolute" and model.n == 1
    for q in (0.3, 2 * math.pi + 0.3, -7.0):
        np.testing.assert_allclose(kinematics.fk(model, [q])[0], _T(_Ry(q), [0, 0, 0.2]), atol=1e-14)
    _assert_matches_pinocchio(model, _pin_model(xml), n_samples=5)


def test_prismatic_joint_slides_along_the_normalised_axis():
    xml = _robot('<link name="base"/>', _link("slider"),
                 _joint("slide", "base", "slider", kind="prismatic", xyz="1 0 0", rpy="0 0 0.5",
                        axis="0 3 4"))
    model = from_urdf(xml)
    assert model.joints[0].kind == "prismatic"
    np.testing.assert_allclose(model.joints[0].axis, [0, 0.6, 0.8])
    T0 = _T(_Rz(0.5), [1, 0, 0])
    np.testing.assert_allclose(kinematics.fk(model, [0.25])[0], T0 @ _T(p=[0, 0.15, 0.2]), atol=1e-15)


def test_defaults_missing_origin_and_axis():
    xml = _robot('<link name="base"/>', _link("l"),
                 '<joint name="j" type="revolute"><parent link="base"/><child link="l"/></joint>')
    model = from_urdf(xml)
    np.testing.assert_allclose(model.T_tree[0], np.eye(4))
    np.testing.assert_allclose(model.joints[0].axis, [1, 0, 0])      # URDF default axis


def test_mimic_is_ignored_with_a_warning():
    xml = _robot('<link name="base"/>', _link("l1"), _link("l2"),
                 _joint("lead", "base", "l1"),
                 _joint("follower", "base", "l2", extra='<mimic joint="lead" multiplier="2"/>'))
    with pytest.warns(UserWarning, match="follower"):
        model = from_urdf(xml)
    assert model.joint_names == ("follower", "lead")                 # independent coordinates


def test_sibling_order_is_pinocchio_order():
    """Children of a link are numbered in joint-name order (urdfdom / Pinocchio), depth first."""
    xml = _robot('<link name="base"/>', _link("z"), _link("a"), _link("c"), '<link name="f"/>',
                 _joint("k2", "base", "a"), _joint("k1", "base", "z"),
                 '<joint name="k0" type="fixed"><parent link="base"/><child link="f"/></joint>',
                 _joint("k3", "f", "c"))
    model = from_urdf(xml)
    assert model.joint_names == ("k3", "k1", "k2")
    _assert_matches_pinocchio(model, _pin_model(xml), n_samples=2)


def test_path_string_and_xml_inputs_agree(tmp_path):
    xml = Path(robot_path("double_pendulum")).read_text()
    path = tmp_path / "pendulum.urdf"
    path.write_text(xml)
    models = [from_urdf(path), from_urdf(str(path)), from_urdf(xml), from_urdf("\n  " + xml)]
    for m in models[1:]:
        np.testing.assert_array_equal(m.T_tree, models[0].T_tree)
        np.testing.assert_array_equal(m.inertia, models[0].inertia)


def test_name_and_gravity():
    path = robot_path("double_pendulum")
    assert from_urdf(path).name == "double_pendulum"
    assert from_urdf(path, name="swing").name == "swing"
    np.testing.assert_array_equal(from_urdf(path).gravity, [0, 0, -9.81])
    np.testing.assert_array_equal(from_urdf(path, gravity=(0, -9.81, 0)).gravity, [0, -9.81, 0])


def test_ignored_elements():
    xml = _robot('<link name="base"><visual><geometry><box size="1 1 1"/></geometry></visual></link>',
                 '<link name="l"><collision><geometry><sphere radius="1"/></geometry></collision>'
                 '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>'
                 '</inertial></link>',
                 _joint("j", "base", "l", extra='<dynamics damping="1"/>'),
                 '<transmission name="t"><joint name="j"/></transmission>',
                 '<gazebo reference="l"><mu1>1</mu1></gazebo>')
    assert from_urdf(xml).n == 1


# --- malformed input: ValueError naming the element -----------------------------------------

_BASE_L1 = '<link name="base"/>'
_MALFORMED = {
    "inertial without mass": (_robot(_BASE_L1, '<link name="l1"><inertial><inertia ixx="1" iyy="1" '
                                     'izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>',
                                     _joint("j1", "base", "l1")), "link 'l1'.*mass"),
    "mass without value": (_robot(_BASE_L1, '<link name="l1"><inertial><mass/><inertia ixx="1" '
                                  'iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>',
                                  _joint("j1", "base", "l1")), "link 'l1'.*value"),
    "negative mass": (_robot(_BASE_L1, _link("l1", m=-1), _joint("j1", "base", "l1")),
                      "link 'l1'.*mass"),
    "triangle inequality": (_robot(_BASE_L1, _link("l1", inertia="1 1 3 0 0 0"),
                                   _joint("j1", "base", "l1")), "link 'l1'.*triangle"),
    "not positive semi-definite": (_robot(_BASE_L1, _link("l1", inertia="1 1 1 2 0 0"),
                                          _joint("j1", "base", "l1")), "link 'l1'"),
    "moving body without mass": (_robot(_BASE_L1, '<link name="l1"/>', _joint("j1", "base", "l1")),
                                 "link 'l1': a moving body needs mass > 0"),
    "zero mass with inertia": (_robot(_BASE_L1, _link("l1", m=0), _joint("j1", "base", "l1")),
                               "link 'l1'"),
    "unknown joint type": (_robot(_BASE_L1, _link("l1"), _joint("hinge1", "base", "l1", kind="hinge")),
                           "joint 'hinge1'.*'hinge'"),
    "floating joint": (_robot(_BASE_L1, _link("l1"), _joint("free", "base", "l1", kind="floating")),
                       "joint 'free'.*floating"),
    "planar joint": (_robot(_BASE_L1, _link("l1"), _joint("flat", "base", "l1", kind="planar")),
                     "joint 'flat'.*planar"),
    "zero axis": (_robot(_BASE_L1, _link("l1"), _joint("j1", "base", "l1", axis="0 0 0")),
                  "joint 'j1'.*axis"),
    "bad origin": (_robot(_BASE_L1, _link("l1"), _joint("j1", "base", "l1", xyz="1 2")),
                   "joint 'j1'.*xyz"),
    "not a number": (_robot(_BASE_L1, _link("l1"), _joint("j1", "base", "l1", rpy="0 x 0")),
                     "joint 'j1'.*rpy"),
    "missing link": (_robot(_BASE_L1, _link("l1"), _joint("j1", "base", "l1"),
                            _joint("j2", "l1", "ghost")), "joint 'j2'.*'ghost'"),
    "missing child element": (_robot(_BASE_L1, _link("l1"),
                                     '<joint name="j1" type="revolute"><parent link="base"/></joint>'),
                              "joint 'j1'.*child"),
    "child of two joints": (_robot(_BASE_L1, _link("l1"), _link("l2"), _joint("j1", "base", "l1"),
                                   _joint("j2", "base", "l2"), _joint("j3", "l1", "l2")),
                            "link 'l2'.*two joints"),
    "cycle": (_robot(_BASE_L1, _link("l1"), _link("l2"), _link("l3"), _joint("j1", "base", "l1"),
                     _link("l4"), _joint("j23", "l2", "l3"), _joint("j32", "l3", "l2"),
                     _joint("j34", "l3", "l4")), r"joints \['j32', 'j23'\] form a cycle"),
    "cycle without a root": (_robot(_link("l1"), _link("l2"), _joint("j12", "l1", "l2"),
                                    _joint("j21", "l2", "l1")), "cycle"),
    "several roots": (_robot(_BASE_L1, '<link name="other"/>', _link("l1"), _joint("j1", "base", "l1")),
                      "'base', 'other'"),
    "duplicate link": (_robot(_BASE_L1, _link("l1"), _link("l1"), _joint("j1", "base", "l1")),
                       "link 'l1' is defined twice"),
    "duplicate joint": (_robot(_BASE_L1, _link("l1"), _link("l2"), _joint("j1", "base", "l1"),
                               _joint("j1", "l1", "l2")), "joint 'j1' is defined twice"),
    "link without name": (_robot(_BASE_L1, "<link/>"), "<link>"),
    "joint without name": (_robot(_BASE_L1, _link("l1"),
                                  '<joint type="fixed"><parent link="base"/><child link="l1"/></joint>'),
                           "<joint>"),
    "no moving joints": (_robot(_BASE_L1, _link("l1"),
                                '<joint name="j" type="fixed"><parent link="base"/><child link="l1"/>'
                                '</joint>'), "no moving joints"),
    "no links": (_robot(), "<link>"),
    "not a URDF": ('<sdf version="1.6"><model name="m"/></sdf>', "<sdf>.*<robot>"),
    "unparsable XML": ('<robot name="r"><link name="a"></robot>', "not well-formed"),
}


@pytest.mark.parametrize("case", sorted(_MALFORMED))
def test_malformed_urdf_raises_naming_the_element(case):
    xml, match = _MALFORMED[case]
    with pytest.raises(ValueError, match=match):
        from_urdf(xml)


def test_bad_path_and_type():
    with pytest.raises(ValueError, match="path_or_xml.*no URDF file"):
        from_urdf("/nonexistent/robot.urdf")
    with pytest.raises(ValueError, match="path_or_xml"):
        from_urdf(42)
    with pytest.raises(ValueError, match="no shipped URDF called 'nope'"):
        robot_path("nope")


# --- the same robot from a DH table and from URDF ---------------------------------------------

DH = dict(a=[0.3, 0.25, 0.1], alpha=[0.4, -0.7, 1.1], d=[0.1, 0.05, -0.2], theta=[0.2, -0.3, 0.5],
          joint_types=["revolute", "prismatic", "revolute"])
MASS = [2.0, 1.5, 0.8]
COM = [[0.1, 0.02, -0.03], [-0.05, 0.04, 0.1], [0.0, -0.02, 0.05]]
INERTIA = [_Rz(0.3) @ np.diag([0.02, 0.03, 0.04]) @ _Rz(0.3).T,
           _Rx(-0.5) @ np.diag([0.01, 0.015, 0.02]) @ _Rx(-0.5).T,
           _Ry(0.7) @ np.diag([0.003, 0.004, 0.005]) @ _Ry(0.7).T]


def _dh_model(modified):
    return from_dh(DH["a"], DH["alpha"], DH["d"], DH["theta"], joint_types=DH["joint_types"],
                   modified=modified, mass=MASS, com=COM, inertia=INERTIA)


def _origin_xml(T):
    return f'<origin xyz="{_fmt(T[:3, 3])}" rpy="{_fmt(_rpy_of(T[:3, :3]))}"/>'


def _inertial_xml(m, T_link_com, I):
    return f"<inertial>{_origin_xml(T_link_com)}<mass value=\"{float(m)!r}\"/>{_inertia_xml(I)}</inertial>"


def _dh_urdf(modified):
    """URDF of the DH table. Modified DH: link i's frame IS DH frame i (joint i's origin is
    Rx(α_{i-1}) Tx(a_{i-1}) Rz(θ_i) Tz(d_i)). Standard DH: link i's frame is DH frame i-1 moved by
    joint i (its axis is z_{i-1}); DH frame i is the fixed, massless link "dh{i}" on it."""
    parts = ['<link name="base"/>']
    parent, T_parent_joint = "base", np.eye(4)
    for i in range(3):
        a, al, d, th = (DH[k][i] for k in ("a", "alpha", "d", "theta"))
        kind = DH["joint_types"][i]
        if modified:
            T_origin = _T(_Rx(al)) @ _T(p=[a, 0, 0]) @ _T(_Rz(th)) @ _T(p=[0, 0, d])
            T_link_dh = np.eye(4)
        else:
            T_origin = T_parent_joint
            T_link_dh = _T(_Rz(th)) @ _T(p=[0, 0, d]) @ _T(p=[a, 0, 0]) @ _T(_Rx(al))
        T_link_com = T_link_dh @ _T(p=COM[i])
        parts.append(f'<link name="link{i + 1}">'        # the inertial's rpy turns the tensor
                     f'{_inertial_xml(MASS[i], T_link_com, INERTIA[i])}</link>')
        parts.append(f'<joint name="joint{i + 1}" type="{kind}">{_origin_xml(T_origin)}'
                     f'<parent link="{parent}"/><child link="link{i + 1}"/><axis xyz="0 0 1"/>'
                     f'{_LIM}</joint>')
        if not modified:
            parts.append(f'<link name="dh{i + 1}"/><joint name="dh{i + 1}_joint" type="fixed">'
                         f'{_origin_xml(T_link_dh)}<parent link="link{i + 1}"/>'
                         f'<child link="dh{i + 1}"/></joint>')
        parent, T_parent_joint = f"link{i + 1}", T_link_dh
    return _robot(*parts, name="dh_arm")


def test_modified_dh_and_urdf_give_the_same_robot():
    dh, urdf = _dh_model(modified=True), from_urdf(_dh_urdf(modified=True))
    np.testing.assert_allclose(urdf.T_tree, dh.T_tree, atol=1e-14)
    np.testing.assert_allclose(urdf.S, dh.S, atol=1e-15)
    np.testing.assert_allclose(urdf.inertia, dh.inertia, atol=1e-14)
    rng = np.random.default_rng(1)
    for _ in range(10):
        q = rng.uniform(-2, 2, 3)
        np.testing.assert_allclose(kinematics.fk(urdf, q), kinematics.fk(dh, q), atol=1e-13)
        np.testing.assert_allclose(kinematics.jacobian(urdf, q), kinematics.jacobian(dh, q), atol=1e-13)


def test_standard_dh_and_urdf_give_the_same_robot():
    dh, urdf = _dh_model(modified=False), from_urdf(_dh_urdf(modified=False))
    assert [f.name for f in urdf.frames] == ["base", "dh1", "dh2", "dh3"]
    rng = np.random.default_rng(2)
    for _ in range(10):
        q = rng.uniform(-2, 2, 3)
        T_dh = kinematics.fk(dh, q)
        for i in range(3):
            name = f"dh{i + 1}"
            np.testing.assert_allclose(kinematics.frame_pose(urdf, q, name), T_dh[i], atol=1e-13)
            for frame in ("space", "body", "hybrid"):
                np.testing.assert_allclose(kinematics.jacobian(urdf, q, body=name, frame=frame),
                                           kinematics.jacobian(dh, q, body=i, frame=frame), atol=1e-13)
    for i in range(3):   # the same rigid body, seen from the URDF body origin and from DH frame i
        G_at_dh = spatial.transform_inertia(se3.Ad(urdf.frame(f"dh{i + 1}").T), urdf.inertia[i])
        np.testing.assert_allclose(G_at_dh, dh.inertia[i], atol=1e-14)
