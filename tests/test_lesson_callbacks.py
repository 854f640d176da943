"""A slider moved after "Run All" still works: no callback of a lesson reads a global that a later cell rebinds.

A lecturer runs the whole notebook before the lecture, then drags the sliders of slide 3. The callback behind them
(``interactive_output(move_reference, ...)``) runs *now*, with the globals as the last cell left them: if a later
cell rebinds a name the callback reads (``fig, ax = new_figure(...)`` for another figure, ``window = ...`` in a
loop), the demo draws into the wrong figure or raises. Lesson 03's reference-point demo showed another section's
figure that way, and lesson 11's filter demo would have indexed with a float.

The rule, checked statically on every lesson (English; the Chinese edition has the same code cells): a function
defined at the top level of a code cell may read a global only if no *later* code cell binds that name at its top
level (assignment, ``for`` target, ``def``, ``import``). Names bound only later (defined after the function) and
builtins are fine.
"""
from __future__ import annotations

import ast
import builtins
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

REPO = Path(__file__).resolve().parents[1]
LESSONS = sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb"))
_MAGICS = TransformerManager()


def _tree(source):
    try:
        return ast.parse(_MAGICS.transform_cell(source))
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def top_level_names(tree):
    """Names a cell binds in the notebook's global namespace."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in n.names}
    return names


def globals_read(fn):
    """Names a function reads that are neither its arguments nor its locals."""
    args = fn.args
    local = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    local |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - local


def stale_globals(sources):
    """``[(cell, function, name, later cells)]``: a callback's global that a later cell rebinds."""
    trees = [_tree(s) for s in sources]
    bound = [top_level_names(t) for t in trees]
    found = []
    for k, tree in enumerate(trees):
        known = set().union(*bound[:k + 1])
        for fn in (n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for name in sorted(globals_read(fn) & known - set(dir(builtins))):
                later = [j for j in range(k + 1, len(trees)) if name in bound[j]]
                if later:
                    found.append((k, fn.name, name, later))
    return found


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_callback_reads_a_global_a_later_cell_rebinds(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    found = [f"code cell {k}: {fn}() reads {name!r}, which code cell(s) {later} rebind"
             for k, fn, name, later in stale_globals([c.source for c in code])]
    assert not found, f"{path.name}: a slider moved after Run All would use the later value:\n" + "\n".join(found)


def test_the_rule_finds_a_rebound_figure_and_spares_what_is_fine():
    cells = ["fig, ax = new_figure()\nwindow = slice(0, 5)",
             "def move(x):\n    ax.plot(x)\n    print(window, later_helper(x), len(x))\n    return fig",
             "def later_helper(x):\n    return x",
             "fig, ax = new_figure()                # another figure: move() would draw into it",
             "for k in range(3):\n    window = k"]
    found = stale_globals(cells)
    assert [(k, fn, name) for k, fn, name, _ in found] == [(1, "move", "ax"), (1, "move", "fig"), (1, "move", "window")]
    assert found[0][3] == [3] and found[2][3] == [4]
    assert stale_globals(cells[:3]) == []                 # nothing rebinds them: fine
