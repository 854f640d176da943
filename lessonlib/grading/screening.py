"""Static screening of a submission's answer cells, before anything runs: flags, review, copies.

* :func:`flags_of` — notes for the instructor about answer cells that touch the interpreter's
  machinery (``open``, ``exec``, ``sys.modules``, ...). They never change points.
* :func:`review_reasons` — where the graded kernel runs without walls (no Landlock), the code a
  check depends on that could read files or load code: the check's points then wait for review.
  It is a screen, not a proof: it finds the usual ways (``open``, ``exec``, ``importlib``,
  ``sys.path``, ``os``/``pathlib``/``io``, numpy's file readers, dunder escapes such as
  ``().__class__.__base__.__subclasses__()``, ``getattr`` with computed names, a ``/proc`` path)
  and any import outside :data:`SAFE_MODULES`; code obfuscated beyond that is what the walls are for.
* :func:`reach` and :func:`copied_reach` — the functions a check's functions can reach through
  the names their bodies use, and the copies found by :mod:`.copydetect` among them (a copied
  helper taints the functions that call it).

Both read source with :mod:`ast`; nothing here executes student code.
"""
from __future__ import annotations

import ast

#: Names in answer cells worth an instructor's look (reported as flags; they do not change points).
SUSPICIOUS = ("sys.modules", "sys.path", "sys.meta_path", "importlib", "__import__", "exec", "eval", "compile",
              "open", "ctypes", "subprocess", "os.system", "os._exit", "socket", "builtins", "inspect",
              "getsource", "os.environ", "signal", "gc", "__builtins__", "__code__", "globals")


def flags_of(answers):
    """Instructor notes about answer cells that touch the interpreter's machinery (no effect on points)."""
    flags = []
    for key, source in answers.items():
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            flags.append(f"answer cell {key!r} does not parse")
            continue
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                names.add(f"{node.value.id}.{node.attr}")
                names.add(node.attr)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update(a.name.split(".")[0] for a in node.names)
                if isinstance(node, ast.ImportFrom) and node.module:
                    names.add(node.module.split(".")[0])
                    names.update(f"{node.module}.{a.name}" for a in node.names)
        hits = sorted(n for n in SUSPICIOUS if n in names)
        if hits:
            flags.append(f"answer cell {key!r} uses {', '.join(hits)}")
    return flags


def _parsed(answers):
    """``(cell key, module AST)`` of every answer cell that parses (one that does not cannot run either)."""
    for key, source in answers.items():
        try:
            yield key, ast.parse(source)
        except (SyntaxError, ValueError):
            continue


def top_level_defs(answers):
    """``{name: (cell key, FunctionDef)}`` of the functions defined at the top of the answer cells."""
    return {node.name: (key, node) for key, tree in _parsed(answers) for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def copied_reach(answers, copies, roots):
    """The copies that the functions ``roots`` can reach through the names their bodies use."""
    if not copies:
        return []
    defs = top_level_defs(answers)
    owner = {}
    for name, (key, node) in defs.items():
        for inner in ast.walk(node):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                owner.setdefault((key, inner.name), name)
    copied_tops = {}
    for c in copies:
        copied_tops.setdefault(owner.get((c.cell, c.function), c.function), c)
    return [copied_tops[name] for name in sorted(reach(answers, roots)) if name in copied_tops]


#: Modules an answer may import without review when the kernel has no walls.
SAFE_MODULES = frozenset({"numpy", "math", "cmath", "functools", "itertools", "collections", "dataclasses", "typing",
                          "fractions", "decimal", "numbers", "operator", "copy", "scipy", "sympy", "lessonlib",
                          "warnings", "abc", "enum", "statistics", "random", "time", "string", "textwrap",
                          "__future__", "matplotlib", "bisect", "heapq"})
#: Built-in functions that read files, run code or reach objects by computed names.
REVIEW_CALLS = frozenset({"open", "exec", "eval", "compile", "__import__", "globals", "vars", "locals", "getattr",
                          "setattr", "delattr", "breakpoint", "input", "memoryview", "__builtins__", "__loader__",
                          "__spec__"})
#: Modules whose mere name in an answer needs review (file access, code loading, introspection).
REVIEW_MODULES = frozenset({"os", "sys", "io", "pathlib", "importlib", "builtins", "ctypes", "subprocess", "shutil",
                            "glob", "socket", "inspect", "gc", "types", "marshal", "pickle", "runpy", "linecache",
                            "codecs", "mmap", "tempfile", "zipimport", "pkgutil", "fileinput", "urllib", "http"})
#: Attributes that read files (numpy's readers, pathlib's, file objects).
REVIEW_ATTRIBUTES = frozenset({"load", "loadtxt", "genfromtxt", "fromfile", "memmap", "DataSource", "open_memmap",
                               "fromregex", "read_text", "read_bytes", "open", "listdir", "scandir", "walk"})
#: Dunder attributes that are ordinary in honest code.
PLAIN_DUNDERS = frozenset({"__name__", "__doc__", "__init__", "__len__", "__call__"})
#: Fragments of a string constant that point at the grader's or another process's files.
REVIEW_STRINGS = ("/proc", "/dev/fd", ".ipynb", "site-packages", "lessonlib/", "solutions")


def _review_hits(nodes):
    """What in these AST nodes could read files or load code (sorted descriptions)."""
    hits = set()
    for tree in nodes:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in REVIEW_CALLS | REVIEW_MODULES:
                hits.add(node.id)
            elif isinstance(node, ast.Attribute):
                if node.attr in REVIEW_ATTRIBUTES or node.attr in REVIEW_CALLS:
                    hits.add(f".{node.attr}")
                elif node.attr.startswith("__") and node.attr.endswith("__") and node.attr not in PLAIN_DUNDERS:
                    hits.add(f".{node.attr}")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or "."]
                hits.update(f"import {m}" for m in modules if m.split(".")[0] not in SAFE_MODULES)
                if isinstance(node, ast.ImportFrom):
                    hits.update(a.name for a in node.names if a.name in REVIEW_ATTRIBUTES | REVIEW_CALLS)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                hits.update(f"the string {frag!r}" for frag in REVIEW_STRINGS if frag in node.value)
    return sorted(hits)


def reach(answers, roots):
    """The names of the top-level answer functions that ``roots`` reach (themselves included)."""
    defs = top_level_defs(answers)
    seen, stack = set(), list(roots)
    while stack:
        name = stack.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        stack += [n.id for n in ast.walk(defs[name][1]) if isinstance(n, ast.Name)]
    return seen


def module_level(answers):
    """``{cell key: [statements]}``: each answer cell's code outside its function definitions."""
    return {key: [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            for key, tree in _parsed(answers)}


def review_reasons(answers, roots):
    """Why a check whose functions are ``roots`` needs review when the kernel has no walls (or ``[]``).

    Looks at the functions the check reaches and at every answer cell's top-level code (which runs
    before any check and can define or patch anything); a function the check needs that no answer
    cell defines is a reason too (something else made it).
    """
    defs = top_level_defs(answers)
    reasons = []
    for key, statements in module_level(answers).items():
        hits = _review_hits(statements)
        if hits:
            reasons.append(f"answer cell {key!r} uses {', '.join(hits)}")
    for name in sorted(reach(answers, roots)):
        hits = _review_hits([defs[name][1]])
        if hits:
            reasons.append(f"{name} (answer cell {defs[name][0]!r}) uses {', '.join(hits)}")
    missing = [f for f in roots if f not in defs]
    if missing and reasons:
        reasons.append(f"{', '.join(missing)} is not defined by any answer cell")
    return reasons


def _blank(solution, stub_source):
    """The exercise's version of a reference answer cell (None if it cannot be made)."""
    try:
        return stub_source(solution)
    except (SyntaxError, ValueError):
        return None


def untouched(answers, reference_answers, roots):
    """The answer cells that define the functions ``roots`` in the reference and are still stubs here.

    Returns their keys when **every** such cell is a stub (or empty) in ``answers``, else ``[]``: a
    check whose cells are all untouched was not attempted.
    """
    from .checks.authoring import is_stub, stub_source  # noqa: PLC0415 (authoring imports the checkers)
    homes = {defs_key for name, (defs_key, _) in top_level_defs(reference_answers).items() if name in roots}
    if not homes or not all(is_stub(answers.get(k, ""), _blank(reference_answers.get(k, ""), stub_source))
                            for k in homes):
        return []
    return sorted(homes)
