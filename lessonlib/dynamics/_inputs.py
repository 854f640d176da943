"""What the dynamics algorithms share that is not an algorithm: their checked inputs and ``A_0``.

The checks themselves live in :mod:`lessonlib._validate` (the library's one home of input
validation); the names here are the ones the algorithms read as they are written in the lessons
(``q, qd, qdd = state(model, q, qd, qdd)``).
"""
from __future__ import annotations

import weakref

from .. import conventions
from .._validate import joint_state as state
from .._validate import singular_mass_matrix, smallest_pivot

__all__ = ["state", "base_acceleration", "smallest_pivot", "singular_mass_matrix"]

#: model -> its ``A_0`` under its own gravity (read-only), so the default costs no new array per call.
_DEFAULT_A0 = weakref.WeakKeyDictionary()


def base_acceleration(model, gravity):
    """``A_0 = [0; −g_phys]`` for ``gravity`` = ``g_phys`` (None: the model's default), ``a_0`` in code:
    :func:`conventions.base_acceleration` (the one formula) of the gravity a dynamics algorithm was given.

    Every recursion starts from it — the spatial form as the base's ``A_0``, the Lie-group form as
    ``A^0_0``, DeNOC as ``V̇_{w,0}`` (world axes), the classic forms as its halves ``ω̇_0 = 0``,
    ``a_0 = −g_phys``. Read-only when ``gravity`` is None (one array per Model, computed once).
    """
    if gravity is not None:
        return conventions.base_acceleration(model.gravity_or_default(gravity))
    a_0 = _DEFAULT_A0.get(model)
    if a_0 is None:
        a_0 = _DEFAULT_A0[model] = conventions.base_acceleration(model.gravity)
        a_0.setflags(write=False)
    return a_0
