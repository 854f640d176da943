"""Copy detector: answer-cell functions that are the library's implementation with the names changed.

Each function is reduced to its AST token sequence: node types in source order, with every name
(variables, attributes, arguments), every string and every number replaced by its kind, and
docstrings, comments and formatting gone. Renaming variables, reformatting or re-commenting
pasted code does not change the sequence. Two functions are compared with difflib's ratio
``2·matches / (len(a) + len(b))``; a student function of at least :data:`MIN_TOKENS` tokens whose
ratio to a library function of at least :data:`MIN_TOKENS` tokens reaches :data:`THRESHOLD` is a
copy.

Calibration (``tests/test_grading_copydetect.py``, against the book-shaped ``rnea``, ``crba`` and
``aba``, compared with every function of the exercise's ``copy_targets``): the library pasted
verbatim, or with every local renamed and its comments replaced, scores 0.99; renamed with ``.dot``
rewritten as ``@`` 0.91–0.96. Twelve honest answers written from the lessons' equations in other
styles (``@`` or ``.dot``, unpacked locals, lists, helpers, other decompositions) score 0.26–0.82;
the closest is a CRBA with ``.dot`` and unpacked locals, Featherstone's loops (0.82). A match is a
reason for review, not a verdict: an answer that transcribes Featherstone's ``ID.m`` or CRBA line
by line *is* the library's shape and will be sent to review; pasted code restructured enough
(helpers inlined, loops reordered) falls below the threshold. Small functions are not compared: a
six-line formula has too few shapes to tell copying from convergence.

>>> lib = "def f(model, q):\\n    out = []\\n    for i in range(model.n):\\n        out.append(q[i] * 2 + model.x[i])\\n    return out\\n"
>>> mine = "def g(m, angles):\\n    '''Mine!'''\\n    res = []  # comment\\n    for k in range(m.n):\\n        res.append(angles[k] * 3 + m.x[k])\\n    return res\\n"
>>> similarity(tokens_of(lib)[0][1], tokens_of(mine)[0][1])
1.0
"""
from __future__ import annotations

import ast
import difflib
import importlib.util
from dataclasses import dataclass

#: Functions shorter than this (AST tokens) are never compared.
MIN_TOKENS = 80
#: Ratio at and above which a student function counts as a copy of a library function.
THRESHOLD = 0.88


def _is_docstring(node):
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _kind(value):
    if isinstance(value, str):
        return "str"
    if isinstance(value, bool) or value is None:
        return repr(value)
    return "num"


def normalise(node):
    """The token sequence of an AST node (names, strings, numbers, docstrings stripped)."""
    out = []

    def visit(n):
        if isinstance(n, (ast.expr_context, ast.Load, ast.Store, ast.Del)):
            return
        if _is_docstring(n):
            return
        out.append(f"Constant:{_kind(n.value)}" if isinstance(n, ast.Constant) else type(n).__name__)
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return out


def tokens_of(source):
    """``[(function name, tokens), ...]`` for every function defined in ``source`` (nested ones too).

    Source that does not parse gives ``[]`` (it cannot run either).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [(node.name, normalise(node)) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def similarity(a, b):
    """difflib's ratio of two token sequences (1.0 = identical)."""
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def library_functions(module_names):
    """``[(qualified name, tokens)]`` of the functions of the named library modules that exist.

    The source is read from the installed package files (in the grader, never in a kernel).
    """
    found = []
    for module in module_names:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        with open(spec.origin, encoding="utf-8") as fh:
            source = fh.read()
        found += [(f"{module}.{name}", toks) for name, toks in tokens_of(source) if len(toks) >= MIN_TOKENS]
    return found


@dataclass(frozen=True)
class Copy:
    """A student function found to be a copy: where it is, what it copies and how closely."""

    cell: str
    function: str
    target: str
    ratio: float


def find_copies(answers, targets, *, threshold=THRESHOLD):
    """Copies among the answer cells.

    ``answers``: ``{cell key: source}``; ``targets``: :func:`library_functions` output.
    """
    functions = [(key, name, toks) for key, source in answers.items() for name, toks in tokens_of(source)
                 if len(toks) >= MIN_TOKENS]
    best = {}                                             # (key, name) -> (ratio, target)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    for target, t in targets:
        matcher.set_seq2(t)                               # difflib indexes the second sequence once
        for key, name, toks in functions:
            matcher.set_seq1(toks)
            if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
                continue                                  # upper bounds of the ratio: it cannot reach the threshold
            ratio = matcher.ratio()
            if ratio >= threshold and (ratio, target) > best.get((key, name), (0.0, "")):
                best[key, name] = (ratio, target)
    return [Copy(key, name, best[key, name][1], round(best[key, name][0], 3))
            for key, name, _ in functions if (key, name) in best]
