"""First run against later runs: each benchmark program with empty caches (cold) and with the
caches its first run filled (warm), beside NumPy and NumPy with raised malloc thresholds, in
one run.

    python benchmarks/cold_start.py [--programs black_scholes,sor] [--size small]
        [--rounds 3] [--warm-runs 3] [--configs tiered,interpreted,untiered] [--main]
        [--out DIR]

Per program and round: NumPy, tuned NumPy (MALLOC_* raised, as bootstrap.sh's main job), then
for each hassium configuration a cold run (fresh, empty kernel and merge cache directories),
a pause until the cold run's detached optimizing child ([cpu] optimize_at_exit) has written
its kernels, and warm runs on the same directories (the best of --warm-runs: a cold run is one
run by nature, a warm one can be repeated). Times are the programs' own `elapsed:` lines; each
figure is the median over the rounds (interleaved). Configurations: `tiered` (the
default: a new kernel on the fast code generator's code, optimized code from a background
thread), `interpreted` ([cpu] interpreter = first: a new element-wise block on the
interpreter's step kernels until its own kernel is compiled) and `untiered` ([cpu]
tiered_compile = false: every kernel optimized before it first runs). `--main` adds
the README's main job (black_scholes at 2000000*10). HASSIUM_PROFILE's compile figures of the
cold run (kernels compiled, compile time per kernel by tier: median and p95) are printed too.

The ratio issue 16 asks for: the cold speedup over NumPy divided by the warm one (>= 0.67).
Results go to DIR (default benchmarks/results/cold_start): results.md and results.json.
"""

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from run import SIZES  # noqa: E402  (the programs' sizes, one definition)

MALLOC_TUNED = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "17179869184",
                "MALLOC_TOP_PAD_": "1073741824"}
CONFIGS = {"tiered": {}, "interpreted": {"HASSIUM_CPU_INTERPRETER": "first"},
           "untiered": {"HASSIUM_CPU_TIERED_COMPILE": "false"}}


def elapsed(cmd, env):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    m = re.search(r"^elapsed: (\S+)", r.stdout, re.M)
    if r.returncode != 0 or not m:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{r.stdout[-800:]}{r.stderr[-1500:]}")
    return float(m.group(1)), r.stderr


def compile_figures(stderr):
    """Kernels compiled and the per-kernel compile times HASSIUM_PROFILE printed."""
    out = {}
    m = re.search(r"kernels compiled: +(\d+)", stderr)
    out["kernels"] = int(m.group(1)) if m else 0
    m = re.search(r"blocks run by the interpreter[^:]*: +(\d+)", stderr)
    out["interpreted"] = int(m.group(1)) if m else 0
    for tier in ("fast tier", "optimized"):
        m = re.search(rf"compile per kernel, {tier}: +median ([\d.]+) ms, p95 ([\d.]+) ms \((\d+)",
                      stderr)
        if m:
            out[tier] = (float(m.group(1)), float(m.group(2)), int(m.group(3)))
    return out


def settle(directory, quiet=0.5, limit=60.0):
    """Waits until no file appeared in the directory for `quiet` seconds (the detached child
    of optimize_at_exit writes its kernels there), at most `limit` seconds."""
    t_end = time.monotonic() + limit
    last = -1
    stable_since = time.monotonic()
    while time.monotonic() < t_end:
        n = len(os.listdir(directory)) if os.path.isdir(directory) else 0
        if n != last:
            last, stable_since = n, time.monotonic()
        elif time.monotonic() - stable_since >= quiet:
            return
        time.sleep(0.05)


def measure(program, size, configs, rounds, python, warm_runs):
    script = str(HERE / "python" / f"{program}.py")
    base = dict(os.environ)
    build_python = ROOT / "build" / "python"
    if build_python.is_dir():
        base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(build_python),
                                                          base.get("PYTHONPATH")]))
    times = {"numpy": [], "numpy_tuned": []}
    figures = {}
    for c in configs:
        times[c + "_cold"], times[c + "_warm"] = [], []
    for _ in range(rounds):
        times["numpy"].append(elapsed([python, script, "--size", size], base)[0])
        times["numpy_tuned"].append(elapsed([python, script, "--size", size],
                                            dict(base, **MALLOC_TUNED))[0])
        for c in configs:
            with tempfile.TemporaryDirectory() as d:
                env = dict(base, **CONFIGS[c], HASSIUM_CPU_KERNEL_CACHE="disk",
                           HASSIUM_CPU_CACHE_DIR=f"{d}/kernels", HASSIUM_FUSER_CACHE="disk",
                           HASSIUM_FUSER_CACHE_DIR=f"{d}/partitions")
                cmd = [python, "-m", "hassium", script, "--size", size]
                t, err = elapsed(cmd, dict(env, HASSIUM_PROFILE="1"))
                times[c + "_cold"].append(t)
                figures[c] = compile_figures(err)
                settle(f"{d}/kernels")
                times[c + "_warm"].append(min(elapsed(cmd, env)[0] for _ in range(warm_runs)))
    return {k: statistics.median(v) for k, v in times.items()}, figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--programs", default=",".join(SIZES))
    ap.add_argument("--size", default="small", help="a size name of benchmarks/run.py")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warm-runs", type=int, default=3,
                    help="warm runs per round, the best counts (a cold run is one run)")
    ap.add_argument("--configs", default="tiered,interpreted,untiered")
    ap.add_argument("--main", action="store_true", help="also the README's main job")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", default=str(HERE / "results" / "cold_start"))
    args = ap.parse_args()
    configs = [c for c in args.configs.split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            raise SystemExit(f"unknown configuration {c!r}; valid: {', '.join(CONFIGS)}")
    jobs = [(p, SIZES[p][args.size]) for p in args.programs.split(",") if p]
    if args.main:
        jobs.append(("black_scholes", "2000000*10"))
    load0 = os.getloadavg()[0]
    rows = []
    head = f"{'program':18} {'size':>13} {'NumPy':>7} {'tuned':>7}"
    for c in configs:
        head += f" {c + ' cold':>13} {'warm':>7} {'cold x':>7} {'warm x':>7} {'ratio':>6}"
    print(head)
    for program, size in jobs:
        t, fig = measure(program, size, configs, args.rounds, args.python, args.warm_runs)
        row = {"program": program, "size": size, "times": t, "compiles": fig}
        line = f"{program:18} {size:>13} {t['numpy']:7.3f} {t['numpy_tuned']:7.3f}"
        for c in configs:
            cold, warm = t[c + "_cold"], t[c + "_warm"]
            row[c] = {"cold_speedup": t["numpy"] / cold, "warm_speedup": t["numpy"] / warm,
                      "ratio": warm / cold}
            line += (f" {cold:13.3f} {warm:7.3f} {t['numpy'] / cold:6.2f}x {t['numpy'] / warm:6.2f}x"
                     f" {warm / cold:6.2f}")
        print(line, flush=True)
        rows.append(row)
    load1 = os.getloadavg()[0]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps({"rows": rows, "load": [load0, load1],
                                                  "rounds": args.rounds}, indent=1))
    write_markdown(out / "results.md", rows, configs, args, (load0, load1))
    print(f"1-minute load average {load0:.1f} at the start, {load1:.1f} at the end; "
          f"results in {out}")


def write_markdown(path, rows, configs, args, load):
    lines = ["# First run (cold caches) and later runs (warm)", "",
             f"Command: `python benchmarks/cold_start.py --size {args.size} --rounds {args.rounds}"
             f" --configs {','.join(configs)}{' --main' if args.main else ''}`; medians of "
             f"{args.rounds} interleaved rounds; 1-minute load average {load[0]:.1f} at the "
             f"start, {load[1]:.1f} at the end. \"ratio\": the cold speedup over the warm one.",
             ""]
    head = "| program | size | NumPy s | NumPy tuned s |"
    sep = "|---|---|---|---|"
    for c in configs:
        head += f" {c} cold s | warm s | cold x NumPy | warm x NumPy | cold x tuned | ratio |"
        sep += "---|---|---|---|---|---|"
    lines += [head, sep]
    for r in rows:
        t = r["times"]
        line = f"| {r['program']} | {r['size']} | {t['numpy']:.3f} | {t['numpy_tuned']:.3f} |"
        for c in configs:
            cold, warm = t[c + "_cold"], t[c + "_warm"]
            line += (f" {cold:.3f} | {warm:.3f} | {t['numpy'] / cold:.2f}x | "
                     f"{t['numpy'] / warm:.2f}x | {t['numpy_tuned'] / cold:.2f}x | "
                     f"{warm / cold:.2f} |")
        lines.append(line)
    lines += ["", "Compile figures of the cold runs (HASSIUM_PROFILE: kernels compiled; compile "
              "time per kernel by tier, median / p95 ms; block runs on the interpreter):", "",
              "| program | " + " | ".join(f"{c}: kernels, fast tier, optimized, interpreted"
                                         for c in configs)
              + " |", "|---|" + "---|" * len(configs)]
    for r in rows:
        cells = []
        for c in configs:
            f = r["compiles"].get(c, {})
            parts = [str(f.get("kernels", 0))]
            for tier in ("fast tier", "optimized"):
                parts.append("%.2f / %.2f" % f[tier][:2] if tier in f else "-")
            parts.append(str(f.get("interpreted", 0)))
            cells.append(", ".join(parts))
        lines.append(f"| {r['program']} | " + " | ".join(cells) + " |")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
