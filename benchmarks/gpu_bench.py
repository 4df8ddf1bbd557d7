#!/usr/bin/env python3
"""The GPU engine on the 15 benchmark programs: correctness, transfers, compile times, speed.

    gpu_bench.py [--engine opencl|cuda] [--programs a,b] [--numpy] [--timeout S]
                 [--sizes default|tiny|small|large|large-short] [--size PROGRAM=SIZE ...]

Runs each program of benchmarks/python twice with `python -m hassium` on the GPU engine -- cold
(an empty GPU program cache) and warm (the cache the cold run filled) -- and once on the CPU
engine, and prints per program: whether the checksums agree (relative 1e-9), the elapsed time of
each run, the GPU engine's copies host -> device and device -> host (count and MB), launches,
blocks it handed to the CPU engine, programs compiled, compile seconds (cold and warm).
Exit status 1 when a checksum differs or a run fails. --sizes takes benchmarks/run.py's size
presets (large: the paper-like sizes of benchmarks/python/README.md); --size PROGRAM=SIZE
overrides one program. --numpy also runs each program with plain NumPy (`python prog.py`, same
size) and adds its time and the speedups NumPy/warm and NumPy/cpu to the table (a NumPy checksum
that differs is reported, not counted as a failure). Where the engine cannot open its device,
hassium says so and runs on the CPU engine; a line under the program's row says so.

Here the OpenCL engine runs on PoCL (the CPU): its times say nothing about a GPU. On a machine
with an NVIDIA GPU, `--engine cuda` measures the CUDA engine.
"""
import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ["black_scholes", "game_of_life", "heat_equation", "leibnitz_pi", "gauss_elimination",
            "lu_factorization", "montecarlo_pi", "stencil27", "shallow_water", "rosenbrock", "sor",
            "nbody", "nbody_nice", "lbm_d3q19", "water_ice"]
COUNTERS = {
    "copies host -> device": "in",
    "bytes host -> device": "in_bytes",
    "copies device -> host": "out",
    "bytes device -> host": "out_bytes",
    "device kernel launches": "launches",
    "blocks the GPU engine ran on the CPU engine": "fallbacks",
    "kernels compiled": "compiled",
    "compile time (s)": "compile_s",
}


def size_presets():
    """benchmarks/run.py's SIZES ({program: {preset: size}}), read without importing run.py."""
    tree = ast.parse((ROOT / "benchmarks/run.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SIZES"
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("gpu_bench.py: no SIZES in benchmarks/run.py")


def run(program, engine, env_extra, size=None, timeout=1800):
    """(elapsed s, checksum, counters) of one run, or raises RuntimeError. engine "numpy": the
    program under plain NumPy (no hassium)."""
    script = str(ROOT / "benchmarks/python" / f"{program}.py")
    cmd = [sys.executable] + ([script] if engine == "numpy" else ["-m", "hassium", script])
    if size:
        cmd += ["--size", size]
    env = dict(os.environ, HASSIUM_STACK_ENGINE=engine, HASSIUM_PROFILE="1", **env_extra)
    if engine == "numpy":
        env = dict(os.environ, **env_extra)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{program} on {engine} failed ({p.returncode}): {p.stderr[-2000:]}")
    elapsed = float(re.search(r"^elapsed: ([0-9.e+-]+)", p.stdout, re.M).group(1))
    checksum = float(re.search(r"^checksum: (\S+)", p.stdout, re.M).group(1))
    counters = {"unavailable": f"engine {engine} unavailable" in p.stderr}
    for line in p.stderr.splitlines():
        m = re.match(r"^\s+(.+?):\s+([0-9.e+-]+)\s*$", line)
        if m and m.group(1) in COUNTERS:
            counters[COUNTERS[m.group(1)]] = float(m.group(2))
    return elapsed, checksum, counters


def close(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="opencl", choices=["opencl", "cuda"])
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--sizes", default="default",
                    choices=["default", "tiny", "small", "large", "large-short"],
                    help="benchmarks/run.py's size preset for every program; default: each "
                         "program's own default size")
    ap.add_argument("--size", action="append", default=[],
                    help="PROGRAM=SIZE (repeatable; over --sizes)")
    ap.add_argument("--numpy", action="store_true",
                    help="also run plain NumPy and print its time and the speedups over it")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds a run may take")
    args = ap.parse_args()
    programs = args.programs.split(",")
    sizes = {}
    if args.sizes != "default":
        presets = size_presets()
        sizes = {p: presets[p][args.sizes] for p in programs if p in presets}
    sizes.update(s.split("=", 1) for s in args.size)
    failed = False
    np_head = f" {'numpy':>7} {'np/warm':>7} {'np/cpu':>7}" if args.numpy else ""
    preset = f"; sizes {args.sizes}" if args.sizes != "default" else ""
    print(f"engine {args.engine}{preset}; times in s; copies as count/MB")
    print(f"{'program':18} {'ok':3} {'cpu':>7} {'cold':>7} {'warm':>7}{np_head} {'h->d':>12} "
          f"{'d->h':>12} {'launch':>7} {'cpu blk':>7} {'compiled':>8} {'cold cc':>8} "
          f"{'warm cc':>8}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for program in programs:
            size = sizes.get(program)
            cache = {"HASSIUM_GPU_CACHE_DIR": str(Path(tmp) / program),
                     "HASSIUM_GPU_KERNEL_CACHE": "disk"}
            try:
                cpu_t, cpu_sum, _ = run(program, "cpu", {}, size, args.timeout)
                cold_t, cold_sum, cold = run(program, args.engine, cache, size, args.timeout)
                warm_t, warm_sum, warm = run(program, args.engine, cache, size, args.timeout)
                if args.numpy:
                    np_t, np_sum, _ = run(program, "numpy", {}, size, args.timeout)
            except (RuntimeError, subprocess.TimeoutExpired, AttributeError) as e:
                print(f"{program:18} ERR {e}", flush=True)
                failed = True
                continue
            ok = close(cpu_sum, cold_sum) and close(cpu_sum, warm_sum)
            failed |= not ok
            mb = lambda c, k: f"{int(c.get(k, 0))}/{c.get(k + '_bytes', 0) / 1e6:.1f}"
            ratio = lambda a, b: f"{a / b:7.2f}" if b > 0 else f"{'-':>7}"
            np_cols = (f" {np_t:7.3f} {ratio(np_t, warm_t)} {ratio(np_t, cpu_t)}"
                       if args.numpy else "")
            print(f"{program:18} {'yes' if ok else 'NO':3} {cpu_t:7.3f} {cold_t:7.3f} "
                  f"{warm_t:7.3f}{np_cols} {mb(warm, 'in'):>12} {mb(warm, 'out'):>12} "
                  f"{int(warm.get('launches', 0)):7d} {int(warm.get('fallbacks', 0)):7d} "
                  f"{int(cold.get('compiled', 0)):8d} {cold.get('compile_s', 0):8.2f} "
                  f"{warm.get('compile_s', 0):8.2f}", flush=True)
            if warm["unavailable"]:
                print(f"  engine {args.engine} unavailable: hassium ran it on the CPU engine")
            if not ok:
                print(f"  checksums: cpu {cpu_sum!r}, cold {cold_sum!r}, warm {warm_sum!r}")
            if args.numpy and not close(cpu_sum, np_sum):
                print(f"  numpy checksum {np_sum!r} differs from hassium's {cpu_sum!r} "
                      "(not counted as a failure)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
