"""The fork servers: a forked nbval process gets its own session, directory, environment and descriptors."""
import os
import signal
import subprocess
import sys
import time

import pytest

from lessonlib.grading.processes import clean_env
from lessonlib.grading.zygote import Zygote

PROBE = '''
import os


def test_the_child_is_on_its_own():
    assert os.environ["LESSONLIB_PROBE"] == "1" and "PYTHONPATH" not in os.environ
    assert os.getcwd() == {cwd!r}
    assert os.getsid(0) == os.getpid()                     # its own session (the grader kills it by group)
    os.write(5, b"report")                                 # the descriptor it was handed, at its number
    links = [os.readlink(f"/proc/self/fd/{{fd}}") for fd in os.listdir("/proc/self/fd")
             if os.path.exists(f"/proc/self/fd/{{fd}}")]
    assert not [link for link in links if link.startswith("socket:")]     # not the zygote's control socket


def test_slow():
    import time
    time.sleep(120)
'''


@pytest.fixture(scope="module")
def zygote():
    z = Zygote("nbval", sys.executable, env=clean_env())
    yield z
    z.close()


def _spawn(zygote, tmp_path, select):
    (tmp_path / "test_probe.py").write_text(PROBE.format(cwd=str(tmp_path)))
    read_end, write_end = os.pipe()
    log = open(tmp_path / "log", "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        child = zygote.spawn(["-q", "-p", "no:cacheprovider", "-k", select, str(tmp_path / "test_probe.py")],
                             env=clean_env(LESSONLIB_PROBE=1, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1), cwd=tmp_path,
                             fds={0: null, 1: log.fileno(), 2: log.fileno(), 5: write_end})
    finally:
        os.close(write_end)
        os.close(null)
        log.close()
    return child, read_end


def test_a_forked_run_gets_its_session_directory_environment_and_descriptors(zygote, tmp_path):
    child, report = _spawn(zygote, tmp_path, "on_its_own")
    assert child.wait(timeout=300) == 0, (tmp_path / "log").read_text()[-2000:]
    assert os.read(report, 100) == b"report"
    os.close(report)


def test_a_forked_run_can_be_killed_and_says_so(zygote, tmp_path):
    child, report = _spawn(zygote, tmp_path, "slow")
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(timeout=2)
    child.kill()
    assert child.wait(timeout=60) == -signal.SIGKILL
    os.close(report)


def test_a_closed_zygote_refuses_to_fork_so_the_grader_starts_a_process_itself(tmp_path):
    z = Zygote("judge", sys.executable, exercise="rnea05", env=clean_env())
    z.close()
    with pytest.raises(OSError):
        z.spawn([], env={}, cwd=tmp_path, fds={})
    with pytest.raises(ValueError, match="kind: expected one of"):
        Zygote("kernel", sys.executable)


def test_a_grading_run_without_zygotes_still_works_like_with_them():
    """Both paths are the same pipeline: the batch tests run with zygotes; here, one run without."""
    from lessonlib.grading import grader
    from lessonlib.grading.notebook import load_reference
    import pathlib
    solution = pathlib.Path(__file__).resolve().parents[1] / "solutions" / "05_rnea.ipynb"
    reference = load_reference(solution)
    start = time.monotonic()
    result = grader.grade_submission(reference, str(solution), grader.Options(zygotes=False, cell_timeout=120))
    assert result.total == result.max == 12, {c.check: c.message for c in result.checks.values()}
    assert time.monotonic() - start < 900
