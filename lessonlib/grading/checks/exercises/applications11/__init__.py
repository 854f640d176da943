"""Checks of exercise 11: gravity compensation, computed-torque control, identification ([DB4 §4.3], [DB4 §4.4]).

The student's controllers take a :class:`~lessonlib.model.Model` and may use the library's dynamics
(``rnea``, ``crba``, ``bias_forces``): the exercise is the control law, so only the library's
controllers (``lessonlib.dynamics.control``) are unavailable. The fit takes the stacked base
regressor and the measured torques; the library's ``identify`` is unavailable. Each check compares
with the library and with an identity that does not use it: a gravity-compensated arm at rest does
not accelerate, the computed-torque loop obeys ``q̈ = q̈_d + K_d ė + K_p e`` (forward dynamics of the
commanded torque), noise-free data give back the true base parameters with ``R² = 1``, and the
least-squares residual is orthogonal to the regressor. The notebook's "solve it on W, not through the
normal equations" is enforced by ``app-fit-stable``: a ``W`` of condition number 1e7, where
``(WᵀW)⁻¹ Wᵀ τ`` (with an inverse or a solve) loses about ``cond(W)² · 1e-16`` of π_b and ``lstsq`` about
``cond(W) · 1e-16`` (after a ``W`` of condition number 10 that any solve handles, so that a wrong fit is named as
such there; the normal equations are recognised by how many digits they lose, ``log10`` of θ's error).

Parts (d)–(g) are what [DB4 §4.3–4.4] and [RNE05] add; the library's versions are stubbed in the
graded kernel (``blocked``). (d) Friction identified with the inertia ([DB4 §4.4]): the Stribeck
columns against ``friction_regressor`` (self-tested against ``stribeck``), and the fit with ``v_s``
searched on noise-free data (the true ``v_s``, ``π_b`` and friction) and on noisy, weighted data
(``identify_with_friction``). (e) The generalised-momentum observer ([DB4 §4.3]): one sample against
``observer_step``, then the student's step run sample after sample on a simulated push
(``push_and_observe``): ``r ≈ 0`` before, ``r ≈ Jᵀ F`` once the push has lasted ``6/K``. (f) Torque
limits ([RNE05] §五): the clipped computed torque (``saturated``) and a torque-limited run against the
library's. (g) Slotine–Li ([Slotine & Li 1987]): the regressor ``Y π = M a + C(q, q̇) v + g`` against
the CRBA, ``coriolis_matrix`` and gravity torques, the law against ``slotine_li_regressor``, and the
closed loop (the student's law inside the checker's RK4): ``𝒱 = ½ sᵀMs + ½ π̃ᵀΓ⁻¹π̃`` never increases,
and the estimates end where the law's own closed loop takes them (``𝒱`` does not increase without adaptation
either: the true model's torque with ``π̂_b`` held fixed).
(h) Measured data ([DB4 §4.4] steps 1–2): the zero-phase low-pass against the closed-form gain of the digital
Butterworth filter (sinusoids keep their phase, scaled by ``gain(f)``), and the pre-processing (``q`` filtered and
differenced twice, ``τ`` through the same filter) against the closed form of filtered, differenced sinusoids and
then against the library's pipeline on a quantised, noisy record (``zero_phase_lowpass``, ``filtered_derivatives``,
``preprocess_measurements`` unavailable).

The checks live in one submodule per topic, imported below in the notebook's order (each registers its
checks on ``EXERCISE``): ``control`` (a) and (b), ``identification`` (c), ``friction`` (d), ``observer``
(e), ``limits`` (f), ``adaptive`` (g), ``measurement`` (h).

=========================  ======  ====================================================================
check                      points  what it tests
=========================  ======  ====================================================================
``app-gravity-hold``       1       ``pd_gravity`` at the reference pose, at rest: ``τ = g(q)``, the arm floats
``app-pd-gravity``         1       ``pd_gravity`` in any state, scalar and per-joint gains
``app-ct-law``             2       ``computed_torque`` against the library's controller (also a wrong model)
``app-ct-closed-loop``     1       ``computed_torque``: ``ABA(q, q̇, τ) = q̈_d + K_d ė + K_p e`` (UR5, chains)
``app-fit-exact``          1       ``fit_parameters`` on noise-free data: the true ``π_b`` and ``R² = 1``
``app-fit-stable``         1       ``fit_parameters`` on a badly conditioned ``W``: solved on W, not WᵀW (after cond 10)
``app-fit-noisy``          1       ``fit_parameters`` on noisy data: ``π_b`` as ``identify``; normal equations
``app-fit-r2``             1       ``fit_parameters``: ``R²`` as ``identify`` (per-joint means)
``app-friction-columns``   1       ``stribeck_columns``: ``(q̇, tanh(q̇/ε)(1 − hump), tanh(q̇/ε) hump)``
``app-friction-fit``       2       ``fit_with_friction``: true ``v_s, π_b``, friction (noise-free); weighted (noisy)
``app-observer-step``      1       ``observer_step``: one sample, as the library's
``app-observer-push``      1       ``observer_step`` sample after sample: ``r`` follows ``Jᵀ F`` of a push
``app-limits-law``         1       ``limited_computed_torque``: the computed torque clipped joint by joint
``app-limits-run``         1       ``track_with_limits``: tracking errors of a torque-limited fast move
``app-sl-regressor``       1       ``sl_regressor``: ``Y π = M a + C(q, q̇) v + g``
``app-sl-law``             1       ``sl_control``: ``τ = Y π̂_b − K_s s``, ``π̂̇_b = −Γ Yᵀ s``
``app-sl-closed-loop``     1       ``sl_control`` in closed loop: ``𝒱`` never increases, ``π̂_b`` adapts
``app-meas-filter``        1       ``lowpass``: zero phase, the 4th-order Butterworth's squared gain (½ at ``f_cut``)
``app-meas-data``          2       ``measured_data``: ``q`` filtered, differenced twice; ``τ`` through the same filter
=========================  ======  ====================================================================
"""
from __future__ import annotations

from ._exercise import EXERCISE  # noqa: F401  (the exercise, for load_exercise)

# One submodule per topic, in the notebook's order: importing one registers its checks on EXERCISE.
from . import control, identification, friction, observer, limits, adaptive, measurement  # noqa: E402,F401
