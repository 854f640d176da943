"""Bootstrap of a graded kernel: ``python -I -S SANDBOX/lib/lessonlib/grading/kernel/boot.py CONFIG.json -f CONNECTION_FILE``.

In this order, before any student code exists:

1. closes every file descriptor it inherited beyond stdin/stdout/stderr (nothing opened by the
   nbval process reaches the kernel);
2. **confines itself** (``config["confine"]``, enforced when ``config["enforce"]``): Landlock
   walls from :mod:`.confine` next to this file — read+execute the Python installation and its
   packages, read the sandbox, read+write only its private directory, bind only the five ports of
   its connection file, signal and ptrace nothing outside; a root process also drops every
   capability. If that fails the kernel does not start (exit status 70). Without walls (no
   Landlock here) it still takes no new privileges and, as root, drops its capabilities;
3. builds ``sys.path`` explicitly (started with ``-I -S``, no ``.pth`` file has run, so the
   editable finder of the real ``lessonlib`` is not installed): the stripped copy first, the
   standard library, the site-packages directories; refuses imports of the packages in
   ``denied`` (other robotics libraries; the walls refuse their files too);
4. disables core dumps, caps the size of any file it writes (:data:`FILE_LIMIT`), points its own
   stdout/stderr at ``/dev/null`` (what a cell prints reaches the grader only as kernel
   messages), caps what one cell may print per stream (``output_limit`` characters; the nbval
   side caps again whatever slips past);
5. records in ``watch`` every attempt made while the student's code runs to open or list a path
   outside the walls, with the check that was running — for the message of the check that
   failed, or for review where no walls exist. Student code can silence this record; it cannot
   lift the walls;
6. moves into its empty working directory and starts ipykernel.

Nothing here is secret: the config holds paths and limits only. Run as a script, this file
imports its own package as ``kernel`` (standard library only, nothing else of lessonlib) before
``sys.path`` holds anything else.
"""
import json
import os
import signal
import sys

#: Audit events whose first argument is a path the student's code tried to reach.
WATCHED = frozenset({"open", "os.listdir", "os.scandir", "os.chdir", "os.link", "os.symlink", "os.rename"})
#: Attempts recorded per kernel.
WATCH_LIMIT = 50
#: Largest file the kernel (and what it starts) may write, bytes: its directory cannot fill the disk
#: with one file (many files stay bounded only by the timeouts).
FILE_LIMIT = 256 * 2**20


class _Denied:
    """A meta-path finder refusing a list of top-level packages while grading."""

    def __init__(self, names, prefixes):
        self.names, self.prefixes = frozenset(names), tuple(prefixes)

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in self.names or top.startswith(self.prefixes):
            raise ModuleNotFoundError(f"{fullname} is not available while grading", name=fullname)
        return None


def _cap_output(limit):
    """Drop what one cell writes to a stream beyond ``limit`` characters (one note where it stops)."""
    from ipykernel.iostream import OutStream
    write, used = OutStream.write, {}

    def capped(self, string):
        if not isinstance(string, str):
            return write(self, string)
        key = (self.name, self.parent_header.get("msg_id"))
        before = used.get(key, 0)
        used[key] = before + len(string)
        if before + len(string) <= limit:
            return write(self, string)
        if before < limit:
            write(self, string[:limit - before] + f"\n[lessonlib-grade: output beyond {limit} characters dropped]\n")
        return len(string)

    OutStream.write = capped


def _ports(connection_file):
    with open(connection_file, encoding="utf-8") as fh:
        info = json.load(fh)
    return [int(info[k]) for k in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port") if k in info]


def _confine(policy, connection_file, enforce, module=None):
    """Apply the Landlock walls to this process (and every child); exit if they cannot be applied.

    Without ``enforce`` (no Landlock here) only :func:`confine.harden` applies (no new privileges,
    no capabilities), where the system allows it.
    """
    try:
        confine = module
        if confine is None:
            from . import confine
        if not enforce:
            try:
                confine.harden()
            except OSError:
                pass
            return 0
        return confine.confine(read_exec=policy["read_exec"], read=[*policy["read"], connection_file],
                               listable=policy["list"], read_write=policy["read_write"],
                               bind_ports=_ports(connection_file))
    except Exception as exc:                              # no walls, no kernel: the grader reports it
        os.write(2, f"lessonlib-grade: the graded kernel could not confine itself: {exc}\n".encode())
        os._exit(70)


def _watch(path, roots, cell_prefixes, standard_prefixes, client):
    """Record the student's attempts to reach paths outside ``roots`` (JSON lines in ``path``).

    An attempt is recorded when a cell's code is on the stack, with the names of the cell frames
    (innermost first: the student's functions, then ``<module>``) and the id of the check that was
    calling the student's function (None: the top level of an answer cell). ``direct`` says whether
    only the standard library (and IPython's ``open``) lies between the student's code and the
    access (not, e.g., numpy's ``loadtxt`` or matplotlib's own caches).
    """
    import linecache
    log = open(path, "a", encoding="utf-8", buffering=1)
    exact = frozenset(r.rstrip("/") for r in roots)
    beneath = tuple(r.rstrip("/") + "/" for r in roots)
    state = {"busy": False, "count": 0}

    def hook(event, args):
        if event not in WATCHED or state["busy"] or state["count"] >= WATCH_LIMIT or not args:
            return
        target = args[0]
        if not isinstance(target, (str, bytes, os.PathLike)):
            return
        state["busy"] = True
        try:
            real = os.path.realpath(os.fsdecode(target))
            if real in exact or real.startswith(beneath):
                return
            frame, direct, names, check = sys._getframe(1), True, [], None
            while frame is not None:                      # the student's frames, and the check running them
                code = frame.f_code
                if code.co_filename.startswith(cell_prefixes):
                    names.append(code.co_name)
                    if len(names) == 1:
                        line = linecache.getline(code.co_filename, frame.f_lineno).strip()[:200]
                elif code.co_filename == client and code.co_name == "_judged":
                    check = frame.f_locals.get("check_id")
                elif not names:
                    direct = direct and code.co_filename.startswith(standard_prefixes)
                frame = frame.f_back
            if names:
                log.write(json.dumps({"event": event, "path": os.fsdecode(target)[:300], "direct": direct,
                                      "functions": names[:8], "check": check, "line": line}) + "\n")
                state["count"] += 1
        except Exception:                                 # never let the record break the kernel
            pass
        finally:
            state["busy"] = False

    sys.addaudithook(hook)


def set_paths(config):
    """``sys.path`` built explicitly (the stripped copy first) and the finder refusing denied packages."""
    sys.path[:] = [config["lib"]] + [p for p in sys.path if p] + list(config["site"])
    sys.meta_path.insert(0, _Denied(config["denied"], config["denied_prefixes"]))


def _start(config, connection_file):
    """Steps 4–6: limits, silenced stdout/stderr, the record of attempts, the working directory, ipykernel."""
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        limit = int(config.get("file_limit", FILE_LIMIT))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))     # no file beyond it (EFBIG)
    except (ImportError, ValueError, OSError):
        pass
    for name in ("PYTEST_CURRENT_TEST", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "JUPYTER_PATH"):
        os.environ.pop(name, None)                       # the grader's bookkeeping, not the kernel's
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    tmp = config.get("tmp")
    if tmp:
        os.makedirs(tmp, exist_ok=True)
        os.environ["TMPDIR"] = tmp
    policy = config.get("confine")
    if policy and config.get("watch"):
        import sysconfig
        roots = [*policy["read_exec"], *policy["read"], *policy["read_write"]] + ([connection_file] if connection_file else [])
        standard = tuple(os.path.realpath(sysconfig.get_paths()[k]) + "/" for k in ("stdlib", "platstdlib")) \
            + tuple(os.path.join(os.path.realpath(site), "IPython", "") for site in config["site"]) + ("<",)
        cells = (os.path.join(os.path.realpath(tmp or "/tmp"), "ipykernel_"), "<ipython-input-")
        client = os.path.join(config["lib"], "lessonlib", "grading", "kernel", "client.py")
        _watch(config["watch"], roots, cells, standard, client)
    os.chdir(config["workdir"])
    sys.argv = [sys.argv[0]] + sys.argv[2:]
    _cap_output(int(config["output_limit"]))
    from ipykernel import kernelapp
    kernelapp.launch_new_instance()


def _connection_file():
    return sys.argv[sys.argv.index("-f") + 1] if "-f" in sys.argv else None


def main():
    """A freshly started kernel: ``kernel_boot.py CONFIG.json -f CONNECTION_FILE ...``."""
    with open(sys.argv[1], encoding="utf-8") as fh:
        config = json.load(fh)
    os.closerange(3, 1 << 16)                             # nothing the nbval process opened reaches the kernel
    connection_file = _connection_file()
    policy = config.get("confine")
    if policy and connection_file:
        _confine(policy, connection_file, config.get("enforce"))
    set_paths(config)
    _start(config, connection_file)


# --- the kernel zygote: import once per batch, fork a confined kernel per run ------------------------

#: The batch-wide part of a run's configuration: a forked kernel's must equal its zygote's.
BATCH_KEYS = ("lib", "site", "denied", "denied_prefixes", "output_limit")
#: Top-level packages a zygote may import ahead of the kernels (no import-time side effect that
#: depends on a run: matplotlib, for one, fixes its configuration directory when imported).
PRELOADABLE = ("numpy", "scipy", "sympy", "lessonlib")
_PR_SET_CHILD_SUBREAPER = 36
#: What every kernel imports as it starts or formats its first traceback (measured: after a fork,
#: a kernel imported about 200 modules more without these).
KERNEL_MODULES = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger",
                  "IPython.core.completer", "IPython.core.completerlib", "IPython.core.debugger",
                  "IPython.core.oinspect", "IPython.extensions.storemagic", "IPython.core.ultratb",
                  "stack_data", "executing", "pure_eval", "asttokens", "pygments.lexers.python",
                  "pygments.formatters.terminal256", "pygments.formatters.html", "pygments.styles", "psutil",
                  "tornado.gen", "tornado.locks", "tornado.queues", "tornado.platform.asyncio")


def _preload(names):
    """Import ipykernel, IPython and the modules the graded notebook imports (``names``), as a kernel would."""
    import importlib
    for name in KERNEL_MODULES:
        try:
            importlib.import_module(name)
        except Exception:                                 # an optional part of IPython: the kernel does without
            pass
    for name in names:
        if name.partition(".")[0] in PRELOADABLE and not name.startswith("lessonlib.viz"):
            try:
                importlib.import_module(name)
            except Exception:                             # a stub or a missing module: the kernel finds out itself
                pass


def _kernel(request, batch, confine, processes):
    """In the forked kernel (a child of its keeper): confine, then start exactly as :func:`main` does."""
    os.setpgid(0, 0)                                      # its own group: interrupts reach it and what it spawns
    with open(sys.argv[1], encoding="utf-8") as fh:
        config = json.load(fh)
    os.closerange(3, 1 << 16)
    connection_file = _connection_file()
    if any(config.get(k) != batch.get(k) for k in BATCH_KEYS):
        os.write(2, b"lessonlib-grade: the graded kernel could not confine itself: its run is not the zygote's batch\n")
        os._exit(70)
    if len(os.listdir("/proc/self/task")) != 1:           # every thread must be below the walls
        os.write(2, b"lessonlib-grade: the graded kernel could not confine itself: a thread exists before the walls\n")
        os._exit(70)
    policy = config.get("confine")
    if policy and connection_file:
        _confine(policy, connection_file, config.get("enforce"), module=confine)
    if "numpy" in sys.modules:                            # a fresh process seeds numpy from the OS; so does a fork
        sys.modules["numpy"].random.seed()
    _start(config, connection_file)


def _keep(request, batch, confine, processes, forkserver):
    """The keeper of one forked kernel (the zygote's child): what the kernel spawns stays below it.

    It forks the kernel, forwards interrupts to it, and when the kernel ends (or the grader asks
    with SIGTERM) kills everything still below it: being a subreaper, it inherits every orphan the
    kernel left (double forks, ``setsid``). Its exit status is the kernel's (128 + signal when killed).
    """
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    kernel = os.fork()
    if kernel == 0:
        forkserver.run_and_exit(lambda: _kernel(request, batch, confine, processes), run_atexit=True)

    def forward(signum, frame):
        try:
            os.kill(kernel, signum)
        except OSError:
            pass

    def stop(signum=None, frame=None):
        try:
            os.killpg(kernel, signal.SIGKILL)
        except OSError:
            pass
        processes.kill_children(os.getpid())

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, stop)
    status = None
    while True:                                           # until nothing is left below the keeper
        try:
            pid, raw = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == kernel:
            status = os.waitstatus_to_exitcode(raw)
        if status is not None:
            stop()                                        # the kernel is gone: so goes what it left
    return status if status >= 0 else 128 - status


def zygote(config_path, control_fd):
    """``boot.py --zygote CONFIG FD``: the batch's kernel zygote (see :mod:`.forkserver`)."""
    with open(config_path, encoding="utf-8") as fh:
        batch = json.load(fh)
    os.closerange(3, control_fd)
    os.closerange(control_fd + 1, 1 << 16)
    from . import confine, forkserver, processes
    set_paths(batch)
    _preload(batch.get("preload", ()))
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    forkserver.serve(control_fd, lambda request: _keep(request, batch, confine, processes, forkserver))


def entry(argv):
    """The script's command line: ``--zygote CONFIG FD`` or ``CONFIG -f CONNECTION_FILE ...``."""
    if argv[1:2] == ["--zygote"]:
        zygote(argv[2], int(argv[3]))
    else:
        main()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from kernel import boot                               # this file again, as a member of its package
    del sys.path[0]
    boot.entry(sys.argv)
