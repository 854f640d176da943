"""Input validation for the whole library: not mathematics.

Each function turns an argument into a float array (or float) of the expected shape, or raises
``ValueError`` naming the argument, what was expected and what it got. The Lie-group modules check
their vectors and matrices here; the Model checks joints, poses and inertias here, and every
algorithm its joint-space arrays (``q``, ``qd``, ``tau``, … :func:`joint_vector`), its wrenches
(:func:`body_wrenches`) and its trajectories (:func:`trajectory`); a rigid body's physical
consistency is :func:`rigid_body`; a mass matrix too singular to solve with is reported by
:func:`singular_mass_matrix`. The group-membership tests themselves (``so3.check_rotation``,
``se3.check_transform``) stay with their groups, built on :func:`matrix`.

>>> vector([1, 2, 3], 3, "w")
array([1., 2., 3.])
>>> vector([1, 2], 3, "w")
Traceback (most recent call last):
...
ValueError: w: expected a 3-vector, got shape (2,)
"""
from __future__ import annotations

import math
import reprlib
import weakref

import numpy as np

from .conventions import INERTIA_TOL, LIN, RANK_TOL, ROTATION_TOL, UNIT_TOL

#: How much of an argument a message shows (a long list or string is cut short).
_SHORT = reprlib.Repr()
_SHORT.maxlist = _SHORT.maxtuple = 6
_SHORT.maxstring = _SHORT.maxother = 80


def shown(x):
    """A short ``repr`` of an argument, for a message."""
    return _SHORT.repr(x)


def float_array(x, name, what):
    """``x`` as a float array, or ValueError naming ``name`` and ``what`` was expected if it holds no
    real numbers. A float array is returned as it is (the algorithms' hot path)."""
    if type(x) is np.ndarray and x.dtype == float:
        return x
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected {what}, got {shown(x)} ({err})") from None


def check_finite(a, name):
    """ValueError unless every entry of the float array ``a`` is finite."""
    if not np.isfinite(a).all():
        raise ValueError(f"{name}: expected finite values, got nan/inf in {a.tolist()}")


def vector(x, n, name, what=None):
    """Validated float n-vector (shape ``(n,)``, finite); ``what`` names it in a message (default "a n-vector")."""
    what = what or f"a {n}-vector"
    a = float_array(x, name, f"{what} of real numbers")
    if a.shape != (n,):
        raise ValueError(f"{name}: expected {what}, got shape {a.shape}")
    if not math.isfinite(sum(a.tolist())):        # cheap: a nan/inf makes the sum non-finite
        check_finite(a, name)
    return a


def matrix(x, shape, name, what=None):
    """Validated float matrix of the given shape (finite); ``what`` names it in a message (default "a rxc matrix")."""
    what = what or f"a {shape[0]}x{shape[1]} matrix"
    a = float_array(x, name, f"{what} of real numbers")
    if a.shape != shape:
        raise ValueError(f"{name}: expected {what}, got shape {a.shape}")
    if not math.isfinite(sum(a.ravel().tolist())):      # cheap: a nan/inf makes the sum non-finite
        check_finite(a, name)
    return a


def scalar(x, name):
    """Validated finite float."""
    if np.ndim(x) != 0:
        raise ValueError(f"{name}: expected a scalar, got shape {np.shape(x)}")
    try:
        value = float(x)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected a real scalar, got {x!r} ({err})") from None
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite scalar, got {value}")
    return value


def positive(x, name, expected="a finite number > 0"):
    """Validated finite float > 0 (a step, a duration, a rate, a length); the message says ``expected``.

    >>> positive("0.5", "dt")
    0.5
    >>> positive(float("nan"), "dt")
    Traceback (most recent call last):
    ...
    ValueError: dt: expected a finite number > 0, got nan
    """
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected {expected}, got {x!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name}: expected {expected}, got {x!r}")
    return value


def check_skew(W, name):
    """ValueError unless the float 3x3 ``W`` is skew-symmetric (to ROTATION_TOL, relative)."""
    asym = np.abs(W + W.T).max()
    if asym > ROTATION_TOL * max(1.0, np.abs(W).max()):
        raise ValueError(f"{name}: expected a skew-symmetric 3x3 matrix (W = -Wᵀ), "
                         f"got max|W + Wᵀ| = {asym:.3g}")


def one_of(value, choices, name, *, or_none=False):
    """``value`` if it is one of ``choices`` (or None, with ``or_none``), else ValueError listing them.

    >>> one_of("helical", ("revolute", "prismatic"), "kind")
    Traceback (most recent call last):
    ...
    ValueError: kind: expected one of ('revolute', 'prismatic'), got 'helical'
    """
    try:
        ok = value in choices or (or_none and value is None)
    except (TypeError, ValueError):                      # an array or another unhashable value
        ok = False
    if not ok:
        raise ValueError(f"{name}: expected one of {tuple(choices)}{' or None' if or_none else ''}, "
                         f"got {shown(value)}")
    return value


def unit_vector(x, name):
    """Validated 3-vector of norm 1 (to UNIT_TOL), returned normalised."""
    a = vector(x, 3, name)
    norm = float(np.linalg.norm(a))
    if abs(norm - 1.0) > UNIT_TOL:
        raise ValueError(f"{name}: expected a unit vector, got {a} (norm {norm:.6g})")
    return a / norm


def symmetric(A, name, what, tol):
    """ValueError unless the float square matrix ``A`` is symmetric to ``tol`` (relative to its size)."""
    scale = max(1.0, float(np.abs(A).max()))
    if np.abs(A - A.T).max() > tol * scale:
        raise ValueError(f"{name}: {what} must be symmetric, got\n{A}")


def array(x, shape, name):
    """``x`` as a float array of exactly ``shape``, or ValueError (no finiteness check: the caller's
    checks of each entry say more)."""
    a = float_array(x, name, f"numbers (shape {shape})")
    if a.shape != tuple(shape):
        raise ValueError(f"{name}: expected shape {tuple(shape)}, got {a.shape}")
    return a


def items(seq, n, name, what, kind=None):
    """``seq`` as a tuple of ``n`` items (any number when ``n`` is None), each an instance of ``kind``
    when given, or ValueError.

    >>> items(["a", "b"], 3, "body_names", "names")
    Traceback (most recent call last):
    ...
    ValueError: body_names: expected 3 names, got 2
    """
    seq = tuple(seq)
    if n is not None and len(seq) != n:
        raise ValueError(f"{name}: expected {n} {what}, got {len(seq)}")
    for i, item in enumerate(seq):
        if kind is not None and not isinstance(item, kind):
            raise ValueError(f"{name}: {name}[{i}] must be a {kind.__name__}, got {type(item).__name__}")
    return seq


def parents(parent, base=-1):
    """The parent indices of a kinematic tree as a tuple of ints, each ``base <= parent[i] < i``
    (Featherstone's numbering: every parent before its children), or ValueError."""
    parent = tuple(int(p) for p in parent)
    for i, p in enumerate(parent):
        if not base <= p < i:
            raise ValueError(f"parent: parent[{i}] must satisfy {base} <= parent[i] < i, got {p}")
    return parent


def body_index(body, n, name="body", base=-1):
    """ValueError unless ``body`` is a body of an n-body tree, or ``base``."""
    if not base <= body < n:
        raise ValueError(f"{name}: expected a body index in {base}..{n - 1}, got {body}")
    return body


# --- a rigid body -----------------------------------------------------------------------------

def rigid_body(m, c, I_c, name="inertia"):
    """Raise ``ValueError`` unless ``(m, c, I_c)`` is a physically consistent rigid body.

    Mass > 0; ``c`` a finite 3-vector; ``I_c`` (rotational inertia about the centre of mass) finite,
    symmetric, positive semi-definite and satisfying the triangle inequalities of its principal
    moments (``I1 + I2 ≥ I3`` …). A thin rod (one zero moment) is valid.
    """
    if not (np.isfinite(m) and m > 0):
        raise ValueError(f"{name}: mass must be a finite number > 0, got {m}")
    if c.shape != (3,) or not np.all(np.isfinite(c)):
        raise ValueError(f"{name}: centre of mass must be a finite 3-vector, got {c!r}")
    if I_c.shape != (3, 3) or not np.all(np.isfinite(I_c)):
        raise ValueError(f"{name}: rotational inertia must be a finite 3x3 matrix, got shape {I_c.shape}")
    scale = max(1.0, float(np.abs(I_c).max()))
    symmetric(I_c, name, "rotational inertia", INERTIA_TOL)
    moments = np.linalg.eigvalsh(0.5 * (I_c + I_c.T))
    if moments[0] < -INERTIA_TOL * scale:
        raise ValueError(f"{name}: rotational inertia must be positive semi-definite, "
                         f"principal moments {moments}")
    if moments[0] + moments[1] < moments[2] - INERTIA_TOL * scale:
        raise ValueError(f"{name}: principal moments {moments} violate the triangle inequality "
                         "I1 + I2 >= I3")


def spatial_inertia_matrix(G, name="inertia"):
    """``G`` as a float, finite, symmetric 6×6 array whose linear block is ``m·1``, or ValueError.

    What is left for :func:`lessonlib.spatial.check_spatial_inertia`: that the body it describes is
    a physical one (:func:`rigid_body` of its mass, centre of mass and rotational inertia).
    """
    G = float_array(G, name, "a 6x6 spatial inertia of real numbers")
    if G.shape != (6, 6):
        raise ValueError(f"{name}: expected a 6x6 spatial inertia, got shape {G.shape}")
    if not np.all(np.isfinite(G)):
        raise ValueError(f"{name}: contains non-finite values (expected finite numbers)")
    symmetric(G, name, "a spatial inertia", INERTIA_TOL)
    scale = max(1.0, float(np.abs(G).max()))
    if np.abs(G[LIN, LIN] - G[LIN, LIN][0, 0] * np.eye(3)).max() > INERTIA_TOL * scale:
        raise ValueError(f"{name}: the linear block must be m·1, got\n{G[LIN, LIN]}")
    return G


# --- joint-space arrays, wrenches and trajectories of a Model ----------------------------------
# ``model`` is anything with ``n`` (the body count) and ``name``: this module imports no Model.

def joint_vector(model, x, name="q"):
    """``x`` as a float array of shape (n,), finite (a scalar is accepted when n = 1), or ValueError.

    >>> class Arm:
    ...     n, name = 2, "arm"
    >>> joint_vector(Arm(), [0.1, 0.2])
    array([0.1, 0.2])
    >>> joint_vector(Arm(), [0.1, 0.2, 0.3], "qd")
    Traceback (most recent call last):
    ...
    ValueError: qd: expected shape (2,) for model 'arm', got (3,)
    """
    a = float_array(x, name, f"numbers (shape ({model.n},))")
    if a.ndim == 0 and model.n == 1:
        a = a.reshape(1)
    if a.shape != (model.n,):
        raise ValueError(f"{name}: expected shape ({model.n},) for model {model.name!r}, got {a.shape}")
    if not math.isfinite(sum(a.tolist())) and not np.isfinite(a).all():     # cheap test first: hot path
        raise ValueError(f"{name}: contains non-finite values (expected finite numbers), got {a}")
    return a


def joint_state(model, q, qd=None, qdd=None):
    """``[q]``, ``[q, qd]`` or ``[q, qd, qdd]`` validated by :func:`joint_vector`, each error naming its argument."""
    out = [joint_vector(model, q, "q")]
    if qd is not None:
        out.append(joint_vector(model, qd, "qd"))
    if qdd is not None:
        out.append(joint_vector(model, qdd, "qdd"))
    return out


def body_wrenches(model, f_ext, name="f_ext"):
    """``f_ext`` as an (n, 6) float array of body wrenches ``[n; f]`` (None -> None), or ValueError.

    ``f_ext[i]`` is the wrench the environment applies on body ``i``, in body frame ``i``, moment
    about the body's origin.
    """
    if f_ext is None:
        return None
    F = float_array(f_ext, name, f"numbers ({model.n} wrenches [n; f], shape ({model.n}, 6))")
    if F.shape != (model.n, 6):
        raise ValueError(f"{name}: expected {model.n} wrenches [n; f] (shape ({model.n}, 6), one per body, "
                         f"body frames), got shape {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError(f"{name}: contains non-finite values (expected finite numbers)")
    return F


def wrench(F, name="F"):
    """One finite wrench ``[n; f]`` of shape (6,), or ValueError."""
    F = float_array(F, name, "a wrench [n; f] of real numbers")
    if F.shape != (6,):
        raise ValueError(f"{name}: expected a finite wrench [n; f] of shape (6,), got shape {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError(f"{name}: expected a finite wrench [n; f], got {F}")
    return F


def trajectory(model, X, name, N=None):
    """``X`` as a float (N, n) array of finite numbers (one row per sample), or ValueError naming ``name``."""
    A = float_array(X, name, f"numbers (an ({'N' if N is None else N}, {model.n}) array)")
    want = f"({'N' if N is None else N}, {model.n})"
    if A.ndim != 2 or A.shape[1] != model.n or (N is not None and A.shape[0] != N):
        raise ValueError(f"{name}: expected shape {want} (samples × joints of {model.name!r}), got {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError(f"{name}: contains non-finite values (expected finite numbers)")
    return A


def trajectory_wrenches(model, f_ext, N):
    """``f_ext`` of a trajectory as a float (N, n, 6) array, or (n, 6) for the same wrenches at every
    sample (None -> None), or ValueError. Each wrench ``[n; f]`` acts on its body, in the body's
    frame, moment about its origin."""
    if f_ext is None:
        return None
    F = float_array(f_ext, "f_ext", f"numbers (shape ({N}, {model.n}, 6) or ({model.n}, 6))")
    if F.shape not in ((N, model.n, 6), (model.n, 6)):
        raise ValueError(f"f_ext: expected shape ({N}, {model.n}, 6) or ({model.n}, 6) (wrenches [n; f] "
                         f"on the bodies, body frames), got {F.shape}")
    if not np.isfinite(F).all():
        raise ValueError("f_ext: contains non-finite values (expected finite numbers)")
    return F


# --- a mass matrix that forward dynamics cannot solve with ------------------------------------

#: model -> the smallest pivot its forward dynamics accepts (a Model is immutable: computed once).
_PIVOT_MIN = weakref.WeakKeyDictionary()


def smallest_pivot(model):
    """``RANK_TOL · max |I_i|``: a pivot (``D_i`` of ABA) below this makes the mass matrix singular."""
    d_min = _PIVOT_MIN.get(model)
    if d_min is None:
        d_min = _PIVOT_MIN[model] = RANK_TOL * float(abs(model.inertia).max())
    return d_min


def singular_mass_matrix(model, joint, quantity, value, *, sample=None):
    """The ``ValueError`` for a mass matrix that is singular at ``joint`` (``quantity = value`` vanished).

    A body beyond a joint that has no inertia about the joint's axis (a thin rod spinning about its
    own axis, the only body beyond that joint) gives a zero row and column in ``M``: the torque
    then determines no acceleration of that joint. The inertia checks accept such a rod (it is a
    valid rigid body); forward dynamics cannot. ``sample``: the row of a trajectory where it
    happened (:mod:`lessonlib.batch`), named in the message.
    """
    where = "" if sample is None else f" at sample {sample} of the trajectory"
    return ValueError(
        f"model: the mass matrix of {model.name!r} is singular at joint {joint} ({model.joint_names[joint]!r})"
        f"{where}: {quantity} = {value:.3g}, so no torque determines its acceleration. What moves with this "
        f"joint has no inertia about its axis (e.g. a thin rod spinning about its own axis as the only body "
        f"beyond the joint); give that body a moment of inertia about the axis, or lock the joint.")
