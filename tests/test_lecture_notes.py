"""Every lesson's lecture plan gives a timed one-session path (issue 29; course/README.md, "The one-session path").

The first ``notes`` cell of a lesson (the lecture plan) holds, in this form::

    **One session (90 min).** 0–5 goals · 5–20 §1 … · 20–35 §2 … · … · 85–90 questions.
    *Skip in one session:* §5.3 (why it can go), §7 (…). *Slides:* use #/0–#/12, #/15; skip #/13–#/14.

* the parts, separated by `` · ``, are minute ranges ``a–b`` (en dash) from 0 to 90 without a gap or an overlap;
* every part between the first (goals) and the last (questions) names the § it covers, and every § named —
  there or in the skip list — is a numbered heading of the lesson (``## 5 …``, ``### 5.1 …``);
* "*Skip in one session:*" lists the § left out (or says "nothing"); a § is not both kept and skipped (a part of
  a kept §, "§5's centre of gravity", may be skipped);
* "*Slides:*" says which slides of the static deck (``#/h``) to use and which to skip (or "skip nothing"):
  together they are every slide of the deck after the title (``#/0`` may be left out), each once.

:func:`parse_path` reads the text; :func:`path_problems` checks it against the lesson; the unit tests at the end
run both on good and bad text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
LESSONS = sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb"))

MARK = "**One session (90 min).**"
SKIP_MARK = "*Skip in one session:*"
SLIDES_MARK = "*Slides:*"
SECTION = r"\d+(?:\.\d+)*"
#: A § reference: §5, §5.1, a range §5.1–5.2 or §1–§3.
SECTIONS = re.compile(rf"§\s?({SECTION})(?:\s?–\s?§?\s?({SECTION}))?")
PART = re.compile(r"^(\d+)\s*([–\-−—])\s*(\d+)\s+(\S.*)$", re.S)
SLIDE = re.compile(r"#/(\d+)(?:\s*([–\-])\s*#/(\d+))?")


@dataclass
class OneSession:
    """The parsed path: ``parts`` [(start, end, text, [§ numbers])], the skipped §, the slides to use and skip."""

    parts: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    skipped_whole: list = field(default_factory=list)   # not "§5's centre of gravity": a part of a kept §
    skip_nothing: bool = False
    use: list = field(default_factory=list)
    skip: list = field(default_factory=list)
    errors: list = field(default_factory=list)


def _expand_sections(text, whole=False):
    """Every § number a text names (a range §5.1–5.3 names its ends and the numbers between at the same depth).

    ``whole``: only the § named as a whole (not "§5's centre of gravity", a part of §5).
    """
    found = []
    for m in SECTIONS.finditer(text):
        a, b = m.group(1), m.group(2)
        if whole and re.match(r"['’]s\b", text[m.end():]):
            continue
        found.append(a)
        if b:
            pa, pb = a.split("."), b.split(".")
            if len(pa) == len(pb) and pa[:-1] == pb[:-1] and int(pa[-1]) < int(pb[-1]):
                found += [".".join(pa[:-1] + [str(k)]) for k in range(int(pa[-1]) + 1, int(pb[-1]))]
            found.append(b)
    return found


def _main_text(text):
    """``text`` without its parentheses: "§4 (§5 uses only its result)" skips §4, not §5."""
    while True:
        shorter = re.sub(r"\([^()]*\)", " ", text)
        if shorter == text:
            return text
        text = shorter


def _slides(text, errors, what):
    """Slide numbers ``h`` named in ``#/h`` and ``#/a–#/b`` (en dash) items."""
    out = []
    for m in SLIDE.finditer(text):
        a, dash, b = m.group(1), m.group(2), m.group(3)
        if b is None:
            out.append(int(a))
            continue
        if dash != "–":
            errors.append(f"{what}: the range #/{a}{dash}#/{b} needs an en dash (–)")
        if int(b) < int(a):
            errors.append(f"{what}: the range #/{a}–#/{b} runs backwards")
        out += list(range(int(a), int(b) + 1))
    return out


def parse_path(notes):
    """The :class:`OneSession` in a lecture plan's text (``errors`` says what could not be read)."""
    path = OneSession()
    text = " ".join(notes.split())                     # lines joined: the path may wrap anywhere
    start = text.find(MARK)
    if start < 0:
        path.errors.append(f"no {MARK!r} in the lecture plan (the first notes cell)")
        return path
    rest = text[start + len(MARK):]
    end = rest.find(SKIP_MARK)
    if end < 0:
        path.errors.append(f"no {SKIP_MARK!r} after the path")
        end = rest.find(SLIDES_MARK) if SLIDES_MARK in rest else len(rest)
    body = rest[:end]
    first = re.search(r"\d+\s*[–\-−—]\s*\d+\s", body)
    if first is None:
        path.errors.append("no minute range (a–b) in the path")
        return path
    for k, chunk in enumerate(p.strip() for p in body[first.start():].split("·")):
        m = PART.match(chunk)
        if m is None:
            path.errors.append(f"part {k + 1} {chunk[:40]!r} does not start with a minute range a–b")
            continue
        a, dash, b, label = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4).strip()
        if dash != "–":
            path.errors.append(f"part {a}{dash}{b}: the range needs an en dash (–), not {dash!r}")
        path.parts.append((a, b, label, _expand_sections(_main_text(label))))
    after = rest[end + len(SKIP_MARK):] if SKIP_MARK in rest else rest[end:]
    slides_at = after.find(SLIDES_MARK)
    skip_text = after[:slides_at] if slides_at >= 0 else after
    path.skip_nothing = bool(re.match(r"\s*(nothing|none)\b", skip_text, re.I))
    path.skipped = _expand_sections(_main_text(skip_text))
    path.skipped_whole = _expand_sections(_main_text(skip_text), whole=True)
    if not path.skip_nothing and not path.skipped:
        path.errors.append(f"{SKIP_MARK} names no § (write the § left out, or 'nothing')")
    if slides_at < 0:
        path.errors.append(f"no {SLIDES_MARK!r} list")
        return path
    slides_text = after[slides_at + len(SLIDES_MARK):]
    use = re.search(r"\buse\b(.*?)(?:;|\bskip\b|$)", slides_text)
    skip = re.search(r"\bskip\b(.*?)(?:\.\s|\.$|$)", slides_text)
    if use is None:
        path.errors.append(f"{SLIDES_MARK} says no 'use #/…'")
    else:
        path.use = _slides(use.group(1), path.errors, "use")
    if skip is None:
        path.errors.append(f"{SLIDES_MARK} says no 'skip #/…' (or 'skip nothing')")
    elif not re.match(r"\s*(nothing|none)\b", skip.group(1), re.I):
        path.skip = _slides(skip.group(1), path.errors, "skip")
        if not path.skip:
            path.errors.append(f"{SLIDES_MARK} 'skip' names no slide (write 'skip nothing')")
    return path


def path_problems(path, headings, n_slides):
    """What is wrong with a parsed path, given the lesson's numbered headings and its deck's number of slides."""
    found = list(path.errors)
    if path.parts:
        if path.parts[0][0] != 0:
            found.append(f"the path starts at minute {path.parts[0][0]}, not 0")
        if path.parts[-1][1] != 90:
            found.append(f"the path ends at minute {path.parts[-1][1]}, not 90")
        for (a0, b0, *_), (a1, b1, *_) in zip(path.parts, path.parts[1:]):
            if a1 != b0:
                found.append(f"{'a gap' if a1 > b0 else 'an overlap'} between {a0}–{b0} and {a1}–{b1}")
        for a, b, label, sections in path.parts:
            if b <= a:
                found.append(f"the part {a}–{b} has no minutes")
        for a, b, label, sections in path.parts[1:-1]:
            if not sections:
                found.append(f"the part {a}–{b} {label[:40]!r} names no §")
    kept = {s for *_, sections in path.parts for s in sections}
    for s in sorted(kept | set(path.skipped)):
        if s not in headings:
            found.append(f"§{s} is not a numbered heading of the lesson (headings: {', '.join(sorted(headings, key=_key))})")
    for s in sorted(kept & set(path.skipped_whole), key=_key):
        found.append(f"§{s} is both kept and skipped")
    use, skip = path.use, path.skip
    for h in sorted(set(use) & set(skip)):
        found.append(f"slide #/{h} is both used and skipped")
    for h in sorted({h for h in use + skip if h >= n_slides}):
        found.append(f"slide #/{h} is not in the deck (#/0–#/{n_slides - 1})")
    missing = sorted(set(range(1, n_slides)) - set(use) - set(skip))
    if (use or skip) and missing:
        found.append(f"slides neither used nor skipped: {', '.join(f'#/{h}' for h in missing)}")
    return found


def _key(section):
    return [int(x) for x in section.split(".")]


def headings(cells):
    """The section numbers of a lesson's numbered headings (``## 5 …`` → "5", ``### 5.1 …`` → "5.1"; not the title)."""
    found = set()
    for cell in cells:
        if cell.cell_type == "markdown":
            found |= set(re.findall(rf"^#{{2,6}}\s+({SECTION})\.?\s", cell.source, re.M))
    return found


def deck_slides(cells):
    """How many horizontal slides (``#/h``) the static deck of these cells has."""
    kinds = [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in cells]
    shown = [k for k in kinds if k not in ("skip", "notes")]
    return sum(k == "slide" for k in shown) + (1 if shown and shown[0] != "slide" else 0)


def lecture_plan(cells):
    return next((c.source for c in cells if c.metadata.get("slideshow", {}).get("slide_type") == "notes"), "")


# --- the lessons ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lecture_plan_has_a_timed_one_session_path(lesson):
    cells = nbformat.read(lesson, as_version=4).cells
    path = parse_path(lecture_plan(cells))
    found = path_problems(path, headings(cells), deck_slides(cells))
    assert not found, f"{lesson.name}, the one-session path in the first notes cell:\n" + "\n".join(found)


# --- the parser on good and bad text ---------------------------------------------------------------------------
GOOD = """**Lecture plan (two sessions of 90 min).** *Session 1:* 0–45 §1–§2, 45–90 §3. *Session 2:* …

**One session (90 min).** 0–5 goals · 5–20 §1 gravity compensation · 20–35 §2 computed torque (board:
(11.4)) · 35–50 §3 the regressor · 50–70 §5 identification, §5.1–5.2 WLS and the loop · 70–85 §6 the
budget · 85–90 questions.
*Skip in one session:* §4 (the base parameters: §5 uses only the result), §5.3 (friction). *Slides:* use
#/0–#/4, #/6–#/8; skip #/5, #/9.
Hand out the handout."""
HEADINGS = {"1", "2", "3", "4", "5", "5.1", "5.2", "5.3", "6"}


def test_parser_reads_a_good_path():
    path = parse_path(GOOD)
    assert path.errors == []
    assert [(a, b) for a, b, *_ in path.parts] == [(0, 5), (5, 20), (20, 35), (35, 50), (50, 70), (70, 85), (85, 90)]
    assert path.parts[4][3] == ["5", "5.1", "5.2"] and path.parts[0][3] == []
    assert path.skipped == ["4", "5.3"] and not path.skip_nothing
    assert path.use == [0, 1, 2, 3, 4, 6, 7, 8] and path.skip == [5, 9]
    assert path_problems(path, HEADINGS, 10) == []


def test_a_part_of_a_kept_section_may_be_skipped():
    path = parse_path(GOOD.replace("§5.3 (friction)", "§5's friction table (§5.3 keeps it)"))
    assert path.skipped == ["4", "5"] and path.skipped_whole == ["4"]
    assert path_problems(path, HEADINGS, 10) == []


def test_parser_accepts_nothing_skipped_and_a_path_over_several_lines():
    text = ("**One session (90 min).**\n0–10 goals · 10–80 §1–§3 everything\n· 80–90 summary.\n"
            "*Skip in one session:* nothing. *Slides:* use #/0–#/5; skip nothing.")
    path = parse_path(text)
    assert path.skip_nothing and path.skip == [] and path.use == [0, 1, 2, 3, 4, 5]
    assert path.parts[1][3] == ["1", "2", "3"]
    assert path_problems(path, {"1", "2", "3"}, 6) == []


@pytest.mark.parametrize("bad, expected", [
    (GOOD.replace("35–50 §3", "35–48 §3"), "a gap between 35–48 and 50–70"),
    (GOOD.replace("50–70 §5", "45–70 §5"), "an overlap between 35–50 and 45–70"),
    (GOOD.replace("85–90 questions", "85–95 questions"), "ends at minute 95, not 90"),
    (GOOD.replace("0–5 goals", "2–5 goals"), "starts at minute 2, not 0"),
    (GOOD.replace("20–35 §2", "20-35 §2"), "needs an en dash"),
    (GOOD.replace("35–50 §3 the regressor", "35–50 the regressor"), "the part 35–50 'the regressor' names no §"),
    (GOOD.replace("70–85 §6", "70–85 §7"), "§7 is not a numbered heading"),
    (GOOD.replace("§5.3 (friction)", "§5.1 (weights)"), "§5.1 is both kept and skipped"),
    (GOOD.replace("*Skip in one session:* §4 (the base parameters: §5 uses only the result), §5.3 (friction).", ""),
     "no '*Skip in one session:*'"),
    (GOOD.replace("*Slides:* use", "Use"), "no '*Slides:*' list"),
    (GOOD.replace("skip #/5, #/9", "skip #/5"), "slides neither used nor skipped: #/9"),
    (GOOD.replace("skip #/5, #/9", "skip #/4–#/5, #/9"), "slide #/4 is both used and skipped"),
    (GOOD.replace("skip #/5, #/9", "skip #/5, #/9, #/12"), "slide #/12 is not in the deck"),
    (GOOD.replace("**One session (90 min).**", "**One session.**"), "no '**One session (90 min).**'"),
])
def test_parser_rejects_bad_paths(bad, expected):
    found = path_problems(parse_path(bad), HEADINGS, 10)
    assert any(expected in f for f in found), found


def test_headings_and_deck_slides_of_a_small_notebook():
    md = nbformat.v4.new_markdown_cell
    cells = [md("# 99 · Title"), md("## 1 First\n\ntext"), md("notes"), md("### 1.1 Sub"), md("## 2. Second"),
             md("skipped")]
    for cell, kind in zip(cells, ["slide", "slide", "notes", "subslide", "slide", "skip"]):
        cell.metadata["slideshow"] = {"slide_type": kind}
    assert headings(cells) == {"1", "1.1", "2"}
    assert deck_slides(cells) == 3 and lecture_plan(cells) == "notes"
