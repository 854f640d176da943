"""Gradescope's ``results.json`` from the grader's results (the autograder bundle's last step).

:func:`results_json` turns one :class:`~.results.SubmissionResult` into the file Gradescope's
autograder harness reads from ``/autograder/results/results.json``
(gradescope-autograders.readthedocs.io, "Autograder Specifications")::

    {"score": 10.0, "execution_time": 7, "output": "...", "output_format": "text",
     "test_output_format": "text", "test_name_format": "text", "stdout_visibility": "hidden",
     "extra_data": {...}, "tests": [{"name": "[rnea-static]", "score": 1.0, "max_score": 1.0,
                                      "status": "passed", "output": "...", "visibility": "visible"}, ...]}

One test per check; its output is what the Markdown feedback says about that check (the status, its
explanation from :data:`~.results.STATUSES`, in Chinese for a submission of the Chinese edition, then
the check's message). Every text is ``"text"``: Gradescope renders it as it is, never as HTML or
Markdown (a student id or a message holds what a submission wrote). What only the instructor should
see (the flags, the grader's own error) goes to ``extra_data`` and to standard output, which Gradescope
shows the instructor only (``stdout_visibility`` hidden).

Command line (the bundle's ``run_autograder`` runs it after ``lessonlib-grade --json``)::

    python -m lessonlib.grading.report.gradescope RESULTS.json OUT.json [--ignored NAME ...] [--several NAME ...]

``RESULTS.json`` is the grader's ``--json`` output (:func:`~.reports.write_json`, keyed by submission
file name): no submission gives a score of 0 that says no notebook was submitted; one is converted;
more than one is refused (score 0, the names listed): Gradescope takes one notebook per submission.
A missing or unreadable ``RESULTS.json`` (the grader failed) gives a score of 0 that tells the student
to tell the instructor.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from .reports import WORDS
from .results import CheckResult, SubmissionResult

#: Gradescope's visibility values (tests, the top level, standard output).
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
#: Gradescope's formats for an output or a name; "text" shows it as it is.
FORMATS = ("text", "html", "simple_format", "md", "ansi")

#: The top-level lines that the Markdown feedback does not have, in the submission's language.
LINES = {
    "en": {"student": "Student id: {}", "walls": "Walls around your code while it was graded: {}",
           "review": "Needs review: {} point(s) wait for your instructor's review ({}); "
                     "the score here does not include them yet."},
    "zh": {"student": "学号：{}", "walls": "评分时你的代码所处的防护（英文）：{}",
           "review": "待复核：有 {} 分须等教师复核（{}），此处的得分尚未计入。"},
}
#: What a student reads when there is no grade to give (always English: no notebook says otherwise).
NO_NOTEBOOK = ("No notebook was submitted: no .ipynb file was found in your submission. "
               "Upload your exercise notebook and submit again.")
SEVERAL = ("{} notebooks were submitted ({}), and the grader cannot tell which one to grade: nothing was graded. "
           "Submit only your exercise notebook, under its own file name.")
FAILED = ("The autograder failed on this submission, so it could not be graded. This is not a verdict on "
          "your notebook: please tell your instructor.")
IGNORED = "Graded {}; ignored the other notebooks of your submission: {}."


def check_output(check, language="en"):
    """What the Markdown feedback says about ``check``: its status and the status's explanation, then its message."""
    words = WORDS.get(language, WORDS["en"])
    explanation = words["statuses"].get(check.status, "")
    head = f"{check.status}{words[':']}{explanation}" if explanation else check.status
    return f"{head}\n\n{check.message}" if check.message else head


def check_name(check):
    """``[check-id] title``, or ``[check-id]`` when the result carries no title."""
    title = getattr(check, "title", "")
    return f"[{check.check}] {title}" if title else f"[{check.check}]"


def gradescope_test(check, language="en"):
    """One Gradescope test for one check (``visibility`` visible; ``status`` passed only for a passed check)."""
    return {"name": check_name(check), "score": float(check.points), "max_score": float(check.max_points),
            "status": "passed" if check.status == "passed" else "failed",
            "output": check_output(check, language), "visibility": "visible",
            "extra_data": {"status": check.status, "withheld": check.withheld}}


def top_output(result, protection=""):
    """The top-level output: the score, the student id, a review notice, the notes, the walls line."""
    language = result.language if result.language in LINES else "en"
    words, lines = WORDS[language], LINES[language]
    out = [f"{words['score']}{words[':']}{result.total} / {result.max}", lines["student"].format(result.student_id)]
    withheld = sum(c.withheld for c in result.checks.values())
    if result.needs_review:
        ids = ", ".join(c.check for c in result.checks.values() if c.status == "needs-review")
        out.append(lines["review"].format(withheld, ids))
    if result.notes:
        out += ["", f"{words['notes']}{words[':']}"] + [f"- {n}" for n in result.notes]
    if protection:
        out += ["", lines["walls"].format(protection)]
    return "\n".join(out)


def _document(score, output, tests=(), *, elapsed=None, extra=None):
    doc = {"score": float(score), "output": output, "output_format": "text", "test_output_format": "text",
           "test_name_format": "text", "stdout_visibility": "hidden", "tests": list(tests),
           "extra_data": dict(extra or {})}
    if elapsed is not None:
        doc["execution_time"] = max(0, round(elapsed))
    return doc


def results_json(result, *, protection="", elapsed=None):
    """Gradescope's ``results.json`` (a dict) for one graded submission.

    ``protection``: the walls line (default: the one recorded in ``result``); ``elapsed``: seconds for
    ``execution_time`` (default: the result's own grading time).
    """
    if not isinstance(result, SubmissionResult):
        raise ValueError(f"result: expected a SubmissionResult, got {type(result).__name__}")
    if elapsed is not None and (not isinstance(elapsed, (int, float)) or elapsed < 0):
        raise ValueError(f"elapsed: expected a number of seconds >= 0, got {elapsed!r}")
    protection = protection or result.protection
    tests = [gradescope_test(c, result.language) for c in result.checks.values()]
    extra = {"submission": result.submission, "student_id": result.student_id, "max": result.max,
             "withheld": sum(c.withheld for c in result.checks.values()), "needs_review": result.needs_review,
             "flags": list(result.flags), "error": result.error, "protection": protection,
             "language": result.language}
    return _document(result.total, top_output(result, protection), tests,
                     elapsed=result.seconds if elapsed is None else elapsed, extra=extra)


def no_notebook():
    """The results.json of a submission with no notebook in it (score 0)."""
    return _document(0, NO_NOTEBOOK, extra={"reason": "no notebook"})


def several_notebooks(names):
    """The results.json of a submission with several notebooks and no way to choose (score 0, the names listed)."""
    names = sorted(names)
    return _document(0, SEVERAL.format(len(names), ", ".join(names)), extra={"reason": "several notebooks",
                                                                            "notebooks": names})


def grader_failed(reason=""):
    """The results.json when the grader gave no result (score 0; ``reason`` for the instructor only)."""
    return _document(0, FAILED, extra={"reason": "grader failed", "details": reason})


def from_json(name, entry):
    """A :class:`SubmissionResult` back from one entry of the grader's ``--json`` output (``name``: its key)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("checks"), dict):
        raise ValueError(f"entry: {name!r} is not a submission's results (no 'checks')")
    known = CheckResult.__dataclass_fields__
    checks = {cid: CheckResult(**{"check": cid, **{k: v for k, v in c.items() if k in known and k != "check"}})
              for cid, c in entry["checks"].items()}
    fields = {k: v for k, v in entry.items() if k in SubmissionResult.__dataclass_fields__ and k != "checks"}
    return SubmissionResult(**{"path": name, **fields, "submission": name, "checks": checks})


def convert(results, *, ignored=()):
    """Gradescope's results.json from the grader's ``--json`` output (a dict keyed by submission name)."""
    if not isinstance(results, dict):
        raise ValueError(f"results: expected the grader's JSON object, got {type(results).__name__}")
    if not results:
        return no_notebook()
    if len(results) > 1:
        return several_notebooks(results)
    (name, entry), = results.items()
    doc = results_json(from_json(name, entry))
    if ignored:
        doc["output"] = IGNORED.format(name, ", ".join(sorted(ignored))) + "\n\n" + doc["output"]
    return doc


def _read(path):
    """The grader's JSON output, or None (with the reason on stdout) when it is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as exc:
        print(f"gradescope: the grader's results {path} are missing or unreadable: {exc}")
        return None


def _write(doc, path):
    """Write ``doc`` atomically (a half-written results.json is worse than none)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, ensure_ascii=False)
    os.replace(tmp, path)


def _log(doc):
    """The instructor's view on stdout (Gradescope shows it to the instructor only)."""
    extra = doc.get("extra_data", {})
    print(f"gradescope: score {doc['score']}; {len(doc['tests'])} tests; "
          + "; ".join(f"{k}: {v}" for k, v in extra.items() if v not in ("", [], None)))
    for t in doc["tests"]:
        print(f"  {t['name']}: {t['score']:g}/{t['max_score']:g} {t['extra_data']['status']}")


def _parser():
    p = argparse.ArgumentParser(prog="python -m lessonlib.grading.report.gradescope",
                                description="Gradescope's results.json from lessonlib-grade's --json output "
                                            "(one submission).")
    p.add_argument("results", metavar="RESULTS.json", help="lessonlib-grade --json output")
    p.add_argument("out", metavar="OUT.json", help="where to write Gradescope's results.json")
    p.add_argument("--ignored", action="append", default=[], metavar="NAME",
                   help="a notebook of the submission that was not graded (another was chosen); repeatable")
    p.add_argument("--several", action="append", default=[], metavar="NAME",
                   help="RESULTS.json is not read: the submission holds these notebooks and none was chosen "
                        "(a score of 0 that lists them); repeatable")
    return p


def main(argv=None):
    """Write OUT.json; exit 0 whenever it was written (whatever the score), 2 on usage errors."""
    args = _parser().parse_args(argv)
    if args.several:
        doc = several_notebooks(args.several)
    else:
        results = _read(args.results)
        try:
            doc = grader_failed("no results from the grader") if results is None else convert(
                results, ignored=args.ignored)
        except (ValueError, TypeError) as exc:
            print(f"gradescope: the grader's results {args.results} do not parse: {exc}")
            doc = grader_failed(f"{type(exc).__name__}: {exc}")
    _write(doc, args.out)
    _log(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
