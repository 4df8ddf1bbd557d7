#!/usr/bin/env python3
"""A C++ API program (cxx_program.cpp) on the cluster VEM under mpirun:

    test_cluster_cxx.py PROGRAM P [P ...]

At each P only rank 0 runs main (ranks > 0 serve from the program's static initialization):
main's line before its first array operation is printed once and only rank 0 leaves its file;
the results are the text of the 1-rank run (no mpirun), bit for bit.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_cluster_corpus import mpirun  # noqa: E402

LINE = "main runs (before the first array operation)"


def run(prefix, program, ranks):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, HASSIUM_STACK_VEM="cluster")
        r = subprocess.run(prefix + [program, d], capture_output=True, text=True, env=env,
                           timeout=300)
        if r.returncode != 0:
            sys.exit(f"{' '.join(prefix + [program])} failed ({r.returncode}):\n{r.stdout}\n"
                     f"{r.stderr}")
        return r.stdout.splitlines(), sorted(os.listdir(d))


def main(argv):
    program, ranks = argv[1], [int(p) for p in argv[2:]]
    one, files = run([], program, 1)
    failures = []
    if one[:1] != [LINE] or files != ["main_ran_alone"]:
        failures.append(f"1 rank: {one[:1]}, files {files}")
    for p in ranks:
        out, files = run(mpirun(p), program, p)
        before = len(failures)
        if out.count(LINE) != 1 or files != ["main_ran_0"]:
            failures.append(f"P={p}: main ran {out.count(LINE)} times, files {files} "
                            "(want once, main_ran_0 only)")
        if [x for x in out if x != LINE] != one[1:]:
            failures.append(f"P={p}: {out} != 1 rank {one}")
        if len(failures) == before:
            print(f"P={p}: main ran on rank 0 only; results the 1-rank run's: {one[1:]}")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
