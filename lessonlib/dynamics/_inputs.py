"""Input checking shared by the dynamics algorithms (not an algorithm: only validation)."""
from __future__ import annotations

from .. import conventions


def state(model, q, qd=None, qdd=None):
    """Validate the joint-space arrays, naming the argument on error; returns them as float arrays."""
    out = [model.check_q(q, "q")]
    if qd is not None:
        out.append(model.check_q(qd, "qd"))
    if qdd is not None:
        out.append(model.check_q(qdd, "qdd"))
    return out


def base_acceleration(model, gravity):
    """``a_0 = [0; −g]`` for ``gravity`` (None: the model's default), see :func:`conventions.base_acceleration`."""
    return conventions.base_acceleration(model.gravity_or_default(gravity))
