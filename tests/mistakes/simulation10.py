"""Student bugs of exercise 10 (simulation10): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import simulation10 as M10

CASES = [
    ("simulation10", [("answer-semi-implicit", "return q + dt * qd_next, qd_next", "return q + dt * qd, qd_next")],
     {"sim-semi-implicit": M10.EXPLICIT_EULER}),
]
