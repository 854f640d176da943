"""The layer rule of DESIGN.md: imports point one way, downward; algorithm modules stand alone."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "lessonlib"

# Layer of each top-level module or subpackage (lower number = lower layer).
LAYERS = {
    "conventions": 0, "so3": 1, "se3": 2, "spatial": 3, "model": 4, "samples": 4, "kinematics": 5,
    "dynamics": 6, "batch": 7, "complexity": 7, "constraints": 7, "check": 8, "viz": 9, "grading": 9,
}
ALGORITHMS = {"rnea", "rnea_classic", "rnea_poe", "denoc", "crba", "aba", "lagrange"}


def _module_of(path):
    rel = path.relative_to(ROOT).with_suffix("")
    return rel.parts


def _imports(path):
    """(top-level lessonlib module, submodule) pairs imported by ``path``."""
    tree = ast.parse(path.read_text())
    parts = _module_of(path)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                target = base + (node.module.split(".") if node.module else [])
                names = [a.name for a in node.names]
                if not node.module:
                    for n in names:
                        found.append(tuple(target + [n]))
                    continue
                found.append(tuple(target))
            elif node.module and node.module.startswith("lessonlib"):
                found.append(tuple(node.module.split(".")[1:]))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("lessonlib."):
                    found.append(tuple(a.name.split(".")[1:]))
    return [t for t in found if t]


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
