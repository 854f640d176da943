"""The course as a book: ``make book`` writes ``build/book/en/`` and ``build/book/zh/`` (``python -m tools.book``).

A static site of every lesson and exercise, in English and in Chinese (the Chinese edition of
``make translations``), built by Sphinx with `myst-nb <https://myst-nb.readthedocs.io>`_ and the
``sphinx-book-theme`` from the **stored outputs** — nothing is executed (``nb_execution_mode = "off"``):

* math by MathJax 3 (SVG output, one self-contained script copied into the site: nothing is fetched when a
  page is read, so the book works offline, e.g. from a USB stick or ``file://``);
* every figure; where a lesson has a live widget the page shows the picture stored beside it (``make outputs``
  stores one with every widget view), since a static page has no kernel to drive the widget;
* a table of contents, Sphinx's full-text search (client-side), links between lessons and to the exercises.

The pages are staged under ``build/book-src/<lang>/`` with the repository's own layout (``course/``,
``exercises/``, and for Chinese ``course/zh/``, ``exercises/zh/``), so the notebooks' relative links work as
they do in JupyterLab. Links to ``solutions/`` become plain text: the book is for students.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build" / "book"
STAGE = REPO / "build" / "book-src"
LANGS = ("en", "zh")
#: The reference pages every edition carries (English: the tables are bilingual already).
REFERENCE_PAGES = ("GLOSSARY.md", "NOTATION.md", "BIBLIOGRAPHY.md")
TITLES = {"en": "Robot dynamics: Lie groups, recursive algorithms, simulation and control",
          "zh": "机器人动力学：李群、递推算法、仿真与控制"}
WORDS = {"en": {"lessons": "Lessons", "exercises": "Exercises", "reference": "Reference",
                "intro": "Thirteen lessons and their exercises, with the outputs of a full run. Every figure is here; "
                         "the interactive widgets need a running kernel (`make lab`), and each shows its last picture "
                         "here. <a href='../zh/index.html'>中文版</a>"},
         "zh": {"lessons": "课程", "exercises": "练习", "reference": "参考",
                "intro": "十三节课及其练习，附完整运行的输出。所有图都在这里；交互控件需要运行中的内核（`make lab LANG=zh`），"
                         "这里显示的是每个控件最后的画面。<a href='../en/index.html'>English edition</a>"}}

CONF = '''\
project = {title!r}
author = "lessonlib course"
language = {sphinx_lang!r}
extensions = ["myst_nb"]
exclude_patterns = ["_build"]
html_theme = "sphinx_book_theme"
html_title = {title!r}
html_static_path = ["_static"]
html_theme_options = {{"show_toc_level": 2, "use_download_button": False, "use_fullscreen_button": False}}
html_last_updated_fmt = None
nb_execution_mode = "off"
nb_ipywidgets_js = {{}}                                    # no widget manager from a CDN: the stored picture instead
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None),
                              ("html", "application/vnd.jupyter.widget-state+json", None)]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
mathjax_path = "mathjax/tex-svg-full.js"                  # copied into _static: offline
mathjax3_config = {{"tex": {{"tags": "none"}}, "svg": {{"fontCache": "global"}}}}
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]
html_context = {{"default_mode": "light"}}                # an empty mode is a console error of the theme


def _display_math_as_written(app, doctree):
    # Sphinx wraps display math that has a line break in \\begin{{split}}; the lessons' math is written for
    # JupyterLab (aligned blocks with a \\tag, which split refuses): give MathJax the text as the lesson wrote it.
    from docutils import nodes
    for node in list(doctree.findall(nodes.math_block)):
        if not node.get("nowrap"):
            node["nowrap"] = True
            node[:] = [nodes.Text("\\\\[" + node.astext() + "\\\\]")]


def setup(app):
    app.connect("doctree-read", _display_math_as_written)
{extra}'''

#: Chinese search: Sphinx 9.0's zh indexer (words cut by jieba) ships the English stemmer's script but names it
#: ``ChineseStemmer`` in ``language_data.js``, an error on every page; the English stemmer, under its own name.
ZH_CONF = '''    from sphinx.search import zh
    if zh.SearchChinese.js_stemmer_rawcode == "english-stemmer.js":
        zh.SearchChinese.language_name = "English"
'''

_SOLUTION_LINK = re.compile(r"\[([^\]]*)\]\((?:\.\./)+solutions/[^)]*\)")


def _notebooks(lang, lessons=None):
    """``[(repository path, staged relative path)]`` of the lessons and exercises of one edition (``lessons``:
    only these numbers, e.g. ``["05"]``)."""
    pairs = []
    for folder in ("course", "exercises"):
        src = REPO / folder / ("zh" if lang == "zh" else "")
        for nb in sorted(src.glob("[0-9][0-9]_*.ipynb")):
            if lessons is None or nb.name[:2] in lessons:
                pairs.append((nb, nb.relative_to(REPO)))
    return pairs


def _stage_notebook(src, dest):
    nb = json.loads(src.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            cell["source"] = _SOLUTION_LINK.sub(r"\1", text).splitlines(keepends=True)
    nb.get("metadata", {}).pop("widgets", None)           # no widget state: the pictures stand in
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(nb, ensure_ascii=False, indent=1), encoding="utf-8")


def _index(lang, pairs):
    w = WORDS[lang]
    lessons = [str(rel.with_suffix("")) for _, rel in pairs if rel.parts[0] == "course"]
    exercises = [str(rel.with_suffix("")) for _, rel in pairs if rel.parts[0] == "exercises"]
    toc = lambda caption, docs: "\n".join([f"```{{toctree}}", f":caption: {caption}", ":maxdepth: 1", "", *docs, "```"])
    refs = [f"course/{Path(p).stem}" for p in REFERENCE_PAGES]
    return "\n\n".join([f"# {TITLES[lang]}", w["intro"], toc(w["lessons"], lessons), toc(w["exercises"], exercises),
                        toc(w["reference"], refs)]) + "\n"


def stage(lang, mathjax_js, lessons=None, stage_dir=STAGE):
    """Write the Sphinx source of one edition under ``<stage_dir>/<lang>/``; returns its folder."""
    root = Path(stage_dir) / lang
    shutil.rmtree(root, ignore_errors=True)
    pairs = _notebooks(lang, lessons)
    if not pairs or (lang == "zh" and len(pairs) < len(_notebooks("en", lessons))):
        raise SystemExit(f"book: the {lang} edition is incomplete ({len(pairs)} notebooks): run make translations")
    for src, rel in pairs:
        _stage_notebook(src, root / rel)
    for page in REFERENCE_PAGES:
        shutil.copy(REPO / "course" / page, root / "course" / page)
    (root / "index.md").write_text(_index(lang, pairs), encoding="utf-8")
    (root / "conf.py").write_text(CONF.format(title=TITLES[lang], sphinx_lang="zh_CN" if lang == "zh" else "en",
                                              extra=ZH_CONF if lang == "zh" else ""), encoding="utf-8")
    (root / "_static" / "mathjax").mkdir(parents=True)
    (root / "_static" / "mathjax" / "tex-svg-full.js").write_text(mathjax_js, encoding="utf-8")
    return root


def build(lang, out=BUILD, mathjax_js=None, *, lessons=None, stage_dir=STAGE):
    """Stage and build one edition into ``out/<lang>`` (``lessons``: only these numbers); returns the seconds."""
    t0 = time.monotonic()
    if mathjax_js is None:
        from tools.slides import vendor_text
        mathjax_js = vendor_text("mathjax", "es5/tex-svg-full.js")
    root = stage(lang, mathjax_js, lessons, stage_dir)
    target = Path(out) / lang
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going", "-j", "2", str(root),
                    str(target)], check=True)             # a warning (a broken link, a missing page) fails the build
    return time.monotonic() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.book", description=__doc__.split("\n\n")[0])
    parser.add_argument("langs", nargs="*", help="en, zh (default: both)")
    parser.add_argument("--out", default=str(BUILD), help=f"output folder (default {BUILD.relative_to(REPO)})")
    parser.add_argument("--lessons", nargs="+", metavar="NN", help="only these lessons and their exercises (05 07)")
    args = parser.parse_args(argv)
    if set(args.langs) - set(LANGS):
        parser.error(f"langs: expected some of {', '.join(LANGS)}, got {' '.join(args.langs)}")
    from tools.slides import vendor_text
    mathjax_js = vendor_text("mathjax", "es5/tex-svg-full.js")
    for lang in args.langs or LANGS:
        seconds = build(lang, Path(args.out), mathjax_js, lessons=args.lessons)
        print(f"{Path(args.out) / lang / 'index.html'}: built in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
