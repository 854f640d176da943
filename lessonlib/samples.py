"""Named example robots of the course, each built once here (never pasted into a test or notebook).

=========================  ======  ===========================================================
sample                     joints  where it comes from
=========================  ======  ===========================================================
``pendulum()``             1       [WJ §2.1]: single link, ``τ = I_O q̈ + m g₀ ℓ sin q``
``planar_2link()``         2       [RNE05]: two uniform 1 m / 1 kg rods (static check 20, 5 N·m)
``seed004_2link()``        2       [DB4 §4.2]: l = 0.5 m, m = 5 kg, COM at mid-link
``seed004_2link_dh()``     2       [DB4 §4.2]'s DH table: the same arm in standard DH
``skater()``               2       [LG]'s Coriolis appendix: a hub spinning about z, a mass sliding radially
``foucault_pendulum()``    3       [LG]'s Coriolis appendix: a spherical pendulum on a turning Earth
``planar_3link()``         3       a vertical 3-link planar arm (Lagrange lesson, scaling)
``rpr_arm()``              3       revolute–prismatic–revolute spatial arm, standard DH
``scara()``                4       SCARA (RRPR), standard DH, prismatic quill
``branched_tree()``        5       a torso with two 2-link arms (a tree, not a chain)
``ur5()``                  6       Universal Robots UR5, Lynch & Park's (Modern Robotics) parameters
``seed002_7dof()``         7       [SWC16]'s 7-DoF arm (modified DH; inertias chosen, see docstring)
``panda()``                7       Franka Emika Panda arm from ``lessonlib/robots/panda.urdf``
``chain(n)``               n       an n-link spatial chain for the complexity lessons
``random_model(...)``      n       random trees with random axes, offsets, inertias (for tests)
=========================  ======  ===========================================================

Planar arms move in the x–y plane about z-axes, so their default gravity is ``(0, -9.81, 0)``
(the seeds draw "up" as +y for planar arms); spatial arms use the course default ``(0, 0, -9.81)``.
"""
from __future__ import annotations

from importlib import resources

import numpy as np

from . import se3, so3, spatial
from .conventions import PLANAR_GRAVITY
from .model import Frame, Joint, Model, from_dh, from_poe, from_urdf

_Z = np.array([0.0, 0.0, 1.0])
#: Joint positions a random state draws: revolute angles in ±π rad, prismatic strokes in ±0.2 m.
REVOLUTE_RANGE = np.pi
PRISMATIC_RANGE = 0.2


def _rod_inertia(m, length, axis=0):
    """COM inertia of a thin uniform rod of the given length along body axis ``axis``."""
    I = np.full(3, m * length**2 / 12.0)
    I[axis] = 0.0
    return np.diag(I)


def _translation(p):
    return se3.from_Rp(np.eye(3), np.asarray(p, dtype=float))


def pendulum(m=1.0, length=1.0):
    """[WJ §2.1]'s single link: a uniform rod of mass ``m`` and ``length`` swinging about z.

    ``q = 0`` hangs straight down (−y); the COM is ``ℓ = length/2`` from the axis and
    ``I_O = m·length²/3``, so ``τ = I_O q̈ + m g₀ ℓ sin q``. Frame ``"tip"`` marks the rod's end.
    """
    ell = length / 2.0
    G = spatial.inertia(m, [0.0, -ell, 0.0], _rod_inertia(m, length, axis=1))
    return Model([-1], [Joint("revolute", _Z, name="pivot")], [np.eye(4)], [G], gravity=PLANAR_GRAVITY,
                 body_names=("rod",), frames=(Frame("tip", 0, _translation([0, -length, 0])),),
                 name="pendulum")


def _planar(lengths, masses, name, com_fraction=0.5, I_com=None):
    """Planar chain in x–y: body i starts at joint i, rod along body x, joints about z."""
    n = len(lengths)
    T_tree = [np.eye(4)] + [_translation([lengths[i - 1], 0, 0]) for i in range(1, n)]
    G = [spatial.inertia(masses[i], [com_fraction * lengths[i], 0, 0],
                         _rod_inertia(masses[i], lengths[i]) if I_com is None else I_com[i])
         for i in range(n)]
    joints = [Joint("revolute", _Z, name=f"joint{i + 1}") for i in range(n)]
    return Model(list(range(-1, n - 1)), joints, T_tree, G, gravity=PLANAR_GRAVITY, name=name,
                 body_names=tuple(f"link{i + 1}" for i in range(n)),
                 frames=(Frame("tip", n - 1, _translation([lengths[-1], 0, 0])),))


def planar_2link():
    """[RNE05]'s arm: two uniform rods, 1 m and 1 kg each, joints about z, gravity along −y.

    Held horizontal (q = 0) with g = 10 m/s² it needs τ = (20, 5) N·m; with 1 kg at the tip,
    (40, 15) N·m.
    """
    return _planar([1.0, 1.0], [1.0, 1.0], "planar_2link")


def seed004_2link():
    """[DB4 §4.2]'s planar arm: l₁ = l₂ = 0.5 m, m₁ = m₂ = 5 kg, COM at mid-link.

    The seed leaves ``I₁, I₂`` symbolic; we take uniform slender rods, ``I_i = m l² / 12``
    (about the COM, normal to the plane).
    """
    return _planar([0.5, 0.5], [5.0, 5.0], "seed004_2link")


def seed004_2link_dh():
    """[DB4 §4.2]'s arm as the book builds it: a standard-DH table, the same robot as :func:`seed004_2link`.

    DH (a, α, d, θ) = (0.5, 0, 0, q₁), (0.5, 0, 0, q₂); DH frame ``i`` sits at the far end of link
    ``i``, so each mass centre is at ``(−l/2, 0, 0)`` in its frame. Same joint angles, same
    ``M, C, g`` as the product-of-exponentials sample (only the body frames differ).
    """
    m, length = 5.0, 0.5
    return from_dh(a=[length, length], alpha=[0.0, 0.0], d=[0.0, 0.0], mass=[m, m],
                   com=[[-length / 2, 0.0, 0.0]] * 2, inertia=[_rod_inertia(m, length)] * 2,
                   gravity=PLANAR_GRAVITY, name="seed004_2link_dh")


def skater(hub_inertia=1.0, mass=2.0, radius=0.05):
    """[LG]'s spinning skater: a hub turning about the vertical z-axis (joint 1) and a mass sliding radially on it (joint 2).

    Joint 1 is revolute about z; joint 2 is prismatic along the hub's x-axis, ``q₂ = r`` the
    distance of the mass centre (a ball of ``mass`` and ``radius``) from the axis. With
    ``I = hub_inertia + (2/5) m ρ²``: ``τ₁ = (I + m r²) θ̈ + 2 m r ṙ θ̇`` and
    ``τ₂ = m r̈ − m r θ̇²``; gravity (along −z) does no work on either joint.
    """
    ball = np.eye(3) * 0.4 * mass * radius**2
    hub = np.diag([hub_inertia / 2, hub_inertia / 2, hub_inertia])
    joints = [Joint("revolute", _Z, name="spin"), Joint("prismatic", [1.0, 0.0, 0.0], name="reach")]
    G = [spatial.inertia(10.0, [0.0, 0.0, 0.0], hub), spatial.inertia(mass, [0.0, 0.0, 0.0], ball)]
    return Model([-1, 0], joints, [np.eye(4), np.eye(4)], G, name="skater", body_names=("hub", "hand"))


def foucault_pendulum(latitude=np.pi / 4, length=1.0, mass=1.0, earth_inertia=1e6):
    """[LG]'s Foucault pendulum (傅科摆): a spherical pendulum on a turning Earth, seen in the local frame.

    Frames: x east, y north, z up at the pendulum's site. Joint 1 is the Earth's rotation, about
    the axis ``(0, cos φ, sin φ)`` through the pivot (``φ = latitude``), body 1 an "Earth" with a
    huge inertia (``earth_inertia``), so that the pendulum cannot change its spin; joints 2 and 3
    are a universal joint (about east, then about the swinging link's y) carrying a point ``mass``
    ``length`` below the pivot. The model has **no gravity** (``gravity = 0``): gravity turns with
    the Earth, so it is applied as a force on the bob along the Earth's "down"
    (:func:`lessonlib.dynamics.coriolis.foucault_run`).
    """
    axis = np.array([0.0, np.cos(latitude), np.sin(latitude)])
    joints = [Joint("revolute", axis, name="earth"), Joint("revolute", [1.0, 0.0, 0.0], name="swing_east"),
              Joint("revolute", [0.0, 1.0, 0.0], name="swing_north")]
    tiny = 1e-6 * mass * length**2                       # the link itself: a point mass; keep M regular
    G = [spatial.inertia(earth_inertia, [0.0, 0.0, 0.0], np.eye(3) * earth_inertia),
         spatial.inertia(1e-6 * mass, [0.0, 0.0, 0.0], np.eye(3) * tiny),
         spatial.inertia(mass, [0.0, 0.0, -length], np.eye(3) * tiny)]
    return Model([-1, 0, 1], joints, [np.eye(4)] * 3, G, gravity=(0.0, 0.0, 0.0), name="foucault_pendulum",
                 body_names=("earth", "gimbal", "bob"))


def planar_3link():
    """A vertical planar 3-link arm (lengths 0.6, 0.5, 0.4 m; masses 3, 2, 1 kg; uniform rods)."""
    return _planar([0.6, 0.5, 0.4], [3.0, 2.0, 1.0], "planar_3link")


def _box_inertia(m, a, b, c):
    """COM inertia of a uniform box with side lengths a, b, c along the body x, y, z axes."""
    return m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def rpr_arm():
    """A spatial revolute–prismatic–revolute arm (standard DH), with products of inertia.

    DH (a, α, d, θ): (0, −π/2, 0.4, 0), (0, π/2, 0.3 + q₂, 0), (0.25, 0, 0, 0).
    """
    tilt = so3.rot_x(0.3) @ so3.rot_z(0.2)               # principal axes not aligned: products of inertia
    return from_dh(a=[0.0, 0.0, 0.25], alpha=[-np.pi / 2, np.pi / 2, 0.0], d=[0.4, 0.3, 0.0],
                   joint_types="RPR", modified=False, mass=[4.0, 2.0, 1.0],
                   com=[[0.0, 0.1, -0.05], [0.0, 0.0, -0.15], [-0.12, 0.0, 0.01]],
                   inertia=[tilt @ _box_inertia(4.0, 0.1, 0.3, 0.1) @ tilt.T,
                            _box_inertia(2.0, 0.06, 0.06, 0.4),
                            tilt.T @ _box_inertia(1.0, 0.25, 0.05, 0.05) @ tilt],
                   names=["waist", "reach", "wrist"], name="rpr_arm",
                   tool=_translation([0.0, 0.0, 0.05]))


def scara():
    """A SCARA arm (RRPR, standard DH): two horizontal links, a vertical quill, a roll joint.

    DH (a, α, d, θ): (0.35, 0, 0.4, 0), (0.3, π, 0, 0), (0, 0, q₃, 0), (0, 0, 0.1, 0).
    """
    return from_dh(a=[0.35, 0.3, 0.0, 0.0], alpha=[0.0, np.pi, 0.0, 0.0], d=[0.4, 0.0, 0.0, 0.1],
                   joint_types="RRPR", mass=[5.0, 3.0, 1.0, 0.5],
                   com=[[-0.175, 0, 0], [-0.15, 0, 0], [0, 0, -0.1], [0, 0, -0.02]],
                   inertia=[_box_inertia(5.0, 0.35, 0.08, 0.08), _box_inertia(3.0, 0.3, 0.06, 0.06),
                            _box_inertia(1.0, 0.03, 0.03, 0.3), _box_inertia(0.5, 0.06, 0.06, 0.04)],
                   names=["shoulder", "elbow", "quill", "roll"], name="scara")


def branched_tree():
    """A torso (yaw about z) carrying two 2-link arms: a tree with parents (−1, 0, 1, 0, 3)."""
    Y = np.array([0.0, 1.0, 0.0])
    X = np.array([1.0, 0.0, 0.0])
    joints = [Joint("revolute", _Z, name="torso_yaw"),
              Joint("revolute", Y, name="left_shoulder"), Joint("revolute", Y, name="left_elbow"),
              Joint("revolute", X, name="right_shoulder"), Joint("revolute", Y, name="right_elbow")]
    T_tree = [_translation([0, 0, 0.3]),
              se3.from_Rp(so3.rot_x(0.2), np.array([0.0, 0.25, 0.5])), _translation([0.4, 0, 0]),
              se3.from_Rp(so3.rot_z(-0.3), np.array([0.0, -0.25, 0.5])), _translation([0.0, -0.35, 0])]
    G = [spatial.inertia(8.0, [0, 0, 0.25], _box_inertia(8.0, 0.3, 0.5, 0.5)),
         spatial.inertia(2.0, [0.2, 0, 0], _rod_inertia(2.0, 0.4)),
         spatial.inertia(1.0, [0.15, 0.01, 0], _rod_inertia(1.0, 0.3)),
         spatial.inertia(2.0, [0, -0.17, 0.02], _rod_inertia(2.0, 0.35, axis=1)),
         spatial.inertia(1.5, [0.0, -0.12, 0.0], _box_inertia(1.5, 0.05, 0.3, 0.08))]
    return Model([-1, 0, 1, 0, 3], joints, T_tree, G, name="branched_tree",
                 body_names=("torso", "left_upper", "left_fore", "right_upper", "right_fore"))


def ur5():
    """Universal Robots UR5 with the parameters of Lynch & Park, *Modern Robotics* (UR5 example).

    Link frames sit at the link mass centres (Modern Robotics' ``Mlist``); masses 3.7, 8.393,
    2.275, 1.219, 1.219, 0.1879 kg. Frame ``"ee"`` is the end-effector frame.
    """
    M01 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]]
    M12 = [[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]]
    M23 = [[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]]
    M34 = [[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0.14225], [0, 0, 0, 1]]
    M45 = [[1, 0, 0, 0], [0, 1, 0, 0.093], [0, 0, 1, 0], [0, 0, 0, 1]]
    M56 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.09465], [0, 0, 0, 1]]
    M67 = [[1, 0, 0, 0], [0, 0, 1, 0.0823], [0, -1, 0, 0], [0, 0, 0, 1]]
    G = [np.diag([0.010267495893, 0.010267495893, 0.00666, 3.7, 3.7, 3.7]),
         np.diag([0.22689067591, 0.22689067591, 0.0151074, 8.393, 8.393, 8.393]),
         np.diag([0.049443313556, 0.049443313556, 0.004095, 2.275, 2.275, 2.275]),
         np.diag([0.111172755531, 0.111172755531, 0.21942, 1.219, 1.219, 1.219]),
         np.diag([0.111172755531, 0.111172755531, 0.21942, 1.219, 1.219, 1.219]),
         np.diag([0.0171364731454, 0.0171364731454, 0.033822, 0.1879, 0.1879, 0.1879])]
    S = np.array([[0, 0, 1, 0, 0, 0],
                  [0, 1, 0, -0.089159, 0, 0],
                  [0, 1, 0, -0.089159, 0, 0.425],
                  [0, 1, 0, -0.089159, 0, 0.81725],
                  [0, 0, -1, -0.10915, 0.81725, 0],
                  [0, 1, 0, 0.005491, 0, 0.81725]]).T
    return from_poe(np.array([M01, M12, M23, M34, M45, M56, M67], dtype=float), np.array(G), S, name="ur5",
                    joint_names=[f"joint{i}" for i in range(1, 7)])


#: [SWC16]'s modified-DH table (α_{i-1}, a_{i-1}, d_i), all joints revolute.
SEED002_DH = dict(alpha=[0.0, np.pi / 2, -np.pi / 2, np.pi / 2, -np.pi / 2, np.pi / 2, -np.pi / 2],
                  a=[0.0] * 7, d=[0.246, 0.0, 0.304, 0.0, 0.317, 0.0, 0.295])


def _cylinder_inertia(m, length, radius, axis):
    """COM inertia of a uniform solid cylinder along body axis ``axis``."""
    I = np.full(3, m * (3 * radius**2 + length**2) / 12.0)
    I[axis] = m * radius**2 / 2.0
    return np.diag(I)


def seed002_7dof():
    """[SWC16]'s 7-DoF arm from its modified-DH table (all revolute).

    The paper's inertia table (its Table 2) did not survive, so the link inertias here are
    **our choice**, plausible for an arm of this size: each link a uniform cylinder of radius
    0.05 m. With this table the frames of joints 1–2, 3–4 and 5–6 coincide, so links 2, 4 and 6
    carry the arm's length (0.304, 0.317, 0.295 m along their +y axes) and links 1, 3, 5, 7 are
    short joint housings. Any consistent set gives the same comparison between algorithms.
    """
    d = SEED002_DH["d"]
    #          mass  COM (DH frame i)            cylinder length, axis
    links = [(4.0, [0.0, 0.0, -0.06], 0.12, 2),
             (3.5, [0.0, d[2] / 2, 0.0], d[2], 1),
             (2.0, [0.0, 0.0, 0.03], 0.08, 2),
             (2.5, [0.0, d[4] / 2, 0.0], d[4], 1),
             (1.5, [0.0, 0.0, 0.03], 0.08, 2),
             (1.2, [0.0, d[6] / 2, 0.0], d[6], 1),
             (0.5, [0.0, 0.0, 0.02], 0.04, 2)]
    return from_dh(modified=True, theta=np.zeros(7), mass=[m for m, *_ in links],
                   com=[c for _, c, *_ in links],
                   inertia=[_cylinder_inertia(m, L, 0.05, ax) for m, _, L, ax in links],
                   name="seed002_7dof", names=[f"joint{i}" for i in range(1, 8)], **SEED002_DH)


def seed002_trajectory(t, T=2.0, q0=0.0, qT=np.pi / 3, n=7):
    """[SWC16]'s test motion: every joint from ``q0`` to ``qT`` in ``T`` seconds.

    The paper's trajectory formula (its eq. 16) was an image and is lost; we use the cycloidal
    profile ``q = q0 + (qT − q0)(t/T − sin(2πt/T)/(2π))``, which starts and ends at rest with zero
    acceleration. Returns ``(q, qd, qdd)``, each of shape ``(len(t), n)``.
    """
    t = np.atleast_1d(np.asarray(t, dtype=float))[:, None]
    s = t / T - np.sin(2 * np.pi * t / T) / (2 * np.pi)
    sd = (1 - np.cos(2 * np.pi * t / T)) / T
    sdd = 2 * np.pi * np.sin(2 * np.pi * t / T) / T**2
    ones = np.ones((1, n))
    return (q0 + (qT - q0) * s) * ones, (qT - q0) * sd * ones, (qT - q0) * sdd * ones


def robot_path(name):
    """Path (a string) of a URDF file shipped with the package, ``lessonlib/robots/NAME.urdf``.

    >>> robot_path("ur5").endswith("ur5.urdf")
    True
    """
    robots = resources.files("lessonlib") / "robots"
    path = robots / (name if str(name).endswith(".urdf") else f"{name}.urdf")
    if not path.is_file():
        shipped = sorted(p.name[:-5] for p in robots.iterdir() if p.name.endswith(".urdf"))
        raise ValueError(f"name: no shipped URDF called {name!r}; shipped: {shipped}")
    return str(path)


def panda():
    """Franka Emika Panda arm (7 revolute joints, hand merged), from ``robots/panda.urdf``."""
    return from_urdf(robot_path("panda"))


def chain(n, *, seed=0):
    """An ``n``-link spatial chain (alternating z / y joint axes, 0.3 m links): scaling experiments."""
    rng = np.random.default_rng(seed)
    joints, T_tree, G = [], [], []
    for i in range(n):
        axis = _Z if i % 2 == 0 else np.array([0.0, 1.0, 0.0])
        joints.append(Joint("revolute", axis, name=f"joint{i + 1}"))
        T_tree.append(_translation([0, 0, 0.3 if i else 0.0]))
        m = 1.0 + rng.uniform(0, 0.5)
        G.append(spatial.inertia(m, [0.0, 0.0, 0.15], _box_inertia(m, 0.05, 0.05, 0.3)))
    return Model(list(range(-1, n - 1)), joints, T_tree, G, name=f"chain{n}")


def random_state(model, seed=0, *, scale=1.0, size=None):
    """A reproducible random state ``(q, q̇, q̈)`` of ``model``: each (n,), or (size, n) for ``size`` states.

    Revolute positions are uniform in ±:data:`REVOLUTE_RANGE` (rad), prismatic positions in
    ±:data:`PRISMATIC_RANGE` (m); velocities and accelerations standard normal times ``scale``.
    ``seed``: an int, or a ``numpy.random.Generator`` to draw from (it advances). The one random-state
    helper of the course (also :func:`lessonlib.check.random_state`).

    >>> q, qd, qdd = random_state(scara(), seed=1)
    >>> bool(abs(q[2]) <= PRISMATIC_RANGE), q.shape          # joint 2 is SCARA's prismatic quill
    (True, (4,))
    """
    rng = np.random.default_rng(seed)
    shape = (model.n,) if size is None else (int(size), model.n)
    revolute = np.array([j.is_revolute for j in model.joints])
    q = np.where(revolute, rng.uniform(-REVOLUTE_RANGE, REVOLUTE_RANGE, shape),
                 rng.uniform(-PRISMATIC_RANGE, PRISMATIC_RANGE, shape))
    return q, scale * rng.normal(size=shape), scale * rng.normal(size=shape)


def random_inertia(rng, mass_range=(0.5, 3.0), size=0.4):
    """A random physically consistent spatial inertia (random mass, COM, principal axes, moments)."""
    m = rng.uniform(*mass_range)
    c = rng.uniform(-size / 2, size / 2, 3)
    a, b, cc = rng.uniform(0.02, size, 3)
    R = so3.exp(rng.normal(size=3))
    return spatial.inertia(m, c, R @ _box_inertia(m, a, b, cc) @ R.T)


def random_model(n=5, *, seed=0, tree=True, prismatic=True):
    """A random kinematic tree for tests: random parents (or a chain), axes, offsets, inertias.

    Joint axes are random unit vectors through random points, tree transforms random poses, about
    a third of the joints prismatic when ``prismatic`` is true.
    """
    rng = np.random.default_rng(seed)
    parent = [-1] + [int(rng.integers(-1, i)) if tree else i - 1 for i in range(1, n)]
    joints, T_tree, G = [], [], []
    for i in range(n):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        if prismatic and rng.uniform() < 0.33:
            joints.append(Joint("prismatic", axis, name=f"j{i}"))
        else:
            joints.append(Joint("revolute", axis, rng.uniform(-0.1, 0.1, 3), name=f"j{i}"))
        T_tree.append(se3.from_Rp(so3.exp(rng.normal(size=3)), rng.uniform(-0.4, 0.4, 3)))
        G.append(random_inertia(rng))
    return Model(parent, joints, T_tree, G, name=f"random{n}_{seed}")


#: Every sample (name -> builder) that the agreement tests run over.
ALL = {
    "pendulum": pendulum, "planar_2link": planar_2link, "seed004_2link": seed004_2link,
    "seed004_2link_dh": seed004_2link_dh, "skater": skater,
    "planar_3link": planar_3link, "rpr_arm": rpr_arm, "scara": scara, "branched_tree": branched_tree,
    "ur5": ur5, "seed002_7dof": seed002_7dof,
}
