#!/usr/bin/env python3
"""Python programs on the cluster VEM under mpirun:

    test_cluster_mpi.py stencil P [P ...]     stencil_halo.py at 1 rank and at each P
    test_cluster_mpi.py benchmarks P [P ...]  the 15 benchmarks/python programs at each P

stencil: the bytes a 2-D 5-point stencil step exchanges are the halo exactly (two rows of the
interior per internal cut: (P - 1) * 2 * (n - 2) * 8 bytes, 2 (P - 1) messages); with [cluster]
overlap = on the step's rows that need no halo (95% or more of its elements) run before the wait
for it (the step's phase has 198000 elements per rank at P = 4, above overlap_min_elements'
default); five fused element-wise steps exchange nothing; every reduction prints the same repr
at every P. At the first P also overlap = off, auto (one machine: no split) and on with
overlap_min_elements above the phase's size: nothing before the wait, the same bytes and the same
results, bit for bit, as with the split.
benchmarks: each program prints what NumPy prints (test/python/test_main.py's comparison), every
phase split (overlap = on, overlap_min_elements = 0), and exactly what the cluster VEM prints at
one rank (no mpirun): element-wise results and reductions to the last digit at every P.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "test" / "python"))
from test_main import assert_same_output  # noqa: E402

sys.path.insert(0, str(HERE))
from test_cluster_corpus import mpirun  # noqa: E402

N = 400
SPLIT = {"HASSIUM_CLUSTER_OVERLAP": "on"}
SPLIT_ALL = {"HASSIUM_CLUSTER_OVERLAP": "on", "HASSIUM_CLUSTER_OVERLAP_MIN_ELEMENTS": "0"}
UNSPLIT = {"off": {"HASSIUM_CLUSTER_OVERLAP": "off"},
           "auto (one machine)": {"HASSIUM_CLUSTER_OVERLAP": "auto"},
           "on, phase below overlap_min_elements": {
               "HASSIUM_CLUSTER_OVERLAP": "on",
               "HASSIUM_CLUSTER_OVERLAP_MIN_ELEMENTS": str(10**9)}}


def run(cmd, env_extra):
    env = dict(os.environ, HASSIUM_STACK_VEM="cluster", HASSIUM_PYTHON_FALLBACK_WARNINGS="0")
    env.update(env_extra)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def stencil(ranks):
    script = [sys.executable, str(HERE / "stencil_halo.py"), str(N)]
    one = run(script, {}).splitlines()
    failures = []
    for p in ranks:
        out = run(mpirun(p) + script, SPLIT).splitlines()
        halo = (p - 1) * 2 * (N - 2) * 8
        want = [f"ranks {p}", f"stencil step: {halo} bytes in {2 * (p - 1)} messages",
                "element-wise steps: 0 bytes in 0 messages"]
        if out[:3] != want:
            failures.append(f"P={p}: {out[:3]} != {want}")
        # Each pivot read gathers its element only: at most 8 bytes a read.
        reads, got = out[3].split()[2], out[3].split()[4]
        if not out[3].startswith("pivot reads:") or int(got) > 8 * int(reads):
            failures.append(f"P={p}: {out[3]} (want at most 8 bytes a read)")
        # Overlap: the rows that need no halo run before the wait, the halo's rows after it.
        before, after = (int(x) for x in re.findall(r"\d+", out[4]))
        if not out[4].startswith("stencil overlap:") or before <= 0 or after <= 0 or \
                before < 0.95 * (before + after):
            failures.append(f"P={p}: {out[4]} (want at least 95% of the elements before the wait)")
        if one[4] != "stencil overlap: 0 elements before the wait, 0 after":
            failures.append(f"1 rank: {one[4]} (no messages, nothing to overlap)")
        if out[5:] != one[5:]:
            failures.append(f"P={p}: reductions {out[5:]} != 1 rank {one[5:]}")
        print(f"P={p}: {out[1]}; {out[3]}; {out[4]}; reductions bit-identical to 1 rank")
        if p != ranks[0]:
            continue
        # Unsplit: every element of the step after the wait, all else as with the split.
        for how, env in UNSPLIT.items():
            whole = run(mpirun(p) + script, env).splitlines()
            want = f"stencil overlap: 0 elements before the wait, {before + after} after"
            if whole[4] != want:
                failures.append(f"P={p}, overlap {how}: {whole[4]} != {want}")
            if whole[:4] != out[:4] or whole[5:] != out[5:]:
                failures.append(f"P={p}, overlap {how}: {whole} != split {out}")
            print(f"P={p}, overlap {how}: {whole[4]}; bytes and results bit-identical to the split")
    return failures


# Programs whose P-rank output is not yet the 1-rank output to the digit (none since the CPU
# engine's float sums and products got an order of their own, independent of the block they are
# fused into: gauss_elimination and shallow_water were listed before, 2026-11-29). Such a program
# would still be compared with NumPy.
NOT_YET_DIGIT_EXACT = set()


def without_times(text):
    return [line for line in text.splitlines() if not line.startswith("elapsed:")]


def benchmarks(ranks):
    failures = []
    for script in sorted((ROOT / "benchmarks" / "python").glob("*.py")):
        plain = run([sys.executable, str(script)], {"HASSIUM_STACK_VEM": "node"})
        # The cluster VEM without mpirun: one rank, the single-process run every P must match
        # to the last printed digit (element-wise results and reductions alike: a reduction's
        # combine order depends neither on P nor on the cuts).
        one = without_times(run([sys.executable, "-m", "hassium", str(script)], {}))
        for p in ranks:
            hs = run(mpirun(p) + [sys.executable, "-m", "hassium", str(script)], SPLIT_ALL)
            try:
                assert_same_output(hs, plain)
                if without_times(hs) != one and script.name not in NOT_YET_DIGIT_EXACT:
                    raise AssertionError(f"output differs from the 1-rank run: {without_times(hs)}"
                                         f" != {one}")
                exact = "to the digit" if without_times(hs) == one else "NOT to the digit (known)"
                print(f"{script.name}: same output as NumPy and, {exact}, as 1 rank at P={p}")
            except AssertionError as e:
                failures.append(f"{script.name} at P={p}: {e}")
    return failures


def main(argv):
    kind, ranks = argv[1], [int(p) for p in argv[2:]]
    failures = stencil(ranks) if kind == "stencil" else benchmarks(ranks)
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
