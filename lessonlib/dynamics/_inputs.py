"""Input checking shared by the dynamics algorithms (not an algorithm: only validation)."""
from __future__ import annotations

import numpy as np

from ..conventions import LIN


def state(model, q, qd=None, qdd=None):
    """Validate the joint-space arrays, naming the argument on error; returns them as float arrays."""
    out = [model.check_q(q, "q")]
    if qd is not None:
        out.append(model.check_q(qd, "qd"))
    if qdd is not None:
        out.append(model.check_q(qdd, "qdd"))
    return out


def base_acceleration(model, gravity):
    """Gravity as the fictitious base acceleration ``a_0 = [0; −g]`` (seed 000 §2.2)."""
    a0 = np.zeros(6)
    a0[LIN] = -model.gravity_or_default(gravity)
    return a0
