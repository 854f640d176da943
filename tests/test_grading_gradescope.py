"""The Gradescope export (issue 28, item 6): results.json from the grader's results, and the autograder bundle.

Most tests build results by hand (no kernels). The slow ones export the bundle for exercise 05 once,
lay it out the way Gradescope does (``source/`` = the zip's contents, ``submission/``, ``results/``,
``venv`` → this venv, ``run_autograder`` copied to the root) in a temporary directory, and run
``run_autograder`` with ``AUTOGRADER_ROOT`` set: two graded runs (the solution; the blank exercise in
a nested folder), and runs that grade nothing (no notebook, several notebooks, a failing grader).
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import stat
import subprocess
import time
import zipfile

import pytest

from lessonlib.grading import export
from lessonlib.grading.report import gradescope, reports
from lessonlib.grading.report.results import STATUSES, STATUSES_ZH, CheckResult, SubmissionResult
from grading_common import EXERCISE, MAX, ROOT, SOLUTION, stated_points

PY = ROOT / ".venv" / "bin" / "python"
WALLS = "filesystem: Landlock ABI 7 and a private read-only root; network: none (own network namespace)"
TEST_KEYS = {"name": str, "score": float, "max_score": float, "output": str, "visibility": str}


def assert_gradescope_schema(doc):
    """``doc`` is a results.json Gradescope accepts: typed top-level fields, five typed keys per test."""
    json.dumps(doc, allow_nan=False)
    assert isinstance(doc["score"], float) and doc["score"] >= 0
    assert isinstance(doc["output"], str) and isinstance(doc["tests"], list)
    assert doc["output_format"] in gradescope.FORMATS and doc["test_output_format"] in gradescope.FORMATS
    assert doc["stdout_visibility"] in gradescope.VISIBILITIES
    if "execution_time" in doc:
        assert isinstance(doc["execution_time"], int) and doc["execution_time"] >= 0
    for test in doc["tests"]:
        assert {k: type(test[k]) for k in TEST_KEYS} == TEST_KEYS, test
        assert test["visibility"] in gradescope.VISIBILITIES and test["status"] in ("passed", "failed")
        assert 0 <= test["score"] <= test["max_score"]


def result(statuses, *, points=(2, 3, 5), messages=None, language="en", withheld=None, notes=(), seconds=4.2):
    """A SubmissionResult of three checks a, b, c (``points`` each): full points where the status is passed."""
    messages, withheld = messages or {}, withheld or {}
    checks = {}
    for cid, pts, status in zip("abc", points, statuses):
        checks[cid] = CheckResult(cid, pts if status == "passed" else 0, pts, status, messages.get(cid, ""),
                                  withheld=withheld.get(cid, 0))
    return SubmissionResult("alice.ipynb", "/x/alice.ipynb", "alice", checks, notes=list(notes), seconds=seconds,
                            protection=WALLS, language=language)


# --- results_json on hand-made results ----------------------------------------------------------------------

def test_a_passed_submission_is_one_visible_test_per_check_with_its_points():
    r = result(["passed", "passed", "passed"])
    doc = gradescope.results_json(r, elapsed=7.6)
    assert_gradescope_schema(doc)
    assert doc["score"] == 10.0 == sum(t["score"] for t in doc["tests"]) == sum(t["max_score"] for t in doc["tests"])
    assert [t["name"] for t in doc["tests"]] == ["[a]", "[b]", "[c]"]
    assert [t["max_score"] for t in doc["tests"]] == [2.0, 3.0, 5.0]
    assert {t["visibility"] for t in doc["tests"]} == {"visible"} and {t["status"] for t in doc["tests"]} == {"passed"}
    assert doc["tests"][0]["output"] == f"passed: {STATUSES['passed']}"
    assert doc["output"].splitlines()[:2] == ["Score: 10 / 10", "Student id: alice"]
    assert doc["output"].endswith(f"Walls around your code while it was graded: {WALLS}")
    assert doc["execution_time"] == 8 and gradescope.results_json(r)["execution_time"] == 4
    assert (doc["output_format"], doc["test_output_format"], doc["test_name_format"]) == ("text",) * 3
    assert doc["stdout_visibility"] == "hidden"


def test_a_failed_check_says_what_the_markdown_feedback_says():
    message = "✗ [b] inward pass\nexpected tau = [1. 2.]\ngot      tau = [0. 0.]"
    r = result(["passed", "failed", "not-attempted"], messages={"b": message, "c": "still the stub"})
    doc = gradescope.results_json(r, protection="other walls")
    assert_gradescope_schema(doc)
    assert [t["score"] for t in doc["tests"]] == [2.0, 0.0, 0.0] and doc["score"] == 2.0 == r.total
    assert sum(t["max_score"] for t in doc["tests"]) == r.max == 10
    assert [t["status"] for t in doc["tests"]] == ["passed", "failed", "failed"]
    assert doc["tests"][1]["output"] == f"failed: {STATUSES['failed']}\n\n{message}"
    assert doc["tests"][2]["output"] == f"not-attempted: {STATUSES['not-attempted']}\n\nstill the stub"
    feedback = reports.feedback_markdown(r)
    for status, text in (("failed", message), ("not-attempted", "still the stub")):
        assert f"*{STATUSES[status]}*" in feedback and text in feedback
    assert doc["output"].endswith("Walls around your code while it was graded: other walls")
    assert "Needs review" not in doc["output"]


def test_a_submission_that_needs_review_says_so_at_the_top():
    r = result(["passed", "needs-review", "passed"], messages={"b": "inward_pass is 97% identical to rnea"},
               withheld={"b": 3}, notes=["your notebook's student_id is not filled in"])
    doc = gradescope.results_json(r)
    assert_gradescope_schema(doc)
    assert doc["score"] == 7.0 and doc["tests"][1]["score"] == 0.0 and doc["tests"][1]["status"] == "failed"
    assert ("Needs review: 3 point(s) wait for your instructor's review (b); the score here does not include "
            "them yet.") in doc["output"].splitlines()
    assert "- your notebook's student_id is not filled in" in doc["output"].splitlines()
    assert doc["tests"][1]["output"].startswith(f"needs-review: {STATUSES['needs-review']}\n\n")
    assert doc["extra_data"]["withheld"] == 3 and doc["extra_data"]["needs_review"] == [
        "b: inward_pass is 97% identical to rnea"]


def test_a_chinese_edition_submission_gets_the_chinese_explanations():
    r = result(["passed", "failed", "needs-review"], messages={"b": "expected 1, got 2"}, withheld={"c": 5},
               language="zh")
    doc = gradescope.results_json(r)
    assert_gradescope_schema(doc)
    assert doc["tests"][0]["output"] == f"passed：{STATUSES_ZH['passed']}"
    assert doc["tests"][1]["output"] == f"failed：{STATUSES_ZH['failed']}\n\nexpected 1, got 2"
    lines = doc["output"].splitlines()
    assert lines[:2] == ["得分：2 / 10", "学号：alice"]
    assert "待复核：有 5 分须等教师复核（c），此处的得分尚未计入。" in lines
    assert sum(t["score"] for t in doc["tests"]) == doc["score"] == 2.0


def test_a_title_carried_by_the_result_names_the_test():
    r = result(["passed", "failed", "failed"])
    r.checks["a"].title = "static torques of two rods"
    assert [t["name"] for t in gradescope.results_json(r)["tests"]] == ["[a] static torques of two rods", "[b]", "[c]"]


def test_results_json_refuses_what_is_not_a_result():
    with pytest.raises(ValueError, match="^result: expected a SubmissionResult"):
        gradescope.results_json({"total": 3})
    with pytest.raises(ValueError, match="^elapsed: "):
        gradescope.results_json(result(["passed"] * 3), elapsed=-1)


# --- the grader's --json output converted ------------------------------------------------------------------

def test_the_graders_json_converts_to_the_same_results_json():
    r = result(["passed", "failed", "needs-review"], messages={"b": "wrong"}, withheld={"c": 5})
    assert gradescope.convert({r.submission: r.as_json()}) == gradescope.results_json(r)
    ignored = gradescope.convert({r.submission: r.as_json()}, ignored=["notes/scratch.ipynb"])
    assert ignored["output"].startswith("Graded alice.ipynb; ignored the other notebooks of your submission: "
                                        "notes/scratch.ipynb.\n\n")


def test_no_notebook_and_several_notebooks_score_zero_and_say_why():
    none = gradescope.convert({})
    assert_gradescope_schema(none)
    assert (none["score"], none["tests"]) == (0.0, []) and none["output"].startswith("No notebook was submitted")
    r = result(["passed"] * 3)
    several = gradescope.convert({"a.ipynb": r.as_json(), "b.ipynb": r.as_json()})
    assert_gradescope_schema(several)
    assert several["score"] == 0.0 and several["tests"] == []
    assert several["output"].startswith("2 notebooks were submitted (a.ipynb, b.ipynb)")
    assert "nothing was graded" in several["output"]


def test_the_converter_command_line(tmp_path):
    """``python -m lessonlib.grading.report.gradescope RESULTS.json OUT.json``: a result, none, a failed grader."""
    r = result(["passed", "failed", "passed"], messages={"b": "wrong"})
    graded = tmp_path / "results.json"
    reports.write_json([r], graded)
    cases = {"graded": [graded], "none": [tmp_path / "empty.json"], "missing": [tmp_path / "no-such.json"],
             "several": [tmp_path / "no-such.json", "--several=x/a.ipynb", "--several=-b.ipynb"]}
    (tmp_path / "empty.json").write_text("{}")
    docs = {}
    for case, args in cases.items():
        out = tmp_path / f"{case}-gradescope.json"
        proc = subprocess.run([str(PY), "-m", "lessonlib.grading.report.gradescope", str(args[0]), str(out),
                               *args[1:]], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        docs[case] = json.loads(out.read_text(encoding="utf-8"))
        assert_gradescope_schema(docs[case])
    assert docs["graded"]["score"] == 7.0 and [t["score"] for t in docs["graded"]["tests"]] == [2.0, 0.0, 5.0]
    assert docs["none"]["output"] == gradescope.NO_NOTEBOOK and docs["none"]["score"] == 0.0
    assert docs["missing"]["output"] == gradescope.FAILED and docs["missing"]["score"] == 0.0
    assert docs["several"]["output"].startswith("2 notebooks were submitted (-b.ipynb, x/a.ipynb)")


# --- the bundle's arguments -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"reference": "solutions/no_such.ipynb"}, "^reference: expected a solution notebook"),
    ({"confinement": "maybe"}, "^confinement: expected one of auto, landlock, strict, none"),
    ({"timeout": 0}, "^timeout: expected a positive number"),
    ({"cell_timeout": -1}, "^cell_timeout: expected a positive number"),
    ({"checkers": ["/no/such/folder"]}, "^checkers: expected a directory"),
    ({"checkers": "tests"}, "^checkers: expected a list of directories"),
])
def test_export_names_the_bad_argument(tmp_path, kwargs, message):
    args = {"reference": SOLUTION, "out": tmp_path / "bundle", **kwargs}
    with pytest.raises(ValueError, match=message):
        export.export_gradescope(args.pop("reference"), args.pop("out"), **args)
    assert not (tmp_path / "bundle").exists()


def test_export_refuses_to_overwrite_a_foreign_directory(tmp_path):
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / "thesis.tex").write_text("keep me")
    with pytest.raises(ValueError, match="^out: .* exists and is not an earlier Gradescope bundle"):
        export.export_gradescope(SOLUTION, tmp_path / "bundle")
    assert (tmp_path / "bundle" / "thesis.tex").read_text() == "keep me"


def test_checker_folders_are_copied_as_python_files_only(tmp_path):
    mine = tmp_path / "mine"
    for rel in ("lagrange04x.py", "_common.py", "__pycache__/lagrange04x.cpython-311.pyc", "pkg/__init__.py",
                "pkg/parts.py", "pkg/data.csv", "notes/readme.txt"):
        (mine / rel).parent.mkdir(parents=True, exist_ok=True)
        (mine / rel).write_text("# " + rel)
    (mine / "linked.py").symlink_to(mine / "_common.py")
    copied = export.copy_checkers([mine], tmp_path / "checkers")
    assert copied == [tmp_path / "checkers" / "0"]
    assert sorted(p.relative_to(copied[0]).as_posix() for p in copied[0].rglob("*")) == [
        "_common.py", "lagrange04x.py", "pkg", "pkg/__init__.py", "pkg/parts.py"]
    assert (copied[0] / "pkg" / "parts.py").read_text() == "# pkg/parts.py"


def test_run_autograder_passes_checkers_only_when_there_are_some(tmp_path):
    none, two = export.run_script("05_rnea.ipynb", 0), export.run_script("my exercise.ipynb", 2, timeout=90)
    assert "CHECKERS=()" in none and "--checkers" not in none
    assert 'CHECKERS=(--checkers "$ROOT/source/checkers/0" --checkers "$ROOT/source/checkers/1")' in two
    assert "NAME='my exercise.ipynb'" in two and "--timeout 90 --cell-timeout 60" in two
    for i, text in enumerate((none, two)):
        (tmp_path / f"run{i}").write_text(text)
        proc = subprocess.run(["bash", "-n", str(tmp_path / f"run{i}")], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def test_the_wheel_needs_lessonlibs_source_tree(monkeypatch, tmp_path):
    assert export.source_tree() == ROOT
    monkeypatch.setattr(export.lessonlib, "__file__", str(tmp_path / "site-packages" / "lessonlib" / "__init__.py"))
    with pytest.raises(RuntimeError, match="not its source tree"):
        export.build_wheel(tmp_path)


# --- the bundle, laid out as Gradescope does (slow: graded runs) ------------------------------------------------

def unzip(zip_path, dest):
    """Extract like Gradescope's unzip: files at ``dest``'s top level, Unix modes kept."""
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            path = pathlib.Path(zf.extract(info, dest))
            if info.external_attr >> 16:
                path.chmod((info.external_attr >> 16) & 0o777)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    """The exported bundle (the README's command) and an autograder root laid out from its zip."""
    base = tmp_path_factory.mktemp("gradescope")
    start = time.monotonic()
    proc = subprocess.run([str(PY), "-m", "lessonlib.grading.export", "gradescope", "--reference",
                           "solutions/05_rnea.ipynb", "--out", str(base / "gradescope-05")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    exported = time.monotonic() - start
    root = base / "autograder"
    for d in ("source", "submission", "results"):
        (root / d).mkdir(parents=True)
    unzip(base / "gradescope-05.zip", root / "source")
    (root / "venv").symlink_to(ROOT / ".venv")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    print(f"\nexport: {exported:.1f} s")
    return {"base": base, "root": root, "zip": base / "gradescope-05.zip", "out": base / "gradescope-05"}


def run_autograder(root, files):
    """Put ``files`` ({path below submission/: source file}) in an empty submission/, run, read results.json."""
    for d in ("submission", "results"):
        shutil.rmtree(root / d, ignore_errors=True)
        (root / d).mkdir()
    for rel, src in files.items():
        (root / "submission" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, root / "submission" / rel)
    start = time.monotonic()
    proc = subprocess.run([str(root / "run_autograder")], env={**os.environ, "AUTOGRADER_ROOT": str(root)},
                          capture_output=True, text=True, timeout=900)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert_gradescope_schema(doc)
    print(f"\nrun_autograder {sorted(files)}: {elapsed:.1f} s")
    return doc, proc


@pytest.mark.slow
def test_the_zip_holds_the_bundle_at_its_top_level(bundle):
    with zipfile.ZipFile(bundle["zip"]) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        wheels = [n for n in infos if n.endswith(".whl")]
        assert len(wheels) == 1 and wheels[0].startswith("lessonlib-")
        assert set(infos) == {"setup.sh", "run_autograder", "README.md", "reference/05_rnea.ipynb", wheels[0]}
        for script in ("setup.sh", "run_autograder"):
            assert stat.S_IMODE(infos[script].external_attr >> 16) == 0o755
        assert zf.read("reference/05_rnea.ipynb") == SOLUTION.read_bytes()
        wheel_path = bundle["out"] / wheels[0]
    with zipfile.ZipFile(wheel_path) as wheel:
        names = set(wheel.namelist())
        assert {"lessonlib/grading/cli.py", "lessonlib/grading/report/gradescope.py",
                "lessonlib/grading/checks/exercises/rnea05.py"} <= names
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    setup = (bundle["root"] / "source" / "setup.sh").read_text()
    assert f'pip install "$ROOT/source/{wheels[0]}"' in setup and "apt-get install" in setup
    for req in export.grading_requirements():
        assert f"'{req}'" in setup
    for script in ("setup.sh", "run_autograder"):
        proc = subprocess.run(["bash", "-n", str(bundle["out"] / script)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_the_solution_gets_full_marks(bundle):
    doc, _ = run_autograder(bundle["root"], {"05_rnea.ipynb": SOLUTION})
    points = stated_points(EXERCISE)
    assert doc["score"] == sum(t["max_score"] for t in doc["tests"]) == sum(t["score"] for t in doc["tests"]) \
        == points == MAX
    assert {t["status"] for t in doc["tests"]} == {"passed"} and len(doc["tests"]) == 11
    assert {t["visibility"] for t in doc["tests"]} == {"visible"}
    assert "Walls around your code while it was graded: filesystem: " in doc["output"]
    assert doc["output"].splitlines()[0] == f"Score: {points} / {points}"
    assert doc["extra_data"]["protection"] in doc["output"] and doc["execution_time"] >= 1


@pytest.mark.slow
def test_the_blank_exercise_in_a_nested_folder_gets_zero(bundle):
    """Only the notebook named like the exercise is graded: checkpoints, macOS debris and extra notebooks are not."""
    doc, proc = run_autograder(bundle["root"], {
        "upload/lesson 5/05_rnea.ipynb": EXERCISE,
        "upload/lesson 5/.ipynb_checkpoints/05_rnea-checkpoint.ipynb": SOLUTION,
        "__MACOSX/upload/._05_rnea.ipynb": SOLUTION,
        "upload/scratch.ipynb": SOLUTION})
    assert doc["score"] == 0.0 and [t["score"] for t in doc["tests"]] == [0.0] * 11
    assert sum(t["max_score"] for t in doc["tests"]) == stated_points(EXERCISE)
    assert {t["extra_data"]["status"] for t in doc["tests"]} == {"not-attempted"}
    assert doc["tests"][0]["output"].startswith(f"not-attempted: {STATUSES['not-attempted']}\n\n")
    assert doc["output"].startswith("Graded 05_rnea.ipynb; ignored the other notebooks of your submission: "
                                    "upload/scratch.ipynb.")
    assert "Walls around your code while it was graded: filesystem: " in doc["output"]
    assert "1 submissions" in proc.stdout                  # one graded notebook, not four


@pytest.mark.slow
def test_no_notebook_or_several_grade_nothing_and_say_why(bundle):
    doc, proc = run_autograder(bundle["root"], {"answers.pdf": ROOT / "README.md"})
    assert (doc["score"], doc["tests"], doc["output"]) == (0.0, [], gradescope.NO_NOTEBOOK)
    assert "lessonlib-grade" not in proc.stdout + proc.stderr
    doc, proc = run_autograder(bundle["root"], {"a/mine.ipynb": SOLUTION, "b/mine.ipynb": SOLUTION})
    assert doc["score"] == 0.0 and doc["tests"] == []
    assert doc["output"].startswith("2 notebooks were submitted (a/mine.ipynb, b/mine.ipynb)")
    assert "lessonlib-grade" not in proc.stdout + proc.stderr


@pytest.mark.slow
def test_a_failing_grader_still_leaves_a_results_json(bundle, tmp_path):
    """No reference (lessonlib-grade exits 2): the converter's failure; no Python at all: the script's own."""
    root = tmp_path / "autograder"
    shutil.copytree(bundle["root"], root, symlinks=True)
    (root / "source" / "reference" / "05_rnea.ipynb").unlink()
    doc, proc = run_autograder(root, {"05_rnea.ipynb": SOLUTION})
    assert (doc["score"], doc["output"], doc["tests"]) == (0.0, gradescope.FAILED, [])
    assert "lessonlib-grade failed (exit status 2)" in proc.stdout
    (root / "venv").unlink()
    doc, proc = run_autograder(root, {"05_rnea.ipynb": SOLUTION})
    assert (doc["score"], doc["output"], doc["tests"]) == (0.0, gradescope.FAILED, [])
    assert "no Python at" in proc.stdout
