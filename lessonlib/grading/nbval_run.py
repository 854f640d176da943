"""``python -I -m lessonlib.grading.nbval_run PYTEST_ARGS...``: the nbval run of one graded notebook.

Plain ``pytest`` with one saving: ``nbformat`` imports ``jsonschema``, whose optional IRI-syntax
checker (``rfc3987_syntax``) compiles a grammar at import time — about 1.3 s of CPU per graded
run, for a format no notebook schema uses. This process marks that module as absent (jsonschema
skips the check), then runs pytest with the arguments it was given.
"""
import sys


def main(argv=None):
    sys.modules.setdefault("rfc3987_syntax", None)      # optional for jsonschema; costly to import
    import pytest
    return pytest.main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
