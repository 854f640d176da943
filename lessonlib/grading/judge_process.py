"""The judge process of one graded run, seen from the grader (the judge itself is :mod:`.judge`).

The grader binds the listening Unix socket (in a fresh private directory) and draws the token,
so the kernel can be started at once (its connection waits in the backlog while the judge
imports); the judge inherits the socket and draws its secret seed itself. Once nbval runs,
:meth:`JudgeProcess.trust` tells the judge its process id: the judge then serves only processes
below it (the kernel), so another graded run's kernel cannot use this run's token. The judge's
verdict lines come back on its stdout pipe, the only channel the grader believes.
"""
from __future__ import annotations

import json
import os
import queue
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading

from .processes import clean_env, kill_tree


class JudgeProcess:
    """Start the judge on a socket bound here, read its verdict lines in the background, stop it."""

    def __init__(self, options, exercise, student, workdir, zygote=None):
        self.sockdir = tempfile.mkdtemp(prefix="lg-")
        path = os.path.join(self.sockdir, "judge.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(16)
        self.address = "unix:" + path
        self.token = secrets.token_hex(16)
        config = {"exercise": exercise, "student": student, "max_attempts": options.max_attempts,
                  "wait": options.cell_timeout + 30, "fd": server.fileno(), "token": self.token}
        log = open(os.path.join(workdir, "judge.log"), "wb")
        try:
            self.proc = self._forked(zygote, server, log, workdir, config) if zygote is not None else None
            if self.proc is None:
                self.proc = subprocess.Popen(
                    [options.python, "-I", "-m", "lessonlib.grading.checks.judge"], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=log, cwd=workdir, env=clean_env(), start_new_session=True,
                    pass_fds=(server.fileno(),))
        finally:
            server.close()                                # the judge holds its own copy
            log.close()
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self._send(config)
        self.verdicts = []

    @staticmethod
    def _forked(zygote, server, log, workdir, config):
        """The judge forked from the batch's judge zygote (None if the zygote cannot fork)."""
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        try:
            proc = zygote.spawn([], env=clean_env(), cwd=workdir,
                                fds={0: stdin_r, 1: stdout_w, 2: log.fileno(), 3: server.fileno()})
        except OSError:
            os.close(stdin_w)
            os.close(stdout_r)
            return None
        finally:
            os.close(stdin_r)
            os.close(stdout_w)
        config["fd"] = 3                                  # where the forked judge finds the socket
        proc.stdin, proc.stdout = os.fdopen(stdin_w, "wb"), os.fdopen(stdout_r, "rb")
        return proc

    def _send(self, message):
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass                                          # a dead judge records nothing: no points

    def trust(self, pid):
        """Serve only the processes descending from ``pid`` (the run's nbval process)."""
        self._send({"trust": int(pid)})

    def _read(self):
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                continue
        self.lines.put(None)

    def stop(self):
        """Close the judge's stdin, collect every verdict it printed, and make sure it is gone."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill_tree(self.proc)
        self.reader.join(timeout=10)
        shutil.rmtree(self.sockdir, ignore_errors=True)
        verdicts = []
        while True:
            try:
                item = self.lines.get_nowait()
            except queue.Empty:
                break
            if item and item.get("event") == "verdict":
                verdicts.append(item)
        self.verdicts = verdicts
        return verdicts

    def kill(self):
        """Make sure the judge is gone (after a failure of the run)."""
        if self.proc.poll() is None:
            kill_tree(self.proc)
        shutil.rmtree(self.sockdir, ignore_errors=True)
