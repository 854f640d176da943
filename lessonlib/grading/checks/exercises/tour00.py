"""Checks of exercise 00: a warm-up — is this matrix a rotation, and what holds an arm still?

Two small functions. ``rotation_check`` is plain NumPy ([LG, 李群]'s SO(3): ``RᵀR = I``,
``det R = +1``); ``static_holding_torque`` is the tour's gravity plot as a function: the torques
that hold an arm at rest, ``τ = g(q)``, by calling the library ([WJ §2.1]'s standard form with
``q̇ = q̈ = 0``). The library's answer is checked against an independent route (the gradient of
the potential energy, by central differences) before it is compared with the student's.

Known mistakes: the error as a matrix norm, or without ``|·|``, or the pair returned as ``(ok, error)``;
the verdict without ``det R > 0``, with ``error < tol``, or with a tolerance of its own; the torques as
``−g(q)``, the ``gravity`` argument not handed on, ``gravity=None`` taken as ``(0, 0, −9.81)`` for every arm.

=========================  ======  ==========================================================
check                      points  what it tests
=========================  ======  ==========================================================
``tour-rotation-error``    1       ``rotation_check``: the orthogonality error ``max|RᵀR − I|``
``tour-rotation-verdict``  1       ``rotation_check``: the verdict (error ≤ tol, also at tol = 0, and det R > 0)
``tour-holding``           1       ``static_holding_torque`` on [SWC16]'s arm and [RNE05]'s
``tour-holding-gravity``   1       ... on random trees with another gravity (the Moon, tilted)
=========================  ======  ==========================================================
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lessonlib import samples, so3
from lessonlib.dynamics import gravity_torques
from lessonlib.dynamics.energy import potential_energy
from .. import display
from ..checker import Exercise, Variant
from ._common import expect_bool

EXERCISE = Exercise(
    "tour00", notebook="00_tour.ipynb", title="Lesson 00 — warm-up: rotations and holding torques",
    blocked=("lessonlib.so3:is_rotation",))

#: The pose the tour shows [SWC16]'s arm in (course/00_tour.ipynb, ``q_show``).
Q_SHOW = np.array([0.4, 0.7, 0.0, 1.1, 0.0, 0.5, 0.0])
#: Step of the central differences of the potential energy (checker self-test only).
FD_STEP = 1e-6


# --- references (judge side) --------------------------------------------------------------------

def orthogonality_errors(R):
    """``max|RᵀR − I|`` and ``max|RRᵀ − I|`` (either one is an accepted orthogonality error)."""
    R = np.asarray(R, dtype=float)
    return float(np.abs(R.T @ R - np.eye(3)).max()), float(np.abs(R @ R.T - np.eye(3)).max())


def is_rotation_reference(R, tol):
    return orthogonality_errors(R)[0] <= tol and float(np.linalg.det(R)) > 0


def gravity_by_potential(model, q, gravity=None):
    """``g(q) = ∂U/∂q`` by central differences of the potential energy (no RNEA anywhere)."""
    q = np.asarray(q, dtype=float)
    E = np.eye(model.n) * FD_STEP
    return np.array([(potential_energy(model, q + e, gravity=gravity) - potential_energy(model, q - e, gravity=gravity))
                     / (2 * FD_STEP) for e in E])


def holding_reference(model, q, gravity=None):
    tau = gravity_torques(model, q, gravity=gravity)
    assert np.allclose(tau, gravity_by_potential(model, q, gravity), atol=1e-5), "checker self-test: dU/dq"
    return np.where(np.abs(tau) < 1e-12, 0.0, tau)                      # rounding noise: no -0 in a message


# --- known mistakes (judge side): the reference answers with one slip ------------------------------

def rotation_check_with(R, tol=1e-6, *, error_of=lambda E: np.abs(E).max(), within=lambda e, tol: e <= tol,
                        det=True, swapped=False):
    """``(error, ok)`` as the notebook asks — or with a slip: another ``error_of(RᵀR − I)``, another test
    ``within(error, tol)``, no ``det R > 0`` test, or the pair returned the other way round."""
    R = np.asarray(R, dtype=float)
    error = float(error_of(R.T @ R - np.eye(3)))
    ok = bool(within(error, tol) and (not det or np.linalg.det(R) > 0))
    return (ok, error) if swapped else (error, ok)


def holding_with(model, q, gravity=None, *, sign=1.0, default=None):
    """``τ = g(q)`` — or with a slip: times ``sign``, or ``default(model, gravity)`` choosing the gravity."""
    g = gravity if default is None else default(model, gravity)
    return sign * gravity_torques(model, q, gravity=g)


ERROR_NORM = Variant("your error seems to be a norm of RᵀR − I (np.linalg.norm); it is its largest entry, "
                     "np.abs(R.T @ R - I).max()",
                     rotation_check=partial(rotation_check_with, error_of=np.linalg.norm))
ERROR_NO_ABS = Variant("your error seems to be the largest entry of RᵀR − I without the absolute value: an entry "
                       "below −tol is as wrong as one above; take np.abs(R.T @ R - I).max()",
                       rotation_check=partial(rotation_check_with, error_of=lambda E: E.max()))
PAIR_SWAPPED = Variant("your rotation_check seems to return (ok, error); the notebook's pair is (error, ok)",
                       rotation_check=partial(rotation_check_with, swapped=True))
DET_FORGOTTEN = Variant("your ok seems not to test det R > 0: a reflection (det R = −1) and −R also have RᵀR = I",
                        rotation_check=partial(rotation_check_with, det=False))
STRICT_TOL = Variant("your ok seems to test error < tol; the notebook's test is error <= tol (with tol = 0 an exact "
                     "rotation has error 0 and still passes)",
                     rotation_check=partial(rotation_check_with, within=lambda e, tol: e < tol))
TOL_IGNORED = Variant("your ok seems to ignore the argument tol (a fixed 1e-6, or np.allclose's own tolerance): "
                      "compare the error with tol itself",
                      rotation_check=partial(rotation_check_with, within=lambda e, tol: e <= 1e-6))
HOLDING_SIGN = Variant("your torques seem to be −g(q): the motors supply τ = g(q) itself (the gravity_torques "
                       "of the standard form M q̈ + c + g(q) = τ at rest), not its opposite",
                       static_holding_torque=partial(holding_with, sign=-1.0))
GRAVITY_IGNORED = Variant("your static_holding_torque seems to ignore its gravity argument (the model's default "
                          "gravity is used): hand it on, gravity_torques(model, q, gravity=gravity)",
                          static_holding_torque=partial(holding_with, default=lambda model, g: None))
NONE_IS_MINUS_Z = Variant("your gravity=None seems to become (0, 0, −9.81) for every arm; None means the model's own "
                          "default, model.gravity — the planar arms' is (0, −9.81, 0)",
                          static_holding_torque=partial(holding_with, default=lambda model, g: np.array(
                              [0.0, 0.0, -9.81]) if g is None else g))


def random_rotation(ctx):
    return so3.exp(ctx.rng.normal(size=3) * ctx.rng.uniform(0.3, 1.0))


def _rotation_cases(ctx):
    """(label, R, tol): rotations, near-rotations and clear non-rotations, in a random order.

    The identity with tol = 0 sits on the boundary error = tol; the squeezed-and-stretched rotation has
    entries of RᵀR − I of both signs (its largest entry is not its largest in absolute value)."""
    R = [random_rotation(ctx) for _ in range(6)]
    noise = ctx.rng.normal(size=(3, 3))
    cases = [("a rotation", R[0], 1e-6),
             ("the identity", np.eye(3), 1e-6),
             ("the identity, tol = 0", np.eye(3), 0.0),
             ("a rotation about z", so3.rot_z(ctx.rng.uniform(-3, 3)), 1e-6),
             ("a rotation with rounding noise (1e-10)", R[1] + 1e-10 * noise, 1e-6),
             ("a rotation with noise 1e-4", R[2] + 1e-4 * noise, 1e-6),
             ("the same noisy rotation, tol = 1e-2", R[2] + 1e-4 * noise, 1e-2),
             ("a reflection (det = -1)", R[3] @ np.diag([1.0, 1.0, -1.0]), 1e-6),
             ("minus a rotation", -R[4], 1e-6),
             ("a rotation scaled by 1.05", 1.05 * R[5], 1e-6),
             ("a rotation stretched along one axis", R[0] @ np.diag([1.0, 1.3, 1.0]), 1e-6),
             ("a rotation squeezed along one axis, stretched along another", R[1] @ np.diag([0.8, 1.0, 1.1]), 1e-6),
             ("a shear", np.array([[1.0, 0.4, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), 1e-6)]
    order = ctx.rng.permutation(len(cases))
    return [cases[i] for i in order]


# --- (a) is it a rotation? -----------------------------------------------------------------------

@EXERCISE.check("tour-rotation-error", points=1, functions=("rotation_check",),
                title="rotation_check: the orthogonality error max|RᵀR − I|",
                variants=(ERROR_NORM, ERROR_NO_ABS, PAIR_SWAPPED))
def check_rotation_error(ctx, rotation_check):
    for label, R, tol in _rotation_cases(ctx):
        call = f"rotation_check(R, tol={tol:g}) with R = {label}"
        error, _ = ctx.expect_tuple(ctx.call(rotation_check, R, tol=tol), ("error", "ok"), call=call,
                                    hint="end the function with: return error, ok")
        error = float(ctx.expect_shape("error", error, (), call=call))
        e_tr, e_rt = orthogonality_errors(R)
        best = e_tr if abs(error - e_tr) <= abs(error - e_rt) else e_rt
        ctx.expect_close("error", error, best, call=call,
                         hint="error = the largest entry of |R.T @ R - I| (np.abs(...).max())")


@EXERCISE.check("tour-rotation-verdict", points=1, functions=("rotation_check",),
                title="rotation_check: the verdict RᵀR = I within tol and det R = +1",
                variants=(DET_FORGOTTEN, STRICT_TOL, TOL_IGNORED))
def check_rotation_verdict(ctx, rotation_check):
    for label, R, tol in _rotation_cases(ctx):
        call = f"rotation_check(R, tol={tol:g}) with R = {label}"
        _, ok = ctx.expect_tuple(ctx.call(rotation_check, R, tol=tol), ("error", "ok"), call=call,
                                 hint="end the function with: return error, ok")
        ok = expect_bool(ctx, ok, "ok", call=call)
        expected = is_rotation_reference(R, tol)
        if ok != expected:
            ctx.fail(f"ok: expected {expected}, got {ok}", call=call, got=ok,
                     hint="ok needs both: the error at most tol (error <= tol), and det(R) > 0 (a reflection has "
                          "det = -1)")


# --- (b) holding torques -------------------------------------------------------------------------

@EXERCISE.check("tour-holding", points=1, functions=("static_holding_torque",),
                title="static_holding_torque on [SWC16]'s and [RNE05]'s arms",
                variants=(HOLDING_SIGN, NONE_IS_MINUS_Z))
def check_holding(ctx, static_holding_torque):
    arm7, arm2 = samples.seed002_7dof(), samples.planar_2link()
    cases = [("[SWC16]'s 7-dof arm", arm7, Q_SHOW), ("[SWC16]'s 7-dof arm", arm7, ctx.rng.uniform(-np.pi, np.pi, 7)),
             ("[RNE05]'s planar 2-link arm", arm2, np.zeros(2)),
             ("[RNE05]'s planar 2-link arm", arm2, ctx.rng.uniform(-np.pi, np.pi, 2))]
    for label, model, q in cases:
        call = f"static_holding_torque(model, q) with model = {label}, q = {display.array(q)}"
        ctx.expect_close("tau (n,)", ctx.call(static_holding_torque, model, q), holding_reference(model, q), call=call,
                         hint="at rest the motors only cancel gravity: tau = g(q), the library's gravity_torques; "
                              "gravity=None means the model's own default")


@EXERCISE.check("tour-holding-gravity", points=1, functions=("static_holding_torque",),
                title="static_holding_torque on random arms, with another gravity",
                variants=(GRAVITY_IGNORED, HOLDING_SIGN))
def check_holding_gravity(ctx, static_holding_torque):
    g_tilted = ctx.rng.normal(size=3)
    g_tilted *= ctx.rng.uniform(5.0, 15.0) / np.linalg.norm(g_tilted)
    for label, gravity in (("the Moon's", np.array([0.0, 0.0, -1.62])), ("a tilted", g_tilted)):
        n = int(ctx.rng.integers(3, 7))
        model = samples.random_model(n, seed=int(ctx.rng.integers(2**31)), tree=True, prismatic=True)
        q = ctx.rng.uniform(-np.pi, np.pi, n)
        call = (f"static_holding_torque(model, q, gravity={display.array(gravity)}) "
                f"({label} gravity, a random {n}-body tree)")
        ctx.expect_close("tau (n,)", ctx.call(static_holding_torque, model, q, gravity=gravity),
                         holding_reference(model, q, gravity), call=call,
                         hint="tau = g(q) under this gravity, not the model's default one")
        ctx.expect_close("tau (n,)", ctx.call(static_holding_torque, model, q), holding_reference(model, q),
                         call=f"static_holding_torque(model, q) (gravity=None, the same {n}-body tree)",
                         hint="gravity=None means the model's own default gravity")
