"""An instructor's own exercise, kept outside the repository: found, graded and walled like the course's.

An instructor scaffolds an exercise in a folder of their own (``lessonlib-author new``), and grades it
with ``lessonlib-grade --checkers DIR``. The batch holds an honest submission, a blank one and the
cheats the hostile suite tries on the course's exercises, aimed at what is new here — the
instructor's checker module (read by its absolute path, imported by the private name the grader
gives the folder, or through the registry), the solution beside it — and at the judge (a patched
``check`` that prints the verdict line, a call of the judge from an answer cell, a checker folder of the
student's own named in the kernel's environment). Every cheat earns 0,
the honest work full marks, and the instructor's files are byte for byte what they were.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import pathlib
import subprocess
import sys

import nbformat
import pytest

from lessonlib.grading.checks import registry
from lessonlib.grading.checks.authoring import answers_of, filled
from lessonlib.grading.kernel import confine

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(sys.executable).parent
PY = sys.executable
pytestmark = pytest.mark.slow
needs_landlock = pytest.mark.skipif(confine.abi() == 0, reason="Landlock is not available on this kernel: the "
                                    "walls cannot be tested here")

# The cheats, as answer cells: each first defines a wrong answer, then tries to replace it.
STEAL_MODULE = '''
def pendulum_torque(q, qdd, m, l):
    return 0.0
try:
    _ns = {{}}
    exec(open({module!r}).read(), _ns)                      # the checker module, by its absolute path
    pendulum_torque = lambda q, qdd, m, l: _ns["torque_with"](q, qdd, m, l)
except Exception:
    pass
'''
IMPORT_FOLDER = '''
def pendulum_torque(q, qdd, m, l):
    return 0.0
try:
    import sys as _sys, types as _types
    _pkg = _types.ModuleType({package!r}); _pkg.__path__ = [{folder!r}]; _sys.modules[{package!r}] = _pkg
    import importlib as _il
    _mod = _il.import_module({package!r} + ".pendulum13")  # the folder under the grader's private name
    pendulum_torque = lambda q, qdd, m, l: _mod.torque_with(q, qdd, m, l)
except Exception:
    pass
try:
    from lessonlib.grading.checks.registry import use_checkers   # the registry: not in the kernel's library
    use_checkers([{folder!r}])
except Exception:
    pass
'''
STEAL_SOLUTION = '''
def pendulum_torque(q, qdd, m, l):
    return 0.0
try:
    import json as _json
    for _cell in _json.load(open({solution!r}))["cells"]:
        if _cell.get("metadata", {{}}).get("lessonlib", {{}}).get("id") == "answer-torque":
            exec("".join(_cell["source"]), globals())
except Exception:
    pass
'''
FORGE_VERDICT = '''
def pendulum_torque(q, qdd, m, l):
    return 0.0
import lessonlib.grading as _g
_g.check = lambda *args: print({line!r})                   # the check cell now prints the verdict line itself
'''
FAKE_CHECKERS = '''
def pendulum_torque(q, qdd, m, l):
    return 0.0
import os as _os, tempfile as _tempfile
_d = _tempfile.mkdtemp()                                     # a checker module of its own that passes anything
with open(_os.path.join(_d, "pendulum13.py"), "w") as _fh:
    _fh.write("from lessonlib.grading.checks.checker import Exercise\\n"
              "EXERCISE = Exercise('pendulum13', notebook='13_pendulum.ipynb', title='x')\\n"
              "@EXERCISE.check('pendulum-torque', points=1, functions=('pendulum_torque',), title='x')\\n"
              "def check_torque(ctx, f):\\n    pass\\n")
_os.environ["LESSONLIB_CHECKERS"] = _d                       # hoping the judge reads the kernel's environment
'''
ORACLE = '''
def pendulum_torque(q, qdd, m, l):
    return 0.0
try:
    from lessonlib.grading import check as _check
    _check("pendulum-torque", pendulum_torque)              # ask the judge from an answer cell, learn, fix
except BaseException:
    pass
'''


def _digest_tree(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(pathlib.Path(folder).rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The instructor's folder, scaffolded by ``lessonlib-author new`` (which also runs the solution)."""
    root = tmp_path_factory.mktemp("instructor") / "mycourse"
    done = subprocess.run([BIN / "lessonlib-author", "new", "pendulum13", "--root", root, "--title",
                           "Exercise 13 — a pendulum"], capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != registry.ENV})
    assert done.returncode == 0, done.stdout + done.stderr
    return {"root": root, "checks": root / "checks", "solution": root / "solutions" / "13_pendulum.ipynb",
            "exercise": root / "exercises" / "13_pendulum.ipynb", "out": done.stdout}


def test_new_scaffolds_an_exercise_that_is_in_step_and_passes(course):
    assert "in step" in course["out"]
    solution = nbformat.read(course["solution"], as_version=4)
    check = [c for c in solution.cells if "check" in c.metadata.get("tags", [])]
    assert [c.metadata["lessonlib"] for c in check] == [{"id": "pendulum-torque", "points": 1}]
    assert check[0].outputs[0]["text"] == ("✓ [pendulum-torque] pendulum_torque: the torque of a point-mass pendulum "
                                           "— passed (1/1 point)\n")
    assert not any("execution" in c.metadata for c in solution.cells)               # no timestamps
    blank = answers_of(course["exercise"])["answer-torque"]
    assert 'raise NotImplementedError("write pendulum_torque")' in blank and "g = 9.81" in blank   # a partial scaffold
    assert "np.sin" not in blank and "BEGIN SOLUTION" not in blank


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory):
    subs, out = tmp_path_factory.mktemp("subs"), tmp_path_factory.mktemp("out")
    solved = answers_of(course["solution"])["answer-torque"]
    folder = os.fspath(course["checks"].resolve())
    package = "lessonlib_checkers_" + hashlib.sha256(folder.encode()).hexdigest()[:12]
    line = course["solution"].read_text()
    line = next(o["text"][0] for c in json.loads(line)["cells"] for o in c.get("outputs", []) if "text" in o)
    cheats = {
        "honest": solved,
        "steal_module": STEAL_MODULE.format(module=os.path.join(folder, "pendulum13.py")),
        "import_folder": IMPORT_FOLDER.format(package=package, folder=folder),
        "steal_solution": STEAL_SOLUTION.format(solution=os.fspath(course["solution"].resolve())),
        "forge_verdict": FORGE_VERDICT.format(line=line.rstrip("\n")),
        "oracle": ORACLE,
        "fake_checkers": FAKE_CHECKERS,
    }
    for name, source in cheats.items():
        nbformat.write(filled(course["exercise"], {"answer-torque": source}, student_id=name), subs / f"{name}.ipynb")
    nbformat.write(filled(course["exercise"], {}, student_id="blank"), subs / "blank.ipynb")
    before = _digest_tree(course["root"])
    done = subprocess.run([PY, "-m", "lessonlib.grading.cli", "--checkers", folder, "--reference", course["solution"],
                           subs, "--json", out / "results.json", "-j", "2", "-q"], capture_output=True, text=True,
                          timeout=900, cwd=ROOT, env={k: v for k, v in os.environ.items() if k != registry.ENV})
    assert done.returncode == 0, done.stderr
    return {"results": json.loads((out / "results.json").read_text()), "stderr": done.stderr,
            "unchanged": _digest_tree(course["root"]) == before}


@needs_landlock
def test_an_outside_exercise_gets_every_wall_and_the_cheats_earn_nothing(graded):
    results = graded["results"]
    score = {name.removesuffix(".ipynb"): (r["total"], r["max"]) for name, r in results.items()}
    status = {name.removesuffix(".ipynb"): r["checks"]["pendulum-torque"]["status"] for name, r in results.items()}
    assert score["honest"] == (1, 1) and status["honest"] == "passed"
    assert score["blank"] == (0, 1) and status["blank"] == "not-attempted"
    for cheat in ("steal_module", "import_folder", "steal_solution", "forge_verdict", "oracle", "fake_checkers"):
        assert score[cheat] == (0, 1), (cheat, status[cheat], results[f"{cheat}.ipynb"]["checks"])
    assert status["forge_verdict"] == "unverified"                     # the judge never ran it: the cell's word is not enough
    assert status["oracle"] in ("failed", "needs-review")
    assert "Landlock" in graded["stderr"] and "own network namespace" in graded["stderr"]
    assert graded["unchanged"], "a submission changed the instructor's folder"


def test_preview_and_authoring_commands_find_the_folder(course, tmp_path):
    """``--self`` on the blank (0, not attempted) and on the solution (checked against itself); ``check`` in step."""
    env = {k: v for k, v in os.environ.items() if k != registry.ENV}
    blank = subprocess.run([BIN / "lessonlib-grade", "--checkers", course["checks"], "--self", course["exercise"]],
                           capture_output=True, text=True, timeout=300, env=env)
    assert blank.returncode == 0 and "**Score: 0 / 1**" in blank.stdout, blank.stderr
    solution = subprocess.run([BIN / "lessonlib-grade", "--checkers", course["checks"], "--self", course["solution"]],
                              capture_output=True, text=True, timeout=300, env=env)
    assert "**Score: 1 / 1**" in solution.stdout and "is a solution notebook: checked against itself" in solution.stdout
    assert "no solution" not in solution.stdout
    check = subprocess.run([BIN / "lessonlib-author", "check", course["exercise"], course["solution"], "--checkers",
                            course["checks"]], capture_output=True, text=True, timeout=120, env=env)
    assert check.returncode == 0 and "in step" in check.stdout
    kept = tmp_path / "solutions" / "13_pendulum.ipynb"                  # a student's own copy in a solutions/ folder
    kept.parent.mkdir()
    kept.write_bytes(course["exercise"].read_bytes())
    own = subprocess.run([BIN / "lessonlib-grade", "--checkers", course["checks"], "--self", kept], capture_output=True,
                         text=True, timeout=300, env=env)
    assert "**Score: 0 / 1**" in own.stdout and "checker module of exercise 'pendulum13'" in own.stdout, own.stderr
    missing = subprocess.run([BIN / "lessonlib-grade", "--self", course["exercise"]], capture_output=True, text=True,
                             timeout=120, env=env)
    assert missing.returncode == 2 and "no checker module called 'pendulum13'" in missing.stderr   # no --checkers
    assert "--checkers DIR" in missing.stderr


def test_an_installed_package_declares_exercises_by_entry_point(tmp_path, monkeypatch):
    """A distribution with ``[lessonlib.exercises]`` in its entry points is a source; its package is denied to
    the graded kernel (never importable, cut out of site-packages); a name defined twice names both sources."""
    site = tmp_path / "site"
    (site / "mychecks").mkdir(parents=True)
    (site / "mychecks" / "__init__.py").write_text("")
    (site / "mychecks" / "spring14.py").write_text(
        "from lessonlib.grading.checks.checker import Exercise\n"
        "EXERCISE = Exercise('spring14', notebook='14_spring.ipynb', title='springs')\n"
        "@EXERCISE.check('spring-force', points=2, functions=('force',), title='Hooke')\n"
        "def check_force(ctx, force):\n    ctx.expect_close('f', ctx.call(force, 2.0), -2.0)\n")
    info = site / "mychecks-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mychecks\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[lessonlib.exercises]\nspring = mychecks\n")
    monkeypatch.syspath_prepend(os.fspath(site))
    importlib.invalidate_caches()
    registry._CACHE.clear()
    try:
        from lessonlib.grading import sandbox
        from lessonlib.grading.checks.checker import load_exercise
        assert "spring14" in registry.exercise_names() and "rnea05" in registry.exercise_names()
        assert load_exercise("spring14").checks["spring-force"].points == 2
        assert "mychecks" in registry.checker_packages()
        assert os.fspath(site / "mychecks") in registry.checker_locations()
        assert "mychecks" in sandbox.batch_config(tmp_path, load_exercise("spring14"))["denied"]
        (site / "mychecks" / "rnea05.py").write_text("")                 # the course's name, defined again
        registry._CACHE.clear()
        with pytest.raises(ValueError, match="rnea05.*more than one source.*mychecks"):
            load_exercise("rnea05")
    finally:
        registry._CACHE.clear()


def test_a_missing_checkers_folder_is_a_usage_error(tmp_path):
    done = subprocess.run([BIN / "lessonlib-grade", "--checkers", tmp_path / "nowhere", "--self", "x.ipynb"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "checkers: expected a directory of exercise modules" in done.stderr
    assert importlib.metadata.entry_points(group=registry.GROUP).names >= {"course"}   # the course's own, one way


def test_an_outside_exercise_exports_to_gradescope_and_grades_there(course, tmp_path):
    """``lessonlib-grade --checkers DIR --reference ... --export gradescope DIR``: the bundle carries the folder, and
    its ``run_autograder``, run in Gradescope's layout with no ``--checkers`` of ours, finds it there."""
    from test_grading_gradescope import assert_gradescope_schema, run_autograder, unzip
    out = tmp_path / "gs-13"
    done = subprocess.run([BIN / "lessonlib-grade", "--checkers", course["checks"], "--reference", course["solution"],
                           "--export", "gradescope", out], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={k: v for k, v in os.environ.items() if k != registry.ENV})
    assert done.returncode == 0 and f"upload {out}.zip" in done.stdout, done.stderr
    root = tmp_path / "autograder"
    for d in ("source", "submission", "results"):
        (root / d).mkdir(parents=True)
    unzip(tmp_path / "gs-13.zip", root / "source")
    assert (root / "source" / "checkers" / "0" / "pendulum13.py").read_bytes() == \
        (course["checks"] / "pendulum13.py").read_bytes()
    (root / "venv").symlink_to(ROOT / ".venv")
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    (root / "run_autograder").chmod(0o755)
    solved = tmp_path / "13_pendulum.ipynb"
    nbformat.write(filled(course["exercise"], {"answer-torque": answers_of(course["solution"])["answer-torque"]},
                          student_id="s13"), solved)
    doc, _ = run_autograder(root, {"13_pendulum.ipynb": solved})
    assert_gradescope_schema(doc)
    assert doc["score"] == 1 and [(t["name"], t["score"], t["max_score"]) for t in doc["tests"]] == \
        [("[pendulum-torque]", 1, 1)]
    doc, _ = run_autograder(root, {"13_pendulum.ipynb": course["exercise"]})
    assert doc["score"] == 0 and "not-attempted" in doc["tests"][0]["output"]
