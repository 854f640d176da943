"""Inertias from CAD: the spatial inertia ``𝓘`` of a body from the mass properties a CAD program reports.

A CAD program (SolidWorks, Creo, Fusion, ...) reports a part's mass, its centre of mass ``p_c`` and nine
inertia values, taken either at the centre of mass or at the part's output coordinate system (here: the
body-frame origin ``O``), with axes parallel to the body frame. Two choices decide what the nine values
mean, and the course's functions make the caller name both ([LG, 惯量和力旋量]; [RNE05 §五]):

``about``
    ``"com"``: the values are the rotational inertia ``I_c`` about the centre of mass;
    ``"origin"``: they are ``I_O``, about the body origin. The parallel-axis theorem (3.5) links them,
    ``I_O = I_c + m(|p_c|²1 − p_c p_cᵀ)``, so values about the origin lose that shift first.
``products``
    ``"tensor"``: the off-diagonal entries are tensor entries, ``I_xy = −∫xy dm`` (the course's
    ``I = −Σ m_k [p_k]²``, [LG]'s negative tensor notation, URDF's ``ixy``);
    ``"positive"``: they are products of inertia ``P_xy = +∫xy dm`` (SolidWorks' "positive tensor"
    notation), so the tensor entries are their negatives. The moments ``I_xx = ∫(y² + z²) dm`` are the
    same in both.

The slips this guards against — positive products taken as tensor entries, inertia about the COM
used as inertia about the origin and the other way round — give wrong torques without any error
(lesson 03, "Inertias from CAD"); only some of them make an impossible body, and then the message
names the likely slip.
"""
from __future__ import annotations

import numpy as np

from .. import _validate as validate
from .. import spatial
from ..conventions import ANG, INERTIA_TOL

#: The points the nine CAD values can be taken at (axes parallel to the body frame).
ABOUT = ("com", "origin")
#: How the CAD report writes the off-diagonal values.
PRODUCTS = ("tensor", "positive")


def _steiner(m, c):
    """The parallel-axis shift ``m(|c|²1 − c cᵀ) = −m[c]²`` (3.5): inertia about ``O`` minus inertia about the COM."""
    return m * (c @ c * np.eye(3) - np.outer(c, c))


def _flip_products(J):
    """The same nine values with the off-diagonal signs flipped (``P_xy = +∫xy dm`` ↔ ``I_xy = −∫xy dm``)."""
    return 2.0 * np.diag(np.diag(J)) - J


def _is_rigid_body(m, c, I_c):
    try:
        validate.rigid_body(m, c, I_c)
    except ValueError:
        return False
    return True


def inertia_from_cad(mass, com, tensor, *, about, products):
    """Spatial inertia ``𝓘`` (6×6, about the body origin ``O``, ``[ω; v]`` order) from a CAD mass-properties report.

    Convention: the result is :func:`lessonlib.spatial.inertia` ``(m, p_c, I_c)`` with
    ``I_c = S(tensor)`` if ``about="com"`` and ``I_c = S(tensor) − m(|p_c|²1 − p_c p_cᵀ)`` if
    ``about="origin"``, where ``S`` keeps the values (``products="tensor"``) or negates the
    off-diagonal ones (``products="positive"``, CAD's ``P_xy = +∫xy dm``). See the module docstring.

    Parameters: ``mass`` (kg, > 0); ``com`` the centre of mass ``p_c`` in the body frame (3,), m;
    ``tensor`` the 3×3 values of the report (kg·m², symmetric; ``[[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz],
    [Ixz, Iyz, Izz]]`` as the report names them); ``about`` and ``products`` keyword-only, no default:
    the caller must say which convention the report uses.

    Raises ``ValueError`` naming the argument for a bad mass, shape or option, a non-symmetric
    ``tensor``, and when the body would be impossible (not positive semi-definite, or breaking the
    triangle inequalities); then the message names the slip that would explain it, if one does.

    >>> import numpy as np
    >>> m, p_c = 2.0, np.array([0.1, 0.0, 0.2])
    >>> J_c = np.array([[0.02, 0.003, 0.0], [0.003, 0.03, 0.0], [0.0, 0.0, 0.04]])   # P_xy = +0.003
    >>> G = inertia_from_cad(m, p_c, J_c, about="com", products="positive")
    >>> float(G[0, 1])                         # about O: −P_xy − m·x·y = −0.003 − 0
    -0.003
    >>> shift = m * (p_c @ p_c * np.eye(3) - np.outer(p_c, p_c))           # (3.5) with d = p_c
    >>> signs = np.where(np.eye(3, dtype=bool), 1.0, -1.0)                  # SolidWorks' off-diagonal signs
    >>> J_O = J_c + signs * shift                                           # the same part, reported at O
    >>> bool(np.allclose(inertia_from_cad(m, p_c, J_O, about="origin", products="positive"), G))
    True
    """
    m = validate.positive(mass, "mass", "a mass in kg, a finite number > 0")
    c = validate.vector(com, 3, "com", "the centre of mass, a 3-vector in the body frame (m)")
    J = validate.matrix(tensor, (3, 3), "tensor", "the 3x3 inertia values of the CAD report (kg·m²)")
    validate.one_of(about, ABOUT, "about")
    validate.one_of(products, PRODUCTS, "products")
    validate.symmetric(J, "tensor", "the inertia values", INERTIA_TOL)
    J = 0.5 * (J + J.T)
    I_c = _com_inertia(m, c, J, about, products)
    if not _is_rigid_body(m, c, I_c):
        raise ValueError(_slip_message(m, c, J, about, products))
    return spatial.inertia(m, c, I_c)


def _com_inertia(m, c, J, about, products):
    I = _flip_products(J) if products == "positive" else J
    return I - _steiner(m, c) if about == "origin" else I


def _slip_message(m, c, J, about, products):
    """What is wrong with an impossible body, and which other reading of the report would make it possible."""
    I_c = _com_inertia(m, c, J, about, products)
    moments = np.linalg.eigvalsh(I_c)
    why = ("a negative one" if moments[0] < -INERTIA_TOL * max(1.0, np.abs(I_c).max())
           else "I1 + I2 < I3, against the triangle inequality")
    what = (f"with about={about!r} and products={products!r} the rotational inertia about the COM has principal "
            f"moments {np.array2string(moments, precision=4)} kg·m² ({why}), which no body has")
    other_products = PRODUCTS[1 - PRODUCTS.index(products)]
    other_about = ABOUT[1 - ABOUT.index(about)]
    if _is_rigid_body(m, c, _com_inertia(m, c, J, about, other_products)):
        if products == "tensor":
            return (f"products: {what}; did you pass SolidWorks' positive products (P_xy = +∫xy dm) with "
                    "products='tensor'? Then say products='positive'")
        return (f"products: {what}; were the off-diagonal values already tensor entries (I_xy = −∫xy dm)? "
                "Then say products='tensor'")
    if about == "origin" and _is_rigid_body(m, c, _com_inertia(m, c, J, other_about, products)):
        return (f"tensor: {what} (the parallel-axis shift m(|p_c|²1 − p_c p_cᵀ) taken off leaves too little); "
                "was it taken at the COM? Then say about='com'")
    if about == "origin" and _is_rigid_body(m, c, _com_inertia(m, c, J, other_about, other_products)):
        return (f"tensor: {what}; the values read as a COM inertia with products={other_products!r} would be "
                f"a body: were they taken at the COM (about='com', products={other_products!r})?")
    return f"tensor: {what}; check the report's units (kg·m²), the mass and the centre of mass"


def cad_values(G, *, about, products):
    """The inverse of :func:`inertia_from_cad`: ``(mass, com, tensor)`` as a CAD report in the given convention.

    ``G`` is a spatial inertia about the body origin (6×6, ``[ω; v]``); ``tensor`` holds the nine values a
    CAD program would print for ``about`` (``"com"`` or ``"origin"``) and ``products`` (``"tensor"`` or
    ``"positive"``), see the module docstring.

    >>> import numpy as np
    >>> G = spatial.inertia(1.0, [0.5, 0.0, 0.0], np.diag([0.0, 1 / 12, 1 / 12]))   # a 1 m, 1 kg rod along x
    >>> m, p_c, J = cad_values(G, about="origin", products="positive")
    >>> np.round(np.diag(J), 4) + 0.0                                           # mL²/3 about y and z
    array([0.    , 0.3333, 0.3333])
    >>> bool(np.allclose(inertia_from_cad(m, p_c, J, about="origin", products="positive"), G))
    True
    """
    G = spatial.check_spatial_inertia(G, "G")
    validate.one_of(about, ABOUT, "about")
    validate.one_of(products, PRODUCTS, "products")
    m, c, I_c = spatial.inertia_params(G)
    I = G[ANG, ANG].copy() if about == "origin" else I_c
    I = 0.5 * (I + I.T)
    return m, c, _flip_products(I) if products == "positive" else I
