"""The resource walls a graded kernel puts on itself (``lessonlib.grading.kernel.limits``), unit by unit.

The graded runs show the walls working end to end (``test_grading_rules.py``, ``test_grading_hostile_files.py``);
these tests pin each piece directly, in a fork that sets the limits on itself and reports what it got, so
that a weakened wall (a limit read from the wrong key, a soft limit above the hard one, the CPU grace gone,
the OOM preference or the one-thread environment dropped) fails here in a second (``make mutation``).
"""
from __future__ import annotations

import os
import pathlib
import resource

import pytest

from grading_common import in_fork
from lessonlib.grading.kernel import limits

SMALL = {"memory": 3 * 2**30, "processes": 4000, "cpu": 900, "disk": 80 * 2**20, "files": 300, "inodes": 10}
RESOURCES = {"memory": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "disk": resource.RLIMIT_FSIZE,
             "files": resource.RLIMIT_NOFILE, "processes": resource.RLIMIT_NPROC, "core": resource.RLIMIT_CORE}


def _limits_after(before=None):
    def run():
        for which, (soft, hard) in (before or {}).items():
            resource.setrlimit(RESOURCES[which], (soft, hard))
        limits.apply(SMALL)
        return {name: list(resource.getrlimit(r)) for name, r in RESOURCES.items()}
    return in_fork(run)


def test_apply_sets_each_limit_from_its_own_key_soft_and_hard():
    got = _limits_after({"cpu": (resource.RLIM_INFINITY, resource.RLIM_INFINITY)})
    assert got["memory"] == [SMALL["memory"]] * 2
    assert got["disk"] == [SMALL["disk"]] * 2
    assert got["files"] == [SMALL["files"]] * 2
    assert got["processes"] == [SMALL["processes"]] * 2
    assert got["core"] == [0, 0]
    assert got["cpu"] == [SMALL["cpu"], SMALL["cpu"] + 5]          # SIGXCPU at the soft limit, 5 s to report it


def test_apply_never_raises_a_lower_hard_limit_and_keeps_the_cpu_grace_only_where_it_fits():
    got = _limits_after({"files": (200, 200), "cpu": (100, 100), "disk": (2**20, 2**20)})
    assert got["files"] == [200, 200] and got["disk"] == [2**20, 2**20]
    assert got["cpu"] == [100, 100]                                  # no grace above a hard limit already set
    got = _limits_after({"cpu": (SMALL["cpu"] + 5, SMALL["cpu"] + 5)})
    assert got["cpu"] == [SMALL["cpu"], SMALL["cpu"] + 5]          # exactly room for the grace
    got = _limits_after({"cpu": (SMALL["cpu"] + 4, SMALL["cpu"] + 4)})
    assert got["cpu"] == [SMALL["cpu"], SMALL["cpu"]]              # not room for it: soft = hard


def test_the_limits_are_whole_numbers_even_when_given_as_floats():
    def run():
        limits.apply({**SMALL, "memory": 2.5 * 2**30, "cpu": 30.0})
        return [resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_CPU)[0]]
    assert in_fork(run) == [int(2.5 * 2**30), 30]


def test_oom_first_makes_the_kernel_the_oom_killers_first_choice():
    def run():
        limits.oom_first()
        with open("/proc/self/oom_score_adj") as fh:
            return int(fh.read())
    assert in_fork(run) == 1000


def test_single_threaded_env_sets_one_thread_for_every_numerical_library(monkeypatch):
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    limits.single_threaded_env()
    assert {name: os.environ[name] for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")} \
        == {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def test_describe_names_every_limit_with_its_unit():
    assert limits.describe(limits.LIMITS) == ("memory 2 GiB per process, 48 processes, CPU 600 s per process, "
                                              "disk 64 MiB, output 64 K characters per cell")


@pytest.mark.parametrize("name, value", [("OUTPUT_LIMIT", 65536), ("MAX_MESSAGE", 8388608), ("EXIT_NO_WALLS", 77),
                                         ("EXIT_NOT_BATCH", 78)])
def test_the_run_sizes_and_exit_codes_are_what_the_readme_says(name, value):
    assert getattr(limits, name) == value


def test_the_default_limits_are_the_ones_the_grading_readme_states():
    assert limits.LIMITS == {"memory": 2 * 2**30, "processes": 48, "cpu": 600, "disk": 64 * 2**20, "files": 256,
                             "inodes": 4096}
    readme = (pathlib.Path(limits.__file__).parents[1] / "README.md").read_text()
    said = " ".join(readme.split())
    assert ("2 GiB of address space per process, 48 processes and threads, 600 s of CPU or the notebook's timeout, "
            "64 MiB per file, 256 open files, a private directory of 64 MiB and 4096 files") in said
