"""How checkers write numbers and calls in a failure message: one home for every exercise module.

>>> import numpy as np
>>> array([1.0, 2.5e-17, -3.0])
'[ 1.,  0., -3.]'
>>> signature("rnea", (np.zeros(2), 3.0), {"gravity": np.array([0.0, 0.0, -9.81])})
'rnea([0., 0.], 3, gravity=[ 0.  ,  0.  , -9.81])'
>>> print(signature("Ad", (np.eye(4),), {}))
Ad(arg1) with
  arg1 =
    [[1., 0., 0., 0.],
     [0., 1., 0., 0.],
     [0., 0., 1., 0.],
     [0., 0., 0., 1.]]
>>> from collections import namedtuple
>>> value(namedtuple("State", "p0 r")(np.array([0.6025, 0.1643]), np.array([-1e-12, 0.0])))
'State(p0=[0.6025, 0.1643], r=[0., 0.])'
>>> params({"m": 2.70556, "ell": 0.3, "g0": 9.81})
'{m: 2.706, ell: 0.3, g0: 9.81}'
"""
from __future__ import annotations

import numpy as np

#: Arrays with at most this many numbers are written inline in a call; bigger ones below it (up to
#: :data:`BLOCK`), or by their shape.
INLINE = 6
BLOCK = 64


def array(x, precision=4):
    """A number or an array as the student sees it in a message (small values shown as 0, never as -0)."""
    a = np.asarray(x, dtype=float)
    a = np.where(np.abs(a) < 0.5 * 10.0 ** -precision, 0.0, a)
    return np.array2string(a, precision=precision, separator=", ", suppress_small=True, max_line_width=100)


def indent(text, n=4):
    """Every line of ``text`` indented by ``n`` spaces."""
    return "\n".join(" " * n + line for line in str(text).splitlines())


def value(v):
    """One argument of a call, short: numbers to 6 digits, small arrays in full, a model by name."""
    if isinstance(v, np.ndarray) or (isinstance(v, (list, tuple)) and v and all(
            isinstance(e, (int, float, np.number)) and not isinstance(e, bool) for e in v)):
        a = np.asarray(v, dtype=float)
        return array(a) if a.size <= INLINE else f"<array {a.shape}>"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if type(v).__name__ == "Model":
        return f"<Model {v.name!r} n={v.n}>"
    if isinstance(v, tuple) and hasattr(v, "_fields"):       # a named tuple (a state): its fields, each short
        return f"{type(v).__name__}(" + ", ".join(f"{k}={value(e)}" for k, e in zip(v._fields, v)) + ")"
    if isinstance(v, (list, tuple)) and len(v) <= INLINE:   # a few items of mixed kinds: each one short
        inner = ", ".join(value(e) for e in v)
        return f"({inner}{',' if len(v) == 1 else ''})" if isinstance(v, tuple) else f"[{inner}]"
    text = repr(v)
    return text if len(text) <= 60 else f"<{type(v).__name__} of {len(v)}>" if hasattr(v, "__len__") else \
        text[:57] + "..."


def signature(name, args, kwargs):
    """``name(args...)`` as a failure message shows the call; arrays too big to write inline follow,
    each named by its keyword or its position (``arg1``)."""
    parts, blocks = [], []
    labelled = [(f"arg{k + 1}", v, False) for k, v in enumerate(args)] + [(k, v, True) for k, v in kwargs.items()]
    for label, v, keyword in labelled:
        a = np.asarray(v) if isinstance(v, np.ndarray) else None
        if a is not None and a.dtype.kind in "biuf" and INLINE < a.size <= BLOCK:
            shown = label
            blocks.append(f"  {label} =\n{indent(array(a), 4)}")
        else:
            shown = value(v)
        parts.append(f"{label}={shown}" if keyword and shown != label else shown)
    text = f"{name}({', '.join(parts)})"
    return text + (" with\n" + "\n".join(blocks) if blocks else "")


def params(d):
    """A str-keyed dict of numbers (a link's or an arm's parameters), short: ``{m: 2.706, ell: 0.3}``."""
    return "{" + ", ".join(f"{k}: {float(v):.4g}" for k, v in d.items()) + "}"
