"""The judge: the clean process that runs one graded run's checks (``python -I -m lessonlib.grading.checks.judge``).

The grader binds a listening Unix socket in the run's channel directory and starts the judge with
it inherited (so the kernel can be started at once: its connection waits in the backlog), together
with one end of the run's **window** (a socket pair whose other end the run's nbval process holds),
and writes one JSON line on the judge's stdin: ``{"exercise", "student", "fd", "window", "cells",
"wait"}`` — ``cells`` maps each check cell's number in the graded notebook to its check id. Once the
kernel runs, a line ``{"trust": PID}`` names the process below which the kernel lives. The judge then

1. makes itself non-dumpable (Linux: other processes of the same user cannot read its memory or
   open its pipes through ``/proc``) and draws a **secret seed** from ``os.urandom`` — it never
   leaves this process;
2. follows the window: before nbval runs cell ``k`` it says so and waits for the judge's answer,
   and says when the cell has ended — so the judge always knows which cell is running;
3. serves a connection only from a process below the trusted one (``SO_PEERCRED`` and ``/proc``:
   another graded run's kernel cannot use this run's judge) that asks for **the check whose check
   cell is running, once in that cell, and not while another judged call is in progress**. Anything
   else — a call from an answer cell, a second call in the same check cell, a call for another
   check, a call from inside the student's function the check is calling — is **refused**, and the
   refusal is recorded (``{"event": "refused", "check", "cell", "reason"}``): the grader sends that
   check to review. So the judge is no oracle: an answer cannot ask it what is wrong and try again;
4. for the accepted call, runs the check with proxies for the student's functions: inputs go to
   the kernel as plain data, results come back as plain data (:mod:`..kernel.protocol`); the random
   inputs come from ``sha256(secret, student, check)``;
5. prints one ``{"event": "verdict", ...}`` line per judged check on its stdout — the only channel the
   grader believes — *before* answering the kernel; exits when the grader closes its stdin.
"""
import hashlib
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
        protocol.send(self.conn, {"op": "call", "fn": self.index, "args": protocol.encode(list(args), readonly=True),
                                  "kwargs": protocol.encode(dict(kwargs), readonly=True)})
        reply = protocol.recv(self.conn)
        if reply.get("op") == "result":
            return protocol.decode(reply.get("value"))
        if reply.get("op") == "raised":
            text = lambda key, n: str(reply.get(key, ""))[:n]      # noqa: E731
            raise StudentError(text("kind", 80), text("message", 1000), text("where", 1500), text("printed", 2000),
                               reply.get("errno"))
        raise protocol.ProtocolError(f"unexpected reply {str(reply.get('op'))[:40]!r}")


class Judge:
    """Serves one graded run (one exercise, one student) on a listening socket, one check cell at a time."""

    def __init__(self, exercise, student, *, server, cells=None, wait=120.0, emit=None):
        self.exercise, self.student = exercise, student
        self.cells = {int(k): v for k, v in (cells or {}).items()}
        self.wait = wait
        self.secret = os.urandom(32)
        self.lock = threading.Lock()
        self.emit = emit or _emit
        self.server = server
        self.trusted_pid, self.trusted = None, threading.Event()
        self.running, self.used, self.busy = None, False, False     # the cell nbval runs; its call taken; a call on

    def trust(self, pid):
        """Serve only processes descending from ``pid`` (the run's kernel, or its nbval process)."""
        self.trusted_pid = int(pid)
        self.trusted.set()

    def start(self, cell):
        """nbval is about to run code cell ``cell``."""
        with self.lock:
            self.running, self.used = int(cell), False

    def done(self, cell):
        """Code cell ``cell`` has ended."""
        with self.lock:
            if self.running == int(cell):
                self.running = None

    def peer_ok(self, conn):
        """Is the connecting process below the trusted one? (Linux Unix sockets; else the window alone decides.)"""
        if conn.family != getattr(socket, "AF_UNIX", None) or not hasattr(socket, "SO_PEERCRED"):
            return True
        if not self.trusted.wait(timeout=self.wait):
            return False
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return descends_from(struct.unpack("3i", creds)[0], self.trusted_pid)

    def admit(self, check_id):
        """``""`` and the call is taken, or why it is refused (``outside``, ``again``, ``nested``, ``other``)."""
        with self.lock:
            if self.busy:
                return "nested"
            if self.running is None or self.running not in self.cells:
                return "outside"
            if self.cells[self.running] != check_id:
                return "other"
            if self.used:
                return "again"
            self.used = self.busy = True
            return ""

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
        if begin.get("op") != "begin":
            return
        check_id = begin.get("check")
        check = self.exercise.checks.get(check_id) if isinstance(check_id, str) else None
        if check is None:
            self.emit({"event": "refused", "check": str(check_id)[:60], "cell": self.running, "reason": "unknown"})
            protocol.send(conn, {"op": "verdict", "passed": False,
                                 "message": f"unknown check {str(check_id)[:60]!r} for exercise {self.exercise.name}"})
            return
        refused = self.admit(check.id)
        if refused:
            self.emit({"event": "refused", "check": check.id, "cell": self.running, "reason": refused})
            protocol.send(conn, {"op": "verdict", "passed": False, "message": f"✗ [{check.id}] {REFUSALS[refused]}"})
            return
        try:
            reply = self._judge(conn, check, begin.get("functions"))
        finally:
            with self.lock:
                self.busy = False                         # before the kernel hears the verdict: it may go on at once
        protocol.send(conn, reply)

    def _judge(self, conn, check, sent):
        """Run ``check`` against the kernel's functions and record the verdict; the reply for the kernel."""
        if not isinstance(sent, list) or len(sent) != len(check.functions):
            message = (f"✗ [{check.id}] the check expects the functions {', '.join(check.functions)}; "
                       f"the check cell passed {len(sent) if isinstance(sent, list) else '?'}")
            self.emit({"event": "verdict", "check": check.id, "cell": self.running, "passed": False, "status": FAILED,
                       "message": message, "function": "", "raised": ""})
            return {"op": "verdict", "passed": False, "message": message}
        seed = attempt_seed(self.secret, self.student, check.id, 1)
        verdict = run_check(check, [RemoteFunction(conn, i) for i in range(len(check.functions))],
                            seed=seed, student=self.student)
        self.emit({"event": "verdict", "check": check.id, "cell": self.running, "passed": verdict.passed,
                   "status": verdict.status, "message": verdict.message[:4000], "function": verdict.function,
                   "raised": verdict.raised, "errno": verdict.errno})
        return {"op": "verdict", "passed": verdict.passed, "line": verdict.line, "message": verdict.message}


#: What the kernel is told when the judge refuses a call (the grader's feedback says more).
REFUSALS = {
    "outside": "the grader's judge runs a check only from its own check cell",
    "other": "the grader's judge runs, in a check cell, only that cell's check",
    "again": "the grader's judge runs a check once per check cell",
    "nested": "the grader's judge runs one check at a time (not from inside a check)",
}


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
                  cells=config.get("cells"), wait=float(config.get("wait", 120.0)))
    threading.Thread(target=judge.serve_forever, daemon=True).start()
    if config.get("window") is not None:
        threading.Thread(target=_follow, args=(judge, socket.socket(fileno=int(config["window"]))), daemon=True).start()
    for line in sys.stdin:                                # {"trust": pid} lines, until the grader closes stdin
        try:
            judge.trust(json.loads(line)["trust"])
        except (ValueError, KeyError, TypeError):
            continue
    server.close()


def _follow(judge, window):
    """The window from the nbval process: ``{"start": k}`` (answered once the judge knows) and ``{"done": k}``."""
    with window, window.makefile("rb") as lines:
        for raw in lines:
            try:
                message = json.loads(raw)
                if "start" in message:
                    judge.start(message["start"])
                    window.sendall((json.dumps({"ok": message["start"]}) + "\n").encode())
                elif "done" in message:
                    judge.done(message["done"])
            except (ValueError, TypeError, OSError):
                return


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
