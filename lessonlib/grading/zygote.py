"""Fork servers for the judge, the nbval process and the graded kernel: import once per batch, fork per run.

A graded run's judge imports the checkers and the whole library (sympy, scipy: about a second of
CPU), its nbval process imports pytest, nbval, jupyter_client and nbformat (most of another
second), and its kernel imports IPython, ipykernel, numpy and the sandbox's library (half a second).
A batch starts one *zygote* of each kind that imports all that once and then, per run, forks a
child which becomes that run's process: its own session, working directory, environment and file
descriptors (sent over a Unix socket), nothing else of the zygote's. A zygote never runs student
code. A forked judge draws its secret after the fork, so no two runs share one.

* ``python -I -m lessonlib.grading.zygote KIND FD [EXERCISE]`` for ``"nbval"`` and ``"judge"``;
* ``python -I -S SANDBOX/kernel_boot.py --zygote CONFIG FD`` for ``"kernel"``: the sandbox's copy of
  this module serves the forks there (:mod:`.kernel_boot` says what a forked kernel does before any
  student code runs: it confines itself first, exactly as a freshly started kernel does).

This module uses the standard library only (the kernel's sandbox imports it as a plain module).

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

KINDS = ("nbval", "judge", "kernel")
#: File descriptors a child gets its received descriptors parked above (before they move into place).
_PARK = 64
_MAX_FDS = 8


# --- the zygote (its own process) ------------------------------------------------------------------

#: What an nbval process imports after it starts (measured: about 130 modules), besides pytest's own
#: default plugins: IPython (jupyter_client's kernelspec lookup imports it), psutil, pdb, ...
NBVAL_MODULES = ("IPython", "IPython.paths", "psutil", "pdb", "difflib", "unittest", "xml.etree.ElementTree",
                 "jupyter_client.localinterfaces", "jupyter_client.provisioning", "nbval.kernel", "nbval.plugin")


def _preload(kind, exercise):
    import importlib
    if kind == "nbval":
        sys.modules.setdefault("rfc3987_syntax", None)       # see nbval_run
        import nbformat
        import pytest  # noqa: F401
        from _pytest.config import default_plugins

        from . import kernel_relay, nbval_run, plugin, processes  # noqa: F401
        for name in NBVAL_MODULES + tuple(f"_pytest.{p}" for p in default_plugins):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        for minor in (4, 5):                              # nbformat compiles its schema validator once, here
            nbformat.validate(nbformat.v4.new_notebook(nbformat_minor=minor))
    else:
        from . import judge  # noqa: F401
        from .checker import load_exercise
        load_exercise(exercise)


def take(request, fds):
    """In a forked child: take the run's descriptors, session, directory, environment and arguments."""
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


def _become(kind, request):
    if kind == "nbval":
        from .nbval_run import main
        return main(list(request["args"]))
    from .judge import main
    main()
    return 0


def run_and_exit(work, *, run_atexit=False):
    """In a forked child: run ``work()`` and leave with its status (never returns, never unwinds into
    the parent's code). ``None`` is 0, ``SystemExit`` its code, any other exception 1 (traceback on
    stderr); ``run_atexit``: run the child's exit handlers too, as an interpreter that ends does."""
    code = 1
    try:
        code = work() or 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:                                 # noqa: BLE001 (report, then leave)
        import traceback
        traceback.print_exc()
    finally:
        try:
            if run_atexit:
                import atexit
                atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve(control_fd, become):
    """The zygote's loop: fork a child per request until the grader closes the control socket.

    In the child, after :func:`take`, ``become(request)`` runs and its result is the exit status.
    What the zygote imported is moved out of the garbage collector's sight (``gc.freeze``): the
    children's collections then skip it and leave its memory pages shared.
    """
    import gc
    gc.collect()
    gc.freeze()
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
            control.close()

            def child():
                take(request, fds)
                return become(request)
            run_and_exit(child)
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"spawned": pid, "id": request["id"]}).encode())


def _main(kind, control_fd, exercise=None):
    from .judge import not_dumpable
    _preload(kind, exercise)
    not_dumpable()
    serve(control_fd, lambda request: _become(kind, request))


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
    """Start a zygote of ``kind`` ("nbval", "judge" or "kernel") for ``python``; :meth:`spawn` runs.

    ``command``: how to start it, the control socket's descriptor number appended (default:
    ``python -I -m lessonlib.grading.zygote KIND``, then ``exercise`` after the number; a kernel
    zygote needs the sandbox's ``kernel_boot.py --zygote CONFIG``).
    """

    def __init__(self, kind, python, *, exercise=None, env=None, log=None, command=None, cwd=None):
        if kind not in KINDS:
            raise ValueError(f"kind: expected one of {KINDS}, got {kind!r}")
        if kind == "kernel" and not command:
            raise ValueError("command: a kernel zygote is started by the sandbox's kernel_boot.py (give its command)")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.kind = kind
        argv = [*command, str(theirs.fileno())] if command else \
            [python, "-I", "-m", "lessonlib.grading.zygote", kind, str(theirs.fileno()), exercise or ""]
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


if __name__ == "__main__":
    _main(sys.argv[1], int(sys.argv[2]), sys.argv[3] or None)
