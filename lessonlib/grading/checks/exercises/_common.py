"""Random inputs and small checks shared by the exercise checkers (not an exercise: the registry skips ``_`` names).

Every random number comes from the check's ``ctx.rng`` (seeded per student and per run).
"""
from __future__ import annotations

import numpy as np

from lessonlib import check, samples


def random_model(ctx, *, tree=False, n_min=2, n_max=6, prismatic=True):
    """A random Model (a chain, or a tree) with random geometry, joint types and inertias."""
    n = int(ctx.rng.integers(n_min, n_max + 1))
    return samples.random_model(n, seed=int(ctx.rng.integers(2**31)), tree=tree, prismatic=prismatic)


def random_tree(ctx, n_min=3, n_max=6, prismatic=True):
    """A random tree with at least one branch (a body whose parent is not the body before it).

    A random tree of few bodies can come out as a chain; a check "on trees" must not pass an answer
    that walks by ``i − 1`` only because its draw happened to be a chain.
    """
    while True:
        model = random_model(ctx, tree=True, n_min=max(n_min, 3), n_max=n_max, prismatic=prismatic)
        if any(p != i - 1 for i, p in enumerate(model.parent)):
            return model


def random_chain(ctx, n_min=2, n_max=6, prismatic=True):
    """A random serial chain (revolute and, if ``prismatic``, prismatic joints)."""
    return random_model(ctx, tree=False, n_min=n_min, n_max=n_max, prismatic=prismatic)


def random_gravity(ctx):
    """A gravity vector of random direction and a magnitude between 1 and 20 m/s²."""
    g = ctx.rng.normal(size=3)
    return g / np.linalg.norm(g) * ctx.rng.uniform(1.0, 20.0)


def random_state(ctx, model):
    """``(q, q̇, q̈)`` from ``ctx.rng`` by the course's one helper, :func:`lessonlib.check.random_state`."""
    return check.random_state(model, ctx.rng)


def expect_bool(ctx, value, what="", *, call=""):
    """A student's True/False (a bool, or the integer 0 or 1) as a bool, or a readable failure naming ``what``."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    ctx.fail(f"{what}: expected True or False, got {value!r}" if what else f"expected True or False, got {value!r}",
             call=call)


def read_only(*arrays):
    """Copies of ``arrays`` that the student's function receives read-only (it must not write into its inputs)."""
    frozen = tuple(np.array(a, dtype=float) for a in arrays)
    for a in frozen:
        a.flags.writeable = False
    return frozen
