"""``lessonlib-author``: partial scaffolds, the sync of check cells and points, and the promise that a change of
points in a course exercise followed by ``sync`` leaves the project's tests green."""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from lessonlib.grading import author
from lessonlib.grading.checks import authoring
from lessonlib.grading.checks.checker import Exercise, load_exercise

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))


# --- partial scaffolds ------------------------------------------------------------------------------------------

PARTIAL = '''import numpy as np

student_id = "reference-solution"


def energy(m, v, h):
    """Kinetic plus potential energy."""
    g = 9.81
    # BEGIN SOLUTION
    kinetic = 0.5 * m * v @ v
    # END SOLUTION
    potential = m * g * h
    return kinetic + potential


# BEGIN SOLUTION
K_P = 100.0
# END SOLUTION
'''


def test_a_partial_scaffold_keeps_everything_outside_the_markers():
    blank = authoring.stub_source(PARTIAL)
    assert blank == ('import numpy as np\n\nstudent_id = "your-id-here"   # your student id, as your instructor asked '
                     'for it\n\n\ndef energy(m, v, h):\n    """Kinetic plus potential energy."""\n    g = 9.81\n'
                     '    raise NotImplementedError("write energy")\n    potential = m * g * h\n'
                     '    return kinetic + potential\n\n\nraise NotImplementedError("write this part")\n')
    assert authoring.is_stub(blank, blank) and not authoring.is_stub(PARTIAL, blank)
    assert authoring.is_stub(blank.replace("    g = 9.81\n", "    g = 9.81   # my note\n"), blank)  # comments aside
    compile(blank, "blank", "exec")


@pytest.mark.parametrize("source, message", [
    ("def f():\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n    pass\n", "line 3 opens a solution block inside the one opened on line 2"),
    ("def f():\n    # END SOLUTION\n    pass\n", "line 2 closes a solution block that was never opened"),
    ("def f():\n    # BEGIN SOLUTION\n    pass\n", "opened on line 2 is never closed"),
])
def test_unbalanced_markers_are_named_by_line(source, message):
    with pytest.raises(ValueError, match=message):
        authoring.stub_source(source)


def test_whole_function_answers_stay_the_default():
    source = "import numpy as np\n\ndef f(x):\n    'Twice x.'\n    return 2 * x\n"
    assert authoring.stub_source(source) == ('import numpy as np\n\ndef f(x):\n    \'Twice x.\'\n'
                                             '    raise NotImplementedError("write f")\n')


def test_an_answer_that_only_imports_the_library_is_not_the_stub():
    """The fix behind ``used-library`` for ``from lessonlib.dynamics import rnea``: an import the blank lacks is an
    attempt; the blank's own imports are not."""
    blank = authoring.stub_source("import numpy as np\n\ndef rnea(model, q):\n    'Torques.'\n    return q\n")
    assert authoring.is_stub(blank, blank)
    assert not authoring.is_stub("from lessonlib.dynamics import rnea\n", blank)
    assert not authoring.is_stub("import numpy as np\nfrom lessonlib.dynamics import rnea\n", blank)
    assert authoring.is_stub("import numpy as np\n\ndef rnea(model, q):\n    raise NotImplementedError\n", blank)


# --- sync: check cells and the table of parts --------------------------------------------------------------------

def _exercise():
    ex = Exercise("demo99", notebook="99_demo.ipynb", title="demo")
    for cid, fn, pts in (("demo-a", "f", 1), ("demo-b", "f", 2), ("demo-c", "g", 3)):
        ex.check(cid, points=pts, functions=(fn,), title=cid)(lambda ctx, fn: None)
    return ex


def _notebook(ex):
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [md("# Demo\n\n| part | you write | points |\n|---|---|---|\n| (a) | `f` — one | 9 |\n| (b) | `g` — two | 9 |\n"),
             code("def f(x):\n    return x"), code("def g(x):\n    return x")]
    for c in cells[1:]:
        c.metadata.update({"tags": ["answer"], "lessonlib": {"id": f"answer-{c.source[4]}"}})
    stale = authoring.check_cell(ex.checks["demo-b"])
    stale.source = "# edited by hand\n" + stale.source
    gone = authoring.check_cell(ex.checks["demo-a"])
    gone.metadata["lessonlib"]["id"] = "demo-removed"
    cells[2:2] = [stale, gone]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["lessonlib"] = {"exercise": "demo99"}
    return nb


def test_sync_adds_refreshes_removes_and_orders_check_cells_and_sets_the_points():
    ex = _exercise()
    nb = _notebook(ex)
    changes = authoring.place_checks(nb, ex)
    ids = [c.metadata.get("lessonlib", {}).get("id") for c in nb.cells]
    assert ids == [None, "answer-f", "demo-a", "demo-b", "answer-g", "demo-c"]
    assert all(c.source == ex.checks[c.metadata["lessonlib"]["id"]].cell_source for c in nb.cells if "check" in
               c.metadata.get("tags", []))
    assert changes == ["refreshed the check cell of 'demo-b' (points 2)",
                       "removed the check cell of 'demo-removed' (not in the module)",
                       "added a check cell for 'demo-a' (after cell 2)", "added a check cell for 'demo-c' (after cell 4)",
                       "reordered the check cells ['demo-a', 'demo-b']"]
    assert authoring.sync_table(nb, ex) == ["table of parts: points [9, 9] → [3, 3]"]
    assert authoring.table_of_parts(nb.cells[0].source)[1] == [3, 3]
    assert authoring.place_checks(nb, ex) == [] and authoring.sync_table(nb, ex) == []      # a second sync: nothing


def test_a_table_that_names_no_checked_function_is_left_alone():
    ex = _exercise()
    nb = _notebook(ex)
    nb.cells[0].source = nb.cells[0].source.replace("`g`", "`h`")
    assert authoring.sync_table(nb, ex) == ["the table of parts was left alone: no row of the table of parts names g "
                                            "(check 'demo-c')", "the table of parts was left alone: row 2 of the table "
                                            "of parts names no checked function"]
    assert authoring.table_of_parts(nb.cells[0].source)[1] == [9, 9]


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_sync_changes_nothing_in_a_course_solution(solution):
    """Every course exercise is what sync makes: its check cells, their order and its table of parts."""
    nb = nbformat.read(solution, as_version=4)
    before = nbformat.writes(nb)
    ex = load_exercise(nb.metadata["lessonlib"]["exercise"])
    assert authoring.place_checks(nb, ex) == [] and authoring.sync_table(nb, ex) == []
    assert nbformat.writes(nb) == before
    assert authoring.part_points(nb.cells[0].source, ex)[1] == []                  # every check in a row, every row checked


def test_every_command_has_help():
    for command in ([], ["new"], ["sync"], ["check"], ["blank"]):
        done = subprocess.run([PY, "-m", "lessonlib.grading.author", *command, "--help"], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0 and "usage: lessonlib-author" in done.stdout
    assert author.notebook_name("pendulum13") == "13_pendulum.ipynb" and author.notebook_name("demo") == "demo.ipynb"
    assert author.main(["new", "Bad-Name"]) == 2


def test_new_makes_a_checkers_folder_that_does_not_exist_yet(tmp_path):
    """``--checkers DIR`` of ``new`` is where the module goes: a folder that ``new`` creates, not one it must find."""
    assert author.main(["new", "spring16", "--root", str(tmp_path / "c"), "--checkers", str(tmp_path / "mine"),
                        "--no-execute"]) == 0
    assert (tmp_path / "mine" / "spring16.py").is_file()
    assert (tmp_path / "c" / "exercises" / "16_spring.ipynb").is_file()


# --- the promise: change a course exercise's points, sync, and the tests stay green --------------------------------

def _copy_of_the_project(target):
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split("\n")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)
    return target


@pytest.mark.slow
def test_a_change_of_points_then_sync_leaves_the_tests_green(tmp_path):
    """In a copy of the project: exercise 03's ``inertia-parallel-axis`` goes from 1 point to 3; ``lessonlib-author sync``
    and ``make translations``' two steps; then the tests that know exercise 03's points, check cells, table of
    parts, translation and stored verdicts pass there (in the copy's own lessonlib)."""
    copy = _copy_of_the_project(tmp_path / "project")
    module = copy / "lessonlib" / "grading" / "checks" / "exercises" / "inertia03.py"
    text = module.read_text()
    assert len(re.findall(r'"inertia-parallel-axis", points=1,', text)) == 1
    module.write_text(text.replace('"inertia-parallel-axis", points=1,', '"inertia-parallel-axis", points=3,'))
    env = {**os.environ, "PYTHONPATH": os.fspath(copy), "LESSONLIB_TESTING": "1"}
    env.pop("LESSONLIB_CHECKERS", None)
    said = []
    for step in (["-m", "lessonlib.grading.author", "sync", "solutions/03_inertia.ipynb"],
                 ["-m", "tools.translations", "update"], ["-m", "tools.translations", "build"]):
        done = subprocess.run([PY, *step], cwd=copy, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
        said.append(done.stdout)
    assert "refreshed the check cell of 'inertia-parallel-axis' (points 3)" in said[0]
    assert "table of parts: points [2, 1, 2, 2, 2, 1] → [2, 3, 2, 2, 2, 1]" in said[0] and "in step" in said[0]
    exercise = nbformat.read(copy / "exercises" / "03_inertia.ipynb", as_version=4)
    assert "| (b) | `parallel_axis` — the parallel-axis theorem (平行轴定理) | 3 |" in exercise.cells[0].source
    zh = nbformat.read(copy / "exercises" / "zh" / "03_inertia.ipynb", as_version=4)
    assert re.search(r"\| \(b\) \| `parallel_axis` —— 平行轴定理（parallel-axis theorem） \| 3 \|", zh.cells[0].source)
    solution = (copy / "solutions" / "03_inertia.ipynb").read_text()
    assert "passed (3/3 points)" in solution and '"execution"' not in solution
    tests = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                            "tests/test_exercises_00_04.py", "tests/test_translations.py", "tests/test_authoring.py",
                            "tests/test_exercises_instructions.py", "-k", "03 or inertia or in_step or sync"],
                           cwd=copy, env=env, capture_output=True, text=True, timeout=1200)
    assert tests.returncode == 0, tests.stdout[-4000:]
    assert " passed" in tests.stdout and " failed" not in tests.stdout
    nbval = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env",
                            "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", "solutions/03_inertia.ipynb"],
                           cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert nbval.returncode == 0, nbval.stdout[-4000:]
