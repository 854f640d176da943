"""Contact with an unknown normal force (lessonlib.constraints.contact): independent routes on every sample robot.

Routes that share nothing with the library's Schur-complement solve:
* the KKT system [[M, −Jᵀν], [νᵀJ, 0]] with the point Jacobian built from the *hybrid* body Jacobian
  and J̇q̇ from a central difference of that Jacobian along q̇;
* RNEA with the contact force as an external wrench gives back τ;
* a second difference of the point's position (forward kinematics only) along the motion: ν·p̈ = 0;
* the energy rate by a central difference of the total energy equals q̇ᵀτ (the contact does no work).
"""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.check import random_state
from lessonlib.constraints import contact_forward_dynamics, contact_kinematics
from lessonlib.dynamics import aba, bias_forces, crba, rnea
from lessonlib.dynamics.energy import energy_rate
from lessonlib.kinematics import fk, jacobian, resolve_body
from lessonlib.so3 import hat

RANDOM = {f"random{n}_{s}": (lambda n=n, s=s: samples.random_model(n, seed=s)) for n, s in
          [(1, 0), (3, 1), (6, 2), (8, 3), (8, 4)]}
ALL_MODELS = {**samples.ALL, **RANDOM}
H = 1e-5                     # finite-difference step (s)


def body_point(model, body, r):
    """Index of ``body`` and the point ``r`` (in its frame) in body coordinates."""
    b, T_b_f = resolve_body(model, body)
    return b, T_b_f[:3, :3] @ r + T_b_f[:3, 3]


def point_position(model, q, b, r_b):
    T = fk(model, q)[b]
    return T[:3, :3] @ r_b + T[:3, 3]


def point_jacobian_hybrid(model, q, b, r_b):
    """World linear-velocity Jacobian of the point from the hybrid Jacobian: v_O + ω × (R r)."""
    Jh = jacobian(model, q, body=b, frame="hybrid")
    R = fk(model, q)[b][:3, :3]
    return Jh[3:] - hat(R @ r_b) @ Jh[:3]


def jdot_qd_fd(model, q, qd, b, r_b):
    """J̇ q̇ by a central difference of the Jacobian along q̇."""
    return (point_jacobian_hybrid(model, q + H * qd, b, r_b)
            - point_jacobian_hybrid(model, q - H * qd, b, r_b)) @ qd / (2 * H)


def contact_case(name, seed):
    """A model, a state with the point moving in the plane (ν·ṗ = 0), τ, the contact body/point and ν."""
    model = ALL_MODELS[name]()
    rng = np.random.default_rng(seed)
    q, qd, _ = random_state(model, seed)
    tau = rng.normal(scale=5.0, size=model.n)
    b = int(rng.integers(model.n)) if seed % 2 else model.n - 1
    r = rng.uniform(-0.3, 0.3, 3)
    J = point_jacobian_hybrid(model, q, b, r)
    nu = rng.normal(size=3)
    pd = J @ qd
    if np.linalg.norm(pd) > 1e-9:        # keep the state on the plane: ν ⟂ ṗ
        u = pd / np.linalg.norm(pd)
        tangent = nu - (nu @ u) * u
        if np.linalg.norm(J.T @ tangent) > 1e-3 * np.linalg.norm(tangent):
            nu = tangent
        else:                            # the point can only move along ṗ (one joint moves it): start at rest
            qd = np.zeros(model.n)
    nu /= np.linalg.norm(nu)
    assert np.linalg.norm(J.T @ nu) > 1e-3 and abs(nu @ J @ qd) < 1e-9
    return model, q, qd, tau, b, r, nu


CASES = [(name, seed) for name in sorted(ALL_MODELS) for seed in (0, 1, 2)]


@pytest.mark.parametrize("name, seed", CASES)
def test_kkt_route(name, seed):
    model, q, qd, tau, b, r, nu = contact_case(name, seed)
    qdd, lam = contact_forward_dynamics(model, q, qd, tau, body=b, point=r, normal=3.0 * nu)
    J = point_jacobian_hybrid(model, q, b, r)
    a = J.T @ nu
    K = np.block([[crba(model, q), -a[:, None]], [a[None, :], np.zeros((1, 1))]])
    rhs = np.concatenate([tau - bias_forces(model, q, qd), [-nu @ jdot_qd_fd(model, q, qd, b, r)]])
    x = np.linalg.solve(K, rhs)
    scale = 1.0 + np.abs(x).max()
    assert np.allclose(qdd, x[:-1], atol=1e-6 * scale, rtol=0)
    assert lam == pytest.approx(x[-1], abs=1e-6 * scale)
    assert isinstance(lam, float)


@pytest.mark.parametrize("name, seed", CASES)
def test_rnea_with_the_contact_force_gives_back_tau(name, seed):
    model, q, qd, tau, b, r, nu = contact_case(name, seed)
    qdd, lam = contact_forward_dynamics(model, q, qd, tau, body=b, point=r, normal=nu)
    R = fk(model, q)[b][:3, :3]
    f_body = R.T @ nu * lam                     # the surface's push, in body axes
    f_ext = np.zeros((model.n, 6))
    f_ext[b] = np.concatenate([np.cross(r, f_body), f_body])      # [μ; f] about O_b
    assert np.allclose(rnea(model, q, qd, qdd, f_ext=f_ext), tau, atol=1e-8 * (1 + np.abs(tau).max()))
    assert not np.allclose(qdd, aba(model, q, qd, tau), atol=1e-6) or abs(lam) < 1e-6


@pytest.mark.parametrize("name, seed", CASES)
def test_point_stays_on_the_plane(name, seed):
    """ν·p̈ = 0 by a second difference of the point's position along q + q̇t + ½q̈t² (fk only)."""
    model, q, qd, tau, b, r, nu = contact_case(name, seed)
    qdd, lam = contact_forward_dynamics(model, q, qd, tau, body=b, point=r, normal=nu)
    h = 1e-4

    def p(t):
        return point_position(model, q + qd * t + 0.5 * qdd * t * t, b, r)

    pdd = (p(h) - 2 * p(0.0) + p(-h)) / h ** 2
    free = aba(model, q, qd, tau)
    pdd_free = (point_position(model, q + qd * h + 0.5 * free * h * h, b, r) - 2 * p(0.0)
                + point_position(model, q - qd * h + 0.5 * free * h * h, b, r)) / h ** 2
    scale = 1.0 + np.abs(pdd_free).max() + np.abs(pdd).max()
    assert abs(nu @ pdd) < 1e-4 * scale
    assert lam == pytest.approx(0.0, abs=1e-9) or abs(nu @ pdd_free) > 1e-6   # the free motion leaves the plane


@pytest.mark.parametrize("name, seed", CASES)
def test_contact_does_no_work(name, seed):
    model, q, qd, tau, b, r, nu = contact_case(name, seed)
    qdd, lam = contact_forward_dynamics(model, q, qd, tau, body=b, point=r, normal=nu)
    dE = energy_rate(model, q, qd, qdd, method="central_difference")
    assert dE == pytest.approx(qd @ tau, abs=1e-6 * (1 + np.abs(tau).max() * np.abs(qd).max()))


@pytest.mark.parametrize("name", sorted(ALL_MODELS))
def test_jdot_qd_is_the_classical_acceleration(name):
    model = ALL_MODELS[name]()
    q, qd, _ = random_state(model, 5)
    b, r = model.n - 1, np.array([0.2, -0.1, 0.3])
    ck = contact_kinematics(model, q, qd, body=b, point=r)
    assert np.allclose(ck.p, point_position(model, q, b, r), atol=1e-12)
    assert np.allclose(ck.J, point_jacobian_hybrid(model, q, b, r), atol=1e-12)
    assert np.allclose(ck.pd, ck.J @ qd, atol=1e-12)
    assert np.allclose(ck.Jdot_qd, jdot_qd_fd(model, q, qd, b, r), atol=1e-6 * (1 + np.abs(qd).max() ** 2))


def test_jdot_qd_is_not_the_spatial_acceleration():
    """A link turning steadily: the point's acceleration is −ω² r (centripetal); the spatial one is 0."""
    arm = samples.pendulum()
    ck = contact_kinematics(arm, [0.0], [3.0], body=0, point=[0.0, -1.0, 0.0])
    assert np.allclose(ck.pd, [3.0, 0.0, 0.0])
    assert np.allclose(ck.Jdot_qd, [0.0, 9.0, 0.0])


# --- worked numbers and signs ----------------------------------------------------------------------

def test_table_carries_half_of_link_2():
    """Link 1 up, link 2 horizontal with its tip on a table: the tip carries m g / 2 = 4.905 N, nothing moves."""
    arm = samples.planar_2link()
    qdd, lam = contact_forward_dynamics(arm, [np.pi / 2, -np.pi / 2], [0, 0], [0, 0], body="tip",
                                        point=[0, 0, 0], normal=[0, 1, 0])
    assert lam == pytest.approx(4.905, abs=1e-12)
    assert np.allclose(qdd, 0.0, atol=1e-12)


def test_sign_push_and_pull():
    """Pressing down on the table gives λ > 0; lifting off gives λ < 0 (the wall would have to pull).

    τ = −J_ctᵀ ν F is the torque that pushes the tip on the table with the force F: the arm stays at
    rest and λ = F (here J_ctᵀ ν = (1, 1)).
    """
    arm = samples.planar_2link()
    q = [np.pi / 2, -np.pi / 2]
    kw = dict(body="tip", point=[0, 0, 0], normal=[0, 1, 0], gravity=[0, 0, 0])
    qdd, push = contact_forward_dynamics(arm, q, [0, 0], [-2.0, -2.0], **kw)
    assert push == pytest.approx(2.0) and np.allclose(qdd, 0.0, atol=1e-12)
    _, pull = contact_forward_dynamics(arm, q, [0, 0], [2.0, 2.0], **kw)
    assert pull == pytest.approx(-2.0)
    _, flipped = contact_forward_dynamics(arm, q, [0, 0], [-2.0, -2.0], **{**kw, "normal": [0, -1, 0]})
    assert flipped == pytest.approx(-2.0)                     # a ceiling above the tip: it would have to pull


def test_named_frame_and_index_agree():
    arm = samples.planar_2link()
    q, qd = np.array([0.4, 0.9]), np.array([1.0, -0.5])
    by_name = contact_forward_dynamics(arm, q, qd, [1.0, 2.0], body="tip", point=[0, 0, 0], normal=[1, 1, 0])
    by_index = contact_forward_dynamics(arm, q, qd, [1.0, 2.0], body=-1, point=[1, 0, 0], normal=[1, 1, 0])
    assert np.allclose(by_name.qdd, by_index.qdd) and by_name.force == pytest.approx(by_index.force)


def test_gravity_argument():
    arm = samples.planar_2link()
    q = [np.pi / 2, -np.pi / 2]
    kw = dict(body="tip", point=[0, 0, 0], normal=[0, 1, 0])
    assert contact_forward_dynamics(arm, q, [0, 0], [0, 0], gravity=[0, -20.0, 0], **kw).force == pytest.approx(10.0)
    assert contact_forward_dynamics(arm, q, [0, 0], [0, 0], gravity=[0, 0, 0], **kw).force == pytest.approx(0.0)


# --- errors ------------------------------------------------------------------------------------------

def test_zero_normal_is_refused():
    arm = samples.planar_2link()
    with pytest.raises(ValueError, match="normal"):
        contact_forward_dynamics(arm, [0, 1], [0, 0], [0, 0], body=1, point=[1, 0, 0], normal=[0, 0, 0])


@pytest.mark.parametrize("body, point, normal", [
    (1, [1, 0, 0], [0, 0, 1]),          # a planar arm cannot move out of its plane
    (0, [0, 0, 0], [1, 0, 0]),          # the origin of body 1 sits on joint 1's axis
    (1, [1, 0, 0], [1, 0, 0]),          # stretched arm: the tip can only move across it
])
def test_degenerate_contact_is_refused(body, point, normal):
    arm = samples.planar_2link()
    with pytest.raises(ValueError, match=r"body, point, normal: the contact is degenerate"):
        contact_forward_dynamics(arm, [0.0, 0.0], [0, 0], [0, 0], body=body, point=point, normal=normal)


@pytest.mark.parametrize("kwargs, argument", [
    (dict(point=[0, 0]), "point"), (dict(tau=[0, 0, 0]), "tau"), (dict(q=[0.0]), "q"),
    (dict(qd=[0, np.nan]), "qd"), (dict(normal=[0, 1]), "normal"), (dict(body=5), "body"),
    (dict(body="nose"), "frame called"), (dict(point=[0, np.inf, 0]), "point"),
])
def test_bad_arguments_are_named(kwargs, argument):
    arm = samples.planar_2link()
    args = dict(q=[0.3, 0.4], qd=[0, 0], tau=[0, 0], body=1, point=[1, 0, 0], normal=[0, 1, 0]) | kwargs
    with pytest.raises(ValueError, match=argument):
        contact_forward_dynamics(arm, args.pop("q"), args.pop("qd"), args.pop("tau"), **args)
