"""Student bugs, one module per exercise: each known mistake of a check, made by editing the solution.

A module here is named after its exercise (``rnea05.py`` for ``lessonlib.grading.checks.exercises.rnea05``)
and holds ``CASES``: ``(exercise, [(answer cell, old, new), ...], {check id: the Variant it must name})``,
the solution notebook's answer cells with one edit, as a student would write it. Adding a variant to an
exercise means adding its student bug to that exercise's module; ``tests/test_exercises_mistakes.py`` runs
them all and fails for a variant no case reaches.
"""
from __future__ import annotations

import importlib
import pathlib

import nbformat

from lessonlib.grading.checks.checker import exercise_names, load_exercise, run_check
from lessonlib.grading.checks.preview import local_function

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: Every exercise and its notebook (the same file name in ``exercises/`` and ``solutions/``).
NOTEBOOKS = {name: load_exercise(name).notebook for name in exercise_names()}
LIKELY = "likely mistake: "


def answers_of(name):
    nb = nbformat.read(str(ROOT / "solutions" / NOTEBOOKS[name]), as_version=4)
    return nb, {c.metadata["lessonlib"]["id"]: c.source for c in nb.cells if "answer" in c.metadata.get("tags", [])}


def namespace(name, edits=()):
    """The solution's functions (setup + answer cells, trusted code) with ``(cell, old, new)`` edits applied."""
    nb, answers = answers_of(name)
    for key, old, new in edits:
        assert old in answers[key], (name, key, old)
        answers[key] = answers[key].replace(old, new)
    ns = {}
    exec(next(c.source for c in nb.cells if c.get("id") == "setup"), ns)
    for source in answers.values():
        exec(source, ns)
    return ns


def run(name, check_id, ns, seed=1):
    check = load_exercise(name).checks[check_id]
    return run_check(check, [local_function(ns[f]) for f in check.functions], seed=seed, student="s")


def named_mistakes(message):
    return [line.split(LIKELY, 1)[1] for line in message.splitlines() if LIKELY in line]


def cases():
    """Every exercise's student bugs, in exercise order (an exercise without a module here has none)."""
    found = []
    for name in NOTEBOOKS:
        if (pathlib.Path(__file__).parent / f"{name}.py").exists():
            module = importlib.import_module(f"{__name__}.{name}")
            assert all(case[0] == name for case in module.CASES), f"{name}.py: a case of another exercise"
            found += module.CASES
    return found


def counts():
    """``{exercise: (checks, known mistakes, the fewest on one check)}``: the grading README's table."""
    out = {}
    for name in NOTEBOOKS:
        checks = load_exercise(name).checks.values()
        mistakes = {v.mistake for c in checks for v in c.variants}
        out[name] = (len(checks), len(mistakes), min(len(c.variants) for c in checks))
    return out
