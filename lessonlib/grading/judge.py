"""The judge: the clean process that runs one graded run's checks (``python -I -m lessonlib.grading.judge``).

The grader binds a listening socket on ``127.0.0.1`` (a random port), draws a one-time **token**,
starts the judge with the socket inherited (so the kernel can start at once: its connection waits
in the backlog) and writes one JSON line on the judge's stdin: ``{"exercise": ..., "student": ...,
"fd": ..., "token": ..., "max_attempts": ..., "wait": ...}``. The judge then

1. makes itself non-dumpable (Linux: other processes of the same user cannot read its memory or
   open its pipes through ``/proc``) and draws a **secret seed** from ``os.urandom`` — it never
   leaves this process;
2. for each connection that starts with the token and a known check id, runs that check with
   proxies for the student's functions: inputs go to the kernel as plain data, results come back
   as plain data (:mod:`.protocol`); the random inputs come from
   ``sha256(secret, student, check, attempt)``, fresh for every attempt;
3. prints one ``{"event": "verdict", ...}`` line per attempt on its stdout — the only channel the
   grader believes — *before* answering the kernel;
4. exits when the grader closes its stdin.

At most ``max_attempts`` attempts per check id are judged in a run, so the expected values a failed
attempt reveals cannot be replayed (the next attempt has other inputs) nor collected at length.
The token is not a secret from the kernel (the kernel must present it); it only keeps other local
processes and other graded runs out.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import sys
import threading

from . import protocol
from .checker import FAILED, load_exercise, run_check
from .client import StudentError

#: Attempts per check id judged in one graded run.
MAX_ATTEMPTS = 3
#: Connections served in one graded run (a kernel opening more gets no answer).
MAX_CONNECTIONS = 64
_PR_SET_DUMPABLE = 4


def not_dumpable():
    """Forbid same-user processes to ptrace this one or read its /proc memory and fds (Linux)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


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
            return protocol.decode(reply.get("value"), allow_model=False)
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
                   "status": verdict.status, "message": verdict.message[:4000]})
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
    sys.stdin.read()                                      # until the grader closes our stdin
    server.close()


if __name__ == "__main__":
    main()
