"""How the runtime's cost of a flush grows with its size, and the fixed cost of one flush.

Issue 15's figures, measured side by side in one run:

1. Per-instruction cost of one flush of n = 10^3, 10^4, 10^5 instructions for the access
   patterns that made it grow faster than n: element-wise chains (blocks of ~16 fused ops between
   reductions), row sweeps and column sweeps over one matrix (many views of one base), and
   shrinking views (Gauss/LU-style trailing updates). The program is recorded with the flush
   threshold out of the way, then flushed once. "runtime" is the flush's time without kernel
   compilation and kernel execution (the profile counters' compile and execute seconds): the
   cost of filters, fusion, planning and launch. Goal: flat within 2x from 10^3 to 10^5.
   A flush longer than [stack] piece_size runs as consecutive pieces (core/program_pieces.h);
   --piece-sizes measures under other values too (0: each flush in one piece, as before pieces).
2. The fixed cost of a flush that is not an exact repeat: a sliding window read back each step,
   its views moved every time (the plan is replayed once check_partition accepts it for the
   moved views), then also of another length every step (reshaped: the plan's kernels are
   planned again).
   Goal: <= 30 us per flush.

Each (pattern, n) runs in --repeat fresh processes (its kernels compiled first by a smaller
warm-up of the same pattern, so compile time stays out of the way) with a timeout; the process
with the least runtime counts (a flush of 10^3 instructions takes a few milliseconds, and one
measurement of it moves 2x with the machine's noise).

    python benchmarks/flush_scaling.py [--sizes 1000,10000,100000] [--repeat 3] [--timeout 300]
        [--patterns ...] [--piece-sizes config,0]
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap

PATTERNS = {
    # Blocks of 16 element-wise ops on 1,000 elements, each block ended by a reduction into acc.
    "chain": """
        a, b = hs.arange(1000.0) * 1e-3, hs.ones(1000) * 0.5
        acc = hs.zeros(n // 17 + 1)
        def body(i):
            nonlocal a
            t = a
            for _ in range(8):
                t = t * 1.0001 + b                # 2 instructions (plus a FREE)
            acc[i] = t.sum()
            a = t
        per_iter = 17
    """,
    # In-place updates of rows of a 64 x 64 matrix, each reading another row.
    "rows": """
        A = hs.ones((64, 64))
        def body(i):
            A[i % 64, :] += A[(i + 7) % 64, :] * 0.5   # MULTIPLY into a temporary, ADD
        per_iter = 2
    """,
    # The same over columns: every column's index interval spans the whole matrix, so only an
    # exact test tells that two columns are disjoint.
    "columns": """
        A = hs.ones((64, 64))
        def body(i):
            A[:, i % 64] += A[:, (i + 7) % 64] * 0.5
        per_iter = 2
    """,
    # Gauss elimination's trailing update, over and over on a 96 x 96 matrix: views that shrink
    # with k and overlap every earlier one.
    "shrinking": """
        A = hs.ones((96, 96)) + hs.eye(96) * 96
        def body(i):
            k = i % 94
            A[k + 1:, k + 1:] -= A[k + 1:, k:k + 1] * (A[k:k + 1, k + 1:] * (1 / 96.0))
        per_iter = 3
    """,
}

SCALING = """
import time, hassium as hs
hs._hassium.set_flush_threshold(10**9)
def run(n):
{setup}
    iters = max(1, n // per_iter)
    before = hs.profile()
    t0 = time.perf_counter()
    for i in range(iters):
        body(i)
    recorded = hs._hassium.pending()
    t1 = time.perf_counter()
    hs.flush()
    t2 = time.perf_counter()
    after = hs.profile()
    d = {{k: after[k] - before[k] for k in ("compile_seconds", "execute_seconds", "fuse_seconds",
                                           "kernels_compiled", "flushes", "blocks")}}
    return dict(instructions=recorded, record=t1 - t0, flush=t2 - t1, **d)
run(min({n} // 2, 1000))         # warm-up: kernels compiled; not the same n (no exact repeat)
print("RESULT", __import__("json").dumps(run({n})))
"""

# A flush per step whose views move every time (never an exact repeat): a sliding window read
# back each step, as loops with data-dependent control flow do. One program for both libraries
# (`xp`); hassium's run also reports its profile counters over the timed steps.
NONREPEATING = """
import time, {module} as xp
profile = getattr(xp, "profile", dict)
x = xp.arange(4096.0) * 1e-3
def step(i):
    o = i % 1000
    n = {length}
    y = x[o:o + n] * 2.0 + x[o + 1:o + n + 1]
    return float(y[7])
for i in range(200):
    step(i)                      # warm: kernels and merge-cache entries exist
before = profile()
t0 = time.perf_counter()
steps = {steps}
for i in range(steps):
    step(i + 3)
t = time.perf_counter() - t0
after = profile()
d = {{k: after[k] - before[k] for k in ("compile_seconds", "execute_seconds", "fuse_seconds",
                                       "flush_seconds", "flushes", "plans_reused") if k in after}}
print("RESULT", __import__("json").dumps(dict(total=t, steps=steps, **d)))
"""


def run_child(code, timeout, piece_size=None):
    env = dict(os.environ)
    if piece_size is not None:
        env["HASSIUM_STACK_PIECE_SIZE"] = str(piece_size)
    try:
        r = subprocess.run([sys.executable, "-c", code], env=env, text=True, capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"child failed:\n{r.stdout}\n{r.stderr}")


def runtime_of(r):
    """The flush's seconds without kernel compilation and execution: the runtime's own cost."""
    return r["flush"] - r["compile_seconds"] - r["execute_seconds"]


def scaling_code(pattern, n):
    setup = textwrap.indent(textwrap.dedent(PATTERNS[pattern]).strip(), "    ")
    return SCALING.format(setup=setup, n=n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--patterns", default=",".join(PATTERNS))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--repeat", type=int, default=3,
                    help="fresh processes per (pattern, n); the least runtime counts")
    ap.add_argument("--steps", type=int, default=2000, help="flushes in the non-repeating loop")
    ap.add_argument("--piece-sizes", default="config",
                    help="[stack] piece_size values to measure each pattern under, comma-separated: "
                         "'config' (the configuration's), or a number (0 = each flush whole)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    patterns = args.patterns.split(",")
    pieces = [None if p == "config" else int(p) for p in args.piece_sizes.split(",")]

    print("1. Per-instruction cost of one flush (us per instruction; runtime = flush without "
          f"compile and kernel execution; the least of {max(1, args.repeat)} processes)")
    print(f"{'pattern':<10} {'pieces':>6} {'n':>7} {'record':>8} {'flush':>8} {'runtime':>8} "
          f"{'fusion':>8} {'blocks':>7} {'compiled':>8}")
    verdicts = []
    for pattern, piece in ((p, q) for p in patterns for q in pieces):
        label = "config" if piece is None else str(piece)
        first = None
        for n in sizes:
            r = None
            for _ in range(max(1, args.repeat)):
                one = run_child(scaling_code(pattern, n), args.timeout, piece)
                if one is None:
                    r = None
                    break
                if r is None or runtime_of(one) < runtime_of(r):
                    r = one
            if r is None:
                print(f"{pattern:<10} {label:>6} {n:>7}  did not finish in {args.timeout:.0f} s")
                verdicts.append((pattern, label, None))
                break
            k = r["instructions"]
            runtime = runtime_of(r) / k * 1e6
            print(f"{pattern:<10} {label:>6} {k:>7} {r['record'] / k * 1e6:>8.2f} {r['flush'] / k * 1e6:>8.2f} "
                  f"{runtime:>8.2f} {r['fuse_seconds'] / k * 1e6:>8.2f} {r['blocks']:>7} "
                  f"{r['kernels_compiled']:>8}")
            first = runtime if first is None else first
            last = runtime
        else:
            verdicts.append((pattern, label, last / first))
    for pattern, label, growth in verdicts:
        text = "did not finish" if growth is None else f"{growth:.2f}x"
        ok = growth is not None and growth <= 2
        print(f"   {pattern} (pieces: {label}): runtime per instruction at {sizes[-1]} / at {sizes[0]}: {text} "
              f"(goal <= 2x: {'met' if ok else 'NOT met'})")

    print("\n2. A flush that is not an exact repeat (a sliding window read back every step)")
    for what, length in (("moved", "2048"), ("moved and reshaped", "1024 + (i % 7) * 128")):
        h = run_child(NONREPEATING.format(module="hassium", steps=args.steps, length=length),
                      args.timeout)
        npy = run_child(NONREPEATING.format(module="numpy", steps=args.steps, length=length),
                        args.timeout)
        per_flush = (h["flush_seconds"] - h["compile_seconds"] - h["execute_seconds"]) / h["flushes"]
        print(f"   {what}: hassium {h['total'] / args.steps * 1e6:.1f} us per step "
              f"({h['flushes']} flushes, {h['plans_reused']} plans reused); runtime per flush "
              f"{per_flush * 1e6:.1f} us (fusion {h['fuse_seconds'] / h['flushes'] * 1e6:.1f} us; "
              f"goal <= 30 us: {'met' if per_flush <= 30e-6 else 'NOT met'}); NumPy "
              f"{npy['total'] / args.steps * 1e6:.1f} us per step "
              f"({npy['total'] / h['total']:.2f}x hassium's speed)")

if __name__ == "__main__":
    main()
