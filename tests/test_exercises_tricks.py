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
SL_TRUE_MODEL = ("Y = sl_regressor(model, q, qd, qd_r, qdd_r)[:, columns]\n    return Y @ a_hat - K_D * s, -Gamma * (Y.T @ s)",
                 "tau = crba(model, q) @ qdd_r + coriolis_matrix(model, q, qd) @ qd_r + gravity_torques(model, q)\n"
                 "    return tau - K_D * s, np.zeros_like(a_hat)")


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
