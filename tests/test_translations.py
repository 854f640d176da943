"""The Chinese edition (中文版) is in step with the English notebooks and handouts (``tools/translations.py``).

For every lesson, exercise and handout: a catalogue whose every Markdown cell has a current translation (none missing,
none stale), a Chinese notebook (handout) that is exactly what ``make translations`` builds from the English one and
the catalogue; a Chinese notebook has the English notebook's code cells, cell ids, tags, metadata and stored outputs, and the
glossary's Chinese terms wherever the English cell writes them.
"""
from __future__ import annotations

import json
import subprocess
import sys

import polib
import pytest

from tools import translations as tr

ENGLISH = tr.english_notebooks()
SOURCES = tr.english_sources()              # the notebooks and the handouts


def _id(path):
    return f"{path.parent.name}/{path.name}"


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("english", SOURCES, ids=_id)
def test_the_chinese_edition_is_in_step(english):
    assert tr.problems(english) == []


@pytest.mark.parametrize("english", ENGLISH, ids=_id)
def test_the_chinese_notebook_has_the_english_code_ids_tags_and_outputs(english):
    en, zh = _load(english), _load(tr.chinese_path(english))
    assert [c["id"] for c in zh["cells"]] == [c["id"] for c in en["cells"]]
    for c_en, c_zh in zip(en["cells"], zh["cells"]):
        assert c_zh["cell_type"] == c_en["cell_type"]
        assert c_zh["metadata"] == c_en["metadata"], c_en["id"]              # tags, slide types, lessonlib ids
        if c_en["cell_type"] == "code":
            assert c_zh == c_en, c_en["id"]                                  # source, outputs, execution count
    meta = dict(zh["metadata"])
    assert meta.pop(tr.META_KEY) == {**en["metadata"].get(tr.META_KEY, {}), "language": tr.LANG}
    assert meta == {k: v for k, v in en["metadata"].items() if k != tr.META_KEY}


def _english(cells):
    return {"cells": [{"cell_type": "markdown", "id": cid, "metadata": {}, "source": [text]} for cid, text in cells]
            + [{"cell_type": "code", "id": "c", "metadata": {}, "source": ["x = 1"], "outputs": [],
                "execution_count": 1}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_a_changed_english_cell_marks_its_translation_stale_and_keeps_it_out():
    po = tr.updated_catalogue(_english([("a", "Mass matrix (质量矩阵)"), ("b", "Gone")]), polib.POFile())
    po[0].msgstr, po[1].msgstr = "质量矩阵（mass matrix）", "已删除"
    changed = _english([("a", "The mass matrix (质量矩阵)"), ("n", "New")])
    po = tr.updated_catalogue(changed, po)
    by_id = {e.msgctxt: e for e in po}
    assert by_id["a"].fuzzy and by_id["a"].previous_msgid == "Mass matrix (质量矩阵)"
    assert by_id["n"].msgstr == "" and by_id["b"].obsolete
    assert tr.stale_cells(changed, po) == ["a", "n"]
    zh = tr.translated(changed, po)
    assert ["".join(c["source"]) for c in zh["cells"][:2]] == ["The mass matrix (质量矩阵)", "New"]   # English kept
    by_id["a"].msgstr, by_id["n"].msgstr = "质量矩阵（mass matrix）如下", "新的"
    by_id["a"].flags.remove("fuzzy")
    assert tr.stale_cells(changed, po) == []
    assert zh["cells"][2] == changed["cells"][2]


def test_a_dropped_glossary_term_is_reported():
    terms = tr.glossary_terms()
    assert {"质量矩阵", "空间惯量", "递推牛顿–欧拉算法"} <= terms
    assert tr.glossary_misses("The mass matrix (质量矩阵) is SPD", "惯性矩阵是对称正定的", terms) == ["质量矩阵"]
    assert tr.glossary_misses("The mass matrix (质量矩阵) is SPD", "质量矩阵是对称正定的", terms) == []


def _submission(exercise_path, solution, student):
    from lessonlib.grading.checks.authoring import answers_of, filled
    answers = answers_of(solution)
    answers.pop(next(iter(answers)))                     # the first answer cell holds the student id
    return filled(exercise_path, answers, student_id=student)


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["03_inertia", "12_constrained"])
def test_a_chinese_submission_grades_exactly_like_the_english_one(stem, tmp_path):
    """The Chinese exercise, solved, graded against the (English) solution: the same checks, points and statuses,
    and the feedback's fixed parts in Chinese; a blank Chinese exercise scores 0 like the English one."""
    import nbformat
    root = tr.REPO
    english, solution = root / "exercises" / f"{stem}.ipynb", root / "solutions" / f"{stem}.ipynb"
    zh_path = tmp_path / "zh_blank.ipynb"
    tr.write_notebook(tr.translated(tr.read_notebook(english), tr.load_catalogue(english)), zh_path)
    nbformat.write(_submission(english, solution, "s-en"), str(tmp_path / "en_solved.ipynb"))
    nbformat.write(_submission(zh_path, solution, "s-zh"), str(tmp_path / "zh_solved.ipynb"))
    run = subprocess.run(
        [sys.executable, "-m", "lessonlib.grading.cli", "--reference", str(solution), str(tmp_path / "en_solved.ipynb"),
         str(tmp_path / "zh_solved.ipynb"), str(zh_path), "--json", str(tmp_path / "g.json"),
         "--feedback", str(tmp_path / "feedback"), "-j", "2", "-q"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    grades = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    en, zh, blank = grades["en_solved.ipynb"], grades["zh_solved.ipynb"], grades["zh_blank.ipynb"]
    strip = lambda g: {k: (v["points"], v["max_points"], v["status"]) for k, v in g["checks"].items()}
    assert strip(zh) == strip(en) and zh["total"] == zh["max"] == en["max"] > 0
    assert blank["total"] == 0 and set(blank["checks"]) == set(en["checks"])
    feedback_zh = (tmp_path / "feedback" / "zh_blank.md").read_text(encoding="utf-8")
    feedback_en = (tmp_path / "feedback" / "en_solved.md").read_text(encoding="utf-8")
    assert feedback_zh.startswith("# 反馈：zh_blank.ipynb") and "| 检查 | 分数 | 状态 |" in feedback_zh
    assert "答案仍是练习给出的空函数" in feedback_zh                 # not-attempted, explained in Chinese
    assert feedback_en.startswith("# Feedback: en_solved.ipynb") and "**Score: " in feedback_en


@pytest.mark.parametrize("lang, folder, slides", [("zh", "course/zh", "zh"), ("zh_CN.UTF-8", "course/zh", "zh"),
                                                   ("en_US.UTF-8", "course", "en"), ("C.UTF-8", "course", "en")])
def test_make_lab_and_slides_follow_lang(lang, folder, slides):
    """``make lab LANG=zh`` opens the Chinese edition; the locale's own LANG (en_US.UTF-8, C.UTF-8) the English."""
    out = subprocess.run(["make", "-n", "lab", "slides", f"LANG={lang}"], cwd=tr.REPO, capture_output=True,
                         text=True, check=True).stdout
    assert f"--notebook-dir={folder} " in out and f"tools.slides --lang {slides}" in out


@pytest.mark.parametrize("metadata", [{"lessonlib": {"language": "zh "}}, {"lessonlib": {"language": ["zh"]}},
                                      {"lessonlib": "zh"}, {"lessonlib": {"language": "../../zh"}}, [], "zh", None,
                                      {"lessonlib": {"language": "zh" * 10**5}}])
def test_a_forged_language_mark_gets_english_feedback_and_harms_nobody(metadata, tmp_path):
    """Only the exact mark ``"zh"`` selects Chinese; anything else a student writes into the notebook's metadata is
    English feedback — never an error, never a file name or another student's language."""
    from lessonlib.grading.notebook import submission_language
    from lessonlib.grading.report import reports, results
    assert submission_language({"cells": [], "metadata": metadata}) == "en"
    forged, classmate = results.SubmissionResult("forged.ipynb", "x"), results.SubmissionResult("zh.ipynb", "y")
    forged.language = repr(metadata)[:100]                # even a result carrying the raw value
    classmate.language = submission_language({"metadata": {"lessonlib": {"language": "zh"}}})
    for r in (forged, classmate):
        r.checks = {"c": results.CheckResult("c", 0, 1, "not-attempted")}
    paths = reports.write_feedback([forged, classmate], tmp_path)
    texts = {p.rsplit("/", 1)[-1]: open(p, encoding="utf-8").read() for p in paths}
    assert texts["forged.md"].startswith("# Feedback: forged.ipynb") and "still the exercise's stub" in texts["forged.md"]
    assert texts["zh.md"].startswith("# 反馈：zh.ipynb") and sorted(p.name for p in tmp_path.iterdir()) == ["forged.md",
                                                                                                        "zh.md"]
