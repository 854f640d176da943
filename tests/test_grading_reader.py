"""The reader's fork (``lessonlib.grading.reader``), piece by piece: its limits as set, its result, its verdicts.

``test_grading_rules.py`` shows a spinning, hogging or hanging reader stopped with the right fault; here the
limits the child really runs under, the documented sizes and each way back to the grader are pinned, so
that a weakened reader fails in a second (``make mutation``).
"""
from __future__ import annotations

import pathlib
import resource

import pytest

from lessonlib.grading import reader
from lessonlib.grading.notebook import SubmissionError

README = pathlib.Path(reader.__file__).resolve().parent / "README.md"


def _limits_in_the_child():
    return (resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU), reader._vm_size())


def test_the_child_runs_under_the_readers_limits():
    (as_soft, as_hard), cpu, vm = reader.screened(_limits_in_the_child)
    assert cpu == (20, 21)                                  # SIGXCPU at 20 s, SIGKILL a second later
    assert as_soft == as_hard
    assert reader.MEMORY - (1 << 20) < as_soft - vm <= reader.MEMORY      # 512 MiB above what the fork had mapped


def test_the_readers_sizes_are_the_ones_the_readme_states():
    assert (reader.MEMORY, reader.CPU_SECONDS, reader.WALL_SECONDS, reader.MAX_RESULT) == (512 << 20, 20, 90, 16 << 20)
    assert "512 MiB of memory\n   above what the grader had mapped, 20 s of CPU" in README.read_text()


def test_vm_size_is_this_processs_virtual_memory_in_bytes():
    def vm_kib():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.split()[0] == "VmSize:")
    for _ in range(5):                                      # VmSize may move between two reads: try again
        before, got, after = vm_kib(), reader._vm_size(), vm_kib()
        if before == after:
            break
    assert got in (before * 1024, after * 1024)


def _refuse():
    raise SubmissionError("not a Jupyter notebook: the file is empty")


def _deep():
    def down(n):
        return down(n + 1)
    return down(0)


def _crash():
    raise KeyError("a bug in the reader")


def test_each_way_back_from_the_child():
    with pytest.raises(SubmissionError, match="^not a Jupyter notebook: the file is empty$"):
        reader.screened(_refuse)
    with pytest.raises(SubmissionError, match="^it is nested too deeply to be read; is it a notebook\\?$"):
        reader.screened(_deep)
    with pytest.raises(reader.ReaderFailure, match=r"^the reader failed \(exit status 70\)$"):
        reader.screened(_crash)
    assert reader.screened(sorted, [3, 1, 2]) == [1, 2, 3]


def test_a_result_over_the_bound_is_the_graders_failure(monkeypatch):
    monkeypatch.setattr(reader, "MAX_RESULT", 4096)
    assert len(reader.screened(str.__mul__, "x", 2000)) == 2000
    with pytest.raises(reader.ReaderFailure, match="^the reader's result was too large$"):
        reader.screened(str.__mul__, "x", 100_000)


def _killed():
    import os, signal                                       # noqa: E401, PLC0415
    os.kill(os.getpid(), signal.SIGKILL)


def test_the_messages_of_each_fault_are_whole(monkeypatch):
    assert reader._too_much("MemoryError") == ("reading it needed more than the grader allows one submission "
                                               "(512 MiB of memory); is it a notebook?")
    assert reader._too_much("cpu") == ("reading it took more than the grader allows one submission (20 s of CPU "
                                       "time); is it a notebook?")
    with pytest.raises(reader.ReaderFailure, match="^the reader was killed$"):
        reader.screened(_killed)
    monkeypatch.setattr(reader, "WALL_SECONDS", 1)
    assert reader.screened(sorted, [2, 1]) == [1, 2]         # well inside its second
    import time                                             # noqa: PLC0415
    with pytest.raises(reader.ReaderFailure, match="^the reader did not finish within 1 s$"):
        reader.screened(time.sleep, 3)


def test_a_result_of_many_chunks_arrives_whole_and_the_bound_is_exact(monkeypatch):
    import pickle                                           # noqa: PLC0415
    big = "ab" * 150_000                                    # several of the pipe's 64 KiB chunks
    assert reader.screened(str.__mul__, "ab", 150_000) == big
    exact = len(pickle.dumps(("ok", big), protocol=pickle.HIGHEST_PROTOCOL))
    monkeypatch.setattr(reader, "MAX_RESULT", exact)
    assert reader.screened(str.__mul__, "ab", 150_000) == big
    monkeypatch.setattr(reader, "MAX_RESULT", exact - 1)
    with pytest.raises(reader.ReaderFailure, match="^the reader's result was too large$"):
        reader.screened(str.__mul__, "ab", 150_000)
