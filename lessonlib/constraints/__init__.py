"""Constrained and composite mechanisms ([LG, 约束动力学]; the NOC of [SWC16] → DeNOC).

* :mod:`~lessonlib.constraints.compose` — splice Models: :func:`attach` (an arm on a body of another,
  [LG, 串联臂拼接]), :func:`attach_many` (several arms: a tree, [LG, 开环并联臂拼接]), :func:`split`;
* closed loops, one module per step: :mod:`~lessonlib.constraints.loops` — the model,
  :class:`ClosedChainModel` (a spanning tree and :class:`LoopConstraint` s);
  :mod:`~lessonlib.constraints.closure` — the closure kinematics ``φ``, the constraint Jacobian ``G``
  and ``γ = −Ġq̇``; :mod:`~lessonlib.constraints.noc` — the natural orthogonal complement
  :func:`noc`; :mod:`~lessonlib.constraints.closed` — reduced, inverse and forward dynamics with the
  loop-closure forces; :mod:`~lessonlib.constraints.assembly` — closing the loops, projection;
  :mod:`~lessonlib.constraints.motion` — inverse dynamics along a motion, stabilised simulation;
* :mod:`~lessonlib.constraints.contact` — a point held on a fixed frictionless plane with an unknown
  normal force: :func:`contact_forward_dynamics` ([WJ §2.3]);
* :mod:`~lessonlib.constraints.mechanisms` — the planar four-bar (with an independent sympy
  derivation) and the five-bar parallel arm ([LG, 并联臂]'s recipe: serial chains + power balance).

Layer: above :mod:`lessonlib.dynamics` (imports model, kinematics, dynamics only).

>>> fb = four_bar()
>>> q = assemble(fb, [0.5, 1.0, 1.5])              # crank held at 0.5 rad, the loop closed by Newton
>>> bool(abs(constraint_residual(fb, q)).max() < 1e-12)
True
>>> G, N = constraint_jacobian(fb, q), noc(fb, q)
>>> G.shape, N.shape, bool(abs(G @ N).max() < 1e-12)
((2, 3), (3, 1), True)
"""
from ..conventions import ASSEMBLY_TOL, CONSISTENCY_TOL, RANK_TOL
from .assembly import assemble, project, state_from_independent
from .closed import (ClosedInverseDynamics, ReducedDynamics, closure_wrenches, constraint_forces, forward_dynamics,
                     inverse_dynamics, joint_wrenches, reduced_dynamics)
from .closure import constraint_bias, constraint_jacobian, constraint_residual
from .loops import CONSTRAINT_KINDS, ClosedChainModel, LoopConstraint
from .motion import ClosedMotion, ClosedTrajectory, inverse_dynamics_along, simulate
from .noc import NOC_METHODS, noc
from .compose import Split, attach, attach_many, split
from .contact import ContactDynamics, ContactKinematics, contact_forward_dynamics, contact_kinematics
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
           "five_bar", "five_bar_state", "circle_path", "parallel_inverse_dynamics", "contact_forward_dynamics",
           "contact_kinematics", "ContactDynamics", "ContactKinematics"]
