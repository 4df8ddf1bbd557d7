"""The Python frontend's overhead, side by side with NumPy, in one run.

1. Per-operation recording cost: the time to record one operation (the instruction, a fresh
   output base and, for the replaced result, its FREE), measured over batches of recordings
   with flushing outside the timed region. Goal: under 2 us.
2. A 10-operation element-wise loop (temporaries included) on 1e3, 1e6 and 1e7 elements, with
   NumPy and with hassium (flushed by reading the result). Goals: within 2x of NumPy at 1e3
   (NumPy's own per-call overhead is the anchor), faster than NumPy at 1e6 and 1e7, >= 3x at 1e7.

    python benchmarks/python_overhead_bench.py [--quick]
"""

import argparse
import sys
import time

import numpy as np

import hassium as hs
from hassium import _hassium


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def recording_cost(batch, repeat):
    """Seconds per recorded operation for a few kinds of statements."""
    a = hs.ones(1000)
    b = hs.ones(1000)
    hs.flush()
    old = _hassium.flush_threshold()
    _hassium.set_flush_threshold(10 * batch + 100)
    cases = {
        "a + 1.0 (array, Python scalar)": lambda: a + 1.0,
        "a * b (two arrays)": lambda: a * b,
        "hs.exp(a) (ufunc call)": lambda: hs.exp(a),
        "a[1:-1] (basic slice, a view)": lambda: a[1:-1],
        "a[2:] + b[:-2] (slices + op)": lambda: a[2:] + b[:-2],
    }
    results = {}
    try:
        for name, stmt in cases.items():
            def run():
                for _ in range(batch):
                    stmt()

            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                run()
                times.append(time.perf_counter() - t0)
                hs.flush()
            results[name] = min(times) / batch
    finally:
        _hassium.set_flush_threshold(old)
    return results


def chain(m, x, y):
    """Ten element-wise operations with temporaries; returns the new x."""
    t = x * y
    t = t + 1.0
    t = m.sqrt(t)
    t = t - x
    t = t * 0.5
    t = m.sin(t)
    t = t + y
    t = t * t
    t = t / 3.0
    return t + 0.25


def loop_time(m, n, iters, repeat):
    x0 = m.linspace(0.0, 1.0, n)
    y = m.linspace(1.0, 2.0, n)

    def run():
        x = x0
        for _ in range(iters):
            x = chain(m, x, y)
        return float(x[n // 2])

    run()  # warm-up (JIT compiles, caches fill)
    return best_of(run, repeat) / iters


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, no 1e7")
    args = parser.parse_args()
    repeat = 3 if args.quick else 5

    print("hassium Python frontend overhead (best of %d)" % repeat)
    print()
    print("1. recording cost per operation")
    for name, sec in recording_cost(2000 if args.quick else 10000, repeat).items():
        print(f"   {name:34s} {sec * 1e6:7.2f} us")
    print()
    print("2. 10-operation loop, time per iteration")
    print(f"   {'elements':>10s} {'numpy':>12s} {'hassium':>12s} {'speedup':>8s}")
    sizes = [(1_000, 2000), (1_000_000, 10), (10_000_000, 3)]
    if args.quick:
        sizes = [(1_000, 500), (1_000_000, 5)]
    for n, iters in sizes:
        tn = loop_time(np, n, iters, repeat)
        th = loop_time(hs, n, iters, repeat)
        print(f"   {n:>10d} {tn * 1e3:10.3f}ms {th * 1e3:10.3f}ms {tn / th:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
