"""Luh, Walker and Paul's 1980 recursion step by step, with its erratum visible ([LWP 1980]; [RNE05] §四).

A teaching function, not one of the course's algorithms: it follows the paper's numbered steps in
**link coordinates** (every vector of link ``i`` in DH frame ``i``, standard DH: joint ``i`` moves
about/along ``z_{i-1}``) so that the three corrections of the erratum ([LWP 1980], erratum p. 173,
as [RNE05] reports them) can be switched off one at a time and their effect seen against
:func:`~lessonlib.dynamics.rnea`:

``"step6"``  the printed algorithm (p. 74) has no Step 6: nothing turns the link forces into joint
             torques. The erratum adds it (the paper's eq. (45)): ``τ_i = n_i · z`` (revolute) or
             ``f_i · z`` (prismatic), ``z = ⁱR_{i−1} z_0``. Without it no torque is computed (NaN).
``"step7"``  the backward recursion must stop after ``i = 1``; otherwise set ``i ← i − 1`` and go back
             to Step 5. A loop that does not stop there runs once more for a "link 0" — the base —
             and, in Python's arrays where link ``i`` is row ``i − 1``, that pass reads row ``−1``: the
             last link's data, whose torque it overwrites. (This is our illustration of the missing
             stop, not a transcription.)
``"eq38"``   the linear acceleration of a link whose joint is **prismatic** (eq. (38)); the erratum
             corrects its third term, the Coriolis term ``2 ω_i × (ⁱR_{i−1} z_0 q̇_i)``. [RNE05] does
             not transcribe the corrected equation; the term concerned is the one with the factor 2
             ([LG], Craig-style recursion: "if the joint is prismatic, p changes too, hence the
             factor 2 — the Coriolis acceleration"). Without the correction we use a factor 1: **our
             reconstruction** of the uncorrected term, not the printed text, which the course has not seen.

The letters below are the paper's; in the course's (``course/NOTATION.md``, lesson 05's map):
``R_i`` = R_{i−1,i}, ``p*_i`` = R_{i,i−1} p_{i−1,i}, ``s̄_i`` = p_{c_i}, ``v̇_i`` = a_i, ``ā_i`` = a_{c_i},
``n_i`` = μ_i (about O_{i−1}), ``F_i``, ``N_i`` = m_i a_{c_i}, I_{c_i} ω̇_i + ω_i × I_{c_i} ω_i, ``z_0`` = e_z, ``g`` = g_phys.

The steps (``R_i = ⁱ⁻¹R_i``, ``p*_i`` the origin of frame ``i`` seen from frame ``i − 1``, in frame
``i``; ``s̄_i`` the mass centre of link ``i``; gravity as ``v̇_0 = −g``)::

    1  ω_0 = ω̇_0 = 0, v̇_0 = −g
    2  for i = 1 .. n:                       (revolute | prismatic)
         ω_i  = R_iᵀ (ω_{i−1} + z_0 q̇_i)                     | R_iᵀ ω_{i−1}
         ω̇_i  = R_iᵀ (ω̇_{i−1} + z_0 q̈_i + ω_{i−1} × z_0 q̇_i)   | R_iᵀ ω̇_{i−1}
         v̇_i  = ω̇_i × p*_i + ω_i × (ω_i × p*_i) + R_iᵀ v̇_{i−1}
                                   | R_iᵀ (z_0 q̈_i + v̇_{i−1}) + ω̇_i × p*_i + 2 ω_i × (R_iᵀ z_0 q̇_i) + ω_i × (ω_i × p*_i)
         ā_i  = ω̇_i × s̄_i + ω_i × (ω_i × s̄_i) + v̇_i
    3    F_i = m_i ā_i,   N_i = I_i ω̇_i + ω_i × (I_i ω_i)
    4  f_{n+1} = n_{n+1} = 0 (free end)
    5  f_i = R_{i+1} f_{i+1} + F_i
       n_i = R_{i+1} n_{i+1} + p*_i × (R_{i+1} f_{i+1}) + (p*_i + s̄_i) × F_i + N_i
    6  τ_i = n_i · (R_iᵀ z_0)  |  f_i · (R_iᵀ z_0)
    7  if i = 1 stop; else i ← i − 1, go to 5
"""
from __future__ import annotations

import numpy as np

from ..conventions import ANG, LIN
from ._inputs import base_acceleration, state

#: The erratum's three corrections ([RNE05] §四); :func:`lwp1980` applies all of them by default.
ERRATUM = frozenset({"step6", "step7", "eq38"})
_Z0 = np.array([0.0, 0.0, 1.0])


def _check_standard_dh_chain(model):
    """LWP's link coordinates need a chain whose joint ``i`` is the z-axis of frame ``i − 1`` (standard DH)."""
    if not model.is_chain:
        raise ValueError(f"model: expected a serial chain (LWP 1980), got {model!r}")
    for i, joint in enumerate(model.joints):
        T = model.joint_transform(i, 0.0)
        axis, point = T[:3, :3] @ joint.axis, T[:3, :3] @ joint.point + T[:3, 3]
        off_axis = joint.is_revolute and not np.allclose(point[:2], 0, atol=1e-9)   # a slide has no axis point
        if joint.scale != 1.0 or not np.allclose(axis, _Z0, atol=1e-9) or off_axis:
            raise ValueError(f"model: joint {i} is not the z-axis of the previous DH frame; LWP's link coordinates "
                             f"need a standard-DH chain (from_dh(..., modified=False))")


def lwp1980(model, q, qd, qdd, *, gravity=None, erratum=ERRATUM):
    """Joint torques by Luh–Walker–Paul's 1980 steps in link coordinates, with the erratum's corrections ``erratum``.

    ``model``: a standard-DH serial chain (:func:`~lessonlib.model.from_dh`); ``gravity`` world
    3-vector (None: the model's default); ``erratum``: the subset of :data:`ERRATUM` to apply —
    the default (all three) equals :func:`~lessonlib.dynamics.rnea`; leave one out to see what the
    printed version computes (module docstring). Returns ``tau`` (n,).

    >>> import numpy as np
    >>> from lessonlib import samples
    >>> from lessonlib.dynamics import rnea
    >>> arm = samples.rpr_arm()                              # revolute–prismatic–revolute, standard DH
    >>> q, qd, qdd = [0.3, 0.1, -0.4], [1.0, 0.5, -2.0], [0.2, -1.0, 0.5]
    >>> bool(np.allclose(lwp1980(arm, q, qd, qdd), rnea(arm, q, qd, qdd)))
    True
    >>> bool(np.allclose(lwp1980(arm, q, qd, qdd, erratum={"step6", "step7"}), rnea(arm, q, qd, qdd)))
    False
    """
    unknown = set(erratum) - ERRATUM
    if unknown:
        raise ValueError(f"erratum: expected a subset of {sorted(ERRATUM)}, got unknown {sorted(unknown)}")
    _check_standard_dh_chain(model)
    q, qd, qdd = state(model, q, qd, qdd)
    n = model.n
    coriolis = 2.0 if "eq38" in erratum else 1.0
    R, p_star = np.zeros((n, 3, 3)), np.zeros((n, 3))
    w, wd, vd = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3))
    F, N = np.zeros((n, 3)), np.zeros((n, 3))
    # Step 1: ω_0 = ω̇_0 = 0, v̇_0 = −g (the halves of the base acceleration a_0 = [0; −g])
    a_0 = base_acceleration(model, gravity)
    w_prev, wd_prev, vd_prev = np.zeros(3), a_0[ANG], a_0[LIN]
    # Steps 2 and 3, i = 1 .. n (index i − 1 here)
    for k in range(n):
        T = model.joint_transform(k, q[k])
        R[k], Rt = T[:3, :3], T[:3, :3].T
        p_star[k] = Rt @ T[:3, 3]
        if model.joints[k].is_revolute:
            w[k] = Rt @ (w_prev + _Z0 * qd[k])
            wd[k] = Rt @ (wd_prev + _Z0 * qdd[k] + np.cross(w_prev, _Z0 * qd[k]))
            vd[k] = np.cross(wd[k], p_star[k]) + np.cross(w[k], np.cross(w[k], p_star[k])) + Rt @ vd_prev
        else:
            w[k] = Rt @ w_prev
            wd[k] = Rt @ wd_prev
            vd[k] = (Rt @ (_Z0 * qdd[k] + vd_prev) + np.cross(wd[k], p_star[k])
                     + coriolis * np.cross(w[k], Rt @ _Z0 * qd[k])            # eq. (38), third term
                     + np.cross(w[k], np.cross(w[k], p_star[k])))
        s_bar = model.com[k]
        a_bar = np.cross(wd[k], s_bar) + np.cross(w[k], np.cross(w[k], s_bar)) + vd[k]
        F[k] = model.mass[k] * a_bar
        N[k] = model.I_com[k] @ wd[k] + np.cross(w[k], model.I_com[k] @ w[k])
        w_prev, wd_prev, vd_prev = w[k], wd[k], vd[k]
    # Step 4: free end
    f_next, n_next, R_next = np.zeros(3), np.zeros(3), np.eye(3)
    tau = np.full(n, np.nan)
    i = n                                              # the paper's 1-based link number
    while True:
        k = i - 1                                      # 0-based index: i = 0 gives k = −1, the last link
        # Step 5
        f_i = R_next @ f_next + F[k]
        n_i = R_next @ n_next + np.cross(p_star[k], R_next @ f_next) + np.cross(p_star[k] + model.com[k], F[k]) + N[k]
        # Step 6 (missing in the printed paper)
        if "step6" in erratum:
            z = R[k].T @ _Z0
            tau[k] = n_i @ z if model.joints[k].is_revolute else f_i @ z
        # Step 7
        if "step7" in erratum and i == 1:
            break
        if i == 0:                                     # without the stop: one pass too many, then the loop ends
            break
        f_next, n_next, R_next = f_i, n_i, R[k]
        i -= 1
    return tau


__all__ = ["lwp1980", "ERRATUM"]
