"""Checks of exercise 08: the mass matrix and forward dynamics (seed 000 §2.3, seed 004 §4.2).

The student builds ``M(q)`` twice — from ``n`` inverse-dynamics calls (seed 000's table: column ``j`` is
``ID(q, 0, e_j)`` with gravity off) and by the composite-rigid-body algorithm — solves ``M x = b`` with
a Cholesky factor, assembles the forward dynamics, and gets ``Jᵀ F`` from one more ID call.

The checker cannot hand a Python callable to the student's function (only plain data and Models
cross to the kernel), so the student's ``mass_matrix_from_id`` receives the Model and calls the
library's ``rnea``, which stays available; everything that would give ``M``, ``q̈`` or ``Jᵀ F``
directly (``crba``, ``aba``, ``terms``' mass matrix, forward dynamics and ``jacobian_transpose_force``,
the DeNOC matrices, the Lagrange derivation, ``kinetic_energy``, ``kinematics.jacobian``, ``batch``)
is blocked while grading.

Each check compares with the library (``crba``, ``aba``) and with identities that use neither: seed
004's closed-form two-link ``M(q)``, the kinetic energy ``½ Σ v_iᵀ I_i v_i`` from the body twists, the
round trip ``ID(FD(τ)) = τ``, the body Jacobian, and the power ``τᵀ q̇ = Fᵀ v``.

=========================  ======  ==========================================================
check                      points  what it tests
=========================  ======  ==========================================================
``mass-id-columns``        1       ``mass_matrix_from_id``: seed 004's closed form, random chains
``mass-id-trees``          1       ``mass_matrix_from_id`` on trees; ``½ q̇ᵀ M q̇`` = kinetic energy
``mass-crba-chain``        1       ``crba`` on chains (seed 004's arm, random chains with prismatic joints)
``mass-crba-tree``         1       ``crba`` on trees (``branched_tree``, random trees)
``mass-crba-energy``       1       ``crba`` on the UR5 and seed 002's arm: energy, symmetry, ``q_1``
``mass-cholesky``          1       ``cholesky_solve``: ``M x = b`` for mass matrices
``mass-cholesky-stable``   1       ``cholesky_solve`` is backward stable on an ill-conditioned ``M``
``mass-fd``                1       ``forward_dynamics`` = ABA on chains (seed 004's arm, random chains)
``mass-fd-roundtrip``      1       ``forward_dynamics`` on trees, gravity and ``f_ext``: ``ID(FD(τ)) = τ``
``mass-jtf``               1       ``tip_wrench_torques``: ``J_bᵀ F`` and the power ``τᵀ q̇ = Fᵀ v``
=========================  ======  ==========================================================
"""
from __future__ import annotations

import numpy as np

from ... import samples
from ...dynamics import aba, crba, rnea
from ...dynamics.energy import kinetic_energy
from ...kinematics import body_twists, jacobian
from ..checker import Exercise
from ._common import random_gravity, random_model, random_state

EXERCISE = Exercise(
    "mass_matrix08", notebook="08_mass_matrix_forward_dynamics.ipynb",
    title="Lesson 08 — the mass matrix and forward dynamics",
    blocked=("lessonlib.batch", "lessonlib.check", "lessonlib.constraints",
             "lessonlib.dynamics.crba:crba", "lessonlib.dynamics.aba:aba",
             "lessonlib.dynamics.terms:mass_matrix", "lessonlib.dynamics.terms:mass_matrix_via_rnea",
             "lessonlib.dynamics.terms:forward_dynamics", "lessonlib.dynamics.terms:jacobian_transpose_force",
             "lessonlib.dynamics.denoc:denoc_matrices", "lessonlib.dynamics.denoc:generalized_inertia",
             "lessonlib.dynamics.denoc:convective_inertia", "lessonlib.dynamics.lagrange:_derive",
             "lessonlib.dynamics.energy:kinetic_energy", "lessonlib.kinematics:jacobian"),
    copy_targets=("lessonlib.dynamics.crba", "lessonlib.dynamics.terms", "lessonlib.dynamics.aba", "lessonlib.batch"))

#: A backward-stable solve of ``M x = b`` leaves a relative residual ``‖M x − b‖ / (‖M‖ ‖x‖)`` of a few
#: machine epsilons; ``inv(M) @ b`` leaves about ``cond(M)·eps`` (measured: ≥ 7e-10 at cond 1e12, n ≤ 8).
BACKWARD_RTOL = 1e-12
#: Condition number of the matrices of ``mass-cholesky-stable``.
ILL_CONDITION = 1e12


# --- reference quantities (judge side; never sent to the kernel) ------------------------------

def seed004_mass_matrix(q2, l1=0.5, l2=0.5, m1=5.0, m2=5.0):
    """Seed 004 §4.2's closed-form ``M(q)`` of its planar arm (uniform links, COM at mid-link)."""
    I1, I2 = m1 * l1**2 / 12, m2 * l2**2 / 12
    c = np.cos(q2)
    m11 = m1 * l1**2 / 4 + m2 * (l1**2 + l2**2 / 4 + l1 * l2 * c) + I1 + I2
    m12 = m2 * (l2**2 / 4 + l1 * l2 * c / 2) + I2
    return np.array([[m11, m12], [m12, m2 * l2**2 / 4 + I2]])




def ill_conditioned_spd(ctx, n, cond):
    """A random symmetric positive definite matrix with eigenvalues from 1 to ``cond`` (log-spaced)."""
    Q, _ = np.linalg.qr(ctx.rng.normal(size=(n, n)))
    d = np.logspace(0.0, np.log10(cond), n)
    ctx.rng.shuffle(d)
    M = Q @ np.diag(d) @ Q.T
    return 0.5 * (M + M.T)


def relative_residual(M, x, b, x_true):
    """``‖M x − b‖ / (‖M‖ ‖x_true‖)`` (the true solution's norm: a zero ``x`` cannot divide by zero)."""
    return float(np.linalg.norm(M @ x - b) / (np.linalg.norm(M, 2) * np.linalg.norm(x_true)))


def _expect_energy(ctx, M, model, q, call):
    qd = ctx.rng.normal(size=model.n)
    ctx.expect_close("kinetic energy 1/2 qd^T M qd", 0.5 * qd @ M @ qd, kinetic_energy(model, q, qd),
                     call=call + " with a random qd", hint="1/2 qd^T M qd must be the kinetic energy of the bodies")


# --- (a) M from inverse-dynamics columns -----------------------------------------------------------

_GRAVITY_HINT = ("column j is ID(q, qd=0, qdd=e_j) with gravity switched off (gravity=(0, 0, 0)); with "
                 "gravity on every column is shifted by g(q)")


@EXERCISE.check("mass-id-columns", points=1, functions=("mass_matrix_from_id",),
                title="M(q) from n inverse-dynamics calls (seed 000's table)")
def id_columns(ctx, mass_matrix_from_id):
    arm = samples.seed004_2link()
    for q in ([0.7, 0.0], [ctx.rng.uniform(-np.pi, np.pi), ctx.rng.uniform(-np.pi, np.pi)]):
        q = np.asarray(q)
        assert np.allclose(crba(arm, q), seed004_mass_matrix(q[1]), atol=1e-12), "checker self-test: seed 004"
        ctx.expect_close("M (2, 2)", ctx.call(mass_matrix_from_id, arm, q), seed004_mass_matrix(q[1]),
                         call=f"mass_matrix_from_id(seed004_2link, q={np.round(q, 4).tolist()})", hint=_GRAVITY_HINT)
    for _ in range(2):
        model = random_model(ctx, tree=False)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        ctx.expect_close(f"M ({model.n}, {model.n})", ctx.call(mass_matrix_from_id, model, q), crba(model, q),
                         call=f"mass_matrix_from_id(model, q) on a random {model.n}-link chain", hint=_GRAVITY_HINT)


@EXERCISE.check("mass-id-trees", points=1, functions=("mass_matrix_from_id",),
                title="M(q) from ID columns on trees, and the kinetic energy")
def id_trees(ctx, mass_matrix_from_id):
    for _ in range(3):
        model = random_model(ctx, tree=True, n_min=3)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        call = f"mass_matrix_from_id(model, q) on a random {model.n}-body tree"
        M = ctx.call(mass_matrix_from_id, model, q)
        ctx.expect_close(f"M ({model.n}, {model.n})", M, crba(model, q), call=call, hint=_GRAVITY_HINT)
        _expect_energy(ctx, np.asarray(M, dtype=float), model, q, call)


# --- (b) CRBA ------------------------------------------------------------------------------------

_CRBA_HINT = ("I^c_i = I_i + sum over children j of X_j^T I^c_j X_j (inward); then F = I^c_i S_i, M_ii = S_i.F, "
              "and stepping toward the base F <- X_k^T F, M_ij = M_ji = S_j.F")


@EXERCISE.check("mass-crba-chain", points=1, functions=("crba",),
                title="CRBA on chains")
def crba_chain(ctx, crba_student):
    arm = samples.seed004_2link()
    q = np.array([ctx.rng.uniform(-np.pi, np.pi), ctx.rng.uniform(-np.pi, np.pi)])
    ctx.expect_close("M (2, 2)", ctx.call(crba_student, arm, q), seed004_mass_matrix(q[1]),
                     call=f"crba(seed004_2link, q={np.round(q, 4).tolist()})", hint=_CRBA_HINT)
    for _ in range(3):
        model = random_model(ctx, tree=False)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        ctx.expect_close(f"M ({model.n}, {model.n})", ctx.call(crba_student, model, q), crba(model, q),
                         call=f"crba(model, q) on a random {model.n}-link chain", hint=_CRBA_HINT)


@EXERCISE.check("mass-crba-tree", points=1, functions=("crba",),
                title="CRBA on trees (branches and prismatic joints)")
def crba_tree(ctx, crba_student):
    models = [samples.branched_tree()] + [random_model(ctx, tree=True, n_min=4, n_max=7) for _ in range(3)]
    for model in models:
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        ctx.expect_close(f"M ({model.n}, {model.n})", ctx.call(crba_student, model, q), crba(model, q),
                         call=f"crba(model, q) on {model.name!r} (parents {list(model.parent)})",
                         hint="on a tree, body i's composite inertia goes to model.parent[i] (not to i - 1), and the "
                              "walk toward the base follows model.parent")


@EXERCISE.check("mass-crba-energy", points=1, functions=("crba",),
                title="CRBA on the UR5 and seed 002's arm: energy, symmetry, base yaw")
def crba_energy(ctx, crba_student):
    for model in (samples.ur5(), samples.seed002_7dof()):
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        call = f"crba({model.name}, q)"
        M = ctx.expect_shape(f"M ({model.n}, {model.n})", ctx.call(crba_student, model, q), (model.n, model.n),
                             call=call)
        ctx.expect_close("M - M^T", M - M.T, np.zeros_like(M), call=call, hint="M is symmetric: write M_ij and M_ji")
        _expect_energy(ctx, M, model, q, call)
        turned = q.copy()
        turned[0] += ctx.rng.uniform(0.5, 2.0)                 # turns the whole arm rigidly about a fixed axis
        ctx.expect_close("M(q) - M(q + t e_1)", M - np.asarray(ctx.call(crba_student, model, turned), dtype=float),
                         np.zeros_like(M), call=call + " and at q with joint 1 turned",
                         hint="turning the whole arm about the first (vertical) axis changes no entry of M")


# --- (c) Cholesky solve and forward dynamics -------------------------------------------------------

@EXERCISE.check("mass-cholesky", points=1, functions=("cholesky_solve",),
                title="Cholesky solve of M x = b")
def cholesky(ctx, cholesky_solve):
    cases = []
    for tree in (False, True):
        model = random_model(ctx, tree=tree, n_min=3, n_max=7)
        cases.append(crba(model, ctx.rng.uniform(-np.pi, np.pi, model.n)))
    cases.append(crba(samples.ur5(), ctx.rng.uniform(-np.pi, np.pi, 6)))
    for M in cases:
        b = ctx.rng.normal(size=len(M))
        call = f"cholesky_solve(M, b) with a {len(M)}x{len(M)} mass matrix"
        ctx.expect_close(f"x ({len(M)},)", ctx.call(cholesky_solve, M, b), np.linalg.solve(M, b), call=call,
                         hint="M = L L^T; solve L y = b (forward substitution), then L^T x = y (back substitution)")


@EXERCISE.check("mass-cholesky-stable", points=1, functions=("cholesky_solve",),
                title="Cholesky solve stays accurate on an ill-conditioned M (no inverse)")
def cholesky_stable(ctx, cholesky_solve):
    for n in (3, 6, 8):
        M = ill_conditioned_spd(ctx, n, ILL_CONDITION)
        x_true = ctx.rng.normal(size=n)
        b = M @ x_true
        call = f"cholesky_solve(M, b) with a {n}x{n} matrix of condition number {ILL_CONDITION:.0e}"
        x = ctx.expect_shape(f"x ({n},)", ctx.call(cholesky_solve, M, b), (n,), call=call)
        r = relative_residual(M, x, b, x_true)
        if r > BACKWARD_RTOL:
            ctx.fail(f"relative residual |M x - b| / (|M| |x|): expected <= {BACKWARD_RTOL:g}, got {r:.2g}", call=call,
                     hint="inv(M) @ b loses about cond(M) * 1e-16 of accuracy; two triangular solves with the "
                          "Cholesky factor do not")


def _fd_cases(ctx, trials, tree):
    for _ in range(trials):
        model = random_model(ctx, tree=tree, n_min=2, n_max=6)
        q, qd, _ = random_state(ctx, model)
        yield model, q, qd, ctx.rng.normal(size=model.n) * 5.0


@EXERCISE.check("mass-fd", points=1, functions=("forward_dynamics",),
                title="forward dynamics by CRBA + Cholesky = ABA on chains")
def fd(ctx, forward_dynamics):
    arm = samples.seed004_2link()
    cases = [(arm, np.array([0.4, 1.1]), np.array([1.5, -2.0]), np.zeros(2))] + list(_fd_cases(ctx, 3, tree=False))
    for model, q, qd, tau in cases:
        call = f"forward_dynamics(model, q, qd, tau) on {model.name!r} (n = {model.n}, default gravity)"
        ctx.expect_close(f"qdd ({model.n},)", ctx.call(forward_dynamics, model, q, qd, tau), aba(model, q, qd, tau),
                         call=call, hint="M(q) qdd = tau - h(q, qd) with the bias h = ID(q, qd, 0) (gravity on, "
                                         "gravity=None means model.gravity)")


@EXERCISE.check("mass-fd-roundtrip", points=1, functions=("forward_dynamics",),
                title="forward dynamics on trees with gravity and external wrenches: ID(FD(tau)) = tau")
def fd_roundtrip(ctx, forward_dynamics):
    for model, q, qd, tau in _fd_cases(ctx, 3, tree=True):
        g = random_gravity(ctx)
        F = ctx.rng.normal(size=(model.n, 6))
        call = (f"forward_dynamics(model, q, qd, tau, gravity=g, f_ext=F) on {model.name!r} "
                f"(parents {list(model.parent)})")
        qdd = ctx.expect_shape(f"qdd ({model.n},)", ctx.call(forward_dynamics, model, q, qd, tau, gravity=g, f_ext=F),
                               (model.n,), call=call)
        ctx.expect_close("ID(q, qd, qdd, gravity=g, f_ext=F) of your qdd", rnea(model, q, qd, qdd, gravity=g, f_ext=F),
                         tau, call=call, hint="the bias must include the same gravity and f_ext: h = ID(q, qd, 0, "
                                              "gravity=g, f_ext=F)")
        ctx.expect_close(f"qdd ({model.n},)", qdd, aba(model, q, qd, tau, gravity=g, f_ext=F), call=call)


# --- (d) J^T F from one ID call --------------------------------------------------------------------

@EXERCISE.check("mass-jtf", points=1, functions=("tip_wrench_torques",),
                title="J^T F of a wrench on the last body, from one ID call")
def jtf(ctx, tip_wrench_torques):
    models = [samples.ur5(), random_model(ctx, tree=False, n_min=3), random_model(ctx, tree=True, n_min=3)]
    for model in models:
        q, qd, _ = random_state(ctx, model)
        F = ctx.rng.normal(size=6) * 5.0
        call = f"tip_wrench_torques(model, q, F) on {model.name!r} (n = {model.n})"
        tau = ctx.call(tip_wrench_torques, model, q, F)
        J_b = jacobian(model, q, body=model.n - 1, frame="body")
        hint = ("seed 000's table: ID(q, 0, 0) with gravity off and f_ext = F on the last body returns -J^T F; "
                "tau_ext = J^T F is its negative")
        ctx.expect_close(f"tau_ext ({model.n},)", tau, J_b.T @ F, call=call, hint=hint)
        ctx.expect_close("power tau_ext . qd", np.asarray(tau, dtype=float) @ qd, F @ body_twists(model, q, qd)[-1],
                         call=call + " with a random qd", hint="the wrench's power F . v_last equals tau . qd")
