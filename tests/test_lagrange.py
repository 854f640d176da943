"""Lagrange's route (the independent oracle): the source texts' closed forms, Craig's arm, agreement with the
recursive algorithms, Christoffel properties, caching, immutability and input checks.

Each sample Model is built once per module (fixtures): the Lagrange caches are keyed by the Model
object, so a fresh ``samples.ur5()`` in every test would re-derive the equations each time.
"""
import ast
import dataclasses
import inspect

import numpy as np
import pytest
import sympy as sp

from lessonlib import samples, spatial
from lessonlib.dynamics import coriolis_matrix, crba, gravity_torques, rnea, velocity_torques
from lessonlib.dynamics import lagrange as lagrange_module
from lessonlib.dynamics.lagrange import (LagrangeEquations, lagrange_numeric, lagrange_symbolic,
                                         lagrange_terms)
from lessonlib.model import Joint, Model
from lessonlib.se3 import from_Rp

TOL = 1e-9
AGREEMENT = ["pendulum", "planar_2link", "seed004_2link", "planar_3link", "rpr_arm", "scara",
             "branched_tree", "ur5", "seed002_7dof", "random3_1", "random4_2", "scaled_2link"]
_BUILT = {}


def _scaled_2link():
    """planar_2link whose first joint turns by √2·q (a screw of norm √2, as in Modern Robotics'
    synthetic 3-link example)."""
    arm = samples.planar_2link()
    first = arm.joints[0]
    return arm.replace(joints=(Joint(first.kind, first.axis, name=first.name, scale=np.sqrt(2.0)),
                               arm.joints[1]), name="scaled_2link")


_EXTRA = {"random3_1": lambda: samples.random_model(3, seed=1),
          "random4_2": lambda: samples.random_model(4, seed=2),
          "scaled_2link": _scaled_2link}


def sample(name):
    """One Model object per sample name for the whole module (the caches are per Model object)."""
    if name not in _BUILT:
        _BUILT[name] = _EXTRA[name]() if name in _EXTRA else getattr(samples, name)()
    return _BUILT[name]


def states(model, count=5, seed=0):
    rng = np.random.default_rng(seed)
    return [tuple(rng.uniform(-2.0, 2.0, size=(3, model.n))) for _ in range(count)]


def expr_is_zero(e):
    return sp.simplify(sp.expand(e)) == 0


# --- [WJ §2.1]: the single link ------------------------------------------------------------------

def test_wj_pendulum_symbolic_and_numeric():
    arm = samples.pendulum(m=2.0, length=0.8)
    eq = lagrange_symbolic(arm)
    (q,), (qdd,) = eq.q, eq.qdd
    I_O = sp.Rational(2) * sp.Rational(4, 5) ** 2 / 3                   # m L² / 3 = 32/75
    m, ell, g0 = 2, sp.Rational(2, 5), sp.Rational(981, 100)
    assert eq.M == sp.Matrix([[sp.Rational(32, 75)]]) and eq.M[0, 0] == I_O
    assert eq.C == sp.zeros(1, 1)                                      # [WJ §2.1]: c = 0 for one link
    assert expr_is_zero(eq.tau_expr[0] - (I_O * qdd + m * g0 * ell * sp.sin(q)))
    assert expr_is_zero(eq.g[0] - sp.diff(eq.U, q))
    for q_val, qdd_val in [(0.0, 0.0), (0.3, 1.7), (-1.2, -0.4), (np.pi / 2, 0.0), (2.5, 3.0)]:
        tau = lagrange_numeric(arm, [q_val], [0.9], [qdd_val])
        assert tau[0] == pytest.approx(32 / 75 * qdd_val + 2.0 * 9.81 * 0.4 * np.sin(q_val), abs=1e-12)


def test_pendulum_energy_values():
    eq = lagrange_symbolic(sample("pendulum"))
    q, qd = eq.q[0], eq.qd[0]
    assert expr_is_zero(eq.T - qd**2 / 6)                               # ½ I_O q̇², I_O = 1/3
    assert expr_is_zero(eq.U + sp.Rational(981, 200) * sp.cos(q))      # zero level at the pivot


# --- [DB4 §4.2]: the 2-link planar arm's M(q) ------------------------------------------------

@pytest.mark.parametrize("simplify", [True, False])
def test_db4_mass_matrix_closed_form(simplify):
    eq = lagrange_symbolic(sample("seed004_2link"), simplify=simplify)
    q2 = eq.q[1]
    l1 = l2 = sp.Rational(1, 2)
    m1 = m2 = sp.Integer(5)
    I1 = I2 = m1 * l1**2 / 12
    M11 = m1 * l1**2 / 4 + m2 * (l1**2 + l2**2 / 4 + l1 * l2 * sp.cos(q2)) + I1 + I2
    M12 = m2 * (l2**2 / 4 + l1 * l2 * sp.cos(q2) / 2) + I2
    M22 = m2 * l2**2 / 4 + I2
    closed = sp.Matrix([[M11, M12], [M12, M22]])
    assert sp.simplify(eq.M - closed) == sp.zeros(2, 2)
    assert eq.simplified is simplify
    if simplify:                                                      # simplified: literally equal
        assert sp.expand(eq.M - closed) == sp.zeros(2, 2)


def test_db4_mass_matrix_extreme_coupling():
    """[DB4 §4.2]: the coupling M12 is largest stretched out (q2 = 0), smallest folded (q2 = π)."""
    arm = sample("seed004_2link")
    M_out = lagrange_terms(arm, [0.3, 0.0], [0.0, 0.0])[0]
    M_fold = lagrange_terms(arm, [0.3, np.pi], [0.0, 0.0])[0]
    assert M_out[0, 1] == pytest.approx(5 * (0.0625 + 0.125) + 5 * 0.25 / 12, abs=1e-12)
    assert M_fold[0, 1] == pytest.approx(5 * (0.0625 - 0.125) + 5 * 0.25 / 12, abs=1e-12)


# --- Craig's 2-link arm with point masses at the link ends --------------------------------------

CRAIG = dict(l1=0.7, l2=0.4, m1=2.0, m2=1.5, g0=9.81)


@pytest.fixture(scope="module")
def craig_arm():
    """Craig, *Introduction to Robotics*, Newton–Euler chapter: point masses at the distal link
    ends (I_c = 0, a valid inertia), joints about z, angles from +x, gravity along −y."""
    l1, l2, m1, m2, g0 = (CRAIG[k] for k in ("l1", "l2", "m1", "m2", "g0"))
    Z = np.zeros((3, 3))
    return Model([-1, 0], [Joint("revolute", [0, 0, 1]), Joint("revolute", [0, 0, 1])],
                 [np.eye(4), from_Rp(np.eye(3), [l1, 0.0, 0.0])],
                 [spatial.inertia(m1, [l1, 0, 0], Z), spatial.inertia(m2, [l2, 0, 0], Z)],
                 gravity=(0.0, -g0, 0.0), name="craig_2link")


def craig_tau(q1, q2, qd1, qd2, qdd1, qdd2, l1, l2, m1, m2, g0, cos, sin):
    c1, c2, s2, c12 = cos(q1), cos(q2), sin(q2), cos(q1 + q2)
    tau1 = (m2 * l2**2 * (qdd1 + qdd2) + m2 * l1 * l2 * c2 * (2 * qdd1 + qdd2) + (m1 + m2) * l1**2 * qdd1
            - m2 * l1 * l2 * s2 * qd2**2 - 2 * m2 * l1 * l2 * s2 * qd1 * qd2
            + m2 * l2 * g0 * c12 + (m1 + m2) * l1 * g0 * c1)
    tau2 = m2 * l1 * l2 * c2 * qdd1 + m2 * l1 * l2 * s2 * qd1**2 + m2 * l2 * g0 * c12 + m2 * l2**2 * (qdd1 + qdd2)
    return tau1, tau2


def test_craig_point_mass_arm_symbolic(craig_arm):
    eq = lagrange_symbolic(craig_arm)
    exact = {k: sp.nsimplify(v) for k, v in CRAIG.items()}
    expected = craig_tau(*eq.q, *eq.qd, *eq.qdd, **exact, cos=sp.cos, sin=sp.sin)
    for i in range(2):
        assert expr_is_zero(eq.tau_expr[i] - expected[i])


def test_craig_point_mass_arm_numeric(craig_arm):
    for q, qd, qdd in states(craig_arm, 8, seed=3):
        expected = craig_tau(*q, *qd, *qdd, **CRAIG, cos=np.cos, sin=np.sin)
        assert np.allclose(lagrange_numeric(craig_arm, q, qd, qdd), expected, atol=1e-12)


# --- the Euler–Lagrange equations themselves ----------------------------------------------------

def euler_lagrange(eq):
    """d/dt ∂L/∂q̇ − ∂L/∂q, with d/dt f(q, q̇) = Σ_k ∂f/∂q_k q̇_k + ∂f/∂q̇_k q̈_k."""
    L = eq.L

    def ddt(f):
        return sum(sp.diff(f, q) * qd + sp.diff(f, qd) * qdd for q, qd, qdd in zip(eq.q, eq.qd, eq.qdd))

    return sp.Matrix([ddt(sp.diff(L, qd)) - sp.diff(L, q) for q, qd in zip(eq.q, eq.qd)])


@pytest.mark.parametrize("name", ["seed004_2link", "planar_3link", "rpr_arm"])
def test_standard_form_is_euler_lagrange_of_T_minus_U(name):
    model = sample(name)
    eq = lagrange_symbolic(model, gravity=[0.3, -1.1, -9.81])        # every joint feels gravity
    residual = sp.expand(euler_lagrange(eq) - eq.tau_expr)
    assert residual == sp.zeros(model.n, 1)


# --- agreement with the recursive algorithms ----------------------------------------------------

@pytest.mark.parametrize("name", AGREEMENT)
def test_agrees_with_rnea_crba_and_terms(name):
    model = sample(name)
    for q, qd, qdd in states(model):
        M, C, g = lagrange_terms(model, q, qd)
        assert np.allclose(M, crba(model, q), rtol=0, atol=TOL)
        assert np.allclose(C @ qd, velocity_torques(model, q, qd), rtol=0, atol=TOL)
        assert np.allclose(C, coriolis_matrix(model, q, qd), rtol=0, atol=TOL)
        assert np.allclose(g, gravity_torques(model, q), rtol=0, atol=TOL)
        assert np.allclose(lagrange_numeric(model, q, qd, qdd), rnea(model, q, qd, qdd), rtol=0, atol=TOL)


@pytest.mark.parametrize("name", ["rpr_arm", "branched_tree", "ur5"])
def test_gravity_keyword_agrees_with_rnea(name):
    model = sample(name)
    gravity = np.array([1.5, -2.0, -9.81])
    for q, qd, qdd in states(model, 3, seed=7):
        assert np.allclose(lagrange_numeric(model, q, qd, qdd, gravity=gravity),
                           rnea(model, q, qd, qdd, gravity=gravity), rtol=0, atol=TOL)
        assert np.allclose(lagrange_terms(model, q, qd, gravity=gravity)[2],
                           gravity_torques(model, q, gravity=gravity), rtol=0, atol=TOL)


@pytest.mark.parametrize("name", ["planar_3link", "scara", "ur5"])
def test_zero_gravity_gives_zero_g(name):
    model = sample(name)
    eq = lagrange_symbolic(model, gravity=[0, 0, 0])
    assert eq.g == sp.zeros(model.n, 1) and eq.U == 0
    q, qd, _ = states(model, 1)[0]
    assert np.array_equal(lagrange_terms(model, q, qd, gravity=(0, 0, 0))[2], np.zeros(model.n))
    assert lagrange_symbolic(model).g != sp.zeros(model.n, 1)         # the default gravity is not zero


# --- Christoffel properties ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["seed004_2link", "planar_3link", "rpr_arm"])
def test_Mdot_minus_2C_skew_symbolic(name):
    eq = lagrange_symbolic(sample(name))
    N = eq.Mdot - 2 * eq.C
    assert (N + N.T).applyfunc(sp.expand) == sp.zeros(eq.n, eq.n)
    assert (eq.Mdot - eq.C - eq.C.T).applyfunc(sp.expand) == sp.zeros(eq.n, eq.n)


@pytest.mark.parametrize("name", ["scara", "branched_tree", "ur5"])
def test_Mdot_minus_2C_skew_numeric(name):
    model = sample(name)
    eq = lagrange_symbolic(model)
    Mdot = sp.lambdify([eq.q, eq.qd], eq.Mdot, cse=True)
    for q, qd, _ in states(model, 5, seed=11):
        N = np.asarray(Mdot(q, qd), dtype=float) - 2 * lagrange_terms(model, q, qd)[1]
        assert np.abs(N + N.T).max() < TOL
        assert np.abs(N).max() > 1e-3                                  # a real matrix, not zero


@pytest.mark.parametrize("name", ["rpr_arm", "scara", "branched_tree"])
def test_numeric_C_is_the_symbolic_C(name):
    """lagrange_terms assembles C in numpy from ∂M/∂q_k: the same numbers as the symbolic C."""
    model = sample(name)
    eq = lagrange_symbolic(model)
    C_sym = sp.lambdify([eq.q, eq.qd], eq.C, cse=True)
    for q, qd, _ in states(model, 3, seed=5):
        assert np.allclose(np.asarray(C_sym(q, qd), dtype=float), lagrange_terms(model, q, qd)[1],
                           rtol=0, atol=1e-12)


def test_dM_is_the_derivative_of_M():
    eq = lagrange_symbolic(sample("planar_3link"))
    for k, q_k in enumerate(eq.q):
        assert (eq.dM[k] - eq.M.diff(q_k)) == sp.zeros(3, 3)
    assert eq.dM[0] == sp.zeros(3, 3)                                   # M never depends on q1


# --- results: immutable, cached -----------------------------------------------------------------

def test_result_is_immutable_and_typed():
    eq = lagrange_symbolic(sample("seed004_2link"))
    assert isinstance(eq, LagrangeEquations)
    assert [str(s) for s in eq.q] == ["q1", "q2"] and [str(s) for s in eq.qd] == ["qd1", "qd2"]
    assert eq.M.shape == (2, 2) and eq.C.shape == (2, 2) and eq.g.shape == (2, 1)
    assert eq.gravity == (0.0, -9.81, 0.0) and eq.model_name == "seed004_2link"
    with pytest.raises(dataclasses.FrozenInstanceError):
        eq.M = sp.eye(2)
    with pytest.raises(TypeError):
        eq.M[0, 0] = 1


def test_results_are_cached_per_model_gravity_and_simplify():
    model = sample("planar_2link")
    eq = lagrange_symbolic(model)
    assert lagrange_symbolic(model) is eq
    assert lagrange_symbolic(model, gravity=(0.0, -9.81, 0.0)) is eq    # the default, given explicitly
    assert lagrange_symbolic(model, simplify=True) is eq               # "auto" is True for n = 2
    other = lagrange_symbolic(model, gravity=(0.0, -10.0, 0.0))
    assert other is not eq and lagrange_symbolic(model, gravity=(0.0, -10.0, 0.0)) is other
    assert other.M is eq.M                                            # M does not depend on gravity
    assert lagrange_symbolic(model, simplify=False) is not eq
    assert lagrange_symbolic(samples.planar_2link()) is not eq         # another Model object


def test_simplify_auto_depends_on_size():
    assert lagrange_symbolic(sample("planar_3link")).simplified is True
    assert lagrange_symbolic(sample("scara")).simplified is False


# --- input checks and the layer rule ------------------------------------------------------------

@pytest.mark.parametrize("args, name", [
    (([0.1], [0.0, 0.0], [0.0, 0.0]), "q"),
    (([0.1, 0.2], [0.0], [0.0, 0.0]), "qd"),
    (([0.1, 0.2], [0.0, 0.0], [0.0, 0.0, 0.0]), "qdd"),
    (([0.1, np.nan], [0.0, 0.0], [0.0, 0.0]), "q"),
])
def test_bad_state_names_the_argument(args, name):
    with pytest.raises(ValueError, match=rf"^{name}:"):
        lagrange_numeric(sample("planar_2link"), *args)


def test_bad_options_name_the_argument():
    model = sample("planar_2link")
    with pytest.raises(ValueError, match=r"^gravity:"):
        lagrange_numeric(model, [0, 0], [0, 0], [0, 0], gravity=[0.0, -9.81])
    with pytest.raises(ValueError, match=r"^gravity:"):
        lagrange_symbolic(model, gravity=[0.0, np.inf, 0.0])
    with pytest.raises(ValueError, match=r"^simplify:"):
        lagrange_symbolic(model, simplify="fast")
    with pytest.raises(ValueError, match=r"^qd:"):
        lagrange_terms(model, [0, 0], [0, 0, 0])


def test_lagrange_imports_no_dynamics_algorithm():
    tree = ast.parse(inspect.getsource(lagrange_module))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add((node.level, node.module or ""))
            imported.update((node.level, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            imported.update((0, alias.name) for alias in node.names)
    names = {name for _, name in imported}
    assert not names & {"rnea", "crba", "aba", "terms", "kinematics", "rnea_classic", "rnea_poe", "denoc"}
    assert all(level != 1 for level, _ in imported)                    # nothing from lessonlib.dynamics


def test_caches_do_not_keep_a_model_alive():
    import gc
    import weakref
    model = samples.pendulum(m=3.0)
    lagrange_numeric(model, [0.2], [0.1], [0.0])
    eq = lagrange_symbolic(model)
    ref = weakref.ref(model)
    del model
    gc.collect()
    assert ref() is None                                              # the weak caches let it go
    assert eq.M == sp.Matrix([[1]])                                    # the result lives on: 3·1²/3
