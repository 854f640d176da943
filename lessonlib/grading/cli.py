"""``lessonlib-grade``: grade a class's notebooks, or preview your own.

Instructor::

    lessonlib-grade --reference solutions/05_rnea.ipynb submissions/ --out grades.csv \\
                    --json results.json --feedback feedback/ -j 2

Student (a preview, not a grade)::

    lessonlib-grade --self exercises/05_rnea.ipynb

An instructor's own exercises (checker modules in a folder of theirs, see ``lessonlib-author``)::

    lessonlib-grade --checkers mycourse/checks --reference mycourse/solutions/13_pendulum.ipynb submissions/
    lessonlib-grade --checkers mycourse/checks --reference mycourse/solutions/13_pendulum.ipynb \\
                    --export gradescope gradescope-13      # a Gradescope autograder: gradescope-13.zip

``--self`` grades the notebook exactly as the instructor's grader would (judge, clean kernel,
fresh inputs) against the matching solution notebook if one is found (``solutions/<same name>``
next to or above the notebook, or ``--solutions DIR``; a solution notebook is checked against itself);
otherwise against the check cells of the exercise's checker module, regenerated from wherever the module
comes from (the course, an installed package, ``--checkers``): the notebook's own check cells are never
trusted, so editing them changes nothing. It writes nothing unless asked.

Exit status: 0 when grading ran, whatever the scores; 2 for usage errors (bad arguments, no or
unusable reference, no submissions); 130 when interrupted (Ctrl-C: every submission still gets a row,
and the same command run again grades only what is missing).
"""
from __future__ import annotations

import argparse
import copy
import os
import shutil
import sys
import time
from pathlib import Path

import nbformat

from . import grader
from .checks.checker import exercise_for_notebook, load_exercise
from .checks.registry import source_of, use_checkers
from .report import classreport, gradebook, reports
from .report.records import Records, records_dir
from .notebook import (CHECK_TAG, ReferenceNotebookError, _lessonlib_meta, _tags, load_reference,
                       read_json_notebook, reference_from_nb, SubmissionError)


def _parser():
    p = argparse.ArgumentParser(prog="lessonlib-grade", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Exit status: 0 when grading ran (whatever the scores), 2 for usage errors.")
    p.add_argument("submissions", nargs="*", metavar="SUBMISSION.ipynb|DIR", help="notebooks or directories of them")
    p.add_argument("--reference", metavar="SOLUTION.ipynb", help="the instructor's solution notebook")
    p.add_argument("--self", dest="self_nb", metavar="NOTEBOOK", help="preview the grade of your own notebook")
    p.add_argument("--solutions", metavar="DIR", help="(--self) where the solution notebooks are")
    p.add_argument("--checkers", metavar="DIR", action="append", default=[],
                   help="a folder of your own exercise modules (checks), besides the course's and those of installed "
                        "packages (entry point lessonlib.exercises); repeat for several; a dask run ships them to "
                        "the workers")
    p.add_argument("--out", metavar="CSV", help="long format: one row per submission and check")
    p.add_argument("--gradebook", metavar="CSV", help="one row per submission: student_id, submission, total, max, "
                   "a column per check, needs_review (for a spreadsheet or an LMS import)")
    p.add_argument("--report", metavar="DIR", help="the class report: DIR/index.html (scores, item analysis, "
                   "common mistakes, review list, timing)")
    p.add_argument("--json", metavar="JSON", help="results with every message, by submission file name")
    p.add_argument("--feedback", metavar="DIR", help="one Markdown feedback file per submission")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="grade N notebooks at a time")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S", help="seconds per notebook (600)")
    p.add_argument("--cell-timeout", type=float, default=60.0, metavar="S", help="seconds per cell (60)")
    p.add_argument("--keep", action="store_true", help="keep the temporary graded runs (for debugging)")
    p.add_argument("--confinement", choices=("auto", "landlock", "strict", "none"), default="auto",
                   help="walls around the graded kernel: every wall that works here (auto), Landlock required "
                        "(landlock), every wall required: Landlock and the kernel's own namespaces (strict), or none "
                        "(answers that could read files then wait for review)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="grade each submission as a task on this dask.distributed scheduler (needs .[cluster])")
    p.add_argument("--no-resume", action="store_true",
                   help="grade everything again (by default a submission graded by an earlier run with the same "
                        "outputs, unchanged since, is not graded again: see OUTPUT.records/)")
    p.add_argument("--export", nargs=2, metavar=("PLATFORM", "DIR"),
                   help="write an autograder bundle instead of grading: 'gradescope DIR' writes DIR/ and DIR.zip "
                        "(setup.sh, run_autograder, results.json per check) for --reference and --checkers")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no table")
    return p


def find_solution(notebook, solutions=None):
    """The solution notebook matching ``notebook`` by file name, or None; ``notebook`` itself when it is
    one (it lies in a ``solutions`` folder, or in ``--solutions DIR``)."""
    name = Path(notebook).name
    if solutions:
        candidate = Path(solutions) / name
        return candidate if candidate.is_file() else None
    here = Path(notebook).resolve().parent
    for d in [here, *here.parents]:
        candidate = d / "solutions" / name
        if candidate.is_file():
            return candidate
    return None


def reference_from_checker(notebook_path):
    """A reference built from the student's own notebook with every check cell regenerated.

    The exercise is the checker module named in the notebook's metadata or matched by file name.
    Check cells are rebuilt from the module (source, points, expected verdict line); checks the
    notebook lacks are appended; the answer cells and setup cells are the notebook's own.
    """
    data = read_json_notebook(notebook_path)
    nb = nbformat.from_dict(data)
    name = nb.metadata.get("lessonlib", {}).get("exercise") if isinstance(nb.metadata.get("lessonlib"), dict) else None
    try:
        exercise = load_exercise(name) if isinstance(name, str) else None
    except ValueError:
        exercise = None
    exercise = exercise or exercise_for_notebook(Path(notebook_path).name)
    if exercise is None:
        raise ReferenceNotebookError(f"--self: {notebook_path} names no known exercise and no solution was found")
    cells, placed = [], set()
    for cell in nb.cells:
        if cell.get("cell_type") == "code" and CHECK_TAG in _tags(cell):
            check = exercise.checks.get(_lessonlib_meta(cell).get("id"))
            if check is None or check.id in placed:
                continue
            cells.append(_regenerated(check))
            placed.add(check.id)
        else:
            cells.append(cell)
    cells += [_regenerated(c) for cid, c in exercise.checks.items() if cid not in placed]
    ref = copy.copy(nb)
    ref.cells = cells
    ref.metadata = {**nb.metadata, "lessonlib": {"exercise": exercise.name}}
    reference = reference_from_nb(ref, os.fspath(notebook_path))
    source = source_of(exercise.name).label
    reference.note = f"checked against the checker module of exercise {exercise.name!r} in {source} (no solution notebook found)"
    return reference


def _regenerated(check):
    from .checks.authoring import check_cell             # noqa: PLC0415
    cell = check_cell(check)
    cell.execution_count = 1
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=check.line + "\n")]
    return cell


def _self_preview(args):
    path = args.self_nb
    if not os.path.isfile(path):
        return _usage(f"--self: no such notebook: {path}")
    solution = find_solution(path, args.solutions)
    if solution and Path(solution).resolve() == Path(path).resolve():
        try:
            load_reference(solution)                      # a solution notebook: its verdicts are stored
        except (ReferenceNotebookError, SubmissionError):
            solution = None                               # a student's notebook kept in a solutions/ folder
    try:
        reference = load_reference(solution) if solution else reference_from_checker(path)
    except (ReferenceNotebookError, SubmissionError) as exc:
        return _usage(str(exc))
    if solution and Path(solution).resolve() == Path(path).resolve():
        reference.note = (f"{solution} is a solution notebook: checked against itself (its check cells' stored "
                          "verdicts), as a student's copy of it would be")
    elif solution:
        reference.note = f"checked against {solution}"
    options = _options(args)
    try:
        shared = grader.prepare(reference, options, denied=[path])
    except (RuntimeError, ValueError) as exc:
        return _usage(str(exc))
    try:
        result = grader.grade_submission(reference, path, options, shared=shared)
    finally:
        shared.close()
    print(f"PREVIEW (not a grade) — {reference.note}; walls: {shared.protection}")
    print(reports.feedback_markdown(result, title="Preview", preview=True))
    _write(args, [result], preview=True)
    return 0


def _options(args):
    return grader.Options(cell_timeout=args.cell_timeout, timeout=args.timeout, keep=args.keep,
                          confinement=args.confinement,
                          checkers=tuple(os.fspath(Path(d).resolve()) for d in args.checkers))


def _usage(message):
    print(f"lessonlib-grade: error: {message}", file=sys.stderr)
    return 2


def _write(args, results, preview=False, wall_seconds=None):
    if args.gradebook:
        gradebook.write_gradebook(results, args.gradebook, roots=args.submissions or [args.self_nb])
    if args.report and results:
        title = f"Class report — {Path(args.reference).name}" if args.reference else "Report"
        classreport.write_report(results, args.report, title=title, roots=args.submissions or [args.self_nb],
                                 wall_seconds=wall_seconds)
    if args.out:
        reports.write_csv(results, args.out)
    if args.json:
        reports.write_json(results, args.json)
    if args.feedback:
        reports.write_feedback(results, args.feedback, title="Preview" if preview else "Feedback")


def _export(args):
    platform, out = args.export
    if platform != "gradescope":
        return _usage(f"--export: expected the platform 'gradescope', got {platform!r}")
    if not args.reference or args.submissions or args.self_nb:
        return _usage("--export gradescope DIR takes --reference SOLUTION.ipynb (and --checkers), no submissions")
    from .export import export_gradescope                  # noqa: PLC0415
    try:
        bundle = export_gradescope(args.reference, out, checkers=args.checkers, confinement=args.confinement,
                                   timeout=args.timeout, cell_timeout=args.cell_timeout)
    except (ValueError, RuntimeError) as exc:
        return _usage(str(exc))
    print(f"lessonlib-grade: wrote {out}/ and {bundle}: upload {bundle} to Gradescope as the autograder")
    return 0


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.jobs < 1 or args.timeout <= 0 or args.cell_timeout <= 0:
        return _usage("-j, --timeout and --cell-timeout must be positive")
    try:
        use_checkers(args.checkers)
    except ValueError as exc:
        return _usage(str(exc))
    if args.export:
        return _export(args)
    if args.self_nb:
        if args.reference or args.submissions:
            return _usage("--self takes one notebook and no --reference")
        return _self_preview(args)
    if not args.reference:
        return _usage("--reference SOLUTION.ipynb is required (or --self NOTEBOOK)")
    if not args.submissions:
        return _usage("no submissions given")
    missing = [s for s in args.submissions if not os.path.exists(s)]
    if missing:
        return _usage(f"no such file or directory: {', '.join(missing)}")
    try:
        reference = load_reference(args.reference)
        load_exercise(reference.exercise)
    except ValueError as exc:
        return _usage(str(exc))
    submissions = grader.find_submissions(args.submissions, args.reference)
    if not submissions:
        return _usage("no .ipynb submissions found")
    options = _options(args)
    outputs = [p for p in (args.out, args.json, args.feedback, args.gradebook, args.report) if p]
    shared = None
    if args.scheduler:                                     # the workers build their own: nothing is built here
        print("lessonlib-grade: walls: each worker's own (recorded per submission in the JSON's protection)",
              file=sys.stderr)
    else:
        try:
            shared = grader.prepare(reference, options, denied=[p for _, p in submissions] + outputs)
        except RuntimeError as exc:
            return _usage(str(exc))
        print(f"lessonlib-grade: walls: {shared.protection}", file=sys.stderr)
    where = records_dir([args.gradebook, args.json, args.out, args.report, args.feedback])
    if where is not None and args.no_resume:
        shutil.rmtree(where, ignore_errors=True)
    start, interrupted = time.monotonic(), False
    records = Records(where) if where is not None else None
    try:
        if args.scheduler:
            from .cluster import grade_on_cluster          # noqa: PLC0415 (needs the optional extra)
            results = grade_on_cluster(reference, submissions, options, scheduler=args.scheduler, records=records,
                                       progress=not args.quiet)
        else:
            results = grader.grade_batch(reference, submissions, options, jobs=args.jobs, progress=not args.quiet,
                                         shared=shared, records=records)
    except grader.Interrupted as exc:
        results, interrupted = exc.results, True
    finally:
        if shared is not None:
            shared.close()
    wall = time.monotonic() - start
    _write(args, results, wall_seconds=wall)
    if interrupted:
        print("lessonlib-grade: interrupted; every submission has a row (the ones not graded are not-run). "
              "Run the same command again to grade only what is missing.", file=sys.stderr)
        return 130
    if not args.quiet:
        print(reports.summary_table(results))
    print(classreport.summary_text(results, roots=args.submissions, wall_seconds=wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
