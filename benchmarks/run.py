"""Runs the paper's benchmark programs (benchmarks/python) under NumPy and under hassium, and
writes tables (Markdown, CSV) and PNG plots of the results.

    python benchmarks/run.py [--bench heat_equation,sor] [--size tiny|small|large|NAME=SIZE,...]
                             [--algorithms ...] [--cost-models ...] [--caches warm,cold,none]
                             [--repeat 3] [--out DIR] [--replot]

Configurations, per benchmark (every hassium run is `python -m hassium prog.py`, unmodified):
  numpy          plain NumPy
  numpy-malloc   NumPy with glibc's malloc told to keep freed memory (MALLOC_MMAP_THRESHOLD_,
                 MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_ raised): the second baseline
  ALG/MODEL/CACHE  hassium with [fuser] algorithm ALG, cost_model MODEL and a merge cache that is
                 warm (disk cache filled by an earlier, untimed run of the same configuration),
                 cold (in-memory cache, empty at start: the default) or none (partition every
                 flush). Every algorithm runs with every cache state under the default cost
                 model; every fusing algorithm also runs with every other cost model under the
                 first cache state given (warm by default).
The algorithm and cost-model names come from the fuser registry (`hassium fuse --help`).

Before the timed runs, each configuration runs --warmup times untimed; those runs fill the JIT
kernel cache (a directory of the runner's own), so the timed runs measure steady state.
Timed runs are interleaved (round r of every configuration, then round r+1), and the tables
give medians. Time is the program's own `elapsed:` (its compute region); peak memory is the
child's max RSS (os.wait4). Every hassium checksum is compared with NumPy's (--rtol).

Output in --out (default benchmarks/results/<size>): runs.csv (one row per run, appended as
they finish), results.csv (medians per benchmark and configuration), results.md (tables) and
*.png. --replot rebuilds the tables and plots from runs.csv without running anything.
"""

import argparse
import csv
import importlib.util
import json
import math
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = HERE / "python"

# --size per benchmark. tiny: a fraction of a second (the tests); small: the programs' defaults
# (about a second under NumPy); large: the paper-like sizes of benchmarks/python/README.md
# (10-60 s under NumPy on the 2-core development machine).
SIZES = {
    "black_scholes": {"tiny": "1000*3", "small": "200000*10", "large": "10000000*20"},
    "game_of_life": {"tiny": "20*30*5", "small": "500*500*20", "large": "4000*4000*50"},
    "heat_equation": {"tiny": "20*30*5", "small": "500*500*50", "large": "5000*5000*100"},
    "leibnitz_pi": {"tiny": "1000*3", "small": "1000000*10", "large": "50000000*20"},
    "gauss_elimination": {"tiny": "20", "small": "400", "large": "2500"},
    "lu_factorization": {"tiny": "20", "small": "400", "large": "2500"},
    "montecarlo_pi": {"tiny": "1000*3", "small": "1000000*10", "large": "20000000*20"},
    "stencil27": {"tiny": "6*7*8*3", "small": "80*80*80*10", "large": "256*256*256*15"},
    "shallow_water": {"tiny": "20*30*5", "small": "400*400*20", "large": "2000*2000*50"},
    "rosenbrock": {"tiny": "1000*3", "small": "500000*20", "large": "50000000*10"},
    "sor": {"tiny": "20*30*5", "small": "500*500*20", "large": "5000*5000*50"},
    "nbody": {"tiny": "50*3", "small": "800*10", "large": "5000*20"},
    "nbody_nice": {"tiny": "3*100*3", "small": "20*50000*10", "large": "100*200000*20"},
    "lbm_d3q19": {"tiny": "6*7*8*3", "small": "32*32*32*10", "large": "120*120*120*20"},
    "water_ice": {"tiny": "20*30*5", "small": "200*200*100", "large": "2000*2000*100"},
}

# The second NumPy baseline: glibc keeps freed memory instead of returning it to the OS, so
# NumPy's temporaries stop paying page faults. 32 MiB is the largest mmap threshold glibc
# accepts on 64-bit; trim threshold 4 GiB, top pad 1 GiB.
MALLOC_ENV = {
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(4 << 30),
    "MALLOC_TOP_PAD_": str(1 << 30),
}

# The child of a hassium run: exactly `python -m hassium prog.py args` (hassium.__main__), then
# hassium.profile() (the runtime's own counters) as JSON into $HASSIUM_BENCH_PROFILE_OUT.
CHILD = """
import json, os, sys
from hassium import __main__ as entry
try:
    rc = entry.main()
finally:
    out = os.environ.get("HASSIUM_BENCH_PROFILE_OUT")
    import hassium
    if out and hasattr(hassium, "profile"):
        counters = hassium.profile()
        counters.pop("slowest_kernels", None)
        with open(out, "w") as f:
            json.dump(counters, f)
sys.exit(rc)
"""

# Columns of runs.csv; results.csv adds the summary columns after the configuration ones.
RUN_FIELDS = ["benchmark", "size", "config", "engine", "algorithm", "cost_model", "cache",
              "round", "status", "elapsed_s", "wall_s", "max_rss_mb", "checksum",
              "partition_cost", "blocks", "flushes", "merge_cache_hits", "merge_cache_misses",
              "fuse_s", "compile_s", "pool_peak_mb"]
RESULT_FIELDS = ["benchmark", "size", "config", "engine", "algorithm", "cost_model", "cache",
                 "runs", "failed", "median_s", "min_s", "max_s", "wall_median_s",
                 "speedup_vs_numpy", "speedup_vs_numpy_malloc", "max_rss_mb",
                 "rss_vs_numpy", "checksum", "checksum_ok", "checksum_rel_diff",
                 "partition_cost", "blocks", "flushes", "merge_cache_hits",
                 "merge_cache_misses", "fuse_s", "compile_s", "pool_peak_mb"]

CACHE_STATES = ["warm", "cold", "none"]


class Config:
    """One way of running a program: NumPy (with an environment) or hassium (fuser settings)."""

    def __init__(self, name, engine, algorithm="", cost_model="", cache="", env=None):
        self.name, self.engine = name, engine
        self.algorithm, self.cost_model, self.cache = algorithm, cost_model, cache
        self.env = env or {}

    @staticmethod
    def hassium(algorithm, cost_model, cache):
        return Config(f"{algorithm}/{cost_model}/{cache}", "hassium", algorithm, cost_model, cache)


# ---------------------------------------------------------------------------------------------
# Registry names and defaults, from the hassium tool


def find_tool(explicit):
    """The `hassium` executable: --hassium-bin, next to the Python module's build, or on PATH."""
    candidates = [explicit] if explicit else []
    spec = importlib.util.find_spec("hassium")
    if spec and spec.origin:  # a build tree: BUILD/python/hassium/__init__.py, BUILD/bin/hassium
        candidates.append(str(pathlib.Path(spec.origin).parents[2] / "bin" / "hassium"))
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry:
            candidates.append(str(pathlib.Path(entry).parent / "bin" / "hassium"))
    candidates.append(shutil.which("hassium"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    raise SystemExit("run.py: error: no `hassium` executable found; pass --hassium-bin")


def registry(tool):
    """(algorithms, cost models) as `hassium fuse --help` lists them."""
    text = subprocess.run([tool, "fuse", "--help"], capture_output=True, text=True).stdout
    algorithms = re.search(r"partition algorithm: (.*)", text)
    models = re.search(r"cost model: (.*)", text)
    if not algorithms or not models:
        raise SystemExit(f"run.py: error: cannot read the registries from `{tool} fuse --help`")
    split = lambda m: [name.strip() for name in m.group(1).split(",")]
    return split(algorithms), split(models)


def defaults(tool):
    """The configured [fuser] algorithm and cost model (`hassium config`)."""
    text = subprocess.run([tool, "config"], capture_output=True, text=True).stdout
    found = dict(re.findall(r"^fuser\.(algorithm|cost_model) = (\S+)", text, re.M))
    return found.get("algorithm", "greedy"), found.get("cost_model", "bohrium")


def build_configs(algorithms, cost_models, caches, default_model, baselines=True):
    """NumPy baselines, every algorithm x cache state under the default model, every fusing
    algorithm x other cost model under the first cache state."""
    configs = []
    if baselines:
        configs += [Config("numpy", "numpy"), Config("numpy-malloc", "numpy", env=MALLOC_ENV)]
    for algorithm in algorithms:
        for cache in caches:
            configs.append(Config.hassium(algorithm, default_model, cache))
    for algorithm in algorithms:
        if algorithm == "singleton":  # one block per instruction whatever the model
            continue
        for model in cost_models:
            if model != default_model:
                configs.append(Config.hassium(algorithm, model, caches[0]))
    return configs


# ---------------------------------------------------------------------------------------------
# Running


def child_env(config, bench, work):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("HASSIUM_PROFILE") and not k.startswith("MALLOC_")}
    env.update(config.env)
    if config.engine == "hassium":
        env["HASSIUM_FUSER_ALGORITHM"] = config.algorithm
        env["HASSIUM_FUSER_COST_MODEL"] = config.cost_model
        env["HASSIUM_CPU_CACHE_DIR"] = str(work / "kernels")
        env["HASSIUM_PYTHON_FALLBACK_WARNINGS"] = "false"
        cache_dir = work / "merge" / bench / f"{config.algorithm}-{config.cost_model}"
        env["HASSIUM_FUSER_CACHE_DIR"] = str(cache_dir)
        env["HASSIUM_FUSER_CACHE"] = {"warm": "disk", "cold": "memory", "none": "none",
                                      "fill": "disk"}[config.cache]
    return env


def run_once(config, bench, size, work, timeout, cache=None):
    """Runs the program once; returns a dict of RUN_FIELDS (status 'ok' or an error)."""
    program = str(PROGRAMS / f"{bench}.py")
    if config.engine == "numpy":
        cmd = [sys.executable, program, "--size", size]
    else:
        cmd = [sys.executable, "-c", CHILD, program, "--size", size]
    env = child_env(config if cache is None else Config.hassium(config.algorithm,
                                                                config.cost_model, cache),
                    bench, work)
    row = {"benchmark": bench, "size": size, "config": config.name, "engine": config.engine,
           "algorithm": config.algorithm, "cost_model": config.cost_model,
           "cache": config.cache}
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        out_path, err_path = pathlib.Path(tmp, "out"), pathlib.Path(tmp, "err")
        profile_path = pathlib.Path(tmp, "profile.json")
        env["HASSIUM_BENCH_PROFILE_OUT"] = str(profile_path)
        start = time.perf_counter()
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
            status, rusage = wait_child(proc, timeout)
        row["wall_s"] = time.perf_counter() - start
        row["max_rss_mb"] = rusage.ru_maxrss / 1024.0 if rusage else ""
        stdout, stderr = out_path.read_text(), err_path.read_text()
        if status == "ok":
            elapsed = re.search(r"^elapsed: (\S+) s$", stdout, re.M)
            checksum = re.search(r"^checksum: (\S+)$", stdout, re.M)
            if elapsed and checksum:
                row["elapsed_s"], row["checksum"] = float(elapsed.group(1)), checksum.group(1)
            else:
                status = "no elapsed/checksum line"
        if profile_path.exists():
            p = json.loads(profile_path.read_text())
            row.update(partition_cost=p.get("partition_cost", ""), blocks=p.get("blocks", ""),
                       flushes=p.get("flushes", ""),
                       merge_cache_hits=p.get("merge_cache_hits", ""),
                       merge_cache_misses=p.get("merge_cache_misses", ""),
                       fuse_s=p.get("fuse_seconds", ""), compile_s=p.get("compile_seconds", ""),
                       pool_peak_mb=p.get("peak_bytes", 0) / 2**20)
        row["status"] = status
        if status != "ok":
            row["error"] = (stderr or stdout)[-2000:]
    return row


def wait_child(proc, timeout):
    """Waits for the child with os.wait4 (its own max RSS); kills it after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        pid, code, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(code)
            return ("ok" if proc.returncode == 0 else f"exit {proc.returncode}"), rusage
        if time.monotonic() > deadline:
            proc.kill()
            _, _, rusage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            return f"timeout after {timeout:g} s", None
        time.sleep(0.01)


def fmt_s(seconds):
    return f"{seconds:.3f}s" if seconds < 100 else f"{seconds:.0f}s"


def run_all(args, benches, configs, work, runs_csv):
    """Warm-up runs, then --repeat interleaved rounds; appends every run to runs.csv."""
    total = len(benches) * len(configs) * args.repeat
    done = 0
    started = time.monotonic()
    new_file = not runs_csv.exists()
    with open(runs_csv, "a", newline="") as f:
        writer = csv.DictWriter(f, RUN_FIELDS, extrasaction="ignore")
        if new_file:
            writer.writeheader()
        for bench in benches:
            size = args.sizes[bench]
            # Warm-up: per hassium (algorithm, model) one run that fills the kernel cache and
            # the warm merge cache; per NumPy configuration one run (imports, page cache).
            warmed = set()
            for config in configs:
                key = (config.engine, config.algorithm, config.cost_model, config.name
                       if config.engine == "numpy" else "")
                if key in warmed:
                    continue
                warmed.add(key)
                for _ in range(args.warmup):
                    progress(f"{bench} {size}: warm-up {config.name if config.engine == 'numpy' else config.algorithm + '/' + config.cost_model}")
                    row = run_once(config, bench, size, work, args.timeout,
                                   cache="fill" if config.engine == "hassium" else None)
                    if row["status"] != "ok":
                        progress(f"  warm-up failed: {row['status']}\n{row.get('error', '')}",
                                 end="\n")
            for r in range(args.repeat):
                for config in configs:
                    done += 1
                    row = run_once(config, bench, size, work, args.timeout)
                    row["round"] = r
                    writer.writerow(row)
                    f.flush()
                    eta = (time.monotonic() - started) / done * (total - done)
                    result = (fmt_s(row["elapsed_s"]) + f" rss {row['max_rss_mb']:.0f}MB"
                              if row["status"] == "ok" else row["status"].upper())
                    progress(f"[{done}/{total}] {bench} {config.name} round {r + 1}: {result}"
                             f"  (eta {eta / 60:.1f} min)", end="\n")
                    if row["status"] != "ok":
                        sys.stderr.write(row.get("error", "") + "\n")


def progress(text, end="\r"):
    if end == "\r" and not sys.stderr.isatty():
        end = "\n"
    sys.stderr.write(("\r\033[K" if sys.stderr.isatty() else "") + text + end)
    sys.stderr.flush()


# ---------------------------------------------------------------------------------------------
# Summaries


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def summarize(rows, rtol):
    """Medians per (benchmark, size, config) with speedups and checksum checks."""
    groups = {}
    for row in rows:
        groups.setdefault((row["benchmark"], row["size"], row["config"]), []).append(row)
    results = []
    for (bench, size, config), group in groups.items():
        ok = [r for r in group if r["status"] == "ok"]
        first = group[0]
        res = {k: first[k] for k in ["benchmark", "size", "config", "engine", "algorithm",
                                      "cost_model", "cache"]}
        res["runs"], res["failed"] = len(ok), len(group) - len(ok)
        times = [float(r["elapsed_s"]) for r in ok]
        if times:
            res["median_s"] = statistics.median(times)
            res["min_s"], res["max_s"] = min(times), max(times)
            res["wall_median_s"] = statistics.median(float(r["wall_s"]) for r in ok)
            res["max_rss_mb"] = statistics.median(float(r["max_rss_mb"]) for r in ok)
            res["checksum"] = ok[0]["checksum"]
        for field in ["partition_cost", "blocks", "flushes", "merge_cache_hits",
                      "merge_cache_misses", "fuse_s", "compile_s", "pool_peak_mb"]:
            values = [number(r.get(field)) for r in ok]
            values = [v for v in values if v is not None]
            res[field] = statistics.median(values) if values else ""
        res["checksums"] = sorted({r["checksum"] for r in ok})
        results.append(res)
    by_key = {(r["benchmark"], r["size"], r["config"]): r for r in results}
    for res in results:
        base = by_key.get((res["benchmark"], res["size"], "numpy"))
        malloc = by_key.get((res["benchmark"], res["size"], "numpy-malloc"))
        if "median_s" not in res:
            res["checksum_ok"] = False
            continue
        if base and "median_s" in base:
            res["speedup_vs_numpy"] = base["median_s"] / res["median_s"]
            res["rss_vs_numpy"] = res["max_rss_mb"] / base["max_rss_mb"]
            reference = float(base["checksum"])
            diffs = [abs(float(c) - reference) / max(abs(reference), 1e-300)
                     for c in res["checksums"]]
            res["checksum_rel_diff"] = max(diffs)
            res["checksum_ok"] = max(diffs) <= rtol
        if malloc and "median_s" in malloc:
            res["speedup_vs_numpy_malloc"] = malloc["median_s"] / res["median_s"]
    return results


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def cell(value, kind="s"):
    if value in ("", None):
        return "-"
    if kind == "s":
        return f"{value:.3g}" if value < 1 else (f"{value:.3f}" if value < 100 else f"{value:.1f}")
    if kind == "x":
        return f"{value:.2f}x"
    if kind == "mb":
        return f"{value:.0f}"
    if kind == "cost":
        return f"{value:.3g}"
    return str(value)


class Tables:
    """The summary rows indexed for the tables and the plots."""

    def __init__(self, results, headline):
        self.results = results
        self.benches = [b for b in SIZES if any(r["benchmark"] == b for r in results)]
        self.by = {(r["benchmark"], r["config"]): r for r in results}
        hassium = [r for r in results if r["engine"] == "hassium"]
        self.algorithms = unique(r["algorithm"] for r in hassium)
        self.models = unique(r["cost_model"] for r in hassium)
        self.caches = [c for c in CACHE_STATES if any(r["cache"] == c for r in hassium)]
        configs = unique(r["config"] for r in hassium)
        self.headline = headline if headline in configs else (configs[0] if configs else None)
        # the default model: the one every algorithm x cache state ran with
        counts = {m: sum(1 for r in hassium if r["cost_model"] == m) for m in self.models}
        self.default_model = max(counts, key=counts.get) if counts else None

    def get(self, bench, config, field):
        r = self.by.get((bench, config))
        return r.get(field, "") if r else ""


def unique(items):
    seen = []
    for i in items:
        if i not in seen:
            seen.append(i)
    return seen


def markdown(t, rtol, machine):
    lines = [f"# hassium vs NumPy: benchmark results", "", machine, ""]
    sizes = {r["benchmark"]: r["size"] for r in t.results}
    lines += [f"Headline configuration: `{t.headline}` (algorithm/cost model/merge cache). "
              "Times are medians of the programs' own `elapsed:`; speedup = NumPy time / "
              "hassium time; RSS = the process's peak resident memory.", ""]
    lines += ["| benchmark | size | NumPy s | NumPy+malloc s | hassium s | speedup vs NumPy | "
              "vs NumPy+malloc | best hassium config | best speedup | RSS NumPy MB | "
              "RSS hassium MB | checksums |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    speedups, speedups_malloc, best_speedups = [], [], []
    for b in t.benches:
        h = t.by.get((b, t.headline), {})
        hassium = [r for r in t.results if r["benchmark"] == b and r["engine"] == "hassium"
                   and "median_s" in r]
        best = min(hassium, key=lambda r: r["median_s"]) if hassium else {}
        bad = [r["config"] for r in hassium if not r.get("checksum_ok")]
        failed = [r["config"] for r in t.results if r["benchmark"] == b and r["failed"]]
        check = "all match" if not bad and not failed else (
            f"{len(bad)} differ" + (f", {len(failed)} failed" if failed else ""))
        if h.get("speedup_vs_numpy"):
            speedups.append(h["speedup_vs_numpy"])
        if h.get("speedup_vs_numpy_malloc"):
            speedups_malloc.append(h["speedup_vs_numpy_malloc"])
        if best.get("speedup_vs_numpy"):
            best_speedups.append(best["speedup_vs_numpy"])
        lines.append(
            f"| {b} | {sizes[b]} | {cell(t.get(b, 'numpy', 'median_s'))} | "
            f"{cell(t.get(b, 'numpy-malloc', 'median_s'))} | {cell(h.get('median_s'))} | "
            f"{cell(h.get('speedup_vs_numpy'), 'x')} | "
            f"{cell(h.get('speedup_vs_numpy_malloc'), 'x')} | {best.get('config', '-')} | "
            f"{cell(best.get('speedup_vs_numpy'), 'x')} | "
            f"{cell(t.get(b, 'numpy', 'max_rss_mb'), 'mb')} | {cell(h.get('max_rss_mb'), 'mb')}"
            f" | {check} |")
    lines.append(f"| **geometric mean** | | | | | **{geomean(speedups):.2f}x** | "
                 f"**{geomean(speedups_malloc):.2f}x** | | **{geomean(best_speedups):.2f}x** "
                 "| | | |")
    lines += ["", f"Checksums agree when their relative difference is at most {rtol:g}.", ""]

    model = t.default_model
    if t.algorithms and model:
        lines += [f"## Partition cost per algorithm ({model} cost model, runtime counters)", "",
                  "The sum over all flushes of the cost of the partition the fuser chose "
                  "(`partition_cost` of `hassium.profile()`), relative to singleton "
                  "(no fusion) where it ran; absolute values in results.csv.", ""]
        lines += ["| benchmark | " + " | ".join(t.algorithms) + " |",
                  "|---|" + "---|" * len(t.algorithms)]
        for b in t.benches:
            costs = [t.get(b, f"{a}/{model}/{t.caches[0]}", "partition_cost")
                     for a in t.algorithms]
            ref = t.get(b, f"singleton/{model}/{t.caches[0]}", "partition_cost")
            lines.append(f"| {b} | " + " | ".join(
                (f"{c / ref:.3f}" if ref else cell(c, "cost")) if c != "" else "-"
                for c in costs) + " |")
        lines.append("")
        lines += [f"## Time per algorithm and merge cache ({model} cost model), seconds", "",
                  "warm: disk cache filled by an earlier run; cold: empty in-memory cache "
                  "(the default); none: the algorithm runs at every flush.", ""]
        cols = [(a, c) for a in t.algorithms for c in t.caches]
        lines += ["| benchmark | NumPy | " + " | ".join(f"{a} {c}" for a, c in cols) + " |",
                  "|---|---|" + "---|" * len(cols)]
        for b in t.benches:
            lines.append(f"| {b} | {cell(t.get(b, 'numpy', 'median_s'))} | " + " | ".join(
                cell(t.get(b, f"{a}/{model}/{c}", "median_s")) for a, c in cols) + " |")
        lines.append("")
    fusing = [a for a in t.algorithms if a != "singleton"]
    if len(t.models) > 1 and fusing:
        cache = t.caches[0]
        lines += [f"## Time per cost model ({cache} merge cache), seconds", ""]
        cols = [(a, m) for a in fusing for m in t.models]
        lines += ["| benchmark | " + " | ".join(f"{a} {m}" for a, m in cols) + " |",
                  "|---|" + "---|" * len(cols)]
        for b in t.benches:
            lines.append(f"| {b} | " + " | ".join(
                cell(t.get(b, f"{a}/{m}/{cache}", "median_s")) for a, m in cols) + " |")
        lines.append("")
    mismatches = [r for r in t.results if r["engine"] == "hassium" and "median_s" in r
                  and not r.get("checksum_ok")]
    failures = [r for r in t.results if r["failed"]]
    if mismatches or failures:
        lines += ["## Problems", ""]
        for r in mismatches:
            lines.append(f"- {r['benchmark']} `{r['config']}`: checksum {r['checksum']} vs "
                         f"NumPy {t.get(r['benchmark'], 'numpy', 'checksum')} (relative "
                         f"difference {r.get('checksum_rel_diff', float('nan')):.2g})")
        for r in failures:
            lines.append(f"- {r['benchmark']} `{r['config']}`: {r['failed']} run(s) failed "
                         "(see runs.csv)")
        lines.append("")
    lines += ["Plots: speedup.png, memory.png, partition_cost.png, algorithms.png, "
              "cost_models.png.", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Plots


def plots(t, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def bars(ax, series, labels, ylabel, log=False):
        width = 0.8 / max(1, len(series))
        for k, (name, values) in enumerate(series):
            xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(labels))]
            ax.bar(xs, [v if v not in ("", None) else 0 for v in values], width, label=name)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.legend(fontsize=7, ncol=min(5, len(series)))
        ax.grid(axis="y", alpha=0.3)

    benches = t.benches
    written = []
    if t.headline:
        fig, ax = plt.subplots(figsize=(10, 4.5))
        series = [("vs NumPy", [t.get(b, t.headline, "speedup_vs_numpy") for b in benches]),
                  ("vs NumPy+malloc",
                   [t.get(b, t.headline, "speedup_vs_numpy_malloc") for b in benches])]
        bars(ax, series, benches, "speedup (x)", log=True)
        ax.axhline(1.0, color="black", linewidth=0.8)
        g = geomean([t.get(b, t.headline, "speedup_vs_numpy") for b in benches])
        ax.axhline(g, color="C2", linestyle="--", linewidth=0.8)
        ax.set_title(f"hassium ({t.headline}) speedup over NumPy; geometric mean {g:.2f}x")
        written.append(save(fig, out / "speedup.png"))

        fig, ax = plt.subplots(figsize=(10, 4.5))
        series = [("NumPy", [t.get(b, "numpy", "max_rss_mb") for b in benches]),
                  ("NumPy+malloc", [t.get(b, "numpy-malloc", "max_rss_mb") for b in benches]),
                  ("hassium", [t.get(b, t.headline, "max_rss_mb") for b in benches])]
        bars(ax, series, benches, "peak RSS (MB)", log=True)
        ax.set_title("peak memory (max RSS of the process)")
        written.append(save(fig, out / "memory.png"))

    model, cache0 = t.default_model, (t.caches[0] if t.caches else None)
    if t.algorithms and model:
        fig, ax = plt.subplots(figsize=(10, 4.5))
        series = []
        for a in t.algorithms:
            values = []
            for b in benches:
                c = t.get(b, f"{a}/{model}/{cache0}", "partition_cost")
                ref = t.get(b, f"singleton/{model}/{cache0}", "partition_cost")
                values.append(c / ref if c != "" and ref else "")
            series.append((a, values))
        bars(ax, series, benches, "partition cost / singleton's")
        ax.set_title(f"theoretical partition cost ({model} model, runtime counters)")
        written.append(save(fig, out / "partition_cost.png"))

        fig, axes = plt.subplots(len(t.caches), 1, figsize=(10, 3.2 * len(t.caches)),
                                 squeeze=False)
        for ax, cache in zip(axes[:, 0], t.caches):
            series = [(a, [relative(t, b, f"{a}/{model}/{cache}") for b in benches])
                      for a in t.algorithms]
            bars(ax, series, benches, "time / NumPy's", log=True)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_title(f"{cache} merge cache", fontsize=9)
        fig.suptitle(f"time per partition algorithm ({model} model), relative to NumPy")
        written.append(save(fig, out / "algorithms.png"))

    fusing = [a for a in t.algorithms if a != "singleton"]
    if len(t.models) > 1 and fusing:
        fig, axes = plt.subplots(len(fusing), 1, figsize=(10, 3.2 * len(fusing)), squeeze=False)
        for ax, a in zip(axes[:, 0], fusing):
            series = [(m, [relative(t, b, f"{a}/{m}/{cache0}") for b in benches])
                      for m in t.models]
            bars(ax, series, benches, "time / NumPy's", log=True)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_title(f"{a}", fontsize=9)
        fig.suptitle(f"time per cost model ({cache0} merge cache), relative to NumPy")
        written.append(save(fig, out / "cost_models.png"))
    plt.close("all")
    return written


def relative(t, bench, config):
    value, ref = t.get(bench, config, "median_s"), t.get(bench, "numpy", "median_s")
    return value / ref if value != "" and ref else ""


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    return path


# ---------------------------------------------------------------------------------------------


def machine_line():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        flags = open("/proc/cpuinfo").read()
        avx = "AVX-512" if "avx512f" in flags else ("AVX2" if "avx2" in flags else "no AVX2")
    except OSError:
        avx = "?"
    load = os.getloadavg()
    return (f"Machine: {cpu}, {os.cpu_count()} cores, {avx}; load average "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} when the tables were written.")


def parse_sizes(text, benches):
    """`tiny`|`small`|`large` for all, or NAME=SIZE pairs (others: small)."""
    if text in ("tiny", "small", "large"):
        return {b: SIZES[b][text] for b in benches}, text
    sizes = {b: SIZES[b]["small"] for b in benches}
    for item in text.split(","):
        name, _, size = item.partition("=")
        if name not in SIZES or not size:
            raise SystemExit(f"run.py: error: --size: expected tiny|small|large or NAME=SIZE,"
                             f" got {item!r}")
        sizes[name] = size
    return sizes, "custom"


def split_names(text, valid, what):
    names = [n for n in text.split(",") if n] if text else list(valid)
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise SystemExit(f"run.py: error: unknown {what} {', '.join(unknown)}; "
                         f"valid: {', '.join(valid)}")
    return names


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="", help="comma-separated program names (default: all)")
    ap.add_argument("--size", default="small", help="tiny|small|large or NAME=SIZE,...")
    ap.add_argument("--algorithms", default="", help="default: every registered algorithm")
    ap.add_argument("--cost-models", default="", help="default: every registered cost model")
    ap.add_argument("--caches", default="warm,cold,none", help="merge cache states to run")
    ap.add_argument("--headline", default="",
                    help="config of the headline column (default: the configured algorithm "
                         "and cost model, cold cache: what a user gets)")
    ap.add_argument("--no-baselines", action="store_true",
                    help="skip the NumPy runs (speedups then need a runs.csv that has them)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per configuration")
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs per configuration")
    ap.add_argument("--rtol", type=float, default=1e-9, help="checksum relative tolerance")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    ap.add_argument("--out", default="", help="output directory")
    ap.add_argument("--work", default="", help="caches directory (default: OUT/work)")
    ap.add_argument("--hassium-bin", default="", help="the hassium tool")
    ap.add_argument("--fresh", action="store_true", help="discard an existing runs.csv")
    ap.add_argument("--replot", action="store_true", help="only rebuild tables and plots")
    args = ap.parse_args(argv)

    benches = split_names(args.bench, list(SIZES), "benchmark")
    args.sizes, size_name = parse_sizes(args.size, benches)
    out = pathlib.Path(args.out or HERE / "results" / size_name)
    out.mkdir(parents=True, exist_ok=True)
    runs_csv = out / "runs.csv"
    tool = find_tool(args.hassium_bin)
    default_algorithm, default_model = defaults(tool)
    headline = args.headline or f"{default_algorithm}/{default_model}/cold"

    if not args.replot:
        all_algorithms, all_models = registry(tool)
        algorithms = split_names(args.algorithms, all_algorithms, "algorithm")
        models = split_names(args.cost_models, all_models, "cost model")
        caches = split_names(args.caches, CACHE_STATES, "cache state")
        model = default_model if default_model in models else models[0]
        configs = build_configs(algorithms, models, caches, model, not args.no_baselines)
        if args.fresh and runs_csv.exists():
            runs_csv.unlink()
        work = pathlib.Path(args.work or out / "work").resolve()
        shutil.rmtree(work / "merge", ignore_errors=True)  # warm = filled by this run's warm-up
        work.mkdir(parents=True, exist_ok=True)
        progress(f"{len(benches)} benchmark(s) x {len(configs)} configuration(s) x "
                 f"{args.repeat} run(s); results in {out}", end="\n")
        run_all(args, benches, configs, work, runs_csv)

    with open(runs_csv) as f:
        rows = [r for r in csv.DictReader(f) if r["benchmark"] in benches]
    results = summarize(rows, args.rtol)
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, RESULT_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(sorted(results, key=lambda r: (list(SIZES).index(r["benchmark"]),
                                                       r["engine"] != "numpy", r["config"])))
    tables = Tables(results, headline)
    (out / "results.md").write_text(markdown(tables, args.rtol, machine_line()))
    written = plots(tables, out)
    progress(f"wrote {out / 'results.md'}, {out / 'results.csv'}, "
             f"{', '.join(p.name for p in written)}", end="\n")
    bad = [r for r in results if r["failed"] or (r["engine"] == "hassium"
                                                 and not r.get("checksum_ok"))]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
