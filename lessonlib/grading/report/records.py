"""The resumable record of a batch: one file per graded submission, written atomically.

An interrupted run (Ctrl-C, a crash, a reboot) restarted with the same outputs grades only what is
missing or changed: a submission's result is reused when its **key** is unchanged (the grader
makes the key: :func:`lessonlib.grading.grader.submission_key`). Each result is written to a
temporary file and renamed into place (``os.replace``), so a record on disk is always whole.

The directory sits beside the first output (``gradebook.csv.records/``, ...); delete it to regrade
everything.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .results import SubmissionResult


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def records_dir(outputs):
    """Where the records of a run with these outputs live (None: no output, nothing to resume into)."""
    first = next((os.fspath(p) for p in outputs if p), None)
    return Path(first.rstrip("/\\") + ".records") if first else None


class Records:
    """The records in ``directory``: :meth:`get` a reusable result, :meth:`put` a new one."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _file(self, name):
        return self.directory / f"{_sha(name.encode())[:24]}.json"

    def get(self, name, key):
        """The recorded result of submission ``name`` if its key is ``key``, else None."""
        try:
            with open(self._file(name), encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            return None
        if record.get("name") != name or record.get("key") != key:
            return None
        try:
            return SubmissionResult.from_record(record["result"])
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, name, key, result):
        """Record ``result`` atomically (a temporary file renamed into place)."""
        data = json.dumps({"name": name, "key": key, "result": result.as_record()}, ensure_ascii=False)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".partial-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self._file(name))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
