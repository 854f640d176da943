"""The book (``make book``, ``tools/book.py``) in a real browser: a lesson page in each language, offline.

The test builds lesson 05 and exercise 05 in both editions (the same code as ``make book``, fewer pages) and
opens each lesson page in headless Chromium, served from a local folder (as a student's own machine or a USB
stick would; ``http://127.0.0.1`` so that the search may read the pages), with every other request refused: the math is
rendered (MathJax's SVG), every image is loaded, the console has no error, every internal link of the page
points at a file of the site, and the site's search finds the lesson by a word of its text. A page whose stored widget has no picture, or a link to a page that is not
there, fails the build itself (Sphinx with ``-W``).
"""
from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import quote, unquote, urlparse

import pytest

from tools import book, browser

pytestmark = pytest.mark.browser
LESSON = "05"
PAGES = {"en": "course/05_rnea.html", "zh": "course/zh/05_rnea.html"}
#: A word of lesson 05 that the client-side search must find (Chinese: words cut by jieba at build time).
SEARCH = {"en": "transpose", "zh": "动力学"}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not browser.chromium_available():
        pytest.skip(f"{browser.CHROMIUM} or the playwright package not found: install Debian's chromium")
    out, stage = tmp_path_factory.mktemp("book"), tmp_path_factory.mktemp("book-src")
    for lang in book.LANGS:
        book.build(lang, out, lessons=[LESSON], stage_dir=stage)
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("lang", book.LANGS)
def test_a_lesson_page_reads_offline_with_math_images_and_links(site, lang):
    from playwright.sync_api import sync_playwright
    site, origin = site
    page_path = site / lang / PAGES[lang]
    assert page_path.exists(), sorted(p.name for p in (site / lang).rglob("*.html"))
    errors, refused = [], []
    with sync_playwright() as pw:
        chromium = browser.launch(pw)
        try:
            page = chromium.new_page()
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(origin)
                       else (refused.append(route.request.url), route.abort()))
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{origin}/{lang}/{PAGES[lang]}")
            page.wait_for_function("document.querySelectorAll('mjx-container svg').length > 20", timeout=60_000)
            images = page.eval_on_selector_all("img", "els => els.map(e => [e.src, e.complete && e.naturalWidth])")
            links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
            text = page.inner_text("main")
            page.goto(f"{origin}/{lang}/search.html?q={quote(SEARCH[lang])}")
            page.wait_for_selector("#search-results ul.search li", timeout=60_000)
            hits = page.eval_on_selector_all("#search-results ul.search li a", "els => els.map(e => e.href)")
        finally:
            chromium.close()
    assert not refused, f"the page asked the network for {refused[:5]}"
    assert any(h.split("#")[0].endswith(PAGES[lang]) for h in hits), hits[:5]
    assert not errors, errors[:5]
    assert len(images) >= 3 and all(width for _, width in images), [src for src, width in images if not width]
    internal = {unquote(urlparse(h).path) for h in links if h.startswith(origin)}
    missing = sorted(p for p in internal if not (site / p.lstrip("/")).exists())
    assert internal and not missing, missing[:5]
    assert not [w for w in ("\\tag", "\\begin", "$$") if w in text], "TeX left unrendered on the page"
    assert ("本课引入的符号" in text) == (lang == "zh") and ("Symbols introduced in this lesson" in text) == (lang == "en")
    exercise = {"en": "exercises/05_rnea.html", "zh": "exercises/zh/05_rnea.html"}[lang]
    assert any(p.endswith(exercise) for p in internal), "no link to the exercise (the table of contents has one)"
