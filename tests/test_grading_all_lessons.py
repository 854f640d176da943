"""Every lesson's exercise through the real grader: the solution scores 100 %, the blank scores 0.

One CLI batch per lesson (solution and blank, ``-j 2``), each in fresh kernels with the stripped
library and the judge process — the same path an instructor's ``lessonlib-grade`` takes.
"""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from lessonlib.grading.checks.checker import exercise_names, load_exercise

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb"))

pytestmark = pytest.mark.slow


def test_every_lesson_has_an_exercise_and_a_solution():
    exercises = sorted(p.name for p in (ROOT / "exercises").glob("*.ipynb"))
    assert exercises == LESSONS
    assert [name[:2] for name in LESSONS] == [f"{k:02d}" for k in range(len(LESSONS))]     # numbered from 00, no gap
    assert sorted(load_exercise(n).notebook for n in exercise_names()) == LESSONS               # one module each


@pytest.mark.parametrize("lesson", LESSONS)
def test_solution_scores_full_marks_and_blank_scores_zero(lesson, tmp_path):
    shutil.copy(ROOT / "solutions" / lesson, tmp_path / "solved.ipynb")
    shutil.copy(ROOT / "exercises" / lesson, tmp_path / "blank.ipynb")
    result = subprocess.run(
        [sys.executable, "-m", "lessonlib.grading.cli", "--reference", str(ROOT / "solutions" / lesson),
         str(tmp_path / "solved.ipynb"), str(tmp_path / "blank.ipynb"), "--out", str(tmp_path / "g.csv"),
         "--json", str(tmp_path / "g.json"), "--feedback", str(tmp_path / "feedback"), "-j", "2", "-q"],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    grades = json.loads((tmp_path / "g.json").read_text())
    solved, blank = grades["solved.ipynb"], grades["blank.ipynb"]
    failed = {k: v["message"][:300] for k, v in solved["checks"].items() if v["points"] != v["max_points"]}
    assert solved["total"] == solved["max"] > 0 and not failed, failed
    assert blank["total"] == 0 and blank["max"] == solved["max"]
    assert set(blank["checks"]) == set(solved["checks"])
    assert sorted(p.name for p in (tmp_path / "feedback").iterdir()) == ["blank.md", "solved.md"]
