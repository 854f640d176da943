"""The grader's graded runs: one batch of hostile and normal submissions, and a few more runs.

Graded runs are the cost here (about 1 s each), so every graded submission of the hostile and normal
cases is graded in ONE batch run of the CLI (``-j 2``) shared by a module fixture, and the tests
assert on its per-submission results. A few more runs: nbval on the solution, the
per-notebook timeout, ``--self`` and the pytest plugin. The checkers, the notebooks and the judge
have their own files (``test_grading_checks``, ``test_grading_notebooks``, ``test_grading_judge``).
"""
from __future__ import annotations

import csv
import json
import os
import pathlib
import re
import subprocess
import time

import nbformat
import pytest

from lessonlib.grading.report.reports import CSV_COLUMNS
from grading_common import CHECK_IDS, LINES, LWP, MAX, PY, ROOT, SOLUTION, SOLVED, make_submission


# --- graded runs: one batch of 23 submissions (hostile and normal), -j 2 -----------------------------------

WRONG = {"answer-static": "def static_torques(L1, L2, m1, m2, g, tip_mass=0.0):\n    return np.zeros(2)\n",
         "answer-outward": "def outward_pass(X, S, qd, qdd, a0):\n    return np.zeros((len(qd), 6)), np.zeros((len(qd), 6))\n",
         "answer-inward": "def inward_pass(X, S, I, v, a, f_ext=None):\n    return np.zeros(len(S))\n",
         "answer-rnea": "def rnea(model, q, qd, qdd, gravity=None):\n    return np.zeros(model.n)\n"}


def _pasted_library():
    """The library's RNEA module and its helpers, pasted as a student would (imports made absolute)."""
    dyn = ROOT / "lessonlib" / "dynamics"
    done, parts = set(), []

    def paste(name):
        if name in done:
            return
        done.add(name)
        lines = []
        for line in (dyn / f"{name}.py").read_text().splitlines():
            m = re.match(r"from \.(\w+) import", line)
            if m:
                paste(m.group(1))
                continue
            if line.startswith("from __future__"):
                continue
            lines.append(re.sub(r"^from \.\.(\w*)", lambda mm: "from lessonlib" + ("." + mm.group(1) if mm.group(1)
                                                                                    else ""), line))
        parts.append("\n".join(lines))
    paste("rnea")
    return "\n\n".join(parts)


HOSTILE_PRELUDE = "import sys, os, json, numpy as np\n"


def _forge(kind):
    lines = json.dumps(LINES)
    if kind == "print":
        return (f"import builtins\n_real = builtins.print\nLINES = {lines}\n"
                "builtins.print = lambda *a, **k: _real(*LINES.values())\n")
    if kind == "allclose":
        return ("np.allclose = lambda *a, **k: True\nnp.isclose = lambda a, b, *r, **k: np.ones_like(a, dtype=bool)\n"
                "np.testing.assert_allclose = lambda *a, **k: None\nnp.array_equal = lambda *a, **k: True\n")
    if kind == "modules":
        return (f"import types\nLINES = {lines}\nfake = types.ModuleType('lessonlib.grading')\n"
                "fake.check = lambda cid, *f: print(LINES[cid])\n"
                "for name in ['lessonlib.grading', 'lessonlib.grading.kernel.client', 'lessonlib.grading.checks.checker']:\n"
                "    sys.modules[name] = fake\n")
    if kind == "checker":
        return (f"LINES = {lines}\nimport lessonlib.grading.kernel.client as client\n"
                "client._judged = lambda address, token, cid, fns, *rest: print(LINES[cid])\n"
                "client.judged = lambda cid, fns, **kw: print(LINES[cid])\n")
    raise ValueError(kind)


def _read_reference():
    """Read the graded notebook named on the parent's command line and print its verdict lines.

    What the kernel saw comes back in the check cells' error (the forged ``_judged`` raises it when
    it found no verdict line to print): the kernel can write nowhere the test could read.
    """
    return '''
import glob
from lessonlib.grading.kernel.errors import CheckFailed
seen = {"cwd": os.getcwd(), "here": sorted(glob.glob("**/*", recursive=True)),
        "up": sorted(glob.glob("../**/*.ipynb", recursive=True)),
        "env": {k: v for k, v in os.environ.items() if "ipynb" in v or "solution" in v.lower()}}
LINES = {}
try:
    cmd = open(f"/proc/{os.getppid()}/cmdline").read().split("\\0")
    for arg in cmd:
        if arg.endswith(".ipynb"):
            nb = json.load(open(arg))
            seen["graded"] = arg
            seen["graded_has_solution_code"] = ("tau1 = tau2" + " + g") in json.dumps(nb)
            for cell in nb["cells"]:
                meta = cell.get("metadata", {}).get("lessonlib", {})
                if "id" in meta and cell.get("outputs"):
                    LINES[meta["id"]] = cell["outputs"][0]["text"].strip()
except Exception as exc:
    seen["error"] = type(exc).__name__
import lessonlib.grading.kernel.client as client


def _forged(address, token, cid, fns, *rest):
    if cid not in LINES:
        raise CheckFailed("SEEN" + json.dumps(seen))
    print(LINES[cid])


client._judged = _forged
'''


LIBRARY_USE = {
    "answer-static": '''
def static_torques(L1, L2, m1, m2, g, tip_mass=0.0):
    from lessonlib.dynamics import gravity_torques
    return gravity_torques(None, [0, 0])
''',
    "answer-outward": '''
def outward_pass(X, S, qd, qdd, a0):
    from lessonlib.kinematics import body_twists
    return body_twists(None, None, qd), None
''',
    "answer-inward": "from lessonlib.dynamics import rnea_trace\n" + "def inward_pass(X, S, I, v, a, f_ext=None):\n"
                     "    return rnea_trace\n",
    "answer-rnea": '''
def rnea(model, q, qd, qdd, gravity=None):
    from lessonlib.dynamics import rnea as library_rnea
    return library_rnea(model, q, qd, qdd, gravity=gravity)
''',
}
KI_LOOP = "\nwhile True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass\n"
#: The commonest hang: the student's function itself never returns (a check calls it, nbval interrupts it).
LOOPING_STATIC = "def static_torques(L1, L2, m1, m2, g, tip_mass=0.0):\n    while True:\n        pass\n"


def _move_checks_first(nb):
    checks = [c for c in nb.cells if "check" in c.metadata.get("tags", [])]
    nb.cells = checks[::-1] + [c for c in nb.cells if c not in checks]


def _delete_checks(nb):
    nb.cells = [c for c in nb.cells if "check" not in c.metadata.get("tags", [])]


def _edit_checks(nb):
    for c in nb.cells:
        if "check" in c.metadata.get("tags", []):
            line = LINES[c.metadata["lessonlib"]["id"]]
            c.source = f"print({line!r})"
            c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=line + "\n")]
            c.execution_count = 1


def _wrong_kernel(nb):
    nb.metadata["kernelspec"] = {"name": "no-such-kernel", "display_name": "Nope", "language": "python"}


def _submissions(d):
    s = {k: SOLVED[k] for k in SOLVED if k != "answer-student-id"}
    ab = {k: SOLVED[k] for k in ("answer-static", "answer-outward")}
    first = 'student_id = "mallory"\n'
    subs = {
        "solution": dict(answers=s),
        "blank": dict(),
        "partial": dict(answers=ab),
        "wrong_kernel": dict(answers=s, mutate=_wrong_kernel),
        "os_exit": dict(answers={**ab, "answer-outward": SOLVED["answer-outward"] + "\nos._exit(3)\n"}),
        "segfault": dict(answers={**ab, "answer-inward": "import ctypes\nctypes.string_at(0)\n"}),
        "sys_exit": dict(answers={**s, "answer-static": "sys.exit('bye')\n" + SOLVED["answer-static"]}),
        "infinite_loop": dict(answers={**s, "answer-outward": SOLVED["answer-outward"] + KI_LOOP}),
        "looping_function": dict(answers={**s, "answer-static": LOOPING_STATIC}),
        "interrupted_cell": dict(answers={**s, "answer-outward": SOLVED["answer-outward"] + "\nwhile True:\n    pass\n"}),
        "flood": dict(answers={**s, "answer-static": SOLVED["answer-static"]
                               + "\nfor _ in range(100_000):\n    print('x' * 999)\n"}),
        "redefine_print": dict(answers={**WRONG, "answer-student-id": first + _forge("print")}),
        "patch_allclose": dict(answers={**WRONG, "answer-student-id": first + _forge("allclose")}),
        "fake_modules": dict(answers={**WRONG, "answer-student-id": first + _forge("modules")}),
        "patch_checker": dict(answers={**WRONG, "answer-student-id": first + _forge("checker")}),
        "read_reference": dict(answers={**WRONG, "answer-student-id": first + _read_reference()}),
        "library_use": dict(answers=LIBRARY_USE),
        "import_library": dict(answers={"answer-rnea": "from lessonlib.dynamics import rnea\n"}),
        "paste_library": dict(answers={**s, "answer-rnea": _pasted_library()}),
        "reordered_checks": dict(answers={"answer-static": SOLVED["answer-static"]}, mutate=_move_checks_first),
        "deleted_checks": dict(answers=ab, mutate=_delete_checks),
        "edited_checks": dict(mutate=_edit_checks),
    }
    for name, spec in subs.items():
        answers = {k: (HOSTILE_PRELUDE + v if name not in ("solution", "partial", "import_library") else v)
                   for k, v in spec.get("answers", {}).items()}
        make_submission(d / f"{name}.ipynb", answers, student=name, mutate=spec.get("mutate"))
    (d / "malformed.ipynb").write_text('{"cells": [{"cell_type": "code", "source": "x = 1"')
    return sorted(p.name for p in d.glob("*.ipynb"))


def _start(args, env=None, cwd=ROOT):
    return subprocess.Popen([PY, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, env=env)


def _finish(proc, timeout=600):
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every graded run of this module, started together so their waits overlap.

    The batch (23 submissions, -j 2) through the CLI; nbval on the solution in the current
    environment; a per-notebook timeout; ``--self``; the pytest plugin on one submission.
    """
    d = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("out")
    names = _submissions(d)
    other = tmp_path_factory.mktemp("other")
    loop = make_submission(other / "loop.ipynb", {"answer-static": SOLVED["answer-static"] + KI_LOOP})
    me = make_submission(other / "05_rnea.ipynb", {"answer-static": SOLVED["answer-static"]}, mutate=_edit_checks,
                         student="your-id-here")                     # the exercise's placeholder, unchanged
    plugin_dir = tmp_path_factory.mktemp("plugin")
    partial = make_submission(plugin_dir / "partial.ipynb", {k: SOLVED[k] for k in ("answer-static", "answer-outward")})
    quiet = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    start = time.monotonic()
    procs = {
        "batch": _start(["-m", "lessonlib.grading.cli", "--reference", SOLUTION, d, "--out", out / "grades.csv",
                         "--json", out / "results.json", "--feedback", out / "feedback", "-j", 2,
                         "--cell-timeout", 8, "--timeout", 90]),
        "nbval": _start(["-m", "pytest", "-p", "nbval.plugin", "-p", "no:cacheprovider", "--nbval",
                         "--nbval-current-env", "-q", "-o", "addopts=", SOLUTION], env=quiet),
        "timeout": _start(["-m", "lessonlib.grading.cli", "--reference", SOLUTION, loop, "--cell-timeout", 120,
                           "--timeout", 6, "--keep", "-q", "--json", other / "loop.json"]),
        "self": _start(["-m", "lessonlib.grading.cli", "--self", me, "--cell-timeout", 30, "--json",
                        other / "me.json"]),
        "plugin": _start(["-m", "pytest", "-p", "lessonlib.grading.plugin", "-p", "no:cacheprovider", "-o",
                          "addopts=", "--rootdir", plugin_dir, "--lessonlib-reference", SOLUTION, "--lessonlib-out",
                          plugin_dir / "g.csv", partial], env=quiet, cwd=plugin_dir),
    }
    done = {name: _finish(p) for name, p in procs.items()}
    elapsed = time.monotonic() - start
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else {}
    return dict(done=done, names=names, results=results, out=out, other=other, plugin_dir=plugin_dir,
                elapsed=elapsed)


@pytest.fixture(scope="module")
def batch(runs):
    return dict(runs, proc=runs["done"]["batch"])


def _statuses(batch, name):
    return {cid: c["status"] for cid, c in batch["results"][name]["checks"].items()}


@pytest.mark.slow
def test_batch_ran_and_wrote_a_row_per_submission_and_check(batch):
    assert batch["proc"].returncode == 0, batch["proc"].stderr[-3000:]
    assert len(batch["names"]) == 23 and sorted(batch["results"]) == batch["names"]
    with open(batch["out"] / "grades.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) - 1 == len(batch["names"]) * len(CHECK_IDS)
    assert {(r[0], r[1]) for r in rows[1:]} == {(n, c) for n in batch["names"] for c in CHECK_IDS}
    feedback = sorted(p.name for p in (batch["out"] / "feedback").glob("*.md"))
    assert feedback == sorted(n.replace(".ipynb", ".md") for n in batch["names"])
    text = (batch["out"] / "feedback" / "partial.md").read_text()
    assert "**Score: 4 / 12**" in text and "`rnea-full-chain` — not-attempted" in text
    assert "your answer cell “(d) The whole RNEA” is still the exercise's stub" in text
    print(f"\nall graded runs: {batch['elapsed']:.1f} s; per submission (s):",
          {n: batch["results"][n]["seconds"] for n in batch["names"]})


@pytest.mark.slow
@pytest.mark.parametrize("name, total", [("solution", MAX), ("blank", 0), ("partial", 4), ("wrong_kernel", MAX)])
def test_normal_submissions_get_what_they_earned(batch, name, total):
    r = batch["results"][f"{name}.ipynb"]
    assert (r["total"], r["max"]) == (total, MAX), r
    earned = {cid for cid, c in r["checks"].items() if c["status"] == "passed"}
    expected = {"solution": set(CHECK_IDS), "wrong_kernel": set(CHECK_IDS), "blank": set(),
                "partial": {"rnea-static", "rnea-static-tip", "rnea-outward-v", "rnea-outward-a"}}[name]
    assert earned == expected
    if name == "blank":
        assert set(_statuses(batch, "blank.ipynb").values()) == {"not-attempted"}
        assert r["checks"]["rnea-static"]["message"] == ("your answer cell “(a) Static torques of two horizontal rods "
                                                         "([RNE05])” is still the exercise's stub")


@pytest.mark.slow
def test_malformed_json_is_unreadable_not_fatal(batch):
    r = batch["results"]["malformed.ipynb"]
    assert r["total"] == 0 and set(_statuses(batch, "malformed.ipynb").values()) == {"unreadable"}
    assert "invalid JSON" in r["checks"]["rnea-static"]["message"]


@pytest.mark.slow
@pytest.mark.parametrize("name, total, dead_from", [("os_exit", 2, "rnea-outward-v"),
                                                    ("segfault", 4, "rnea-inward")])
def test_a_crashing_kernel_keeps_what_came_before(batch, name, total, dead_from):
    r = batch["results"][f"{name}.ipynb"]
    assert r["total"] == total
    st = list(_statuses(batch, f"{name}.ipynb").values())
    k = CHECK_IDS.index(dead_from)
    assert set(st[:k]) == {"passed"} and set(st[k:]) == {"kernel-died"}


@pytest.mark.slow
def test_sys_exit_costs_only_its_own_cell(batch):
    st = _statuses(batch, "sys_exit.ipynb")
    assert st["rnea-static"] == st["rnea-static-tip"] == "error"
    assert batch["results"]["sys_exit.ipynb"]["total"] == MAX - 2


@pytest.mark.slow
def test_infinite_loop_times_out_and_keeps_earlier_points(batch):
    r = batch["results"]["infinite_loop.ipynb"]
    st = list(_statuses(batch, "infinite_loop.ipynb").values())
    assert r["total"] == 2 and st[:2] == ["passed"] * 2 and set(st[2:]) == {"timeout"}


@pytest.mark.slow
def test_a_function_that_never_returns_times_out_its_checks_only_and_is_named(batch):
    """nbval interrupts the check cell at the cell limit; the judge names the call in flight; later checks count."""
    r = batch["results"]["looping_function.ipynb"]
    assert r["total"] == MAX - 2
    for cid, tip in (("rnea-static", ""), ("rnea-static-tip", ", tip_mass=")):
        c = r["checks"][cid]
        assert (c["status"], c["nbval"], c["judge"]) == ("timeout", "timeout", "fail"), c
        first, call, why = c["message"].splitlines()
        assert first.startswith(f"✗ [{cid}] ") and call.startswith("static_torques(") and tip in call
        assert call.endswith(") did not return (your answer cell “(a) Static torques of two horizontal rods ([RNE05])”)")
        assert why == ("the check ran out of time (8 s per cell) while it ran your code, and interrupted it: an "
                       "endless loop, or a computation far too slow?")
    assert {s for cid, s in _statuses(batch, "looping_function.ipynb").items() if "static" not in cid} == {"passed"}
    text = (batch["out"] / "feedback" / "looping_function.md").read_text()
    assert "stopped answering" not in text and "mid-frame" not in text and "Previous cell" not in text


@pytest.mark.slow
def test_an_interrupted_answer_cell_costs_nothing_the_checks_can_verify(batch):
    """Top-level code that loops after the function is defined: nbval interrupts the cell, the checks pass."""
    r = batch["results"]["interrupted_cell.ipynb"]
    assert r["total"] == MAX and set(_statuses(batch, "interrupted_cell.ipynb").values()) == {"passed"}
    assert r["notes"] == ["your answer cell “(b) The outward pass (正向递推): twists and accelerations” ran out of "
                          "time (8 s per cell) and was interrupted; the cells after it ran on"]
    assert "ran out of time (8 s per cell) and was interrupted" in \
        (batch["out"] / "feedback" / "interrupted_cell.md").read_text()


@pytest.mark.slow
def test_100mb_of_output_is_dropped_and_grading_goes_on(batch):
    r = batch["results"]["flood.ipynb"]
    assert r["total"] == MAX and set(_statuses(batch, "flood.ipynb").values()) == {"passed"}


def test_nbval_side_caps_each_cells_output():
    from lessonlib.grading.kernel.limits import OUTPUT_LIMIT
    from lessonlib.grading.runner.guard import _limit_output
    budgets = {}
    msgs = [{"msg_type": "stream", "parent_header": {"msg_id": "c1"}, "content": {"text": "x" * 40_000}}
            for _ in range(3)]
    for m in msgs:
        _limit_output(m, budgets)
    kept = [m for m in msgs if m["parent_header"]["msg_id"] == "c1"]
    assert len(kept) == 2 and len(kept[0]["content"]["text"]) == 40_000
    assert kept[1]["content"]["text"].startswith("x" * (OUTPUT_LIMIT - 40_000) + "\n[lessonlib-grade")
    big = {"msg_type": "display_data", "parent_header": {"msg_id": "c2"}, "content": {"data": {"text/html": "y" * 10**6}}}
    _limit_output(big, budgets)
    assert big["content"]["data"] == {"text/plain": "[lessonlib-grade: display output too large, dropped]"}


@pytest.mark.slow
@pytest.mark.parametrize("name, status", [("redefine_print", "failed"), ("patch_allclose", "failed"),
                                          ("fake_modules", "unverified"), ("patch_checker", "unverified"),
                                          ("edited_checks", "not-attempted")])
def test_forged_verdicts_earn_nothing(batch, name, status):
    r = batch["results"][f"{name}.ipynb"]
    assert r["total"] == 0
    st = _statuses(batch, f"{name}.ipynb")
    assert {st[c] for c in CHECK_IDS if c not in LWP} == {status}
    assert {st[c] for c in LWP} == {status if status == "unverified" else "not-attempted"}   # (e) left a stub
    if status == "unverified":
        assert all(c["nbval"] == "passed" and c["judge"] == "none" for c in r["checks"].values())


@pytest.mark.slow
def test_reading_the_notebooks_gives_nothing(batch):
    r = batch["results"]["read_reference.ipynb"]
    message = r["checks"]["rnea-static"]["message"]
    seen = json.loads(message[message.index("SEEN") + 4:].split("\n")[0])
    assert r["total"] == 0
    assert seen["here"] == [] and seen["up"] == [] and seen["env"] == {}      # empty cwd, no notebook above
    assert seen.get("error") in ("PermissionError", "FileNotFoundError") and "graded" not in seen   # no /proc there
    assert str(SOLUTION) not in json.dumps(seen)
    assert any(f.startswith("answer cell") and "open" in f for f in r["flags"])
    st = _statuses(batch, "read_reference.ipynb")
    assert {st[c] for c in CHECK_IDS if c not in LWP} == {"access-denied"}
    assert {st[c] for c in LWP} == {"not-attempted"}                          # the stolen code sits in (a)


@pytest.mark.slow
def test_calling_the_library_earns_nothing(batch):
    r = batch["results"]["library_use.ipynb"]
    assert r["total"] == 0
    st = _statuses(batch, "library_use.ipynb")
    assert {st[c] for c in CHECK_IDS if c not in LWP} == {"used-library"}, r
    assert {st[c] for c in LWP} == {"not-attempted"}
    assert "not available while grading" in r["checks"]["rnea-full-ur5"]["message"]


@pytest.mark.slow
def test_an_answer_cell_that_only_imports_the_library_is_used_library_not_a_stub(batch):
    """``from lessonlib.dynamics import rnea`` as the whole answer: an attempt (the import is not in the blank), and
    the stand-in says so; the cells left blank stay not-attempted."""
    st = _statuses(batch, "import_library.ipynb")
    full = [c for c in CHECK_IDS if c.startswith("rnea-full")]
    assert full and {st[c] for c in full} == {"used-library"}
    assert {st[c] for c in CHECK_IDS if c not in full} == {"not-attempted"}
    assert batch["results"]["import_library.ipynb"]["total"] == 0


@pytest.mark.slow
def test_pasted_library_code_goes_to_review(batch):
    r = batch["results"]["paste_library.ipynb"]
    full = [c for c in CHECK_IDS if c.startswith("rnea-full")]
    for cid in full:
        c = r["checks"][cid]
        assert c["status"] == "needs-review" and c["points"] == 0 and c["withheld"] == c["max_points"]
        assert c["judge"] == "pass"                      # it would have passed: only the detector stops it
        assert "lessonlib.dynamics.rnea._rnea" in c["message"] and "withheld until an instructor reviews" in c["message"]
    assert r["total"] == MAX - 4 and r["withheld"] == 4


@pytest.mark.slow
@pytest.mark.parametrize("name, total", [("reordered_checks", 2), ("deleted_checks", 4)])
def test_moving_or_deleting_check_cells_changes_nothing(batch, name, total):
    assert batch["results"][f"{name}.ipynb"]["total"] == total


# --- the other graded runs ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_solution_passes_nbval_in_the_current_env(runs):
    res = runs["done"]["nbval"]
    assert res.returncode == 0, res.stdout[-3000:]
    assert re.search(r"\b18 passed\b", res.stdout), res.stdout[-500:]


@pytest.mark.slow
def test_notebook_timeout_kills_the_run(runs):
    res = runs["done"]["timeout"]
    assert res.returncode == 0, res.stderr[-2000:]
    r = json.loads((runs["other"] / "loop.json").read_text())["loop.ipynb"]
    note = next(n for n in r["notes"] if n.startswith("kept: "))
    kept, kernel_cwd = note.split()[1], note.split()[-1].rstrip(")")
    try:
        assert r["seconds"] < 30
        assert {c["status"] for c in r["checks"].values()} == {"timeout"} and r["total"] == 0
        def leftovers():
            found = []
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    if kept.encode() in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes():
                        found.append(pid)
                except OSError:
                    pass
            return found
        assert leftovers() == [], [pathlib.Path(f"/proc/{p}/stat").read_text() for p in leftovers()]
    finally:
        import shutil
        shutil.rmtree(kept, ignore_errors=True)
        if pathlib.Path(kernel_cwd).parent.name.startswith("lessonlib-kernel-"):
            shutil.rmtree(pathlib.Path(kernel_cwd).parent, ignore_errors=True)


@pytest.mark.slow
def test_self_preview_without_solution_uses_the_checker_module(runs):
    res = runs["done"]["self"]
    assert res.returncode == 0, res.stderr[-2000:]
    assert "PREVIEW (not a grade)" in res.stdout and "checker module" in res.stdout
    assert "your notebook's student_id is not filled in (first answer cell)" in res.stdout
    me = json.loads((runs["other"] / "me.json").read_text())["05_rnea.ipynb"]
    assert me["total"] == 2 and me["checks"]["rnea-static"]["status"] == "passed"     # edited check cells ignored
    assert me["checks"]["rnea-outward-v"]["status"] == "not-attempted"


def test_self_finds_the_solution_by_file_name(tmp_path):
    from lessonlib.grading.cli import find_solution
    (tmp_path / "solutions").mkdir()
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions" / "05_rnea.ipynb").write_text("{}")
    assert find_solution(tmp_path / "exercises" / "05_rnea.ipynb") == tmp_path / "solutions" / "05_rnea.ipynb"
    assert find_solution(tmp_path / "exercises" / "06_poe.ipynb") is None


@pytest.mark.slow
def test_pytest_plugin_grades_a_submission(runs):
    res = runs["done"]["plugin"]
    assert res.returncode == 1, res.stdout[-3000:]
    assert "4 passed" in res.stdout and "7 failed" in res.stdout, res.stdout[-6000:]
    assert "partial.ipynb::rnea-full-chain" in res.stdout and "lessonlib grades" in res.stdout
    rows = list(csv.reader(open(runs["plugin_dir"] / "g.csv")))
    assert len(rows) == 1 + len(CHECK_IDS) and rows[1][:2] == ["partial.ipynb", "rnea-static"]


