"""The dynamics algorithms of the course, one short module each.

Every function takes the one :class:`~lessonlib.model.Model`; those whose result involves gravity
take ``gravity=None`` (the model's default) and, where contact applies, ``f_ext=None``.
"""
from .aba import aba
from .adaptive import AdaptiveRun, adaptation_gains, simulate_slotine_li, slotine_li_regressor
from .closed_form import closed_form_coefficients, closed_form_cost, closed_form_torques
from .coriolis import FoucaultRun, SkaterRun, foucault_run, skater_pull_in
from .crba import crba
from .control import computed_torque, gravity_compensation, quintic, saturated
from .energy import center_of_mass, kinetic_energy, potential_energy, power_balance, total_energy
from .friction import Friction, friction_regressor
from .regressor import (FrictionIdentification, base_parameters, check_excitation_band, identify, identify_with_friction,
                        inertial_parameters, model_with_parameters)
from .simulate import Trajectory, simulate
from .measurement import (Round, RoundResult, encoder_readings, filtered_derivatives, identify_from_measurements,
                          identify_until_fit, preprocess_measurements, simulated_record, validation_fit,
                          zero_phase_lowpass)
from .lagrange import LagrangeEquations, lagrange_numeric, lagrange_symbolic, lagrange_terms
from .denoc import DeNOCMatrices, convective_inertia, denoc, denoc_matrices, generalized_inertia
from .lwp1980 import lwp1980
from .moving_frames import (FrameAcceleration, PlatformForces, moving_frame_acceleration, moving_frame_velocity,
                            platform_forces)
from .observer import ObserverRun, ObserverState, PushRun, observer_start, observer_step, push_and_observe, run_observer
from .rnea import RNEATrace, rnea, rnea_trace
from .rnea_classic import rnea_classic
from .rnea_poe import PoETrace, rnea_poe, rnea_poe_trace
from .vibration import gravity_stiffness, joint_stiffness, natural_frequencies
from .terms import (bias_forces, coriolis_matrix, forward_dynamics, gravity_torques, jacobian_transpose_force,
                    mass_matrix, mass_matrix_via_rnea, velocity_torques)

__all__ = ["rnea", "rnea_trace", "RNEATrace", "rnea_classic", "rnea_poe", "rnea_poe_trace", "PoETrace", "denoc",
           "denoc_matrices", "DeNOCMatrices", "generalized_inertia", "convective_inertia", "lagrange_symbolic",
           "lagrange_numeric", "lagrange_terms", "LagrangeEquations", "crba", "aba", "mass_matrix", "mass_matrix_via_rnea",
           "bias_forces", "gravity_torques", "velocity_torques", "coriolis_matrix", "forward_dynamics",
           "jacobian_transpose_force", "computed_torque", "gravity_compensation", "quintic", "center_of_mass",
           "kinetic_energy", "potential_energy", "power_balance", "total_energy", "Friction", "base_parameters",
           "identify", "inertial_parameters", "model_with_parameters", "Trajectory", "simulate",
           "closed_form_coefficients", "closed_form_torques", "closed_form_cost", "observer_start", "observer_step",
           "run_observer", "push_and_observe", "ObserverState", "ObserverRun", "PushRun",
           "slotine_li_regressor", "simulate_slotine_li", "adaptation_gains", "AdaptiveRun",
           "identify_with_friction", "FrictionIdentification", "check_excitation_band", "friction_regressor", "saturated", "lwp1980", "skater_pull_in", "SkaterRun", "foucault_run",
           "FoucaultRun", "natural_frequencies", "gravity_stiffness", "joint_stiffness", "moving_frame_acceleration",
           "moving_frame_velocity", "FrameAcceleration", "platform_forces", "PlatformForces",
           "encoder_readings", "zero_phase_lowpass", "filtered_derivatives", "preprocess_measurements",
           "identify_from_measurements", "simulated_record", "validation_fit", "identify_until_fit", "Round",
           "RoundResult"]
