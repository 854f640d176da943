"""The fork-server loop every zygote of a batch runs: import once, then fork one child per run.

A *zygote* imports what its kind of process needs (the judge: the checkers and the library; the
nbval process: pytest and nbval; the graded kernel: IPython, ipykernel, numpy and the sandbox's
library) and then calls :func:`serve` on a Unix socket it shares with the grader. Each request
gets a forked child which takes the run's descriptors, session, working directory, environment
and arguments (:func:`take`) and becomes that run's process; the zygote reports each child's exit.
A zygote never runs student code.

Standard library only: the graded kernel's zygote runs this module from the sandbox, before
``sys.path`` holds anything else. The grader's side of the socket is :mod:`lessonlib.grading.zygotes`;
the entry points that start each kind sit next to what they start (:mod:`..checks.judge`,
:mod:`..runner.main`, :mod:`.boot`).
"""
import json
import os
import signal
import socket
import sys

#: File descriptors a child gets its received descriptors parked above (before they move into place).
_PARK = 64
#: Most descriptors one request may carry.
MAX_FDS = 8


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
            message, fds, _, _ = socket.recv_fds(control, 1 << 20, MAX_FDS)
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
