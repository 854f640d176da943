"""The commands in the documentation are the ones that work on a fresh machine: the venv's, as ``make`` installs
them (``.venv/bin/lessonlib-grade``), never a bare ``python`` or ``jupyter`` that may be another installation's —
unless the page first puts the venv's ``bin`` on ``PATH`` (``export PATH="$PWD/.venv/bin:$PATH"``)."""
from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = ["README.md", "README.zh.md", "course/README.md", "lessonlib/grading/README.md",
         "lessonlib/grading/WRITING-CHECKS.md", "benchmarks/README.md"]
BARE = re.compile(r"^\s*(python3?|jupyter|pytest|lessonlib-grade|lessonlib-author|dask)\s")
INLINE = re.compile(r"`((?:python3? -m|jupyter|lessonlib-grade|lessonlib-author) [^`]*)`")
SETS_PATH = 'export PATH="$PWD/.venv/bin:$PATH"'


def bare_commands(text):
    """Command lines of fenced blocks and inline command spans that call a bare interpreter or tool."""
    if SETS_PATH in text:
        return []
    found = [line.strip() for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
             for line in block.splitlines() if BARE.match(line)]
    return found + [m.group(1) for m in INLINE.finditer(text)]


@pytest.mark.parametrize("page", [p for p in PAGES if (ROOT / p).exists()])
def test_no_bare_command_in_the_docs(page):
    assert bare_commands((ROOT / page).read_text(encoding="utf-8")) == []


def test_the_rule_can_fail():
    assert bare_commands("run `jupyter lab` or\n```\npython -m tools.outputs 05\n```\n") == [
        "python -m tools.outputs 05", "jupyter lab"]
    assert bare_commands(f"```bash\n{SETS_PATH}\npython -m x\n```\n") == []
