"""lessonlib.complexity: operation counts against hand counts, and the published figures."""
import importlib.util

import pytest

from lessonlib.complexity import (DENSE, LAGRANGE_MEASURED, STRUCTURED, Count, lagrange_counts, linear_formula,
                                  operation_counts, published_counts, published_forward_dynamics)

# Structured costs used in the hand counts below (m = multiplications, a = additions):
# joint transform 63m 57a; X·m, Xᵀ·f, I·m 24m 18a; v× m, v×* f 18m 12a; s·v 6m; u + v 6a;
# uᵀv 6m 5a; symmetric congruence Xᵀ Y X 198m 141a; symmetric 6×6 sum 21a.


def test_unit_costs_are_derived_from_3_vector_operations():
    rotation, cross = Count(9, 6), Count(6, 3)
    assert STRUCTURED["X_motion"] == 2 * rotation + cross + Count(0, 3)
    assert STRUCTURED["inertia_motion"] == rotation + 2 * cross + Count(3, 6)      # + m v, two sums
    assert STRUCTURED["cross_motion"] == 3 * cross + Count(0, 3)
    assert DENSE["X_motion"] == Count(36, 30)


def test_rnea_hand_counts():
    # n = 1: X (63m 57a); S q̇, S q̈ (12m); c = ad(v) vJ (18m 12a), a = X a_0 + aJ + c (24m18a + 12a);
    # f = I a + ad*(v) I v (48m36a + 18m12a + 6a); τ = Sᵀ f (6m 5a).
    assert operation_counts(1)["rnea"] == Count(63 + 12 + 42 + 66 + 6, 57 + 42 + 54 + 5)
    # n = 2: body 1 adds v = X v_p + vJ (24m 24a), a (42m 42a), f (66m 54a), f_p += Xᵀ f (24m 24a), τ (6m 5a).
    body1 = Count(24, 24) + Count(42, 42) + Count(66, 54) + Count(24, 24) + Count(6, 5)
    assert operation_counts(2)["rnea"] == operation_counts(1)["rnea"] + Count(63 + 12, 57) + body1
    assert operation_counts(2)["rnea"] == Count(426, 364)
    assert linear_formula("rnea") == (237, -48, 206, -48)


def test_crba_hand_counts_are_quadratic():
    # n = 1: X, F = I S (24m 18a), M_00 = Sᵀ F (6m 5a)
    assert operation_counts(1)["crba"] == Count(63 + 24 + 6, 57 + 18 + 5)
    # n = 2: + X, one congruence (198m 141a) and sum (21a), F and M_11, one walk step Xᵀ F, Sᵀ F
    assert operation_counts(2)["crba"] == Count(126 + 198 + 2 * 30 + 30, 114 + 141 + 21 + 2 * 23 + 23)
    c = [operation_counts(n)["crba"].mul for n in (4, 5, 6, 7)]
    second_differences = {c[i + 2] - 2 * c[i + 1] + c[i] for i in range(2)}
    assert second_differences == {30}                    # 15 n² + …: one walk step (30m) per pair
    with pytest.raises(ValueError, match="name"):
        linear_formula("crba")


def test_the_aba_breakdown_in_the_docstring_adds_up():
    """The module docstring splits our ABA's 530 multiplications per body; the rows must add up."""
    from lessonlib import complexity
    c = STRUCTURED
    rows = {"joint transform": c["joint_transform"].mul,
            "S-generic": c["matrix6_vector"].mul + 2 * c["dot6"].mul,
            "velocity product and joint rates": c["cross_motion"].mul + 2 * c["scale6"].mul,
            "congruence": c["congruence"].mul}
    assert rows == {"joint transform": 63, "S-generic": 48, "velocity product and joint rates": 30, "congruence": 198}
    assert linear_formula("aba")[0] == 530 == sum(rows.values()) + 191
    assert "530 n − 316" in complexity.__doc__ and "counted in this implementation" in complexity.__doc__


def test_aba_and_denoc_hand_counts():
    # ABA, n = 1: X 63m57a, vJ 6m; pass 1: ad(vJ) v, I v, ad*(v) (60m 42a); pass 2: U = I^A S (36m 30a),
    # D, u (12m 11a); pass 3: a' (24m 24a), q̈ (6m5a + 1m1a), a = a' + S q̈ (6m 6a).
    assert operation_counts(1)["aba"] == Count(63 + 6 + 60 + 48 + 37, 57 + 42 + 41 + 36)
    # DeNOC, n = 1: X 63m57a, O_k − O_p 3a, p_k 24m21a, t (12m 12a), ȧ, Ȧ t_p, W p θ̇ (18m 12a),
    # ṫ (12m 21a), M_k to world 54m36a, M ṫ 24m18a, W M E t + sum (27m 21a), τ 6m5a.
    assert operation_counts(1)["denoc"] == Count(63 + 24 + 12 + 18 + 12 + 54 + 24 + 27 + 6,
                                                 57 + 3 + 21 + 12 + 12 + 21 + 36 + 18 + 21 + 5)
    assert linear_formula("denoc") == (282, -42, 245, -39)
    seven = operation_counts(7)
    assert 1.1 < seven["denoc"].total / seven["rnea"].total < 1.3     # not 1/3: see the module docstring


def test_forward_dynamics_by_crba_adds_a_cholesky_solve():
    # n = 2: Cholesky 2m 1a (L10 = A10 / L00; L11² = A11 − L10²), each triangular solve 3m 1a
    two = operation_counts(2)
    assert two["forward_dynamics_crba"] == two["crba"] + two["rnea"] + Count(2 + 2 * 3, 1 + 2 * 1)


def test_dense_counts_what_numpy_executes():
    # n = 1: X = X_tree − s A + c B (72m 72a); vJ, aJ (12m); v = vJ (no arithmetic: the base has v = 0);
    # c = ad(v) vJ: ad(v) = v · basis (216m 180a) then 36m 30a; a = X a_0 + aJ + c (36m 30a + 12a);
    # f = I a + ad*(v) I v with ad*(v) = −ad(v)ᵀ, the ad(v) already built (72m 60a + 36m 30a + 6a); τ (6m 5a)
    ad = Count(216 + 36, 180 + 30)
    assert DENSE["cross_motion"] == ad and DENSE["cross_force"] == Count(36, 30)
    assert operation_counts(1, dense=True)["rnea"] == (Count(72, 72) + Count(12, 0) + ad
                                                       + Count(36, 42) + Count(72, 66) + Count(36, 30) + Count(6, 5))
    # n = 2: body 1 adds v = vJ + X v_p (36m 36a) and, as body 0, its X (72m 72a), S q̇, S q̈ (12m),
    # c and a, f, τ (ad 252m 210a + 36m 42a + 108m 96a + 6m 5a) and f_p += Xᵀ f (36m 36a)
    body1 = Count(72, 72) + Count(12, 0) + Count(36, 36) + ad + Count(36, 42) + Count(108, 96) + Count(6, 5) + Count(36, 36)
    assert operation_counts(2, dense=True)["rnea"] == operation_counts(1, dense=True)["rnea"] + body1
    assert "denoc" not in operation_counts(3, dense=True)
    assert operation_counts(7, dense=True)["aba"].total > operation_counts(7)["aba"].total


def test_published_figures_and_validation():
    lwp, source, status = published_counts(6)["rnea_luh_walker_paul"]
    assert lwp == Count(852, 738) and "[Hollerbach 1980]" in source and "not checked" in status
    assert "aba_featherstone_1983" not in published_counts(6)           # a recalled figure, no source: gone
    for count, source, status in published_counts(6).values():
        assert source.startswith("[") and status                        # cited by bibliography key, status said
    assert published_counts(6)["lagrange_recursive_hollerbach"][0] == Count(2195, 1719)
    with pytest.raises(ValueError, match="n: expected"):
        operation_counts(0)
    with pytest.raises(ValueError, match="n: the symbolic"):
        lagrange_counts(5)


def test_featherstone_table_10_1():
    """The rows read in [Featherstone 2008], Table 10.1, p. 202, and the crossover his p. 204 describes."""
    pub = published_counts(6)
    assert pub["aba_featherstone_1987"][0] == Count(300 * 6 - 267, 279 * 6 - 259)
    assert pub["aba_mcmillan_1995"][0] == Count(224 * 6 - 259, 205 * 6 - 248)
    assert pub["crba_walker_orin_1982"][0] == Count(12 * 36 + 56 * 6 - 27, 7 * 36 + 67 * 6 - 53)
    assert pub["factorize_solve"][0] == Count(86, 65)                 # 36 + 54 − 4, 36 + 36 − 7
    for source, status in (row[1:] for row in pub.values()):
        assert "Table 10.1" in source + status or "Hollerbach" in source
    ratio = {n: published_forward_dynamics(n)["crba_rnea_fs"].total / published_forward_dynamics(n)["aba"].total
             for n in range(2, 19)}
    assert all(ratio[n] < 1 for n in range(2, 9)) and all(ratio[n] > 1 for n in range(9, 19))   # "for n ≤ 8"
    assert round(ratio[18], 1) == 1.6                                                           # "about 1.6 times"


def test_lagrange_closed_form_grows_much_faster():
    counts = [LAGRANGE_MEASURED[n]["shared"].total for n in (1, 2, 3, 4)]
    assert counts == sorted(counts) and counts[3] > 5 * operation_counts(4)["rnea"].total
    assert LAGRANGE_MEASURED[4]["raw"].total > 100 * counts[3]          # sharing matters enormously
    assert operation_counts(2, lagrange=True)["lagrange"] == LAGRANGE_MEASURED[2]["shared"]


@pytest.mark.skipif(importlib.util.find_spec("lessonlib.dynamics.lagrange") is None,
                    reason="the Lagrange module is not present")
def test_lagrange_measurement_reproduces_the_stored_table():
    assert lagrange_counts(1, measure=True) == LAGRANGE_MEASURED[1]["shared"]
    assert lagrange_counts(1, shared=False, measure=True) == LAGRANGE_MEASURED[1]["raw"]
