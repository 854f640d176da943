"""Whole trajectories at once: RNEA, CRBA and ABA over N samples (arrays (N, n)).

The same algorithms, with the same loops over the bodies, as :mod:`lessonlib.dynamics`, and no
Python work per sample. Two backends compute the same numbers:

* ``"numpy"`` (always there): each line of the loops acts on a block of samples at once.
  :mod:`.frames` re-expresses every body in a *joint frame* (origin on the joint axis, z along
  it), so a joint transform is a constant 6×6 (one BLAS product on the whole block) followed by a
  turn about z by the joint angle (sin and cos per joint and sample, applied to two rows of each
  3-vector), and the joint screw ``S_i`` is a unit vector (times ``Joint.scale``): ``τ_i = S_iᵀ F_i``
  is one row of ``F_i``, ``𝓘^A_i S_i`` one column of ``𝓘^A_i`` and ``D_i`` one entry. Composite inertias
  (rigid-body inertias: 10 independent entries) and articulated inertias (symmetric: 21) are
  stored and carried by their independent entries only, in coordinates where the turn about z
  is cheap. Samples stream in blocks of :data:`BLOCK`, so a block's arrays stay in the cache.
  Kernels: :mod:`.inverse_dynamics`, :mod:`.mass_matrix`, :mod:`.forward_dynamics`.
* ``"numba"`` (``pip install lessonlib[fast]``): the same loops on the same joint frames, compiled
  sample by sample (:mod:`.compiled`). The first call in a process loads the compiled code
  (about a second, more on a busy machine); every later call is fast.

``backend=None`` uses the fastest installed (:func:`available_backends`).

Torques, mass matrices and accelerations do not depend on the frames the bodies are described in,
so the results equal the per-sample algorithms' (tests: to 1e-10, on chains, trees and prismatic
joints, and against Pinocchio).

Convention: as everywhere in the course (``course/NOTATION.md``) — twists ``[ω; v]``, wrenches
``[μ; f]``, bodies and joints ``i = 1 .. n`` at entry ``i-1``, gravity as the base acceleration
``A_0 = [0; −g_phys]``, ``f_ext`` the wrenches ``F^ext_i`` the environment applies on the bodies, each
in its body frame ``{i}`` about the body origin ``O_i`` (shape ``(N, n, 6)``, or ``(n, 6)`` for the
same wrenches at every sample).

>>> import numpy as np
>>> from lessonlib import samples
>>> arm = samples.planar_2link()                  # seed 003: held horizontal, g = 10: τ = (20, 5)
>>> Q = np.zeros((3, 2))
>>> rnea(arm, Q, Q, Q, gravity=[0, -10, 0]).round(9) + 0.0
array([[20.,  5.],
       [20.,  5.],
       [20.,  5.]])
"""
from __future__ import annotations

import importlib
import importlib.util

import numpy as np

from .. import _validate as validate
from ..conventions import base_acceleration
from .forward_dynamics import SingularPivot, aba_block
from .frames import RIGID, RIGID_COLUMN, JointFrames, Workspace, cos_sin, joint_frames
from .inverse_dynamics import rnea_block
from .mass_matrix import crba_block

__all__ = ["rnea", "crba", "aba", "joint_frames", "JointFrames", "BACKENDS", "available_backends"]

#: Samples per block of the NumPy kernels: the arrays of a block stay in the processor's cache.
BLOCK = 2048

#: ``"numpy"``: the NumPy kernels (always there); ``"numba"``: the same algorithms compiled by
#: numba (:mod:`.compiled`, with ``pip install lessonlib[fast]``).
BACKENDS = ("numpy", "numba")


def available_backends():
    """The backends installed here, fastest first (``backend=None`` uses the first)."""
    return ("numba", "numpy") if importlib.util.find_spec("numba") is not None else ("numpy",)


def _backend(backend):
    """``backend`` checked (None: the fastest installed); the compiled module imported on first use."""
    if backend is None:
        backend = available_backends()[0]
        if backend == "numba":
            try:
                _compiled()
            except ImportError:                          # numba installed but unusable here: NumPy it is
                backend = "numpy"
    validate.one_of(backend, BACKENDS, "backend", or_none=True)
    if backend not in available_backends():
        raise ValueError("backend: 'numba' needs numba, which is not installed (pip install lessonlib[fast])")
    return backend


def _compiled():
    return importlib.import_module(".compiled", __name__)


def _model_arrays(frames):
    """The joint frames as the plain arrays the compiled kernels take first."""
    return (np.array(frames.parent, dtype=np.int64), np.array(frames.revolute, dtype=np.bool_),
            np.array(frames.row, dtype=np.int64), frames.scale, frames.T_C, frames.X_C)


def _joint_angles(frames, Q):
    """``θ = scale · q`` and its cosine and sine, (N, n) each."""
    theta = Q * frames.scale
    return (theta, *cos_sin(theta))


def _wrenches_per_sample(model, F):
    """``F`` as (N, n, 6), (1, n, 6) for the same wrenches at every sample, or (0, n, 6) for none."""
    if F is None:
        return np.zeros((0, model.n, 6))
    return np.ascontiguousarray(F[None] if F.ndim == 2 else F)


def _blocks(N):
    return [slice(start, min(start + BLOCK, N)) for start in range(0, N, BLOCK)]


def _columns(X):
    """A (N, n) trajectory as contiguous (n, N) columns: a block is then a view of whole rows."""
    return np.ascontiguousarray(X.T)


def _singular(model, joint, D, sample):
    """The error of :func:`lessonlib.dynamics.aba` for a vanishing ``D_i``, naming the sample too."""
    return validate.singular_mass_matrix(model, joint, f"D_{joint} = S_iᵀ I^A_i S_i", D, sample=sample)


def _per_sample(model, block, arrays, a_0, F, **options):
    """Rows (N, n) of ``block(frames, *columns, a_0, F, **options)`` run on ``BLOCK`` samples at a time.

    ``arrays`` are the (N, n) joint-space inputs, handed to the kernel as (n, N) columns;
    ``F`` the wrenches, (n, 6) for every sample or (N, n, 6), handed on component-major as
    (6, n, 1) or (6, n, N). One :class:`.frames.Workspace` serves all the blocks.
    """
    N = arrays[0].shape[0]
    frames = joint_frames(model)
    columns = [_columns(x) for x in arrays]
    if F is not None:
        F = F.T[:, :, None] if F.ndim == 2 else np.ascontiguousarray(F.transpose(2, 1, 0))
    out, work = np.empty((model.n, N)), Workspace()
    for b in _blocks(N):
        try:
            out[:, b] = block(frames, work, *(x[:, b] for x in columns), a_0, None if F is None else F[..., b],
                              **options)
        except SingularPivot as singular:
            raise _singular(model, singular.joint, singular.D, b.start + singular.sample) from None
    return np.ascontiguousarray(out.T)


# --- the algorithms ------------------------------------------------------------------------------

def rnea(model, Q, QD, QDD, *, gravity=None, f_ext=None, backend=None):
    """Joint torques ``τ`` (N, n) of a whole trajectory by the RNEA, one row per sample.

    ``Q, QD, QDD`` (N, n); ``gravity`` ``g_phys``, a world 3-vector (None: the model's default);
    ``f_ext`` (N, n, 6), or (n, 6) for the same at every sample: ``f_ext[k, i-1] = F^ext_i`` is the
    wrench the environment applies on body ``i`` at sample ``k``, in body frame ``{i}``, moment about
    its origin ``O_i``; ``backend`` one of
    :data:`BACKENDS` (None: the fastest installed). Equals
    ``[dynamics.rnea(model, Q[k], QD[k], QDD[k], ...) for k in range(N)]``.
    """
    return _joint_space(model, "rnea", {"Q": Q, "QD": QD, "QDD": QDD}, gravity, f_ext, backend)


def crba(model, Q, *, backend=None):
    """Mass matrices ``M`` (N, n, n) of a whole trajectory by the CRBA, one per sample.

    ``backend`` as in :func:`rnea`. Equals ``[dynamics.crba(model, q) for q in Q]`` (full
    symmetric matrices).
    """
    backend = _backend(backend)
    Q = validate.trajectory(model, Q, "Q")
    frames = joint_frames(model)
    if backend == "numba":
        M = np.empty((Q.shape[0], model.n, model.n))
        column = np.array([RIGID_COLUMN[k] for k in frames.row]).reshape(-1, 6, RIGID.size)
        slide = None if all(frames.revolute) else np.array(RIGID.slide)      # None: compiled without slides
        _compiled().crba(*_model_arrays(frames), frames.inertia_r, frames.K_C_rigid, slide, column,
                         *_joint_angles(frames, Q), M)
        return M
    Q = _columns(Q)
    M, work = np.empty((model.n, model.n, Q.shape[1])), Workspace()
    for b in _blocks(Q.shape[1]):
        M[..., b] = crba_block(frames, work, Q[:, b])
    return np.ascontiguousarray(M.transpose(2, 0, 1))


def aba(model, Q, QD, TAU, *, gravity=None, f_ext=None, backend=None):
    """Joint accelerations ``q̈`` (N, n) of a whole trajectory by the ABA, one row per sample.

    ``Q, QD, TAU`` (N, n); ``gravity``, ``f_ext`` (``f_ext[k, i-1] = F^ext_i`` in body frame ``{i}``,
    about ``O_i``) and ``backend`` as in :func:`rnea`. Equals
    ``[dynamics.aba(model, Q[k], QD[k], TAU[k], ...) for k in range(N)]``.
    """
    return _joint_space(model, "aba", {"Q": Q, "QD": QD, "TAU": TAU}, gravity, f_ext, backend)


def _joint_space(model, algorithm, arrays, gravity, f_ext, backend):
    """``rnea`` or ``aba`` on the checked (N, n) ``arrays`` (q first), by the chosen backend: (N, n)."""
    backend = _backend(backend)
    (q_name, Q), *others = arrays.items()
    Q = validate.trajectory(model, Q, q_name)
    N = Q.shape[0]
    X1, X2 = (validate.trajectory(model, X, name, N) for name, X in others)
    F = validate.trajectory_wrenches(model, f_ext, N)
    a_0 = base_acceleration(model.gravity_or_default(gravity))           # A_0 = [0; −g_phys]
    if backend == "numpy":
        if algorithm == "rnea":
            return _per_sample(model, rnea_block, (Q, X1, X2), a_0, F)
        return _per_sample(model, aba_block, (Q, X1, X2), a_0, F, D_min=validate.smallest_pivot(model))
    frames, out = joint_frames(model), np.empty((N, model.n))
    inputs = (*_model_arrays(frames), frames.inertia, frames.wrench_to_J, *_joint_angles(frames, Q),
              np.ascontiguousarray(X1), np.ascontiguousarray(X2), a_0, _wrenches_per_sample(model, F))
    if algorithm == "rnea":
        _compiled().rnea(*inputs, out)
        return out
    singular = np.array([-1.0, 0.0, 0.0])                # (sample, joint, D_i) of a singular pivot, if any
    _compiled().aba(*inputs, validate.smallest_pivot(model), singular, out)
    if singular[0] >= 0:
        raise _singular(model, int(singular[1]), singular[2], int(singular[0]))
    return out
