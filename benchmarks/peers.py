"""hassium beside its peers, in one run: NumPy, NumPy with raised malloc thresholds, numexpr,
Numba, JAX and hassium on four small programs.

    python benchmarks/peers.py [--peers-python PY] [--cases black_scholes,heat,fused_sum,loop_1k]
        [--frameworks numpy,numpy_tuned,numexpr,numba,jax,hassium] [--scale 1.0] [--repeat 5]
        [--out DIR]

The programs (each framework's idiomatic version of the same arithmetic, checked against
NumPy's result, relative 1e-8):
  black_scholes  one call price over 10^7 options (log, exp, sqrt, a rational CDF)
  heat           20 steps of a 5-point heat stencil on 2000 x 2000, in place
  fused_sum      sum(exp(a) * b) over 10^7 elements
  loop_1k        10,000 steps of a 10-operation chain on 1,000 elements (per-call overhead)
--scale multiplies the sizes (10^7 -> 10^7 * scale; loop steps too).

Each framework runs in a subprocess of its own: NumPy and hassium under this Python (hassium's
build from build/python, or an installed one), numexpr, Numba and JAX under --peers-python (a
venv of their own, not project dependencies; default benchmarks/.peers-venv/bin/python: `python3
-m venv benchmarks/.peers-venv && benchmarks/.peers-venv/bin/pip install numpy numexpr numba
"jax[cpu]"`). Inputs are made with NumPy in each subprocess from one seed. A subprocess calls the
program once (its "first" time: JIT compilation included for Numba, JAX and hassium), then
--repeat times; the best counts. JAX runs with x64 enabled (float64, as the others). hassium
runs with its default configuration and, for the cold/warm figures, once more in a fresh
process with empty caches: "cold process" is that process's first call.
Results: a table on stdout, and DIR/results.md, DIR/results.json (default
benchmarks/results/peers).
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
MALLOC_TUNED = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "17179869184",
                "MALLOC_TOP_PAD_": "1073741824"}
FRAMEWORKS = ["numpy", "numpy_tuned", "numexpr", "numba", "jax", "hassium"]
CASES = ["black_scholes", "heat", "fused_sum", "loop_1k"]
PEERS = {"numexpr", "numba", "jax"}


# --- the programs, per framework (run inside the worker) ------------------------------------

def inputs(case, scale):
    import numpy as np
    rng = np.random.default_rng(2026)
    if case == "black_scholes":
        n = int(10**7 * scale)
        return (40 + 30 * rng.random(n), 40 + 20 * rng.random(n))
    if case == "heat":
        m = int(2000 * scale**0.5)
        return (rng.random((m, m)),)
    if case == "fused_sum":
        n = int(10**7 * scale)
        return (rng.random(n) - 0.5, rng.random(n))
    if case == "loop_1k":
        return (rng.random(1000) + 0.5, rng.random(1000) + 0.5)
    raise ValueError(case)


BS = dict(r=0.02, v=0.3, t=1.25)
HEAT_STEPS, LOOP_STEPS = 20, 10000


def numpy_programs(np):
    """The NumPy programs; `np` is numpy or hassium."""
    def cdf(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978
                                                                            + k * 1.330274429))))
        upper = 1.0 - 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
        return 0.5 + np.sign(d) * (upper - 0.5)

    def black_scholes(s, k):
        r, v, t = BS["r"], BS["v"], BS["t"]
        sqrt_t = np.sqrt(t)
        d1 = (np.log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        return s * cdf(d1) - k * np.exp(-r * t) * cdf(d2)

    def heat(u):
        for _ in range(HEAT_STEPS):
            c = u[1:-1, 1:-1]
            u[1:-1, 1:-1] = c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                       - 4.0 * c)
        return u

    def fused_sum(a, b):
        return np.sum(np.exp(a) * b)

    def loop_1k(x, y):
        for _ in range(LOOP_STEPS):
            t = x * y + 1.0
            t = np.sqrt(t) - x
            t = np.sin(t * 0.5) + y
            t = t * t / 3.0
            x = t + 0.25
        return x

    return {"black_scholes": black_scholes, "heat": heat, "fused_sum": fused_sum,
            "loop_1k": loop_1k}


def numexpr_programs():
    import numexpr as ne
    import numpy as np

    def black_scholes(s, k):
        r, v, t = BS["r"], BS["v"], BS["t"]
        env = dict(s=s, k=k, r=r, v=v, t=t, sq=np.sqrt(t))
        d1 = ne.evaluate("(log(s / k) + (r + 0.5 * v * v) * t) / (v * sq)", local_dict=env)
        env.update(d1=d1, d2=ne.evaluate("d1 - v * sq", local_dict=dict(d1=d1, v=v, sq=env["sq"])),
                   e=np.exp(-r * t))
        cdf = ("(0.5 + where({d} > 0, 1.0, where({d} < 0, -1.0, 0.0)) * (1.0 - 0.3989422804014327"
               " * exp(-0.5 * {d} * {d}) * (1.0 / (1.0 + 0.2316419 * abs({d}))) * (0.319381530 +"
               " (1.0 / (1.0 + 0.2316419 * abs({d}))) * (-0.356563782 + (1.0 / (1.0 + 0.2316419 *"
               " abs({d}))) * (1.781477937 + (1.0 / (1.0 + 0.2316419 * abs({d}))) * (-1.821255978"
               " + (1.0 / (1.0 + 0.2316419 * abs({d}))) * 1.330274429)))) - 0.5))")
        return ne.evaluate(f"s * {cdf.format(d='d1')} - k * e * {cdf.format(d='d2')}",
                           local_dict=env)

    def heat(u):
        for _ in range(HEAT_STEPS):
            env = dict(c=u[1:-1, 1:-1], n=u[2:, 1:-1], s=u[:-2, 1:-1], e=u[1:-1, 2:],
                       w=u[1:-1, :-2])
            u[1:-1, 1:-1] = ne.evaluate("c + 0.1 * (n + s + e + w - 4.0 * c)", local_dict=env)
        return u

    def fused_sum(a, b):
        return ne.evaluate("sum(exp(a) * b)")

    def loop_1k(x, y):
        for _ in range(LOOP_STEPS):
            x = ne.evaluate("(sin((sqrt(x * y + 1.0) - x) * 0.5) + y) ** 2 / 3.0 + 0.25")
        return x

    return {"black_scholes": black_scholes, "heat": heat, "fused_sum": fused_sum,
            "loop_1k": loop_1k}


def numba_programs():
    import math

    import numba
    import numpy as np

    @numba.njit(fastmath=False, cache=False)
    def cdf(d):
        k = 1.0 / (1.0 + 0.2316419 * abs(d))
        poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978
                                                                            + k * 1.330274429))))
        upper = 1.0 - 0.3989422804014327 * math.exp(-0.5 * d * d) * poly
        return 0.5 + np.sign(d) * (upper - 0.5)

    @numba.njit(parallel=True)
    def black_scholes(s, k):
        r, v, t = 0.02, 0.3, 1.25
        out = np.empty_like(s)
        sqrt_t = math.sqrt(t)
        e = math.exp(-r * t)
        for i in numba.prange(s.size):
            d1 = (math.log(s[i] / k[i]) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
            d2 = d1 - v * sqrt_t
            out[i] = s[i] * cdf(d1) - k[i] * e * cdf(d2)
        return out

    @numba.njit(parallel=True)
    def heat(u):
        m, n = u.shape
        new = u.copy()
        for _ in range(20):
            for i in numba.prange(1, m - 1):
                for j in range(1, n - 1):
                    c = u[i, j]
                    new[i, j] = c + 0.1 * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1]
                                           - 4.0 * c)
            u, new = new, u
        return u

    @numba.njit(parallel=True)
    def fused_sum(a, b):
        s = 0.0
        for i in numba.prange(a.size):
            s += math.exp(a[i]) * b[i]
        return s

    @numba.njit
    def loop_1k(x, y):
        x = x.copy()
        for _ in range(10000):
            for i in range(x.size):
                t = math.sqrt(x[i] * y[i] + 1.0) - x[i]
                t = math.sin(t * 0.5) + y[i]
                x[i] = t * t / 3.0 + 0.25
        return x

    return {"black_scholes": black_scholes, "heat": heat, "fused_sum": fused_sum,
            "loop_1k": loop_1k}


def jax_programs():
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def cdf(d):
        k = 1.0 / (1.0 + 0.2316419 * jnp.abs(d))
        poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978
                                                                            + k * 1.330274429))))
        upper = 1.0 - 0.3989422804014327 * jnp.exp(-0.5 * d * d) * poly
        return 0.5 + jnp.sign(d) * (upper - 0.5)

    @jax.jit
    def black_scholes(s, k):
        r, v, t = BS["r"], BS["v"], BS["t"]
        sqrt_t = jnp.sqrt(t)
        d1 = (jnp.log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        return s * cdf(d1) - k * jnp.exp(-r * t) * cdf(d2)

    @jax.jit
    def heat(u):
        def step(_, u):
            c = u[1:-1, 1:-1]
            return u.at[1:-1, 1:-1].set(c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                                   + u[1:-1, :-2] - 4.0 * c))
        return jax.lax.fori_loop(0, HEAT_STEPS, step, u)

    @jax.jit
    def fused_sum(a, b):
        return jnp.sum(jnp.exp(a) * b)

    @jax.jit
    def loop_1k(x, y):
        def step(_, x):
            t = x * y + 1.0
            t = jnp.sqrt(t) - x
            t = jnp.sin(t * 0.5) + y
            t = t * t / 3.0
            return t + 0.25
        return jax.lax.fori_loop(0, LOOP_STEPS, step, x)

    def wrap(f):
        def run(*args):
            return f(*[jax.device_put(a) for a in args]).block_until_ready()
        return run

    return {k: wrap(f) for k, f in {"black_scholes": black_scholes, "heat": heat,
                                    "fused_sum": fused_sum, "loop_1k": loop_1k}.items()}


def worker(framework, case, scale, repeat):
    import numpy as np
    if framework in ("numpy", "numpy_tuned"):
        prog, finish = numpy_programs(np)[case], lambda r: r
    elif framework == "hassium":
        import hassium as hs
        prog = numpy_programs(hs)[case]

        def finish(r):
            hs.flush()
            return r
    elif framework == "numexpr":
        prog, finish = numexpr_programs()[case], lambda r: r
    elif framework == "numba":
        prog, finish = numba_programs()[case], lambda r: r
    else:
        prog, finish = jax_programs()[case], lambda r: r
    data = inputs(case, scale)

    def call():
        args = [a.copy() for a in data]
        if framework == "hassium":
            import hassium as hs
            args = [hs.asarray(a) for a in args]
            hs.flush()
        t0 = time.perf_counter()
        r = finish(prog(*args))
        return time.perf_counter() - t0, r

    first, r = call()
    times = []
    for _ in range(repeat):
        t, r = call()
        times.append(t)
    checksum = float(np.asarray(r, dtype=np.float64).sum())
    return {"first": first, "best": min(times), "median": statistics.median(times),
            "checksum": checksum}


# --- the runner -----------------------------------------------------------------------------

def run_worker(python, framework, case, args, env_extra=None, timeout=900):
    env = dict(os.environ)
    build_python = ROOT / "build" / "python"
    if build_python.is_dir():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(build_python),
                                                          env.get("PYTHONPATH")]))
    if framework == "numpy_tuned":
        env.update(MALLOC_TUNED)
    env.update(env_extra or {})
    cmd = [python, str(pathlib.Path(__file__).resolve()), "--worker", framework, "--case", case,
           "--scale", str(args.scale), "--repeat", str(args.repeat)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    ap.add_argument("--peers-python", default=str(HERE / ".peers-venv" / "bin" / "python"))
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=str(HERE / "results" / "peers"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.case, args.scale, args.repeat)))
        return 0
    cases = [c for c in args.cases.split(",") if c]
    frameworks = [f for f in args.frameworks.split(",") if f]
    bad = [c for c in cases if c not in CASES] + [f for f in frameworks if f not in FRAMEWORKS]
    if bad:
        raise SystemExit(f"unknown: {', '.join(bad)}; cases: {', '.join(CASES)}; frameworks: "
                         f"{', '.join(FRAMEWORKS)}")
    peers_ok = pathlib.Path(args.peers_python).exists()
    load0 = os.getloadavg()[0]
    results = {}
    for case in cases:
        results[case] = {}
        for fw in frameworks:
            if fw in PEERS and not peers_ok:
                results[case][fw] = {"error": f"no peers Python at {args.peers_python}"}
                continue
            py = args.peers_python if fw in PEERS else sys.executable
            results[case][fw] = run_worker(py, fw, case, args)
        if "hassium" in frameworks:  # a fresh process with empty caches: its first call
            with tempfile.TemporaryDirectory() as d:
                cold = run_worker(sys.executable, "hassium", case, args,
                                  {"HASSIUM_CPU_CACHE_DIR": f"{d}/k",
                                   "HASSIUM_FUSER_CACHE_DIR": f"{d}/f"})
            results[case]["hassium_cold_process"] = cold
        ref = results[case].get("numpy", {}).get("checksum")
        for fw, r in results[case].items():
            if "checksum" in r and ref is not None:
                r["matches_numpy"] = abs(r["checksum"] - ref) <= 1e-8 * max(1.0, abs(ref))
        print_case(case, results[case])
    load1 = os.getloadavg()[0]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps({"results": results, "scale": args.scale,
                                                  "repeat": args.repeat,
                                                  "load": [load0, load1]}, indent=1))
    write_markdown(out / "results.md", results, args, (load0, load1))
    print(f"1-minute load average {load0:.1f} at the start, {load1:.1f} at the end; results in "
          f"{out}")
    return 0


def print_case(case, res):
    base = res.get("numpy", {}).get("best")
    tuned = res.get("numpy_tuned", {}).get("best")
    print(f"{case}:")
    for fw, r in res.items():
        if "error" in r:
            print(f"  {fw:22} {r['error']}")
            continue
        x = f"{base / r['best']:6.2f}x NumPy" if base else ""
        xt = f"{tuned / r['best']:6.2f}x tuned" if tuned else ""
        ok = "" if r.get("matches_numpy", True) else "  MISMATCH"
        print(f"  {fw:22} best {r['best']:8.4f} s  first {r['first']:8.4f} s  {x}  {xt}{ok}")


def write_markdown(path, results, args, load):
    lines = ["# hassium beside its peers", "",
             f"Command: `python benchmarks/peers.py --scale {args.scale} --repeat {args.repeat}`;"
             f" best of {args.repeat} calls after a first call (JIT compilation there); "
             f"1-minute load average {load[0]:.1f} at the start, {load[1]:.1f} at the end. "
             "\"cold process\": hassium's first call in a fresh process with empty caches.", "",
             "| program | framework | best s | first s | x NumPy | x tuned NumPy | matches NumPy |",
             "|---|---|---|---|---|---|---|"]
    for case, res in results.items():
        base = res.get("numpy", {}).get("best")
        tuned = res.get("numpy_tuned", {}).get("best")
        for fw, r in res.items():
            if "error" in r:
                lines.append(f"| {case} | {fw} | {r['error']} | | | | |")
                continue
            lines.append(f"| {case} | {fw} | {r['best']:.4f} | {r['first']:.4f} | "
                         f"{base / r['best']:.2f}x | {tuned / r['best']:.2f}x | "
                         f"{'yes' if r.get('matches_numpy', True) else 'NO'} |")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
