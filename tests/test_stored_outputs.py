"""Stored outputs are what a reader sees: every course notebook's outputs come from a full run.

``make outputs`` (tools/outputs.py) stores them; this file checks, without running any notebook,
that (1) the metadata says they come from a full run of the notebook's current code, and (2) every
cell whose output depends on the mode (``running_under_test()``) or the clock carries the tags
``mode-dependent`` and ``nbval-ignore-output``. nbval (``make test``) then compares every other
cell, run in test mode, against the full-run outputs. The last test runs the tool itself on a
small throw-away notebook.
"""
from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import nbformat
import pytest

from tools import outputs
from tools.outputs import IGNORE_TAG, MODE_TAG, code_hash, mode_readers, problems

REPO = Path(__file__).resolve().parents[1]
COURSE = sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.name)
def test_course_outputs_come_from_a_full_run(path):
    found = problems(nbformat.read(path, as_version=4), path.name)
    assert not found, "\n".join(found)


# --- the analysis, on notebooks made here -------------------------------------------------------
def _nb(*sources, tags=None, outputs_=True):
    cells = []
    for k, source in enumerate(sources):
        cell = nbformat.v4.new_code_cell(source)
        if outputs_:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x\n")]
        if tags and k in tags:
            cell.metadata["tags"] = list(tags[k])
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata[outputs.META_KEY] = {"outputs": outputs.FULL_RUN, "code_sha256": code_hash(nb)}
    return nb


def test_derived_names_are_followed_through_loops_containers_and_functions():
    nb = _nb("from lessonlib.viz import running_under_test\nns = [2, 4] if running_under_test() else [2, 4, 8]",
             "times = []\nfor n in ns:\n    times.append(n * 2)",       # loop over a derived value, append
             "print(max(times))",                                           # derived through the container
             "def total():\n    return sum(times)",                         # a function reading a derived global
             "print(total())",
             "times = [1, 2]\nprint(times)",                                # reassigned: no longer derived
             "print([n for n in range(3)])",                                # a comprehension's own n
             "import time\nt0 = time.perf_counter()",
             "elapsed = time.perf_counter() - t0\nprint(f'{elapsed:.1f} s')")
    readers = mode_readers(nb)
    assert sorted(readers) == [0, 1, 2, 4, 7, 8], readers
    assert any("times" in r for r in readers[2]) and any("total" in r for r in readers[4])
    assert any("the clock" in r for r in readers[8])


def test_timing_magics_read_the_clock():
    assert sorted(mode_readers(_nb("%timeit sum(range(10))", "%%time\nx = 1", "y = 2"))) == [0, 1]


def test_problems_name_the_cell_and_what_to_do():
    nb = _nb("from lessonlib.viz import running_under_test\nSHORT = running_under_test()",
             "print(3 if SHORT else 5)", "print(7)", tags={2: [MODE_TAG, IGNORE_TAG]})
    found = problems(nb, "99_demo.ipynb")
    assert len(found) == 3, found
    assert "99_demo.ipynb cell 0" in found[0] and MODE_TAG in found[0]          # has output, reads the mode
    assert "cell 1" in found[1] and "SHORT" in found[1]
    assert "cell 2" in found[2] and "remove the tag" in found[2]             # tagged but reads nothing
    nb.cells[0].outputs = []                                                  # a silent cell needs no tag
    nb.cells[1].metadata["tags"] = [MODE_TAG]
    nb.cells[2].metadata["tags"] = []
    found = problems(nb, "99_demo.ipynb")
    assert len(found) == 1 and f"not {IGNORE_TAG!r}" in found[0], found


def test_problems_catch_test_mode_outputs_and_edited_code():
    nb = _nb("print(1)")
    assert problems(nb) == []
    nb.cells[0].source = "print(2)"
    assert "code changed" in problems(nb, "05_x.ipynb")[0] and "LESSON=05" in problems(nb, "05_x.ipynb")[0]
    del nb.metadata[outputs.META_KEY]
    assert "full run" in problems(nb, "05_x.ipynb")[0]


def test_lesson_paths_accept_numbers_names_and_paths():
    assert [p.name for p in outputs.lesson_paths(["5"])] == ["05_rnea.ipynb"]
    assert outputs.lesson_paths(["05", str(COURSE[0])]) == [REPO / "course" / "05_rnea.ipynb", COURSE[0]]
    assert len(outputs.lesson_paths([])) == len(COURSE)
    with pytest.raises(SystemExit, match="no course notebook starts with '99'"):
        outputs.lesson_paths(["99"])


# --- the tool itself ------------------------------------------------------------------------------
@pytest.mark.slow
def test_full_run_stores_outputs_pictures_and_metadata(tmp_path, monkeypatch):
    """A throw-away notebook: full mode (the test-mode variable removed), widget views with a PNG beside them."""
    monkeypatch.setenv("LESSONLIB_TESTING", "1")                # the tool must drop it for the kernel
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in (
        "import ipywidgets as widgets\nfrom lessonlib import samples\n"
        "from lessonlib.viz import ArmView, running_under_test\nprint('under test:', running_under_test())",
        "view = ArmView(samples.planar_2link(), [0.3, 0.6], width=320, height=240)\nview",
        "slider = widgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.1, description='q1')\n"
        "widgets.VBox([slider, view.widget])",
        "view.update([1.0, -0.5])")])
    path = tmp_path / "demo.ipynb"
    nbformat.write(nb, path)
    outputs.run_full(path, timeout=120, log=lambda *a: None)
    stored = json.loads(path.read_text())
    assert stored["metadata"][outputs.META_KEY] == {"outputs": "full run", "code_sha256": code_hash(stored)}
    assert "widgets" not in stored["metadata"]                 # no widget state: nbconvert and GitHub use the PNG
    cells = stored["cells"]
    assert "".join(cells[0]["outputs"][0]["text"]) == "under test: False\n"
    assert all("execution" not in c["metadata"] for c in cells)
    from PIL import Image
    for k in (1, 2):
        data = cells[k]["outputs"][0]["data"]
        assert outputs.WIDGET_VIEW in data and "image/png" in data, sorted(data)
        image = Image.open(io.BytesIO(base64.b64decode(data["image/png"])))
        assert image.width >= 200 and image.height >= 150, image.size
    assert "".join(cells[1]["outputs"][0]["data"]["text/plain"]) == "ArmView('planar_2link')"
    found = problems(stored, "demo.ipynb")            # metadata and hash are right; cell 0 prints the mode
    assert len(found) == 1 and found[0].startswith("demo.ipynb cell 0") and MODE_TAG in found[0], found
