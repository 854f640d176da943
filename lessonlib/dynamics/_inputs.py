"""Input checking and error messages shared by the dynamics algorithms (not an algorithm)."""
from __future__ import annotations

import weakref

from .. import conventions

#: model -> its ``a_0`` under its own gravity (read-only), so the default costs no new array per call.
_DEFAULT_A0 = weakref.WeakKeyDictionary()
#: model -> the smallest pivot its forward dynamics accepts (a Model is immutable: computed once).
_PIVOT_MIN = weakref.WeakKeyDictionary()


def state(model, q, qd=None, qdd=None):
    """Validate the joint-space arrays, naming the argument on error; returns them as float arrays."""
    out = [model.check_q(q, "q")]
    if qd is not None:
        out.append(model.check_q(qd, "qd"))
    if qdd is not None:
        out.append(model.check_q(qdd, "qdd"))
    return out


def base_acceleration(model, gravity):
    """``a_0 = [0; −g]`` for ``gravity`` (None: the model's default), see :func:`conventions.base_acceleration`.

    Read-only when ``gravity`` is None (one array per Model, computed once).
    """
    if gravity is not None:
        return conventions.base_acceleration(model.gravity_or_default(gravity))
    a_0 = _DEFAULT_A0.get(model)
    if a_0 is None:
        a_0 = _DEFAULT_A0[model] = conventions.base_acceleration(model.gravity)
        a_0.setflags(write=False)
    return a_0


def smallest_pivot(model):
    """``RANK_TOL · max |I_i|``: a pivot (``D_i`` of ABA) below this makes the mass matrix singular."""
    d_min = _PIVOT_MIN.get(model)
    if d_min is None:
        d_min = _PIVOT_MIN[model] = conventions.RANK_TOL * float(abs(model.inertia).max())
    return d_min


def singular_mass_matrix(model, joint, quantity, value):
    """The ``ValueError`` for a mass matrix that is singular at ``joint`` (``quantity = value`` vanished).

    A body beyond a joint that has no inertia about the joint's axis (a thin rod spinning about its
    own axis, the only body beyond that joint) gives a zero row and column in ``M``: the torque
    then determines no acceleration of that joint. The inertia checks accept such a rod (it is a
    valid rigid body); forward dynamics cannot.
    """
    return ValueError(
        f"model: the mass matrix of {model.name!r} is singular at joint {joint} ({model.joint_names[joint]!r}): "
        f"{quantity} = {value:.3g}, so no torque determines its acceleration. What moves with this joint "
        f"has no inertia about its axis (e.g. a thin rod spinning about its own axis as the only body "
        f"beyond the joint); give that body a moment of inertia about the axis, or lock the joint.")
