"""The per-student gradebook: one row per submission, ready for a spreadsheet or an LMS import.

Columns, in this order::

    student_id, submission, total, max, <one column per check id: the points it earned>, needs_review

* ``student_id`` — when the submissions are laid out one folder per student (an LMS download:
  ``alice/05_rnea.ipynb``, ``bob/05_rnea.ipynb``), the name of the student's folder, which the
  learning system chose (a notebook whose ``student_id`` says otherwise is flagged for review);
  else the literal ``student_id = "..."`` of the submission's first answer cell; else the file name
  without ``.ipynb`` (flagged: the student never filled in the id).
* ``submission`` — the notebook's path as the grader found it.
* ``needs_review`` — empty, or the reasons an instructor should look before the grade is final
  (points withheld for review, a forged or mismatched verdict, the grader's own failure, two
  submissions with the same student id — both rows are kept —, an id the notebook and its folder
  disagree on, or one never filled in).

Every text cell that a spreadsheet would read as a formula (starting with ``= + - @``, a tab or a
carriage return) starts with a ``'``, as spreadsheets expect.

The file is UTF-8 CSV with a header row: it opens as it is in a spreadsheet and imports as it is
into an LMS gradebook (see the grading README for Moodle's "Import grades from CSV" mapping).
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

from .results import file_student_id, inert

#: The columns before and after the per-check columns.
LEADING_COLUMNS = ("student_id", "submission", "total", "max")
TRAILING_COLUMNS = ("needs_review",)
#: Check statuses whose points are not final until an instructor has looked (status → reason).
REVIEW_STATUSES = {
    "needs-review": "points withheld for review",
    "unverified": "verdict printed without the judge (forged output?)",
    "output-mismatch": "the check's output differed although the judge recorded a pass",
    "checker-error": "the checker failed (please report it)",
    "grader-error": "the grader failed on this submission",
    "unreadable": "the file could not be read as a notebook",
}


def _control_free(text):
    return "".join(ch for ch in text if ch.isprintable()).strip()


def _root_of(path, roots):
    """The directory among ``roots`` that holds ``path`` (the deepest), or None."""
    real = os.path.realpath(path)
    best = None
    for root in roots:
        r = os.path.realpath(root)
        if os.path.isdir(r) and (real == r or real.startswith(r.rstrip(os.sep) + os.sep)):
            if best is None or len(r) > len(best):
                best = r
    return best


def identities(results, roots=()):
    """``[(student_id, note)]`` of each result, in order, by the rule in the module docstring.

    ``roots``: the files and directories given to the grader (to tell a student's folder from the
    directory that holds the whole class). The LMS folder is authoritative: the learning system
    put the file there, the student typed the literal. ``note`` is empty, or why an instructor should
    look: the notebook's ``student_id`` disagrees with its folder, or it was never filled in.
    """
    folders = []
    for r in results:
        root = _root_of(r.path, roots)
        rel = Path(os.path.relpath(os.path.realpath(r.path), root)).parts if root else ()
        folders.append(rel[0] if len(rel) >= 2 else None)
    per_folder = {}
    for f in folders:
        if f is not None:
            per_folder[f] = per_folder.get(f, 0) + 1
    out = []
    for r, folder in zip(results, folders):
        from_file = file_student_id(r.path)
        literal = r.student_id if r.student_id and r.student_id != from_file else ""
        folder = _control_free(folder) if folder is not None and per_folder[folder] == 1 else ""
        if folder:
            note = (f"the notebook says student_id {literal!r}, its folder {folder!r} (the folder's id is used)"
                    if literal and literal != folder else "")
            out.append((folder, note))
        elif literal:
            out.append((literal, ""))
        else:
            out.append((from_file, "student_id not filled in: the file name is used" if r.id_source == "file" else ""))
    return out


def student_ids(results, roots=()):
    """The ``student_id`` of each result (a list, in order): :func:`identities` without the notes."""
    return [sid for sid, _ in identities(results, roots)]


def review_reasons(result):
    """Why ``result`` needs an instructor's look (a list of short reasons; empty if none)."""
    reasons = []
    for c in result.checks.values():
        if c.status in REVIEW_STATUSES:
            why = c.message.removeprefix("points withheld until an instructor reviews: ") if c.status == "needs-review" \
                else ""
            reasons.append(f"{c.check}: {REVIEW_STATUSES[c.status]}" + (f" ({_control_free(why)[:200]})" if why else ""))
    if result.error and not any(c.status in ("grader-error", "unreadable") for c in result.checks.values()):
        reasons.append(f"grader: {result.error.splitlines()[0][:200]}")
    return reasons


def check_columns(results):
    """The check ids, in the order of the reference (the first result that has checks)."""
    columns = []
    for r in results:
        for cid in r.checks:
            if cid not in columns:
                columns.append(cid)
    return columns


def gradebook_rows(results, roots=()):
    """``(header, rows)`` of the gradebook; each row a list of plain values."""
    checks = check_columns(results)
    found = identities(results, roots)
    ids = [sid for sid, _ in found]
    owners = {}
    for sid, r in zip(ids, results):
        owners.setdefault(sid, []).append(r.path)
    header = [*LEADING_COLUMNS, *checks, *TRAILING_COLUMNS]
    rows = []
    for sid, r in zip(ids, results):
        reasons = review_reasons(r) + [note for note in [found[len(rows)][1]] if note]
        others = [p for p in owners[sid] if p != r.path]
        if others:
            reasons.append(f"student id {sid!r} also used by {', '.join(others)}")
        points = [r.checks[c].points if c in r.checks else "" for c in checks]
        rows.append([inert(sid), inert(r.path), r.total, r.max, *points, inert("; ".join(reasons))])
    return header, rows


def write_gradebook(results, path, roots=()):
    """Write the gradebook CSV (see the module docstring); returns the number of rows."""
    header, rows = gradebook_rows(results, roots)
    tmp = f"{path}.tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    os.replace(tmp, path)
    return len(rows)


__all__ = ["LEADING_COLUMNS", "TRAILING_COLUMNS", "REVIEW_STATUSES", "identities", "student_ids", "review_reasons",
           "gradebook_rows", "write_gradebook"]
