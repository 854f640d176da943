"""The graded kernel's world: a stripped copy of lessonlib, a bootstrap script and a kernelspec.

``build_sandbox`` writes, under a fresh directory per submission::

    lib/lessonlib/...            the package, minus the grader, with the exercise's targets stubbed
    kernel_boot.py, boot.json    the bootstrap (see :mod:`.kernel_boot`) and its paths
    jupyter/kernels/lessonlib-grade/kernel.json   the kernelspec nbval starts (``-I -S``)
    ipython/, jupyter-config/    empty profile directories (no user startup files run)

Stubs: a blocked module (``"lessonlib.dynamics"``: the package and every module in it) is
replaced by a module whose every attribute raises
:class:`~lessonlib.grading.client.NotAvailableWhileGrading`; a blocked function
(``"lessonlib.kinematics:body_twists"``) has its definition replaced by one that raises. The
grader's own modules (judge, checkers, notebook builder) are not copied: only the client and the
protocol it speaks.
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from .limits import OUTPUT_LIMIT
from .notebook import KERNEL_NAME

#: Third-party packages a graded kernel may not import (they compute dynamics for you).
DENIED_PACKAGES = ("modern_robotics", "roboticstoolbox", "spatialmath", "spatialgeometry", "pinocchio",
                   "cmeel", "eigenpy", "coal", "hppfcl", "robot_descriptions", "rtbdata", "pybullet",
                   "mujoco", "rbdl", "idyntree", "casadi", "swift", "sympybotics", "pydrake")
#: Module-name prefixes refused too (the editable-install finder of the real lessonlib).
DENIED_PREFIXES = ("__editable__",)
#: Grader modules a graded kernel gets (the rest of lessonlib.grading stays out).
KERNEL_GRADING_MODULES = ("__init__.py", "client.py", "errors.py", "protocol.py")

_STUB_MODULE = '''"""Not available while grading: exercise {exercise} asks you to write this yourself."""
from lessonlib.grading.errors import NotAvailableWhileGrading as _NotAvailable


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    raise _NotAvailable(f"{{__name__}}.{{name}} is not available while grading "
                        "(exercise {exercise} asks you to write it yourself)")
'''

_STUB_FUNCTION = '''def {name}(*args, **kwargs):
    """Not available while grading (exercise {exercise} asks you to write it yourself)."""
    from lessonlib.grading.errors import NotAvailableWhileGrading
    raise NotAvailableWhileGrading("{module}.{name} is not available while grading "
                                   "(exercise {exercise} asks you to write it yourself)")
'''


def _package_dir():
    return Path(__file__).resolve().parents[1]


def site_dirs():
    """The site-packages directories of the grader's interpreter (for the kernel's explicit path)."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(p for p in (paths["purelib"], paths["platlib"]) if p and os.path.isdir(p)))


def _stub_module(lib, module, exercise):
    rel = Path(*module.split(".")[1:])
    pkg, mod = lib / "lessonlib" / rel, lib / "lessonlib" / rel.with_suffix(".py")
    files = sorted(pkg.rglob("*.py")) if pkg.is_dir() else [mod] if mod.is_file() else []
    for path in files:
        path.write_text(_STUB_MODULE.format(exercise=exercise), encoding="utf-8")
    return bool(files)


def _stub_function(lib, module, name, exercise):
    path = lib / "lessonlib" / Path(*module.split(".")[1:]).with_suffix(".py")
    if not path.is_file():
        return False
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            stub = _STUB_FUNCTION.format(name=name, module=module, exercise=exercise)
            path.write_text("".join(lines[:start]) + stub + "".join(lines[node.end_lineno:]), encoding="utf-8")
            return True
    return False


def build_sandbox(root, exercise, *, judge_address, token, workdir, python=None):
    """Write the sandbox for one graded run under ``root``; returns the ``JUPYTER_PATH`` directory.

    ``exercise``: the :class:`~lessonlib.grading.checker.Exercise` (its ``blocked`` and ``denied``);
    ``judge_address``/``token``: how the kernel reaches this run's judge; ``workdir``: the kernel's
    (empty) working directory.
    """
    root = Path(root)
    lib = root / "lib"
    src = _package_dir()
    shutil.copytree(src, lib / "lessonlib", ignore=shutil.ignore_patterns("grading"))     # with its __pycache__
    grading = lib / "lessonlib" / "grading"
    grading.mkdir()
    for name in KERNEL_GRADING_MODULES:
        shutil.copy2(src / "grading" / name, grading / name)
    for target in exercise.blocked:
        module, _, function = target.partition(":")
        if function:
            _stub_function(lib, module, function, exercise.name)
        else:
            _stub_module(lib, module, exercise.name)
    shutil.copy2(Path(__file__).with_name("kernel_boot.py"), root / "kernel_boot.py")
    for d in ("ipython", "jupyter-config"):
        (root / d).mkdir()
    config = {"lib": str(lib), "site": site_dirs(), "workdir": os.fspath(workdir),
              "denied": list(DENIED_PACKAGES) + list(exercise.denied), "denied_prefixes": list(DENIED_PREFIXES), "output_limit": OUTPUT_LIMIT}
    (root / "boot.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    spec_dir = root / "jupyter" / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    spec = {"argv": [python or sys.executable, "-I", "-S", str(root / "kernel_boot.py"), str(root / "boot.json"),
                     "-f", "{connection_file}", "--HistoryManager.enabled=False"],
            "display_name": "lessonlib grader", "language": "python",
            "env": {"LESSONLIB_JUDGE": judge_address, "LESSONLIB_JUDGE_TOKEN": token,
                    "IPYTHONDIR": str(root / "ipython"), "JUPYTER_CONFIG_DIR": str(root / "jupyter-config")}}
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    return root / "jupyter"
