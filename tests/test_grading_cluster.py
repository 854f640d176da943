"""Grading on a dask.distributed cluster: a local scheduler and two worker processes on 127.0.0.1.

The same five submissions of exercise 05 (solved, partly solved, wrong, a slow solved one, an attack)
are graded locally and through ``--scheduler``; while the cluster grades, the worker running the
slow submission is killed. The grades must equal the local ones (the killed task is retried on the
other worker), every submission gets a row, and the resumable record holds all five.
"""
from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import nbformat
import pytest

import grading_attacks as attacks
from lessonlib.grading.checks.authoring import answers_of, filled

distributed = pytest.importorskip("distributed", reason="the optional extra .[cluster] (dask.distributed) is not "
                                                        "installed: pip install -e '.[cluster]'")

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable
pytestmark = pytest.mark.slow


def _make(directory, name, given):
    nbformat.write(filled(ROOT / "exercises" / "05_rnea.ipynb", given, student_id=name), str(directory / f"{name}.ipynb"))


def _submissions(directory):
    solved, blank = answers_of(ROOT / "solutions" / "05_rnea.ipynb"), answers_of(ROOT / "exercises" / "05_rnea.ipynb")
    keys = [k for k in solved if k != "answer-student-id"]
    _make(directory, "a_solved", {k: solved[k] for k in keys})
    _make(directory, "b_partial", {k: solved[k] for k in ("answer-static", "answer-outward")})
    _make(directory, "c_wrong", {"answer-rnea": "def rnea(model, q, qd, qdd, gravity=None):\n    return q * 0\n"})
    _make(directory, "d_slow", {**{k: solved[k] for k in keys},
                                "answer-static": "import time\ntime.sleep(12)\n" + solved["answer-static"]})
    _make(directory, "e_attack", {k: attacks.steal_notebook(blank[k], k, "05_rnea.ipynb", "prefix") for k in keys})
    return ["a_solved", "b_partial", "c_wrong", "d_slow", "e_attack"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two workers (no nanny: a killed worker stays dead) on 127.0.0.1."""
    d = tmp_path_factory.mktemp("cluster")
    scheduler_file = d / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    procs = [subprocess.Popen([PY, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(scheduler_file)], cwd=d, env=env,
                              stdout=subprocess.DEVNULL, stderr=open(d / "scheduler.log", "wb"))]
    for deadline in (time.monotonic() + 120,):
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
    for k in range(2):
        procs.append(subprocess.Popen([PY, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
                                       "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", f"w{k}",
                                       "--host", "127.0.0.1"], cwd=d, env=env, stdout=subprocess.DEVNULL,
                                      stderr=open(d / f"worker{k}.log", "wb")))
    address = json.loads(scheduler_file.read_text())["address"]
    client = distributed.Client(address, timeout=120)
    client.wait_for_workers(2, timeout=300)
    yield {"address": address, "client": client, "dir": d, "pids": {f"w{k}": procs[k + 1].pid for k in range(2)}}
    client.close()
    for proc in procs:
        proc.kill()
        proc.wait(timeout=30)


def _grade(subs, out, extra):
    args = [PY, "-m", "lessonlib.grading.cli", "--reference", str(ROOT / "solutions" / "05_rnea.ipynb"), str(subs),
            "--json", str(out / "results.json"), "--gradebook", str(out / "gradebook.csv"), "-q", "--cell-timeout", "60",
            *extra]
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_cluster_grades_equal_local_ones_even_when_a_worker_dies(cluster, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    names = _submissions(subs)
    local_out, cluster_out = tmp_path / "local", tmp_path / "cluster"
    local_out.mkdir()
    cluster_out.mkdir()
    local = _grade(subs, local_out, ["-j", "2"])
    remote = _grade(subs, cluster_out, ["--scheduler", cluster["address"]])
    client, killed, slow = cluster["client"], None, f"-{names.index('d_slow')}"
    deadline = time.monotonic() + 600
    while killed is None and time.monotonic() < deadline and remote.poll() is None:
        for worker, keys in client.processing().items():
            if any(str(k).startswith("lessonlib-grade-") and str(k).endswith(slow) for k in keys):
                pid = cluster["pids"][client.scheduler_info()["workers"][worker]["name"]]
                time.sleep(3)                                   # mid-task: the slow notebook sleeps 12 s
                os.kill(pid, signal.SIGKILL)
                killed = worker
                break
        time.sleep(0.3)
    out_r, err_r = remote.communicate(timeout=1200)
    out_l, err_l = local.communicate(timeout=1200)
    assert killed is not None, "the slow task was never seen running"
    assert remote.returncode == 0, err_r[-3000:]
    assert local.returncode == 0, err_l[-3000:]
    here = json.loads((local_out / "results.json").read_text())
    there = json.loads((cluster_out / "results.json").read_text())
    assert sorted(there) == sorted(here) == [f"{n}.ipynb" for n in names]          # no row lost
    for name in here:
        assert {c: v["status"] for c, v in there[name]["checks"].items()} == \
            {c: v["status"] for c, v in here[name]["checks"].items()}, name
        assert there[name]["total"] == here[name]["total"]
    assert [there[f"{n}.ipynb"]["total"] for n in names] == [12, 4, 0, 12, 0]
    assert set(v["status"] for v in there["e_attack.ipynb"]["checks"].values()) == {"access-denied"}
    assert there["d_slow.ipynb"]["protection"].startswith("filesystem: Landlock ABI")
    assert any(n.startswith("graded on ") for n in there["d_slow.ipynb"]["notes"])
    records = cluster_out / "gradebook.csv.records"
    assert len(list(records.glob("*.json"))) == len(names)
    rows = (cluster_out / "gradebook.csv").read_text().splitlines()
    assert len(rows) == 1 + len(names)


def test_the_cluster_path_builds_nothing_here_and_ships_no_device(cluster, tmp_path, monkeypatch):
    """One driver, two executors: with a scheduler the grader makes no sandbox and starts no fork server
    (``prepare`` is forbidden here), a symlink or a FIFO gets its row without being read, a real one is graded."""
    from lessonlib.grading import grader
    from lessonlib.grading.cluster import grade_on_cluster
    from lessonlib.grading.notebook import load_reference

    def forbidden(*args, **kwargs):
        raise AssertionError("prepare() ran on the grader's machine")
    monkeypatch.setattr(grader, "prepare", forbidden)
    solved = answers_of(ROOT / "solutions" / "05_rnea.ipynb")
    _make(tmp_path, "a_solved", {k: v for k, v in solved.items() if k != "answer-student-id"})
    os.symlink("/dev/zero", tmp_path / "zero.ipynb")
    os.mkfifo(tmp_path / "fifo.ipynb")
    subs = grader.find_submissions([tmp_path])
    assert [n for n, _ in subs] == ["a_solved.ipynb", "fifo.ipynb", "zero.ipynb"]
    results = grade_on_cluster(load_reference(ROOT / "solutions" / "05_rnea.ipynb"), subs, grader.Options(),
                               scheduler=None, client=cluster["client"], progress=False)
    assert [r.total for r in results] == [12, 0, 0]
    assert {c.status for r in results[1:] for c in r.checks.values()} == {"unreadable"}
    assert "symbolic link" in next(iter(results[2].checks.values())).message


def test_an_instructors_checkers_folder_is_shipped_to_the_workers(cluster, tmp_path):
    """``--checkers DIR`` with ``--scheduler``: the workers (which never saw the folder) get its sources as bytes and
    grade an outside exercise like a local run: the solution full marks, the blank 0; the folder is unchanged."""
    root = tmp_path / "mycourse"
    bin_dir = pathlib.Path(PY).parent
    env = {k: v for k, v in os.environ.items() if k != "LESSONLIB_CHECKERS"}
    made = subprocess.run([bin_dir / "lessonlib-author", "new", "spring15", "--root", root], capture_output=True,
                          text=True, timeout=300, env=env)
    assert made.returncode == 0, made.stdout + made.stderr
    exercise, solution = root / "exercises" / "15_spring.ipynb", root / "solutions" / "15_spring.ipynb"
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(filled(exercise, {"answer-torque": answers_of(solution)["answer-torque"]}, student_id="s1"),
                   str(subs / "solved.ipynb"))
    nbformat.write(filled(exercise, {}, student_id="s2"), str(subs / "blank.ipynb"))
    module = (root / "checks" / "spring15.py").read_bytes()
    done = subprocess.run([PY, "-m", "lessonlib.grading.cli", "--checkers", root / "checks", "--reference", solution,
                           subs, "--scheduler", cluster["address"], "--json", tmp_path / "r.json", "-q"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "r.json").read_text())
    assert {n: (r["total"], r["max"]) for n, r in results.items()} == {"solved.ipynb": (1, 1), "blank.ipynb": (0, 1)}
    assert all(any(note.startswith("graded on ") for note in r["notes"]) for r in results.values())
    assert (root / "checks" / "spring15.py").read_bytes() == module
