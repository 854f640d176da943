"""Export the grader as a Gradescope autograder bundle: ``out/`` and ``out.zip``.

Gradescope unpacks the uploaded zip into ``/autograder/source/``, runs its ``setup.sh`` once as root
when it builds the autograder's image (Ubuntu), copies its ``run_autograder`` to
``/autograder/run_autograder`` and runs that once per submission, with the student's files in
``/autograder/submission/``; the script must write ``/autograder/results/results.json``
(gradescope-autograders.readthedocs.io, "Autograder Specifications"). The bundle::

    setup.sh                  apt-get python3, python3-venv, pip; /autograder/venv; pip install the wheel
                              and what lessonlib-grade needs at grading time
    run_autograder            finds the notebook, runs lessonlib-grade --json, then
                              python -m lessonlib.grading.report.gradescope → results.json
    lessonlib-*.whl           lessonlib, built from its source tree (the one this process imports)
    reference/<name>.ipynb    the solution notebook (the grader's reference)
    checkers/0/, ...          copies of the instructor's --checkers folders (.py files only)
    README.md                 for the instructor: what to upload, the walls in Gradescope's container

Command line::

    python -m lessonlib.grading.export gradescope --reference solutions/05_rnea.ipynb --out gradescope-05 \\
        [--checkers DIR ...] [--confinement auto] [--timeout 600] [--cell-timeout 60]

``run_autograder`` reads its root from ``AUTOGRADER_ROOT`` (default ``/autograder``), so a test can lay
out a temporary directory the way Gradescope does.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import lessonlib

from .checks.checker import load_exercise
from .checks.registry import use_checkers
from .grader import CONFINEMENTS
from .notebook import load_reference
from .report.gradescope import grader_failed

#: What lessonlib-grade imports at grading time beyond lessonlib's own dependencies (its ``test`` extra's
#: grading part); setup.sh installs them with the version bounds lessonlib declares.
GRADING_EXTRAS = ("pytest", "nbval", "nbclient", "nbformat")
#: Files of the source tree's top level that a wheel build reads (with the package folder).
_TOP_FILES = re.compile(r"^(pyproject\.toml|setup\.py|setup\.cfg|MANIFEST\.in|README.*|LICEN[CS]E.*)$")
_NOT_COPIED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.egg-info", ".ipynb_checkpoints")


# --- what goes in the bundle -------------------------------------------------------------------------------

def source_tree():
    """The source tree of the lessonlib this process imports (the folder holding ``pyproject.toml``)."""
    root = Path(lessonlib.__file__).resolve().parent.parent
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or not re.search(r'(?m)^name\s*=\s*"lessonlib"', pyproject.read_text("utf-8")):
        raise RuntimeError(f"export: lessonlib is imported from {root}, which is not its source tree (no "
                           "pyproject.toml naming lessonlib): the bundle ships a wheel built from the source, so "
                           "export from a checkout of the course (pip install -e .)")
    return root


def build_wheel(dest):
    """Build lessonlib's wheel into ``dest`` from a clean copy of its source tree; returns the wheel's path.

    The copy (the package without caches, the top-level build files) keeps the shared working tree free of
    ``build/`` and ``*.egg-info`` and keeps a stale ``build/lib`` out of the wheel.
    """
    root = source_tree()
    with tempfile.TemporaryDirectory(prefix="lessonlib-wheel-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(root / "lessonlib", src / "lessonlib", ignore=_NOT_COPIED)
        for f in root.iterdir():
            if f.is_file() and _TOP_FILES.match(f.name):
                shutil.copy2(f, src / f.name)
        out = Path(tmp) / "wheel"
        proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", os.fspath(out),
                               os.fspath(src)], capture_output=True, text=True)
        wheels = sorted(out.glob("lessonlib-*.whl"))
        if proc.returncode != 0 or len(wheels) != 1:
            raise RuntimeError(f"export: building lessonlib's wheel from {root} failed (pip wheel exited "
                               f"{proc.returncode}):\n{proc.stderr[-3000:]}")
        return Path(shutil.copy2(wheels[0], Path(dest) / wheels[0].name))


def grading_requirements():
    """``["pytest>=8", ...]``: :data:`GRADING_EXTRAS` with the bounds lessonlib's metadata gives them."""
    try:
        declared = importlib.metadata.requires("lessonlib") or []
    except importlib.metadata.PackageNotFoundError:
        declared = []
    found = {}
    for req in declared:
        m = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*([^;]*)", req)
        if m and m.group(1).lower() in GRADING_EXTRAS and m.group(1).lower() not in found:
            found[m.group(1).lower()] = m.group(1) + m.group(2).replace(" ", "")
    return [found.get(name, name) for name in GRADING_EXTRAS]


def copy_checkers(folders, dest):
    """Copy each folder of checker modules to ``dest/0``, ``dest/1``, ...: ``.py`` files and folders of them."""
    copied = []
    for i, folder in enumerate(folders):
        target = Path(dest) / str(i)
        shutil.copytree(folder, target, ignore=_only_python)
        for d in sorted(target.rglob("*"), key=lambda p: -len(p.parts)):      # drop folders left empty
            if d.is_dir() and not any(d.iterdir()):
                d.rmdir()
        copied.append(target)
    return copied


def _only_python(directory, names):
    """``shutil.copytree``'s ignore: everything but ``.py`` files and sub-folders (no caches, no links)."""
    keep = set()
    for n in names:
        p = Path(directory) / n
        if p.is_symlink() or n == "__pycache__" or n.startswith("."):
            continue
        if p.is_dir() or (p.is_file() and n.endswith(".py")):
            keep.add(n)
    return set(names) - keep


# --- the two scripts ---------------------------------------------------------------------------------------

SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu).
# Written by `python -m lessonlib.grading.export gradescope`; AUTOGRADER_ROOT is for a local trial.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv python3-pip
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --upgrade pip
"$ROOT/venv/bin/python" -m pip install "$ROOT/source/{wheel}"
"$ROOT/venv/bin/python" -m pip install {requirements}
"$ROOT/venv/bin/python" -c "import lessonlib.grading.cli, nbval, nbclient, nbformat"
"""

RUN = """\
#!/usr/bin/env bash
# Gradescope runs this once per submission (as /autograder/run_autograder): grade the notebook in
# $ROOT/submission/ with lessonlib-grade, then write $ROOT/results/results.json for Gradescope.
# Written by `python -m lessonlib.grading.export gradescope`; AUTOGRADER_ROOT is for a local trial.
set -euo pipefail
# Real paths (symbolic links resolved): the grader builds the graded kernel's world from them, and an
# interpreter reached through a linked folder would not be in it.
ROOT="$(cd "${{AUTOGRADER_ROOT:-/autograder}}" 2>/dev/null && pwd -P || echo "${{AUTOGRADER_ROOT:-/autograder}}")"
PY="$(cd "$ROOT/venv/bin" 2>/dev/null && pwd -P || echo "$ROOT/venv/bin")/python"
SUBMISSION="$ROOT/submission"
RESULTS="$ROOT/results/results.json"
REFERENCE="$ROOT/source/reference/"{name}
NAME={name}
CHECKERS=({checkers})
OPTIONS=({options})
mkdir -p "$ROOT/results"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# The last resort: Gradescope still gets a results.json (score 0) when no Python step could write one.
failed() {{
    echo "run_autograder: $1"
    cat > "$RESULTS" <<'JSON'
{failed}
JSON
    exit 0
}}
[[ -x "$PY" ]] || failed "no Python at $PY (did setup.sh run?)"

# The notebooks of the submission, in any folder (not checkpoints, not macOS zip debris), regular files only.
notebooks=()
if [[ -d "$SUBMISSION" ]]; then
    while IFS= read -r -d '' nb; do notebooks+=("$nb"); done < <(
        find "$SUBMISSION" \\( -name .ipynb_checkpoints -o -name __MACOSX \\) -prune \\
             -o -type f -name '*.ipynb' ! -name '._*' -print0 | sort -z)
fi
# Several: the one named like the exercise is graded and the others are ignored; else nothing is graded.
convert=()
if (( ${{#notebooks[@]}} > 1 )); then
    named=() others=()
    for nb in "${{notebooks[@]}}"; do
        if [[ "$(basename -- "$nb")" == "$NAME" ]]; then named+=("$nb"); else others+=("${{nb#"$SUBMISSION"/}}"); fi
    done
    if (( ${{#named[@]}} == 1 )); then
        notebooks=("${{named[0]}}")
        for n in "${{others[@]}}"; do convert+=("--ignored=$n"); done
    else
        for nb in "${{notebooks[@]}}"; do convert+=("--several=${{nb#"$SUBMISSION"/}}"); done
        notebooks=()
    fi
fi

if (( ${{#notebooks[@]}} == 0 )); then
    echo '{{}}' > "$TMP/results.json"                  # no notebook: the converter says so
else
    status=0
    "$PY" -m lessonlib.grading.cli --reference "$REFERENCE" "${{CHECKERS[@]}}" --json "$TMP/results.json" \\
        "${{OPTIONS[@]}}" -q "${{notebooks[0]}}" || status=$?
    if (( status != 0 )); then
        echo "run_autograder: lessonlib-grade failed (exit status $status)"
        rm -f "$TMP/results.json"                      # the converter then writes the grader's failure
    fi
fi
"$PY" -m lessonlib.grading.report.gradescope "$TMP/results.json" "$RESULTS" "${{convert[@]}}" \\
    || failed "the converter failed"
[[ -s "$RESULTS" ]] || failed "no results.json was written"
"""


def _failed_json():
    """The static results.json of ``run_autograder``'s last resort (one line: it sits in a heredoc)."""
    return json.dumps(grader_failed("run_autograder: no Python step could write results.json"), ensure_ascii=True)


def setup_script(wheel):
    """``setup.sh``: Python, a venv at ``$ROOT/venv``, the wheel named ``wheel`` and the grading extras."""
    return SETUP.format(wheel=wheel, requirements=" ".join(shlex.quote(r) for r in grading_requirements()))


def run_script(name, checkers=0, *, confinement="auto", timeout=600, cell_timeout=60):
    """``run_autograder`` for the reference ``reference/<name>`` and ``checkers`` copied folders."""
    folders = " ".join(f'--checkers "$ROOT/source/checkers/{i}"' for i in range(checkers))
    options = f"--confinement {confinement} --timeout {timeout:g} --cell-timeout {cell_timeout:g}"
    return RUN.format(name=shlex.quote(name), checkers=folders, options=options, failed=_failed_json())


# --- the instructor's README -------------------------------------------------------------------------------

README = """\
# Gradescope autograder: {name}

Made by `python -m lessonlib.grading.export gradescope` from `{name}`{checkers_note}.

**Upload** `{zip}` (Gradescope: the assignment → *Configure Autograder* → *Zip file upload*,
base image Ubuntu). Gradescope runs `setup.sh` once to build the image (Python, `/autograder/venv`,
the wheel `{wheel}` and what the grader needs), then `run_autograder` once per submission. Set the
assignment's points to the exercise's total ({points}) and the autograder's timeout above
{timeout:g} s (the grader's limit per notebook, `--timeout`).

**Students** upload their exercise notebook (`{name}`). Any `.ipynb` below the submission is found
(checkpoints and macOS `__MACOSX` debris ignored); when there are several, the one named `{name}` is
graded and the others ignored, else nothing is graded and the student is told to submit one. Each
check is a Gradescope test (`[check-id]`, points earned / points, the same explanation and message as
the grader's Markdown feedback, always visible); the top-level output gives the score, the student id,
points withheld for review, the notes, and the walls line. Flags and the grader's own errors are for
you only: stored in the results' `extra_data`, and printed on the autograder's standard output (which
students do not see).
A grader that fails still leaves a results.json with a score of 0 telling the student to contact you.

**Walls.** The grader probes once per submission what holds in Gradescope's container (Landlock, a
private read-only world of user, mount, network and PID namespaces) and writes it in the walls line
of every result. Docker often forbids user namespaces and may filter the Landlock system calls: the
line says what held. This bundle uses `--confinement {confinement}`: `auto` grades with every wall that
works (without a filesystem wall, answers whose code could read files keep their points only after
your review), `landlock` refuses to grade without Landlock, `strict` without every wall, `none`
grades without walls. The solution notebook is in the image (`reference/`): without walls, only the
review rule stands between it and a student's code. Re-export with another `--confinement` if needed.
"""


def readme(name, zip_name, wheel, *, points, checkers=0, confinement="auto", timeout=600):
    note = f" with {checkers} folder(s) of checker modules (`checkers/`)" if checkers else ""
    return README.format(name=name, zip=zip_name, wheel=wheel, points=points, checkers_note=note,
                         confinement=confinement, timeout=timeout)


# --- the export --------------------------------------------------------------------------------------------

def _checked(reference, out, checkers, confinement, timeout, cell_timeout):
    """The arguments, validated: ``(reference Path, out Path, [checker folders])`` (a ValueError names the bad one)."""
    reference = Path(reference)
    if not reference.is_file() or reference.suffix != ".ipynb":
        raise ValueError(f"reference: expected a solution notebook (.ipynb file), got {os.fspath(reference)!r}")
    if confinement not in CONFINEMENTS:
        raise ValueError(f"confinement: expected one of {', '.join(CONFINEMENTS)}, got {confinement!r}")
    for label, value in (("timeout", timeout), ("cell_timeout", cell_timeout)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"{label}: expected a positive number of seconds, got {value!r}")
    if isinstance(checkers, (str, os.PathLike)):
        raise ValueError(f"checkers: expected a list of directories, got the single path {os.fspath(checkers)!r}")
    folders = [Path(c).resolve() for c in checkers]
    for folder in folders:
        if not folder.is_dir():
            raise ValueError(f"checkers: expected a directory of exercise modules, got {os.fspath(folder)!r}")
    out = Path(out)
    if out.exists() and not _replaceable(out):
        raise ValueError(f"out: {os.fspath(out)!r} exists and is not an earlier Gradescope bundle: choose a new "
                         "directory")
    return reference, out, folders


def _replaceable(out):
    """An empty directory, or one an earlier export wrote (its two scripts and its reference folder)."""
    if not out.is_dir() or out.is_symlink():
        return False
    names = {p.name for p in out.iterdir()}
    return not names or {"setup.sh", "run_autograder", "reference"} <= names


def _zip(directory, path):
    """Zip ``directory``'s contents at the archive's top level (modes kept: the scripts stay executable)."""
    tmp = path.with_name(path.name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(directory.rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(directory).as_posix())
    os.replace(tmp, path)
    return path


def export_gradescope(reference, out, *, checkers=(), confinement="auto", timeout=600, cell_timeout=60):
    """Write the Gradescope bundle for ``reference`` to the directory ``out`` and to ``out.zip``; returns the zip.

    ``checkers``: folders of an instructor's exercise modules (``lessonlib-grade --checkers``);
    ``confinement``, ``timeout``, ``cell_timeout``: ``lessonlib-grade``'s options of the same names, used by
    ``run_autograder``. A ``ValueError`` names a bad argument; a ``RuntimeError`` says the wheel could not
    be built (e.g. lessonlib is not imported from its source tree).
    """
    reference, out, folders = _checked(reference, out, checkers, confinement, timeout, cell_timeout)
    use_checkers(folders)
    ref = load_reference(reference)                       # a ReferenceNotebookError (a ValueError) says why not
    points = sum(c.points for c in load_exercise(ref.exercise).checks.values())
    zip_path = out.with_name(out.name + ".zip")
    if out.exists():
        shutil.rmtree(out)
    (out / "reference").mkdir(parents=True)
    try:
        wheel = build_wheel(out).name
        shutil.copy2(reference, out / "reference" / reference.name)
        copy_checkers(folders, out / "checkers")
        scripts = {"setup.sh": setup_script(wheel),
                   "run_autograder": run_script(reference.name, len(folders), confinement=confinement,
                                                timeout=timeout, cell_timeout=cell_timeout)}
        for file, text in scripts.items():
            (out / file).write_text(text, encoding="utf-8")
            (out / file).chmod(0o755)
        (out / "README.md").write_text(readme(reference.name, zip_path.name, wheel, points=points,
                                              checkers=len(folders), confinement=confinement, timeout=timeout),
                                       encoding="utf-8")
        return _zip(out, zip_path)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)             # no half bundle, and no older zip, to upload by mistake
        zip_path.unlink(missing_ok=True)
        raise


# --- command line ------------------------------------------------------------------------------------------

def _parser():
    p = argparse.ArgumentParser(prog="python -m lessonlib.grading.export",
                                description="Export the grader as an autograder bundle for another platform.")
    sub = p.add_subparsers(dest="target", required=True, metavar="TARGET")
    g = sub.add_parser("gradescope", help="a Gradescope autograder: DIR/ and DIR.zip (upload the zip)",
                       description="Write a Gradescope autograder bundle: DIR/ and DIR.zip (upload the zip).")
    g.add_argument("--reference", required=True, metavar="SOLUTION.ipynb", help="the solution notebook")
    g.add_argument("--out", required=True, metavar="DIR", help="the bundle's directory (DIR.zip is written beside)")
    g.add_argument("--checkers", action="append", default=[], metavar="DIR",
                   help="a folder of your exercise modules (lessonlib-grade --checkers); repeatable")
    g.add_argument("--confinement", choices=CONFINEMENTS, default="auto",
                   help="lessonlib-grade --confinement in Gradescope's container (auto)")
    g.add_argument("--timeout", type=float, default=600.0, metavar="S", help="seconds per notebook (600)")
    g.add_argument("--cell-timeout", type=float, default=60.0, metavar="S", help="seconds per cell (60)")
    return p


def main(argv=None):
    """Exit 0 with the zip's path printed; 2 with the reason on a usage error or a failed build."""
    args = _parser().parse_args(argv)
    try:
        path = export_gradescope(args.reference, args.out, checkers=args.checkers, confinement=args.confinement,
                                 timeout=args.timeout, cell_timeout=args.cell_timeout)
    except (ValueError, RuntimeError) as exc:
        print(f"lessonlib.grading.export: error: {exc}", file=sys.stderr)
        return 2
    print(f"{path}  (upload this zip to Gradescope; its contents are in {args.out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
