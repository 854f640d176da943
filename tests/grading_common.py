"""What the grading tests share: exercise 05's solution and exercise notebooks, its checks, and two helpers."""
from __future__ import annotations

import json
import os
import pathlib
import sys

import nbformat

from lessonlib.grading.checks import authoring
from lessonlib.grading.checks.authoring import answers_of
from lessonlib.grading.checks.checker import load_exercise
from lessonlib.grading.checks.preview import local_function


ROOT = pathlib.Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "05_rnea.ipynb"
EXERCISE = ROOT / "exercises" / "05_rnea.ipynb"
EX = load_exercise("rnea05")
LINES = {cid: c.line for cid, c in EX.checks.items()}
CHECK_IDS = list(EX.checks)
LWP = [c for c in CHECK_IDS if c.startswith("rnea-lwp")]    # part (e): most submissions below leave it a stub
MAX = sum(c.points for c in EX.checks.values())      # exercise 05's total, from its checks module
PY = sys.executable


def stated_points(notebook):
    """The points the exercise tells its students: the sum of the last column of the table of parts in its first
    cell (``| part | you write | points |``). Tests compare it with the check module's total, so that a change of
    points needs the module and the student-facing table changed together, and no constant in a test."""
    nb = nbformat.read(str(notebook), as_version=4)
    rows = [line for line in nb.cells[0].source.splitlines() if line.startswith("|")]
    if not rows or [c.strip() for c in rows[0].strip("|").split("|")][-1] != "points":
        raise ValueError(f"{notebook}: the first cell has no table of parts with a points column")
    return sum(int(r.strip().strip("|").split("|")[-1]) for r in rows[2:])


SOLVED = answers_of(SOLUTION)
BLANK = answers_of(EXERCISE)


def solution_namespace(keys=None):
    """The solution's functions, defined by running its answer cells here (trusted code)."""
    ns = {}
    exec(nbformat.read(str(SOLUTION), as_version=4).cells[1].source, ns)           # the setup cell
    for key in keys or SOLVED:
        exec(SOLVED[key], ns)
    return ns


def make_submission(path, answers=(), *, student="student", mutate=None):
    """A submission: the exercise notebook with some answer cells replaced (others stay stubs)."""
    nb = authoring.filled(EXERCISE, dict(answers), student_id=student)
    if mutate:
        mutate(nb)
    nbformat.write(nb, str(path))
    return path


local = local_function                               # a student function as the checks see it in a preview


def in_fork(fn):
    """``fn()`` run in a forked child (its limits and walls die with it); returns what it returned (JSON)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            out = json.dumps({"value": fn()})
        except BaseException as exc:                      # noqa: BLE001 (reported to the parent)
            out = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        os.write(write, out.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        data = json.loads(fh.read())
    os.waitpid(pid, 0)
    assert "error" not in data, data
    return data["value"]
