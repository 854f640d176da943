"""The graded kernel's world: a stripped copy of lessonlib, a bootstrap, a kernelspec, and its walls.

Built once per batch (:func:`build_library`, read-only to every kernel)::

    lib/lessonlib/...                  the library's *sources* (no ``__pycache__``, no compiled or numba
                                       caches), with the exercise's targets stubbed
    lib/lessonlib/grading/__init__.py  the check cells' front door
    lib/lessonlib/grading/kernel/      the kernel package, as a whole: client, protocol, the bootstrap
                                       (:mod:`.kernel.boot`), the walls, the fork server

and per graded run (:func:`kernel_spec`)::

    boot.json                    the bootstrap's paths, limits and confinement policy
    jupyter/kernels/lessonlib-grade/kernel.json   the kernelspec nbval starts (``-I -S``)

The kernel's private directory (its empty working directory ``cwd/``, ``tmp/``, its IPython and
Jupyter configuration directories) is the only place it may write.

Stubs: a blocked module (``"lessonlib.dynamics"``: the package and every module in it) is
replaced by a module whose every attribute raises
:class:`~lessonlib.grading.kernel.errors.NotAvailableWhileGrading`; a blocked function
(``"lessonlib.kinematics:body_twists"``) has its definition replaced by one that raises. Nothing
of the grader but :mod:`lessonlib.grading.kernel` is copied (no judge, no checkers, no notebook
builder).

Confinement (:func:`confinement_policy`, enforced by :mod:`.confine` in the kernel): read and
execute the Python installation, the site-packages directories (minus the real ``lessonlib`` and
the :data:`DENIED_PACKAGES`) and the system's libraries and programs; read the sandbox and a few
system files; write only the private directory. Where an allowed tree holds something denied,
it is carved: its directories stay listable (names only) and its other entries are allowed one
by one.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .checks.registry import checker_packages
from .kernel.limits import LIMITS, OUTPUT_LIMIT, THREADS_ENV
from .notebook import KERNEL_NAME

#: Third-party packages a graded kernel may not import (they compute dynamics for you).
DENIED_PACKAGES = ("modern_robotics", "roboticstoolbox", "spatialmath", "spatialgeometry", "pinocchio",
                   "cmeel", "eigenpy", "coal", "hppfcl", "robot_descriptions", "rtbdata", "pybullet",
                   "mujoco", "rbdl", "idyntree", "casadi", "swift", "sympybotics", "pydrake")
#: Module-name prefixes refused too (the editable-install finder of the real lessonlib).
DENIED_PREFIXES = ("__editable__",)
#: What is never copied into the sandbox: compiled code (a ``.pyc`` holds a stubbed function's code
#: object, ``marshal.loads`` gives it back), numba's caches, and the grader.
NOT_COPIED = ("__pycache__", "*.pyc", "*.pyo", "*.nbi", "*.nbc", "*.so", "*.pyd")

_STUB_MODULE = '''"""Not available while grading: exercise {exercise} asks you to write this yourself."""
import sys as _sys
import types as _types

from lessonlib.grading.kernel.errors import NotAvailableWhileGrading as _NotAvailable


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    raise _NotAvailable.of(f"{{__name__}}.{{name}}", "{exercise}")


class _StandIn(_types.ModuleType):
    """A stand-in module is called like the function it is named after (``from lessonlib.dynamics import aba``
    may give the module ``aba``): calling it says the same as using any of its names."""

    def __call__(self, *args, **kwargs):
        raise _NotAvailable.of(self.__name__, "{exercise}")


_sys.modules[__name__].__class__ = _StandIn
'''

_STUB_FUNCTION = '''def {name}(*args, **kwargs):
    """Not available while grading (exercise {exercise} asks you to write it yourself)."""
    from lessonlib.grading.kernel.errors import NotAvailableWhileGrading
    raise NotAvailableWhileGrading.of("{module}.{name}", "{exercise}")
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


#: Trees the kernel may read and execute besides the Python installation: shared libraries, programs.
SYSTEM_READ_EXEC = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")
#: System files (and directories) the kernel may read: the dynamic linker's cache, time zones, user
#: names, MIME types, random numbers, the CPU list numerical libraries size their thread pools by.
SYSTEM_READ = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
               "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf",
               "/etc/mime.types", "/dev/urandom", "/dev/random", "/sys/devices/system/cpu")
#: Devices the kernel may write.
SYSTEM_READ_WRITE = ("/dev/null", "/dev/zero", "/dev/full")
#: What the kernel's private directory holds (the working directory is the only one its code sees).
PRIVATE_DIRS = ("cwd", "tmp", "ipython", "jupyter-config", "matplotlib")


def _beneath(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def carve(roots, denied):
    """``(allowed, listable)``: real paths covering ``roots`` minus every path beneath ``denied``.

    A root with no denied path inside is allowed whole. One that holds a denied path is carved:
    it goes to ``listable`` (its names may be listed) and its entries are examined one by one; an
    entry that is a symlink leading out of its directory is dropped (a rule would follow it). A
    root that lies inside a denied tree is still allowed (the venv inside the repository): only
    what is denied *inside* an allowed tree is cut out of it.

    >>> carve(["/usr"], ["/srv"])
    (['/usr'], [])
    """
    denied = sorted({os.path.realpath(d) for d in denied})
    allowed, listable = [], []
    for root in dict.fromkeys(os.path.realpath(r) for r in roots if os.path.exists(r)):
        inside = [d for d in denied if _beneath(d, root)]
        stack = [root]
        while stack:
            path = stack.pop()
            if any(_beneath(path, d) for d in inside):
                continue
            if not any(_beneath(d, path) for d in inside):
                allowed.append(path)
                continue
            listable.append(path)
            try:
                entries = sorted(os.listdir(path))
            except OSError:
                continue
            for entry in entries:
                real = os.path.realpath(os.path.join(path, entry))
                if _beneath(real, path) and real != path:
                    stack.append(real)
    allowed = sorted(set(allowed))
    return [a for a in allowed if not any(_beneath(a, b) and a != b for b in allowed)], sorted(set(listable))


def _site_candidates():
    """Every site-packages directory of this interpreter and of its base installation."""
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    found = site_dirs() + [sysconfig.get_paths(vars=base)[k] for k in ("purelib", "platlib")]
    return [d for d in dict.fromkeys(found) if os.path.isdir(d)]


def denied_paths(exercise=None, extra=()):
    """Paths the graded kernel must not read even where an allowed tree holds them.

    The real ``lessonlib`` (and, for a source checkout, its project root), every entry of a
    site-packages directory that belongs to a :data:`DENIED_PACKAGES` package (or the exercise's
    ``denied``, or a package that declares exercises: :func:`.checks.registry.checker_packages`) or to
    the editable-install finder, and ``extra`` (the reference, the submissions,
    the grader's working directory).
    """
    names = set(DENIED_PACKAGES) | set(getattr(exercise, "denied", ()) or ()) | {"lessonlib"} | set(checker_packages())
    package = _package_dir()
    out = [os.fspath(package)]
    if not any(_beneath(os.fspath(package), os.path.realpath(d)) for d in _site_candidates()):
        out.append(os.fspath(package.parent))            # a source checkout: its whole project
    for d in _site_candidates():
        for entry in os.listdir(d):
            top = re.split(r"[.-]", entry, maxsplit=1)[0]
            if top in names or entry.startswith(DENIED_PREFIXES):
                out.append(os.path.join(d, entry))
    return out + [os.fspath(e) for e in extra]


def _interpreter(python):
    """The interpreter a kernel runs (``python``, a venv's link included) and its venv's ``pyvenv.cfg``."""
    python = python or sys.executable
    cfg = os.path.join(os.path.dirname(os.path.dirname(python)), "pyvenv.cfg")
    return [python], [cfg] if os.path.isfile(cfg) else []


def confinement_policy(sandbox, *, exercise=None, denied=(), python=None):
    """The batch's part of a graded kernel's Landlock walls: ``{"read_exec", "list", "read"}`` path lists.

    ``sandbox``: the directory :func:`build_library` wrote (read only); ``denied``: more paths to cut
    out of the allowed trees; ``python``: the interpreter the kernel runs. The system trees that are
    links (``/lib64`` → ``usr/lib64``) and the interpreter are named as such too: in the kernel's own
    world they are mounts of their own, and Landlock follows a path only up to its mount. A run adds
    its own (:func:`run_policy`).
    """
    roots = [sys.base_prefix, sys.base_exec_prefix, *site_dirs(), *SYSTEM_READ_EXEC]
    read_exec, listable = carve(roots, denied_paths(exercise, denied))
    executable, config = _interpreter(python)
    links = [r for r in SYSTEM_READ_EXEC if os.path.islink(r)]
    return {"read_exec": read_exec + links + executable, "list": listable,
            "read": [os.fspath(sandbox), *SYSTEM_READ, *config]}


def run_policy(policy, dirs):
    """One run's Landlock walls: the batch's ``policy`` plus its private directory (read and write,
    with the writable devices) and its channel directory (Unix sockets only)."""
    return {**policy, "read_write": [os.fspath(dirs.private), *SYSTEM_READ_WRITE], "sockets": [os.fspath(dirs.channel)]}


#: Devices a graded kernel's world holds.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random")


def kernel_view(sandbox, *, exercise=None, denied=(), python=None):
    """The batch's part of a graded kernel's own world (:class:`.kernel.namespaces.View`, as a dict).

    Read-only: the Python installation and the interpreter the kernel runs (``python``, with its
    venv's ``pyvenv.cfg``), the site-packages directories, the system's libraries and programs (at
    the paths programs name them: ``/lib64`` is where the dynamic loader is looked for, even where it
    is a link), the sandbox, a few system files; hidden inside those: what :func:`denied_paths` names
    (the real ``lessonlib``, other robotics packages, the editable finder, ...). A run adds its own
    directories (:func:`run_view`).
    """
    roots = [r for r in dict.fromkeys([sys.base_prefix, sys.base_exec_prefix, *site_dirs(), *SYSTEM_READ_EXEC])
             if os.path.exists(r)]
    executable, config = _interpreter(python)
    read_only = roots + executable + config + [os.fspath(sandbox)] + [p for p in SYSTEM_READ if not p.startswith("/dev/")]
    real_roots = {os.path.realpath(r) for r in roots}
    hidden = sorted({os.path.realpath(d) for d in denied_paths(exercise, denied)
                     if any(_beneath(os.path.realpath(d), r) and os.path.realpath(d) != r for r in real_roots)})
    return {"read_only": read_only, "devices": list(DEVICES), "hidden": hidden}


def run_view(view, dirs, limits):
    """One run's world: the batch's ``view`` plus its staging root, private tmpfs and channel directory."""
    return {**view, "staging": os.fspath(dirs.staging), "private": os.fspath(dirs.private),
            "channel": [os.fspath(dirs.channel)], "size": int(limits["disk"]), "inodes": int(limits["inodes"])}


@dataclass(frozen=True)
class RunDirs:
    """One graded run's directories, all below ``root`` (short paths: Unix socket names are limited).

    ``kernel``: its ``boot.json`` and kernelspec; ``run``: nbval's (the graded notebook, the log, the
    connection file); ``channel``: the judge's socket and the kernel's ZeroMQ sockets; ``private``:
    the kernel's only writable place (a tmpfs in its own world); ``staging``: where its root is
    built; ``watch``: the grader's copy of the kernel's record of attempts.
    """

    root: Path

    @classmethod
    def make(cls, parent):
        dirs = cls(Path(tempfile.mkdtemp(prefix="r", dir=parent)))
        for d in (dirs.kernel, dirs.run, dirs.channel, dirs.private, dirs.staging):
            d.mkdir(mode=0o700)
        return dirs

    kernel = property(lambda self: self.root / "kernel")
    run = property(lambda self: self.root / "run")
    channel = property(lambda self: self.root / "chan")
    private = property(lambda self: self.root / "private")
    staging = property(lambda self: self.root / "staging")
    watch = property(lambda self: self.root / "watch.jsonl")

    @property
    def judge_socket(self):
        return self.channel / "judge.sock"


def build_library(root, exercise):
    """Write the per-batch part of the sandbox under ``root``: the library's sources, stubbed, and the
    kernel package (:data:`NOT_COPIED` stays out)."""
    root = Path(root)
    lib = root / "lib"
    src = _package_dir()
    shutil.copytree(src, lib / "lessonlib", ignore=shutil.ignore_patterns(*NOT_COPIED, "grading"))
    grading = lib / "lessonlib" / "grading"
    grading.mkdir()
    shutil.copy2(src / "grading" / "__init__.py", grading / "__init__.py")
    shutil.copytree(src / "grading" / "kernel", grading / "kernel", ignore=shutil.ignore_patterns(*NOT_COPIED))
    for target in exercise.blocked:
        module, _, function = target.partition(":")
        if function:
            _stub_function(lib, module, function, exercise.name)
        else:
            _stub_module(lib, module, exercise.name)
    return root


def boot_script(sandbox):
    """The bootstrap in the sandbox (:mod:`.kernel.boot`), run as a script."""
    return Path(sandbox) / "lib" / "lessonlib" / "grading" / "kernel" / "boot.py"


def batch_config(sandbox, exercise):
    """What every kernel of a batch shares: its library path, site-packages, denied packages, output cap."""
    return {"lib": str(Path(sandbox) / "lib"), "site": site_dirs(),
            "denied": list(DENIED_PACKAGES) + list(exercise.denied) + [p for p in checker_packages() if p != "lessonlib"],
            "denied_prefixes": list(DENIED_PREFIXES),
            "output_limit": OUTPUT_LIMIT}


def zygote_command(sandbox, exercise, python=None, *, preload=()):
    """Write the kernel zygote's configuration into ``sandbox``; the command that starts the zygote.

    ``preload``: modules the graded notebook imports (see :func:`~.notebook.imported_modules`); the
    zygote imports those of them :mod:`.kernel.boot` allows ahead of the kernels.
    """
    sandbox = Path(sandbox)
    (sandbox / "zygote.json").write_text(json.dumps({**batch_config(sandbox, exercise), "preload": list(preload)},
                                                    indent=1), encoding="utf-8")
    return [python or sys.executable, "-I", "-S", str(boot_script(sandbox)), "--zygote", str(sandbox / "zygote.json")]


def kernel_command(sandbox, boot, python=None):
    """The kernelspec's command up to the connection file: ``python -I -S .../kernel/boot.py BOOT.json``."""
    return [python or sys.executable, "-I", "-S", str(boot_script(sandbox)), str(boot)]


def kernel_spec(dirs, sandbox, exercise, *, judge_address, python=None, policy=None, enforce=False, view=None,
                limits=None):
    """Write one run's ``boot.json`` and kernelspec (in ``dirs.kernel``); returns the ``JUPYTER_PATH`` directory.

    ``dirs``: the run's :class:`RunDirs`; ``sandbox``: the :func:`build_library` directory;
    ``policy``: :func:`run_policy` output (the Landlock walls, and what the kernel records attempts
    against), or None; ``enforce``: apply the Landlock walls (else they only define what is
    recorded); ``view``: :func:`run_view` output (the kernel's own namespaces and world), or None;
    ``limits``: the resource limits (:data:`.kernel.limits.LIMITS`).
    """
    private, workdir = dirs.private, dirs.private / "cwd"
    config = {**batch_config(sandbox, exercise), "workdir": str(workdir), "tmp": str(private / "tmp"),
              "make": [str(private / d) for d in PRIVATE_DIRS],
              "confine": policy, "enforce": bool(enforce and policy), "view": view, "limits": limits or LIMITS,
              "watch": str(private / "watch.jsonl"), "watch_out": str(dirs.watch)}
    (dirs.kernel / "boot.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    spec_dir = dirs.kernel / "jupyter" / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    spec = {"argv": [*kernel_command(sandbox, dirs.kernel / "boot.json", python),
                     "-f", "{connection_file}", "--HistoryManager.enabled=False"],
            "display_name": "lessonlib grader", "language": "python",
            "env": {"LESSONLIB_JUDGE": judge_address, **THREADS_ENV,
                    "IPYTHONDIR": str(private / "ipython"), "JUPYTER_CONFIG_DIR": str(private / "jupyter-config"),
                    "MPLCONFIGDIR": str(private / "matplotlib"), "TMPDIR": str(private / "tmp"),
                    "HOME": str(workdir)}}
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    return dirs.kernel / "jupyter"
