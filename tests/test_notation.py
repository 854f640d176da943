"""One notation for the course: what course/NOTATION.md promises and a machine can check.

* The table has one row per symbol (a symbol with two rows would have two meanings), and every row
  names the lesson that introduces it.
* Every lesson opens with a box of the symbols it introduces: each is a row of the table whose first
  lesson is that lesson, and every such row is in the box.
* Where a lesson follows a source that writes other symbols, it carries a map of that source's
  symbols (a table headed ``| [LG] | course |``, ``| Featherstone | course |``, …); every pair of such
  a map is a pair of NOTATION.md's map for that source, and every lesson NOTATION.md lists for a source
  has one.
* Numbering words: formulas and prose count joints and bodies from 1 (the base is body 0); nothing
  says "counted from 0", and no formula writes a joint quantity with index 0.
* Retired spellings (a source's letters, or the course's old ones) appear only inside the maps.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTATION = REPO / "course" / "NOTATION.md"
LESSONS = sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb"))
EXERCISES = sorted((REPO / "exercises").glob("*.ipynb"))
SOLUTIONS = sorted((REPO / "solutions").glob("*.ipynb"))
HANDOUTS = sorted((REPO / "course" / "handouts").glob("*.md"))
BOX_MARK = "**Symbols introduced in this lesson**"
MATH = re.compile(r"\$([^$]+)\$")


def _norm(symbol):
    return re.sub(r"\s+", "", symbol)


def _rows(text):
    """Table rows of ``text`` as lists of stripped cells (the separator rows left out)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|") and not re.fullmatch(r"\|[\s|:-]+\|", line):
            out.append([c.strip() for c in line[1:-1].split("|")])
    return out


def notation_table(text=None):
    """``{symbol: (meaning, shape, frame, first lesson)}`` from the table of NOTATION.md."""
    text = NOTATION.read_text(encoding="utf-8") if text is None else text
    body = text.split("## The table", 1)[1].split("\n## ", 1)[0]
    table, seen = {}, []
    for cells in _rows(body)[1:]:                                   # the header row first
        if len(cells) != 5:
            raise ValueError(f"NOTATION.md: a row needs 5 cells, got {cells}")
        if cells[0].startswith("**"):                               # a group heading
            continue
        symbols = MATH.findall(cells[0])
        if len(symbols) != 1 or MATH.sub("", cells[0]).strip():
            raise ValueError(f"NOTATION.md: one $symbol$ per row, got {cells[0]!r}")
        seen.append(_norm(symbols[0]))
        table[_norm(symbols[0])] = tuple(cells[1:])
    return table, seen


def source_maps(text):
    """``{source: {(source symbol, course symbol), …}}`` of the map tables in ``text``.

    A map is a table whose header row is ``| source | course |`` (or that twice, side by side)."""
    maps = {}
    for block in re.split(r"\n(?!\|)", text):
        rows = _rows(block)
        if not rows or len(rows[0]) < 2 or rows[0][1] != "course":
            continue
        source = rows[0][0]
        for cells in rows[1:]:
            for k in range(0, len(cells) - 1, 3):
                if cells[k] or cells[k + 1]:
                    maps.setdefault(source, set()).add((_norm(cells[k]), _norm(cells[k + 1])))
    return maps


def _without_maps(text):
    """``text`` with every source-map table blanked out."""
    kept = []
    for block in re.split(r"(\n(?!\|))", text):
        rows = _rows(block)
        kept.append("" if rows and len(rows[0]) >= 2 and rows[0][1] == "course" else block)
    return "".join(kept)


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _lesson(path):
    return path.name[:2]


# --- the table --------------------------------------------------------------------------------------

def test_every_symbol_has_one_row_and_a_first_lesson():
    table, seen = notation_table()
    twice = sorted({s for s in seen if seen.count(s) > 1})
    assert not twice, f"symbols with two rows (two meanings) in NOTATION.md: {twice}"
    lessons = {_lesson(p) for p in LESSONS}
    bad = {s: row[3] for s, row in table.items() if row[3] not in lessons}
    assert not bad, f"rows whose first lesson is not a lesson: {bad}"
    assert len(table) > 100


def test_the_table_parser_can_fail():
    doubled = ("## The table\n\n| symbol | meaning | type | frame | first |\n|---|---|---|---|---|\n"
               "| $A$ | spatial acceleration | 6 | — | 03 |\n| $A$ | mass matrix | n×n | — | 06 |\n")
    assert notation_table(doubled)[1] == ["A", "A"]
    with pytest.raises(ValueError, match="one \\$symbol\\$"):
        notation_table("## The table\n\n| s | m | t | f | l |\n|---|---|---|---|---|\n| $A$, $B$ | x | 6 | — | 03 |\n")


# --- the box of each lesson ----------------------------------------------------------------------------

def box_symbols(path):
    boxes = [c for c in _cells(path) if c["cell_type"] == "markdown" and BOX_MARK in _source(c)]
    assert len(boxes) == 1, f"{path.name}: {len(boxes)} cells with {BOX_MARK!r}, expected one"
    text = _source(boxes[0]).split(BOX_MARK, 1)[1]
    table = re.search(r"(?:^\|.*\n?)+", text, re.M)                 # the first table after the mark
    symbols = []
    for cells in _rows(table.group() if table else "")[1:]:
        for k in range(0, len(cells), 2):                        # symbol | meaning | symbol | meaning
            symbols += [_norm(s) for s in MATH.findall(cells[k])]
    return symbols


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_the_lesson_box_lists_its_new_symbols(path):
    table, _ = notation_table()
    here = _lesson(path)
    listed = box_symbols(path)
    unknown = [s for s in listed if s not in table]
    assert not unknown, f"{path.name}: symbols in the box but not in NOTATION.md: {unknown}"
    elsewhere = {s: table[s][3] for s in listed if table[s][3] != here}
    assert not elsewhere, f"{path.name}: the box lists symbols NOTATION.md says another lesson introduces: {elsewhere}"
    missing = [s for s, row in table.items() if row[3] == here and s not in listed]
    assert not missing, f"{path.name}: NOTATION.md says this lesson introduces {missing}, its box does not list them"


# --- the maps of the sources' symbols --------------------------------------------------------------------

def _lesson_lists():
    """``{source: {lesson, …}}`` from NOTATION.md's headings ``**[WJ]** (lessons 00, 02–05)``."""
    out = {}
    text = NOTATION.read_text(encoding="utf-8")
    for source, lessons in re.findall(r"^\*\*(.+?)\*\* \(lessons? ([0-9, –]+)\)", text, re.M):
        got = set()
        for part in lessons.split(","):
            a, _, b = part.strip().partition("–")
            got |= {f"{k:02d}" for k in range(int(a), int(b or a) + 1)}
        out[source] = got
    return out


def test_notation_names_the_lessons_of_every_map():
    lists = _lesson_lists()
    maps = source_maps(NOTATION.read_text(encoding="utf-8"))
    assert {"[WJ]", "[LG]", "[SWC16]", "[RNE05]", "[DB4]"} <= set(lists)
    assert set(maps) == set(lists), (sorted(maps), sorted(lists))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_the_lesson_maps_the_sources_it_follows(path):
    central = source_maps(NOTATION.read_text(encoding="utf-8"))
    text = "\n\n".join(_source(c) for c in _cells(path) if c["cell_type"] == "markdown")
    here = source_maps(text)
    wrong = [(src, pair) for src, pairs in here.items() for pair in pairs
             if src not in central or pair not in central[src]]
    assert not wrong, f"{path.name}: map rows that NOTATION.md's maps do not have: {wrong}"
    needed = [src for src, lessons in _lesson_lists().items() if _lesson(path) in lessons]
    missing = [src for src in needed if src not in here]
    assert not missing, f"{path.name}: follows {missing} (NOTATION.md) but has no map of its symbols"


# --- numbering words --------------------------------------------------------------------------------------

#: Words that say arrays count from 0 where the course counts joints from 1.
ZERO_WORDS = re.compile(r"counted from 0|counting from 0|count from 0|0-based|zero-based|\bjoint ?0\b", re.I)
#: A joint quantity with index 0 in a formula (q_0, \dot q_0, \tau_0, M_{0…}).
ZERO_INDEX = re.compile(r"(?<![\\A-Za-z])(?:q|\\tau|M)_\{?0(?!\.)")


def _markdown_texts():
    for path in LESSONS + EXERCISES + SOLUTIONS:
        for k, cell in enumerate(_cells(path)):
            if cell["cell_type"] == "markdown":
                yield f"{path.parent.name}/{path.name} cell {k}", _source(cell)
    for path in HANDOUTS + [REPO / "README.md", REPO / "course" / "README.md"]:
        yield str(path.relative_to(REPO)), path.read_text(encoding="utf-8")


def numbering_hits(text):
    found = [m.group() for m in ZERO_WORDS.finditer(text)]
    for m in MATH.finditer(text):
        found += [z.group() for z in ZERO_INDEX.finditer(m.group(1))]
    return found


def test_the_numbering_check_can_fail():
    assert numbering_hits("rows and columns counted from 0") == ["counted from 0"]
    assert numbering_hits(r"$\theta_3 = q_0 + q_1$ and $M_{00}$") == ["q_0", "M_{0"]
    assert numbering_hits(r"$q_{j0}$, $T_{0,i}$, $A_0$, body 0 is the base") == []


def test_everything_counts_joints_from_one():
    found = [f"{where}: {hit!r}" for where, text in _markdown_texts() for hit in numbering_hits(text)]
    assert not found, "joints and bodies count from 1 in prose and formulas (NOTATION.md, rule 1):\n" + "\n".join(found)


# --- retired spellings ------------------------------------------------------------------------------------

#: ``pattern -> what to write`` — spellings of the sources (or of earlier versions of the course) that
#: the course has replaced; a map table may show them, nothing else may.
RETIRED = {
    r"\\hat\s*\\xi|\\widehat": r"\xi^\wedge (the 4×4 matrix of a twist)",
    r"\\mathcal\s*\{?N\}?": r"\mathcal I ([LG]'s spatial inertia)",
    r"\\mathcal\s*\{?M\}?": r"\mathcal I V ([LG]'s momentum) or M",
    r"\\mathcal\s*\{?W\}?": "F ([LG]'s wrench)",
    r"\\mathcal\s*\{?[QP]\}?": r"F^{0,\mathrm{self}}_i, F^0_i ([LG]'s \mathcal Q, \mathcal P)",
    r"\\mathbf\s*\{?g\}?": r"g_{\mathrm{phys}} (the gravity vector)",
    r"(?<!\\mathcal\{)(?<!\\mathcal )\bI\^\{?[Aac]\b": r"\mathcal I^A, \mathcal I^a, \mathcal I^c",
    r"\[n_?i?;\s*f_?i?\]": r"[\mu; f] (the moment of a wrench is \mu)",
    r"A_\{k,k-1\}|\bt_k\b|\\dot t_k": r"\Phi_{k,k-1}, V_{w,k} ([SWC16]'s letters)",
    r"(?<!\\mathbb 1)\[k\s*<\s*l\]": r"\mathbb 1[k<l] (an indicator, not a bracket)",
    r"\\hat\s*z_i|\\hat\s*\{z\}_i": "u_i (the unit joint axis)",
}


def retired_hits(text):
    text = _without_maps(text)
    found = []
    for m in MATH.finditer(text):
        for pattern, instead in RETIRED.items():
            found += [f"{hit.group()!r} → write {instead}" for hit in re.finditer(pattern, m.group(1))]
    return found


def test_the_retired_check_can_fail_and_spares_a_map():
    assert retired_hits(r"the matrix $\hat\xi$ and $\mathcal N_i$") != []
    spared = "| [LG] | course |\n|---|---|\n| $\\mathcal N$ | $\\mathcal I$ |\n\nthen $\\mathcal I$"
    assert retired_hits(spared) == []


def test_no_retired_spelling_outside_the_maps():
    found = [f"{where}: {hit}" for where, text in _markdown_texts() for hit in retired_hits(text)]
    found += [f"course/NOTATION.md: {hit}" for hit in retired_hits(NOTATION.read_text(encoding="utf-8"))]
    assert not found, "spellings the course has replaced (course/NOTATION.md):\n" + "\n".join(found)
