"""The page on writing checks (``lessonlib/grading/WRITING-CHECKS.md``) is true: its complete example — a new
exercise outside the repository, scaffolded, extended, synced, previewed, graded locally and on dask, exported
for Gradescope — runs as written, and gives what the page says it gives."""
from __future__ import annotations

import csv
import os
import pathlib
import re
import subprocess
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGE = ROOT / "lessonlib" / "grading" / "WRITING-CHECKS.md"
pytestmark = pytest.mark.slow


def example_blocks(text=None):
    """The ``bash`` blocks of the section "A complete example", in order."""
    text = PAGE.read_text(encoding="utf-8") if text is None else text
    section = text.split("\n## A complete example", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def test_the_example_is_the_whole_walkthrough():
    blocks = example_blocks()
    script = "\n".join(blocks)
    for command in ("lessonlib-author new", "lessonlib-author sync", "lessonlib-author check", "--self",
                    "--gradebook gradebook.csv", "--scheduler", "--export gradescope"):
        assert command in script, command
    assert not re.search(r"^(python|jupyter|pytest|pip)\b", blocks[0], flags=re.M)   # PATH is set before anything runs
    assert blocks[0].startswith('export PATH="$PWD/.venv/bin:$PATH"')


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + "\n".join(example_blocks())
    env = {k: v for k, v in os.environ.items() if k != "LESSONLIB_CHECKERS"} | {"HOME": os.fspath(home)}
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    return {"done": done, "dir": home / "teaching"}


def _gradebook(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["student_id"]: (row["total"], row["max"]) for row in csv.DictReader(fh)}


def test_every_command_of_the_example_runs(walked):
    done = walked["done"]
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_the_example_gives_what_the_page_says(walked):
    out, d = walked["done"].stdout, walked["dir"]
    assert "added a check cell for 'pendulum-energy'" in out and "table of parts: points [1, 0] → [1, 2]" in out
    assert out.count("in step") >= 3 and "out of step" not in out
    assert "**Score: 0 / 3**" in out and "**Score: 3 / 3**" in out                      # the two previews
    assert "is a solution notebook: checked against itself" in out
    assert _gradebook(d / "gradebook.csv") == {"alice": ("3", "3"), "bob": ("0", "3")}
    assert "likely mistake: the kinetic energy seems to miss its ½" in (d / "feedback" / "bob.md").read_text()
    assert _gradebook(d / "gradebook-dask.csv") == _gradebook(d / "gradebook.csv")
    with zipfile.ZipFile(d / "gradescope-13.zip") as zf:
        names = set(zf.namelist())
    assert {"setup.sh", "run_autograder", "reference/13_pendulum.ipynb", "checkers/0/pendulum13.py"} <= names
    assert "checkers/0/pendulum13.py" in out                                          # the zip's listing
