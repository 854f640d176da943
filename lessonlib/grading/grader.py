"""Grade submissions: build the graded notebook, run it with nbval next to a judge, map cells to points.

One graded run per submission (:func:`grade_submission`)::

    grader ──stdin/stdout──> judge (clean: secret seed, checkers, library)   ← verdict lines, out of band
       │                        ▲ 127.0.0.1 + one-time token: inputs out, plain data back
       └─ pytest --nbval ──> kernel (-I -S, stripped lessonlib, empty cwd, answers + reference checks)

A check earns its points **iff** nbval passed its check cell (the output equals the reference
verdict line) **and** the judge recorded a pass for that check id in this run, and the code it
exercises is not a copy of the library. Everything else gets a status saying why (see
:data:`STATUSES`). A submission that cannot be read, crashes its kernel, loops or floods its
output still gets one row per check; the batch goes on (:func:`grade_batch`).
"""
from __future__ import annotations

import ast
import csv
import json
import os
import queue
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import copydetect
from .checker import load_exercise
from .notebook import KERNEL_NAME, SubmissionError, build_graded, read_submission
from .sandbox import build_sandbox

#: Every status a check can get, and what it means (the feedback files explain them with this).
STATUSES = {
    "passed": "the check cell printed the reference verdict and the judge recorded a pass",
    "failed": "the judge ran the check and the answer disagreed (see the message)",
    "used-library": "the answer called a library function the exercise asks you to write",
    "copied-from-library": "the answer's code is a copy of the library's implementation",
    "output-mismatch": "the judge recorded a pass but the check cell's output differed from the reference",
    "unverified": "the check cell printed the verdict, but the judge never recorded a pass for it",
    "error": "the check cell raised before the judge could run it (e.g. a missing function)",
    "timeout": "the notebook ran out of time before this check finished",
    "kernel-died": "the kernel died (crash, os._exit or a signal) before this check finished",
    "not-run": "the check cell did not run",
    "unreadable": "the submission could not be read as a notebook",
    "checker-error": "the checker itself failed (instructor: please report this)",
    "grader-error": "the grader could not run this submission (instructor: see the message)",
}
#: Names in answer cells worth an instructor's look (reported as flags; they do not change points).
SUSPICIOUS = ("sys.modules", "sys.path", "sys.meta_path", "importlib", "__import__", "exec", "eval", "compile",
              "open", "ctypes", "subprocess", "os.system", "os._exit", "socket", "builtins", "inspect",
              "getsource", "os.environ", "signal", "gc", "__builtins__", "__code__", "globals")
#: Bytes of nbval's own log kept for a grader-error message.
LOG_TAIL = 4000


@dataclass
class Options:
    """How to grade: timeouts (seconds), attempts per check, and whether to keep the temp files."""

    cell_timeout: float = 60.0
    timeout: float = 600.0
    max_attempts: int = 3
    keep: bool = False
    python: str = sys.executable


@dataclass
class CheckResult:
    check: str
    points: int
    max_points: int
    status: str
    message: str = ""
    nbval: str = "not-run"          # passed / failed / timeout / kernel-died / not-run
    judge: str = "none"             # pass / fail / none


@dataclass
class SubmissionResult:
    submission: str
    path: str
    student_id: str = ""
    checks: dict = field(default_factory=dict)
    flags: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0

    @property
    def total(self):
        return sum(c.points for c in self.checks.values())

    @property
    def max(self):
        return sum(c.max_points for c in self.checks.values())

    def as_json(self):
        return {"total": self.total, "max": self.max, "student_id": self.student_id,
                "checks": {k: {"points": c.points, "max_points": c.max_points, "status": c.status,
                               "message": c.message, "nbval": c.nbval, "judge": c.judge}
                           for k, c in self.checks.items()},
                "flags": self.flags, "notes": self.notes, "error": self.error, "seconds": round(self.seconds, 2)}


# --- helpers ------------------------------------------------------------------------------------

def clean_env(**extra):
    """A minimal environment for the grader's subprocesses (no secrets, no PYTHONPATH)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "USER")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _children(pid):
    """Direct children of ``pid`` (Linux /proc; empty elsewhere)."""
    kids = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return kids
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    stat = fh.read().decode(errors="replace")
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return kids


def descendants(pid):
    """Every process below ``pid`` (children first found, then theirs)."""
    found, frontier = [], [pid]
    while frontier:
        kids = [k for p in frontier for k in _children(p)]
        found += kids
        frontier = kids
    return found


def _wait_gone(pids, timeout=3.0):
    """Wait until every pid is dead (gone or a zombie), at most ``timeout`` seconds."""
    end = time.monotonic() + timeout
    pending = set(pids)
    while pending and time.monotonic() < end:
        for pid in list(pending):
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    state = fh.read().decode(errors="replace").rsplit(")", 1)[1].split()[0]
                if state in ("Z", "X"):
                    pending.discard(pid)
            except (OSError, IndexError):
                pending.discard(pid)
        if pending:
            time.sleep(0.02)


def kill_tree(proc):
    """SIGKILL a subprocess started with ``start_new_session=True`` and everything below it."""
    killed = []
    for _ in range(3):
        for pid in descendants(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
    _wait_gone(killed)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.kill()
    except OSError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def sweep(root, workdir):
    """SIGKILL every process of this user that belongs to a finished graded run.

    A process belongs to the run if its command line mentions the run's directory (the kernel and
    its forks) or its working directory is the kernel's (what the kernel spawned). Catches what
    escaped the process tree, e.g. when student code killed its nbval parent.
    """
    marks, me, killed = (os.fspath(root).encode(), os.fspath(workdir)), os.getpid(), []
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                hit = marks[0] in fh.read()
            hit = hit or os.readlink(f"/proc/{pid}/cwd").startswith(marks[1])
        except OSError:
            continue
        if hit:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
    _wait_gone(killed)


def flags_of(answers):
    """Instructor notes about answer cells that touch the interpreter's machinery (no effect on points)."""
    flags = []
    for key, source in answers.items():
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            flags.append(f"answer cell {key!r} does not parse")
            continue
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                names.add(f"{node.value.id}.{node.attr}")
                names.add(node.attr)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update(a.name.split(".")[0] for a in node.names)
                if isinstance(node, ast.ImportFrom) and node.module:
                    names.add(node.module.split(".")[0])
                    names.update(f"{node.module}.{a.name}" for a in node.names)
        hits = sorted(n for n in SUSPICIOUS if n in names)
        if hits:
            flags.append(f"answer cell {key!r} uses {', '.join(hits)}")
    return flags


def _top_level_defs(answers):
    """``{name: (cell key, FunctionDef)}`` of the functions defined at the top of the answer cells."""
    defs = {}
    for key, source in answers.items():
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] = (key, node)
    return defs


def copied_reach(answers, copies, roots):
    """The copies that the functions ``roots`` can reach through the names their bodies use."""
    defs = _top_level_defs(answers)
    owner = {}
    for name, (key, node) in defs.items():
        for inner in ast.walk(node):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                owner.setdefault((key, inner.name), name)
    copied_tops = {}
    for c in copies:
        copied_tops.setdefault(owner.get((c.cell, c.function), c.function), c)
    seen, stack, hits = set(), list(roots), []
    while stack:
        name = stack.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        if name in copied_tops:
            hits.append(copied_tops[name])
        stack += [n.id for n in ast.walk(defs[name][1]) if isinstance(n, ast.Name)]
    return hits


# --- the judge, seen from the grader ------------------------------------------------------------

class JudgeProcess:
    """Start the judge on a socket bound here, read its verdict lines in the background, stop it.

    The grader binds the listening Unix socket (in a fresh private directory) and draws the token,
    so the kernel can be started at once (its connection waits in the backlog while the judge
    imports); the judge inherits the socket and draws its secret seed itself. Once nbval runs,
    :meth:`trust` tells the judge its process id: the judge then serves only processes below it
    (the kernel), so another graded run's kernel cannot use this run's token.
    """

    def __init__(self, options, exercise, student, workdir):
        self.sockdir = tempfile.mkdtemp(prefix="lg-")
        path = os.path.join(self.sockdir, "judge.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(16)
        self.address = "unix:" + path
        self.token = secrets.token_hex(16)
        config = {"exercise": exercise, "student": student, "max_attempts": options.max_attempts,
                  "wait": options.cell_timeout + 30, "fd": server.fileno(), "token": self.token}
        try:
            self.proc = subprocess.Popen(
                [options.python, "-I", "-m", "lessonlib.grading.judge"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=open(os.path.join(workdir, "judge.log"), "wb"), cwd=workdir,
                env=clean_env(), start_new_session=True, pass_fds=(server.fileno(),))
        finally:
            server.close()                                # the judge holds its own copy
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self._send(config)
        self.verdicts = []

    def _send(self, message):
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass                                          # a dead judge records nothing: no points

    def trust(self, pid):
        """Serve only the processes descending from ``pid`` (the run's nbval process)."""
        self._send({"trust": int(pid)})

    def _read(self):
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                continue
        self.lines.put(None)

    def stop(self):
        """Close the judge's stdin, collect every verdict it printed, and make sure it is gone."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill_tree(self.proc)
        self.reader.join(timeout=10)
        shutil.rmtree(self.sockdir, ignore_errors=True)
        verdicts = []
        while True:
            try:
                item = self.lines.get_nowait()
            except queue.Empty:
                break
            if item and item.get("event") == "verdict":
                verdicts.append(item)
        self.verdicts = verdicts
        return verdicts


# --- one submission ------------------------------------------------------------------------------

def _read_report(stream, cells, limit=2**20):
    """Collect nbval's per-cell records from the report pipe (at most ``limit`` bytes)."""
    read = 0
    for line in stream:
        read += len(line)
        if read > limit:
            continue                                      # keep draining: never block the writer
        try:
            rec = json.loads(line)
            cells[int(rec["cell"])] = rec
        except (ValueError, KeyError, TypeError):
            continue


def _tail(path, n=LOG_TAIL):
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - n))
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


def _all_checks(reference, status, message):
    return {c.id: CheckResult(c.id, 0, c.points, status, message) for c in reference.checks}


def _run_nbval(options, run_dir, nb_path, jupyter_path, judge, deadline):
    """Run ``pytest --nbval`` on the graded notebook in its own session.

    Returns ``(finished in time, {code cell number: record}, exit status)``; the records come through
    a pipe the nbval process inherits (no file another process could rewrite).
    """
    ini = run_dir / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    runtime = run_dir / "runtime"
    runtime.mkdir()
    read_end, write_end = os.pipe()
    cmd = [options.python, "-I", "-m", "lessonlib.grading.nbval_run", "-p", "nbval.plugin",
           "-p", "lessonlib.grading.plugin", "--nbval", "--nbval-kernel-name", KERNEL_NAME,
           "--nbval-cell-timeout", str(options.cell_timeout), "--nbval-kernel-startup-timeout", "60",
           "--lessonlib-inner-report", f"fd:{write_end}", "-q", "--tb=no", "-p", "no:cacheprovider",
           "-c", str(ini), "--rootdir", str(run_dir), str(nb_path)]
    env = clean_env(JUPYTER_PATH=jupyter_path, JUPYTER_RUNTIME_DIR=runtime, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1,
                    PYTHONDONTWRITEBYTECODE=1)
    cells = {}
    with open(run_dir / "nbval.log", "wb") as log, os.fdopen(read_end, encoding="utf-8", errors="replace") as rep:
        try:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    cwd=run_dir, env=env, start_new_session=True, pass_fds=(write_end,))
        finally:
            os.close(write_end)
        judge.trust(proc.pid)
        reader = threading.Thread(target=_read_report, args=(rep, cells), daemon=True)
        reader.start()
        try:
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            finished = True
        except subprocess.TimeoutExpired:
            finished = False
        finally:
            if proc.poll() is None:
                kill_tree(proc)
        reader.join(timeout=10)
    return finished, dict(cells), proc.returncode


def grade_submission(reference, path, options=None, *, name=None, exercise=None, targets=None):
    """Grade one submission against ``reference`` (:func:`~.notebook.load_reference`).

    Returns a :class:`SubmissionResult` whatever the submission does.
    """
    options = options or Options()
    start = time.monotonic()
    name = name or os.path.basename(path)
    result = SubmissionResult(name, os.fspath(path))
    try:
        exercise = exercise or load_exercise(reference.exercise)
        targets = copydetect.library_functions(exercise.copy_targets) if targets is None else targets
        try:
            submission = read_submission(path, reference)
        except SubmissionError as exc:
            result.checks = _all_checks(reference, "unreadable", str(exc))
            result.error = str(exc)
            return result
        result.student_id, result.notes = submission.student_id, list(submission.notes)
        copies = copydetect.find_copies(submission.answers, targets)
        result.flags = flags_of(submission.answers) + [
            f"answer cell {c.cell!r}: {c.function} is {c.ratio:.0%} identical to {c.target}" for c in copies]
        _graded_run(reference, exercise, submission, copies, options, result)
    except Exception as exc:                              # the grader's own failure: report, go on
        result.error = f"{type(exc).__name__}: {exc}"
        for c in reference.checks:
            result.checks.setdefault(c.id, CheckResult(c.id, 0, c.points, "grader-error", result.error))
    finally:
        result.seconds = time.monotonic() - start
    return result


def _graded_run(reference, exercise, submission, copies, options, result):
    deadline = time.monotonic() + options.timeout
    root = Path(tempfile.mkdtemp(prefix="lessonlib-grade-"))
    kernel_root = Path(tempfile.mkdtemp(prefix="lessonlib-kernel-"))
    workdir = kernel_root / "cwd"                         # the kernel's cwd: empty, and so is its parent
    workdir.mkdir()
    run_dir = root / "run"
    run_dir.mkdir()
    judge = None
    try:
        judge = JudgeProcess(options, reference.exercise, submission.student_id, str(root))
        jupyter_path = build_sandbox(root / "sandbox", exercise, judge_address=judge.address, token=judge.token,
                                     workdir=workdir, python=options.python)
        nb, roles = build_graded(reference, submission)
        nb_path = run_dir / "graded.ipynb"
        nbformat.write(nb, str(nb_path))
        finished, cells, status = _run_nbval(options, run_dir, nb_path, jupyter_path, judge, deadline)
        verdicts = judge.stop()
        if judge.proc.returncode and not verdicts:
            result.error = "the judge failed:\n" + _tail(root / "judge.log")
        elif finished and status is not None and status < 0:
            result.error = f"the nbval process was killed by signal {-status} (from the notebook's code?)"
        elif not cells and finished:
            result.error = "nbval did not run the notebook:\n" + _tail(run_dir / "nbval.log")
        result.checks = _combine(reference, exercise, submission, copies, roles, cells, verdicts, finished,
                                 result.error)
        if result.error.startswith("the judge failed"):
            for c in result.checks.values():
                if c.status != "copied-from-library":
                    c.status, c.points, c.message = "grader-error", 0, result.error
    finally:
        if judge is not None and judge.proc.poll() is None:
            kill_tree(judge.proc)
            shutil.rmtree(judge.sockdir, ignore_errors=True)
        sweep(root, workdir)
        if options.keep:
            result.notes.append(f"kept: {root} (kernel cwd {workdir})")
        else:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(kernel_root, ignore_errors=True)


def _cell_state(rec):
    if rec is None:
        return "not-run"
    if rec.get("died"):
        return "kernel-died"
    if rec.get("timeout"):
        return "timeout"
    return "passed" if rec.get("outcome") == "passed" else "failed"


def _combine(reference, exercise, submission, copies, roles, cells, verdicts, finished, error):
    by_check = {}
    for v in verdicts:
        by_check.setdefault(v.get("check"), []).append(v)
    cell_of = {role.name: n for n, role in enumerate(roles) if role.kind == "check"}
    timeout_at = min((n for n, rec in cells.items() if rec.get("timeout")), default=None)
    died_at = min((n for n, rec in cells.items() if rec.get("died") and not rec.get("timeout")), default=None)
    answer_errors = {role.name: cells[n].get("error", "") for n, role in enumerate(roles)
                     if role.kind == "answer" and n in cells and cells[n].get("outcome") != "passed"}
    defs = _top_level_defs(submission.answers)
    out = {}
    for c in reference.checks:
        k = cell_of[c.id]
        rec = cells.get(k)
        state = _cell_state(rec)
        if state != "passed" and timeout_at is not None and timeout_at <= k \
                and (died_at is None or timeout_at <= died_at):
            state = "timeout"                              # an earlier cell ran out of time
        elif state in ("failed", "not-run") and died_at is not None and died_at <= k:
            state = "kernel-died"
        elif state == "not-run" and not finished:
            state = "timeout"                              # the whole notebook ran out of time
        records = by_check.get(c.id, [])
        judged_pass = any(v.get("passed") for v in records)
        cr = CheckResult(c.id, 0, c.points, "", nbval=state,
                         judge="pass" if judged_pass else "fail" if records else "none")
        functions = exercise.checks[c.id].functions if c.id in exercise.checks else ()
        hits = copied_reach(submission.answers, copies, functions)
        if hits:
            h = hits[0]
            cr.status = "copied-from-library"
            cr.message = (f"answer cell {h.cell!r} defines {h.function}, which is {h.ratio:.0%} identical (code "
                          f"structure, names ignored) to the library's {h.target}; write your own implementation")
        elif state == "passed" and judged_pass:
            cr.status, cr.points = "passed", c.points
        elif judged_pass:
            cr.status = "output-mismatch" if state == "failed" else state
            cr.message = ("the judge recorded a pass, but the check cell's output differed from the reference "
                          "(did your code print while the check ran, or replace print?)"
                          + (f"\n{rec.get('error', '')}" if rec else ""))
        elif records:
            cr.status = str(records[-1].get("status") or "failed")
            cr.message = str(records[-1].get("message", ""))
        elif state == "passed":
            cr.status = "unverified"
            cr.message = "the check cell printed the verdict line, but the judge never ran this check"
        elif state == "failed":
            cr.status = "error"
            cr.message = (rec or {}).get("error", "") or "the check cell raised"
            for key in sorted({defs[f][0] for f in functions if f in defs}):
                if key in answer_errors:
                    cr.message += f"\nanswer cell {key!r} raised: {answer_errors[key]}"
                    if "NotAvailableWhileGrading" in answer_errors[key]:
                        cr.status = "used-library"
        else:
            cr.status = state
            cr.message = {"timeout": "the notebook ran out of time before this check ran",
                          "kernel-died": "the kernel died before this check ran",
                          "not-run": error or "the check cell did not run",
                          "passed": ""}[state]
            if state == "kernel-died" and died_at is not None:
                cr.message += f" (it died in code cell {died_at})"
            elif state == "timeout" and timeout_at is not None:
                cr.message += f" (code cell {timeout_at} exceeded the cell timeout)"
        if cr.status not in STATUSES:
            cr.status = "failed"
        out[c.id] = cr
    return out


# --- many submissions ------------------------------------------------------------------------------

def find_submissions(paths, reference_path=None):
    """``[(name, path)]``: the notebooks in ``paths`` (files, or directories searched recursively).

    The name is the file name; when two submissions share a file name, their paths (relative to the
    directory given on the command line, or as given for a file) are used instead. The reference is
    skipped when a directory scan finds it, and graded when it is named explicitly (a sanity check
    that should score full marks).
    """
    ref = os.path.realpath(reference_path) if reference_path else None
    found = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*.ipynb")):
                if ".ipynb_checkpoints" not in f.parts and os.path.realpath(f) != ref:
                    found.append((f, f.relative_to(p)))
        else:
            found.append((p, p))
    counts = {}
    for f, _ in found:
        counts[f.name] = counts.get(f.name, 0) + 1
    named = [(f.name if counts[f.name] == 1 else rel.as_posix(), f) for f, rel in found]
    seen, out = set(), []
    for name, f in named:
        while name in seen:
            name = f"{name}#"
        seen.add(name)
        out.append((name, os.fspath(f)))
    return out


def grade_batch(reference, submissions, options=None, *, jobs=1, progress=True):
    """Grade ``[(name, path)]`` in parallel (``jobs`` at a time) with a tqdm progress bar; results in order."""
    options = options or Options()
    exercise = load_exercise(reference.exercise)
    targets = copydetect.library_functions(exercise.copy_targets)
    results = [None] * len(submissions)
    bar = None
    if progress:
        from tqdm import tqdm                              # noqa: PLC0415
        bar = tqdm(total=len(submissions), unit="notebook", desc="grading", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
        futures = {pool.submit(grade_submission, reference, path, options, name=name, exercise=exercise,
                               targets=targets): i for i, (name, path) in enumerate(submissions)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return results


# --- writing the results ---------------------------------------------------------------------------

CSV_COLUMNS = ("submission", "check", "points", "max_points", "status")


def write_csv(results, path):
    """The gradebook: one row per submission × check, columns :data:`CSV_COLUMNS`."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(CSV_COLUMNS)
        for r in results:
            for c in r.checks.values():
                writer.writerow([r.submission, c.check, c.points, c.max_points, c.status])


def write_json(results, path):
    """``{submission file name: {"total", "max", "checks": {id: {points, max_points, status, message}}, ...}}``."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({r.submission: r.as_json() for r in results}, fh, indent=1, ensure_ascii=False)


def feedback_markdown(result, *, title="", preview=False):
    """The student's feedback: a score table, then each unpassed check's message."""
    lines = [f"# {title or 'Feedback'}: {result.submission}", ""]
    if preview:
        lines += ["> **Preview** — computed on your own machine; your grade is what your instructor's grader "
                  "gives.", ""]
    lines += [f"**Score: {result.total} / {result.max}**", "", "| check | points | status |", "|---|---:|---|"]
    lines += [f"| `{c.check}` | {c.points} / {c.max_points} | {c.status} |" for c in result.checks.values()]
    lines.append("")
    for c in result.checks.values():
        if c.status != "passed":
            lines += [f"## `{c.check}` — {c.status}", "", f"*{STATUSES.get(c.status, '')}*", ""]
            if c.message:
                lines += ["```text", c.message.replace("```", "'''"), "```", ""]
    if result.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in result.notes] + [""]
    return "\n".join(lines)


def write_feedback(results, directory, *, title=""):
    """One Markdown file per submission (``<name>.md``, path separators replaced)."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for r in results:
        stem = re.sub(r"[^A-Za-z0-9._#-]", "_", r.submission.removesuffix(".ipynb"))
        p = os.path.join(directory, f"{stem}.md")
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(feedback_markdown(r, title=title))
        paths.append(p)
    return paths


def summary_table(results):
    """A plain-text table of totals (for the terminal)."""
    width = max([len(r.submission) for r in results] + [10])
    rows = [f"{'submission':<{width}}  score   statuses"]
    for r in results:
        counts = {}
        for c in r.checks.values():
            counts[c.status] = counts.get(c.status, 0) + 1
        rows.append(f"{r.submission:<{width}}  {r.total:>2}/{r.max:<3}  "
                    + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return "\n".join(rows)


__all__ = ["Options", "CheckResult", "SubmissionResult", "STATUSES", "grade_submission", "grade_batch",
           "find_submissions", "write_csv", "write_json", "write_feedback", "feedback_markdown", "summary_table"]
