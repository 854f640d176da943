"""Actuator torque limits in computed-torque control ([RNE05] §五): what saturation does to tracking."""
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.dynamics import computed_torque, quintic, simulate
from lessonlib.dynamics.control import saturated

DT = 0.002


def run(limits):
    """A fast 0.6 s move of the 2R arm (gravity on), computed torque with K_p = 400, K_d = 40."""
    arm = samples.planar_2link()
    ref = quintic([0.0, 0.0], [1.5, -1.0], 0.6)
    ctrl = computed_torque(arm, ref, Kp=400.0, Kd=40.0)
    traj = simulate(arm, [0.0, 0.0], [0.0, 0.0], ctrl if limits is None else saturated(ctrl, limits), DT, 1.5,
                    progress=False)
    return traj, np.abs(traj.q - ref(traj.t)[0]).max(axis=1)


def test_without_limits_the_exact_model_tracks_perfectly_but_needs_large_torques():
    traj, err = run(None)
    assert err.max() < 1e-6
    assert np.abs(traj.tau[:, 0]).max() > 60.0


def test_limits_are_respected_and_tracking_error_grows():
    traj, err = run([35.0, 12.0])
    assert np.all(np.abs(traj.tau) <= [35.0, 12.0])
    assert np.any(np.abs(traj.tau[:, 0]) == 35.0)                  # the limit is reached
    assert err.max() > 0.3                                          # the planned acceleration is not followed


def test_tighter_limits_give_larger_errors():
    _, loose = run([60.0, 20.0])
    _, tight = run([35.0, 12.0])
    assert tight.max() > 2 * loose.max() > 0.0


def test_no_windup_error_decays_once_the_demand_is_feasible_again():
    traj, err = run([35.0, 12.0])
    late = traj.t > 1.2                                             # 0.6 s after the reference stopped
    assert err[late].max() < 1e-3
    assert np.all(np.abs(traj.tau[late]) < [35.0, 12.0])            # no longer saturated


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="tau_max"):
        saturated(lambda t, q, qd: q, tau_max=0.0)
    with pytest.raises(ValueError, match="torque_fn"):
        saturated(3.0, tau_max=1.0)
    with pytest.raises(ValueError, match="tau_max: expected a scalar or 2"):
        saturated(lambda t, q, qd: q, tau_max=[1.0, 2.0, 3.0])(0.0, np.zeros(2), np.zeros(2))
