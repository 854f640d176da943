"""Tools for exercise authors: check cells from the checker module, the blank notebook, the sync rule.

Write the **solution** notebook (answer cells solved, check cells from :func:`check_cell`), execute
it to store the verdict lines, then derive the **exercise** notebook from it::

    python -m lessonlib.grading.authoring blank solutions/05_rnea.ipynb exercises/05_rnea.ipynb
    python -m lessonlib.grading.authoring check exercises/05_rnea.ipynb solutions/05_rnea.ipynb

``blank`` keeps every cell (and its id) and clears all outputs; in answer cells it keeps the
leading comments, the imports and each function's signature and docstring, replaces each body
by ``raise NotImplementedError``, and turns ``student_id = ...`` into the placeholder. ``check``
prints what is out of sync (:func:`sync_errors`) and exits non-zero if anything is.

>>> print(stub_source("# (a)\\nimport numpy as np\\n\\ndef f(x):\\n    'Twice x.'\\n    return 2 * x\\n"))
# (a)
import numpy as np
<BLANKLINE>
def f(x):
    'Twice x.'
    raise NotImplementedError("write f")
<BLANKLINE>
"""
from __future__ import annotations

import ast
import sys

import nbformat

from ..notebook import ANSWER_TAG, CHECK_TAG, _lessonlib_meta, _tags
from .checker import load_exercise, run_check
from .preview import local_function

STUDENT_ID_LINE = 'student_id = "your-id-here"   # your student id, as your instructor asked for it'


def check_cell(check):
    """A new locked check cell for a registered :class:`~lessonlib.grading.checker.Check`."""
    cell = nbformat.v4.new_code_cell(source=check.cell_source)
    cell.metadata.update(check.cell_metadata)
    return cell


def stub_source(source):
    """The blank version of a solved answer cell (see the module docstring)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    first = min((n.lineno for n in tree.body), default=len(lines) + 1)
    out = [ln for ln in lines[:first - 1] if ln.strip().startswith("#")]
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(ast.get_source_segment(source, node))
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id == "student_id"):
            out.append(STUDENT_ID_LINE)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            body = node.body
            has_doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                       and isinstance(body[0].value.value, str))
            end = body[0].end_lineno if has_doc else body[0].lineno - 1
            indent = " " * body[0].col_offset
            out += ["", *lines[start - 1:end], f'{indent}raise NotImplementedError("write {node.name}")']
    return "\n".join(out).strip("\n").replace("\n\n\n", "\n\n") + "\n"


def is_stub(source):
    """True if an answer cell holds nothing but imports, the ``student_id`` placeholder and function
    signatures whose bodies are a docstring and ``raise NotImplementedError(...)``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["student_id"]:
            if not (isinstance(node.value, ast.Constant) and node.value.value == "your-id-here"):
                return False
            continue
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        body = [b for b in node.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Raise) or "NotImplementedError" not in ast.dump(body[0]):
            return False
    return True


def answers_of(path):
    """``{answer cell id: source}`` of the notebook at ``path``."""
    nb = nbformat.read(str(path), as_version=4)
    return {_lessonlib_meta(c).get("id"): c.source for c in nb.cells if ANSWER_TAG in _tags(c)}


def filled(exercise_path, answers, *, student_id=None):
    """The exercise notebook at ``exercise_path`` with answer cells filled in: a submission, for tests
    and benchmarks. ``answers``: ``{answer cell id: source}``; ``student_id`` fills the first answer
    cell's ``student_id = "..."`` (unless ``answers`` gives that cell)."""
    nb = nbformat.read(str(exercise_path), as_version=4)
    keys = [_lessonlib_meta(c).get("id") for c in nb.cells if ANSWER_TAG in _tags(c)]
    given = ({keys[0]: f'student_id = "{student_id}"'} if student_id is not None and keys else {}) | dict(answers)
    for cell in nb.cells:
        key = _lessonlib_meta(cell).get("id")
        if ANSWER_TAG in _tags(cell) and key in given:
            cell.source = given[key]
    return nb


def blank_from_solution(solution):
    """The exercise notebook of a solution notebook: same cells and ids, stubbed answers, no outputs."""
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(solution), as_version=4))
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if ANSWER_TAG in _tags(cell):
            cell.source = stub_source(cell.source)
        cell.outputs = []
        cell.execution_count = None
    return nb


def sync_errors(exercise_nb, solution_nb):
    """What differs between an exercise notebook and its solution beyond the answers (a list of strings).

    Same cells in the same order with the same ids, types and tags; identical non-answer cells;
    check cells matching the checker module (id, points, source); no outputs in the exercise; a
    stored verdict line, equal to the checker's, under every check cell of the solution.
    """
    errors = []
    if exercise_nb.metadata.get("lessonlib") != solution_nb.metadata.get("lessonlib"):
        errors.append("metadata.lessonlib differs")
    name = solution_nb.metadata.get("lessonlib", {}).get("exercise")
    exercise = load_exercise(name) if name else None
    if len(exercise_nb.cells) != len(solution_nb.cells):
        return errors + [f"{len(exercise_nb.cells)} cells in the exercise, {len(solution_nb.cells)} in the solution"]
    seen = set()
    for i, (e, s) in enumerate(zip(exercise_nb.cells, solution_nb.cells)):
        where = f"cell {i} ({s.get('id')})"
        if (e.cell_type, e.get("id"), sorted(_tags(e))) != (s.cell_type, s.get("id"), sorted(_tags(s))):
            errors.append(f"{where}: type, id or tags differ")
            continue
        if e.cell_type == "code" and (e.outputs or e.execution_count is not None):
            errors.append(f"{where}: the exercise has outputs")
        if ANSWER_TAG in _tags(s):
            if not is_stub(e.source):
                errors.append(f"{where}: the exercise's answer cell is not a stub (code beyond signatures, "
                              "docstrings, imports and the student_id placeholder)")
            continue
        if e.source != s.source or dict(e.metadata) != dict(s.metadata):
            errors.append(f"{where}: source or metadata differ")
        if CHECK_TAG in _tags(s) and exercise is not None:
            meta = _lessonlib_meta(s)
            check = exercise.checks.get(meta.get("id"))
            if check is None:
                errors.append(f"{where}: check {meta.get('id')!r} is not registered in {name}")
                continue
            seen.add(check.id)
            if meta.get("points") != check.points or s.source != check.cell_source:
                errors.append(f"{where}: check {check.id!r} differs from the checker module (points or source)")
            if "".join(o.get("text", "") for o in s.outputs if o.get("output_type") == "stream") != check.line + "\n":
                errors.append(f"{where}: the solution's stored output is not the verdict line of {check.id!r}")
    if exercise is not None and set(exercise.checks) - seen:
        errors.append(f"checks registered but not in the notebook: {sorted(set(exercise.checks) - seen)}")
    return errors


def solution_verdicts(solution_nb, *, seed=0):
    """Run every check of a solution notebook here, on its own answer cells: ``{check id: Verdict}``.

    Executes the notebook's code cells except the check cells in one namespace (trusted code: the
    instructor's), then runs each check in-process — a fast test for an exercise author, no kernel.
    """
    namespace = {"__name__": "__solution__"}
    for cell in solution_nb.cells:
        if cell.cell_type == "code" and CHECK_TAG not in _tags(cell):
            exec(compile(cell.source, f"<{cell.get('id', 'cell')}>", "exec"), namespace)
    exercise = load_exercise(solution_nb.metadata["lessonlib"]["exercise"])
    return {cid: run_check(check, [local_function(namespace[f]) for f in check.functions], seed=seed,
                           student="author")
            for cid, check in exercise.checks.items()}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 3 and argv[0] == "blank":
        nbformat.write(blank_from_solution(nbformat.read(argv[1], as_version=4)), argv[2])
        return 0
    if len(argv) == 3 and argv[0] == "check":
        errors = sync_errors(nbformat.read(argv[1], as_version=4), nbformat.read(argv[2], as_version=4))
        print("\n".join(errors) or "in sync")
        return 1 if errors else 0
    print(__doc__.split(">>>")[0])
    return 2


if __name__ == "__main__":
    sys.exit(main())
