"""The judge process of one graded run, seen from the grader (the judge itself is :mod:`.checks.judge`).

The grader binds the listening Unix socket (in the run's channel directory, the only place the
kernel's world shares with it), so the kernel can be started at once (its connection waits in the
backlog while the judge starts), and makes the run's **window**: a socket pair, one end for the
judge, the other (:attr:`JudgeProcess.window_fd`) for the run's nbval process, which tells the
judge which cell runs. Once the kernel runs, :meth:`JudgeProcess.trust` names the process below
which it lives: the judge then serves only processes below it. The judge's records (verdicts and
refusals) come back on its stdout pipe, the only channel the grader believes.
"""
from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import threading

from .checks.registry import checker_env
from .processes import clean_env, kill_tree

#: Judge records the grader keeps (anything else on the judge's stdout is ignored).
EVENTS = ("verdict", "refused")


class JudgeProcess:
    """Start the judge on a socket bound at ``socket_path``, read its records in the background, stop it.

    ``cells``: ``{code cell number: check id}`` of the graded notebook's check cells; ``log_dir``:
    where its stderr goes (``judge.log``); ``zygote``: the batch's judge zygote, or None.
    """

    def __init__(self, options, exercise, student, socket_path, log_dir, *, cells, zygote=None):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(os.fspath(socket_path))
        server.listen(16)
        self.address = "unix:" + os.fspath(socket_path)
        ours, self.window_fd = (s.detach() for s in socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM))
        config = {"exercise": exercise, "student": student, "wait": options.cell_timeout + 30,
                  "cells": {str(k): v for k, v in cells.items()}}
        log = open(os.path.join(log_dir, "judge.log"), "wb")
        try:
            self.proc = self._forked(zygote, server, ours, log, log_dir, config) if zygote is not None else None
            if self.proc is None:
                config.update(fd=server.fileno(), window=ours)
                self.proc = subprocess.Popen(
                    [options.python, "-I", "-m", "lessonlib.grading.checks.judge"], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=log, cwd=log_dir, env=clean_env(**checker_env()), start_new_session=True,
                    pass_fds=(server.fileno(), ours))
        finally:
            server.close()                                # the judge holds its own copies
            os.close(ours)
            log.close()
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self._send(config)
        self.records = []

    @staticmethod
    def _forked(zygote, server, window, log, log_dir, config):
        """The judge forked from the batch's judge zygote (None if the zygote cannot fork)."""
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        try:
            proc = zygote.spawn([], env=clean_env(**checker_env()), cwd=log_dir,
                                fds={0: stdin_r, 1: stdout_w, 2: log.fileno(), 3: server.fileno(), 4: window})
        except OSError:
            os.close(stdin_w)
            os.close(stdout_r)
            return None
        finally:
            os.close(stdin_r)
            os.close(stdout_w)
        config.update(fd=3, window=4)                     # where the forked judge finds them
        proc.stdin, proc.stdout = os.fdopen(stdin_w, "wb"), os.fdopen(stdout_r, "rb")
        return proc

    def _send(self, message):
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass                                          # a dead judge records nothing: no points

    def trust(self, pid):
        """Serve only the processes descending from ``pid`` (the run's kernel keeper, or nbval process)."""
        self._send({"trust": int(pid)})

    def close_window(self):
        """The nbval process has its end of the window: the grader's copy goes (once: the number may be reused)."""
        fd, self.window_fd = self.window_fd, None
        if fd is not None:
            os.close(fd)

    def _read(self):
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                continue
        self.lines.put(None)

    def stop(self):
        """Close the judge's stdin, collect every record it printed, and make sure it is gone."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill_tree(self.proc)
        self.reader.join(timeout=10)
        records = []
        while True:
            try:
                item = self.lines.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, dict) and item.get("event") in EVENTS:
                records.append(item)
        self.records = records
        return records

    def kill(self):
        """Make sure the judge is gone (after a failure of the run)."""
        self.close_window()
        if self.proc.poll() is None:
            kill_tree(self.proc)
