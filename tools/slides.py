"""Static slide decks and handouts that work offline: ``make slides`` (``python -m tools.slides``).

For every lesson ``course/NN_*.ipynb`` it writes ``build/slides/NN_*.slides.html``: nbconvert's
reveal.js export of the notebook **with its stored outputs** (``make outputs``: a widget view shows
as the PNG stored beside it), one self-contained HTML file with everything inlined —

* reveal.js (and its speaker-notes plugin: press ``s``) and MathJax 3 (SVG output, no font files),
  fetched once at build time from the npm registry with ``npm pack`` into ``build/vendor/``;
* a subset of Noto Sans CJK SC (SIL Open Font License) holding exactly the Chinese characters the
  course uses, so Chinese renders on a machine without a CJK font (needs Debian's ``fonts-noto-cjk``
  at build time);
* the course's deck style (``tools/deck/course.css``: 1280×720, 24 px text, 17 px code in the text; code cells
  and their output 19 px, nbconvert's reveal template).

Each ``course/handouts/NN_*.md`` (the one-page summary of a lesson) becomes
``build/slides/handouts/NN_*.html`` (same fonts and MathJax, A4 print style) and, when Chromium and
Playwright are there, ``…pdf``. ``build/slides/index.html`` links them all.

Slide structure comes from the cells' ``slideshow.slide_type`` (course/README.md, "Slides").
"""
from __future__ import annotations

import argparse
import base64
import html
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "course"
HANDOUTS = COURSE / "handouts"
BUILD = REPO / "build" / "slides"
VENDOR = REPO / "build" / "vendor"
DECK_TEMPLATE = Path(__file__).resolve().parent / "deck"
#: npm packages inlined into every deck, pinned.
PACKAGES = {"reveal.js": "5.2.1", "mathjax": "3.2.2"}
#: The slide size the decks are designed for (a 16:9 projector).
WIDTH, HEIGHT = 1280, 720
#: Where Debian's fonts-noto-cjk puts the CJK font, and the face of it that holds simplified Chinese.
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
CJK_FAMILY = "Noto Sans CJK SC"
_CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff"
                  r"\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


# --- assets ------------------------------------------------------------------------------------------
def _tarball(package):
    return VENDOR / f"{package.replace('/', '-')}-{PACKAGES[package]}.tgz"


def ensure_vendor():
    """The npm tarballs of :data:`PACKAGES` in ``build/vendor/`` (``npm pack`` fetches a missing one)."""
    VENDOR.mkdir(parents=True, exist_ok=True)
    missing = [p for p in PACKAGES if not _tarball(p).exists()]
    if missing:
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("make slides needs npm (Debian: apt-get install npm) to fetch "
                             + ", ".join(f"{p}@{PACKAGES[p]}" for p in missing))
        subprocess.run([npm, "pack", "--silent", *(f"{p}@{PACKAGES[p]}" for p in missing)], cwd=VENDOR,
                       check=True, stdout=subprocess.DEVNULL)
    return {p: _tarball(p) for p in PACKAGES}


def vendor_text(package, member):
    """The text of ``package/<member>`` inside the package's npm tarball."""
    with tarfile.open(_tarball(package)) as tar:
        return tar.extractfile(f"package/{member}").read().decode("utf-8")


def _script_safe(js):
    """JavaScript that can sit inside ``<script>…</script>`` (no premature end tag)."""
    return js.replace("</script", "<\\/script")


def course_characters(paths):
    """The CJK characters used in ``paths`` (notebooks, markdown), sorted."""
    found = set()
    for path in paths:
        found |= set(_CJK.findall(Path(path).read_text(encoding="utf-8")))
    return "".join(sorted(found))


def _cjk_font_number(font_path, family=CJK_FAMILY):
    from fontTools.ttLib import TTCollection
    collection = TTCollection(str(font_path), lazy=True)
    for k, font in enumerate(collection.fonts):
        if font["name"].getDebugName(1) == family:
            return k
    raise SystemExit(f"{font_path}: no face named {family!r}")


def cjk_font_css(characters, font_path=CJK_FONT):
    """An ``@font-face`` rule for family ``CourseCJK``: a WOFF subset of Noto Sans CJK SC, inlined as data."""
    if not characters:
        return "/* no CJK characters in the course */"
    if not Path(font_path).exists():
        raise SystemExit(f"{font_path} not found: the decks need a CJK font to subset "
                         "(Debian: apt-get install fonts-noto-cjk)")
    from fontTools import subset
    options = subset.Options()
    options.flavor, options.layout_features, options.name_IDs = "woff", ["*"], ["*"]
    options.font_number = _cjk_font_number(font_path)
    font = subset.load_font(str(font_path), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=characters + "，。：；、（）《》“”")
    subsetter.subset(font)
    buf = io.BytesIO()
    subset.save_font(font, buf, options)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return ("/* CourseCJK: a subset of Noto Sans CJK SC (SIL Open Font License 1.1, "
            "https://openfontlicense.org) with the characters the course uses */\n"
            f"@font-face {{ font-family: 'CourseCJK'; src: url(data:font/woff;base64,{data}) format('woff'); }}")


def deck_assets(characters):
    """Everything a deck or handout inlines, as texts (see :data:`PACKAGES`)."""
    ensure_vendor()
    theme = re.sub(r"@import url\([^)]*\);", "", vendor_text("reveal.js", "dist/theme/white.css"))
    return {
        "versions": dict(PACKAGES),
        "reveal_js": _script_safe(vendor_text("reveal.js", "dist/reveal.js")),
        "notes_js": _script_safe(vendor_text("reveal.js", "plugin/notes/notes.js")),
        "reveal_css": vendor_text("reveal.js", "dist/reveal.css"),
        "theme_css": theme,                              # its web-font @import removed: nothing online
        "mathjax_js": _script_safe(vendor_text("mathjax", "es5/tex-svg-full.js")),
        "font_css": cjk_font_css(characters),
        "course_css": (DECK_TEMPLATE / "course.css").read_text(encoding="utf-8"),
        "width": WIDTH, "height": HEIGHT,
    }


# --- decks -------------------------------------------------------------------------------------------
def build_deck(notebook, out_dir, assets):
    """Write ``<out_dir>/<notebook stem>.slides.html`` from the stored outputs; return its path."""
    import nbformat
    from nbconvert import SlidesExporter

    nb = nbformat.read(notebook, as_version=4)
    nb.metadata.pop("widgets", None)                     # widget views fall back to their stored PNG
    exporter = SlidesExporter(extra_template_basedirs=[str(DECK_TEMPLATE.parent)], template_name="deck")
    body, _ = exporter.from_notebook_node(nb, resources={"deck": assets,
                                                         "metadata": {"name": Path(notebook).stem}})
    # nbconvert's reveal template links reveal.js's style sheets from a CDN: they are inlined instead
    body = re.sub(r"<link[^>]*href=\"https?://[^\"]*\"[^>]*>\n?", "", body)
    out = Path(out_dir) / f"{Path(notebook).stem}.slides.html"
    out.write_text(body, encoding="utf-8")
    return out


# --- handouts ----------------------------------------------------------------------------------------
_HANDOUT_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<script>window.MathJax = {{tex: {{inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], processEscapes: true}},
  svg: {{fontCache: 'global'}}}};</script>
<script>{mathjax}</script>
<style>{font}</style>
<style>
@page {{ size: A4; margin: 14mm 15mm; }}
body {{ font-family: "Source Sans Pro", "Helvetica Neue", Helvetica, Arial, "CourseCJK", "Noto Sans CJK SC", sans-serif;
       font-size: 10.5pt; line-height: 1.35; max-width: 180mm; margin: 0 auto; color: #111; }}
h1 {{ font-size: 16pt; margin: 0 0 4pt; }} h2 {{ font-size: 12pt; margin: 8pt 0 3pt; }}
table {{ border-collapse: collapse; font-size: 9.5pt; }} td, th {{ border: 1px solid #bbb; padding: 2px 5px; }}
code, pre {{ font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: 9pt; }}
ul, ol {{ margin: 2pt 0 4pt; padding-left: 18pt; }}
</style></head>
<body>
{body}
</body></html>
"""


def build_handout(markdown_path, out_dir, assets, pdf=True):
    """``course/handouts/NN_x.md`` → ``<out_dir>/handouts/NN_x.html`` (and ``.pdf`` with Chromium); return paths."""
    import mistune
    text = Path(markdown_path).read_text(encoding="utf-8")
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")), Path(markdown_path).stem)
    math = []                                            # keep $…$ away from the markdown parser

    def stash(m):
        math.append(m.group(0))
        return f"\x00MATH{len(math) - 1}\x00"

    protected = re.sub(r"\$\$.+?\$\$|\$[^$\n]+\$", stash, text, flags=re.S)
    body = mistune.html(protected)
    body = re.sub(r"\x00MATH(\d+)\x00", lambda m: html.escape(math[int(m.group(1))], quote=False), body)
    out = Path(out_dir) / "handouts"
    out.mkdir(parents=True, exist_ok=True)
    page = out / f"{Path(markdown_path).stem}.html"
    page.write_text(_HANDOUT_PAGE.format(title=html.escape(title), mathjax=assets["mathjax_js"],
                                         font=assets["font_css"], body=body), encoding="utf-8")
    written = [page]
    if pdf:
        pdf_path = _print_pdf(page)
        if pdf_path is not None:
            written.append(pdf_path)
    return written


def _print_pdf(page):
    """Print ``page`` to PDF with headless Chromium (None when Chromium or Playwright is missing)."""
    from tools.browser import CHROMIUM, chromium_available, launch
    if not chromium_available():
        return None
    from playwright.sync_api import sync_playwright
    pdf = page.with_suffix(".pdf")
    with sync_playwright() as p:
        browser = launch(p)
        try:
            tab = browser.new_page()
            tab.goto(page.resolve().as_uri())
            tab.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
            tab.evaluate("() => MathJax.startup.promise")
            tab.pdf(path=str(pdf), format="A4", print_background=True)
        finally:
            browser.close()
    return pdf


def _index(decks, handouts, out_dir):
    rows = []
    for deck in decks:
        stem = deck.name.removesuffix(".slides.html")
        extra = [h for h in handouts if h.stem == stem]
        links = " · ".join(f'<a href="handouts/{h.name}">handout ({h.suffix[1:]})</a>' for h in extra)
        rows.append(f'<li><a href="{deck.name}">{html.escape(stem)}</a> {links}</li>')
    (Path(out_dir) / "index.html").write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Robot dynamics: slides</title></head><body>"
        "<h1>Robot dynamics — slides and handouts</h1><p>Each deck is one offline HTML file: open it, press "
        "<kbd>s</kbd> for the speaker view, <kbd>f</kbd> for full screen; append <code>?print-pdf</code> to print."
        f"</p><ul>{''.join(rows)}</ul></body></html>", encoding="utf-8")


def lesson_notebooks(selection=None):
    from tools.outputs import lesson_paths
    return lesson_paths(selection)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.slides", description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers (05), names or paths; default: all")
    parser.add_argument("--out", default=str(BUILD), help=f"output folder (default {BUILD.relative_to(REPO)})")
    parser.add_argument("--no-pdf", action="store_true", help="handouts as HTML only")
    parser.add_argument("--lang", choices=("en", "zh"), default="en",
                        help="zh: the Chinese edition (course/zh/, make translations) into <out>/zh")
    args = parser.parse_args(argv)
    notebooks = lesson_notebooks([s for item in args.lessons for s in item.split()])
    out, handouts_dir = Path(args.out), HANDOUTS
    if args.lang == "zh":
        notebooks = [COURSE / "zh" / nb.name for nb in notebooks]
        missing = [nb.name for nb in notebooks if not nb.exists()]
        if missing:
            raise SystemExit(f"no Chinese edition of {', '.join(missing)}: run make translations first")
        out, handouts_dir = out / "zh", COURSE / "zh" / "handouts"
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    handout_sources = sorted(handouts_dir.glob("*.md")) if handouts_dir.exists() else []
    wanted = {nb.stem for nb in notebooks}
    handout_sources = [h for h in handout_sources if h.stem in wanted]
    assets = deck_assets(course_characters(sorted(COURSE.glob("*.ipynb")) + sorted(COURSE.glob("*.md"))
                                           + sorted((COURSE / "zh").glob("*.ipynb")) + handout_sources))
    decks = []
    for nb in notebooks:
        t = time.monotonic()
        decks.append(build_deck(nb, out, assets))
        print(f"{decks[-1].relative_to(out.parent) if out.parent in decks[-1].parents else decks[-1]}: "
              f"{decks[-1].stat().st_size / 1e6:.1f} MB in {time.monotonic() - t:.1f} s")
    handouts = [p for h in handout_sources for p in build_handout(h, out, assets, pdf=not args.no_pdf)]
    _index(decks, handouts, out)
    print(f"{len(decks)} decks, {len(handouts)} handout files in {out} ({time.monotonic() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
