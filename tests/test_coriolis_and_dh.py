"""[LG]'s Coriolis appendix (the skater) and [DB4 §4.2]'s two-link arm in DH form."""
import numpy as np
import pytest
import sympy as sp

from lessonlib import samples
from lessonlib.check import random_state
from lessonlib.dynamics import closed_form_coefficients, crba, gravity_torques, lagrange_symbolic, rnea
from lessonlib.dynamics.coriolis import skater_pull_in
from lessonlib.kinematics import fk


# --- the skater --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pull_in():
    return skater_pull_in(samples.skater(), omega0=2.0, r0=0.8, r1=0.3, pull_time=1.0, duration=1.5, dt=0.005)


def test_skater_equations_of_motion():
    """τ₁ = (I + m r²) θ̈ + 2 m r ṙ θ̇,  τ₂ = m r̈ − m r θ̇²  (I = hub + ball about its centre)."""
    arm = samples.skater()
    I, m = 1.0 + 0.4 * 2.0 * 0.05**2, 2.0
    for seed in range(3):
        (theta, r), (w, rd), (wd, rdd) = random_state(arm, seed)
        tau = rnea(arm, [theta, r], [w, rd], [wd, rdd])
        assert np.allclose(tau, [(I + m * r * r) * wd + 2 * m * r * rd * w, m * rdd - m * r * w * w], atol=1e-12)


def test_the_coriolis_term_is_the_closed_forms_lie_bracket_term():
    arm = samples.skater()
    r = 0.6
    A, B, C = closed_form_coefficients(arm, [0.4, r])
    assert B[0, 0, 1] + B[0, 1, 0] == pytest.approx(2 * 2.0 * r)       # 2 m r (ṙ θ̇)
    assert B[1, 0, 0] == pytest.approx(-2.0 * r)                       # − m r (θ̇²): centrifugal
    assert np.allclose(C, 0.0)                                         # gravity is along the spin axis


def test_pulling_in_conserves_angular_momentum_and_spins_up(pull_in):
    run = pull_in
    L = run.angular_momentum
    assert np.abs(L - L[0]).max() < 1e-6 * L[0]
    I, m = 1.0 + 0.4 * 2.0 * 0.05**2, 2.0
    r = run.trajectory.q[:, 1]
    assert r[-1] == pytest.approx(0.3, abs=1e-3)
    w = run.trajectory.qd[:, 0]
    assert w[-1] / w[0] == pytest.approx((I + m * 0.8**2) / (I + m * 0.3**2), rel=1e-3)   # I₁ω₁ = I₂ω₂


def test_kinetic_energy_grows_by_the_work_of_the_slide(pull_in):
    run = pull_in
    gain = run.kinetic_energy - run.kinetic_energy[0]
    assert gain[-1] > 0.5                                              # it really grows ...
    assert np.abs(gain - run.work).max() < 1e-3 * gain[-1]            # ... by the actuator's work


def test_the_arms_angular_momentum_changes_at_the_coriolis_moment(pull_in):
    """d/dt (m r² θ̇) = 2 m r ṙ θ̇ + m r² θ̈: the hub loses what the hand gains."""
    run = pull_in
    t, (theta_d, r) = run.trajectory.t, (run.trajectory.qd[:, 0], run.trajectory.q[:, 1])
    hand = 2.0 * r * r * theta_d
    rate = np.gradient(hand, t)
    expected = run.coriolis_torque + 2.0 * r * r * run.trajectory.qdd[:, 0]
    assert np.abs(rate - expected)[5:-5].max() < 1e-2 * np.abs(expected).max()


def test_skater_bad_model():
    with pytest.raises(ValueError, match="model"):
        skater_pull_in(samples.planar_2link(), omega0=1, r0=1, r1=0.5, pull_time=1, duration=1, dt=0.1)


# --- [DB4 §4.2]: the two-link arm in DH form ---------------------------------------------------

def test_dh_and_poe_two_link_arms_have_the_same_equations():
    dh, poe = lagrange_symbolic(samples.seed004_2link_dh()), lagrange_symbolic(samples.seed004_2link())
    for name in ("M", "C", "g"):
        assert sp.simplify(getattr(dh, name) - getattr(poe, name)) == sp.zeros(*getattr(dh, name).shape)


def test_dh_two_link_is_db4s_mass_matrix():
    arm = samples.seed004_2link_dh()
    l, m, I = 0.5, 5.0, 5.0 * 0.25 / 12
    for q2 in np.linspace(-np.pi, np.pi, 7):
        c2 = np.cos(q2)
        M11 = m * l * l / 4 + m * (l * l + l * l / 4 + l * l * c2) + 2 * I
        M12 = m * (l * l / 4 + l * l * c2 / 2) + I
        assert np.allclose(crba(arm, [0.3, q2]), [[M11, M12], [M12, m * l * l / 4 + I]], atol=1e-12)


def test_potential_energy_sign_and_the_gravity_torques():
    """P = −Σ m gᵀ p_c (g the gravity vector) = Σ m g₀ h (h the height, up = +y): its gradient is g(q).
    Taking [DB4]'s step 3 literally with the gravity vector, P = +Σ m gᵀ p_c, flips g(q)."""
    arm = samples.seed004_2link_dh()
    g_vec, g0 = arm.gravity, 9.81

    def com_positions(q):
        T = fk(arm, q)
        p = np.einsum("nij,nj->ni", T[:, :3, :3], arm.com) + T[:, :3, 3]
        return p

    def P_right(q):
        return -sum(m * g_vec @ p for m, p in zip(arm.mass, com_positions(q)))

    def P_height(q):
        return sum(m * g0 * p[1] for m, p in zip(arm.mass, com_positions(q)))

    def P_wrong(q):
        return -P_right(q)

    def gradient(P, q, h=1e-6):
        return np.array([(P(q + h * e) - P(q - h * e)) / (2 * h) for e in np.eye(2)])

    for seed in range(3):
        q = random_state(arm, seed)[0]
        assert P_right(q) == pytest.approx(P_height(q), abs=1e-12)
        g_q = gravity_torques(arm, q)
        assert np.abs(g_q).max() > 1.0
        assert np.allclose(gradient(P_right, q), g_q, atol=1e-6)
        assert np.allclose(gradient(P_wrong, q), -g_q, atol=1e-6)


# --- Foucault's pendulum -------------------------------------------------------------------------

@pytest.mark.parametrize("latitude, Omega", [(np.pi / 3, 0.2), (0.0, 0.2), (-np.pi / 4, 0.3)])
def test_foucault_swing_plane_precesses_at_omega_sin_latitude(latitude, Omega):
    """Northern hemisphere clockwise, none at the equator ([LG]: 赤道上观察不到现象), southern anticlockwise."""
    from lessonlib.dynamics.coriolis import foucault_run
    run = foucault_run(samples.foucault_pendulum(latitude=latitude, length=0.25), latitude=latitude, Omega=Omega,
                       duration=4.0, dt=0.01)
    assert run.plane_angle.size >= 7                                   # the turning points of 4 periods
    assert run.precession_rate == pytest.approx(-Omega * np.sin(latitude), abs=0.03 * Omega)
    assert run.trajectory.qd[-1, 0] == pytest.approx(Omega, rel=1e-6)  # the Earth keeps its spin
