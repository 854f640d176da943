"""Lessons 11 and 12 as a lecturer shows them, and every static deck: legible live, and everything fits.

At 1280×720, in headless Chromium: each lesson runs in a throw-away JupyterLab (test mode, widgets live) and is
opened as jupyterlab-rise's Reveal slideshow (what "Open as Reveal Slideshow" opens); its static deck is built
from the stored outputs. :mod:`tools.slidefit` visits every slide and fragment of both, with every ``<details>``
("Answer") opened and, in the slideshow, every widget rendered, and measures the computed font sizes.

* the live slideshow's prose (Markdown ``p``/``li``) and code (code cells' lines and printed output) are at least as
  large as the static deck's — measured on both (the deck: 24 and 19 px scaled by reveal's 0.97 at 1280×720) —
  and at least the deck style's 24 px and 17 px (``tools/deck/course.css``; lessonlib-rise-widgets gives the
  slideshow the same style);
* no slide overflows, live or static; no cell raises; every widget renders;
* every other lesson's static deck fits too (the live slideshow of every lesson: ``make slidefit``, 12 minutes).

Screenshots of every step go to a temporary folder (printed; ``LESSONLIB_SCREENSHOTS`` to keep them). Slow
(several minutes): skipped without ``/usr/bin/chromium``, npm (or the vendored reveal.js) or the CJK font.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tools import slides, slidefit
from tools.browser import chromium_available

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
LESSONS = ("11", "12")
#: The least prose and code size on a projected slide (px): the deck style's prose and code in the text
#: (tools/deck/course.css); the deck's code cells are larger (19 px × reveal's 0.97 = 18.4 px), measured below.
DECK_PROSE_PX, DECK_CODE_PX = 24.0, 17.0


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """``{lesson stem: (static DeckReport, live DeckReport or None)}``: every deck, the slideshow of 11 and 12."""
    if not chromium_available():
        pytest.skip("needs /usr/bin/chromium and the playwright package")
    if not all(slides._tarball(p).exists() for p in slides.PACKAGES) and shutil.which("npm") is None:
        pytest.skip("npm is needed once to fetch reveal.js and MathJax (apt-get install npm)")
    if not slides.CJK_FONT.exists():
        pytest.skip(f"{slides.CJK_FONT} missing: apt-get install fonts-noto-cjk")
    keep = os.environ.get("LESSONLIB_SCREENSHOTS")
    shots = Path(tempfile.mkdtemp(prefix="slides-live-", dir=keep)) if keep else tmp_path_factory.mktemp("shots")
    notebooks = slides.lesson_notebooks()                        # every lesson's deck, from the stored outputs
    assets = slides.deck_assets(slides.course_characters(notebooks))
    out = tmp_path_factory.mktemp("decks")
    static = slidefit.check_decks([slides.build_deck(nb, out, assets) for nb in notebooks], shots=shots)
    live = slidefit.check_lessons(list(LESSONS), shots=shots)
    print(f"screenshots of every step: {shots}\n" + slidefit.summary(list(static.values()) + list(live.values())))
    return {name: (static[name], live.get(name)) for name in static}


@pytest.mark.parametrize("lesson", ["11_applications", "12_constrained"])
def test_live_slideshow_text_is_as_large_as_the_static_decks(reports, lesson):
    static, live = reports[lesson]
    for what in ("prose", "code"):
        s, v = getattr(static, what), getattr(live, what)
        assert s is not None and v is not None, f"{what}: nothing measured (static {s}, live {v})"
        assert sum(getattr(live, what + "_px").values()) >= 20, f"{what}: too few text elements measured live"
        assert v[0] >= s[0] - 0.05, f"{lesson}: live {what} {v[0]} px is smaller than the static deck's {s[0]} px"
    assert live.prose[0] >= DECK_PROSE_PX - 0.05 and live.code[0] >= DECK_CODE_PX - 0.05, (live.prose, live.code)


@pytest.mark.parametrize("lesson", ["11_applications", "12_constrained"])
def test_every_slide_fits_live_and_static(reports, lesson):
    static, live = reports[lesson]
    assert live.steps == static.steps, "the slideshow and the deck should have the same slides and fragments"
    assert not live.errors, f"cells raised in the slideshow's kernel: {live.errors}"
    assert live.widget_slides, "no slide showed a rendered widget"
    unfit = [f"[{r.mode}] {f}" for r in (static, live) for f in r.findings if f.kind in ("overflow", "not rendered", "not reached")]
    assert not unfit, f"{lesson}: slides that do not fit 1280×720 (answers opened, widgets rendered):\n" + "\n".join(unfit)


@pytest.mark.parametrize("lesson", [p.stem for p in sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb"))])
def test_every_static_deck_fits(reports, lesson):
    static, _ = reports[lesson]
    assert static.steps >= 10 and static.prose is not None and static.code is not None, static
    unfit = [str(f) for f in static.findings if f.kind in ("overflow", "not rendered", "not reached")]
    assert not unfit, f"{lesson}: slides of the static deck that do not fit 1280×720 (answers opened):\n" + "\n".join(unfit)
