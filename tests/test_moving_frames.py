"""Moving-frame kinematics ([LG] appendix, [WJ]) against independent routes.

Oracles: (1) finite differences of the world trajectory ``p(t) = p_O(t) + R(t) p_rel(t)`` of random smooth
motions, with ω and ω̇ also differenced from ``R(t)``; (2) the RNEA's body accelerations on every sample
robot (each body's frame as the moving frame, another body's centre of mass as the point, the relative
motion differenced from the forward kinematics); (3) the skater's RNEA torques (the platform's force on
its mass); (4) [LG]'s walker on a turning platform, differenced from its world path.
"""
import numpy as np
import pytest

from lessonlib import samples, so3
from lessonlib.conventions import ANG, LIN
from lessonlib.dynamics import (FrameAcceleration, PlatformForces, moving_frame_acceleration, moving_frame_velocity,
                                platform_forces, rnea, rnea_trace)
from lessonlib.kinematics import fk

H = 1e-3                                       # time step of the differences (4th order: error ~ H⁴)
SAMPLES = dict(samples.ALL)
SAMPLES.update({f"random{n}_{s}": (lambda n=n, s=s: samples.random_model(n, seed=s)) for n, s in ((5, 0), (6, 3))})


def d1(f, t):
    """First derivative by the 4th-order central difference."""
    return (-f(t + 2 * H) + 8 * f(t + H) - 8 * f(t - H) + f(t - 2 * H)) / (12 * H)


def d2(f, t):
    """Second derivative by the 4th-order central difference."""
    return (-f(t + 2 * H) + 16 * f(t + H) - 30 * f(t) + 16 * f(t - H) - f(t - 2 * H)) / (12 * H * H)


def smooth_motion(rng):
    """A random frame motion ``(R(t), p_O(t))`` and a random relative path ``p_rel(t)`` (frame coordinates)."""
    phi, p_O, p_rel = (rng.normal(size=(3, 3)) for _ in range(3))
    freq = rng.uniform(0.5, 2.0, 3)

    def R(t):
        return so3.exp(phi[0] + phi[1] * t + phi[2] * np.sin(freq[0] * t))

    def origin(t):
        return p_O[0] + p_O[1] * t + p_O[2] * np.cos(freq[1] * t)

    def rel(t):
        return p_rel[0] + p_rel[1] * t ** 2 + p_rel[2] * np.sin(freq[2] * t)

    return R, origin, rel


def frame_rates(R, t):
    """ω and ω̇ in world axes from differences of R(t): [ω] = Ṙ Rᵀ."""
    def w(s):
        return so3.vee(d1(R, s) @ R(s).T)
    return w(t), d1(w, t)


@pytest.mark.parametrize("seed", range(8))
def test_the_terms_add_up_to_the_differenced_world_acceleration(seed):
    rng = np.random.default_rng(seed)
    R, origin, rel = smooth_motion(rng)
    t = rng.uniform(-1, 1)

    def world(s):
        return origin(s) + R(s) @ rel(s)

    w, w_dot = frame_rates(R, t)
    Rt = R(t)
    # world axes: p_rel, v_rel, a_rel are the frame's coordinates and their rates, turned into the world
    acc = moving_frame_acceleration(w, w_dot, Rt @ rel(t), Rt @ d1(rel, t), Rt @ d2(rel, t), a_origin=d2(origin, t))
    assert np.allclose(acc.total, d2(world, t), atol=1e-6)
    vel = moving_frame_velocity(w, Rt @ rel(t), Rt @ d1(rel, t), v_origin=d1(origin, t))
    assert np.allclose(vel, d1(world, t), atol=1e-7)
    # the frame's own axes: the same vectors turned by Rᵀ, and v_rel = ṗ_rel literally
    body = moving_frame_acceleration(Rt.T @ w, Rt.T @ w_dot, rel(t), d1(rel, t), d2(rel, t),
                                     a_origin=Rt.T @ d2(origin, t))
    assert np.allclose(Rt @ body.total, d2(world, t), atol=1e-6)
    for a, b in zip(acc, body):                               # every term is a vector: it turns with the axes
        assert np.allclose(a, Rt @ b, atol=1e-9)
    # each term matters: leaving any one out misses the differenced acceleration
    for k, name in enumerate(FrameAcceleration._fields):
        if np.linalg.norm(acc[k]) > 1e-3:
            assert not np.allclose(acc.total - acc[k], d2(world, t), atol=1e-4), name


def test_the_transport_acceleration_is_that_of_the_frame_point_under_p():
    """a_tr is the acceleration of the point fixed in the frame where P is now: difference R(t) p_rel(t₀)."""
    rng = np.random.default_rng(11)
    R, origin, rel = smooth_motion(rng)
    t = 0.3
    w, w_dot = frame_rates(R, t)
    acc = moving_frame_acceleration(w, w_dot, R(t) @ rel(t), R(t) @ d1(rel, t), R(t) @ d2(rel, t),
                                    a_origin=d2(origin, t))
    assert np.allclose(acc.transport, d2(lambda s: origin(s) + R(s) @ rel(t), t), atol=1e-6)
    assert np.allclose(acc.coriolis, 2 * np.cross(w, R(t) @ d1(rel, t)))


def test_centripetal_points_to_the_axis_and_coriolis_is_perpendicular():
    rng = np.random.default_rng(5)
    for _ in range(20):
        w, p, v = rng.normal(size=(3, 3))
        acc = moving_frame_acceleration(w, np.zeros(3), p, v, np.zeros(3))
        off_axis = p - (p @ w) / (w @ w) * w                  # from the axis through O to P
        assert np.allclose(acc.centripetal, -(w @ w) * off_axis)
        assert abs(acc.coriolis @ w) < 1e-12 and abs(acc.coriolis @ v) < 1e-12
        assert np.allclose(acc.total, acc.centripetal + acc.coriolis)


def test_a_frame_that_does_not_turn_adds_only_its_origin_acceleration():
    acc = moving_frame_acceleration(np.zeros(3), np.zeros(3), [1.0, 2.0, 3.0], [0.5, 0.0, -1.0], [0.1, 0.2, 0.3],
                                    a_origin=[0.0, 0.0, -9.81])
    assert np.allclose(acc.total, [0.1, 0.2, -9.51])
    assert np.allclose(acc.coriolis, 0) and np.allclose(acc.centripetal, 0) and np.allclose(acc.tangential, 0)


def _pairs(model):
    return [(k, i) for i in range(model.n) for k in range(model.n) if k != i]


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_sample_robot_bodies_seen_from_other_bodies(name):
    """Frame = body k, point = body i's centre of mass: the RNEA's acceleration of that point (gravity off)
    equals body k's motion from the RNEA plus the point's motion relative to body k differenced from fk."""
    model = SAMPLES[name]()
    rng = np.random.default_rng(len(name))
    q, qd, qdd = rng.uniform(-1, 1, (3, model.n))
    trace = rnea_trace(model, q, qd, qdd, gravity=np.zeros(3))
    poses = lambda s: fk(model, q + qd * s + 0.5 * qdd * s * s)
    T = poses(0.0)
    for k, i in _pairs(model):
        c = model.com[i]
        w_i, v_i, w_dot_i, a_i = trace.v[i][ANG], trace.v[i][LIN], trace.a[i][ANG], trace.a[i][LIN] + np.cross(
            trace.v[i][ANG], trace.v[i][LIN])
        a_com = a_i + np.cross(w_dot_i, c) + np.cross(w_i, np.cross(w_i, c))           # body i axes
        expected = T[k][:3, :3].T @ T[i][:3, :3] @ a_com                                  # body k axes

        def rel(s):                                                 # P in body k's frame, from fk alone
            Ts = poses(s)
            return (np.linalg.inv(Ts[k]) @ Ts[i] @ np.append(c, 1.0))[:3]

        w_k, v_k = trace.v[k][ANG], trace.v[k][LIN]
        acc = moving_frame_acceleration(w_k, trace.a[k][ANG], rel(0.0), d1(rel, 0.0), d2(rel, 0.0),
                                        a_origin=trace.a[k][LIN] + np.cross(w_k, v_k))
        assert np.allclose(acc.total, expected, atol=1e-6), (name, k + 1, i + 1)


@pytest.mark.parametrize("seed", range(4))
def test_the_skater_hub_is_a_platform_and_its_torques_come_out_of_the_rnea(seed):
    """The hub is [LG]'s turning platform: its force on the mass (platform_forces) is what the RNEA's τ₂ and τ₁ say."""
    rng = np.random.default_rng(seed)
    hub, m, rho = rng.uniform(0.5, 2.0), rng.uniform(0.5, 5.0), 0.05
    skater = samples.skater(hub_inertia=hub, mass=m, radius=rho)
    q = np.array([rng.uniform(-np.pi, np.pi), rng.uniform(0.1, 1.0)])
    qd, qdd = rng.normal(size=2) * 2, rng.normal(size=2) * 2
    F = platform_forces(m, qd[0], [q[1], 0, 0], [qd[1], 0, 0], [qdd[1], 0, 0], rate_dot=qdd[0])
    tau = rnea(skater, q, qd, qdd, gravity=np.zeros(3))
    radial, sideways = F.along([1.0, 0, 0]), F.along([0, 1.0, 0])
    assert tau[1] == pytest.approx(radial.total)                           # the slide: m q̈₂ − m q₂ q̇₁²
    assert radial.centripetal == pytest.approx(-m * q[1] * qd[0] ** 2)
    assert sideways.coriolis == pytest.approx(2 * m * qd[0] * qd[1])       # [LG]'s 2 m ω v
    axis_inertia = hub + 0.4 * m * rho ** 2                                 # the ball spins with the hub
    assert tau[0] == pytest.approx(axis_inertia * qdd[0] + q[1] * sideways.total)
    c_only = rnea(skater, q, qd, np.zeros(2), gravity=np.zeros(3))          # velocity terms: Coriolis moment
    assert c_only[0] == pytest.approx(q[1] * sideways.coriolis)


def walker(r, v, w):
    """[LG]'s walker: at the distance r from the axis, going round at v relative to a platform turning at w."""
    def world(t):
        angle = w * t + v / r * t
        return r * np.array([np.cos(angle), np.sin(angle), 0.0])
    return world


@pytest.mark.parametrize("r, v, w", [(0.5, 0.3, 2.0), (2.0, -1.5, 0.7), (1.0, 1.2, -0.4)])
def test_lgs_walker_and_the_sign_of_the_first_term(r, v, w):
    m = 60.0
    F = platform_forces(m, w, [r, 0, 0], [0, v, 0], [-v ** 2 / r, 0, 0]).along([1.0, 0, 0])
    differenced = m * d2(walker(r, v, w), 0.0)[0]                           # radial: the walker starts on +x
    v_J = v + w * r
    assert F.total == pytest.approx(differenced, rel=1e-7)
    assert F.total == pytest.approx(-m * v_J ** 2 / r)                      # [LG]'s left-hand side
    assert (F.relative, F.coriolis, F.centripetal) == pytest.approx((-m * v ** 2 / r, -2 * m * v * w, -m * w ** 2 * r))
    lg_printed = m * v ** 2 / r - 2 * m * v * w - m * w ** 2 * r            # [LG]'s right-hand side as printed
    assert lg_printed - differenced == pytest.approx(2 * m * v ** 2 / r, rel=1e-6)
    assert F.tangential == 0.0


def test_platform_with_angular_acceleration_has_a_tangential_force():
    m, r, w_dot = 2.0, 0.8, 3.0
    F = platform_forces(m, 0.0, [r, 0, 0], [0, 0, 0], [0, 0, 0], rate_dot=w_dot)
    assert np.allclose(F.tangential, [0, m * w_dot * r, 0]) and np.allclose(F.total, F.tangential)


@pytest.mark.parametrize("call, match", [
    (lambda: moving_frame_acceleration([0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]), "omega: expected a 3-vector"),
    (lambda: moving_frame_acceleration([0, 0, 1], [0, 0, 0], [1, 0, np.nan], [0, 0, 0], [0, 0, 0]), "p_rel"),
    (lambda: moving_frame_acceleration([0, 0, 1], [0, 0, 0], [1, 0, 0], "fast", [0, 0, 0]), "v_rel"),
    (lambda: moving_frame_acceleration([0, 0, 1], [0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0], a_origin=[1]), "a_origin"),
    (lambda: moving_frame_velocity([0, 0, 1], [1, 0, 0], [0, 0, 0], v_origin=np.eye(3)), "v_origin"),
    (lambda: platform_forces(0.0, 1.0, [1, 0, 0], [0, 0, 0], [0, 0, 0]), "mass: expected a mass > 0"),
    (lambda: platform_forces(1.0, [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0]), "rate: expected a scalar"),
    (lambda: platform_forces(1.0, 1.0, [1, 0, 0], [0, 0, 0], [0, 0, 0], rate_dot=np.inf), "rate_dot"),
    (lambda: platform_forces(1.0, 1.0, [1, 0, 0], [0, 0, 0], [0, 0, 0]).along([1.0, 1.0, 0]), "direction: expected a unit"),
])
def test_bad_inputs_name_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_results_are_named_tuples_of_the_terms():
    acc = moving_frame_acceleration([0, 0, 1.0], [0, 0, 0], [1.0, 0, 0], [0, 0, 0], [0, 0, 0])
    assert acc._fields == ("origin", "tangential", "centripetal", "coriolis", "relative")
    F = platform_forces(1.0, 1.0, [1.0, 0, 0], [0, 0, 0], [0, 0, 0])
    assert isinstance(F, PlatformForces) and np.allclose(F.total, [-1.0, 0, 0])
