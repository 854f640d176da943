"""Student bugs of exercise 03 (inertia03): one per known mistake of its checks.

Each case is ``(exercise, [(answer cell, old, new), ...], {check: the Variant it must name})``: the solution
notebook's answer cells with one edit, as a student would write it (see ``tests/test_exercises_mistakes.py``).
"""
from __future__ import annotations

from lessonlib.grading.checks.exercises import inertia03 as M03

_SPATIAL_BLOCKS = ("    I6[ANG, ANG] = np.asarray(I_c, dtype=float) + m * P @ P.T\n    I6[ANG, LIN] = m * P\n"
                   "    I6[LIN, ANG] = m * P.T\n    I6[LIN, LIN] = m * np.eye(3)\n")


def _spatial(both):
    return {"inertia-spatial": both, "inertia-spatial-momentum": both}


def _energy(both):
    return {"inertia-energy": both, "inertia-energy-frames": both}


def _cad(both):
    return {"inertia-cad-products": both, "inertia-cad-origin": both}


CASES = [
    ("inertia03", [("answer-spatial", "I6[ANG, LIN] = m * P\n    I6[LIN, ANG] = m * P.T",
                    "I6[ANG, LIN] = m * P.T\n    I6[LIN, ANG] = m * P")], _spatial(M03.SPATIAL_BLOCKS_SWAPPED)),
    ("inertia03", [("answer-spatial", " + m * P @ P.T", "")], _spatial(M03.SPATIAL_NO_SHIFT)),
    ("inertia03", [("answer-spatial", "m * P @ P.T", "m * P @ P")], _spatial(M03.SPATIAL_SHIFT_SIGN)),
    ("inertia03", [("answer-spatial", _SPATIAL_BLOCKS,
                    "    I6[:3, :3] = m * np.eye(3)\n    I6[:3, 3:] = m * P.T\n    I6[3:, :3] = m * P\n"
                    "    I6[3:, 3:] = np.asarray(I_c, dtype=float) + m * P @ P.T\n")],
     _spatial(M03.SPATIAL_LINEAR_FIRST)),
    ("inertia03", [("answer-parallel", "(d @ d * np.eye(3) - np.outer(d, d))", "(np.outer(d, d) - d @ d * np.eye(3))")],
     {"inertia-parallel-axis": M03.PA_SIGN}),
    ("inertia03", [("answer-parallel", "(d @ d * np.eye(3) - np.outer(d, d))", "d @ d * np.eye(3)")],
     {"inertia-parallel-axis": M03.PA_SCALAR}),
    ("inertia03", [("answer-energy", "float(0.5 * V @", "float(V @")], _energy(M03.ENERGY_NO_HALF)),
    ("inertia03", [("answer-energy", "    return float(0.5 * V @ spatial_inertia(m, p_c, I_c) @ V)",
                    "    w, v = V[ANG], V[LIN]\n    return 0.5 * m * v @ v + 0.5 * w @ I_c @ w")],
     _energy(M03.ENERGY_ORIGIN_VELOCITY)),
    ("inertia03", [("answer-energy", "    return float(0.5 * V @ spatial_inertia(m, p_c, I_c) @ V)",
                    "    w, v = V[ANG], V[LIN]\n    v_c = v + np.cross(p_c, w)\n"
                    "    return 0.5 * m * v_c @ v_c + 0.5 * w @ I_c @ w")],
     _energy(M03.ENERGY_LEVER_SWAPPED)),
    ("inertia03", [("answer-physical", "if not m > 0 or", "if not m >= 0 or")],
     {"inertia-physical-mass": M03.PHYS_MASS_ZERO}),
    ("inertia03", [("answer-physical", "if not m > 0 or np.abs", "if np.abs")],
     {"inertia-physical-mass": M03.PHYS_NO_MASS}),
    ("inertia03", [("answer-physical", " or np.abs(I_c - I_c.T).max() > tol", ""),
                   ("answer-physical", "eigvalsh((I_c + I_c.T) / 2)", "eigvalsh(I_c)")],
     {"inertia-physical-mass": M03.PHYS_NO_SYMMETRY}),
    ("inertia03", [("answer-physical", "tol = 1e-9 * max(1.0, np.abs(I_c).max())", "tol = 1e-6")],
     {"inertia-physical-mass": M03.PHYS_LOOSE_TOL, "inertia-physical-moments": M03.PHYS_LOOSE_TOL}),
    ("inertia03", [("answer-physical", "I1 >= -tol and I1 + I2 >= I3 - tol", "I1 > tol and I1 + I2 - I3 > tol")],
     {"inertia-physical-mass": M03.PHYS_BOUNDARY, "inertia-physical-moments": M03.PHYS_BOUNDARY}),
    ("inertia03", [("answer-physical", "np.linalg.eigvalsh((I_c + I_c.T) / 2)", "np.sort(np.diag(I_c))")],
     {"inertia-physical-moments": M03.PHYS_DIAGONAL}),
    ("inertia03", [("answer-physical", "I1 >= -tol and I1 + I2 >= I3 - tol", "I1 >= -tol")],
     {"inertia-physical-moments": M03.PHYS_NO_TRIANGLE}),
    ("inertia03", [("answer-cad", 'if products == "positive":', 'if products == "tensor":')],
     _cad(M03.CAD_PRODUCTS_SWAPPED)),
    ("inertia03", [("answer-cad", '    if products == "positive":\n        J = 2 * np.diag(np.diag(J)) - J', "")],
     _cad(M03.CAD_PRODUCTS_IGNORED)),
    ("inertia03", [("answer-cad", "J = 2 * np.diag(np.diag(J)) - J", "J = -J")], _cad(M03.CAD_PRODUCTS_ALL_NEGATED)),
    ("inertia03", [("answer-cad", 'if about == "origin":', 'if about == "com":')],
     {"inertia-cad-products": M03.CAD_COM_AS_ORIGIN, "inertia-cad-origin": M03.CAD_ORIGIN_AS_COM}),
    ("inertia03", [("answer-cad", '    if about == "origin":\n        J = J - mass * (com @ com * np.eye(3) - np.outer(com, com))', ""),
                   ("answer-cad", "       # (3.5) backwards: I_c = I_O − shift\n", "")],
     {"inertia-cad-origin": M03.CAD_ORIGIN_AS_COM}),
    ("inertia03", [("answer-cad", "J = J - mass *", "J = J + mass *")], {"inertia-cad-origin": M03.CAD_SHIFT_ADDED}),
    ("inertia03", [("answer-cad", "(com @ com * np.eye(3) - np.outer(com, com))", "com @ com * np.eye(3)")],
     {"inertia-cad-origin": M03.CAD_SHIFT_SCALAR}),
    ("inertia03", [("answer-euler", "I_c @ w_dot + np.cross(w, I_c @ w)", "I_c @ w_dot")],
     {"inertia-euler-wrench": M03.EULER_GYRO_MISSING}),
    ("inertia03", [("answer-euler", "I_c @ w_dot + np.cross(w, I_c @ w)", "I_c @ w_dot + np.cross(I_c @ w, w)")],
     {"inertia-euler-wrench": M03.EULER_GYRO_SIGN}),
    ("inertia03", [("answer-euler", " + np.cross(w, np.cross(w, p_c))", "")],
     {"inertia-euler-wrench": M03.EULER_NO_CENTRIPETAL}),
    ("inertia03", [("answer-euler", "np.r_[mu_c + np.cross(p_c, f), f]", "np.r_[mu_c, f]")],
     {"inertia-euler-wrench": M03.EULER_ABOUT_COM}),
    ("inertia03", [("answer-euler", "    mu_c = I_c @ w_dot + np.cross(w, I_c @ w)                               # Euler's equations, about the COM\n"
                    "    return np.r_[mu_c + np.cross(p_c, f), f]",
                    "    I_O = I_c + m * (p_c @ p_c * np.eye(3) - np.outer(p_c, p_c))\n"
                    "    return np.r_[I_O @ w_dot + np.cross(w, I_O @ w), f]")],
     {"inertia-euler-wrench": M03.EULER_ORIGIN_INERTIA}),
]
