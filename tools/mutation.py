"""Mutation testing of the grader's decision and wall modules: ``make mutation`` (not part of ``make test``).

Each mutant is one small change of one module made by mutmut's engine (``<`` for ``<=``, ``x + 1`` for
``x``, a string changed, a ``break`` for a ``continue``, ...). The module's own tests then run against it;
a mutant they do not fail *survives*: the tests would not notice that weakening of the grader. Every
survivor must be killed by a new test or explained, as equivalent to the original or out of this
machine's reach, in the grading README's table "Mutants that survive" (``lessonlib/grading/README.md``;
a row whose mutant is ``*`` explains every mutant of its line); the run fails on any other.

Speed: each worker is a copy of the project (the module files are rewritten there, never here), and
imports pytest and NumPy once; each mutant's tests run in a fork of it (``pytest -x``: the first failure
kills the mutant). ``-j 2`` runs two workers. A mutant whose tests run ten times longer than the
unmutated module's is killed by the timeout (counted apart, as mutmut does).

Usage::

    python -m tools.mutation                      # every module below, both workers
    python -m tools.mutation verdict screening    # some of them
    python -m tools.mutation --list               # the modules and the tests each one runs
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
GRADING = "lessonlib/grading"
README = ROOT / GRADING / "README.md"

#: Each module under mutation and the fast tests that guard it (fastest first: ``-x`` stops at the first failure).
MODULES = {
    "verdict": (f"{GRADING}/verdict.py", ["tests/test_grading_verdict.py", "tests/test_grading_rules.py"]),
    "screening": (f"{GRADING}/screening.py", ["tests/test_grading_screening.py", "tests/test_grading_rules.py",
                                              "tests/test_grading_verdict.py"]),
    "limits": (f"{GRADING}/kernel/limits.py", ["tests/test_grading_kernel_limits.py", "tests/test_grading_verdict.py"]),
    "reader": (f"{GRADING}/reader.py", ["tests/test_grading_reader.py", "tests/test_grading_rules.py"]),
    "notebook": (f"{GRADING}/notebook.py", ["tests/test_grading_notebook_parts.py", "tests/test_grading_notebooks.py",
                                            "tests/test_grading_rules.py", "tests/test_grading_verdict.py"]),
    "confine": (f"{GRADING}/kernel/confine.py", ["tests/test_grading_kernel_confine.py", "tests/test_grading_rules.py"]),
}
#: Third-party modules a worker imports once before it forks (never anything of lessonlib: the forks import that).
PREIMPORTED = ("numpy", "pytest", "_pytest.assertion.rewrite", "hypothesis", "hypothesis.strategies", "nbformat",
               "jsonschema", "xdist", "scipy.linalg")
#: The part of a worker's copy of the project that tests read.
COPIED = ("lessonlib", "tests", "tools", "solutions", "exercises", "course", "pyproject.toml")
#: A mutant's tests may take this many times the unmutated module's (and at least MIN_TIMEOUT seconds).
TIMEOUT_FACTOR, MIN_TIMEOUT = 10.0, 30.0
PYTEST = ["-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:nbval", "-m", "not slow",
          "--no-header", "--tb=no", "-W", "ignore::pytest.PytestAssertRewriteWarning"]


# --- the mutants ---------------------------------------------------------------------------------

def mutants(path):
    """Every mutant of the module at ``path`` (relative to the project): ``(line number, old line, new line, source)``."""
    from mutmut import Context, list_mutations, mutate          # noqa: PLC0415 (a tool-only dependency)
    source = (ROOT / path).read_text()
    found = []
    for mutation in list_mutations(Context(source=source, filename=path)):
        mutated, count = mutate(Context(source=source, filename=path, mutation_id=mutation))
        if count != 1 or mutated == source:
            continue
        old, new = _changed_line(source, mutated)
        found.append((mutation.line_number + 1, old, new, mutated))
    return found


def _changed_line(source, mutated):
    """The first line the mutation changes, before and after (stripped)."""
    for a, b in zip(source.splitlines(), mutated.splitlines()):
        if a != b:
            return a.strip(), b.strip()
    diff = [line for line in difflib.ndiff(source.splitlines(), mutated.splitlines()) if line[:1] in "+-"]
    return (diff[0][2:].strip() if diff else ""), (diff[1][2:].strip() if len(diff) > 1 else "")


def key(module, old, new):
    """A survivor's name that does not move with line numbers: module, the line, what it became."""
    return f"{module}: `{old}` → `{new}`"


# --- the explained survivors (grading README) -------------------------------------------------------

_ROW = re.compile(r"^\| `(?P<module>[a-z_]+)` \| `(?P<old>.+?)` \| `(?P<new>.+?)` \| (?P<why>.+?) \|\s*$")


def explained(readme=README):
    """``{key: why}`` from the README's table "Mutants that survive" (rows: module | line | mutant | why)."""
    text = readme.read_text()
    start = text.find("### Mutants that survive")
    if start < 0:
        return {}
    rows = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        m = _ROW.match(line)
        if m:
            old, new = (s.replace("\\|", "|") for s in (m["old"], m["new"]))
            rows[key(m["module"], old, new)] = m["why"]
    return rows


# --- running the tests against one mutant ------------------------------------------------------------

def _worker_copy(where):
    """A copy of the project's tested part in ``where`` (its ``lessonlib`` is the one the tests import)."""
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, where / name, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
        else:
            shutil.copy2(src, where / name)
    return where


def _run_tests(copy, tests, timeout):
    """Run ``tests`` in a fork (the copy first on ``sys.path``); returns ``"killed"``, ``"survived"`` or ``"timeout"``.

    The fork reports its pid and pytest's exit code down a pipe: one that ends without reporting them (a
    mutant that made the tested code call ``os._exit``, say) is killed, whatever its exit status, and so
    is one whose only report comes from a duplicate of itself (a mutant that made a forked child run on
    through the tests).
    """
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                           # the child: a fresh import of the copy's lessonlib
        os.close(read)
        try:
            os.chdir(copy)
            os.setsid()
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            sys.path.insert(0, str(copy))
            for name in [m for m in sys.modules if m == "lessonlib" or m.startswith(("lessonlib.", "tests"))]:
                del sys.modules[name]
            import pytest                                  # noqa: PLC0415
            code = int(pytest.main([*PYTEST, *tests]))
        except BaseException:                              # noqa: BLE001 (a mutant that breaks the import)
            code = 1
        os.write(write, f"{os.getpid()} {code}\n".encode())    # a duplicate a mutant forked reports another pid
        os._exit(0)
    os.close(write)
    deadline = time.monotonic() + timeout
    try:
        while True:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                return "timeout"
            time.sleep(0.05)
        os.set_blocking(read, False)                       # the report is in the pipe already, or never comes
        try:                                               # (a process the tests left behind may hold its end)
            lines = os.read(read, 4096).decode().split("\n")
        except BlockingIOError:
            lines = []
        reported = next((line.split()[1] for line in lines if line.split()[:1] == [str(pid)]), "")
    finally:
        os.close(read)
    return "survived" if reported in ("0", "5") else "killed"


def worker(names, index, count, out):
    """Run this worker's share of the mutants of ``names`` (every ``count``-th, from ``index``); JSON lines to ``out``."""
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ["LESSONLIB_TESTING"] = "1"
    sys.dont_write_bytecode = True
    for name in PREIMPORTED:                               # imported once, shared by the forks
        try:
            __import__(name)
        except ImportError:                                # only a speed-up: the forks import what they need
            pass
    # mkdtemp and an explicit removal by this process alone: a fork that a mutant sends back through the
    # test runner must not inherit a finaliser that deletes the copy when it exits
    tmp = tempfile.mkdtemp(prefix=f"lessonlib-mutation-{index}-")
    owner = os.getpid()
    try:
        copy = _worker_copy(pathlib.Path(tmp))
        os.environ["PYTHONPATH"] = str(copy) + os.pathsep + os.environ.get("PYTHONPATH", "")
        with open(out, "w", encoding="utf-8") as log:
            for name in names:
                path, tests = MODULES[name]
                target = copy / path
                original = target.read_text()
                start = time.monotonic()
                baseline = _run_tests(copy, tests, 3600)
                took = time.monotonic() - start
                if baseline != "survived":
                    print(json.dumps({"module": name, "error": "the tests fail on the unmutated module"}), file=log,
                          flush=True)
                    continue
                timeout = max(MIN_TIMEOUT, TIMEOUT_FACTOR * took)
                for i, (line, old, new, mutated) in enumerate(mutants(path)):
                    if i % count != index:
                        continue
                    target.write_text(mutated)
                    try:
                        status = _run_tests(copy, tests, timeout)
                    finally:
                        target.write_text(original)
                    print(json.dumps({"module": name, "line": line, "old": old, "new": new, "status": status}),
                          file=log, flush=True)
    finally:
        if os.getpid() == owner:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help=f"some of: {', '.join(MODULES)} (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="workers (default 2)")
    parser.add_argument("--list", action="store_true", help="list the modules and their tests, and stop")
    parser.add_argument("--out", default=str(ROOT / "build" / "mutation"), help="where the results go")
    parser.add_argument("--worker", nargs=3, metavar=("INDEX", "COUNT", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"modules: expected some of {', '.join(MODULES)}, got {', '.join(unknown)}")
    names = args.modules or list(MODULES)
    if args.list:
        for name in names:
            print(f"{name:10s} {MODULES[name][0]}  <- {' '.join(MODULES[name][1])}  ({len(mutants(MODULES[name][0]))} mutants)")
        return 0
    if args.worker:
        worker(names, int(args.worker[0]), int(args.worker[1]), args.worker[2])
        return 0
    if args.jobs < 1:
        parser.error(f"--jobs: expected at least 1, got {args.jobs}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    total = sum(len(mutants(MODULES[n][0])) for n in names)
    print(f"{total} mutants of {', '.join(names)}, {args.jobs} worker(s)", flush=True)
    logs = [out / f"worker-{i}.jsonl" for i in range(args.jobs)]
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-m", "tools.mutation", *names, "--worker", str(i), str(args.jobs),
                               str(log)], cwd=ROOT) for i, log in enumerate(logs)]
    while any(p.poll() is None for p in procs):
        time.sleep(10)
        done = sum(len(log.read_text().splitlines()) for log in logs if log.exists())
        print(f"  {done}/{total} mutants, {time.monotonic() - start:.0f} s", flush=True)
    results = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    code = report(results, out)
    failed = [i for i, proc in enumerate(procs) if proc.returncode != 0]
    if failed or len(results) < total:
        print(f"incomplete: {len(results)} of {total} mutants run (worker(s) {failed} failed); run again")
        return 1
    return code


def report(results, out):
    """Print the counts and the survivors; 1 if a survivor is not explained in the README (or a module is broken)."""
    broken = [r for r in results if "error" in r]
    for r in broken:
        print(f"{r['module']}: {r['error']}")
    results = [r for r in results if "error" not in r]
    why = explained()
    lines, unexplained = [], 0
    for name in dict.fromkeys(r["module"] for r in results):
        mine = [r for r in results if r["module"] == name]
        counts = {s: sum(r["status"] == s for r in mine) for s in ("killed", "timeout", "survived")}
        lines.append(f"{name}: {len(mine)} mutants, {counts['killed']} killed, {counts['timeout']} by timeout, "
                     f"{counts['survived']} survived")
        for r in sorted((r for r in mine if r["status"] == "survived"), key=lambda r: r["line"]):
            k = key(name, r["old"], r["new"])
            known = k in why or key(name, r["old"], "*") in why         # a row for every mutant of the line
            unexplained += not known
            lines.append(f"  {'explained' if known else 'SURVIVED '} line {r['line']}: `{r['old']}` → `{r['new']}`")
    text = "\n".join(lines)
    print(text)
    (out / "survivors.txt").write_text(text + "\n")
    if unexplained:
        print(f"{unexplained} survivor(s) neither killed nor explained in {README.relative_to(ROOT)}")
    return 1 if unexplained or broken else 0


if __name__ == "__main__":
    sys.exit(main())
