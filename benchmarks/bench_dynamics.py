"""How fast is lessonlib's dynamics, next to Pinocchio, Modern Robotics and Robotics Toolbox?

Run ``make bench`` (or ``.venv/bin/python benchmarks/bench_dynamics.py [--quick]``). A plain script,
not a test: timings depend on the machine and on what else runs on it.

Method. Every peer first has to reproduce our numbers on the same robot (to 1e-9 relative) or it is
not timed. Functions are warmed up, then timed **round-robin** — each round calls every function a
calibrated number of times (about 2 ms), and the rounds repeat — so a burst of load from another
process hits all of them alike; we report the median over the rounds (and the quartiles in the
CSV). Times are the CPU time of this process (``time.process_time``), which other processes on a
shared machine disturb far less than wall-clock time; BLAS runs on one thread (as every peer
does), so CPU time is the work done. The ratio of a peer is its median time divided by ours for
the same quantity: above 1 means lessonlib is faster.

Sections:

1. per call, on the Franka Panda arm (7 DoF, ``samples.panda()``, from ``robots/panda.urdf``), the
   UR5 (6 DoF, ``samples.ur5()``, Modern Robotics' parameters) and seed 002's arm (7 DoF): inverse dynamics (``rnea``,
   ``rnea_classic``, ``rnea_poe``, ``denoc``), mass matrix (``crba``), forward dynamics (``aba``,
   ``forward_dynamics`` by every method); Pinocchio ``rnea/crba/aba``; Modern Robotics
   ``InverseDynamics/MassMatrix/ForwardDynamics``; Robotics Toolbox ``rne`` (C) and ``rne_python``
   on a modified-DH twin of the same arm (``peers.rtb_dh_robot``); the speed targets of issue 6;
2. whole trajectories, N = 10,000 samples of the Panda: ``lessonlib.batch`` per sample, against
   Pinocchio called in a Python loop and Robotics Toolbox's C ``rne`` on the (N, n) arrays;
3. seed 002's experiment: the 7-DoF arm along its 0 → π/3 trajectory, DeNOC against Newton–Euler;
4. scaling over chain length n = 2 … 64 (``samples.chain(n)``), with a log-log plot.

Writes ``benchmarks/results/{per_call,batch,seed002,scaling}.csv`` and ``scaling.png``.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):     # before NumPy loads
    os.environ.setdefault(_var, "1")

import argparse
import csv
import gc
import importlib.util
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402
from lessonlib import batch, samples  # noqa: E402
from lessonlib.complexity import operation_counts  # noqa: E402
from lessonlib.dynamics import aba, crba, forward_dynamics, rnea  # noqa: E402


def optional(module):
    """``module`` imported, or None when it is not installed."""
    if importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module)


def ours_by_name():
    """The lessonlib inverse-dynamics forms present in this checkout (colleagues' modules may lag)."""
    forms = {"lessonlib.rnea": rnea}
    for module, name in [("rnea_classic", "rnea_classic"), ("rnea_poe", "rnea_poe"), ("denoc", "denoc")]:
        try:
            forms[f"lessonlib.{name}"] = getattr(importlib.import_module(f"lessonlib.dynamics.{module}"), name)
        except (ImportError, AttributeError):
            print(f"  (lessonlib.dynamics.{module}.{name} not present: skipped)")
    return forms


# --- timing ------------------------------------------------------------------------------------

def measure(funcs, rounds, round_seconds=0.002):
    """Per-call seconds of each function: ``{name: (median, q1, q3, rounds, calls_per_round)}``.

    Each function is warmed up (20 ms of calls) and calibrated to about ``round_seconds`` per
    round; the rounds interleave all functions (round-robin, starting one further along each round).
    """
    calls = {}
    for name, f in funcs.items():
        start = time.process_time()                      # warm-up: caches, lazy imports, CPU clock
        while time.process_time() - start < 0.02:
            f()
        start = time.process_time()
        k = 0
        while time.process_time() - start < round_seconds / 2 or k < 2:
            f()
            k += 1
        per_call = (time.process_time() - start) / k
        calls[name] = max(1, int(round_seconds / per_call))
    names = list(funcs)
    times = {name: [] for name in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                f, k = funcs[name], calls[name]
                start = time.process_time()
                for _ in range(k):
                    f()
                times[name].append((time.process_time() - start) / k)
    finally:
        if gc_was_enabled:
            gc.enable()
    return {name: (float(np.median(t)), float(np.percentile(t, 25)), float(np.percentile(t, 75)), rounds, calls[name])
            for name, t in times.items()}


def us(seconds):
    return f"{seconds * 1e6:10.1f}"


# --- 1. per call ---------------------------------------------------------------------------------

def per_call(model, rounds, libs, rows):
    """Time one robot; returns ``{label: median seconds}``."""
    n = model.n
    rng = np.random.default_rng(7)
    q, qd, qdd = rng.uniform(-1.5, 1.5, (3, n))
    tau = rnea(model, q, qd, qdd)
    want_tau, want_M, want_qdd = tau, crba(model, q), qdd
    g = np.array(model.gravity)
    groups = {"ID": {}, "M": {}, "FD": {}}          # quantity -> {label: (function, reference label)}
    check = []                                        # (label, got, want)

    for label, f in ours_by_name().items():
        groups["ID"][label] = lambda f=f: f(model, q, qd, qdd)
        check.append((label, groups["ID"][label](), want_tau))
    groups["M"]["lessonlib.crba"] = lambda: crba(model, q)
    groups["FD"]["lessonlib.aba"] = lambda: aba(model, q, qd, tau)
    for method in ("aba", "crba", "rnea_columns"):
        groups["FD"][f"lessonlib.forward_dynamics[{method}]"] = (
            lambda method=method: forward_dynamics(model, q, qd, tau, method=method))

    if libs["pinocchio"]:
        pin = libs["pinocchio"]
        pm = peers.pinocchio_model(model)
        pd = pm.createData()
        groups["ID"]["pinocchio.rnea"] = lambda: pin.rnea(pm, pd, q, qd, qdd)
        groups["M"]["pinocchio.crba (upper triangle)"] = lambda: pin.crba(pm, pd, q)
        groups["FD"]["pinocchio.aba"] = lambda: pin.aba(pm, pd, q, qd, tau)
        M = pin.crba(pm, pd, q)
        check += [("pinocchio.rnea", pin.rnea(pm, pd, q, qd, qdd), want_tau),
                  ("pinocchio.crba", np.triu(M) + np.triu(M, 1).T, want_M),
                  ("pinocchio.aba", pin.aba(pm, pd, q, qd, tau), want_qdd)]
    if libs["modern_robotics"]:
        mr = libs["modern_robotics"]
        Ml, Gl, Sl = peers.mr_lists(model)
        F0 = np.zeros(6)
        groups["ID"]["modern_robotics.InverseDynamics"] = lambda: mr.InverseDynamics(q, qd, qdd, g, F0, Ml, Gl, Sl)
        groups["M"]["modern_robotics.MassMatrix"] = lambda: mr.MassMatrix(q, Ml, Gl, Sl)
        groups["FD"]["modern_robotics.ForwardDynamics"] = lambda: mr.ForwardDynamics(q, qd, tau, g, F0, Ml, Gl, Sl)
        check += [("modern_robotics.InverseDynamics", mr.InverseDynamics(q, qd, qdd, g, F0, Ml, Gl, Sl), want_tau),
                  ("modern_robotics.MassMatrix", mr.MassMatrix(q, Ml, Gl, Sl), want_M),
                  ("modern_robotics.ForwardDynamics", mr.ForwardDynamics(q, qd, tau, g, F0, Ml, Gl, Sl), want_qdd)]
    if libs["roboticstoolbox"]:
        robot = peers.rtb_dh_robot(model)
        groups["ID"]["rtb.rne (C, DH twin)"] = lambda: robot.rne(q, qd, qdd, gravity=g)
        groups["ID"]["rtb.rne_python (DH twin)"] = lambda: robot.rne_python(q, qd, qdd, gravity=g)
        check += [("rtb.rne (C, DH twin)", robot.rne(q, qd, qdd, gravity=g), want_tau),
                  ("rtb.rne_python (DH twin)", robot.rne_python(q, qd, qdd, gravity=g), want_tau)]

    print(f"\n== {model.name}: {n} DoF ==  agreement with lessonlib (max error / max(1, |ours|)):")
    for label, got, want in check:
        try:
            print(f"  {label:44s} {peers.agreement(label, got, want):.1e}")
        except AssertionError as exc:
            print(f"  {label:44s} DISAGREES ({exc}); not timed")
            for group in groups.values():
                group.pop(label, None)
    if libs["roboticstoolbox"] and model.name == "panda":
        urdf_robot(model, q, qd, qdd, want_tau, libs)

    reference = {"ID": "lessonlib.rnea", "M": "lessonlib.crba", "FD": "lessonlib.aba"}
    medians = {}
    print(f"  {'quantity / implementation':52s} {'median µs':>10s}  {'peer/ours':>9s}")
    for quantity, funcs in groups.items():
        stats = measure({label: f for label, f in funcs.items()}, rounds)
        ours = stats[reference[quantity]][0]
        for label, (med, q1, q3, r, k) in stats.items():
            ratio = med / ours
            medians[label] = med
            print(f"  {quantity:3s} {label:48s} {us(med)}  {ratio:9.2f}")
            rows.append(dict(robot=model.name, dof=n, quantity=quantity, implementation=label,
                             median_us=med * 1e6, q1_us=q1 * 1e6, q3_us=q3 * 1e6, rounds=r, calls_per_round=k,
                             ratio_peer_over_ours=ratio))
    return medians


def urdf_robot(model, q, qd, qdd, want_tau, libs):
    """Robotics Toolbox's own URDF import of the same file: checked, and reported."""
    rtb = libs["roboticstoolbox"]
    try:
        with warnings.catch_warnings():                  # Robot.URDF is deprecated in rtb 1.5, still works
            warnings.simplefilter("ignore", DeprecationWarning)
            robot = rtb.Robot.URDF(samples.robot_path("panda"))
        got = robot.rne(q, qd, qdd, gravity=model.gravity)
        err = peers.agreement("rtb.Robot.URDF", got, want_tau, tol=np.inf)
        print(f"  {'rtb.Robot.URDF(panda.urdf).rne (Python)':44s} {err:.1e}  <- its URDF import differs; not timed"
              if err > peers.TOL else f"  {'rtb.Robot.URDF(panda.urdf).rne':44s} {err:.1e}")
    except Exception as exc:                            # a peer's import failing is a finding, not a crash
        print(f"  rtb.Robot.URDF(panda.urdf): could not be built ({type(exc).__name__}: {exc})")
    if libs["pinocchio"]:
        pin = libs["pinocchio"]
        pm = pin.buildModelFromUrdf(samples.robot_path("panda"))
        pm.gravity.linear = np.array(model.gravity)
        got = pin.rnea(pm, pm.createData(), q, qd, qdd)
        print(f"  {'pinocchio.buildModelFromUrdf(panda.urdf)':44s} {peers.agreement('pin urdf', got, want_tau):.1e}")


TARGETS = [("lessonlib.rnea", "modern_robotics.InverseDynamics", 25),
           ("lessonlib.rnea", "rtb.rne_python (DH twin)", 12),
           ("lessonlib.crba", "modern_robotics.MassMatrix", 100),
           ("lessonlib.aba", "modern_robotics.ForwardDynamics", 100)]


def report_targets(medians):
    print("\n== issue 6 speed targets (7-DoF Panda, same run) ==")
    for ours, peer, factor in TARGETS:
        if peer not in medians:
            print(f"  {ours} vs {peer}: peer not installed or disagreed: not measured")
            continue
        ratio = medians[peer] / medians[ours]
        verdict = "met" if ratio >= factor else "NOT met"
        print(f"  {ours:16s} {ratio:7.1f}x faster than {peer:34s} (target >= {factor}x: {verdict})")


# --- 2. whole trajectories -------------------------------------------------------------------------

def trajectories(N, rounds, libs, rows):
    model = samples.panda()
    rng = np.random.default_rng(8)
    Q, QD, QDD = rng.uniform(-1.5, 1.5, (3, N, model.n))
    TAU = batch.rnea(model, Q, QD, QDD)
    funcs = {"lessonlib.batch.rnea": lambda: batch.rnea(model, Q, QD, QDD),
             "lessonlib.batch.crba": lambda: batch.crba(model, Q),
             "lessonlib.batch.aba": lambda: batch.aba(model, Q, QD, TAU)}
    k = np.arange(0, N, max(1, N // 5))
    print(f"\n== whole trajectories: {model.name}, N = {N} samples ==  agreement on samples {k.tolist()}:")
    print(f"  {'lessonlib.batch.rnea vs lessonlib.rnea':44s} "
          f"{peers.agreement('b', TAU[k], [rnea(model, Q[j], QD[j], QDD[j]) for j in k]):.1e}")
    if libs["pinocchio"]:
        pin = libs["pinocchio"]
        pm = peers.pinocchio_model(model)
        pd = pm.createData()

        def pin_loop(f, *arrays):
            return lambda: [f(pm, pd, *(a[j] for a in arrays)) for j in range(N)]
        funcs["pinocchio.rnea in a Python loop"] = pin_loop(pin.rnea, Q, QD, QDD)
        funcs["pinocchio.crba in a Python loop"] = pin_loop(pin.crba, Q)
        funcs["pinocchio.aba in a Python loop"] = pin_loop(pin.aba, Q, QD, TAU)
        print(f"  {'pinocchio.rnea':44s} "
              f"{peers.agreement('p', [pin.rnea(pm, pd, Q[j], QD[j], QDD[j]) for j in k], TAU[k]):.1e}")
    if libs["roboticstoolbox"]:
        robot = peers.rtb_dh_robot(model)
        g = np.array(model.gravity)
        funcs["rtb.rne (C) on the (N, n) arrays"] = lambda: robot.rne(Q, QD, QDD, gravity=g)
        print(f"  {'rtb.rne (C) on arrays':44s} {peers.agreement('r', robot.rne(Q, QD, QDD, gravity=g), TAU):.1e}")
    funcs["lessonlib.rnea in a Python loop"] = lambda: [rnea(model, Q[j], QD[j], QDD[j]) for j in range(N // 10)]
    stats = measure(funcs, rounds, round_seconds=0.0)
    print(f"  {'implementation':44s} {'µs / sample':>11s}")
    per_sample = {}
    for label, (med, q1, q3, r, _) in stats.items():
        count = N // 10 if label == "lessonlib.rnea in a Python loop" else N
        per_sample[label] = med / count
        note = f"   (on {count} samples)" if count != N else ""
        print(f"  {label:44s} {med / count * 1e6:11.3f}{note}")
        rows.append(dict(robot=model.name, N=count, implementation=label, median_us_per_sample=med / count * 1e6,
                         q1_us_per_sample=q1 / count * 1e6, q3_us_per_sample=q3 / count * 1e6, rounds=r))
    ours = per_sample["lessonlib.batch.rnea"]
    for peer in ("pinocchio.rnea in a Python loop", "rtb.rne (C) on the (N, n) arrays"):
        if peer in per_sample:
            verdict = "met" if per_sample[peer] > ours else "NOT met"
            print(f"  target: batch.rnea per sample below {peer}: {per_sample[peer] / ours:.2f}x ({verdict})")


# --- 3. seed 002 -------------------------------------------------------------------------------------

def seed002(rounds, rows):
    """Seed 002's comparison: DeNOC against Newton–Euler along its trajectory (the paper: 2.86 s vs 8.98 s)."""
    model = samples.seed002_7dof()
    Q, QD, QDD = samples.seed002_trajectory(np.linspace(0.0, 2.0, 201))
    forms = ours_by_name()
    funcs = {label: (lambda f=f: [f(model, Q[k], QD[k], QDD[k]) for k in range(len(Q))]) for label, f in forms.items()}
    funcs["lessonlib.batch.rnea (whole trajectory)"] = lambda: batch.rnea(model, Q, QD, QDD)
    stats = measure(funcs, max(5, rounds // 4), round_seconds=0.0)
    print(f"\n== seed 002: {model.name} along its trajectory (201 samples) ==")
    base = stats.get("lessonlib.rnea_classic", stats["lessonlib.rnea"])[0]
    for label, (med, q1, q3, r, _) in stats.items():
        print(f"  {label:44s} {med * 1e3:8.2f} ms   time / classic Newton–Euler {med / base:5.2f}")
        rows.append(dict(robot=model.name, samples=len(Q), implementation=label, median_ms=med * 1e3,
                         relative_to_classic_newton_euler=med / base))
    print("  (seed 002 reports DeNOC 2.86 s vs Newton-Euler 8.98 s, i.e. 0.32)")
    counts = operation_counts(model.n)
    print(f"  operation counts for n = {model.n} (lessonlib.complexity, structured): "
          + ", ".join(f"{name} {counts[name].mul} mul + {counts[name].add} add" for name in ("rnea", "denoc"))
          + f"; DeNOC / RNEA = {counts['denoc'].total / counts['rnea'].total:.2f}")


# --- 4. scaling ----------------------------------------------------------------------------------------

def scaling(lengths, rounds, rows, out):
    forms = ours_by_name()
    funcs_of = {"rnea": lambda m, s: (lambda: rnea(m, *s)),
                "crba": lambda m, s: (lambda: crba(m, s[0])),
                "aba": lambda m, s: (lambda: aba(m, *s)),
                "forward_dynamics[crba]": lambda m, s: (lambda: forward_dynamics(m, *s, method="crba"))}
    if "lessonlib.denoc" in forms:
        denoc = forms["lessonlib.denoc"]
        funcs_of["denoc"] = lambda m, s: (lambda: denoc(m, *s))
    print("\n== scaling over chain length (samples.chain(n)), median µs ==")
    print("  " + f"{'n':>4s}" + "".join(f"{name:>24s}" for name in funcs_of))
    table = {name: [] for name in funcs_of}
    for n in lengths:
        model = samples.chain(n)
        state = tuple(np.random.default_rng(n).uniform(-1, 1, (3, n)))
        stats = measure({name: make(model, state) for name, make in funcs_of.items()}, rounds)
        print("  " + f"{n:4d}" + "".join(f"{stats[name][0] * 1e6:24.1f}" for name in funcs_of))
        for name in funcs_of:
            table[name].append(stats[name][0])
            rows.append(dict(n=n, implementation=name, median_us=stats[name][0] * 1e6,
                             q1_us=stats[name][1] * 1e6, q3_us=stats[name][2] * 1e6))
    big = np.array(lengths) >= 16
    if big.sum() >= 2:
        print("  log-log slope for n >= 16 (1 = O(n), 2 = O(n²)): " + ", ".join(
            f"{name} {np.polyfit(np.log(np.array(lengths)[big]), np.log(np.array(t)[big]), 1)[0]:.2f}"
            for name, t in table.items()))
    plot(lengths, table, out / "scaling.png")


def plot(lengths, table, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  (matplotlib not installed: no plot)")
        return
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    fig, ax = plt.subplots(figsize=(7, 5))
    for name, t in table.items():
        ax.loglog(lengths, np.array(t) * 1e6, "o-", label=name)
    n = np.array(lengths, dtype=float)
    t_end = table["rnea"][-1] * 1e6                    # reference slopes through rnea's last point
    ax.loglog(n, t_end * n / n[-1], "k:", lw=1, label="∝ n")
    ax.loglog(n, t_end * (n / n[-1]) ** 2, "k--", lw=1, label="∝ n²")
    ax.set_xticks(lengths)
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("number of joints n (samples.chain(n))")
    ax.set_ylabel("median time per call (µs)")
    ax.set_title("lessonlib dynamics: cost against chain length")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"  plot: {path}")


def write_csv(path, rows):
    if not rows:
        return
    fields = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    print(f"  wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few rounds, small N (a smoke run, ~30 s)")
    parser.add_argument("--rounds", type=int, default=None, help="timing rounds per function (default 40)")
    parser.add_argument("--samples", type=int, default=None, help="trajectory length N (default 10000)")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="directory for CSV and PNG")
    args = parser.parse_args(argv)
    rounds = args.rounds or (5 if args.quick else 40)
    N = args.samples or (1000 if args.quick else 10_000)
    lengths = [2, 4, 8, 16] if args.quick else [2, 4, 8, 16, 32, 64]
    args.out.mkdir(parents=True, exist_ok=True)

    libs = {name: optional(module) for name, module in
            [("pinocchio", "pinocchio"), ("modern_robotics", "modern_robotics"), ("roboticstoolbox", "roboticstoolbox")]}
    print(f"lessonlib benchmark: Python {platform.python_version()}, NumPy {np.__version__}, "
          f"{platform.machine()}, {rounds} rounds")
    for name, module in libs.items():
        version = getattr(module, "__version__", "?") if module else "not installed (skipped)"
        print(f"  {name}: {version}")

    per_call_rows, batch_rows, seed_rows, scaling_rows = [], [], [], []
    medians = per_call(samples.panda(), rounds, libs, per_call_rows)
    per_call(samples.ur5(), rounds, libs, per_call_rows)
    per_call(samples.seed002_7dof(), rounds, libs, per_call_rows)     # its own modified-DH table
    report_targets(medians)
    trajectories(N, max(3, rounds // 8), libs, batch_rows)
    seed002(rounds, seed_rows)
    scaling(lengths, max(5, rounds // 2), scaling_rows, args.out)
    print()
    write_csv(args.out / "per_call.csv", per_call_rows)
    write_csv(args.out / "batch.csv", batch_rows)
    write_csv(args.out / "seed002.csv", seed_rows)
    write_csv(args.out / "scaling.csv", scaling_rows)


if __name__ == "__main__":
    main()
