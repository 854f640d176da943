"""``lessonlib-author``: write an exercise — scaffold it, keep its two notebooks in step with its checks.

An exercise is three files: a **checker module** (the checks, in a folder of your own or in an installed
package), a **solution notebook** (answers solved, a locked check cell per check, the verdicts stored)
and the **exercise notebook** the students get (derived from the solution: answers blanked, no outputs)::

    lessonlib-author new pendulum13 --root mycourse       # mycourse/checks/pendulum13.py,
                                                          # mycourse/solutions/13_pendulum.ipynb, .../exercises/...
    lessonlib-author sync mycourse/solutions/13_pendulum.ipynb --checkers mycourse/checks
    lessonlib-author check mycourse/exercises/13_pendulum.ipynb mycourse/solutions/13_pendulum.ipynb \\
                     --checkers mycourse/checks

``sync`` is the one step after any change to the module or the solution: it makes the check cells the
module's (adds, refreshes, removes, orders), sets the table of parts' points column, executes the
solution in a fresh kernel (the check cells store their verdict lines), strips execution timestamps,
writes the exercise notebook and reports what is still out of step. Exit status: 0 in step, 1 out of
step, 2 for usage errors.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import nbformat

from .checks import authoring
from .checks.checker import load_exercise
from .checks.registry import ENV, checker_folders, use_checkers

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _parser():
    p = argparse.ArgumentParser(prog="lessonlib-author", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Run 'lessonlib-author COMMAND --help' for a command's options.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    new = sub.add_parser("new", help="scaffold a checker module, a solution notebook and the exercise notebook",
                         description="Scaffold an exercise that already grades: a checker module with one check "
                                     "and a known mistake, a solution notebook that passes it, and the exercise "
                                     "notebook derived from it (then edit the module and the solution, and sync).")
    new.add_argument("name", help="the exercise's module name: lowercase letters, digits, '_' (e.g. pendulum13)")
    new.add_argument("--root", default=".", metavar="DIR",
                     help="where checks/, solutions/ and exercises/ are (default: the current directory)")
    new.add_argument("--checkers", metavar="DIR", help="the folder of checker modules (default: ROOT/checks)")
    new.add_argument("--notebook", metavar="FILE.ipynb",
                     help="the notebooks' file name (default: from the name, pendulum13 → 13_pendulum.ipynb)")
    new.add_argument("--title", help="the exercise's title (default: from the name)")
    new.add_argument("--no-execute", action="store_true", help="write the files, do not run the solution")

    sync = sub.add_parser("sync", help="check cells and points from the module, run the solution, write the exercise",
                          description="Make the solution's check cells the module's (add, refresh, remove, order), "
                                      "set the points column of its table of parts, execute it in a fresh kernel, "
                                      "strip execution timestamps, write the exercise notebook, report drift.")
    sync.add_argument("solution", help="the solution notebook")
    sync.add_argument("--exercise", metavar="FILE.ipynb",
                      help="the exercise notebook to write (default: ../exercises/<same name> beside solutions/)")
    sync.add_argument("--checkers", metavar="DIR", action="append", default=[], help="a folder of checker modules")
    sync.add_argument("--no-execute", action="store_true", help="do not execute the solution (its stored verdicts stay)")
    sync.add_argument("--timeout", type=float, default=600.0, metavar="S", help="seconds per cell (600)")

    check = sub.add_parser("check", help="report what differs between an exercise notebook and its solution",
                           description="Report drift: cells, ids, tags, check cells against the module, stored "
                                       "verdicts, answers that are not the solution's blanks. Exit 1 if any.")
    check.add_argument("exercise", help="the exercise notebook")
    check.add_argument("solution", help="the solution notebook")
    check.add_argument("--checkers", metavar="DIR", action="append", default=[], help="a folder of checker modules")

    blank = sub.add_parser("blank", help="write the exercise notebook of a solution notebook (no execution)",
                           description="Same cells and ids, answers blanked (whole functions, or between "
                                       "# BEGIN SOLUTION / # END SOLUTION), no outputs.")
    blank.add_argument("solution")
    blank.add_argument("exercise")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command != "new":                         # new makes its folder first (cmd_new)
            use_checkers(args.checkers)
        return {"new": cmd_new, "sync": cmd_sync, "check": cmd_check, "blank": cmd_blank}[args.command](args)
    except (ValueError, OSError) as exc:
        print(f"lessonlib-author: error: {exc}", file=sys.stderr)
        return 2


# --- sync, check, blank ---------------------------------------------------------------------------------------

def exercise_path(solution):
    """Where the exercise notebook of ``solution`` goes: ``exercises/<name>`` beside its ``solutions/`` folder."""
    solution = Path(solution)
    if solution.parent.name != "solutions":
        raise ValueError(f"--exercise: {solution} is not in a folder called solutions/; say where the exercise goes")
    return solution.parent.parent / "exercises" / solution.name


def sync(solution, exercise=None, *, execute=True, timeout=600.0, log=print):
    """The ``sync`` command as a function: returns the list of what is still out of step (empty: in step)."""
    solution = Path(solution)
    exercise = Path(exercise) if exercise else exercise_path(solution)
    nb = nbformat.read(solution, as_version=4)
    name = nb.metadata.get("lessonlib", {}).get("exercise")
    if not isinstance(name, str):
        raise ValueError(f"solution: {solution} has no metadata.lessonlib.exercise naming its checker module")
    module = load_exercise(name)
    for line in authoring.place_checks(nb, module) + authoring.sync_table(nb, module):
        log(f"  {line}")
    if execute:
        log(f"  executing {solution} ...")
        nb = execute_notebook(nb, solution.parent, timeout=timeout)
    strip_execution_metadata(nb)
    nbformat.write(nb, solution)
    exercise.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(authoring.blank_from_solution(nb), exercise)
    log(f"  wrote {solution} and {exercise}")
    return authoring.sync_errors(nbformat.read(exercise, as_version=4), nbformat.read(solution, as_version=4))


def execute_notebook(nb, cwd, *, timeout=600.0):
    """``nb`` run top to bottom in a fresh kernel in ``cwd``; the kernel finds this process's checker folders."""
    from nbclient import NotebookClient                   # noqa: PLC0415 (only the authoring command needs it)
    folders = os.pathsep.join(map(os.fspath, checker_folders()))
    saved = os.environ.get(ENV)
    os.environ[ENV] = folders
    try:
        kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
        NotebookClient(nb, timeout=timeout, kernel_name=kernel, resources={"metadata": {"path": os.fspath(cwd)}},
                       allow_errors=False).execute()
    finally:
        if saved is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved
    return nb


def strip_execution_metadata(nb):
    """No timestamps in diffs: drop every cell's ``metadata.execution`` (nbclient's start and end times)."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    return nb


def _report(errors, what):
    if errors:
        print(f"{what}: out of step:")
        print("\n".join(f"  {e}" for e in errors))
        return 1
    print(f"{what}: in step")
    return 0


def cmd_sync(args):
    print(f"sync {args.solution}")
    return _report(sync(args.solution, args.exercise, execute=not args.no_execute, timeout=args.timeout),
                   args.solution)


def cmd_check(args):
    errors = authoring.sync_errors(nbformat.read(args.exercise, as_version=4),
                                   nbformat.read(args.solution, as_version=4))
    return _report(errors, args.exercise)


def cmd_blank(args):
    nbformat.write(authoring.blank_from_solution(nbformat.read(args.solution, as_version=4)), args.exercise)
    print(f"wrote {args.exercise}")
    return 0


# --- new ------------------------------------------------------------------------------------------------------

def notebook_name(name):
    """``pendulum13`` → ``13_pendulum.ipynb``; a name without a trailing number → ``<name>.ipynb``."""
    m = re.fullmatch(r"([a-z][a-z0-9_]*?)_?(\d+)", name)
    return f"{m.group(2)}_{m.group(1)}.ipynb" if m else f"{name}.ipynb"


def cmd_new(args):
    if not _NAME.match(args.name):
        raise ValueError(f"name: expected a module name (lowercase letters, digits, '_'), got {args.name!r}")
    root = Path(args.root)
    checkers = Path(args.checkers) if args.checkers else root / "checks"
    notebook = args.notebook or notebook_name(args.name)
    if not notebook.endswith(".ipynb"):
        raise ValueError(f"--notebook: expected a file name ending in .ipynb, got {notebook!r}")
    title = args.title or f"Exercise {args.name}"
    module = checkers / f"{args.name}.py"
    solution, exercise = root / "solutions" / notebook, root / "exercises" / notebook
    existing = [os.fspath(p) for p in (module, solution, exercise) if p.exists()]
    if existing:
        raise ValueError(f"name: {', '.join(existing)} already exist(s); choose another name or remove them")
    checkers.mkdir(parents=True, exist_ok=True)
    use_checkers([checkers])
    try:
        load_exercise(args.name)
    except ValueError as exc:
        if "more than one source" in str(exc):
            raise
    else:
        raise ValueError(f"name: an exercise called {args.name!r} already exists in another source; choose another")
    prefix = re.sub(r"\d+$", "", args.name).strip("_").replace("_", "-") or args.name
    module.write_text(MODULE_TEMPLATE.format(name=args.name, notebook=notebook, title=title, prefix=prefix),
                      encoding="utf-8")
    solution.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(solution_template(args.name, title, notebook), solution)
    print(f"wrote {module} and {solution}")
    errors = sync(solution, exercise, execute=not args.no_execute)
    print(f"Next: edit {module} and {solution}, then run: lessonlib-author sync {solution} --checkers {checkers}")
    return _report(errors, os.fspath(solution)) if not args.no_execute else 0


MODULE_TEMPLATE = '''"""Checks of {title} ({notebook}).

One check per graded part. A check draws every random number from ``ctx.rng``, calls the student's function
through ``ctx.call`` with plain data, and compares with a reference of its own (``ctx.expect_close``). A known
mistake (``Variant``) is the reference with one classic bug: when a student's answer fails exactly as the
variant does, the message names the mistake. See lessonlib/grading/WRITING-CHECKS.md.
"""
from functools import partial

import numpy as np

from lessonlib.grading.checks.checker import Exercise, Variant

EXERCISE = Exercise(
    "{name}", notebook="{notebook}", title="{title}",
    blocked=(),              # library modules ("lessonlib.dynamics") or functions ("module:name") the graded kernel stubs
    copy_targets=(),         # library modules whose functions the copy detector compares the answers with
)

G = 9.81                     # m/s², the pendulum's gravity


def torque_with(q, qdd, m, l, *, gravity=1.0):
    """The reference: the torque that gives a point mass m on a massless rod of length l the acceleration qdd
    (m l² q̈ + m g l sin q, q measured from hanging straight down), with the sign of gravity as a parameter."""
    return m * l ** 2 * qdd + gravity * m * G * l * np.sin(q)


GRAVITY_SIGN = Variant("gravity seems to enter with the wrong sign: the weight pulls the mass back down, "
                       "τ = m l² q̈ + m g l sin q", pendulum_torque=partial(torque_with, gravity=-1.0))


@EXERCISE.check("{prefix}-torque", points=1, functions=("pendulum_torque",),
                title="pendulum_torque: the torque of a point-mass pendulum", variants=(GRAVITY_SIGN,))
def check_torque(ctx, pendulum_torque):
    for _ in range(3):
        q, qdd = ctx.rng.uniform(-3.0, 3.0, 2)
        m, l = ctx.rng.uniform(0.5, 2.0, 2)
        got = ctx.call(pendulum_torque, q, qdd, m, l)
        ctx.expect_close("tau", got, torque_with(q, qdd, m, l), hint="τ = m l² q̈ + m g l sin q")
'''


def solution_template(name, title, notebook):
    """The scaffold's solution notebook: intro with a table of parts, setup, student id, one part solved."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md(f"# {title}\n\nA point mass $m$ on a massless rod of length $l$ swings about a horizontal joint; $q$ is "
           "the angle from hanging straight down.\n\n| part | you write | points |\n|---|---|---|\n"
           "| (a) | `pendulum_torque` — the joint torque $\\tau$ for a given $q$ and $\\ddot q$ | 1 |\n\n"
           "**How this notebook is graded.** Write your code only in the cells marked *answer*; put your student "
           "id in the first one. A locked *check* cell previews the grade; the grade comes from your instructor's "
           f"grader, which runs every check again with fresh inputs (preview it: `lessonlib-grade --self {notebook}`)."),
        code("import numpy as np"),
        code('student_id = "reference-solution"'),
        md("## (a) The pendulum's torque\n\nWrite `pendulum_torque(q, qdd, m, l)`: the torque $\\tau = m l^2 \\ddot q "
           "+ m g l \\sin q$ (with $g = 9.81$ m/s²) that gives the pendulum the acceleration $\\ddot q$ at the "
           "angle $q$."),
        code('def pendulum_torque(q, qdd, m, l):\n    """The joint torque (N·m) of a point-mass pendulum at angle q '
             '(rad) accelerating at qdd (rad/s²)."""\n    g = 9.81\n    # BEGIN SOLUTION\n'
             '    tau = m * l**2 * qdd + m * g * l * np.sin(q)\n    # END SOLUTION\n    return tau'),
    ]
    ids = ["intro", "setup", "answer-student-id", "part-a", "answer-torque"]
    for cell, cid in zip(cells, ids):
        cell.id = cid
        if cid.startswith("answer"):
            cell.metadata.update({"tags": ["answer"], "lessonlib": {"id": cid}})
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata.update({"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                        "lessonlib": {"exercise": name}})
    return nb


if __name__ == "__main__":
    sys.exit(main())
