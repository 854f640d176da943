"""The resumable record of a batch: one file per graded submission, written atomically.

An interrupted run (Ctrl-C, a crash, a reboot) restarted with the same outputs grades only what is
missing or changed: a submission's result is reused when its **key** is unchanged — the hash of
the submission's bytes, of the reference's bytes, of the exercise's checker module, of the grader's
own modules (a grader changed between two runs judges anew), of the grading options that change a
verdict, and of the lessonlib version. Each result is written to a temporary
file and renamed into place (``os.replace``), so a record on disk is always whole.

The directory sits beside the first output (``gradebook.csv.records/``, ...); delete it to regrade
everything.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from pathlib import Path

from .verdict import SubmissionResult

#: The options whose change changes a verdict (so a record made with others is not reused).
KEYED_OPTIONS = ("cell_timeout", "timeout", "max_attempts", "confinement")


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def _file_sha(path):
    try:
        with open(path, "rb") as fh:
            return _sha(fh.read())
    except OSError:
        return "unreadable"


def grader_key():
    """The hash of the grader's own modules (``lessonlib/grading/*.py``; each exercise's checker apart)."""
    here = Path(__file__).resolve().parent
    return _sha("|".join(f"{p.name}:{_file_sha(p)}" for p in sorted(here.glob("*.py"))).encode())


def reference_key(reference, options):
    """What every record of a batch shares: the reference, its checker, the grader, the options, the version."""
    from .. import __version__                           # noqa: PLC0415
    spec = importlib.util.find_spec(f"{__package__}.exercises.{reference.exercise}")
    checker = _file_sha(spec.origin) if spec and spec.origin else "none"
    opts = {k: getattr(options, k, None) for k in KEYED_OPTIONS}
    return _sha(json.dumps([_file_sha(reference.path), checker, grader_key(), opts, __version__],
                           sort_keys=True).encode())


def submission_key(path, batch_key):
    """The key of one submission's record: its bytes and the batch's key."""
    return _sha(f"{_file_sha(path)}|{batch_key}".encode())


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
