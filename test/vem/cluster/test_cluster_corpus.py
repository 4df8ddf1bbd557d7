#!/usr/bin/env python3
"""The run corpus (test/run/cases) on the cluster VEM, all cases in one `hassium run` process:

    test_cluster_corpus.py HASSIUM CASES_DIR P [P ...]

- one rank (no mpirun) against each case's .expected (NumPy's values, its tolerances, its errors);
- the node VEM's output: programs without reductions or scans give the same text, bit for bit;
- `mpirun -np P` for each P: the same text as one rank, every case (reductions included: their
  chunks do not depend on P; errors raised on any rank reach rank 0 with the same message), with
  every phase split at the wait for its messages ([cluster] overlap = on, overlap_min_elements =
  0: the corpus's phases are small), and at the first P also unsplit (overlap = off).
"""
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "run"))
import run_case  # noqa: E402

TIMEOUT = 600


def mpirun(np):
    cmd = ["mpirun", "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


SPLIT = {"HASSIUM_CLUSTER_OVERLAP": "on", "HASSIUM_CLUSTER_OVERLAP_MIN_ELEMENTS": "0"}
UNSPLIT = {"HASSIUM_CLUSTER_OVERLAP": "off"}


def run_all(prefix, hassium, cases, vem, extra_env=None):
    env = dict(os.environ, HASSIUM_STACK_VEM=vem, **(extra_env or {}))
    r = subprocess.run(prefix + [hassium, "run", *map(str, cases)], capture_output=True,
                       text=True, env=env, timeout=TIMEOUT)
    if r.returncode not in (0, 1) or "== " not in r.stdout:
        sys.exit(f"{' '.join(prefix)} hassium run failed ({r.returncode}):\n{r.stderr}")
    return split(r.stdout)


def split(text):
    """{case file: its output lines}."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("== "):
            cur = out.setdefault(line[3:], [])
        elif cur is not None:
            cur.append(line)
    return out


def main(argv):
    hassium, cases_dir, ranks = argv[1], Path(argv[2]), [int(p) for p in argv[3:]]
    cases = sorted(cases_dir.glob("*.hsb"))
    one = run_all([], hassium, cases, "cluster")
    node = run_all([], hassium, cases, "node")
    failures = []
    for case in cases:
        got = one.get(str(case))
        if got is None:
            failures.append(f"{case.name}: no output")
            continue
        want, tol, error = run_case.parse_expected(case.with_suffix(".expected"))
        if error is not None:
            if not (len(got) == 1 and got[0].startswith("error:") and error in got[0]):
                failures.append(f"{case.name}: expected error {error!r}, got {got}")
        else:
            diffs = run_case.compare(got, want, tol)
            if diffs:
                failures.append(f"{case.name} (1 rank) vs NumPy: {diffs}")
        if not re.search(r"_REDUCE|_ACCUMULATE", case.read_text()) and got != node.get(str(case)):
            failures.append(f"{case.name}: cluster {got} != node {node.get(str(case))}")
    runs = [(p, "overlap on", SPLIT) for p in ranks] + [(ranks[0], "overlap off", UNSPLIT)]
    for p, how, extra_env in runs:
        many = run_all(mpirun(p), hassium, cases, "cluster", extra_env)
        for case in cases:
            if many.get(str(case)) != one.get(str(case)):
                failures.append(f"{case.name}: {p} ranks ({how}) {many.get(str(case))} != 1 "
                                f"rank {one.get(str(case))}")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{len(cases)} cases, ranks {[1] + ranks} (overlap on; off at {ranks[0]}): "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
