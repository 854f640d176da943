"""One graded run: the judge, the sandbox, the graded notebook, and ``pytest --nbval`` on it.

:func:`graded_run` starts the judge (:mod:`.judge_process`), writes the sandbox the kernel sees
(:mod:`.sandbox`) and the graded notebook (:func:`~.notebook.build_graded`), runs nbval in its
own session with a per-notebook deadline, collects the per-cell records nbval's inner plugin
writes on a pipe and the judge's verdict lines, and leaves nothing running. What it returns is
raw material for :mod:`.verdict`; it decides no status itself.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .judge_process import JudgeProcess
from .kernel_relay import KernelRelay
from .notebook import KERNEL_NAME, build_graded
from .processes import clean_env, kill_tree, sweep
from .sandbox import SYSTEM_READ_WRITE, kernel_command, kernel_spec, make_private

#: Bytes of nbval's own log kept for a grader-error message.
LOG_TAIL = 4000
#: Bytes of the kernel's record of attempts to reach outside its walls that are read.
WATCH_BYTES = 64 * 1024


@dataclass
class RunRecord:
    """What a graded run saw: the cell roles, nbval's per-cell records, the judge's verdicts.

    ``finished``: nbval ended before the notebook's deadline; ``run_error``: why the notebook did
    not run (nbval could not start, or was killed); ``grader_error``: a failure that voids the run
    (the judge failed, the walls could not be built) — both in the student's words; ``details``: the
    same for the instructor (log tails); ``notes``: for the instructor (e.g. where ``--keep`` left
    the files); ``cell_timeout``, ``timeout``: the limits the run had (seconds).
    """

    roles: list = field(default_factory=list)
    cells: dict = field(default_factory=dict)
    verdicts: list = field(default_factory=list)
    finished: bool = False
    run_error: str = ""
    grader_error: str = ""
    notes: list = field(default_factory=list)
    attempts: list = field(default_factory=list)     # the kernel's record of reaching outside its walls
    details: str = ""
    interrupted: bool = False
    cell_timeout: float = 0.0
    timeout: float = 0.0


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


def _forked_nbval(zygote, args, env, run_dir, log, inherited):
    """The nbval process forked from the batch's nbval zygote (None if the zygote cannot fork)."""
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        return zygote.spawn(args, env=env, cwd=run_dir,
                            fds={0: null, 1: log.fileno(), 2: log.fileno(), **{fd: fd for fd in inherited}})
    except OSError:
        return None
    finally:
        os.close(null)


def _run_nbval(options, run_dir, nb_path, jupyter_path, judge, deadline, abort, zygote=None, relay=None):
    """Run ``pytest --nbval`` on the graded notebook in its own session.

    Returns ``(finished in time, {code cell number: record}, exit status)``; the records come through
    a pipe the nbval process inherits (no file another process could rewrite). ``abort`` (an event)
    stops the run at once (the batch was interrupted); ``zygote``: the batch's nbval
    :class:`~.zygote.Zygote` (a fork instead of a fresh interpreter), or None; ``relay``: the run's
    :class:`~.kernel_relay.KernelRelay` (the kernel is forked from the batch's kernel zygote), or None.
    """
    ini = run_dir / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    runtime = run_dir / "runtime"
    runtime.mkdir()
    read_end, write_end = os.pipe()
    cmd = [options.python, "-I", "-m", "lessonlib.grading.runner.main", "-p", "nbval.plugin",
           "-p", "lessonlib.grading.runner.guard", "--nbval", "--nbval-kernel-name", KERNEL_NAME,
           "--nbval-cell-timeout", str(options.cell_timeout), "--nbval-kernel-startup-timeout", "60",
           "--lessonlib-inner-report", f"fd:{write_end}", "-q", "--tb=no", "--capture=no",  # kernel's fd 2: the log
           "-p", "no:cacheprovider",
           "-c", str(ini), "--rootdir", str(run_dir), str(nb_path)]
    inherited = [write_end]
    if relay is not None:
        cmd[-1:-1] = ["--lessonlib-kernel-fd", str(relay.fd)]
        inherited.append(relay.fd)
    env = clean_env(JUPYTER_PATH=jupyter_path, JUPYTER_RUNTIME_DIR=runtime, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1,
                    PYTHONDONTWRITEBYTECODE=1)
    cells = {}
    with open(run_dir / "nbval.log", "wb") as log, os.fdopen(read_end, encoding="utf-8", errors="replace") as rep:
        try:
            proc = _forked_nbval(zygote, cmd[4:], env, run_dir, log, inherited) if zygote is not None else None
            if proc is None:
                proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        cwd=run_dir, env=env, start_new_session=True, pass_fds=inherited)
        finally:
            os.close(write_end)
        if relay is None:
            judge.trust(proc.pid)
        else:
            relay.start(proc.pid)                         # it tells the judge which kernel to serve
        reader = threading.Thread(target=_read_report, args=(rep, cells), daemon=True)
        reader.start()
        finished = False
        try:
            while not abort.is_set():
                try:
                    proc.wait(timeout=min(0.5, max(0.01, deadline - time.monotonic())))
                    finished = True
                    break
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= deadline:
                        break
        finally:
            before = set(cells.copy())                    # the records that came before the grader stopped it
            if proc.poll() is None:
                kill_tree(proc)
        reader.join(timeout=10)
    if not finished:                                      # a cell that "died" when the grader stopped the run
        for n, rec in list(cells.items()):               # at the notebook's deadline ran out of time
            if n not in before and rec.get("died"):
                cells[n] = {**rec, "died": False, "timeout": True, "deadline": True}
    return finished, dict(cells), proc.returncode


def read_attempts(path, limit=WATCH_BYTES):
    """The kernel's record of attempts to reach outside its walls (``[{"path", "function", ...}]``)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return []
    out = []
    for line in raw.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("path"), str):
            functions = [str(f)[:80] for f in rec.get("functions", []) if isinstance(f, str)][:8]
            out.append({"event": str(rec.get("event", ""))[:40], "path": rec["path"][:300],
                        "line": str(rec.get("line", ""))[:200], "direct": rec.get("direct") is not False,
                        "check": rec["check"][:80] if isinstance(rec.get("check"), str) else None,
                        "function": next((f for f in functions if f.isidentifier()), "the top level of an answer cell")})
    return out


def graded_run(reference, exercise, submission, options, shared):
    """Run ``submission``'s answers in the reference's graded notebook; a :class:`RunRecord`.

    ``shared``: what the batch's runs share (:class:`~.grader.Shared`: the sandbox library, the
    confinement policy and whether it is enforced).
    """
    deadline = time.monotonic() + options.timeout
    root = Path(tempfile.mkdtemp(prefix="lessonlib-grade-"))
    private = make_private(tempfile.mkdtemp(prefix="lessonlib-kernel-"))
    workdir = private / "cwd"                             # the kernel's cwd: empty
    run_dir = root / "run"
    run_dir.mkdir()
    record, judge, relay = RunRecord(cell_timeout=options.cell_timeout, timeout=options.timeout), None, None
    policy = dict(shared.policy, read_write=[str(private), *SYSTEM_READ_WRITE]) if shared.policy else None
    try:
        judge = JudgeProcess(options, reference.exercise, submission.student_id, str(root),
                             zygote=shared.zygotes.get("judge"))
        jupyter_path = kernel_spec(root / "kernel", shared.sandbox, exercise, judge_address=judge.address,
                                   token=judge.token, private=private, python=options.python, policy=policy,
                                   enforce=shared.enforce)
        nb, record.roles = build_graded(reference, submission)
        nb_path = run_dir / "graded.ipynb"
        nbformat.write(nb, str(nb_path))
        if shared.zygotes.get("kernel") is not None:
            relay = KernelRelay(shared.zygotes["kernel"], judge,
                                kernel_command(shared.sandbox, root / "kernel" / "boot.json", options.python))
        record.finished, record.cells, status = _run_nbval(options, run_dir, nb_path, jupyter_path, judge, deadline,
                                                           shared.abort, zygote=shared.zygotes.get("nbval"),
                                                           relay=relay)
        record.interrupted = shared.abort.is_set()
        record.verdicts = judge.stop()
        log = _tail(run_dir / "nbval.log")
        if judge.proc.returncode and not record.verdicts:
            record.grader_error = "the grader's checking process failed; your instructor has the details"
            record.details = "the judge failed:\n" + _tail(root / "judge.log")
        elif "could not confine itself" in log:
            record.grader_error = "the grader could not start a sandboxed kernel; your instructor has the details"
            record.details = "the graded kernel could not confine itself (Landlock); nothing was run:\n" + log
        elif record.finished and status is not None and status < 0:
            record.run_error = "the notebook's run was stopped by a signal (sent by your code?)"
            record.details = f"the nbval process was killed by signal {-status}"
        elif not record.cells and record.finished:
            record.run_error = "the grader could not run this notebook; your instructor has the details"
            record.details = "nbval did not run the notebook:\n" + log
        record.attempts = read_attempts(private / "watch.jsonl")
    finally:
        if relay is not None:
            relay.close()
        if judge is not None:
            judge.kill()
        sweep(root, workdir)
        if options.keep:
            record.notes.append(f"kept: {root} (kernel cwd {workdir})")
        else:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(private, ignore_errors=True)
    return record
