"""The bootstrap of a graded kernel: walls first, then ipykernel.

``python -I -S SANDBOX/lib/lessonlib/grading/kernel/boot.py BOOT.json -f CONNECTION_FILE ...`` starts
a kernel afresh; ``... boot.py --zygote ZYGOTE.json FD`` is the batch's kernel zygote, which imports
IPython, ipykernel and the notebook's numerical packages once and forks a kernel per run. Either
way the same :func:`keep` runs before any student code exists:

**The keeper** (the process nbval sees as the kernel):

1. closes every file descriptor it inherited (nothing the nbval process opened reaches the kernel),
   checks it is single-threaded (and, forked, that its run is its zygote's batch), opens the
   run's record of attempts on the grader's side and makes its tree the first the OOM killer takes;
2. **enters its own namespaces** (:mod:`.namespaces`, when the run's ``view`` is set): user, mount,
   network, PID and IPC, over a minimal read-only root with a size-capped private tmpfs — no
   network, no other process, no other run's files exist there;
3. forks the kernel (the first process of its PID namespace), forwards interrupts to it, stops it
   when told to, and when it ends copies its record of attempts out; its exit status is the kernel's.

**The kernel**, before a single cell:

4. **confines itself** (:mod:`.confine`, when ``enforce``): Landlock walls — read and execute the
   Python installation and its packages, read the sandbox, write only its private directory,
   create sockets only in its channel directory, no TCP at all, signal and ptrace nothing outside;
5. hardens itself: no new privileges, no capabilities, no new sessions (a session is a scheduling
   group of its own), and puts on the resource limits (:mod:`.limits`: memory, processes, CPU,
   file size, descriptors, no core dumps);
6. builds ``sys.path`` explicitly (``-I -S``: no ``.pth`` file ran, so the editable finder of the
   real ``lessonlib`` is not installed): the sandbox's library first, the standard library, the
   site-packages directories; refuses imports of the ``denied`` packages (other robotics
   libraries; the walls refuse their files too);
7. points its own stdout/stderr at ``/dev/null`` (what a cell prints reaches the grader only as
   kernel messages), caps what one cell may print per stream, and records (an audit hook) every
   attempt of the student's code to open or list a path outside the walls, with the check that was
   running — student code can silence this record; it cannot lift the walls;
8. moves into its empty working directory and starts ipykernel on the connection file (ZeroMQ
   over Unix sockets in the channel directory: there is no network).

If a wall cannot be put up the kernel does not start: exit status :data:`.limits.EXIT_NO_WALLS`,
the reason on stderr (the run's log), and the grader reports a ``grader-error``. Nothing here is
secret: the configuration holds paths and limits only. Run as a script, this file imports its own
package as ``kernel`` (standard library only, nothing else of lessonlib) before ``sys.path`` holds
anything else.
"""
import json
import os
import signal
import sys

#: Audit events whose first argument is a path the student's code tried to reach.
WATCHED = frozenset({"open", "os.listdir", "os.scandir", "os.chdir", "os.link", "os.symlink", "os.rename"})
#: Attempts recorded per kernel, and the bytes of the record the keeper copies out.
WATCH_LIMIT = 50
WATCH_BYTES = 64 * 1024
#: The batch-wide part of a run's configuration: a forked kernel's must equal its zygote's.
BATCH_KEYS = ("lib", "site", "denied", "denied_prefixes", "output_limit")
#: Top-level packages a zygote may import ahead of the kernels (no import-time side effect that
#: depends on a run: matplotlib, for one, fixes its configuration directory when imported).
PRELOADABLE = ("numpy", "scipy", "sympy", "lessonlib")
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _refuse(why, *, batch=False):
    """Leave without running anything: the grader reads ``why`` in the run's log, and the exit status
    (:data:`.limits.EXIT_NO_WALLS`, or :data:`.limits.EXIT_NOT_BATCH` for a run of another batch)."""
    from .limits import EXIT_NO_WALLS, EXIT_NOT_BATCH
    code = EXIT_NOT_BATCH if batch else EXIT_NO_WALLS
    try:
        os.write(2, f"lessonlib-grade: the graded kernel did not start: {why}\n".encode())
    finally:
        os._exit(code)


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
    """Steps 6–8: the import path, silenced stdout/stderr, the record of attempts, the directory, ipykernel."""
    set_paths(config)
    for name in ("PYTEST_CURRENT_TEST", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "JUPYTER_PATH", "JPY_PARENT_PID"):
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
        roots = [*policy["read_exec"], *policy["read"], *policy["read_write"], *policy.get("sockets", ()),
                 *([connection_file] if connection_file else [])]
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


def _walls(config, connection_file):
    """Steps 4–5 in the kernel: Landlock, hardening, resource limits (or leave: :func:`_refuse`)."""
    from . import confine, limits
    policy = config.get("confine")
    try:
        if policy and config.get("enforce"):
            confine.confine(read_exec=policy["read_exec"], read=[*policy["read"], connection_file],
                            listable=policy["list"], read_write=policy["read_write"],
                            sockets=policy.get("sockets", ()))
        else:
            confine.harden()
        limits.apply(config.get("limits") or limits.LIMITS)
    except Exception as exc:                              # noqa: BLE001 (no walls, no kernel)
        _refuse(f"its walls could not be put up: {type(exc).__name__}: {exc}")


def _kernel(config, connection_file):
    """The kernel, a child of its keeper (and the first process of its PID namespace)."""
    try:                                                  # its own session and group: interrupts reach it and
        os.setsid()                                       # what it spawns, and the scheduler's autogroup gives
    except OSError:                                       # all of it one share of the CPU beside its classmates
        os.setpgid(0, 0)
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)   # no keeper, no kernel
    _walls(config, connection_file)
    if "numpy" in sys.modules:                            # a fresh process seeds numpy from the OS; so does a fork
        sys.modules["numpy"].random.seed()
    _start(config, connection_file)


def _copy_watch(config, out_fd):
    """The kernel's record of attempts, as the keeper sees it (inside the private directory), to the grader's file."""
    try:
        with open(config["watch"], "rb") as fh:
            data = fh.read(WATCH_BYTES)
        os.write(out_fd, data)
    except (OSError, KeyError, TypeError):
        pass


def keep(config, connection_file, *, run_atexit=False):
    """Steps 1–3 in this process, the keeper; the kernel in its child. Returns the kernel's exit status.

    ``run_atexit``: the kernel runs its exit handlers when it ends (a forked kernel, whose handlers
    a fresh interpreter would run too).
    """
    from . import forkserver, limits, namespaces, processes
    if len(os.listdir("/proc/self/task")) != 1:           # every thread must be below the walls
        _refuse("a thread exists before the walls")
    out_fd = os.open(config["watch_out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600) \
        if config.get("watch_out") else None
    limits.oom_first()
    limits.single_threaded_env()
    view = config.get("view")
    if view:
        view = namespaces.View.from_dict(view)
        view.read_only = [*view.read_only, os.path.dirname(os.path.abspath(connection_file))]
        try:
            namespaces.enter(view)
        except Exception as exc:                          # noqa: BLE001 (no walls, no kernel)
            _refuse(f"its namespaces could not be entered: {exc}")
    else:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for directory in config.get("make") or [config["workdir"]]:          # in the private tmpfs, where it is one
        os.makedirs(directory, exist_ok=True)
    kernel = os.fork()
    if kernel == 0:
        if out_fd is not None:
            os.close(out_fd)
        forkserver.run_and_exit(lambda: _kernel(config, connection_file), run_atexit=run_atexit)

    def forward(signum, frame):
        try:
            os.kill(kernel, signum)
        except OSError:
            pass

    def stop(signum=None, frame=None):
        try:
            os.kill(kernel, signal.SIGKILL)               # the first of its PID namespace: all of it goes
            os.killpg(kernel, signal.SIGKILL)
        except OSError:
            pass
        processes.kill_children(os.getpid())              # without namespaces: what the subreaper inherited

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
    if out_fd is not None:
        _copy_watch(config, out_fd)
        os.close(out_fd)
    return status if status >= 0 else 128 - status


def _connection_file():
    return sys.argv[sys.argv.index("-f") + 1] if "-f" in sys.argv else None


def _config():
    with open(sys.argv[1], encoding="utf-8") as fh:
        return json.load(fh)


def main():
    """A freshly started kernel: ``boot.py BOOT.json -f CONNECTION_FILE ...`` (this process is the keeper)."""
    config = _config()
    os.closerange(3, 1 << 16)                             # nothing the nbval process opened reaches the kernel
    sys.exit(keep(config, _connection_file()))


# --- the kernel zygote: import once per batch, fork a walled kernel per run ------------------------

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



def _keep_forked(batch):
    """A keeper forked by the zygote for one run: its run must be the zygote's batch, then :func:`keep`."""
    config = _config()
    os.closerange(3, 1 << 16)
    if any(config.get(k) != batch.get(k) for k in BATCH_KEYS):
        _refuse("its run is not the zygote's batch", batch=True)
    return keep(config, _connection_file(), run_atexit=True)


def zygote(config_path, control_fd):
    """``boot.py --zygote CONFIG FD``: the batch's kernel zygote (see :mod:`.forkserver`)."""
    with open(config_path, encoding="utf-8") as fh:
        batch = json.load(fh)
    os.closerange(3, control_fd)
    os.closerange(control_fd + 1, 1 << 16)
    from . import forkserver, limits
    limits.single_threaded_env()
    set_paths(batch)
    _preload(batch.get("preload", ()))
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    forkserver.serve(control_fd, lambda request: _keep_forked(batch))


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
