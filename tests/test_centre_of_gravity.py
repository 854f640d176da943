"""Euler's laws from the particle picture, and centre of mass vs centre of gravity (质心 / 重心), issue 26 item 6.

Independent routes: Newton's law for every particle of a point-mass cloud summed (internal forces cancel) against the
rigid-body Newton–Euler wrench ``𝓘A + V×*𝓘V``; ``spatial.gravity_resultant`` in a uniform field (the centre of
gravity is the COM) and in a central inverse-square field against the gravity-gradient torque
``3 GM / R⁵ · R × I_c R`` (first order in size / distance) and the geometry of concurrent forces.
"""
from __future__ import annotations

import numpy as np
import pytest
from test_cad_inertia import ROBOTS, cloud_of

from lessonlib import se3, so3, spatial
from lessonlib.conventions import ANG, LIN

GM = 3.986004418e14          # the Earth's gravitational parameter (m³/s²)
R_EARTH = 6.371e6            # its mean radius (m)


def central(gm=GM, centre=np.zeros(3)):
    return lambda p: -gm * (p - centre) / np.linalg.norm(p - centre) ** 3


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_particle_newton_summed_is_the_rigid_body_newton_euler_wrench(name):
    """Σ_k [p_k × m_k a_k; m_k a_k] over the particles (each obeys f_k = m_k a_k; the internal forces cancel in pairs)
    equals 𝓘A + V×*𝓘V (3.8), with a_k = a_O + ω̇ × p_k + ω × (ω × p_k), A = [ω̇; a_O − ω × v]; and Euler's form about the
    COM, I_c ω̇ + ω × I_c ω, is the moment of the particles' m_k a_k about p_c minus nothing else."""
    rng = np.random.default_rng(5)
    for G in ROBOTS[name]().inertia:
        m_k, p_k = cloud_of(G, rng)
        m, p_c, I_c = spatial.inertia_params(G)
        V, A = rng.normal(size=6), rng.normal(size=6)
        w, v, w_dot = V[ANG], V[LIN], A[ANG]
        a_O = A[LIN] + np.cross(w, v)
        a_k = a_O + np.cross(w_dot, p_k) + np.cross(w, np.cross(w, p_k))
        particles = np.r_[np.cross(p_k, m_k[:, None] * a_k).sum(axis=0), m_k @ a_k]
        np.testing.assert_allclose(G @ A + se3.ad_dual(V) @ G @ V, particles, atol=1e-10)
        euler = I_c @ w_dot + np.cross(w, I_c @ w)
        np.testing.assert_allclose(np.cross(p_k - p_c, m_k[:, None] * a_k).sum(axis=0), euler, atol=1e-10)


def test_the_rate_of_angular_momentum_is_the_moment_along_a_real_motion():
    """dL_O/dt (central difference of Σ p_k × m_k ṗ_k along T(t) = exp(tV + ½t²A), fixed O) = Σ p_k × m_k p̈_k."""
    rng = np.random.default_rng(8)
    m_k = rng.uniform(0.2, 1.0, 7)
    r_k = rng.normal(size=(7, 3)) * 0.2 + [0.3, 0.0, 0.1]                 # body frame
    V, A = rng.normal(size=6), rng.normal(size=6)

    def world(t):
        T = se3.exp(t * V + 0.5 * t**2 * A)
        return r_k @ T[:3, :3].T + T[:3, 3]

    h = 1e-4
    p, v = world(0.0), (world(h) - world(-h)) / (2 * h)
    acc = (world(h) - 2 * world(0.0) + world(-h)) / h**2
    L = lambda t: np.cross(world(t), m_k[:, None] * (world(t + h) - world(t - h)) / (2 * h)).sum(axis=0)
    dL = (L(h) - L(-h)) / (2 * h)
    np.testing.assert_allclose(dL, np.cross(p, m_k[:, None] * acc).sum(axis=0), atol=1e-5)
    assert np.abs(dL).max() > 0.1 and np.abs(v).max() > 0.1


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_in_a_uniform_field_the_centre_of_gravity_is_the_centre_of_mass(name):
    rng = np.random.default_rng(9)
    for G in ROBOTS[name]().inertia:
        m_k, p_k = cloud_of(G, rng)
        m, p_c, _ = spatial.inertia_params(G)
        g = rng.normal(size=3) * 5
        for field in (g, lambda p, g=g: g):                                # a vector, or a constant callable
            res = spatial.gravity_resultant(m_k, p_k, field)
            np.testing.assert_allclose(res.force, m * g, rtol=1e-12)
            np.testing.assert_allclose(res.moment, 0.0, atol=1e-12)
            np.testing.assert_allclose(res.point, p_c, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_in_a_central_field_the_moment_is_the_gravity_gradient_torque(name):
    """Each sample body on the Earth's surface, turned at random: μ about the COM = 3GM/R⁵ R × I_c R (to first order:
    size/R ~ 1e-7), the resultant passes through the Earth's centre, and the centre of gravity is off the COM by
    |μ|/|f| (of order size²/R: nanometres). The points are in the body frame (Earth-sized coordinates would round
    the body's shape at 1e-9 m, more than the effect); the field knows where the body is."""
    rng = np.random.default_rng(10)
    for G in ROBOTS[name]().inertia:
        m_k, r_k = cloud_of(G, rng)
        m, c, I_c_body = spatial.inertia_params(G)
        Rot = so3.exp(rng.normal(size=3))                                   # body axes in Earth-centred axes
        site = R_EARTH * so3.exp(rng.normal(size=3)) @ np.array([0.0, 0.0, 1.0])
        field = lambda r, Rot=Rot, site=site: Rot.T @ central()(site + Rot @ r)   # g at body point r, body axes
        res = spatial.gravity_resultant(m_k, r_k, field)
        R_c = Rot.T @ (site + Rot @ c)                                      # the COM from the Earth's centre, body axes
        gradient = 3 * GM / np.linalg.norm(R_c) ** 5 * np.cross(R_c, I_c_body @ R_c)
        np.testing.assert_allclose(res.moment, gradient, atol=1e-5 * np.abs(gradient).max() + 1e-15)
        np.testing.assert_allclose(res.force, -GM * m * R_c / np.linalg.norm(R_c) ** 3, rtol=1e-9)
        from_centre = res.point - c + R_c                                  # the centre of gravity from the Earth's centre
        assert np.linalg.norm(np.cross(from_centre, res.force)) < 1e-9 * np.linalg.norm(from_centre) * np.linalg.norm(res.force)
        offset = np.linalg.norm(res.point - c)
        assert offset == pytest.approx(np.linalg.norm(res.moment) / np.linalg.norm(res.force), rel=1e-9)
        assert offset < 1e-6
        assert abs((res.point - c) @ res.force) < 1e-6 * offset * np.linalg.norm(res.force) + 1e-15   # across f


def test_a_tether_in_orbit_by_hand():
    """A 100 m, 100 kg rod (21 point masses) at 400 km, tilted 45° from the local vertical: the gravity-gradient
    torque 3GM/R³ · (mL²/12)·sin45°·cos45° (the rod's I about its COM, L²/12 per kg with the end points' share)."""
    L, n = 100.0, 21
    s = np.linspace(-L / 2, L / 2, n)
    m_k = np.full(n, 100.0 / n)
    R = R_EARTH + 400e3
    u = np.array([np.sin(np.pi / 4), 0.0, np.cos(np.pi / 4)])               # 45° from the vertical z
    r_k = s[:, None] * u                                                     # about the COM; the Earth's centre at −R z
    field = lambda r: central()(np.array([0.0, 0.0, R]) + r)
    I_perp = float(m_k @ s**2)                                               # about the COM, across the rod
    res = spatial.gravity_resultant(m_k, r_k, field)
    torque = 3 * GM / R**3 * I_perp * np.sin(np.pi / 4) * np.cos(np.pi / 4)
    assert res.moment[1] == pytest.approx(-torque, rel=1e-4) and abs(res.moment[0]) + abs(res.moment[2]) < 1e-9
    offset = np.linalg.norm(res.point)
    assert offset == pytest.approx(torque / np.linalg.norm(res.force), rel=1e-4)
    assert 1e-4 < offset < 1e-3                                              # a fraction of a millimetre


@pytest.mark.parametrize("masses, points, field, match", [
    ([1.0, -1.0], np.zeros((2, 3)), [0, 0, -9.81], "masses"),
    ([], np.zeros((0, 3)), [0, 0, -9.81], "masses"),
    ([1.0, 2.0], np.zeros((3, 3)), [0, 0, -9.81], "points"),
    ([1.0], [[0.0, np.nan, 0.0]], [0, 0, -9.81], "points"),
    ([1.0], np.zeros((1, 3)), [0, -9.81], "field"),
    ([1.0], np.zeros((1, 3)), lambda p: np.zeros(2), "field"),
    ([1.0], np.zeros((1, 3)), [0.0, 0.0, 0.0], "field: the gravity forces add up to zero"),
])
def test_bad_arguments_are_named(masses, points, field, match):
    with pytest.raises(ValueError, match=match):
        spatial.gravity_resultant(masses, points, field)
