"""Static rules for the notebooks (the nbval runs themselves are collected by `make test`)."""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
COURSE = sorted((ROOT / "course").glob("*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
BIBLIOGRAPHY_KEYS = re.findall(r"\*\*\[([^\]]+)\]\*\*", (ROOT / "course" / "BIBLIOGRAPHY.md").read_text(encoding="utf-8"))
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
    assert any(f"[{key}" in text for key in BIBLIOGRAPHY_KEYS), "which sources it follows, by course/BIBLIOGRAPHY.md keys"
    assert any(c.get("outputs") for c in code_cells(path)), "stored outputs for nbval"


#: The source texts are cited by their BIBLIOGRAPHY.md keys; "seed 00N" and REFERENCE.md are not in the repository.
UNSHIPPED = re.compile(r"seed 00[0-9]|REFERENCE\.md")


@pytest.mark.parametrize("path", COURSE + EXERCISES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_notebook_cites_only_what_the_repository_has(path):
    cells = json.loads(path.read_text())["cells"]
    found = [f"cell {k}: …{source(c)[max(0, m.start() - 30):m.end() + 30]}…".replace("\n", " ")
             for k, c in enumerate(cells) for m in UNSHIPPED.finditer(source(c))]
    assert not found, (f"{path.name} cites sources the repository does not have; cite course/BIBLIOGRAPHY.md keys "
                       f"({', '.join(BIBLIOGRAPHY_KEYS[:5])}, …):\n" + "\n".join(found))


def test_bibliography_keys_are_found():
    assert {"WJ", "LG", "SWC16", "RNE05", "DB4", "Featherstone 2008"} <= set(BIBLIOGRAPHY_KEYS)


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_exercises_have_no_outputs(path):
    for cell in code_cells(path):
        assert cell.get("outputs", []) == [] and cell.get("execution_count") is None, path.name


def test_the_algorithm_rule_can_fail():
    assert ALGORITHM_DEF.search("x = 1\ndef rnea(model, q):\n    pass\n")
    assert not ALGORITHM_DEF.search("from lessonlib.dynamics import rnea\nrnea(arm, q, qd, qdd)\n")


#: An object's default repr, e.g. ``<matplotlib.legend.Legend at 0x7f…>``: what a cell shows when its last line
#: returns an object by accident (``ax.legend()``); noise to a reader (nbval only masks the address). Name the
#: result instead: a final ``;`` is ignored under nbval, which runs cells without history.
OBJECT_REPR = re.compile(r"<[\w.]+ (?:object )?at 0x[0-9a-fA-F]+>")


@pytest.mark.parametrize("path", COURSE + SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_stored_output_is_an_accidental_object_repr(path):
    shown = [(k, out.get("data", {}).get("text/plain", "")) for k, cell in enumerate(code_cells(path))
             for out in cell.get("outputs", []) if out.get("output_type") == "execute_result"]
    shown = [(k, "".join(text) if isinstance(text, list) else text) for k, text in shown]
    found = [(k, text) for k, text in shown if OBJECT_REPR.search(text)]
    assert not found, f"{path.name}: code cells whose last line shows an object's repr (name the result): {found}"
    assert OBJECT_REPR.search("<matplotlib.legend.Legend at 0x7ff6cf12c5d0>")
    assert not OBJECT_REPR.search("<Figure size 1100x400 with 1 Axes>")
