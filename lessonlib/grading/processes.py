"""Process trees of a graded run, from the grader: a clean environment, and killing everything a run started.

The nbval process and the judge are started in their own sessions; what a kernel spawns may
escape its process group (double forks, ``setsid``), so the run is stopped by walking ``/proc``
(:func:`kill_tree`) and, at the end, by sweeping every process that still mentions the run
(:func:`sweep`). Linux only for the ``/proc`` parts; elsewhere they find nothing and the process
group kill is all there is.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time

from .kernel.processes import descendants, kill


def clean_env(**extra):
    """A minimal environment for the grader's subprocesses (no secrets, no PYTHONPATH)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "USER")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update({k: str(v) for k, v in extra.items()})
    return env


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
        killed += kill(descendants(proc.pid))
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
    marks, me, hits = (os.fspath(root).encode(), os.fspath(workdir)), os.getpid(), []
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
            hits.append(pid)
    _wait_gone(kill(hits))
