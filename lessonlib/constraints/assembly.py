"""Closed kinematic loops, assembly: configurations and states on the constraints ([LG, 平面四连杆的动力学]).

:func:`assemble` closes the loops by Newton's method on the coordinates that are not held fixed;
:func:`project` moves a drifted state back onto the constraints (used by :func:`.motion.simulate`);
:func:`state_from_independent` completes ``(q, q̇, q̈)`` from the independent coordinates and their
rates through the NOC.
"""
from __future__ import annotations

import numpy as np

from ..conventions import ASSEMBLY_TOL, RANK_TOL
from .closure import constraint_jacobian, constraint_residual, constraint_terms
from .loops import check_closed, joint_indices
from .noc import ndot_yd, noc


def _newton(cm, q, free, tol, max_iter, what):
    for _ in range(max_iter):
        phi, G, _ = constraint_terms(cm, q)
        if np.max(np.abs(phi)) < tol:
            return q
        q = q.copy()
        q[free] -= np.linalg.lstsq(G[:, free], phi, rcond=None)[0]
    phi = constraint_residual(cm, q)
    if np.max(np.abs(phi)) < tol:
        return q
    raise ValueError(f"q_guess: {what} did not close the loops in {max_iter} Newton steps "
                     f"(max |φ| = {np.max(np.abs(phi)):.2e}); try a guess nearer a closed configuration")


def assemble(cm, q_guess, *, fixed=None, tol=ASSEMBLY_TOL, max_iter=50):
    """Close the loops: ``q`` with ``φ(q) = 0``, by Newton's method on the coordinates not ``fixed``.

    ``fixed`` (default ``cm.independent``) keep their values from ``q_guess``; the others start
    from ``q_guess`` and take the least-squares Newton step ``G_free Δq = −φ`` until ``max |φ| <
    tol``. Which branch (e.g. open or crossed four-bar) you get depends on the guess.
    ``ValueError`` if it does not converge.
    """
    check_closed(cm)
    q = cm.check_q(q_guess, "q_guess").copy()
    fixed = cm.independent if fixed is None else joint_indices(fixed, cm.n, "fixed")
    free = [i for i in range(cm.n) if i not in fixed]
    if not free:
        raise ValueError("fixed: every coordinate is fixed; nothing left to close the loops with")
    return _newton(cm, q, free, tol, max_iter, "assemble()")


def project(cm, q, qd, *, tol=ASSEMBLY_TOL, max_iter=20):
    """Coordinate projection: the nearest ``(q, q̇)`` on the constraints, returned as a pair.

    ``q`` by minimum-norm Newton steps on all coordinates (``Δq = −G⁺ φ``), then ``q̇`` by removing
    its component that violates ``G q̇ = 0`` (``q̇ − G⁺ G q̇``, the orthogonal projection onto the
    admissible velocities). Used after each step of :func:`simulate` with ``stabilization="projection"``.
    """
    check_closed(cm)
    q = _newton(cm, cm.check_q(q).copy(), list(range(cm.n)), tol, max_iter, "project()")
    qd = cm.check_q(qd, "qd")
    G = constraint_jacobian(cm, q)
    return q, qd - np.linalg.pinv(G, rcond=RANK_TOL) @ (G @ qd)


def state_from_independent(cm, y, yd, ydd, q_guess):
    """The full state ``(q, q̇, q̈)`` (each (n,)) for given independent coordinates and their rates.

    ``q``: :func:`assemble` from ``q_guess`` with ``q[independent] = y``; ``q̇ = N ẏ``;
    ``q̈ = N ÿ + Ṅ ẏ`` (independent-coordinates NOC, ``Ṅ ẏ = [0; G_d⁻¹ γ]``).
    """
    check_closed(cm)
    y, yd, ydd = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (y, yd, ydd))
    for name, v in (("y", y), ("yd", yd), ("ydd", ydd)):
        if v.shape != (cm.dof,) or not np.all(np.isfinite(v)):
            raise ValueError(f"{name}: expected {cm.dof} finite values (coordinates {cm.independent}), "
                             f"got {v!r}")
    q = cm.check_q(q_guess, "q_guess").copy()
    q[list(cm.independent)] = y
    q = assemble(cm, q)
    N = noc(cm, q)
    qd = N @ yd
    return q, qd, N @ ydd + ndot_yd(cm, q, qd)
