"""Tools for exercise authors: check cells from the checker module, the blank notebook, the sync rule.

The command is :mod:`lessonlib.grading.author` (``lessonlib-author new|sync|check|blank``); this module is
what it is made of. The **solution** notebook has the answers solved and one check cell per check
(:func:`check_cell`, placed by :func:`place_checks`); the **exercise** notebook is derived from it
(:func:`blank_from_solution`): every cell and id kept, outputs cleared, and in each answer cell the
leading comments, the imports and each function's signature and docstring kept, each body replaced by
``raise NotImplementedError``, ``student_id = ...`` turned into the placeholder — or, in a cell with
solution markers, only the lines between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` replaced
(:func:`partial_stub`). :func:`sync_errors` says what is out of step.

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
import re

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


#: Solution markers (nbgrader's): the lines between them, markers included, become one ``raise NotImplementedError``
#: in the exercise, and the rest of the answer cell stays as written (a partial scaffold).
BEGIN_SOLUTION, END_SOLUTION = "# BEGIN SOLUTION", "# END SOLUTION"


def stub_source(source):
    """The blank version of a solved answer cell (see the module docstring); a cell with solution markers
    keeps everything outside them (:func:`partial_stub`)."""
    if any(line.strip() in (BEGIN_SOLUTION, END_SOLUTION) for line in source.splitlines()):
        return partial_stub(source)
    tree = ast.parse(source)
    lines = source.splitlines()
    first = min((n.lineno for n in tree.body), default=len(lines) + 1)
    out = [ln for ln in lines[:first - 1] if ln.strip().startswith("#")]
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(ast.get_source_segment(source, node))
        elif _is_student_id(node):
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


def partial_stub(source):
    """The blank of an answer cell with solution markers: each ``# BEGIN SOLUTION`` … ``# END SOLUTION`` block
    becomes ``raise NotImplementedError("write <function>")`` at the marker's indentation; every other line
    stays (a ``student_id = ...`` line becomes the placeholder).

    >>> print(partial_stub('def f(x):\\n    y = 2 * x\\n    # BEGIN SOLUTION\\n    z = y + 1\\n    # END SOLUTION\\n    return z\\n'))
    def f(x):
        y = 2 * x
        raise NotImplementedError("write f")
        return z
    <BLANKLINE>
    """
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    ids = {n.lineno for n in tree.body if _is_student_id(n)}
    out, begin = [], None
    for number, line in enumerate(source.splitlines(), 1):
        marker = line.strip()
        if marker == BEGIN_SOLUTION:
            if begin is not None:
                raise ValueError(f"source: line {number} opens a solution block inside the one opened on line {begin}")
            begin = number
            inside = [f.name for f in functions if f.lineno < number <= f.end_lineno]
            what = inside[-1] if inside else "this part"
            out.append(f'{line[:len(line) - len(line.lstrip())]}raise NotImplementedError("write {what}")')
        elif marker == END_SOLUTION:
            if begin is None:
                raise ValueError(f"source: line {number} closes a solution block that was never opened")
            begin = None
        elif begin is None:
            out.append(STUDENT_ID_LINE if number in ids else line)
    if begin is not None:
        raise ValueError(f"source: the solution block opened on line {begin} is never closed ({END_SOLUTION})")
    return "\n".join(out).strip("\n") + "\n"


def _is_student_id(node):
    return (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "student_id")


def _same_code(a, b):
    """Two sources with the same syntax tree (comments and layout aside)."""
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return False


def is_stub(source, blank=None):
    """True if an answer cell was not attempted.

    With ``blank`` (the exercise's version of the cell, :func:`stub_source` of the solution's): the cell is
    that blank, comments and layout aside, or a whole-function stub that imports nothing the blank does not
    — so a cell that only imports the library function it should define is an attempt (and the grader says
    ``used-library``, not "still the stub"). Without ``blank``: the cell holds nothing but imports, the
    ``student_id`` placeholder and function signatures whose bodies are a docstring and
    ``raise NotImplementedError(...)``.
    """
    if blank is not None and _same_code(source, blank):
        return True
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    allowed = None
    if blank is not None:
        try:
            allowed = {ast.dump(n) for n in ast.parse(blank).body if isinstance(n, (ast.Import, ast.ImportFrom))}
        except SyntaxError:
            allowed = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if allowed is not None and ast.dump(node) not in allowed:
                return False
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
            if not _same_code(e.source, stub_source(s.source)):
                errors.append(f"{where}: the exercise's answer cell is not the blank of the solution's "
                              "(run: lessonlib-author sync)")
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


# --- sync: the solution notebook's check cells and table of parts from the checker module ---------------------

_FUNCTION_IN_TEXT = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)")


def _defined(source):
    """Top-level function names an answer cell defines (none if it does not parse)."""
    try:
        return [n.name for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    except SyntaxError:
        return []


def place_checks(nb, exercise):
    """Make ``nb``'s check cells those of ``exercise`` (in place); returns what changed, one line each.

    A check cell of a check the module no longer registers (or a second cell of one check) is removed; one
    whose source or metadata differ from the module's is refreshed (its cell id stays); a check the
    notebook lacks gets a new cell (id ``check-<id>``) after the answer cell that defines its functions and
    after the check cells that already follow it; every run of adjacent check cells is put in the module's
    order.
    """
    changes, kept, seen = [], [], set()
    for cell in nb.cells:
        if cell.cell_type == "code" and CHECK_TAG in _tags(cell):
            cid = _lessonlib_meta(cell).get("id")
            check = exercise.checks.get(cid)
            if check is None or cid in seen:
                changes.append(f"removed the check cell of {cid!r} ({'twice' if cid in seen else 'not in the module'})")
                continue
            seen.add(cid)
            fresh = check_cell(check)
            if cell.source != fresh.source or dict(cell.metadata) != dict(fresh.metadata):
                cell.source, cell.metadata = fresh.source, fresh.metadata
                changes.append(f"refreshed the check cell of {cid!r} (points {check.points})")
        kept.append(cell)
    ids = {c.get("id") for c in kept}
    for cid, check in exercise.checks.items():
        if cid in seen:
            continue
        homes = [i for i, c in enumerate(kept) if ANSWER_TAG in _tags(c) and set(check.answers) & set(_defined(c.source))]
        at = max(homes) + 1 if homes else len(kept)
        while at < len(kept) and CHECK_TAG in _tags(kept[at]):
            at += 1
        cell = check_cell(check)
        cell.id = f"check-{cid}" if f"check-{cid}" not in ids else f"check-{cid}-{len(ids)}"
        ids.add(cell.id)
        kept.insert(at, cell)
        changes.append(f"added a check cell for {cid!r} (after cell {at - 1})")
    order = list(exercise.checks)
    i = 0
    while i < len(kept):
        j = i
        while j < len(kept) and CHECK_TAG in _tags(kept[j]):
            j += 1
        if j > i + 1:
            run = sorted(kept[i:j], key=lambda c: order.index(_lessonlib_meta(c)["id"]))
            if run != kept[i:j]:
                changes.append(f"reordered the check cells {[_lessonlib_meta(c)['id'] for c in run]}")
                kept[i:j] = run
        i = j + 1
    nb.cells = kept
    return changes


def table_of_parts(text, header="points"):
    """``(rows, points)`` of the first Markdown table in ``text`` whose last header is ``header`` (the exercise's
    table of parts; ``header=None``: the first table, as in a translation): the line numbers of its body rows and
    their points; ``([], [])`` if there is none."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (line.startswith("|") and (header is None or cells[-1].lower() == header) and k + 1 < len(lines)
                and "---" in lines[k + 1]):
            rows = []
            for n in range(k + 2, len(lines)):
                if not lines[n].startswith("|"):
                    break
                rows.append(n)
            return rows, [int(lines[n].strip().strip("|").split("|")[-1].strip()) for n in rows]
    return [], []


def with_points(text, points, header="points"):
    """``text`` with its table of parts' points column set to ``points`` (one per row; ``header`` as in
    :func:`table_of_parts`)."""
    rows, old = table_of_parts(text, header)
    if len(points) != len(rows):
        raise ValueError(f"points: expected {len(rows)} values (one per row of the table of parts), got {len(points)}")
    lines = text.splitlines(keepends=True)
    for n, value in zip(rows, points):
        head, _, tail = lines[n].rstrip("\n").rstrip().rstrip("|").rpartition("|")
        lines[n] = f"{head}| {value} |" + ("\n" if lines[n].endswith("\n") else "")
    return "".join(lines)


def part_points(text, exercise):
    """The points of each row of ``text``'s table of parts from the module: a check counts in the first row
    whose "you write" column names one of its answer functions (in backticks). ``(points, problems)``."""
    rows, _ = table_of_parts(text)
    lines = text.splitlines()
    named = [set(_FUNCTION_IN_TEXT.findall("|".join(lines[n].strip().strip("|").split("|")[:-1]))) for n in rows]
    points, problems = [0] * len(rows), []
    for check in exercise.checks.values():
        row = next((r for r, names in enumerate(named) if set(check.answers) & names), None)
        if row is None:
            problems.append(f"no row of the table of parts names {', '.join(check.answers)} (check {check.id!r})")
        else:
            points[row] += check.points
    problems += [f"row {r + 1} of the table of parts names no checked function" for r, p in enumerate(points) if not p]
    return points, problems


def sync_table(nb, exercise):
    """Set the points column of the table of parts in ``nb``'s first cell from the module (in place); what changed."""
    if not nb.cells or nb.cells[0].cell_type != "markdown":
        return []
    text = nb.cells[0].source
    rows, old = table_of_parts(text)
    if not rows:
        return []
    new, problems = part_points(text, exercise)
    if problems:
        return [f"the table of parts was left alone: {p}" for p in problems]
    if new != old:
        nb.cells[0].source = with_points(text, new)
        return [f"table of parts: points {old} → {new}"]
    return []
