"""What a batch writes: the per-check CSV, the results JSON, the feedback files, the terminal summary."""
from __future__ import annotations

import csv
import hashlib
import json
import os
import re

from .results import STATUSES, STATUSES_ZH, inert, shown

CSV_COLUMNS = ("submission", "check", "points", "max_points", "status")


def write_csv(results, path):
    """The gradebook: one row per submission × check, columns :data:`CSV_COLUMNS`."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(CSV_COLUMNS)
        for r in results:
            for c in r.checks.values():
                writer.writerow([inert(r.submission), c.check, c.points, c.max_points, c.status])


def write_json(results, path):
    """``{submission file name: {"total", "max", "checks": {id: {points, max_points, status, message}}, ...}}``."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({r.submission: r.as_json() for r in results}, fh, indent=1, ensure_ascii=False)


#: The fixed parts of the feedback, in the submission's language (``SubmissionResult.language``); the per-check
#: messages and the notes stay in English.
WORDS = {
    "en": {"Feedback": "Feedback", "Preview": "Preview", "score": "Score", "table": "| check | points | status |",
           "preview": "> **Preview** — computed on your own machine; your grade is what your instructor's grader gives.",
           "notes": "Notes", "statuses": STATUSES, ":": ": "},
    "zh": {"Feedback": "反馈", "Preview": "预览", "score": "得分", "table": "| 检查 | 分数 | 状态 |",
           "preview": "> **预览** —— 在你自己的电脑上算出；你的成绩以教师的评分程序给出的为准。",
           "notes": "附注（英文）", "statuses": STATUSES_ZH, ":": "："},
}


def feedback_markdown(result, *, title="", preview=False):
    """The student's feedback: a score table, then each unpassed check's message (fixed parts in :data:`WORDS`)."""
    words = WORDS.get(getattr(result, "language", "en"), WORDS["en"])
    lines = [f"# {words.get(title or 'Feedback', title)}{words[':']}{result.submission}", ""]
    if preview:
        lines += [words["preview"], ""]
    lines += [f"**{words['score']}{words[':']}{result.total} / {result.max}**", "", words["table"], "|---|---:|---|"]
    lines += [f"| `{c.check}` | {c.points} / {c.max_points} | {c.status} |" for c in result.checks.values()]
    lines.append("")
    for c in result.checks.values():
        if c.status != "passed":
            lines += [f"## `{c.check}` — {c.status}", "", f"*{words['statuses'].get(c.status, '')}*", ""]
            if c.message:
                lines += ["```text", c.message.replace("```", "'''"), "```", ""]
    if result.notes:
        lines += [f"## {words['notes']}", ""] + [f"- {n}" for n in result.notes] + [""]
    return "\n".join(lines)


def feedback_names(submissions):
    """``{submission name: file name}`` of the feedback files, never two alike.

    The name is the submission's with every character but ``A-Za-z0-9._#-`` replaced; a name that
    had to change, or that another already took (compared without case, as some file systems do),
    gets a short hash of the submission's own name: ``h1~honest.ipynb`` → ``h1_honest-3f2a9c1b.md``
    beside ``h1_honest.md``.
    """
    names, taken = {}, set()
    for sub in sorted(submissions, key=lambda n: (re.sub(r"[^A-Za-z0-9._#-]", "_", n) != n, n)):
        stem = re.sub(r"[^A-Za-z0-9._#-]", "_", sub.removesuffix(".ipynb"))[:120]
        name, n = stem, 0
        if stem != sub.removesuffix(".ipynb"):
            name = f"{stem}-{hashlib.sha256(sub.encode()).hexdigest()[:8]}"
        while name.lower() in taken:
            n += 1
            name = f"{stem}-{hashlib.sha256(f'{sub}#{n}'.encode()).hexdigest()[:8]}"
        taken.add(name.lower())
        names[sub] = f"{name}.md"
    return names


def write_feedback(results, directory, *, title=""):
    """One Markdown file per submission (:func:`feedback_names`: two submissions, two files, always)."""
    os.makedirs(directory, exist_ok=True)
    names = feedback_names([r.submission for r in results])
    paths = []
    for r in results:
        p = os.path.join(directory, names[r.submission])
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(feedback_markdown(r, title=title))
        paths.append(p)
    return paths


def summary_table(results):
    """A plain-text table of totals (for the terminal)."""
    width = max([len(shown(r.submission)) for r in results] + [10])
    rows = [f"{'submission':<{width}}  score   statuses"]
    for r in results:
        counts = {}
        for c in r.checks.values():
            counts[c.status] = counts.get(c.status, 0) + 1
        rows.append(f"{shown(r.submission):<{width}}  {r.total:>2}/{r.max:<3}  "
                    + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return "\n".join(rows)
