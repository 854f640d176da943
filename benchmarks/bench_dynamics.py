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
   UR5 (6 DoF, ``samples.ur5()``, Modern Robotics' parameters) and [SWC16]'s arm (7 DoF): inverse dynamics (``rnea``,
   ``rnea_classic``, ``rnea_poe``, ``denoc``), mass matrix (``crba``), forward dynamics (``aba``,
   ``forward_dynamics`` by every method); Pinocchio ``rnea/crba/aba``; Modern Robotics
   ``InverseDynamics/MassMatrix/ForwardDynamics``; Robotics Toolbox ``rne`` (C) and ``rne_python``
   on a modified-DH twin of the same arm (``peers.rtb_dh_robot``); the single-call speed targets;
2. whole trajectories, N = 10,000 samples of the Panda: ``lessonlib.batch`` per sample, on each
   installed backend (NumPy; numba with ``.[fast]``), against Pinocchio's C++ called in a Python
   loop (issue 15's targets: rnea >= 2x, crba and aba >= 1.5x) and Robotics Toolbox's C ``rne`` on
   the (N, n) arrays. Each round runs every function once, ours and the peer's side by side (order
   alternating), so a burst of load hits both; the ratio is taken per round and we report its
   median and range, and the peak memory per sample (tracemalloc: what Python and NumPy allocate);
3. [SWC16]'s experiment: the 7-DoF arm along its 0 → π/3 trajectory, DeNOC against Newton–Euler;
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
import tracemalloc
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


#: Single-call speed targets (7-DoF Panda, same run): ``(ours, peer, factor, where the target comes from)``.
#: Issue 10 made ``rnea``/``crba``/``aba`` read like the lesson's equations again and set the floor for
#: ``rnea`` at 20x Modern Robotics; issue 6's earlier floors for the other three still apply.
TARGETS = [("lessonlib.rnea", "modern_robotics.InverseDynamics", 20, "issue 10"),
           ("lessonlib.rnea", "rtb.rne_python (DH twin)", 12, "issue 6"),
           ("lessonlib.crba", "modern_robotics.MassMatrix", 100, "issue 6"),
           ("lessonlib.aba", "modern_robotics.ForwardDynamics", 100, "issue 6")]


def report_targets(medians):
    print("\n== single-call speed targets (7-DoF Panda, same run) ==")
    for ours, peer, factor, source in TARGETS:
        if peer not in medians:
            print(f"  {ours} vs {peer}: peer not installed or disagreed: not measured")
            continue
        ratio = medians[peer] / medians[ours]
        verdict = "met" if ratio >= factor else "NOT met"
        print(f"  {ours:16s} {ratio:7.1f}x faster than {peer:34s} (target >= {factor}x, {source}: {verdict})")


# --- 2. whole trajectories -------------------------------------------------------------------------

#: Issue 15: ``lessonlib.batch`` per sample against Pinocchio's C++ called in a Python loop.
BATCH_TARGETS = {"rnea": 2.0, "crba": 1.5, "aba": 1.5}


def peak_bytes(f):
    """Peak memory (bytes) that Python and NumPy allocate while ``f()`` runs (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def interleaved(pairs, rounds):
    """CPU seconds of each function of each pair, round by round, the pair's two runs side by side.

    ``pairs``: ``{name: {label: function}}``; each round runs every function once, the order within
    a pair alternating between rounds, so both see the same load. Returns ``{label: [seconds, ...]}``.
    """
    times = {label: [] for funcs in pairs.values() for label in funcs}
    for funcs in pairs.values():
        for f in funcs.values():
            f()                                          # warm-up (and numba's compilation)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            for funcs in pairs.values():
                labels = list(funcs) if r % 2 == 0 else list(reversed(funcs))
                for label in labels:
                    start = time.process_time()
                    funcs[label]()
                    times[label].append(time.process_time() - start)
    finally:
        if gc_was_enabled:
            gc.enable()
    return times


def trajectories(N, rounds, libs, rows):
    """``lessonlib.batch`` on N Panda samples, each backend, against Pinocchio's loop and RTB's ``rne``."""
    model = samples.panda()
    rng = np.random.default_rng(8)
    Q, QD, QDD = rng.uniform(-1.5, 1.5, (3, N, model.n))
    TAU = batch.rnea(model, Q, QD, QDD, backend="numpy")
    k = np.arange(0, N, max(1, N // 5))
    print(f"\n== whole trajectories: {model.name}, N = {N} samples, {rounds} interleaved rounds ==")
    print(f"  agreement on samples {k.tolist()} (max error / max(1, |per-sample lessonlib|)):")
    ours = {}
    for backend in batch.available_backends()[::-1]:
        ours[backend] = {"rnea": lambda b=backend: batch.rnea(model, Q, QD, QDD, backend=b),
                         "crba": lambda b=backend: batch.crba(model, Q, backend=b),
                         "aba": lambda b=backend: batch.aba(model, Q, QD, TAU, backend=b)}
        print(f"  {'lessonlib.batch.rnea/crba/aba [' + backend + ']':44s} " + ", ".join(
            f"{peers.agreement(backend, got, want):.1e}" for got, want in (
                (ours[backend]["rnea"]()[k], [rnea(model, Q[j], QD[j], QDD[j]) for j in k]),
                (ours[backend]["crba"]()[k], [crba(model, Q[j]) for j in k]),
                (ours[backend]["aba"]()[k], QDD[k]))))
    if "numba" not in ours:
        print("  (numba not installed: only the NumPy kernels; `pip install -e .[fast]` adds the compiled ones)")
    peer = {}
    if libs["pinocchio"]:
        pin = libs["pinocchio"]
        pm = peers.pinocchio_model(model)
        pd = pm.createData()

        def pin_loop(f, *arrays):
            return lambda: [f(pm, pd, *(a[j] for a in arrays)) for j in range(N)]
        peer = {"rnea": pin_loop(pin.rnea, Q, QD, QDD), "crba": pin_loop(pin.crba, Q),
                "aba": pin_loop(pin.aba, Q, QD, TAU)}
        M = pin.crba(pm, pd, Q[k[-1]])
        print(f"  {'pinocchio.rnea/crba/aba':44s} " + ", ".join(f"{peers.agreement('pin', got, want):.1e}" for got, want in (
            ([pin.rnea(pm, pd, Q[j], QD[j], QDD[j]) for j in k], TAU[k]),
            (np.triu(M) + np.triu(M, 1).T, crba(model, Q[k[-1]])),
            ([pin.aba(pm, pd, Q[j], QD[j], TAU[j]) for j in k], QDD[k]))))
    else:
        print("  pinocchio not installed: no ratios (pip install -e .[oracles])")
    pairs = {quantity: {f"lessonlib.batch.{quantity} [{b}]": ours[b][quantity] for b in ours} for quantity in BATCH_TARGETS}
    for quantity, f in peer.items():
        pairs[quantity][f"pinocchio.{quantity} in a Python loop"] = f
    if libs["roboticstoolbox"]:
        robot = peers.rtb_dh_robot(model)
        g = np.array(model.gravity)
        pairs["rnea"]["rtb.rne (C) on the (N, n) arrays"] = lambda: robot.rne(Q, QD, QDD, gravity=g)
        print(f"  {'rtb.rne (C) on arrays':44s} {peers.agreement('r', robot.rne(Q, QD, QDD, gravity=g), TAU):.1e}")
    else:
        print("  roboticstoolbox not installed: no RTB ratio (make bench tries pip install -e .[bench])")
    times = interleaved(pairs, rounds)
    print(f"  {'implementation':44s} {'µs / sample':>11s} {'(q1 – q3)':>15s} {'peak memory / sample':>21s}")
    for quantity, funcs in pairs.items():
        for label, f in funcs.items():
            t = np.array(times[label]) / N * 1e6
            mem = peak_bytes(f) / N
            print(f"  {label:44s} {np.median(t):11.3f} {np.percentile(t, 25):7.3f} – {np.percentile(t, 75):5.3f}"
                  f" {mem:16.0f} bytes")
            rows.append(dict(robot=model.name, N=N, quantity=quantity, implementation=label,
                             median_us_per_sample=np.median(t), q1_us_per_sample=np.percentile(t, 25),
                             q3_us_per_sample=np.percentile(t, 75), peak_bytes_per_sample=mem, rounds=rounds))
    print(f"  ratios (peer time / ours, per round; median and range over {rounds} rounds), issue 15's targets:")
    for quantity, target in BATCH_TARGETS.items():
        for backend in ours:
            mine = np.array(times[f"lessonlib.batch.{quantity} [{backend}]"])
            for label in pairs[quantity]:
                if label.startswith("lessonlib."):
                    continue
                ratio = np.array(times[label]) / mine
                verdict = ""
                if label.startswith("pinocchio"):
                    verdict = f"  target >= {target}x: {'met' if np.median(ratio) >= target else 'NOT met'}"
                print(f"    batch.{quantity} [{backend}] vs {label:36s} {np.median(ratio):5.2f}x "
                      f"({ratio.min():.2f} – {ratio.max():.2f}){verdict}")


# --- 3. [SWC16] -------------------------------------------------------------------------------------

def seed002(rounds, rows):
    """Seed 002's comparison: DeNOC against Newton–Euler along its trajectory (the paper: 2.86 s vs 8.98 s)."""
    model = samples.seed002_7dof()
    Q, QD, QDD = samples.seed002_trajectory(np.linspace(0.0, 2.0, 201))
    forms = ours_by_name()
    funcs = {label: (lambda f=f: [f(model, Q[k], QD[k], QDD[k]) for k in range(len(Q))]) for label, f in forms.items()}
    funcs["lessonlib.batch.rnea (whole trajectory)"] = lambda: batch.rnea(model, Q, QD, QDD)
    stats = measure(funcs, max(5, rounds // 4), round_seconds=0.0)
    print(f"\n== [SWC16]: {model.name} along its trajectory (201 samples) ==")
    base = stats.get("lessonlib.rnea_classic", stats["lessonlib.rnea"])[0]
    for label, (med, q1, q3, r, _) in stats.items():
        print(f"  {label:44s} {med * 1e3:8.2f} ms   time / classic Newton–Euler {med / base:5.2f}")
        rows.append(dict(robot=model.name, samples=len(Q), implementation=label, median_ms=med * 1e3,
                         relative_to_classic_newton_euler=med / base))
    print("  ([SWC16] reports DeNOC 2.86 s vs Newton-Euler 8.98 s, i.e. 0.32)")
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
    parser.add_argument("--batch-rounds", type=int, default=None, help="interleaved rounds of section 2 (default 9)")
    parser.add_argument("--only", choices=["per_call", "batch", "seed002", "scaling"], default=None,
                        help="run one section only")
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
    run = (lambda section: args.only in (None, section))
    if run("per_call"):
        medians = per_call(samples.panda(), rounds, libs, per_call_rows)
        per_call(samples.ur5(), rounds, libs, per_call_rows)
        per_call(samples.seed002_7dof(), rounds, libs, per_call_rows)     # its own modified-DH table
        report_targets(medians)
    if run("batch"):
        trajectories(N, args.batch_rounds or (3 if args.quick else 9), libs, batch_rows)
    if run("seed002"):
        seed002(rounds, seed_rows)
    if run("scaling"):
        scaling(lengths, max(5, rounds // 2), scaling_rows, args.out)
    print()
    write_csv(args.out / "per_call.csv", per_call_rows)
    write_csv(args.out / "batch.csv", batch_rows)
    write_csv(args.out / "seed002.csv", seed_rows)
    write_csv(args.out / "scaling.csv", scaling_rows)


if __name__ == "__main__":
    main()
