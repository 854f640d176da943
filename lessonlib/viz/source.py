"""``show_source``: the library's own code in a notebook ("Look inside"), never a copy."""
from __future__ import annotations

import inspect

from IPython.display import Code


class Source(Code):
    """Syntax-highlighted source of a library object (an ``IPython.display.Code``).

    ``.data`` is the exact text of ``inspect.getsource``; the plain-text form (what nbval compares)
    is one stable line naming the object, so editing the library does not break stored outputs.
    """

    def __init__(self, obj):
        self.name = _qualified_name(obj)
        super().__init__(inspect.getsource(obj), language="python")

    def __repr__(self):
        return f"<source of {self.name}: {len(self.data.splitlines())} lines>"

    def _repr_pretty_(self, p, cycle):
        p.text(f"source of {self.name}")


def _qualified_name(obj):
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "")
    return f"{module}.{name}" if module and name and module != name else (name or module)


def show_source(obj):
    """The real source of a function, class or module, highlighted; shown when it ends a cell.

    >>> from lessonlib.dynamics import gravity_torques
    >>> src = show_source(gravity_torques)
    >>> src.data.splitlines()[0]
    'def gravity_torques(model, q, *, gravity=None):'
    >>> print(repr(src).split(":")[0])
    <source of lessonlib.dynamics.terms.gravity_torques
    """
    return Source(obj)
