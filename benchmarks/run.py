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
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run_report as report  # noqa: E402  (tables and plots, next to this file)

PROGRAMS = HERE / "python"

# --size per benchmark. tiny: a fraction of a second (the tests); small: the programs' defaults
# (about a second under NumPy); large: the paper-like sizes of benchmarks/python/README.md
# (10-60 s under NumPy on the 2-core development machine); large-short: the same arrays with
# fewer iterations (gauss and lu: the full order 2500, their arrays are the
# paper-like ones only at full size), about a quarter of the work.
SIZES = {
    "black_scholes": {"tiny": "1000*3", "small": "200000*10", "large": "10000000*20",
                   "large-short": "10000000*5"},
    "game_of_life": {"tiny": "20*30*5", "small": "500*500*20", "large": "4000*4000*50",
                  "large-short": "4000*4000*10"},
    "heat_equation": {"tiny": "20*30*5", "small": "500*500*50", "large": "5000*5000*100",
                   "large-short": "5000*5000*20"},
    "leibnitz_pi": {"tiny": "1000*3", "small": "1000000*10", "large": "50000000*20",
                 "large-short": "50000000*5"},
    "gauss_elimination": {"tiny": "20", "small": "400", "large": "2500",
                       "large-short": "2500"},
    "lu_factorization": {"tiny": "20", "small": "400", "large": "2500",
                      "large-short": "2500"},
    "montecarlo_pi": {"tiny": "1000*3", "small": "1000000*10", "large": "20000000*20",
                   "large-short": "20000000*5"},
    "stencil27": {"tiny": "6*7*8*3", "small": "80*80*80*10", "large": "256*256*256*15",
               "large-short": "256*256*256*4"},
    "shallow_water": {"tiny": "20*30*5", "small": "400*400*20", "large": "2000*2000*50",
                   "large-short": "2000*2000*10"},
    "rosenbrock": {"tiny": "1000*3", "small": "500000*20", "large": "50000000*10",
                "large-short": "50000000*3"},
    "sor": {"tiny": "20*30*5", "small": "500*500*20", "large": "5000*5000*50",
         "large-short": "5000*5000*10"},
    "nbody": {"tiny": "50*3", "small": "800*10", "large": "5000*20",
           "large-short": "5000*5"},
    "nbody_nice": {"tiny": "3*100*3", "small": "20*50000*10", "large": "100*200000*20",
                "large-short": "100*200000*5"},
    "lbm_d3q19": {"tiny": "6*7*8*3", "small": "32*32*32*10", "large": "120*120*120*20",
               "large-short": "120*120*120*5"},
    "water_ice": {"tiny": "20*30*5", "small": "200*200*100", "large": "2000*2000*100",
               "large-short": "2000*2000*20"},
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
              "fuse_s", "compile_s", "pool_peak_mb", "load1"]
RESULT_FIELDS = ["benchmark", "size", "config", "engine", "algorithm", "cost_model", "cache",
                 "runs", "failed", "median_s", "min_s", "max_s", "wall_median_s",
                 "speedup_vs_numpy", "speedup_vs_numpy_malloc", "max_rss_mb",
                 "rss_vs_numpy", "checksum", "checksum_ok", "checksum_rel_diff",
                 "partition_cost", "blocks", "flushes", "merge_cache_hits",
                 "merge_cache_misses", "fuse_s", "compile_s", "pool_peak_mb"]

CACHE_STATES = report.CACHE_STATES


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
           "cache": config.cache, "load1": f"{os.getloadavg()[0]:.2f}"}
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
    try:
        return poll_child(proc, deadline, timeout)
    except BaseException:  # interrupted (Ctrl-C, SIGTERM): do not leave the child running
        proc.kill()
        proc.wait()
        raise


def poll_child(proc, deadline, timeout):
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
            # the warm merge cache. NumPy has nothing to warm up.
            warmed = set()
            for config in configs:
                key = (config.algorithm, config.cost_model)
                if config.engine != "hassium" or key in warmed:
                    continue
                warmed.add(key)
                for _ in range(args.warmup):
                    progress(f"{bench} {size}: warm-up {config.algorithm}/{config.cost_model}")
                    row = run_once(config, bench, size, work, args.timeout, cache="fill")
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


def parse_sizes(text, benches):
    """`tiny`|`small`|`large` for all, or NAME=SIZE pairs (others: small)."""
    if text in ("tiny", "small", "large", "large-short"):
        return {b: SIZES[b][text] for b in benches}, text
    sizes = {b: SIZES[b]["small"] for b in benches}
    for item in text.split(","):
        name, _, size = item.partition("=")
        if name not in SIZES or not size:
            raise SystemExit(f"run.py: error: --size: expected tiny|small|large|large-short or NAME=SIZE,"
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
    ap.add_argument("--size", default="small", help="tiny|small|large|large-short or NAME=SIZE,...")
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
    ap.add_argument("--work", default="",
                    help="kernel and merge caches (default: $TMPDIR/hassium-bench-UID/OUTNAME)")
    ap.add_argument("--hassium-bin", default="", help="the hassium tool")
    ap.add_argument("--fresh", action="store_true", help="discard an existing runs.csv")
    ap.add_argument("--replot", action="store_true", help="only rebuild tables and plots")
    args = ap.parse_args(argv)
    if argv is None:  # as a program: SIGTERM unwinds (and kills the running child) like Ctrl-C
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

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
        work = pathlib.Path(args.work or pathlib.Path(tempfile.gettempdir()) /
                            f"hassium-bench-{os.getuid()}" / out.name).resolve()
        shutil.rmtree(work / "merge", ignore_errors=True)  # warm = filled by this run's warm-up
        work.mkdir(parents=True, exist_ok=True)
        progress(f"{len(benches)} benchmark(s) x {len(configs)} configuration(s) x "
                 f"{args.repeat} run(s); results in {out}", end="\n")
        run_all(args, benches, configs, work, runs_csv)

    with open(runs_csv) as f:
        rows = [r for r in csv.DictReader(f) if r["benchmark"] in benches]
    report.ORDER[:] = list(SIZES)
    results = report.summarize(rows, args.rtol)
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, RESULT_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(sorted(results, key=lambda r: (list(SIZES).index(r["benchmark"]),
                                                       r["engine"] != "numpy", r["config"])))
    tables = report.Tables(results, headline)
    (out / "results.md").write_text(report.markdown(tables, args.rtol, report.machine_line(rows)))
    written = report.plots(tables, out)
    progress(f"wrote {out / 'results.md'}, {out / 'results.csv'}, "
             f"{', '.join(p.name for p in written)}", end="\n")
    bad = [r for r in results if r["failed"] or (r["engine"] == "hassium"
                                                 and not r.get("checksum_ok"))]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
