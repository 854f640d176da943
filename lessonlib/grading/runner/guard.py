"""The guard of a graded run's nbval process (``pytest -p lessonlib.grading.runner.guard``), not for people.

Loaded by the grader in the nbval process of one graded run (:mod:`.main`), with
``--lessonlib-inner-report fd:N``: it records each cell's outcome on that pipe to the grader, detects
a dead kernel at once instead of waiting for the cell timeout, caps every cell's captured output
and every message's size, and kills the kernel's leftover children at the end. With
``--lessonlib-kernel-fd N`` the kernel is forked from the batch's kernel zygote through the grader
(:mod:`.provisioner`). It never runs student code and never imports the judge's side.
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


class KernelDied(RuntimeError):
    """The graded kernel is gone (crash, os._exit, a signal)."""


def _set_subreaper():
    """Orphans of the kernel (double forks) become our children, so we can stop them (Linux)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _limit_output(msg, budgets):
    """Cap one iopub message in place: per-cell text budget, oversize displays dropped."""
    parent = msg.get("parent_header", {}).get("msg_id")
    kind, content = msg.get("msg_type"), msg.get("content", {})
    left = budgets.get(parent, OUTPUT_LIMIT)
    if kind == "stream":
        text = content.get("text", "")
        if left <= 0:
            msg["parent_header"] = {"msg_id": "lessonlib-dropped"}        # nbval ignores it
            return
        if len(text) > left:
            content["text"] = text[:left] + f"\n[lessonlib-grade: output beyond {OUTPUT_LIMIT} characters dropped]\n"
        budgets[parent] = left - len(text)
    elif kind in ("display_data", "execute_result"):
        size = sum(len(str(v)) for v in content.get("data", {}).values())
        if size > left:
            content["data"] = {"text/plain": "[lessonlib-grade: display output too large, dropped]"}
            size = 0
        budgets[parent] = left - size
    elif kind == "error":
        content["traceback"] = [str(t)[:2000] for t in content.get("traceback", [])[-40:]]
        content["evalue"] = str(content.get("evalue", ""))[:2000]


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


def _install_guard(kernel_fd=None):
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
        if forked is not None:                            # the kernel comes from the batch's kernel zygote
            km.kernel_id = str(uuid.uuid4())
            km.provisioner = forked(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)
        km.start_kernel(**kwargs)
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
        """nbval's kernel with capped outputs, immediate detection of a dead kernel, and a count of the
        interrupts nbval sends (it sends one only to a cell that ran out of time)."""

        def __init__(self, *args, **kwargs):
            self._budgets = {}
            self.lessonlib_interrupts = 0
            super().__init__(*args, **kwargs)

        def interrupt(self):
            self.lessonlib_interrupts += 1
            return super().interrupt()

        def get_message(self, stream, timeout=None):
            if stream == "iopub":                         # nbval's own pretty-prints every message for its debug log
                msg = self.kc.get_iopub_msg(timeout=timeout)
                _limit_output(msg, self._budgets)
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
    """The last meaningful lines of a failure report (ANSI codes stripped)."""
    lines = [ln.rstrip() for ln in _ANSI.sub("", text).splitlines() if ln.strip()]
    return "\n".join(lines[-3:])[-1500:]


class _InnerReport:
    """Per-cell records, one JSON line each, to ``fd:N`` (a pipe from the grader) or a file path."""

    def __init__(self, target):
        if target.startswith("fd:"):
            fd = int(target[3:])
            os.set_inheritable(fd, False)                 # the kernel must not get the write end
            self.fh = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
        else:
            self.fh = open(target, "w", encoding="utf-8", buffering=1)

    def write(self, record):
        self.fh.write(json.dumps(record) + "\n")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        interrupts = getattr(getattr(item.parent, "kernel", None), "lessonlib_interrupts", 0)
        if call.when == "setup":
            item.lessonlib_interrupts = interrupts
        elif call.when == "call":                         # this cell ran out of time: nbval interrupted it
            report.lessonlib_timed_out = interrupts > getattr(item, "lessonlib_interrupts", interrupts)
        errors = [o for o in (getattr(item, "test_outputs", None) or []) if o.get("output_type") == "error"]
        if errors:                                        # the cell's own exception, from its outputs
            report.lessonlib_error = _ANSI.sub("", f"{errors[-1].get('ename')}: {errors[-1].get('evalue')}")[:1500]
        return report

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        """One record per cell: ``outcome`` (``passed``, also when nbval expected a failure after a timeout,
        or ``failed``), ``timeout`` (this cell ran out of time), ``stuck`` (and the kernel did not stop when
        interrupted, so nbval stopped it), ``died`` (the kernel died), ``error`` (the cell's exception)."""
        m = re.search(r"Cell (\d+)$", report.nodeid)
        if not m or report.when == "teardown" or (report.when == "setup" and report.passed):
            return
        text = "" if report.passed else report.longreprtext          # a failure, also an expected one (xfail)
        stuck = "Failed to interrupt kernel" in text or "exceeded waiting for output" in text
        self.write({"cell": int(m.group(1)), "when": report.when, "outcome": "passed" if report.passed else "failed",
                    "timeout": bool(getattr(report, "lessonlib_timed_out", False)) or stuck,
                    "stuck": stuck,
                    "died": "Kernel dead" in text or "kernel died" in text or "KernelDied" in text,
                    "error": getattr(report, "lessonlib_error", None) or (_summary(text) if text else "")})

    @pytest.hookimpl
    def pytest_unconfigure(self, config):
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
        _install_guard(opt.lessonlib_kernel_fd)
        config.pluginmanager.register(_InnerReport(opt.lessonlib_inner_report), "lessonlib-inner-report")
