"""Answers a clever student could try instead of the asked work, and honest answers in other styles.

Each case is the solution notebook's answer cell with one edit (trusted code, run in-process by the
checker): a trick must lose the check's points with a message that says why; an honest answer in
another style must keep them.
"""
from __future__ import annotations

import pytest

from test_exercises_mistakes import named_mistakes, namespace, run

# Slotine–Li without adaptation: the true model's torque (the student has the Model), the estimates never move.
# V = ½ sᵀMs + ½ θ̃ᵀΓ⁻¹θ̃ still never increases (θ̃ is constant, V̇ = −sᵀK_D s): "V never increases" alone
# would reward a controller that does not adapt.
SL_TRUE_MODEL = ("Y = sl_regressor(model, q, qd, qd_r, qdd_r)[:, columns]\n    return Y @ a_hat - K_s * s, -Gamma * (Y.T @ s)",
                 "tau = crba(model, q) @ qdd_r + coriolis_matrix(model, q, qd) @ qd_r + gravity_torques(model, q)\n"
                 "    return tau - K_s * s, np.zeros_like(a_hat)")


def test_a_slotine_li_law_that_does_not_adapt_loses_the_closed_loop_check():
    ns = namespace("applications11", [("answer-sl", *SL_TRUE_MODEL)])
    v = run("applications11", "app-sl-closed-loop", ns)
    assert not v.passed and v.status == "failed", v.message
    assert "a_hat" in v.message and "expected" in v.message and "got" in v.message, v.message
    assert named_mistakes(v.message) == [], v.message


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_honest_slotine_li_law_keeps_the_closed_loop_check(seed):
    v = run("applications11", "app-sl-closed-loop", namespace("applications11"), seed=seed)
    assert v.passed, v.message


# --- every function the blank answer cells ask for is checked, or the text says it is not ----------------------

def _unchecked_stubs():
    """``(notebook, function, the markdown before its answer cell)`` for every stub no check calls."""
    import json
    import pathlib
    import re

    from lessonlib.grading.checks.checker import load_exercise

    root = pathlib.Path(__file__).resolve().parents[1]
    out = []
    for path in sorted((root / "exercises").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        name = nb["metadata"].get("lessonlib", {}).get("exercise")
        if not name:
            continue
        checked = {f for check in load_exercise(name).checks.values() for f in (*check.functions, *check.helpers)}
        markdown = ""
        for cell in nb["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                markdown = source
            elif "answer" in cell["metadata"].get("tags", []):
                out += [(path.name, f, markdown) for f in re.findall(r"^def (\w+)", source, re.M) if f not in checked]
    return out


def test_every_unchecked_helper_stub_is_said_to_be_unchecked():
    """A stub ``raise NotImplementedError("write dh_matrix")`` reads as an instruction: the part's text must say
    that no check calls it (issue 17: every instruction is enforced or says it is not)."""
    missing = [(nb, f) for nb, f, text in _unchecked_stubs()
               if f"`{f}`" not in text or "not checked" not in text]
    assert missing == [], missing


# --- 11 (d): "for every combination" is the way the text suggests, not one it demands ---------------------------

COORDINATE_SEARCH = '''
def fit_with_friction(W, QD, TAU, vs_grid, weights):
    N, n = TAU.shape
    r = W.shape[1]
    row_w = np.tile(weights, N)
    y = TAU.ravel() * row_w

    def solve(vs):
        Phi = stribeck_columns(QD, vs)
        F = np.zeros((N, n, 3 * n))
        for j in range(n):
            F[:, j, 3 * j:3 * j + 3] = Phi[:, j]
        A = np.hstack([W, F.reshape(N * n, 3 * n)]) * row_w[:, None]
        x = np.linalg.lstsq(A, y, rcond=None)[0]
        return np.sum((A @ x - y) ** 2), x

    vs = np.full(n, vs_grid[0], dtype=float)
    for _ in range(3):                                   # one joint at a time, the others held
        for j in range(n):
            costs = [solve(np.r_[vs[:j], v, vs[j + 1:]])[0] for v in vs_grid]
            vs[j] = vs_grid[int(np.argmin(costs))]
    return solve(vs)[1][:r], solve(vs)[1][r:].reshape(n, 3), vs
'''


def test_a_search_one_joint_at_a_time_is_accepted_and_the_text_says_so():
    import json
    import pathlib

    ns = namespace("applications11")
    exec(COORDINATE_SEARCH, ns)
    assert all(run("applications11", "app-friction-fit", ns, seed=seed).passed for seed in range(4))
    root = pathlib.Path(__file__).resolve().parents[1]
    for folder in ("exercises", "solutions"):
        nb = json.loads((root / folder / "11_applications.ipynb").read_text(encoding="utf-8"))
        text = "".join(next(c for c in nb["cells"] if c.get("id") == "part-d")["source"])
        assert "another search (e.g. one joint at a time) earns the points" in text, folder
