"""Read and screen one submission in a child process with its own limits (runs in a fork of the grader).

A submission is hostile input to the grader itself, before any kernel runs: a 60 MB notebook
costs ``json`` more than a gigabyte, a deeply nested answer costs ``ast`` its stack, a path may be a
symlink to ``/dev/zero`` or a FIFO that never ends. So the grader never parses a submission in its
own process. :func:`screened` forks; the child

1. opens the file without following a symlink and refuses anything but a regular file, and a file
   over :data:`~.notebook.MAX_NOTEBOOK_BYTES`, before reading a byte of it
   (:func:`~.notebook.read_regular`);
2. reads and parses it, matches the answer cells (:func:`~.notebook.read_submission`) and screens
   them (copy detection, flags) — under ``RLIMIT_AS`` (:data:`MEMORY` above what the grader had
   mapped) and ``RLIMIT_CPU`` (:data:`CPU_SECONDS`);
3. sends back the small result (the answers, the copies, the flags; pickled, bounded) and exits.

A child that runs out of memory or CPU time makes the submission ``unreadable``, with a message
that says which limit; a child that does not end within :data:`WALL_SECONDS` (it was not the
submission's doing: it spent no CPU) is the grader's failure (:class:`ReaderFailure`). The
child does not start threads, and should not import: the caller has imported what ``fn`` runs
(:mod:`.grader` imports the reading and screening modules at its own import).
"""
from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import time

from .notebook import SubmissionError

#: The child's memory beyond what the grader had mapped when it forked (bytes).
MEMORY = 512 << 20
#: The child's CPU time (seconds).
CPU_SECONDS = 20
#: How long the grader waits for the child (seconds).
WALL_SECONDS = 90
#: The largest result the child may send (bytes; the answers are bounded far below this).
MAX_RESULT = 16 << 20


class ReaderFailure(RuntimeError):
    """The reader failed for a reason that is not the submission's (an environment failure)."""


def _vm_size():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _child(fn, args, out):
    """In the fork: limits, the work, the result down ``out``, exit without running the grader's handlers."""
    code = 0
    try:
        budget = _vm_size() + MEMORY
        resource.setrlimit(resource.RLIMIT_AS, (budget, budget))
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
        try:
            payload = ("ok", fn(*args))
        except SubmissionError as exc:
            payload = ("unreadable", str(exc))
        except (MemoryError, RecursionError) as exc:
            payload = ("unreadable", _too_much(type(exc).__name__))
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(out, view[:1 << 16]):]
    except BaseException:                                       # noqa: BLE001 (tell the parent by the exit code)
        code = 70
    finally:
        os._exit(code)


def _too_much(what):
    return {"MemoryError": f"reading it needed more than the grader allows one submission "
                           f"({MEMORY // 2**20} MiB of memory); is it a notebook?",
            "cpu": f"reading it took more than the grader allows one submission ({CPU_SECONDS} s of CPU time); "
                   "is it a notebook?"}.get(what, "it is nested too deeply to be read; is it a notebook?")


def screened(fn, *args):
    """``fn(*args)`` computed in a fork with the reader's limits; its (picklable) result.

    Raises :class:`~.notebook.SubmissionError` when the submission is at fault (a message for the
    student), :class:`ReaderFailure` when the grader is.
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(fn, args, w)
    os.close(w)
    chunks, size, deadline = [], 0, time.monotonic() + WALL_SECONDS
    poller = select.poll()                                # (not select(): a busy grader may hold fds over 1024)
    poller.register(r, select.POLLIN | select.POLLHUP)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                os.kill(pid, signal.SIGKILL)
                raise ReaderFailure(f"the reader did not finish within {WALL_SECONDS} s")
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_RESULT:
                os.kill(pid, signal.SIGKILL)
                raise ReaderFailure("the reader's result was too large")
            chunks.append(chunk)
    finally:
        os.close(r)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if status in (-signal.SIGXCPU, -signal.SIGKILL) and not chunks:
        raise SubmissionError(_too_much("cpu")) if status == -signal.SIGXCPU else ReaderFailure(
            "the reader was killed")
    if status != 0 or not chunks:
        raise ReaderFailure(f"the reader failed (exit status {status})")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "unreadable":
        raise SubmissionError(value)
    return value
