"""Checks of exercise 03: rigid-body inertia — spatial inertia, parallel axes, kinetic energy, consistency.

[LG, 惯量和力旋量], [LG, 单刚体运动方程] and [WJ §2.1] (the single link's ``I_O``). The student writes
``spatial_inertia``, ``parallel_axis``, ``kinetic_energy`` and ``is_physical``. While grading,
``lessonlib.spatial`` (inertia, inertia_params, transform_inertia, the consistency checks) and the
modules that validate or use inertias for them (model, samples, dynamics, ...) are unavailable;
``so3`` and ``se3`` stay. The independent oracle is a cloud of point masses: its mass, COM,
inertia about any point, momentum and kinetic energy are plain sums (lesson 03, eq. 3.2 and 3.4).

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
============================  ======  =======================================================
"""
from __future__ import annotations

import numpy as np

from lessonlib import se3, so3, spatial
from lessonlib.conventions import ANG, LIN
from .. import display
from ..checker import Exercise
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


# --- (a) the spatial inertia ------------------------------------------------------------------------------

@EXERCISE.check("inertia-spatial", points=1, functions=("spatial_inertia",),
                title="spatial_inertia: the 6x6 inertia about the body origin")
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
                title="spatial_inertia: momentum I V and energy ½ VᵀIV of particle clouds")
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
                title="parallel_axis: I_O = I_c + m(|d|²1 − ddᵀ)")
def check_parallel_axis(ctx, parallel_axis):
    rod_I_c = np.diag([1 / 12, 0.0, 1 / 12])                          # [WJ §2.1]'s link: 1 kg, 1 m rod along y
    call = "parallel_axis(m=1, I_c=diag(1/12, 0, 1/12), d=[0, -0.5, 0]) (the pendulum rod of lesson 03)"
    I_O = ctx.expect_shape("I_O (3, 3)", ctx.call(parallel_axis, 1.0, rod_I_c, np.array([0.0, -0.5, 0.0])), (3, 3),
                           call=call)
    ctx.expect_close("I_O[2, 2] (about the joint axis z: mL²/3)", I_O[2, 2], 1 / 3, call=call)
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
                title="kinetic_energy: ½ Vᵀ I V of particle clouds")
def check_energy(ctx, kinetic_energy):
    for _ in range(4):
        cloud = Cloud(ctx)
        V = ctx.rng.normal(size=6)
        call = f"kinetic_energy(m={cloud.m:.4g}, p_c={display.array(cloud.c)}, I_c, V={display.array(V)}) for a cloud of point masses"
        E = ctx.expect_shape("K (J)", ctx.call(kinetic_energy, cloud.m, cloud.c, cloud.I_c, V), (), call=call)
        ctx.expect_close("K (J) (must be Σ ½ m_k |ṗ_k|²)", E, cloud.energy(V), call=call,
                         hint="K = ½ Vᵀ𝓘_O V, or ½ m|v_c|² + ½ ωᵀI_cω with v_c = v + ω × p_c")


@EXERCISE.check("inertia-energy-frames", points=1, functions=("kinetic_energy",),
                title="kinetic_energy: the same motion seen from two frames has the same energy")
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


def _expect_verdict(ctx, is_physical, label, m, c, I_c, expected):
    call = f"is_physical(m={m:.4g}, p_c={display.array(c)}, I_c) with {label}"
    got = expect_bool(ctx, ctx.call(is_physical, m, c, I_c), call=call)
    if got != expected:
        ctx.fail(f"expected {expected}, got {got}\n  I_c =\n{display.indent(display.array(I_c))}", call=call,
                 hint=HINTS[label.split(":")[0]])


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
                  "tol = 1e-9 * max(1, abs(I_c).max()), as the notebook says — a looser tolerance (np.allclose's, "
                  "1e-6, ...) lets it through"),
}
#: How far past a boundary the "tolerance" cases lie, in units of the notebook's tol (1e-9 here: |I_c| <= 1).
PAST_TOL = 100 * 1e-9


@EXERCISE.check("inertia-physical-mass", points=1, functions=("is_physical",),
                title="is_physical: the mass and the symmetry of I_c")
def check_physical_mass(ctx, is_physical):
    bodies = [random_body(ctx) for _ in range(4)]
    skew = ctx.rng.normal(size=3)
    skew = 0.05 * so3.hat(skew / np.linalg.norm(skew))
    cases = [("valid: a random box", *bodies[0], True),
             ("valid: a point mass (I_c = 0)", bodies[1][0], bodies[1][1], np.zeros((3, 3)), True),
             ("valid: another random box", *bodies[2], True),
             ("mass: m = 0", 0.0, bodies[3][1], bodies[3][2], False),
             ("mass: m < 0", -bodies[3][0], bodies[3][1], bodies[3][2], False),
             ("symmetry: I_c plus a skew part of size 0.05", *bodies[0][:2], bodies[0][2] + skew, False),
             ("tolerance: a unit-sized I_c plus a skew part of 100 tol", bodies[2][0], bodies[2][1],
              _unit_box(ctx) + skew / 0.05 * PAST_TOL, False)]
    for i in ctx.rng.permutation(len(cases)):
        label, m, c, I_c, expected = cases[i]
        assert _reference_physical(m, c, I_c) == expected, f"checker self-test: {label}"
        _expect_verdict(ctx, is_physical, label, m, c, I_c, expected)


@EXERCISE.check("inertia-physical-moments", points=1, functions=("is_physical",),
                title="is_physical: positive semi-definite and the triangle inequalities, in rotated axes")
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
    for i in ctx.rng.permutation(len(cases)):
        label, I_c, expected = cases[i]
        assert _reference_physical(m, c, I_c) == expected, f"checker self-test: {label}"
        _expect_verdict(ctx, is_physical, label, m, c, I_c, expected)


def _reference_physical(m, c, I_c):
    try:
        spatial.check_inertia_params(float(m), np.asarray(c, dtype=float), np.asarray(I_c, dtype=float))
    except ValueError:
        return False
    return True
