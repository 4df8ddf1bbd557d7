"""Tables and plots of benchmarks/run.py: medians, speedups and checksum checks per benchmark and
configuration (results.csv), Markdown tables (results.md) and PNG plots (matplotlib, Agg).

Used by run.py; kept apart so the tables can be rebuilt from runs.csv (`run.py --replot`).
"""

import math
import os
import statistics

# Benchmarks in the paper's order (run.py's SIZES), set by run.py before summarizing.
ORDER = []
CACHE_STATES = ["warm", "cold", "none"]

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
        res["errors"] = sorted({r["status"] for r in group if r["status"] != "ok"})
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
        self.benches = [b for b in ORDER if any(r["benchmark"] == b for r in results)]
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
        if "warm" in t.caches and "cold" in t.caches:
            lines += warm_vs_cold(t, model)
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
            lines.append(f"- {r['benchmark']} `{r['config']}`: {r['failed']} run(s) failed: "
                         f"{', '.join(r['errors'])}")
        lines.append("")
    lines += ["Plots: speedup.png, memory.png, partition_cost.png, algorithms.png, "
              "cost_models.png.", ""]
    return "\n".join(lines)


def warm_vs_cold(t, model):
    """Per benchmark: the headline algorithm with a warm cache against the fastest algorithm
    with a cold one (the goal: warm no slower than the best cold partition)."""
    algorithm = t.headline.split("/")[0] if t.headline else t.algorithms[0]
    lines = [f"## Warm cache ({algorithm}) against the best cold partition ({model} model)", "",
             "| benchmark | warm s | best cold | cold s | warm / best cold |",
             "|---|---|---|---|---|"]
    for b in t.benches:
        warm = t.get(b, f"{algorithm}/{model}/warm", "median_s")
        colds = [(t.get(b, f"{a}/{model}/cold", "median_s"), a) for a in t.algorithms]
        colds = [(v, a) for v, a in colds if v != ""]
        if warm == "" or not colds:
            continue
        best, name = min(colds)
        lines.append(f"| {b} | {cell(warm)} | {name} | {cell(best)} | {warm / best:.2f} |")
    return lines + [""]


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

    def time_panels(panels, names, config_of, title_of, suptitle, path):
        """One bar chart per panel: each name's time relative to NumPy's, per benchmark."""
        fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.2 * len(panels)), squeeze=False)
        for ax, panel in zip(axes[:, 0], panels):
            series = [(n, [relative(t, b, config_of(panel, n)) for b in benches]) for n in names]
            bars(ax, series, benches, "time / NumPy's", log=True)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_title(title_of(panel), fontsize=9)
        fig.suptitle(suptitle)
        return save(fig, path)

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

        written.append(time_panels(
            t.caches, t.algorithms,
            lambda cache, a: f"{a}/{model}/{cache}", lambda cache: f"{cache} merge cache",
            f"time per partition algorithm ({model} model), relative to NumPy",
            out / "algorithms.png"))

    fusing = [a for a in t.algorithms if a != "singleton"]
    if len(t.models) > 1 and fusing:
        written.append(time_panels(
            fusing, t.models, lambda a, m: f"{a}/{m}/{cache0}", str,
            f"time per cost model ({cache0} merge cache), relative to NumPy",
            out / "cost_models.png"))
    plt.close("all")
    return written


def relative(t, bench, config):
    value, ref = t.get(bench, config, "median_s"), t.get(bench, "numpy", "median_s")
    return value / ref if value != "" and ref else ""


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    return path


def machine_line(rows=()):
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
    env = [f"{k}={v}" for k, v in sorted(os.environ.items())
           if k.startswith(("OMP_", "GOMP_", "HASSIUM_")) and not k.startswith("HASSIUM_BENCH")]
    loads = sorted(float(r["load1"]) for r in rows if r.get("load1"))
    during = (f"1-minute load average at the start of the runs: median "
              f"{statistics.median(loads):.1f}, range {loads[0]:.1f}-{loads[-1]:.1f}; "
              if loads else "")
    return (f"Machine: {cpu}, {os.cpu_count()} cores, {avx}; {during}load average "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} when the tables were written."
            + (f" Environment: {' '.join(env)}." if env else ""))
