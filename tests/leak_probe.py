"""Run inside an exercise's graded-kernel library: call every public lessonlib function on a robot's state.

``python -I -S leak_probe.py SANDBOX_LIB INPUT.json OUTPUT.json SITE_DIR...`` — the interpreter sees
what a graded kernel sees (the stripped, stubbed copy of lessonlib first on ``sys.path``, the site
packages after it). ``INPUT.json`` holds a :mod:`lessonlib.grading.kernel.protocol`-encoded robot and state
``{"model", "q", "qd", "x"}``; every public function of every lessonlib module is called as
``f(model, q)``, ``f(model, q, qd)`` and ``f(model, q, qd, x)`` (``x`` stands for q̈ or τ), each call
cut off after a second. ``OUTPUT.json`` maps ``"module.function/arity"`` to the float arrays the call
returned (inside tuples, lists, dicts and dataclasses too), as ``[shape, values]`` (under ``"calls"``),
and the modules that did not import to their error (under ``"failed"``). A stand-in of the
exercise raises, and so does everything that depends on one: only what a student could really use
shows up. ``tests/test_grading_leaks.py`` compares these arrays with the answers the exercise asks for.
"""
import dataclasses
import importlib
import json
import pkgutil
import signal
import sys
import warnings

SKIP = ("lessonlib.grading", "lessonlib.viz", "lessonlib.labextension")


class _Slow(Exception):
    pass


def _alarm(signum, frame):
    raise _Slow()


def arrays(value, depth=0):
    """The float arrays in ``value`` (numbers of at least two elements)."""
    import numpy as np
    if depth > 4:
        return []
    if isinstance(value, np.ndarray):
        return [value] if value.dtype.kind == "f" and value.size >= 2 and np.all(np.isfinite(value)) else []
    if isinstance(value, (tuple, list)):
        return [a for v in value[:16] for a in arrays(v, depth + 1)]
    if isinstance(value, dict):
        return [a for v in list(value.values())[:16] for a in arrays(v, depth + 1)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [a for f in dataclasses.fields(value)[:16] for a in arrays(getattr(value, f.name, None), depth + 1)]
    return []


def functions(failed):
    """``{qualified name: function}`` of every public function defined in a lessonlib module; ``failed``
    gets ``{module: error}`` of the modules that did not import."""
    import lessonlib
    found = {}
    for info in pkgutil.walk_packages(lessonlib.__path__, "lessonlib.", onerror=lambda name: None):
        if info.name.startswith(SKIP):
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception as exc:                          # a stubbed module, or one that imports a stub
            failed[info.name] = f"{type(exc).__name__}: {exc}"
            continue
        for name, obj in vars(module).items():
            if not name.startswith("_") and callable(obj) and getattr(obj, "__module__", None) == info.name \
                    and not isinstance(obj, type):
                found[f"{info.name}.{name}"] = obj
    return found


def main(lib, source, target, *site):
    sys.path[:] = [lib] + [p for p in sys.path if p] + list(site)    # the graded library first, as in a kernel
    import numpy as np

    from lessonlib import model as models
    from lessonlib.grading.kernel import protocol
    with open(source, encoding="utf-8") as fh:
        data = protocol.decode(json.load(fh), model=models)
    model, q, qd, x = data["model"], data["q"], data["qd"], data["x"]
    signal.signal(signal.SIGALRM, _alarm)
    out, failed = {}, {}
    for name, fn in sorted(functions(failed).items()):
        for args in ((model, q), (model, q, qd), (model, q, qd, x)):
            signal.setitimer(signal.ITIMER_REAL, 1.0)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    value = fn(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
            except BaseException:                         # noqa: BLE001 (wrong arguments, a stand-in, too slow)
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            found = arrays(value)
            if found:
                out[f"{name}/{len(args)}"] = [[list(a.shape), a.ravel().tolist()] for a in found]
    with open(target, "w", encoding="utf-8") as fh:
        json.dump({"calls": out, "failed": failed}, fh)


if __name__ == "__main__":
    main(*sys.argv[1:])
