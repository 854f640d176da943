"""Input validation has one home, ``lessonlib._validate``: each message names the argument, what was
expected and what it got, wherever the argument enters (a Model, an algorithm, a trajectory, a
spatial-algebra helper)."""
import numpy as np
import pytest

from lessonlib import _validate as validate
from lessonlib import batch, samples, spatial
from lessonlib.dynamics import rnea
from lessonlib.model import Joint, Model


@pytest.mark.parametrize("call, match", [
    # joint-space arrays of one state, and wrenches (every algorithm: Model.check_q / check_f_ext)
    (lambda a: rnea(a, [0.0, 0.0], np.zeros(3), np.zeros(3)), r"^q: expected shape \(3,\) for model 'planar_3link', got \(2,\)$"),
    (lambda a: rnea(a, np.zeros(3), ["x", 0, 0], np.zeros(3)), r"^qd: expected numbers \(shape \(3,\)\), got \['x', 0, 0\] \("),
    (lambda a: rnea(a, np.zeros(3), np.zeros(3), [0, np.inf, 0]),
     r"^qdd: contains non-finite values \(expected finite numbers\), got \[ 0\. inf  0\.\]$"),
    (lambda a: rnea(a, *np.zeros((3, 3)), f_ext=np.zeros((3, 3))),
     r"^f_ext: expected 3 wrenches \[n; f\] \(shape \(3, 6\), one per body, body frames\), got shape \(3, 3\)$"),
    # trajectories (lessonlib.batch)
    (lambda a: batch.rnea(a, np.zeros((4, 2)), np.zeros((4, 3)), np.zeros((4, 3))),
     r"^Q: expected shape \(N, 3\) \(samples × joints of 'planar_3link'\), got \(4, 2\)$"),
    (lambda a: batch.rnea(a, np.zeros((4, 3)), "fast", np.zeros((4, 3))), r"^QD: expected numbers \(an \(4, 3\) array\), got 'fast'"),
    (lambda a: batch.crba(a, np.zeros((2, 3)), backend="fortran"),
     r"^backend: expected one of \('numpy', 'numba'\) or None, got 'fortran'$"),
    # a long argument is shown cut short
    (lambda a: rnea(a, list(range(100)), np.zeros(3), np.zeros(3)), r"^q: expected shape \(3,\) .* got \(100,\)$"),
    (lambda a: rnea(a, ["a"] * 100, np.zeros(3), np.zeros(3)), r"^q: expected numbers \(shape \(3,\)\), got \['a', 'a', 'a', 'a', 'a', 'a', \.\.\.\] "),
])
def test_algorithm_inputs_name_argument_expected_and_got(call, match):
    with pytest.raises(ValueError, match=match):
        call(samples.planar_3link())


def _body(**kw):
    args = dict(parent=[-1], joints=[Joint("revolute", [0, 0, 1])], T_tree=[np.eye(4)],
                inertia=[spatial.inertia(1, [0, 0, 0], np.eye(3))])
    args.update(kw)
    return Model(args.pop("parent"), args.pop("joints"), args.pop("T_tree"), args.pop("inertia"), **args)


@pytest.mark.parametrize("make, match", [
    (lambda: Joint("helical", [0, 0, 1]), r"^kind: expected one of \('revolute', 'prismatic'\), got 'helical'$"),
    (lambda: Joint("revolute", [0, 0, 2]), r"^axis: expected a unit vector, got \[0\. 0\. 2\.\] \(norm 2\)$"),
    (lambda: Joint("revolute", [0, 0]), r"^axis: expected a 3-vector, got shape \(2,\)$"),
    (lambda: Joint("revolute", [0, 0, 1], point=[0, np.nan, 0]), r"^point: expected finite values, got nan/inf"),
    (lambda: Joint("prismatic", [1, 0, 0], point=[0, 0]), r"^point: expected a 3-vector, got shape \(2,\)$"),
    (lambda: Joint("revolute", [0, 0, 1], scale=0.0), r"^scale: expected a finite number > 0, got 0\.0$"),
    (lambda: _body(parent=[0]), r"^parent: parent\[0\] must satisfy -1 <= parent\[i\] < i, got 0$"),
    (lambda: _body(joints=["revolute"]), r"^joints: joints\[0\] must be a Joint, got str$"),
    (lambda: _body(joints=[]), r"^joints: expected 1 joints \(one per body\), got 0$"),
    (lambda: _body(T_tree=np.eye(4)), r"^T_tree: expected shape \(1, 4, 4\), got \(4, 4\)$"),
    (lambda: _body(T_tree=[[["a"]]]), r"^T_tree: expected numbers \(shape \(1, 4, 4\)\), got \[\[\['a'\]\]\]"),
    (lambda: _body(inertia=np.zeros((1, 6, 5))), r"^inertia: expected shape \(1, 6, 6\), got \(1, 6, 5\)$"),
    (lambda: _body(inertia=[np.diag([1.0, 1, 1, 1, 2, 1])]), r"^inertia\[0\]: the linear block must be m·1, got"),
    (lambda: _body(body_names=["a", "b"]), r"^body_names: expected 1 names, got 2$"),
    (lambda: _body(frames=["tool"]), r"^frames: frames\[0\] must be a Frame, got str$"),
])
def test_model_inputs_name_argument_expected_and_got(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_a_frame_on_a_missing_body_is_named():
    from lessonlib.model import Frame
    with pytest.raises(ValueError, match=r"^frames\[0\] \('tool'\) body: expected a body index in -1\.\.0, got 3$"):
        _body(frames=[Frame("tool", 3, np.eye(4))])


@pytest.mark.parametrize("call, match", [
    (lambda: spatial.plucker(np.eye(3), [1.0, 2.0]), r"^p: expected a 3-vector, got shape \(2,\)$"),
    (lambda: spatial.plucker_to_Rp(np.eye(5)), r"^X: expected a 6x6 Plücker transform, got shape \(5, 5\)$"),
    (lambda: spatial.transform_inertia(np.eye(6), np.eye(3)), r"^G: expected a 6x6 spatial inertia, got shape \(3, 3\)$"),
    (lambda: spatial.inertia_params(-np.eye(6)), r"^G: mass \(the linear block m·1\): expected a finite number > 0, got -1\.0$"),
    (lambda: spatial.inertia(1.0, [0.0, 0.0], np.eye(3)), r"^inertia: centre of mass must be a finite 3-vector"),
    (lambda: spatial.inertia(1.0, [0.0, 0.0, 0.0], [["x"]]), r"^I_c: expected a 3x3 matrix of real numbers \(the rotational inertia\)"),
    (lambda: spatial.check_spatial_inertia(np.triu(np.ones((6, 6)))), r"^inertia: a spatial inertia must be symmetric, got"),
])
def test_spatial_inputs_name_argument_expected_and_got(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_the_model_s_checks_are_the_validators():
    """``Model.check_q`` / ``check_f_ext`` are the library's one joint-space and wrench check."""
    arm = samples.planar_2link()
    q = np.array([0.1, 0.2])
    assert arm.check_q(q) is validate.joint_vector(arm, q) is q              # a float array passes through
    assert arm.check_f_ext(None) is None
    np.testing.assert_array_equal(arm.check_f_ext([[0] * 6] * 2), np.zeros((2, 6)))
    one = samples.pendulum()
    np.testing.assert_array_equal(one.check_q(0.5, "tau"), [0.5])           # a scalar for a one-joint model
