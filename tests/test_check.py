"""lessonlib.check: the cross-checking utilities themselves."""
import re

import numpy as np
import pytest

from lessonlib import samples
from lessonlib.check import AgreementRow, agreement, compare, random_state

MODELS = {**samples.ALL, "panda": samples.panda,
          "random_tree": lambda: samples.random_model(6, seed=8),
          "random_chain": lambda: samples.random_model(4, seed=9, tree=False)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_agreement_passes_on_every_sample(name):
    model = MODELS[name]()
    rng = np.random.default_rng(1)
    report = agreement(model, seed=3, gravity=rng.normal(size=3) * 4, f_ext=rng.normal(size=(model.n, 6)),
                       lagrange=model.n <= 3)
    assert report.ok, str(report)
    checks = {r.check for r in report.rows}
    assert {"rnea_classic = rnea", "rnea_poe = rnea", "denoc = rnea", "aba(rnea(q̈)) = q̈",
            "Ṁ − 2C skew (finite-difference Ṁ)", "dE/dt = q̇ᵀ(τ + τ_ext)"} <= checks
    assert ("lagrange − τ_ext = rnea" in checks) == (model.n <= 3)


def test_agreement_reports_a_wrong_model_pair():
    """A report can fail: feed it a state where one identity is broken on purpose."""
    row = AgreementRow("x", error=1e-3, tol=1e-9)
    assert not row.ok
    report = agreement(samples.planar_2link(), seed=0)
    assert "all checks pass" in str(report) and "<table>" in report._repr_html_()
    text = str(report)                                        # monospace: q̇, q̈ as the code's qd, qdd
    assert "  aba(rnea(qdd)) = qdd  " in text and "C qd = rnea(q, qd, 0) − g" in text
    assert not re.search("[\u0300-\u036f]", text) and "q̈" in report._repr_html_()
    columns = {line.index(" error ") for line in text.splitlines()[1:]}
    assert len(columns) == 1                                  # one column of errors


def test_compare_table_and_verdict(capsys):
    res = compare(a=[1.0, 2.0], b=[1.0, 2.0 + 1e-3])
    out = capsys.readouterr().out
    assert "DISAGREE" in out and not res.ok and res.max_diff == pytest.approx(1e-3)
    assert out.splitlines()[0].split() == ["1", "2"]          # entries numbered from 1, like the joints
    res = compare(a=np.ones(3), b=np.ones(3), c=np.ones(3) + 1e-12, show=False)
    assert res.ok and capsys.readouterr().out == ""


def test_compare_validation():
    with pytest.raises(ValueError, match="at least two"):
        compare(a=[1.0])
    with pytest.raises(ValueError, match="same shape"):
        compare(a=[1.0], b=[1.0, 2.0])


def test_random_state_is_reproducible_and_respects_joint_kinds():
    arm = samples.scara()
    q1, qd1, qdd1 = random_state(arm, seed=4)
    q2, _, _ = random_state(arm, seed=4)
    assert np.array_equal(q1, q2)
    assert abs(q1[2]) <= 0.2            # prismatic quill stays within ±0.2 m
    assert not np.array_equal(q1, random_state(arm, seed=5)[0])
