"""Boolean-mask updates: NumPy as users run it, NumPy with raised malloc thresholds, hassium.

Issue 15's idioms that used to leave the fast path (`nonzero` and a flush per update), each
program in fresh processes, side by side in one run, best of --repeat calls after a warm-up:

1. masked_add: `m = u > t; u[m] += q; u[m] *= r` on 10^6 float64 elements, 20 steps.
2. mandelbrot: NPBench's mandelbrot1 loop (`I = abs(Z) < 2; N[I] = n; Z[I] = Z[I]**2 + C[I]`)
   on a 400 x 400 grid, 40 iterations.
3. select_assign: `v[m] = w[m] * 2 + 1` between two 10^6 arrays, 20 steps.

    python benchmarks/masked_updates.py [--repeat 3]
"""

import argparse
import os
import subprocess
import sys
import textwrap

PROGRAMS = {
    "masked_add": """
        rng = numpy.random.default_rng(0)
        u0 = rng.random(1_000_000)
        def run():
            u = np.asarray(u0.copy())
            for k in range(20):
                m = u > 0.5
                u[m] += 0.25
                u[m] *= 0.9
            return float(u.sum())
    """,
    "mandelbrot": """
        def run(n=400, maxiter=40):
            X = np.linspace(-2.0, 0.5, n)
            Y = np.linspace(-1.25, 1.25, n)
            C = X + Y[:, None] * 1j
            N = np.zeros(C.shape, dtype=np.int64)
            Z = np.zeros(C.shape, dtype=np.complex128)
            for k in range(maxiter):
                I = np.less(abs(Z), 2.0)
                N[I] = k
                Z[I] = Z[I] ** 2 + C[I]
            return float(N.sum())
    """,
    "select_assign": """
        rng = numpy.random.default_rng(1)
        v0, w0 = rng.random(1_000_000), rng.random(1_000_000)
        def run():
            v, w = np.asarray(v0.copy()), np.asarray(w0.copy())
            for k in range(20):
                m = w > 0.3
                v[m] = w[m] * 2 + 1
                w = w * 0.97
            return float(v.sum())
    """,
}

DRIVER = """
import sys, time, numpy
import {module} as np
{program}
run()
best = min((lambda t: (run(), time.perf_counter() - t)[1])(time.perf_counter())
           for _ in range({repeat}))
print(best, run())
"""

MALLOC = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "17179869184",
          "MALLOC_TOP_PAD_": "1073741824"}


def measure(name, module, repeat, env_extra):
    code = DRIVER.format(module=module, program=textwrap.dedent(PROGRAMS[name]), repeat=repeat)
    env = dict(os.environ, **env_extra)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'program':14s} {'NumPy s':>9s} {'+malloc s':>9s} {'hassium s':>9s} "
          f"{'x NumPy':>8s} {'x +malloc':>9s}  results")
    for name in PROGRAMS:
        t_np, r_np = measure(name, "numpy", args.repeat, {})
        t_nm, _ = measure(name, "numpy", args.repeat, MALLOC)
        t_hs, r_hs = measure(name, "hassium", args.repeat, {})
        same = abs(r_np - r_hs) <= 1e-9 * max(1.0, abs(r_np))
        print(f"{name:14s} {t_np:9.4f} {t_nm:9.4f} {t_hs:9.4f} {t_np / t_hs:7.2f}x "
              f"{t_nm / t_hs:8.2f}x  {'agree' if same else f'DIFFER {r_np} {r_hs}'}")


if __name__ == "__main__":
    main()
