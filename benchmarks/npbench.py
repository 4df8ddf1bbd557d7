"""Runs NPBench (https://github.com/spcl/npbench) with NumPy, hassium, and Numba and JAX where
installed, side by side, validating every output against NumPy's; writes tables and a plot.

    python benchmarks/npbench.py --npbench PATH [--preset S|M|L|paper] [--kernels a,b,...]
        [--frameworks numpy,numpy_tuned,hassium,numba,jax] [--repeat N] [--timeout SECONDS]
        [--out benchmarks/results/npbench] [--peers-python PY] [--replot]

PATH is a checkout of spcl/npbench (nothing of it is copied here). Per kernel (a file
bench_info/NAME.json of the checkout) and framework, one fresh subprocess:
  1. initializes the inputs with NumPy, as NPBench does: the preset's parameters, then the
     kernel's `initialize` from NAME's module (NumPy's legacy global RNG is seeded first, so that
     an `initialize` that draws from it gives every subprocess the same inputs; a fingerprint
     of the inputs is compared with NumPy's subprocess);
  2. loads the framework's implementation from the checkout: `<module>_numpy.py` for numpy,
     numpy_tuned and hassium (for hassium with `numpy` resolved to hassium by the importer of
     `python -m hassium`, the file unmodified), `<module>_numba_<variant>.py` (--numba-variants,
     default `n`: nopython mode, the variant every kernel has) and `<module>_jax.py` (JAX's
     default implementation, with jax_enable_x64 as NPBench sets it);
  3. per call: fresh copies of the kernel's array arguments, converted to the framework's arrays
     and materialized before the clock starts (hassium: hassium.asarray + flush; JAX: device_put
     + block_until_ready); the clock covers the call and making its results available (hassium:
     flush; JAX: block_until_ready). One warm-up call (reported as the first-run time; its
     outputs are the ones validated), then --repeat timed calls; the best is reported.
A call that runs longer than --timeout is a timeout (the subprocess is killed).

Frameworks:
  numpy        NumPy as users run it (the reference of every validation)
  numpy_tuned  NumPy with glibc's malloc thresholds raised (MALLOC_MMAP_THRESHOLD_,
               MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_, as bootstrap.sh's main job)
  hassium      the NumPy implementation run on hassium; with --hassium-cache cold (default) every
               subprocess starts with empty kernel and merge caches on disk, so the first-run
               time is a user's first run
  numba, jax   NPBench's own implementations, run by --peers-python (default
               benchmarks/.peers-venv/bin/python when it exists); skipped when absent
numpy and hassium run with --python (default: this interpreter).

Validation is NPBench's criterion: each output passes when np.allclose(ref, val, rtol, atol)
holds or its relative error ||ref - val|| / ||ref|| is below norm_error (rtol 1e-5, atol 1e-8,
norm_error 1e-5 unless the kernel's bench_info says otherwise). The outputs of a call are its
return values followed by the kernel's output_args (arrays it updates in place); like NPBench,
lists of different lengths are compared pairwise over the shorter one (JAX returns what NumPy
updates in place; its outputs are its return values only, as its arrays are immutable). Shapes
must agree. Where NumPy's call returns nothing and bench_info names no output_args (NPBench
then compares nothing), the arrays NumPy's call updated in place are compared. Exceptions,
timeouts and crashes are reported with their messages. Where NumPy gives no outputs (a
timeout), tuned NumPy's outputs are the reference, and the report says so.

Output in --out: results.md (tables: per kernel, summary, failures), results.csv (one row per
kernel), results.json (every record; --replot rebuilds the other files from it) and
speedup.png (per-kernel speedup over NumPy, log axis). --update --kernels a,b reruns those
kernels and replaces only their records in results.json.
"""

import argparse
import csv
import gc
import json
import math
import os
import pathlib
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "npbench"
DEFAULT_PEERS = HERE / ".peers-venv" / "bin" / "python"

FRAMEWORKS = ("numpy", "numpy_tuned", "hassium", "numba", "jax")
LABELS = {"numpy": "NumPy", "numpy_tuned": "NumPy tuned", "hassium": "hassium", "numba": "Numba",
          "jax": "JAX"}
PEER_FRAMEWORKS = ("numba", "jax")
# glibc keeps freed memory instead of returning every large temporary to the OS (bootstrap.sh).
TUNED_MALLOC_ENV = {
    "MALLOC_MMAP_THRESHOLD_": "4294967296",
    "MALLOC_TRIM_THRESHOLD_": "17179869184",
    "MALLOC_TOP_PAD_": "1073741824",
}
# NPBench's Numba variants (file suffix -> its name for them).
NUMBA_VARIANTS = {"o": "object-mode", "op": "object-mode-parallel",
                  "opr": "object-mode-parallel-range", "n": "nopython-mode",
                  "np": "nopython-mode-parallel", "npr": "nopython-mode-parallel-range"}
PRESETS = ("S", "M", "L", "paper")
RTOL, ATOL, NORM_ERROR = 1e-5, 1e-8, 1e-5
SEED = 42
OK = "ok"
# Statuses of a (kernel, framework) record.
FAILED = ("error", "timeout", "crash", "mismatch", "inputs-differ")
NOT_RUN = ("missing", "unavailable")


# --------------------------------------------------------------------------------------------
# The NPBench checkout


def load_kernels(npbench):
    """{name: bench_info's "benchmark" dict} of every bench_info/*.json of the checkout."""
    root = pathlib.Path(npbench)
    infos = sorted((root / "bench_info").glob("*.json"))
    if not infos:
        raise SystemExit(f"npbench: error: {root} has no bench_info/*.json: "
                         "not a checkout of spcl/npbench")
    kernels = {}
    for path in infos:
        with open(path) as f:
            kernels[path.stem] = json.load(f)["benchmark"]
    return kernels


def kernel_dir(npbench, info):
    return pathlib.Path(npbench) / "npbench" / "benchmarks" / info["relative_path"]


def impl_file(npbench, info, framework, variant=""):
    """The implementation file of a framework for a kernel (None when the checkout has none)."""
    base = info["module_name"]
    if framework in ("numpy", "numpy_tuned", "hassium"):
        name = f"{base}_numpy.py"
    elif framework == "numba":
        name = f"{base}_numba_{variant}.py"
    elif framework == "jax":
        name = f"{base}_jax.py"
    else:
        raise ValueError(framework)
    path = kernel_dir(npbench, info) / name
    return path if path.is_file() else None


def tolerances(info):
    return (info.get("rtol", RTOL), info.get("atol", ATOL), info.get("norm_error", NORM_ERROR))


# --------------------------------------------------------------------------------------------
# Validation, summaries (pure; unit-tested without a checkout)


def relative_error(ref, val):
    """||ref - val|| / ||ref|| (Frobenius), in float64 or complex128."""
    import numpy as np

    ref, val = np.asarray(ref), np.asarray(val)
    kind = np.complex128 if (ref.dtype.kind == "c" or val.dtype.kind == "c") else np.float64
    ref, val = ref.astype(kind), val.astype(kind)
    with np.errstate(all="ignore"):
        return float(np.linalg.norm(ref - val) / np.linalg.norm(ref))


def validate(ref, val, rtol=RTOL, atol=ATOL, norm_error=NORM_ERROR):
    """NPBench's criterion over lists of outputs. Returns (ok, detail): detail names each output
    that failed (and why), or notes what passed only by the relative-error test."""
    import numpy as np

    ref, val = list(ref), list(val)
    notes, bad = [], []
    if len(ref) != len(val):
        notes.append(f"NumPy gave {len(ref)} outputs, this {len(val)}: compared the first "
                     f"{min(len(ref), len(val))}")
    if ref and not val:
        return False, "no outputs"
    for i, (r, v) in enumerate(zip(ref, val)):
        try:
            r, v = np.asarray(r), np.asarray(v)
            if r.shape != v.shape:
                bad.append(f"output {i}: shape {v.shape} where NumPy's is {r.shape}")
                continue
            if r.dtype.kind in "OSUV" or v.dtype.kind in "OSUV":
                if not np.array_equal(r, v):
                    bad.append(f"output {i}: differs (dtype {v.dtype})")
                continue
            if r.dtype.kind == "b" or v.dtype.kind == "b":
                r, v = r.astype(np.int64), v.astype(np.int64)
            with np.errstate(all="ignore"):
                if np.allclose(r, v, rtol=rtol, atol=atol):
                    continue
            err = relative_error(r, v)
            if err < norm_error:
                notes.append(f"output {i}: relative error {err:.2g} (not allclose)")
                continue
            with np.errstate(all="ignore"):
                diff = np.abs(r.astype(np.complex128 if r.dtype.kind == "c" else np.float64)
                              - v.astype(np.complex128 if v.dtype.kind == "c" else np.float64))
            worst = float(np.nanmax(diff)) if diff.size else 0.0
            nans = int(np.count_nonzero(np.isnan(v))) if v.dtype.kind in "fc" else 0
            ref_nans = int(np.count_nonzero(np.isnan(r))) if r.dtype.kind in "fc" else 0
            msg = (f"output {i}: relative error {err:.3g} > {norm_error:g}, max abs diff "
                   f"{worst:.3g}")
            if nans != ref_nans:
                msg += f", {nans} NaN (NumPy {ref_nans})"
            if v.dtype != r.dtype:
                msg += f", dtype {v.dtype} vs NumPy's {r.dtype}"
            bad.append(msg)
        except Exception as e:  # an output that cannot be compared is a mismatch, said so
            bad.append(f"output {i}: cannot compare: {type(e).__name__}: {e}")
    return not bad, "; ".join(bad + notes)


def geomean(values):
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def speedup(base, value):
    if base is None or value is None or value <= 0:
        return None
    return base / value


def best_record(records):
    """Of several records of one framework on one kernel (Numba variants): the fastest that
    validated, else the fastest that ran, else the first."""
    for pick in (lambda r: r["status"] == OK, lambda r: r.get("best_s") is not None):
        chosen = [r for r in records if pick(r)]
        if chosen:
            return min(chosen, key=lambda r: r["best_s"] if r.get("best_s") is not None
                       else math.inf)
    return records[0]


class Results:
    """The records of a run, indexed by kernel and framework (the best Numba variant)."""

    def __init__(self, records, frameworks, preset, meta=None):
        self.records = records
        self.frameworks = list(frameworks)  # with numpy first
        self.preset = preset
        self.meta = meta or {}
        self.kernels = []
        by = {}
        for r in records:
            if r["kernel"] not in self.kernels:
                self.kernels.append(r["kernel"])
            by.setdefault((r["kernel"], r["framework"]), []).append(r)
        self.cell = {key: best_record(rs) for key, rs in by.items()}

    def get(self, kernel, framework):
        return self.cell.get((kernel, framework))

    def time(self, kernel, framework):
        r = self.get(kernel, framework)
        return r.get("best_s") if r else None

    def valid_time(self, kernel, framework):
        """The best time when the record validated (NumPy: when it ran), else None."""
        r = self.get(kernel, framework)
        return r["best_s"] if r and r["status"] == OK else None

    def speedup(self, kernel, framework, base="numpy"):
        return speedup(self.valid_time(kernel, base), self.valid_time(kernel, framework))

    def compared(self):
        """The frameworks compared with NumPy: those that ran at all in this run."""
        return [f for f in self.frameworks if f != "numpy" and any(
            (r := self.get(k, f)) is not None and r["status"] != "unavailable"
            for k in self.kernels)]

    def common_kernels(self):
        """Kernels that NumPy and every compared framework ran and validated."""
        fws = ["numpy"] + self.compared()
        return [k for k in self.kernels if all(self.valid_time(k, f) is not None for f in fws)]

    def summary(self):
        """Per compared framework: counts, geomeans (common set and own validated set), the
        number of validated kernels slower than NumPy / tuned NumPy."""
        common = self.common_kernels()
        have_tuned = "numpy_tuned" in self.compared()
        rows = []
        for f in self.compared():
            recs = [self.get(k, f) for k in self.kernels]
            recs = [r for r in recs if r is not None]
            valid = [k for k in self.kernels if self.speedup(k, f) is not None]
            row = {
                "framework": f,
                "kernels": len(self.kernels),
                "ran": sum(1 for r in recs if r.get("best_s") is not None),
                "validated": sum(1 for r in recs if r["status"] == OK),
                "common": len(common),
                "geomean_numpy_common": geomean([self.speedup(k, f) for k in common]),
                "geomean_tuned_common": (geomean([self.speedup(k, f, "numpy_tuned")
                                                  for k in common]) if have_tuned else None),
                "own": len(valid),
                "geomean_numpy_own": geomean([self.speedup(k, f) for k in valid]),
                "slower_numpy": sum(1 for k in valid if self.speedup(k, f) < 1),
                "slower_tuned": (sum(1 for k in valid
                                     if (s := self.speedup(k, f, "numpy_tuned")) is not None
                                     and s < 1) if have_tuned else None),
            }
            for status in FAILED + NOT_RUN + ("no-reference",):
                row[status] = sum(1 for r in recs if r["status"] == status)
            rows.append(row)
        return rows


def fmt_s(x):
    if x is None:
        return ""
    return f"{x:.4f}" if x < 1 else f"{x:.3f}" if x < 100 else f"{x:.1f}"


def fmt_x(x):
    if x is None:
        return ""
    return f"{x:.3f}x" if x < 0.1 else f"{x:.2f}x"


def status_cell(r):
    if r is None:
        return ""
    return r["status"] if r["status"] == OK else r["status"].upper()


def table_rows(res):
    """The per-kernel table: a header and one list of cells per kernel (CSV and Markdown)."""
    fws = res.compared()
    header = ["kernel", "preset", "numpy_s", "numpy_status"]
    for f in fws:
        header += [f"{f}_s", f"{f}_vs_numpy"]
        if "numpy_tuned" in fws and f != "numpy_tuned":
            header += [f"{f}_vs_tuned"]
        header += [f"{f}_first_s", f"{f}_status"]
    rows = []
    for k in res.kernels:
        rn = res.get(k, "numpy")
        row = [k, res.preset, res.time(k, "numpy"), rn["status"] if rn else ""]
        for f in fws:
            r = res.get(k, f)
            row += [r.get("best_s") if r else None, res.speedup(k, f)]
            if "numpy_tuned" in fws and f != "numpy_tuned":
                row += [res.speedup(k, f, "numpy_tuned")]
            row += [r.get("first_s") if r else None, r["status"] if r else ""]
        rows.append(row)
    return header, rows


def write_csv(res, path):
    header, rows = table_rows(res)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for row in rows:
            w.writerow(["" if c is None else (f"{c:.6g}" if isinstance(c, float) else c)
                        for c in row])
    return path


def markdown_table(res):
    fws = res.compared()
    tuned = "numpy_tuned" in fws
    head = ["kernel", "NumPy s"]
    for f in fws:
        head += [f"{LABELS[f]} s", "x NumPy"]
        if tuned and f != "numpy_tuned":
            head += ["x tuned"]
        if f != "numpy_tuned":
            head += ["first s"]
        head += ["status"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k in res.kernels:
        rn = res.get(k, "numpy")
        cells = [k, fmt_s(res.time(k, "numpy")) + ("" if rn is None or rn["status"] == OK
                                                    else f" {status_cell(rn)}")]
        for f in fws:
            r = res.get(k, f)
            s = res.speedup(k, f)
            cells += [fmt_s(r.get("best_s")) if r else "",
                      (f"**{fmt_x(s)}**" if s is not None and s < 1 else fmt_x(s))]
            if tuned and f != "numpy_tuned":
                cells += [fmt_x(res.speedup(k, f, "numpy_tuned"))]
            if f != "numpy_tuned":
                cells += [fmt_s(r.get("first_s")) if r else ""]
            cells += [status_cell(r)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def summary_table(res):
    rows = res.summary()
    lines = ["| framework | ran | validated | geomean x NumPy (common) | x tuned (common) | "
             "geomean x NumPy (own validated) | slower than NumPy | slower than tuned | "
             "errors | timeouts | crashes | mismatches | missing |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["framework"] == "numpy_tuned":  # against itself: no figure
            r = dict(r, geomean_tuned_common=None, slower_tuned=None)
        lines.append(
            f"| {LABELS[r['framework']]} | {r['ran']}/{r['kernels']} | {r['validated']} | "
            f"{fmt_x(r['geomean_numpy_common'])} | {fmt_x(r['geomean_tuned_common'])} | "
            f"{fmt_x(r['geomean_numpy_own'])} ({r['own']}) | {r['slower_numpy']} | "
            f"{'' if r['slower_tuned'] is None else r['slower_tuned']} | {r['error']} | "
            f"{r['timeout']} | {r['crash']} | {r['mismatch'] + r['inputs-differ']} | "
            f"{r['missing'] + r['unavailable']} |")
    return lines, rows


def failure_lines(res):
    lines = []
    for f in res.frameworks:
        for k in res.kernels:
            r = res.get(k, f)
            if r is None or r["status"] == OK or r["status"] == "unavailable":
                continue
            text = r.get("error") or r.get("detail") or ""
            lines.append(f"- {LABELS[f]} / {k}: **{r['status']}**" + (f": {text}" if text else ""))
    return lines


def slow_lines(res, framework, limit=None):
    """Validated kernels slower than NumPy, slowest ratio first."""
    items = [(res.speedup(k, framework), k) for k in res.kernels]
    items = sorted((s, k) for s, k in items if s is not None and s < 1)
    return [f"{k} {fmt_x(s)}" for s, k in items[:limit]]


def write_markdown(res, path, plot_name=None):
    lines = [f"# NPBench, preset {res.preset}: " + ", ".join(LABELS[f] for f in res.frameworks),
             ""]
    meta = res.meta
    if meta.get("command"):
        lines += [f"Command: `{meta['command']}`", ""]
    for key in ("when", "npbench", "machine", "load", "versions", "settings", "note"):
        if meta.get(key):
            lines += [f"- {key}: {meta[key]}"]
    for update in meta.get("updates", []):
        lines += [f"- rerun: {update}"]
    lines += ["", "Times are seconds, the best of the timed calls after one warm-up call; "
              "\"first\" is the warm-up call (JIT compilation included); \"x NumPy\" is NumPy's "
              "time over the framework's (> 1: faster; bold: slower than NumPy), counted only "
              "where the framework's outputs validated against NumPy's. Geomeans \"common\" are "
              "over the kernels that NumPy and every compared framework ran and validated; "
              "\"own\" over the kernels the framework validated.", ""]
    summ, _ = summary_table(res)
    lines += ["## Summary", ""] + summ + [""]
    common = res.common_kernels()
    lines += [f"Common set ({len(common)} kernels): {', '.join(common) or '-'}", ""]
    for f in res.compared():
        slow = slow_lines(res, f)
        if slow and f != "numpy_tuned":
            lines += [f"{LABELS[f]} slower than NumPy ({len(slow)}): {', '.join(slow)}", ""]
    if plot_name:
        lines += [f"![speedup over NumPy]({plot_name})", ""]
    lines += ["## Per kernel", ""] + markdown_table(res) + [""]
    fails = failure_lines(res)
    lines += ["## Failures, mismatches, timeouts", ""] + (fails or ["none"]) + [""]
    fallbacks = [(k, f, r["fallbacks"]) for (k, f), r in sorted(res.cell.items())
                 if r.get("fallbacks")]
    if fallbacks:
        lines += ["## NumPy functions hassium ran through NumPy (FallbackWarning)", ""]
        lines += [f"- {k}: {', '.join(fb)}" for k, f, fb in fallbacks] + [""]
    unavailable = sorted({(r["framework"], r.get("error", "")) for r in res.records
                          if r["status"] == "unavailable"})
    if unavailable:
        lines += ["## Skipped frameworks", ""]
        lines += [f"- {LABELS[f]}: {msg}" for f, msg in unavailable] + [""]
    with open(path, "w") as fh:
        fh.write("\n".join(lines))
    return path


def plot(res, path, per_row=28):
    """Per-kernel speedup over NumPy, one bar group per kernel, bars from 1 (up: faster, down:
    slower), log axis; rows of at most per_row kernels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fws = res.compared()
    kernels = res.kernels
    m = max(1, len(fws))
    rows = max(1, math.ceil(len(kernels) / per_row))
    cols = min(len(kernels), per_row) or 1
    fig, axes = plt.subplots(rows, 1, figsize=(max(8.0, 0.14 * cols * (m + 1) + 2), 4.2 * rows),
                             squeeze=False)
    width = 0.8 / m
    colors = {"numpy_tuned": "#9e9e9e", "hassium": "#d62728", "numba": "#1f77b4",
              "jax": "#2ca02c"}
    values = [s for f in fws for k in kernels if (s := res.speedup(k, f)) is not None]
    lo, hi = min(values + [1.0]) / 1.6, max(values + [1.0]) * 1.6
    summary = {r["framework"]: r for r in res.summary()}
    for row in range(rows):
        ax = axes[row][0]
        chunk = kernels[row * per_row:(row + 1) * per_row]
        for j, f in enumerate(fws):
            xs, ys, fx = [], [], []
            for i, k in enumerate(chunk):
                s = res.speedup(k, f)
                x = i - 0.4 + width * (j + 0.5)
                if s is not None:
                    xs.append(x)
                    ys.append(s)
                elif (r := res.get(k, f)) is not None and r["status"] not in NOT_RUN:
                    fx.append(x)
            g = summary.get(f, {}).get("geomean_numpy_common")
            label = LABELS[f] + (f" (geomean {fmt_x(g)} on the common set)" if g else "")
            ax.bar(xs, [y - 1 for y in ys], width, bottom=1, label=label, color=colors.get(f))
            if fx:
                ax.plot(fx, [lo * 1.25] * len(fx), "x", color=colors.get(f), markersize=6)
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(chunk)))
        ax.set_xticklabels(chunk, rotation=60, ha="right", fontsize=8)
        ax.set_xlim(-0.6, cols - 0.4)
        ax.set_ylabel("speedup over NumPy")
        ax.grid(axis="y", which="major", alpha=0.3)
        if row == 0:
            ax.set_title(f"NPBench preset {res.preset}: NumPy's time / the framework's "
                         "(x: ran, but failed, timed out or did not validate)")
            ax.legend(fontsize=8, loc="upper left", ncol=min(m, 4))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_report(res, out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(res, out / "results.csv")
    png = None
    try:
        png = plot(res, out / "speedup.png").name
    except ImportError as e:
        print(f"npbench: no plot ({e})", file=sys.stderr)
    write_markdown(res, out / "results.md", png)
    return out


def save_json(res, path):
    with open(path, "w") as f:
        json.dump({"preset": res.preset, "frameworks": res.frameworks, "meta": res.meta,
                   "records": res.records}, f, indent=1)


def load_json(path):
    with open(path) as f:
        d = json.load(f)
    return Results(d["records"], d["frameworks"], d["preset"], d.get("meta"))


# --------------------------------------------------------------------------------------------
# The child: one kernel under one framework, in its own process


def _fingerprint(data):
    """A hash of the initialized inputs (large arrays: a strided sample of at most 8M elements)."""
    import hashlib

    import numpy as np

    h = hashlib.blake2b(digest_size=16)
    for key in sorted(data):
        value = data[key]
        h.update(key.encode())
        if isinstance(value, np.ndarray):
            h.update(f"{value.dtype.str}{value.shape}".encode())
            flat = value.reshape(-1)
            step = max(1, flat.size // (8 << 20))
            sample = np.ascontiguousarray(flat[::step])
            if sample.dtype.kind != "O":
                h.update(sample.view(np.uint8).reshape(-1).data)
        else:
            h.update(repr(value).encode())
    return h.hexdigest()


def _load_module(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _initialize(spec, info, np):
    """The kernel's inputs as NPBench builds them: the preset's parameters, then initialize()."""
    data = dict(info["parameters"][spec["preset"]])
    init = info.get("init")
    if init:
        module = _load_module(spec["dir"] + "/" + info["module_name"] + ".py",
                              "npbench_init_" + info["module_name"])
        result = getattr(module, init["func_name"])(*[data[a] for a in init["input_args"]])
        names = init["output_args"]
        if len(names) == 1:
            data[names[0]] = result
        else:
            result = tuple(result)
            if len(result) != len(names):
                raise ValueError(f"initialize returned {len(result)} values for {names}")
            data.update(zip(names, result))
    return data


def child_main(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    events = os.fdopen(spec["event_fd"], "w", buffering=1)

    def emit(**kw):
        events.write(json.dumps(kw) + "\n")
        events.flush()

    phase = ["import"]
    try:
        _child_run(spec, emit, phase)
    except BaseException as e:  # noqa: BLE001 (everything is reported to the parent)
        tb = traceback.extract_tb(e.__traceback__)
        where = ""
        for frame in reversed(tb):
            if frame.filename.startswith(spec["dir"]):
                where = f"{os.path.basename(frame.filename)}:{frame.lineno}: {frame.line}"
                break
        if not where and tb:
            where = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}"
        emit(event="error", phase=phase[0], type=type(e).__name__,
             message=str(e).strip()[:2000], where=where,
             traceback="".join(traceback.format_exception(e))[-6000:])
        return 1
    return 0


def _child_run(spec, emit, phase):
    framework, info = spec["framework"], spec["info"]
    del sys.path[0]  # benchmarks/ (this file's folder) is nobody's import root
    sys.path.insert(0, spec["dir"])
    if framework == "hassium":
        # Before NumPy, as `python -m hassium` loads them: hassium sets how NumPy's BLAS threads
        # wait (ve/cpu/blas.h) before NumPy starts them.
        import hassium  # noqa: F401
    import numpy as np

    jax = None
    if framework == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)  # as NPBench's JAX framework
    elif framework == "numba":
        import numba  # noqa: F401

    phase[0] = "initialize"
    np.random.seed(SEED)  # for initialize() functions that draw from the legacy global RNG
    data = _initialize(spec, info, np)
    emit(event="inputs", hash=_fingerprint(data))

    phase[0] = "load"
    fallbacks = []
    if framework == "hassium":
        import warnings

        import hassium
        from hassium import _importer

        shown = warnings.showwarning

        def record(message, category, *args, **kwargs):
            if issubclass(category, hassium.FallbackWarning):
                m = re.search(r"numpy\.([\w.]+)", str(message))
                fallbacks.append(m.group(1) if m else str(message))
            return shown(message, category, *args, **kwargs)

        warnings.simplefilter("always", hassium.FallbackWarning)
        warnings.showwarning = record
        _importer.install(spec["impl"])  # `import numpy` in the kernel's folder gives hassium

        def convert(a):
            return hassium.asarray(np.copy(a))

        def sync(objects):
            hassium.flush()
    elif framework == "jax":
        def convert(a):
            return jax.device_put(np.copy(a))

        def sync(objects):
            jax.block_until_ready(objects)
    else:
        convert = np.copy

        def sync(objects):
            pass

    module = _load_module(spec["impl"], f"npbench_{framework}_{info['module_name']}")
    kernel = getattr(module, info["func_name"])
    arrays, outputs = info["array_args"], info.get("output_args", [])

    times = []
    for call in range(1 + spec["repeat"]):
        phase[0] = "copy inputs"
        ctx = dict(data)
        for a in arrays:
            ctx[a] = convert(data[a])
        sync([ctx[a] for a in arrays])
        args = [ctx[a] for a in info["input_args"]]
        phase[0] = "first run" if call == 0 else f"timed run {call}"
        gc.collect()
        emit(event="call", index=call)
        gc.disable()  # as timeit (NPBench's clock) does
        try:
            t0 = time.perf_counter()
            result = kernel(*args)
            sync([result] + [ctx[a] for a in outputs])
            t1 = time.perf_counter()
        finally:
            gc.enable()
        times.append(t1 - t0)
        emit(event="called", index=call, seconds=t1 - t0)
        if call == 0:
            phase[0] = "save outputs"
            if result is None:
                outs = []
            elif isinstance(result, (tuple, list)):
                outs = list(result)
            else:
                outs = [result]
            if framework != "jax":  # JAX cannot update in place: it returns those arrays
                outs += [ctx[a] for a in outputs]
            host = {f"out{i}": np.asarray(o) for i, o in enumerate(outs)}
            inplace = []
            if not outputs and framework != "jax":
                # bench_info names no output_args: the arrays the call updated in place are
                # kept too (NumPy's kernel may return nothing; see validate_record)
                for a in arrays:
                    now = np.asarray(ctx[a])
                    if now.shape != data[a].shape or not np.array_equal(now, data[a],
                                                                        equal_nan=True):
                        host[f"inplace_{a}"] = now
                        inplace.append(a)
            np.savez(spec["outputs"], **host)
            emit(event="outputs", count=len(outs), inplace=inplace,
                 meta=[f"{h.dtype}{list(h.shape)}" for h in host.values()][:len(outs)])
            del outs, host
        del result, args, ctx
    emit(event="done", first_s=times[0], times=times[1:],
         fallbacks=sorted(set(fallbacks)))


# --------------------------------------------------------------------------------------------
# The parent: one subprocess per kernel and framework


def _tail(path, n=1500):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode(errors="replace").strip()
    except OSError:
        return ""


def run_child(python, spec, env, timeout, init_timeout, work):
    """Runs one kernel under one framework; returns a record (status, times, error text)."""
    r_fd, w_fd = os.pipe()
    spec = dict(spec, event_fd=w_fd)
    tag = f"{spec['kernel']}.{spec['framework']}{spec.get('variant') or ''}"
    spec_path = work / f"{tag}.json"
    log_path = work / f"{tag}.log"
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    rec = {"kernel": spec["kernel"], "framework": spec["framework"],
           "variant": spec.get("variant", ""), "status": "crash", "best_s": None,
           "first_s": None, "times": []}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([python, str(pathlib.Path(__file__).resolve()), "--child",
                                 str(spec_path)], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env, pass_fds=(w_fd,),
                                start_new_session=True)
    os.close(w_fd)
    start = time.monotonic()
    deadline, waiting_for = start + init_timeout, "start-up and initialization"
    limit = init_timeout
    buf, events, timed_out, finished = b"", [], False, False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r_fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(r_fd, 65536)
            if not chunk:
                finished = True
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                ev = json.loads(line)
                events.append(ev)
                if ev["event"] == "call":
                    limit = timeout
                    deadline = time.monotonic() + timeout
                    waiting_for = "first run" if ev["index"] == 0 else f"timed run {ev['index']}"
                elif ev["event"] in ("called", "inputs", "outputs"):
                    limit = init_timeout
                    deadline = time.monotonic() + init_timeout
                    waiting_for = {"called": "saving outputs / copying inputs",
                                   "inputs": "loading the implementation",
                                   "outputs": "the next run"}[ev["event"]]
    finally:
        os.close(r_fd)
        if not finished:  # a timeout, or the runner itself interrupted
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status, usage = os.wait4(proc.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        # leftover grandchildren (a framework's workers) go with the session
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    rec["max_rss_mb"] = round(usage.ru_maxrss / 1024)
    rec["wall_s"] = round(time.monotonic() - start, 3)
    for ev in events:
        if ev["event"] == "inputs":
            rec["input_hash"] = ev["hash"]
        elif ev["event"] == "called" and ev["index"] == 0:
            rec["first_s"] = ev["seconds"]
        elif ev["event"] == "called":
            rec["times"].append(ev["seconds"])
        elif ev["event"] == "outputs":
            rec["outputs"] = ev["count"]
            rec["output_meta"] = ev["meta"]
            rec["inplace"] = ev.get("inplace", [])
        elif ev["event"] == "done":
            rec["fallbacks"] = ev["fallbacks"]
        elif ev["event"] == "error":
            rec["status"] = "error"
            msg = f"{ev['type']}: {ev['message']}" if ev["message"] else ev["type"]
            rec["error"] = (f"{msg} (in {ev['phase']}" + (f", at {ev['where']}" if ev["where"]
                                                          else "") + ")")
            rec["traceback"] = ev["traceback"]
    if rec["times"]:
        rec["best_s"] = min(rec["times"])
    elif rec["first_s"] is not None and spec["repeat"] == 0:
        rec["best_s"] = rec["first_s"]
    if timed_out:
        rec["status"] = "timeout"
        rec["error"] = f"{waiting_for} did not finish in {limit:g} s"
        if rec["first_s"] is not None:
            rec["error"] += f" (first run took {rec['first_s']:.3f} s)"
    elif rec["status"] == "error":
        pass
    elif any(ev["event"] == "done" for ev in events) and rc == 0:
        rec["status"] = OK  # ran; validation decides later
    else:
        how = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
        rec["error"] = f"the subprocess died ({how}, in {waiting_for}): {_tail(log_path, 600)}"
    if rec["status"] != OK and rec["status"] != "timeout":
        rec["log_tail"] = _tail(log_path)
    return rec


def child_env(framework, hassium_cache, work):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    if framework == "numpy_tuned":
        env.update(TUNED_MALLOC_ENV)
    if framework == "hassium" and hassium_cache == "cold":
        cache = pathlib.Path(tempfile.mkdtemp(prefix="hassium-cache-", dir=work))
        env["HASSIUM_CPU_CACHE_DIR"] = str(cache / "kernels")
        env["HASSIUM_FUSER_CACHE_DIR"] = str(cache / "fuser")
    return env


def probe(python, framework, env):
    """None when the framework can be imported by that Python, else why not."""
    module = {"numpy": "numpy", "numpy_tuned": "numpy", "hassium": "hassium",
              "numba": "numba", "jax": "jax"}[framework]
    if not python or not os.path.exists(python):
        return f"no Python for it ({python or 'no --peers-python'})"
    try:
        p = subprocess.run([python, "-c", f"import {module}, sys; "
                            f"print(getattr({module}, '__version__', '?'))"],
                           capture_output=True, text=True, env=env, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{python}: {e}"
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        return f"`import {module}` fails under {python}: {last}"
    return None


def version_of(python, module, env):
    try:
        p = subprocess.run([python, "-c", f"import {module}; print({module}.__version__)"],
                           capture_output=True, text=True, env=env, timeout=300)
        return p.stdout.strip() if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def machine_line():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = next(int(line.split()[1]) // (1 << 20) for line in open("/proc/meminfo")
                   if line.startswith("MemTotal"))
        mem = f", {mem} GiB"
    except (OSError, StopIteration):
        mem = ""
    return f"{cpu}, {os.cpu_count()} cores{mem}"


def git_commit(path):
    try:
        p = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True, timeout=30)
        return p.stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def split_names(text, valid, what):
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in valid]
    if bad:
        raise SystemExit(f"npbench: error: unknown {what} {', '.join(bad)}; valid: "
                         f"{', '.join(valid)}")
    return names


def progress_line(rec):
    r = rec
    name = r["framework"] + (f"[{r['variant']}]" if r.get("variant") else "")
    t = (f"{fmt_s(r['best_s'])} s" if r.get("best_s") is not None else "-")
    first = f" (first {fmt_s(r['first_s'])} s)" if r.get("first_s") is not None else ""
    extra = r.get("error") or r.get("detail") or ""
    return f"  {r['kernel']:<26} {name:<14} {t:>11}{first:<22} {r['status']}" + (
        f": {extra[:300]}" if extra else "")


def validate_record(rec, ref_rec, ref_path, out_path, info):
    """Sets rec's status from its outputs against NumPy's (in place)."""
    import numpy as np

    if rec["status"] != OK:
        return
    if ref_rec is None or ref_rec["status"] != OK or ref_path is None:
        rec["status"] = "no-reference"
        rec["detail"] = "NumPy gave no outputs to validate against"
        return
    if ref_rec.get("input_hash") != rec.get("input_hash"):
        rec["status"] = "inputs-differ"
        rec["detail"] = "the initialized inputs differ from NumPy's subprocess"
        return
    rtol, atol, norm_error = tolerances(info)
    names = ref_rec.get("inplace") if not ref_rec["outputs"] else None
    with np.load(ref_path, allow_pickle=True) as z:
        if names:
            ref = [z[f"inplace_{n}"] for n in names]
        else:
            ref = [z[f"out{i}"] for i in range(ref_rec["outputs"])]
    notes = []
    with np.load(out_path, allow_pickle=True) as z:
        if names and not rec["outputs"]:
            # NumPy's kernel returns nothing and bench_info names no outputs (NPBench compares
            # nothing): compare the arrays NumPy's call updated in place
            notes.append(f"compared the arrays NumPy updates in place: {', '.join(names)}")
            missing = [n for n in names if n not in rec.get("inplace", [])]
            if missing:
                rec["status"] = "mismatch"
                rec["detail"] = (f"did not update {', '.join(missing)} in place as NumPy "
                                 "does")
                return
            val = [z[f"inplace_{n}"] for n in names]
        else:
            if names:  # JAX returns what NumPy updates in place
                notes.append(f"compared its results with what NumPy updates in place: "
                             f"{', '.join(names)}")
            val = [z[f"out{i}"] for i in range(rec["outputs"])]
    if not ref:
        notes.append("nothing to compare: NumPy's call neither returns nor updates anything")
    ok, detail = validate(ref, val, rtol, atol, norm_error)
    detail = "; ".join(x for x in [detail] + notes if x)
    if detail:
        rec["detail"] = detail
    if not ok:
        rec["status"] = "mismatch"


def merged(kept, records):
    """Records of an earlier run and this one's, by kernel name (a stable sort)."""
    return sorted(kept + records, key=lambda r: r["kernel"])


def run(args):
    npbench = pathlib.Path(args.npbench).resolve()
    kernels = load_kernels(npbench)
    names = split_names(args.kernels, list(kernels), "kernel") if args.kernels else list(kernels)
    frameworks = split_names(args.frameworks, FRAMEWORKS, "framework")
    if "numpy" not in frameworks:
        print("npbench: numpy runs anyway: it is the reference of every validation")
    frameworks = ["numpy"] + [f for f in FRAMEWORKS if f in frameworks and f != "numpy"]
    numba_variants = split_names(args.numba_variants, list(NUMBA_VARIANTS), "Numba variant")
    python = args.python or sys.executable
    peers = args.peers_python
    if peers is None and DEFAULT_PEERS.exists():
        peers = str(DEFAULT_PEERS)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="npbench-", dir=args.work))

    base_env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    unavailable, versions = {}, {}
    for f in frameworks:
        py = peers if f in PEER_FRAMEWORKS else python
        why = probe(py, f, base_env)
        if why:
            unavailable[f] = why
            print(f"npbench: {f} skipped: {why}")
    for f, module in (("numpy", "numpy"), ("hassium", "hassium"), ("numba", "numba"),
                      ("jax", "jax")):
        if f in frameworks and f not in unavailable:
            py = peers if f in PEER_FRAMEWORKS else python
            versions[module] = version_of(py, module, base_env)
    if "numpy" in unavailable:
        raise SystemExit(f"npbench: error: NumPy cannot run: {unavailable['numpy']}")
    if peers and any(f in frameworks and f not in unavailable for f in PEER_FRAMEWORKS):
        versions["numpy (peers)"] = version_of(peers, "numpy", base_env)

    load_before = os.getloadavg()
    meta = {
        "command": " ".join(["python", os.path.relpath(__file__)] + sys.argv[1:]),
        "when": time.strftime("%Y-%m-%d %H:%M %Z"),
        "npbench": f"{npbench} (commit {git_commit(npbench)})",
        "machine": machine_line(),
        "versions": ", ".join(f"{k} {v}" for k, v in versions.items() if v)
        + f", hassium commit {git_commit(HERE)}",
        "settings": (f"repeat {args.repeat} (best of) after 1 warm-up, timeout {args.timeout:g} s "
                     f"per call, hassium caches {args.hassium_cache}, Numba variants "
                     f"{','.join(numba_variants)}"),
        "note": args.note,
    }
    records, kept, shown = [], [], frameworks
    previous = out / "results.json"
    if args.update and previous.exists():
        # rerun the named kernels under these frameworks, keep the earlier run's other records
        old = load_json(previous)
        if old.preset != args.preset:
            raise SystemExit(f"npbench: error: --update: {previous} is preset {old.preset}")
        kept = [r for r in old.records
                if r["kernel"] not in names or r["framework"] not in frameworks]
        shown = [f for f in FRAMEWORKS if f in frameworks or f in old.frameworks]
        updates = old.meta.get("updates", [])
        meta = dict(old.meta, updates=updates + [
            f"{meta['when']}: reran {', '.join(names)} with {', '.join(frameworks)} "
            f"(`{meta['command']}`)"
            + (f"; {args.note}" if args.note else "")])
    res = Results(records, shown, args.preset, meta)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up as on Ctrl-C
    print(f"npbench: {len(names)} kernels, preset {args.preset}, frameworks "
          f"{', '.join(frameworks)}; work dir {work}")
    try:
        for name in names:
            info = kernels[name]
            if args.preset not in info["parameters"]:
                for f in frameworks:
                    records.append({"kernel": name, "framework": f, "variant": "",
                                    "status": "missing", "best_s": None, "first_s": None,
                                    "times": [], "error": f"no preset {args.preset}"})
                continue
            ref_rec, ref_path, ref_note = None, None, ""
            for f in frameworks:
                variants = numba_variants if f == "numba" else [""]
                for v in variants:
                    rec0 = {"kernel": name, "framework": f, "variant": v, "best_s": None,
                            "first_s": None, "times": []}
                    if f in unavailable:
                        rec = dict(rec0, status="unavailable", error=unavailable[f])
                        records.append(rec)
                        continue
                    impl = impl_file(npbench, info, f, v)
                    if impl is None:
                        rec = dict(rec0, status="missing",
                                   error=f"the checkout has no {f} implementation"
                                   + (f" variant {v}" if v else ""))
                        records.append(rec)
                        continue
                    outputs = work / f"{name}.{f}{v}.npz"
                    spec = {"kernel": name, "framework": f, "variant": v, "info": info,
                            "preset": args.preset, "repeat": args.repeat,
                            "dir": str(kernel_dir(npbench, info)), "impl": str(impl),
                            "outputs": str(outputs)}
                    py = peers if f in PEER_FRAMEWORKS else python
                    env = child_env(f, args.hassium_cache, work)
                    rec = run_child(py, spec, env, args.timeout, args.init_timeout, work)
                    rec["python"] = py
                    if f == "numpy":
                        ref_rec = rec
                        ref_path = outputs if rec["status"] == OK else None
                    elif f == "numpy_tuned" and ref_path is None and rec["status"] == OK:
                        # NumPy gave nothing (a timeout): the same NumPy under another malloc
                        # gives the outputs to validate the others against
                        why = ref_rec["status"] if ref_rec else "did not run"
                        rec["detail"] = f"the reference here (NumPy: {why})"
                        ref_rec, ref_path = rec, outputs
                        ref_note = "validated against tuned NumPy's outputs"
                    else:
                        validate_record(rec, ref_rec, ref_path, outputs, info)
                        if ref_note and rec["status"] in (OK, "mismatch"):
                            rec["detail"] = "; ".join(x for x in (ref_note, rec.get("detail"))
                                                      if x)
                        if outputs.exists():
                            outputs.unlink()
                    records.append(rec)
                    print(progress_line(rec), flush=True)
            if ref_path is not None and ref_path.exists():
                ref_path.unlink()
            for d in work.glob("hassium-cache-*"):
                shutil.rmtree(d, ignore_errors=True)
            res = Results(merged(kept, records), shown, args.preset, meta)
            save_json(res, out / "results.json")
    finally:
        load_after = os.getloadavg()
        load = (f"1-minute load average {load_before[0]:.1f} at the start, "
                f"{load_after[0]:.1f} at the end")
        if kept:
            meta["updates"][-1] += f"; {load}"
        else:
            meta["load"] = load
        res = Results(merged(kept, records), shown, args.preset, meta)
        save_json(res, out / "results.json")
        if not args.keep_work:
            shutil.rmtree(work, ignore_errors=True)
    return res


def print_report(res, out):
    print()
    print("\n".join(markdown_table(res)))
    print()
    print("\n".join(summary_table(res)[0]))
    for f in res.compared():
        slow = slow_lines(res, f)
        if slow and f != "numpy_tuned":
            print(f"{LABELS[f]} slower than NumPy ({len(slow)}): {', '.join(slow)}")
    fails = failure_lines(res)
    if fails:
        print("\nFailures:")
        print("\n".join(fails))
    print(f"\nwritten: {out}/results.md, results.csv, results.json, speedup.png")


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--child"]:
        return child_main(argv[1])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--npbench", default=os.environ.get("NPBENCH_DIR"),
                   help="a checkout of spcl/npbench (default: $NPBENCH_DIR)")
    p.add_argument("--preset", choices=PRESETS, default="L")
    p.add_argument("--kernels", default="", help="comma list of bench_info names (default all)")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                   help=f"comma list of {', '.join(FRAMEWORKS)} (default all)")
    p.add_argument("--repeat", type=int, default=3,
                   help="timed calls after the warm-up; the best is reported (default 3)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds one call may take before it is a timeout (default 60)")
    p.add_argument("--init-timeout", type=float, default=300.0,
                   help="seconds for start-up, initialization, input copies and saving outputs "
                   "(each; default 300)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="results folder")
    p.add_argument("--python", default=None,
                   help="the Python that runs numpy, numpy_tuned and hassium (default: this one)")
    p.add_argument("--peers-python", default=None,
                   help="the Python that runs numba and jax (default: "
                   "benchmarks/.peers-venv/bin/python when it exists)")
    p.add_argument("--numba-variants", default="n",
                   help="NPBench's Numba variants to run (o, op, opr, n, np, npr); with several, "
                   "the fastest that validates is reported (default n)")
    p.add_argument("--hassium-cache", choices=("cold", "configured"), default="cold",
                   help="cold: empty kernel/merge cache directories per subprocess; configured: "
                   "hassium's configured ones (default cold)")
    p.add_argument("--note", default="", help="a line for the report (e.g. the machine's load)")
    p.add_argument("--work", default=None, help="where the temporary files go")
    p.add_argument("--keep-work", action="store_true", help="keep logs and outputs")
    p.add_argument("--update", action="store_true",
                   help="rerun --kernels with --frameworks and replace only those records in --out's "
                   "results.json")
    p.add_argument("--replot", action="store_true",
                   help="rebuild results.md/csv/png from --out's results.json, run nothing")
    args = p.parse_args(argv)
    out = pathlib.Path(args.out)
    if args.replot:
        res = load_json(out / "results.json")
    else:
        if not args.npbench:
            p.error("--npbench PATH (a checkout of spcl/npbench) is required; get one with "
                    "`git clone https://github.com/spcl/npbench`")
        if args.repeat < 0:
            p.error("--repeat must be >= 0")
        res = run(args)
    write_report(res, out)
    print_report(res, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
