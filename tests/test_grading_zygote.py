"""The fork servers: a forked nbval process gets its own session, directory, environment and descriptors;
a forked kernel is confined, keeps nothing of another run, and leaves nothing running."""
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from lessonlib.grading.processes import clean_env
from lessonlib.grading.zygotes import Zygote, judge_command, nbval_command

from grading_common import MAX

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
    z = Zygote("nbval", nbval_command(sys.executable), env=clean_env())
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
    z = Zygote("judge", judge_command(sys.executable, "rnea05"), env=clean_env())
    z.close()
    with pytest.raises(OSError):
        z.spawn([], env={}, cwd=tmp_path, fds={})
    with pytest.raises(ValueError, match="kind: expected one of"):
        Zygote("compiler", [sys.executable])
    with pytest.raises(ValueError, match="command: expected"):
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
    assert result.total == result.max == MAX, {c.check: c.message for c in result.checks.values()}
    assert time.monotonic() - start < 900


# --- the kernel zygote --------------------------------------------------------------------------------------

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "05_rnea.ipynb"
EXERCISE = ROOT / "exercises" / "05_rnea.ipynb"
MARK = f"lessonlib-escapee-{os.getpid()}"
#: An answer that leaves a process behind which escapes every group and directory of the run: a double
#: fork into a group of its own, nothing of the run in its command line but the mark. A new session is
#: refused (a session would be a scheduling group of its own): the cell raises unless it was.
ESCAPE = f"""
import subprocess, sys
try:
    subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    raise AssertionError("a new session was allowed")
except PermissionError:
    pass
subprocess.Popen([sys.executable, "-c", "import os, time\\nif os.fork(): os._exit(0)\\nos.setpgid(0, 0)\\n"
                  "time.sleep(600)", "{MARK}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).wait()
"""


def _marked():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if MARK.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def batch():
    from lessonlib.grading import grader
    from lessonlib.grading.notebook import load_reference
    reference = load_reference(SOLUTION)
    options = grader.Options(cell_timeout=120)
    shared = grader.prepare(reference, options)
    yield reference, options, shared
    shared.close()


@pytest.fixture
def relays(monkeypatch):
    """Every :class:`KernelRelay` the runs make, with how many kernels each forked."""
    from lessonlib.grading import kernel_relay
    made, close = [], kernel_relay.KernelRelay.close

    def spy(self):
        made.append(self)
        close(self)
    monkeypatch.setattr(kernel_relay.KernelRelay, "close", spy)
    return made


def _solution_with(tmp_path, extra, name="escapee"):
    import nbformat
    from lessonlib.grading.checks.authoring import answers_of, filled
    answers = {k: v for k, v in answers_of(SOLUTION).items() if k != "answer-student-id"}
    answers["answer-static"] = extra + answers["answer-static"]
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(filled(EXERCISE, answers, student_id=name), str(path))
    return str(path)


def test_a_forked_kernel_grades_like_a_fresh_one_and_what_it_left_behind_dies_with_it(batch, relays, tmp_path):
    from lessonlib.grading import grader
    reference, options, shared = batch
    result = grader.grade_submission(reference, _solution_with(tmp_path, ESCAPE), options, shared=shared)
    assert result.total == result.max == MAX, {c.check: c.message for c in result.checks.values()}
    assert [r.forked for r in relays] == [1]                       # the kernel came from the zygote
    assert relays[0].kernels[0].returncode is not None
    for _ in range(50):                                            # the keeper kills it as the kernel ends
        if not _marked():
            break
        time.sleep(0.1)
    assert _marked() == []


def test_two_forked_kernels_do_not_share_numpy_random_state(batch, relays, tmp_path):
    """A fork copies the zygote's numpy generator; each kernel reseeds it from the OS, as a fresh one does."""
    from lessonlib.grading import grader
    reference, options, shared = batch
    draw = "import numpy as np\nDRAW = float(np.random.random())\nassert 0 < DRAW < 1\n"
    probe = draw + "raise RuntimeError(f'drew {DRAW!r}')\n"
    seen = []
    for k in range(2):
        result = grader.grade_submission(reference, _solution_with(tmp_path, probe, name=f"draw{k}"), options,
                                         shared=shared)
        seen.append(result.checks["rnea-static"].message)
    assert all("drew 0." in m for m in seen), seen
    assert seen[0] != seen[1]
    assert [r.forked for r in relays] == [1, 1]


def test_without_its_kernel_zygote_a_run_starts_a_fresh_kernel(batch, relays, tmp_path):
    from lessonlib.grading import grader
    from lessonlib.grading.notebook import load_reference
    reference, options, _ = batch
    shared = grader.prepare(reference, options)
    try:
        shared.zygotes["kernel"].close()                           # it died: the relay says "start one yourself"
        result = grader.grade_submission(reference, str(SOLUTION), options, shared=shared)
    finally:
        shared.close()
    assert result.total == result.max == MAX, {c.check: c.message for c in result.checks.values()}
    assert [r.forked for r in relays] == [0]


def test_a_kernel_zygote_refuses_a_run_of_another_batch(batch, monkeypatch, tmp_path):
    """The forked kernel checks its run's configuration against the zygote's before anything else."""
    from lessonlib.grading import grader, run, sandbox
    reference, options, shared = batch
    real = sandbox.batch_config

    def other(sandbox_dir, exercise):
        return {**real(sandbox_dir, exercise), "denied": ["nothing"]}
    monkeypatch.setattr(sandbox, "batch_config", other)          # the run's boot.json only: the zygote has its own
    result = grader.grade_submission(reference, str(SOLUTION), options, shared=shared)
    assert result.total == 0
    assert {c.status for c in result.checks.values()} == {"grader-error"}
    assert "could not start a sandboxed kernel" in next(iter(result.checks.values())).message
    assert "not the zygote's batch" in result.error
