"""A graded kernel forked from the batch's kernel zygote instead of started afresh: the grader's end of the hand-off.

nbval starts its kernel through jupyter_client; the kernel zygote (:mod:`.zygotes`, started
from the sandbox) is the grader's child. So the run's nbval process, through :class:`ZygoteProvisioner`
(a jupyter_client provisioner), sends the kernel's command, environment and standard descriptors
on a socket it inherited to the grader's :class:`KernelRelay`, which checks that the command is
this run's bootstrap, has the zygote fork it, tells the judge to serve that kernel only, and
answers with its process id; later it reports the kernel's exit. What the zygote forks is a
*keeper* (its process id is the one handed out) that forks the kernel and, when the kernel ends
or is told to stop, kills everything the kernel left behind (:func:`.kernel_boot._keep`).

If the zygote cannot fork, the relay says so and the provisioner starts the kernel as
jupyter_client always does (and the judge then serves the processes below the nbval process).
"""
from __future__ import annotations

import json
import os
import socket
import threading

from .processes import kill_tree
from .runner.provisioner import MAX_MESSAGE, send

class KernelRelay:
    """One graded run's relay: fork the kernel that the run's nbval process asks for.

    ``zygote``: the batch's kernel :class:`~.zygote.Zygote`; ``judge``: the run's
    :class:`~.judge_process.JudgeProcess`; ``command``: the kernelspec's command up to the
    connection file (:func:`~.sandbox.kernel_command`) — the only one the relay forks.
    ``fd``: the descriptor to hand to the nbval process.
    """

    def __init__(self, zygote, judge, command):
        self.zygote, self.judge, self.command = zygote, judge, [str(c) for c in command]
        self.ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.fd = theirs.detach()
        self.kernels, self.forked, self.thread, self.exits = [], 0, None, []

    def start(self, nbval_pid):
        """Serve the nbval process ``nbval_pid`` (started with :attr:`fd`, which is closed here)."""
        os.close(self.fd)
        self.nbval_pid = nbval_pid
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self.ours, MAX_MESSAGE, 3)
            except OSError:
                return
            if not message:
                return
            try:
                self._fork(json.loads(message), fds)
            except (OSError, ValueError, KeyError, TypeError):
                return
            finally:
                for fd in fds:
                    os.close(fd)

    def _fork(self, request, fds):
        cmd = [str(c) for c in request["cmd"]]
        child = None
        if cmd[:len(self.command)] == self.command and len(fds) == 3:
            try:
                child = self.zygote.spawn(cmd[len(self.command) - 1:], env={str(k): str(v) for k, v in request["env"].items()},
                                          cwd=request["cwd"], fds=dict(enumerate(fds)))
            except OSError:
                child = None
        if child is None:                                 # nbval starts it; the judge serves what is below nbval
            self.judge.trust(self.nbval_pid)
            send(self.ours, {"fallback": True})
            return
        self.kernels.append(child)
        self.forked += 1
        self.judge.trust(child.pid)                       # before the kernel can run a single cell
        send(self.ours, {"pid": child.pid})
        threading.Thread(target=self._report_exit, args=(child,), daemon=True).start()

    def _report_exit(self, child):
        status = child.wait()
        self.exits.append(status)
        try:
            send(self.ours, {"exit": child.pid, "status": status})
        except OSError:
            pass

    def close(self):
        """Kill every kernel this relay forked (and everything below it), and stop serving."""
        for child in self.kernels:
            if child.poll() is None:
                kill_tree(child)
        try:
            self.ours.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.ours.close()
        if self.thread is not None:
            self.thread.join(timeout=10)
