"""Process trees seen through ``/proc`` (Linux; elsewhere they are empty): children, descendants, kill.

Standard library only: the graded kernel's keeper uses it from the sandbox (every orphan below a
subreaper comes back to it, and :func:`kill_children` ends them), and the grader uses it to stop a
run's whole tree (:mod:`lessonlib.grading.processes`).
"""
import os
import signal


def children(pid):
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


def kill(pids):
    """SIGKILL each of ``pids``; returns those the signal reached."""
    killed = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    return killed


def kill_children(pid):
    """SIGKILL the direct children of ``pid`` (a subreaper's: every orphan below it comes back to it)."""
    kill(children(pid))


def descendants(pid):
    """Every process below ``pid`` (children first found, then theirs)."""
    found, frontier = [], [pid]
    while frontier:
        kids = [k for p in frontier for k in children(p)]
        found += kids
        frontier = kids
    return found
