"""Student bugs of exercise 02 (lie_algebra02): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import lie_algebra02 as M02

_spanner = {v.mistake: v for v in M02.SPANNER_MISTAKES}


def spanner(variant):
    """The spanner check's variant for the same mistake."""
    return _spanner[variant.mistake]


CASES = [
    ("lie_algebra02", [("answer-hat", "X[:3, :3] = so3.hat(xi[ANG])\n    X[:3, 3] = xi[LIN]",
                        "X[:3, :3] = so3.hat(xi[LIN])\n    X[:3, 3] = xi[ANG]")],
     {"twist-hat": M02.HAT_SWAPPED}),
    ("lie_algebra02", [("answer-hat", "so3.hat(xi[ANG])", "so3.hat(xi[ANG]).T")],
     {"twist-hat": M02.HAT_SKEW_TRANSPOSED}),
    ("lie_algebra02", [("answer-Ad", "A[LIN, ANG] = so3.hat(p) @ R", "A[ANG, LIN] = so3.hat(p) @ R")],
     {"twist-adjoint": M02.AD_CORNER, "twist-adjoint-group": M02.AD_CORNER}),
    ("lie_algebra02", [("answer-Ad", "so3.hat(p) @ R", "R @ so3.hat(p)")],
     {"twist-adjoint": M02.AD_R_P, "twist-adjoint-group": M02.AD_R_P}),
    ("lie_algebra02", [("answer-Ad", "R, p = T[:3, :3], T[:3, 3]", "R, p = T[:3, :3].T, -T[:3, :3].T @ T[:3, 3]")],
     {"twist-adjoint": M02.AD_OF_INVERSE, "twist-adjoint-group": M02.AD_OF_INVERSE}),
    ("lie_algebra02", [("answer-ad", "A[LIN, ANG] = V", "A[ANG, LIN] = V")],
     {"twist-small-ad": M02.SMALL_AD_COADJOINT}),
    ("lie_algebra02", [("answer-ad", "W, V = so3.hat(xi[ANG]), so3.hat(xi[LIN])", "W, V = so3.hat(xi[LIN]), so3.hat(xi[ANG])")],
     {"twist-small-ad": M02.SMALL_AD_SWAPPED}),
    ("lie_algebra02", [("answer-ad", "Z = X @ Y - Y @ X", "Z = Y @ X - X @ Y")],
     {"twist-bracket": M02.BRACKET_SIGN}),
    ("lie_algebra02", [("answer-ad", "np.concatenate([so3.vee(Z[:3, :3]), Z[:3, 3]])",
                        "np.concatenate([Z[:3, 3], so3.vee(Z[:3, :3])])")],
     {"twist-bracket": M02.BRACKET_VEE_SWAPPED}),
    ("lie_algebra02", [("answer-wrench", "np.cross(p, f)", "np.cross(f, p)")],
     {"twist-wrench-point": M02.WRENCH_CROSS_ORDER, "twist-wrench-spanner": spanner(M02.WRENCH_CROSS_ORDER)}),
    ("lie_algebra02", [("answer-wrench", "np.concatenate([np.cross(p, f), f])", "np.concatenate([f, np.cross(p, f)])")],
     {"twist-wrench-point": M02.WRENCH_FORCE_FIRST, "twist-wrench-spanner": spanner(M02.WRENCH_FORCE_FIRST)}),
    ("lie_algebra02", [("answer-wrench", "Ad(T_ab).T @", "Ad(T_ab) @")],
     {"twist-wrench-frame": M02.WRENCH_NOT_TRANSPOSED, "twist-wrench-spanner": spanner(M02.WRENCH_NOT_TRANSPOSED)}),
    ("lie_algebra02", [("answer-wrench", "Ad(T_ab).T @", "np.linalg.inv(Ad(T_ab)) @")],
     {"twist-wrench-frame": M02.WRENCH_TWIST_RULE, "twist-wrench-spanner": spanner(M02.WRENCH_TWIST_RULE)}),
    ("lie_algebra02", [("answer-wrench", "Ad(T_ab).T @", "np.linalg.inv(Ad(T_ab)).T @")],
     {"twist-wrench-frame": M02.WRENCH_BACKWARDS, "twist-wrench-spanner": spanner(M02.WRENCH_BACKWARDS)}),
    ("lie_algebra02", [("answer-wrench", "    return Ad(T_ab).T @ np.asarray(F_a, dtype=float)",
                        "    R, p = T_ab[:3, :3], T_ab[:3, 3]\n"
                        "    mu, f = F_a[:3], F_a[3:]\n"
                        "    return np.concatenate([R.T @ mu + R.T @ so3.hat(p) @ f, R.T @ f])")],
     {"twist-wrench-frame": M02.WRENCH_MOMENT_ADDED, "twist-wrench-spanner": spanner(M02.WRENCH_MOMENT_ADDED)}),
]
