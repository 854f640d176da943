"""What a graded kernel can import, and the judge spoken to directly: it answers only the check cell that runs."""
from __future__ import annotations

import json
import os
import struct
import subprocess
import time

import numpy as np
import sandbox_world

from lessonlib.grading.grader import Options
from lessonlib.grading.judge_process import JudgeProcess
from lessonlib.grading.kernel import protocol
from grading_common import EX, LINES, solution_namespace


# --- sandbox: what a graded kernel can import -----------------------------------------------------------

def test_sandbox_blocks_the_targets_and_other_robotics_libraries(tmp_path):
    probe = r'''
out = {}
import lessonlib, lessonlib.kinematics, lessonlib.grading
out["file"] = lessonlib.__file__
for stmt in ["from lessonlib.dynamics import rnea", "import lessonlib.dynamics.rnea as m; m.rnea",
             "lessonlib.kinematics.body_twists(None, None, None)", "import modern_robotics", "import pinocchio",
             "import lessonlib.grading.checks.judge", "import lessonlib.grading.checks.exercises.rnea05",
             "import lessonlib.dynamics.rnea; from lessonlib.dynamics import rnea; rnea(None, [], [], [])"]:
    try:
        exec(stmt)
        out[stmt] = "ok"
    except BaseException as e:
        out[stmt] = type(e).__name__
from lessonlib import samples
out["fk"] = lessonlib.kinematics.fk(samples.planar_2link(), [0, 0])[-1][0, 3]
print(json.dumps(out))
'''
    out, _ = sandbox_world.run(tmp_path, EX, probe)
    assert not any("exercises" in p.parts or "checks" in p.parts for p in (tmp_path / "sandbox").rglob("*.py"))
    assert out["file"].startswith(str(tmp_path / "sandbox" / "lib"))
    assert out["from lessonlib.dynamics import rnea"] == "NotAvailableWhileGrading"
    assert out["import lessonlib.dynamics.rnea as m; m.rnea"] == "NotAvailableWhileGrading"
    assert out["lessonlib.kinematics.body_twists(None, None, None)"] == "NotAvailableWhileGrading"
    assert out["import modern_robotics"] == out["import pinocchio"] == "ModuleNotFoundError"
    assert out["import lessonlib.grading.checks.judge"] == "ModuleNotFoundError"
    assert out["import lessonlib.grading.checks.exercises.rnea05"] == "ModuleNotFoundError"
    assert out["fk"] == 1.0
    # the submodule named like the function (lesson 09's own import line, after the submodule was imported):
    # calling it is the same used-library, not "'module' object is not callable"
    assert out["import lessonlib.dynamics.rnea; from lessonlib.dynamics import rnea; rnea(None, [], [], [])"] == \
        "NotAvailableWhileGrading"


# --- the judge, spoken to directly -------------------------------------------------------------------------

def test_the_judge_judges_a_check_only_once_from_its_own_check_cell(tmp_path):
    """The judge is no oracle: it serves only the run's process tree, and only the check whose check cell
    is running, once, not nested; every refusal is recorded for the verdict (which sends the check to review)."""
    import socket as sockets

    from lessonlib.grading.kernel.client import _connect, _serve
    ns = solution_namespace(["answer-static"])
    judge = JudgeProcess(Options(), "rnea05", "ana", tmp_path / "judge.sock", str(tmp_path),
                         cells={3: "rnea-static", 5: "rnea-static-tip"})
    window = sockets.socket(fileno=judge.window_fd)      # this test plays the nbval process
    replies = window.makefile("rb")
    stranger = subprocess.Popen(["sleep", "60"])

    def cell(k):
        window.sendall((json.dumps({"done": k - 1}) + "\n").encode())
        window.sendall((json.dumps({"start": k}) + "\n").encode())
        assert json.loads(replies.readline()) == {"ok": k}

    def attempt(check_id, fn):
        with _connect(judge.address) as s:
            try:                                         # a refused peer may be closed before we even send
                protocol.send(s, {"op": "begin", "check": check_id, "functions": ["f"]})
                return _serve(s, [fn])
            except (ConnectionError, OSError, struct.error):
                return None

    def nested(*args, **kwargs):                          # the student's function asks the judge itself
        inner.append(attempt("rnea-static", ns["static_torques"]))
        return np.zeros(2)
    inner = []
    try:
        judge.trust(stranger.pid)                        # this process is not below the trusted one
        cell(3)
        assert attempt("rnea-static", ns["static_torques"]) is None
        judge.trust(os.getpid())
        for _ in range(300):                             # the trust line reaches the judge asynchronously
            if attempt("no-such-check", ns["static_torques"]) is not None:
                break
            time.sleep(0.05)
        cell(2)                                          # an answer cell runs: no check may be judged
        assert "only from its own check cell" in attempt("rnea-static", ns["static_torques"])["message"]
        cell(3)
        assert attempt("rnea-static", nested)["passed"] is False
        assert "one check at a time" in inner[0]["message"]
        assert "once per check cell" in attempt("rnea-static", ns["static_torques"])["message"]
        cell(5)
        assert "only that cell's check" in attempt("rnea-static", ns["static_torques"])["message"]
        cell(7)
        cell(3)                                          # the same check cell, run again (a new window)
        assert attempt("rnea-static", ns["static_torques"])["line"] == LINES["rnea-static"]
    finally:
        stranger.kill()
        window.close()
        records = judge.stop()
    assert [(r["check"], r["cell"], r["passed"]) for r in records if r["event"] == "verdict"] == [
        ("rnea-static", 3, False), ("rnea-static", 3, True)]
    assert [(r["check"], r["reason"]) for r in records if r["event"] == "refused"] == [
        ("no-such-check", "unknown"), ("rnea-static", "outside"), ("rnea-static", "nested"),
        ("rnea-static", "again"), ("rnea-static", "other")]
    assert judge.proc.poll() is not None


