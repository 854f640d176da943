"""Grade submissions: read → screen → run → verdict → report.

One submission (:func:`grade_submission`)::

    read        notebook.read_submission      the answer cells' sources and the student id (never run)
    screen      screening, copydetect         flags for the instructor; copies of the library
    run         run.graded_run                judge + pytest --nbval on the graded notebook
    verdict     verdict.check_results         nbval's cells + the judge's records + flags → statuses
    report      reports                       CSV, JSON, feedback, summary (for a batch)

The graded run::

    grader ──stdin/stdout──> judge (clean: secret seed, checkers, library)   ← verdict lines, out of band
       │                        ▲ Unix socket + one-time token: inputs out, plain data back
       └─ pytest --nbval ──> kernel (-I -S, stripped lessonlib, empty cwd, answers + reference checks)

A check earns its points **iff** nbval passed its check cell (the output equals the reference
verdict line) **and** the judge recorded a pass for that check id in this run, and the code it
exercises is not a copy of the library (:func:`.verdict.verdict`). A submission that cannot be
read, crashes its kernel, loops or floods its output still gets one row per check; the batch goes
on (:func:`grade_batch`).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from . import copydetect, wording
from .checks.checker import load_exercise
from .checks.registry import checker_env, checker_locations, exercise_files, use_checkers
from .kernel import confine, namespaces
from .kernel.limits import LIMITS, THREADS_ENV
from .kernel.limits import describe as limits_describe
from .notebook import SubmissionError, imported_modules, open_regular, read_submission
from .processes import clean_env
from .report.results import CheckResult, SubmissionResult, all_checks
from .reader import screened
from .run import graded_run
from .sandbox import build_library, confinement_policy, kernel_view, zygote_command
from .screening import flags_of
from .verdict import check_results, run_notes
from .zygotes import Zygote, judge_command, nbval_command


@dataclass
class Options:
    """How to grade: timeouts (seconds), whether to keep the temp files, and ``confinement``: ``"auto"``
    (every wall that works here; answers that could read files go to review where no filesystem wall
    holds), ``"landlock"`` (Landlock required), ``"strict"`` (every wall required: Landlock with
    signal scoping, and the kernel's own namespaces) or ``"none"`` (no walls; review only);
    ``zygotes``: fork each run's judge, nbval process and kernel from per-batch fork servers
    (:mod:`.zygotes`) instead of starting interpreters; ``limits``: the graded kernel's resource limits
    (:data:`.kernel.limits.LIMITS`, overridable one by one); ``checkers``: folders of an instructor's
    exercise modules (``--checkers DIR``: :mod:`.checks.registry`), absolute paths."""

    cell_timeout: float = 60.0
    timeout: float = 600.0
    keep: bool = False
    python: str = sys.executable
    confinement: str = "auto"
    zygotes: bool = True
    limits: dict = field(default_factory=dict)
    checkers: tuple = ()

    def resource_limits(self):
        return {**LIMITS, "cpu": max(LIMITS["cpu"], self.timeout), **self.limits}


#: The values ``confinement`` takes.
CONFINEMENTS = ("auto", "landlock", "strict", "none")


@dataclass(frozen=True)
class Walls:
    """Which walls hold on this machine for this batch, and why the missing ones are missing.

    ``landlock``: the Landlock ABI a probe process really got (0: none); ``namespaces``: ``""`` when
    a probe process really got its own user, mount, network, PID and IPC namespaces, else why not.
    """

    landlock: int
    namespaces: str
    limits: dict

    @property
    def filesystem(self):
        """A kernel cannot read what it must not (Landlock, or a world of its own)."""
        return bool(self.landlock) or not self.namespaces

    def describe(self):
        """One line for the start of a run: filesystem, network, neighbours, limits."""
        own = not self.namespaces
        fs = " and ".join(([f"Landlock ABI {self.landlock}"] if self.landlock else [])
                          + (["a private read-only root"] if own else [])) or "none"
        if own:
            net = "none (own network namespace)"
        elif self.landlock >= 4:
            net = "no TCP (Landlock); UDP open"
        else:
            net = "open"
        if own:
            others = "none (own PID and IPC namespaces)"
        elif self.landlock >= 6:
            others = "cannot signal them (Landlock)"
        else:
            others = "visible"
        text = (f"filesystem: {fs}; network: {net}; other processes: {others}; "
                f"limits: {limits_describe(self.limits)}")
        if self.namespaces:
            text += f" [namespaces: {self.namespaces}]"
        if not self.filesystem:
            text += " — answers that read files or load code go to review"
        return text


def walls_here(options):
    """The walls this machine gives a graded kernel (:class:`Walls`), each checked by a probe process."""
    if options.confinement not in CONFINEMENTS:
        raise ValueError(f"confinement: expected one of {', '.join(CONFINEMENTS)}, got {options.confinement!r}")
    limits = options.resource_limits()
    if options.confinement == "none":
        return Walls(0, "switched off (--confinement none)", limits)
    with tempfile.TemporaryDirectory(prefix="lessonlib-probe-") as directory:
        secret = os.path.join(directory, "secret")
        with open(secret, "w") as fh:
            fh.write("probe")
        version = confine.probe(options.python, secret)
        own = namespaces.probe(options.python, directory)
    walls = Walls(version, own, limits)
    if options.confinement == "landlock" and not version:
        raise RuntimeError("confinement: Landlock was required but does not work here "
                           f"({confine.describe(confine.abi())})")
    if options.confinement == "strict" and (version < 6 or own):
        raise RuntimeError("confinement: every wall was required (--confinement strict), but not all hold here: "
                           + walls.describe())
    return walls


@dataclass
class Shared:
    """What every graded run of a batch shares: the checker, the copy targets, the sandbox, the walls.

    ``root``: the batch's directory (the sandbox and every run's directories); ``walls``: which walls
    hold (:class:`Walls`; ``protection`` is its one line, printed at the start and recorded per
    result); ``policy``: the Landlock walls' batch part; ``view``: the kernel's own world's batch
    part (None where namespaces do not hold).
    """

    exercise: object
    targets: list
    root: Path
    sandbox: Path
    policy: dict
    view: object
    walls: Walls
    denied: list = field(default_factory=list)
    abort: threading.Event = field(default_factory=threading.Event)   # set: stop every run at once
    zygotes: dict = field(default_factory=dict)             # "nbval", "judge", "kernel": :class:`~.zygotes.Zygote`

    protection = property(lambda self: self.walls.describe())
    landlock = property(lambda self: bool(self.walls.landlock))
    enforce = property(lambda self: self.walls.filesystem)
    limits = property(lambda self: self.walls.limits)

    def close(self):
        for zygote in self.zygotes.values():
            zygote.close()
        self.zygotes.clear()
        shutil.rmtree(self.root, ignore_errors=True)


def prepare(reference, options, *, denied=()):
    """Build what a batch's runs share (:class:`Shared`): one sandbox library, one policy, the probes.

    ``denied``: paths to cut out of the kernel's allowed trees besides the defaults (the reference,
    the submissions: they matter only if they lie inside an allowed tree).
    """
    use_checkers(options.checkers)
    exercise = load_exercise(reference.exercise)
    targets = copydetect.library_functions(exercise.copy_targets)
    walls = walls_here(options)
    root = Path(tempfile.mkdtemp(prefix="lessonlib-batch-"))
    sandbox = build_library(root / "sandbox", exercise)
    denied = [os.path.dirname(os.path.abspath(reference.path)), os.getcwd(), *checker_locations(), *denied]
    policy = confinement_policy(sandbox, exercise=exercise, denied=denied, python=options.python)
    view = kernel_view(sandbox, exercise=exercise, denied=denied, python=options.python) \
        if not walls.namespaces else None
    zygotes = {}
    if options.zygotes:
        command = zygote_command(sandbox, exercise, options.python, preload=imported_modules(reference.nb))
        zygotes = {"nbval": Zygote("nbval", nbval_command(options.python), env=clean_env(PYTHONDONTWRITEBYTECODE=1)),
                   "judge": Zygote("judge", judge_command(options.python, exercise.name),
                                   env=clean_env(**checker_env())),
                   "kernel": Zygote("kernel", command, cwd=sandbox,
                                    env=clean_env(PYTHONDONTWRITEBYTECODE=1, **THREADS_ENV))}
    return Shared(exercise, targets, root, sandbox, policy, view, walls, denied, zygotes=zygotes)


def _read_and_screen(path, reference, targets):
    """Read: the answers and the student id (never run); screen: copies of library code, flags. In the reader's fork."""
    submission = read_submission(path, reference)
    copies = copydetect.find_copies(submission.answers, targets)
    return submission, copies, flags_of(submission.answers)


def voided(result):
    """Whether a result is the grader's failure, not a grade (``grader-error``): graded again, never recorded."""
    return any(c.status == "grader-error" for c in result.checks.values())


def grade_submission(reference, path, options=None, *, name=None, shared=None):
    """Grade one submission against ``reference`` (:func:`~.notebook.load_reference`).

    ``shared``: a batch's :func:`prepare` (made and removed here if not given). Returns a
    :class:`~.report.results.SubmissionResult` whatever the submission does. A run that failed on
    the grader's side (:func:`voided`: the judge, nbval, the reader, the walls) is graded once more;
    if it fails again its checks stay ``grader-error``.
    """
    options = options or Options()
    start = time.monotonic()
    own = shared is None
    try:
        shared = shared or prepare(reference, options, denied=[path])
        result = _grade_once(reference, path, options, name, shared)
        if voided(result) and not shared.abort.is_set():
            first = result.error
            result = _grade_once(reference, path, options, name, shared)
            result.flags.append(f"graded twice: the grader's first run failed ({first.splitlines()[0][:200]})"
                                if first else "graded twice: the grader's first run failed")
    finally:
        if own and shared is not None:
            shared.close()
    result.seconds = time.monotonic() - start
    return result


def _grade_once(reference, path, options, name, shared):
    name = name or os.path.basename(path)
    result = SubmissionResult(name, os.fspath(path))
    try:
        result.protection = shared.protection
        try:                                                                    # read and screen (a fork)
            submission, copies, flags = screened(_read_and_screen, path, reference, shared.targets)
        except SubmissionError as exc:
            result.checks = all_checks(reference, "unreadable", str(exc))
            result.error = str(exc)
            return result
        result.student_id, result.id_source, result.notes = submission.student_id, submission.id_source, \
            list(submission.notes)
        result.language = submission.language
        result.flags = flags + [
            f"answer cell {c.cell!r}: {c.function} is {c.ratio:.0%} identical to {c.target}" for c in copies]
        run = graded_run(reference, shared.exercise, submission, options, shared)   # run
        result.interrupted = run.interrupted
        result.error = run.details
        result.notes += run.notes + run_notes(reference, run)
        result.flags += [f"reached outside the sandbox: {a['path']} (in {a['function']})" for a in run.attempts]
        result.flags += [wording.refusal_reason(r, roles=run.roles, titles=reference.answer_titles())
                         for r in run.judge if r.get("event") == "refused"]
        result.checks = check_results(reference, shared.exercise, submission, copies, run,     # verdict
                                      enforced=shared.enforce, limits=shared.limits)
    except Exception as exc:                              # the grader's own failure: report, go on
        result.error = f"{type(exc).__name__}: {exc}"
        for c in reference.checks:
            result.checks.setdefault(c.id, CheckResult(c.id, 0, c.points, "grader-error",
                                                       wording.run_failure("lost")))
    return result


def find_submissions(paths, reference_path=None):
    """``[(name, path)]``: the notebooks in ``paths`` (files, or directories searched recursively).

    The name is the file name; when two submissions share a file name, their paths (relative to the
    directory given on the command line, or as given for a file) are used instead. The reference is
    skipped when a directory scan finds it, and graded when it is named explicitly (a sanity check
    that should score full marks). A directory scan never follows a symbolic link into another
    directory; an ``.ipynb`` entry that is not a regular file (a symlink, a FIFO, a device) is listed,
    and reading it gives that submission a clear ``unreadable`` (:func:`~.notebook.open_regular`).
    """
    ref = os.path.realpath(reference_path) if reference_path else None
    found = []
    for p in paths:
        p = Path(p)
        if p.is_dir() and not p.is_symlink():
            for top, dirs, files in os.walk(p):          # never follows a symlinked directory
                dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints")
                for f in sorted(files):
                    f = Path(top) / f
                    if f.suffix == ".ipynb" and (f.is_symlink() or os.path.realpath(f) != ref):
                        found.append((f, f.relative_to(p)))
        else:
            found.append((p, p))
    counts = {}
    for f, _ in found:
        counts[f.name] = counts.get(f.name, 0) + 1
    named = [(f.name if counts[f.name] == 1 else rel.as_posix(), f) for f, rel in found]
    seen, out = set(), []
    for name, f in named:
        while name in seen:
            name = f"{name}#"
        seen.add(name)
        out.append((name, os.fspath(f)))
    return out


# --- the keys of the resumable record -----------------------------------------------------------------

#: The options whose change changes a verdict (so a record made with others is not reused).
KEYED_OPTIONS = ("cell_timeout", "timeout", "confinement", "limits")
_HERE = Path(__file__).resolve().parent


def file_hash(path, *, submission=False):
    """The sha256 of a file, read in blocks (``"unreadable"`` if it cannot be read).

    ``submission``: only a regular file within the size limit is read, never through a symlink
    (:func:`~.notebook.open_regular`; a device or a FIFO is never opened for reading).
    """
    h = hashlib.sha256()
    try:
        fh = os.fdopen(open_regular(path), "rb") if submission else open(path, "rb")
    except (OSError, SubmissionError):
        return "unreadable"
    with fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def grader_key():
    """The hash of the grader's own modules (every ``.py`` of :mod:`lessonlib.grading` but the exercises)."""
    exercises = _HERE / "checks" / "exercises"
    files = sorted(p for p in _HERE.rglob("*.py") if exercises not in p.parents)
    text = "|".join(f"{p.relative_to(_HERE).as_posix()}:{file_hash(p)}" for p in files)
    return hashlib.sha256(text.encode()).hexdigest()


def reference_key(reference, options):
    """What every record of a batch shares: the reference, its checker module, the grader, the options,
    the lessonlib version (a change to any of them judges anew)."""
    from .. import __version__                           # noqa: PLC0415
    opts = {k: getattr(options, k, None) for k in KEYED_OPTIONS}
    source, files = exercise_files(reference.exercise)
    checker = [source] + [f"{name}:{file_hash(p)}" for name, p in files]
    key = [file_hash(reference.path), checker, grader_key(), opts, __version__]
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def submission_key(path, batch_key):
    """The key of one submission's record: its bytes and the batch's key."""
    return hashlib.sha256(f"{file_hash(path, submission=True)}|{batch_key}".encode()).hexdigest()


class Interrupted(Exception):
    """The batch was interrupted (Ctrl-C); ``results`` holds a result for every submission.

    The ones not graded are ``not-run`` with a message saying so; the graded ones are in the
    records, so the same command run again grades only the rest.
    """

    def __init__(self, results):
        super().__init__("grading was interrupted")
        self.results = results


def _pending(reference, name, path):
    result = SubmissionResult(name, os.fspath(path))
    result.checks = all_checks(reference, "not-run", "grading was interrupted before this notebook was graded; "
                                                     "run the same command again to finish")
    result.interrupted = True
    return result


class LocalRuns:
    """The local executor of :func:`grade_batch`: ``jobs`` graded runs at a time in threads, sharing ``shared``."""

    def __init__(self, reference, options, shared, jobs=1):
        self.reference, self.options, self.shared = reference, options, shared
        self.pool = ThreadPoolExecutor(max_workers=max(1, int(jobs)))

    def start(self, name, path):
        return self.pool.submit(grade_submission, self.reference, path, self.options, name=name, shared=self.shared)

    def completed(self, futures):
        return as_completed(futures)

    def result(self, future, name, path):
        return future.result()

    def ready(self, future, name, path):
        """The result of a future that finished before a stop, or None."""
        if future.done() and not future.cancelled() and future.exception() is None:
            return future.result()
        return None

    def stop(self):
        self.shared.abort.set()                            # every running graded run stops now
        self.pool.shutdown(wait=True, cancel_futures=True)

    def close(self):
        self.pool.shutdown(wait=True)


def grade_batch(reference, submissions, options=None, *, jobs=1, progress=True, shared=None, records=None,
                runs=None):
    """Grade ``[(name, path)]`` (``jobs`` at a time); results in order, one per submission, whatever happens.

    The one batch driver: ``runs`` is its executor — :class:`LocalRuns` by default (built on
    ``shared``, or on a :func:`prepare` made and removed here), or a cluster's
    (:class:`~.cluster.ClusterRuns`). ``records``: a :class:`~.report.records.Records` — a
    submission whose record is current is not graded again, and every new result is recorded as soon
    as it is made, except a grader's failure (:func:`voided`), which the next run grades again. A tqdm
    progress bar (count, rate, ETA) counts the reused ones from the start. Ctrl-C stops every run at
    once and raises :class:`Interrupted` with a result for every submission.
    """
    options = options or Options()
    own = runs is None and shared is None
    if runs is None:
        shared = shared or prepare(reference, options, denied=[p for _, p in submissions])
        runs = LocalRuns(reference, options, shared, jobs)
    batch_key = reference_key(reference, options) if records is not None else ""
    keys = [submission_key(path, batch_key) if records is not None else "" for _, path in submissions]
    results = [records.get(name, key) if records is not None else None
               for (name, _), key in zip(submissions, keys)]
    bar = None
    if progress:
        from tqdm import tqdm                              # noqa: PLC0415
        bar = tqdm(total=len(submissions), initial=sum(r is not None for r in results), unit="notebook",
                   desc="grading", file=sys.stderr)
    futures, recorded = {}, set()

    def record(i):                                         # a grader's failure is never kept: a rerun grades it
        if records is not None and i not in recorded and not results[i].interrupted and not voided(results[i]):
            records.put(submissions[i][0], keys[i], results[i])
            recorded.add(i)

    def done(i, result):
        results[i] = result
        record(i)
        if bar is not None:
            bar.update(1)

    try:
        for i, (name, path) in enumerate(submissions):
            if results[i] is not None:
                continue
            try:
                futures[runs.start(name, path)] = i
            except SubmissionError as exc:                 # the executor could not even ship it
                done(i, _unreadable(reference, name, path, str(exc)))
        for future in runs.completed(futures):
            i = futures[future]
            name, path = submissions[i]
            done(i, runs.result(future, name, path))
    except KeyboardInterrupt:
        runs.stop()
        for future, i in futures.items():                  # what finished before Ctrl-C is kept, and recorded
            if results[i] is None:
                results[i] = runs.ready(future, *submissions[i])
            if results[i] is not None:                     # (also one whose recording Ctrl-C cut short)
                record(i)
        raise Interrupted([r if r is not None and not r.interrupted else _pending(reference, name, path)
                           for r, (name, path) in zip(results, submissions)]) from None
    finally:
        runs.close()
        if bar is not None:
            bar.close()
        if own:
            shared.close()
    return results


def _unreadable(reference, name, path, message):
    result = SubmissionResult(name, os.fspath(path))
    result.checks, result.error = all_checks(reference, "unreadable", message), message
    return result


__all__ = ["Options", "Shared", "Interrupted", "LocalRuns", "prepare", "grade_submission", "grade_batch",
           "find_submissions", "voided"]
