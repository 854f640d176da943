"""Hostile files and hostile names: the batch always completes, a row per submission, nothing forged.

One batch of exercise 05 holds two honest students and every file-level attack of issue 24: a
submission that is a symlink to ``/dev/zero`` or ``/dev/stdin``, a FIFO, a symlinked directory that
loops, a sparse file one byte over the size limit, JSON nested a hundred thousand deep, a valid
notebook whose parse would cost gigabytes, a disk filler, ``h1~honest.ipynb`` beside
``h1_honest.ipynb``, a spreadsheet formula as the student id and a file name with a newline and a
forged result line. The environment-failure rules (graded again once, never recorded) are unit tests.
"""
from __future__ import annotations

import csv
import json
import os
import pathlib
import subprocess
import sys

import pytest

from lessonlib.grading import grader
from lessonlib.grading.checks.authoring import answers_of
from lessonlib.grading.checks.checker import load_exercise
from lessonlib.grading.notebook import MAX_NOTEBOOK_BYTES, load_reference
from lessonlib.grading.report.records import Records
from lessonlib.grading.report.results import CheckResult, SubmissionResult

from grading_common import EXERCISE, MAX, ROOT, SOLUTION, make_submission

FORGED = "x\nh1_honest.ipynb  12/12  passed 11.ipynb".replace("/", " of ")
DISK_FILLER = '''
def rnea(model, q, qd, qdd, gravity=None):
    n = 0
    while True:                                # the kernel's only writable place, until the disk is full
        with open(f"fill{n}", "wb") as fh:
            for _ in range(48):
                fh.write(b"x" * (1 << 20))
        n += 1
'''


#: The judge as an oracle: the answer cell asks for a check itself, reads the judge's message, and
#: swaps in a fix when a known mistake is named — then the check cell grades the fix.
ORACLE = '''
import lessonlib.grading as _grading
_heard = ""
for _check in ("rnea-full-chain", "rnea-full-chain", "rnea-full-tree"):
    try:
        _grading.check(_check, rnea)
    except BaseException as _e:
        _heard += str(_e)
if "gravity" in _heard or "sign" in _heard:
    _wrong = rnea

    def rnea(model, q, qd, qdd, gravity=None):
        import numpy as _np
        g = model.gravity if gravity is None else _np.asarray(gravity, dtype=float)
        return _wrong(model, q, qd, qdd, gravity=-g)
'''


#: A judge of its own: a thread in the kernel answers every check with its passing verdict line, on a
#: Unix socket in the run's channel directory, and the client is pointed at it.
FAKE_JUDGE = '''
import os as _os, socket as _socket, threading as _threading
from lessonlib.grading.kernel import protocol as _protocol
_LINES = LINES_HERE
_path = _os.path.join(_os.path.dirname(_os.environ["LESSONLIB_JUDGE"][len("unix:"):]), "fake.sock")
_server = _socket.socket(_socket.AF_UNIX)
_server.bind(_path)
_server.listen()


def _answer_everything():
    while True:
        conn, _ = _server.accept()
        with conn:
            asked = _protocol.recv(conn)
            _protocol.send(conn, {"op": "verdict", "passed": True, "line": _LINES.get(asked.get("check"), "")})


_threading.Thread(target=_answer_everything, daemon=True).start()
_os.environ["LESSONLIB_JUDGE"] = "unix:" + _path
'''


def _notebook(path, given=None, student=None):
    """A submission of exercise 05 (:func:`grading_common.make_submission`), its student id its file name's."""
    return make_submission(path, given or {}, student=student or path.stem)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    subs, out = tmp_path_factory.mktemp("hostile-subs"), tmp_path_factory.mktemp("hostile-out")
    solved, blank = answers_of(SOLUTION), answers_of(EXERCISE)
    honest = {k: v for k, v in solved.items() if k != "answer-student-id"}
    _notebook(subs / "h1_honest.ipynb", honest, "h1")
    _notebook(subs / "h1~honest.ipynb", {}, "h1tilde")                    # a stub: 0 points
    _notebook(subs / "classmate.ipynb", honest, "classmate")
    _notebook(subs / "filler.ipynb", {**honest, "answer-rnea": honest["answer-rnea"] + DISK_FILLER})
    buggy = {**honest, "answer-rnea": honest["answer-rnea"].replace("a0[LIN] = -g", "a0[LIN] = g")}
    assert buggy["answer-rnea"] != honest["answer-rnea"]
    _notebook(subs / "bug.ipynb", buggy)
    _notebook(subs / "oracle.ipynb", {**buggy, "answer-rnea": buggy["answer-rnea"] + ORACLE})
    lines = {cid: c.line for cid, c in load_exercise("rnea05").checks.items()}
    _notebook(subs / "fakejudge.ipynb", {"answer-static": FAKE_JUDGE.replace("LINES_HERE", repr(lines))
                                         + blank["answer-static"]})
    _notebook(subs / "formula.ipynb", {}, "-1+1")
    _notebook(subs / FORGED, {}, "forger")
    os.symlink("/dev/zero", subs / "zero.ipynb")
    os.symlink("/dev/stdin", subs / "stdin.ipynb")
    os.mkfifo(subs / "fifo.ipynb")
    (subs / "loop").mkdir()
    os.symlink("..", subs / "loop" / "again")                            # a directory scan must not follow it
    with open(subs / "huge.ipynb", "wb") as fh:                          # sparse: costs no disk
        fh.truncate(MAX_NOTEBOOK_BYTES + 1)
    (subs / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    with open(subs / "bomb.ipynb", "w") as fh:                           # 36 MB that json makes 800 MB of
        fh.write('{"nbformat": 4, "cells": [], "x": [' + "{}," * 12_000_000 + "{}]}")
    args = [sys.executable, "-m", "lessonlib.grading.cli", "--reference", SOLUTION, subs, "--out", out / "checks.csv",
            "--json", out / "results.json", "--gradebook", out / "grades.csv", "--feedback", out / "feedback",
            "-j", "2", "--cell-timeout", "60"]
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=ROOT, timeout=900,
                          stdin=subprocess.PIPE)
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else {}
    return {"proc": proc, "results": results, "out": out, "subs": subs}


def _statuses(r):
    return {c["status"] for c in r["checks"].values()}


def test_the_batch_completes_with_a_row_per_submission(batch):
    proc, results = batch["proc"], batch["results"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = {"h1_honest.ipynb", "h1~honest.ipynb", "classmate.ipynb", "filler.ipynb", "formula.ipynb", FORGED,
             "bug.ipynb", "oracle.ipynb", "fakejudge.ipynb",
             "zero.ipynb", "stdin.ipynb", "fifo.ipynb", "huge.ipynb", "deep.ipynb", "bomb.ipynb"}
    assert set(results) == names                                        # the looping directory added nothing
    with open(batch["out"] / "grades.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == len(names)


@pytest.mark.parametrize("name, phrase", [
    ("zero.ipynb", "symbolic link"), ("stdin.ipynb", "symbolic link"), ("fifo.ipynb", "not a regular file"),
    ("huge.ipynb", f"notebooks over {MAX_NOTEBOOK_BYTES // 2**20} MB are not graded"),
    ("deep.ipynb", "not a Jupyter notebook"), ("bomb.ipynb", "MiB of memory")])
def test_a_file_that_is_not_a_notebook_is_unreadable_with_a_reason(batch, name, phrase):
    r = batch["results"][name]
    assert r["total"] == 0 and _statuses(r) == {"unreadable"}
    assert phrase in next(iter(r["checks"].values()))["message"]


def test_honest_classmates_keep_full_marks_beside_a_disk_filler(batch):
    results = batch["results"]
    for name in ("h1_honest.ipynb", "classmate.ipynb"):
        assert results[name]["total"] == results[name]["max"] == MAX, results[name]
    filler = results["filler.ipynb"]["checks"]
    full = {cid: c for cid, c in filler.items() if cid.startswith("rnea-full")}
    assert full and {c["status"] for c in full.values()} == {"disk-limit"}, filler
    assert all(c["message"].startswith("your code reached the disk limit (64 MiB") for c in full.values())
    assert {c["status"] for cid, c in filler.items() if cid not in full} == {"passed"}     # the rest is its own


def test_the_judge_is_no_oracle(batch):
    """Asking the judge from an answer cell is refused and recorded: the bug scores what it scores alone."""
    bug, oracle = batch["results"]["bug.ipynb"], batch["results"]["oracle.ipynb"]
    assert 0 < bug["total"] < bug["max"]
    assert oracle["total"] <= bug["total"]
    full = {cid: c for cid, c in oracle["checks"].items() if cid.startswith("rnea-full")}
    assert {c["status"] for c in full.values()} <= {"failed", "needs-review"}, full
    assert all(c["points"] == 0 for c in full.values())
    for c in full.values():
        if c["status"] == "needs-review":
            assert "outside its check cell" in c["message"]
    asked = [f for f in oracle["flags"] if f.startswith("your code asked the grader to judge rnea-full")]
    assert len(asked) == 3 and sum("outside its check cell (from your answer cell" in f for f in asked) == 2, asked
    assert "rnea-full-tree (a check this exercise does not have) (from your answer cell" in asked[2]
    assert bug["flags"] == []


def test_a_judge_of_its_own_earns_nothing(batch):
    """The check cells print every verdict line the fake judge hands them, but the grader believes only its
    judge's pipe: each check is unverified, 0 points, and the classmates keep theirs."""
    fake = batch["results"]["fakejudge.ipynb"]
    assert fake["total"] == 0 and fake["withheld"] == 0
    assert set(_statuses(fake)) == {"unverified"}, _statuses(fake)
    assert all("the grader's run of this check never ran" in c["message"] for c in fake["checks"].values())
    assert batch["results"]["classmate.ipynb"]["total"] == MAX


def test_two_submissions_two_feedback_files(batch):
    files = sorted(os.listdir(batch["out"] / "feedback"))
    assert len(files) == len(batch["results"])
    honest = (batch["out"] / "feedback" / "h1_honest.md").read_text()
    assert "12 / 12" in honest or "12/12" in honest
    tilde = [f for f in files if f.startswith("h1_honest-")]
    assert len(tilde) == 1 and "12 / 12" not in (batch["out"] / "feedback" / tilde[0]).read_text()


def test_no_formula_in_the_gradebook_and_no_forged_line_on_the_terminal(batch):
    with open(batch["out"] / "grades.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    ids = {r["submission"].rsplit("/", 1)[-1]: r["student_id"] for r in rows}
    assert ids["formula.ipynb"] == "'-1+1"
    assert not [v for r in rows for v in r.values() if v[:1] in ("=", "+", "-", "@", "\t", "\r")]
    table = batch["proc"].stdout
    assert "x\\nh1_honest.ipynb" in table
    assert [line for line in table.splitlines() if line.startswith("h1_honest.ipynb")] == \
        [line for line in table.splitlines() if line.startswith("h1_honest.ipynb ")][:1]      # one real row


# --- environment failures: graded again once, never recorded -------------------------------------------

def _result(status):
    r = SubmissionResult("a.ipynb", "a.ipynb")
    r.checks = {"c": CheckResult("c", 1 if status == "passed" else 0, 1, status, "")}
    r.error = "JudgeFailed: the judge died" if status == "grader-error" else ""
    return r


class _Shared:
    def __init__(self):
        import threading
        self.abort = threading.Event()

    def close(self):
        pass


def test_a_grader_failure_is_graded_again_once(monkeypatch):
    runs = iter(["grader-error", "passed"])
    monkeypatch.setattr(grader, "_grade_once", lambda *a: _result(next(runs)))
    r = grader.grade_submission(None, "a.ipynb", shared=_Shared())
    assert r.checks["c"].status == "passed"
    assert r.flags == ["graded twice: the grader's first run failed (JudgeFailed: the judge died)"]
    runs = iter(["grader-error", "grader-error", "passed"])
    assert grader.grade_submission(None, "a.ipynb", shared=_Shared()).checks["c"].status == "grader-error"
    assert next(runs) == "passed"                                        # twice, not three times


def test_a_grader_failure_is_never_recorded(monkeypatch, tmp_path):
    reference = load_reference(SOLUTION)
    subs = [("a.ipynb", str(tmp_path / "a.ipynb")), ("b.ipynb", str(tmp_path / "b.ipynb"))]
    for _, p in subs:
        pathlib.Path(p).write_text("{}")
    outcome = {"a.ipynb": "grader-error", "b.ipynb": "passed"}

    def fake(reference, path, options, *, name, shared):
        r = _result(outcome[name])
        r.submission = name
        return r
    monkeypatch.setattr(grader, "grade_submission", fake)
    records = Records(tmp_path / "records")
    grader.grade_batch(reference, subs, progress=False, shared=_Shared(), records=records)
    key = grader.reference_key(reference, grader.Options())
    assert records.get("a.ipynb", grader.submission_key(subs[0][1], key)) is None       # graded again next time
    assert records.get("b.ipynb", grader.submission_key(subs[1][1], key)).checks["c"].status == "passed"


# --- a neighbour that burns every core ------------------------------------------------------------------

#: How much slower an honest run may be beside a submission that keeps 40 processes busy (each trying
#: ``setsid`` to escape its session), than beside one that sleeps. Each kernel is a session of its own,
#: so the scheduler's autogroups share the CPU between kernels, not between their processes.
SLOWDOWN_BOUND = 3.0
BURNER = '''
import os, time
for _ in range(40):
    if os.fork() == 0:
        try:
            os.setsid()                                # refused inside the walls
        except OSError:
            pass
        end = time.time() + 20
        while time.time() < end:
            pass
        os._exit(0)
time.sleep(15)
'''
SLEEPER = '''
import time
time.sleep(15)
'''


def _honest_seconds(tmp_path, neighbour):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir(parents=True)
    out.mkdir()
    solved = {k: v for k, v in answers_of(SOLUTION).items() if k != "answer-student-id"}
    _notebook(subs / "a_neighbour.ipynb", {"answer-static": neighbour + answers_of(EXERCISE)["answer-static"]})
    for k in range(3):
        _notebook(subs / f"b_honest{k}.ipynb", solved)
    args = [sys.executable, "-m", "lessonlib.grading.cli", "--reference", SOLUTION, subs, "--json",
            out / "results.json", "-j", "2", "-q", "--cell-timeout", "60"]
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    assert all(results[f"b_honest{k}.ipynb"]["total"] == MAX for k in range(3))
    return max(results[f"b_honest{k}.ipynb"]["seconds"] for k in range(3)), results["a_neighbour.ipynb"]


@pytest.mark.slow
def test_a_neighbour_burning_every_core_slows_honest_runs_a_bounded_factor(tmp_path):
    calm, _ = _honest_seconds(tmp_path / "calm", SLEEPER)
    busy, burner = _honest_seconds(tmp_path / "busy", BURNER)
    print(f"honest run beside a sleeper {calm:.2f} s, beside 40 busy processes {busy:.2f} s "
          f"({busy / calm:.2f}x; bound {SLOWDOWN_BOUND}x)")
    assert busy <= SLOWDOWN_BOUND * calm, (busy, calm)
    assert burner["total"] == 0
