"""The static screen's other duties (``lessonlib.grading.screening``): flags, safe imports, reach, review, copies.

``test_grading_rules.py`` holds one snippet per review rule; here the rest of the module is pinned, each list
against one written independently here, so that a name dropped from a list, a branch turned around or a
reason worded into another fails in a second (``make mutation``).
"""
from __future__ import annotations

import pytest

from lessonlib.grading import screening
from lessonlib.grading.copydetect import Copy

#: The names an instructor is told about, written here independently of screening.SUSPICIOUS, each with a
#: snippet that uses it and nothing else on that list.
SUSPICIOUS = {
    "sys.modules": "x = sys.modules", "sys.path": "x = sys.path", "sys.meta_path": "x = sys.meta_path",
    "importlib": "import importlib", "__import__": "__import__('x')", "exec": "exec('1')", "eval": "eval('1')",
    "compile": "compile('1', 'f', 'eval')", "open": "open('f')", "ctypes": "import ctypes",
    "subprocess": "import subprocess", "os.system": "os.system('x')", "os._exit": "os._exit(0)",
    "socket": "import socket", "builtins": "import builtins", "inspect": "import inspect",
    "getsource": "x = f.getsource(g)", "os.environ": "x = os.environ", "signal": "import signal", "gc": "import gc",
    "__builtins__": "x = __builtins__", "__code__": "x = f.__code__", "globals": "x = globals()",
}
#: Imports that need no review without walls, written independently of screening.SAFE_MODULES.
SAFE = ("numpy", "math", "cmath", "functools", "itertools", "collections", "dataclasses", "typing", "fractions",
        "decimal", "numbers", "operator", "copy", "scipy", "sympy", "lessonlib", "warnings", "abc", "enum",
        "statistics", "random", "time", "string", "textwrap", "__future__", "matplotlib", "bisect", "heapq")
PLAIN = ("__name__", "__doc__", "__init__", "__len__", "__call__")


def test_the_lists_here_are_the_screens_lists():
    assert set(SUSPICIOUS) == set(screening.SUSPICIOUS) and len(SUSPICIOUS) == len(screening.SUSPICIOUS)
    assert set(SAFE) == screening.SAFE_MODULES and set(PLAIN) == screening.PLAIN_DUNDERS


@pytest.mark.parametrize("name", SUSPICIOUS)
def test_each_suspicious_name_is_flagged_alone(name):
    assert screening.flags_of({"a": SUSPICIOUS[name]}) == [f"answer cell 'a' uses {name}"]


def test_flags_name_every_hit_sorted_go_on_past_a_cell_that_does_not_parse_and_see_from_imports():
    answers = {"broken": "def f(:\n", "both": "import gc\nx = eval('1')", "honest": "import numpy as np\ny = np.eye(3)",
               "from": "from os import system", "deep": "from importlib.util import find_spec",
               "relative": "from . import helper", "chained": "x = f().modules.path",
               "dotted": "import importlib.util"}
    assert screening.flags_of(answers) == ["answer cell 'broken' does not parse", "answer cell 'both' uses eval, gc",
                                           "answer cell 'from' uses os.system", "answer cell 'deep' uses importlib",
                                           "answer cell 'dotted' uses importlib"]


@pytest.mark.parametrize("module", SAFE)
def test_a_safe_import_needs_no_review_and_neither_does_its_submodule(module):
    assert screening._review_hits([_tree(f"import {module}\nimport {module}.sub\nfrom {module}.sub import x")]) == []


def test_an_unsafe_or_relative_import_is_named():
    assert screening._review_hits([_tree("import xml.dom")]) == ["import xml.dom"]
    assert screening._review_hits([_tree("from . import helper")]) == ["import ."]
    assert screening._review_hits([_tree("from xml import dom")]) == ["import xml"]


@pytest.mark.parametrize("dunder", PLAIN)
def test_a_plain_dunder_needs_no_review(dunder):
    assert screening._review_hits([_tree(f"x = f.{dunder}")]) == []


def _tree(source):
    import ast                                              # noqa: PLC0415
    return ast.parse(source)


ANSWERS = {
    "a": "import numpy as np\n\ndef f(x):\n    return g(x) + np.sum(x)\n\ndef g(x):\n    return h(x)\n",
    "b": "def h(x):\n    return h(x - 1) if x else open('/proc/1/cmdline')\n\ndef k(x):\n    return x.__class__\n",
    "c": "import pickle\n\ndef m(x):\n    return x\n",
    "broken": "def f(:\n",
}


def test_reach_follows_the_names_a_function_uses_through_every_cell_and_stops_at_cycles():
    assert screening.reach(ANSWERS, ["f"]) == {"f", "g", "h"}
    assert screening.reach(ANSWERS, ["k"]) == {"k"} and screening.reach(ANSWERS, ["m", "np"]) == {"m"}
    assert screening.reach(ANSWERS, ["nowhere"]) == set()


def test_top_level_defs_and_module_level_split_each_cell():
    defs = screening.top_level_defs(ANSWERS)
    assert {name: key for name, (key, _) in defs.items()} == {"f": "a", "g": "a", "h": "b", "k": "b", "m": "c"}
    level = screening.module_level(ANSWERS)
    assert {key: [type(n).__name__ for n in nodes] for key, nodes in level.items()} == {
        "a": ["Import"], "b": [], "c": ["Import"]}


def test_review_names_top_level_code_every_reached_function_and_what_no_cell_defines():
    assert screening.review_reasons(ANSWERS, ("f",)) == [
        "answer cell 'c' uses import pickle", "h (answer cell 'b') uses open, the string '/proc'"]
    assert screening.review_reasons(ANSWERS, ("k", "missing")) == [
        "answer cell 'c' uses import pickle", "k (answer cell 'b') uses .__class__",
        "missing is not defined by any answer cell"]
    honest = {"a": "import numpy as np\n\ndef f(x):\n    return np.eye(3) @ x\n"}
    assert screening.review_reasons(honest, ("f",)) == []
    assert screening.review_reasons(honest, ("f", "gone")) == []          # a missing function alone is no reason


def test_copied_reach_taints_the_functions_that_reach_a_copy_even_one_nested_inside():
    answers = {"a": "def f(x):\n    def inner(y):\n        return y\n    return inner(x) + g(x)\n\n"
                    "def g(x):\n    return x\n\ndef lone(x):\n    return x\n"}
    nested, top, far = Copy("a", "inner", "lib.f", 0.98), Copy("a", "g", "lib.g", 0.99), Copy("a", "lone", "lib.h", 0.97)
    assert screening.copied_reach(answers, [nested, top, far], ["f"]) == [nested, top]
    assert screening.copied_reach(answers, [far], ["f"]) == [] and screening.copied_reach(answers, [], ["f"]) == []
    assert screening.copied_reach(answers, [nested, far], ["lone"]) == [far]


def test_untouched_counts_a_missing_cell_as_a_stub():
    reference = {"answer-f": "def f(x):\n    return 2 * x\n", "answer-g": "def g(x):\n    return x\n"}
    stub = "def f(x):\n    \"\"\"Twice x.\"\"\"\n    raise NotImplementedError('write f')\n"
    assert screening.untouched({"answer-f": stub}, reference, ("f",)) == ["answer-f"]
    assert screening.untouched({}, reference, ("f",)) == ["answer-f"]                 # the cell was deleted
    assert screening.untouched({"answer-f": "def f(x):\n    return x\n"}, reference, ("f",)) == []
    assert screening.untouched({"answer-f": stub}, reference, ("f", "g")) == ["answer-f", "answer-g"]
    assert screening.untouched({"answer-f": stub, "answer-g": reference["answer-g"]}, reference, ("f", "g")) == []
    assert screening.untouched({"answer-f": stub}, reference, ("unknown",)) == []


def test_a_cell_that_does_not_parse_hides_nothing_after_it():
    answers = {"broken": "def f(:\n", "a": "import os\n\ndef g(x):\n    return x\n"}
    assert set(screening.top_level_defs(answers)) == {"g"}
    assert screening.review_reasons(answers, ("g",)) == ["answer cell 'a' uses import os"]


def test_review_lists_several_hits_and_several_missing_functions_in_one_reason_each():
    answers = {"a": "import os, pickle\n\ndef f(x):\n    return x\n"}
    assert screening.review_reasons(answers, ("f", "g", "h")) == [
        "answer cell 'a' uses import os, import pickle", "g, h is not defined by any answer cell"]
    assert screening.reach(ANSWERS, ["f", "k"]) == {"f", "g", "h", "k"}      # every root followed, not the last one
