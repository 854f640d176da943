"""Bootstrap of a graded kernel: ``python -I -S kernel_boot.py CONFIG.json -f CONNECTION_FILE``.

Started with ``-I -S``, the interpreter has read no ``.pth`` file (so the editable ``lessonlib``
finder is not installed) and has no site-packages; this script then builds ``sys.path``
explicitly: the stripped ``lessonlib`` copy first, the standard library, the site-packages
directories. It refuses imports of the packages in the config's ``denied`` list (other robotics
libraries that compute the exercise's answer), disables core dumps, points the process's own
stdout/stderr at ``/dev/null`` (what a cell prints reaches the grader only as kernel messages),
caps what one cell may print per stream (``output_limit`` characters; the rest is dropped here,
cheaply, and the nbval side caps again whatever slips past), moves into the empty working
directory and starts ipykernel. Nothing here is secret: the config holds paths and limits only.
"""
import json
import os
import sys


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


def main():
    with open(sys.argv[1], encoding="utf-8") as fh:
        config = json.load(fh)
    sys.path[:] = [config["lib"]] + [p for p in sys.path if p] + list(config["site"])
    sys.meta_path.insert(0, _Denied(config["denied"], config["denied_prefixes"]))
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    for name in ("PYTEST_CURRENT_TEST", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "JUPYTER_PATH"):
        os.environ.pop(name, None)                       # the grader's bookkeeping, not the kernel's
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.chdir(config["workdir"])
    sys.argv = [sys.argv[0]] + sys.argv[2:]
    _cap_output(int(config["output_limit"]))
    from ipykernel import kernelapp
    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main()
