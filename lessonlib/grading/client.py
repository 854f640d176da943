"""What a check cell calls: ``check("rnea-static", static_torques)``.

This is the only part of the grader that runs in the student's kernel, and it decides nothing.

* **Graded run** (the kernel was started by ``lessonlib-grade``; ``LESSONLIB_JUDGE`` is set): the
  client connects to the judge process, proves it belongs to this run with the one-time token,
  and then only *serves*: the judge sends test inputs, the client calls the student's functions
  and sends back plain data (:mod:`.protocol`), and finally prints the verdict line the judge
  sends (or raises :class:`CheckFailed` with the judge's message). The judge records the verdict
  out of band; whatever this process prints or patches, the grade does not change.
* **Preview** (no judge: the student runs the cell while working): the same checker runs in this
  process and prints the same verdict line on success. It is a preview — the grade comes from the
  grader re-running it in a clean process.

While a student function runs, its prints are captured (a debug ``print`` does not change the
cell's output); they are shown in the failure message instead.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import socket
import sys
import traceback

from . import protocol
from .errors import CheckFailed, NotAvailableWhileGrading, StudentError   # noqa: F401 (re-exported)

#: Environment variables the grader sets in the graded kernel (the address and the run's token).
JUDGE_ENV = "LESSONLIB_JUDGE"
TOKEN_ENV = "LESSONLIB_JUDGE_TOKEN"
#: Environment variable a student may set instead of ``student_id = "..."`` in the first answer cell.
STUDENT_ENV = "LESSONLIB_STUDENT_ID"
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
    roots[os.path.dirname(os.path.dirname(os.path.abspath(__file__)))] = "lessonlib"
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
                           buffer.getvalue()) from None
    try:
        return protocol.encode(value)
    except protocol.ProtocolError as exc:
        raise StudentError("BadReturn", f"returned {type(value).__name__}: {exc}", "", buffer.getvalue()) from None


def _serve(sock, functions):
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
            args = protocol.decode(message["args"])
            kwargs = protocol.decode(message["kwargs"])
            reply = {"op": "result", "value": call_student(functions[index], args, kwargs)}
        except StudentError as err:
            reply = {"op": "raised", "kind": err.kind, "message": err.message, "where": err.where,
                     "printed": err.printed}
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


def _judged(address, token, check_id, functions):
    try:
        with _connect(address) as sock:
            protocol.send(sock, {"op": "begin", "token": token, "check": check_id,
                                 "functions": [getattr(f, "__name__", "?") for f in functions]})
            verdict = _serve(sock, functions)
    except (OSError, protocol.ProtocolError) as exc:
        raise CheckFailed(f"[{check_id}] lost the connection to the grader's judge ({type(exc).__name__}: {exc})") from None
    if verdict.get("passed"):
        sys.stdout.write(str(verdict["line"]) + "\n")
        sys.stdout.flush()
        return
    raise CheckFailed(str(verdict.get("message", "check failed")))


def student_id():
    """The student id for preview inputs: ``$LESSONLIB_STUDENT_ID`` or the notebook's ``student_id``."""
    sid = os.environ.get(STUDENT_ENV)
    if not sid:
        main = sys.modules.get("__main__")
        sid = getattr(main, "student_id", None)
        try:
            from IPython import get_ipython                # noqa: PLC0415 (only inside a kernel)
            shell = get_ipython()
            if shell is not None:
                sid = shell.user_ns.get("student_id", sid)
        except ImportError:
            pass
    return sid if isinstance(sid, str) and sid else "anonymous"


def preview_seed(student, check_id):
    """Seed of a preview run: a hash of the student id and the check id (no secret: it's a preview)."""
    return int.from_bytes(hashlib.sha256(f"preview|{student}|{check_id}".encode()).digest()[:8], "big")


def local_function(fn):
    """A student function as a check sees it, called in this process (previews, authors' tests).

    The same round trip as a graded run: the function gets fresh decoded inputs, and its result is
    judged as the plain data it would have sent to the judge.
    """
    def call(args, kwargs):
        args = protocol.decode(protocol.json_roundtrip(protocol.encode(args)))
        kwargs = protocol.decode(protocol.json_roundtrip(protocol.encode(kwargs)))
        return protocol.decode(protocol.json_roundtrip(call_student(fn, args, kwargs)), allow_model=False)
    return call


def _preview(check_id, functions):
    from .checker import find_check, run_check       # noqa: PLC0415 (not shipped to graded kernels)

    the_check = find_check(check_id)
    sid = student_id()
    verdict = run_check(the_check, [local_function(f) for f in functions], seed=preview_seed(sid, check_id),
                        student=sid)
    if verdict.passed:
        sys.stdout.write(verdict.line + "\n")
        sys.stdout.flush()
        return
    raise CheckFailed(f"{verdict.message}\n(preview in this notebook: the grade comes from lessonlib-grade, "
                      "which re-runs this check in a clean process)")


def check(check_id, *functions):
    """Run the check ``check_id`` on the student's ``functions``: print its verdict line or raise.

    On success prints one deterministic line (no numbers, so nbval can compare it); on failure
    raises :class:`CheckFailed` with the expected-vs-got message.
    """
    address = os.environ.get(JUDGE_ENV)
    if address:
        return _judged(address, os.environ.get(TOKEN_ENV, ""), str(check_id), functions)
    try:
        return _preview(str(check_id), functions)
    except CheckFailed as exc:
        raise CheckFailed(str(exc)) from None              # no checker frames in the student's traceback
