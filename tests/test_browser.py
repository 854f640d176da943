"""End-to-end: the tour notebook in a real JupyterLab and a real (headless) Chromium.

What only a browser can show: the pythreejs extension loads, the 3D arm is really drawn (the canvas
is not blank), a slider drag reaches the kernel and comes back as a moved arm and a new plot image,
and nothing on the way raises — in a cell, in a slider callback (kernel messages and the server's
log), or in the page (console errors from widgets / three.js).

Setup (NOTES.md): Debian's ``/usr/bin/chromium`` through Playwright (never ``playwright install``),
plain headless flags; JupyterLab on 127.0.0.1 and a free port, no token, throw-away settings /
workspaces / runtime / config / data directories, serving a temporary copy of ``course/`` (the test
never writes into the repository), ``LESSONLIB_TESTING`` unset so that pythreejs renders for real;
stopped by its PID. The page's ``window.jupyterapp`` (``--LabApp.expose_app_in_browser``) runs
``notebook:run-all-cells`` and reports the kernel's and the cells' execution state.

Skipped (with the reason) only when ``/usr/bin/chromium`` or the playwright package is missing.
"""
from __future__ import annotations

import io
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

import numpy as np
import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
NOTEBOOK = "00_tour.ipynb"
SCREENSHOT_DIR = Path(os.environ.get("LESSONLIB_SCREENSHOTS", "/tmp"))
#: Console errors that are not ours (none known so far; add with a comment saying why).
CONSOLE_NOISE = ()
#: Words that make a console error ours: it comes from the widgets, three.js or a kernel message.
CONSOLE_FATAL = ("widget", "three", "Error setting state", "model", "comm", "kernel", "Uncaught")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(settings_dir):
    """User settings for the throw-away JupyterLab: no news or update toasts, every cell in the DOM."""
    settings = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            {"fetchNews": "false", "checkForUpdates": False},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    for name, value in settings.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a free port serving a temporary copy of course/; yields (url, log path)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium) to run this test")
    pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "course"
    shutil.copytree(REPO / "course", root)
    env = {k: v for k, v in os.environ.items()
           if k not in ("LESSONLIB_TESTING", "LESSONLIB_HEADLESS", "PYTEST_CURRENT_TEST")}
    for var, sub in (("JUPYTERLAB_SETTINGS_DIR", "settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
                     ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTER_CONFIG_DIR", "config"),
                     ("JUPYTER_DATA_DIR", "data"), ("IPYTHONDIR", "ipython")):
        env[var] = str(tmp / sub)
        (tmp / sub).mkdir()
    _write_settings(tmp / "settings")
    port = _free_port()
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
        deadline = time.monotonic() + 60
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
        yield url, log_path
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


# --- JavaScript run in the page (JupyterLab 4 through window.jupyterapp) ------------------------------
_PANEL = "window.jupyterapp.shell.currentWidget"
_KERNEL_READY = f"""() => {{
    const panel = {_PANEL};
    const kernel = panel && panel.sessionContext && panel.sessionContext.session
                   && panel.sessionContext.session.kernel;
    return Boolean(kernel && kernel.status === 'idle' && panel.content && panel.content.widgets.length > 0);
}}"""
_HOOK_KERNEL = f"""() => {{
    const kernel = {_PANEL}.sessionContext.session.kernel;
    window.__kernelErrors = [];
    kernel.iopubMessage.connect((_, msg) => {{
        const c = msg.content;
        if (msg.header.msg_type === 'error') window.__kernelErrors.push(c.ename + ': ' + c.evalue);
        if (msg.header.msg_type === 'stream' && c.name === 'stderr' && /Traceback|Error/.test(c.text))
            window.__kernelErrors.push(c.text);
    }});
}}"""
_ALL_IDLE = f"""() => {{
    const panel = {_PANEL};
    const kernel = panel.sessionContext.session.kernel;
    const cells = panel.content.widgets.filter(c => c.model.type === 'code');
    return kernel.status === 'idle' && cells.every(c => c.model.executionState === 'idle'
                                                      && c.model.executionCount !== null);
}}"""
_ERROR_OUTPUTS = f"""() => {{
    const panel = {_PANEL};
    const found = [];
    panel.content.widgets.forEach((cell, i) => {{
        if (cell.model.type !== 'code') return;
        for (const out of cell.model.outputs.toJSON())
            if (out.output_type === 'error') found.push(`cell ${{i}}: ${{out.ename}}: ${{out.evalue}}`);
    }});
    document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
        .forEach(el => {{ if (/Traceback|Error/.test(el.textContent)) found.push(el.textContent.slice(0, 500)); }});
    return found;
}}"""


def _wait_idle(page, timeout_ms, settle_ms=600):
    """Wait until the kernel and every code cell are idle, and stay so for ``settle_ms``."""
    page.wait_for_function(_ALL_IDLE, timeout=timeout_ms)
    page.wait_for_timeout(settle_ms)
    page.wait_for_function(_ALL_IDLE, timeout=timeout_ms)


def _cell(page, source_start):
    """The code cell whose source starts with ``source_start``."""
    return page.locator(".jp-CodeCell").filter(
        has=page.locator(".jp-InputArea-editor", has_text=source_start)).first


def _pixels(png_bytes):
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(png_bytes)).convert("RGB"), dtype=float)


def _is_drawn(img):
    """An image shows something: it is not one flat colour (std > 4 grey levels, > 30 colours)."""
    colours = len(np.unique(img.reshape(-1, 3).astype(np.uint8), axis=0))
    return img.std() > 4.0 and colours > 30, f"std {img.std():.1f}, {colours} colours"


def _changed_fraction(a, b):
    """Fraction of pixels that differ by more than 24 grey levels (in any channel)."""
    if a.shape != b.shape:
        return 1.0
    return float(np.mean(np.max(np.abs(a - b), axis=2) > 24))


def test_tour_runs_and_arm_moves_in_browser(lab):
    from playwright.sync_api import sync_playwright

    url, log_path = lab
    t0 = time.monotonic()
    console, page_errors = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.on("console", lambda m: console.append((m.type, m.text)))
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            page.goto(f"{url}/lab/tree/{NOTEBOOK}")
            page.wait_for_function(_KERNEL_READY, timeout=60_000)
            page.evaluate(_HOOK_KERNEL)

            # 1. Run All, as a student would (the notebook:run-all-cells command).
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_timeout(500)
            _wait_idle(page, 60_000)
            errors = page.evaluate(_ERROR_OUTPUTS)
            assert not errors, "cells raised:\n" + "\n".join(errors)

            # 2. The panel's 3D canvas shows the arm; its plot is an image.
            panel = _cell(page, "panel = arm_panel")
            panel.scroll_into_view_if_needed()
            canvas = panel.locator(".jp-OutputArea-output canvas").first
            canvas.wait_for(state="visible", timeout=20_000)
            plot = panel.locator(".jp-OutputArea-output img.widget-image").first
            plot.wait_for(state="visible", timeout=20_000)
            page.wait_for_timeout(800)                         # let three.js draw a frame
            before_canvas, before_plot = canvas.screenshot(), plot.screenshot()
            page.screenshot(path=str(SCREENSHOT_DIR / "lessonlib_tour_before.png"))
            drawn, info = _is_drawn(_pixels(before_canvas))
            assert drawn, f"the 3D canvas looks blank ({info})"

            # Every 3D view of the notebook is drawn (the first view also carries arrows and a ghost).
            canvases = page.locator(".jp-OutputArea-output canvas")
            assert canvases.count() >= 3, f"expected 3 pythreejs views, found {canvases.count()}"
            for k in range(canvases.count()):
                canvases.nth(k).scroll_into_view_if_needed()
                page.wait_for_timeout(300)
                shot = canvases.nth(k).screenshot()
                (SCREENSHOT_DIR / f"lessonlib_tour_view{k}.png").write_bytes(shot)
                drawn, info = _is_drawn(_pixels(shot))
                assert drawn, f"3D view {k} looks blank ({info})"
            panel.scroll_into_view_if_needed()
            page.wait_for_timeout(300)

            # 3. Drag the shoulder slider (joint2); the kernel recomputes and both pictures change.
            slider = panel.locator(".widget-hslider").filter(has_text="joint2").first
            readout = slider.locator(".widget-readout")
            value_before = readout.inner_text()
            handle = slider.locator(".noUi-handle")
            box = handle.bounding_box()
            assert box is not None, "joint2 slider handle not rendered"
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            for k in range(1, 6):
                page.mouse.move(x + 8 * k, y)
                page.wait_for_timeout(40)
            page.mouse.up()
            page.wait_for_timeout(300)
            _wait_idle(page, 30_000, settle_ms=1000)
            page.wait_for_timeout(500)
            after_canvas, after_plot = canvas.screenshot(), plot.screenshot()
            page.screenshot(path=str(SCREENSHOT_DIR / "lessonlib_tour_after.png"))
            (SCREENSHOT_DIR / "lessonlib_tour_canvas.png").write_bytes(after_canvas)
            value_after = readout.inner_text()
            assert value_after != value_before, f"joint2 slider did not move (still {value_after})"
            moved = _changed_fraction(_pixels(before_canvas), _pixels(after_canvas))
            assert moved > 0.002, f"the 3D canvas did not change after the slider drag ({moved:.4%} pixels)"
            replotted = _changed_fraction(_pixels(before_plot), _pixels(after_plot))
            assert replotted > 0.002, f"the torque plot did not change after the slider drag ({replotted:.4%})"

            # 4. Nothing raised anywhere: cells, Output widgets, kernel messages, server log, page.
            errors = page.evaluate(_ERROR_OUTPUTS) + page.evaluate("window.__kernelErrors")
            assert not errors, "errors after the slider drag:\n" + "\n".join(errors)
        finally:
            browser.close()
    assert not page_errors, f"page errors: {page_errors}"
    ours = [text for kind, text in console if kind == "error"
            and not any(n in text for n in CONSOLE_NOISE) and any(w.lower() in text.lower() for w in CONSOLE_FATAL)]
    assert not ours, "browser console errors:\n" + "\n".join(ours)
    server_log = log_path.read_text(errors="replace")
    assert "Traceback" not in server_log and "Exception in comm_msg" not in server_log, server_log[-4000:]
    print(f"browser test body: {time.monotonic() - t0:.1f} s; console messages: {len(console)}")
    (SCREENSHOT_DIR / "lessonlib_tour_console.txt").write_text("\n".join(f"{k}: {t}" for k, t in console))
