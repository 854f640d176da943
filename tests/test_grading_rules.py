"""The grader's rules one by one, so that weakening any single one fails a test of its own.

Found by mutation (issue 30): every attack in the other tests trips several screening rules at once,
so removing one rule went unnoticed; a Landlock probe that reported its ABI although the denied file
was readable would have been trusted; a source checkout inside an allowed tree was denied only
where the tests happened to run. Each test here names the one rule it guards.
"""
from __future__ import annotations

import os
import sys

import pytest

from lessonlib.grading import sandbox, screening
from lessonlib.grading.kernel import confine

PY = sys.executable


def _hits(body):
    """What the review screen finds in ``def f(a):`` with this body."""
    import ast
    return screening._review_hits([ast.parse("def f(a):\n" + "\n".join("    " + line for line in body.splitlines()))])


# --- one snippet per screening rule ----------------------------------------------------------------------

#: What the screen must catch, written here independently of screening.py's lists (a rule dropped
#: from a list fails its own case below).
CALLS = ("__builtins__", "__import__", "__loader__", "__spec__", "breakpoint", "compile", "delattr", "eval", "exec",
         "getattr", "globals", "input", "locals", "memoryview", "open", "setattr", "vars")
MODULES = ("builtins", "codecs", "ctypes", "fileinput", "gc", "glob", "http", "importlib", "inspect", "io", "linecache",
           "marshal", "mmap", "os", "pathlib", "pickle", "pkgutil", "runpy", "shutil", "socket", "subprocess", "sys",
           "tempfile", "types", "urllib", "zipimport")
ATTRIBUTES = ("DataSource", "fromfile", "fromregex", "genfromtxt", "listdir", "load", "loadtxt", "memmap", "open",
              "open_memmap", "read_bytes", "read_text", "scandir", "walk")
STRINGS = ("/proc", "/dev/fd", ".ipynb", "site-packages", "lessonlib/", "solutions")
RULES = (
    [(f"call {name}", f"return {name}", name) for name in CALLS]
    + [(f"module {name}", f"return {name}", name) for name in MODULES]
    + [(f"attribute {name}", f"return a.{name}", f".{name}") for name in ATTRIBUTES]
    + [(f"string {frag}", f"return 'x{frag}y'", f"the string {frag!r}") for frag in STRINGS]
    + [("a dunder attribute", "return a.__class__", ".__class__"),
       ("a dunder built from a string is getattr", "return getattr(a, '__glo' + 'bals__')", "getattr"),
       ("an import outside the safe modules", "import xml\nreturn a", "import xml"),
       ("a reader imported by name", "from numpy import loadtxt\nreturn loadtxt", "loadtxt")]
)


@pytest.mark.parametrize("rule, body, hit", RULES, ids=[r[0] for r in RULES])
def test_each_screening_rule_catches_its_own_snippet(rule, body, hit):
    hits = _hits(body)
    assert hit in hits, (rule, hits)
    if rule != "a reader imported by name" and not rule.startswith("attribute "):
        assert hits == [hit], (rule, hits)                 # the snippet trips this rule alone


@pytest.mark.parametrize("body", ["return a.__name__ + a.__doc__", "import numpy as np\nreturn np.linalg.solve(a, a)",
                                  "from math import sqrt\nreturn sqrt(a)", "return 'solution of the exercise'"])
def test_honest_code_trips_no_rule(body):
    assert _hits(body) == []


def test_the_table_above_covers_every_rule_of_the_screen():
    """A rule added to screening.py without a case here fails (the table must grow with the screen)."""
    assert set(CALLS) == screening.REVIEW_CALLS and set(MODULES) == screening.REVIEW_MODULES
    assert set(ATTRIBUTES) == screening.REVIEW_ATTRIBUTES and set(STRINGS) == set(screening.REVIEW_STRINGS)


# --- the Landlock probe ---------------------------------------------------------------------------------

@pytest.mark.skipif(confine.abi() == 0, reason="Landlock is not available here")
def test_the_probe_reports_zero_when_the_denied_file_was_readable():
    """A probe that could read its 'denied' file (inside an allowed tree: as on a system whose Landlock
    does not enforce) must report 0, never the ABI."""
    readable = os.path.join(os.path.dirname(os.__file__), "os.py")          # inside sys.base_prefix
    assert os.path.commonpath([readable, sys.base_prefix]) == sys.base_prefix
    assert confine.probe(PY, readable) == 0


# --- a checkout inside an allowed tree --------------------------------------------------------------------

def test_a_checkout_inside_an_allowed_tree_is_cut_out_of_it(tmp_path, monkeypatch):
    """The project root of a source checkout is denied wherever it sits, also inside a tree the kernel may
    read (``/usr/local/src``, the Python prefix): solutions/, course/ and tests/ stay closed."""
    tree = tmp_path / "usr"                                # an allowed tree, as /usr is
    checkout = tree / "local" / "src" / "course"
    for d in ("lessonlib", "solutions", "course", "tests"):
        (checkout / d).mkdir(parents=True)
    (checkout / "solutions" / "05_rnea.ipynb").write_text("{}")
    (tree / "local" / "lib").mkdir(parents=True)
    (tree / "local" / "lib" / "libm.so").write_text("")
    monkeypatch.setattr(sandbox, "SYSTEM_READ_EXEC", (*sandbox.SYSTEM_READ_EXEC, str(tree)))
    monkeypatch.setattr(sandbox, "_package_dir", lambda: checkout / "lessonlib")
    assert str(checkout) in sandbox.denied_paths()
    policy = sandbox.confinement_policy(tmp_path / "sandbox")
    granted = policy["read_exec"] + policy["read"]
    inside = [p for p in granted if p == str(checkout) or p.startswith(str(checkout) + os.sep)]
    assert inside == []
    assert str(tree / "local" / "lib") in granted                       # the rest of the tree stays allowed
    view = sandbox.kernel_view(tmp_path / "sandbox")
    assert str(checkout) in view["hidden"]


def test_an_installed_library_does_not_deny_its_site_packages(monkeypatch, tmp_path):
    """The other side of the rule: an installed (not checked-out) lessonlib denies itself, not its parent."""
    site = tmp_path / "site-packages"
    (site / "lessonlib").mkdir(parents=True)
    monkeypatch.setattr(sandbox, "_package_dir", lambda: site / "lessonlib")
    monkeypatch.setattr(sandbox, "_site_candidates", lambda: [str(site)])
    denied = sandbox.denied_paths()
    assert str(site / "lessonlib") in denied and str(site) not in denied


# --- the size limit -----------------------------------------------------------------------------------

def test_a_file_one_byte_over_64_mb_is_refused_before_it_is_read(tmp_path):
    from lessonlib.grading.notebook import MAX_NOTEBOOK_BYTES, SubmissionError, read_regular
    assert MAX_NOTEBOOK_BYTES == 64 * 2**20                  # the documented limit, written independently
    sparse = tmp_path / "big.ipynb"
    with open(sparse, "wb") as fh:
        fh.truncate(64 * 2**20 + 1)
    with pytest.raises(SubmissionError, match=r"the file is 64 MB; notebooks over 64 MB are not graded"):
        read_regular(sparse)


# --- an attack that evades the static screen, graded without walls -----------------------------------------

#: Reads the solution notebook through matplotlib (a safe module for the screen), its path assembled from
#: pieces (no ".ipynb" or "solutions" string), then answers honestly: only the audit record can tell.
EVADER = '''
import matplotlib.cbook as _cbook
_parts = ["SOLUTIONS_DIR", "/05_rnea", ".ipy", "nb"]
with _cbook.to_filehandle("".join(_parts)) as _fh:
    _stolen = _fh.read(100)
'''


@pytest.mark.slow
def test_without_walls_a_read_the_screen_missed_still_goes_to_review(tmp_path):
    import json
    import subprocess

    from grading_common import MAX, ROOT as root, SOLUTION as solution, make_submission
    from lessonlib.grading.checks.authoring import answers_of
    solved = {k: v for k, v in answers_of(solution).items() if k != "answer-student-id"}
    pieces = str(root / "solutions")
    evader = EVADER.replace('"SOLUTIONS_DIR"', " + ".join(repr(pieces[i:i + 4]) for i in range(0, len(pieces), 4)))
    answers = {**solved, "answer-static": solved["answer-static"] + evader}
    assert screening.review_reasons(answers, ("static_torques",)) == []          # the static screen sees nothing
    subs = tmp_path / "subs"
    subs.mkdir()
    make_submission(subs / "evader.ipynb", answers, student="evader")
    out = tmp_path / "r.json"
    proc = subprocess.run([PY, "-m", "lessonlib.grading.cli", "--reference", str(solution), str(subs), "--json",
                           str(out), "-q", "--confinement", "none"], capture_output=True, text=True, cwd=root,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = json.loads(out.read_text())["evader.ipynb"]
    assert r["total"] == 0 and r["withheld"] == MAX, {k: c["status"] for k, c in r["checks"].items()}
    message = r["checks"]["rnea-static"]["message"]
    assert message.startswith("points withheld until an instructor reviews: while it ran, the code read ")
    assert "05_rnea.ipynb" in message


# --- the reader's own limits ------------------------------------------------------------------------------

def _spin():
    while True:
        pass


def _sleep():
    import time
    time.sleep(30)


def _hog():
    return len(bytearray(512 << 20))


def test_the_reader_fork_bounds_cpu_memory_and_time_and_says_whose_fault(monkeypatch):
    """CPU or memory spent on a submission is the submission's (unreadable, the limit named); a reader that
    hangs without spending CPU is the grader's failure (graded again, never recorded)."""
    from lessonlib.grading import reader
    from lessonlib.grading.notebook import SubmissionError
    assert reader.screened(sum, [1, 2, 3]) == 6
    monkeypatch.setattr(reader, "CPU_SECONDS", 1)
    with pytest.raises(SubmissionError, match=r"\(1 s of CPU time\)"):
        reader.screened(_spin)
    monkeypatch.setattr(reader, "MEMORY", 64 << 20)
    with pytest.raises(SubmissionError, match=r"\(64 MiB of memory\)"):
        reader.screened(_hog)
    monkeypatch.setattr(reader, "WALL_SECONDS", 1)
    with pytest.raises(reader.ReaderFailure, match="did not finish within 1 s"):
        reader.screened(_sleep)
