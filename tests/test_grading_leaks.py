"""No library function a graded kernel can call computes what an exercise asks the student to write.

An exercise blocks the library's own implementation of its answers (``Exercise.blocked``: stand-ins
raising ``NotAvailableWhileGrading`` in the kernel's copy of lessonlib). Blocking ``simulate`` is not
enough if ``simulate``'s one-step helpers stay importable, nor blocking ``crba`` if another module
computes the same mass matrix by another formula. Two guards:

* **the leak search**: for every exercise, ``leak_probe.py`` runs inside that exercise's graded
  library and calls every public lessonlib function on a robot's state as ``f(model, q, ...)``; no
  array it returns may equal what one of the exercise's answers returns for the same arguments
  (the answers: the solution notebook's functions taking ``model`` and arrays only);
* **the routes**: the one-step integrators and the closed-form mass matrix, which take other
  arguments than the answers, are called in the graded library and must raise the stand-in's error.
"""
from __future__ import annotations

import functools
import inspect
import json
import pathlib
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.grading.kernel import protocol
from lessonlib.grading.checks.authoring import answers_of
from lessonlib.grading.checks.checker import load_exercise
from lessonlib.grading.sandbox import build_library, site_dirs

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROBE = pathlib.Path(__file__).with_name("leak_probe.py")
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
#: Answers an exercise asks the student to get from the library (the tour's "call gravity_torques").
BY_DESIGN = {("tour00", "static_holding_torque")}
#: Names of the array arguments an answer may take after ``model`` (the probe passes the same state).
ARRAYS = ("q", "qd", "qdd", "tau", "F", "v", "a")


def _exercise(path):
    return nbformat.read(str(path), as_version=4).metadata["lessonlib"]["exercise"]


def _state():
    """The UR5 (6 joints: a wrench F and q̇ have the same shape) at a generic state."""
    rng = np.random.default_rng(20261202)
    model = samples.ur5()
    q, qd, x, y = (rng.uniform(-1.5, 1.5, model.n) for _ in range(4))
    return model, (q, qd, x, y)


@functools.cache                                          # collection and the test both ask
def _answers(path):
    """``{name: function}``: the solution's answers that take ``model`` and arrays of the state only."""
    nb = nbformat.read(str(path), as_version=4)
    ns = {}
    exec(next(c.source for c in nb.cells if c.get("id") == "setup"), ns)
    for source in answers_of(path).values():
        exec(source, ns)
    out = {}
    for name in {f for c in load_exercise(_exercise(path)).checks.values() for f in c.answers}:
        params = [p for p in inspect.signature(ns[name]).parameters.values() if p.default is p.empty]
        if params and params[0].name == "model" and 2 <= len(params) <= 5 and all(p.name in ARRAYS for p in params[1:]):
            out[name] = (ns[name], len(params))
    return out


def _flat(value):
    if isinstance(value, np.ndarray):
        return [value] if value.dtype.kind == "f" and value.size >= 2 else []
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _flat(v)]
    return []


def _probe(exercise, tmp_path, model, state):
    build_library(tmp_path / "sandbox", load_exercise(exercise))
    source, target = tmp_path / "in.json", tmp_path / "out.json"
    q, qd, x, y = state
    source.write_text(json.dumps(protocol.encode({"model": model, "q": q, "qd": qd, "x": x, "y": y})))
    done = subprocess.run([sys.executable, "-I", "-S", str(PROBE), str(tmp_path / "sandbox" / "lib"), str(source),
                           str(target), *site_dirs()], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(target.read_text())
    return {name: [np.array(v).reshape(shape) for shape, v in arrays] for name, arrays in result["calls"].items()}, \
        result["failed"]


@pytest.mark.slow
@pytest.mark.parametrize("solution", [p for p in SOLUTIONS if _answers(p)], ids=lambda p: p.stem)
def test_no_library_function_in_the_graded_kernel_computes_an_answer(solution, tmp_path):
    exercise = _exercise(solution)
    model, state = _state()
    found, failed = _probe(exercise, tmp_path, model, state)
    assert "lessonlib.kinematics.fk/2" in found          # the probe reached the library
    # a module blocked whole takes what imports it along, but never the package it sits in: blocking
    # lessonlib.dynamics.closed_form must not make ``import lessonlib.dynamics`` fail
    modules = [t for t in load_exercise(exercise).blocked if ":" not in t]
    parents = {m.rpartition(".")[0] for m in modules} - {""}
    broken = {p: failed[p] for p in parents if p in failed and not any(p.startswith(m) for m in modules)}
    assert broken == {}, f"{exercise}: blocking {modules} breaks the import of {broken}"
    leaks = []
    for name, (fn, arity) in sorted(_answers(solution).items()):
        if (exercise, name) in BY_DESIGN:
            continue
        for answer in _flat(fn(model, *state[:arity - 1])):
            if np.abs(answer).max() < 1e-6:
                continue
            leaks += [f"{name} = {probe}" for probe, arrays in found.items()
                      if any(a.shape == answer.shape and np.allclose(a, answer, rtol=1e-9, atol=1e-12) for a in arrays)]
    assert leaks == [], f"{exercise}: the graded kernel's library computes these answers: {leaks}"


ROUTES = {   # exercise -> code run in its graded library that must raise NotAvailableWhileGrading
    "simulation10": ["from lessonlib.dynamics.simulate import rk4_step; rk4_step(acc, 0.0, q, qd, -q, 0.01)",
                     "from lessonlib.dynamics.simulate import semi_implicit_euler_step as s; s(acc, 0.0, q, qd, -q, 0.01)",
                     "from lessonlib.dynamics.simulate import euler_step as s; s(acc, 0.0, q, qd, -q, 0.01)",
                     "from lessonlib.dynamics.simulate import STEPS; STEPS['rk4'](acc, 0.0, q, qd, -q, 0.01)",
                     "from lessonlib.dynamics.simulate import rk4; rk4(lambda t, q, qd: (qd, -q), 0.0, (q, qd), 0.01)",
                     # Φ · (b, f_c, f_s) is the Stribeck torque
                     "from lessonlib.dynamics.friction import friction_regressor as f; f(qd, 'stribeck', vs=0.1)",
                     "from lessonlib.dynamics.friction import Friction; Friction(0.2, 0.5, 0.8, 0.1)(qd)"],
    "mass_matrix08": ["from lessonlib.dynamics.closed_form import closed_form_coefficients as c; c(model, q)"],
}


@pytest.mark.parametrize("exercise", sorted(ROUTES))
def test_the_library_routes_around_an_answer_are_closed(exercise, tmp_path):
    build_library(tmp_path / "sandbox", load_exercise(exercise))
    script = "\n".join([
        "import sys; sys.path[:] = [sys.argv[1]] + [p for p in sys.path if p] + sys.argv[2:]",
        "import numpy as np",
        "from lessonlib.grading.kernel.errors import NotAvailableWhileGrading",
        "from lessonlib.model import Joint, Model",
        "model = Model([-1], [Joint('revolute', [0, 0, 1])], [np.eye(4)], [np.eye(6)])",
        "q, qd, acc, open_ = np.array([0.3]), np.array([0.1]), (lambda t, q, qd: -q), []",
        *[f"try:\n    {route}\n    open_.append({route!r})\nexcept NotAvailableWhileGrading:\n    pass"
          for route in ROUTES[exercise]],
        "print(repr(open_))"])
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script, str(tmp_path / "sandbox" / "lib"), *site_dirs()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]", f"open in exercise {exercise}'s graded kernel: {done.stdout}"


#: Exercise 10's answers built on the library's own one-step integrators (they take an acceleration function,
#: not a model: the leak search cannot call them, the routes above close them).
STEPS_CHEAT = '''import numpy as np
from lessonlib.dynamics import aba
from lessonlib.dynamics.simulate import rk4_step as _rk4, semi_implicit_euler_step as _sie


def semi_implicit_euler_step(model, q, qd, tau, dt, gravity=None):
    acc = lambda t, q, qd: aba(model, q, qd, tau, gravity=gravity)
    return _sie(acc, 0.0, q, qd, acc(0.0, q, qd), dt)


def rk4_step(model, q, qd, tau, dt, gravity=None):
    acc = lambda t, q, qd: aba(model, q, qd, tau, gravity=gravity)
    return _rk4(acc, 0.0, q, qd, acc(0.0, q, qd), dt)
'''


@pytest.mark.slow
def test_the_librarys_integrators_earn_nothing_in_a_graded_run(tmp_path):
    from lessonlib.grading.checks.authoring import filled
    from lessonlib.grading.grader import Options, grade_submission
    from lessonlib.grading.notebook import load_reference
    path = tmp_path / "steps.ipynb"
    nbformat.write(filled(ROOT / "exercises" / "10_simulation.ipynb",
                          {"answer-semi-implicit": STEPS_CHEAT, "answer-rk4": STEPS_CHEAT}, student_id="mallory"),
                   str(path))
    result = grade_submission(load_reference(ROOT / "solutions" / "10_simulation.ipynb"), path,
                              Options(cell_timeout=30, timeout=120))
    steps = {cid: c for cid, c in result.checks.items() if cid in ("sim-semi-implicit", "sim-rk4", "sim-rk4-order")}
    assert {c.status for c in steps.values()} == {"used-library"} and result.total == 0, result.checks
    assert all("is not available while grading" in c.message for c in steps.values())
