"""Static screening of a submission's answer cells, before anything runs: flags and copies.

* :func:`flags_of` — notes for the instructor about answer cells that touch the interpreter's
  machinery (``open``, ``exec``, ``sys.modules``, ...).
* :func:`copied_reach` — which copies found by :mod:`.copydetect` a check's functions can reach
  through the names their bodies use (a copied helper taints the functions that call it).

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


def top_level_defs(answers):
    """``{name: (cell key, FunctionDef)}`` of the functions defined at the top of the answer cells."""
    defs = {}
    for key, source in answers.items():
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] = (key, node)
    return defs


def copied_reach(answers, copies, roots):
    """The copies that the functions ``roots`` can reach through the names their bodies use."""
    defs = top_level_defs(answers)
    owner = {}
    for name, (key, node) in defs.items():
        for inner in ast.walk(node):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                owner.setdefault((key, inner.name), name)
    copied_tops = {}
    for c in copies:
        copied_tops.setdefault(owner.get((c.cell, c.function), c.function), c)
    seen, stack, hits = set(), list(roots), []
    while stack:
        name = stack.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        if name in copied_tops:
            hits.append(copied_tops[name])
        stack += [n.id for n in ast.walk(defs[name][1]) if isinstance(n, ast.Name)]
    return hits
