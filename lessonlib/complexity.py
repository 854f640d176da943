"""Operation counts of the course's dynamics algorithms, as functions of the number of joints n.

For the complexity lessons (09) and for [SWC16]'s claim that DeNOC "saves about 2/3 of the CPU
time" of Newton–Euler (lesson 07): how many multiplications and additions does each algorithm
need, **counted in this implementation** — from the equations our modules evaluate — and how do
these counts relate to the published ones?

How we count. Each line of our algorithms is one of a few spatial operations; we add up their
costs line by line, per loop body, for a serial chain of n revolute joints with body 0 on the base
and no external forces. Two cost models:

* ``structured`` (default) — what the equations need when every operand is stored with its
  structure: a Plücker transform as a rotation ``E`` and an offset ``r``, a spatial inertia as
  ``(m, h = m c, Ī)``, a cross-product operator as cross products (the costs are derived in
  :data:`STRUCTURED`). Joint axes, rotations and offsets stay general (any ``S_i``, any ``E``).
* ``dense`` — what our NumPy code executes: every 6×6 matrix is a full array (a 6×6 matrix times a
  6-vector is 36 multiplications and 30 additions whatever zeros it holds), ``ad(v)`` is built as
  ``v`` times the six basis matrices (216m 180a, :mod:`lessonlib._operators`) and ``ad*(v) = −ad(v)ᵀ``
  reuses it (a 6×6 product; the sign is not counted). Only for ``rnea``, ``crba`` and ``aba``.

Divisions are counted as multiplications, subtractions as additions; sines and cosines (two per
revolute joint) are not counted. ``joint_transforms`` (computing every ``X_i_p`` from ``q``) is
part of every algorithm's count and is also reported on its own.

>>> counts = operation_counts(7)
>>> counts["rnea"]
Count(mul=1611, add=1394)
>>> linear_formula("rnea")                   # 237 n − 48 multiplications, 206 n − 48 additions
(237, -48, 206, -48)
>>> round(counts["denoc"].total / counts["rnea"].total, 2)     # DeNOC's recursion is not cheaper
1.2

What the numbers say (n = 7). Without the joint transforms (63 n, 57 n) our RNEA needs
174 n − 48 multiplications and 149 n − 48 additions. DeNOC propagates twists with pure
translations (``A t``: 6m 6a instead of 24m 18a for ``X m``) but must rotate every link's inertia
into world axes (54m 36a) and build its joint screws there, so its count comes out about 20 % *above*
the RNEA's: [SWC16]'s "2/3 of the CPU time saved" is not an operation-count property of the
algorithm — it depends on how each method is programmed (``benchmarks/bench_dynamics.py``, section 3,
measures it on our implementations). CRBA is O(n²) (its walks toward the base), the
Lagrange closed form far more (:func:`lagrange_counts`).

Our ABA against the published ABA counts. Our structured ABA needs 530 n − 316 multiplications and
449 n − 273 additions; Featherstone (1987)'s ABA, 300 n − 267 and 279 n − 259 ([Featherstone 2008],
Table 10.1, p. 202), is about 1.8× smaller in multiplications, and the table's cheapest ABA (McMillan et
al. 1995: 224 n − 259, 205 n − 248) smaller still. All are counts of the same three passes; what differs
is what each operation is charged, per body (multiplications):

=====================================  ====  =============================================================
operation (``dynamics.aba``)           ours  where a tuned implementation saves
=====================================  ====  =============================================================
``X_i`` from ``q_i`` (joint transform)   63  DH-style joints: a rotation about z by ``q_i`` and a constant
                                             screw, or not counted at all
``𝓘^A_i S_i``, ``S_iᵀ U_i``, ``S_iᵀ p``   48  body frames on their joint axes, z along it: ``S_i = e_z``,
                                             so these are a column and two components (0)
``ad(V_i) S_i q̇_i``, ``S_i q̇_i, q̈_i``   30  with ``S_i = e_z``: a few products
``𝓘^a`` pushed to the parent             198  ``X_iᵀ 𝓘^a X_i`` with ``X_i`` a rotation about z and a fixed
(``X_iᵀ 𝓘^a X_i``)                           offset, and ``𝓘^a`` stored as a symmetric 3×3 structure
other per-body work                      191  about the same
=====================================  ====  =============================================================

The algorithm is the same; our count charges general joints and frames (any ``S_i``, any rotation,
the joint transform included), while the published figures come from "extensive optimizations"
([Featherstone 2008] §10.3.1, p. 204): Denavit–Hartenberg frames, ``S_i = e_z`` in link coordinates,
and link-to-link transforms as two axial-screw transforms — the rows above. Lessons quote our count
as "counted in this implementation" and the published ones with their table and page;
:data:`PUBLISHED` lists only figures that have a source to cite.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Count", "operation_counts", "published_counts", "published_forward_dynamics", "lagrange_counts",
           "linear_formula", "STRUCTURED", "DENSE", "PUBLISHED", "LAGRANGE_MEASURED"]


@dataclass(frozen=True)
class Count:
    """Numbers of multiplications (``mul``, divisions included) and additions (``add``)."""

    mul: int
    add: int

    @property
    def total(self):
        return self.mul + self.add

    def __add__(self, other):
        return Count(self.mul + other.mul, self.add + other.add)

    def __mul__(self, k):
        return Count(self.mul * k, self.add * k)

    __rmul__ = __mul__


ZERO = Count(0, 0)

# --- the cost of each spatial operation ----------------------------------------------------------
# structured: derived from the operands' structure (3-vector ops: rotation E x 9m 6a, cross 6m 3a).
STRUCTURED = {
    "add6": Count(0, 6),                  # u + v
    "scale6": Count(6, 0),                # s · v
    "dot6": Count(6, 5),                  # uᵀ v
    "X_motion": Count(24, 18),            # X m = [E ω; E (v − r × ω)]: 2 rotations, 1 cross, 1 sub
    "XT_force": Count(24, 18),            # Xᵀ f = [Eᵀ n + r × Eᵀ f; Eᵀ f]: the same
    "inertia_motion": Count(24, 18),      # I m = [Ī ω + h × v; m v − h × ω]: rotation-size product, 2 crosses, m v
    "cross_motion": Count(18, 12),        # ad(v) m = [ω × m_ω; ω × m_v + v × m_ω]
    "cross_force": Count(18, 12),         # ad*(v) f = [ω × n + v × f; ω × f]
    # Xᵀ Y X for a symmetric 6×6 Y = [[A, B], [Bᵀ, C]]: the shift by r (B[r], C[r], [r]C[r]: 3 skew
    # products of 18m 9a, 27 additions) then E on both sides of A', B', C' (A', C' symmetric:
    # 27m 18a + 18m 12a each; B': 2 × (27m 18a)) → 54m 45a + 144m 96a.
    "congruence": Count(198, 141),
    "add_sym6": Count(0, 21),             # sum of two symmetric 6×6 matrices
    "matrix6_vector": Count(36, 30),      # a general (articulated) 6×6 times a 6-vector
    "rank1_sym6": Count(27, 21),          # Y − U (U/D)ᵀ, symmetric: U/D 6m, 21 products, 21 subs
    # X_i_p(q): R_J = 1 + s[e] + (1 − c)[e]² (18m 21a), p_J = r − R_J r (9m 9a), composed with the
    # tree transform: R = R_tree R_J (27m 18a), p = R_tree p_J + p_tree (9m 9a).
    "joint_transform": Count(63, 57),
    # DeNOC (world axes): O_k − O_p; p_k = s[e_k; e_k × (O_k − r_k)] with e_k = R e, r_k = R r + O;
    # M_k rotated into world axes: R Ī Rᵀ (symmetric, 45m 30a) and R h (9m 6a);
    # pose T_0_k = T_0_p T_p_k (27m 18a + 9m 9a).
    "sub3": Count(0, 3),
    "joint_screw_world": Count(24, 21),
    "inertia_to_world": Count(54, 36),
    "pose_compose": Count(36, 27),
    "translate_twist": Count(6, 6),       # A t = [ω; v + ω × a]
    "translate_wrench": Count(6, 6),      # Aᵀ w = [n + a × f; f]
    "Adot_twist": Count(6, 3),            # Ȧ t_p = [0; ω_p × ȧ]
    "W_twist": Count(12, 6),              # W x = [ω × x_ω; ω × x_v]
    "inertia_E_twist": Count(15, 9),      # M E t = [I_O ω; −m d × ω]
}

# dense: as the NumPy code runs (6×6 arrays, no structure).
DENSE = dict(STRUCTURED, **{
    "X_motion": Count(36, 30), "XT_force": Count(36, 30), "inertia_motion": Count(36, 30),
    # ad(v) built as v · (6×36 basis) (216m 180a, lessonlib._operators), then a 6×6 product; the
    # ad*(v) f = −ad(v)ᵀ f that follows it reuses that ad(v): one 6×6 product
    "cross_motion": Count(216 + 36, 180 + 30), "cross_force": Count(36, 30),
    "congruence": Count(432, 360),        # two 6×6 × 6×6 products
    "add_sym6": Count(0, 36),
    "rank1_sym6": Count(72, 36),          # np.outer(U, U) / D: 36 products, 36 divisions; one subtraction
    "joint_transform": Count(72, 72),     # X = X_tree − sin θ · A + (1 − cos θ) · B (kinematics.py)
})


def _costs(dense):
    return DENSE if dense else STRUCTURED


# --- the algorithms, line by line ------------------------------------------------------------------

def _joint_transforms(n, c):
    return n * c["joint_transform"]


def _rnea(n, c):
    """``dynamics.rnea``: outward v; c = ad(v) vJ; outward a; local f; inward τ = Sᵀ f, f_p += Xᵀ f."""
    total = _joint_transforms(n, c) + 2 * n * c["scale6"]                 # X; vJ = S q̇, aJ = S q̈
    for i in range(n):
        base = i == 0
        if not base:                                                       # v = vJ + X v_p
            total += c["X_motion"] + c["add6"]
        total += c["cross_motion"]                                         # c = ad(v) vJ
        total += c["X_motion"] + 2 * c["add6"]                             # a = X a_p + aJ + c
        total += 2 * c["inertia_motion"] + c["cross_force"] + c["add6"]    # f = I a + ad*(v) I v
        if not base:
            total += c["XT_force"] + c["add6"]                             # f_p += Xᵀ f
        total += c["dot6"]                                                 # τ = Sᵀ f
    return total


def _denoc(n, c):
    """``dynamics.denoc`` (Saha's recursion in world axes, twists at the body origins)."""
    total = ZERO
    for k in range(n):
        base = k == 0
        total += c["joint_transform"] + (ZERO if base else c["pose_compose"])   # T_0_k
        total += c["sub3"] + c["joint_screw_world"]                          # a = O_k − O_p; p_k
        total += c["translate_twist"] + c["scale6"] + c["add6"]             # t = A t_p + p θ̇
        total += c["sub3"] + c["Adot_twist"] + c["W_twist"]                 # ȧ; Ȧ t_p; W p θ̇
        total += c["translate_twist"] + c["scale6"] + Count(0, 15)          # ṫ = A ṫ_p + Ȧ t_p + p θ̈ + W p θ̇
        total += c["inertia_to_world"] + c["inertia_motion"]                # M_k; M ṫ
        total += c["inertia_E_twist"] + c["W_twist"] + c["add6"]            # + W M E t
        total += c["dot6"]                                                  # τ = pᵀ w
        if not base:
            total += c["translate_wrench"] + c["add6"]                      # w_p += Aᵀ w
    return total


def _crba(n, c):
    """``dynamics.crba`` on a chain: composite inertias inward, then the walks toward the base."""
    total = _joint_transforms(n, c)
    total += (n - 1) * (c["congruence"] + c["add_sym6"])                    # I^c_p += Xᵀ I^c X
    total += n * (c["inertia_motion"] + c["dot6"])                         # F = I^c S, M_ii = Sᵀ F
    total += (n * (n - 1) // 2) * (c["XT_force"] + c["dot6"])              # F ← Xᵀ F, M_ij = Sᵀ F
    return total


def _aba(n, c):
    """``dynamics.aba``: three passes."""
    total = _joint_transforms(n, c) + n * c["scale6"]                      # X; vJ
    for i in range(n):                                                     # 1. outward
        base = i == 0
        if not base:
            total += c["X_motion"] + c["add6"]                             # v = vJ + X v_p
        total += c["cross_motion"]                                         # c = ad(v) vJ
        total += c["inertia_motion"] + c["cross_force"]                    # p^A = ad*(v) I v
    for i in range(n):                                                     # 2. inward
        total += c["matrix6_vector"] + 2 * c["dot6"] + Count(0, 1)         # U, D, u = τ − Sᵀ p^A
        if i != 0:
            total += c["rank1_sym6"]                                       # I^a = I^A − U Uᵀ / D
            total += c["matrix6_vector"] + Count(1, 0) + c["scale6"] + 2 * c["add6"]   # p^a
            total += c["congruence"] + c["add_sym6"]                       # I^A_p += Xᵀ I^a X
            total += c["XT_force"] + c["add6"]                             # p^A_p += Xᵀ p^a
    for i in range(n):                                                     # 3. outward
        total += c["X_motion"] + c["add6"]                                 # a' = X a_p + c
        total += c["dot6"] + Count(1, 1)                                   # q̈ = (u − Uᵀ a') / D
        total += c["scale6"] + c["add6"]                                   # a = a' + S q̈
    return total


def _cholesky_solve(n):
    """``M = L Lᵀ`` (square roots not counted) and the two triangular solves."""
    chol = Count(sum(j + (n - j - 1) * (j + 1) for j in range(n)), sum(j + (n - j - 1) * j for j in range(n)))
    solve = Count(sum(i + 1 for i in range(n)), sum(i for i in range(n)))     # i products, 1 division
    return chol + 2 * solve


def operation_counts(n, *, dense=False, lagrange=False):
    """Multiplications and additions of each algorithm for a serial chain of ``n`` revolute joints.

    Returns ``{name: Count}`` with ``"joint_transforms"``, ``"rnea"``, ``"denoc"``, ``"crba"``,
    ``"aba"``, ``"forward_dynamics_crba"`` (CRBA + RNEA bias + Cholesky solve), and with
    ``lagrange=True`` also ``"lagrange"`` (the closed form ``M q̈ + C q̇ + g`` with shared
    subexpressions, :func:`lagrange_counts`; n ≤ 4). ``dense=True`` counts what our NumPy code executes
    (``rnea``, ``crba``, ``aba`` only; see the module docstring).

    >>> operation_counts(1)["rnea"]        # one joint, derived by hand in tests/test_complexity.py
    Count(mul=189, add=158)
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"n: expected a number of joints >= 1, got {n}")
    c = _costs(dense)
    counts = {"joint_transforms": _joint_transforms(n, c), "rnea": _rnea(n, c),
              "crba": _crba(n, c), "aba": _aba(n, c)}
    if not dense:
        counts["denoc"] = _denoc(n, c)
    counts["forward_dynamics_crba"] = counts["crba"] + _rnea(n, c) + _cholesky_solve(n)
    if lagrange:
        counts["lagrange"] = lagrange_counts(n)          # stored measurements, n <= 4
    return counts


def linear_formula(name, *, dense=False):
    """``(a_mul, b_mul, a_add, b_add)`` with ``count(n) = a n + b`` for an O(n) algorithm."""
    one, two = operation_counts(1, dense=dense)[name], operation_counts(2, dense=dense)[name]
    a_mul, a_add = two.mul - one.mul, two.add - one.add
    for n in (3, 7, 20):                    # the count really is linear
        got = operation_counts(n, dense=dense)[name]
        if got != Count(a_mul * n + one.mul - a_mul, a_add * n + one.add - a_add):
            raise ValueError(f"name: {name!r} is not linear in n")
    return a_mul, one.mul - a_mul, a_add, one.add - a_add


# --- the published counts ---------------------------------------------------------------------------

#: Published counts for n joints: ``name -> (mul(n), add(n), source, status)``. Only figures with a
#: source to cite; ``status`` says how far this project could check them. The rows from
#: [Featherstone 2008] were read in its Table 10.1, p. 202 ("Operation counts for several published
#: dynamics algorithms"), for the general unbranched chain of n revolute joints, with one sine and one
#: cosine per joint not counted; each names the primary source the table gives, which this project has
#: not read. (The articulated-body figure that once stood here without a source is now sourced: it is
#: Featherstone (1987)'s, row "aba_featherstone_1987".)
_TABLE_10_1 = "checked against [Featherstone 2008], Table 10.1, p. 202; the primary source not read in this project"


def _fs_mul(n):
    return (n**3 + 9 * n**2 - 4 * n) // 6            # n³/6 + 3n²/2 − 2n/3


def _fs_add(n):
    return (n**3 + 6 * n**2 - 7 * n) // 6            # n³/6 + n² − 7n/6


PUBLISHED = {
    "rnea_luh_walker_paul": (
        lambda n: 150 * n - 48, lambda n: 131 * n - 48,
        "[LWP 1980]'s recursive Newton–Euler, as tabulated in [Hollerbach 1980], Table I "
        "(n = 6: 852 multiplications, 738 additions); [Featherstone 2008], Table 10.1, p. 202, source 8",
        "not checked against [Hollerbach 1980] itself; " + _TABLE_10_1),
    "rnea_balafoutis_patel_1991": (
        lambda n: 93 * n - 108, lambda n: 81 * n - 100,
        "[Featherstone 2008], Table 10.1, p. 202: RNEA, Balafoutis and Patel (1991), Algorithm 5.7 "
        "(the table's cheapest RNEA)", _TABLE_10_1),
    "rnea_balafoutis_1988": (
        lambda n: 93 * n - 69, lambda n: 81 * n - 66,
        "[Featherstone 2008], Table 10.1, p. 202: RNEA, Balafoutis et al. (1988), Algorithm 3", _TABLE_10_1),
    "crba_featherstone_2005": (
        lambda n: 10 * n * n + 22 * n - 32, lambda n: 6 * n * n + 37 * n - 43,
        "[Featherstone 2008], Table 10.1, p. 202: CRBA, Featherstone (2005) and the book's Eq. 10.3 "
        "(the table's cheapest CRBA)", _TABLE_10_1),
    "crba_walker_orin_1982": (
        lambda n: 12 * n * n + 56 * n - 27, lambda n: 7 * n * n + 67 * n - 53,
        "[Featherstone 2008], Table 10.1, p. 202: CRBA, [Walker & Orin 1982], method 3 (the CRBA's origin)",
        _TABLE_10_1),
    "factorize_solve": (
        _fs_mul, _fs_add,
        "[Featherstone 2008], Table 10.1, p. 202: factorize and solve H q̈ = τ − C (F&S), "
        "n³/6 + 3n²/2 − 2n/3 multiplications, n³/6 + n² − 7n/6 additions", _TABLE_10_1),
    "aba_mcmillan_1995": (
        lambda n: 224 * n - 259, lambda n: 205 * n - 248,
        "[Featherstone 2008], Table 10.1, p. 202: ABA, McMillan et al. (1995), fixed base "
        "(the table's cheapest ABA)", _TABLE_10_1),
    "aba_featherstone_1987": (
        lambda n: 300 * n - 267, lambda n: 279 * n - 259,
        "[Featherstone 2008], Table 10.1, p. 202: ABA, Featherstone (1987), Table 8-6", _TABLE_10_1),
    "lagrange_recursive_hollerbach": (
        lambda n: 412 * n - 277, lambda n: 320 * n - 201,
        "[Hollerbach 1980], same table: the recursive Lagrangian with 3×3 rotation matrices "
        "(n = 6: 2195 / 1719)", "standard figure, widely reproduced; not checked against the paper in this project"),
    "lagrange_closed_form_uicker_kahn": (
        None, None,
        "[Hollerbach 1980], same table: the Uicker/Kahn 4×4-matrix Lagrangian is O(n⁴), about "
        "66,000 multiplications and 51,000 additions for n = 6",
        "order of magnitude only; not checked against the paper in this project"),
}


def published_forward_dynamics(n):
    """Published counts of the two forward-dynamics routes at ``n`` joints ([Featherstone 2008] §10.3):
    ``{"crba_rnea_fs": Count, "aba": Count}`` — the O(n³) route with the table's cheapest CRBA, RNEA and
    factorize-and-solve, against its cheapest ABA. Featherstone (p. 204): the O(n³) route is slightly
    cheaper for small n (to about n = 8) and about 1.6 times the ABA's cost at n = 18."""
    pub = published_counts(n)
    return {"crba_rnea_fs": pub["crba_featherstone_2005"][0] + pub["rnea_balafoutis_patel_1991"][0]
            + pub["factorize_solve"][0],
            "aba": pub["aba_mcmillan_1995"][0]}


def published_counts(n):
    """``{name: (Count or None, source, status)}`` of :data:`PUBLISHED` at ``n`` joints."""
    return {name: (None if mul is None else Count(mul(n), add(n)), source, status)
            for name, (mul, add, source, status) in PUBLISHED.items()}


# --- Lagrange's closed form --------------------------------------------------------------------------

#: Measured with :func:`lagrange_counts` (``measure=True``; sympy 1.14, lessonlib's Lagrange route):
#: ``samples.random_model(n, seed=1, tree=False, prismatic=False)``, a general revolute chain.
#: ``shared``: after ``sympy.cse``; ``raw``: the expression tree as derived, nothing shared.
LAGRANGE_MEASURED = {
    1: {"shared": Count(7, 3), "raw": Count(7, 3)},
    2: {"shared": Count(995, 453), "raw": Count(44801, 19721)},
    3: {"shared": Count(2934, 1457), "raw": Count(535694, 236130)},
    4: {"shared": Count(6244, 3213), "raw": Count(3634042, 1611991)},
}


def lagrange_counts(n, *, shared=True, measure=False):
    """Operations in the closed form ``τ = M(q) q̈ + C(q, q̇) q̇ + g(q)`` of a general n-joint chain.

    The expressions come from :func:`lessonlib.dynamics.lagrange.lagrange_symbolic` (the symbolic
    Lagrange route, unsimplified) for ``samples.random_model(n, seed=1, tree=False,
    prismatic=False)``; ``sympy.count_ops`` counts MUL, DIV and POW as multiplications and ADD, SUB
    and NEG as additions (SIN, COS not counted). ``shared=True`` first shares common subexpressions
    (``sympy.cse``), as generated code would; ``shared=False`` counts the raw expression tree.
    Deriving takes seconds to minutes (n = 4: about 3 minutes), so the values measured once are
    stored in :data:`LAGRANGE_MEASURED`; ``measure=True`` derives them again.
    """
    n = int(n)
    if not 1 <= n <= 4:
        raise ValueError(f"n: the symbolic Lagrange count is offered for 1 <= n <= 4, got {n}")
    key = "shared" if shared else "raw"
    if not measure:
        return LAGRANGE_MEASURED[n][key]
    import sympy as sp

    from . import samples
    from .dynamics.lagrange import lagrange_symbolic

    eq = lagrange_symbolic(samples.random_model(n, seed=1, tree=False, prismatic=False), simplify=False)
    tau = list(eq.M * sp.Matrix(eq.qdd) + eq.C * sp.Matrix(eq.qd) + eq.g)
    if shared:
        common, reduced = sp.cse(tau)
        tau = [value for _, value in common] + reduced
    ops = sp.sympify(sum((sp.count_ops(e, visual=True) for e in tau), sp.S.Zero))
    tally = {str(symbol): int(ops.coeff(symbol)) for symbol in ops.free_symbols}
    return Count(sum(tally.get(k, 0) for k in ("MUL", "DIV", "POW")),
                 sum(tally.get(k, 0) for k in ("ADD", "SUB", "NEG")))
