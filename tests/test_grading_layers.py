"""The grader's layout is its architecture: each subpackage holds the code of one process, and imports say so.

* ``grading/kernel/`` runs inside the graded kernel and is copied into the sandbox as a whole: it
  imports nothing of ``lessonlib`` outside itself;
* ``grading/runner/`` runs in a graded run's nbval process: only itself and ``kernel/``;
* the judge process (``checks/judge``, the checker framework, the exercise modules) loads only
  ``checks/`` and ``kernel/`` of the grader, never the pipeline or the reports;
* ``grading/report/`` reads results and never imports the pipeline that makes them;
* and nowhere in ``lessonlib`` is there an import cycle, counting the imports inside functions.

Imports are read with :mod:`ast` (every ``import`` statement anywhere in a file, plus
``importlib.import_module("lessonlib....")`` with a literal name).
"""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "lessonlib"


def module_name(path, root=ROOT):
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["lessonlib", *parts])


def _exists(name, root):
    rel = pathlib.Path(*name.split(".")[1:]) if "." in name else pathlib.Path()
    return (root / rel).with_suffix(".py").is_file() or (root / rel / "__init__.py").is_file()


def imports_of(path, root=ROOT):
    """The lessonlib modules ``path`` imports anywhere in it (a package's ``__init__`` by the package name)."""
    here = module_name(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.split(".")[0] == "lessonlib":
                target = node.module
            else:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if _exists(sub, root) else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "lessonlib")
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and node.args[0].value.startswith("lessonlib")):
            found.add(node.args[0].value)
    return {t for t in found if _exists(t, root) and t != here}


def graph(root=ROOT):
    return {module_name(p, root): imports_of(p, root) for p in sorted(root.rglob("*.py"))}


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def closure(edges, start):
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += edges.get(m, ())
    return seen


G = "lessonlib.grading"
EDGES = graph()


def _in(name, *packages):
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_no_import_cycle_anywhere_in_lessonlib():
    assert cycles(EDGES) == []


@pytest.mark.parametrize("module", sorted(m for m in EDGES if _in(m, f"{G}.kernel")))
def test_the_kernel_package_imports_nothing_of_lessonlib_outside_it(module):
    assert {t for t in EDGES[module] if not _in(t, f"{G}.kernel")} == set()


@pytest.mark.parametrize("module", sorted(m for m in EDGES if _in(m, f"{G}.runner")))
def test_the_nbval_process_code_imports_only_itself_and_the_kernel_package(module):
    assert {t for t in EDGES[module] if not _in(t, f"{G}.runner", f"{G}.kernel")} == set()


@pytest.mark.parametrize("module", sorted(m for m in EDGES if _in(m, f"{G}.report")))
def test_the_reports_never_import_the_pipeline(module):
    assert {t for t in EDGES[module] if _in(t, G) and not _in(t, f"{G}.report")} == set()


def test_the_judge_process_loads_no_pipeline_module():
    loaded = closure(EDGES, f"{G}.checks.judge") | closure(EDGES, f"{G}.checks.checker")
    for name in [m for m in EDGES if _in(m, f"{G}.checks.exercises")]:
        loaded |= closure(EDGES, name)
    grader_side = {m for m in loaded if _in(m, G) and not _in(m, f"{G}.checks", f"{G}.kernel")} - {G}
    assert grader_side == set()


def test_what_the_kernel_boots_with_is_the_kernel_package():
    assert {m for m in closure(EDGES, f"{G}.kernel.boot") if _in(m, "lessonlib")} <= {
        m for m in EDGES if _in(m, f"{G}.kernel")}


def test_the_cycle_and_layer_rules_can_fail(tmp_path):
    """A cycle through an import inside a function is found; a kernel module importing the checks is named."""
    lib = tmp_path / "lessonlib"
    (lib / "grading" / "kernel").mkdir(parents=True)
    (lib / "grading" / "checks").mkdir()
    for d in (lib, lib / "grading", lib / "grading" / "kernel", lib / "grading" / "checks"):
        (d / "__init__.py").write_text("")
    (lib / "a.py").write_text("from . import b\n")
    (lib / "b.py").write_text("def f():\n    from .a import x\n")
    (lib / "grading" / "kernel" / "client.py").write_text("def f():\n    from ..checks import checker\n")
    (lib / "grading" / "checks" / "checker.py").write_text("import importlib\nimportlib.import_module('lessonlib.a')\n")
    edges = graph(lib)
    assert cycles(edges) == [["lessonlib.a", "lessonlib.b"]]
    assert edges["lessonlib.grading.kernel.client"] == {"lessonlib.grading.checks.checker"}
    assert edges["lessonlib.grading.checks.checker"] == {"lessonlib.a"}


def test_the_threat_model_names_tests_that_exist():
    """Every ``test_file.py::test_name`` (or ``::test_name`` after one) the grading README's threat model
    cites is a real test, so the table attack → wall → test cannot point at nothing."""
    import ast
    import re
    repo = ROOT.parent
    readme = (ROOT / "grading" / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Threat model"):readme.index("## Modules")]
    cited, file = [], None
    for named, name in re.findall(r"(test_[a-z_]+\.py)?::(test_\w+)", section):
        file = named or file
        cited.append((file, name))
    assert len(cited) >= 20
    missing = []
    for file, name in cited:
        tree = ast.parse((repo / "tests" / file).read_text(encoding="utf-8"))
        if name not in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}:
            missing.append((file, name))
    assert missing == []
