"""lessonlib.constraints: splicing Models, closed loops (NOC), the four-bar and the five-bar (lesson 12)."""
import importlib

import numpy as np
import pytest

from lessonlib import samples, se3, so3
from lessonlib.check import random_state
from lessonlib.constraints import (FIVE_BAR, FOUR_BAR, ClosedChainModel, FourBarParams, LoopConstraint, assemble,
                                   attach, attach_many, circle_path, closure_wrenches, constraint_bias,
                                   constraint_forces, constraint_jacobian, constraint_residual, crank_motion,
                                   five_bar, five_bar_chains, five_bar_state, forward_dynamics, four_bar,
                                   four_bar_angles, four_bar_lagrange, four_bar_q, grashof, inverse_dynamics,
                                   inverse_dynamics_along, joint_wrenches, noc, parallel_inverse_dynamics, project,
                                   reduced_dynamics, simulate, split, state_from_independent)
from lessonlib.conventions import BASE, LIN
from lessonlib.dynamics import aba, bias_forces, coriolis_matrix, crba, rnea
from lessonlib.kinematics import fk, frame_pose
from lessonlib.model import Model, from_dh

ATOL = 1e-9


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------
def _optional(module, name):
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _algorithms():
    """Every inverse-dynamics-like algorithm available: name -> f(model, q, qd, qdd) -> array."""
    algs = {
        "rnea": lambda m, q, qd, qdd: rnea(m, q, qd, qdd),
        "crba": lambda m, q, qd, qdd: crba(m, q),
        "aba": lambda m, q, qd, qdd: aba(m, q, qd, qdd),
        "bias_forces": lambda m, q, qd, qdd: bias_forces(m, q, qd),
        "coriolis_matrix": lambda m, q, qd, qdd: coriolis_matrix(m, q, qd),
    }
    for module, name in [("lessonlib.dynamics.rnea_classic", "rnea_classic"),
                         ("lessonlib.dynamics.rnea_poe", "rnea_poe"), ("lessonlib.dynamics.denoc", "denoc")]:
        f = _optional(module, name)
        if f is not None:
            algs[name] = (lambda f: lambda m, q, qd, qdd: f(m, q, qd, qdd))(f)
    return algs


ALGORITHMS = _algorithms()


def assert_same_model(a, b, atol=1e-12):
    """Two Models describe the same mechanism with the same numbering."""
    assert a.n == b.n and a.parent == b.parent
    assert [j.kind for j in a.joints] == [j.kind for j in b.joints]
    np.testing.assert_allclose(a.T_tree, b.T_tree, atol=atol)
    np.testing.assert_allclose(a.S, b.S, atol=atol)
    np.testing.assert_allclose(a.inertia, b.inertia, atol=atol)
    np.testing.assert_allclose(a.gravity, b.gravity)


def assert_same_dynamics(a, b, seeds=(0, 1, 2), perm=None):
    """Every algorithm gives the same numbers on ``a`` and ``b`` (b's joints reordered by ``perm``)."""
    perm = np.arange(a.n) if perm is None else np.asarray(perm)
    for seed in seeds:
        q, qd, qdd = random_state(a, seed=seed)
        for name, f in ALGORITHMS.items():
            ra = np.asarray(f(a, q, qd, qdd))
            rb = np.asarray(f(b, q[perm], qd[perm], qdd[perm]))
            if rb.ndim == 2:
                rb_in_a = np.empty_like(rb)
                rb_in_a[np.ix_(perm, perm)] = rb
            else:
                rb_in_a = np.empty_like(rb)
                rb_in_a[perm] = rb
            np.testing.assert_allclose(ra, rb_in_a, atol=ATOL, rtol=1e-9, err_msg=f"{name}, seed {seed}")


# ------------------------------------------------------------------------------------------------
# splicing
# ------------------------------------------------------------------------------------------------
def test_attach_composes_forward_kinematics_through_the_mounting_pose():
    arm, rod = samples.rpr_arm(), samples.random_model(3, seed=4, tree=False)
    T_mount = se3.from_Rp(so3.exp([0.3, -0.4, 1.1]), np.array([0.1, 0.05, -0.2]))
    both = attach(arm, rod, 1, T_mount)
    assert both.parent == (-1, 0, 1, 1, 3, 4) and both.n == 6
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = rng.uniform(-2, 2, 6)
        T = fk(both, q)
        np.testing.assert_allclose(T[:3], fk(arm, q[:3]), atol=1e-12)
        for i, T_c in enumerate(fk(rod, q[3:])):
            np.testing.assert_allclose(T[3 + i], fk(arm, q[:3])[1] @ T_mount @ T_c, atol=1e-12)


def test_swc16_7dof_from_a_3dof_and_a_4dof_arm():
    """Two modified-DH tables (rows 1–3 and 4–7), spliced at DH frame 3, give [SWC16]'s arm."""
    one = samples.seed002_7dof()
    dh = samples.SEED002_DH
    piece = {}
    for key, rows in (("trunk", slice(0, 3)), ("branch", slice(3, 7))):
        idx = range(7)[rows]
        piece[key] = from_dh(modified=True, a=dh["a"][rows], alpha=dh["alpha"][rows], d=dh["d"][rows],
                             mass=one.mass[rows], com=one.com[rows], inertia=one.I_com[rows],
                             names=[f"joint{i + 1}" for i in idx], name=key)
    spliced = attach(piece["trunk"], piece["branch"], 2, np.eye(4))
    assert spliced.joint_names == one.joint_names
    assert_same_model(spliced, one)
    assert_same_dynamics(spliced, one)


def _panda_pieces():
    """The Panda cut by hand after joint 3: the forearm's base frame is its own first joint frame."""
    p = samples.panda()
    trunk = Model(p.parent[:3], p.joints[:3], p.T_tree[:3], p.inertia[:3], body_names=p.body_names[:3],
                  frames=[f for f in p.frames if f.body == BASE], name="panda_upper")
    T_tree = p.T_tree[3:].copy()
    T_tree[0] = np.eye(4)
    forearm = Model([-1, 0, 1, 2], p.joints[3:], T_tree, p.inertia[3:], body_names=p.body_names[3:],
                    frames=[type(f)(f.name, f.body - 3, f.T) for f in p.frames if f.body >= 3], name="panda_forearm")
    return p, trunk, forearm


def test_panda_from_a_3dof_and_a_4dof_arm():
    p, trunk, forearm = _panda_pieces()
    spliced = attach(trunk, forearm, 2, p.T_tree[3])          # eq. (12.1): the root's T_tree is the mount
    assert_same_model(spliced, p)
    assert spliced.joint_names == p.joint_names and spliced.body_names == p.body_names
    assert [f.name for f in spliced.frames] == [f.name for f in p.frames]
    q = random_state(p, seed=3)[0]
    np.testing.assert_allclose(frame_pose(spliced, q, "panda_hand_tcp"), frame_pose(p, q, "panda_hand_tcp"),
                               atol=1e-12)
    assert_same_dynamics(spliced, p)


def test_split_and_attach_round_trip_on_a_chain():
    p = samples.panda()
    s = split(p, 3)
    assert (s.trunk.n, s.branch.n, s.body) == (3, 4, 2)
    assert s.trunk_bodies == (0, 1, 2) and s.branch_bodies == (3, 4, 5, 6)
    back = attach(s.trunk, s.branch, s.body, s.T_body_childbase)
    assert_same_model(back, p)
    assert [f.name for f in back.frames] == [f.name for f in p.frames]


def test_torso_with_two_arms_is_the_branched_tree_sample():
    """[LG, 开环并联臂拼接]'s open-loop parallel arm: two arms on one link (their wrenches add up there)."""
    tree = samples.branched_tree()
    torso = Model([-1], tree.joints[:1], tree.T_tree[:1], tree.inertia[:1], body_names=["torso"], name="torso")
    arms = []
    for rows in (slice(1, 3), slice(3, 5)):
        T_tree = tree.T_tree[rows].copy()
        mount = T_tree[0].copy()
        T_tree[0] = np.eye(4)
        arms.append((Model([-1, 0], tree.joints[rows], T_tree, tree.inertia[rows],
                           body_names=tree.body_names[rows]), 0, mount))
    spliced = attach_many(torso, arms, name="torso_and_arms")
    assert spliced.name == "torso_and_arms" and spliced.children[0] == (1, 3)
    assert_same_model(spliced, tree)
    assert_same_dynamics(spliced, tree)


def test_split_of_a_tree_is_a_permutation():
    tree = samples.branched_tree()
    s = split(tree, 1)                                     # the left arm off the torso
    assert s.trunk_bodies == (0, 3, 4) and s.branch_bodies == (1, 2) and s.body == 0
    back = attach(s.trunk, s.branch, s.body, s.T_body_childbase)
    order = list(s.trunk_bodies + s.branch_bodies)         # body k of `back` is body order[k] of `tree`
    assert_same_dynamics(tree, back, seeds=(0,), perm=order)


@pytest.mark.skipif(_optional("lessonlib.dynamics.lagrange", "lagrange_numeric") is None,
                    reason="lagrange_numeric not written yet")
def test_lagrange_agrees_on_a_spliced_model():
    lagrange_numeric = _optional("lessonlib.dynamics.lagrange", "lagrange_numeric")
    one = samples.seed004_2link()
    s = split(one, 1)
    spliced = attach(s.trunk, s.branch, s.body, s.T_body_childbase)
    for seed in (0, 1):
        q, qd, qdd = random_state(one, seed=seed)
        np.testing.assert_allclose(lagrange_numeric(spliced, q, qd, qdd), lagrange_numeric(one, q, qd, qdd),
                                   atol=ATOL)
        np.testing.assert_allclose(lagrange_numeric(spliced, q, qd, qdd), rnea(one, q, qd, qdd), atol=ATOL)


def test_attach_names_frames_and_base_mounts():
    arm, rod = samples.planar_2link(), samples.pendulum()
    twice = attach(attach(arm, rod, 0, np.eye(4)), rod, -1, np.eye(4))
    assert twice.joint_names[2:] == ("pivot", "pendulum/pivot")
    assert twice.body_names[2:] == ("rod", "pendulum/rod")
    assert [f.name for f in twice.frames] == ["tip", "pendulum/tip", "pendulum/pendulum/tip"]
    assert [f.body for f in twice.frames] == [1, 2, 3]
    # a child mounted on a frame: the frame's pose is part of the mount
    on_tip = attach(arm, rod, "tip", np.eye(4))
    q = np.array([0.4, -0.7, 1.3])
    np.testing.assert_allclose(fk(on_tip, q)[2], frame_pose(arm, q[:2], "tip") @ fk(rod, q[2:])[0], atol=1e-12)
    # body=None: a second tree at the world
    forest = attach(arm, rod, None, se3.from_Rp(np.eye(3), np.array([2.0, 0, 0])))
    assert forest.parent == (-1, 0, -1)
    np.testing.assert_allclose(fk(forest, q)[2][:3, 3], [2.0, 0, 0], atol=1e-12)
    assert forest.frames[-1].body == 2


@pytest.mark.parametrize("call, match", [
    (lambda a, r: attach("arm", r, 0, np.eye(4)), "parent"),
    (lambda a, r: attach(a, r, 5, np.eye(4)), "body"),
    (lambda a, r: attach(a, r, 1.5, np.eye(4)), "body"),
    (lambda a, r: attach(a, r, "nowhere", np.eye(4)), "name"),
    (lambda a, r: attach(a, r, 0, np.eye(3)), "T_body_childbase"),
    (lambda a, r: attach(a, r, 0, 2 * np.eye(4)), "T_body_childbase"),
    (lambda a, r: attach_many(a, [(r, 0)]), "attachments"),
    (lambda a, r: split(a, 7), "at_body"),
    (lambda a, r: split(a, 0), "trunk"),
])
def test_composition_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call(samples.planar_2link(), samples.pendulum())


# ------------------------------------------------------------------------------------------------
# closed loops: kinematics
# ------------------------------------------------------------------------------------------------
def _random_closed(kind, seed, to_base=False):
    """A random spatial chain (8 joints, some prismatic) closed at a random configuration q* by a loop
    of ``kind`` between body 7 and body 1 (or the world); the dependent coordinates are the best
    conditioned columns of G (greedy: each adds the most to the span)."""
    tree = samples.random_model(8, seed=seed, tree=False, prismatic=True)
    rng = np.random.default_rng(seed)
    q_star = rng.uniform(-1, 1, tree.n)
    T = fk(tree, q_star)
    T_a = se3.from_Rp(so3.exp(rng.normal(size=3)), rng.uniform(-0.2, 0.2, 3))
    a, b = 7, (BASE if to_base else 1)
    T_b = T[a] @ T_a if to_base else se3.inv(T[b]) @ T[a] @ T_a         # A and B coincide at q*
    loop = LoopConstraint(a, T_a, b, T_b, kind)
    probe = ClosedChainModel(tree, [loop], independent=range(tree.n))
    G = constraint_jacobian(probe, q_star)
    dependent = []
    for _ in range(len(loop.rows)):                   # column pivoting by hand: largest residual column next
        Q = np.linalg.qr(G[:, dependent])[0] if dependent else np.zeros((G.shape[0], 0))
        residual = np.linalg.norm(G - Q @ (Q.T @ G), axis=0)
        residual[dependent] = -1.0
        dependent.append(int(np.argmax(residual)))
    cm = ClosedChainModel(tree, [loop], independent=[i for i in range(tree.n) if i not in dependent])
    return cm, q_star


@pytest.mark.parametrize("kind", ["revolute", "point", "planar_revolute"])
@pytest.mark.parametrize("to_base", [False, True])
def test_G_is_the_derivative_of_phi_on_the_constraint(kind, to_base):
    cm, q = _random_closed(kind, seed=3, to_base=to_base)
    assert np.abs(constraint_residual(cm, q)).max() < 1e-12
    G, eps = constraint_jacobian(cm, q), 1e-6
    dphi = np.column_stack([(constraint_residual(cm, q + eps * e) - constraint_residual(cm, q - eps * e)) / (2 * eps)
                            for e in np.eye(cm.n)])
    np.testing.assert_allclose(G, dphi, atol=1e-8)


@pytest.mark.parametrize("kind", ["revolute", "point"])
@pytest.mark.parametrize("to_base", [False, True])
def test_gamma_is_minus_Gdot_qd(kind, to_base):
    """γ = −Ġ q̇ at any state (G is defined off the constraint too): central difference along q̇."""
    cm, _ = _random_closed(kind, seed=5, to_base=to_base)
    rng = np.random.default_rng(1)
    for _ in range(3):
        q, qd = rng.uniform(-2, 2, cm.n), rng.normal(size=cm.n)
        h = 1e-6
        Gdot = (constraint_jacobian(cm, q + h * qd) - constraint_jacobian(cm, q - h * qd)) / (2 * h)
        np.testing.assert_allclose(constraint_bias(cm, q, qd), -Gdot @ qd, atol=1e-7)


@pytest.mark.parametrize("kind", ["revolute", "point", "planar_revolute"])
def test_both_nocs_annihilate_G(kind):
    cm, q = _random_closed(kind, seed=7)
    G = constraint_jacobian(cm, q)
    N_ind, N_svd = noc(cm, q), noc(cm, q, method="svd")
    assert N_ind.shape == N_svd.shape == (cm.n, cm.dof)
    np.testing.assert_allclose(G @ N_ind, 0, atol=1e-12)
    np.testing.assert_allclose(G @ N_svd, 0, atol=1e-12)
    np.testing.assert_allclose(N_svd.T @ N_svd, np.eye(cm.dof), atol=1e-12)
    np.testing.assert_allclose(N_ind[list(cm.independent)], np.eye(cm.dof), atol=0)
    # the same space: N_ind = N_svd (N_svdᵀ N_ind)
    np.testing.assert_allclose(N_svd @ (N_svd.T @ N_ind), N_ind, atol=1e-10)


def test_four_bar_closed_form_and_assembly_agree():
    fb = four_bar()
    for theta in np.linspace(-np.pi, np.pi, 7):
        q = four_bar_q(FOUR_BAR, theta)
        assert np.abs(constraint_residual(fb, q)).max() < 1e-14
        q_newton = assemble(fb, q + [0.0, 0.1, -0.1])
        np.testing.assert_allclose(q_newton, q, atol=1e-12)
    crossed = four_bar_q(FOUR_BAR, 0.5, branch=-1)
    assert np.abs(constraint_residual(fb, crossed)).max() < 1e-14 and abs(crossed[2] - four_bar_q(FOUR_BAR, 0.5)[2]) > 0.1


def test_four_bar_velocity_and_acceleration_maps_match_finite_differences():
    fb = four_bar()

    def state(t):
        y = crank_motion(t, ramp_time=1.0)
        return state_from_independent(fb, [y[0]], [y[1]], [y[2]], four_bar_q(FOUR_BAR, float(y[0])))

    t, h = 0.37, 1e-5
    q, qd, qdd = state(t)
    (qp, qdp, _), (qm, qdm, _) = state(t + h), state(t - h)
    np.testing.assert_allclose(qd, (qp - qm) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(qdd, (qdp - qdm) / (2 * h), atol=1e-6)


# ------------------------------------------------------------------------------------------------
# closed loops: dynamics
# ------------------------------------------------------------------------------------------------
def _closed_state(cm, q_star, seed):
    """An admissible (q, q̇, q̈) at q*."""
    rng = np.random.default_rng(seed)
    y = q_star[list(cm.independent)]
    return state_from_independent(cm, y, rng.normal(size=cm.dof), rng.normal(size=cm.dof), q_star)


@pytest.mark.parametrize("kind", ["revolute", "point"])
def test_reduced_dynamics_equals_the_multiplier_formulation(kind):
    cm, q_star = _random_closed(kind, seed=11)
    cm = ClosedChainModel(cm.tree, cm.constraints, actuated=cm.independent)
    q, qd, _ = _closed_state(cm, q_star, seed=0)
    tau = np.random.default_rng(2).normal(size=len(cm.actuated))
    qdd_lam = forward_dynamics(cm, q, qd, tau)
    qdd_noc = forward_dynamics(cm, q, qd, tau, method="noc")
    r = reduced_dynamics(cm, q, qd)
    ydd = np.linalg.solve(r.M, r.B @ tau - r.h)
    qdd_red = r.N @ ydd + r.Ndot_yd
    np.testing.assert_allclose(qdd_noc, qdd_lam, atol=1e-9)
    np.testing.assert_allclose(qdd_red, qdd_lam, atol=1e-9)
    # and (12.4) holds with the multipliers
    lam = constraint_forces(cm, q, qd, qdd_lam, tau)
    G = constraint_jacobian(cm, q)
    lhs = crba(cm.tree, q) @ qdd_lam + bias_forces(cm.tree, q, qd)
    np.testing.assert_allclose(lhs, cm.B @ tau + G.T @ lam, atol=1e-9)
    np.testing.assert_allclose(G @ qdd_lam, constraint_bias(cm, q, qd), atol=1e-9)
    # inverse dynamics gives the torques back, by both methods
    for method in ("noc", "multipliers"):
        r_id = inverse_dynamics(cm, q, qd, qdd_lam, method=method)
        np.testing.assert_allclose(r_id.tau, tau, atol=1e-9)
        np.testing.assert_allclose(r_id.lam, lam, atol=1e-8)


@pytest.fixture(scope="module")
def four_bar_motion():
    """The four-bar along a speed-up to 2π rad/s (1 s ramp), sampled over 1.5 s."""
    fb = four_bar()
    t = np.linspace(0.0, 1.5, 16)
    Y = crank_motion(t, ramp_time=1.0)
    return fb, t, Y, inverse_dynamics_along(fb, *Y, four_bar_q(FOUR_BAR, 0.0))


def test_four_bar_crank_torque_matches_the_symbolic_lagrange_derivation(four_bar_motion):
    fb, t, Y, motion = four_bar_motion
    lag = four_bar_lagrange()
    for k in range(len(t)):
        tau, mu, th, thd, _ = lag.crank_torque(Y[0][k], Y[1][k], Y[2][k])
        assert abs(motion.tau[k, 0] - tau) < 1e-9
        # the same motion: absolute angles θ3 = q0 + q1, θ4 = q2
        q, qd = motion.q[k], motion.qd[k]
        np.testing.assert_allclose(np.angle(np.exp(1j * (np.array([q[0], q[0] + q[1], q[2]]) - th))), 0, atol=1e-12)
        np.testing.assert_allclose([qd[0], qd[0] + qd[1], qd[2]], thd, atol=1e-10)
        # the pin force: μ is what the rocker applies on the coupler, world axes
        _, W = closure_wrenches(fb, q, motion.lam[k])
        np.testing.assert_allclose(W[0, LIN][:2], mu, atol=1e-9)
    assert np.ptp(motion.tau) > 0.5                     # a real, varying torque (N·m)


def test_four_bar_constant_speed_torque_matches_lagrange():
    fb, lag = four_bar(), four_bar_lagrange()
    t = np.linspace(0.0, 1.0, 9)
    Y = crank_motion(t)                                  # 2π rad/s: one turn per second
    motion = inverse_dynamics_along(fb, *Y, four_bar_q(FOUR_BAR, 0.0), method="multipliers")
    expected = [lag.crank_torque(*(y[k] for y in Y))[0] for k in range(len(t))]
    np.testing.assert_allclose(motion.tau[:, 0], expected, atol=1e-9)
    np.testing.assert_allclose(motion.tau[0], motion.tau[-1], atol=1e-9)       # periodic


@pytest.mark.skipif(_optional("lessonlib.dynamics.energy", "energy_rate") is None, reason="energy not written yet")
def test_four_bar_power_balance(four_bar_motion):
    """τ θ̇ = d(T + U)/dt: the pin forces do no work (Gᵀλ · q̇ = λᵀ G q̇ = 0)."""
    energy_rate = _optional("lessonlib.dynamics.energy", "energy_rate")
    fb, t, Y, motion = four_bar_motion
    for k in range(len(t)):
        dE = energy_rate(fb.tree, motion.q[k], motion.qd[k], motion.qdd[k])
        assert abs(motion.tau[k, 0] * Y[1][k] - dE) < 1e-9 * (1 + abs(dE))


def test_joint_wrenches_carry_the_crank_torque_and_no_other_axis_torque(four_bar_motion):
    fb, t, Y, motion = four_bar_motion
    k = 7
    W = joint_wrenches(fb, motion.q[k], motion.qd[k], motion.qdd[k], motion.lam[k])
    np.testing.assert_allclose(W[:, 2], [motion.tau[k, 0], 0.0, 0.0], atol=1e-9)   # n_z about each z-axis pin
    # the coupler's pin at the crank tip: the crank pushes the coupler (body 1) with f;
    # Newton on the coupler: f_crank + f_pin + m g = m a_C
    assert np.linalg.norm(W[0, LIN]) > 1.0


def test_redundant_revolute_cut_gives_the_same_torque():
    """Cut the four-bar with a full 5-row revolute: G has rank 2, λ is minimum-norm, τ is the same."""
    fb = four_bar()
    c = fb.constraints[0]
    fb5 = ClosedChainModel(fb.tree, [LoopConstraint(c.body_a, c.T_a_point, c.body_b, c.T_b_point, "revolute")],
                           actuated=[0])
    assert np.linalg.matrix_rank(constraint_jacobian(fb5, four_bar_q(FOUR_BAR, 0.4))) == 2
    y = crank_motion(np.array(0.6), ramp_time=1.0)
    q, qd, qdd = state_from_independent(fb5, [y[0]], [y[1]], [y[2]], four_bar_q(FOUR_BAR, 0.4))
    r2, r5 = inverse_dynamics(fb, q, qd, qdd), inverse_dynamics(fb5, q, qd, qdd, method="multipliers")
    np.testing.assert_allclose(r5.tau, r2.tau, atol=1e-9)
    np.testing.assert_allclose(r5.lam[[2, 3]], r2.lam, atol=1e-9)         # the in-plane force rows
    np.testing.assert_allclose(r5.lam[[0, 1, 4]], 0.0, atol=1e-9)          # the indeterminate ones: min-norm 0
    np.testing.assert_allclose(forward_dynamics(fb5, q, qd, r2.tau), qdd, atol=1e-9)


def test_ten_second_simulation_keeps_the_loop_closed():
    """The passive four-bar released at θ2 = 0.3 rad, 10 s, RK4 10 ms with Baumgarte (α = β = 10 /s).

    Measured over 10 s: max |φ| 7.1e-6 m at 10 ms steps (4.5e-7 m at 5 ms); without stabilisation
    1.6e-2 m (1.0e-3 m at 5 ms); with projection ~1e-12 m (the shorter runs below)."""
    fb = four_bar()
    q0 = four_bar_q(FOUR_BAR, 0.3)
    run = simulate(fb, q0, np.zeros(3), None, 1e-2, 10.0, stabilization="baumgarte")
    assert run.t[-1] == pytest.approx(10.0) and run.q.shape == (1001, 3)
    assert run.drift < 2e-5
    assert np.ptp(run.q[:, 0]) > 1.0                       # it really moved (a big swing)
    energy = _optional("lessonlib.dynamics.energy", "total_energy")
    if energy is not None:
        E = [energy(fb.tree, q, qd) for q, qd in zip(run.q[::50], run.qd[::50])]
        assert np.ptp(E) < 3e-3                            # J (measured 1.0e-3); the swing trades ≈ 2.3 J


def test_projection_and_no_stabilisation():
    fb = four_bar()
    q0 = four_bar_q(FOUR_BAR, 0.3)
    proj = simulate(fb, q0, np.zeros(3), None, 5e-3, 1.0, stabilization="projection")
    plain = simulate(fb, q0, np.zeros(3), None, 5e-3, 1.0, stabilization="none")
    assert proj.drift < 1e-11 and np.abs(proj.velocity_error).max() < 1e-12
    assert plain.drift > 10 * proj.drift                  # plain G q̈ = γ drifts away
    np.testing.assert_allclose(proj.q[-1], plain.q[-1], atol=1e-2)


def test_driven_simulation_follows_the_inverse_dynamics():
    """Feed the ID torque of the speed-up back into the simulation: the crank follows the motion."""
    fb = four_bar()
    t = np.linspace(0.0, 0.5, 101)
    Y = crank_motion(t, ramp_time=1.0)
    motion = inverse_dynamics_along(fb, *Y, four_bar_q(FOUR_BAR, 0.0))
    torque = lambda s, q, qd: [np.interp(s, t, motion.tau[:, 0])]      # noqa: E731
    run = simulate(fb, motion.q[0], motion.qd[0], torque, 5e-3, 0.5)
    np.testing.assert_allclose(run.q[:, 0], Y[0], atol=2e-3)


# ------------------------------------------------------------------------------------------------
# the five-bar: [LG, 并联臂]'s parallel-arm recipe vs the closed-chain layer
# ------------------------------------------------------------------------------------------------
def test_five_bar_power_redistribution_equals_the_closed_chain_result():
    fiv = five_bar()
    chain1, chain2, _ = five_bar_chains()
    for t in np.linspace(0.0, 1.0, 6):
        x, xd, xdd = circle_path(t, center=(0.1, 0.35), radius=0.05, period=1.0)
        q, qd, qdd = five_bar_state(FIVE_BAR, x, xd, xdd)
        tips = [frame_pose(chain, q[s], "tip")[:2, 3] + [0.0, 0.0] for chain, s in
                ((chain1, slice(0, 2)), (chain2, slice(2, 4)))]
        np.testing.assert_allclose(tips[0], x, atol=1e-12)
        np.testing.assert_allclose(tips[1] + [FIVE_BAR.base, 0.0], x, atol=1e-12)
        recipe = parallel_inverse_dynamics([chain1, chain2], [(q[:2], qd[:2], qdd[:2]), (q[2:], qd[2:], qdd[2:])],
                                           actuated=[0, 0])
        closed = inverse_dynamics(fiv, q, qd, qdd)         # checks G q̇ = 0 and G q̈ = γ, too
        np.testing.assert_allclose(recipe, closed.tau, atol=1e-9)
        np.testing.assert_allclose(inverse_dynamics(fiv, q, qd, qdd, method="multipliers").tau, closed.tau,
                                   atol=1e-9)
    assert np.abs(closed.tau).max() > 0.1                  # N·m, not a trivial zero


def test_five_bar_elbows_point_outwards():
    q = five_bar_state(FIVE_BAR, [0.1, 0.35], np.zeros(2), np.zeros(2))[0]
    T = fk(five_bar().tree, q)
    assert T[1][0, 3] < 0.0 and T[3][0, 3] > FIVE_BAR.base     # chain 1's elbow left, chain 2's right


# ------------------------------------------------------------------------------------------------
# small helpers and validation
# ------------------------------------------------------------------------------------------------
def test_grashof_and_crank_motion():
    assert grashof((0.4, 0.1, 0.35, 0.3)) == "crank-rocker"
    assert grashof((0.1, 0.4, 0.35, 0.3)) == "double-crank"
    assert grashof((0.4, 0.35, 0.1, 0.3)) == "double-rocker"
    assert grashof((0.4, 0.1, 0.2, 0.2)) == "non-Grashof"
    assert grashof((0.4, 0.1, 0.3, 0.2)) == "change-point"
    t = np.linspace(0, 2, 2001)
    th, thd, thdd = crank_motion(t, ramp_time=1.0)
    np.testing.assert_allclose(np.gradient(th, t), thd, atol=1e-4)
    np.testing.assert_allclose(np.gradient(thd, t), thdd, atol=2e-2)
    assert thd[-1] == pytest.approx(2 * np.pi) and thdd[0] == 0.0


def test_unclosable_four_bar_is_reported():
    params = FourBarParams(lengths=(1.0, 0.1, 0.2, 0.2))
    with pytest.raises(ValueError, match="cannot close"):
        four_bar_angles(params, 0.0)
    with pytest.raises(ValueError, match="q_guess"):
        assemble(four_bar(params), [0.0, 0.5, 2.0])


@pytest.mark.parametrize("make, match", [
    (lambda fb: LoopConstraint(1, np.eye(4), 2, np.eye(4), "weld"), "kind"),
    (lambda fb: LoopConstraint(BASE, np.eye(4), 2, np.eye(4)), "body_a"),
    (lambda fb: LoopConstraint(1, np.eye(4), 1, np.eye(4)), "body_b"),
    (lambda fb: LoopConstraint(1, np.eye(3), 2, np.eye(4)), "T_a_point"),
    (lambda fb: ClosedChainModel(fb.tree, fb.constraints), "actuated"),
    (lambda fb: ClosedChainModel(fb.tree, [], actuated=[0]), "constraints"),
    (lambda fb: ClosedChainModel(fb.tree, fb.constraints, actuated=[3]), "actuated"),
    (lambda fb: ClosedChainModel(fb.tree, fb.constraints, actuated=[0, 0]), "actuated"),
    (lambda fb: ClosedChainModel(fb.tree, [LoopConstraint(5, np.eye(4), 2, np.eye(4))], actuated=[0]), "constraints"),
    (lambda fb: forward_dynamics(fb, four_bar_q(FOUR_BAR, 0.1), np.zeros(3), [1.0, 2.0]), "tau"),
    (lambda fb: forward_dynamics(fb, four_bar_q(FOUR_BAR, 0.1), np.zeros(3), [1.0], method="x"), "method"),
    (lambda fb: forward_dynamics(fb, four_bar_q(FOUR_BAR, 0.1), np.zeros(3), [1.0], baumgarte=(1,)), "baumgarte"),
    (lambda fb: noc(fb, four_bar_q(FOUR_BAR, 0.1), method="qr"), "method"),
    (lambda fb: inverse_dynamics(fb, [0.1, 0.0, 0.0], np.zeros(3), np.zeros(3)), "q:"),
    (lambda fb: inverse_dynamics(fb, four_bar_q(FOUR_BAR, 0.1), [1.0, 0, 0], np.zeros(3)), "qd"),
    (lambda fb: inverse_dynamics(fb, four_bar_q(FOUR_BAR, 0.1), np.zeros(3), [1.0, 0, 0]), "qdd"),
    (lambda fb: simulate(fb, four_bar_q(FOUR_BAR, 0.1), np.zeros(3), None, 0.0, 1.0), "dt"),
    (lambda fb: simulate(fb, four_bar_q(FOUR_BAR, 0.1), np.zeros(3), None, 0.01, 1.0, stabilization="magic"),
     "stabilization"),
    (lambda fb: state_from_independent(fb, [0.1, 0.2], [0.0], [0.0], np.zeros(3)), "y"),
    (lambda fb: closure_wrenches(fb, np.zeros(3), [1.0]), "lam"),
    (lambda fb: project(fb, np.zeros(2), np.zeros(3)), "q"),
])
def test_closed_chain_validation(make, match):
    with pytest.raises(ValueError, match=match):
        make(four_bar())


def test_singular_choice_of_independent_coordinate_is_reported():
    """With the rocker as the independent coordinate, its extreme positions are singular (G_d = 0 rank 1)."""
    fb = four_bar()
    by_rocker = ClosedChainModel(fb.tree, fb.constraints, actuated=[0], independent=[2])
    # the rocker is at an extreme when crank and coupler are aligned: θ3 = θ2 (q1 = 0)
    grid = np.linspace(-np.pi, np.pi, 20001)
    q1 = np.array([four_bar_q(FOUR_BAR, th)[1] for th in grid[::100]])
    k = int(np.argmin(np.abs(np.angle(np.exp(1j * q1)))))
    th = grid[::100][k]
    f = lambda x: np.angle(np.exp(1j * four_bar_q(FOUR_BAR, x)[1]))       # noqa: E731  q1 (wrapped)
    lo, hi = th - 0.05, th + 0.05
    assert f(lo) * f(hi) < 0
    for _ in range(60):                                # bisection to machine precision
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if f(lo) * f(mid) <= 0 else (mid, hi)
    th = 0.5 * (lo + hi)
    with pytest.raises(ValueError, match="singular"):
        noc(by_rocker, four_bar_q(FOUR_BAR, th))
    assert noc(fb, four_bar_q(FOUR_BAR, th)).shape == (3, 1)          # the crank is fine there


# ------------------------------------------------------------------------------------------------
# exercise 12: the checker module, the solution and the blank notebook
# ------------------------------------------------------------------------------------------------
def _exercise12():
    nbformat = pytest.importorskip("nbformat")
    from pathlib import Path

    from lessonlib.grading.checks import authoring
    from lessonlib.grading.checks.checker import load_exercise, run_check
    root = Path(__file__).resolve().parents[1]
    return (nbformat, authoring, load_exercise("constrained12"), run_check,
            nbformat.read(str(root / "solutions" / "12_constrained.ipynb"), as_version=4),
            nbformat.read(str(root / "exercises" / "12_constrained.ipynb"), as_version=4))


def test_exercise12_solution_passes_and_the_blank_is_in_sync():
    _, authoring, ex, _, sol, blank = _exercise12()
    assert authoring.sync_errors(blank, sol) == []
    verdicts = authoring.solution_verdicts(sol)
    assert {cid: v.passed for cid, v in verdicts.items()} == {cid: True for cid in ex.checks}
    assert sum(c.points for c in ex.checks.values()) == 8


def test_exercise12_checks_fail_readably_on_wrong_answers():
    from lessonlib.grading.checks.preview import local_function as local
    from lessonlib.grading.checks.exercises.constrained12 import pin_gap_jacobian
    _, _, ex, run_check, _, _ = _exercise12()
    absolute = lambda q, lengths: pin_gap_jacobian([q[0], q[1] - q[0], q[2]], lengths)   # noqa: E731  q1 taken as θ3
    v = run_check(ex.checks["fourbar-jacobian"], [local(absolute)], seed=1, student="s")
    assert not v.passed and "expected" in v.message and "got" in v.message and "hint:" in v.message
    wrong_sign = lambda J, tau, actuated: -np.ones(len(actuated))                        # noqa: E731
    assert not run_check(ex.checks["fivebar-power"], [local(wrong_sign)], seed=1, student="s").passed


def test_exercise12_blocks_the_constraint_layer_but_not_the_four_bar_itself():
    import importlib
    from lessonlib.grading.checks.exercises.constrained12 import EXERCISE
    blocked = {b.partition(":")[2] for b in EXERCISE.blocked}
    assert {"constraint_jacobian", "noc", "inverse_dynamics", "four_bar_lagrange", "constraint_terms",
            "contact_forward_dynamics", "contact_kinematics"} <= blocked
    assert not {"four_bar", "four_bar_q", "four_bar_angles", "ClosedChainModel"} & blocked
    for target in EXERCISE.blocked:                      # every target names a real top-level function
        module, _, name = target.partition(":")
        function = getattr(importlib.import_module(module), name)
        assert callable(function) and function.__module__ == module, f"{target}: not defined in that module"
