"""The exercise every topic module of exercise 11 registers its checks on (its own module: no import cycle)."""
from __future__ import annotations

from ...checker import Exercise

EXERCISE = Exercise(
    "applications11", notebook="11_applications.ipynb",
    title="Lesson 11 — gravity compensation, computed torque, identification",
    blocked=("lessonlib.dynamics.control:computed_torque", "lessonlib.dynamics.control:_computed_torque_with",
             "lessonlib.dynamics.control:gravity_compensation",
             "lessonlib.dynamics.control:saturated", "lessonlib.dynamics.regressor:identify",
             "lessonlib.dynamics.regressor:_r2", "lessonlib.dynamics.regressor:identify_with_friction",
             "lessonlib.dynamics.regressor:_friction_block", "lessonlib.dynamics.friction:friction_regressor",
             "lessonlib.dynamics.friction:stribeck", "lessonlib.dynamics.observer:observer_start",
             "lessonlib.dynamics.observer:observer_step", "lessonlib.dynamics.observer:run_observer",
             "lessonlib.dynamics.observer:push_and_observe", "lessonlib.dynamics.observer:_state_rate",
             "lessonlib.dynamics.adaptive:slotine_li_regressor", "lessonlib.dynamics.adaptive:simulate_slotine_li",
             "lessonlib.dynamics.adaptive:adaptation_gains", "lessonlib.dynamics.measurement:zero_phase_lowpass",
             "lessonlib.dynamics.measurement:butterworth", "lessonlib.dynamics.measurement:filtered_derivatives",
             "lessonlib.dynamics.measurement:preprocess_measurements",
             "lessonlib.dynamics.measurement:identify_from_measurements"),
    copy_targets=("lessonlib.dynamics.control", "lessonlib.dynamics.regressor", "lessonlib.dynamics.friction",
                  "lessonlib.dynamics.observer", "lessonlib.dynamics.adaptive", "lessonlib.dynamics.measurement"))
