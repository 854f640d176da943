"""Static decks (tools/slides.py) work offline and the slide-fit checker (tools/slidefit.py) finds what does not fit.

A deck is built from a throw-away copy of lesson 00 with slide metadata added here (slides at the
headings, a fragment, a speaker-notes cell, a skipped cell), and from a small notebook made to
misbehave (a slide too long, a code line too wide, tiny text, a fitting slide, a self-test whose
answers fit only while closed: the checker opens every ``<details>``). Building needs
``npm`` (reveal.js and MathJax are fetched into build/vendor once) and Debian's ``fonts-noto-cjk``;
the browser parts need ``/usr/bin/chromium``.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from tools import slides
from tools.browser import chromium_available

REPO = Path(__file__).resolve().parents[1]


def _require_build_tools():
    if not all(slides._tarball(p).exists() for p in slides.PACKAGES) and shutil.which("npm") is None:
        pytest.skip("npm is needed once to fetch reveal.js and MathJax (apt-get install npm)")
    if not slides.CJK_FONT.exists():
        pytest.skip(f"{slides.CJK_FONT} missing: apt-get install fonts-noto-cjk")


@pytest.fixture(scope="module")
def assets():
    _require_build_tools()
    return slides.deck_assets(slides.course_characters([REPO / "course" / "00_tour.ipynb"]) + "递推")


def _with_slides(nb):
    """Slide metadata as a lesson author would add it: headings start slides, one fragment, notes, a skip."""
    for k, cell in enumerate(nb.cells):
        kind = "-"
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            kind = "slide"
        cell.metadata["slideshow"] = {"slide_type": kind}
    nb.cells[1].metadata["slideshow"] = {"slide_type": "skip"}
    nb.cells[2].metadata["slideshow"] = {"slide_type": "fragment"}
    nb.cells.insert(3, nbformat.v4.new_markdown_cell("Talking points: ask the room what 递推 means.",
                                                     metadata={"slideshow": {"slide_type": "notes"}}))
    return nb


@pytest.fixture(scope="module")
def tour_deck(tmp_path_factory, assets):
    tmp = tmp_path_factory.mktemp("deck")
    nb = _with_slides(nbformat.read(REPO / "course" / "00_tour.ipynb", as_version=4))
    path = tmp / "00_tour.ipynb"
    nbformat.write(nb, path)
    n_slides = sum(c.metadata["slideshow"]["slide_type"] == "slide" for c in nb.cells)
    n_images = sum(1 for c in nb.cells if c.cell_type == "code" and c.metadata["slideshow"]["slide_type"] != "skip"
                   for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
    return slides.build_deck(path, tmp, assets), n_slides, n_images


def test_deck_is_one_self_contained_file(tour_deck):
    deck, n_slides, _ = tour_deck
    text = deck.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=", text), "a script loaded from elsewhere"
    assert not re.search(r"<link[^>]+stylesheet[^>]+href=\"(?!data:)", text), "a style sheet loaded from elsewhere"
    markup = re.sub(r"<script>.*?</script>", "", text, flags=re.S)       # strings inside the inlined JS aside
    assert not re.search(r"(src|href)=\"https?://", markup), re.search(r".{80}(src|href)=\"https?://.{80}", markup)
    assert "font-family: 'CourseCJK'" in text and "data:font/woff;base64," in text
    assert "MathJax" in text and "Reveal.initialize" in text and "RevealNotes" in text
    assert text.count('<aside class="notes">') == 1
    assert text.count("<section") >= n_slides


def test_course_characters_and_font_subset(assets):
    chars = slides.course_characters([REPO / "course" / "GLOSSARY.md"])
    assert "递" in chars and "推" in chars and "a" not in chars
    assert len(assets["font_css"]) > 10_000                      # a real font, not an empty face


@pytest.mark.browser
def test_deck_renders_offline(tour_deck):
    if not chromium_available():
        pytest.skip("needs /usr/bin/chromium and playwright")
    from playwright.sync_api import sync_playwright

    from tools.slidefit import open_deck, steps
    deck, n_slides, n_images = tour_deck
    with sync_playwright() as p:
        from tools.browser import launch
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            blocked = open_deck(page, deck)
            assert blocked == [], f"the deck asked the network for {blocked}"
            info = page.evaluate("""() => ({
                slides: Reveal.getTotalSlides(), scale: Reveal.getScale(),
                math: document.querySelectorAll('mjx-container svg').length,
                mathErrors: document.querySelectorAll('mjx-merror').length,
                cjk: document.fonts.check('24px CourseCJK', '课程导览'),
                images: Array.from(document.querySelectorAll('.reveal img')).map(i => i.naturalWidth),
                fragments: document.querySelectorAll('.reveal .fragment').length})""")
            assert info["slides"] == n_slides, info
            assert info["math"] > 5 and info["mathErrors"] == 0, info
            assert info["cjk"], "the inlined CJK font is not available to the page"
            assert len(info["images"]) >= n_images > 0 and all(w > 0 for w in info["images"]), info["images"]
            assert info["fragments"] == 1
            assert len(steps(page)) == n_slides + 1                # the fragment adds one step
            page.evaluate("() => Reveal.slide(0)")
            page.screenshot(path=str(deck.with_suffix(".png")))
            from PIL import Image
            title = Image.open(deck.with_suffix(".png")).convert("L").crop((0, 0, 1280, 110))
            assert len(title.getcolors(256) or []) > 20, "the title slide looks blank"
            assert not errors, errors
        finally:
            browser.close()


# --- the slide-fit checker -----------------------------------------------------------------------------
@pytest.mark.browser
def test_slide_fit_checker_reports_what_does_not_fit(tmp_path, assets):
    if not chromium_available():
        pytest.skip("needs /usr/bin/chromium and playwright")
    from playwright.sync_api import sync_playwright

    from tools.browser import launch
    from tools.slidefit import check_deck
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    long_line = "tau = rnea(arm, q, qd, qdd)  # " + "a very long comment " * 8
    cells = [md("# Fits\n\nA short slide."),
             md("# Too long\n\n" + "\n".join(f"* point {k}" for k in range(40))),
             code(long_line),
             md("# Tiny\n\n<span style='font-size: 9px'>fine print</span>"),
             md("# Fits too\n\n$M(q)\\ddot q + c = \\tau$"),
             md("# Self-test\n\n1. Why?\n\n<details><summary>Answer</summary>\n\n"
                + "\n".join(f"* reason {k}" for k in range(20)) + "\n\n</details>")]
    kinds = ["slide"] * len(cells)
    for cell, kind in zip(cells, kinds):
        cell.metadata["slideshow"] = {"slide_type": kind}
    path = tmp_path / "99_bad.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    deck = slides.build_deck(path, tmp_path, assets)
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            findings = check_deck(page, deck)
        finally:
            browser.close()
    by_slide = {}
    for f in findings:
        by_slide.setdefault(f.slide, set()).add(f.kind)
    assert by_slide == {"1.0": {"overflow"}, "2.0": {"code cut"}, "3.0": {"small text"}, "5.0": {"overflow"}}, findings
    assert "Too long" in [f.title for f in findings if f.slide == "1.0"][0]


def test_handout_page_has_the_math_and_the_chinese(tmp_path, assets):
    md = tmp_path / "05_rnea.md"
    md.write_text("# 05 · RNEA (递推牛顿–欧拉算法) — one page\n\n"
                  "1. Outward: $v_i = X_i v_{p(i)} + S_i \\dot q_i$\n2. Inward: $\\tau_i = S_i^T f_i$\n\n"
                  "| n | multiplications |\n|---|---|\n| 6 | 1000 |\n", encoding="utf-8")
    written = slides.build_handout(md, tmp_path / "out", assets, pdf=chromium_available())
    page = (tmp_path / "out" / "handouts" / "05_rnea.html").read_text(encoding="utf-8")
    assert written[0].name == "05_rnea.html"
    assert "<h1>05 · RNEA (递推牛顿–欧拉算法) — one page</h1>" in page and "<table>" in page
    assert "$v_i = X_i v_{p(i)} + S_i \\dot q_i$" in page            # math kept for MathJax, not mangled
    assert "CourseCJK" in page and "MathJax" in page and "@page" in page
    if chromium_available():
        assert written[1].suffix == ".pdf" and written[1].read_bytes()[:5] == b"%PDF-"


def test_the_chinese_decks_are_built_from_the_chinese_edition(tmp_path):
    """``make slides LANG=zh`` (``python -m tools.slides --lang zh``): the Chinese lesson and handout, every
    character of them in the deck's font subset."""
    _require_build_tools()
    assert slides.main(["--lang", "zh", "00", "--no-pdf", "--out", str(tmp_path)]) == 0
    deck = (tmp_path / "zh" / "00_tour.slides.html").read_text(encoding="utf-8")
    handout = (tmp_path / "zh" / "handouts" / "00_tour.html").read_text(encoding="utf-8")
    assert "课程导览" in deck and "课程导览" in handout
    assert "A tour of the course" not in deck and "A tour of the course" in (
        REPO / "course" / "00_tour.ipynb").read_text(encoding="utf-8")
