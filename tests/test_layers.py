"""The layer rule (``lessonlib/__init__.py``'s docstring): imports point one way, downward; algorithm
modules stand alone; and no module reaches into another one's private names.

Private means a name (or module) that starts with one underscore. A module may use the private
modules of the packages it belongs to (``dynamics/rnea.py`` may import ``dynamics/_inputs.py``, every
module may import the top-level ``lessonlib/_operators.py``), and a subpackage's modules may share
private names among themselves; but no top-level module or subpackage imports — or reads as an
attribute — a private name of *another* one (``se3`` may not use ``so3._log``).
"""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "lessonlib"

# Layer of each top-level module or subpackage (lower number = lower layer).
LAYERS = {
    "conventions": 0, "_validate": 0.5, "_symbolic": 0.5, "_rodrigues": 0.5, "so3": 1, "se3": 2,
    "_operators": 2.5, "spatial": 3, "model": 4, "samples": 4, "kinematics": 5, "dynamics": 6, "batch": 7,
    "complexity": 7, "constraints": 7, "check": 8, "viz": 9, "grading": 9,
}
ALGORITHMS = {"rnea", "rnea_classic", "rnea_poe", "denoc", "crba", "aba", "lagrange"}


def _module_of(path):
    rel = path.relative_to(ROOT).with_suffix("")
    return rel.parts


def _is_private(name):
    return name.startswith("_") and not name.startswith("__")


def _is_module(parts):
    """True if ``parts`` (below lessonlib) name a module or a package of the tree at ROOT."""
    return bool(parts) and ((ROOT.joinpath(*parts).with_suffix(".py")).is_file() or ROOT.joinpath(*parts).is_dir())


def _imported(path):
    """``(module, name)`` for every lessonlib import of ``path``: ``from .x import y`` gives
    ``(("x",), "y")``; ``from . import x`` of a module x, and ``import lessonlib.x``, give ``(("x",), None)``."""
    tree = ast.parse(path.read_text())
    package = _module_of(path)[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                target = tuple(package[: len(package) - node.level + 1]) + tuple(node.module.split(".") if node.module else ())
            elif node.module and node.module.startswith("lessonlib"):
                target = tuple(node.module.split(".")[1:])
            else:
                continue
            for a in node.names:
                if not node.module or _is_module(target + (a.name,)):
                    found.append((target + (a.name,), None))
                else:
                    found.append((target, a.name))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("lessonlib."):
                    found.append((tuple(a.name.split(".")[1:]), None))
    return [(t, n) for t, n in found if t]


def _imports(path):
    """The lessonlib modules imported by ``path`` (tuples of parts below lessonlib)."""
    return [target for target, _ in _imported(path)]


def private_violations(path):
    """Private names (and private modules) of another top-level module or subpackage that ``path`` uses."""
    parts = _module_of(path)
    package, unit = parts[:-1], parts[0]
    found = []
    aliases = {}                                           # local name -> imported lessonlib module
    for target, name in _imported(path):
        for k, part in enumerate(target):                  # a private module: only inside its own package
            if _is_private(part) and tuple(package[:k]) != target[:k]:
                found.append(f"{'/'.join(parts)} imports the private module {'.'.join(target)}")
                break
        if name is not None and _is_private(name) and target[0] != unit:
            found.append(f"{'/'.join(parts)} imports the private name {name} of {'.'.join(target)}")
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("lessonlib")):
            base = tuple(package[: len(package) - node.level + 1]) if node.level else ()
            target = base + tuple((node.module or "").split(".")[0 if node.level else 1:] if node.module else ())
            for a in node.names:
                if _is_module(target + (a.name,)):
                    aliases[a.asname or a.name] = target + (a.name,)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("lessonlib.") and a.asname:
                    aliases[a.asname] = tuple(a.name.split(".")[1:])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and _is_private(node.attr) and aliases[node.value.id][0] != unit):
            found.append(f"{'/'.join(parts)} uses the private name {node.attr} of "
                         f"{'.'.join(aliases[node.value.id])}")
    return found


FILES = sorted(p for p in ROOT.rglob("*.py"))


def violations(path):
    """Imports of ``path`` that point to a higher layer."""
    parts = _module_of(path)
    here = parts[0]
    if here not in LAYERS:
        return []
    return [f"{'/'.join(parts)} (layer {LAYERS[here]}) imports {'.'.join(t)} (layer {LAYERS[t[0]]})"
            for t in _imports(path) if t[0] in LAYERS and t[0] != here and LAYERS[t[0]] > LAYERS[here]]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_downward(path):
    assert violations(path) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_of_another_module(path):
    assert private_violations(path) == []


def test_every_top_level_module_has_a_layer():
    tops = {p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert tops - set(LAYERS) == set()


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_algorithm_modules_do_not_import_each_other(name):
    path = ROOT / "dynamics" / f"{name}.py"
    if not path.exists():
        pytest.skip(f"{name} not written yet")
    for target in _imports(path):
        if len(target) >= 2 and target[0] == "dynamics":
            assert target[1] not in ALGORITHMS - {name}, f"{name} imports the algorithm {target[1]}"


def test_lagrange_never_uses_rnea():
    path = ROOT / "dynamics" / "lagrange.py"
    if not path.exists():
        pytest.skip("lagrange not written yet")
    assert "rnea" not in {t[-1] for t in _imports(path)}


def test_core_imports_without_optional_layers():
    import subprocess
    import sys
    code = ("import sys; import lessonlib.dynamics, lessonlib.check, lessonlib.samples;"
            "bad = [m for m in ('ipywidgets', 'pythreejs', 'matplotlib', 'nbval') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_layer_test_catches_a_violation(tmp_path, monkeypatch):
    """The rule itself can fail: a low-layer module importing a higher layer is reported."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "spatial.py").write_text("from .dynamics import rnea\nfrom . import so3\n")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "core.py").write_text("from ..kinematics import fk\nfrom lessonlib.check import compare\n")
    assert violations(tmp_path / "spatial.py") == ["spatial (layer 3) imports dynamics (layer 6)"]
    assert len(violations(tmp_path / "model" / "core.py")) == 2


def test_the_private_rule_catches_a_violation(tmp_path, monkeypatch):
    """The private rule can fail: another module's private names and private modules are reported,
    a package's own private modules are not."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "so3.py").write_text("def _log(R):\n    return R\n")
    (tmp_path / "_operators.py").write_text("def ad(x):\n    return x\n")
    (tmp_path / "se3.py").write_text("from . import so3\nfrom .so3 import _log\nfrom ._operators import ad\n"
                                     "def log(T):\n    return so3._log(T)\n")
    for package in ("dynamics", "constraints"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "dynamics" / "_inputs.py").write_text("def state(m):\n    return m\n\n_TOL = 1\n")
    (tmp_path / "dynamics" / "rnea.py").write_text("from ._inputs import _TOL, state\nfrom .._operators import ad\n")
    (tmp_path / "constraints" / "closed.py").write_text(
        "from ..dynamics._inputs import state\nfrom ..dynamics import _inputs\nimport lessonlib.so3 as rotations\n"
        "x = rotations._log\n")
    assert private_violations(tmp_path / "se3.py") == [
        "se3 imports the private name _log of so3", "se3 uses the private name _log of so3"]
    assert private_violations(tmp_path / "dynamics" / "rnea.py") == []
    assert private_violations(tmp_path / "constraints" / "closed.py") == [
        "constraints/closed imports the private module dynamics._inputs",
        "constraints/closed imports the private module dynamics._inputs",
        "constraints/closed uses the private name _log of so3"]
