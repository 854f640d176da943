"""Checks of exercise 03: rigid-body inertia — spatial inertia, parallel axes, kinetic energy, consistency, CAD.

[LG, 惯量和力旋量], [LG, 单刚体运动方程] and [WJ §2.1] (the single link's ``I_O``); for (e) [LG]'s SolidWorks sign
convention of the products of inertia and [RNE05 §五] (COM inertia vs inertia about the link origin). The student
writes ``spatial_inertia``, ``parallel_axis``, ``kinetic_energy``, ``is_physical``, ``inertia_from_cad`` and
``euler_wrench``. While grading, ``lessonlib.spatial`` (inertia, inertia_params, transform_inertia, the consistency
checks) and the modules that validate or use inertias for them (model, samples, dynamics, ...) are unavailable;
``so3`` and ``se3`` stay. The independent oracle is a cloud of point masses: its mass, COM,
inertia about any point, momentum and kinetic energy are plain sums (lesson 03, eq. 3.2 and 3.4).

Known mistakes (judge side: the reference with one piece replaced): ``𝓘_O`` with its off-diagonal blocks
swapped, with ``I_c`` alone top-left, with ``I_c + m[p_c][p_c]`` (the sign of ``[p_c]ᵀ = −[p_c]``), or ordered
linear part first; the parallel-axis shift with the wrong sign (``+m[d][d]``) or as the scalar ``m|d|²1``; the
kinetic energy without the ½, with ``v`` for ``v_c`` or with ``v + p_c × ω``; ``is_physical`` accepting ``m = 0``
or any mass, not testing symmetry, with a looser tolerance, rejecting the boundary (tolerance on the wrong
side, or ``>``), reading the principal moments off the diagonal, or without the triangle inequality;
``inertia_from_cad`` with the products' sign convention swapped, ignored (SolidWorks' positive products taken as
tensor entries) or applied to the whole matrix, the COM values shifted as if taken at the origin, the origin values
used as the COM inertia, the shift added instead of subtracted, or the shift as the scalar ``m|p_c|²1``;
``euler_wrench`` without the gyroscopic term or with its sign flipped, without the centripetal part of ``a_c``, with
the moment left about the COM, or with Euler's equation written with ``I_O`` about a moving origin. The
oracle of (e) is a cloud of point masses: its report by sums about the COM or the origin, its ``𝓘_O`` column by
column from its momentum; that of (f) the particles' Newton laws summed (lesson 03 §5). The
``is_physical`` checks ask about every body before failing on the first wrong verdict, and their numbers are
all the verdicts: a mistake is recognised by its whole pattern.

============================  ======  =======================================================
check                         points  what it tests
============================  ======  =======================================================
``inertia-spatial``           1       ``spatial_inertia``: eq. (3.3) against the library
``inertia-spatial-momentum``  1       ... momentum ``𝓘 V`` and energy of particle clouds
``inertia-parallel-axis``     1       ``parallel_axis``: eq. (3.5) against particle sums
``inertia-energy``            1       ``kinetic_energy``: ½ Vᵀ 𝓘 V against particle sums
``inertia-energy-frames``     1       ... the same motion seen from two frames: equal energy
``inertia-physical-mass``     1       ``is_physical``: mass and symmetry (valid and invalid)
``inertia-physical-moments``  1       ``is_physical``: PSD and triangle inequalities, rotated
``inertia-cad-products``      1       ``inertia_from_cad``: COM values, both product signs
``inertia-cad-origin``        1       ``inertia_from_cad``: values about the origin, a rod
``inertia-euler-wrench``      1       ``euler_wrench``: Euler's laws against particle sums
============================  ======  =======================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import se3, so3, spatial
from lessonlib.conventions import ANG, LIN
from .. import display
from ..checker import Exercise, Variant
from ._common import expect_bool

EXERCISE = Exercise(
    "inertia03", notebook="03_inertia.ipynb", title="Lesson 03 — rigid-body inertia and kinetic energy",
    blocked=("lessonlib.spatial", "lessonlib.model", "lessonlib.samples", "lessonlib.kinematics", "lessonlib.dynamics",
             "lessonlib.batch", "lessonlib.check", "lessonlib.constraints", "lessonlib.viz", "lessonlib.complexity"),
    copy_targets=("lessonlib.spatial",))


# --- particle clouds: the independent oracle ---------------------------------------------------------

class Cloud:
    """Point masses ``m_k`` at ``r_k`` (body frame): mass, COM, inertias, momentum, energy by sums."""

    def __init__(self, ctx, k=8):
        self.m_k = ctx.rng.uniform(0.2, 1.0, size=k)
        centre = ctx.rng.uniform(-0.3, 0.3, 3)
        self.r_k = centre + ctx.rng.normal(size=(k, 3)) * ctx.rng.uniform(0.03, 0.2, 3)
        self.m = float(self.m_k.sum())
        self.c = self.m_k @ self.r_k / self.m

    def inertia_about(self, o):
        """Rotational inertia about the point ``o``: Σ −m_k [r_k − o]² (eq. 3.2)."""
        return sum(-mk * so3.hat(rk - o) @ so3.hat(rk - o) for mk, rk in zip(self.m_k, self.r_k))

    @property
    def I_c(self):
        return self.inertia_about(self.c)

    def velocities(self, V):
        return V[LIN] + np.cross(V[ANG], self.r_k)

    def momentum(self, V):
        v_k = self.velocities(V)
        return np.r_[sum(np.cross(r, mk * vk) for mk, r, vk in zip(self.m_k, self.r_k, v_k)), self.m_k @ v_k]

    def energy(self, V):
        return 0.5 * float(self.m_k @ (self.velocities(V) ** 2).sum(axis=1))


def random_body(ctx):
    """A random consistent body (m, p_c, I_c) from a box with random axes (not a particle cloud)."""
    m = ctx.rng.uniform(0.5, 5.0)
    a, b, c = ctx.rng.uniform(0.05, 0.6, 3)
    R = so3.exp(ctx.rng.normal(size=3))
    I_c = R @ (m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])) @ R.T
    return m, ctx.rng.uniform(-0.4, 0.4, 3), 0.5 * (I_c + I_c.T)


# --- known mistakes (judge side): the reference with one piece replaced ----------------------------------

def spatial_with(m, p_c, I_c, *, top_right=lambda P: P, shift=lambda P: P @ P.T, linear_first=False):
    """``𝓘_O = [[I_c + m[p_c][p_c]ᵀ, m[p_c]], [m[p_c]ᵀ, m·1]]`` — or a slip: another ``top_right`` block (the
    bottom-left is its transpose), another ``shift`` of ``I_c``, the rows and columns ordered ``linear_first``."""
    P = so3.hat(np.asarray(p_c, dtype=float))
    G = np.zeros((6, 6))
    G[ANG, ANG] = np.asarray(I_c, dtype=float) + m * shift(P)
    G[ANG, LIN] = m * top_right(P)
    G[LIN, ANG] = G[ANG, LIN].T
    G[LIN, LIN] = m * np.eye(3)
    order = np.r_[3:6, 0:3] if linear_first else np.arange(6)
    return G[np.ix_(order, order)]


def parallel_axis_with(m, I_c, d, *, shift=lambda d: d @ d * np.eye(3) - np.outer(d, d)):
    """``I_O = I_c + m(|d|²1 − ddᵀ)`` — or another ``shift``."""
    d = np.asarray(d, dtype=float)
    return np.asarray(I_c, dtype=float) + m * shift(d)


def energy_with(m, p_c, I_c, V, *, half=0.5, lever=np.cross):
    """``K = ½ m|v_c|² + ½ ωᵀI_cω`` with ``v_c = v + ω × p_c`` — or a slip: no ½, another ``lever(ω, p_c)``."""
    V, p_c = np.asarray(V, dtype=float), np.asarray(p_c, dtype=float)
    w, v_c = V[ANG], V[LIN] + lever(V[ANG], p_c)
    return float(half * (m * v_c @ v_c + w @ np.asarray(I_c, dtype=float) @ w))


def physical_with(m, p_c, I_c, *, mass=lambda m: m > 0, symmetry=True, tol=None, moments=np.linalg.eigvalsh,
                  boundary=-1.0, triangle=True):
    """The notebook's test — or a slip: another ``mass`` test, no ``symmetry`` test, a fixed ``tol``, other principal
    ``moments``, ``boundary=+1`` (the tolerance on the wrong side: rods, plates and point masses rejected), no
    ``triangle`` inequality."""
    I_c = np.asarray(I_c, dtype=float)
    tol = 1e-9 * max(1.0, np.abs(I_c).max()) if tol is None else tol
    if not mass(m) or (symmetry and np.abs(I_c - I_c.T).max() > tol):
        return False
    I1, I2, I3 = moments((I_c + I_c.T) / 2)
    return bool(I1 >= boundary * tol and (not triangle or I1 + I2 >= I3 + boundary * tol))


SPATIAL_BLOCKS_SWAPPED = Variant("your off-diagonal blocks seem swapped: m[p_c] is the top-right block and m[p_c]ᵀ "
                                 "the bottom-left (the top rows of 𝓘_O V are L_O, which holds m p_c × v = m[p_c] v)",
                                 spatial_inertia=partial(spatial_with, top_right=lambda P: P.T))
SPATIAL_NO_SHIFT = Variant("your top-left block seems to be I_c alone; I_c is about the COM, and about the origin O "
                           "the block is I_c + m[p_c][p_c]ᵀ", spatial_inertia=partial(spatial_with, shift=lambda P: 0 * P))
SPATIAL_SHIFT_SIGN = Variant("your top-left block seems to be I_c + m[p_c][p_c]; it is I_c + m[p_c][p_c]ᵀ "
                             "= I_c − m[p_c][p_c] (the transpose flips the sign: [p_c]ᵀ = −[p_c])",
                             spatial_inertia=partial(spatial_with, shift=lambda P: P @ P))
SPATIAL_LINEAR_FIRST = Variant("your 𝓘_O seems to be ordered linear part first, [[m·1, m[p_c]ᵀ], [m[p_c], …]]; "
                               "angular part first, the top-left block is I_c + m[p_c][p_c]ᵀ and the bottom-right m·1",
                               spatial_inertia=partial(spatial_with, linear_first=True))
SPATIAL_MISTAKES = (SPATIAL_BLOCKS_SWAPPED, SPATIAL_NO_SHIFT, SPATIAL_SHIFT_SIGN, SPATIAL_LINEAR_FIRST)
PA_SIGN = Variant("your shift seems to have the wrong sign, m(d dᵀ − |d|²1) = m[d][d]; away from the COM the "
                  "inertia only grows: I_O = I_c + m(|d|²1 − d dᵀ) = I_c − m[d][d]",
                  parallel_axis=partial(parallel_axis_with, shift=lambda d: np.outer(d, d) - d @ d * np.eye(3)))
PA_SCALAR = Variant("your shift seems to be m|d|²1, the md² of one axis put on all three; the tensor form also "
                    "subtracts m d dᵀ: I_O = I_c + m(|d|²1 − d dᵀ)",
                    parallel_axis=partial(parallel_axis_with, shift=lambda d: d @ d * np.eye(3)))
ENERGY_NO_HALF = Variant("your K seems to lack the ½: K = ½ Vᵀ𝓘_O V = ½ m|v_c|² + ½ ωᵀI_cω",
                         kinetic_energy=partial(energy_with, half=1.0))
ENERGY_ORIGIN_VELOCITY = Variant("your K seems to use v, the velocity of the body origin O, for the COM's: "
                                 "½ m|v_c|² with v_c = v + ω × p_c",
                                 kinetic_energy=partial(energy_with, lever=lambda w, c: 0 * c))
ENERGY_LEVER_SWAPPED = Variant("your v_c seems to be v + p_c × ω = v − ω × p_c; the COM moves with v_c = v + ω × p_c",
                               kinetic_energy=partial(energy_with, lever=lambda w, c: np.cross(c, w)))
ENERGY_MISTAKES = (ENERGY_NO_HALF, ENERGY_ORIGIN_VELOCITY, ENERGY_LEVER_SWAPPED)
PHYS_MASS_ZERO = Variant("your is_physical seems to accept m = 0 (m >= 0); a body needs m > 0",
                         is_physical=partial(physical_with, mass=lambda m: m >= 0))
PHYS_NO_MASS = Variant("your is_physical seems not to test the mass: m ≤ 0 must give False (m > 0)",
                       is_physical=partial(physical_with, mass=lambda m: True))
PHYS_NO_SYMMETRY = Variant("your is_physical seems not to test that I_c is symmetric: the eigenvalues do not show "
                           "a skew part (eigvalsh reads one triangle only), so test |I_c − I_cᵀ| ≤ tol first",
                           is_physical=partial(physical_with, symmetry=False))
PHYS_LOOSE_TOL = Variant("your tolerance seems looser than the notebook's tol = 1e-9 · max(1, |I_c|max) (a fixed 1e-6, "
                         "...): a body that misses a condition by 100 tol gets through",
                         is_physical=partial(physical_with, tol=1e-6))
PHYS_BOUNDARY = Variant("your is_physical seems to reject bodies on the boundary — a point mass or a thin rod (a zero "
                        "moment), a flat plate (I1 + I2 = I3) — which are valid: let the tolerance in, I1 >= -tol and "
                        "I1 + I2 >= I3 - tol (not > 0, not >= tol)", is_physical=partial(physical_with, boundary=+1.0))
PHYS_DIAGONAL = Variant("your principal moments seem to be the diagonal entries of I_c; in rotated axes they are its "
                        "eigenvalues, np.linalg.eigvalsh(I_c)",
                        is_physical=partial(physical_with, moments=lambda I: np.sort(np.diag(I))))
PHYS_NO_TRIANGLE = Variant("your is_physical seems to skip the triangle inequality I1 + I2 >= I3 - tol (eq. 3.7): "
                           "moments that are all ≥ 0 are not enough", is_physical=partial(physical_with, triangle=False))


# --- (a) the spatial inertia ------------------------------------------------------------------------------

@EXERCISE.check("inertia-spatial", points=1, functions=("spatial_inertia",),
                title="spatial_inertia: the 6x6 inertia about the body origin", variants=SPATIAL_MISTAKES)
def check_spatial(ctx, spatial_inertia):
    cases = [(2.0, np.array([0.0, 0.0, 0.5]), np.diag([0.1, 0.1, 0.02]))] + [random_body(ctx) for _ in range(3)]
    for m, c, I_c in cases:
        G = ctx.expect_shape("𝓘_O (6, 6)", ctx.call(spatial_inertia, m, c, I_c), (6, 6))
        ctx.expect_close("𝓘_O - 𝓘_O.T (must be symmetric)", G - G.T, np.zeros((6, 6)))
        ctx.expect_close("𝓘_O[3:, 3:] (the linear block)", G[LIN, LIN], m * np.eye(3),
                         hint="angular-first: the bottom-right block is m·1")
        ctx.expect_close("𝓘_O", G, spatial.inertia(m, c, I_c),
                         hint="𝓘_O = [[I_c + m[p_c][p_c]ᵀ, m[p_c]], [m[p_c]ᵀ, m·1]] with [p_c] = so3.hat(p_c)")


@EXERCISE.check("inertia-spatial-momentum", points=1, functions=("spatial_inertia",),
                title="spatial_inertia: momentum I V and energy ½ VᵀIV of particle clouds", variants=SPATIAL_MISTAKES)
def check_spatial_momentum(ctx, spatial_inertia):
    for _ in range(3):
        cloud = Cloud(ctx)
        call = f"spatial_inertia(m, p_c, I_c) of a cloud of {len(cloud.m_k)} point masses (m = {cloud.m:.4g} kg)"
        G = ctx.expect_shape("𝓘_O (6, 6)", ctx.call(spatial_inertia, cloud.m, cloud.c, cloud.I_c), (6, 6), call=call)
        V = ctx.rng.normal(size=6)
        ctx.expect_close(f"𝓘_O @ V for V = {display.array(V)} (must be the momentum Σ [p × m ṗ; m ṗ])", G @ V, cloud.momentum(V),
                         call=call, hint="the top-right block m[p_c] turns the origin's velocity into angular momentum")
        ctx.expect_close("½ Vᵀ 𝓘_O V (must be Σ ½ m |ṗ|²)", 0.5 * V @ G @ V, cloud.energy(V), call=call)


# --- (b) parallel axes ---------------------------------------------------------------------------------------

@EXERCISE.check("inertia-parallel-axis", points=1, functions=("parallel_axis",),
                title="parallel_axis: I_O = I_c + m(|d|²1 − ddᵀ)", variants=(PA_SIGN, PA_SCALAR))
def check_parallel_axis(ctx, parallel_axis):
    rod_I_c = np.diag([1 / 12, 0.0, 1 / 12])                          # [WJ §2.1]'s link: 1 kg, 1 m rod along y
    call = "parallel_axis(m=1, I_c=diag(1/12, 0, 1/12), d=[0, -0.5, 0]) (the pendulum rod of lesson 03)"
    I_O = ctx.expect_shape("I_O (3, 3)", ctx.call(parallel_axis, 1.0, rod_I_c, np.array([0.0, -0.5, 0.0])), (3, 3),
                           call=call)
    ctx.expect_close("I_O[2, 2] (about the joint axis z: mL²/3)", I_O[2, 2], 1 / 3, call=call,
                     hint="I_O = I_c + m (|d|² 1 − d dᵀ): here 1/12 + 1 · (0.5² − 0) = 1/3 about z")
    for _ in range(3):
        cloud = Cloud(ctx)
        o = ctx.rng.uniform(-0.5, 0.5, 3)
        d = cloud.c - o
        call = f"parallel_axis(m={cloud.m:.4g}, I_c, d={display.array(d)}) for a cloud of point masses, d = p_c − p_O"
        got = ctx.expect_shape("I_O (3, 3)", ctx.call(parallel_axis, cloud.m, cloud.I_c, d), (3, 3), call=call)
        ctx.expect_close("I_O (must be the particle sum about O)", got, cloud.inertia_about(o), call=call,
                         hint="I_O = I_c + m (d·d 1 − d dᵀ): np.dot(d, d) * np.eye(3) - np.outer(d, d)")


# --- (c) kinetic energy ----------------------------------------------------------------------------------

@EXERCISE.check("inertia-energy", points=1, functions=("kinetic_energy",),
                title="kinetic_energy: ½ Vᵀ I V of particle clouds", variants=ENERGY_MISTAKES)
def check_energy(ctx, kinetic_energy):
    for _ in range(4):
        cloud = Cloud(ctx)
        V = ctx.rng.normal(size=6)
        call = f"kinetic_energy(m={cloud.m:.4g}, p_c={display.array(cloud.c)}, I_c, V={display.array(V)}) for a cloud of point masses"
        E = ctx.expect_shape("K (J)", ctx.call(kinetic_energy, cloud.m, cloud.c, cloud.I_c, V), (), call=call)
        ctx.expect_close("K (J) (must be Σ ½ m_k |ṗ_k|²)", E, cloud.energy(V), call=call,
                         hint="K = ½ Vᵀ𝓘_O V, or ½ m|v_c|² + ½ ωᵀI_cω with v_c = v + ω × p_c")


@EXERCISE.check("inertia-energy-frames", points=1, functions=("kinetic_energy",),
                title="kinetic_energy: the same motion seen from two frames has the same energy",
                variants=ENERGY_MISTAKES)
def check_energy_frames(ctx, kinetic_energy):
    for _ in range(3):
        m, c, I_c = random_body(ctx)
        V_a = ctx.rng.normal(size=6)
        T_ab = se3.exp(ctx.rng.normal(size=6))
        G_b = spatial.transform_inertia(se3.Ad(T_ab), spatial.inertia(m, c, I_c))       # eq. (3.6)
        m_b, c_b, I_b = spatial.inertia_params(G_b)
        V_b = se3.Ad(se3.inv(T_ab)) @ V_a
        expected = 0.5 * V_a @ spatial.inertia(m, c, I_c) @ V_a
        for frame, args in (("a", (m, c, I_c, V_a)), ("b", (m_b, c_b, I_b, V_b))):
            call = f"kinetic_energy(m, p_c_{frame}, I_c_{frame}, V_{frame}): a random body described in frame {{{frame}}}"
            E = ctx.expect_shape("K (J)", ctx.call(kinetic_energy, *args), (), call=call)
            ctx.expect_close("K (J)", E, expected, call=call,
                             hint="p_c and V are both in the frame given; the energy must not depend on that frame")


# --- (d) physical consistency ---------------------------------------------------------------------------

def _rotated(ctx, moments):
    R = so3.exp(ctx.rng.normal(size=3))
    I = R @ np.diag(moments) @ R.T
    return 0.5 * (I + I.T)


def _expect_verdicts(ctx, is_physical, cases):
    """Ask ``is_physical`` about every case ``(label, m, p_c, I_c, expected)``, then fail on a wrong verdict.

    The failure shows the wrong case whose kind comes first in ``SHOWN_FIRST`` (its hint is about the root of the
    mistake, not about a tolerance case it also gets wrong) and lists the others. Its numbers are all the
    verdicts, so a known mistake is recognised by its whole pattern (accepting m = 0 and accepting any mass
    differ on m < 0 even when m = 0 was asked first).
    """
    calls = [f"is_physical(m={m:.4g}, p_c={display.array(c)}, I_c) with {label}" for label, m, c, _, _ in cases]
    got = [expect_bool(ctx, ctx.call(is_physical, m, c, I_c), call=call) for (_, m, c, I_c, _), call in zip(cases, calls)]
    wrong = [i for i, case in enumerate(cases) if got[i] != case[-1]]
    if wrong:
        shown = min(wrong, key=lambda i: SHOWN_FIRST.index(_kind(cases[i][0])))
        label, _, _, I_c, expected = cases[shown]
        also = "".join(f"\n  also wrong: {cases[i][0]} (expected {cases[i][-1]})" for i in wrong if i != shown)
        ctx.fail(f"expected {expected}, got {got[shown]}\n  I_c =\n{display.indent(display.array(I_c))}{also}",
                 call=calls[shown], hint=HINTS[_kind(label)], got=np.array(got, dtype=float))


def _kind(label):
    return label.split(":")[0]


def _unit_box(ctx):
    """A rotated rotational inertia with entries of at most 1 (so the notebook's tol is exactly 1e-9)."""
    a, b = ctx.rng.uniform(0.2, 0.5, 2)
    return _rotated(ctx, [a, b, 0.5 * (a + b)])


HINTS = {
    "valid": "a consistent body: m > 0, I_c symmetric, eigenvalues ≥ 0 and I1 + I2 ≥ I3 (all up to the tolerance)",
    "mass": "the mass must be > 0",
    "symmetry": "I_c must be symmetric: |I_c − I_cᵀ| ≤ tol",
    "boundary": "thin rods (one zero moment) and flat plates (I1 + I2 = I3) are valid: compare with a tolerance",
    "moments": ("test the principal moments, the eigenvalues of I_c (np.linalg.eigvalsh) — in rotated axes they are "
                "not the diagonal entries: I1 >= -tol and I1 + I2 >= I3 - tol"),
    "tolerance": ("this body misses one condition (symmetry, I1 >= 0 or I1 + I2 >= I3) by about 100 tol: test the "
                  "principal moments (np.linalg.eigvalsh, not the diagonal: the axes are rotated) and the symmetry with "
                  "tol = 1e-9 * max(1, abs(I_c).max()), as the notebook says — a looser tolerance (a fixed "
                  "1e-6, ...) lets it through"),
}
#: Which wrong verdict a failure shows first: a looser tolerance is the last suspect (a body that misses a
#: condition by 100 tol also fools an answer that does not test that condition at all).
SHOWN_FIRST = ("mass", "symmetry", "moments", "boundary", "valid", "tolerance")
#: How far past a boundary the "tolerance" cases lie, in units of the notebook's tol (1e-9 here: |I_c| <= 1).
PAST_TOL = 100 * 1e-9


@EXERCISE.check("inertia-physical-mass", points=1, functions=("is_physical",),
                title="is_physical: the mass and the symmetry of I_c",
                variants=(PHYS_MASS_ZERO, PHYS_NO_MASS, PHYS_NO_SYMMETRY, PHYS_LOOSE_TOL, PHYS_BOUNDARY))
def check_physical_mass(ctx, is_physical):
    bodies = [random_body(ctx) for _ in range(4)]
    skew = ctx.rng.normal(size=3)
    skew = so3.hat(skew / np.linalg.norm(skew))
    I1, I2, I3 = np.linalg.eigvalsh(bodies[0][2])
    small = 0.1 * min(I1, I1 + I2 - I3)        # ≫ tol, yet every symmetric part of I_c + small · skew is still physical
    cases = [("valid: a random box", *bodies[0], True),
             ("valid: a point mass (I_c = 0)", bodies[1][0], bodies[1][1], np.zeros((3, 3)), True),
             ("valid: another random box", *bodies[2], True),
             ("mass: m = 0", 0.0, bodies[3][1], bodies[3][2], False),
             ("mass: m < 0", -bodies[3][0], bodies[3][1], bodies[3][2], False),
             (f"symmetry: I_c plus a skew part of size {small:.2g}", *bodies[0][:2], bodies[0][2] + small * skew, False),
             ("tolerance: a unit-sized I_c plus a skew part of 100 tol", bodies[2][0], bodies[2][1],
              _unit_box(ctx) + skew * PAST_TOL, False)]
    cases = [cases[i] for i in ctx.rng.permutation(len(cases))]
    for label, m, c, I_c, expected in cases:
        assert _reference_physical(m, c, I_c) == expected, f"checker self-test: {label}"
    _expect_verdicts(ctx, is_physical, cases)


@EXERCISE.check("inertia-physical-moments", points=1, functions=("is_physical",),
                title="is_physical: positive semi-definite and the triangle inequalities, in rotated axes",
                variants=(PHYS_BOUNDARY, PHYS_LOOSE_TOL, PHYS_DIAGONAL, PHYS_NO_TRIANGLE))
def check_physical_moments(ctx, is_physical):
    m, c = ctx.rng.uniform(0.5, 5.0), ctx.rng.uniform(-0.3, 0.3, 3)
    a, b = ctx.rng.uniform(0.1, 1.0, 2)
    cases = [("boundary: a thin rod (one zero moment), rotated", _rotated(ctx, [0.0, a, a]), True),
             ("boundary: a flat plate (I1 + I2 = I3), rotated", _rotated(ctx, [a, b, a + b]), True),
             ("valid: a random box, rotated", random_body(ctx)[2], True),
             ("moments: one negative moment, rotated", _rotated(ctx, [-0.1 * a, a, a]), False),
             ("moments: I1 + I2 < I3, rotated", _rotated(ctx, np.array([1.0, 1.0, 3.0]) * a), False),
             ("moments: positive diagonal but a negative eigenvalue", np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0],
                                                                             [0.0, 0.0, 1.0]]) * a, False),
             ("tolerance: a flat plate short of I1 + I2 = I3 by about 100 tol, rotated", _rotated(ctx, [a, b, a + b + PAST_TOL]),
              False),
             ("tolerance: a thin rod whose zero moment is -100 tol, rotated", _rotated(ctx, [-PAST_TOL, a, a]), False)]
    cases = [(label, m, c, I_c, expected) for label, I_c, expected in (cases[i] for i in ctx.rng.permutation(len(cases)))]
    for label, m, c, I_c, expected in cases:
        assert _reference_physical(m, c, I_c) == expected, f"checker self-test: {label}"
    _expect_verdicts(ctx, is_physical, cases)


def _reference_physical(m, c, I_c):
    try:
        spatial.check_inertia_params(float(m), np.asarray(c, dtype=float), np.asarray(I_c, dtype=float))
    except ValueError:
        return False
    return True


# --- (e) inertias from CAD ----------------------------------------------------------------------------------

def _flip_products(J):
    """The nine values with the off-diagonal signs flipped: SolidWorks' +∫xy dm <-> the tensor's −∫xy dm."""
    J = np.asarray(J, dtype=float)
    return 2.0 * np.diag(np.diag(J)) - J


def _steiner(m, c):
    """The parallel-axis shift m(|c|²1 − c cᵀ) (eq. 3.5 with d = p_c)."""
    c = np.asarray(c, dtype=float)
    return m * (c @ c * np.eye(3) - np.outer(c, c))


def cad_with(mass, com, tensor, *, about, products, flip_when="positive", flip=_flip_products,
             shift_when="origin", shift=lambda m, c: -_steiner(m, c)):
    """``𝓘_O`` from a CAD report — or a slip: the products flipped for another ``flip_when`` (None: never) or by another
    ``flip``, the shift applied for another ``shift_when`` (None: never) or another ``shift`` (added, scalar).
    No consistency check: a slip may give an impossible body, and the student's answer returns it all the same."""
    I = flip(tensor) if products == flip_when else np.asarray(tensor, dtype=float)
    I_c = I + shift(mass, com) if about == shift_when else I
    return spatial_with(float(mass), com, I_c)


CAD_PRODUCTS_SWAPPED = Variant("your products seem to be negated for products='tensor' and kept for products='positive': "
                               "it is the other way round — tensor entries are −∫xy dm already, SolidWorks' positive "
                               "products +∫xy dm need the sign flip", inertia_from_cad=partial(cad_with, flip_when="tensor"))
CAD_PRODUCTS_IGNORED = Variant("your products seem to keep their sign for products='positive': SolidWorks prints +∫xy dm "
                               "and the tensor entry is −∫xy dm, so negate the off-diagonal values (not the diagonal)",
                               inertia_from_cad=partial(cad_with, flip_when=None))
CAD_PRODUCTS_ALL_NEGATED = Variant("your answer seems to negate the whole matrix for products='positive'; only the "
                                   "products (off-diagonal values) change sign — the moments on the diagonal are "
                                   "∫(y² + z²) dm in both conventions",
                                   inertia_from_cad=partial(cad_with, flip=lambda J: -np.asarray(J, dtype=float)))
CAD_COM_AS_ORIGIN = Variant("your answer seems to take the shift m(|p_c|²1 − p_c p_cᵀ) off the values taken at the COM: "
                            "those are I_c already (about='com'); only values taken at the origin (about='origin') lose "
                            "the shift", inertia_from_cad=partial(cad_with, shift_when="com"))
CAD_ORIGIN_AS_COM = Variant("your answer seems to use the values taken at the origin as I_c (ignoring about='origin'): "
                            "I_c = I_O − m(|p_c|²1 − p_c p_cᵀ), the parallel-axis theorem (3.5) backwards",
                            inertia_from_cad=partial(cad_with, shift_when=None))
CAD_SHIFT_ADDED = Variant("your answer seems to add the parallel-axis shift to the values taken at the origin; they "
                          "have it already: I_c = I_O − m(|p_c|²1 − p_c p_cᵀ) (subtract it)",
                          inertia_from_cad=partial(cad_with, shift=_steiner))
CAD_SHIFT_SCALAR = Variant("your shift seems to be m|p_c|²1 alone; the tensor form also has − m p_c p_cᵀ: "
                           "I_c = I_O − m(|p_c|²1 − p_c p_cᵀ)",
                           inertia_from_cad=partial(cad_with, shift=lambda m, c: -m * (np.asarray(c) @ c) * np.eye(3)))
CAD_PRODUCT_MISTAKES = (CAD_PRODUCTS_SWAPPED, CAD_PRODUCTS_IGNORED, CAD_PRODUCTS_ALL_NEGATED)


class Report:
    """A cloud's CAD report in one convention, by sums: the values ``Σ m_k(|r|²1 − r rᵀ)`` about the COM or the
    origin (off-diagonals ``−Σ m x y``), with the off-diagonal signs flipped for ``products="positive"``; and the
    cloud's own 𝓘_O, column by column from its momentum ``Σ [r × m ṙ; m ṙ]`` (no formula for 𝓘 involved)."""

    def __init__(self, cloud, about, products):
        self.cloud, self.about, self.products = cloud, about, products
        tensor = cloud.inertia_about(cloud.c if about == "com" else np.zeros(3))
        self.values = _flip_products(tensor) if products == "positive" else tensor

    def call(self, fn, ctx):
        return ctx.call(fn, self.cloud.m, self.cloud.c, self.values, about=self.about, products=self.products)

    @property
    def label(self):
        return (f"inertia_from_cad(m={self.cloud.m:.4g}, com={display.array(self.cloud.c)}, tensor, about={self.about!r}, "
                f"products={self.products!r}) for a cloud of {len(self.cloud.m_k)} point masses")

    @property
    def expected(self):
        return np.column_stack([self.cloud.momentum(e) for e in np.eye(6)])


CAD_HINT = ("flip the off-diagonal signs if products='positive' (SolidWorks' +∫xy dm); then I_c = the values "
            "(about='com') or the values − m(|p_c|²1 − p_c p_cᵀ) (about='origin'); then 𝓘_O = spatial_inertia(m, p_c, I_c)")


def _expect_report(ctx, inertia_from_cad, report, hint=CAD_HINT):
    G = ctx.expect_shape("𝓘_O (6, 6)", report.call(inertia_from_cad, ctx), (6, 6), call=report.label)
    ctx.expect_close("𝓘_O (must be the cloud's: its momentum Σ [r × m ṙ; m ṙ] for each unit twist)", G,
                     report.expected, call=report.label, hint=hint)


@EXERCISE.check("inertia-cad-products", points=1, functions=("inertia_from_cad",),
                title="inertia_from_cad: values at the COM, products as tensor entries or SolidWorks' positive ones",
                variants=CAD_PRODUCT_MISTAKES + (CAD_COM_AS_ORIGIN,))
def check_cad_products(ctx, inertia_from_cad):
    for cloud, products in ((Cloud(ctx), "tensor"), (Cloud(ctx), "positive"), (Cloud(ctx), "positive")):
        _expect_report(ctx, inertia_from_cad, Report(cloud, "com", products))


@EXERCISE.check("inertia-cad-origin", points=1, functions=("inertia_from_cad",),
                title="inertia_from_cad: values taken at the body origin (parallel axes backwards)",
                variants=(CAD_ORIGIN_AS_COM, CAD_SHIFT_ADDED, CAD_SHIFT_SCALAR) + CAD_PRODUCT_MISTAKES)
def check_cad_origin(ctx, inertia_from_cad):
    rod = "inertia_from_cad(1, com=[0.5, 0, 0], tensor=diag(0, 1/3, 1/3), about='origin', products='tensor'): " \
          "a 1 kg, 1 m rod along x, reported at its end"
    G = ctx.expect_shape("𝓘_O (6, 6)", ctx.call(inertia_from_cad, 1.0, np.array([0.5, 0.0, 0.0]),
                                                np.diag([0.0, 1 / 3, 1 / 3]), about="origin", products="tensor"),
                         (6, 6), call=rod)
    ctx.expect_close("𝓘_O[:3, :3] (about the rod's end: diag(0, 1/3, 1/3) again)", G[ANG, ANG],
                     np.diag([0.0, 1 / 3, 1 / 3]), call=rod,
                     hint="I_c = diag(0, 1/3, 1/3) − 1 · (0.5² 1 − [0.5, 0, 0][0.5, 0, 0]ᵀ) = diag(0, 1/12, 1/12), and "
                          "spatial_inertia adds the shift back: about the origin you get the values you were given")
    for products in ("tensor", "positive", "tensor"):
        _expect_report(ctx, inertia_from_cad, Report(Cloud(ctx), "origin", products))


# --- (f) Euler's laws: the wrench a body needs ----------------------------------------------------------------

def euler_wrench_with(m, p_c, I_c, w, w_dot, a_O, *, gyro=1.0, centripetal=True, about_origin=True,
                      origin_inertia=False):
    """``[μ_O; f]`` from Euler's laws: ``f = m a_c``, ``μ_O = I_c ω̇ + ω × I_c ω + p_c × f`` — or a slip: ``gyro`` the
    factor of ``ω × I_c ω`` (0: left out, −1: wrong sign), no ``centripetal`` ``ω × (ω × p_c)`` in ``a_c``, the moment
    left about the COM (not ``about_origin``), or Euler's equation written with ``origin_inertia`` ``I_O`` about ``O``."""
    p_c, I_c, w, w_dot, a_O = (np.asarray(x, dtype=float) for x in (p_c, I_c, w, w_dot, a_O))
    a_c = a_O + np.cross(w_dot, p_c) + (np.cross(w, np.cross(w, p_c)) if centripetal else 0.0)
    f = m * a_c
    if origin_inertia:
        I_O = I_c - m * so3.hat(p_c) @ so3.hat(p_c)
        return np.r_[I_O @ w_dot + np.cross(w, I_O @ w), f]
    mu = I_c @ w_dot + gyro * np.cross(w, I_c @ w) + (np.cross(p_c, f) if about_origin else 0.0)
    return np.r_[mu, f]


EULER_GYRO_MISSING = Variant("your moment seems to lack the gyroscopic term ω × I_c ω: Euler's equation about the COM is "
                             "μ_c = I_c ω̇ + ω × I_c ω (the angular momentum I_c ω turns with the body)",
                             euler_wrench=partial(euler_wrench_with, gyro=0.0))
EULER_GYRO_SIGN = Variant("your gyroscopic term seems to have the wrong sign: μ_c = I_c ω̇ + ω × I_c ω (d/dt of R I_c Rᵀ ω "
                          "gives + [ω] I_c ω), not I_c ω̇ − ω × I_c ω = I_c ω̇ + (I_c ω) × ω",
                          euler_wrench=partial(euler_wrench_with, gyro=-1.0))
EULER_NO_CENTRIPETAL = Variant("your COM acceleration seems to lack the centripetal part: a_c = a_O + ω̇ × p_c + "
                               "ω × (ω × p_c)", euler_wrench=partial(euler_wrench_with, centripetal=False))
EULER_ABOUT_COM = Variant("your moment seems to be the one about the COM: about the body origin O add the moment of the "
                          "force, μ_O = μ_c + p_c × f", euler_wrench=partial(euler_wrench_with, about_origin=False))
EULER_ORIGIN_INERTIA = Variant("your moment seems to be I_O ω̇ + ω × I_O ω, Euler's equation with the inertia about O: that "
                               "holds only about the COM or about a point that does not accelerate (a_O = 0); in general "
                               "μ_O = I_c ω̇ + ω × I_c ω + p_c × m a_c",
                               euler_wrench=partial(euler_wrench_with, origin_inertia=True))


@EXERCISE.check("inertia-euler-wrench", points=1, functions=("euler_wrench",),
                title="euler_wrench: Euler's laws against the particles' Newton laws summed",
                variants=(EULER_GYRO_MISSING, EULER_GYRO_SIGN, EULER_NO_CENTRIPETAL, EULER_ABOUT_COM,
                          EULER_ORIGIN_INERTIA))
def check_euler_wrench(ctx, euler_wrench):
    """Cases in an order that separates the mistakes: a cloud centred on O (the gyroscopic term alone can be wrong),
    one turning about a fixed pivot O (a_O = 0: Euler's equation with I_O holds there), then general motions."""
    cases = []
    for kind in ("centred on O", "about a fixed pivot O (a_O = 0)", "moving", "moving"):
        cloud = Cloud(ctx)
        if kind == "centred on O":
            cloud.r_k = cloud.r_k - cloud.c
            cloud.c = np.zeros(3)
        w, w_dot = ctx.rng.normal(size=3) * 2.0, ctx.rng.normal(size=3) * 2.0
        a_O = np.zeros(3) if kind.startswith("about") else ctx.rng.normal(size=3) * 3.0
        cases.append((kind, cloud, w, w_dot, a_O))
    for kind, cloud, w, w_dot, a_O in cases:
        a_k = a_O + np.cross(w_dot, cloud.r_k) + np.cross(w, np.cross(w, cloud.r_k))   # each particle's true acceleration
        m_a = cloud.m_k[:, None] * a_k                                                  # = the net force on it
        expected = np.r_[np.cross(cloud.r_k, m_a).sum(axis=0), m_a.sum(axis=0)]
        call = (f"euler_wrench(m={cloud.m:.4g}, p_c={display.array(cloud.c)}, I_c, w={display.array(w)}, "
                f"w_dot={display.array(w_dot)}, a_O={display.array(a_O)}): a cloud of {len(cloud.m_k)} point masses "
                f"{kind}")
        got = ctx.expect_shape("[μ_O; f] (6,)", ctx.call(euler_wrench, cloud.m, cloud.c, cloud.I_c, w, w_dot, a_O),
                               (6,), call=call)
        ctx.expect_close("[μ_O; f] (must be Σ [p_k × m_k a_k; m_k a_k] over the particles)", got, expected, call=call,
                         hint="f = m a_c with a_c = a_O + ω̇ × p_c + ω × (ω × p_c); μ_O = I_c ω̇ + ω × I_c ω + p_c × f")
