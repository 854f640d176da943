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
import threading
import time
from dataclasses import dataclass, field

import nbformat

from .judge_process import JudgeProcess
from .kernel.limits import EXIT_NO_WALLS, EXIT_NOT_BATCH
from .kernel_relay import KernelRelay
from .notebook import KERNEL_NAME, build_graded
from .processes import clean_env, kill_tree, sweep
from .sandbox import RunDirs, kernel_command, kernel_spec, run_policy, run_view

#: Bytes of nbval's own log kept for a grader-error message.
LOG_TAIL = 4000
#: Seconds to wait, after nbval ended, for the zygote's report of a forked kernel's exit when the guard saw none
#: (a kernel that refused its run exits at once, but on a loaded machine the report can come after nbval's end).
RELAY_EXIT_WAIT = 2.0
#: Bytes of the kernel's record of attempts to reach outside its walls that are read.
WATCH_BYTES = 64 * 1024


#: The typed fields of one cell's record (from :mod:`.runner.guard`): ``outcome`` (``passed`` or
#: ``failed``), ``timeout`` (it ran out of time and was interrupted), ``stuck`` (and did not stop, so
#: nbval stopped the kernel), ``died`` (the kernel died), ``deadline`` (the grader stopped the run at
#: the notebook's deadline while it ran), ``capped`` (its output went over the limit), ``error``
#: (``{"ename", "evalue", "errno"}`` of its exception, or None), ``details`` (nbval's text: instructor only).
CELL_FIELDS = ("outcome", "timeout", "stuck", "died", "deadline", "capped", "error", "details")


@dataclass
class RunRecord:
    """What a graded run saw, as typed fields: the cell roles, nbval's per-cell records, the judge's records.

    ``judge``: the judge's records (``verdict`` and ``refused`` events); ``kernel_exit``: the
    kernel's exit status (None if unknown); ``finished``: nbval ended before the notebook's
    deadline; ``run_failure``: why the notebook did not run, when the submission caused it (a code:
    :func:`.wording.run_failure`); ``grader_failure``: a failure of the grader's side (the judge,
    the walls, nbval) that voids the run; ``details``: the same for the instructor (log tails);
    ``notes``: for the instructor (e.g. where ``--keep`` left the files); ``cell_timeout``,
    ``timeout``: the limits the run had (seconds).
    """

    roles: list = field(default_factory=list)
    cells: dict = field(default_factory=dict)
    judge: list = field(default_factory=list)
    kernel_exit: object = None
    finished: bool = False
    run_failure: str = ""
    grader_failure: str = ""
    notes: list = field(default_factory=list)
    attempts: list = field(default_factory=list)     # the kernel's record of reaching outside its walls
    details: str = ""
    interrupted: bool = False
    cell_timeout: float = 0.0
    timeout: float = 0.0


def _read_report(stream, cells, kernel, limit=2**20):
    """Collect nbval's typed per-cell records (and the kernel's exit) from the report pipe (``limit`` bytes)."""
    read = 0
    for line in stream:
        read += len(line)
        if read > limit:
            continue                                      # keep draining: never block the writer
        try:
            rec = json.loads(line)
            if "kernel" in rec:
                kernel.update(rec["kernel"])
            else:
                cells[int(rec["cell"])] = {k: rec.get(k) for k in CELL_FIELDS}
        except (ValueError, KeyError, TypeError, AttributeError):
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


def _run_nbval(options, dirs, nb_path, jupyter_path, judge, deadline, abort, zygote=None, relay=None):
    """Run ``pytest --nbval`` on the graded notebook in its own session.

    Returns ``(finished in time, {code cell number: record}, {"exit": kernel's status}, nbval's exit
    status)``; the records come through a pipe the nbval process inherits (no file another process
    could rewrite), and it holds the judge's window. ``abort`` (an event) stops the run at once (the
    batch was interrupted); ``zygote``: the batch's nbval :class:`~.zygotes.Zygote` (a fork instead of
    a fresh interpreter), or None; ``relay``: the run's :class:`~.kernel_relay.KernelRelay` (the
    kernel is forked from the batch's kernel zygote), or None.
    """
    run_dir = dirs.run
    ini = run_dir / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    runtime = run_dir / "runtime"
    runtime.mkdir()
    read_end, write_end = os.pipe()
    cmd = [options.python, "-I", "-m", "lessonlib.grading.runner.main", "-p", "nbval.plugin",
           "-p", "lessonlib.grading.runner.guard", "--nbval", "--nbval-kernel-name", KERNEL_NAME,
           "--nbval-cell-timeout", str(options.cell_timeout), "--nbval-kernel-startup-timeout", "60",
           "--lessonlib-inner-report", f"fd:{write_end}", "--lessonlib-window", f"fd:{judge.window_fd}",
           "--lessonlib-channel", str(dirs.channel), "-q", "--tb=no", "--capture=no",  # kernel's fd 2: the log
           "-p", "no:cacheprovider",
           "-c", str(ini), "--rootdir", str(run_dir), str(nb_path)]
    inherited = [write_end, judge.window_fd]
    if relay is not None:
        cmd[-1:-1] = ["--lessonlib-kernel-fd", str(relay.fd)]
        inherited.append(relay.fd)
    env = clean_env(JUPYTER_PATH=jupyter_path, JUPYTER_RUNTIME_DIR=runtime, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1,
                    PYTHONDONTWRITEBYTECODE=1)
    cells, kernel = {}, {}
    with open(run_dir / "nbval.log", "wb") as log, os.fdopen(read_end, encoding="utf-8", errors="replace") as rep:
        try:
            proc = _forked_nbval(zygote, cmd[4:], env, run_dir, log, inherited) if zygote is not None else None
            if proc is None:
                proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        cwd=run_dir, env=env, start_new_session=True, pass_fds=inherited)
        finally:
            os.close(write_end)
            judge.close_window()
        if relay is None:
            judge.trust(proc.pid)
        else:
            relay.start(proc.pid)                         # it tells the judge which kernel to serve
        reader = threading.Thread(target=_read_report, args=(rep, cells, kernel), daemon=True)
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
    if relay is not None and kernel.get("exit") is None:  # the forked kernel's exit, as its zygote reports it: the
        wait_until = time.monotonic() + RELAY_EXIT_WAIT   # guard may have written None (no status within its wait),
        while relay.forked and not relay.exits and time.monotonic() < wait_until:    # and under load the report lags
            time.sleep(0.02)
        if relay.exits:
            kernel["exit"] = relay.exits[-1]
    return finished, dict(cells), kernel, proc.returncode


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
    walls' policy and view, which walls hold, the limits, the fork servers).
    """
    deadline = time.monotonic() + options.timeout
    dirs = RunDirs.make(shared.root)
    record, judge, relay = RunRecord(cell_timeout=options.cell_timeout, timeout=options.timeout), None, None
    try:
        nb, record.roles = build_graded(reference, submission)
        nb_path = dirs.run / "graded.ipynb"
        nbformat.write(nb, str(nb_path))
        cells = {k: role.name for k, role in enumerate(record.roles) if role.kind == "check"}
        judge = JudgeProcess(options, reference.exercise, submission.student_id, dirs.judge_socket, dirs.root,
                             cells=cells, zygote=shared.zygotes.get("judge"))
        jupyter_path = kernel_spec(dirs, shared.sandbox, exercise, judge_address=judge.address, python=options.python,
                                   policy=run_policy(shared.policy, dirs), enforce=shared.landlock,
                                   view=run_view(shared.view, dirs, shared.limits) if shared.view else None,
                                   limits=shared.limits)
        if shared.zygotes.get("kernel") is not None:
            relay = KernelRelay(shared.zygotes["kernel"], judge,
                                kernel_command(shared.sandbox, dirs.kernel / "boot.json", options.python))
        record.finished, record.cells, kernel, status = _run_nbval(
            options, dirs, nb_path, jupyter_path, judge, deadline, shared.abort, zygote=shared.zygotes.get("nbval"),
            relay=relay)
        record.kernel_exit = kernel.get("exit")
        record.interrupted = shared.abort.is_set()
        record.judge = judge.stop()
        log = _tail(dirs.run / "nbval.log")
        if judge.proc.returncode and not record.judge:
            record.grader_failure = "judge-failed"
            record.details = "the judge failed:\n" + _tail(dirs.root / "judge.log")
        elif record.kernel_exit in (EXIT_NO_WALLS, EXIT_NOT_BATCH):
            record.grader_failure = "no-walls" if record.kernel_exit == EXIT_NO_WALLS else "not-batch"
            record.details = "the graded kernel did not start (its walls); nothing was run:\n" + log
        elif record.finished and status is not None and status < 0:
            if shared.enforce:                            # walled kernels cannot signal nbval: not the student
                record.grader_failure = "signal"
            else:
                record.run_failure = "signal"
            record.details = f"the nbval process was killed by signal {-status}"
        elif not record.cells and record.finished:
            record.grader_failure = "nbval-failed"
            record.details = "nbval did not run the notebook:\n" + log
        record.attempts = read_attempts(dirs.watch)
    finally:
        if relay is not None:
            relay.close()
        if judge is not None:
            judge.kill()
        sweep(dirs.root, dirs.private / "cwd")
        if options.keep:
            record.notes.append(f"kept: {dirs.root}")
        else:
            shutil.rmtree(dirs.root, ignore_errors=True)
    return record
