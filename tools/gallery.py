"""Screenshot gallery: every lesson run in a real JupyterLab, every widget output and figure saved as PNG.

``make gallery`` (``python -m tools.gallery [LESSON ...]``) starts a throw-away JupyterLab on a copy
of ``course/`` (full mode: live pythreejs views), opens each lesson in headless Chromium at
1500×1000, runs all cells, and saves into ``build/gallery/<lesson>/``:

* ``cellNN_K.png`` — output ``K`` of code cell ``NN`` when it is a widget (3D view, sliders, plots)
  or a figure; ``page.png`` — the whole notebook;
* ``report.json`` — what was saved, cell errors and kernel errors, and how long the run took.

Look at the pictures (they are what a student sees) before changing a figure or a widget.
``build/gallery/index.html`` shows them all on one page. :func:`arm_fill` and
:func:`measure_slider_latency` are used by ``tests/test_browser.py`` too.
"""
from __future__ import annotations

import argparse
import html
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tools import browser

REPO = Path(__file__).resolve().parents[1]
GALLERY = REPO / "build" / "gallery"
VIEWPORT = {"width": 1500, "height": 1000}
#: Background of the 3D views (ArmView's default) and how far (0–255, any channel) a pixel must be from it
#: to count as drawn; the floor grid is light grey and is not the arm.
BACKGROUND = (0xF5, 0xF6, 0xF8)


def _outputs_with_pictures(page):
    """Locators of the output items that show a widget or an image, with (cell index, item index).

    Cells are numbered as in the notebook (each cell node is marked with its index first).
    """
    count = page.evaluate(f"""() => {{
        const cells = {browser.PANEL}.content.widgets;
        cells.forEach((cell, i) => cell.node.setAttribute('data-gallery-index', String(i)));
        return cells.length;
    }}""")
    found = []
    for c in range(count):
        cell = page.locator(f'[data-gallery-index="{c}"]')
        if "jp-CodeCell" not in (cell.get_attribute("class") or ""):
            continue
        items = cell.locator(".jp-OutputArea-child")
        for k in range(items.count()):
            item = items.nth(k)
            if item.locator("canvas, img, .jupyter-widgets, .widget-hslider").count():
                found.append((c, k, item))
    return found


_EXPECTED_ERRORS = f"""() => {browser.PANEL}.content.widgets
    .filter(c => c.model.type === 'code' && (c.model.getMetadata('tags') || []).includes('raises-exception'))
    .flatMap(c => c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue))"""


def run_lesson(page, url, name, out_dir, *, timeout_ms=1_200_000):
    """Run ``name`` in JupyterLab and save its pictures into ``out_dir``; return the report (a dict)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    try:
        browser.open_notebook(page, url, name, timeout_ms=240_000)
        browser.run_all(page, timeout_ms)
    except Exception as exc:                            # one broken lesson must not stop the gallery
        page.screenshot(path=str(out_dir / "page.png"), full_page=True)
        report = {"lesson": name, "seconds": round(time.monotonic() - t0, 1), "pictures": [],
                  "cell_errors": [f"the run did not finish: {type(exc).__name__}: {str(exc).splitlines()[0]}"],
                  "kernel_errors": []}
        (out_dir / "report.json").write_text(json.dumps(report, indent=1))
        return report
    page.wait_for_timeout(1500)                         # let three.js draw its first frames
    saved = []
    for c, k, item in _outputs_with_pictures(page):
        if not item.is_visible():                        # e.g. an empty Output widget
            continue
        item.scroll_into_view_if_needed(timeout=10_000)
        page.wait_for_timeout(250)
        path = out_dir / f"cell{c:02d}_{k}.png"
        item.screenshot(path=str(path), timeout=20_000)
        saved.append(path.name)
    page.screenshot(path=str(out_dir / "page.png"), full_page=True)
    expected = set(page.evaluate(_EXPECTED_ERRORS))     # errors shown on purpose (cells tagged raises-exception)
    report = {"lesson": name, "seconds": round(time.monotonic() - t0, 1), "pictures": saved,
              "cell_errors": page.evaluate(browser.ERROR_OUTPUTS),
              "kernel_errors": [e for e in page.evaluate("window.__kernelErrors") if e not in expected]}
    page.evaluate(f"() => {browser.PANEL}.sessionContext.shutdown()")       # free the CPU for the next lesson
    (out_dir / "report.json").write_text(json.dumps(report, indent=1))
    return report


def _pixels(png_bytes):
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(png_bytes)).convert("RGB"), dtype=float)


def arm_fill(png_bytes, background=BACKGROUND):
    """Where the arm is on a 3D canvas screenshot: ``(bbox (x0, y0, x1, y1), fraction of width, of height, margin px)``.

    Arm pixels are those far from the background and not light grey (the floor grid): dark links,
    coloured joints and markers.
    """
    img = _pixels(png_bytes)
    far = np.max(np.abs(img - np.array(background)), axis=2) > 40
    grey = (np.ptp(img, axis=2) < 18) & (img.mean(axis=2) > 150)
    arm = far & ~grey
    if not arm.any():
        return None, 0.0, 0.0, 0
    ys, xs = np.nonzero(arm)
    h, w = arm.shape
    x0, x1, y0, y1 = int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())
    margin = min(x0, y0, w - 1 - x1, h - 1 - y1)
    return (x0, y0, x1, y1), (x1 - x0 + 1) / w, (y1 - y0 + 1) / h, margin


_LATENCY_HOOK = f"""() => {{
    const kernel = {browser.PANEL}.sessionContext.session.kernel;
    window.__lat = {{t0: 0, drawn: 0, n: 0}};
    document.addEventListener('keydown', () => {{ window.__lat.t0 = performance.now(); window.__lat.drawn = 0; }}, true);
    kernel.anyMessage.connect((_, a) => {{
        const m = a.msg;
        if (a.direction !== 'recv' || m.header.msg_type !== 'comm_msg') return;
        const d = m.content.data || {{}};
        if (d.method === 'update' && d.state && ('matrix' in d.state || 'position' in d.state)) {{
            window.__lat.n += 1;
            requestAnimationFrame(() => {{ window.__lat.drawn = performance.now(); }});
        }}
    }});
}}"""


def measure_slider_latency(page, slider, n=20, settle_ms=400):
    """Median and all latencies (ms) from a key press on ``slider`` to the frame drawn after the kernel's last update.

    ``slider``: a locator of a ``.widget-hslider`` that drives a 3D view. Each step presses ArrowRight
    or ArrowLeft on its handle (noUiSlider moves one step and the value goes to the kernel), waits
    for the burst of matrix updates to end, and takes the time of the animation frame after the last.
    """
    page.evaluate(_LATENCY_HOOK)
    handle = slider.locator(".noUi-handle").first
    handle.focus()
    times = []
    for k in range(n):
        handle.press("ArrowRight" if (k // 5) % 2 == 0 else "ArrowLeft")
        deadline = time.monotonic() + 10
        last = -1.0
        while time.monotonic() < deadline:               # until no new frame for settle_ms
            page.wait_for_timeout(settle_ms)
            drawn = page.evaluate("window.__lat.drawn")
            if drawn and drawn == last:
                break
            last = drawn
        if last > 0:
            times.append(last - page.evaluate("window.__lat.t0"))
    return (float(np.median(times)) if times else float("nan")), times


def _index(out):
    """``out/index.html``: every lesson's pictures (from each ``<lesson>/report.json`` in ``out``)."""
    reports = [json.loads(p.read_text()) for p in sorted(Path(out).glob("*/report.json"))]
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Gallery</title>",
             "<style>body{font-family:sans-serif} img{max-width:100%;border:1px solid #ccc;margin:4px 0}"
             "figure{margin:8px 0}</style></head><body><h1>Gallery: every widget and figure of the lessons</h1>"]
    for r in reports:
        lesson = r["lesson"].removesuffix(".ipynb")
        parts.append(f"<h2>{html.escape(lesson)} <small>({r['seconds']} s; errors: "
                     f"{len(r['cell_errors']) + len(r['kernel_errors'])})</small></h2>")
        for name in r["pictures"]:
            parts.append(f"<figure><img src='{lesson}/{name}'><figcaption>{name}</figcaption></figure>")
    (out / "index.html").write_text("".join(parts) + "</body></html>")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.gallery", description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers (05), names or paths; default: all")
    parser.add_argument("--out", default=str(GALLERY))
    args = parser.parse_args(argv)
    if not browser.chromium_available():
        raise SystemExit("make gallery needs /usr/bin/chromium and the playwright package")
    from playwright.sync_api import sync_playwright

    from tools.outputs import lesson_paths
    lessons = lesson_paths([s for item in args.lessons for s in item.split()])
    out = Path(args.out)
    reports = []
    with tempfile.TemporaryDirectory() as tmp, browser.jupyterlab(tmp) as (url, _, _log):
        with sync_playwright() as p:
            chromium = browser.launch(p)
            try:
                for path in lessons:
                    page = chromium.new_page(viewport=VIEWPORT)
                    report = run_lesson(page, url, path.name, out / path.stem)
                    page.close()
                    reports.append(report)
                    errors = report["cell_errors"] + report["kernel_errors"]
                    print(f"{path.stem}: {len(report['pictures'])} pictures in {report['seconds']} s"
                          + (f"; ERRORS: {errors}" if errors else ""))
            finally:
                chromium.close()
    _index(out)
    print(f"gallery: {out}/index.html")
    return 1 if any(r["cell_errors"] or r["kernel_errors"] for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
