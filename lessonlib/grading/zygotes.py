"""The grader's side of the batch's fork servers: start a zygote, have it fork one process per run.

A graded run's judge imports the checkers and the whole library (sympy, scipy: about a second of
CPU), its nbval process imports pytest, nbval, jupyter_client and nbformat (most of another
second), and its kernel imports IPython, ipykernel, numpy and the sandbox's library (half a second).
A batch starts one *zygote* of each kind that imports all that once and then, per run, forks a
child which becomes that run's process (:mod:`.kernel.forkserver`: its own session, working
directory, environment and file descriptors, nothing else of the zygote's). A zygote never runs
student code. A forked judge draws its secret after the fork, so no two runs share one.

Each kind is started by the module next to what it starts, with the control socket's descriptor
number as its last argument:

* ``"judge"``: ``python -I -m lessonlib.grading.checks.judge --zygote EXERCISE FD``;
* ``"nbval"``: ``python -I -m lessonlib.grading.runner.main --zygote FD``;
* ``"kernel"``: ``python -I -S SANDBOX/.../kernel/boot.py --zygote CONFIG FD`` (the sandbox's copy of
  the kernel package; :mod:`.kernel.boot` says what a forked kernel does before any student code
  runs: exactly what a freshly started kernel does).

:class:`Zygote` hands out :class:`Forked` processes that behave like ``subprocess.Popen`` for what
the grader needs (``pid``, ``poll``, ``wait``, ``kill``, ``returncode``). If a zygote cannot start or
dies, :meth:`Zygote.spawn` raises ``OSError`` and the caller starts a plain process instead.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

KINDS = ("nbval", "judge", "kernel")


def judge_command(python, exercise):
    """How a judge zygote for ``exercise`` starts (the control descriptor is appended)."""
    return [python or sys.executable, "-I", "-m", "lessonlib.grading.checks.judge", "--zygote", exercise]


def nbval_command(python):
    """How an nbval zygote starts (the control descriptor is appended)."""
    return [python or sys.executable, "-I", "-m", "lessonlib.grading.runner.main", "--zygote"]


class Forked:
    """A process forked by a zygote, seen like a ``subprocess.Popen`` (its exit comes from the zygote)."""

    def __init__(self, pid, zygote):
        self.pid, self._zygote = pid, zygote
        self.returncode = None
        self._done = threading.Event()
        self.stdin = self.stdout = None

    def _exited(self, status):
        self.returncode = status
        self._done.set()

    def poll(self):
        if not self._done.is_set() and not self._zygote.alive():
            self._exited(-signal.SIGKILL)                 # the zygote died: its children were killed with it
        return self.returncode

    def wait(self, timeout=None):
        if not self._done.wait(timeout):
            if self.poll() is None:
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout)
        return self.returncode

    def kill(self):
        if self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass


class Zygote:
    """Start a zygote of ``kind`` ("nbval", "judge" or "kernel") with ``command``; :meth:`spawn` runs.

    ``command``: how to start it (:func:`judge_command`, :func:`nbval_command`, or the sandbox's
    ``boot.py --zygote CONFIG``); the control socket's descriptor number is appended.
    """

    def __init__(self, kind, command, *, env=None, log=None, cwd=None):
        if kind not in KINDS:
            raise ValueError(f"kind: expected one of {KINDS}, got {kind!r}")
        if not isinstance(command, (list, tuple)) or not command:
            raise ValueError(f"command: expected the argument list that starts the zygote, got {command!r}")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.kind = kind
        argv = [*map(str, command), str(theirs.fileno())]
        self.proc = subprocess.Popen(argv, pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=log or subprocess.DEVNULL,
                                     start_new_session=True, cwd=cwd)
        theirs.close()
        self.sock = ours
        self.lock = threading.Lock()
        self.children, self.exits, self.replies = {}, {}, {}
        self.replied = threading.Condition()
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def alive(self):
        return self.proc.poll() is None

    def _read(self):
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            message = json.loads(data)
            with self.replied:
                if "spawned" in message:
                    self.replies[message["id"]] = message["spawned"]
                    self.replied.notify_all()
                elif "exit" in message:
                    child = self.children.pop(message["exit"], None)
                    if child is None:
                        self.exits[message["exit"]] = message["status"]
                    else:
                        child._exited(message["status"])
        with self.replied:                                # the zygote is gone: so are its children
            for child in self.children.values():
                child._exited(-signal.SIGKILL)
            self.children.clear()
            self.replied.notify_all()

    def spawn(self, args, *, env, cwd, fds, timeout=60):
        """Fork a child running with ``args`` (nbval: pytest's; judge: none; kernel: the kernelspec's after
        the bootstrap); ``fds``: ``{number in the child: fd}``.

        The child's descriptors 0, 1, 2 must be among ``fds``. Raises ``OSError`` if the zygote is
        not there to fork.
        """
        if not self.alive():
            raise OSError(f"the {self.kind} zygote is not running")
        with self.lock:
            request_id, self.next_id = self.next_id, self.next_id + 1
            request = {"id": request_id, "args": list(map(str, args)), "env": env, "cwd": os.fspath(cwd),
                       "targets": list(fds)}
            socket.send_fds(self.sock, [json.dumps(request).encode()], list(fds.values()))
        with self.replied:
            if not self.replied.wait_for(lambda: request_id in self.replies or not self.alive(), timeout):
                raise OSError(f"the {self.kind} zygote did not answer")
            if request_id not in self.replies:
                raise OSError(f"the {self.kind} zygote died")
            pid = self.replies.pop(request_id)
            child = Forked(pid, self)
            if pid in self.exits:
                child._exited(self.exits.pop(pid))
            else:
                self.children[pid] = child
        return child

    def close(self):
        """Stop the zygote (its running children go on until they end)."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
