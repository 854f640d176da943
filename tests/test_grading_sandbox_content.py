"""No answer in any form in the kernel's world: the sandbox of every exercise holds stripped sources only.

For every exercise the test builds the sandbox library the graded kernel would see and fails if any
file in it is compiled or cached (``__pycache__``, ``.pyc``, numba's ``.nbi``/``.nbc``, extension
modules), if any function in it has the body of a function the exercise blocks (its source, with
names kept: the AST of the body without its docstring), or if the bytecode of a blocked function
(``co_code``, nested code objects included) occurs in any file's bytes — what an answer could load
with ``marshal`` and ``types.FunctionType``.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import types

import pytest

from lessonlib.grading.checks.checker import exercise_names, load_exercise
from lessonlib.grading.sandbox import NOT_COPIED, build_library

LIB = pathlib.Path(importlib.import_module("lessonlib").__file__).parent
#: File types the sandbox may hold: sources and data.
ALLOWED_SUFFIXES = {".py", ".json", ".urdf", ".js", ".md", ".txt", ".typed", ".csv"}


def _body(fn):
    """The AST dump of a function's body without its docstring (None when it is too short to be telling)."""
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    if len(body) < 2 and not any(isinstance(n, (ast.For, ast.While, ast.If, ast.With)) for n in body):
        return None
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _blocked_sources(exercise):
    """``{(file, function): body dump}`` of every function the exercise blocks, from the real library."""
    out = {}
    for target in exercise.blocked:
        module, _, name = target.partition(":")
        rel = pathlib.Path(*module.split(".")[1:])
        pkg, mod = LIB / rel, (LIB / rel).with_suffix(".py")
        files = sorted(pkg.rglob("*.py")) if pkg.is_dir() else [mod]
        for path in files:
            for fn in _functions(ast.parse(path.read_text(encoding="utf-8"))):
                if (not name or fn.name == name) and _body(fn):
                    out[(path.relative_to(LIB).as_posix(), fn.name)] = _body(fn)
    return out


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _blocked_bytecode(exercise):
    """The ``co_code`` of every blocked function of the real library (16 bytes or more)."""
    out = []
    for target in exercise.blocked:
        module, _, name = target.partition(":")
        mod = importlib.import_module(module)
        mods = [mod]
        if hasattr(mod, "__path__"):
            mods += [importlib.import_module(f"{module}.{p.stem}") for p in pathlib.Path(mod.__path__[0]).glob("*.py")
                     if p.stem != "__init__"]
        for m in mods:
            for attr, value in vars(m).items():
                if inspect.isfunction(value) and value.__module__ == m.__name__ and (not name or attr == name):
                    out += [c.co_code for c in _code_objects(value.__code__) if len(c.co_code) >= 16]
    return out


@pytest.mark.parametrize("exercise", exercise_names())
def test_the_sandbox_holds_no_answer_in_any_form(tmp_path, exercise):
    ex = load_exercise(exercise)
    root = build_library(tmp_path / "sandbox", ex)
    files = [p for p in root.rglob("*") if p.is_file()]
    assert files
    compiled = [p for p in root.rglob("*") if any(p.match(pattern) for pattern in NOT_COPIED)]
    assert compiled == []
    assert {p.suffix for p in files} <= ALLOWED_SUFFIXES, {p.suffix for p in files} - ALLOWED_SUFFIXES
    blocked = _blocked_sources(ex)
    assert blocked, f"{exercise} blocks nothing with a body"
    wanted = {dump: key for key, dump in blocked.items()}
    for path in (p for p in files if p.suffix == ".py"):
        for fn in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            dump = _body(fn)
            assert dump not in wanted, (f"{path.relative_to(root)} defines {fn.name} with the body of the blocked "
                                        f"{wanted.get(dump)}")
    codes = _blocked_bytecode(ex)
    assert codes
    data = [(p, p.read_bytes()) for p in files]
    for code in codes:
        assert not [p for p, blob in data if code in blob]


def test_the_test_would_see_a_compiled_copy(tmp_path):
    """The bytecode search finds a ``.pyc`` of a blocked module, as ``build_library`` once copied them."""
    import importlib.util
    import marshal
    ex = load_exercise("rnea05")
    module = importlib.import_module("lessonlib.dynamics.rnea")
    source = pathlib.Path(module.__file__).read_text(encoding="utf-8")
    blob = importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(compile(source, module.__file__, "exec"))
    assert any(code in blob for code in _blocked_bytecode(ex))
    assert _blocked_sources(ex)[("dynamics/rnea.py", "_rnea")] in {
        _body(fn) for fn in _functions(ast.parse(source))}
