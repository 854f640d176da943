"""Checks of exercise 08: the mass matrix and forward dynamics ([WJ §2.3], [DB4 §4.2]).

The student builds ``M(q)`` twice — from ``n`` inverse-dynamics calls ([WJ §2.3]'s table: column ``j``
is ``ID(q, 0, e_j)`` with gravity off) and by the composite-rigid-body algorithm — solves ``M x = b``
with a Cholesky factor, assembles the forward dynamics, gets ``Jᵀ F`` from one more ID call, and
computes the natural frequencies of the arm held at a posture by joint springs ([DB4 §4.3], lesson 08
§8): the gravity stiffness ``∂g/∂q`` and the generalized eigenproblem ``(𝒦 + ∂g/∂q) φ = (2π f_nat)² M φ``.

The checker cannot hand a Python callable to the student's function (only plain data and Models
cross to the kernel), so the student's ``mass_matrix_from_id`` receives the Model and calls the
library's ``rnea``, which stays available; everything that would give ``M``, ``q̈`` or ``Jᵀ F``
directly (``crba``, ``aba``, ``terms``' mass matrix, forward dynamics and ``jacobian_transpose_force``,
the DeNOC matrices, the Lagrange derivation, ``kinetic_energy``, ``kinematics.jacobian``, ``batch``)
and the library's ``natural_frequencies`` and ``gravity_stiffness`` are blocked while grading.

Each check compares with the library (``crba``, ``aba``) and with identities that use neither:
[DB4 §4.2]'s closed-form two-link ``M(q)``, the kinetic energy ``½ Σ V_iᵀ 𝓘_i V_i`` from the body
twists, the round trip ``ID(FD(τ)) = τ``, the body Jacobian, and the power ``τᵀ q̇ = Fᵀ V_n``. The
student's ``∂g/∂q`` (differenced, or analytic) is compared with the library's analytic one; the
frequencies with the pendulum's closed form (8.13) and with a central-difference linearisation of the
ABA under the holding torque ``g(q) − 𝒦 Δq`` — no ``M``, no ``∂g/∂q``, no eigenproblem of (8.12) — so
the oracle shares nothing with the student's route. The frequency checks also receive the student's
``crba`` and ``gravity_stiffness`` (suspects, as for the forward dynamics); an unstable posture (an
upright pendulum on a weak spring) must be refused (an error or NaN, not a number).

The notebook's instructions for (c) are enforced numerically: ``mass-cholesky-spd`` gives a
symmetric matrix that is not positive definite, which has no Cholesky factor (so ``np.linalg.solve``
or ``lstsq``, which solve it anyway, fail there), and ``mass-cholesky-stable`` measures the backward
error on matrices where forming an inverse — of ``M`` or of its factor ``L`` — loses digits that two
triangular solves keep; both first solve one mass matrix, so that a wrong solve is named as such. Known
mistakes (gravity left on in the ID columns, the composite inertia handed to ``i − 1`` on a tree,
``X 𝓘 Xᵀ`` for ``Xᵀ 𝓘 X``, half of ``M``, the triangular solves in the wrong order, a solve without the
factor, an inverse of ``M`` or of ``L``, the bias with the wrong sign or without gravity or ``f_ext``,
``−Jᵀ F`` for ``Jᵀ F``; ``∂g/∂q`` with the wrong sign or the model's gravity; the frequencies without
``∂g/∂q``, with ``𝒦 − ∂g/∂q``, in rad/s, from ``𝒦 + ∂g/∂q`` alone or ``M`` alone, without the square root,
unsorted, without the given gravity) are the algorithms written here with one piece replaced (an unstable solve is
recognised by the digits it loses, ``log10`` of its residual); the forward-dynamics checks also receive the
student's ``crba``, ``mass_matrix_from_id`` and ``cholesky_solve`` to say which one is wrong on a
failing case (e.g. a ``LinAlgError`` in ``cholesky_solve`` because ``crba`` is wrong on trees).

==================================  ======  ============================================================================
check                               points  what it tests
==================================  ======  ============================================================================
``mass-id-columns``                 1       ``mass_matrix_from_id``: [DB4 §4.2]'s closed form, random chains
``mass-id-trees``                   1       ``mass_matrix_from_id`` on trees; ``½ q̇ᵀ M q̇`` = kinetic energy
``mass-crba-chain``                 1       ``crba`` on chains ([DB4 §4.2]'s arm, random chains with prismatic joints)
``mass-crba-tree``                  1       ``crba`` on trees (``branched_tree``, random trees)
``mass-crba-energy``                1       ``crba`` on the UR5 and [SWC16]'s arm: energy, symmetry, ``q_1``
``mass-cholesky``                   1       ``cholesky_solve``: ``M x = b`` for mass matrices
``mass-cholesky-spd``               1       ``cholesky_solve`` solves one M, refuses matrices that are not positive definite
``mass-cholesky-stable``            1       ``cholesky_solve`` solves one M, is backward stable where an inverse is not
``mass-fd``                         1       ``forward_dynamics`` = ABA on chains ([DB4 §4.2]'s arm, random chains)
``mass-fd-roundtrip``               1       ``forward_dynamics`` on trees, gravity and ``f_ext``: ``ID(FD(τ)) = τ``
``mass-jtf``                        1       ``tip_wrench_torques``: ``J_bᵀ F`` and the power ``τᵀ q̇ = Fᵀ V_n``
``mass-gravity-stiffness``          1       ``gravity_stiffness``: the pendulum, chains, trees, any gravity; symmetric
``mass-natural-frequencies``        1       ``natural_frequencies``: the pendulum by (8.13), [DB4 §4.2]'s arm, chains
``mass-natural-frequencies-trees``  1       ``natural_frequencies`` on trees, any gravity; an unstable posture refused
==================================  ======  ============================================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples
from lessonlib.dynamics import aba, crba, rnea
from lessonlib.dynamics.vibration import gravity_stiffness as analytic_gravity_stiffness
from lessonlib.dynamics.energy import kinetic_energy
from lessonlib.kinematics import body_twists, jacobian, joint_transforms
from .. import display
from ..checker import Exercise, Variant
from ._common import random_gravity, random_model, random_state, random_tree

EXERCISE = Exercise(
    "mass_matrix08", notebook="08_mass_matrix_forward_dynamics.ipynb",
    title="Lesson 08 — the mass matrix and forward dynamics",
    blocked=("lessonlib.batch", "lessonlib.check", "lessonlib.constraints",
             "lessonlib.dynamics.crba:crba", "lessonlib.dynamics.aba:aba",
             "lessonlib.dynamics.terms:mass_matrix", "lessonlib.dynamics.terms:mass_matrix_via_rnea",
             "lessonlib.dynamics.terms:forward_dynamics", "lessonlib.dynamics.terms:jacobian_transpose_force",
             "lessonlib.dynamics.denoc:denoc_matrices", "lessonlib.dynamics.denoc:generalized_inertia",
             "lessonlib.dynamics.denoc:convective_inertia", "lessonlib.dynamics.lagrange:_derive",
             "lessonlib.dynamics.energy:kinetic_energy", "lessonlib.dynamics.closed_form:closed_form_coefficients",
             "lessonlib.kinematics:jacobian", "lessonlib.dynamics.vibration:natural_frequencies",
             "lessonlib.dynamics.vibration:gravity_stiffness"),
    copy_targets=("lessonlib.dynamics.crba", "lessonlib.dynamics.terms", "lessonlib.dynamics.aba", "lessonlib.batch",
                  "lessonlib.dynamics.vibration"))

#: A backward-stable solve of ``M x = b`` leaves a relative residual ``‖M x − b‖ / (‖M‖ ‖x‖)`` of a few
#: machine epsilons (measured: ≤ 2e-16 for two triangular solves, ≤ 6e-15 for ``lstsq``); ``inv(M) @ b``
#: leaves about ``cond(M)·eps`` (≥ 1e-10 at cond 1e12) and ``inv(L)`` about ``‖L⁻¹‖ ‖L‖ eps`` (≥ 7e-13 on
#: :func:`growing_factor_spd` with n = 26, over 400 draws).
BACKWARD_RTOL = 1e-13
#: Condition number of the random matrices of ``mass-cholesky-stable``.
ILL_CONDITION = 1e12
#: Size of the matrices whose Cholesky factor has an inverse with entries up to 2^(n−1).
GROWTH_N = 26
#: ``mass-cholesky-stable`` recognises a known mistake by ``log10`` of its residual, within this many decades.
RESIDUAL_DECADES = 1.0


# --- reference quantities (judge side; never sent to the kernel) ------------------------------

def db4_mass_matrix(q2, l1=0.5, l2=0.5, m1=5.0, m2=5.0):
    """[DB4 §4.2]'s closed-form ``M(q)`` of its planar arm (uniform links, COM at mid-link)."""
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


def growing_factor_spd(ctx, n):
    """``M = L Lᵀ`` with ``L = (1 − strictly lower ones) diag(d)``, ``d`` in [0.5, 2].

    A classic triangular matrix whose inverse has entries up to ``2^(n−1)``: two triangular solves with
    ``L`` stay backward stable, products with ``inv(L)`` do not. Such an ``M`` has a condition number near
    1e18, and about one draw in a thousand is not positive definite in floating point (LAPACK's Cholesky,
    ``np.linalg.cholesky`` or ``scipy``'s, refuses it; hand-written loops did not, over 3000 draws): those
    are drawn again, or the reference answer would fail.
    """
    while True:
        L = (np.eye(n) - np.tril(np.ones((n, n)), -1)) @ np.diag(ctx.rng.uniform(0.5, 2.0, n))
        M = L @ L.T
        try:
            np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            continue
        return M


def indefinite_symmetric(ctx, n):
    """A symmetric matrix with eigenvalues in [1, 10] but for one or two in [−2, −0.5]: no Cholesky factor."""
    Q, _ = np.linalg.qr(ctx.rng.normal(size=(n, n)))
    d = ctx.rng.uniform(1.0, 10.0, n)
    d[:int(ctx.rng.integers(1, 3))] *= -ctx.rng.uniform(0.05, 0.2)
    M = Q @ np.diag(ctx.rng.permutation(d)) @ Q.T
    return 0.5 * (M + M.T)


def relative_residual(M, x, b, x_true):
    """``‖M x − b‖ / (‖M‖ ‖x_true‖)`` (the true solution's norm: a zero ``x`` cannot divide by zero)."""
    return float(np.linalg.norm(M @ x - b) / (np.linalg.norm(M, 2) * np.linalg.norm(x_true)))


def _expect_energy(ctx, M, model, q, call=""):
    qd = ctx.rng.normal(size=model.n)
    ctx.expect_close("kinetic energy 1/2 qd^T M qd for a random qd", 0.5 * qd @ M @ qd, kinetic_energy(model, q, qd),
                     call=call, hint="1/2 qd^T M qd must be the kinetic energy of the bodies")


# --- known mistakes (judge side): the algorithms with one piece replaced --------------------------

def id_columns_with(model, q, *, gravity=np.zeros(3)):
    """``M(q)`` column by column, ``rnea(q, 0, e_j, gravity)`` — a slip: ``gravity`` left on (None)."""
    n = model.n
    return np.column_stack([rnea(model, q, np.zeros(n), np.eye(n)[j], gravity=gravity) for j in range(n)])


def crba_with(model, q, *, parent=None, carry=lambda X, I: X.T @ I @ X, step=lambda X, F: X.T @ F,
              composite=True, both_halves=True):
    """The CRBA — or a slip: another ``parent(model, i)``, another way to ``carry`` a composite inertia
    or to ``step`` F toward the base, no ``composite`` inertias, or only one of ``both_halves``."""
    parent = parent or (lambda model, i: model.parent[i])
    n, X = model.n, joint_transforms(model, q)
    Ic = np.array(model.inertia, dtype=float)
    if composite:
        for i in reversed(range(n)):
            if parent(model, i) >= 0:
                Ic[parent(model, i)] += carry(X[i], Ic[i])
    M = np.zeros((n, n))
    for i in range(n):
        F, k = Ic[i] @ model.S[i], i
        M[i, i] = model.S[i] @ F
        while parent(model, k) >= 0:
            F, k = step(X[k], F), parent(model, k)
            M[k, i] = model.S[k] @ F
            if both_halves:
                M[i, k] = M[k, i]
    return M


def _chain_walk(model, i):                 # i − 1 for model.parent[i]
    return i - 1


def cholesky_with(M, b, *, first=lambda L: L, second=lambda L: L.T, both=True):
    """``x`` from ``L w = b`` then ``Lᵀ x = w`` — or a slip: other ``first``/``second`` triangles, or only one."""
    L = np.linalg.cholesky(M)
    y = np.linalg.solve(first(L), b)
    return np.linalg.solve(second(L), y) if both else y


def fd_with(model, q, qd, tau, gravity=None, f_ext=None, *, bias_sign=-1.0, bias_gravity=None, bias_f_ext=True):
    """``q̈ = M⁻¹ (τ − h)`` — or a slip: the bias with another sign, ``bias_gravity(model, gravity)`` choosing
    its gravity, or without ``f_ext``."""
    g = gravity if bias_gravity is None else bias_gravity(model, gravity)
    h = rnea(model, q, qd, np.zeros(model.n), gravity=g, f_ext=f_ext if bias_f_ext else None)
    return np.linalg.solve(crba(model, q), np.asarray(tau, dtype=float) + bias_sign * h)


def jtf_with(model, q, F, *, sign=-1.0, gravity=np.zeros(3)):
    """``τ_ext = −ID(q, 0, 0, f_ext = F on the last body)`` — a slip: the ID's own sign, or gravity left on."""
    wrenches = np.zeros((model.n, 6))
    wrenches[-1] = F
    return sign * rnea(model, q, np.zeros(model.n), np.zeros(model.n), gravity=gravity, f_ext=wrenches)


ID_GRAVITY_ON = Variant("your columns seem to be computed with gravity on: each is shifted by the gravity torques "
                        "g(q); switch gravity off (gravity=(0, 0, 0)) or subtract g(q)",
                        mass_matrix_from_id=partial(id_columns_with, gravity=None))
CRBA_CHAIN_WALK = Variant("your crba seems to hand body i's composite inertia to body i - 1 (and to walk toward the "
                          "base by i - 1); on a tree, the parent of i is model.parent[i]",
                          crba=partial(crba_with, parent=_chain_walk))
CRBA_NOT_TRANSPOSED = Variant("your composite inertias seem to be carried as X_i 𝓘^c_i X_iᵀ; to the parent it is "
                              "X_iᵀ 𝓘^c_i X_i", crba=partial(crba_with, carry=lambda X, I: X @ I @ X.T))
CRBA_STEP_NOT_TRANSPOSED = Variant("your walk toward the base seems to carry F with X_k where X_k^T belongs",
                                   crba=partial(crba_with, step=lambda X, F: X @ F))
CRBA_NOT_COMPOSITE = Variant("your crba seems to use each body's own inertia 𝓘_i where the composite inertia 𝓘^c_i "
                             "(the body and everything outboard of it) belongs", crba=partial(crba_with,
                                                                                               composite=False))
CRBA_HALF = Variant("your M seems to hold only one triangle: set M_ij and M_ji", crba=partial(crba_with,
                                                                                            both_halves=False))
CHOL_ORDER = Variant("your triangular solves seem to come in the wrong order: first L w = b (forward substitution), "
                     "then Lᵀx = w (back substitution)", cholesky_solve=partial(cholesky_with, first=lambda L: L.T,
                                                              second=lambda L: L))
CHOL_NO_TRANSPOSE = Variant("your back substitution seems to solve L x = w where Lᵀx = w belongs",
                            cholesky_solve=partial(cholesky_with, second=lambda L: L))
CHOL_FORWARD_ONLY = Variant("your cholesky_solve seems to stop after the forward substitution L w = b: x solves "
                            "Lᵀx = w (back substitution)", cholesky_solve=partial(cholesky_with, both=False))
CHOL_NO_FACTOR = Variant("your cholesky_solve seems to solve M x = b without the Cholesky factor (np.linalg.solve, "
                         "lstsq or an inverse solve any invertible M): factor M = L Lᵀ (np.linalg.cholesky or your "
                         "own loops) and solve through L, so that a matrix that is not positive definite raises",
                         cholesky_solve=lambda M, b: np.linalg.solve(M, b))
CHOL_INV_M = Variant("your cholesky_solve seems to multiply by an inverse of M (np.linalg.inv(M) @ b, or "
                     "inv(Lᵀ) @ inv(L), the same matrix): that loses about cond(M) · 1e-16; solve L w = b, "
                     "then Lᵀx = w", cholesky_solve=lambda M, b: np.linalg.inv(M) @ b)
CHOL_INV_L = Variant(f"your cholesky_solve seems to multiply by inv(L) (inv(L) @ b, then inv(L)ᵀ or inv(Lᵀ)): "
                     f"inv(L) has entries up to 2^{GROWTH_N - 1} here, and the products lose them; solve with L "
                     "itself (forward substitution L w = b, then back substitution Lᵀx = w)",
                     cholesky_solve=lambda M, b: (lambda Li: Li.T @ (Li @ b))(np.linalg.inv(np.linalg.cholesky(M))))
FD_BIAS_SIGN = Variant("your forward dynamics seems to add the bias h; the equation is M qdd = tau - h",
                       forward_dynamics=partial(fd_with, bias_sign=+1.0))
FD_BIAS_NO_GRAVITY = Variant("your bias h seems to lack gravity: h = ID(q, qd, 0) with the same gravity "
                             "(gravity=None means model.gravity)",
                             forward_dynamics=partial(fd_with, bias_gravity=lambda model, g: np.zeros(3)))
FD_GRAVITY_NOT_PASSED = Variant("your bias h seems to use model.gravity where the gravity argument was given",
                                forward_dynamics=partial(fd_with, bias_gravity=lambda model, g: None))
FD_FEXT_DROPPED = Variant("your bias h seems to lack f_ext: h = ID(q, qd, 0, gravity=g, f_ext=f_ext)",
                          forward_dynamics=partial(fd_with, bias_f_ext=False))
JTF_SIGN = Variant("your tau_ext seems to be -J^T F, the torques that BALANCE the wrench (what ID returns): "
                   "tau_ext is its negative", tip_wrench_torques=partial(jtf_with, sign=+1.0))
JTF_GRAVITY_ON = Variant("your ID call seems to leave gravity on: the wrench's torques need gravity=(0, 0, 0)",
                         tip_wrench_torques=partial(jtf_with, gravity=None))


def _fd_suspects(ctx, helpers, model, q, qd, tau, gravity=None, f_ext=None):
    """Probes of the student's M(q) routines and solve on this case, for a failing ``forward_dynamics``."""
    crba_student, from_id, cholesky_solve = helpers
    M = crba(model, q)
    b = np.asarray(tau, dtype=float) - rnea(model, q, qd, np.zeros(model.n), gravity=gravity, f_ext=f_ext)
    return (ctx.suspect(crba_student, model, q, expected=M, call="crba(model, q)", see="mass-crba-tree"),
            ctx.suspect(from_id, model, q, expected=M, call="mass_matrix_from_id(model, q)", see="mass-id-trees"),
            ctx.suspect(cholesky_solve, M, b, expected=np.linalg.solve(M, b), call="cholesky_solve(M(q), tau - h)",
                        see="mass-cholesky"))


# --- (a) M from inverse-dynamics columns -----------------------------------------------------------

_COLUMNS_HINT = "column j is ID(q, qd=0, qdd=e_j) with gravity switched off (gravity=(0, 0, 0))"


@EXERCISE.check("mass-id-columns", points=1, functions=("mass_matrix_from_id",),
                title="M(q) from n inverse-dynamics calls ([WJ]'s table)", variants=(ID_GRAVITY_ON,))
def check_id_columns(ctx, mass_matrix_from_id):
    arm = samples.seed004_2link()
    for q in ([0.7, 0.0], [ctx.rng.uniform(-np.pi, np.pi), ctx.rng.uniform(-np.pi, np.pi)]):
        q = np.asarray(q)
        assert np.allclose(crba(arm, q), db4_mass_matrix(q[1]), atol=1e-12), "checker self-test: [DB4 §4.2]"
        ctx.expect_close("M (2, 2)", ctx.call(mass_matrix_from_id, arm, q), db4_mass_matrix(q[1]),
                         hint=_COLUMNS_HINT)
    for _ in range(2):
        model = random_model(ctx, tree=False)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        ctx.expect_close(f"M ({model.n}, {model.n})", ctx.call(mass_matrix_from_id, model, q), crba(model, q),
                         hint=_COLUMNS_HINT)


@EXERCISE.check("mass-id-trees", points=1, functions=("mass_matrix_from_id",),
                title="M(q) from ID columns on trees, and the kinetic energy", variants=(ID_GRAVITY_ON,))
def check_id_trees(ctx, mass_matrix_from_id):
    for _ in range(3):
        model = random_tree(ctx)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        call = f"mass_matrix_from_id(model, q) on a random {model.n}-body tree"
        M = ctx.call(mass_matrix_from_id, model, q)
        ctx.expect_close(f"M ({model.n}, {model.n})", M, crba(model, q), call=call, hint=_COLUMNS_HINT)
        _expect_energy(ctx, np.asarray(M, dtype=float), model, q, call)


# --- (b) CRBA ------------------------------------------------------------------------------------

_CRBA_HINT = ("𝓘^c_i = 𝓘_i + sum over the children j of i of X_jᵀ 𝓘^c_j X_j (inward); then F = 𝓘^c_i S_i, "
              "M_ii = S_i.F, and stepping from k to model.parent[k] toward the base F <- X_kᵀ F, M_ik = M_ki = S_k.F")


@EXERCISE.check("mass-crba-chain", points=1, functions=("crba",), title="CRBA on chains",
                variants=(CRBA_NOT_TRANSPOSED, CRBA_STEP_NOT_TRANSPOSED, CRBA_NOT_COMPOSITE, CRBA_HALF))
def check_crba_chain(ctx, crba_student):
    arm = samples.seed004_2link()
    q = np.array([ctx.rng.uniform(-np.pi, np.pi), ctx.rng.uniform(-np.pi, np.pi)])
    ctx.expect_close("M (2, 2)", ctx.call(crba_student, arm, q), db4_mass_matrix(q[1]),
                     hint=_CRBA_HINT)
    for _ in range(3):
        model = random_model(ctx, tree=False)
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        ctx.expect_close(f"M ({model.n}, {model.n})", ctx.call(crba_student, model, q), crba(model, q),
                         hint=_CRBA_HINT)


@EXERCISE.check("mass-crba-tree", points=1, functions=("crba",), title="CRBA on trees (branches and prismatic joints)",
                variants=(CRBA_CHAIN_WALK, CRBA_NOT_TRANSPOSED, CRBA_STEP_NOT_TRANSPOSED, CRBA_NOT_COMPOSITE, CRBA_HALF))
def check_crba_tree(ctx, crba_student):
    models = [samples.branched_tree()] + [random_tree(ctx, n_min=4, n_max=7) for _ in range(3)]
    for model in models:
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        ctx.expect_close(f"M ({model.n}, {model.n})", ctx.call(crba_student, model, q), crba(model, q),
                         call=f"crba(model, q) on {model.name!r} (parents {list(model.parent)})", hint=_CRBA_HINT)


@EXERCISE.check("mass-crba-energy", points=1, functions=("crba",),
                title="CRBA on the UR5 and [SWC16]'s arm: energy, symmetry, base yaw",
                variants=(CRBA_NOT_TRANSPOSED, CRBA_STEP_NOT_TRANSPOSED, CRBA_NOT_COMPOSITE, CRBA_HALF))
def check_crba_energy(ctx, crba_student):
    for model in (samples.ur5(), samples.seed002_7dof()):
        q = ctx.rng.uniform(-np.pi, np.pi, model.n)
        M = ctx.expect_shape(f"M ({model.n}, {model.n})", ctx.call(crba_student, model, q), (model.n, model.n))
        ctx.expect_close("M - M^T", M - M.T, np.zeros_like(M), hint="M is symmetric: M_ij = M_ji")
        _expect_energy(ctx, M, model, q)
        turned = q.copy()
        turned[0] += ctx.rng.uniform(0.5, 2.0)                 # turns the whole arm rigidly about a fixed axis
        ctx.expect_close("M(q) - M(q + t e_1)", M - np.asarray(ctx.call(crba_student, model, turned), dtype=float),
                         np.zeros_like(M), call=f"crba({model.name}, q) and at q with joint 1 turned",
                         hint="turning the whole arm about the first (vertical) axis changes no entry of M")


# --- (c) Cholesky solve and forward dynamics -------------------------------------------------------

_CHOLESKY_HINT = "M = L Lᵀ; solve L w = b (forward substitution), then Lᵀx = w (back substitution)"


def _expect_mass_solve(ctx, cholesky_solve):
    """First, a mass matrix the solve must get right (a wrong solve fails here, not as a stability problem).

    A chain's: a tree's ``M`` may be diagonal (every body on the base), where ``L = Lᵀ`` hides a swapped solve."""
    model = random_model(ctx, tree=False, n_min=3, n_max=6)
    M = crba(model, ctx.rng.uniform(-np.pi, np.pi, model.n))
    b = ctx.rng.normal(size=model.n)
    ctx.expect_close(f"x ({model.n},)", ctx.call(cholesky_solve, M, b), np.linalg.solve(M, b), hint=_CHOLESKY_HINT)


@EXERCISE.check("mass-cholesky", points=1, functions=("cholesky_solve",), title="Cholesky solve of M x = b",
                variants=(CHOL_ORDER, CHOL_NO_TRANSPOSE, CHOL_FORWARD_ONLY))
def check_cholesky(ctx, cholesky_solve):
    cases = []
    for tree in (False, True):
        model = random_model(ctx, tree=tree, n_min=3, n_max=7)
        cases.append(crba(model, ctx.rng.uniform(-np.pi, np.pi, model.n)))
    cases.append(crba(samples.ur5(), ctx.rng.uniform(-np.pi, np.pi, 6)))
    for M in cases:
        b = ctx.rng.normal(size=len(M))
        ctx.expect_close(f"x ({len(M)},)", ctx.call(cholesky_solve, M, b), np.linalg.solve(M, b), hint=_CHOLESKY_HINT)


@EXERCISE.check("mass-cholesky-spd", points=1, functions=("cholesky_solve",),
                title="a Cholesky solve refuses a matrix that is not positive definite",
                variants=(CHOL_NO_FACTOR, CHOL_ORDER, CHOL_NO_TRANSPOSE, CHOL_FORWARD_ONLY))
def check_cholesky_spd(ctx, cholesky_solve):
    _expect_mass_solve(ctx, cholesky_solve)
    for n in (3, 5, 7):
        M = indefinite_symmetric(ctx, n)
        b = ctx.rng.normal(size=n)
        eigenvalues = np.linalg.eigvalsh(M)
        call = (f"cholesky_solve(M, b) with a symmetric {n}x{n} M that is not positive definite (eigenvalues "
                f"{display.array(eigenvalues)})")
        ctx.expect_refusal(f"x ({n},)", cholesky_solve, M, b, call=call,
                           hint="this M has no Cholesky factor, so a solve through M = L Lᵀ must fail "
                                "(np.linalg.cholesky raises LinAlgError; your own loops meet the square root of a "
                                "negative number); np.linalg.solve or lstsq would solve it anyway — the exercise asks "
                                "for the factor, which is also how a wrong mass matrix shows itself")


@EXERCISE.check("mass-cholesky-stable", points=1, functions=("cholesky_solve",),
                title="Cholesky solve stays accurate where an inverse does not",
                variants=(CHOL_INV_M, CHOL_INV_L, CHOL_ORDER, CHOL_NO_TRANSPOSE, CHOL_FORWARD_ONLY))
def check_cholesky_stable(ctx, cholesky_solve):
    _expect_mass_solve(ctx, cholesky_solve)
    cases = [(ill_conditioned_spd(ctx, n, ILL_CONDITION), f"a random {n}x{n} matrix of condition number "
              f"{ILL_CONDITION:.0e}") for n in (3, 6, 8)]
    cases += [(growing_factor_spd(ctx, GROWTH_N), f"a {GROWTH_N}x{GROWTH_N} matrix whose factor L has an inverse "
               f"with entries up to 2^{GROWTH_N - 1}") for _ in range(2)]
    for M, what in cases:
        n = len(M)
        x_true = ctx.rng.normal(size=n)
        b = M @ x_true
        call = f"cholesky_solve(M, b) with {what}"
        x = ctx.expect_shape(f"x ({n},)", ctx.call(cholesky_solve, M, b), (n,), call=call)
        r = relative_residual(M, x, b, x_true)
        if r > BACKWARD_RTOL:
            # the numbers of an unstable solve are rounding noise: its signature is how many digits it loses,
            # so a known mistake is recognised by log10 of the residual, within a factor of 10
            ctx.fail(f"relative residual |M x - b| / (|M| |x|): expected <= {BACKWARD_RTOL:g}, got {r:.2g}", call=call,
                     got=np.log10(r), atol=RESIDUAL_DECADES,
                     hint="forming an inverse — inv(M), or inv(L) of the factor — loses accuracy (about cond(M) * 1e-16 "
                          "for inv(M), and the growth of inv(L)'s entries for inv(L)); two triangular solves with "
                          "L do not")


def _fd_cases(ctx, trials, tree):
    for _ in range(trials):
        model = random_tree(ctx) if tree else random_model(ctx, tree=False, n_min=2, n_max=6)
        q, qd, _ = random_state(ctx, model)
        yield model, q, qd, ctx.rng.normal(size=model.n) * 5.0


# The forward-dynamics checks also pass the student's crba, mass_matrix_from_id and cholesky_solve (see
# _fd_suspects): when forward_dynamics fails, the message says which of them is wrong on the failing case.
_FD_HELPERS = ("crba", "mass_matrix_from_id", "cholesky_solve")


@EXERCISE.check("mass-fd", points=1, functions=("forward_dynamics",), helpers=_FD_HELPERS,
                title="forward dynamics by CRBA + Cholesky = ABA on chains", variants=(FD_BIAS_SIGN, FD_BIAS_NO_GRAVITY))
def check_fd(ctx, forward_dynamics, *helpers):
    arm = samples.seed004_2link()
    cases = [(arm, np.array([0.4, 1.1]), np.array([1.5, -2.0]), np.zeros(2))] + list(_fd_cases(ctx, 3, tree=False))
    for model, q, qd, tau in cases:
        with ctx.suspects(*_fd_suspects(ctx, helpers, model, q, qd, tau)):
            ctx.expect_close(f"qdd ({model.n},)", ctx.call(forward_dynamics, model, q, qd, tau),
                             aba(model, q, qd, tau),
                             hint="M(q) qdd = tau - h with the bias h = ID(q, qd, 0) (gravity on, gravity=None means "
                                  "model.gravity)")


@EXERCISE.check("mass-fd-roundtrip", points=1, functions=("forward_dynamics",), helpers=_FD_HELPERS,
                title="forward dynamics on trees with gravity and external wrenches: ID(FD(tau)) = tau",
                variants=(FD_BIAS_SIGN, FD_BIAS_NO_GRAVITY, FD_GRAVITY_NOT_PASSED, FD_FEXT_DROPPED))
def check_fd_roundtrip(ctx, forward_dynamics, *helpers):
    for model, q, qd, tau in _fd_cases(ctx, 3, tree=True):
        g = random_gravity(ctx)
        F = ctx.rng.normal(size=(model.n, 6))
        call = (f"forward_dynamics(model, q, qd, tau, gravity=g, f_ext=F) on {model.name!r} "
                f"(parents {list(model.parent)})")
        with ctx.suspects(*_fd_suspects(ctx, helpers, model, q, qd, tau, gravity=g, f_ext=F)):
            qdd = ctx.expect_shape(f"qdd ({model.n},)",
                                   ctx.call(forward_dynamics, model, q, qd, tau, gravity=g, f_ext=F), (model.n,),
                                   call=call)
            ctx.expect_close("ID(q, qd, qdd, gravity=g, f_ext=F) of your qdd",
                             rnea(model, q, qd, qdd, gravity=g, f_ext=F), tau, call=call,
                             hint="M(q) qdd = tau - h with the bias h = ID(q, qd, 0, gravity=g, f_ext=F)")
            ctx.expect_close(f"qdd ({model.n},)", qdd, aba(model, q, qd, tau, gravity=g, f_ext=F), call=call)


# --- (d) J^T F from one ID call --------------------------------------------------------------------

@EXERCISE.check("mass-jtf", points=1, functions=("tip_wrench_torques",),
                title="J^T F of a wrench on the last body, from one ID call", variants=(JTF_SIGN, JTF_GRAVITY_ON))
def check_jtf(ctx, tip_wrench_torques):
    models = [samples.ur5(), random_model(ctx, tree=False, n_min=3), random_model(ctx, tree=True, n_min=3)]
    for model in models:
        q, qd, _ = random_state(ctx, model)
        F = ctx.rng.normal(size=6) * 5.0
        tau = ctx.call(tip_wrench_torques, model, q, F)
        J_b = jacobian(model, q, body=model.n - 1, frame="body")
        hint = ("[WJ §2.3]'s table: ID(q, 0, 0) with gravity off and f_ext = F on the last body returns the torques "
                "that balance F; tau_ext = J^T F is what F itself produces")
        ctx.expect_close(f"tau_ext ({model.n},)", tau, J_b.T @ F, hint=hint)
        ctx.expect_close("power tau_ext . qd for a random qd", np.asarray(tau, dtype=float) @ qd,
                         F @ body_twists(model, q, qd)[-1], hint="the wrench's power F · V_n equals τ · q̇")


# --- (e) natural frequencies about a posture ([DB4 §4.3], lesson 08 §8) ------------------------------

#: Step of the central differences in the judge's linearisation of the forward dynamics (rad or m).
LINEARISATION_STEP = 1e-6
#: Tolerance on a frequency (Hz): the judge's linearisation and a student's differenced ∂g/∂q agree to about 1e-8 Hz.
FREQUENCY_ATOL = 1e-5


def gravity_stiffness_with(model, q, gravity=None, *, sign=1.0, pass_gravity=True):
    """``∂g/∂q`` by central differences of ``ID(q, 0, 0)`` — or a slip: the other ``sign`` (the weight's own
    torques, ``−g``), or the model's gravity where ``gravity`` was given (``pass_gravity`` False)."""
    g = gravity if pass_gravity else None
    zero, h = np.zeros(model.n), 1e-6
    q = np.asarray(q, dtype=float)
    return sign * np.column_stack([(rnea(model, q + h * e, zero, zero, gravity=g)
                                    - rnea(model, q - h * e, zero, zero, gravity=g)) / (2 * h)
                                   for e in np.eye(model.n)])


def frequencies_with(model, q, stiffness, gravity=None, *, dg_dq=gravity_stiffness_with, gravity_sign=1.0, mass=True,
                     stiffness_matrix=True, root=True, hz=True, ordered=True):
    """The natural frequencies (Hz, ascending) of ``(𝒦 + ∂g/∂q) φ = (2π f_nat)² M φ`` — or a slip: ``dg_dq`` (None:
    left out, or a differently wrong one), ``gravity_sign`` −1, no ``mass`` (the eigenvalues of 𝒦 + ∂g/∂q alone),
    no ``stiffness_matrix`` (the eigenvalues of M alone), no square ``root``, rad/s for ``hz``, not ``ordered``
    (``np.linalg.eig`` of ``M⁻¹ (𝒦 + ∂g/∂q)``, in its own order)."""
    K = np.asarray(stiffness, dtype=float)
    if dg_dq is not None:
        K = K + gravity_sign * dg_dq(model, q, gravity)
    M = crba(model, q)
    if not stiffness_matrix:
        w2 = np.linalg.eigvalsh(M)
    elif not mass:
        w2 = np.linalg.eigvalsh(K)
    elif ordered:
        L = np.linalg.cholesky(M)
        w2 = np.linalg.eigvalsh(np.linalg.solve(L, np.linalg.solve(L, K).T))
    else:
        w2 = np.linalg.eig(np.linalg.solve(M, K))[0].real
    w = np.sqrt(w2) if root else w2
    return w / (2 * np.pi) if hz else w


def linearised_frequencies(model, q, stiffness, gravity=None):
    """The judge's oracle: ``√eig(−A) / 2π`` with ``A = ∂q̈/∂q`` of the ABA under ``τ(q + Δq) = g(q) − 𝒦 Δq``, by
    central differences — no ``M``, no ``∂g/∂q`` and no eigenproblem of (8.12) anywhere."""
    zero, h = np.zeros(model.n), LINEARISATION_STEP
    g_q = rnea(model, q, zero, zero, gravity=gravity)
    K = np.asarray(stiffness, dtype=float)
    A = np.column_stack([(aba(model, q + h * e, zero, g_q - h * K @ e, gravity=gravity)
                          - aba(model, q - h * e, zero, g_q + h * K @ e, gravity=gravity)) / (2 * h)
                         for e in np.eye(model.n)])
    return np.sqrt(np.sort(np.linalg.eigvals(-A).real)) / (2 * np.pi)


def holding_stiffness(ctx, model, q, gravity=None):
    """A random symmetric 𝒦 that holds ``q``: ``𝒦 + ∂g/∂q`` positive definite, and ``∂g/∂q`` a visible share of it
    (so that a slip in the gravity stiffness changes the frequencies by far more than the tolerance)."""
    n = model.n
    G = gravity_stiffness_with(model, q, gravity)
    M = crba(model, q)
    B = ctx.rng.normal(size=(n, n)) * 0.1
    K = (B + B.T) * np.sqrt(np.outer(np.diag(M), np.diag(M)))
    return K + np.diag(np.abs(K).sum(axis=1) + np.abs(G).sum(axis=1) + ctx.rng.uniform(5.0, 60.0, n) * np.diag(M))


GS_SIGN = Variant("your ∂g/∂q seems to have the wrong sign: g = ID(q, 0, 0) is the torque that holds the weight, "
                  "and the gravity stiffness is its derivative, not the derivative of the weight's own torque −g",
                  gravity_stiffness=partial(gravity_stiffness_with, sign=-1.0))
GS_GRAVITY_NOT_PASSED = Variant("your ∂g/∂q seems to use model.gravity where the gravity argument was given: pass "
                                "gravity=gravity to every ID call",
                                gravity_stiffness=partial(gravity_stiffness_with, pass_gravity=False))
NF_NO_GRAVITY = Variant("your frequencies seem to leave the gravity stiffness out: (8.12) has 𝒦 + ∂g/∂q, so that a "
                        "hanging arm rings faster and an upright one slower than its springs alone",
                        natural_frequencies=partial(frequencies_with, dg_dq=None))
NF_GRAVITY_SIGN = Variant("your frequencies seem to use 𝒦 − ∂g/∂q: gravity stiffness adds to the springs, 𝒦 + ∂g/∂q "
                          "(hanging down, ∂g/∂q > 0 stiffens the arm)",
                          natural_frequencies=partial(frequencies_with, gravity_sign=-1.0))
NF_RAD_PER_S = Variant("your frequencies seem to be in rad/s: the eigenvalues are (2π f_nat)², so f_nat = √λ / (2π) "
                       "in Hz", natural_frequencies=partial(frequencies_with, hz=False))
NF_NO_MASS = Variant("your frequencies seem to come from 𝒦 + ∂g/∂q alone: (8.12) is a generalized eigenproblem "
                     "with M on the right — solve it through M = L Lᵀ (or scipy.linalg.eigh(A, M))",
                     natural_frequencies=partial(frequencies_with, mass=False))
NF_MASS_ONLY = Variant("your frequencies seem to come from the eigenvalues of M alone: the springs and gravity, "
                       "𝒦 + ∂g/∂q, are the left side of (8.12) and M the right side",
                       natural_frequencies=partial(frequencies_with, stiffness_matrix=False))
NF_NO_ROOT = Variant("your frequencies seem to miss the square root: the eigenvalues of (8.12) are (2π f_nat)², so "
                     "f_nat = √λ / (2π)", natural_frequencies=partial(frequencies_with, root=False))
NF_NOT_SORTED = Variant("your frequencies are right but not in ascending order: sort them (np.sort), "
                        "f_nat,1 ≤ … ≤ f_nat,n", natural_frequencies=partial(frequencies_with, ordered=False))
NF_GRAVITY_NOT_PASSED = Variant("your frequencies seem to use model.gravity where the gravity argument was given: "
                                "pass gravity=gravity on to your gravity_stiffness",
                                natural_frequencies=partial(frequencies_with, dg_dq=lambda model, q, gravity:
                                                            gravity_stiffness_with(model, q, None)))
_NF_VARIANTS = (NF_NO_GRAVITY, NF_GRAVITY_SIGN, NF_RAD_PER_S, NF_NO_MASS, NF_MASS_ONLY, NF_NO_ROOT)

_GS_HINT = "∂g/∂q column k = (ID(q + h e_k, 0, 0) − ID(q − h e_k, 0, 0)) / (2h), with the given gravity (h ≈ 1e-6)"
_NF_HINT = ("(𝒦 + ∂g/∂q) φ = (2π f_nat)² M φ: with M = L Lᵀ, the eigenvalues λ of L⁻¹ (𝒦 + ∂g/∂q) L⁻ᵀ are "
            "(2π f_nat)²; f_nat = √λ / (2π) in Hz, ascending")
_NF_HELPERS = ("crba", "gravity_stiffness")


def _nf_suspects(ctx, helpers, model, q, gravity=None):
    """Probes of the student's ``crba`` and ``gravity_stiffness`` on this case (a failing ``natural_frequencies``)."""
    crba_student, gs_student = helpers
    return (ctx.suspect(crba_student, model, q, expected=crba(model, q), call="crba(model, q)", see="mass-crba-tree"),
            ctx.suspect(gs_student, model, q, gravity=gravity,
                        expected=analytic_gravity_stiffness(model, q, gravity=gravity),
                        call="gravity_stiffness(model, q, gravity=gravity)", see="mass-gravity-stiffness"))


def _expect_ascending(ctx, f, call):
    """Right values in the wrong order fail here, named as such (``got`` is 0: "not sorted")."""
    if np.any(np.diff(f) < 0):
        ctx.fail(f"f_nat: expected ascending frequencies, got {display.array(f)}", call=call, got=np.zeros(1),
                 hint="sort the frequencies: f_nat,1 ≤ … ≤ f_nat,n")


@EXERCISE.check("mass-gravity-stiffness", points=1, functions=("gravity_stiffness",),
                title="the gravity stiffness ∂g/∂q: symmetric, against the analytic one",
                variants=(GS_SIGN, GS_GRAVITY_NOT_PASSED))
def check_gravity_stiffness(ctx, gravity_stiffness):
    rod = samples.pendulum(m=float(ctx.rng.uniform(0.5, 3.0)), length=float(ctx.rng.uniform(0.4, 1.5)))
    q = np.array([ctx.rng.uniform(-1.2, 1.2)])
    ctx.expect_close("∂g/∂q (1, 1)", ctx.call(gravity_stiffness, rod, q), analytic_gravity_stiffness(rod, q),
                     hint="[WJ §2.1]'s link: g = m g₀ ℓ sin q, so ∂g/∂q = m g₀ ℓ cos q; " + _GS_HINT)
    for tree in (False, True):
        model = random_tree(ctx) if tree else random_model(ctx, tree=False, n_min=3, n_max=6)
        q, _, _ = random_state(ctx, model)
        g = random_gravity(ctx)
        call = f"gravity_stiffness(model, q, gravity=g) on {model.name!r} (parents {list(model.parent)})"
        G = ctx.expect_shape(f"∂g/∂q ({model.n}, {model.n})", ctx.call(gravity_stiffness, model, q, gravity=g),
                             (model.n, model.n), call=call)
        ctx.expect_close(f"∂g/∂q ({model.n}, {model.n})", G, analytic_gravity_stiffness(model, q, gravity=g), call=call,
                         hint=_GS_HINT)
        ctx.expect_close("∂g/∂q − (∂g/∂q)ᵀ", G - G.T, np.zeros_like(G), call=call,
                         hint="∂g/∂q is the Hessian of the potential energy: symmetric")


@EXERCISE.check("mass-natural-frequencies", points=1, functions=("natural_frequencies",), helpers=_NF_HELPERS,
                title="natural frequencies: the pendulum by hand, [DB4 §4.2]'s arm, chains",
                variants=_NF_VARIANTS + (NF_NOT_SORTED,))
def check_natural_frequencies(ctx, natural_frequencies, *helpers):
    m, length = float(ctx.rng.uniform(0.5, 3.0)), float(ctx.rng.uniform(0.4, 1.5))
    rod = samples.pendulum(m=m, length=length)
    I_O, mgl = m * length**2 / 3, m * 9.81 * length / 2
    for q1 in (ctx.rng.uniform(-1.0, 1.0), ctx.rng.uniform(2.2, 3.0)):     # below and above the pivot
        k = mgl * ctx.rng.uniform(1.5, 3.0)
        call = f"natural_frequencies(pendulum, [{q1:.4f}], [[{k:.4f}]]) (m = {m:.4f} kg, length {length:.4f} m)"
        with ctx.suspects(*_nf_suspects(ctx, helpers, rod, np.array([q1]))):
            ctx.expect_close("f_nat (1,)", ctx.call(natural_frequencies, rod, np.array([q1]), np.array([[k]])),
                             [np.sqrt((k + mgl * np.cos(q1)) / I_O) / (2 * np.pi)], atol=FREQUENCY_ATOL, call=call,
                             hint="(8.13): f_nat = √((𝒦 + m g₀ ℓ cos q) / I_O) / (2π), ℓ = length/2, I_O = m length²/3")
    arm = samples.seed004_2link()
    cases = [(arm, np.array([ctx.rng.uniform(-np.pi, np.pi), ctx.rng.uniform(-2.5, 2.5)]))]
    cases += [(model, random_state(ctx, model)[0]) for model in
              (random_model(ctx, tree=False, n_min=3, n_max=6) for _ in range(2))]
    for model, q in cases:
        K = holding_stiffness(ctx, model, q)
        call = f"natural_frequencies(model, q, stiffness) on {model.name!r}"
        with ctx.suspects(*_nf_suspects(ctx, helpers, model, q)):
            f = ctx.expect_shape(f"f_nat ({model.n},)", ctx.call(natural_frequencies, model, q, K), (model.n,),
                                 call=call)
            ctx.expect_close(f"f_nat ({model.n},), sorted", np.sort(f), linearised_frequencies(model, q, K),
                             atol=FREQUENCY_ATOL, call=call, hint=_NF_HINT)
            _expect_ascending(ctx, f, call)


@EXERCISE.check("mass-natural-frequencies-trees", points=1, functions=("natural_frequencies",), helpers=_NF_HELPERS,
                title="natural frequencies on trees with prismatic joints and any gravity; an unstable posture refused",
                variants=_NF_VARIANTS + (NF_NOT_SORTED, NF_GRAVITY_NOT_PASSED))
def check_natural_frequencies_trees(ctx, natural_frequencies, *helpers):
    for _ in range(3):
        model = random_tree(ctx, n_min=3, n_max=6)
        q = random_state(ctx, model)[0]
        g = random_gravity(ctx)
        K = holding_stiffness(ctx, model, q, g)
        call = (f"natural_frequencies(model, q, stiffness, gravity=g) on {model.name!r} (parents "
                f"{list(model.parent)})")
        with ctx.suspects(*_nf_suspects(ctx, helpers, model, q, g)):
            f = ctx.expect_shape(f"f_nat ({model.n},)", ctx.call(natural_frequencies, model, q, K, gravity=g),
                                 (model.n,), call=call)
            ctx.expect_close(f"f_nat ({model.n},), sorted", np.sort(f), linearised_frequencies(model, q, K, g),
                             atol=FREQUENCY_ATOL, call=call, hint=_NF_HINT)
            _expect_ascending(ctx, f, call)
    rod = samples.pendulum()                                   # upright, on a spring weaker than m g₀ ℓ = 4.905 N·m/rad
    q_up, k = np.array([np.pi - ctx.rng.uniform(0.0, 0.3)]), float(ctx.rng.uniform(0.5, 3.0))
    ctx.expect_refusal("f_nat (1,)", natural_frequencies, rod, q_up, np.array([[k]]),
                       call=f"natural_frequencies(pendulum, [{q_up[0]:.4f}], [[{k:.4f}]]) — nearly upright, "
                            f"𝒦 = {k:.4f} N·m/rad < m g₀ ℓ = 4.905 N·m/rad",
                       hint="𝒦 + ∂g/∂q < 0: the posture is statically unstable and has no frequency; a square root "
                            "of the negative eigenvalue gives NaN, or raise a ValueError — do not return a number")
