"""Grading beyond one machine: each submission is one dask.distributed task (``--scheduler ADDRESS``).

The grader ships the **bytes** of the reference and of each submission (never a path: workers need
not share a filesystem with it); a worker writes them to a private temporary directory and runs the
same pipeline as a local run — judge, nbval, the kernel inside its Landlock walls — then returns
the result as plain data. Results stream back as tasks finish, into the same outputs and the same
resumable record as a local run. A worker that dies mid-task loses nothing: the scheduler hands the
task to another worker (dask's ``allowed-failures``); a task that still fails gets a
``grader-error`` row, so the batch never loses one.

Each worker keeps one sandbox per reference and options (:func:`~.grader.prepare`: the stripped
library and the Landlock probe), made at its first task. Needs the optional extra ``.[cluster]``
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

from .notebook import MAX_NOTEBOOK_BYTES, load_reference
from .report.results import SubmissionResult, all_checks

#: Times the scheduler may retry a task that raised (a worker's death is handled by the scheduler).
RETRIES = 2

_WORKER = {"lock": threading.Lock(), "shared": {}}


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


def grade_task(reference_bytes, reference_name, name, notebook_bytes, options):
    """On a worker: grade one submission shipped as bytes; returns ``SubmissionResult.as_record()``."""
    from .grader import Options, grade_submission          # noqa: PLC0415
    options = Options(**{**options, "python": sys.executable})
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


def grade_on_cluster(reference, submissions, options, *, scheduler, records=None, progress=True, client=None):
    """Grade ``[(name, path)]`` as tasks on the dask scheduler at ``scheduler`` (``tcp://host:port``).

    Same contract as :func:`~.grader.grade_batch`: results in order, one per submission; current
    records are reused and every new result is recorded as it arrives.
    """
    from distributed import Client, as_completed          # noqa: PLC0415
    from .grader import reference_key, submission_key      # noqa: PLC0415
    own = client is None
    client = client or Client(scheduler, timeout=60)
    batch_key = reference_key(reference, options) if records is not None else ""
    keys = [submission_key(path, batch_key) if records is not None else "" for _, path in submissions]
    results = [records.get(name, key) if records is not None else None for (name, _), key in zip(submissions, keys)]
    shipped = {k: v for k, v in asdict(options).items() if k != "python"}
    reference_bytes = Path(reference.path).read_bytes()
    bar = None
    if progress:
        from tqdm import tqdm                              # noqa: PLC0415
        bar = tqdm(total=len(submissions), initial=sum(r is not None for r in results), unit="notebook",
                   desc="grading", file=sys.stderr)
    futures, arrived, recorded = {}, set(), set()
    try:
        for i, (name, path) in enumerate(submissions):
            if results[i] is not None:
                continue
            try:
                if os.path.getsize(path) > MAX_NOTEBOOK_BYTES:
                    raise OSError(f"the file is over {MAX_NOTEBOOK_BYTES // 2**20} MB")
                data = Path(path).read_bytes()
            except OSError as exc:                         # graded locally: it cannot be read
                results[i] = SubmissionResult(name, os.fspath(path), checks=all_checks(reference, "unreadable", str(exc)),
                                              error=str(exc))
                continue
            future = client.submit(grade_task, reference_bytes, Path(reference.path).name, name, data, shipped,
                                   key=f"lessonlib-grade-{hashlib.sha256(data).hexdigest()[:16]}-{i}", pure=False,
                                   retries=RETRIES)
            futures[future] = i
        for future in as_completed(futures):
            i = futures[future]
            name, path = submissions[i]
            try:
                results[i] = SubmissionResult.from_record(future.result())
                results[i].path = os.fspath(path)
                if records is not None:
                    arrived.add(i)
                    records.put(name, keys[i], results[i])
                    recorded.add(i)
            except Exception as exc:                       # the task failed for good: a row all the same
                results[i] = _failed(reference, name, path, f"the cluster task failed: {type(exc).__name__}: {exc}")
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        from .grader import Interrupted, _pending          # noqa: PLC0415
        client.cancel(list(futures))
        for i in arrived - recorded:                       # arrived just before Ctrl-C: recorded all the same
            records.put(submissions[i][0], keys[i], results[i])
        raise Interrupted([r if r is not None else _pending(reference, name, path)
                           for r, (name, path) in zip(results, submissions)]) from None
    finally:
        if bar is not None:
            bar.close()
        if own:
            client.close()
    return results
