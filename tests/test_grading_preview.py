"""The check cell in the student's own notebook (the preview) says what the grader will do.

A self-studying student used ``se3.Ad`` inside ``wrench_in_b`` (exercise 02): the check cell printed
"passed" and ``lessonlib-grade`` gave the check 0 (``used-library``). The preview now watches the
student's functions while the check calls them and fails in the grader's words.
"""
import numpy as np
import pytest

from lessonlib import se3, so3
from lessonlib.grading import CheckFailed, check
from lessonlib.grading.checks.preview import blocked_code
from lessonlib.grading.checks.checker import exercise_names, load_exercise


def wrench_in_b_own(T_ab, F_a):
    R, p = np.asarray(T_ab)[:3, :3], np.asarray(T_ab)[:3, 3]
    px = np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])
    Ad = np.block([[R, np.zeros((3, 3))], [px @ R, R]])
    return Ad.T @ np.asarray(F_a)


def wrench_in_b_library(T_ab, F_a):
    return se3.Ad(T_ab).T @ np.asarray(F_a)


def test_an_answer_of_ones_own_passes_the_preview(capsys):
    check("twist-wrench-frame", wrench_in_b_own)
    assert capsys.readouterr().out.startswith("✓ [twist-wrench-frame]")


def test_an_answer_that_calls_the_library_fails_the_preview_in_the_graders_words(capsys):
    with pytest.raises(CheckFailed) as failed:
        check("twist-wrench-frame", wrench_in_b_library)
    message = str(failed.value)
    assert message.startswith("✗ [twist-wrench-frame]")
    assert ("your code called lessonlib.se3.Ad: lessonlib.se3.Ad is not available while grading (exercise "
            "lie_algebra02 asks you to write it yourself)") in message
    assert "lessonlib-grade will score it used-library (0 points)" in message
    assert "✓" not in capsys.readouterr().out


@pytest.mark.parametrize("exercise", exercise_names())
def test_every_blocked_entry_names_real_code(exercise):
    """Each blocked module or function of every exercise is found (a typo would silence the preview)."""
    ex = load_exercise(exercise)
    names = set(blocked_code(tuple(ex.blocked)).values())
    for target in ex.blocked:
        module, _, function = target.partition(":")
        if function:
            assert f"{module}.{function}" in names, target
        else:
            assert any(n.startswith(module + ".") for n in names), target


# --- fallout names its source --------------------------------------------------------------------------

def _run(check_id, *functions):
    from lessonlib.grading.checks.checker import find_check, run_check
    from lessonlib.grading.checks.preview import local_function
    return run_check(find_check(check_id), [local_function(f) for f in functions], seed=7, student="s")


def test_a_bracket_built_on_a_wrong_hat_names_the_hat():
    def se3_hat(xi):                                   # the classic slip: [v] where [ω] belongs
        w, v = np.asarray(xi)[:3], np.asarray(xi)[3:]
        X = np.zeros((4, 4))
        X[:3, :3], X[:3, 3] = so3.hat(v), w
        return X

    def vee(X):
        return np.r_[X[2, 1], X[0, 2], X[1, 0], X[:3, 3]]

    def bracket(x, y):
        X, Y = se3_hat(x), se3_hat(y)
        return vee(X @ Y - Y @ X)

    def ad(xi):
        return se3.ad(xi)
    verdict = _run("twist-bracket", bracket, se3_hat, ad)
    assert not verdict.passed
    assert "your se3_hat is wrong on this case: se3_hat(ξ)" in verdict.message
    assert "the check twist-hat tests it alone" in verdict.message
    assert "your ad is wrong" not in verdict.message                     # only the guilty helper is named
    assert _run("twist-bracket", lambda x, y: se3.ad(x) @ y, se3_hat, ad).passed      # a bracket of its own passes


def test_inertias_built_on_wrong_home_poses_name_the_poses():
    from lessonlib.grading.checks.authoring import answers_of
    import pathlib
    namespace = {}
    solution = answers_of(pathlib.Path(__file__).resolve().parents[1] / "solutions" / "06_lie_group_dynamics.ipynb")
    exec(compile("import numpy as np\nfrom lessonlib import se3\n" + "\n".join(
        v for k, v in solution.items() if "def home_frames" in v), "home", "exec"), namespace)
    right = namespace["home_frames"]

    def shifted(M_list, G_list):                       # T_0i(0) one link late: a wrong M, and an N0 built on it
        M, _ = right(M_list, G_list)
        M = np.concatenate([np.eye(4)[None], M[:-1]])
        Ad_inv = [se3.Ad(np.linalg.inv(m)) for m in M]
        return M, np.array([a.T @ g @ a for a, g in zip(Ad_inv, G_list)])
    verdict = _run("poe-home-inertias", shifted)
    assert not verdict.passed
    assert "your N0 is built on your home poses T_0i(0), and they are wrong here (the check poe-home-poses" in \
        verdict.message
    assert _run("poe-home-inertias", right).passed
