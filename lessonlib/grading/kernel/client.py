"""The graded kernel's side of a check cell: serve the judge, decide nothing.

In a graded run (the kernel was started by ``lessonlib-grade``; ``LESSONLIB_JUDGE`` is set) the check
cell's ``check("rnea-static", static_torques)`` (:func:`lessonlib.grading.check`) comes here: the
client connects to the judge process (which serves only this run's kernel, and only the check whose
check cell is running), and then only *serves*: the
judge sends test inputs, the client calls the student's functions and sends back plain data
(:mod:`.protocol`), and finally prints the verdict line the judge sends (or raises
:class:`CheckFailed` with the judge's message). The judge records the verdict out of band; whatever
this process prints or patches, the grade does not change. (Outside a graded run the same cell
runs a preview: :mod:`lessonlib.grading.checks.preview`.)

While a student function runs, its prints are captured (a debug ``print`` does not change the
cell's output); they are shown in the failure message instead.
"""
from __future__ import annotations

import contextlib
import io
import os
import socket
import sys
import traceback

from . import protocol
from .errors import CheckFailed, StudentError

#: Environment variable the grader sets in the graded kernel: its judge's address (no secret: the judge
#: serves only this run's kernel, and only the check whose check cell is running).
JUDGE_ENV = "LESSONLIB_JUDGE"
#: How much of a student function's own printing is kept for the failure message (characters).
PRINT_LIMIT = 2000
#: How long the client waits for the judge's next message (seconds); the cell timeout comes first.
JUDGE_WAIT = 600.0


class _LimitedBuffer(io.StringIO):
    """A text buffer that keeps only the first ``PRINT_LIMIT`` characters."""

    def write(self, s):
        room = PRINT_LIMIT - self.tell()
        if room > 0:
            super().write(s[:room])
        return len(s)


def _installed_roots():
    """``{directory: name or None}``: where the standard library, the site packages and lessonlib live
    (never the student's code). Below a directory named ``None``, a file belongs to the package named
    by its first path component."""
    import sysconfig
    paths = sysconfig.get_paths()
    roots = dict.fromkeys(paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))
    # a graded kernel runs the base interpreter with the venv's site-packages on sys.path only
    roots.update(dict.fromkeys(p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")))
    roots[os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))] = "lessonlib"
    return {os.path.join(os.path.realpath(r), ""): name for r, name in roots.items() if r}


def _installed(filename, roots):
    """The installed package (top-level name) a file belongs to, or None for the student's code."""
    if filename.startswith("<frozen "):                    # the import machinery
        return "Python"
    real = os.path.realpath(filename) if not filename.startswith("<") else filename
    root = max((r for r in roots if real.startswith(r)), key=len, default=None)     # site-packages before stdlib
    if root is None:
        return None
    return roots[root] or os.path.splitext(real[len(root):].split(os.sep)[0])[0]


def _student_frames(tb):
    """The traceback lines of the student's own code, the deepest three; when the error was raised
    deeper, inside an installed package (numpy, IPython's ``open``, ...), one line names the package
    — no file of the grading machine is shown."""
    roots = _installed_roots()
    frames = traceback.extract_tb(tb)
    own = [f for f in frames if _installed(f.filename, roots) is None]
    text = "".join(traceback.format_list(own[-3:]))
    inside = _installed(frames[-1].filename, roots) if frames else None
    if own and inside is not None:
        text += f"  (raised inside {inside})\n"
    return text[-1500:]


def call_student(fn, args, kwargs):
    """Call ``fn(*args, **kwargs)`` with its output captured; returns the result as wire data.

    Raises :class:`StudentError` when the function raises (an ``Exception``; interrupts pass
    through) or returns something that is not plain data.
    """
    buffer = _LimitedBuffer()
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            value = fn(*args, **kwargs)
    except Exception as exc:                              # the student's function failed
        raise StudentError(type(exc).__name__, str(exc)[:1000], _student_frames(exc.__traceback__),
                           buffer.getvalue(), getattr(exc, "errno", None)) from None
    try:
        return protocol.encode(value)
    except protocol.ProtocolError as exc:
        raise StudentError("BadReturn", f"returned {type(value).__name__}: {exc}", "", buffer.getvalue()) from None


def _serve(sock, functions, model=None):
    """Answer the judge's calls until it sends the verdict; returns the verdict message."""
    while True:
        message = protocol.recv(sock)
        op = message.get("op")
        if op == "verdict":
            return message
        if op != "call":
            raise CheckFailed(f"unexpected message from the judge: {op!r}")
        try:
            index = int(message["fn"])
            args = protocol.decode(message["args"], model=model, readonly=True)
            kwargs = protocol.decode(message["kwargs"], model=model, readonly=True)
            reply = {"op": "result", "value": call_student(functions[index], args, kwargs)}
        except StudentError as err:
            reply = {"op": "raised", "kind": err.kind, "message": err.message, "where": err.where,
                     "printed": err.printed, "errno": err.errno}
        protocol.send(sock, reply)


def _connect(address):
    """A socket to the judge: ``unix:/path`` or ``host:port``."""
    if address.startswith("unix:"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(JUDGE_WAIT)
        sock.connect(address[len("unix:"):])
        return sock
    host, _, port = address.rpartition(":")
    return socket.create_connection((host, int(port)), timeout=JUDGE_WAIT)


def _judged(address, check_id, functions, model=None):
    try:
        with _connect(address) as sock:
            protocol.send(sock, {"op": "begin", "check": check_id,
                                 "functions": [getattr(f, "__name__", "?") for f in functions]})
            verdict = _serve(sock, functions, model)
    except (OSError, protocol.ProtocolError) as exc:
        raise CheckFailed(f"[{check_id}] lost the connection to the grader's judge ({type(exc).__name__}: {exc})") from None
    if verdict.get("passed"):
        sys.stdout.write(str(verdict["line"]) + "\n")
        sys.stdout.flush()
        return
    raise CheckFailed(str(verdict.get("message", "check failed")))


def graded():
    """True in a graded run (the grader started this kernel and named its judge)."""
    return bool(os.environ.get(JUDGE_ENV))


def judged(check_id, functions, *, model=None):
    """Serve the judge for the check ``check_id`` (a graded run): print its verdict line or raise.

    ``model``: the module defining ``Model`` (:mod:`lessonlib.model`), so that models the judge
    sends arrive as models.
    """
    return _judged(os.environ[JUDGE_ENV], str(check_id), functions, model)
