"""The Chinese edition (中文版): gettext catalogues of the English notebooks, and the notebooks built from them.

The English notebooks are the source. Each has one catalogue (a standard ``.po`` file, readable by any
translator's tool) beside its Chinese twin::

    course/03_rigid_body_inertia.ipynb     →  course/zh/03_rigid_body_inertia.po  →  course/zh/03_rigid_body_inertia.ipynb
    exercises/03_inertia.ipynb             →  exercises/zh/03_inertia.po          →  exercises/zh/03_inertia.ipynb

One entry per Markdown cell: ``msgctxt`` is the cell's id, ``msgid`` the English text, ``msgstr`` the
Chinese. Code cells are not translated: the Chinese notebook has the English notebook's code cells, cell
ids, tags, metadata and stored outputs, byte for byte, so nothing is re-executed.

``python -m tools.translations update [NOTEBOOK ...]`` (``make translations`` runs it before ``build``)
brings each catalogue in step with its English notebook, the way ``msgmerge`` does:

* a new Markdown cell gets an entry with an empty ``msgstr`` (untranslated);
* a cell whose English text changed keeps its old translation, marked ``fuzzy`` (stale), with the old
  English as ``#| msgid`` (``previous_msgid``) so a translator sees what changed;
* an entry whose cell is gone becomes obsolete (``#~``);
* a change confined to the points column of an exercise's table of parts (what ``lessonlib-author sync``
  does after a change of points) is carried into the translation's table, which stays current.

``python -m tools.translations build [NOTEBOOK ...]`` writes the Chinese notebooks. A Markdown cell whose
translation is missing or stale keeps its English text there, and ``check`` (and ``tests/test_translations.py``)
report it. ``python -m tools.translations check`` lists every notebook that is out of date, every cell without a
current translation, and exits non-zero if there is any.

>>> english = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["Mass (质量)"]}],
...            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
>>> po = updated_catalogue(english, polib.POFile())
>>> (po[0].msgctxt, po[0].msgid, po[0].msgstr)
('a', 'Mass (质量)', '')
>>> po[0].msgstr = "质量（mass）"
>>> translated(english, po)["cells"][0]["source"]
['质量（mass）']
>>> english["cells"][0]["source"] = ["Mass (质量) of a body"]
>>> po = updated_catalogue(english, po)
>>> (po[0].fuzzy, po[0].previous_msgid, stale_cells(english, po))
(True, 'Mass (质量)', ['a'])
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

import polib

from lessonlib.grading.checks.authoring import table_of_parts, with_points

REPO = Path(__file__).resolve().parents[1]
LANG = "zh"
#: The English notebooks that have a Chinese edition: every lesson and every exercise.
SOURCES = ("course", "exercises")
#: The key of the notebook metadata that says which language a notebook is in.
META_KEY = "lessonlib"


def english_notebooks():
    """Every English lesson and exercise notebook (``course/NN_*.ipynb``, ``exercises/NN_*.ipynb``)."""
    return [p for folder in SOURCES for p in sorted((REPO / folder).glob("[0-9][0-9]_*.ipynb"))]


def english_handouts():
    """Every one-page handout (``course/handouts/NN_*.md``)."""
    return sorted((REPO / "course" / "handouts").glob("[0-9][0-9]_*.md"))


def english_sources():
    """Everything the Chinese edition translates: the notebooks, then the handouts."""
    return english_notebooks() + english_handouts()


def _is_handout(english):
    return Path(english).suffix == ".md"


def catalogue_path(english):
    """``course/zh/NN_name.po`` for ``course/NN_name.ipynb``; ``course/zh/handouts/NN_name.po`` for a handout."""
    english = Path(english)
    if _is_handout(english):
        return english.parents[1] / LANG / "handouts" / english.with_suffix(".po").name
    return english.parent / LANG / english.with_suffix(".po").name


def chinese_path(english):
    """``course/zh/NN_name.ipynb`` for ``course/NN_name.ipynb``; ``course/zh/handouts/NN_name.md`` for a handout."""
    english = Path(english)
    if _is_handout(english):
        return english.parents[1] / LANG / "handouts" / english.name
    return english.parent / LANG / english.name


def handout_as_notebook(text):
    r"""A handout as a notebook of Markdown cells, one per section (split before each ``## ``), so that it is
    translated, kept in step and rebuilt exactly like a notebook; the cell ids are ``s1``, ``s2``, …

    >>> [c["source"] for c in handout_as_notebook("# T\nintro\n\n## A\na\n")["cells"]]
    [['# T\nintro\n\n'], ['## A\na\n']]
    """
    sections = re.split(r"\n(?=## )", text)
    cells = [{"cell_type": "markdown", "id": f"s{k}", "metadata": {},
              "source": [part + ("\n" if k < len(sections) else "")]} for k, part in enumerate(sections, start=1)]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def notebook_as_handout(nb):
    """The handout text of :func:`handout_as_notebook`'s notebook (its sections joined back)."""
    return "\n".join("".join(c["source"]).removesuffix("\n") for c in nb["cells"]) + "\n"


def read_notebook(path):
    """A notebook, or a handout read as one (:func:`handout_as_notebook`)."""
    if _is_handout(path):
        return handout_as_notebook(Path(path).read_text(encoding="utf-8"))
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_notebook(nb, path):
    """The notebook as Jupyter writes it (one-space indent, non-ASCII kept, a final newline)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def markdown_cells(nb):
    """``{cell id: English text}`` of the notebook's Markdown cells, in order."""
    return {c["id"]: "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"}


def _header(po, english_name):
    po.metadata = {"Project-Id-Version": f"lessonlib course: {english_name}", "Language": LANG,
                   "MIME-Version": "1.0", "Content-Type": "text/plain; charset=UTF-8",
                   "Content-Transfer-Encoding": "8bit", **{k: v for k, v in po.metadata.items()
                                                           if k in ("PO-Revision-Date", "Last-Translator")}}


def updated_catalogue(english_nb, po, name="notebook"):
    """The catalogue ``po`` brought in step with ``english_nb`` (new, changed, removed cells; module docstring)."""
    cells = markdown_cells(english_nb)
    old = {e.msgctxt: e for e in po if not e.obsolete}
    new = polib.POFile(wrapwidth=0)
    _header(new, name)
    new.metadata.update({k: v for k, v in po.metadata.items() if k not in new.metadata})
    for cell_id, text in cells.items():
        entry = old.pop(cell_id, None)
        if entry is None:
            entry = polib.POEntry(msgctxt=cell_id, msgid=text, msgstr="")
        elif entry.msgid != text and _points_only(entry, text):
            entry.msgstr = with_points(entry.msgstr, table_of_parts(text)[1], header=None)
            entry.msgid = text
        elif entry.msgid != text:
            if entry.msgstr:
                if "fuzzy" not in entry.flags:
                    entry.flags.append("fuzzy")
                entry.previous_msgid = entry.previous_msgid or entry.msgid
            entry.msgid = text
        new.append(entry)
    for entry in old.values():                             # cells that are gone
        entry.obsolete = True
        new.append(entry)
    return new


def _points_only(entry, text):
    """The English changed only in its table of parts' points column (``lessonlib-author sync`` after a change of
    points), and the translation has a table of as many rows: the new points carry over, no translator needed."""
    rows, points = table_of_parts(text)
    if not rows or len(table_of_parts(entry.msgstr, None)[0]) != len(rows) or len(table_of_parts(entry.msgid)[0]) != len(rows):
        return False
    return with_points(entry.msgid, points) == text and not entry.fuzzy


def glossary_terms(text=None):
    """The Chinese terms of ``course/GLOSSARY.md``'s term tables (the 中文 column; ``A / B`` and ``A, B`` give two)."""
    text = (REPO / "course" / "GLOSSARY.md").read_text(encoding="utf-8") if text is None else text
    terms, in_table = set(), False
    for line in text.splitlines():
        if line.startswith("| English | 中文"):
            in_table = True
        elif not line.startswith("|"):
            in_table = False
        elif in_table and not line.startswith("|---"):
            cell = line.split("|")[2]
            for term in re.split(r"[/,，、;；]", re.sub(r"\(.*?\)|（.*?）|「.*?」", "", cell)):
                if re.search(r"[\u4e00-\u9fff]", term):
                    terms.add(term.strip())
    return terms


def glossary_misses(english_text, chinese_text, terms):
    """The glossary's Chinese terms that the English text uses (beside its English words) and the translation drops."""
    return sorted(t for t in terms if t in english_text and t not in chinese_text)


def current(entry):
    """True when the entry has a translation of the English text it now holds (not empty, not stale)."""
    return bool(entry.msgstr) and not entry.fuzzy and not entry.obsolete


def stale_cells(english_nb, po):
    """The ids of the Markdown cells without a current translation (missing, empty or fuzzy)."""
    entries = {e.msgctxt: e for e in po if not e.obsolete}
    return [cid for cid, text in markdown_cells(english_nb).items()
            if cid not in entries or entries[cid].msgid != text or not current(entries[cid])]


_LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)\s]+)\)")


def retarget_links(text):
    """Relative Markdown links of an English notebook, as seen from its Chinese twin one folder down.

    A lesson or exercise notebook links to its Chinese twin (``05_rnea.ipynb`` stays, ``../exercises/X`` becomes
    ``../../exercises/zh/X``); anything else (solutions, ``GLOSSARY.md``, handouts) to the English file.

    >>> retarget_links("[a](05_rnea.ipynb) [b](../exercises/05_rnea.ipynb) [c](../solutions/05_rnea.ipynb) [d](GLOSSARY.md)")
    '[a](05_rnea.ipynb) [b](../../exercises/zh/05_rnea.ipynb) [c](../../solutions/05_rnea.ipynb) [d](../GLOSSARY.md)'
    """
    def target(match):
        t = match.group(1)
        if re.fullmatch(r"[0-9][0-9]_[\w-]+\.ipynb(#.*)?", t):
            return match.group(0)
        if t.startswith("../exercises/") and re.match(r"[0-9][0-9]_", t[len("../exercises/"):]):
            return f"](../../exercises/{LANG}/{t[len('../exercises/'):]})"
        return f"](../{t})"
    return _LINK.sub(target, text)


def translated(english_nb, po):
    """The Chinese notebook: ``english_nb`` with each Markdown cell's current translation (else its English)."""
    nb = copy.deepcopy(english_nb)
    entries = {e.msgctxt: e for e in po if current(e)}
    for cell in nb["cells"]:
        entry = entries.get(cell.get("id")) if cell["cell_type"] == "markdown" else None
        if entry is not None and entry.msgid == "".join(cell["source"]):
            ends = entry.msgid[len(entry.msgid.rstrip("\n")):]       # the English cell's final newlines (a blank line
            text = retarget_links(entry.msgstr).rstrip("\n") + ends    # between handout sections), whatever gettext kept
            cell["source"] = text.splitlines(keepends=True)
    nb.setdefault("metadata", {}).setdefault(META_KEY, {})["language"] = LANG
    return nb


def load_catalogue(english):
    path = catalogue_path(english)
    return polib.pofile(str(path), wrapwidth=0) if path.exists() else polib.POFile(wrapwidth=0)


def update(english):
    """Bring the catalogue of one English notebook in step; returns ``(new, changed, removed)`` counts."""
    nb, po = read_notebook(english), load_catalogue(english)
    before = {e.msgctxt: e.msgid for e in po if not e.obsolete}
    po = updated_catalogue(nb, po, english.name)
    after = {e.msgctxt: e.msgid for e in po if not e.obsolete}
    path = catalogue_path(english)
    path.parent.mkdir(parents=True, exist_ok=True)
    po.save(str(path))
    return (len(after.keys() - before.keys()), sum(before.get(k, v) != v for k, v in after.items() if k in before),
            len(before.keys() - after.keys()))


def chinese_text(english):
    """What :func:`build` writes for ``english``: the Chinese notebook's JSON text, or the Chinese handout."""
    nb = translated(read_notebook(english), load_catalogue(english))
    if _is_handout(english):
        return notebook_as_handout(nb)
    return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"


def build(english):
    """Write the Chinese notebook (or handout) of one English source; returns the ids of its untranslated cells."""
    path = chinese_path(english)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(chinese_text(english), encoding="utf-8")
    return stale_cells(read_notebook(english), load_catalogue(english))


def problems(english):
    """What is wrong with one notebook's Chinese edition (empty list: in step)."""
    out = []
    if not catalogue_path(english).exists():
        return [f"{catalogue_path(english).relative_to(REPO)}: no catalogue"]
    nb, po = read_notebook(english), load_catalogue(english)
    stale = stale_cells(nb, po)
    if stale:
        out.append(f"{catalogue_path(english).relative_to(REPO)}: {len(stale)} Markdown cell(s) without a current "
                   f"translation: {', '.join(stale[:8])}{' …' if len(stale) > 8 else ''}")
    terms = glossary_terms()
    for e in po:
        misses = glossary_misses(e.msgid, e.msgstr, terms) if current(e) else []
        if misses:
            out.append(f"{catalogue_path(english).relative_to(REPO)}: cell {e.msgctxt} drops the glossary's "
                       f"{', '.join(misses)} (the English cell writes them)")
    zh = chinese_path(english)
    if not zh.exists():
        out.append(f"{zh.relative_to(REPO)}: missing (make translations)")
    elif zh.read_text(encoding="utf-8") != chinese_text(english):
        out.append(f"{zh.relative_to(REPO)}: out of date with its English notebook or catalogue (make translations)")
    return out


def _selected(paths):
    if not paths:
        return english_sources()
    return [Path(p).resolve() for p in paths]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.translations", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("update", "build", "check"),
                        help="update: catalogues from the English notebooks; build: the Chinese notebooks; "
                             "check: report what is out of step")
    parser.add_argument("notebooks", nargs="*",
                        help="English notebooks or handouts (default: every lesson, exercise and handout)")
    args = parser.parse_args(argv)
    notebooks = _selected(args.notebooks)
    if args.command == "update":
        for english in notebooks:
            new, changed, removed = update(english)
            print(f"{catalogue_path(english).relative_to(REPO)}: {new} new, {changed} changed (fuzzy), "
                  f"{removed} removed")
        return 0
    if args.command == "build":
        for english in notebooks:
            missing = build(english)
            note = f"; {len(missing)} cell(s) still in English" if missing else ""
            print(f"{chinese_path(english).relative_to(REPO)}{note}")
        return 0
    found = [p for english in notebooks for p in problems(english)]
    print("\n".join(found) if found else f"{len(notebooks)} notebook(s): the Chinese edition is in step")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
