"""Known mistakes: a wrong answer that makes a classic mistake gets a message naming it.

Each exercise module declares, per check, variants of the reference with one classic bug
(:class:`lessonlib.grading.checks.checker.Variant`). Here every declared variant is matched by a *student*
bug — the solution notebook's own answer cell with one edit, as a student would write it — and that
submission must fail each listed check with exactly that variant's "likely mistake" line (no other
variant's). The honest solution and an unrelated wrong answer get no such line; the variants of a
check never agree with one another where the check fails them (so a message is never ambiguous);
and a failing answer that calls the student's earlier functions names the wrong one. A sample goes
through the real ``lessonlib-grade`` run.
"""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from lessonlib.grading.checks.checker import load_exercise, replay, run_check, same_failure
from lessonlib.grading.checks.preview import local_function
from lessonlib.grading.checks.exercises import (aba09, constrained12, denoc07, lagrange04, mass_matrix08, rnea05,
                                                rnea_poe06, simulation10)
from lessonlib.grading.checks.exercises.applications11 import adaptive as M11_SL
from lessonlib.grading.checks.exercises.applications11 import control as M11_CONTROL
from lessonlib.grading.checks.exercises.applications11 import friction as M11_FRICTION
from lessonlib.grading.checks.exercises.applications11 import limits as M11_LIMITS
from lessonlib.grading.checks.exercises.applications11 import observer as M11_OBSERVER

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = {"lagrange04": "04_lagrange.ipynb", "rnea05": "05_rnea.ipynb", "rnea_poe06": "06_lie_group_dynamics.ipynb", "denoc07": "07_denoc.ipynb",
             "mass_matrix08": "08_mass_matrix_forward_dynamics.ipynb", "aba09": "09_aba.ipynb",
             "simulation10": "10_simulation.ipynb", "applications11": "11_applications.ipynb",
             "constrained12": "12_constrained.ipynb"}
LIKELY = "likely mistake: "


def answers_of(name):
    nb = nbformat.read(str(ROOT / "solutions" / NOTEBOOKS[name]), as_version=4)
    return nb, {c.metadata["lessonlib"]["id"]: c.source for c in nb.cells if "answer" in c.metadata.get("tags", [])}


def namespace(name, edits=()):
    """The solution's functions (setup + answer cells, trusted code) with ``(cell, old, new)`` edits applied."""
    nb, answers = answers_of(name)
    for key, old, new in edits:
        assert old in answers[key], (name, key, old)
        answers[key] = answers[key].replace(old, new)
    ns = {}
    exec(next(c.source for c in nb.cells if c.get("id") == "setup"), ns)
    for source in answers.values():
        exec(source, ns)
    return ns


def run(name, check_id, ns, seed=1):
    check = load_exercise(name).checks[check_id]
    return run_check(check, [local_function(ns[f]) for f in check.functions], seed=seed, student="s")


def named_mistakes(message):
    return [line.split(LIKELY, 1)[1] for line in message.splitlines() if LIKELY in line]


# --- one student bug per known mistake: (exercise, edits, {check: the variant it must name}) ---------------

M04, M05, M06, M07, M08, M09, M10, M12 = (lagrange04, rnea05, rnea_poe06, denoc07, mass_matrix08, aba09, simulation10,
                                          constrained12)
# Exercise 11 is a package, one submodule per topic: its known mistakes (M11_*) live with their topic.
SKATER_L = "return float(_L_spin(q[0], q[1], qd[0], qd[1], 0.0, 0.0, skater[\"I\"], skater[\"m\"]))"
SKATER_TAU = ("return np.array(_tau_skater(q[0], q[1], qd[0], qd[1], qdd[0], qdd[1], skater[\"I\"], skater[\"m\"]), "
              "dtype=float)")
CF_A_BODY = ("            m = deeper(parent, i, j)\n            if m is not None:                        # otherwise no link "
             "moves with both joints\n                A[i, j] = s[i] @ N_bar[m] @ s[j]\n")
LIMIT_CLIP = "return np.clip(tau, -np.asarray(tau_max), np.asarray(tau_max))"


def skater_by_hand(coriolis, centrifugal):
    """``skater_torques`` typed in by hand, with the Coriolis term of τ₁ and the centrifugal term of τ₂ given."""
    return (f'I, m, r = skater["I"], skater["m"], q[1]\n    return np.array([(I + m * r * r) * qdd[0] + {coriolis}, '
            f'm * qdd[1] {centrifugal}])')

CHOLESKY_LOOPS = '''    n = len(b)
    y = np.zeros(n)
    for i in range(n):                              # forward substitution: L y = b
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    x = np.zeros(n)
    for i in reversed(range(n)):                    # back substitution: L^T x = y
        x[i] = (y[i] - L[i + 1:, i] @ x[i + 1:]) / L[i, i]
    return x
'''
CASES = [
    ("rnea05", [("answer-static", "tau2 = g * (m2 * L2 / 2", "tau2 = g * (m2 * L2"),
                ("answer-static", "g * (m1 * L1 / 2", "g * (m1 * L1")],
     {"rnea-static": M05.WEIGHTS_AT_ENDS, "rnea-static-tip": M05.WEIGHTS_AT_ENDS}),
    ("rnea05", [("answer-static", "tau1 = tau2 + g * (m1 * L1 / 2 + (m2 + tip_mass) * L1)",
                 "tau1 = g * (m1 * L1 / 2 + m2 * L2 / 2 + tip_mass * (L1 + L2))")],
     {"rnea-static": M05.ROD2_LEVER, "rnea-static-tip": M05.ROD2_LEVER}),
    ("rnea05", [("answer-static", "tau1 = tau2 + g * (m1 * L1 / 2 + (m2 + tip_mass) * L1)",
                 "tau1 = g * (m1 * L1 / 2 + tip_mass * (L1 + L2))")],
     {"rnea-static": M05.ROD2_FORGOTTEN, "rnea-static-tip": M05.ROD2_FORGOTTEN}),
    ("rnea05", [("answer-outward", "v[i] = X[i] @ v_prev", "v[i] = X[i].T @ v_prev"),
                ("answer-outward", "a[i] = X[i] @ a_prev", "a[i] = X[i].T @ a_prev")],
     {"rnea-outward-v": M05.OUT_TRANSPOSED, "rnea-outward-a": M05.OUT_TRANSPOSED}),
    ("rnea05", [("answer-outward", "v[i] = X[i] @ v_prev + S[i] * qd[i]", "v[i] = S[i] * qd[i]"),
                ("answer-outward", "a[i] = X[i] @ a_prev +", "a[i] = 0 * a_prev +")],
     {"rnea-outward-v": M05.OUT_NOT_CARRIED}),
    ("rnea05", [("answer-outward", " + se3.ad(v[i]) @ S[i] * qd[i]", "")],
     {"rnea-outward-a": M05.PRODUCT_DROPPED, "rnea-full-chain": M05.RNEA_NO_PRODUCT,
      "rnea-full-ur5": M05.RNEA_NO_PRODUCT}),
    ("rnea05", [("answer-outward", "se3.ad(v[i]) @ S[i] * qd[i]", "se3.ad(S[i] * qd[i]) @ v[i]")],
     {"rnea-outward-a": M05.PRODUCT_SWAPPED}),
    ("rnea05", [("answer-outward", "np.asarray(a0, dtype=float)", "np.zeros(6)")],
     {"rnea-outward-a": M05.A0_DROPPED}),
    ("rnea05", [("answer-inward", "f[i - 1] += X[i].T @ f[i]", "f[i - 1] += X[i] @ f[i]")],
     {"rnea-inward": M05.IN_NOT_TRANSPOSED, "rnea-inward-fext": M05.IN_NOT_TRANSPOSED,
      "rnea-full-chain": M05.RNEA_NOT_TRANSPOSED, "rnea-full-identities": M05.RNEA_NOT_TRANSPOSED,
      "rnea-full-ur5": M05.RNEA_NOT_TRANSPOSED}),
    ("rnea05", [("answer-inward", " + se3.ad_dual(v[i]) @ I[i] @ v[i]", "")],
     {"rnea-inward": M05.GYRO_DROPPED, "rnea-inward-fext": M05.GYRO_DROPPED, "rnea-full-chain": M05.RNEA_NO_GYRO,
      "rnea-full-ur5": M05.RNEA_NO_GYRO}),
    ("rnea05", [("answer-inward", "se3.ad_dual(v[i]) @ I[i] @ v[i]", "se3.ad(v[i]) @ I[i] @ v[i]")],
     {"rnea-inward": M05.GYRO_AD, "rnea-inward-fext": M05.GYRO_AD}),
    ("rnea05", [("answer-inward", "        if i > 0:\n            f[i - 1] += X[i].T @ f[i]\n", "")],
     {"rnea-inward": M05.NOT_HANDED_ON, "rnea-inward-fext": M05.NOT_HANDED_ON}),
    ("rnea05", [("answer-inward", "f = f - np.asarray(f_ext, dtype=float)", "f = f + np.asarray(f_ext, dtype=float)")],
     {"rnea-inward-fext": M05.FEXT_ADDED}),
    ("rnea05", [("answer-inward", "f = f - np.asarray(f_ext, dtype=float)", "pass")],
     {"rnea-inward-fext": M05.FEXT_IGNORED}),
    ("rnea05", [("answer-rnea", "a0[LIN] = -g", "a0[LIN] = g")],
     {"rnea-full-chain": M05.RNEA_GRAVITY_SIGN, "rnea-full-identities": M05.RNEA_GRAVITY_SIGN,
      "rnea-full-ur5": M05.RNEA_GRAVITY_SIGN}),
    ("rnea05", [("answer-rnea", "g = model.gravity if gravity is None else np.asarray(gravity, dtype=float)",
                 "g = model.gravity")],
     {"rnea-full-chain": M05.RNEA_GRAVITY_IGNORED, "rnea-full-identities": M05.RNEA_GRAVITY_IGNORED}),
    ("rnea05", [("answer-rnea", "g = model.gravity if gravity is None else np.asarray(gravity, dtype=float)",
                 "g = np.zeros(3) if gravity is None else np.asarray(gravity, dtype=float)")],
     {"rnea-full-chain": M05.RNEA_NONE_IS_ZERO, "rnea-full-ur5": M05.RNEA_NONE_IS_ZERO}),
    ("rnea_poe06", [("answer-home", "pose = pose @ M_list[i]", "pose = M_list[i]")],
     {"poe-home-poses": M06.HOME_NOT_PRODUCT}),
    ("rnea_poe06", [("answer-home", "pose = pose @ M_list[i]", "pose = M_list[i] @ pose")],
     {"poe-home-poses": M06.HOME_REVERSED}),
    ("rnea_poe06", [("answer-home", "pose = pose @ M_list[i]", "pose = pose @ M_list[i + 1]")],
     {"poe-home-poses": M06.HOME_SHIFTED}),
    ("rnea_poe06", [("answer-home", "back = se3.Ad(se3.inv(pose))", "back = se3.Ad(pose)")],
     {"poe-home-inertias": M06.N0_FORWARD}),
    ("rnea_poe06", [("answer-home", "N0[i] = back.T @ G_list[i] @ back", "N0[i] = back @ G_list[i] @ back.T")],
     {"poe-home-inertias": M06.N0_OTHER_SIDE}),
    ("rnea_poe06", [("answer-home", "N0[i] = back.T @ G_list[i] @ back", "N0[i] = G_list[i]")],
     {"poe-home-inertias": M06.N0_NOT_PULLED}),
    ("rnea_poe06", [("answer-adjoint", "* theta))", "* -theta))")],
     {"poe-adjoint": M06.H_SIGN, "poe-adjoint-chain": M06.H_SIGN}),
    ("rnea_poe06", [("answer-adjoint", "* theta))", "* np.radians(theta)))")],
     {"poe-adjoint": M06.H_DEGREES, "poe-adjoint-chain": M06.H_DEGREES}),
    ("rnea_poe06", [("answer-adjoint", "return se3.Ad(se3.exp(np.asarray(s, dtype=float) * theta))",
                     "return np.eye(6) + theta * se3.ad(np.asarray(s, dtype=float))")],
     {"poe-adjoint": M06.H_FIRST_ORDER, "poe-adjoint-chain": M06.H_FIRST_ORDER}),
    ("rnea_poe06", [("answer-forward", "H_inv = joint_adjoint(S0[i], -q[i])", "H_inv = joint_adjoint(S0[i], q[i])")],
     {"poe-forward-v": M06.FWD_H, "poe-forward-a": M06.FWD_H}),
    ("rnea_poe06", [("answer-forward", "V[i] = qd[i] * S0[i] + H_inv @ V_in", "V[i] = qd[i] * S0[i]")],
     {"poe-forward-v": M06.FWD_NOT_CARRIED}),
    ("rnea_poe06", [("answer-forward", " + qd[i] * (se3.ad(V[i]) @ S0[i])", "")],
     {"poe-forward-a": M06.BRACKET_DROPPED, "poe-rnea-chain": M06.POE_NO_BRACKET,
      "poe-rnea-ur5": M06.POE_NO_BRACKET}),
    ("rnea_poe06", [("answer-forward", "se3.ad(V[i]) @ S0[i]", "se3.ad(S0[i]) @ V[i]")],
     {"poe-forward-a": M06.BRACKET_SWAPPED}),
    ("rnea_poe06", [("answer-forward", "Vd_in[LIN] = -np.asarray(gravity", "Vd_in[LIN] = np.asarray(gravity")],
     {"poe-forward-a": M06.FWD_GRAVITY_SIGN, "poe-rnea-chain": M06.POE_GRAVITY_SIGN,
      "poe-rnea-ur5": M06.POE_GRAVITY_SIGN, "poe-rnea-identities": M06.POE_GRAVITY_SIGN}),
    ("rnea_poe06", [("answer-rnea-poe", "joint_adjoint(S0[i], -q[i]).T @ P[i]", "joint_adjoint(S0[i], q[i]).T @ P[i]")],
     {"poe-rnea-chain": M06.BACK_H, "poe-rnea-ur5": M06.BACK_H, "poe-rnea-identities": M06.BACK_H}),
    ("rnea_poe06", [("answer-rnea-poe", "joint_adjoint(S0[i], -q[i]).T @ P[i]", "joint_adjoint(S0[i], -q[i]) @ P[i]")],
     {"poe-rnea-chain": M06.BACK_NOT_TRANSPOSED, "poe-rnea-ur5": M06.BACK_NOT_TRANSPOSED,
      "poe-rnea-identities": M06.BACK_NOT_TRANSPOSED}),
    ("rnea_poe06", [("answer-rnea-poe", "se3.ad_dual(V[i]) @ (N0[i] @ V[i])", "se3.ad(V[i]) @ (N0[i] @ V[i])")],
     {"poe-rnea-chain": M06.POE_GYRO_AD, "poe-rnea-ur5": M06.POE_GYRO_AD}),
    ("denoc07", [("answer-blocks", "A[LIN, ANG] = -so3.hat", "A[LIN, ANG] = so3.hat")],
     {"denoc-twist-prop": M07.TP_SIGN}),
    ("denoc07", [("answer-blocks", "A[LIN, ANG] = -so3.hat", "A[ANG, LIN] = so3.hat")],
     {"denoc-twist-prop": M07.TP_ABOVE}),
    ("denoc07", [("answer-blocks", "lever = np.asarray(O, dtype=float) - np.asarray(r, dtype=float)",
                  "lever = np.asarray(r, dtype=float) - np.asarray(O, dtype=float)")],
     {"denoc-joint-rate": M07.LEVER_REVERSED}),
    ("denoc07", [("answer-blocks", "np.concatenate([e, np.cross(e, lever)])", "np.concatenate([e, np.zeros(3)])")],
     {"denoc-joint-rate": M07.NO_LEVER}),
    ("denoc07", [("answer-blocks", "return np.concatenate([np.zeros(3), e])", "return np.concatenate([e, np.zeros(3)])")],
     {"denoc-joint-rate": M07.PRISMATIC_TURNS}),
    ("denoc07", [("answer-n", "R @ joint.axis, O[k] + R @ joint.point, O[k]", "joint.axis, joint.point, O[k]")],
     {"denoc-nd": M07.ND_LOCAL_AXES}),
    ("denoc07", [("answer-n", "O[k] + R @ joint.point, O[k])", "O[k] + R @ joint.point, np.zeros(3))")],
     {"denoc-nd": M07.ND_WORLD_ORIGIN}),
    ("denoc07", [("answer-n", "twist_propagation(O[k] - O[j])", "twist_propagation(O[j] - O[k])")],
     {"denoc-nl": M07.NL_SIGN}),
    ("denoc07", [("answer-n", "for j in range(k + 1):", "for j in range(max(k - 1, 0), k + 1):")],
     {"denoc-nl": M07.NL_BIDIAGONAL}),
    ("denoc07", [("answer-n", "N_l[rows, 6 * j:6 * j + 6] =", "N_l[6 * j:6 * j + 6, rows] =")],
     {"denoc-nl": M07.NL_ABOVE}),
    ("denoc07", [("answer-inertia", "turn @ model.inertia[k] @ turn.T", "model.inertia[k]")],
     {"denoc-nmn": M07.GI_BODY_AXES, "denoc-nmn-swc16": M07.GI_BODY_AXES}),
    ("denoc07", [("answer-inertia", "turn @ model.inertia[k] @ turn.T", "turn.T @ model.inertia[k] @ turn")],
     {"denoc-nmn": M07.GI_TURNED_BACK, "denoc-nmn-swc16": M07.GI_TURNED_BACK}),
    ("denoc07", [("answer-inertia", "N = N_l @ N_d", "N = N_d")],
     {"denoc-nmn": M07.GI_NO_NL, "denoc-nmn-swc16": M07.GI_NO_NL}),
    ("denoc07", [("answer-denoc", " + A_dot @ t_in", "")],
     {"denoc-tau-chain": M07.TAU_NO_ADOT, "denoc-tau-swc16": M07.TAU_NO_ADOT}),
    ("denoc07", [("answer-denoc", " + W @ p[k] * qd[k]", "")],
     {"denoc-tau-chain": M07.TAU_NO_WP, "denoc-tau-swc16": M07.TAU_NO_WP}),
    ("denoc07", [("answer-denoc", "W @ M_k @ E @ t", "W @ M_k @ t")],
     {"denoc-tau-chain": M07.TAU_NO_E, "denoc-tau-swc16": M07.TAU_NO_E}),
    ("denoc07", [("answer-denoc", "np.concatenate([np.zeros(3), -g])", "np.concatenate([np.zeros(3), g])")],
     {"denoc-tau-chain": M07.TAU_GRAVITY_SIGN, "denoc-tau-swc16": M07.TAU_GRAVITY_SIGN,
      "denoc-tau-identities": M07.TAU_GRAVITY_SIGN}),
    ("denoc07", [("answer-denoc", "g = model.gravity if gravity is None else", "g = np.zeros(3) if gravity is None else")],
     {"denoc-tau-chain": M07.TAU_NONE_IS_ZERO, "denoc-tau-swc16": M07.TAU_NONE_IS_ZERO}),
    ("denoc07", [("answer-denoc", "A[k].T @ w[k]", "A[k] @ w[k]")],
     {"denoc-tau-chain": M07.TAU_A_NOT_TRANSPOSED, "denoc-tau-swc16": M07.TAU_A_NOT_TRANSPOSED,
      "denoc-tau-identities": M07.TAU_A_NOT_TRANSPOSED}),
    ("denoc07", [("answer-denoc", "M_k = turn @ model.inertia[k] @ turn.T", "M_k = model.inertia[k]")],
     {"denoc-tau-chain": M07.TAU_BODY_AXES, "denoc-tau-swc16": M07.TAU_BODY_AXES,
      "denoc-tau-identities": M07.TAU_BODY_AXES}),
    ("mass_matrix08", [("answer-id-columns", "gravity=no_gravity", "gravity=None")],
     {"mass-id-columns": M08.ID_GRAVITY_ON, "mass-id-trees": M08.ID_GRAVITY_ON}),
    ("mass_matrix08", [("answer-crba", "model.parent[i] != -1", "i > 0"),
                       ("answer-crba", "composite[model.parent[i]]", "composite[i - 1]"),
                       ("answer-crba", "model.parent[k] != -1", "k > 0"), ("answer-crba", "k = model.parent[k]", "k = k - 1")],
     {"mass-crba-tree": M08.CRBA_CHAIN_WALK}),
    ("mass_matrix08", [("answer-crba", "X[i].T @ composite[i] @ X[i]", "X[i] @ composite[i] @ X[i].T")],
     {"mass-crba-chain": M08.CRBA_NOT_TRANSPOSED, "mass-crba-tree": M08.CRBA_NOT_TRANSPOSED,
      "mass-crba-energy": M08.CRBA_NOT_TRANSPOSED}),
    ("mass_matrix08", [("answer-crba", "force = X[k].T @ force", "force = X[k] @ force")],
     {"mass-crba-chain": M08.CRBA_STEP_NOT_TRANSPOSED, "mass-crba-tree": M08.CRBA_STEP_NOT_TRANSPOSED,
      "mass-crba-energy": M08.CRBA_STEP_NOT_TRANSPOSED}),
    ("mass_matrix08", [("answer-crba", "composite[model.parent[i]] += X[i].T @ composite[i] @ X[i]", "pass")],
     {"mass-crba-chain": M08.CRBA_NOT_COMPOSITE, "mass-crba-tree": M08.CRBA_NOT_COMPOSITE,
      "mass-crba-energy": M08.CRBA_NOT_COMPOSITE}),
    ("mass_matrix08", [("answer-crba", "            M[i, k] = M[k, i]\n", "")],
     {"mass-crba-chain": M08.CRBA_HALF, "mass-crba-tree": M08.CRBA_HALF, "mass-crba-energy": M08.CRBA_HALF}),
    ("mass_matrix08", [("answer-fd", CHOLESKY_LOOPS, "    return np.linalg.solve(L, np.linalg.solve(L.T, b))\n")],
     {"mass-cholesky": M08.CHOL_ORDER}),
    ("mass_matrix08", [("answer-fd", CHOLESKY_LOOPS, "    return np.linalg.solve(L, np.linalg.solve(L, b))\n")],
     {"mass-cholesky": M08.CHOL_NO_TRANSPOSE}),
    ("mass_matrix08", [("answer-fd", "    return x\n", "    return y\n")],
     {"mass-cholesky": M08.CHOL_FORWARD_ONLY}),
    ("mass_matrix08", [("answer-fd", "np.asarray(tau, dtype=float) - h", "np.asarray(tau, dtype=float) + h")],
     {"mass-fd": M08.FD_BIAS_SIGN, "mass-fd-roundtrip": M08.FD_BIAS_SIGN}),
    ("mass_matrix08", [("answer-fd", "gravity=gravity, f_ext=f_ext)", "gravity=np.zeros(3), f_ext=f_ext)")],
     {"mass-fd": M08.FD_BIAS_NO_GRAVITY, "mass-fd-roundtrip": M08.FD_BIAS_NO_GRAVITY}),
    ("mass_matrix08", [("answer-fd", "gravity=gravity, f_ext=f_ext)", "f_ext=f_ext)")],
     {"mass-fd-roundtrip": M08.FD_GRAVITY_NOT_PASSED}),
    ("mass_matrix08", [("answer-fd", "gravity=gravity, f_ext=f_ext)", "gravity=gravity)")],
     {"mass-fd-roundtrip": M08.FD_FEXT_DROPPED}),
    ("mass_matrix08", [("answer-jtf", "return -rnea", "return rnea")], {"mass-jtf": M08.JTF_SIGN}),
    ("mass_matrix08", [("answer-jtf", "gravity=np.zeros(3), f_ext=wrenches", "f_ext=wrenches")],
     {"mass-jtf": M08.JTF_GRAVITY_ON}),
    ("aba09", [("answer-inward", "IA[i - 1] += X[i].T @ Ia @ X[i]", "IA[i - 1] += X[i] @ Ia @ X[i].T")],
     {"aba-inward-ia": M09.IA_NOT_TRANSPOSED, "aba-inward-schur": M09.IA_NOT_TRANSPOSED}),
    ("aba09", [("answer-inward", "Ia = IA[i] - np.outer(U, U) / D", "Ia = IA[i]")],
     {"aba-inward-ia": M09.IA_NOT_FREED, "aba-inward-schur": M09.IA_NOT_FREED}),
    ("aba09", [("answer-inward", "pa = pA[i] + Ia @ c[i] + U * u / D", "pa = pA[i] + U * u / D")],
     {"aba-inward-pa": M09.PA_NO_C}),
    ("aba09", [("answer-inward", "pa = pA[i] + Ia @ c[i] + U * u / D", "pa = pA[i] + Ia @ c[i]")],
     {"aba-inward-pa": M09.PA_NO_U}),
    ("aba09", [("answer-inward", "u = tau[i] - S[i] @ pA[i]", "u = tau[i] + S[i] @ pA[i]")],
     {"aba-inward-pa": M09.PA_U_SIGN}),
    ("aba09", [("answer-inward", "pA[i - 1] += X[i].T @ pa", "pA[i - 1] += X[i] @ pa")],
     {"aba-inward-pa": M09.PA_NOT_TRANSPOSED}),
    ("aba09", [("answer-aba", "a_prev[LIN] = -g", "a_prev[LIN] = g")],
     {"aba-full-chain": M09.ABA_GRAVITY_SIGN, "aba-full-identities": M09.ABA_GRAVITY_SIGN}),
    ("aba09", [("answer-aba", "g = model.gravity if gravity is None else", "g = np.zeros(3) if gravity is None else")],
     {"aba-full-chain": M09.ABA_NONE_IS_ZERO, "aba-full-identities": M09.ABA_NONE_IS_ZERO}),
    ("aba09", [("answer-aba", "c[i] = se3.ad(v[i]) @ S[i] * qd[i]", "c[i] = 0 * S[i]")],
     {"aba-full-chain": M09.ABA_NO_PRODUCT, "aba-full-identities": M09.ABA_NO_PRODUCT}),
    ("aba09", [("answer-aba", "c[i] = se3.ad(v[i]) @ S[i] * qd[i]", "c[i] = se3.ad(S[i] * qd[i]) @ v[i]")],
     {"aba-full-chain": M09.ABA_PRODUCT_SWAPPED, "aba-full-identities": M09.ABA_PRODUCT_SWAPPED}),
    ("aba09", [("answer-aba", "p = np.array([se3.ad_dual(v[i]) @ I[i] @ v[i] for i in range(n)])", "p = np.zeros((n, 6))")],
     {"aba-full-chain": M09.ABA_NO_GYRO, "aba-full-identities": M09.ABA_NO_GYRO}),
    ("aba09", [("answer-slope", "float(np.exp(log_a))", "float(log_a)")],
     {"aba-slope-power": M09.FIT_INTERCEPT, "aba-slope-measured": M09.FIT_INTERCEPT}),
    ("aba09", [("answer-slope", "np.polyfit(np.log(n), np.log(t), 1)", "np.polyfit(np.log10(n), np.log10(t), 1)")],
     {"aba-slope-power": M09.FIT_MIXED_LOGS, "aba-slope-measured": M09.FIT_MIXED_LOGS}),
    ("aba09", [("answer-slope", "p, log_a = np.polyfit(np.log(n), np.log(t), 1)",
                "x, y = np.log(n), np.log(t)\n    p = (y[-1] - y[0]) / (x[-1] - x[0])\n    log_a = y[0] - p * x[0]")],
     {"aba-slope-measured": M09.FIT_END_POINTS}),
    ("constrained12", [("answer-jacobian", "theta2, theta3, theta4 = q[0], q[0] + q[1], q[2]",
                        "theta2, theta3, theta4 = q[0], q[1], q[2]")], {"fourbar-jacobian": M12.G_Q1_ABSOLUTE}),
    ("constrained12", [("answer-jacobian", "L2 * d(theta2) + L3 * d(theta3), L3", "L2 * d(theta2), L3")],
     {"fourbar-jacobian": M12.G_CRANK_ONLY}),
    ("constrained12", [("answer-jacobian", "return np.column_stack([", "return -np.column_stack([")],
     {"fourbar-jacobian": M12.G_SIGN}),
    ("constrained12", [("answer-jacobian", "    return np.column_stack([", "    G = np.column_stack(["),
                       ("answer-jacobian", "-L4 * d(theta4)])",
                        "-L4 * d(theta4)])\n    c, s = np.cos(theta3), np.sin(theta3)\n"
                        "    return np.array([[c, s], [-s, c]]) @ G")],
     {"fourbar-jacobian": M12.G_LOCAL_AXES}),
    ("constrained12", [("answer-noc", "N[dependent, :] = -np.linalg.solve", "N[dependent, :] = np.linalg.solve")],
     {"fourbar-noc": M12.NOC_SIGN}),
    ("constrained12", [("answer-noc", "    N[independent, :] = np.eye(len(independent))\n"
                        "    N[dependent, :] = -np.linalg.solve(G[:, dependent], G[:, independent])\n    return N",
                        "    return np.vstack([np.eye(len(independent)), "
                        "-np.linalg.solve(G[:, dependent], G[:, independent])])")],
     {"fourbar-noc": M12.NOC_NOT_REORDERED}),
    ("constrained12", [("answer-noc", "-np.linalg.solve(G[:, dependent], G[:, independent])",
                        "-np.linalg.inv(G[:, dependent]) @ G[:, independent]")],
     {"fourbar-noc": M12.NOC_INVERSE}),
    ("constrained12", [("answer-gamma", "    return L2 * qd[0] ** 2 * e(q[0]) + L3 * w3 ** 2 * e(q[0] + q[1]) - L4 * qd[2] ** 2 * e(q[2])",
                        "    return -(L2 * qd[0] ** 2 * e(q[0]) + L3 * w3 ** 2 * e(q[0] + q[1]) - L4 * qd[2] ** 2 * e(q[2]))")],
     {"fourbar-gamma": M12.GAMMA_SIGN}),
    ("constrained12", [("answer-gamma", "w3 = qd[0] + qd[1]", "w3 = qd[1]")], {"fourbar-gamma": M12.GAMMA_COUPLER_RATE}),
    ("constrained12", [("answer-gamma", "    return L2 * qd[0] ** 2",
                        "    c, s = np.cos(q[0] + q[1]), np.sin(q[0] + q[1])\n    return np.array([[c, s], [-s, c]]) @ (L2 * qd[0] ** 2"),
                       ("answer-gamma", "- L4 * qd[2] ** 2 * e(q[2])", "- L4 * qd[2] ** 2 * e(q[2]))")],
     {"fourbar-gamma": M12.GAMMA_LOCAL_AXES}),
    ("constrained12", [("answer-crank-torque",
                        "    qdd[1:] += np.linalg.solve(G[:, 1:], four_bar_gamma(q, qd, FOUR_BAR.lengths))\n", "")],
     {"fourbar-crank-torque": M12.CT_GAMMA_DROPPED}),
    ("constrained12", [("answer-crank-torque", "qdd[1:] += np.linalg.solve", "qdd[1:] -= np.linalg.solve")],
     {"fourbar-crank-torque": M12.CT_GAMMA_SIGN}),
    ("constrained12", [("answer-crank-torque", "bias_forces(TREE, q, qd)", "bias_forces(TREE, q, 0 * qd)")],
     {"fourbar-crank-torque": M12.CT_NO_VELOCITY}),
    ("constrained12", [("answer-redistribute", "np.linalg.solve(A.T, sum(", "np.linalg.solve(A, sum(")],
     {"fivebar-power": M12.RD_A_NOT_TRANSPOSED}),
    ("constrained12", [("answer-redistribute", "np.linalg.solve(J_k.T, t_k)", "np.linalg.solve(J_k, t_k)")],
     {"fivebar-power": M12.RD_J_NOT_TRANSPOSED}),
    ("constrained12", [("answer-redistribute", "np.linalg.inv(J_k)[a]", "np.linalg.inv(J_k)[:, a]")],
     {"fivebar-power": M12.RD_COLUMN}),
    # --- issue 13's parts: exercise 04 (e)–(f), 05 (e), 06 (e), 11 (d)–(g) ---------------------------------------
    ("lagrange04", [("answer-dh", "P_dh = -(m1 * g_vec.dot", "P_dh = (m1 * g_vec.dot")],
     {"lagrange-dh-potential": M04.P_SIGN, "lagrange-dh-gravity": M04.G_SIGN}),
    ("lagrange04", [("answer-dh", "sp.Matrix([lc1 - l1, 0, 0, 1])", "sp.Matrix([lc1, 0, 0, 1])"),
                    ("answer-dh", "sp.Matrix([lc2 - l2, 0, 0, 1])", "sp.Matrix([lc2, 0, 0, 1])")],
     {"lagrange-dh-potential": M04.P_AT_JOINT, "lagrange-dh-gravity": M04.G_AT_JOINT}),
    ("lagrange04", [("answer-dh", "sp.Matrix([lc1 - l1, 0, 0, 1])", "sp.Matrix([-l1 / 2, 0, 0, 1])"),
                    ("answer-dh", "sp.Matrix([lc2 - l2, 0, 0, 1])", "sp.Matrix([-l2 / 2, 0, 0, 1])")],
     {"lagrange-dh-potential": M04.P_MIDPOINT, "lagrange-dh-gravity": M04.G_MIDPOINT}),
    ("lagrange04", [("answer-dh", "T_02 = T_01 * dh_matrix(l2, 0, 0, q2)", "T_02 = dh_matrix(l2, 0, 0, q2)")],
     {"lagrange-dh-potential": M04.P_NOT_CHAINED}),
    ("lagrange04", [("answer-dh", "g_vec = sp.Matrix([gx, gy, gz])",
                     "g_vec = sp.Matrix([0, -sp.sqrt(gx**2 + gy**2 + gz**2), 0])")],
     {"lagrange-dh-potential": M04.P_DOWN_Y, "lagrange-dh-gravity": M04.G_DOWN_Y}),
    ("lagrange04", [("answer-skater", "L_spin = plain(T_skater.diff(theta_t.diff(t)))", "L_spin = plain(T_skater)")],
     {"lagrange-skater-momentum": M04.L_ENERGY}),
    ("lagrange04", [("answer-skater", SKATER_L, 'return float(skater["I"] * qd[0])')],
     {"lagrange-skater-momentum": M04.L_HUB_ONLY}),
    ("lagrange04", [("answer-skater", SKATER_L, 'return float(skater["m"] * q[1] ** 2 * qd[0])')],
     {"lagrange-skater-momentum": M04.L_MASS_ONLY}),
    ("lagrange04", [("answer-skater", SKATER_TAU, skater_by_hand("m * r * qd[1] * qd[0]", "- m * r * qd[0] ** 2"))],
     {"lagrange-skater-torques": M04.T_CORIOLIS_ONCE}),
    ("lagrange04", [("answer-skater", SKATER_TAU, skater_by_hand("0.0", "- m * r * qd[0] ** 2"))],
     {"lagrange-skater-torques": M04.T_NO_CORIOLIS}),
    ("lagrange04", [("answer-skater", "T_skater.diff(x.diff(t)).diff(t) - T_skater.diff(x)",
                     "T_skater.diff(x.diff(t)).diff(t) + T_skater.diff(x)")],
     {"lagrange-skater-torques": M04.T_CENTRIFUGAL_SIGN}),
    ("lagrange04", [("answer-skater", "T_skater.diff(x.diff(t)).diff(t) - T_skater.diff(x)",
                     "T_skater.diff(x.diff(t)).diff(t)")],
     {"lagrange-skater-torques": M04.T_NO_CENTRIFUGAL}),
    ("rnea05", [("answer-lwp", "if i == 0:", "if i == -1:")],
     {"rnea-lwp-revolute": M05.LWP_NO_STOP, "rnea-lwp-prismatic": M05.LWP_NO_STOP}),
    ("rnea05", [("answer-lwp", 'tau[i] = f_i @ z if joint_types[i] == "P" else n_i @ z', "tau[i] = n_i @ z")],
     {"rnea-lwp-prismatic": M05.LWP_SLIDE_MOMENT}),
    ("rnea05", [("answer-lwp", "z = R[i].T @ z0", "z = z0")],
     {"rnea-lwp-revolute": M05.LWP_AXIS_Z_I, "rnea-lwp-prismatic": M05.LWP_AXIS_Z_I}),
    ("rnea05", [("answer-lwp", "R_next @", "R_next.T @")],
     {"rnea-lwp-revolute": M05.LWP_CARRY_TRANSPOSED, "rnea-lwp-prismatic": M05.LWP_CARRY_TRANSPOSED}),
    ("rnea05", [("answer-lwp", "np.cross(p_star[i] + s_bar[i], F[i])", "np.cross(s_bar[i], F[i])")],
     {"rnea-lwp-revolute": M05.LWP_LEVER, "rnea-lwp-prismatic": M05.LWP_LEVER}),
    ("rnea05", [("answer-lwp", "R_next @ n_next + np.cross(p_star[i], R_next @ f_next)", "R_next @ n_next")],
     {"rnea-lwp-revolute": M05.LWP_NO_TRANSMITTED, "rnea-lwp-prismatic": M05.LWP_NO_TRANSMITTED}),
    ("rnea_poe06", [("answer-closed-form", CF_A_BODY, "            A[i, j] = s[i] @ N_bar[i] @ s[j]\n")],
     {"poe-closed-a-chain": M06.A_ROW_ONLY, "poe-closed-a-tree": M06.A_ROW_ONLY}),
    ("rnea_poe06", [("answer-closed-form", "N_bar = carried_inertias(N, parent)\n    A = np.zeros((n, n))",
                     "N_bar = np.array(N, dtype=float)\n    A = np.zeros((n, n))")],
     {"poe-closed-a-chain": M06.A_OWN_LINK, "poe-closed-a-tree": M06.A_OWN_LINK}),
    ("rnea_poe06", [("answer-closed-form", "N_bar = carried_inertias(N, parent)\n    A = np.zeros((n, n))",
                     "N_bar = np.cumsum(np.asarray(N)[::-1], axis=0)[::-1]\n    A = np.zeros((n, n))"),
                    ("answer-closed-form", "m = deeper(parent, i, j)", "m = max(i, j)")],
     {"poe-closed-a-tree": M06.A_BY_INDEX}),
    ("rnea_poe06", [("answer-closed-form", "se3.ad(s[k]) @ s[l]", "se3.ad(s[l]) @ s[k]")],
     {"poe-closed-b": M06.B_BRACKET_ORDER}),
    ("rnea_poe06", [("answer-closed-form", "B[i, k, l] += s[i] @ N_bar[m] @ se3.ad(s[k]) @ s[l]", "pass")],
     {"poe-closed-b": M06.B_NO_FIRST}),
    ("rnea_poe06", [("answer-closed-form", "B[i, k, l] += s[k] @ N_bar[m] @ se3.ad(s[i]) @ s[l]", "pass")],
     {"poe-closed-b": M06.B_NO_SECOND}),
    ("rnea_poe06", [("answer-closed-form", "se3.ad(s[i]) @ s[l]", "se3.ad(s[l]) @ s[i]")],
     {"poe-closed-b": M06.B_SECOND_SWAPPED}),
    ("rnea_poe06", [("answer-closed-form", "N_bar = carried_inertias(N, parent)\n    B = np.zeros((n, n, n))",
                     "N_bar = np.cumsum(np.asarray(N)[::-1], axis=0)[::-1]\n    B = np.zeros((n, n, n))"),
                    ("answer-closed-form", "m = deeper(parent, i, l)", "m = max(i, l)"),
                    ("answer-closed-form", "deeper(parent, k, l) == l", "max(k, l) == l"),
                    ("answer-closed-form", "m = deeper(parent, m, k)", "m = max(m, k)")],
     {"poe-closed-b": M06.B_BY_INDEX}),
    ("rnea_poe06", [("answer-closed-form", "if k != l and deeper(parent, k, l) == l:", "if k < l:")],
     {"poe-closed-b": M06.B_FIRST_BY_INDEX}),
    ("simulation10", [("answer-semi-implicit", "return q + dt * qd_next, qd_next", "return q + dt * qd, qd_next")],
     {"sim-semi-implicit": M10.EXPLICIT_EULER}),
    ("applications11", [("answer-pd", "g = rnea(model, q, zero, zero, gravity=gravity)", "g = rnea(model, q, zero, zero)")],
     {"app-gravity-hold": M11_CONTROL.GRAVITY_NOT_PASSED, "app-pd-gravity": M11_CONTROL.GRAVITY_NOT_PASSED}),
    ("applications11", [("answer-friction", "sigma * e], axis=-1)", "e], axis=-1)")],
     {"app-friction-columns": M11_FRICTION.COL_NO_SIGN}),
    ("applications11", [("answer-friction", "sigma * (1 - e)", "sigma")], {"app-friction-columns": M11_FRICTION.COL_COULOMB_SIGMA}),
    ("applications11", [("answer-friction", "e = np.exp(-(QD / np.asarray(vs, dtype=float)) ** 2)",
                         "e = np.exp(-np.abs(QD / np.asarray(vs, dtype=float)))")],
     {"app-friction-columns": M11_FRICTION.COL_EXPONENT}),
    ("applications11", [("answer-friction", "sigma = np.tanh(QD / 1e-3)", "sigma = np.sign(QD)")],
     {"app-friction-columns": M11_FRICTION.COL_SIGN}),
    ("applications11", [("answer-friction", "for vs in itertools.product(vs_grid, repeat=n):",
                         "for vs in ([v] * n for v in vs_grid):")], {"app-friction-fit": M11_FRICTION.FIT_SHARED}),
    ("applications11", [("answer-friction", "row_w = np.tile(weights, N)", "row_w = np.ones(N * n)")],
     {"app-friction-fit": M11_FRICTION.FIT_UNWEIGHTED}),
    ("applications11", [("answer-friction", "y = TAU.ravel() * row_w", "y = TAU.ravel()")],
     {"app-friction-fit": M11_FRICTION.FIT_TAU_UNWEIGHTED}),
    ("applications11", [("answer-friction", "row_w = np.tile(weights, N)", "row_w = np.tile(np.sqrt(weights), N)")],
     {"app-friction-fit": M11_FRICTION.FIT_SQRT_WEIGHTS}),
    ("applications11", [("answer-observer", "coriolis_matrix(model, q, qd).T @ qd", "coriolis_matrix(model, q, qd) @ qd")],
     {"app-observer-step": M11_OBSERVER.OBS_C, "app-observer-push": M11_OBSERVER.OBS_C}),
    ("applications11", [("answer-observer", "- gravity_torques(model, q)", "+ gravity_torques(model, q)")],
     {"app-observer-step": M11_OBSERVER.OBS_GRAVITY, "app-observer-push": M11_OBSERVER.OBS_GRAVITY}),
    ("applications11", [("answer-observer", "known_rate(q_next, qd_next)) + r)", "known_rate(q_next, qd_next)))")],
     {"app-observer-step": M11_OBSERVER.OBS_NO_R, "app-observer-push": M11_OBSERVER.OBS_NO_R}),
    ("applications11", [("answer-observer", "0.5 * (known_rate(q, qd) + known_rate(q_next, qd_next))", "known_rate(q, qd)")],
     {"app-observer-step": M11_OBSERVER.OBS_RECTANGLE, "app-observer-push": M11_OBSERVER.OBS_RECTANGLE}),
    ("applications11", [("answer-observer", "known_rate(q_next, qd_next)) + r)", "known_rate(q_next, qd_next)) - r)"),
                        ("answer-observer", "r = K * (", "r = -K * (")],
     {"app-observer-step": M11_OBSERVER.OBS_DB4_SIGN, "app-observer-push": M11_OBSERVER.OBS_DB4_SIGN}),
    ("applications11", [("answer-limits", LIMIT_CLIP, "return np.minimum(tau, tau_max)")],
     {"app-limits-law": M11_LIMITS.LIM_UPPER, "app-limits-run": M11_LIMITS.RUN_UPPER}),
    ("applications11", [("answer-limits", "tau = computed_torque(model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=gravity)\n    "
                         + LIMIT_CLIP, "v = qdd_d + Kd * (qd_d - qd) + Kp * (q_d - q)\n    return np.clip(crba(model, q) @ v, "
                         "-np.asarray(tau_max), np.asarray(tau_max)) + bias_forces(model, q, qd, gravity=gravity)")],
     {"app-limits-law": M11_LIMITS.LIM_BEFORE_BIAS}),
    ("applications11", [("answer-limits", LIMIT_CLIP, "return tau * min(1.0, np.min(np.asarray(tau_max) / np.abs(tau)))")],
     {"app-limits-law": M11_LIMITS.LIM_SCALED}),
    ("applications11", [("answer-limits", "return limited_computed_torque(model, q, qd, *reference(t), Kp, Kd, tau_max)",
                         "return computed_torque(model, q, qd, *reference(t), Kp, Kd)")],
     {"app-limits-run": M11_LIMITS.RUN_NO_LIMIT}),
    ("applications11", [("answer-limits", "return reference(traj.t)[0] - traj.q", "return traj.q - reference(traj.t)[0]")],
     {"app-limits-run": M11_LIMITS.RUN_ERROR_SIGN}),
    ("applications11", [("answer-sl", "return regressor(model, q, zero, a) + 0.5 * (c(qd + v) - c(qd) - c(v))",
                         "return regressor(model, q, qd, a)")], {"app-sl-regressor": M11_SL.Y_C_QD}),
    ("applications11", [("answer-sl", "return regressor(model, q, zero, a) + 0.5 * (c(qd + v) - c(qd) - c(v))",
                         "return regressor(model, q, v, a)")], {"app-sl-regressor": M11_SL.Y_C_V}),
    ("applications11", [("answer-sl", "+ 0.5 * (c(qd + v)", "+ (c(qd + v)")], {"app-sl-regressor": M11_SL.Y_NO_HALF}),
    ("applications11", [("answer-sl", "regressor(model, q, x, zero, gravity=np.zeros(3))", "regressor(model, q, x, zero)")],
     {"app-sl-regressor": M11_SL.Y_C_GRAVITY}),
    ("applications11", [("answer-sl", "-Gamma * (Y.T @ s)", "Gamma * (Y.T @ s)")],
     {"app-sl-law": M11_SL.SL_ADAPT_SIGN, "app-sl-closed-loop": M11_SL.SL_ADAPT_SIGN}),
    ("applications11", [("answer-sl", "q_err = q - q_d", "q_err = q_d - q"),
                        ("answer-sl", "qdd_r = qdd_d - Lambda * (qd - qd_d)", "qdd_r = qdd_d - Lambda * (qd_d - qd)")],
     {"app-sl-law": M11_SL.SL_ERROR_SIGN, "app-sl-closed-loop": M11_SL.SL_ERROR_SIGN}),
    ("applications11", [("answer-sl", "s = qd - qd_r", "s = qd_r - qd")],
     {"app-sl-law": M11_SL.SL_S_SIGN, "app-sl-closed-loop": M11_SL.SL_S_SIGN}),
    ("applications11", [("answer-sl", "Y = sl_regressor(model, q, qd, qd_r, qdd_r)[:, columns]",
                         "Y = sl_regressor(model, q, qd, qd_d, qdd_d)[:, columns]")],
     {"app-sl-law": M11_SL.SL_DESIRED_Y, "app-sl-closed-loop": M11_SL.SL_DESIRED_Y}),
]


def _case_id(case):
    name, edits, expected = case
    return f"{name}:{sorted({v.mistake for v in expected.values()})[0][:40]}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_a_student_bug_gets_exactly_its_mistake_named(case):
    name, edits, expected = case
    ns = namespace(name, edits)
    for check_id, variant in expected.items():
        v = run(name, check_id, ns)
        assert not v.passed and v.status == "failed", (check_id, v.message)
        assert "expected" in v.message and "got" in v.message, v.message
        assert named_mistakes(v.message) == [variant.mistake], (check_id, v.message)


def test_every_declared_mistake_is_matched_by_a_student_bug():
    covered = {(name, cid, variant.mistake) for name, _, expected in CASES for cid, variant in expected.items()}
    for name in NOTEBOOKS:
        for cid, check in load_exercise(name).checks.items():
            for variant in check.variants:
                assert (name, cid, variant.mistake) in covered, f"{name} {cid}: no student bug for {variant.mistake!r}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_honest_solution_and_an_unrelated_wrong_answer_name_no_mistake(name):
    ns = namespace(name)
    for cid, check in load_exercise(name).checks.items():
        assert run(name, cid, ns).passed, cid
        if not check.variants:
            continue
        answer = check.answers[0]
        honest = ns[answer]
        ns_wrong = dict(ns)
        ns_wrong[answer] = lambda *a, _f=honest, **k: _scaled(_f(*a, **k), 1.1)
        v = run(name, cid, ns_wrong)
        assert not v.passed and named_mistakes(v.message) == [], (cid, v.message)


def _scaled(value, factor):
    if isinstance(value, tuple):
        return tuple(_scaled(x, factor) for x in value)
    return np.asarray(value, dtype=float) * factor + 0.01


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_variant_fails_its_check_and_no_two_agree_where_they_fail(name):
    """A variant fails its check, and no other variant fails at the same step with the same numbers (on three
    seeds): a student's answer can match at most one, so the message is never ambiguous."""
    for cid, check in load_exercise(name).checks.items():
        for seed in (1, 2, 3):
            failures = [(v, replay(check, v, seed=seed, student="s")) for v in check.variants]
            for v, failure in failures:
                assert failure is not None and failure.got is not None, (cid, seed, v.mistake)
            for i, (a, fa) in enumerate(failures):
                for b, fb in failures[i + 1:]:
                    assert not same_failure(fa, fb) and not same_failure(fb, fa), (cid, seed, a.mistake, b.mistake)


def test_a_failing_rnea_names_the_pass_that_is_wrong():
    ns = namespace("rnea05", [("answer-inward", "f[i - 1] += X[i].T @ f[i]", "f[i - 1] += X[i] @ f[i]")])
    v = run("rnea05", "rnea-full-chain", ns)
    assert "your inward_pass is wrong on this case" in v.message and "check rnea-inward tests it" in v.message, v.message
    assert "your outward_pass" not in v.message


# --- through the real grader (lessonlib-grade: judge, stripped kernel, fresh inputs) -----------------------------

def _submission(name, path, edits, student):
    """The exercise notebook with every answer cell solved, ``edits`` applied (a student's submission)."""
    _, answers = answers_of(name)
    for key, old, new in edits:
        assert old in answers[key], (key, old)
        answers[key] = answers[key].replace(old, new)
    answers["answer-student-id"] = f'student_id = "{student}"'
    nb = nbformat.read(str(ROOT / "exercises" / NOTEBOOKS[name]), as_version=4)
    for cell in nb.cells:
        key = cell.metadata.get("lessonlib", {}).get("id")
        if "answer" in cell.metadata.get("tags", []) and key in answers:
            cell.source = answers[key]
    nbformat.write(nb, str(path))


GRADED = {   # exercise -> {submission: (edits, {check: text its message must contain})}
    "rnea05": {
        "transpose.ipynb": ([("answer-inward", "f[i - 1] += X[i].T @ f[i]", "f[i - 1] += X[i] @ f[i]")],
                            {"rnea-inward": LIKELY + M05.IN_NOT_TRANSPOSED.mistake,
                             "rnea-full-ur5": LIKELY + M05.RNEA_NOT_TRANSPOSED.mistake,
                             "rnea-full-chain": "your inward_pass is wrong on this case"}),
        "gravity.ipynb": ([("answer-rnea", "a0[LIN] = -g", "a0[LIN] = g")],
                          {"rnea-full-chain": LIKELY + M05.RNEA_GRAVITY_SIGN.mistake}),
        "unrelated.ipynb": ([("answer-rnea", "return inward_pass(", "return 1.1 * inward_pass(")], {}),
    },
    "mass_matrix08": {
        "tree.ipynb": ([("answer-crba", "model.parent[i] != -1", "i > 0"),
                        ("answer-crba", "composite[model.parent[i]]", "composite[i - 1]"),
                        ("answer-crba", "model.parent[k] != -1", "k > 0"), ("answer-crba", "k = model.parent[k]", "k = k - 1")],
                       {"mass-crba-tree": LIKELY + M08.CRBA_CHAIN_WALK.mistake,
                        "mass-fd-roundtrip": "your crba is wrong on this case"}),
        "solve.ipynb": ([("answer-fd", "    L = np.linalg.cholesky(M)\n" + CHOLESKY_LOOPS, "    return np.linalg.solve(M, b)\n")],
                        {"mass-cholesky-spd": "expected an error (or NaN), got finite numbers"}),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("name", GRADED)
def test_known_mistakes_and_suspects_reach_the_real_graded_run(name, tmp_path):
    for file, (edits, _) in GRADED[name].items():
        _submission(name, tmp_path / file, edits, student=file.split(".")[0])
    result = subprocess.run(
        [sys.executable, "-m", "lessonlib.grading.cli", "--reference", str(ROOT / "solutions" / NOTEBOOKS[name]),
         *[str(tmp_path / f) for f in GRADED[name]], "--out", str(tmp_path / "g.csv"), "--json",
         str(tmp_path / "g.json"), "-j", "2", "-q"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    graded = json.loads((tmp_path / "g.json").read_text())
    for file, (_, expected) in GRADED[name].items():
        checks = graded[file]["checks"]
        for check_id, text in expected.items():
            assert checks[check_id]["status"] == "failed" and text in checks[check_id]["message"], \
                (file, check_id, checks[check_id])
        if not expected:                                        # an unrelated wrong answer: no mistake named
            assert all(LIKELY not in c["message"] for c in checks.values()), file
            assert any(c["status"] == "failed" for c in checks.values())


def test_a_hint_does_not_name_a_cause_the_answer_does_not_have():
    """Exercise 08's tree check: a missing transpose is named as such, and nothing mentions i - 1; the i - 1
    walk is named only for the answer that walks by i - 1."""
    transpose = namespace("mass_matrix08", [("answer-crba", "X[i].T @ composite[i] @ X[i]", "X[i] @ composite[i] @ X[i].T")])
    v = run("mass_matrix08", "mass-crba-tree", transpose)
    assert named_mistakes(v.message) == [M08.CRBA_NOT_TRANSPOSED.mistake] and "i - 1" not in v.message, v.message
    walk = namespace("mass_matrix08", [("answer-crba", "model.parent[i] != -1", "i > 0"),
                                       ("answer-crba", "composite[model.parent[i]]", "composite[i - 1]"),
                                       ("answer-crba", "model.parent[k] != -1", "k > 0"),
                                       ("answer-crba", "k = model.parent[k]", "k = k - 1")])
    assert "i - 1" in run("mass_matrix08", "mass-crba-tree", walk).message


def test_an_error_inside_a_helper_names_the_helper_that_gave_the_bad_input():
    """Issue 17's example: forward_dynamics raises LinAlgError inside cholesky_solve because crba is wrong —
    the message says where it crashed and that crba (not cholesky_solve) produced the bad input."""
    ns = namespace("mass_matrix08", [("answer-crba", "            M[i, k] = M[k, i]\n",
                                      "            M[i, k] = M[k, i] = 50 * M[k, i]\n")])       # not positive definite
    v = run("mass_matrix08", "mass-fd-roundtrip", ns)
    assert "raised LinAlgError" in v.message and "cholesky_solve" in v.message, v.message
    assert "your crba is wrong on this case" in v.message and "mass-crba-tree tests it alone" in v.message
    assert "your cholesky_solve" not in v.message and "your mass_matrix_from_id" not in v.message
