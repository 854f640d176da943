"""Kernel-enforced confinement of the graded kernel: Linux Landlock through ``ctypes``.

The kernel bootstrap (:mod:`.kernel_boot`) calls :func:`confine` on itself before ipykernel
starts. From then on that process and every process it starts (Landlock domains are inherited
and cannot be left) can only:

* read and execute beneath ``read_exec`` (the Python installation, the packages it imports);
* read beneath ``read`` (the stripped sandbox copy of ``lessonlib``, single files such as the
  kernel's connection file and ``/dev/urandom``);
* read and write beneath ``read_write`` (its own empty working directory, private tmp);
* bind TCP only on ``bind_ports`` (the kernel's five ZeroMQ ports) and connect to no TCP port
  (ABI 4; the judge is reached on a Unix socket);
* signal and reach abstract Unix sockets only of processes in its own domain (ABI 6), so it
  cannot signal the nbval process, the judge or the grader;
* ptrace nothing outside its domain (Landlock, every ABI).

Everything else — the real ``lessonlib`` source, the solution notebooks, other submissions, the
grader's files, ``/proc`` of other processes, ``/dev/fd`` — gives ``PermissionError``. When the
process runs as root it also drops every capability (and the bounding set), so a root kernel is an
unprivileged process inside the same walls. Older ABIs lose the later walls (:func:`describe`
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

_SYS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446), "arm64": (444, 445, 446),
        "riscv64": (444, 445, 446), "ppc64le": (444, 445, 446), "s390x": (444, 445, 446)}
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
# Filesystem rights (ABI 1 unless noted).
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15          # ABI 2, 3, 5
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1                 # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1      # ABI 6
# What each kind of rule grants.
RX = EXECUTE | READ_FILE | READ_DIR
R = READ_FILE | READ_DIR
RW = R | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SYM | MAKE_FIFO | TRUNCATE
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
    numbers = _SYS.get(platform.machine())
    if numbers is None:
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(ctypes.c_long(numbers[0]), None, ctypes.c_size_t(0),
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
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False                                      # a path that does not exist grants nothing
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rights &= handled
        if not rights:
            return False
        attr = struct.pack("=Qi", rights, fd)             # struct landlock_path_beneath_attr (packed)
        buf = ctypes.create_string_buffer(attr, len(attr))
        _check(libc.syscall(ctypes.c_long(numbers[1]), ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                            buf, ctypes.c_uint32(0)), f"landlock_add_rule({path})")
        return True
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


def harden():
    """No new privileges, and no capabilities when root (Linux): what holds even without Landlock.

    Returns True when applied. Landlock needs it anyway; without Landlock it still stops a root
    kernel from ptracing, signalling or changing the identity of the grader's processes by privilege.
    """
    if platform.system() != "Linux":
        return False
    libc = _libc()
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    if os.geteuid() == 0:
        _drop_capabilities(libc)
    return True


def confine(*, read_exec=(), read=(), read_write=(), listable=(), bind_ports=()):
    """Confine this process and its future children; returns the ABI version used.

    ``read_exec``, ``read``, ``read_write``: trees (or single files) granted :data:`RX`, :data:`R`,
    :data:`RW`; ``listable``: directories whose entries may be listed (no more: their files need
    a rule of their own); ``bind_ports``: the TCP ports the process may bind. Paths that do not
    exist are skipped. Raises :class:`ConfinementError` if Landlock is not
    available or any step fails (the caller must then not run untrusted code).
    """
    version = abi()
    if version <= 0:
        raise ConfinementError(95, "Landlock is not available on this system")
    numbers, libc = _SYS[platform.machine()], _libc()
    libc.syscall.restype = ctypes.c_long
    handled_fs = _FS_BY_ABI.get(version, _FS_BY_ABI[5])
    handled_net = _NET_BIND_TCP | _NET_CONNECT_TCP if version >= 4 else 0
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if version >= 6 else 0
    attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)[:8 if version < 4 else 16 if version < 6 else 24]
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _check(libc.syscall(ctypes.c_long(numbers[0]), buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        for paths, rights in ((read_exec, RX), (read, R), (read_write, RW), (listable, READ_DIR)):
            for path in paths:
                _add_path(libc, numbers, ruleset, path, rights, handled_fs)
        if handled_net:
            for port in bind_ports:
                net = ctypes.create_string_buffer(struct.pack("=QQ", _NET_BIND_TCP, int(port)), 16)
                _check(libc.syscall(ctypes.c_long(numbers[1]), ctypes.c_int(ruleset), ctypes.c_int(_RULE_NET_PORT),
                                    net, ctypes.c_uint32(0)), f"landlock_add_rule(port {port})")
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
