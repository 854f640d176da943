"""Fork servers for the judge and the nbval processes: import once per batch, fork once per run.

A graded run's judge imports the checkers and the whole library (sympy, scipy: about a second of
CPU), and its nbval process imports pytest, nbval, jupyter_client and nbformat (most of another
second). A batch starts one *zygote* of each kind (``python -I -m lessonlib.grading.zygote KIND``)
that imports all that once and then, per run, forks a child which becomes that run's judge or
nbval process: its own session, working directory, environment and file descriptors (sent over a
Unix socket), nothing else of the zygote's. The zygotes never run student code, and the kernel is
still a fresh ``exec`` of the bootstrap, which confines itself (isolation is unchanged). A forked
judge draws its secret after the fork, so no two runs share one.

The grader side (:class:`Zygote`) hands out :class:`Forked` processes that behave like
``subprocess.Popen`` for what the grader needs (``pid``, ``poll``, ``wait``, ``kill``,
``returncode``). If a zygote cannot start or dies, :meth:`Zygote.spawn` raises ``OSError`` and the
caller starts a plain process instead.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

KINDS = ("nbval", "judge")
#: File descriptors a child gets its received descriptors parked above (before they move into place).
_PARK = 64
_MAX_FDS = 8


# --- the zygote (its own process) ------------------------------------------------------------------

def _preload(kind, exercise):
    if kind == "nbval":
        sys.modules.setdefault("rfc3987_syntax", None)       # see nbval_run
        import jupyter_client  # noqa: F401
        import nbval.kernel  # noqa: F401
        import nbval.plugin  # noqa: F401
        import pytest  # noqa: F401

        from . import nbval_run, plugin  # noqa: F401
    else:
        from . import judge  # noqa: F401
        from .checker import load_exercise
        load_exercise(exercise)


def _become(kind, request, fds):
    """In the forked child: take the run's descriptors, session, directory and environment, then run."""
    import fcntl
    os.setsid()
    parked = [fcntl.fcntl(fd, fcntl.F_DUPFD, _PARK) for fd in fds]     # out of the way of the targets
    targets = [int(t) for t in request["targets"]]
    for fd in fds:
        os.close(fd)
    for target, fd in zip(targets, parked):
        os.dup2(fd, target)
    for fd in parked:
        os.close(fd)
    for fd in map(int, os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ()):
        if fd > 2 and fd not in targets:
            try:
                os.close(fd)
            except OSError:
                pass
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [sys.argv[0], *request["args"]]
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    if kind == "nbval":
        from .nbval_run import main
        return main(list(request["args"]))
    from .judge import main
    main()
    return 0


def serve(kind, control_fd, exercise=None):
    """The zygote's loop: fork a child per request until the grader closes the control socket."""
    from .judge import not_dumpable
    _preload(kind, exercise)
    not_dumpable()
    control = socket.socket(fileno=control_fd)

    def reap(signum, frame):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            try:
                control.send(json.dumps({"exit": pid, "status": os.waitstatus_to_exitcode(status)}).encode())
            except OSError:
                pass

    signal.signal(signal.SIGCHLD, reap)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 20, _MAX_FDS)
        except InterruptedError:
            continue
        if not message:
            return
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                control.close()
                code = _become(kind, request, fds) or 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:                     # noqa: BLE001 (report, then leave)
                import traceback
                traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"spawned": pid, "id": request["id"]}).encode())


# --- the grader's side ------------------------------------------------------------------------------

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
    """Start a zygote of ``kind`` ("nbval" or "judge") for ``python``; :meth:`spawn` runs."""

    def __init__(self, kind, python, *, exercise=None, env=None, log=None):
        if kind not in KINDS:
            raise ValueError(f"kind: expected one of {KINDS}, got {kind!r}")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.kind = kind
        self.proc = subprocess.Popen([python, "-I", "-m", "lessonlib.grading.zygote", kind, str(theirs.fileno()),
                                      exercise or ""], pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=log or subprocess.DEVNULL,
                                     start_new_session=True)
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
        """Fork a child running with ``args`` (nbval: pytest's; judge: none); ``fds``: ``{number in the child: fd}``.

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


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), sys.argv[3] or None)
