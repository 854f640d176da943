"""The judge: the clean process that runs one graded run's checks (``python -I -m lessonlib.grading.checks.judge``).

The grader binds a listening Unix socket in a fresh private directory, draws a one-time **token**,
starts the judge with the socket inherited (so the kernel can start at once: its connection waits
in the backlog) and writes one JSON line on the judge's stdin: ``{"exercise": ..., "student": ...,
"fd": ..., "token": ..., "max_attempts": ..., "wait": ...}``; once nbval runs, a second line
``{"trust": PID}`` names the run's nbval process. The judge then

1. makes itself non-dumpable (Linux: other processes of the same user cannot read its memory or
   open its pipes through ``/proc``) and draws a **secret seed** from ``os.urandom`` — it never
   leaves this process;
2. for each connection from a process below the trusted one (checked with ``SO_PEERCRED`` and
   ``/proc``: another graded run's kernel cannot use this run's judge, even with its token) that
   starts with the token and a known check id, runs that check with
   proxies for the student's functions: inputs go to the kernel as plain data, results come back
   as plain data (:mod:`.protocol`); the random inputs come from
   ``sha256(secret, student, check, attempt)``, fresh for every attempt;
3. prints one ``{"event": "verdict", ...}`` line per attempt on its stdout — the only channel the
   grader believes — *before* answering the kernel;
4. exits when the grader closes its stdin.

At most ``max_attempts`` attempts per check id are judged in a run, so the expected values a failed
attempt reveals cannot be replayed (the next attempt has other inputs) nor collected at length.
The token is not a secret from the kernel (the kernel must present it); with the process check it
keeps other local processes and other graded runs out.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import struct
import sys
import threading

from ..kernel import protocol
from ..kernel.confine import not_dumpable
from ..kernel.errors import StudentError
from .checker import FAILED, load_exercise, run_check

#: Attempts per check id judged in one graded run.
MAX_ATTEMPTS = 3
#: Connections served in one graded run (a kernel opening more gets no answer).
MAX_CONNECTIONS = 64


def descends_from(pid, ancestor, depth=32):
    """True if process ``pid`` is ``ancestor`` or below it (Linux /proc)."""
    for _ in range(depth):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                pid = int(fh.read().decode(errors="replace").rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def attempt_seed(secret, student, check_id, attempt):
    """The seed of one attempt: a hash of the run's secret, the student, the check and the attempt."""
    h = hashlib.sha256(secret + f"|{student}|{check_id}|{attempt}".encode())
    return int.from_bytes(h.digest()[:16], "big")


class RemoteFunction:
    """A student function living in the kernel: a call sends inputs and receives plain data."""

    def __init__(self, conn, index):
        self.conn, self.index = conn, index

    def __call__(self, args, kwargs):
        protocol.send(self.conn, {"op": "call", "fn": self.index, "args": protocol.encode(list(args)),
                                  "kwargs": protocol.encode(dict(kwargs))})
        reply = protocol.recv(self.conn)
        if reply.get("op") == "result":
            return protocol.decode(reply.get("value"))
        if reply.get("op") == "raised":
            text = lambda key, n: str(reply.get(key, ""))[:n]      # noqa: E731
            raise StudentError(text("kind", 80), text("message", 1000), text("where", 1500), text("printed", 2000))
        raise protocol.ProtocolError(f"unexpected reply {str(reply.get('op'))[:40]!r}")


class Judge:
    """Serves one graded run (one exercise, one student) on a listening socket."""

    def __init__(self, exercise, student, *, server, token, max_attempts=MAX_ATTEMPTS, wait=120.0, emit=None):
        self.exercise, self.student = exercise, student
        self.max_attempts, self.wait = max_attempts, wait
        self.secret, self.token = os.urandom(32), token
        self.attempts, self.lock = {}, threading.Lock()
        self.emit = emit or _emit
        self.server = server
        self.trusted_pid, self.trusted = None, threading.Event()

    def trust(self, pid):
        """Serve only processes descending from ``pid`` (the graded run's nbval process)."""
        self.trusted_pid = int(pid)
        self.trusted.set()

    def peer_ok(self, conn):
        """Is the connecting process below the trusted one? (Linux Unix sockets; else the token decides.)"""
        if conn.family != getattr(socket, "AF_UNIX", None) or not hasattr(socket, "SO_PEERCRED"):
            return True
        if not self.trusted.wait(timeout=self.wait):
            return False
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return descends_from(struct.unpack("3i", creds)[0], self.trusted_pid)

    def serve_forever(self):
        for _ in range(MAX_CONNECTIONS):
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()

    def _serve_one(self, conn):
        try:
            with conn:
                conn.settimeout(self.wait)
                self._handle(conn)
        except (OSError, protocol.ProtocolError, ValueError):
            pass                                           # a broken kernel: nothing to record

    def _handle(self, conn):
        if not self.peer_ok(conn):
            return
        begin = protocol.recv(conn)
        if begin.get("op") != "begin" or not hmac.compare_digest(str(begin.get("token", "")), self.token):
            return
        check_id = begin.get("check")
        check = self.exercise.checks.get(check_id) if isinstance(check_id, str) else None
        if check is None:
            protocol.send(conn, {"op": "verdict", "passed": False,
                                 "message": f"unknown check {str(check_id)[:60]!r} for exercise {self.exercise.name}"})
            return
        with self.lock:
            attempt = self.attempts[check.id] = self.attempts.get(check.id, 0) + 1
        if attempt > self.max_attempts:
            protocol.send(conn, {"op": "verdict", "passed": False, "message":
                                 f"✗ [{check.id}] already judged {self.max_attempts} times in this graded run"})
            return
        sent = begin.get("functions")
        if not isinstance(sent, list) or len(sent) != len(check.functions):
            message = (f"✗ [{check.id}] the check expects the functions {', '.join(check.functions)}; "
                       f"the check cell passed {len(sent) if isinstance(sent, list) else '?'}")
            self.emit({"event": "verdict", "check": check.id, "attempt": attempt, "passed": False,
                       "status": FAILED, "message": message})
            protocol.send(conn, {"op": "verdict", "passed": False, "message": message})
            return
        seed = attempt_seed(self.secret, self.student, check.id, attempt)
        verdict = run_check(check, [RemoteFunction(conn, i) for i in range(len(check.functions))],
                            seed=seed, student=self.student)
        self.emit({"event": "verdict", "check": check.id, "attempt": attempt, "passed": verdict.passed,
                   "status": verdict.status, "message": verdict.message[:4000], "function": verdict.function})
        protocol.send(conn, {"op": "verdict", "passed": verdict.passed, "line": verdict.line,
                             "message": verdict.message})


_emit_lock = threading.Lock()


def _emit(event):
    with _emit_lock:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()


def main():
    not_dumpable()
    config = json.loads(sys.stdin.readline())
    server = socket.socket(fileno=int(config["fd"]))
    judge = Judge(load_exercise(config["exercise"]), str(config["student"]), server=server,
                  token=str(config["token"]), max_attempts=int(config.get("max_attempts", MAX_ATTEMPTS)),
                  wait=float(config.get("wait", 120.0)))
    threading.Thread(target=judge.serve_forever, daemon=True).start()
    for line in sys.stdin:                                # {"trust": pid} lines, until the grader closes stdin
        try:
            judge.trust(json.loads(line)["trust"])
        except (ValueError, KeyError, TypeError):
            continue
    server.close()


def zygote(exercise, control_fd):
    """``python -I -m lessonlib.grading.checks.judge --zygote EXERCISE FD``: the batch's judge zygote.

    Imports the exercise's checkers (and with them the library) once, then forks one judge per run
    (:mod:`..kernel.forkserver`); each draws its own secret after the fork.
    """
    from ..kernel.forkserver import serve
    load_exercise(exercise)
    not_dumpable()
    serve(control_fd, lambda request: main())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        zygote(sys.argv[2], int(sys.argv[3]))
    else:
        main()
