"""Slide-fit checker: does every slide fit a 1280×720 projector at a readable size — static deck and live slideshow?

Two modes, the same findings:

* **static** — ``python -m tools.slidefit [DECK ...]`` (default: every ``build/slides/*.slides.html``) opens
  each deck offline in headless Chromium at 1280×720;
* **live** — ``python -m tools.slidefit --live [NN ...]`` (default: every lesson) does what a lecturer does:
  starts a throw-away JupyterLab (:func:`tools.browser.jupyterlab`) on a copy of ``course/``, opens the
  lesson, runs all cells (in test mode, ``LESSONLIB_TESTING=1``, to keep it short: simulations are
  shorter and a 3D view is its static picture, of the same size; the sliders and plots are live; ``--full``
  runs the lesson in full mode, with the pythreejs views), then opens it as jupyterlab-rise's Reveal
  slideshow at 1280×720 (``/rise/<notebook>``, the page "Open as Reveal Slideshow" opens).

Both visit every slide, subslide and fragment step — in the live slideshow after the widget outputs on the
slide have rendered — open every ``<details>`` ("Answer") on the slide, and report per slide:

* ``overflow`` — an element reaches past the bottom, top or right edge of the slide (static) or of the
  screen (live), by how many px;
* ``code cut`` / ``code wrapped`` — a code or output line is wider than the slide (cut at the edge, or
  scrolled sideways in the live slideshow's code editor) or broken over two lines;
* ``small text`` — text rendered below ``MIN_TEXT_PX`` px (after reveal's scaling);
* ``text cut`` — a widget's label, readout or HTML text (a 3D view's legend) wider than its box;
* ``figure shrunk`` — a picture shown at less than ``MIN_FIGURE_SCALE`` of its pixel width (its axis
  labels shrink with it);
* ``not rendered`` (live) — a widget output or picture on the slide did not render within ``WIDGET_TIMEOUT_MS``;
  ``not reached`` (live) — the slideshow did not go to the step at all.

They also measure the computed font sizes a viewer gets: **prose** (the ``p`` and ``li`` text of Markdown
cells) and **code** (code cells' lines and text output), in px after scaling, summed over every step.

``--shots DIR`` saves a screenshot of every step (``NN_name_h_v_f.png``; live: ``live_NN_…``), ``--json FILE``
every finding and the font sizes. Exit status 1 when anything was reported. Slides are named ``h.v`` as in the
static deck's URL (``…slides.html#/h/v``) — the live slideshow numbers its slides the same way — with their
first heading. ``--static`` with ``--live`` also checks the static decks (``make slidefit`` does both).
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tools.browser import chromium_available, launch

WIDTH, HEIGHT = 1280, 720
#: Smallest readable text on a projected slide, in CSS px at 1280×720 (≈ 12 pt).
MIN_TEXT_PX = 16
#: A figure shown below this fraction of its pixel width has labels too small to read.
MIN_FIGURE_SCALE = 0.7
#: The live slideshow's settings while it is checked (the sizes do not depend on them): no slide transition, so a
#: step is measured where it stays (RISE's default slides the new slide in for most of a second), and no automatic
#: selection of a slide's first code cell (RISE selects it 450 ms after a slide change, and selecting a cell shows
#: its slide: a late selection would take the checker back to the slide it has just left).
RISE_SETTINGS = {"jupyterlab-rise/plugin.jupyterlab-settings": {"transition": "none", "auto_select": "none"}}
#: How long a live slide may take to render its widgets before it is measured as it stands (ms).
WIDGET_TIMEOUT_MS = 20_000


@dataclass(frozen=True)
class Finding:
    deck: str
    slide: str          # "h.v", as in the deck's URL #/h/v
    step: int           # fragment step (-1: before the first fragment)
    kind: str
    detail: str
    title: str

    def __str__(self):
        step = "" if self.step < 0 else f" (fragment {self.step + 1})"
        return f"{self.deck} slide {self.slide}{step} [{self.title[:50]}]: {self.kind}: {self.detail}"


@dataclass
class DeckReport:
    """What one deck (static) or one lesson's slideshow (live) gave: steps, findings, font sizes, time."""

    name: str
    mode: str                                   # "static" or "live"
    steps: int
    findings: list
    prose_px: dict = field(default_factory=dict)  # font size (px, rounded to 0.1) -> number of text elements
    code_px: dict = field(default_factory=dict)
    seconds: float = 0.0
    errors: list = field(default_factory=list)  # cells that raised (live)
    widget_slides: list = field(default_factory=list)  # slides ("h.v") showing a rendered widget (live)

    @property
    def prose(self):
        """``(smallest, most common)`` prose font size in px, or None when the deck has no prose."""
        return _sizes(self.prose_px)

    @property
    def code(self):
        """``(smallest, most common)`` code font size in px, or None."""
        return _sizes(self.code_px)


def _sizes(counts):
    if not counts:
        return None
    return min(counts), max(counts, key=lambda px: (counts[px], px))


# --- what is measured on a slide (the same script for the static deck and the live slideshow) ---------------
#: The current slide, the slide scale and the frame it must fit in. Static: reveal.js's own API (a global).
#: Live: jupyterlab-rise keeps Reveal to itself, so the page is read: the innermost ``section.present``,
#: the scale of ``.slides`` and the slideshow's box (the screen).
_CURRENT = """(live) => {
  if (!live) {
    const box = document.querySelector('.reveal .slides').getBoundingClientRect();
    return {slide: Reveal.getCurrentSlide(), scale: Reveal.getScale(), box};
  }
  const slides = document.querySelector('.reveal .slides');
  const slide = Array.from(slides.querySelectorAll('section.present')).pop();
  const scale = slides.offsetWidth ? slides.getBoundingClientRect().width / slides.offsetWidth : 1;
  return {slide, scale, box: document.querySelector('.reveal').getBoundingClientRect()};
}"""

_MEASURE = """([minPx, minScale, live]) => {
  const {slide, scale, box} = (%s)(live);
  const frame = {left: box.left, top: box.top, right: box.left + box.width, bottom: box.top + box.height};
  const heading = slide.querySelector('h1, h2, h3, h4');
  const found = [], prose = [], code = [];
  const text = el => (el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
  const shown = el => {
    for (let e = el; e && e !== slide; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none') return false;
      if (s.visibility === 'hidden' && !e.classList.contains('fragment')) return false;
    }
    return true;
  };
  const ownText = el => Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  const CODE = 'pre, code, .cm-content';
  const leaves = Array.from(slide.querySelectorAll('*')).filter(el =>
      !el.closest('aside.notes') && (el.tagName === 'MJX-CONTAINER' || !el.closest('mjx-container'))
      && (ownText(el) || ['IMG', 'svg', 'CANVAS', 'TABLE', 'MJX-CONTAINER'].includes(el.tagName))
      && !(el.tagName !== 'svg' && el.closest('svg')) && shown(el));
  let worst = null;
  for (const el of leaves) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // a cut code line is reported as such (static <pre>, live code editor)
    const inPre = (el.tagName !== 'PRE' && el.closest('pre')) || el.closest('.cm-content');
    const below = (r.bottom - frame.bottom) / scale, above = (frame.top - r.top) / scale;
    const over = inPre ? Math.max(below, above) : Math.max(below, above, (r.right - frame.right) / scale);
    if (over > 2 && (!worst || over > worst.over)) worst = {over, what: el.tagName.toLowerCase() + ' "' + text(el) + '"'};
    if (ownText(el)) {
      const px = parseFloat(getComputedStyle(el).fontSize) * scale;
      if (px < minPx - 0.05) found.push(['small text', `${px.toFixed(1)} px < ${minPx} px: "${text(el)}"`]);
      const rounded = Math.round(px * 10) / 10;
      if (el.closest(CODE) && (el.closest('.jp-CodeCell') || !el.closest('.jp-MarkdownCell'))) code.push(rounded);
      else if (el.closest('.jp-MarkdownCell') && !el.closest(CODE + ', h1, h2, h3, h4, h5, h6, table')
               && el.closest('p, li')) prose.push(rounded);
    }
    if (el.tagName === 'IMG' && el.naturalWidth > 0) {
      const shownScale = r.width / scale / el.naturalWidth;
      if (shownScale < minScale)
        found.push(['figure shrunk', `shown at ${(100 * shownScale).toFixed(0)} %% of its ${el.naturalWidth} px width`]);
    }
  }
  if (worst) found.push(['overflow', `${worst.over.toFixed(0)} px past the ${live ? 'screen' : 'slide'} edge: ${worst.what}`]);
  for (const pre of slide.querySelectorAll('pre')) {      // static code and any text output (live code: below)
    if (!shown(pre) || pre.closest('aside.notes')) continue;
    const lines = pre.textContent.replace(/\\n+$/, '').split('\\n');
    const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (pre.scrollWidth > pre.clientWidth + 2)
      found.push(['code cut', `a line of ${longest.length} characters is wider than the slide: "${longest.trim().slice(0, 50)}"`]);
    const st = getComputedStyle(pre);
    const lh = parseFloat(st.lineHeight) || 1.3 * parseFloat(st.fontSize);
    const pad = parseFloat(st.paddingTop) + parseFloat(st.paddingBottom);
    if (pre.scrollHeight - pad > (lines.length + 0.5) * lh)
      found.push(['code wrapped', `${lines.length} lines take ${(pre.scrollHeight / lh).toFixed(0)} rows`]);
  }
  for (const scroller of slide.querySelectorAll('.jp-CodeCell .jp-InputArea-editor .cm-scroller')) {
    if (!shown(scroller)) continue;
    const lines = Array.from(scroller.querySelectorAll('.cm-line')).map(l => l.textContent);
    const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (scroller.scrollWidth > scroller.clientWidth + 2)
      found.push(['code cut', `a line of ${longest.length} characters is wider than the slide: "${longest.trim().slice(0, 50)}"`]);
    const lh = parseFloat(getComputedStyle(scroller.querySelector('.cm-content') || scroller).lineHeight) || 22;
    for (const line of scroller.querySelectorAll('.cm-line'))
      if (line.getBoundingClientRect().height / scale > 1.6 * lh) {
        found.push(['code wrapped', `a line of ${line.textContent.length} characters takes two rows or more`]);
        break;
      }
  }
  // a widget's label, readout or HTML text wider than its box is clipped (or ends in "…")
  for (const el of slide.querySelectorAll('.widget-label, .widget-readout, .widget-html-content, .widget-button')) {
    if (!shown(el) || !(el.textContent || '').trim()) continue;
    if (el.scrollWidth > el.clientWidth + 2)
      found.push(['text cut', `a widget's text is wider than its box: "${text(el)}"`]);
  }
  const unique = Array.from(new Set(found.map(f => JSON.stringify(f)))).map(s => JSON.parse(s));
  const widgets = Array.from(slide.querySelectorAll('.jp-OutputArea-output .jupyter-widgets')).filter(shown).length;
  return {title: (heading ? text(heading) : text(slide)).replace(/¶/g, ''), found: unique, prose, code, widgets};
}""" % _CURRENT

#: Open every <details> (a self-test's "Answer") on the current slide; true when one was closed.
_OPEN_DETAILS = """(live) => {
  const slide = (%s)(live).slide;
  let opened = false;
  for (const d of slide.querySelectorAll('details')) if (!d.open) { d.open = true; opened = true; }
  return opened;
}""" % _CURRENT


def _block_network(page):
    """Abort every request that is not a local file: the deck must work offline."""
    blocked = []

    def route(r):
        if r.request.url.startswith(("file:", "data:", "blob:", "about:")):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()
    page.route("**/*", route)
    return blocked


def open_deck(page, deck, timeout_ms=60_000):
    """Load ``deck`` (offline) and wait until reveal.js and MathJax are done; return the blocked requests."""
    blocked = _block_network(page)
    page.goto(Path(deck).resolve().as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady && Reveal.isReady()", timeout=timeout_ms)
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=timeout_ms)
    page.evaluate("() => MathJax.startup.promise")
    return blocked


def steps(page):
    """Every (h, v, fragment) step of the static deck in order."""
    return page.evaluate("""() => Reveal.getSlides().flatMap(s => {
        const i = Reveal.getIndices(s);
        const n = s.querySelectorAll('.fragment').length;
        return Array.from({length: n + 1}, (_, k) => [i.h, i.v || 0, k - 1]);
    })""")


class _Tally:
    """Findings (each problem once per slide, at its first step) and font sizes of one deck."""

    def __init__(self, name, shots, prefix=""):
        self.name, self.shots, self.prefix = name, shots, prefix
        self.findings, self.seen, self.widget_slides = [], set(), []
        self.prose, self.code = collections.Counter(), collections.Counter()
        if shots is not None:
            Path(shots).mkdir(parents=True, exist_ok=True)

    def add(self, page, h, v, f, result):
        if self.shots is not None:
            page.screenshot(path=str(Path(self.shots) / f"{self.prefix}{self.name}_{h:02d}_{v:02d}_{f + 1:02d}.png"))
        self.prose.update(result["prose"])
        self.code.update(result["code"])
        if result.get("widgets") and f"{h}.{v}" not in self.widget_slides:
            self.widget_slides.append(f"{h}.{v}")
        for kind, detail in result["found"]:
            key = (h, v, kind, detail)
            if key not in self.seen:
                self.seen.add(key)
                self.findings.append(Finding(self.name, f"{h}.{v}", f, kind, detail, result["title"]))

    def report(self, mode, n_steps, seconds, errors=()):
        return DeckReport(self.name, mode, n_steps, self.findings, dict(sorted(self.prose.items())),
                          dict(sorted(self.code.items())), round(seconds, 1), list(errors), self.widget_slides)


def check_deck(page, deck, *, shots=None, min_px=MIN_TEXT_PX, min_scale=MIN_FIGURE_SCALE, report=False):
    """The :class:`Finding` list of one static deck (each problem once per slide, at its first step).

    Every ``<details>`` on a slide is opened before it is measured. ``report=True`` returns the whole
    :class:`DeckReport` (font sizes too).
    """
    t0 = time.monotonic()
    open_deck(page, deck)
    tally = _Tally(Path(deck).name.removesuffix(".slides.html"), shots)
    every = steps(page)
    for h, v, f in every:
        page.evaluate("([h, v, f]) => Reveal.slide(h, v, f)", [h, v, f])
        if page.evaluate(_OPEN_DETAILS, False):
            page.evaluate("() => Reveal.layout()")
        page.wait_for_timeout(30)
        tally.add(page, h, v, f, page.evaluate(_MEASURE, [min_px, min_scale, False]))
    result = tally.report("static", len(every), time.monotonic() - t0)
    return result if report else result.findings


def check_decks(decks, *, shots=None):
    """``{deck name: DeckReport}`` for every static deck, in one browser."""
    from playwright.sync_api import sync_playwright
    results = {}
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            for deck in decks:
                result = check_deck(page, deck, shots=shots, report=True)
                results[result.name] = result
        finally:
            browser.close()
    return results


# --- the live slideshow ------------------------------------------------------------------------------------
#: Every (h, v, fragment) step of the live slideshow, from its sections (RISE: <section><section id="slide-h-v">).
_LIVE_STEPS = """() => {
  const out = [];
  const top = Array.from(document.querySelector('.reveal .slides').children).filter(s => s.tagName === 'SECTION');
  top.forEach((stack, h) => {
    const inner = Array.from(stack.children).filter(s => s.tagName === 'SECTION');
    (inner.length ? inner : [stack]).forEach((s, v) => {
      const n = s.querySelectorAll('.fragment').length;
      for (let k = -1; k < n; k++) out.push([h, v, k]);
    });
  });
  return out;
}"""

#: True when the slideshow shows step (h, v, f) and every widget output and picture on that slide has rendered.
_LIVE_AT = """([h, v, f]) => {
  const slides = document.querySelector('.reveal .slides');
  const stack = Array.from(slides.children).filter(s => s.tagName === 'SECTION')[h];
  if (!stack || !stack.classList.contains('present')) return false;
  const inner = Array.from(stack.children).filter(s => s.tagName === 'SECTION');
  const slide = inner.length ? inner[v] : stack;
  if (!slide || !slide.classList.contains('present')) return false;
  if (slide.querySelectorAll('.fragment.visible').length !== f + 1) return false;
  return 'ready';
}"""

_LIVE_RENDERED = """([h, v]) => {
  const stack = Array.from(document.querySelector('.reveal .slides').children).filter(s => s.tagName === 'SECTION')[h];
  const inner = Array.from(stack.children).filter(s => s.tagName === 'SECTION');
  const slide = inner.length ? inner[v] : stack;
  const pending = [];
  for (const out of slide.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.widget-view+json"]'))
    if (!out.querySelector('.jupyter-widgets, .widget-output, canvas, img')) pending.push('widget');
  for (const img of slide.querySelectorAll('img')) if (!img.complete) pending.push('image');
  return pending.length === 0;
}"""


def open_slideshow(page, url, notebook, timeout_ms=120_000):
    """Open ``notebook`` (served by ``url``) as jupyterlab-rise's live slideshow and wait until Reveal is ready."""
    page.goto(f"{url}/rise/{notebook}?activeCellIndex=0")
    page.wait_for_function("() => document.querySelector('.reveal.ready .slides section') !== null", timeout=timeout_ms)
    page.wait_for_timeout(1500)                # RISE's first sync and auto-selection (450 ms) settle


def live_steps(page):
    """Every (h, v, fragment) step of the live slideshow in order."""
    return page.evaluate(_LIVE_STEPS)


def goto_live(page, h, v, f, timeout_ms=WIDGET_TIMEOUT_MS):
    """Show step (h, v, f) in the live slideshow (through reveal's URL hash) and wait for its widgets.

    Returns False when a widget output or a picture on the slide has not rendered within ``timeout_ms``, None when
    the slideshow did not go to that step.
    """
    from playwright.sync_api import TimeoutError as Timeout
    for attempt in range(3):
        page.evaluate("([h, v, f]) => { location.hash = `#/${h}/${v}/${f}`; }", [h, v, f])
        try:
            page.wait_for_function(_LIVE_AT, arg=[h, v, f], timeout=5_000)
            break
        except Timeout:
            if attempt == 2:
                return None
            page.evaluate("() => { location.hash = '#/0/0'; }")       # the same hash again is no change
            page.wait_for_timeout(300)
    try:
        page.wait_for_function(_LIVE_RENDERED, arg=[h, v], timeout=timeout_ms)
        rendered = True
    except Timeout:                            # measured as it stands, and reported
        rendered = False
    page.wait_for_timeout(400)                 # the re-layout after widgets grow (lessonlib-rise-widgets: 150 ms)
    return rendered


def check_slideshow(page, url, notebook, *, shots=None, min_px=MIN_TEXT_PX, min_scale=MIN_FIGURE_SCALE):
    """A :class:`DeckReport` of a lesson's live slideshow; the lesson must have run in this JupyterLab."""
    t0 = time.monotonic()
    open_slideshow(page, url, notebook)
    tally = _Tally(Path(notebook).stem, shots, prefix="live_")
    every = live_steps(page)
    for h, v, f in every:
        rendered = goto_live(page, h, v, f)
        if rendered is None:
            tally.add(page, h, v, f, {"found": [["not reached", "the slideshow did not show this step"]],
                                      "title": "?", "prose": [], "code": []})
            continue
        if page.evaluate(_OPEN_DETAILS, True):
            page.evaluate("() => window.dispatchEvent(new Event('resize'))")
            page.wait_for_timeout(300)
        result = page.evaluate(_MEASURE, [min_px, min_scale, True])
        if not rendered:
            result["found"].append(["not rendered",
                                    f"a widget or picture did not render in {WIDGET_TIMEOUT_MS / 1000:g} s"])
        tally.add(page, h, v, f, result)
    return tally.report("live", len(every), time.monotonic() - t0)


def run_lesson(page, url, notebook, timeout_ms=1_800_000):
    """Open ``notebook`` in JupyterLab, Run All, save it; return the cells that raised."""
    from tools import browser
    browser.open_notebook(page, url, notebook, timeout_ms=240_000)
    browser.run_all(page, timeout_ms)
    errors = page.evaluate(browser.ERROR_OUTPUTS)
    page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function(f"() => !{browser.PANEL}.context.model.dirty", timeout=30_000)
    return errors


def check_lessons(lessons=None, *, shots=None, full=False, log=print):
    """``{lesson stem: DeckReport}`` of the live slideshows of ``lessons`` (numbers or names; default all).

    One throw-away JupyterLab (test mode unless ``full``) and one browser for all; each lesson is run,
    shown as a slideshow at 1280×720 and checked step by step, then its kernel is shut down.
    """
    from playwright.sync_api import sync_playwright

    from tools import browser
    from tools.outputs import lesson_paths
    notebooks = [p.name for p in lesson_paths(lessons)]
    results = {}
    with tempfile.TemporaryDirectory(prefix="slidefit-") as tmp, \
            browser.jupyterlab(tmp, testing=not full, settings=RISE_SETTINGS) as (url, _root, _log), \
            sync_playwright() as p:
        chromium = launch(p)
        try:
            for notebook in notebooks:
                t0 = time.monotonic()
                lab = chromium.new_page(viewport={"width": WIDTH, "height": HEIGHT})
                try:
                    errors = run_lesson(lab, url, notebook)
                    ran = time.monotonic() - t0
                    show = chromium.new_page(viewport={"width": WIDTH, "height": HEIGHT})
                    try:
                        result = check_slideshow(show, url, notebook, shots=shots)
                    finally:
                        show.close()
                    lab.evaluate("() => window.jupyterapp.serviceManager.sessions.shutdownAll()")
                finally:
                    lab.close()
                result.errors, result.seconds = errors, round(time.monotonic() - t0, 1)
                results[result.name] = result
                if log:
                    log(f"{result.name}: run {ran:.0f} s, slideshow {result.seconds - ran:.0f} s"
                        + (f"; cells raised: {errors}" if errors else ""))
        finally:
            chromium.close()
    return results


# --- report -------------------------------------------------------------------------------------------------
def _px(sizes):
    return "none" if sizes is None else (f"{sizes[1]:g} px" if sizes[0] == sizes[1]
                                         else f"{sizes[1]:g} px (smallest {sizes[0]:g})")


def summary(results):
    """One line per deck (``results``: DeckReports, or a dict of them): mode, steps, font sizes, problems by kind."""
    lines = []
    for r in (results.values() if isinstance(results, dict) else results):
        by_kind = {}
        for f in r.findings:
            by_kind.setdefault(f.kind, set()).add(f.slide)
        kinds = "; ".join(f"{kind}: {len(s)} slides ({', '.join(sorted(s, key=_order)[:12])}"
                          f"{', …' if len(s) > 12 else ''})" for kind, s in sorted(by_kind.items()))
        lines.append(f"{r.name} [{r.mode}]: {r.steps} steps, prose {_px(r.prose)}, code {_px(r.code)}, "
                     f"{r.seconds:.0f} s; " + (kinds or "every slide fits")
                     + (f"; CELLS RAISED: {'; '.join(r.errors)[:300]}" if r.errors else ""))
    return "\n".join(lines)


def _order(slide):
    h, v = slide.split(".")
    return int(h), int(v)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.slidefit", description=__doc__.split("\n\n")[0])
    parser.add_argument("decks", nargs="*", help="static deck files (default: build/slides/*.slides.html)")
    parser.add_argument("--live", nargs="*", metavar="NN",
                        help="check the live slideshow of these lessons (no number: every lesson) instead")
    parser.add_argument("--static", action="store_true", help="with --live: check the static decks too")
    parser.add_argument("--full", action="store_true", help="live: run the lessons in full mode, not test mode")
    parser.add_argument("--shots", help="save a screenshot of every step into this folder")
    parser.add_argument("--json", help="write every finding and the font sizes to this JSON file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every finding, not only the summary")
    args = parser.parse_args(argv)
    if not chromium_available():
        raise SystemExit("the slide-fit checker needs /usr/bin/chromium and the playwright package")
    results = []
    if args.live is None or args.static or args.decks:
        from tools.slides import BUILD
        decks = [Path(d) for d in args.decks] or sorted(BUILD.glob("*.slides.html"))
        if not decks:
            raise SystemExit("no decks: run `make slides` first")
        t0 = time.monotonic()
        results += check_decks(decks, shots=args.shots).values()
        print(f"static: {len(decks)} decks in {time.monotonic() - t0:.0f} s", flush=True)
    if args.live is not None:
        t0 = time.monotonic()
        lessons = [s for item in args.live for s in item.split()]
        live = check_lessons(lessons, shots=args.shots, full=args.full, log=lambda s: print(s, flush=True))
        results += live.values()
        print(f"live: {len(live)} lessons in {time.monotonic() - t0:.0f} s", flush=True)
    if args.verbose:
        for r in results:
            for f in r.findings:
                print(f"[{r.mode}] {f}")
    print(summary(results))
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], ensure_ascii=False, indent=1))
    return 1 if any(r.findings or r.errors for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
