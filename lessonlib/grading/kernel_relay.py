"""A graded kernel forked from the batch's kernel zygote instead of started afresh: both ends of the hand-off.

nbval starts its kernel through jupyter_client; the kernel zygote (:mod:`.zygote`, in the
sandbox) is the grader's child. So the run's nbval process, through :class:`ZygoteProvisioner`
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
import signal
import socket
import subprocess
import threading

from .processes import kill_tree

_MAX = 1 << 20


def _send(sock, message, fds=()):
    socket.send_fds(sock, [json.dumps(message).encode()], list(fds))


# --- the grader's end ---------------------------------------------------------------------------------

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
        self.kernels, self.forked, self.thread = [], 0, None

    def start(self, nbval_pid):
        """Serve the nbval process ``nbval_pid`` (started with :attr:`fd`, which is closed here)."""
        os.close(self.fd)
        self.nbval_pid = nbval_pid
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self.ours, _MAX, 3)
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
            _send(self.ours, {"fallback": True})
            return
        self.kernels.append(child)
        self.forked += 1
        self.judge.trust(child.pid)                       # before the kernel can run a single cell
        _send(self.ours, {"pid": child.pid})
        threading.Thread(target=self._report_exit, args=(child,), daemon=True).start()

    def _report_exit(self, child):
        status = child.wait()
        try:
            _send(self.ours, {"exit": child.pid, "status": status})
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


# --- the nbval process's end ------------------------------------------------------------------------

class ForkedKernel:
    """The forked kernel as jupyter_client's provisioner sees a ``Popen``: its keeper's pid, exit, signals.

    Signals go to the keeper: an interrupt is forwarded to the kernel; anything else (terminate,
    kill) makes the keeper kill the kernel and everything it started.
    """

    stdin = stdout = stderr = None

    def __init__(self, pid, sock):
        self.pid, self.sock, self.returncode = pid, sock, None

    def _receive(self, timeout):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(_MAX)
        except (BlockingIOError, socket.timeout):
            return
        except OSError:
            data = b""
        if not data:                                      # the grader is gone: so is the kernel
            self.returncode = -signal.SIGKILL if self.returncode is None else self.returncode
            return
        message = json.loads(data)
        if message.get("exit") == self.pid:
            self.returncode = int(message["status"])

    def poll(self):
        if self.returncode is None:
            self._receive(0)
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None:
            self._receive(timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
        return self.returncode

    def send_signal(self, signum):
        if self.returncode is None:
            os.kill(self.pid, signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


def provisioner(fd):
    """The provisioner class for kernels forked through the relay on descriptor ``fd`` (nbval process)."""
    from jupyter_client.provisioning import LocalProvisioner

    sock = socket.socket(fileno=fd)
    sock.set_inheritable(False)

    class ZygoteProvisioner(LocalProvisioner):
        """Launch the kernel by asking the grader's relay; fall back to a plain launch if it says so."""

        async def launch_kernel(self, cmd, **kwargs):
            null = os.open(os.devnull, os.O_RDONLY)
            try:
                _send(sock, {"cmd": list(cmd), "env": dict(kwargs.get("env") or os.environ),
                             "cwd": os.fspath(kwargs.get("cwd") or os.getcwd())}, [null, 1, 2])
            finally:
                os.close(null)
            sock.settimeout(60)
            reply = json.loads(sock.recv(_MAX) or b"{}")
            if "pid" not in reply:
                return await super().launch_kernel(cmd, **kwargs)
            self.process = ForkedKernel(int(reply["pid"]), sock)
            self.pid, self.pgid = self.process.pid, None
            self.cwd = kwargs.get("cwd", os.getcwd())
            return self.connection_info

        async def kill(self, restart=False):
            """Kill, then wait for the exit here (jupyter_client would poll for it every 0.1 s)."""
            await super().kill(restart=restart)
            if isinstance(self.process, ForkedKernel):
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass

    return ZygoteProvisioner
