"""The per-student gradebook and the class report (issue 14, items 1 and 3).

Most tests build results by hand (no kernels); one runs the real ``lessonlib-grade`` on a class laid
out as an LMS download (one folder per student) and reads what it wrote.
"""
from __future__ import annotations

import csv
import html
import os
import pathlib
import re
import subprocess
import sys

import nbformat
import pytest

from lessonlib.grading.report import classreport, gradebook, reports
from lessonlib.grading.report.results import CheckResult, SubmissionResult

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECKS = [("a", 2), ("b", 3), ("c", 5)]


def result(path, earned, *, student_id=None, statuses=None, messages=None, seconds=1.0, error=""):
    """A SubmissionResult with ``earned[k]`` points on check k (status passed iff full points)."""
    statuses = statuses or {}
    messages = messages or {}
    checks = {}
    for (cid, pts), got in zip(CHECKS, earned):
        status = statuses.get(cid, "passed" if got == pts else "failed")
        checks[cid] = CheckResult(cid, got, pts, status, messages.get(cid, ""))
    sid = student_id if student_id is not None else gradebook.file_student_id(path)
    return SubmissionResult(os.path.basename(path), str(path), sid, checks, error=error, seconds=seconds)


def touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    return path


# --- the gradebook ------------------------------------------------------------------------------

def test_gradebook_columns_and_values(tmp_path):
    a = touch(tmp_path / "alice" / "05_rnea.ipynb")
    b = touch(tmp_path / "bob" / "05_rnea.ipynb")
    rs = [result(a, [2, 0, 5]), result(b, [2, 3, 5])]
    header, rows = gradebook.gradebook_rows(rs, roots=[tmp_path])
    assert header == ["student_id", "submission", "total", "max", "a", "b", "c", "needs_review"]
    assert rows[0] == ["alice", str(a), 7, 10, 2, 0, 5, ""]
    assert rows[1] == ["bob", str(b), 10, 10, 2, 3, 5, ""]


def test_student_id_folder_beats_literal_beats_file_name(tmp_path):
    """The LMS chose the folder; the student typed the literal: the folder wins, a disagreement is flagged."""
    lit = touch(tmp_path / "dora" / "05_rnea.ipynb")
    folder = touch(tmp_path / "Erik Berg_4711_assignsubmission_file_" / "05_rnea.ipynb")
    shared1 = touch(tmp_path / "group" / "fay_05.ipynb")          # two in one folder: not a per-student folder
    shared2 = touch(tmp_path / "group" / "gus_05.ipynb")
    flat = touch(tmp_path / "hal_05_rnea.ipynb")
    rs = [result(lit, [2, 3, 5], student_id="s1234567"), result(folder, [2, 3, 5]),
          result(shared1, [2, 3, 5], student_id="s7654321"), result(shared2, [2, 3, 5]), result(flat, [2, 3, 5])]
    rs[3].id_source = rs[4].id_source = "file"
    assert gradebook.identities(rs, roots=[tmp_path]) == [
        ("dora", "the notebook says student_id 's1234567', its folder 'dora' (the folder's id is used)"),
        ("Erik Berg_4711_assignsubmission_file_", ""), ("s7654321", ""),
        ("gus_05", "student_id not filled in: the file name is used"),
        ("hal_05_rnea", "student_id not filled in: the file name is used")]
    header, rows = gradebook.gradebook_rows(rs, roots=[tmp_path])
    review = [row[header.index("needs_review")] for row in rows]
    assert review[0] == "the notebook says student_id 's1234567', its folder 'dora' (the folder's id is used)"
    assert review[1] == review[2] == "" and review[3].startswith("student_id not filled in")


def test_no_gradebook_cell_is_a_formula_and_no_terminal_line_is_forged(tmp_path):
    """OWASP's CSV injection list (= + - @ tab CR), and names with newlines on the terminal."""
    subs = [touch(tmp_path / name) for name in ("-1+1.ipynb", "=HYPERLINK(1).ipynb", "@SUM(A1).ipynb",
                                                 "ok\nalice.ipynb  12 of 12 passed 11.ipynb")]
    rs = [result(p, [0, 0, 0], student_id=sid) for p, sid in zip(subs, ["-1+1", "=1+2", "+1", "\tx"])]
    header, rows = gradebook.gradebook_rows(rs)
    cells = [c for row in rows for c in row if isinstance(c, str)]
    assert cells and not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert rows[0][0] == "'-1+1" and rows[1][0] == "'=1+2"
    reports.write_csv(rs, tmp_path / "checks.csv")
    with open(tmp_path / "checks.csv", newline="") as fh:
        assert not [c for row in csv.reader(fh) for c in row if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    table = reports.summary_table(rs)
    assert len(table.splitlines()) == 1 + len(rs)                       # one line per submission, no more
    assert "ok\\nalice.ipynb  12 of 12 passed 11.ipynb" in table


def test_feedback_files_never_collide(tmp_path):
    names = ["h1_honest.ipynb", "h1~honest.ipynb", "h1 honest.ipynb", "H1_HONEST.ipynb", "a/b.ipynb", "a_b.ipynb"]
    files = reports.feedback_names(names)
    assert files["a_b.ipynb"] == "a_b.md" and files["h1~honest.ipynb"].startswith("h1_honest-")   # clean ones stay
    assert len({f.lower() for f in files.values()}) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9._#-]+\.md", f) for f in files.values())
    # a student who names a file after the hashed name of a classmate's still gets a file of their own
    taken = files["h1~honest.ipynb"].removesuffix(".md") + ".ipynb"
    again = reports.feedback_names(["h1~honest.ipynb", taken])
    assert len(set(again.values())) == 2
    rs = [result(tmp_path / n.replace("/", "_"), [2, 3, 5]) for n in names]
    for r, n in zip(rs, names):
        r.submission = n
    written = reports.write_feedback(rs, tmp_path / "feedback")
    assert len(set(written)) == len(names) == len(os.listdir(tmp_path / "feedback"))


def test_files_given_one_by_one_use_their_file_names(tmp_path):
    a = touch(tmp_path / "x" / "05_rnea.ipynb")
    rs = [result(a, [2, 3, 5])]
    assert gradebook.student_ids(rs, roots=[a]) == ["05_rnea"]


def test_duplicate_ids_count_in_the_report_summary(tmp_path):
    rs = [result(touch(tmp_path / "one.ipynb"), [2, 3, 5], student_id="s1"),
          result(touch(tmp_path / "two.ipynb"), [2, 3, 5], student_id="s1")]
    assert classreport.score_summary(rs, roots=[tmp_path])["review"] == 2
    assert classreport.summary_text(rs, roots=[tmp_path]).splitlines()[2].startswith("needs review: 2")


def test_duplicate_ids_are_both_kept_and_flagged(tmp_path):
    a = touch(tmp_path / "one.ipynb")
    b = touch(tmp_path / "two.ipynb")
    rs = [result(a, [2, 3, 5], student_id="s1"), result(b, [0, 3, 5], student_id="s1")]
    _, rows = gradebook.gradebook_rows(rs, roots=[tmp_path])
    assert [r[0] for r in rows] == ["s1", "s1"]
    assert rows[0][-1] == f"student id 's1' also used by {b}"
    assert rows[1][-1] == f"student id 's1' also used by {a}"


def test_needs_review_names_the_checks_and_their_reasons(tmp_path):
    a = touch(tmp_path / "a.ipynb")
    r = result(a, [0, 0, 5], statuses={"a": "needs-review", "b": "unverified"})
    _, rows = gradebook.gradebook_rows([r], roots=[tmp_path])
    assert rows[0][-1] == ("a: points withheld for review; "
                           "b: verdict printed without the judge (forged output?)")


def test_gradebook_file_round_trips_through_csv(tmp_path):
    a = touch(tmp_path / "李雷" / "05_rnea.ipynb")                  # a folder name in Chinese stays as it is
    b = touch(tmp_path / "bob" / "05_rnea.ipynb")
    out = tmp_path / "gradebook.csv"
    assert gradebook.write_gradebook([result(a, [2, 3, 0]), result(b, [0, 0, 0])], out, roots=[tmp_path]) == 2
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["student_id"] for r in rows] == ["李雷", "bob"]
    assert [r["total"] for r in rows] == ["5", "0"]
    assert rows[0]["c"] == "0" and rows[0]["b"] == "3" and rows[1]["needs_review"] == ""
    assert not (tmp_path / "gradebook.csv.tmp").exists()


# --- the class report ---------------------------------------------------------------------------

def _class(tmp_path):
    rs = []
    for k, earned in enumerate([[2, 3, 5], [2, 3, 0], [2, 0, 0], [0, 0, 0], [2, 3, 5], [2, 3, 5]]):
        p = touch(tmp_path / f"s{k}" / "05_rnea.ipynb")
        msgs = {cid: f"tau: expected [{k}.5 1.{k}] got [0.0 2.{k}]" for (cid, pts), got in zip(CHECKS, earned)
                if got != pts}
        rs.append(result(p, earned, messages=msgs, seconds=1.0 + k))
    return rs


def test_item_analysis_numbers(tmp_path):
    items = classreport.item_analysis(_class(tmp_path))
    assert items["a"]["passed"] == 5 and items["a"]["pass_rate"] == pytest.approx(5 / 6)
    assert items["c"]["mean"] == pytest.approx(15 / 6)
    # one kind of mistake on different random inputs is one message key
    assert items["c"]["messages"][0][:2] == ("tau: expected [# #] got [# #]", 3)
    assert classreport.message_key("✗ [c] title\nrnea(<Model n=3>, 0.25) raised ValueError: bad 3\n"
                                   '  File "/tmp/x.py", line 9') == "rnea(<Model n=#>, #) raised ValueError: bad #"
    assert (classreport.message_key("✗ [c] t\nyour inward pass seems to use X_i instead of X_iᵀ\ntau: expected 1")
            != classreport.message_key("✗ [c] t\ngravity has the wrong sign\ntau: expected 2"))
    # points on c rise with the rest of the score: a discriminating item
    assert items["c"]["item_rest"] > 0.5


def test_item_rest_is_none_for_a_check_everybody_passed(tmp_path):
    rs = [result(touch(tmp_path / f"{k}.ipynb"), [2, k % 2 * 3, 5]) for k in range(4)]
    assert classreport.item_analysis(rs)["a"]["item_rest"] is None


def test_report_is_written_with_figures_and_escapes_student_text(tmp_path):
    rs = _class(tmp_path / "class")
    evil = '<script>alert("x")</script>'
    rs[3].checks["a"].message = f"ValueError: {evil}"
    rs[3].checks["a"].status = "needs-review"
    out = tmp_path / "report"
    path = classreport.write_report(rs, out, title="Class report — 05_rnea.ipynb", roots=[tmp_path / "class"],
                                    protection="Landlock ABI 7", wall_seconds=12.0)
    page = pathlib.Path(path).read_text(encoding="utf-8")
    assert evil not in page and html.escape(evil) in page
    for png in ("scores.png", "pass_rates.png", "timing.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.count("data:image/png;base64,") == 3
    assert "<th>need review</th><td>1</td>" in page
    assert "Needs review (1)" in page and "a: points withheld for review" in page
    assert "Landlock ABI 7" in page and "12 s (2.00 s per submission)" in page


def test_report_refuses_an_empty_class(tmp_path):
    with pytest.raises(ValueError, match="no results"):
        classreport.write_report([], tmp_path)


def test_summary_text(tmp_path):
    text = classreport.summary_text(_class(tmp_path), roots=[tmp_path], wall_seconds=30.0, protection="landlock")
    lines = text.splitlines()
    assert lines[0] == "6 submissions · score mean 6.2 / 10, median 7.5, range 0–10 · full marks 3, zero 1"
    assert lines[1] == "lowest pass rates: c 50%, b 67%, a 83%"
    assert lines[2] == "needs review: 0"
    assert lines[3] == "time per submission: median 3.5 s, max 6.0 s; wall time 30 s (5.00 s per submission)"
    assert lines[4] == "protection: landlock"


# --- the real command, on an LMS-style download --------------------------------------------------

@pytest.mark.slow
def test_cli_gradebook_and_report_on_folder_per_student_layout(tmp_path):
    solution = ROOT / "solutions" / "00_tour.ipynb"
    exercise = ROOT / "exercises" / "00_tour.ipynb"
    subs = tmp_path / "download"
    for name, src in (("Ann Lee_1001_assignsubmission_file_", solution), ("Bo Chen_1002_assignsubmission_file_", exercise)):
        (subs / name).mkdir(parents=True)
        nb = nbformat.read(str(src), as_version=4)
        for cell in nb.cells:                                   # no literal id: the folder names the student
            if cell.metadata.get("lessonlib", {}).get("id") == "answer-student-id":
                cell.source = 'student_id = "your-id-here"'
        nbformat.write(nb, str(subs / name / "00_tour.ipynb"))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "lessonlib.grading.cli", "--reference", str(solution), str(subs), "-j", "2", "-q",
           "--gradebook", str(out / "gradebook.csv"), "--report", str(out / "report")]
    out.mkdir()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(rows) == {"Ann Lee_1001_assignsubmission_file_", "Bo Chen_1002_assignsubmission_file_"}
    ann, bo = rows["Ann Lee_1001_assignsubmission_file_"], rows["Bo Chen_1002_assignsubmission_file_"]
    assert ann["total"] == ann["max"] and int(ann["max"]) > 0
    assert bo["total"] == "0"
    assert (out / "report" / "index.html").is_file()
    summary = proc.stdout.splitlines()
    assert summary[-4].startswith(f"2 submissions · score mean {int(ann['max']) / 2:.1f} / {ann['max']}")
    assert summary[-2] == "needs review: 0"
    assert summary[-1].startswith("time per submission: median")
