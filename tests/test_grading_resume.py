"""Resumable, lossless runs: a record per graded submission; an interrupted run restarted grades only the rest.

The record's key covers the submission's bytes, the reference's, the checker module, the options
that change a verdict and the library version; records are written atomically. The slow test
interrupts a real ``lessonlib-grade`` with Ctrl-C (SIGINT) after its first result, checks that every
submission still has a row, restarts it, and checks that only the missing and the changed
submissions are graded again.
"""
from __future__ import annotations

import csv
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import nbformat
import pytest

from lessonlib.grading.checks.authoring import answers_of, filled
from lessonlib.grading.grader import Options
from lessonlib.grading.notebook import load_reference
from lessonlib.grading.grader import reference_key, submission_key
from lessonlib.grading.report.records import Records, records_dir
from lessonlib.grading.report.results import CheckResult, SubmissionResult

from grading_common import MAX

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "05_rnea.ipynb"
PY = sys.executable


def _result(name="a.ipynb"):
    r = SubmissionResult(name, f"/x/{name}", student_id="ana", flags=["f"], notes=["n"], seconds=1.5,
                         protection="Landlock ABI 7")
    r.checks = {"c1": CheckResult("c1", 2, 2, "passed", nbval="passed", judge="pass"),
                "c2": CheckResult("c2", 0, 1, "needs-review", "why", withheld=1)}
    return r


def test_a_record_round_trips_and_is_reused_only_for_the_same_key(tmp_path):
    records = Records(tmp_path / "g.csv.records")
    r = _result()
    records.put("a.ipynb", "k1", r)
    back = records.get("a.ipynb", "k1")
    assert back.as_record() == r.as_record() and back.total == 2 and back.checks["c2"].withheld == 1
    assert records.get("a.ipynb", "k2") is None and records.get("b.ipynb", "k1") is None
    assert [p.name for p in (tmp_path / "g.csv.records").iterdir() if p.name.startswith(".partial")] == []
    (next((tmp_path / "g.csv.records").glob("*.json"))).write_text("{not json")     # a torn file is not reused
    assert records.get("a.ipynb", "k1") is None


def test_the_key_changes_with_the_submission_the_reference_and_the_options(tmp_path):
    reference = load_reference(SOLUTION)
    sub = tmp_path / "s.ipynb"
    sub.write_text("{}")
    base = reference_key(reference, Options())
    key = submission_key(sub, base)
    assert submission_key(sub, base) == key
    assert submission_key(sub, reference_key(reference, Options(cell_timeout=5))) != key
    assert submission_key(sub, reference_key(reference, Options(confinement="none"))) != key
    assert submission_key(sub, reference_key(reference, Options(keep=True))) == key      # keep changes no verdict
    sub.write_text('{"cells": []}')
    assert submission_key(sub, base) != key
    other = tmp_path / "ref.ipynb"
    other.write_bytes(SOLUTION.read_bytes() + b"\n")
    assert reference_key(load_reference(other), Options()) != base


def test_the_key_changes_with_the_graders_own_code(tmp_path, monkeypatch):
    """A grader changed between two runs (a fix in the verdict rule, say) judges every submission anew."""
    import shutil

    from lessonlib.grading import grader
    reference = load_reference(SOLUTION)
    base = reference_key(reference, Options())
    copy = tmp_path / "grading"
    shutil.copytree(pathlib.Path(grader.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(grader, "_HERE", copy)
    assert reference_key(reference, Options()) == base                  # the same modules: the same key
    (copy / "verdict.py").write_bytes((copy / "verdict.py").read_bytes() + b"\n# changed\n")
    assert reference_key(reference, Options()) != base
    (copy / "verdict.py").write_bytes((pathlib.Path(grader.__file__).parent / "verdict.py").read_bytes())
    (copy / "kernel" / "boot.py").write_bytes((copy / "kernel" / "boot.py").read_bytes() + b"\n# changed\n")
    assert reference_key(reference, Options()) != base


def test_a_result_finished_when_ctrl_c_comes_is_recorded_all_the_same(tmp_path, monkeypatch):
    """Ctrl-C between a result and its record (here: during the record's write) loses neither."""
    import threading

    from lessonlib.grading import grader

    class Shared:
        abort = threading.Event()

    def graded(reference, path, options, *, name, shared):
        result = SubmissionResult(name, str(path), student_id=name)
        result.checks = {"c": CheckResult("c", 1, 1, "passed")}
        return result

    class Flaky(Records):
        interrupted = False

        def put(self, name, key, result):
            if not Flaky.interrupted:                      # the user's Ctrl-C, in the middle of the first write
                Flaky.interrupted = True
                raise KeyboardInterrupt
            super().put(name, key, result)

    monkeypatch.setattr(grader, "grade_submission", graded)
    subs = []
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.ipynb").write_text(name)
        subs.append((f"{name}.ipynb", tmp_path / f"{name}.ipynb"))
    records = Flaky(tmp_path / "out.records")
    reference = load_reference(SOLUTION)
    with pytest.raises(grader.Interrupted) as stopped:
        grader.grade_batch(reference, subs, Options(), jobs=1, progress=False, shared=Shared(), records=records)
    finished = [r.submission for r in stopped.value.results if not r.interrupted]
    assert finished and all(records.get(n, submission_key(p, reference_key(reference, Options())))
                            for n, p in subs if n in finished)


def test_records_live_beside_the_first_output():
    assert records_dir([None, "out/grades.json", "x.csv"]) == pathlib.Path("out/grades.json.records")
    assert records_dir(["report/"]) == pathlib.Path("report.records")
    assert records_dir([None, None]) is None


def _make(directory, name, given):
    nbformat.write(filled(ROOT / "exercises" / "05_rnea.ipynb", given, student_id=name), str(directory / f"{name}.ipynb"))


def _cli(subs, out):
    return subprocess.Popen([PY, "-m", "lessonlib.grading.cli", "--reference", str(SOLUTION), str(subs),
                             "--gradebook", str(out / "gradebook.csv"), "--json", str(out / "results.json"),
                             "-j", "1", "--cell-timeout", "60"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_an_interrupted_run_keeps_every_row_and_the_restart_grades_only_the_rest(tmp_path):
    solved = answers_of(SOLUTION)
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    out.mkdir()
    names = ["s1", "s2", "s3", "s4"]
    for name in names:
        _make(subs, name, {k: v for k, v in solved.items() if k != "answer-student-id"})
    records = out / "gradebook.csv.records"
    first = _cli(subs, out)
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and not list(records.glob("*.json")) and first.poll() is None:
        time.sleep(0.2)
    first.send_signal(signal.SIGINT)                            # Ctrl-C after the first result
    _, err = first.communicate(timeout=300)
    assert first.returncode == 130, err[-3000:]
    assert "interrupted" in err
    with open(out / "gradebook.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["submission"].rsplit("/", 1)[-1] for r in rows] == [f"{n}.ipynb" for n in names]     # every row
    results = json.loads((out / "results.json").read_text())
    done = {n for n, r in results.items() if r["total"] == MAX}
    pending = {n for n, r in results.items() if {c["status"] for c in r["checks"].values()} == {"not-run"}}
    assert done and pending and done | pending == set(results)
    assert all("run the same command again" in c["message"] for n in pending for c in results[n]["checks"].values())
    kept = {p.name: p.stat().st_mtime_ns for p in records.glob("*.json")}
    assert len(kept) == len(done)

    _make(subs, "s1", {k: v for k, v in solved.items() if k not in ("answer-student-id", "answer-rnea")})   # changed
    second = _cli(subs, out)
    _, err = second.communicate(timeout=1200)
    assert second.returncode == 0, err[-3000:]
    results = json.loads((out / "results.json").read_text())
    assert {n: r["total"] for n, r in results.items()} == {"s1.ipynb": 8, "s2.ipynb": 12, "s3.ipynb": 12,
                                                           "s4.ipynb": 12}
    now = {p.name: p.stat().st_mtime_ns for p in records.glob("*.json")}
    assert len(now) == len(names)
    regraded = {name for name, mtime in now.items() if kept.get(name) != mtime}
    assert len(regraded) == len(names) - len(done) + ("s1.ipynb" in done)       # the missing ones and s1 only
