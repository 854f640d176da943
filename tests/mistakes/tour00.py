"""Student bugs of exercise 00 (tour00): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import tour00 as M00

CASES = [
    ("tour00", [("answer-rotation", "np.abs(R.T @ R - np.eye(3)).max()", "np.linalg.norm(R.T @ R - np.eye(3))")],
     {"tour-rotation-error": M00.ERROR_NORM}),
    ("tour00", [("answer-rotation", "np.abs(R.T @ R - np.eye(3)).max()", "(R.T @ R - np.eye(3)).max()")],
     {"tour-rotation-error": M00.ERROR_NO_ABS}),
    ("tour00", [("answer-rotation", "return error, bool(ok)", "return bool(ok), error")],
     {"tour-rotation-error": M00.PAIR_SWAPPED}),
    ("tour00", [("answer-rotation", "ok = error <= tol and np.linalg.det(R) > 0", "ok = error <= tol")],
     {"tour-rotation-verdict": M00.DET_FORGOTTEN}),
    ("tour00", [("answer-rotation", "ok = error <= tol and", "ok = error < tol and")],
     {"tour-rotation-verdict": M00.STRICT_TOL}),
    ("tour00", [("answer-rotation", "ok = error <= tol and", "ok = np.allclose(R.T @ R, np.eye(3)) and")],
     {"tour-rotation-verdict": M00.TOL_IGNORED}),
    ("tour00", [("answer-holding", "return dynamics.gravity_torques", "return -dynamics.gravity_torques")],
     {"tour-holding": M00.HOLDING_SIGN, "tour-holding-gravity": M00.HOLDING_SIGN}),
    ("tour00", [("answer-holding", "gravity_torques(model, q, gravity=gravity)", "gravity_torques(model, q)")],
     {"tour-holding-gravity": M00.GRAVITY_IGNORED}),
    ("tour00", [("answer-holding", "    return dynamics.gravity_torques",
                 "    if gravity is None:\n        gravity = np.array([0.0, 0.0, -9.81])\n    return dynamics.gravity_torques")],
     {"tour-holding": M00.NONE_IS_MINUS_Z}),
]
