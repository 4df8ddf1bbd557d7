#!/usr/bin/env python3
"""The Python module waits passively too: a fresh interpreter imports hassium, runs a kernel on
two threads, and libgomp (OMP_DISPLAY_ENV=verbose) must report GOMP_SPINCOUNT = '0'; with the
user's OMP_WAIT_POLICY=active it must report the active spin count instead.

    check_openmp_python.py PYTHON MODULE_DIR CONFIG
"""
import os
import subprocess
import sys

SCRIPT = """
import numpy as np
import hassium as hs
a = hs.arange(1 << 18, dtype=np.float64)
print(float((a * 2.0 + 1.0).sum()))
"""


def spin_count(python, module_dir, config, extra):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update({"OMP_DISPLAY_ENV": "verbose", "HASSIUM_CPU_THREADS": "2", "PYTHONPATH": module_dir,
                "HASSIUM_CONFIG": config}, **extra)
    r = subprocess.run([python, "-c", SCRIPT], env=env, capture_output=True, text=True)
    if r.returncode != 0 or "68719476736.0" not in r.stdout:
        sys.exit("the script failed:\n" + r.stdout + r.stderr)
    for line in r.stderr.splitlines():
        if "GOMP_SPINCOUNT" in line:
            return line.split("=")[1].strip().strip("'")
    sys.exit("libgomp printed no GOMP_SPINCOUNT:\n" + r.stderr)


def main(argv):
    python, module_dir, config = argv[1:4]
    got = spin_count(python, module_dir, config, {})
    if got != "0":
        sys.exit("default: GOMP_SPINCOUNT = %s, expected 0 (passive)" % got)
    got = spin_count(python, module_dir, config, {"OMP_WAIT_POLICY": "active"})
    if got != "30000000000":
        sys.exit("user's OMP_WAIT_POLICY=active: GOMP_SPINCOUNT = %s, expected 30000000000" % got)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
