"""Static rules for the notebooks (the nbval runs themselves are collected by `make test`)."""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
COURSE = sorted((ROOT / "course").glob("*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
ALGORITHM_DEF = re.compile(r"^\s*def\s+(rnea\w*|crba\w*|aba\w*|denoc\w*|lagrange\w*|mass_matrix\w*|"
                           r"forward_dynamics\w*|coriolis\w*|regressor\w*|fk|jacobian\w*)\s*\(", re.M)


def code_cells(path):
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_there_are_lessons():
    assert len(COURSE) >= 1


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.name)
def test_course_notebook_defines_no_algorithm(path):
    hits = [m.group(1) for c in code_cells(path) for m in ALGORITHM_DEF.finditer(source(c))]
    assert hits == [], f"{path.name} defines {hits}: algorithms belong in lessonlib"


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.name)
def test_course_notebook_is_shaped_like_a_lesson(path):
    nb = json.loads(path.read_text())
    text = "\n".join(source(c) for c in nb["cells"])
    assert "show_source(" in text, "a 'Look inside' cell showing the real library source"
    assert re.search(r"[\u4e00-\u9fff]", text), "the seeds' Chinese key terms beside the English ones"
    assert "<details>" in text, "self-test questions with folded answers"
    assert re.search(r"seed 00[0-4]", text), "which seed sections it follows"
    assert any(c.get("outputs") for c in code_cells(path)), "stored outputs for nbval"


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_exercises_have_no_outputs(path):
    for cell in code_cells(path):
        assert cell.get("outputs", []) == [] and cell.get("execution_count") is None, path.name


def test_the_algorithm_rule_can_fail():
    assert ALGORITHM_DEF.search("x = 1\ndef rnea(model, q):\n    pass\n")
    assert not ALGORITHM_DEF.search("from lessonlib.dynamics import rnea\nrnea(arm, q, qd, qdd)\n")
