"""Store a course notebook's outputs from a FULL run, and find the cells whose output depends on the mode.

``make outputs`` (every lesson) or ``make outputs LESSON=05`` runs::

    .venv/bin/python -m tools.outputs course/05_rnea.ipynb

which executes the notebook top to bottom in a fresh kernel of this venv, in full mode (the
variables ``LESSONLIB_TESTING``, ``LESSONLIB_HEADLESS`` and ``PYTEST_CURRENT_TEST`` removed: long
simulations run to the end and the viewers are live pythreejs widgets), and writes it back in place:

* every output of the run, without execution timestamps;
* the widget state (``metadata.widgets``), so JupyterLab shows the last state of every widget
  before a kernel runs;
* beside every widget view, in the same output bundle, an ``image/png`` of the widget's final
  state (:func:`lessonlib.viz.snapshot.widget_png`), which GitHub and the static slide decks show;
* ``metadata.lessonlib = {"outputs": "full run", "code_sha256": …}``: the hash of the code cells
  the outputs come from. ``tests/test_stored_outputs.py`` fails when the code changed since.

The mode (``running_under_test()``: ``make test`` shortens some runs) and the clock change what a
cell prints. :func:`mode_readers` finds the cells that read either, directly or through a name
derived from them (assigned from it, looped over it, or a function that reads it); such a cell, when
it has output, must carry the tag ``mode-dependent`` **and** ``nbval-ignore-output`` (nbval then
does not compare it). Every other cell is compared by nbval in test mode against the stored
full-run output. ``python -m tools.outputs --check course/*.ipynb`` lists what is missing without
running anything.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "course"
#: The cell tag of a cell whose output depends on the mode or the clock (it also needs nbval-ignore-output).
MODE_TAG = "mode-dependent"
IGNORE_TAG = "nbval-ignore-output"
#: The notebook metadata key and the value that says the outputs come from a full run.
META_KEY, FULL_RUN = "lessonlib", "full run"
#: Environment variables that switch the course into test mode or the static viewer: removed for a full run.
MODE_VARIABLES = ("LESSONLIB_TESTING", "LESSONLIB_HEADLESS", "PYTEST_CURRENT_TEST")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

#: Names whose value depends on the mode or the clock.
MODE_SOURCES = {"running_under_test"}
CLOCK_SOURCES = {"perf_counter", "perf_counter_ns", "process_time", "monotonic", "default_timer",
                 "measure_update_latency"}
#: Modules any attribute of which reads the clock (``time.time()``, ``timeit.repeat(...)``, ``cProfile.Profile``).
CLOCK_MODULES = {"time", "timeit", "cProfile", "pstats"}
#: IPython magics that time their cell.
CLOCK_MAGICS = {"time", "timeit", "prun"}
#: Methods that put a value into a container (``times.append(t)`` makes ``times`` derived).
MUTATORS = {"append", "extend", "update", "add", "insert", "setdefault", "appendleft"}


# --- which cells read the mode or the clock ---------------------------------------------------------
def _cell_source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _python(source):
    """The cell's source as plain Python (IPython magics become ``get_ipython().run_*_magic`` calls)."""
    from IPython.core.inputtransformer2 import TransformerManager
    return TransformerManager().transform_cell(source)


def _targets(node):
    """Base names bound or mutated by an assignment target (``a``, ``a.b``, ``a[k]``, tuples of them)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        return _targets(node.value)
    if isinstance(node, (ast.Tuple, ast.List)):
        return set().union(*(_targets(e) for e in node.elts)) if node.elts else set()
    return set()


class _Reads(ast.NodeVisitor):
    """What an expression (or statement) reads: mode sources, clock sources, derived names.

    A name of a function defined in the notebook counts as derived when a global it reads is
    derived at the point where the function is used (it reads its globals when it is called).
    """

    def __init__(self, flow):
        self.flow, self.found, self.local = flow, set(), set()

    def _scoped(self, names, nodes):
        outer = self.local
        self.local = outer | names
        for n in nodes:
            self.visit(n)
        self.local = outer

    def _comprehension(self, node, parts):
        names = set().union(*(_targets(g.target) for g in node.generators))
        self.visit(node.generators[0].iter)                     # the first iterable is read outside
        self._scoped(names, [g.iter for g in node.generators[1:]] + [c for g in node.generators for c in g.ifs]
                     + parts)

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    def visit_Lambda(self, node):
        self._scoped({a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}, [node.body])

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load) or node.id in self.local:
            return
        if node.id in MODE_SOURCES:
            self.found.add("running_under_test()")
        elif node.id in CLOCK_SOURCES:
            self.found.add(f"the clock ({node.id})")
        elif self.flow.is_derived(node.id):
            self.found.add(f"{node.id} (derived from the mode or the clock)")

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in CLOCK_MODULES:
            self.found.add(f"the clock ({node.value.id}.{node.attr})")
        elif node.attr in MODE_SOURCES | CLOCK_SOURCES:
            self.found.add(f"{node.attr}")
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("run_line_magic", "run_cell_magic") and node.args \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value in CLOCK_MAGICS:
            self.found.add(f"the clock (%{node.args[0].value})")
        self.generic_visit(node)


def _free_names(node):
    """Names a function (or class) body reads that it does not bind itself: the globals it uses."""
    bound = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
    bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - bound


class _Flow:
    """Which names hold a value derived from the mode or the clock, statement by statement, in cell order."""

    def __init__(self):
        self.derived = set()
        self.functions = {}          # name -> (globals it reads, whether it reads the mode or clock itself)

    def is_derived(self, name, _seen=frozenset()):
        if name in self.derived:
            return True
        if name in self.functions and name not in _seen:
            free, direct = self.functions[name]
            return direct or any(self.is_derived(g, _seen | {name}) for g in free)
        return False

    def reads(self, node):
        visitor = _Reads(self)
        visitor.visit(node)
        return visitor.found

    def bind(self, target, derived):
        """Assignment to ``target``: a plain name takes the new value's status; ``a.b = …``, ``a[k] = …`` only add."""
        if isinstance(target, ast.Name):
            self.functions.pop(target.id, None)
            (self.derived.add if derived else self.derived.discard)(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, derived)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, derived)
        elif derived:
            self.derived |= _targets(target)

    def statement(self, node, inherited=False):
        """Follow one statement; return what it reads from the mode or the clock, in execution order.

        ``inherited``: the statement runs inside a loop or branch controlled by a derived value.
        """
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.derived.discard(node.name)
            self.functions[node.name] = (_free_names(node), bool(_Flow().reads(node)))
            return set()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                self.bind(ast.Name((alias.asname or alias.name).split(".")[0], ast.Store()), False)
            return set()
        if isinstance(node, (ast.For, ast.AsyncFor)):
            found = self.reads(node.iter)
            self.bind(node.target, inherited or bool(found))
            return found | self.block(node.body + node.orelse, inherited or bool(found), passes=2)
        if isinstance(node, (ast.While, ast.If)):
            found = self.reads(node.test)
            return found | self.block(node.body + node.orelse, inherited or bool(found))
        if isinstance(node, (ast.With, ast.AsyncWith)):
            found = set().union(*(self.reads(item.context_expr) for item in node.items))
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, inherited or bool(found))
            return found | self.block(node.body, inherited or bool(found))
        if isinstance(node, ast.Try):
            return self.block(node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody,
                              inherited)
        found = self.reads(node)
        derived = inherited or bool(found)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self.bind(target, derived)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            if derived:
                self.derived |= _targets(node.target)
            elif isinstance(node, ast.AnnAssign):
                self.bind(node.target, False)
        for call in ast.walk(node):                  # results.append(timing) makes results derived
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in MUTATORS:
                arguments = list(call.args) + [k.value for k in call.keywords]
                if inherited or any(self.reads(a) for a in arguments):
                    self.derived |= _targets(call.func.value)
        return found

    def block(self, statements, inherited, passes=1):
        """Follow a block (a loop body twice: what its end assigns feeds its next pass)."""
        found = set()
        for _ in range(passes):
            for child in statements:
                found |= self.statement(child, inherited)
        return found


def mode_readers(nb):
    """``{cell index: sorted reasons}`` for the code cells of ``nb`` that read the mode or the clock.

    A cell reads the mode when it calls ``running_under_test()`` or uses a name derived from it; a
    cell reads the clock when it times something (``time``/``timeit``/``cProfile``, ``perf_counter``,
    ``%timeit``, ``measure_update_latency``) or uses a name derived from a timing. "Derived" follows
    the cells in order, statement by statement: a name assigned from a derived value (or in a loop
    over one) is derived until it is assigned a value that is not; a function is derived when it
    reads the mode or the clock or a derived global; ``times.append(t)`` with a derived ``t`` makes
    ``times`` derived.

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in (
    ...     "SHORT = running_under_test()", "n = 10 if SHORT else 100\\nprint(n)", "print(2 + 2)",
    ...     "%timeit sum(range(9))", "def f():\\n    return n\\nf()", "n = 3\\nf()")])
    >>> {i: r[0] for i, r in mode_readers(nb).items()}
    {0: 'running_under_test()', 1: 'SHORT (derived from the mode or the clock)', 3: 'the clock (%timeit)', 4: 'f (derived from the mode or the clock)'}
    """
    flow, found = _Flow(), {}
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse(_python(_cell_source(cell)))
        except SyntaxError:
            continue
        reasons = flow.block(tree.body, False)
        if reasons:
            found[index] = sorted(reasons)
    return found


def code_hash(nb):
    """SHA-256 of the code cells' sources, in order: what the stored outputs were computed from."""
    h = hashlib.sha256()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            h.update(_cell_source(cell).encode())
            h.update(b"\n\x00\n")
    return h.hexdigest()


def _tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def problems(nb, name="notebook"):
    """What keeps ``nb``'s stored outputs from being those of a full run of its current code (a list of sentences)."""
    found = []
    meta = nb.get("metadata", {}).get(META_KEY, {})
    if meta.get("outputs") != FULL_RUN:
        found.append(f"{name}: metadata.{META_KEY}.outputs is {meta.get('outputs')!r}, expected {FULL_RUN!r}: "
                     f"store the outputs of a full run with `make outputs LESSON={name[:2]}`")
    elif meta.get("code_sha256") != code_hash(nb):
        found.append(f"{name}: the code changed since the stored full run (code_sha256 differs): "
                     f"run `make outputs LESSON={name[:2]}`")
    readers = mode_readers(nb)
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        tags = _tags(cell)
        first = _cell_source(cell).strip().splitlines()[:1]
        where = f"{name} cell {index} ({first[0][:60] if first else 'empty'!r})"
        if index in readers and cell.get("outputs") and MODE_TAG not in tags:
            found.append(f"{where}: its output depends on the mode or the clock (it reads "
                         f"{', '.join(readers[index])}); tag it {MODE_TAG!r} and {IGNORE_TAG!r}, or make what "
                         f"it prints the same in a full run and under `make test`")
        if MODE_TAG in tags and IGNORE_TAG not in tags:
            found.append(f"{where}: tagged {MODE_TAG!r} but not {IGNORE_TAG!r} (nbval would compare it)")
        if MODE_TAG in tags and index not in readers:
            found.append(f"{where}: tagged {MODE_TAG!r} but reads neither the mode nor the clock: remove the tag")
    return found


# --- the full run -----------------------------------------------------------------------------------
_SNAPSHOT_CODE = """\
import json as _json
from lessonlib.viz.snapshot import bundle_pngs as _bundle_pngs
print(_json.dumps(_bundle_pngs({ids!r})))
"""


def _widget_outputs(nb):
    """(cell, output) pairs whose output shows a widget view."""
    return [(cell, out) for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
            if WIDGET_VIEW in out.get("data", {})]


def run_full(path, *, timeout=1800, kernel_name="python3", log=print):
    """Execute the notebook at ``path`` in full mode and store its outputs in place (see the module docstring)."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:                        # start clean: nothing from an earlier run survives
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    saved = {k: os.environ.pop(k) for k in MODE_VARIABLES if k in os.environ}
    t0 = time.monotonic()
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, record_timing=False,
                                store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
        with client.setup_kernel(cwd=str(path.parent)):
            info = client.wait_for_reply(client.kc.kernel_info())
            nb.metadata["language_info"] = info["content"]["language_info"]
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
            client.set_widgets_metadata()
            pairs = _widget_outputs(nb)
            ids = sorted({out["data"][WIDGET_VIEW]["model_id"] for _, out in pairs})
            probe = nbformat.v4.new_code_cell(_SNAPSHOT_CODE.format(ids=ids))
            nb.cells.append(probe)                 # nbclient executes cells of the notebook only
            try:
                client.execute_cell(probe, len(nb.cells) - 1)
            finally:
                nb.cells.pop()
    finally:
        os.environ.update(saved)
    text = "".join(o.get("text", "") for o in probe.outputs if o.get("output_type") == "stream" and o["name"] == "stdout")
    errors = [o for o in probe.outputs if o.get("output_type") == "error"]
    if errors:
        raise RuntimeError(f"{path.name}: the widget snapshots failed: {errors[0]['ename']}: {errors[0]['evalue']}")
    pngs = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
    for _, out in pairs:
        png = pngs.get(out["data"][WIDGET_VIEW]["model_id"])
        if png is not None:
            out["data"]["image/png"] = png
        else:
            out["data"].pop("image/png", None)
    nb.metadata[META_KEY] = {"outputs": FULL_RUN, "code_sha256": code_hash(nb)}
    nbformat.validate(nb)
    nbformat.write(nb, path)
    log(f"{path.name}: full run in {time.monotonic() - t0:.0f} s, {len(pairs)} widget outputs "
        f"({len([o for _, o in pairs if 'image/png' in o['data']])} with a static picture)")
    return nb


def lesson_paths(selection=None):
    """Course notebooks chosen by number prefixes (``"05"``, ``"5"``), names or paths; all when empty."""
    every = sorted(COURSE.glob("[0-9][0-9]_*.ipynb"))
    if not selection:
        return every
    chosen = []
    for item in selection:
        p = Path(item)
        if p.suffix == ".ipynb" and p.exists():
            chosen.append(p)
            continue
        prefix = item.zfill(2) if item.isdigit() else item
        hits = [q for q in every if q.name.startswith(prefix)]
        if not hits:
            raise SystemExit(f"LESSON: no course notebook starts with {prefix!r}; lessons are "
                             f"{', '.join(q.name[:2] for q in every)}")
        chosen.extend(hits)
    return chosen


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.outputs", description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers (05), names or notebook paths; default: all")
    parser.add_argument("--check", action="store_true", help="only report what keeps the stored outputs "
                                                               "from being a full run's (no execution)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell (default 1800)")
    args = parser.parse_args(argv)
    paths = lesson_paths([s for item in args.lessons for s in item.split()])
    if args.check:
        import nbformat
        found = [p for path in paths for p in problems(nbformat.read(path, as_version=4), path.name)]
        print("\n".join(found) if found else f"{len(paths)} notebooks: stored outputs are a full run's")
        return 1 if found else 0
    for path in paths:
        run_full(path, timeout=args.timeout)
        import nbformat
        for line in problems(nbformat.read(path, as_version=4), path.name):
            print("  to do:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
