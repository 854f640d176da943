"""Headless Chromium and a throw-away JupyterLab, shared by the browser test, the gallery and the slide-fit checker.

NOTES.md's recipe: Debian's ``/usr/bin/chromium`` through Playwright (never ``playwright install``)
with plain headless flags; JupyterLab on 127.0.0.1 and a free port, no token, throw-away settings /
workspaces / runtime / config / data directories (``windowingMode: none`` so every cell is laid
out), serving a temporary copy of ``course/``, in full mode (``LESSONLIB_TESTING`` unset: real
pythreejs views; ``testing=True`` for test mode, as the slide-fit checker runs the lessons), stopped by its PID. ``window.jupyterapp`` is exposed so a page script can run
commands (``notebook:run-all-cells``) and read the kernel's and the cells' state.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Variables that put the course in test mode or the static viewer: removed for the browser's kernel.
MODE_VARIABLES = ("LESSONLIB_TESTING", "LESSONLIB_HEADLESS", "PYTEST_CURRENT_TEST")


def chromium_available():
    """True when Debian's Chromium and the playwright package are both there."""
    if not os.path.exists(CHROMIUM):
        return False
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


def launch(playwright):
    """A headless Chromium (Playwright ``Browser``) with the flags that render pythreejs here."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_settings(settings_dir, extra=None):
    """User settings for a throw-away JupyterLab: no news or update toasts, every cell in the DOM."""
    settings = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            {"fetchNews": "false", "checkForUpdates": False},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    settings.update(extra or {})
    for name, value in settings.items():
        path = Path(settings_dir) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


@contextlib.contextmanager
def jupyterlab(tmp, source=REPO / "course", *, startup_timeout=90, testing=False, settings=None):
    """Run JupyterLab on a copy of ``source`` inside the folder ``tmp``; yield ``(url, root, log_path)``.

    ``testing``: the kernels run in test mode (``LESSONLIB_TESTING=1``: short simulations, the static
    matplotlib pictures in place of the pythreejs views, sliders still live); default full mode.
    ``settings``: extra user settings (:func:`write_settings`).
    """
    tmp = Path(tmp)
    root = tmp / "course"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    env = {k: v for k, v in os.environ.items() if k not in MODE_VARIABLES}
    if testing:
        env["LESSONLIB_TESTING"] = "1"
    for var, sub in (("JUPYTERLAB_SETTINGS_DIR", "settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
                     ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTER_CONFIG_DIR", "config"),
                     ("JUPYTER_DATA_DIR", "data"), ("IPYTHONDIR", "ipython")):
        env[var] = str(tmp / sub)
        (tmp / sub).mkdir(exist_ok=True)
    write_settings(tmp / "settings", settings)
    port = free_port()
    cmd = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
           "--ServerApp.password=", f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log_path = tmp / "lab.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"JupyterLab did not start (exit {proc.poll()}):\n{log_path.read_text()[-3000:]}")
            time.sleep(0.3)
        yield url, root, log_path
    finally:
        proc.send_signal(signal.SIGTERM)          # the server shuts its kernels down on SIGTERM
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        try:                                      # a kernel the server failed to stop (same session, our PID)
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# --- JavaScript run in a JupyterLab page (JupyterLab 4 through window.jupyterapp) ------------------------
PANEL = "window.jupyterapp.shell.currentWidget"
KERNEL_READY = f"""() => {{
    if (!window.jupyterapp || !window.jupyterapp.shell) return false;     // still loading (or ?reset reloading)
    const panel = {PANEL};
    const kernel = panel && panel.sessionContext && panel.sessionContext.session
                   && panel.sessionContext.session.kernel;
    return Boolean(kernel && kernel.status === 'idle' && panel.content && panel.content.widgets.length > 0);
}}"""
HOOK_KERNEL = f"""() => {{
    const kernel = {PANEL}.sessionContext.session.kernel;
    window.__kernelErrors = [];
    kernel.iopubMessage.connect((_, msg) => {{
        const c = msg.content;
        if (msg.header.msg_type === 'error') window.__kernelErrors.push(c.ename + ': ' + c.evalue);
        if (msg.header.msg_type === 'stream' && c.name === 'stderr' && /Traceback|Error/.test(c.text))
            window.__kernelErrors.push(c.text);
    }});
}}"""
ALL_IDLE = f"""() => {{
    const panel = {PANEL};
    const kernel = panel.sessionContext.session.kernel;
    const cells = panel.content.widgets.filter(c => c.model.type === 'code');
    return kernel.status === 'idle' && cells.every(c => c.model.executionState === 'idle'
                                                      && c.model.executionCount !== null);
}}"""
ERROR_OUTPUTS = f"""() => {{
    const panel = {PANEL};
    const found = [];
    panel.content.widgets.forEach((cell, i) => {{
        if (cell.model.type !== 'code') return;
        const tags = cell.model.getMetadata('tags') || [];
        if (tags.includes('raises-exception')) return;           // an error shown on purpose
        for (const out of cell.model.outputs.toJSON())
            if (out.output_type === 'error') found.push(`cell ${{i}}: ${{out.ename}}: ${{out.evalue}}`);
        cell.node.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
            .forEach(el => {{ if (/Traceback|Error/.test(el.textContent))
                                 found.push(`cell ${{i}} (stderr): ` + el.textContent.slice(0, 500)); }});
    }});
    return found;
}}"""


def wait_idle(page, timeout_ms, settle_ms=600):
    """Wait until the kernel and every code cell are idle, and stay so for ``settle_ms``."""
    page.wait_for_function(ALL_IDLE, timeout=timeout_ms)
    page.wait_for_timeout(settle_ms)
    page.wait_for_function(ALL_IDLE, timeout=timeout_ms)


def open_notebook(page, url, name, timeout_ms=90_000):
    """Open ``name`` in JupyterLab and wait for its kernel; kernel errors are collected in ``window.__kernelErrors``."""
    page.goto(f"{url}/lab/tree/{name}?reset")            # ?reset: no tab of an earlier notebook comes back
    page.wait_for_function(KERNEL_READY, timeout=timeout_ms)
    page.evaluate(HOOK_KERNEL)


def run_all(page, timeout_ms):
    """Run every cell (``notebook:run-all-cells``, as a student would) and wait until all are idle."""
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_timeout(500)
    wait_idle(page, timeout_ms)
