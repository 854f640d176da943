"""What one graded run may use, and how a graded kernel ends when it cannot put up its walls.

Sizes of a run's messages (the pytest plugin and the grader import these too), and the resource
walls every graded kernel puts on itself before any student code runs (:func:`apply`). Each limit
has a status of its own when it stops a check (``memory-limit``, ``process-limit``, ``disk-limit``,
``cpu-limit``, ``output-limit``), and the message names the limit.

Standard library only: it ships to the graded kernel with :mod:`lessonlib.grading.kernel`.
"""
import os

#: Characters one cell of a graded run may print per stream; the kernel drops the rest, and the
#: nbval side caps each cell's captured text again (whatever slipped past the kernel's cap).
OUTPUT_LIMIT = 64 * 1024
#: Largest kernel message (bytes) the nbval process accepts; a bigger one drops the connection.
MAX_MESSAGE = 8 * 2**20

#: The resource walls of a graded kernel (and of everything it starts), by default:
#: ``memory`` — address space of each process (bytes); ``processes`` — processes and threads of
#: the kernel's own user (in its own user namespace: the kernel's alone); ``cpu`` — CPU seconds of
#: each process; ``disk`` — the kernel's private directory (a size-capped tmpfs where namespaces
#: hold), and the largest file it may write; ``files`` — open descriptors per process; ``inodes``
#: — files in the private directory.
LIMITS = {"memory": 2 * 2**30, "processes": 48, "cpu": 600, "disk": 64 * 2**20, "files": 256, "inodes": 4096}

#: Exit status of a graded kernel that could not put up its walls (nothing of the student ran).
EXIT_NO_WALLS = 77
#: Exit status of a forked kernel whose run is not its zygote's batch (nothing of the student ran).
EXIT_NOT_BATCH = 78


def describe(limits):
    """The limits in words, for the first line of a run and for messages."""
    return (f"memory {limits['memory'] / 2**30:g} GiB per process, {limits['processes']} processes, "
            f"CPU {limits['cpu']:g} s per process, disk {limits['disk'] / 2**20:g} MiB, "
            f"output {OUTPUT_LIMIT // 1024} K characters per cell")


def apply(limits):
    """Put the resource limits on this process (inherited by what it starts); core dumps off.

    A limit the system refuses (e.g. a hard limit already lower) is lowered to what is allowed.
    """
    import resource
    wanted = {resource.RLIMIT_CORE: 0, resource.RLIMIT_AS: limits["memory"], resource.RLIMIT_CPU: limits["cpu"],
              resource.RLIMIT_FSIZE: limits["disk"], resource.RLIMIT_NOFILE: limits["files"],
              resource.RLIMIT_NPROC: limits["processes"]}
    for which, value in wanted.items():
        value = int(value)
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        hard_new = value + 5 if which == resource.RLIMIT_CPU and (hard == resource.RLIM_INFINITY or hard >= value + 5) \
            else value
        resource.setrlimit(which, (value, hard_new))


def oom_first():
    """Make this process (and what it starts) the first the kernel's OOM killer picks: a kernel that
    fills the machine's memory loses itself, never a classmate's run or the grader (Linux)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write("1000")
    except OSError:
        pass


THREADS_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""Numerical libraries in a graded kernel run one thread (fair to the batch; the exercises are small)."""


def single_threaded_env():
    """:data:`THREADS_ENV` set in this process's environment (before numpy is imported)."""
    os.environ.update(THREADS_ENV)
