"""``python -I -m lessonlib.grading.runner.main PYTEST_ARGS...``: the nbval run of one graded notebook.

Plain ``pytest`` with one saving: ``nbformat`` imports ``jsonschema``, whose optional IRI-syntax
checker (``rfc3987_syntax``) compiles a grammar at import time — about 1.3 s of CPU per graded
run, for a format no notebook schema uses. This process marks that module as absent (jsonschema
skips the check), then runs pytest with the arguments it was given.

``... runner.main --zygote FD``: the batch's nbval zygote (:mod:`..kernel.forkserver`), which imports
pytest, nbval, jupyter_client, nbformat and this package's guard once, then forks one nbval process
per run.
"""
import importlib
import sys

#: What an nbval process imports after it starts (measured: about 130 modules), besides pytest's own
#: default plugins: IPython (jupyter_client's kernelspec lookup imports it), psutil, pdb, ...
NBVAL_MODULES = ("IPython", "IPython.paths", "psutil", "pdb", "difflib", "unittest", "xml.etree.ElementTree",
                 "jupyter_client.localinterfaces", "jupyter_client.provisioning", "nbval.kernel", "nbval.plugin")


def main(argv=None):
    sys.modules.setdefault("rfc3987_syntax", None)      # optional for jsonschema; costly to import
    import pytest
    return pytest.main(sys.argv[1:] if argv is None else argv)


def _preload():
    """Import what every nbval process of the batch imports, once, in the zygote."""
    sys.modules.setdefault("rfc3987_syntax", None)
    import nbformat
    import pytest  # noqa: F401
    from _pytest.config import default_plugins

    from . import guard, provisioner  # noqa: F401
    for name in NBVAL_MODULES + tuple(f"_pytest.{p}" for p in default_plugins):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    for minor in (4, 5):                                  # nbformat compiles its schema validator once, here
        nbformat.validate(nbformat.v4.new_notebook(nbformat_minor=minor))


def zygote(control_fd):
    """The batch's nbval zygote: preload, then fork an nbval process per request."""
    from ..kernel.confine import not_dumpable
    from ..kernel.forkserver import serve
    _preload()
    not_dumpable()
    serve(control_fd, lambda request: main(list(request["args"])))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        zygote(int(sys.argv[2]))
    else:
        sys.exit(main())
