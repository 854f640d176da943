"""The guard of a graded run's nbval process (``pytest -p lessonlib.grading.runner.guard``), not for people.

Loaded by the grader in the nbval process of one graded run (:mod:`.main`):

* ``--lessonlib-inner-report fd:N``: one typed record per cell on that pipe to the grader
  (:meth:`_InnerReport.pytest_runtest_logreport`: how it ended, whether it ran out of time, did not
  stop when interrupted, killed the kernel, which exception it raised, whether its output was cut),
  and at the end the kernel's exit status;
* ``--lessonlib-window fd:N``: tells the run's judge which cell is about to run and waits for its
  answer, and that it has ended — the judge judges a check only while its own check cell runs;
* ``--lessonlib-channel DIR``: the kernel's ZeroMQ channels are Unix sockets in ``DIR`` (the kernel
  has no network);
* ``--lessonlib-kernel-fd N``: the kernel is forked from the batch's kernel zygote through the
  grader (:mod:`.provisioner`).

It also notices a dead kernel at once instead of waiting for the cell timeout, caps every cell's
captured output and every message's size, and kills the kernel's leftover children at the end. It
never runs student code and never imports the judge's side.
"""
from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest

from ..kernel.limits import MAX_MESSAGE, OUTPUT_LIMIT

_PR_SET_CHILD_SUBREAPER = 36
#: Milliseconds between the client's attempts to reach the kernel's sockets (ZeroMQ's default: 100).
RECONNECT_MS = 10
#: Seconds to wait for an IOPub message after the kernel_info reply before asking again.
IOPUB_POLL = 0.02
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def pytest_addoption(parser):
    group = parser.getgroup("lessonlib", "lessonlib grading (the nbval process of a graded run)")
    group.addoption("--lessonlib-inner-report", default=None, help="(internal) per-cell report of a graded run")
    group.addoption("--lessonlib-kernel-fd", default=None, type=int,
                    help="(internal) the grader's relay that forks the graded kernel")
    group.addoption("--lessonlib-window", default=None, help="(internal) the judge's window on the running cell")
    group.addoption("--lessonlib-channel", default=None, help="(internal) the directory of the kernel's sockets")


def _set_subreaper():
    """Orphans of the kernel (double forks) become our children, so we can stop them (Linux)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _limit_output(msg, budgets):
    """Cap one iopub message in place: per-cell text budget, oversize displays dropped. True if it cut."""
    parent = msg.get("parent_header", {}).get("msg_id")
    kind, content = msg.get("msg_type"), msg.get("content", {})
    left = budgets.get(parent, OUTPUT_LIMIT)
    if kind == "stream":
        text = content.get("text", "")
        if left <= 0:
            msg["parent_header"] = {"msg_id": "lessonlib-dropped"}        # nbval ignores it
            return True
        budgets[parent] = left - len(text)
        if len(text) > left:
            content["text"] = text[:left] + f"\n[lessonlib-grade: output beyond {OUTPUT_LIMIT} characters dropped]\n"
            return True
    elif kind in ("display_data", "execute_result"):
        size = sum(len(str(v)) for v in content.get("data", {}).values())
        if size > left:
            content["data"] = {"text/plain": "[lessonlib-grade: display output too large, dropped]"}
            budgets[parent] = left
            return True
        budgets[parent] = left - size
    elif kind == "error":
        content["traceback"] = [str(t)[:2000] for t in content.get("traceback", [])[-40:]]
        content["evalue"] = str(content.get("evalue", ""))[:2000]
    return False


def _wait_for_ready(km, kc, timeout):
    """jupyter_client's ``wait_for_ready`` with short polls: a kernel_info reply, then any IOPub message.

    The IOPub subscription connects a moment after the shell; jupyter_client waits 0.2 s for an IOPub
    message before asking again, which is most of a forked kernel's start-up. Same test, 20 ms polls.
    """
    from queue import Empty
    deadline = time.monotonic() + timeout
    while True:
        kc.kernel_info()
        try:
            reply = kc.get_shell_msg(timeout=1)
        except Empty:
            reply = None
        if reply is not None and reply["msg_type"] == "kernel_info_reply":
            try:
                kc.get_iopub_msg(timeout=IOPUB_POLL)
                kc._handle_kernel_info_reply(reply)
                return
            except Empty:
                pass
        if not km.is_alive():
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")


class KernelDied(RuntimeError):
    """The graded kernel is gone (crash, os._exit, a signal)."""


#: The kernel nbval runs, once started (for the records: its process, its interrupts and stops).
_KERNEL = {}


def _install_guard(kernel_fd=None, channel=None):
    import uuid

    import zmq
    from jupyter_client.manager import KernelManager
    import nbval.kernel
    import nbval.plugin
    from nbval.kernel import NbvalKernelspecManager, RunningKernel

    forked = None
    if kernel_fd is not None:
        from .provisioner import provisioner                 # noqa: PLC0415
        forked = provisioner(kernel_fd)

    def start_new_kernel(startup_timeout=60, kernel_name="python", **kwargs):
        kwargs.pop("stderr", None)                        # the kernel's boot errors go to the run's log
        km = KernelManager(kernel_name=kernel_name, kernel_spec_manager=NbvalKernelspecManager())
        if channel:                                       # no network in the kernel's world: Unix sockets
            km.transport, km.ip = "ipc", os.path.join(channel, "k")
        if forked is not None:                            # the kernel comes from the batch's kernel zygote
            km.kernel_id = str(uuid.uuid4())
            km.provisioner = forked(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)
        km.start_kernel(**kwargs)
        _KERNEL["process"] = getattr(km.provisioner, "process", None)
        kc = km.client()
        kc.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        kc.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)   # the kernel binds a moment after we connect
        kc.start_channels()
        try:
            _wait_for_ready(km, kc, startup_timeout)
        except RuntimeError:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            raise
        return km, kc

    class GuardedKernel(RunningKernel):
        """nbval's kernel with capped outputs, immediate detection of a dead kernel, and counts of what
        happened to it: the interrupts nbval sends (only to a cell that ran out of time), the stops it
        makes (a cell that did not stop when interrupted), the outputs cut."""

        def __init__(self, *args, **kwargs):
            self._budgets = {}
            self.lessonlib_interrupts = self.lessonlib_stops = self.lessonlib_cuts = 0
            super().__init__(*args, **kwargs)
            _KERNEL["kernel"] = self

        def interrupt(self):
            self.lessonlib_interrupts += 1
            return super().interrupt()

        def stop(self):
            self.lessonlib_stops += 1
            return super().stop()

        def get_message(self, stream, timeout=None):
            if stream == "iopub":                         # nbval's own pretty-prints every message for its debug log
                msg = self.kc.get_iopub_msg(timeout=timeout)
                self.lessonlib_cuts += _limit_output(msg, self._budgets)
            elif stream == "shell":
                msg = self.kc.get_shell_msg(timeout=timeout)
            else:
                raise ValueError(f"stream: expected 'iopub' or 'shell', got {stream!r}")
            return msg

        def await_reply(self, msg_id, timeout=None):
            from queue import Empty
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                step = 0.5 if deadline is None else max(0.01, min(0.5, deadline - time.monotonic()))
                try:
                    msg = self.get_message(stream="shell", timeout=step)
                except Empty:
                    if not self.km.is_alive():
                        raise KernelDied("the kernel died (crash, os._exit, sys.exit from a thread or a signal)")
                    if deadline is not None and time.monotonic() >= deadline:
                        raise
                    continue
                if msg["parent_header"].get("msg_id") == msg_id:
                    if msg["content"]["status"] == "aborted":
                        raise RuntimeError("Kernel aborted execution request")
                    return

    nbval.kernel.start_new_kernel = start_new_kernel
    nbval.plugin.RunningKernel = GuardedKernel


def _summary(text):
    """The last meaningful lines of a failure report (ANSI codes stripped), for the instructor's details."""
    lines = [ln.rstrip() for ln in _ANSI.sub("", text).splitlines() if ln.strip()]
    return "\n".join(lines[-3:])[-1500:]


def _errno(evalue):
    """The ``errno`` of an ``OSError``'s text as Python writes it (``[Errno 28] No space left...``), or None."""
    m = re.match(r"\[Errno (\d+)\]", evalue or "")
    return int(m.group(1)) if m else None


def _fd(target):
    fd = int(target[3:])
    os.set_inheritable(fd, False)                         # the kernel must not get it
    return fd


class _Window:
    """The judge's window on the running cell: ``{"start": k}`` answered by ``{"ok": k}``, then ``{"done": k}``."""

    #: Seconds to wait for the judge's answer (a judge that does not answer judges nothing).
    WAIT = 30.0

    def __init__(self, target):
        import socket
        self.sock = socket.socket(fileno=_fd(target))
        self.sock.settimeout(self.WAIT)
        self.buffer = b""

    def _send(self, message):
        try:
            self.sock.sendall((json.dumps(message) + "\n").encode())
            return True
        except OSError:
            return False

    def open(self, cell):
        if not self._send({"start": cell}):
            return
        try:
            while b"\n" not in self.buffer:
                data = self.sock.recv(4096)
                if not data:
                    return
                self.buffer += data
            _, _, self.buffer = self.buffer.partition(b"\n")
        except OSError:
            return

    def close(self, cell):
        self._send({"done": cell})

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        cell = getattr(item, "cell_num", None)
        if cell is None:
            return (yield)
        self.open(cell)
        try:
            return (yield)
        finally:
            self.close(cell)


class _InnerReport:
    """Typed per-cell records, one JSON line each, to ``fd:N`` (a pipe from the grader) or a file path."""

    def __init__(self, target):
        if target.startswith("fd:"):
            self.fh = os.fdopen(_fd(target), "w", encoding="utf-8", buffering=1)
        else:
            self.fh = open(target, "w", encoding="utf-8", buffering=1)

    def write(self, record):
        self.fh.write(json.dumps(record) + "\n")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        kernel = getattr(item.parent, "kernel", None)
        before = {k: getattr(kernel, f"lessonlib_{k}", 0) for k in ("interrupts", "stops", "cuts")}
        try:
            return (yield)
        finally:
            after = {k: getattr(kernel, f"lessonlib_{k}", 0) for k in before}
            item.lessonlib_counts = {k: after[k] - before[k] for k in before}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        report.lessonlib_cell = getattr(item, "cell_num", None)
        if call.when == "call":
            counts = getattr(item, "lessonlib_counts", {})
            errors = [o for o in (getattr(item, "test_outputs", None) or []) if o.get("output_type") == "error"]
            kernel = getattr(item.parent, "kernel", None)
            alive = kernel is not None and kernel.is_alive()
            died = call.excinfo is not None and call.excinfo.errisinstance(KernelDied)
            report.lessonlib = {
                "timeout": counts.get("interrupts", 0) > 0, "stuck": counts.get("stops", 0) > 0,
                "died": died or (not alive and not counts.get("stops", 0)),
                "capped": counts.get("cuts", 0) > 0,
                "error": ({"ename": str(errors[-1].get("ename"))[:200], "evalue": str(errors[-1].get("evalue"))[:1500],
                           "errno": _errno(str(errors[-1].get("evalue")))} if errors else None)}
        elif call.when == "setup" and call.excinfo is not None:    # the kernel could not start, or was gone
            report.lessonlib = {"timeout": False, "stuck": False, "died": True, "capped": False, "error": None}
        return report

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        """One record per cell (:data:`lessonlib.grading.run.CELL_FIELDS`): ``outcome`` (``passed``, also
        when nbval expected a failure after a timeout, or ``failed``), and the typed facts of
        :meth:`pytest_runtest_makereport`; ``details`` is nbval's own text, for the instructor only."""
        facts = getattr(report, "lessonlib", None)
        cell = getattr(report, "lessonlib_cell", None)
        if facts is None or cell is None:
            return
        text = "" if report.passed else report.longreprtext
        self.write({"cell": cell, "outcome": "passed" if report.passed else "failed", **facts,
                    "details": _summary(text) if text else ""})

    @pytest.hookimpl
    def pytest_unconfigure(self, config):
        process = _KERNEL.get("process")
        status = None
        if process is not None:
            try:
                process.wait(timeout=5)
            except Exception:                              # noqa: BLE001 (still running: killed below)
                pass
            status = process.poll() if hasattr(process, "poll") else None
        self.write({"kernel": {"exit": status}})
        self.fh.close()
        from ..kernel.processes import descendants                  # noqa: PLC0415
        for pid in descendants(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass


def pytest_configure(config):
    opt = config.option
    if getattr(opt, "lessonlib_inner_report", None):
        from ..kernel.confine import not_dumpable
        not_dumpable()                                    # same-user processes cannot open our fds
        _set_subreaper()
        _install_guard(opt.lessonlib_kernel_fd, opt.lessonlib_channel)
        config.pluginmanager.register(_InnerReport(opt.lessonlib_inner_report), "lessonlib-inner-report")
        if opt.lessonlib_window:
            config.pluginmanager.register(_Window(opt.lessonlib_window), "lessonlib-window")
