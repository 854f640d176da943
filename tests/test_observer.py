"""The generalized-momentum observer: r → τ_ext = Jᵀ F as a first-order filter (time constant 1/K), ≈ 0 without contact."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.dynamics import Friction, gravity_compensation
from lessonlib.dynamics.observer import observer_start, observer_step, push_and_observe, run_observer

DT = 2e-3


def first_order(t, u, K):
    """The exact response of ṙ = K (u − r), r(0) = 0, to samples u held between samples (zero-order hold)."""
    r = np.zeros_like(u)
    for k in range(len(t) - 1):
        a = np.exp(-K * (t[k + 1] - t[k]))
        r[k + 1] = a * r[k] + (1 - a) * u[k]
    return r


@pytest.fixture(scope="module")
def push():
    """The planar 2R arm held by PD + gravity compensation, pushed down at its tip from 0.2 s to 0.6 s."""
    arm = samples.planar_2link()
    ctrl = gravity_compensation(arm, Kp=[30.0, 20.0], Kd=[8.0, 5.0], q_ref=[0.3, 0.5])
    run = push_and_observe(arm, [0.3, 0.5], [0.0, 0.0], ctrl, at="tip", wrench=[0, 0, 0, 2.0, -5.0, 0],
                           t_on=0.2, t_off=0.6, dt=DT, duration=0.9, K=40.0, threshold=0.5)
    return arm, run


def test_residual_is_a_first_order_filter_of_the_true_external_torque(push):
    _, run = push
    t, r, tau_ext = run.trajectory.t, run.observer.r, run.tau_ext
    assert np.all(np.abs(tau_ext).max(axis=0) > 1.0)                 # the push is felt by both joints
    expected = first_order(t, tau_ext, 40.0)
    assert np.abs(r - expected).max() < 0.03 * np.abs(tau_ext).max()


def test_residual_converges_to_tau_ext_with_time_constant_one_over_K(push):
    _, run = push
    t, r, tau_ext = run.trajectory.t, run.observer.r, run.tau_ext
    k_on = int(round(0.2 / DT))
    k_tc = int(round((0.2 + 1 / 40.0) / DT))                        # one time constant after the push
    frac = r[k_tc, 0] / tau_ext[k_tc, 0]
    assert frac == pytest.approx(1 - np.exp(-1), abs=0.04)
    settled = int(round(0.55 / DT))                                  # 14 time constants later
    assert np.allclose(r[settled], tau_ext[settled], atol=0.02 * np.abs(tau_ext[settled]).max())
    assert np.all(np.abs(r[:k_on]) < 1e-3)                           # before the push


def test_residual_returns_to_zero_after_the_push_and_the_threshold_flags_it(push):
    _, run = push
    t, r = run.trajectory.t, run.observer.r
    assert np.abs(r[t > 0.8]).max() < 0.01                           # 8 time constants after release
    assert 0.2 < run.observer.detected_at < 0.2 + 1 / 40.0           # flagged within one time constant
    assert not run.observer.collision[t < 0.2].any()
    assert not run.observer.collision[t > 0.8].any()


def test_tau_ext_has_the_course_sign():
    """A downward push at the tip of the horizontal arm (g along −y) pulls the joints like extra weight:
    τ_ext = Jᵀ F = (−5·2, −5·1) with F = (0, −5, 0) at the tip."""
    arm = samples.planar_2link()
    ctrl = gravity_compensation(arm, Kp=200.0, Kd=30.0, q_ref=[0.0, 0.0])
    run = push_and_observe(arm, [0.0, 0.0], [0.0, 0.0], ctrl, at="tip", wrench=[0, 0, 0, 0, -5.0, 0],
                           t_on=0.0, t_off=1.0, dt=DT, duration=0.02, K=50.0)
    assert np.allclose(run.tau_ext[0], [-10.0, -5.0], atol=1e-9)


def test_no_contact_moving_arm_with_known_friction_residual_stays_near_zero():
    """A spatial arm with a prismatic joint swinging freely, with friction the observer knows."""
    arm = samples.rpr_arm()
    friction = Friction(viscous=0.3, coulomb=0.2, smooth=True, eps=0.05)
    run = push_and_observe(arm, [0.2, 0.05, -0.3], [1.0, 0.3, -2.0], None, at=2, wrench=np.zeros(6),
                           t_on=0.0, t_off=1.0, dt=DT, duration=0.4, K=30.0, threshold=0.2, friction=friction)
    assert np.abs(run.trajectory.qd).max() > 0.5                      # it really moves
    assert np.abs(run.observer.r).max() < 0.02
    assert run.observer.detected_at is None


def test_unmodelled_friction_shows_up_as_an_external_torque():
    """The same motion, friction in the robot but not in the observer: r → −τ_f (it opposes the motion)."""
    arm = samples.pendulum()
    friction = Friction(viscous=0.5)
    run = push_and_observe(arm, [1.0], [0.0], None, at=0, wrench=np.zeros(6), t_on=0.0, t_off=1.0, dt=DT,
                           duration=0.6, K=100.0, friction=friction)
    observer_blind = run_observer(arm, run.trajectory.t, run.trajectory.q, run.trajectory.qd, run.trajectory.tau,
                                  K=100.0)
    qd = run.trajectory.qd[:, 0]
    expected = first_order(run.trajectory.t, -0.5 * qd, 100.0)
    assert np.abs(qd).max() > 1.0
    assert np.abs(observer_blind.r[:, 0] - expected).max() < 0.02 * 0.5 * np.abs(qd).max()


def test_observer_step_by_step_equals_the_run():
    arm = samples.planar_2link()
    t = np.arange(4) * 0.01
    rng = np.random.default_rng(0)
    Q, QD, TAU = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    run = run_observer(arm, t, Q, QD, TAU, K=[10.0, 20.0])
    state = observer_start(arm, Q[0], QD[0])
    for k in range(3):
        state = observer_step(arm, state, 0.5 * (TAU[k] + TAU[k + 1]), Q[k + 1], QD[k + 1], t[k + 1] - t[k],
                              K=[10.0, 20.0])
    assert np.array_equal(state.r, run.r[-1])


def test_bad_inputs_name_the_argument():
    arm = samples.planar_2link()
    t = np.arange(3) * 0.01
    Z = np.zeros((3, 2))
    with pytest.raises(ValueError, match="K: expected"):
        run_observer(arm, t, Z, Z, Z, K=-1.0)
    with pytest.raises(ValueError, match="TAU: expected shape"):
        run_observer(arm, t, Z, Z, np.zeros((3, 3)), K=1.0)
    with pytest.raises(ValueError, match="threshold"):
        run_observer(arm, t, Z, Z, Z, K=1.0, threshold=0.0)
    with pytest.raises(ValueError, match="at: expected"):
        push_and_observe(arm, [0, 0], [0, 0], None, at=7, wrench=np.zeros(6), t_on=0, t_off=1, dt=0.01,
                         duration=0.02, K=1.0)
    with pytest.raises(ValueError, match="dt: expected"):
        observer_step(arm, observer_start(arm, [0, 0], [0, 0]), [0, 0], [0, 0], [0, 0], 0.0, K=1.0)
