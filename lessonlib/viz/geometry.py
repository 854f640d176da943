"""What the viewers draw for any Model: link segments, joint axes, sizes and the camera (numpy only).

Both back ends (pythreejs and matplotlib) draw the same geometry, computed here once:

* **link segments** (:func:`link_segments`) — for each body ``i``: from the parent's origin to the
  point ``r_i`` where joint ``i``'s axis passes (a revolute joint's point; a prismatic joint's body
  origin, so that segment stretches with ``q_i``), then from ``r_i`` to body ``i``'s origin when they
  differ; for each leaf body: a segment to every Model Frame on it (tools), or to its COM when it
  carries no frame. Each end is anchored to a body (``BASE`` = the world), so the segments follow
  :func:`lessonlib.kinematics.fk` without being rebuilt.
* **sizes** (:func:`reach`) — a bound on how far the robot reaches from the world origin; link
  radius, joint-marker size, COM spheres and the camera distance scale with it.
* **poses** (:func:`cylinder_matrix`) — the 4×4 pose that stretches a unit cylinder (three.js
  convention: along local +y, height 1, centred) between two points.

>>> from lessonlib import samples
>>> [(s.a_body, s.b_body, s.kind) for s in link_segments(samples.planar_2link())]
[(0, 1, 'link'), (1, 1, 'tool')]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import positive
from ..conventions import BASE
from ..kinematics import fk

#: Segments (and vectors) shorter than this (m) are not drawn.
MIN_LENGTH = 1e-6
#: Travel (m) assumed for a prismatic joint when bounding the reach.
PRISMATIC_TRAVEL = 0.3


@dataclass(frozen=True)
class Segment:
    """A straight piece of the drawing from ``a_point`` on body ``a_body`` to ``b_point`` on ``b_body``.

    Points are 3-vectors in the body's frame (``BASE``: the world frame). ``kind`` is ``"link"``
    (between joints), ``"tool"`` (to a Model Frame) or ``"com"`` (to a leaf body's COM).
    """

    a_body: int
    a_point: np.ndarray
    b_body: int
    b_point: np.ndarray
    kind: str = "link"


def joint_point(model, i):
    """Where joint ``i``'s axis is drawn, in body frame ``i``: the axis point (revolute) or the origin."""
    joint = model.joints[i]
    return np.array(joint.point if joint.is_revolute else np.zeros(3), dtype=float)


def world_points(model, T, bodies, points):
    """World coordinates of ``points[k]`` (body-frame 3-vectors) fixed on ``bodies[k]``, given ``T = fk(q)``."""
    out = np.empty((len(bodies), 3))
    for k, (b, p) in enumerate(zip(bodies, points)):
        out[k] = p if b == BASE else T[b][:3, :3] @ p + T[b][:3, 3]
    return out


def segment_endpoints(model, T, segments):
    """World end points of ``segments`` for body poses ``T = fk(model, q)``: arrays ``(a, b)``, each (k, 3)."""
    a = world_points(model, T, [s.a_body for s in segments], [s.a_point for s in segments])
    b = world_points(model, T, [s.b_body for s in segments], [s.b_point for s in segments])
    return a, b


def link_segments(model):
    """The segments that draw ``model`` (see the module docstring), as a tuple of :class:`Segment`.

    A segment of constant length shorter than ``MIN_LENGTH`` is left out; one that spans a prismatic
    joint is always kept (its length changes with ``q``). Duplicate segments are drawn once.

    >>> from lessonlib import samples
    >>> len(link_segments(samples.seed002_7dof()))     # 3 coincident joint pairs draw nothing
    5
    """
    T0 = fk(model, np.zeros(model.n))
    segments, seen = [], set()

    def add(a_body, a_point, b_body, b_point, kind, stretches=False):
        a_point, b_point = np.asarray(a_point, dtype=float), np.asarray(b_point, dtype=float)
        a, b = world_points(model, T0, [a_body, b_body], [a_point, b_point])
        key = (a_body, tuple(np.round(a_point, 9)), b_body, tuple(np.round(b_point, 9)))
        if key in seen or (not stretches and np.linalg.norm(b - a) < MIN_LENGTH):
            return
        seen.add(key)
        segments.append(Segment(a_body, a_point, b_body, b_point, kind))

    for i in range(model.n):
        r = joint_point(model, i)
        add(model.parent[i], np.zeros(3), i, r, "link", stretches=not model.joints[i].is_revolute)
        add(i, r, i, np.zeros(3), "link")
    for i in range(model.n):
        if model.children[i]:
            continue
        tools = [f for f in model.frames if f.body == i]
        for f in tools:
            add(i, np.zeros(3), i, f.T[:3, 3], "tool")
        if not tools:
            add(i, np.zeros(3), i, model.com[i], "com")
    return tuple(segments)


def reach(model):
    """A bound (m) on the distance from the world origin to any drawn point, at any configuration.

    Sums, along each path from the base, the distance from a parent's origin to the joint point and
    from there to the body's origin (both fixed by a revolute joint), ``PRISMATIC_TRAVEL`` for a
    prismatic joint, and the leaf segments. At least 0.2 m.

    >>> from lessonlib import samples
    >>> round(reach(samples.planar_2link()), 6)
    2.0
    """
    d = np.zeros(model.n)
    for i in range(model.n):
        r = joint_point(model, i)
        base = 0.0 if model.parent[i] == BASE else d[model.parent[i]]
        hop = np.linalg.norm(model.T_tree[i][:3, :3] @ r + model.T_tree[i][:3, 3]) + np.linalg.norm(r)
        if not model.joints[i].is_revolute:
            hop += PRISMATIC_TRAVEL
        d[i] = base + hop
    extra = np.zeros(model.n)
    for i in range(model.n):
        lengths = [np.linalg.norm(f.T[:3, 3]) for f in model.frames if f.body == i]
        extra[i] = max(lengths + [np.linalg.norm(model.com[i])])
    return float(max(0.2, np.max(d + extra)))


def check_reach(R, name="reach", expected="a length in metres > 0 (or None: automatic)"):
    """A scene size (or any positive number) given by the caller, as a float: finite and > 0, else ValueError."""
    return positive(R, name, expected)


def up_vector(model):
    """The drawing's "up": against the model's default gravity (+z for spatial arms, +y for planar)."""
    g = np.asarray(model.gravity, dtype=float)
    norm = np.linalg.norm(g)
    return np.array([0.0, 0.0, 1.0]) if norm < MIN_LENGTH else -g / norm


def view_direction(model):
    """Unit vector from the look-at point toward the camera.

    A planar arm (all joint axes parallel at ``q = 0``) is seen along its axes, slightly from above;
    any other arm from a three-quarter view.
    """
    up = up_vector(model)
    if is_planar(model):
        T0 = fk(model, np.zeros(model.n))
        d = T0[0][:3, :3] @ model.joints[0].axis + 0.25 * up
    else:
        h1 = _perpendicular(up)
        h2 = np.cross(up, h1)
        d = 1.0 * h1 + 0.8 * h2 + 0.55 * up
    return d / np.linalg.norm(d)


def is_planar(model):
    """True when every joint axis is parallel at ``q = 0`` and not vertical (an arm moving in one plane)."""
    T0 = fk(model, np.zeros(model.n))
    axes = np.array([T0[i][:3, :3] @ model.joints[i].axis for i in range(model.n)])
    return bool(np.all(np.linalg.norm(np.cross(axes, axes[0]), axis=1) < 1e-9) and abs(axes[0] @ up_vector(model)) < 0.5)


def bounding_box(points, floor=0.0):
    """``(lower, upper)`` corners of the box around ``points`` ((k, 3)), each side at least ``floor`` long.

    >>> lo, hi = bounding_box([[0, 0, 0], [1, 0.5, 0]], floor=0.2)
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0, -0.1], [1.0, 0.5, 0.1])
    """
    P = np.atleast_2d(np.asarray(points, dtype=float))
    lo, hi = P.min(axis=0), P.max(axis=0)
    grow = np.maximum(floor - (hi - lo), 0.0) / 2
    return lo - grow, hi + grow


def fit_distance(radius, fov_deg, aspect):
    """Distance at which a sphere of ``radius`` fills a perspective camera's view (``fov_deg``: vertical field of view).

    The narrower of the vertical and horizontal fields decides.

    >>> round(fit_distance(1.0, 40.0, 1.5), 4)           # 1 / sin(20°)
    2.9238
    """
    half_v = np.radians(fov_deg) / 2
    half_h = np.arctan(np.tan(half_v) * aspect)
    return float(radius / np.sin(min(half_v, half_h)))


def plane_axes(model):
    """In-plane axes ``(e1, e2)`` of a planar arm (:func:`is_planar`), ``e2`` as close to "up" as the plane allows.

    >>> from lessonlib import samples
    >>> [e.tolist() for e in plane_axes(samples.planar_2link())]    # gravity along −y: x right, y up
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    T0 = fk(model, np.zeros(model.n))
    normal = T0[0][:3, :3] @ model.joints[0].axis
    normal = normal / np.linalg.norm(normal)
    up = up_vector(model)
    e2 = up - (up @ normal) * normal
    e2 = _perpendicular(normal) if np.linalg.norm(e2) < MIN_LENGTH else e2 / np.linalg.norm(e2)
    e1 = np.cross(e2, normal)
    return e1 + 0.0, e2 + 0.0


def _perpendicular(u):
    """A unit vector perpendicular to the unit vector ``u`` (the x axis when ``u`` is not along it)."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    p = helper - (helper @ u) * u
    return p / np.linalg.norm(p)


def frame_along(direction):
    """A rotation whose second column (local +y) is the unit vector ``direction``."""
    y = np.asarray(direction, dtype=float)
    x = _perpendicular(y)
    return np.column_stack([x, y, np.cross(x, y)])


def cylinder_matrix(a, b, radius):
    """Pose (4×4) of a unit cylinder (along local +y, height 1, radius 1, centred) stretched from ``a`` to ``b``.

    >>> M = cylinder_matrix([0, 0, 0], [0, 0, 2], 0.1)
    >>> (M[:3, 1].round(12) + 0.0).tolist(), M[:3, 3].tolist()      # +y scaled to the segment, centred
    ([0.0, 0.0, 2.0], [0.0, 0.0, 1.0])
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = b - a
    length = np.linalg.norm(d)
    R = frame_along(d / length if length > MIN_LENGTH else np.array([0.0, 0.0, 1.0]))
    M = np.eye(4)
    M[:3, :3] = R @ np.diag([radius, max(length, MIN_LENGTH), radius])
    M[:3, 3] = 0.5 * (a + b)
    return M


def look_at_quaternion(position, target, up):
    """Quaternion ``(x, y, z, w)`` that turns a camera at ``position`` (looking down its −z) toward ``target``."""
    z = np.asarray(position, dtype=float) - np.asarray(target, dtype=float)
    z /= np.linalg.norm(z)
    x = np.cross(up, z)
    x = _perpendicular(z) if np.linalg.norm(x) < MIN_LENGTH else x / np.linalg.norm(x)
    y = np.cross(z, x)
    return rotation_to_quaternion(np.column_stack([x, y, z]))


def rotation_to_quaternion(R):
    """Unit quaternion ``(x, y, z, w)`` (three.js order) of a rotation matrix.

    >>> rotation_to_quaternion(np.eye(3)).tolist()
    [0.0, 0.0, 0.0, 1.0]
    """
    m = np.asarray(R, dtype=float)
    t = np.trace(m)
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s]
    q = np.array(q)
    return q / np.linalg.norm(q)


def three_matrix(M):
    """A 4×4 matrix as the 16-tuple three.js expects (column-major, ``Matrix4.fromArray``)."""
    return tuple(float(x) for x in np.asarray(M, dtype=float).ravel(order="F"))
