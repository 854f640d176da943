"""Constrained and composite mechanisms (seed 001 "约束动力学"; seed 002 NOC → DeNOC).

* :mod:`~lessonlib.constraints.compose` — splice Models: :func:`attach` (an arm on a body of another,
  seed 001 "串联臂拼接"), :func:`attach_many` (several arms: a tree, "开环并联臂拼接"), :func:`split`;
* :mod:`~lessonlib.constraints.closed` — closed loops: :class:`ClosedChainModel` (a spanning tree and
  :class:`LoopConstraint` s), the constraint Jacobian ``G``, ``γ = −Ġq̇``, the natural orthogonal
  complement :func:`noc`, reduced dynamics, inverse and forward dynamics with the loop-closure
  forces, assembly, projection and stabilised simulation;
* :mod:`~lessonlib.constraints.mechanisms` — the planar four-bar (with an independent sympy
  derivation) and the five-bar parallel arm (seed 001's recipe: serial chains + power balance).

Layer: above :mod:`lessonlib.dynamics` (imports model, kinematics, dynamics only).
"""
from .closed import (ASSEMBLY_TOL, CONSISTENCY_TOL, CONSTRAINT_KINDS, NOC_METHODS, RANK_TOL, ClosedChainModel,
                     ClosedInverseDynamics, ClosedMotion, ClosedTrajectory, LoopConstraint, ReducedDynamics,
                     assemble, closure_wrenches, constraint_bias, constraint_forces, constraint_jacobian,
                     constraint_residual, forward_dynamics, inverse_dynamics, inverse_dynamics_along,
                     joint_wrenches, noc, project, reduced_dynamics, simulate, state_from_independent)
from .compose import Split, attach, attach_many, split
from .mechanisms import (FIVE_BAR, FOUR_BAR, PLANAR_GRAVITY, FiveBarParams, FourBarLagrange, FourBarParams,
                         circle_path, crank_motion, five_bar, five_bar_chains, five_bar_state, four_bar,
                         four_bar_angles, four_bar_lagrange, four_bar_q, grashof, parallel_inverse_dynamics)

__all__ = ["attach", "attach_many", "split", "Split",
           "LoopConstraint", "ClosedChainModel", "CONSTRAINT_KINDS", "NOC_METHODS", "ASSEMBLY_TOL",
           "CONSISTENCY_TOL", "RANK_TOL", "constraint_residual", "constraint_jacobian", "constraint_bias", "noc",
           "ReducedDynamics", "reduced_dynamics", "ClosedInverseDynamics", "inverse_dynamics", "forward_dynamics",
           "constraint_forces", "closure_wrenches", "joint_wrenches", "assemble", "project",
           "state_from_independent", "inverse_dynamics_along", "ClosedMotion", "simulate", "ClosedTrajectory",
           "PLANAR_GRAVITY", "FourBarParams", "FOUR_BAR", "four_bar", "four_bar_angles", "four_bar_q", "grashof",
           "crank_motion", "FourBarLagrange", "four_bar_lagrange", "FiveBarParams", "FIVE_BAR", "five_bar_chains",
           "five_bar", "five_bar_state", "circle_path", "parallel_inverse_dynamics"]
