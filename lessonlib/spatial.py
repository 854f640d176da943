"""Spatial (6-D) algebra in the course's angular-first order: twists ``V = [ω; v]``, wrenches ``F = [μ; f]``.

The names follow Featherstone's *Rigid Body Dynamics Algorithms* ([Featherstone 2008]) and [WJ §2.2]; each one is a
thin, named view of a Lie-group operation from :mod:`lessonlib.se3`, so the two vocabularies of the
course meet here:

=========================  ============================  ==========================================
spatial (Featherstone)     Lie group ([LG])              meaning
=========================  ============================  ==========================================
``cross_motion(V)``        ``ad(V)``                     ``V ×`` acting on a motion vector (a twist)
``cross_force(V)``         ``ad*(V) = −ad(V)ᵀ``          ``V ×*`` acting on a force vector (a wrench)
                           (``ad_dual``)
``plucker(R, p)``          ``Ad(T⁻¹)``                   motion transform from frame A to frame B
``plucker(R, p).T``        ``Ad(T⁻¹)ᵀ``                  force transform from frame B to frame A
=========================  ============================  ==========================================

Here ``R, p`` are the orientation and origin of frame B expressed in frame A (``T = T_ab``, code
``T_A_B``): the force transform is the transpose of the motion transform, ``X_B_Aᵀ = Ad(T_ab⁻¹)ᵀ``
(the power ``P = FᵀV`` is the same in both frames). A spatial inertia ``𝓘`` is a 6×6 matrix, ``G``
in code. A quantity of the whole body that does not depend on the point it is taken about, its
mass, is :func:`mass`.

>>> import numpy as np
>>> v = np.array([0.1, -0.2, 0.3, 1.0, 2.0, -1.0])
>>> bool(np.allclose(cross_force(v), -cross_motion(v).T))
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validate as validate
from . import se3, so3
from ._operators import Ad_inv
from .conventions import ANG, LIN

#: ``V×`` on motion vectors (the Lie-algebra adjoint ``ad(V)``).
cross_motion = se3.ad
#: ``V×*`` on force vectors, ``ad*(V) = −ad(V)ᵀ`` (the coadjoint, ``ad_dual(V)``).
cross_force = se3.ad_dual


def plucker(R, p):
    """Plücker motion transform ``X_B_A`` from frame A coordinates to frame B coordinates.

    Convention: ``R, p`` give frame B in frame A (``T_ab = [[R, p], [0, 1]]``, code ``T_A_B``), and
    ``X_B_A = Ad(T_ab⁻¹) = [[Rᵀ, 0], [−Rᵀ[p], Rᵀ]]`` maps a twist: ``V_b = X_B_A V_a``. A wrench goes
    the other way with the transpose: ``F_a = X_B_Aᵀ F_b`` ([RNE05]: why the force pass uses the
    transpose).

    >>> import numpy as np
    >>> R, p = so3.rot_z(0.3), np.array([1.0, 2.0, 3.0])
    >>> bool(np.allclose(plucker(R, p), se3.Ad(se3.inv(se3.from_Rp(R, p)))))
    True
    """
    return Ad_inv(se3.from_Rp(R, p))                   # from_Rp checks R and p


def plucker_to_Rp(X):
    """Inverse of :func:`plucker`: recover ``(R, p)`` of frame B in frame A from ``X_B_A``.

    >>> import numpy as np
    >>> R, p = plucker_to_Rp(plucker(so3.rot_x(0.5), np.array([0.1, 0.2, 0.3])))
    >>> bool(np.allclose(p, [0.1, 0.2, 0.3])) and bool(np.allclose(R, so3.rot_x(0.5)))
    True
    """
    X = validate.matrix(X, (6, 6), "X", "a 6x6 Plücker transform")
    R = X[ANG, ANG].T
    so3.check_rotation(R, "X (its rotation block)")
    p_hat = -R @ X[LIN, ANG]                      # X[LIN, ANG] = −Rᵀ[p]
    return R, so3.vee(0.5 * (p_hat - p_hat.T))


def inertia(m, c, I_c):
    """Spatial inertia ``𝓘`` (``G`` in code) about the body-frame origin ``O`` from mass, centre of mass
    and rotational inertia about the centre of mass.

    Convention (angular-first, [LG, 惯量和力旋量] / [Featherstone 2008] eq. 2.63):
    ``𝓘 = [[I_c + m [p_c][p_c]ᵀ, m [p_c]], [m [p_c]ᵀ, m 1]]`` (its top-left block is ``I_O``) so
    that the spatial momentum is ``𝓘 V = [L_O; m v_c]`` for a twist ``V = [ω; v]`` of the body
    (``v`` the velocity of the body point at ``O``), and the kinetic energy is ``K = ½ Vᵀ 𝓘 V``.

    Parameters: ``m`` mass (kg, > 0); ``c`` the centre of mass ``p_c`` in the body frame (3,);
    ``I_c`` rotational inertia about the centre of mass in body axes (3, 3), symmetric, positive
    semi-definite and satisfying the triangle inequalities.

    >>> import numpy as np
    >>> G = inertia(2.0, [0.0, 0.0, 0.5], np.diag([0.1, 0.1, 0.02]))
    >>> float(G[0, 0])            # parallel axis: 0.1 + 2·0.5²
    0.6
    """
    m = float(m)
    c = validate.float_array(c, "c", "a 3-vector of real numbers (the centre of mass)")
    I_c = validate.float_array(I_c, "I_c", "a 3x3 matrix of real numbers (the rotational inertia)")
    check_inertia_params(m, c, I_c)
    C = so3.hat(c)
    G = np.zeros((6, 6))
    G[ANG, ANG] = I_c + m * C @ C.T
    G[ANG, LIN] = m * C
    G[LIN, ANG] = m * C.T
    G[LIN, LIN] = m * np.eye(3)
    return G


def mass(G):
    """The mass ``m`` of a spatial inertia ``𝓘`` (``G``; its linear block is ``m·1`` about any point; stacks too).

    >>> float(mass(inertia(2.5, [0.1, 0.0, 0.0], np.eye(3) * 0.01)))
    2.5
    """
    G = np.asarray(G, dtype=float)
    return G[..., LIN, LIN][..., 0, 0][()]


def inertia_params(G, name="G"):
    """Inverse of :func:`inertia`: ``(m, p_c, I_c)`` from a spatial inertia ``𝓘`` (``G``) about the origin.

    >>> import numpy as np
    >>> m, c, I_c = inertia_params(inertia(3.0, [0.1, 0.2, 0.3], np.diag([1.0, 2.0, 2.5])))
    >>> round(m, 12), bool(np.allclose(c, [0.1, 0.2, 0.3])), bool(np.allclose(I_c, np.diag([1, 2, 2.5])))
    (3.0, True, True)
    """
    G = validate.matrix(G, (6, 6), name, "a 6x6 spatial inertia")
    m = validate.positive(float(mass(G)), f"{name}: mass (the linear block m·1)")
    mC = G[ANG, LIN]
    c = so3.vee(0.5 * (mC - mC.T)) / m
    C = so3.hat(c)
    I_c = G[ANG, ANG] - m * C @ C.T
    return m, c, 0.5 * (I_c + I_c.T)


def transform_inertia(X, G):
    """Express a spatial inertia in another frame: ``𝓘_b = X_A_Bᵀ 𝓘_a X_A_B`` (``G`` is ``𝓘_a``).

    Convention: ``X_A_B`` is the motion transform from B to A coordinates, ``V_a = X_A_B V_b`` (so
    the kinetic energy ``K = ½ V_bᵀ 𝓘_b V_b = ½ V_aᵀ 𝓘_a V_a`` is invariant). With ``T_ab`` the pose
    of B in A, ``X_A_B = Ad(T_ab)``.

    >>> import numpy as np
    >>> G = inertia(1.0, [0, 0, 0], np.eye(3) * 0.1)
    >>> T = se3.from_Rp(np.eye(3), np.array([0.0, 0.0, -1.0]))   # body B sits 1 m below A
    >>> float(transform_inertia(se3.Ad(T), G)[0, 0])              # parallel axis: 0.1 + 1·1²
    1.1
    """
    X = validate.matrix(X, (6, 6), "X", "a 6x6 motion transform")
    G = validate.matrix(G, (6, 6), "G", "a 6x6 spatial inertia")
    return X.T @ G @ X


def check_inertia_params(m, c, I_c, name="inertia"):
    """Raise ``ValueError`` unless ``(m, c, I_c)`` (``c`` the centre of mass ``p_c``) is a physically
    consistent rigid body.

    Mass > 0; ``I_c`` finite, symmetric, positive semi-definite and satisfying the triangle
    inequalities of its principal moments (``I_(1) + I_(2) ≥ I_(3)`` …). A thin rod (one zero moment) is
    valid. (The checks are :func:`lessonlib._validate.rigid_body`'s.)
    """
    validate.rigid_body(m, c, I_c, name)


def check_spatial_inertia(G, name="inertia"):
    """Raise ``ValueError`` unless ``G`` is the 6×6 spatial inertia ``𝓘`` of a physical rigid body;
    return it as a float array.

    ``G`` must be finite and symmetric with linear block ``m·1``, and its mass, centre of mass and
    rotational inertia (:func:`inertia_params`) must pass :func:`check_inertia_params`.
    """
    G = validate.spatial_inertia_matrix(G, name)
    validate.rigid_body(*inertia_params(G, name), name)
    return G


# --- centre of mass and centre of gravity (质心 / 重心) ------------------------------------------------------

class GravityResultant(NamedTuple):
    """The gravity forces on point masses reduced to the centre of mass (see :func:`gravity_resultant`)."""

    force: np.ndarray     #: resultant force Σ m_k g(p_k) (N), (3,)
    moment: np.ndarray    #: its moment about the centre of mass, Σ (p_k − p_c) × m_k g(p_k) (N·m), (3,)
    point: np.ndarray     #: the centre of gravity: the point of the resultant's line of action nearest the COM (3,)


def gravity_resultant(masses, points, field):
    """The resultant of the gravity forces ``m_k g(p_k)`` on point masses, and where it acts (centre of gravity 重心).

    Convention: the forces are reduced to the centre of mass ``p_c = Σ m_k p_k / m`` (质心): resultant force
    ``f = Σ m_k g(p_k)`` and moment ``μ = Σ (p_k − p_c) × m_k g(p_k)`` about ``p_c``. When ``μ ⊥ f`` (a uniform field,
    or a central one: every force then points at the same centre) the system is one force along a line; its point
    nearest the COM is the centre of gravity ``p_cg = p_c + f × μ / |f|²`` ([LG, 欧拉运动定律]: the two points
    coincide in a uniform field and differ slightly otherwise). For forces that do not reduce to a single line
    (``μ`` not ⊥ ``f``) the point is that of the central axis (Poinsot's) nearest the COM.

    Parameters: ``masses`` (k,) kg, each > 0; ``points`` (k, 3) positions (m) in any one frame; ``field`` the
    gravitational acceleration in that frame: a 3-vector (uniform field) or a callable ``g(p) -> (3,)``.

    >>> import numpy as np
    >>> m_k, p_k = np.array([1.0, 3.0]), np.array([[0.0, 0.0, 0.0], [0.4, 0.0, 0.0]])
    >>> res = gravity_resultant(m_k, p_k, [0.0, 0.0, -9.81])          # uniform: 重心 = 质心 = (0.3, 0, 0)
    >>> res.point.round(12) + 0.0, float(res.force[2])
    (array([0.3, 0. , 0. ]), -39.24)
    """
    m_k = validate.float_array(masses, "masses", "point masses (k,) in kg")
    if m_k.ndim != 1 or m_k.size == 0 or not np.all(np.isfinite(m_k)) or np.any(m_k <= 0):
        raise ValueError(f"masses: expected k > 0 finite masses > 0 (shape (k,)), got {validate.shown(masses)}")
    p_k = validate.array(points, (m_k.size, 3), "points")
    validate.check_finite(p_k, "points")
    if callable(field):
        g_k = np.array([validate.vector(field(p), 3, "field", "field(p): a 3-vector (m/s²)") for p in p_k])
    else:
        g_k = np.tile(validate.vector(field, 3, "field", "a 3-vector (m/s², uniform field) or a callable g(p)"),
                      (m_k.size, 1))
    p_c = m_k @ p_k / m_k.sum()
    forces = m_k[:, None] * g_k
    f = forces.sum(axis=0)
    mu = np.cross(p_k - p_c, forces).sum(axis=0)
    ff = float(f @ f)
    if ff == 0.0:
        raise ValueError("field: the gravity forces add up to zero, so they have no line of action")
    return GravityResultant(f, mu, p_c + np.cross(f, mu) / ff)
