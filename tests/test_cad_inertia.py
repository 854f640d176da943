"""Inertias from CAD (``lessonlib.model.inertia_from_cad``, issue 26 item 2) against point-mass clouds.

The independent route: every body of every sample robot is replaced by a cloud of point masses with the same
mass, centre of mass and inertia (checked by the cloud's momentum, a plain sum); the nine numbers a CAD
program would print are then the sums ``Σ m_k (y² + z²)`` and ``∓Σ m_k x y`` about the COM or the origin —
the parallel-axis theorem done by hand — and ``inertia_from_cad`` of them must give the body's inertia back.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from lessonlib import samples, so3, spatial
from lessonlib.conventions import ANG, LIN
from lessonlib.model import cad_values, inertia_from_cad

ROBOTS = dict(samples.ALL, panda=samples.panda, random_tree=lambda: samples.random_model(6, seed=21),
              random_tree_prismatic=lambda: samples.random_model(7, seed=22, prismatic=True),
              random_chain=lambda: samples.random_model(5, seed=23, tree=False))
CONVENTIONS = list(itertools.product(("com", "origin"), ("tensor", "positive")))


def cloud_of(G, rng):
    """Point masses with the mass, COM and inertia of ``G``: three pairs at ±s_k along the principal axes of I_c
    (its eigenvectors), checked against ``G`` by momentum sums."""
    m, c, I_c = spatial.inertia_params(G)
    moments, axes = np.linalg.eigh(I_c)
    second = 0.5 * moments.sum() - moments                  # Σ m_k (e_k·r)², ≥ 0 by the triangle inequality
    s = np.sqrt(np.maximum(second, 0.0) * 3.0 / m)         # six points of m/6 at c ± s_k e_k
    r_k = np.array([c + sign * s[k] * axes[:, k] for k in range(3) for sign in (1.0, -1.0)])
    m_k = np.full(6, m / 6.0)
    for _ in range(3):                                      # the cloud's momentum Σ [r × m ṙ; m ṙ] is G V
        V = rng.normal(size=6)
        v_k = V[LIN] + np.cross(V[ANG], r_k)
        momentum = np.r_[sum(np.cross(r, mk * vk) for mk, r, vk in zip(m_k, r_k, v_k)), m_k @ v_k]
        np.testing.assert_allclose(momentum, G @ V, atol=1e-10)
    return m_k, r_k


def cad_report_by_sums(m_k, r_k, about, products):
    """What a CAD program prints, by sums over the points: moments Σ m(y² + z²), products Σ m x y about the point."""
    point = m_k @ r_k / m_k.sum() if about == "com" else np.zeros(3)
    d = r_k - point
    J = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            if i == j:
                J[i, i] = sum(mk * (dk @ dk - dk[i] ** 2) for mk, dk in zip(m_k, d))
            else:
                P_ij = sum(mk * dk[i] * dk[j] for mk, dk in zip(m_k, d))         # +∫ x y dm
                J[i, j] = P_ij if products == "positive" else -P_ij
    return float(m_k.sum()), m_k @ r_k / m_k.sum(), J


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_every_body_comes_back_from_its_cad_report_in_all_four_conventions(name):
    model = ROBOTS[name]()
    rng = np.random.default_rng(7)
    for i, G in enumerate(model.inertia):
        m_k, r_k = cloud_of(G, rng)
        for about, products in CONVENTIONS:
            report = cad_report_by_sums(m_k, r_k, about, products)
            got = inertia_from_cad(*report, about=about, products=products)
            np.testing.assert_allclose(got, G, atol=1e-10, err_msg=f"{name} body {i}: {about}, {products}")
            m, c, J = cad_values(G, about=about, products=products)      # and the report the library writes
            assert m == pytest.approx(report[0], rel=1e-12)
            np.testing.assert_allclose(c, report[1], atol=1e-12)
            np.testing.assert_allclose(J, report[2], atol=1e-10, err_msg=f"{name} body {i}: {about}, {products}")


def test_the_four_reports_of_one_body_differ_as_the_two_conventions_say():
    """A body with all three products non-zero and the COM off the origin: the four reports are four different
    matrices; 'positive' flips exactly the off-diagonal signs, 'origin' adds exactly −m[p_c]² = m(|p_c|²1 − p_c p_cᵀ)."""
    R = so3.exp(np.array([0.3, -0.5, 0.8]))
    m, c = 2.5, np.array([0.12, -0.05, 0.3])
    I_c = R @ np.diag([0.02, 0.05, 0.06]) @ R.T
    G = spatial.inertia(m, c, I_c)
    J = {conv: cad_values(G, about=conv[0], products=conv[1])[2] for conv in CONVENTIONS}
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(J["com", "tensor"], I_c, atol=1e-14)
    np.testing.assert_allclose(J["com", "positive"][off], -I_c[off], atol=1e-14)
    np.testing.assert_allclose(np.diag(J["com", "positive"]), np.diag(I_c), atol=1e-14)
    np.testing.assert_allclose(J["origin", "tensor"] - J["com", "tensor"], -m * so3.hat(c) @ so3.hat(c), atol=1e-14)
    assert np.abs(I_c[off]).min() > 1e-3
    for a, b in itertools.combinations(CONVENTIONS, 2):
        assert np.abs(J[a] - J[b]).max() > 1e-3, (a, b)


def test_a_uniform_rod_by_hand():
    """1 kg, 1 m rod along x from the origin: mL²/12 = 1/12 about the COM, mL²/3 = 1/3 about the end."""
    rod = spatial.inertia(1.0, [0.5, 0.0, 0.0], np.diag([0.0, 1 / 12, 1 / 12]))
    for products in ("tensor", "positive"):
        np.testing.assert_allclose(
            inertia_from_cad(1.0, [0.5, 0, 0], np.diag([0.0, 1 / 3, 1 / 3]), about="origin", products=products), rod)
        np.testing.assert_allclose(
            inertia_from_cad(1.0, [0.5, 0, 0], np.diag([0.0, 1 / 12, 1 / 12]), about="com", products=products), rod)


def test_a_slab_with_products_the_solidworks_way():
    """A point-mass pair at ±(0.1, 0.2, 0.05) m (0.5 kg each) plus a third at (0.1, −0.1, 0.2) m, about the origin:
    SolidWorks prints P_xy = Σ m x y = 0.5·0.02·2 + 1·(−0.01) = 0.01; the tensor entry is −0.01."""
    m_k = np.array([0.5, 0.5, 1.0])
    r_k = np.array([[0.1, 0.2, 0.05], [-0.1, -0.2, -0.05], [0.1, -0.1, 0.2]])
    m, c, P = cad_report_by_sums(m_k, r_k, "origin", "positive")
    assert P[0, 1] == pytest.approx(0.01) and P[0, 2] == pytest.approx(0.025) and P[1, 2] == pytest.approx(-0.01)
    G = inertia_from_cad(m, c, P, about="origin", products="positive")
    assert G[0, 1] == pytest.approx(-0.01) and G[0, 2] == pytest.approx(-0.025) and G[1, 2] == pytest.approx(0.01)
    assert G[0, 0] == pytest.approx(sum(mk * (r[1] ** 2 + r[2] ** 2) for mk, r in zip(m_k, r_k)))


@pytest.mark.parametrize("name", ["ur5", "panda", "seed002_7dof", "branched_tree"])
def test_each_classic_slip_changes_the_inertia(name):
    """The slips are silent in general but never harmless: each gives another (usually still 'valid') inertia."""
    for i, G in enumerate(ROBOTS[name]().inertia):
        m, c, J_c = cad_values(G, about="com", products="tensor")
        _, _, J_O = cad_values(G, about="origin", products="tensor")
        shift = np.abs(m * so3.hat(c) @ so3.hat(c)).max()
        if shift > 1e-6:
            com_as_origin = _maybe(inertia_from_cad, m, c, J_c, about="origin", products="tensor")
            assert com_as_origin is None or np.abs(com_as_origin - G).max() > 0.5 * shift, (name, i)
            origin_as_com = inertia_from_cad(m, c, J_O, about="com", products="tensor")   # always a body
            assert np.abs(origin_as_com - G).max() > 0.5 * shift, (name, i)
        off = np.abs(J_c[~np.eye(3, dtype=bool)]).max()
        if off > 1e-9:
            flipped = _maybe(inertia_from_cad, m, c, J_c, about="com", products="positive")
            assert flipped is None or np.abs(flipped - G).max() == pytest.approx(2 * off), (name, i)


def _maybe(f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except ValueError:
        return None


# --- errors -----------------------------------------------------------------------------------------------

GOOD = (2.0, [0.1, 0.0, 0.2], np.diag([0.02, 0.03, 0.04]))


@pytest.mark.parametrize("args, match", [
    ((0.0, *GOOD[1:]), "mass"), ((-1.0, *GOOD[1:]), "mass"), ((np.nan, *GOOD[1:]), "mass"),
    ((GOOD[0], [0.1, 0.2], GOOD[2]), "com"), ((GOOD[0], [0.1, np.inf, 0.0], GOOD[2]), "com"),
    ((GOOD[0], GOOD[1], np.eye(2)), "tensor"), ((GOOD[0], GOOD[1], np.full((3, 3), np.nan)), "tensor"),
    ((GOOD[0], GOOD[1], np.diag([0.02, 0.03, 0.04]) + np.triu(np.full((3, 3), 0.001), 1)), "tensor.*symmetric"),
    ((GOOD[0], GOOD[1], "heavy"), "tensor"),
])
def test_bad_arguments_are_named(args, match):
    with pytest.raises(ValueError, match=match):
        inertia_from_cad(*args, about="com", products="tensor")


def test_about_and_products_must_be_said():
    with pytest.raises(TypeError):
        inertia_from_cad(*GOOD)                                   # keyword-only, no default: say which
    with pytest.raises(TypeError):
        inertia_from_cad(*GOOD, about="com")
    with pytest.raises(ValueError, match="about: expected one of \\('com', 'origin'\\)"):
        inertia_from_cad(*GOOD, about="centroid", products="tensor")
    with pytest.raises(ValueError, match="products: expected one of \\('tensor', 'positive'\\)"):
        inertia_from_cad(*GOOD, about="com", products="negative")
    with pytest.raises(ValueError, match="about"):
        cad_values(spatial.inertia(*GOOD), about=None, products="tensor")


def test_positive_products_passed_as_tensor_entries_are_named_when_they_make_an_impossible_body():
    """A slender bar along (1, 1, 1)/√3 (all three products non-zero): its tensor entries are −0.03, SolidWorks
    prints P = +0.03, and read as tensor entries those give principal moments (0.04, 0.04, 0.13): 0.04 + 0.04 < 0.13."""
    u = np.ones(3) / np.sqrt(3)
    I_c = 0.09 * (np.eye(3) - np.outer(u, u)) + 0.01 * np.eye(3)
    np.testing.assert_allclose(I_c[0, 1], -0.03)
    P = 2 * np.diag(np.diag(I_c)) - I_c                       # its SolidWorks report: P_xy = +0.03
    np.testing.assert_allclose(inertia_from_cad(1.0, np.zeros(3), P, about="com", products="positive"),
                               spatial.inertia(1.0, np.zeros(3), I_c))
    np.testing.assert_allclose(np.linalg.eigvalsh(P), [0.04, 0.04, 0.13])
    with pytest.raises(ValueError, match="products: .*positive products .*products='tensor'.*products='positive'"):
        inertia_from_cad(1.0, np.zeros(3), P, about="com", products="tensor")
    with pytest.raises(ValueError, match="products: .*already tensor entries.*products='tensor'"):
        inertia_from_cad(1.0, np.zeros(3), I_c, about="com", products="positive")


def test_a_com_inertia_declared_as_origin_inertia_is_named_when_it_leaves_a_negative_inertia():
    """[RNE05 §五]: a COM inertia far from the origin, declared as taken at the origin, loses more than it has."""
    m, c, I_c = 3.0, np.array([0.0, 0.0, 0.4]), np.diag([0.05, 0.05, 0.01])
    with pytest.raises(ValueError, match="tensor: .*about='origin'.*taken off leaves too little"):
        inertia_from_cad(m, c, I_c, about="origin", products="tensor")
    with pytest.raises(ValueError, match="was it taken at the COM\\? Then say about='com'"):
        inertia_from_cad(m, c, I_c, about="origin", products="positive")


def test_a_solidworks_com_report_declared_as_tensor_values_at_the_origin_names_both_slips():
    u = np.ones(3) / np.sqrt(3)
    I_c = 0.09 * (np.eye(3) - np.outer(u, u)) + 0.01 * np.eye(3)
    P = 2 * np.diag(np.diag(I_c)) - I_c                                       # SolidWorks, at the COM
    c = np.array([0.0, 0.0, 0.5])
    with pytest.raises(ValueError, match="tensor: .*were they taken at the COM \\(about='com', products='positive'\\)"):
        inertia_from_cad(1.0, c, P, about="origin", products="tensor")
    np.testing.assert_allclose(inertia_from_cad(1.0, c, P, about="com", products="positive"),
                               spatial.inertia(1.0, c, I_c))


def test_an_impossible_report_with_no_likely_slip_says_what_to_check():
    with pytest.raises(ValueError, match="tensor: .*triangle|tensor: .*units"):
        inertia_from_cad(1.0, np.zeros(3), np.diag([0.1, 0.1, 0.3]), about="com", products="tensor")


def test_a_thin_rod_and_a_point_mass_are_accepted():
    G = inertia_from_cad(1.0, [0.0, 0.0, 0.5], np.diag([1 / 3, 1 / 3, 0.0]), about="origin", products="positive")
    np.testing.assert_allclose(spatial.inertia_params(G)[2], np.diag([1 / 12, 1 / 12, 0.0]), atol=1e-15)
    G = inertia_from_cad(2.0, [0.3, 0.0, 0.0], np.zeros((3, 3)), about="com", products="tensor")
    np.testing.assert_allclose(G[ANG, ANG], 2.0 * np.diag([0.0, 0.09, 0.09]), atol=1e-15)
