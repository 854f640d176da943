"""A graded kernel's own machine: new user, mount, network, PID and IPC namespaces over a minimal root.

The keeper of a graded kernel (:func:`lessonlib.grading.kernel.boot.keep`) calls :func:`enter` on
itself just before it forks the kernel, without any privilege (Linux user namespaces, as
bubblewrap and Flatpak use them). From then on the kernel and everything it starts:

* **see only what a view lists** (:class:`View`): a fresh root filesystem (a small tmpfs, read
  only) holding read-only binds of the Python installation, the site-packages directories, the
  sandbox's library, the system's libraries and a few files, the devices ``/dev/null``,
  ``/dev/zero``, ``/dev/full``, ``/dev/urandom``, ``/dev/random``, the run's channel directory
  (its judge's socket and its own ZeroMQ sockets) and a private directory that is a **size-capped
  tmpfs** — the only place it can write. Everything else (other runs, the grader's files, the
  solutions, other Unix sockets, ``/proc``, ``/tmp``) does not exist in that world; a denied package
  inside an allowed tree is covered by an empty, unreadable mount;
* **have no network at all**: a new network namespace has only a loopback interface, and it is
  down — no TCP, no UDP, no raw sockets, to anywhere, not even between two kernels;
* **are alone**: their own PID namespace (the kernel is its first process: when it ends, the
  system kills whatever is left, ``setsid`` and double forks included; nothing outside can be seen
  or signalled) and their own IPC namespace (no System V or POSIX shared memory with others);
* **count alone**: their own user namespace, so the per-user process limit counts this kernel's
  processes only.

Landlock (:mod:`.confine`) stays on as a second wall. Where user namespaces are refused (a kernel
built without them, ``user.max_user_namespaces = 0``, Ubuntu's AppArmor restriction),
:func:`unavailable` says why and the grader runs without this wall (and says so).

Standard library only (``ctypes``): it ships to the graded kernel with its package.
"""
import ctypes
import os
import platform
from dataclasses import dataclass, field

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x8000000, 0x10000000, 0x20000000, \
    0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, \
    1 << 18
_ST_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC      # statvfs's ST_NOSUID, ST_NODEV, ST_NOEXEC have the same values
MNT_DETACH = 2
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
#: Size of the read-only root the binds hang from (it holds only their empty mount points).
ROOT_SIZE = "size=1m,nr_inodes=4096,mode=0755"


class NamespaceError(OSError):
    """A step of building the kernel's world failed (the kernel must then not run)."""


@dataclass
class View:
    """What the kernel's world holds (absolute host paths, kept at the same paths inside).

    ``staging``: an empty host directory the new root is built on; ``read_only``: trees and files
    bound read-only; ``devices``: device files bound as they are; ``channel``: directories bound
    read-write (the run's sockets); ``hidden``: paths inside the bound trees covered by an empty,
    unreadable mount; ``private``: the directory that becomes a tmpfs of ``size`` bytes and
    ``inodes`` files.
    """

    staging: str
    private: str
    size: int
    inodes: int = 4096
    read_only: list = field(default_factory=list)
    devices: list = field(default_factory=list)
    channel: list = field(default_factory=list)
    hidden: list = field(default_factory=list)

    @classmethod
    def from_dict(cls, d):
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    return libc


def _check(result, what):
    if result < 0:
        err = ctypes.get_errno()
        raise NamespaceError(err, f"{what}: {os.strerror(err)}")


def unavailable():
    """Why this system cannot give a graded kernel its own namespaces ("" when it can, as far as
    the system's settings tell: :func:`probe` tries for real). The grader's switch
    ``LESSONLIB_GRADE_CONFINEMENT`` set to ``none`` or ``landlock`` simulates a system without them."""
    if os.environ.get("LESSONLIB_GRADE_CONFINEMENT", "").lower() in ("none", "off", "0", "landlock"):
        return "switched off (LESSONLIB_GRADE_CONFINEMENT)"
    if platform.system() != "Linux":
        return "not Linux"
    if platform.machine() not in _PIVOT_ROOT:
        return f"no pivot_root number known for {platform.machine()}"
    settings = {"/proc/sys/user/max_user_namespaces": "0", "/proc/sys/kernel/unprivileged_userns_clone": "0",
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1"}
    for path, refused in settings.items():
        try:
            with open(path) as fh:
                if fh.read().strip() == refused:
                    return (f"unprivileged user namespaces are restricted ({path} = {refused}"
                            + (", an AppArmor policy" if "apparmor" in path else "") + ")")
        except OSError:
            continue
    return ""


def _write(path, text):
    with open(path, "w") as fh:
        fh.write(text)


def _target(root, path, *, directory):
    """The mount point for ``path`` under ``root`` (created: a directory, or an empty file)."""
    target = os.path.join(root, path.lstrip("/"))
    if directory:
        os.makedirs(target, exist_ok=True)
    elif not os.path.lexists(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
    return target.encode()


def _bind(libc, root, path, *, read_only):
    target = _target(root, path, directory=os.path.isdir(path))
    _check(libc.mount(path.encode(), target, None, MS_BIND | MS_REC, None), f"bind {path}")
    if read_only:                                          # the flags the host mount locks must be kept
        kept = os.statvfs(target).f_flag & _ST_FLAGS
        _check(libc.mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | kept, None),
               f"read-only {path}")


def _covered(path, roots):
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def enter(view, *, pid=True):
    """Move this (single-threaded) process into new namespaces with ``view`` (a :class:`View`) as its world.

    With ``pid``, the next process it forks is the first of a new PID namespace. Raises
    :class:`NamespaceError` naming the step that failed.
    """
    libc = _libc()
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | (CLONE_NEWPID if pid else 0)
    _check(libc.unshare(flags), "unshare")
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError as exc:
        raise NamespaceError(exc.errno or 1, f"user namespace maps: {exc}") from None
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make the mounts private")
    root = view.staging
    _check(libc.mount(b"tmpfs", root.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, ROOT_SIZE.encode()), "the root tmpfs")
    done = []
    for path in sorted(dict.fromkeys(p for p in view.read_only if os.path.exists(p)), key=len):
        if not _covered(path, done):
            _bind(libc, root, path, read_only=True)
            done.append(path)
    for path in view.devices:
        if os.path.exists(path):
            _bind(libc, root, path, read_only=False)
    for path in view.channel:
        _bind(libc, root, path, read_only=False)
    empty = os.path.join(root, ".empty")
    os.close(os.open(empty, os.O_CREAT | os.O_WRONLY, 0))
    for path in view.hidden:
        if not os.path.lexists(os.path.join(root, path.lstrip("/"))):
            continue
        target = os.path.join(root, path.lstrip("/")).encode()
        if os.path.isdir(target):
            _check(libc.mount(b"tmpfs", target, b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, b"size=4k,mode=0"),
                   f"hide {path}")
        else:
            _check(libc.mount(empty.encode(), target, None, MS_BIND, None), f"hide {path}")
    private = _target(root, view.private, directory=True)
    _check(libc.mount(b"tmpfs", private, b"tmpfs", MS_NOSUID | MS_NODEV,
                      f"size={int(view.size)},nr_inodes={int(view.inodes)},mode=0700".encode()), "the private tmpfs")
    os.chdir(root)
    _check(libc.syscall(ctypes.c_long(_PIVOT_ROOT[platform.machine()]), b".", b"."), "pivot_root")
    _check(libc.umount2(b".", MNT_DETACH), "detach the old root")
    os.chdir("/")
    _check(libc.mount(None, b"/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
           "read-only root")


_PROBE = """import os, socket, sys
sys.path.insert(0, sys.argv[1])
import namespaces
staging, private, secret = sys.argv[2:5]
namespaces.enter(namespaces.View(staging=staging, private=private, size=1 << 20,
                                 read_only=[sys.base_prefix, sys.base_exec_prefix, "/usr", "/lib", "/lib64"]))
pid = os.fork()
if pid == 0:
    ok = os.getpid() == 1 and not os.path.exists(secret)
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 9))
        ok = False
    except OSError:
        pass
    os._exit(0 if ok else 3)
print("walls" if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 else "leaky")
"""


def probe(python, directory):
    """``""`` if a child process of ``python`` really gets its namespaces here (new root: a file in
    ``directory`` is gone; PID 1; no network), else why not."""
    import subprocess                                       # noqa: PLC0415 (the bootstrap never probes)
    why = unavailable()
    if why:
        return why
    staging, private, secret = (os.path.join(directory, n) for n in ("staging", "private", "secret"))
    for d in (staging, private):
        os.makedirs(d, exist_ok=True)
    with open(secret, "w") as fh:
        fh.write("outside")
    try:
        out = subprocess.run([python, "-I", "-S", "-c", _PROBE, os.path.dirname(os.path.abspath(__file__)), staging,
                              private, secret], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the probe failed: {exc}"
    if out.stdout.strip() == "walls":
        return ""
    last = (out.stderr.strip().splitlines() or [out.stdout.strip() or "no answer"])[-1]
    return f"the probe could not enter namespaces ({last[:200]})"
