"""How long does the grader take per submission, and what do the walls around the kernel cost?

Run ``.venv/bin/python benchmarks/bench_grading.py [-n 40] [-j 2] [--compare]``. A plain script, not a
test: timings depend on the machine and on what else runs on it.

Method. ``n`` submissions of exercise 05 (``solutions/05_rnea.ipynb``), a mix as a class hands them
in: a third fully solved, a third partly solved (two parts), a third with wrong answers, each with its
own student id (so every judge draws other inputs). They are graded by ``grade_batch`` with ``-j``
runs at a time, exactly as ``lessonlib-grade`` does after its one-off preparation, which is timed
apart (the sandbox library, the probes of the walls). Reported per submission: the **wall time** of the
batch divided by ``n`` (what an instructor waits), and the **CPU time** of every process the
grader started (judge, nbval, kernel: ``RUSAGE_CHILDREN``) divided by ``n`` — the work, which
other load on a shared machine disturbs far less than wall time. The batch's fork servers (judge,
nbval, kernel zygotes) are started by the preparation and closed before the CPU time is read, so
the CPU of every process they forked (and of their own imports, once per batch) is counted.

``--compare`` grades the same submissions with every wall that holds here (the kernel's own
namespaces, Landlock, the resource limits) and without (``confinement="none"``), alternating the two in rounds so that a burst of load from another
process hits both alike, and reports the cost of isolation per submission.

Writes ``benchmarks/results/grading.csv``.
"""
from __future__ import annotations

import argparse
import csv
import os
import pathlib
import resource
import shutil
import statistics
import sys
import tempfile
import time

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lessonlib.grading import grader                          # noqa: E402
from lessonlib.grading.checks.authoring import answers_of, filled     # noqa: E402
from lessonlib.grading.notebook import load_reference          # noqa: E402

SOLUTION = ROOT / "solutions" / "05_rnea.ipynb"
EXERCISE = ROOT / "exercises" / "05_rnea.ipynb"
WRONG = {"answer-static": "def static_torques(L1, L2, m1, m2, g, tip_mass=0.0):\n    return np.zeros(2)\n",
         "answer-outward": "def outward_pass(X, S, qd, qdd, a0):\n    return np.zeros((len(qd), 6)), np.zeros((len(qd), 6))\n",
         "answer-inward": "def inward_pass(X, S, I, v, a, f_ext=None):\n    return np.zeros(len(S))\n",
         "answer-rnea": "def rnea(model, q, qd, qdd, gravity=None):\n    return np.zeros(model.n)\n"}


def submissions(directory, n):
    """``n`` notebooks in ``directory``: solved, partly solved and wrong in turn; ``[(name, path)]``."""
    solved = answers_of(SOLUTION)
    kinds = {"solved": {k: v for k, v in solved.items() if k != "answer-student-id"},
             "partial": {k: solved[k] for k in ("answer-static", "answer-outward")},
             "wrong": WRONG}
    out = []
    for k in range(n):
        kind = list(kinds)[k % 3]
        path = directory / f"{kind}_{k:03d}.ipynb"
        nbformat.write(filled(EXERCISE, kinds[kind], student_id=f"s{k:04d}"), str(path))
        out.append((path.name, str(path)))
    return out


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def grade(reference, subs, *, jobs, confinement, zygotes=True):
    """``(wall s, child CPU s, prepare s, results)`` of one batch (the CPU includes the preparation's)."""
    options = grader.Options(confinement=confinement, zygotes=zygotes)
    t0 = time.perf_counter()
    shared = grader.prepare(reference, options, denied=[p for _, p in subs])
    prepared = time.perf_counter() - t0
    cpu0 = _children_cpu()
    try:
        t1 = time.perf_counter()
        results = grader.grade_batch(reference, subs, options, jobs=jobs, progress=False, shared=shared)
        wall = time.perf_counter() - t1
    finally:
        shared.close()                                   # the zygotes exit: their children's CPU is counted
    return wall, _children_cpu() - cpu0, prepared, results


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=40, help="submissions per batch (40)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="runs at a time (2)")
    p.add_argument("--compare", action="store_true", help="with and without the walls, alternating")
    p.add_argument("--rounds", type=int, default=2, help="rounds of the comparison (2)")
    p.add_argument("--no-zygotes", action="store_true", help="start every judge and nbval process afresh")
    args = p.parse_args(argv)
    reference = load_reference(SOLUTION)
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-grading-"))
    rows = []
    try:
        subs = submissions(work, args.n)
        modes = ["auto", "none"] if args.compare else ["auto"]
        for round_ in range(args.rounds if args.compare else 1):
            for mode in (modes if round_ % 2 == 0 else modes[::-1]):
                wall, cpu, prepared, results = grade(reference, subs, jobs=args.jobs, confinement=mode,
                                                     zygotes=not args.no_zygotes)
                scores = [r.total for r in results]
                expected = [reference.max_points if n.startswith("solved") else 4 if n.startswith("partial") else 0
                            for n, _ in subs]
                assert scores == expected, list(zip([n for n, _ in subs], scores))      # grading stayed right
                rows.append({"mode": "walls" if mode == "auto" else "no walls", "n": args.n, "jobs": args.jobs,
                             "wall_per_submission": wall / args.n, "cpu_per_submission": cpu / args.n,
                             "prepare_s": prepared, "protection": results[0].protection})
                print(f"{rows[-1]['mode']:>8}: {wall / args.n:.2f} s wall and {cpu / args.n:.2f} s CPU per "
                      f"submission (-j {args.jobs}, n = {args.n}); preparation {prepared:.2f} s", flush=True)
        if args.compare:
            by = {m: [r for r in rows if r["mode"] == m] for m in dict.fromkeys(r["mode"] for r in rows)}
            (walled, w_rows), (open_, o_rows) = list(by.items())[:2]
            dw = statistics.median(r["wall_per_submission"] for r in w_rows) - \
                statistics.median(r["wall_per_submission"] for r in o_rows)
            dc = statistics.median(r["cpu_per_submission"] for r in w_rows) - \
                statistics.median(r["cpu_per_submission"] for r in o_rows)
            print(f"cost of the walls ({walled} vs {open_}): {dw:+.3f} s wall, {dc:+.3f} s CPU per submission")
        out = ROOT / "benchmarks" / "results"
        out.mkdir(exist_ok=True)
        with open(out / "grading.csv", "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
