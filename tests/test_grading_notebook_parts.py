"""Reading notebooks (``lessonlib.grading.notebook``), function by function, on notebooks built here.

``test_grading_notebooks.py`` and the graded runs read the course's own notebooks end to end; here each
piece is pinned on small notebooks made for the purpose — which cell is an answer and by what name, the
titles students see, the modules a notebook imports, what makes a reference unusable, how a submission's
cells are matched, counted and refused — so that a changed rule fails in a second (``make mutation``).
"""
from __future__ import annotations

import json

import nbformat
import pytest

from lessonlib.grading import notebook as nbk
from lessonlib.grading.notebook import CellRole, ReferenceNotebookError, SubmissionError


def code(source, *, tags=(), meta=None, cell_id=None, outputs=None):
    cell = nbformat.v4.new_code_cell(source)
    if tags:
        cell.metadata["tags"] = list(tags)
    if meta is not None:
        cell.metadata["lessonlib"] = meta
    if cell_id is not None:
        cell["id"] = cell_id
    cell.outputs = outputs if outputs is not None else []
    if outputs:
        cell.execution_count = 5
    return cell


VERDICT = [nbformat.v4.new_output("stream", name="stdout", text="✓ [c1] passed\n")]


def reference_nb():
    nb = nbformat.v4.new_notebook()
    nb.metadata["lessonlib"] = {"exercise": "tour00"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Lesson 00 — a tour\n\nIntro."),
        code("import numpy as np", cell_id="setup"),
        code('student_id = "your-id-here"', tags=["answer"], meta={"id": "answer-id"}),
        nbformat.v4.new_markdown_cell("## (a) First part\n\ntext\n### (a.1) Detail"),
        code("def f(x):\n    return x", tags=["answer"], meta={"id": "answer-f"}),
        code("check('c1', f)", tags=["check", "raises-exception"], meta={"id": "c1", "points": 2}, outputs=VERDICT,
             cell_id="check-c1"),
        nbformat.v4.new_markdown_cell("no heading here"),
        code("def g(x):\n    return x", tags=["answer"], cell_id="cell-g"),
        code("check('c2', g)", tags=["check"], meta={"id": "c2", "points": 1}, outputs=VERDICT),
    ]
    return nb


def test_a_reference_names_its_answers_and_checks():
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    assert ref.exercise == "tour00" and ref.path == "ref.ipynb" and ref.note == ""
    assert ref.answers == [("answer-id", 2), ("answer-f", 4), ("cell-g", 7)]
    assert [(c.id, c.points, c.index, c.source) for c in ref.checks] == [("c1", 2, 5, "check('c1', f)"),
                                                                         ("c2", 1, 8, "check('c2', g)")]
    assert ref.max_points == 3 and ref.check("c2").points == 1 and ref.check("c1").index == 5
    assert ref.answer_sources() == {"answer-id": 'student_id = "your-id-here"', "answer-f": "def f(x):\n    return x",
                                    "cell-g": "def g(x):\n    return x"}


def test_an_answer_is_titled_by_the_last_heading_above_it_and_the_first_by_its_key():
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    assert ref.answer_titles() == {"answer-id": "answer-id", "answer-f": "(a.1) Detail", "cell-g": "(a.1) Detail"}
    nb = reference_nb()
    nb.cells[3].source = "## (a) First part"
    assert nbk.reference_from_nb(nb, "r").answer_titles()["answer-f"] == "(a) First part"
    nb.cells[3].source = "## X marks the spot"                  # a title may start with any letter
    nb.cells[0].source = "# Xylophones"                          # level 1: the notebook's title, not a part
    assert nbk.reference_from_nb(nb, "r").answer_titles() == {"answer-id": "answer-id", "answer-f": "X marks the spot",
                                                               "cell-g": "X marks the spot"}
    nb.cells[3].source = "# X"
    assert nbk.reference_from_nb(nb, "r").answer_titles()["answer-f"] == "answer-f"


def test_the_records_are_frozen_or_default_to_empty_values():
    import dataclasses                                      # noqa: PLC0415
    cell = nbk.CheckCell("c", 1, 0, "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cell.points = 5
    sub = nbk.Submission("s.ipynb", {}, "s")
    assert (sub.ignored_cells, sub.notes, sub.id_source) == (0, [], "notebook") and sub.notes is not \
        nbk.Submission("t.ipynb", {}, "t").notes
    role = CellRole("setup")
    assert role.name == ""
    with pytest.raises(dataclasses.FrozenInstanceError):
        role.kind = "answer"


def test_answer_key_prefers_the_lessonlib_id_then_the_cell_id_then_the_position():
    assert nbk.answer_key({"metadata": {"lessonlib": {"id": "answer-x"}}, "id": "abc"}, 3) == "answer-x"
    assert nbk.answer_key({"metadata": {"lessonlib": {}}, "id": "abc"}, 3) == "abc"
    assert nbk.answer_key({"metadata": {"lessonlib": {"id": ""}}, "id": "abc"}, 3) == "abc"
    assert nbk.answer_key({"metadata": {"lessonlib": {"id": 7}}}, 3) == "answer-3"
    assert nbk.answer_key({"metadata": {}}, 5) == "answer-5"
    assert nbk.answer_key({"metadata": "junk", "id": ""}, 0) == "answer-0"


@pytest.mark.parametrize("edit, message", [
    (lambda nb: nb.metadata.pop("lessonlib"), "reference: ref.ipynb has no metadata.lessonlib.exercise (the checker module)"),
    (lambda nb: nb.cells[4].metadata["tags"].append("check"), "reference: cell 4 is tagged both answer and check"),
    (lambda nb: nb.cells[7].metadata.update(lessonlib={"id": "answer-f"}), "reference: two answer cells are called 'answer-f'"),
    (lambda nb: nb.cells[8].metadata["lessonlib"].update(points=0),
     "reference: check cell 8 needs metadata.lessonlib.id and positive points"),
    (lambda nb: nb.cells[8].metadata["lessonlib"].update(points=True),
     "reference: check cell 8 needs metadata.lessonlib.id and positive points"),
    (lambda nb: nb.cells[8].metadata["lessonlib"].update(id=3),
     "reference: check cell 8 needs metadata.lessonlib.id and positive points"),
    (lambda nb: nb.cells[8].metadata["lessonlib"].update(id="c1"), "reference: check id 'c1' appears twice"),
    (lambda nb: setattr(nb.cells[8], "outputs", []),
     "reference: check cell 'c2' has no stored verdict output; execute the solution notebook first (jupyter nbconvert "
     "--execute)"),
    (lambda nb: [c.metadata.pop("tags") for c in nb.cells[5:9:3]], "reference: ref.ipynb has no check cells"),
], ids=["no exercise", "answer and check", "two answers", "zero points", "bool points", "id not text", "same id",
        "no verdict", "no checks"])
def test_an_unusable_reference_is_refused_saying_what_is_wrong(edit, message):
    nb = reference_nb()
    edit(nb)
    with pytest.raises(ReferenceNotebookError) as exc:
        nbk.reference_from_nb(nb, "ref.ipynb")
    assert str(exc.value) == message


def test_a_reference_without_outputs_is_accepted_when_they_are_not_required(tmp_path):
    nb = reference_nb()
    nb.cells[8].outputs = []
    assert [c.id for c in nbk.reference_from_nb(nb, "r", require_outputs=False).checks] == ["c1", "c2"]
    path = tmp_path / "ref.ipynb"
    nbformat.write(nb, str(path))
    with pytest.raises(ReferenceNotebookError, match="has no stored verdict output"):
        nbk.load_reference(path)
    assert nbk.load_reference(path, require_outputs=False).path == str(path)
    (tmp_path / "bad.ipynb").write_text("{")
    with pytest.raises(ReferenceNotebookError, match=f"^reference: cannot read {tmp_path / 'bad.ipynb'}: "):
        nbk.load_reference(tmp_path / "bad.ipynb")


def test_imported_modules_lists_modules_and_possible_submodules_once_in_order():
    nb = nbformat.v4.new_notebook()
    nb.cells = [code("import numpy as np, os.path\nfrom lessonlib import se3, so3\nfrom lessonlib import se3"),
                nbformat.v4.new_markdown_cell("import sympy"),
                code("def broken(:"),
                code("from . import local\nfrom .pkg import thing\nfrom math import *\nimport json"),
                code(["from scipy ", "import linalg"])]
    assert nbk.imported_modules(nb) == ["numpy", "os.path", "lessonlib", "lessonlib.se3", "lessonlib.so3", "math",
                                        "json", "scipy", "scipy.linalg"]


def test_a_cells_source_is_text_or_the_submission_is_refused():
    assert nbk._source({"source": ["a\n", "b"]}) == "a\nb" and nbk._source({}) == ""
    for bad in ({"source": ["a", 1]}, {"source": 7}):
        with pytest.raises(SubmissionError, match="^a cell's source is not text$"):
            nbk._source(bad)


# --- reading a submission --------------------------------------------------------------------------------

def submission(tmp_path, cells, name="alice.ipynb"):
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    path = tmp_path / name
    path.write_text(json.dumps(nb))
    return path


def test_answers_are_matched_by_lessonlib_id_then_cell_id_then_order(tmp_path):
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    path = submission(tmp_path, [
        code('student_id = "alice"', tags=["answer"], meta={"id": "answer-id"}),
        code("def g(x):\n    return 2 * x", tags=["answer"], cell_id="cell-g"),
        code("def f(x):\n    return 3 * x", tags=["answer"], meta={"id": "answer-f"}),
        code("check('c1', f)", tags=["check"], meta={"id": "c1", "points": 2}, cell_id="check-c1"),
        code("print('scratch')", cell_id="mine"),
        code("print('more')", cell_id="mine-too"),
        code("import numpy as np", cell_id="setup"),             # the reference's own cell, kept: not counted
        code("   "),
    ])
    sub = nbk.read_submission(path, ref)
    assert sub.answers == {"answer-id": 'student_id = "alice"', "answer-f": "def f(x):\n    return 3 * x",
                           "cell-g": "def g(x):\n    return 2 * x"}
    assert (sub.student_id, sub.id_source, sub.ignored_cells, sub.path) == ("alice", "notebook", 2, str(path))
    assert sub.notes == ["2 code cell(s) you added outside the answer cells were not run: put all your code in the "
                         "answer cells"]


def test_untagged_answers_fall_back_on_order_and_a_cell_is_never_used_twice(tmp_path):
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    path = submission(tmp_path, [code('student_id = "your-id-here"', tags=["answer"]),
                                 code("def f(x):\n    return x", tags=["answer"])], name="bob_07.ipynb")
    sub = nbk.read_submission(path, ref)
    assert sub.answers == {"answer-id": 'student_id = "your-id-here"', "answer-f": "def f(x):\n    return x",
                           "cell-g": ""}
    assert (sub.student_id, sub.id_source, sub.ignored_cells) == ("bob_07", "file", 0)
    assert sub.notes == ["answer cell 'cell-g' not found in the submission",
                         "your notebook's student_id is not filled in (first answer cell): fill it in so that your "
                         "grade reaches you"]
    twice = submission(tmp_path, [code("x = 1", tags=["answer"], meta={"id": "answer-f"}, cell_id="answer-id")],
                       name="c.ipynb")
    sub = nbk.read_submission(twice, ref)
    assert sub.answers == {"answer-id": "", "answer-f": "x = 1", "cell-g": ""}


def test_a_check_cell_is_never_taken_as_an_answer(tmp_path):
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    path = submission(tmp_path, [code("def g(x):\n    return x", tags=["answer", "check"], cell_id="cell-g",
                                      meta={"id": "answer-id"})])
    assert nbk.read_submission(path, ref).answers == {"answer-id": "", "answer-f": "", "cell-g": ""}


def test_answers_over_the_size_limit_are_refused(tmp_path, monkeypatch):
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    path = submission(tmp_path, [code("x" * 60, tags=["answer"], meta={"id": "answer-f"})])
    monkeypatch.setattr(nbk, "MAX_ANSWER_CHARS", 59)
    with pytest.raises(SubmissionError, match=r"^the answer cells hold 60 characters \(limit 59\)$"):
        nbk.read_submission(path, ref)
    monkeypatch.setattr(nbk, "MAX_ANSWER_CHARS", 60)
    assert nbk.read_submission(path, ref).answers["answer-f"] == "x" * 60


def test_the_size_limits_are_the_documented_ones():
    assert (nbk.MAX_ANSWER_CHARS, nbk.MAX_NOTEBOOK_BYTES) == (2**20, 64 * 2**20)


@pytest.mark.parametrize("text, message", [
    ("not json", r"^not a Jupyter notebook \(invalid JSON: "),
    (json.dumps([1]), r"^not a Jupyter notebook \(no list of cells\)$"),
    (json.dumps({"cells": {}}), r"^not a Jupyter notebook \(no list of cells\)$"),
    (json.dumps({"cells": [], "nbformat": 3}), r"^not a version-4 Jupyter notebook \(nbformat 3\)$"),
    (json.dumps({"cells": [1], "nbformat": 4}), r"^not a Jupyter notebook \(a cell is not an object\)$"),
    ("\udcff", None),
])
def test_what_is_not_a_notebook_is_refused(tmp_path, text, message):
    path = tmp_path / "x.ipynb"
    if message is None:
        path.write_bytes(b"\xff\xfe")
        message = r"^not a Jupyter notebook \(invalid JSON: "
    else:
        path.write_text(text)
    with pytest.raises(SubmissionError, match=message):
        nbk.read_json_notebook(path)


def test_student_ids_are_read_as_literals_and_placeholders_are_none():
    assert nbk.parse_student_id('student_id = "s123"') == "s123"
    assert nbk.parse_student_id('x = 1\nstudent_id = "a b/c"') == "a_b_c"
    for source in ('student_id = "your-id-here"', 'student_id = ""', "student_id = 7", "student_id = name",
                   'a = student_id = "x"', 'student_id: str = "x"', "student_id = (", 'other = "x"'):
        assert nbk.parse_student_id(source) is None, source


def test_the_graded_notebook_is_the_reference_with_the_answers_replaced():
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    sub = nbk.Submission("s.ipynb", {"answer-id": 'student_id = "s"', "answer-f": "def f(x):\n    return -x"}, "s")
    nb, roles = nbk.build_graded(ref, sub)
    assert roles == [CellRole("setup"), CellRole("answer", "answer-id"), CellRole("answer", "answer-f"),
                     CellRole("check", "c1"), CellRole("answer", "cell-g"), CellRole("check", "c2")]
    assert [c.source for c in nb.cells] == ["import numpy as np", 'student_id = "s"', "def f(x):\n    return -x",
                                            "check('c1', f)", "", "check('c2', g)"]
    assert nb.cells[3].outputs == VERDICT and nb.cells[3].metadata["tags"] == ["check", "raises-exception"]
    assert nb.cells[2].outputs == [] and "tags" not in nb.cells[2].metadata and "tags" not in nb.cells[0].metadata
    assert nb.metadata == {"kernelspec": {"name": "lessonlib-grade", "display_name": "lessonlib grader",
                                          "language": "python"}, "language_info": {"name": "python"}}
    assert nbk.KERNEL_NAME == "lessonlib-grade" and nb.cells[3].execution_count == 5
    nb.cells[3].outputs[0]["text"] = "changed"                 # the graded notebook's outputs are its own copy
    assert ref.nb.cells[5].outputs[0]["text"] == "✓ [c1] passed\n"


def test_a_deleted_answer_cell_does_not_pull_a_named_one_out_of_its_place(tmp_path):
    """The student deleted the student-id cell: the order fallback must not take the named (b) cell for it."""
    ref = nbk.reference_from_nb(reference_nb(), "ref.ipynb")
    path = submission(tmp_path, [code("def f(x):\n    return x", tags=["answer"], meta={"id": "answer-f"}),
                                 code("def g(x):\n    return x", tags=["answer"])], name="carol.ipynb")
    sub = nbk.read_submission(path, ref)
    assert sub.answers["answer-f"] == "def f(x):\n    return x" and sub.answers["answer-id"] == ""
    assert sub.student_id == "carol" and "answer cell 'answer-id' not found in the submission" in sub.notes



# --- the file itself: a regular file of bounded size, opened without following a symlink -------------------------

def test_only_a_regular_file_is_opened_and_never_through_a_symlink(tmp_path):
    import fcntl                                            # noqa: PLC0415
    import os                                               # noqa: PLC0415
    real = tmp_path / "real.ipynb"
    real.write_text("{}")
    fd = nbk.open_regular(real)
    try:
        assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC and not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK
        assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
    finally:
        os.close(fd)
    assert nbk.read_regular(real) == b"{}"
    (tmp_path / "link.ipynb").symlink_to(real)
    os.mkfifo(tmp_path / "fifo.ipynb")
    (tmp_path / "dir.ipynb").mkdir()
    for name, message in (("link.ipynb", "the submission is a symbolic link, not a notebook file; submit the file itself"),
                          ("fifo.ipynb", "the submission is not a regular file (a device, a pipe or a socket); submit "
                                         "the notebook file itself"),
                          ("dir.ipynb", "the submission is not a regular file (a device, a pipe or a socket); submit "
                                        "the notebook file itself"),
                          ("missing.ipynb", "cannot read the file: No such file or directory")):
        with pytest.raises(SubmissionError) as exc:
            nbk.open_regular(tmp_path / name)
        assert str(exc.value) == message, name


def test_a_file_over_the_limit_is_refused_before_a_byte_is_read(tmp_path):
    big = tmp_path / "big.ipynb"
    with open(big, "wb") as fh:
        fh.truncate(nbk.MAX_NOTEBOOK_BYTES + 1)             # sparse: no disk used
    with pytest.raises(SubmissionError) as exc:
        nbk.read_regular(big)
    assert str(exc.value) == "the file is 64 MB; notebooks over 64 MB are not graded (clear the outputs and resubmit)"
    with open(big, "r+b") as fh:
        fh.truncate(nbk.MAX_NOTEBOOK_BYTES)
    assert len(nbk.read_regular(big)) == nbk.MAX_NOTEBOOK_BYTES


def test_a_file_that_grows_after_its_size_was_checked_is_refused(tmp_path, monkeypatch):
    import os                                               # noqa: PLC0415
    big = tmp_path / "grown.ipynb"
    with open(big, "wb") as fh:
        fh.truncate(nbk.MAX_NOTEBOOK_BYTES + 1)
    monkeypatch.setattr(nbk, "open_regular", lambda path: os.open(path, os.O_RDONLY))   # as if checked while small
    with pytest.raises(SubmissionError) as exc:
        nbk.read_regular(big)
    assert str(exc.value) == "notebooks over 64 MB are not graded"
