"""Cross-checking utilities: every algorithm of the course checked against the others.

* :func:`random_state` — a seeded random ``(q, q̇, q̈)`` for a model (defined in :mod:`lessonlib.samples`,
  beside the random models, so that every layer can use the one helper);
* :func:`compare` — one aligned table of several named results and their largest disagreement;
* :func:`agreement` — every algorithm pair and identity of the course on one model and state,
  returned as a report a notebook can display.

>>> from lessonlib import samples
>>> from lessonlib.dynamics import rnea, crba, bias_forces
>>> arm = samples.planar_2link()
>>> q, qd, qdd = random_state(arm, seed=0)
>>> result = compare(rnea=rnea(arm, q, qd, qdd), crba_plus_bias=crba(arm, q) @ qdd + bias_forces(arm, q, qd))
                        1          2
rnea              16.2634     4.7757
crba_plus_bias    16.2634     4.7757
largest disagreement: ... (tolerance 2e-07): agree
>>> result.ok
True
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .conventions import AGREE_ATOL, AGREE_RTOL, ZERO_GRAVITY
from .dynamics import aba, bias_forces, coriolis_matrix, crba, forward_dynamics, gravity_torques, rnea
from .dynamics.terms import FD_METHODS, velocity_torques
from .samples import random_state

__all__ = ["random_state", "compare", "Comparison", "agreement", "AgreementReport", "AgreementRow", "tau_ext_of"]


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: the values, the largest disagreement and the verdict."""

    values: dict
    max_diff: float
    tol: float

    @property
    def ok(self):
        return bool(self.max_diff <= self.tol)


def _format_table(values, precision):
    names = list(values)
    flat = {k: np.atleast_1d(np.asarray(v, dtype=float)).ravel() for k, v in values.items()}
    width = max(len(k) for k in names)
    cols = len(next(iter(flat.values())))
    cells = 11 + precision - 4
    lines = [" " * width + "".join(f"{j:>{cells}d}" for j in range(1, cols + 1))]   # entries counted from 1
    for k in names:
        lines.append(f"{k:<{width}}" + "".join(f"{x:>{cells}.{precision}f}" for x in flat[k]))
    return "\n".join(lines)


def compare(*, tol=None, precision=4, show=True, **named_results):
    """Print one aligned table of named results (same shape) and their largest disagreement.

    The columns are the entries of the flattened results, numbered from 1 as the course numbers joints
    (``course/NOTATION.md``): column ``j`` of a torque vector is joint ``j``.

    Returns a :class:`Comparison`; ``tol`` defaults to ``AGREE_ATOL`` scaled by the size of the
    values (``AGREE_RTOL``-relative for large numbers). The printed numbers are rounded to
    ``precision`` decimals; the disagreement is judged on the unrounded values.
    """
    if len(named_results) < 2:
        raise ValueError(f"named_results: expected at least two named results, got {list(named_results)}")
    arrays = {k: np.asarray(v, dtype=float) for k, v in named_results.items()}
    shapes = {k: a.shape for k, a in arrays.items()}
    if len(set(shapes.values())) != 1:
        raise ValueError(f"named_results: all results must have the same shape, got {shapes}")
    stack = np.stack([a.ravel() for a in arrays.values()])
    max_diff = float(np.max(stack.max(axis=0) - stack.min(axis=0))) if stack.size else 0.0
    scale = float(np.max(np.abs(stack))) if stack.size else 0.0
    tol = AGREE_ATOL + AGREE_RTOL * scale if tol is None else float(tol)
    result = Comparison(arrays, max_diff, tol)
    if show:
        print(_format_table(arrays, precision))
        print(f"largest disagreement: {max_diff:.1e} (tolerance {tol:.0e}): "
              f"{'agree' if result.ok else 'DISAGREE'}")
    return result


@dataclass(frozen=True)
class AgreementRow:
    check: str
    error: float
    tol: float

    @property
    def ok(self):
        return bool(self.error <= self.tol)


@dataclass(frozen=True)
class AgreementReport:
    """Every cross-check of :func:`agreement`: one row per identity, with its error and tolerance."""

    model_name: str
    rows: tuple = field(default_factory=tuple)

    @property
    def ok(self):
        return all(r.ok for r in self.rows)

    @property
    def failures(self):
        return [r for r in self.rows if not r.ok]

    def __str__(self):
        """A monospace table: ``q̇``, ``q̈`` written ``qd``, ``qdd`` (a monospace font sets a combining dot apart)."""
        labels = [_plain(r.check) for r in self.rows]
        width = max(map(len, labels))
        lines = [f"agreement on {self.model_name}: {'all checks pass' if self.ok else 'FAILURES'}"]
        lines += [f"  {label:<{width}}  error {r.error:8.1e}  tol {r.tol:7.0e}  {'ok' if r.ok else 'FAIL'}"
                  for label, r in zip(labels, self.rows)]
        return "\n".join(lines)

    def _repr_html_(self):
        body = "".join(f"<tr><td>{r.check}</td><td>{r.error:.1e}</td><td>{r.tol:.0e}</td>"
                       f"<td>{'✔' if r.ok else '✘'}</td></tr>" for r in self.rows)
        return (f"<b>agreement on {self.model_name}</b><table><tr><th>check</th><th>error</th>"
                f"<th>tolerance</th><th></th></tr>{body}</table>")


def _plain(label):
    """``label`` with ``q̈``, ``q̇`` as the code's names ``qdd``, ``qd``.

    >>> _plain("C q̇ = rnea(q, q̇, 0) − g"), _plain("aba(rnea(q̈)) = q̈")
    ('C qd = rnea(q, qd, 0) − g', 'aba(rnea(qdd)) = qdd')
    """
    return label.replace("q\u0308", "qdd").replace("q\u0307", "qd")


def _err(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) if np.size(a) else 0.0


def agreement(model, q=None, qd=None, qdd=None, *, seed=0, gravity=None, f_ext=None, lagrange=None,
              fd_step=1e-6):
    """Run every algorithm pair and identity of the course on one model and state.

    Checks: RNEA = classic = PoE = DeNOC = CRBA·q̈ + bias (= Lagrange when ``lagrange`` is true;
    default: only for n ≤ 3 because the symbolic derivation takes time); ABA(RNEA(q̈)) = q̈; all
    forward-dynamics methods agree; M symmetric positive definite; M = Σ RNEA columns;
    ``C q̇ = rnea(q, q̇, 0) − g``; ``Ṁ − 2C`` skew (Ṁ by a central difference along q̇); the energy
    balance ``dE/dt = q̇ᵀ(τ − τ_grav-free …)`` via :func:`lessonlib.dynamics.energy.power_balance`.
    Unset ``q, qd, qdd`` come from :func:`random_state` with ``seed``. ``f_ext`` (n, 6) or None:
    ``f_ext[i]`` the wrench the environment applies on body ``i``, in body frame ``i``, moment about
    its origin (every algorithm gets the same).
    """
    from .dynamics.denoc import denoc
    from .dynamics.energy import power_balance
    from .dynamics.rnea_classic import rnea_classic
    from .dynamics.rnea_poe import rnea_poe
    from .dynamics.terms import mass_matrix_via_rnea
    rq, rqd, rqdd = random_state(model, seed)
    q = rq if q is None else model.check_q(q, "q")
    qd = rqd if qd is None else model.check_q(qd, "qd")
    qdd = rqdd if qdd is None else model.check_q(qdd, "qdd")
    kw = dict(gravity=gravity, f_ext=f_ext)
    tau = rnea(model, q, qd, qdd, **kw)
    scale = max(1.0, float(np.max(np.abs(tau))))
    tol = AGREE_ATOL * scale
    M = crba(model, q)
    rows = [AgreementRow("rnea_classic = rnea", _err(rnea_classic(model, q, qd, qdd, **kw), tau), tol),
            AgreementRow("rnea_poe = rnea", _err(rnea_poe(model, q, qd, qdd, **kw), tau), tol),
            AgreementRow("denoc = rnea", _err(denoc(model, q, qd, qdd, **kw), tau), tol),
            AgreementRow("crba·q̈ + bias = rnea", _err(M @ qdd + bias_forces(model, q, qd, **kw), tau), tol)]
    if lagrange if lagrange is not None else model.n <= 3:
        from .dynamics.lagrange import lagrange_numeric
        tau_ext = 0.0 if f_ext is None else tau_ext_of(model, q, f_ext)
        rows.append(AgreementRow("lagrange − τ_ext = rnea",
                                 _err(lagrange_numeric(model, q, qd, qdd, gravity=gravity) - tau_ext, tau), tol))
    acc_tol = AGREE_RTOL * max(1.0, float(np.max(np.abs(qdd))))
    rows.append(AgreementRow("aba(rnea(q̈)) = q̈", _err(aba(model, q, qd, tau, **kw), qdd), acc_tol))
    for method in FD_METHODS[1:]:
        rows.append(AgreementRow(f"forward_dynamics[{method}] = aba",
                                 _err(forward_dynamics(model, q, qd, tau, method=method, **kw), qdd), acc_tol))
    rows.append(AgreementRow("M symmetric", _err(M, M.T), AGREE_ATOL))
    rows.append(AgreementRow("M positive definite (−λ_min)", max(0.0, -float(np.linalg.eigvalsh(M)[0])), 0.0))
    rows.append(AgreementRow("M = RNEA columns", _err(M, mass_matrix_via_rnea(model, q)), AGREE_ATOL * max(1, np.abs(M).max())))
    C = coriolis_matrix(model, q, qd)
    g = gravity_torques(model, q, gravity=gravity)
    rows.append(AgreementRow("C q̇ = rnea(q, q̇, 0) − g",
                             _err(C @ qd, bias_forces(model, q, qd, gravity=gravity) - g), tol))
    M_dot = (crba(model, q + fd_step * qd) - crba(model, q - fd_step * qd)) / (2 * fd_step)
    S = M_dot - 2 * C
    rows.append(AgreementRow("Ṁ − 2C skew (finite-difference Ṁ)", _err(S, -S.T), 1e-6 * max(1.0, np.abs(M_dot).max())))
    dE, power = power_balance(model, q, qd, qdd, tau, gravity=gravity,
                                     tau_ext=None if f_ext is None else tau_ext_of(model, q, f_ext))
    rows.append(AgreementRow("dE/dt = q̇ᵀ(τ + τ_ext)", abs(dE - power), 1e-6 * max(1.0, abs(power))))
    rows.append(AgreementRow("velocity_torques = C q̇", _err(velocity_torques(model, q, qd), C @ qd), tol))
    return AgreementReport(model.name, tuple(rows))


def tau_ext_of(model, q, f_ext):
    """Generalised forces ``τ_ext = Σ J_iᵀ f_ext,i`` of body wrenches (computed by RNEA, g = 0).

    ``f_ext[i]``: the wrench the environment applies on body ``i``, in body frame ``i``, moment about
    its origin; ``J_i`` is then body ``i``'s body Jacobian.
    """
    zero = np.zeros(model.n)
    return -rnea(model, q, zero, zero, gravity=ZERO_GRAVITY, f_ext=f_ext)
