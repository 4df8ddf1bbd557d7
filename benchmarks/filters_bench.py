"""Does each bytecode filter help? Programs built to show each filter's pattern, run by
`hassium run` with the filter off and on; the stack's own profile counters give the times.

Part 1 (default), programs in bytecode: for each (filter, program), the best of --repeat runs of the total flush time (filters + fusion
+ compilation + execution; kernels come from a warm disk cache, so it is execution in effect)
and of the engine's execution time alone, off and on, and the ratio. Also checks that the
printed SYNC output is the same (to 1e-9 relative where the filter may reassociate floats).

    python benchmarks/filters_bench.py --hassium build/bin/hassium [--n 16777216] [--repeat 5]

Part 2 (--python BUILD/python): the paper's NumPy programs (benchmarks/python) under
`python -m hassium`, with no filters, with each filter alone, and with all of them, side by
side in one run (configurations interleaved); the programs' own `elapsed:` figure (best of
--repeat), the speed-up over no filters, whether it is measurable (+: the best run with the
filter beats every run without it, by more than --min-gain), whether the checksum stayed the
same, and at the end, per configuration, the programs it measurably helps.

    python benchmarks/filters_bench.py --python build/python [--programs rosenbrock,nbody]

With --effects, only one profiled run per (program, configuration): the blocks run and the
bytes the kernels moved, relative to no filters. Those figures do not depend on the machine's
load; they say whether and how much a filter changes a program.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def prog_power_float(n):
    """x**2 + x**-1 + x**0.5 (float64) reduced to a scalar: POWER vs MULTIPLY/DIVIDE/SQRT."""
    return f"""
.base X float64 {n}
.base Y float64 {n}
.base Z float64 {n}
.base S float64 1
RANGE X
ADD X, X, 1
MULTIPLY X, X, 1e-7
POWER Y, X, 2
POWER Z, X, -1
ADD Y, Y, Z
POWER Z, X, 0.5
ADD Y, Y, Z
ADD_REDUCE S{{0;;}}, Y, 0
FREE Y
FREE Z
SYNC S
"""


def prog_power_int(n):
    """i**3 (int64) reduced to a scalar: POWER vs two multiplications."""
    return f"""
.base I int64 {n}
.base J int64 {n}
.base T int64 1
RANGE I
POWER J, I, 3
ADD_REDUCE T{{0;;}}, J, 0
FREE J
SYNC T
"""


def prog_reduce(n, reps=8):
    """A 1-d float sum, an int64 sum and a min of a long array made in an earlier flush."""
    lines = [f".base A float64 {n}", f".base B int64 {n}", ".base K int64 1"]
    lines += [f".base S{r} float64 1" for r in range(reps)]
    lines += [f".base M{r} int64 1" for r in range(reps)]
    lines += ["RANGE A", "MULTIPLY A, A, 0.001", "RANGE B", "IDENTITY K, 0", "SYNC K",
              "IDENTITY K, 1"]  # SYNC K, then a write of K: `hassium run` ends the flush there
    for r in range(reps):
        lines += [f"ADD_REDUCE S{r}{{0;;}}, A, 0", f"ADD_REDUCE M{r}{{0;;}}, B, 0"]
    lines += [f"SYNC S{r}" for r in range(reps)] + [f"SYNC M{r}" for r in range(reps)]
    return "\n".join(lines) + "\n"


def prog_reduce_fused(n):
    """A sum whose input is produced in the same flush (split_reduction leaves it: keep_fusion)."""
    return f"""
.base A float64 {n}
.base S float64 1
RANGE A
MULTIPLY A, A, 0.001
SQRT A, A
ADD_REDUCE S{{0;;}}, A, 0
FREE A
SYNC S
"""


def prog_copy(n):
    """y[...] = expression: the expression's temporary copied into a live array (backward
    rename), and a copy of a temporary into another temporary (forward rename)."""
    return f"""
.base X float64 {n}
.base T float64 {n}
.base U float64 {n}
.base V float64 {n}
.base Y float64 {n}
.base S float64 1
RANGE X
MULTIPLY T, X, 3
ADD T, T, 1
IDENTITY Y, T
FREE T
ADD U, X, 2
IDENTITY V, U
FREE U
MULTIPLY Y, Y, V
FREE V
ADD_REDUCE S{{0;;}}, Y, 0
SYNC S
"""


def prog_fill(n):
    """np.full(n, 2.0) * x + np.ones(n): fills that stay alive (the frontend holds them)."""
    return f"""
.base X float64 {n}
.base A float64 {n}
.base O float64 {n}
.base C float64 {n}
.base Y float64 {n}
.base S float64 1
RANGE X
IDENTITY A, 2.0
IDENTITY O, 1.0
ADD C, A, O
MULTIPLY Y, X, A
ADD Y, Y, O
MULTIPLY Y, Y, C
ADD_REDUCE S{{0;;}}, Y, 0
SYNC S
"""


def prog_dead(n):
    """Results computed and dropped (a temporary nobody reads before its FREE)."""
    return f"""
.base X float64 {n}
.base D float64 {n}
.base E float64 {n}
.base S float64 1
RANGE X
SQRT D, X
EXP E, D
ADD_REDUCE S{{0;;}}, X, 0
FREE D
FREE E
SYNC S
"""


def prog_many_flushes(n, flushes=200):
    """Many small flushes (what trace costs per flush)."""
    lines = [".base X float64 1024", ".base K int64 1", "RANGE X"]
    for f in range(flushes):
        lines += ["MULTIPLY X, X, 1.0001", "ADD X, X, 1", "IDENTITY K, %d" % f, "SYNC K"]
    lines += ["IDENTITY K, -1"]
    return "\n".join(lines) + "\n"


# (filter, program name, generator, relative tolerance of the output comparison)
CASES = [
    # The engine's POWER (vector pow) is a few ulp off NumPy's x*x, 1/x, sqrt; the filter's
    # output is NumPy's exactly, so off and on agree to 1e-15 only.
    ("expand_power", "power_float", prog_power_float, 1e-15),
    ("expand_power", "power_int", prog_power_int, 0),
    ("split_reduction", "reduce", prog_reduce, 1e-9),
    ("split_reduction", "reduce_fused", prog_reduce_fused, 1e-9),
    ("remove_identity", "copy", prog_copy, 0),
    ("fold_constants", "fill", prog_fill, 0),
    ("remove_dead", "dead", prog_dead, 0),
    ("trace", "many_flushes", prog_many_flushes, 0),
]

PROFILE_RE = re.compile(r"^\s*(execution time \(s\)|flush time, total \(s\)):\s*([0-9.eE+-]+)")


def run(hassium, path, filters, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    env["HASSIUM_STACK_FILTERS"] = filters
    env["HASSIUM_PROFILE"] = "1"
    p = subprocess.run([hassium, "run", path], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"hassium run {path} (filters '{filters}') failed:\n{p.stderr}")
    times = {}
    for line in p.stderr.splitlines():
        m = PROFILE_RE.match(line)
        if m:
            times[m.group(1).split()[0]] = float(m.group(2))
    return p.stdout, times.get("flush", float("nan")), times.get("execution", float("nan"))


def same_output(a, b, rtol):
    if rtol == 0:
        return a == b
    ta, tb = a.split(), b.split()
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if abs(fx - fy) > rtol * max(abs(fx), abs(fy)):
            return False
    return True


ALL_FILTERS = "fold_constants,expand_power,remove_identity,remove_dead,split_reduction"


def run_python(pythonpath, program, filters, env_extra, size=None, profile=False):
    """elapsed (the program's figure), checksum, and with `profile` the report's figures."""
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = pythonpath
    env["HASSIUM_STACK_FILTERS"] = filters
    if profile:
        env["HASSIUM_PROFILE"] = "1"
    cmd = [sys.executable, "-m", "hassium", program] + (["--size", size] if size else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"python -m hassium {program} (filters '{filters}') failed:\n{p.stderr}")
    elapsed = checksum = None
    for line in p.stdout.splitlines():
        if line.startswith("elapsed:"):
            elapsed = float(line.split()[1])
        elif line.startswith("checksum:"):
            checksum = float(line.split()[1])
    report = {}
    for line in p.stderr.splitlines():
        m = re.match(r"^  (\S[^:]*): +(\S+)", line)
        if m:
            report[m.group(1)] = m.group(2)
    return elapsed, checksum, report


# --python sizes: larger than the programs' defaults where those run in well under 0.3 s, so
# that timing noise on a shared machine stays below the effects measured (--sizes overrides).
PYTHON_SIZES = {
    "black_scholes": "1000000*10",
    "game_of_life": "1000*1000*40",
    "heat_equation": "1000*1000*50",
    "leibnitz_pi": "5000000*10",
    "nbody": "1600*10",
    "rosenbrock": "2000000*20",
    "shallow_water": "800*800*20",
    "sor": "1000*1000*20",
}


def python_configs(args):
    """The benchmark programs, the filter configurations (none first) and the sizes."""
    progs = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "benchmarks", "python"))
                   if f.endswith(".py"))
    if args.programs:
        progs = args.programs.split(",")
    singles = []
    for c in CASES:
        if c[0] != "trace" and c[0] not in singles:
            singles.append(c[0])
    configs = [""] + singles + [ALL_FILTERS]
    if args.filters is not None:
        configs = [""] + [f.replace("+", ",") for f in args.filters.split(",") if f]
    sizes = dict(PYTHON_SIZES)
    if args.sizes:
        sizes.update(item.split("=", 1) for item in args.sizes.split(","))
    return progs, configs, sizes


def label(f):
    return "all" if f == ALL_FILTERS else (f or "none")


def probe_effect(args, path, f, env, size):
    """One run with the profile on and `trace` last: (the bytecode after the filters, its
    instruction count, blocks, bytes moved). Warms the kernel cache for the timed runs."""
    trace = os.path.join(args.tmp, "effect-trace.hsb")
    if os.path.exists(trace):
        os.remove(trace)
    run_env = dict(env, HASSIUM_FILTERS_TRACE_FILE=trace)
    _, _, report = run_python(args.python, path, ",".join(x for x in (f, "trace") if x), run_env,
                              size, profile=True)
    with open(trace) as t:
        text = t.read()
    instrs = sum(1 for line in text.splitlines() if line and line[0] not in "#.")
    return text, instrs, int(report["blocks"]), int(report["bytes moved"])


def print_effects(rows, configs):
    print("\nwhat the filters do (one profiled run each, with `trace` last): instructions after "
          "the filters, blocks, MB the kernels moved with no filters; then per configuration "
          "the ratios to those, = where the bytecode is the same as with no filters")
    print(f"{'program':26}{'none':>20}" + "".join(f"{label(f)[:19]:>20}" for f in configs[1:]))
    for name, eff in rows:
        _, i0, b0, m0 = eff[""]
        row = [f"{i0} {b0} {m0 / 1e6:.0f}MB"]
        for f in configs[1:]:
            text, i, b, m = eff[f]
            row.append("=" if text == eff[""][0] else f"{i / i0:.2f} {b / b0:.2f} {m / m0:.2f}")
        print(f"{name:26}" + "".join(f"{c:>20}" for c in row), flush=True)


def effects_part(args, env):
    """Only the effects table (deterministic, unlike times on a shared machine)."""
    progs, configs, sizes = python_configs(args)
    rows = []
    for prog in progs:
        path = os.path.join(ROOT, "benchmarks", "python", prog + ".py")
        size = sizes.get(prog)
        eff = {f: probe_effect(args, path, f, env, size) for f in configs}
        rows.append((prog + (f" {size}" if size else ""), eff))
    print_effects(rows, configs)


def python_part(args, env):
    progs, configs, sizes = python_configs(args)
    print("python -m hassium benchmarks/python/NAME.py SIZE, elapsed s, best of "
          f"{args.repeat} interleaved runs, speed-up over none in ( ); "
          "* = checksum differs from no filters (relative difference given); "
          "= = the filter changed nothing (the bytecode after it is that without filters); "
          f"+ = helps measurably (changed the program, and its best run is faster than every run "
          f"without filters and than the best by more than {args.min_gain:.0%})")
    print(f"{'program':26}" + "".join(f"{label(f)[:19]:>20}" for f in configs), flush=True)
    helped = {f: [] for f in configs[1:]}
    rows = []
    for prog in progs:
        path = os.path.join(ROOT, "benchmarks", "python", prog + ".py")
        size = sizes.get(prog)
        times = {f: [] for f in configs}
        checksum = {}
        effect = {f: probe_effect(args, path, f, env, size) for f in configs}
        rows.append((prog + (f" {size}" if size else ""), effect))
        for _ in range(args.repeat):  # configurations interleaved
            for f in configs:
                e, checksum[f], _ = run_python(args.python, path, f, env, size)
                times[f].append(e)
        base_best, base_worst = min(times[""]), max(times[""])
        row = []
        for f in configs:
            best = min(times[f])
            cell = f"{best:.3f}"
            if f and effect[f][0] == effect[""][0]:
                cell += f" ({base_best / best:.2f}x)="
            elif f:
                cell += f" ({base_best / best:.2f}x)"
                # Measurable: the best run with the filter beats the slowest and the best run
                # without it, the best by more than --min-gain.
                if best < base_worst and best < base_best * (1 - args.min_gain):
                    cell += "+"
                    helped[f].append(f"{prog} {base_best / best:.2f}x")
            if checksum[f] != checksum[""]:
                rel = abs(checksum[f] - checksum[""]) / max(abs(checksum[""]), 1e-300)
                cell += f"*{rel:.0e}"
            row.append(cell)
        name = prog + (f" {size}" if size else "")
        print(f"{name:26}" + "".join(f"{c:>20}" for c in row), flush=True)
    print("\nwhere each configuration helps measurably (+):")
    for f, progs_helped in helped.items():
        print(f"  {label(f)}: " + (", ".join(progs_helped) if progs_helped else "nowhere"))
    print_effects(rows, configs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", help="BUILD/python: run the NumPy benchmark programs instead")
    ap.add_argument("--programs", help="comma-separated names of benchmarks/python programs")
    ap.add_argument("--sizes", help="NAME=SIZE,... --size for those programs (default: "
                    "PYTHON_SIZES, else the program's own)")
    ap.add_argument("--filters", help="comma-separated configurations to compare with none "
                    "(filters of one configuration joined by +); default: each, then all")
    ap.add_argument("--hassium", default=os.path.join(ROOT, "build", "bin", "hassium"))
    ap.add_argument("--n", type=int, default=1 << 24, help="elements per array")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--effects", action="store_true",
                    help="--python: only the profile's blocks and bytes moved per configuration")
    ap.add_argument("--min-gain", type=float, default=0.05,
                    help="--python: smallest speed-up (fraction) that counts as helping")
    ap.add_argument("--only", help="run only this filter's cases")
    ap.add_argument("--threads", type=int, default=1,
                    help="engine threads ([cpu] threads; 1 = least disturbed by other load)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="hassium-filters-bench-")
    args.tmp = tmp
    env = {
        "HASSIUM_CONFIG": os.path.join(ROOT, "config.ini"),
        "HASSIUM_CPU_CACHE_DIR": os.path.join(tmp, "kernels"),
        "HASSIUM_FILTERS_TRACE_FILE": os.path.join(tmp, "trace.hsb"),
        "HASSIUM_CPU_THREADS": str(args.threads),
    }
    if args.python and args.effects:
        effects_part(args, env)
        return
    if args.python:
        python_part(args, env)
        return
    print(f"n = {args.n} elements per array, {args.threads} engine thread(s), best of "
          f"{args.repeat} interleaved runs; times in ms")
    print(f"{'filter':16} {'program':14} {'flush off':>10} {'flush on':>10} {'ratio':>6}"
          f" {'exec off':>9} {'exec on':>9} {'ratio':>6}  same")
    for filt, name, gen, rtol in CASES:
        if args.only and filt != args.only:
            continue
        path = os.path.join(tmp, name + ".hsb")
        with open(path, "w") as f:
            f.write(gen(args.n))
        # Off and on interleaved, so that load from other processes hits both alike.
        res = {f: [None, float("inf"), float("inf")] for f in ("", filt)}
        for f in res:
            run(args.hassium, path, f, env)  # warm the kernel cache and the page cache
        for _ in range(args.repeat):
            for f, r in res.items():
                out, fl, ex = run(args.hassium, path, f, env)
                r[0], r[1], r[2] = out, min(r[1], fl), min(r[2], ex)
        (o0, f0, e0), (o1, f1, e1) = res[""], res[filt]
        same = same_output(o0, o1, rtol)
        print(f"{filt:16} {name:14} {f0*1e3:10.2f} {f1*1e3:10.2f} {f0/f1:6.2f}"
              f" {e0*1e3:9.2f} {e1*1e3:9.2f} {e0/e1 if e1 else float('nan'):6.2f}  {same}")
        if not same:
            print(f"  outputs differ:\n  off: {o0[:200]}\n  on:  {o1[:200]}")


if __name__ == "__main__":
    main()
