"""The course's conventions, in one place.

Every other module imports its ordering, base index, default gravity and tolerances from here;
none of them is written down twice.

* Spatial 6-vectors are **angular-first**: a twist is ``[ω; v]``, a wrench is ``[n; f]``
  ([WJ §2.2], [LG], [Featherstone 2008], [Lynch & Park 2017]). ``xi[ANG]`` is the angular part,
  ``xi[LIN]`` the linear part.
* Bodies are numbered ``0 .. n-1`` with ``parent[i] < i``; the fixed base is ``BASE = -1``.
* Gravity is a 3-vector in the world frame; it enters the recursions as the fictitious base
  acceleration ``a_0 = [0; -g]`` ([WJ §2.2]; [LG, 牛顿欧拉递推动力学]: "令 0v̇0 = G").
* Pinocchio and most Lie-group libraries order twists linear-first ``[v; ω]``;
  :func:`swap_order` converts between the two orders (for cross-checks only).

>>> import numpy as np
>>> xi = np.array([1., 2., 3., 4., 5., 6.])       # [ω; v]
>>> xi[ANG], xi[LIN]
(array([1., 2., 3.]), array([4., 5., 6.]))
>>> swap_order(xi, kind="vector")                  # [v; ω]
array([4., 5., 6., 1., 2., 3.])
>>> bool(np.array_equal(swap_order(swap_order(xi, kind="vector"), kind="vector"), xi))
True
"""
from __future__ import annotations

import numpy as np

#: Angular part of a spatial vector ``[ω; v]`` / ``[n; f]``.
ANG = slice(0, 3)
#: Linear part of a spatial vector ``[ω; v]`` / ``[n; f]``.
LIN = slice(3, 6)
#: The six components of a spatial vector by name: ``xi[ANG_X]`` is ω_x (n_x of a wrench), …,
#: ``xi[LIN_Z]`` is v_z (f_z) — for code that works component by component (compiled kernels, the
#: rows of a loop constraint).
ANG_X, ANG_Y, ANG_Z = range(6)[ANG]
LIN_X, LIN_Y, LIN_Z = range(6)[LIN]
#: Parent index of a body attached to the fixed base.
BASE = -1
#: Default gravity (world frame, m/s²).
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)
#: Default gravity of the planar sample arms, which move in the x–y plane with "up" along +y.
PLANAR_GRAVITY = (0.0, -9.81, 0.0)
#: Gravity switched off: what the inverse dynamics needs for ``c(q, q̇)``, ``M``'s columns and ``Jᵀ F``.
ZERO_GRAVITY = (0.0, 0.0, 0.0)

# --- named tolerances -------------------------------------------------------------------------
#: Below this rotation angle (rad) the Lie-group functions switch to series expansions.
SMALL_ANGLE = 1e-6
#: Tolerance for "is this matrix a rotation" (orthonormality and det = 1) in input validation.
ROTATION_TOL = 1e-6
#: Tolerance for "is this axis a unit vector" in input validation.
UNIT_TOL = 1e-6
#: Tolerance for symmetry / triangle-inequality checks of inertias.
INERTIA_TOL = 1e-9
#: Absolute tolerance when two algorithms are expected to agree (floating point only).
AGREE_ATOL = 1e-9
#: Relative tolerance when two algorithms are expected to agree.
AGREE_RTOL = 1e-8
#: Tolerance used by the exercise checkers (students' code may sum in another order).
GRADE_ATOL = 1e-6
#: Closed chains: Newton stops when ``max |φ| <`` this (m or rad) (constraints.assemble / project).
ASSEMBLY_TOL = 1e-12
#: Closed chains: a state is "on the constraint" when ``|φ|``, ``|G q̇|``, ``|G q̈ − γ|`` are below this
#: (relative to the size of the terms, plus this much absolutely).
CONSISTENCY_TOL = 1e-7
#: Singular values below ``RANK_TOL · σ_max`` count as zero (rank of a constraint Jacobian, SVD NOC, a
#: chain Jacobian); so do the pivots of a mass matrix below ``RANK_TOL`` times its scale (Cholesky,
#: ABA's ``D_i``): a singular ``M`` is reported, never divided by.
RANK_TOL = 1e-10


#: What :func:`swap_order` can convert; the caller says which one an array is.
SWAP_KINDS = ("vector", "operator", "columns")


def swap_order(x, *, kind):
    """Swap a spatial quantity between angular-first ``[ω; v]`` and linear-first ``[v; ω]``.

    ``kind`` (required: the shape alone cannot tell a stack of six twists from an operator):

    * ``"vector"`` — a 6-vector, or a stack ``(..., 6)`` of them: the last axis is permuted;
    * ``"operator"`` — a 6×6 matrix that maps spatial vectors to spatial vectors (inertia, Ad, ad),
      or a stack ``(..., 6, 6)``: rows and columns are permuted, ``P A Pᵀ``;
    * ``"columns"`` — a 6×k matrix whose **columns** are spatial vectors (a Jacobian): rows only.

    The permutation is its own inverse, so the same call converts back.

    >>> import numpy as np
    >>> I = np.diag([1., 2., 3., 4., 5., 6.])
    >>> np.diag(swap_order(I, kind="operator"))
    array([4., 5., 6., 1., 2., 3.])
    >>> swap_order(np.eye(6), kind="columns")[0]          # row 0 of a 6-joint Jacobian comes from row 3
    array([0., 0., 0., 1., 0., 0.])
    >>> swap_order(np.eye(6), kind="vector")[0]           # six twists, one per row: each is permuted
    array([0., 0., 0., 1., 0., 0.])
    """
    x = np.asarray(x)
    perm = np.r_[LIN, ANG]
    if kind == "vector":
        if x.ndim < 1 or x.shape[-1] != 6:
            raise ValueError(f"x: expected a 6-vector or a stack (..., 6) of them (kind='vector'), got shape {x.shape}")
        return x[..., perm]
    if kind == "operator":
        if x.ndim < 2 or x.shape[-2:] != (6, 6):
            raise ValueError(f"x: expected a 6x6 operator or a stack (..., 6, 6) (kind='operator'), got shape {x.shape}")
        return x[..., perm, :][..., perm]
    if kind == "columns":
        if x.ndim != 2 or x.shape[0] != 6:
            raise ValueError(f"x: expected a 6xk matrix of column vectors (kind='columns'), got shape {x.shape}")
        return x[perm, :]
    raise ValueError(f"kind: expected one of {SWAP_KINDS} (what the array is), got {kind!r}")


def spatial_vector(angular, linear):
    """The spatial vector with angular part ``angular`` and linear part ``linear``: ``[ω; v]`` / ``[n; f]``.

    Both 3-vectors, or stacks ``(..., 3)`` of them (a stack of spatial vectors ``(..., 6)`` comes out).

    >>> spatial_vector([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    array([1., 2., 3., 4., 5., 6.])
    """
    angular, linear = np.asarray(angular, dtype=float), np.asarray(linear, dtype=float)
    out = np.empty(np.broadcast_shapes(angular.shape[:-1], linear.shape[:-1]) + (6,))
    out[..., ANG], out[..., LIN] = angular, linear
    return out


def gravity_vector(gravity, default=DEFAULT_GRAVITY):
    """Return gravity as a float 3-vector; ``None`` means ``default`` (the model's gravity).

    >>> gravity_vector(None)
    array([ 0.  ,  0.  , -9.81])
    """
    try:
        g = np.asarray(default if gravity is None else gravity, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"gravity: expected a finite 3-vector (world frame, m/s^2), got {gravity!r}") from None
    if g.shape != (3,) or not np.all(np.isfinite(g)):
        raise ValueError(f"gravity: expected a finite 3-vector (world frame, m/s^2), got {gravity!r}")
    return g


def base_acceleration(gravity):
    """Gravity as the fictitious base acceleration ``a_0 = [0; −g]`` ([WJ §2.2], [LG, 牛顿欧拉递推动力学]).

    Accelerating the base upward by ``−g`` is equivalent to gravity pulling every body down, so
    the recursions need no separate gravity term.

    >>> base_acceleration([0.0, 0.0, -9.81])
    array([ 0.  ,  0.  ,  0.  ,  0.  ,  0.  ,  9.81])
    """
    a0 = np.zeros(6)
    a0[LIN] = -np.asarray(gravity, dtype=float)
    return a0
