"""Slide-fit checker: does every slide of a static deck fit a 1280×720 projector at a readable size?

``make slidefit`` (or ``python -m tools.slidefit build/slides/05_rnea.slides.html``) opens each
deck offline in headless Chromium at 1280×720, visits every slide, subslide and fragment step, and
reports per slide:

* ``overflow`` — an element reaches past the bottom or right edge of the slide (by how many px);
* ``code cut`` / ``code wrapped`` — a code or output line is wider than the slide (cut at the edge)
  or broken over two lines;
* ``small text`` — text rendered below ``MIN_TEXT_PX`` px (after reveal's scaling);
* ``figure shrunk`` — a picture shown at less than ``MIN_FIGURE_SCALE`` of its pixel width (its axis
  labels shrink with it).

``--shots DIR`` also saves a screenshot of every step. Exit status 1 when anything was reported.
Slides are named ``h.v`` as in the deck's URL (``…slides.html#/h/v``), with their first heading.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from tools.browser import chromium_available, launch

WIDTH, HEIGHT = 1280, 720
#: Smallest readable text on a projected slide, in CSS px at 1280×720 (≈ 12 pt).
MIN_TEXT_PX = 16
#: A figure shown below this fraction of its pixel width has labels too small to read.
MIN_FIGURE_SCALE = 0.7


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


_MEASURE = """([minPx, minScale]) => {
  const slide = Reveal.getCurrentSlide();
  const scale = Reveal.getScale();
  const box = document.querySelector('.reveal .slides').getBoundingClientRect();
  const frame = {left: box.left, top: box.top, right: box.left + box.width, bottom: box.top + box.height};
  const heading = slide.querySelector('h1, h2, h3, h4');
  const found = [];
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
  const leaves = Array.from(slide.querySelectorAll('*')).filter(el =>
      !el.closest('aside.notes') && (el.tagName === 'MJX-CONTAINER' || !el.closest('mjx-container'))
      && (ownText(el) || ['IMG', 'svg', 'CANVAS', 'TABLE', 'MJX-CONTAINER'].includes(el.tagName))
      && !(el.tagName !== 'svg' && el.closest('svg')) && shown(el));
  let worst = null;
  for (const el of leaves) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const inPre = el.tagName !== 'PRE' && el.closest('pre');      // a cut code line is reported as such
    const over = inPre ? (r.bottom - frame.bottom) / scale : Math.max(r.bottom - frame.bottom, r.right - frame.right) / scale;
    if (over > 2 && (!worst || over > worst.over)) worst = {over, what: el.tagName.toLowerCase() + ' "' + text(el) + '"'};
    if (ownText(el)) {
      const px = parseFloat(getComputedStyle(el).fontSize) * scale;
      if (px < minPx - 0.05) found.push(['small text', `${px.toFixed(1)} px < ${minPx} px: "${text(el)}"`]);
    }
    if (el.tagName === 'IMG' && el.naturalWidth > 0) {
      const shownScale = r.width / scale / el.naturalWidth;
      if (shownScale < minScale)
        found.push(['figure shrunk', `shown at ${(100 * shownScale).toFixed(0)} % of its ${el.naturalWidth} px width`]);
    }
  }
  if (worst) found.push(['overflow', `${worst.over.toFixed(0)} px past the slide edge: ${worst.what}`]);
  for (const pre of slide.querySelectorAll('pre')) {
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
  const unique = Array.from(new Set(found.map(f => JSON.stringify(f)))).map(s => JSON.parse(s));
  return {title: (heading ? text(heading) : text(slide)).replace(/¶/g, ''), found: unique};
}"""


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
    """Every (h, v, fragment) step of the deck in order."""
    return page.evaluate("""() => Reveal.getSlides().flatMap(s => {
        const i = Reveal.getIndices(s);
        const n = s.querySelectorAll('.fragment').length;
        return Array.from({length: n + 1}, (_, k) => [i.h, i.v || 0, k - 1]);
    })""")


def check_deck(page, deck, *, shots=None, min_px=MIN_TEXT_PX, min_scale=MIN_FIGURE_SCALE):
    """The :class:`Finding` list of one deck (each problem reported once per slide, at its first step)."""
    open_deck(page, deck)
    name = Path(deck).name.removesuffix(".slides.html")
    findings, seen = [], set()
    if shots is not None:
        Path(shots).mkdir(parents=True, exist_ok=True)
    for h, v, f in steps(page):
        page.evaluate("([h, v, f]) => Reveal.slide(h, v, f)", [h, v, f])
        page.wait_for_timeout(30)
        result = page.evaluate(_MEASURE, [min_px, min_scale])
        if shots is not None:
            page.screenshot(path=str(Path(shots) / f"{name}_{h:02d}_{v:02d}_{f + 1:02d}.png"))
        for kind, detail in result["found"]:
            key = (h, v, kind, detail)
            if key not in seen:
                seen.add(key)
                findings.append(Finding(name, f"{h}.{v}", f, kind, detail, result["title"]))
    return findings


def check_decks(decks, *, shots=None):
    """``{deck name: (number of steps, findings)}`` for every deck, in one browser."""
    from playwright.sync_api import sync_playwright
    results = {}
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            for deck in decks:
                findings = check_deck(page, deck, shots=shots)
                results[Path(deck).name.removesuffix(".slides.html")] = (len(steps(page)), findings)
        finally:
            browser.close()
    return results


def summary(results):
    """One line per deck: steps, slides with problems by kind."""
    lines = []
    for name, (n_steps, findings) in results.items():
        by_kind = {}
        for f in findings:
            by_kind.setdefault(f.kind, set()).add(f.slide)
        kinds = "; ".join(f"{kind}: {len(s)} slides ({', '.join(sorted(s, key=_order)[:12])}"
                          f"{', …' if len(s) > 12 else ''})" for kind, s in sorted(by_kind.items()))
        lines.append(f"{name}: {n_steps} steps; " + (kinds or "every slide fits"))
    return "\n".join(lines)


def _order(slide):
    h, v = slide.split(".")
    return int(h), int(v)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.slidefit", description=__doc__.split("\n\n")[0])
    parser.add_argument("decks", nargs="*", help="deck files (default: build/slides/*.slides.html)")
    parser.add_argument("--shots", help="save a screenshot of every step into this folder")
    parser.add_argument("--json", help="write every finding to this JSON file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every finding, not only the summary")
    args = parser.parse_args(argv)
    if not chromium_available():
        raise SystemExit("the slide-fit checker needs /usr/bin/chromium and the playwright package")
    from tools.slides import BUILD
    decks = [Path(d) for d in args.decks] or sorted(BUILD.glob("*.slides.html"))
    if not decks:
        raise SystemExit("no decks: run `make slides` first")
    results = check_decks(decks, shots=args.shots)
    if args.verbose:
        for _, findings in results.values():
            for f in findings:
                print(f)
    print(summary(results))
    if args.json:
        Path(args.json).write_text(json.dumps({k: [asdict(f) for f in v[1]] for k, v in results.items()},
                                              ensure_ascii=False, indent=1))
    return 1 if any(f for _, f in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
