"""Where exercise modules come from: the course's own and an instructor's, found the same way.

An **exercise source** is a package or a folder of checker modules, one module (or sub-package) per
exercise, each defining ``EXERCISE = Exercise(...)``:

* a package that an installed distribution declares in the entry-point group ``lessonlib.exercises``.
  The course's own exercises come this way, declared by lessonlib itself in ``pyproject.toml``::

      [project.entry-points."lessonlib.exercises"]
      course = "lessonlib.grading.checks.exercises"

  An instructor's installable package declares its own (``myexercises = "mycourse.checks"``);
* a folder: ``lessonlib-grade --checkers DIR`` (:func:`use_checkers`), or the environment variable
  ``LESSONLIB_CHECKERS`` (folders separated by ``os.pathsep``) for a notebook's own preview and the
  authoring command. The grader hands its folders to the judge explicitly (:func:`checker_env`): the
  judge starts with a clean environment.

A folder is imported as a package of its own under a private name (``lessonlib_checkers_<hash>``), so
its modules share helpers by relative imports (``from ._common import random_pair``), as the course's
do. Module names are lowercase letters, digits and ``_``; a name starting with ``_`` is a helper, not an
exercise. Two sources defining the same exercise name is an error that names both.

None of this is visible to a graded kernel: every source's files are cut out of the kernel's world
(:func:`checker_locations`, :func:`checker_packages`; see :mod:`lessonlib.grading.sandbox`).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import pkgutil
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path

GROUP = "lessonlib.exercises"
ENV = "LESSONLIB_CHECKERS"
_MODULE = re.compile(r"^[a-z][a-z0-9_]*$")
_FOLDERS = []                                             # from use_checkers(), in the order given
_CACHE = {}


@dataclass(frozen=True)
class Source:
    """One exercise source: ``package`` is importable, its modules live in ``directories``."""

    label: str
    package: str
    directories: tuple
    top: str = ""                                         # an installed package's top-level name ("" for a folder)

    def names(self):
        return sorted({m.name for d in self.directories for m in pkgutil.iter_modules([d]) if _MODULE.match(m.name)})


def use_checkers(folders):
    """Add instructor folders of checker modules (``--checkers DIR``) to the sources of this process."""
    for folder in folders:
        path = Path(folder).expanduser()
        if not path.is_dir():
            raise ValueError(f"checkers: expected a directory of exercise modules, got {os.fspath(folder)!r} "
                             "(no such directory)")
        path = path.resolve()
        if path not in _FOLDERS:
            _FOLDERS.append(path)
    _CACHE.clear()


def checker_folders():
    """The folders of checker modules this process knows: ``LESSONLIB_CHECKERS``, then :func:`use_checkers`'s."""
    env = [Path(p).expanduser().resolve() for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()]
    return list(dict.fromkeys(env + _FOLDERS))


def checker_env():
    """The environment entries that give a child process (the judge) this process's folders."""
    folders = checker_folders()
    return {ENV: os.pathsep.join(map(os.fspath, folders))} if folders else {}


def _folder_package(folder):
    """A folder imported as a package under a private name (made once per process)."""
    name = "lessonlib_checkers_" + hashlib.sha256(os.fspath(folder).encode()).hexdigest()[:12]
    if name not in sys.modules:
        init = folder / "__init__.py"
        if init.is_file():
            spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[os.fspath(folder)])
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            module = types.ModuleType(name, f"exercise modules in {folder}")
            module.__path__ = [os.fspath(folder)]
            module.__package__ = name
            sys.modules[name] = module
    return name


def sources():
    """Every exercise source of this process: the installed entry points, then the folders."""
    key = (tuple(checker_folders()),)
    if key not in _CACHE:
        found = []
        for ep in sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: (e.value, e.name)):
            spec = importlib.util.find_spec(ep.value)
            dist = getattr(ep, "dist", None)
            label = f"{ep.value} (entry point {ep.name!r} of {getattr(dist, 'name', '?')})"
            if spec is None or not spec.submodule_search_locations:
                raise ValueError(f"{GROUP}: {label} is not an importable package")
            found.append(Source(label, ep.value, tuple(spec.submodule_search_locations), ep.value.split(".")[0]))
        for folder in checker_folders():
            found.append(Source(os.fspath(folder), _folder_package(folder), (os.fspath(folder),)))
        _CACHE[key] = found
    return _CACHE[key]


def _index():
    """``({exercise name: Source}, {name defined twice: [labels]})``."""
    index, twice = {}, {}
    for source in sources():
        for name in source.names():
            if name in index and index[name] != source:
                twice.setdefault(name, [index[name].label]).append(source.label)
            index.setdefault(name, source)
    return index, twice


def exercise_names():
    """The names of every exercise module of every source, sorted."""
    return sorted(_index()[0])


def source_of(name):
    """The :class:`Source` that defines the exercise ``name`` (a ``ValueError`` for an unknown or doubled name)."""
    index, twice = _index()
    if name in twice:
        raise ValueError(f"exercise: {name!r} is defined by more than one source: {', '.join(twice[name])}; "
                         "rename one module")
    if name not in index:
        where = "; ".join(s.label for s in sources()) or "none: is lessonlib installed (pip install -e .)?"
        raise ValueError(f"exercise: no checker module called {name!r}; known: {sorted(index)} (sources: {where}; "
                         "an exercise of your own: --checkers DIR)")
    return index[name]


def exercise_module(name):
    """The imported exercise module ``name``, from whichever source defines it (see ``checker.load_exercise``)."""
    if not isinstance(name, str) or not _MODULE.match(name):
        raise ValueError(f"exercise: expected a module name (lowercase letters, digits, '_'), got {name!r}")
    source = source_of(name)
    return source, importlib.import_module(f"{source.package}.{name}")


def exercise_files(name):
    """``(source label, [(name relative to its folder, path)])``: an exercise's module (or package) and its
    source's shared ``_*.py`` modules — what a change of the exercise's checks changes."""
    source = source_of(name)
    files = []
    for d in map(Path, source.directories):
        own = d / name
        paths = sorted(own.rglob("*.py")) if own.is_dir() else [p for p in [d / f"{name}.py"] if p.is_file()]
        paths += sorted(p for p in d.glob("_*.py") if p.name != "__init__.py")
        files += [(p.relative_to(d).as_posix(), p) for p in paths]
    return source.label, files


def checker_packages():
    """Top-level names of the installed packages that hold exercises (never importable in a graded kernel)."""
    return sorted({s.top for s in sources() if s.top})


def checker_locations():
    """Every directory that holds checker modules (cut out of a graded kernel's world wherever it lies)."""
    return sorted({d for s in sources() for d in s.directories})


def mentions(check_id):
    """Exercise names whose module source mentions ``check_id`` (so a preview imports one module, not all)."""
    index, _ = _index()
    found = []
    for name, source in index.items():
        for d in map(Path, source.directories):
            paths = sorted((d / name).rglob("*.py")) if (d / name).is_dir() else [d / f"{name}.py"]
            for path in paths:
                try:
                    text = path.read_text(encoding="utf-8")
                except OSError:
                    continue
                if f'"{check_id}"' in text or f"'{check_id}'" in text:
                    found.append(name)
                    break
    return sorted(set(found))
