"""The nbval process's end of the kernel hand-off: a jupyter_client provisioner that asks the grader.

nbval starts its kernel through jupyter_client; with ``--lessonlib-kernel-fd N`` the graded run's
kernel is forked from the batch's kernel zygote instead. :class:`ZygoteProvisioner` sends the
kernel's command, environment and standard descriptors on descriptor ``N`` to the grader's relay
(:mod:`lessonlib.grading.kernel_relay`), which answers with the process id of the forked kernel's
keeper and later reports its exit; :class:`ForkedKernel` is that process as jupyter_client sees a
``Popen``. If the relay says it cannot fork, the kernel starts as jupyter_client always starts it.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess

#: Largest hand-off message (bytes).
MAX_MESSAGE = 1 << 20


def send(sock, message, fds=()):
    """One hand-off message (JSON) with descriptors."""
    socket.send_fds(sock, [json.dumps(message).encode()], list(fds))



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
            data = self.sock.recv(MAX_MESSAGE)
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
                send(sock, {"cmd": list(cmd), "env": dict(kwargs.get("env") or os.environ),
                             "cwd": os.fspath(kwargs.get("cwd") or os.getcwd())}, [null, 1, 2])
            finally:
                os.close(null)
            sock.settimeout(60)
            reply = json.loads(sock.recv(MAX_MESSAGE) or b"{}")
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
