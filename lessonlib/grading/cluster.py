"""Grading beyond one machine: each submission is one dask.distributed task (``--scheduler ADDRESS``).

The grader ships the **bytes** of the reference and of each submission (never a path: workers need
not share a filesystem with it); a worker writes them to a private temporary directory and runs the
same pipeline as a local run — judge, nbval, the kernel inside its Landlock walls — then returns
the result as plain data. An instructor's folders of checker modules (``--checkers``) are shipped the
same way, as the bytes of their ``.py`` files; checkers from an installed package (the
``lessonlib.exercises`` entry point) must be installed on every worker, like lessonlib itself. Results stream back as tasks finish, into the same outputs and the same
resumable record as a local run. A worker that dies mid-task loses nothing: the scheduler hands the
task to another worker (dask's ``allowed-failures``); a task that still fails gets a
``grader-error`` row, so the batch never loses one.

It is the same batch driver as a local run (:func:`~.grader.grade_batch`) with another executor
(:class:`ClusterRuns`); the grader's machine builds no sandbox and starts no fork server. Each
worker keeps one sandbox per reference and options (:func:`~.grader.prepare`: the stripped library,
the walls' probes, its fork servers), made at its first task, and records its own walls in each
result's ``protection``. Needs the optional extra ``.[cluster]``
(``pip install lessonlib[cluster]``) on the grader and the workers, which must run the same
lessonlib.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import re
import sys
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path

from .notebook import load_reference, read_regular
from .report.results import SubmissionResult, all_checks

#: Times the scheduler may retry a task that raised (a worker's death is handled by the scheduler).
RETRIES = 2

_WORKER = {"lock": threading.Lock(), "shared": {}, "checkers": {}}
#: What :func:`pack_checkers` ships of an instructor's folder: Python sources only, at most this many bytes.
CHECKERS_LIMIT = 16 << 20


def pack_checkers(folders):
    """The instructor's folders of checker modules (``--checkers``) as plain data for a worker:
    ``((folder name, ((relative path, bytes), ...)), ...)`` — ``.py`` files only, no caches."""
    packed, size = [], 0
    for folder in map(Path, folders):
        files = []
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            data = path.read_bytes()
            size += len(data)
            if size > CHECKERS_LIMIT:
                raise ValueError(f"checkers: {folder} holds more than {CHECKERS_LIMIT >> 20} MiB of Python sources")
            files.append((path.relative_to(folder).as_posix(), data))
        packed.append((folder.name, tuple(files)))
    return tuple(packed)


def _worker_checkers(packed):
    """On a worker: the shipped folders written once each (by content) into private directories; their paths."""
    paths = []
    for name, files in packed:
        key = hashlib.sha256(repr((name, files)).encode()).hexdigest()
        with _WORKER["lock"]:
            if key not in _WORKER["checkers"]:
                root = Path(tempfile.mkdtemp(prefix="lessonlib-checkers-")) / (re.sub(r"[^A-Za-z0-9_]", "_", name) or "checkers")
                for rel, data in files:
                    target = (root / rel).resolve()
                    if not target.is_relative_to(root.resolve()):
                        raise ValueError(f"checkers: {rel!r} leaves its folder")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
                _WORKER["checkers"][key] = os.fspath(root)
            paths.append(_WORKER["checkers"][key])
    return tuple(paths)


def _worker_shared(reference_bytes, reference_name, options):
    """The worker's reference and :class:`~.grader.Shared` for these bytes and options (made once)."""
    from .grader import prepare                           # noqa: PLC0415
    key = (hashlib.sha256(reference_bytes).hexdigest(), repr(sorted(asdict(options).items())))
    with _WORKER["lock"]:
        if key not in _WORKER["shared"]:
            directory = tempfile.mkdtemp(prefix="lessonlib-reference-")
            path = Path(directory) / re.sub(r"[^A-Za-z0-9._-]", "_", reference_name)
            path.write_bytes(reference_bytes)
            reference = load_reference(path)
            shared = prepare(reference, options)
            atexit.register(shared.close)
            _WORKER["shared"][key] = (reference, shared)
        return _WORKER["shared"][key]


def grade_task(reference_bytes, reference_name, name, notebook_bytes, options, checkers=()):
    """On a worker: grade one submission shipped as bytes; returns ``SubmissionResult.as_record()``.

    ``checkers``: the instructor's folders of checker modules as :func:`pack_checkers` made them (written
    here once, then found like ``--checkers`` folders)."""
    from .grader import Options, grade_submission          # noqa: PLC0415
    options = Options(**{**options, "python": sys.executable, "checkers": _worker_checkers(checkers)})
    reference, shared = _worker_shared(reference_bytes, reference_name, options)
    with tempfile.TemporaryDirectory(prefix="lessonlib-task-") as directory:
        path = Path(directory) / re.sub(r"[^A-Za-z0-9._#-]", "_", Path(name).name or "submission.ipynb")
        path.write_bytes(notebook_bytes)
        result = grade_submission(reference, path, options, name=name, shared=shared)
    result.notes.append(f"graded on {os.uname().nodename}")
    return result.as_record()


def _failed(reference, name, path, message):
    result = SubmissionResult(name, os.fspath(path))
    result.checks = all_checks(reference, "grader-error", "the grader could not run this notebook; your instructor "
                                                          "has the details")
    result.error = message
    return result


class ClusterRuns:
    """The dask executor of :func:`~.grader.grade_batch`: one task per submission, shipped as bytes.

    Nothing is built on the grader's machine: no sandbox, no fork servers — each worker makes its own
    at its first task (:func:`_worker_shared`). A submission that is not a regular file within the
    size limit is not shipped (:func:`~.notebook.read_regular`: the driver gives it an
    ``unreadable`` row).
    """

    def __init__(self, reference, options, client):
        self.reference, self.client = reference, client
        self.shipped = {k: v for k, v in asdict(options).items() if k not in ("python", "checkers")}
        self.checkers = pack_checkers(options.checkers)
        self.reference_bytes = Path(reference.path).read_bytes()
        self.submitted = []

    def start(self, name, path):
        data = read_regular(path)                          # SubmissionError: the driver writes the row
        future = self.client.submit(grade_task, self.reference_bytes, Path(self.reference.path).name, name, data,
                                    self.shipped, self.checkers, key=f"lessonlib-grade-{hashlib.sha256(data).hexdigest()[:16]}-"
                                                      f"{len(self.submitted)}", pure=False, retries=RETRIES)
        self.submitted.append(future)
        return future

    def completed(self, futures):
        from distributed import as_completed               # noqa: PLC0415
        return as_completed(list(futures))

    def result(self, future, name, path):
        try:
            result = SubmissionResult.from_record(future.result())
            result.path = os.fspath(path)
            return result
        except Exception as exc:                           # noqa: BLE001 (the task failed for good: a row all the same)
            return _failed(self.reference, name, path, f"the cluster task failed: {type(exc).__name__}: {exc}")

    def ready(self, future, name, path):
        return self.result(future, name, path) if future.status == "finished" else None

    def stop(self):
        self.client.cancel(self.submitted)

    def close(self):
        pass


def grade_on_cluster(reference, submissions, options, *, scheduler, records=None, progress=True, client=None):
    """Grade ``[(name, path)]`` as tasks on the dask scheduler at ``scheduler`` (``tcp://host:port``):
    :func:`~.grader.grade_batch` with :class:`ClusterRuns` as its executor (same contract)."""
    from distributed import Client                         # noqa: PLC0415
    from .grader import grade_batch                        # noqa: PLC0415
    own = client is None
    client = client or Client(scheduler, timeout=60)
    try:
        return grade_batch(reference, submissions, options, progress=progress, records=records,
                           runs=ClusterRuns(reference, options, client))
    finally:
        if own:
            client.close()
