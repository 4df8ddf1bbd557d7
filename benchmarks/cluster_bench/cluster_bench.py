#!/usr/bin/env python3
"""cluster_bench: the cluster VEM measured at P = 1, 2, 4 ranks and a scaling model to 64 nodes.

    python3 benchmarks/cluster_bench/cluster_bench.py [--ranks 1,2,4] [--quick]

For heat equation, Black-Scholes, N-body and SOR (benchmarks/python) it runs
`mpirun -np P python -m hassium PROGRAM --size ...` with HASSIUM_PROFILE=1 and reads each rank's
counters (bytes and messages sent, collectives) from the report the cluster VEM prints at exit.
Two runs per P that differ only in the step count give the figures per step (the difference
over the extra steps: set-up, the initial scatter and the final gathers cancel out).

Measured here: the per-rank compute rate (elements updated per second of wall time at P = 1, one
rank on this machine) and the bytes, messages and collectives per step at each P. On this 2-core
machine P = 4 oversubscribes: wall times beyond P = 2 show overhead only, not speed.

The model (printed with its inputs): a node computes a step of n elements in n / rate seconds;
per step a rank sends b(P) bytes in m(P) messages and joins c collectives. b and m are fitted
from P = 2 and 4 as per-rank figures (the stencils' halo per rank does not grow with P; where
the total grows faster than P - 1, the busiest rank's share grows with it: see comm()). A message costs latency + bytes/bandwidth,
a collective 2 log2(P) latencies (recursive doubling). Network: 100 Gb/s, 2 us.
  without overlap:
  strong scaling (fixed problem):    T(P) = t1 / P + msg(P) + coll(P),  efficiency = t1 / (P T(P))
  weak scaling (problem grows with P, outer dimension): T(P) = t1 + msg(P) + coll(P),
                                     efficiency = t1 / T(P)
  with the measured overlap (the cluster VEM runs a phase's rows that need no remote element
  while its messages travel; each rank counts the elements it computes before and after the
  wait, and all it computes): of a rank's compute c (t1 / P strong, t1 weak) the phases with
  messages take the share s = (before + after) / all, the rows after the wait a fixed time per
  step tb = after / all * t1 / P' (measured at the largest P', the busiest rank: a halo's rows
  do not shrink with P), at most s c; then
                                     T(P) = (1 - s) c + max(s c - tb, msg(P)) + tb + coll(P)
  (collectives end a phase: they never overlap). Where nothing is computed before a wait the
  two models agree.
The runs here set [cluster] overlap = on (HASSIUM_CLUSTER_OVERLAP, unless set): the default, auto,
splits phases only where the ranks span nodes, as the modelled cluster's do, never on this one
machine, where the counters would then show no overlap. The wall times at P > 1 are those with
the split (vem/cluster/README.md, Overlap, has what it costs on one machine).
"""
import argparse
import math
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BANDWIDTH = 100e9 / 8  # bytes/s
LATENCY = 2e-6  # s

# name, size template (steps filled in), elements per step, steps (short, long)
PROGRAMS = [
    ("heat_equation", "1000*1000*{}", 1000 * 1000, (5, 25)),
    ("black_scholes", "1000000*{}", 1000000, (2, 10)),
    ("nbody", "1000*{}", 1000 * 1000, (2, 10)),
    ("sor", "1000*1000*{}", 1000 * 1000, (5, 25)),
]
RANK_LINE = re.compile(r"hassium cluster rank (\d+): sent (\d+) bytes in (\d+) messages, "
                       r"received (\d+) bytes in (\d+) messages, (\d+) programs \((\d+) bytes\), "
                       r"(\d+) collectives, waited ([\d.]+) s; (\d+) elements computed, "
                       r"(\d+) before waits, (\d+) after, (\d+) exchanges ready before the wait")


def run(program, size, ranks):
    cmd = [sys.executable, "-m", "hassium", str(ROOT / "benchmarks" / "python" / f"{program}.py"),
           "--size", size]
    if ranks > 1:
        cmd = ["mpirun", "--oversubscribe", "-np", str(ranks)] + cmd
        if os.geteuid() == 0:
            cmd.insert(1, "--allow-run-as-root")
    env = dict(os.environ, HASSIUM_STACK_VEM="cluster", HASSIUM_PROFILE="1",
               HASSIUM_PYTHON_FALLBACK_WARNINGS="0")
    env.setdefault("HASSIUM_CLUSTER_OVERLAP", "on")  # as on a cluster of nodes (auto)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    elapsed = float(re.search(r"^elapsed: (\S+)", r.stdout, re.M).group(1))
    ranks_seen = [tuple(map(float, m.groups()[1:])) for m in RANK_LINE.finditer(r.stderr)]
    if ranks > 1 and len(ranks_seen) != ranks:
        sys.exit(f"{program}: expected {ranks} rank reports, got {len(ranks_seen)}")
    if ranks == 1:
        ranks_seen = [(0.0,) * 12]
    # per rank: sent bytes, sent messages, collectives, elements computed, before waits, after
    return elapsed, [(s[0], s[1], s[6], s[8], s[9], s[10]) for s in ranks_seen]


def per_step(program, size, steps, ranks):
    run(program, size.format(steps[0]), ranks)  # warm-up: the kernels into the disk cache
    (t0, r0), (t1, r1) = (run(program, size.format(s), ranks) for s in steps)
    d = steps[1] - steps[0]
    rows = [tuple((b - a) / d for a, b in zip(x, y)) for x, y in zip(r0, r1)]
    return (t1 - t0) / d, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--nodes", default="1,2,4,8,16,32,64")
    args = ap.parse_args()
    ranks = [int(p) for p in args.ranks.split(",")]
    nodes = [int(p) for p in args.nodes.split(",")]
    print(f"network model: {BANDWIDTH * 8 / 1e9:.0f} Gb/s, {LATENCY * 1e6:.0f} us latency; "
          f"machine: {os.cpu_count()} cores (P > {os.cpu_count()} oversubscribed: overhead only)")
    for program, size, elements, steps in PROGRAMS:
        print(f"\n== {program} --size {size.format('I')}, steps {steps[0]} and {steps[1]}")
        meas = {}
        for p in ranks:
            t, rows = per_step(program, size, steps, p)
            meas[p] = (t, rows)
            bmax = max(r[0] for r in rows)
            mmax = max(r[1] for r in rows)
            coll = max(r[2] for r in rows)
            print(f"P={p}: {t * 1e3:8.3f} ms/step wall, {elements / t / p / 1e6:8.2f} M elements/s "
                  f"per rank; per step: {sum(r[0] for r in rows):10.0f} bytes in "
                  f"{sum(r[1] for r in rows):5.1f} messages (all ranks), busiest rank "
                  f"{bmax:.0f} bytes in {mmax:.1f} messages, {coll:.1f} collectives")
        t1 = meas[1][0]
        multi = [p for p in ranks if p > 1]
        # The busiest rank's bytes and messages per step at the largest P measured, scaled by
        # how the total grew from P = 2 to it: total ~ (P - 1)^g; g = 1 (nearest neighbours:
        # a rank's share stays) .. 2 (all to all: a rank's share grows ~ P - 1).
        pa, pb = multi[0], multi[-1]
        tot = {p: (sum(r[0] for r in meas[p][1]), sum(r[1] for r in meas[p][1])) for p in multi}
        bb = max(r[0] for r in meas[pb][1])
        mb = max(r[1] for r in meas[pb][1])
        coll = max(r[2] for r in meas[pb][1])

        def growth(i):
            if pa == pb or tot[pa][i] <= 0 or tot[pb][i] <= 0:
                return 1.0
            g = math.log(tot[pb][i] / tot[pa][i]) / math.log((pb - 1) / (pa - 1))
            return min(2.0, max(1.0, g))

        gb, gm = growth(0), growth(1)

        def msg(n):  # point-to-point: can overlap
            if n == 1:
                return 0.0
            scale = (n - 1) / (pb - 1)
            b = bb * scale ** (gb - 1)
            m = mb * scale ** (gm - 1)
            return m * LATENCY + b / BANDWIDTH

        def colls(n):
            return 0.0 if n == 1 else coll * 2 * math.log2(n) * LATENCY

        # The overlap the busiest rank (most elements after its waits) had at P = pb, per step.
        busy = max(meas[pb][1], key=lambda r: (r[5], r[3]))
        done, before, after = busy[3], busy[4], busy[5]
        share = (before + after) / done if done > 0 else 0.0
        tb = after / done * t1 / pb if done > 0 else 0.0

        def step(n, c):  # c: a rank's compute per step
            if n == 1:
                return c
            if before <= 0:
                return c + msg(n) + colls(n)
            late = min(tb, share * c)
            return (1 - share) * c + max(share * c - late, msg(n)) + late + colls(n)

        print(f"model inputs: t1 = {t1 * 1e3:.3f} ms/step (P=1); busiest rank per step at P={pb}: "
              f"{bb:.0f} bytes, {mb:.1f} messages, {coll:.1f} collectives; growth exponents of "
              f"the totals P={pa}..{pb}: bytes {gb:.2f}, messages {gm:.2f}")
        print(f"overlap inputs (busiest rank at P={pb}, per step): {done:.0f} elements computed, "
              f"{before:.0f} before waits, {after:.0f} after: share in phases with messages "
              f"s = {share:.4f}, rows after the wait tb = {tb * 1e6:.2f} us"
              + ("" if before > 0 else " (no overlap measured: the two models agree)"))
        print(f"{'nodes':>6} {'strong T/step ms':>17} {'strong eff':>10} {'(no overlap)':>12} "
              f"{'weak T/step ms':>15} {'weak eff':>9} {'(no overlap)':>12}")
        for n in nodes:
            ts, tw = step(n, t1 / n), step(n, t1)
            ts0, tw0 = t1 / n + msg(n) + colls(n), t1 + msg(n) + colls(n)
            print(f"{n:>6} {ts * 1e3:17.3f} {t1 / (n * ts):10.1%} {t1 / (n * ts0):12.1%} "
                  f"{tw * 1e3:15.3f} {t1 / tw:9.1%} {t1 / tw0:12.1%}")


if __name__ == "__main__":
    main()
