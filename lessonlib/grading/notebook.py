"""Exercise notebooks: answer cells, check cells, and the graded notebook built from a submission.

Cell roles (cell metadata):

* **answer** — tag ``answer``; optional ``metadata.lessonlib.id`` (else the nbformat cell id)
  names it. The student writes here; only these cells are taken from a submission.
* **check** — tag ``check`` and ``metadata.lessonlib = {"id": ..., "points": ...}``, plus
  ``"editable": false, "deletable": false``. Its source calls ``check(id, functions...)``.
* anything else — setup and text, taken from the reference.

The notebook's own ``metadata.lessonlib.exercise`` names its checker module.

From a submission the grader takes **only the source of its answer cells** (matched to the
reference's answer cells by ``lessonlib.id``, then cell id, then — for the cells no name claims — order) and the ``student_id``
literal of its first answer cell, read with ``ast`` (never executed). Its check cells, outputs,
metadata and kernelspec are ignored: the graded notebook is the reference with the answer cells'
sources replaced (and their outputs cleared, so nbval compares only the reference's cells).
"""
from __future__ import annotations

import ast
import copy
import errno
import json
import os
import stat
from dataclasses import dataclass, field

import nbformat

from .report.results import PLACEHOLDER_IDS, clean_student_id, file_student_id

ANSWER_TAG = "answer"
CHECK_TAG = "check"
#: The kernel name of every graded notebook (the grader's own kernelspec; a submission's is ignored).
KERNEL_NAME = "lessonlib-grade"
#: Submissions larger than this are not read (bytes).
MAX_NOTEBOOK_BYTES = 64 * 2**20
#: Answer cells larger than this in total are not graded (characters).
MAX_ANSWER_CHARS = 2**20


class ReferenceNotebookError(ValueError):
    """The instructor's reference notebook is not a usable exercise notebook (a usage error)."""


class SubmissionError(ValueError):
    """A submission that cannot be graded at all (not a notebook, too large, ...)."""


def _source(cell):
    src = cell.get("source", "")
    if isinstance(src, list):
        if not all(isinstance(s, str) for s in src):
            raise SubmissionError("a cell's source is not text")
        return "".join(src)
    if not isinstance(src, str):
        raise SubmissionError("a cell's source is not text")
    return src


def _tags(cell):
    tags = cell.get("metadata", {}).get("tags", []) if isinstance(cell.get("metadata"), dict) else []
    return set(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else set()


def _lessonlib_meta(cell):
    meta = cell.get("metadata", {})
    meta = meta.get("lessonlib", {}) if isinstance(meta, dict) else {}
    return meta if isinstance(meta, dict) else {}


def answer_key(cell, position):
    """The name an answer cell is matched by: ``lessonlib.id``, else the cell id, else its position."""
    key = _lessonlib_meta(cell).get("id") or cell.get("id")
    return str(key) if isinstance(key, str) and key else f"answer-{position}"


@dataclass(frozen=True)
class CheckCell:
    """A reference check cell: its ``id``, ``points`` and index among the notebook's cells."""

    id: str
    points: int
    index: int
    source: str


@dataclass
class Reference:
    """The instructor's notebook: the template of every graded notebook."""

    path: str
    nb: object
    exercise: str
    answers: list            # [(key, cell index)]
    checks: list             # [CheckCell]
    note: str = ""

    @property
    def max_points(self):
        return sum(c.points for c in self.checks)

    def check(self, check_id):
        return next(c for c in self.checks if c.id == check_id)

    def answer_sources(self):
        """``{answer key: the reference's (solved) source}``."""
        return {key: _source(self.nb.cells[index]) for key, index in self.answers}

    def answer_titles(self):
        """``{answer key: what a student calls the cell}``: the section heading above it, e.g.
        ``(b) The outward pass``; the key itself under the notebook's title (the student-id cell)."""
        titles, heading = {}, None
        positions = {index: key for key, index in self.answers}
        for index, cell in enumerate(self.nb.cells):
            if cell.cell_type == "markdown":
                found = [line for line in _source(cell).splitlines() if line.startswith("#")]
                heading = found[-1] if found else heading
            elif index in positions:
                key = positions[index]
                level = len(heading) - len(heading.lstrip("#")) if heading else 0
                titles[key] = heading.lstrip("#").strip() if level >= 2 else key
        return titles


def imported_modules(nb):
    """The modules a notebook's code cells import (``from lessonlib import se3`` gives ``lessonlib`` and
    ``lessonlib.se3``: a name may be a submodule); cells that do not parse are skipped."""
    import ast
    found = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse(_source(cell))
        except (SyntaxError, ValueError, SubmissionError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found += [node.module] + [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
    return list(dict.fromkeys(found))


def load_reference(path, *, require_outputs=True):
    """Read and validate a reference (solution) notebook; :class:`ReferenceNotebookError` says what is wrong."""
    try:
        nb = nbformat.read(os.fspath(path), as_version=4)
    except Exception as exc:
        raise ReferenceNotebookError(f"reference: cannot read {path}: {exc}") from None
    return reference_from_nb(nb, os.fspath(path), require_outputs=require_outputs)


def reference_from_nb(nb, path, *, require_outputs=True):
    """Validate an in-memory reference notebook (see :func:`load_reference`)."""
    exercise = nb.metadata.get("lessonlib", {}).get("exercise")
    if not isinstance(exercise, str):
        raise ReferenceNotebookError(f"reference: {path} has no metadata.lessonlib.exercise (the checker module)")
    answers, checks, seen = [], [], set()
    for index, cell in enumerate(nb.cells):
        tags = _tags(cell)
        if cell.cell_type != "code":
            continue
        if ANSWER_TAG in tags and CHECK_TAG in tags:
            raise ReferenceNotebookError(f"reference: cell {index} is tagged both answer and check")
        if ANSWER_TAG in tags:
            key = answer_key(cell, len(answers))
            if key in {k for k, _ in answers}:
                raise ReferenceNotebookError(f"reference: two answer cells are called {key!r}")
            answers.append((key, index))
        elif CHECK_TAG in tags:
            meta = _lessonlib_meta(cell)
            cid, points = meta.get("id"), meta.get("points")
            if not isinstance(cid, str) or not isinstance(points, int) or isinstance(points, bool) or points <= 0:
                raise ReferenceNotebookError(f"reference: check cell {index} needs metadata.lessonlib.id and positive points")
            if cid in seen:
                raise ReferenceNotebookError(f"reference: check id {cid!r} appears twice")
            if require_outputs and not any(o.get("output_type") == "stream" for o in cell.get("outputs", [])):
                raise ReferenceNotebookError(f"reference: check cell {cid!r} has no stored verdict output; "
                                      "execute the solution notebook first (jupyter nbconvert --execute)")
            seen.add(cid)
            checks.append(CheckCell(cid, points, index, _source(cell)))
    if not checks:
        raise ReferenceNotebookError(f"reference: {path} has no check cells")
    return Reference(os.fspath(path), nb, exercise, answers, checks)


@dataclass
class Submission:
    """What the grader takes from a student's notebook: answer sources and the student id."""

    path: str
    answers: dict                       # reference answer key -> source
    student_id: str
    ignored_cells: int = 0
    notes: list = field(default_factory=list)
    id_source: str = "notebook"         # or "file": the student_id literal is missing or a placeholder
    language: str = "en"                # "zh": the Chinese edition (submission_language); the feedback's language


def open_regular(path):
    """A read-only descriptor of ``path`` if it is a regular file no larger than the limit, else SubmissionError.

    The last component is never followed if it is a symlink, and a FIFO or device is never read
    (``O_NONBLOCK`` keeps the open itself from waiting on a FIFO).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:                             # a symlink
            raise SubmissionError("the submission is a symbolic link, not a notebook file; submit the file "
                                  "itself") from None
        raise SubmissionError(f"cannot read the file: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise SubmissionError("the submission is not a regular file (a device, a pipe or a socket); submit the "
                              "notebook file itself")
    if info.st_size > MAX_NOTEBOOK_BYTES:
        os.close(fd)
        raise SubmissionError(f"the file is {info.st_size / 2**20:.0f} MB; notebooks over "
                              f"{MAX_NOTEBOOK_BYTES // 2**20} MB are not graded (clear the outputs and resubmit)")
    os.set_blocking(fd, True)
    return fd


def read_regular(path):
    """The bytes of a regular file (:func:`open_regular`), never more than the limit."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:                         # it grew after the check
        raise SubmissionError(f"notebooks over {MAX_NOTEBOOK_BYTES // 2**20} MB are not graded")
    return data


def read_json_notebook(path):
    """A submission as plain JSON (no nbformat validation, sizes bounded); SubmissionError if unusable.

    Only a regular file is read, its size checked before a byte is read (:func:`read_regular`);
    the grader calls this in a fork with its own limits (:func:`.reader.screened`).
    """
    raw = read_regular(path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise SubmissionError(f"not a Jupyter notebook (invalid JSON: {str(exc)[:200]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise SubmissionError("not a Jupyter notebook (no list of cells)")
    if data.get("nbformat") != 4:
        raise SubmissionError(f"not a version-4 Jupyter notebook (nbformat {data.get('nbformat')!r})")
    if not all(isinstance(c, dict) for c in data["cells"]):
        raise SubmissionError("not a Jupyter notebook (a cell is not an object)")
    return data


def submission_language(data):
    """``"zh"`` when the notebook says it is the Chinese edition (``metadata.lessonlib.language``), else ``"en"``.

    >>> submission_language({"metadata": {"lessonlib": {"language": "zh"}}}), submission_language({"metadata": []})
    ('zh', 'en')
    """
    meta = data.get("metadata")
    meta = meta.get("lessonlib") if isinstance(meta, dict) else None
    return "zh" if isinstance(meta, dict) and meta.get("language") == "zh" else "en"


def parse_student_id(source):
    """The literal ``student_id = "..."`` of an answer cell (sanitised), or None. Never executes code."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "student_id" and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            sid = clean_student_id(node.value.value)
            return None if sid in PLACEHOLDER_IDS else sid
    return None


def read_submission(path, reference):
    """The answer sources of a submission, matched to the reference's answer cells."""
    data = read_json_notebook(path)
    cells = [c for c in data["cells"] if c.get("cell_type") == "code"]
    tagged = [c for c in cells if ANSWER_TAG in _tags(c) and CHECK_TAG not in _tags(c)]
    by_meta = {str(_lessonlib_meta(c)["id"]): c for c in tagged if isinstance(_lessonlib_meta(c).get("id"), str)}
    by_id = {c["id"]: c for c in cells if isinstance(c.get("id"), str) and CHECK_TAG not in _tags(c)}
    chosen = {key: by_meta[key] for key, _ in reference.answers if key in by_meta}    # named: lessonlib.id first,
    for key, _ in reference.answers:                                                    # then the cell id
        cell = by_id.get(key)
        if key not in chosen and cell is not None and all(cell is not c for c in chosen.values()):
            chosen[key] = cell
    used, answers, notes = {id(c) for c in chosen.values()}, {}, []
    for position, (key, _) in enumerate(reference.answers):
        cell = chosen.get(key)
        if cell is None and position < len(tagged) and id(tagged[position]) not in used:
            cell = tagged[position]                       # unnamed: fall back on the order of answer cells
            used.add(id(cell))
        if cell is None:
            notes.append(f"answer cell {key!r} not found in the submission")
            answers[key] = ""
            continue
        answers[key] = _source(cell)
    total = sum(len(s) for s in answers.values())
    if total > MAX_ANSWER_CHARS:
        raise SubmissionError(f"the answer cells hold {total} characters (limit {MAX_ANSWER_CHARS})")
    ref_ids = {c.get("id") for c in reference.nb.cells}
    ignored = sum(1 for c in cells if id(c) not in used and CHECK_TAG not in _tags(c)
                  and ANSWER_TAG not in _tags(c) and c.get("id") not in ref_ids and _source(c).strip())
    if ignored:
        notes.append(f"{ignored} code cell(s) you added outside the answer cells were not run: "
                     "put all your code in the answer cells")
    first = answers[reference.answers[0][0]] if reference.answers else ""
    literal = parse_student_id(first)
    if literal is None and reference.answers:
        notes.append("your notebook's student_id is not filled in (first answer cell): fill it in so that your "
                     "grade reaches you")
    return Submission(os.fspath(path), answers, literal or file_student_id(path), ignored, notes,
                      "notebook" if literal else "file", submission_language(data))


@dataclass(frozen=True)
class CellRole:
    """What a code cell of the graded notebook is: ``setup``, ``answer`` (key) or ``check`` (id)."""

    kind: str
    name: str = ""


def build_graded(reference, submission):
    """The graded notebook and the role of each of its code cells (nbval's cell numbers).

    Reference cells with the answers' sources replaced; answer cells lose their outputs (nbval does
    not compare unrun cells); check and setup cells keep the reference's sources and outputs.
    Markdown is dropped. The kernelspec is always the grader's own.
    """
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"name": KERNEL_NAME, "display_name": "lessonlib grader", "language": "python"},
                   "language_info": {"name": "python"}}
    answer_at = {index: key for key, index in reference.answers}
    check_at = {c.index: c.id for c in reference.checks}
    roles = []
    for index, cell in enumerate(reference.nb.cells):
        if cell.cell_type != "code":
            continue
        if index in answer_at:
            key = answer_at[index]
            new = nbformat.v4.new_code_cell(source=submission.answers.get(key, ""))
            roles.append(CellRole("answer", key))
        else:
            new = nbformat.v4.new_code_cell(source=cell.source)
            new.outputs = copy.deepcopy(cell.get("outputs", []))
            new.execution_count = cell.get("execution_count")
            tags = [t for t in cell.metadata.get("tags", []) if t in (CHECK_TAG, "raises-exception")]
            if tags:
                new.metadata["tags"] = tags
            roles.append(CellRole("check", check_at[index]) if index in check_at else CellRole("setup"))
        nb.cells.append(new)
    return nb, roles
