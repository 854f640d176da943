"""Closed kinematic loops, the natural orthogonal complement (自然正交补, NOC; [Angeles & Lee 1988], [SWC16]).

``N(q)`` (n, dof) with ``G N = 0``: every admissible velocity is ``q̇ = N ẏ``. Premultiplying the
equations of motion (12.4, :mod:`.closed`) by ``Nᵀ`` removes the constraint forces (``Nᵀ Gᵀ = 0``),
which is the whole idea of the NOC — and of the DeNOC, where the "constraints" are the joints of a
serial chain and ``N = N_l N_d`` ([SWC16]).

With **independent coordinates** ``y = q[independent]`` (the rest, ``q_d``, dependent) the NOC is
``N = [I; −G_d⁻¹ G_i]`` (rows reordered into place) and ``Ṅ ẏ = [0; G_d⁻¹ γ]``; an orthonormal NOC
comes from the SVD.

>>> from lessonlib.constraints import assemble, constraint_jacobian, four_bar
>>> fb = four_bar()
>>> q = assemble(fb, [0.5, 1.0, 1.5])
>>> N = noc(fb, q)
>>> N.shape, bool(abs(constraint_jacobian(fb, q) @ N).max() < 1e-12)
((3, 1), True)
"""
from __future__ import annotations

import numpy as np

from .. import _validate as validate
from ..conventions import RANK_TOL
from .closure import constraint_jacobian, constraint_terms
from .loops import check_closed

NOC_METHODS = ("independent", "svd")


def _rank(G):
    s = np.linalg.svd(G, compute_uv=False)
    return int(np.sum(s > RANK_TOL * max(1.0, s[0] if s.size else 0.0)))


def _dependent_solve(cm, G, rhs):
    """Least-squares solution ``x`` of ``G_d x = rhs`` (``G_d``: columns of the dependent coordinates)."""
    G_d = G[:, list(cm.dependent)]
    if G_d.shape[1] and _rank(G_d) < G_d.shape[1]:
        raise ValueError(f"q: the dependent coordinates {cm.dependent} are not determined by the independent "
                         f"ones {cm.independent} here (G_d is singular): a singular configuration of this "
                         f"choice of independent coordinates")
    return np.linalg.lstsq(G_d, rhs, rcond=None)[0] if G_d.shape[1] else np.zeros(0)


def noc(cm, q, *, method="independent"):
    """A natural orthogonal complement ``N(q)`` (n, dof) of the constraints: ``G N = 0``, ``q̇ = N ẏ``.

    ``method``:

    * ``"independent"`` — ``N = [I; −G_d⁻¹ G_i]`` (rows back in joint order): ``ẏ = q̇[independent]``
      ([LG, 约束动力学], [SWC16]: the constrained rates are solved from the free ones). ``ValueError`` where
      ``G_d`` is singular.
    * ``"svd"`` — an orthonormal basis of the null space of ``G`` (``Nᵀ N = I``), from the SVD. Its
      columns are not unique (any rotation of them is another basis) and need not vary smoothly.

    >>> from lessonlib.constraints import assemble, four_bar
    >>> fb = four_bar()
    >>> q = assemble(fb, [1.0, 1.0, 2.0])
    >>> N = noc(fb, q)
    >>> float(N[0, 0])                                 # the crank is the independent coordinate
    1.0
    >>> bool(abs(noc(fb, q, method="svd").T @ N).max() > 0)
    True
    """
    check_closed(cm)
    validate.one_of(method, NOC_METHODS, "method")
    return noc_from_jacobian(cm, constraint_jacobian(cm, q), method)


def null_space(G):
    """Orthonormal basis (columns) of the null space of ``G``, from the SVD."""
    _, s, Vt = np.linalg.svd(G)
    r = int(np.sum(s > RANK_TOL * max(1.0, s[0])))
    return Vt[r:].T.copy()


def noc_from_jacobian(cm, G, method):
    """:func:`noc` of a constraint Jacobian ``G`` already computed (``method`` as there)."""
    if method == "svd":
        N = null_space(G)
        if N.shape[1] != cm.dof:
            raise ValueError(f"q: the constraints leave {N.shape[1]} degrees of freedom here, "
                             f"the model expects {cm.dof}: a singular configuration")
        return N
    N = np.zeros((cm.n, cm.dof))
    N[list(cm.independent), :] = np.eye(cm.dof)
    N[list(cm.dependent), :] = -_dependent_solve(cm, G, G[:, list(cm.independent)])
    return N


def ndot_yd(cm, q, qd):
    """``Ṅ ẏ`` of the independent-coordinates NOC: ``[0; G_d⁻¹ γ]`` (rows in joint order)."""
    _, G, gamma = constraint_terms(cm, q, qd)
    out = np.zeros(cm.n)
    out[list(cm.dependent)] = _dependent_solve(cm, G, gamma)
    return out
