"""The walls a graded kernel puts up by itself (``lessonlib.grading.kernel.confine``), right by right.

``test_grading_isolation.py`` shows a confined process and its children end to end; here each grant of
:func:`confine.confine` and each piece of :func:`confine.harden` is pinned in a forked child that confines
itself and reports what it may still do, so that a weakened wall (a right granted that should not be, a
rule dropped, capabilities kept, ``setsid`` allowed) fails in a second (``make mutation``).
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import socket
import subprocess
import sys

import pytest

from grading_common import in_fork
from lessonlib.grading.kernel import confine

LANDLOCK = confine.abi()
# A socket address is encoded with the idna codec, imported at its first use: import it now, before a test
# confines itself out of the Python library (else every address fails on that import, walled or not).
"127.0.0.1".encode("idna")
needs_landlock = pytest.mark.skipif(LANDLOCK == 0, reason="Landlock is not available here")


def attempt(fn):
    """``fn()``'s result, or the name of the OSError it raised."""
    try:
        out = fn()
        return True if out is None else out
    except OSError as exc:
        return type(exc).__name__


def _write(path, text="x"):
    with open(path, "w") as fh:
        fh.write(text)


def _read(path):
    with open(path) as fh:
        return fh.read()


def _bind_unix(path):
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
    return True


def _tcp_connect(port):
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        return True


def _abstract_connect(name):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(name)
    return True


def _tcp_bind():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
    return True


@pytest.fixture
def trees(tmp_path):
    for name in ("read", "rw", "listable", "sockets", "outside"):
        (tmp_path / name).mkdir()
        _write(tmp_path / name / "file.txt", name)
    _write(tmp_path / "single.txt", "single")
    return tmp_path


@needs_landlock
def test_each_grant_gives_its_rights_and_no_more(trees):
    t = trees
    _write(t / "rw-single.txt", "single")
    with socket.socket() as s:                                # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    name = f"\0lessonlib-test-{os.getpid()}"
    listener = socket.socket(socket.AF_UNIX)                  # an abstract socket outside the sandbox
    listener.bind(name)
    listener.listen(1)

    def run():
        version = confine.confine(read=[t / "read", t / "single.txt"], read_write=[t / "rw", t / "rw-single.txt"],
                                  listable=[t / "listable"], sockets=[t / "sockets"],
                                  read_exec=[t / "does-not-exist"])
        return {
            "version": version,
            "read: read": attempt(lambda: _read(t / "read" / "file.txt")),
            "read: list": attempt(lambda: sorted(os.listdir(t / "read"))),
            "read: write": attempt(lambda: _write(t / "read" / "file.txt")),
            "read: create": attempt(lambda: _write(t / "read" / "new.txt")),
            "single file: read": attempt(lambda: _read(t / "single.txt")),
            "single file: write": attempt(lambda: _write(t / "single.txt")),
            "rw: write": attempt(lambda: _write(t / "rw" / "file.txt", "changed")),
            "rw: create": attempt(lambda: _write(t / "rw" / "new.txt")),
            "rw: mkdir": attempt(lambda: os.mkdir(t / "rw" / "sub")),
            "rw: symlink": attempt(lambda: os.symlink("file.txt", t / "rw" / "link")),
            "rw: truncate": attempt(lambda: os.truncate(t / "rw" / "file.txt", 1)),
            "rw: remove": attempt(lambda: os.remove(t / "rw" / "new.txt")),
            "rw: rmdir": attempt(lambda: os.rmdir(t / "rw" / "sub")),
            "rw: fifo": attempt(lambda: os.mkfifo(t / "rw" / "fifo")),
            "read: fifo": attempt(lambda: os.mkfifo(t / "read" / "fifo")),
            "listable: list": attempt(lambda: sorted(os.listdir(t / "listable"))),
            "listable: read": attempt(lambda: _read(t / "listable" / "file.txt")),
            "sockets: bind": attempt(lambda: _bind_unix(t / "sockets" / "s")),
            "sockets: remove socket": attempt(lambda: os.remove(t / "sockets" / "s")),
            "sockets: create file": attempt(lambda: _write(t / "sockets" / "new.txt")),
            "sockets: read": attempt(lambda: _read(t / "sockets" / "file.txt")),
            "outside: read": attempt(lambda: _read(t / "outside" / "file.txt")),
            "outside: list": attempt(lambda: os.listdir(t / "outside")),
            "outside: bind socket": attempt(lambda: _bind_unix(t / "outside" / "s")),
            "parent: list": attempt(lambda: os.listdir(t)),
            "tcp: bind": attempt(_tcp_bind),
            "tcp: connect": attempt(lambda: _tcp_connect(port)),
            "single rw file: truncate": attempt(lambda: os.truncate(t / "rw-single.txt", 1)),
            "single rw file: write": attempt(lambda: _write(t / "rw-single.txt", "new")),
            "signal the parent": attempt(lambda: os.kill(os.getppid(), 0)),
            "abstract socket": attempt(lambda: _abstract_connect(name)),
        }
    try:
        got = in_fork(run)
    finally:
        listener.close()
    denied = "PermissionError"
    assert got == {
        "version": LANDLOCK,
        "read: read": "read", "read: list": ["file.txt"], "read: write": denied, "read: create": denied,
        "single file: read": "single", "single file: write": denied,
        "rw: write": True, "rw: create": True, "rw: mkdir": True, "rw: symlink": True, "rw: truncate": True,
        "rw: remove": True, "rw: rmdir": True, "rw: fifo": True, "read: fifo": denied,
        "listable: list": ["file.txt"], "listable: read": denied,
        "sockets: bind": True, "sockets: remove socket": True, "sockets: create file": denied, "sockets: read": denied,
        "outside: read": denied, "outside: list": denied, "outside: bind socket": denied, "parent: list": denied,
        "tcp: bind": denied if LANDLOCK >= 4 else True,
        "tcp: connect": denied if LANDLOCK >= 4 else "ConnectionRefusedError",
        "single rw file: truncate": True, "single rw file: write": True,
        "signal the parent": denied if LANDLOCK >= 6 else True,
        "abstract socket": denied if LANDLOCK >= 6 else True,
    }


@needs_landlock
@pytest.mark.parametrize("ceiling", [1, 3, 4, 5, 6])
def test_an_older_abi_is_used_as_such(trees, monkeypatch, ceiling):
    monkeypatch.setenv(confine.SWITCH, f"abi{ceiling}")
    version = min(ceiling, LANDLOCK)

    def run():
        got = confine.confine(read=[trees / "read"])
        return [got, attempt(lambda: _read(trees / "outside" / "file.txt")), attempt(_tcp_bind),
                attempt(lambda: os.kill(os.getppid(), 0))]
    assert in_fork(run) == [version, "PermissionError", "PermissionError" if version >= 4 else True,
                            "PermissionError" if version >= 6 else True]     # TCP from ABI 4, signals from ABI 6


def _status(field):
    with open("/proc/self/status") as fh:
        return next(line.split(":", 1)[1].strip() for line in fh if line.startswith(field + ":"))


def test_harden_sets_no_new_privileges_drops_every_capability_and_forbids_new_sessions():
    def run():
        applied = confine.harden()
        try:
            os.setsid()
            setsid = "allowed"
        except OSError as exc:
            setsid = errno.errorcode[exc.errno]
        return {"applied": applied, "NoNewPrivs": _status("NoNewPrivs"), "CapEff": _status("CapEff"),
                "CapPrm": _status("CapPrm"), "CapBnd": _status("CapBnd"), "CapAmb": _status("CapAmb"),
                "setsid": setsid}
    got = in_fork(run)
    assert got == {"applied": True, "NoNewPrivs": "1", "CapEff": "0" * 16, "CapPrm": "0" * 16, "CapBnd": "0" * 16,
                   "CapAmb": "0" * 16, "setsid": "EPERM"}


def test_without_seccomp_filter_setsid_works_and_the_filter_refuses_only_setsid():
    def run():
        out = [attempt(lambda: os.setsid() or "first session")]      # the fork is no group leader: allowed
        assert confine.forbid_new_sessions() is True
        pid = os.fork()
        if pid == 0:                                                   # a child may not start one either
            try:
                os.setsid()
                os._exit(0)
            except OSError as exc:
                os._exit(exc.errno)
        out.append(errno.errorcode.get(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), "allowed"))
        out.append(os.getpid() > 0 and os.getppid() > 0 and bool(os.listdir(".")))        # everything else works
        return out
    assert in_fork(run) == ["first session", "EPERM", True]


def test_not_dumpable_forbids_ptrace_and_proc_reads_by_the_same_user():
    def run():
        confine.not_dumpable()
        import ctypes                                                  # noqa: PLC0415
        return ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)                  # PR_GET_DUMPABLE
    assert in_fork(run) == 0


@pytest.mark.parametrize("version, text", [
    (0, "none (Landlock unavailable): answers that read files or load code go to review"),
    (3, "Landlock ABI 3 (filesystem)"), (4, "Landlock ABI 4 (filesystem, TCP)"),
    (6, "Landlock ABI 6 (filesystem, TCP, signals and abstract sockets)")])
def test_describe_names_what_each_abi_walls(version, text):
    assert confine.describe(version) == text


def test_the_switch_caps_the_abi(monkeypatch):
    assert confine.SWITCH == "LESSONLIB_GRADE_CONFINEMENT"             # the name the grading README gives
    for value, expected in (("abi2", min(2, LANDLOCK)), ("abi9", LANDLOCK), ("off", 0), ("0", 0), ("", LANDLOCK),
                            ("none", 0), ("NONE", 0), ("abix", LANDLOCK), ("xyz1", LANDLOCK)):
        monkeypatch.setenv(confine.SWITCH, value)
        assert confine.abi() == expected, value


def test_no_landlock_is_abi_0_on_another_architecture_or_when_the_kernel_refuses(monkeypatch):
    monkeypatch.delenv(confine.SWITCH, raising=False)
    monkeypatch.setattr(confine.platform, "machine", lambda: "mips")
    assert confine.abi() == 0
    monkeypatch.undo()
    monkeypatch.delenv(confine.SWITCH, raising=False)
    monkeypatch.setattr(confine, "_CALLS", (-1, -1, -1))                  # no such system call: -1, ENOSYS
    assert confine.abi() == 0
    assert confine.describe(1) == "Landlock ABI 1 (filesystem)"


def test_a_failed_step_raises_with_the_systems_reason():
    ctypes.set_errno(13)
    with pytest.raises(confine.ConfinementError) as exc:
        confine._check(-1, "landlock_add_rule(/x)")
    assert exc.value.errno == 13 and exc.value.strerror == "landlock_add_rule(/x): Permission denied"
    assert confine._check(5, "fine") == 5


def test_the_abi_is_what_the_kernel_answers_for_landlock_create_ruleset(monkeypatch):
    """Asked here without the module's tables: syscall 444 with LANDLOCK_CREATE_RULESET_VERSION (1)."""
    monkeypatch.delenv(confine.SWITCH, raising=False)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    answer = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    expected = max(0, int(answer)) if platform.system() == "Linux" and platform.machine() == "x86_64" else None
    if expected is None:
        pytest.skip("the system call numbers above are x86_64's")
    assert confine.abi() == expected


SYSTEM = [sys.base_prefix, sys.base_exec_prefix, "/usr", "/lib", "/lib64", "/bin"]


@needs_landlock
def test_read_exec_lets_a_program_run_and_read_does_not():
    def run(grant):
        confine.confine(**{grant: SYSTEM})
        try:
            return subprocess.run(["/usr/bin/true"], timeout=30).returncode
        except OSError as exc:
            return type(exc).__name__
    assert in_fork(lambda: run("read_exec")) == 0
    assert in_fork(lambda: run("read")) == "PermissionError"


def test_without_landlock_confine_refuses_to_pretend(monkeypatch):
    monkeypatch.setenv(confine.SWITCH, "none")
    with pytest.raises(confine.ConfinementError) as exc:
        confine.confine(read=["/usr"])
    assert exc.value.errno == 95 and exc.value.strerror == "Landlock is not available on this system"


@needs_landlock
def test_the_probe_reports_the_abi_it_could_enforce_and_0_without_landlock(tmp_path, monkeypatch):
    secret = tmp_path / "secret"
    secret.write_text("not for the kernel")
    monkeypatch.delenv(confine.SWITCH, raising=False)
    assert confine.probe(sys.executable, secret) == LANDLOCK
    monkeypatch.setenv(confine.SWITCH, "abi3")
    assert confine.probe(sys.executable, secret) == min(3, LANDLOCK)      # the switch reaches the probe's child
    monkeypatch.setenv(confine.SWITCH, "none")
    assert confine.probe(sys.executable, secret) == 0


@needs_landlock
def test_a_probe_whose_child_fails_or_cannot_start_reports_no_confinement(tmp_path, monkeypatch):
    monkeypatch.delenv(confine.SWITCH, raising=False)
    assert confine.probe("/bin/false", tmp_path) == 0                      # the child ran and failed
    assert confine.probe(str(tmp_path / "no-such-python"), tmp_path) == 0  # the child could not start
