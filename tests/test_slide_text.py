"""What a projected slide must not show (issue 29): test-harness text, broken accents, negative zeros, literal backticks.

A projected cell is any cell whose ``slideshow.slide_type`` is not ``notes`` or ``skip`` (course/README.md,
"Slides"): it is on the static deck and on the live slideshow. For every lesson — the English notebooks, and the
Markdown of the Chinese edition (``course/zh/``, whose code cells are the English ones) — the rules are:

* **no test harness**: no mention of the test mode, nbval, ``make test``, pytest, ``LESSONLIB_TESTING`` or a "test
  run" (测试模式, 测试运行 in the Chinese), in Markdown, code or printed output; no code that calls
  ``running_under_test()`` (such logic goes into a ``skip`` cell, remarks for the lecturer into ``notes``);
* **no combining accent** (U+0300–U+036F) in code or in its printed output (it comes apart in the monospace
  font: "q ˙"), nor in Markdown outside math after NFC normalisation (a dotted symbol belongs in ``$\\dot q$``);
* **no negative zero** (``-0.``, ``-0.000``, ``-0``) in printed output;
* **no literal backtick** inside a raw HTML block of Markdown (``<details>…`x`…</details>`` is not rendered as
  Markdown: write ``<code>x</code>`` there).

Each rule is a function returning what it finds in one cell; the unit tests at the end show each can fail.
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "course"
LESSONS = sorted(COURSE.glob("[0-9][0-9]_*.ipynb"))
CHINESE = sorted((COURSE / "zh").glob("[0-9][0-9]_*.ipynb"))

HIDDEN = ("notes", "skip")
#: Words of the test harness (case-insensitive), English and the Chinese edition's.
HARNESS = re.compile(r"\btest[- ]mode\b|\bnbval\b|\bmake\s+test\b|\bpytest\b|LESSONLIB_TESTING|\btest[- ]runs?\b"
                     r"|测试模式|测试运行", re.IGNORECASE)
HARNESS_CALL = re.compile(r"\brunning_under_test\s*\(")
COMBINING = re.compile(r"[\u0300-\u036f]")
#: A printed negative zero: -0, -0., -0.000, -0.0e+00 (not -0.5, not 1e-05, not 2023-01).
NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(?:\.0*)?(?:e[+-]?\d+)?(?![\w.])")
#: Math in Markdown: $$…$$, $…$, \[…\], \(…\) and LaTeX environments.
MATH = re.compile(r"\$\$.+?\$\$|(?<!\\)\$[^$\n]+?(?<!\\)\$|\\\[.+?\\\]|\\\(.+?\\\)|\\begin\{(\w+\*?)\}.+?\\end\{\1\}",
                  re.S)


def slide_type(cell):
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def projected(cells):
    """``(index, cell)`` of every cell shown on a slide."""
    return [(k, c) for k, c in enumerate(cells) if slide_type(c) not in HIDDEN]


def printed(cell):
    """The text a code cell's stored outputs print: streams, ``text/plain`` results, error messages."""
    texts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            texts.append(out.get("text", ""))
        elif out.get("output_type") in ("execute_result", "display_data"):
            texts.append(out.get("data", {}).get("text/plain", "") if "image/png" not in out.get("data", {})
                         and "application/vnd.jupyter.widget-view+json" not in out.get("data", {}) else "")
        elif out.get("output_type") == "error":
            texts.append(f"{out.get('ename', '')}: {out.get('evalue', '')}")
    return "\n".join(t if isinstance(t, str) else "".join(t) for t in texts)


def _snippet(text, start, end, width=30):
    return text[max(0, start - width):end + width].replace("\n", " ")


# --- the rules, one cell at a time --------------------------------------------------------------------------
def harness_text(cell):
    """Test-harness words (Markdown, code, printed output) and calls of ``running_under_test`` (code)."""
    found = []
    sources = [("markdown" if cell.cell_type == "markdown" else "code", cell.source)]
    if cell.cell_type == "code":
        sources.append(("output", printed(cell)))
    for where, text in sources:
        for m in HARNESS.finditer(text):
            found.append(f"{where} mentions {m.group(0)!r}: …{_snippet(text, m.start(), m.end())}…")
        if where == "code":
            for m in HARNESS_CALL.finditer(text):
                found.append(f"code calls running_under_test(): …{_snippet(text, m.start(), m.end())}…")
    return found


def combining_accents(cell):
    """Combining accents in code or printed output, or in Markdown outside math (after NFC)."""
    if cell.cell_type == "code":
        sources = [("code", cell.source), ("output", printed(cell))]
    else:
        sources = [("markdown", MATH.sub(" ", unicodedata.normalize("NFC", cell.source)))]
    found = []
    for where, text in sources:
        for m in COMBINING.finditer(text):
            found.append(f"{where} has U+{ord(m.group(0)):04X} after {text[max(0, m.start() - 1)]!r}: "
                         f"…{_snippet(text, m.start(), m.end())}…")
    return found


def negative_zeros(cell):
    """Negative zeros in a code cell's printed output."""
    if cell.cell_type != "code":
        return []
    text = printed(cell)
    return [f"output prints {m.group(0)!r}: …{_snippet(text, m.start(), m.end())}…"
            for m in NEGATIVE_ZERO.finditer(text)]


def html_backticks(cell):
    """Backticks inside a raw HTML block of a Markdown cell (CommonMark: shown as they are, not as code)."""
    if cell.cell_type != "markdown":
        return []
    from markdown_it import MarkdownIt
    found = []
    for token in MarkdownIt("commonmark").parse(cell.source):
        if token.type == "html_block" and "`" in token.content:
            line = next(l for l in token.content.splitlines() if "`" in l)
            found.append(f"a backtick in raw HTML (use <code>): {line.strip()[:80]!r}")
    return found


RULES = {"harness text": harness_text, "combining accent": combining_accents, "negative zero": negative_zeros,
         "backtick in HTML": html_backticks}
#: The Chinese edition's code cells are the English ones: only its Markdown is checked.
MARKDOWN_RULES = {"harness text", "combining accent", "backtick in HTML"}


def problems(path, rule, markdown_only=False):
    """``["cell k (slide_type): finding", ...]`` of one notebook under one rule."""
    cells = nbformat.read(path, as_version=4).cells
    found = []
    for k, cell in projected(cells):
        if markdown_only and cell.cell_type != "markdown":
            continue
        found += [f"cell {k} ({cell.get('id', '?')}, {slide_type(cell)}): {f}" for f in RULES[rule](cell)]
    return found


# --- the lessons ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_projected_cells_of_every_lesson(lesson, rule):
    found = problems(lesson, rule)
    assert not found, f"{lesson.name}: {rule} on a projected slide:\n" + "\n".join(found)


@pytest.mark.parametrize("rule", sorted(MARKDOWN_RULES))
@pytest.mark.parametrize("lesson", CHINESE, ids=lambda p: "zh-" + p.stem)
def test_projected_markdown_of_the_chinese_edition(lesson, rule):
    found = problems(lesson, rule, markdown_only=True)
    assert not found, f"zh/{lesson.name}: {rule} on a projected slide:\n" + "\n".join(found)


def test_there_are_lessons_and_a_chinese_edition():
    assert len(LESSONS) >= 13 and len(CHINESE) == len(LESSONS)


# --- each rule can fail: a small fake notebook ------------------------------------------------------------------
def _stream(text):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def _cell(kind, source, slide="-", outputs=()):
    cell = (nbformat.v4.new_markdown_cell(source) if kind == "markdown"
            else nbformat.v4.new_code_cell(source, outputs=list(outputs)))
    cell.metadata["slideshow"] = {"slide_type": slide}
    return cell


@pytest.fixture
def fake(tmp_path):
    """Write a notebook of the given cells; return its path."""
    def write(*cells):
        path = tmp_path / "99_fake.ipynb"
        nbformat.write(nbformat.v4.new_notebook(cells=list(cells)), path)
        return path
    return write


def test_harness_text_is_found_on_slides_only(fake):
    path = fake(_cell("markdown", "# A slide\n\nIn test mode the run is shorter.", "slide"),
                _cell("code", "N = 50 if running_under_test() else 400", "-"),
                _cell("code", "print(N)", "subslide", [_stream("400 samples (a full run; nbval uses 50)\n")]),
                _cell("markdown", "Talking point: `make test` runs this in test mode.", "notes"),
                _cell("code", "SAMPLES = 50 if running_under_test() else 400", "skip"),
                _cell("markdown", "测试模式下更短。", "fragment"))
    found = problems(path, "harness text")
    assert [f.split(" (")[0] for f in found] == ["cell 0", "cell 1", "cell 2", "cell 5"], found
    assert "'test mode'" in found[0] and "running_under_test" in found[1] and "'nbval'" in found[2]
    assert "测试模式" in found[3]
    clean = fake(_cell("markdown", "Tested on every sample robot, in a contest mode; the latest runs.", "slide"),
                 _cell("code", "samples_used = SAMPLES", "-", [_stream("400\n")]))
    assert problems(clean, "harness text") == []


def test_combining_accents_in_code_output_and_markdown_outside_math(fake):
    path = fake(_cell("code", "q\u0307 = qd", "slide", [_stream("θ\u0307i = 0.5\n")]),
                _cell("markdown", "The rate M-\u0307 2C is skew (the dot sits on the hyphen).", "-"),
                _cell("markdown", "Inside math it is fine: $\\dot M - 2C$, $q\u0307$; e\u0301 composes to é.", "-"),
                _cell("markdown", "q\u0307 in the notes is not projected.", "notes"))
    found = problems(path, "combining accent")
    assert len(found) == 3, found
    assert found[0].startswith("cell 0") and "code has U+0307" in found[0] and "output has U+0307" in found[1]
    assert found[2].startswith("cell 1") and "U+0307 after '-'" in found[2]


def test_negative_zeros_in_printed_output(fake):
    path = fake(_cell("code", "print(x)", "slide", [_stream("[ 0.     -0.      1.5   ]\nerr = -0.000 rad\n")]),
                _cell("code", "print(y)", "-", [_stream("-0.5 1e-05 2023-01-02 x-0 -0.0012 [-0.25]\n")]),
                _cell("code", "z", "-", [nbformat.v4.new_output("execute_result", data={"text/plain": "-0.0e+00"},
                                                               execution_count=1)]))
    found = problems(path, "negative zero")
    assert [f.split(" (")[0] for f in found] == ["cell 0", "cell 0", "cell 2"], found
    assert "'-0.'" in found[0] and "'-0.000'" in found[1] and "'-0.0e+00'" in found[2]


def test_backticks_inside_raw_html_blocks(fake):
    path = fake(_cell("markdown", "1. Why?\n   <details><summary>Answer</summary>\n   Use `rnea` here.\n"
                                  "   </details>", "slide"),
                _cell("markdown", "<details><summary>Answer</summary>\n\nA blank line ends the HTML block: `rnea` "
                                  "is code here.\n\n</details>", "-"),
                _cell("markdown", "Plain `code` and <code>rnea</code> in a paragraph.", "-"))
    found = problems(path, "backtick in HTML")
    assert len(found) == 1 and found[0].startswith("cell 0") and "`rnea`" in found[0], found
