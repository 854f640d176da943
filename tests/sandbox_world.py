"""A graded kernel's import world, for tests: the batch's sandbox library, its ``sys.path`` and denied packages.

:func:`run` builds the sandbox of an exercise (:func:`lessonlib.grading.sandbox.build_library`) and
runs Python code in a fresh ``python -I -S`` whose imports are set up by the shipped bootstrap's own
:func:`~lessonlib.grading.kernel.boot.set_paths` (no walls: what is *importable* is under test here,
the walls are tested in ``test_grading_isolation.py``). The code prints one JSON line, which is returned.
"""
import json
import subprocess
import sys

from lessonlib.grading.sandbox import batch_config, boot_script, build_library

PRELUDE = r'''
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(sys.argv[1])))
from kernel import boot
del sys.path[0]
boot.set_paths(json.loads(sys.argv[2]))
'''


def run(tmp_path, exercise, code, *args, timeout=120):
    """Run ``code`` (which prints one JSON line last) in ``exercise``'s graded import world; its value."""
    sandbox = build_library(tmp_path / "sandbox", exercise)
    config = batch_config(sandbox, exercise)
    res = subprocess.run([sys.executable, "-I", "-S", "-c", PRELUDE + code, str(boot_script(sandbox)),
                          json.dumps(config), *map(str, args)], capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1]), config
