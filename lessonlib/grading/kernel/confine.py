"""Kernel-enforced confinement of the graded kernel: Linux Landlock through ``ctypes``.

The kernel bootstrap (:mod:`.boot`) calls :func:`confine` on itself before ipykernel starts
(inside its own namespaces, where those hold: this is the second wall). From then on that process and every process it starts (Landlock domains are inherited
and cannot be left) can only:

* read and execute beneath ``read_exec`` (the Python installation, the packages it imports);
* read beneath ``read`` (the stripped sandbox copy of ``lessonlib``, single files such as the
  kernel's connection file and ``/dev/urandom``);
* read and write beneath ``read_write`` (its own empty working directory, private tmp);
* create Unix sockets beneath ``sockets`` and nothing else there (its channel directory: ZeroMQ's
  sockets; the judge's socket is there too);
* bind and connect no TCP port at all (ABI 4; ZeroMQ and the judge are reached on Unix sockets);
* signal and reach abstract Unix sockets only of processes in its own domain (ABI 6), so it
  cannot signal the nbval process, the judge or the grader;
* ptrace nothing outside its domain (Landlock, every ABI).

Everything else — the real ``lessonlib`` source, the solution notebooks, other submissions, the
grader's files, ``/proc`` of other processes, ``/dev/fd`` — gives ``PermissionError``. When the
process holds capabilities (root, or any process in a user namespace of its own) it drops every one
(and the bounding set), so it is an unprivileged process inside the same walls; and it may not start
a new session (seccomp: :func:`forbid_new_sessions`). Older ABIs lose the later walls (:func:`describe`
says which hold); without Landlock :func:`abi` is 0 and the grader falls back on review
(see ``README.md``). ``LESSONLIB_GRADE_CONFINEMENT=none`` simulates that, ``=abi3`` an older
kernel (tests, other systems).

This module imports only the standard library: it runs in the bootstrap before ``sys.path`` holds
anything else.
"""
import ctypes
import os
import platform
import struct

#: Environment switch: ``none`` pretends Landlock is unavailable (the grader then falls back on review).
SWITCH = "LESSONLIB_GRADE_CONFINEMENT"

#: Landlock's system calls (create_ruleset, add_rule, restrict_self): the same numbers on every
#: architecture of Linux's unified system call table, which these are.
_CALLS = (444, 445, 446)
_ARCHES = ("x86_64", "aarch64", "arm64", "riscv64", "ppc64le", "s390x")
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
# Filesystem rights (ABI 1 unless noted); the bits never granted here (6: make a character device, 11: a
# block device, 13: refer, ABI 2) are handled all the same, so they are denied.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_DIR = 1 << 4, 1 << 5, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 12
TRUNCATE, IOCTL_DEV = 1 << 14, 1 << 15                           # ABI 3, 5
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1                 # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1      # ABI 6
# What each kind of rule grants.
RX = EXECUTE | READ_FILE | READ_DIR
R = READ_FILE | READ_DIR
RW = R | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SYM | MAKE_FIFO | TRUNCATE
SOCKETS = MAKE_SOCK | REMOVE_FILE
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
_PR_SET_DUMPABLE = 4
_CAPABILITY_VERSION_3 = 0x20080522


class ConfinementError(OSError):
    """Landlock could not be applied (the graded kernel must then not start)."""


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def abi():
    """The Landlock ABI version this kernel offers (0: none).

    :data:`SWITCH` simulates less: ``none`` (no Landlock), ``abiN`` (at most ABI ``N``: an older kernel).
    """
    switch = os.environ.get(SWITCH, "").lower()
    if switch in ("none", "off", "0") or platform.system() != "Linux":
        return 0
    ceiling = int(switch[3:]) if switch.startswith("abi") and switch[3:].isdigit() else None
    if platform.machine() not in _ARCHES:
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(ctypes.c_long(_CALLS[0]), None, ctypes.c_size_t(0),
                           ctypes.c_uint32(_CREATE_RULESET_VERSION))
    version = max(0, int(version))
    return min(version, ceiling) if ceiling is not None else version


def describe(version):
    """One line saying which protections an ABI version gives (for the start of a grading run)."""
    if version <= 0:
        return "none (Landlock unavailable): answers that read files or load code go to review"
    walls = ["filesystem"]
    if version >= 4:
        walls.append("TCP")
    if version >= 6:
        walls.append("signals and abstract sockets")
    return f"Landlock ABI {version} ({', '.join(walls)})"


def _check(result, what):
    if result < 0:
        err = ctypes.get_errno()
        raise ConfinementError(err, f"{what}: {os.strerror(err)}")
    return result


def _add_path(libc, numbers, ruleset, path, rights, handled):
    """Grant ``rights`` (those Landlock handles; a file's own rights only) beneath ``path``, if it exists."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return                                            # a path that does not exist grants nothing
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rights &= handled
        if rights:
            attr = struct.pack("=Qi", rights, fd)         # struct landlock_path_beneath_attr (packed)
            buf = ctypes.create_string_buffer(attr, len(attr))
            _check(libc.syscall(ctypes.c_long(numbers[1]), ctypes.c_int(ruleset),
                                ctypes.c_int(_RULE_PATH_BENEATH), buf, ctypes.c_uint32(0)), f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def _drop_capabilities(libc):
    """Clear every capability, the bounding set and the ambient set (a root process becomes ordinary)."""
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 and ctypes.get_errno() == 22:   # EINVAL: past the last
            break
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = struct.pack("=Ii", _CAPABILITY_VERSION_3, 0)
    data = ctypes.create_string_buffer(24)                # two __user_cap_data_struct, all zero
    _check(libc.capset(ctypes.create_string_buffer(header, 8), data), "capset")


def not_dumpable():
    """Forbid same-user processes to ptrace this one or read its /proc memory and fds (Linux).

    Every grading process that holds something a kernel must not reach calls it: the judge (its
    secret), the nbval process (its pipes to the grader), the zygotes.
    """
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


#: ``setsid`` by architecture (``seccomp_data.arch`` → system call numbers): a new session would be a new
#: scheduling group (Linux's autogroups), so a kernel that may not start one shares the CPU as one run.
_SETSID = {0xC000003E: (112, 0x40000000 | 112), 0x40000003: (66,), 0xC00000B7: (157,), 0xC00000F3: (157,)}
_SECCOMP_RET_ALLOW, _SECCOMP_RET_EPERM = 0x7FFF0000, 0x00050000 | 1
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2


def _seccomp_program(calls):
    """A classic-BPF seccomp program refusing (EPERM) the system calls ``calls`` = ``{arch: numbers}``.

    Layout: load the architecture; one jump per known architecture to its block; allow. Each block
    loads the call number, jumps to the refusal on a match, else allows. The refusal comes last.
    """
    load_arch, load_nr = (0x20, 0, 0, 4), (0x20, 0, 0, 0)          # BPF_LD|BPF_W|BPF_ABS, seccomp_data
    allow, refuse = (0x06, 0, 0, _SECCOMP_RET_ALLOW), (0x06, 0, 0, _SECCOMP_RET_EPERM)
    blocks = [[load_nr] + [("nr", n) for n in numbers] + [allow] for numbers in calls.values()]
    starts, at = [], 1 + len(calls) + 1
    for block in blocks:
        starts.append(at)
        at += len(block)
    program = [load_arch] + [(0x15, start - (1 + k) - 1, 0, arch)                # BPF_JMP|BPF_JEQ|BPF_K
                             for k, (arch, start) in enumerate(zip(calls, starts))] + [allow]
    for block in blocks:
        for insn in block:
            program.append((0x15, at - len(program) - 1, 0, insn[1]) if insn[0] == "nr" else insn)
    return program + [refuse]


def forbid_new_sessions():
    """Refuse ``setsid`` to this process and its children (seccomp; needs no new privileges first).

    Linux schedules each session as a group of its own (autogroup): a kernel whose children each
    start a session would take a CPU share per child from its classmates' runs. Without it, all of a
    kernel's processes share one group's share. Returns False where seccomp is not available.
    """
    if platform.system() != "Linux":
        return False
    program = _seccomp_program(_SETSID)
    raw = b"".join(struct.pack("=HBBI", *insn) for insn in program)
    filters = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("@HP", len(program), ctypes.addressof(filters))       # struct sock_fprog
    buf = ctypes.create_string_buffer(fprog, len(fprog))
    libc = _libc()
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(buf), 0, 0) < 0:
        return False
    return True


def harden():
    """No new privileges, no capabilities, no new sessions (Linux): what holds even without Landlock.

    Returns True when applied. Every capability is dropped, also by a process that is not root: a
    keeper that entered its own user namespace holds all of them there. Landlock needs no new
    privileges anyway; without Landlock this still stops a root kernel from ptracing, signalling or
    changing the identity of the grader's processes by privilege.
    """
    if platform.system() != "Linux":
        return False
    libc = _libc()
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    _drop_capabilities(libc)
    forbid_new_sessions()
    return True


def confine(*, read_exec=(), read=(), read_write=(), listable=(), sockets=()):
    """Confine this process and its future children; returns the ABI version used.

    ``read_exec``, ``read``, ``read_write``: trees (or single files) granted :data:`RX`, :data:`R`,
    :data:`RW`; ``listable``: directories whose entries may be listed (no more: their files need
    a rule of their own); ``sockets``: directories where it may create (and remove) Unix sockets
    and nothing else (:data:`SOCKETS`). No TCP port may be bound or connected to (ABI 4). Paths that
    do not exist are skipped. Raises :class:`ConfinementError` if Landlock is not
    available or any step fails (the caller must then not run untrusted code).
    """
    version = abi()
    if version <= 0:
        raise ConfinementError(95, "Landlock is not available on this system")
    numbers, libc = _CALLS, _libc()
    libc.syscall.restype = ctypes.c_long
    handled_fs = _FS_BY_ABI.get(version, _FS_BY_ABI[5])
    handled_net = _NET_BIND_TCP | _NET_CONNECT_TCP if version >= 4 else 0
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if version >= 6 else 0
    attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)[:8 if version < 4 else 16 if version < 6 else 24]
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _check(libc.syscall(ctypes.c_long(numbers[0]), buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        for paths, rights in ((read_exec, RX), (read, R), (read_write, RW), (listable, READ_DIR),
                              (sockets, SOCKETS)):
            for path in paths:
                _add_path(libc, numbers, ruleset, path, rights, handled_fs)
        harden()
        _check(libc.syscall(ctypes.c_long(numbers[2]), ctypes.c_int(ruleset), ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return version



_PROBE = """import sys
sys.path.insert(0, sys.argv[1])
import confine
version = confine.confine(read_exec=[sys.base_prefix, sys.base_exec_prefix, "/usr", "/lib", "/lib64"])
try:
    open(sys.argv[2]).close()
    print(0)
except PermissionError:
    print(version)
"""


def probe(python, denied_file):
    """The ABI version confinement really has for ``python`` here (0: it does not work).

    A child process confines itself to the Python installation and must then fail to read
    ``denied_file`` (a file the caller made outside it): this catches a Landlock that the system
    reports but does not enforce (e.g. a container's seccomp filter).
    """
    import subprocess                                     # noqa: PLC0415 (the bootstrap never probes)
    if abi() <= 0:
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", SWITCH)}
    try:
        out = subprocess.run([python, "-I", "-S", "-c", _PROBE, here, os.fspath(denied_file)], capture_output=True,
                             text=True, timeout=60, env=env)
        return int(out.stdout.strip() or 0) if out.returncode == 0 else 0
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return 0
