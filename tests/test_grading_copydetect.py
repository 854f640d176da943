"""The copy detector, calibrated: honest answers in many styles pass, the pasted library does not.

The library's ``rnea``, ``crba`` and ``aba`` read like the book (Featherstone's loops), so an honest
answer written from the lesson's equations looks more like them than it used to; the fixtures in
``copy_fixtures.py`` are such answers (``@`` or ``.dot``, unpacked locals, lists, helpers, other
decompositions). Each is first shown to be correct on chains, trees and prismatic joints, then
compared with every function of the exercise's ``copy_targets``. A match sends a check to review
(points withheld, the reason given), so a false match costs an honest student a delay, not points.
"""
import numpy as np
import pytest

import copy_fixtures as fixtures
from lessonlib import samples, se3
from lessonlib.conventions import BASE, LIN
from lessonlib.dynamics import aba, crba, rnea
from lessonlib.grading import copydetect
from lessonlib.grading.checks.checker import load_exercise
from lessonlib.kinematics import joint_transforms

#: The exercise whose copy targets each answer is compared with, and the library function it could paste.
EXERCISE = {"rnea": "rnea05", "crba": "mass_matrix08", "aba": "aba09"}
ROBOTS = [samples.planar_2link(), samples.ur5(), samples.panda(), samples.scara(), samples.rpr_arm(),
          samples.branched_tree()] + [samples.random_model(6, seed=s) for s in range(3)]
#: The margin an honest style keeps below the threshold, and a paste above it.
MARGIN = 0.03


def _library(name):
    import importlib
    module = importlib.import_module(f"lessonlib.dynamics.{name}")
    return module._rnea if name == "rnea" else getattr(module, name)


def _function(name, source):
    ns = {"np": np, "se3": se3, "joint_transforms": joint_transforms, "BASE": BASE, "LIN": LIN}
    exec(source, ns)
    return ns[name]


def _best(source, targets):
    return max(copydetect.similarity(t, lib) for _, t in copydetect.tokens_of(source) for _, lib in targets)


CASES = [(name, style) for name, styles in fixtures.HONEST.items() for style in styles]


@pytest.mark.parametrize("name, style", CASES)
def test_every_honest_fixture_is_a_correct_answer(name, style):
    fn = _function(name, fixtures.HONEST[name][style])
    rng = np.random.default_rng(7)
    for robot in ROBOTS:
        q, qd, qdd = rng.uniform(-1, 1, (3, robot.n))
        want, got = {"crba": (lambda: crba(robot, q), lambda: fn(robot, q)),
                     "rnea": (lambda: rnea(robot, q, qd, qdd), lambda: fn(robot, q, qd, qdd)),
                     "aba": (lambda: aba(robot, q, qd, qdd), lambda: fn(robot, q, qd, qdd))}[name]
        np.testing.assert_allclose(got(), want(), atol=1e-8, err_msg=f"{name} {style} on {robot.name}")


@pytest.mark.parametrize("name, style", CASES)
def test_honest_styles_are_not_flagged(name, style):
    targets = copydetect.library_functions(load_exercise(EXERCISE[name]).copy_targets)
    source = fixtures.HONEST[name][style]
    assert copydetect.find_copies({"answer": source}, targets) == []
    assert _best(source, targets) <= copydetect.THRESHOLD - MARGIN


@pytest.mark.parametrize("name", list(EXERCISE))
def test_the_pasted_library_is_flagged_however_it_is_renamed(name):
    targets = copydetect.library_functions(load_exercise(EXERCISE[name]).copy_targets)
    variants = fixtures.pasted(_library(name))
    variants["renamed, .dot as @"] = variants["renamed"].replace(".dot(", " @ (")
    for variant, source in variants.items():
        copies = copydetect.find_copies({"answer": source}, targets)
        assert copies and copies[0].target.startswith(f"lessonlib.dynamics.{name}"), variant
        floor = 0.97 if variant != "renamed, .dot as @" else copydetect.THRESHOLD + MARGIN
        assert copies[0].ratio >= floor, (variant, copies[0].ratio)


def test_the_pasted_variants_still_compute_the_library_s_answer():
    """The renamed pastes are real code (what a student would submit), not token soup."""
    env = {"np": np, "joint_transforms": joint_transforms, "BASE": BASE}
    from lessonlib import _operators
    from lessonlib.dynamics import _inputs
    env.update(ad=_operators.ad, ad_dual=_operators.ad_dual, matvec=_operators.matvec, RANK_TOL=1e-12,
               base_acceleration=_inputs.base_acceleration, singular_mass_matrix=_inputs.singular_mass_matrix,
               _ZERO=np.zeros(6))
    robot = samples.panda()
    q, qd, qdd = np.random.default_rng(3).uniform(-1, 1, (3, robot.n))
    for source in fixtures.pasted(_library("crba")).values():
        ns = dict(env)
        exec(source, ns)
        fn = next(v for k, v in ns.items() if callable(v) and k not in env)
        np.testing.assert_allclose(fn(robot, q), crba(robot, q), atol=1e-10)
