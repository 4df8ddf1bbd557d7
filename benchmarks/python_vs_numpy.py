"""Runs one NumPy benchmark program with plain NumPy and with `python -m hassium`, unmodified;
prints both times (the programs' own `elapsed:` lines), the speedup, and whether the checksums
agree.

    python benchmarks/python_vs_numpy.py [program.py] [--size ...]
    (default: benchmarks/python/black_scholes.py --size 2000000*10)

Exit status 1 when either run fails or the checksums differ by more than 1e-8 relative.
"""

import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT = [str(HERE / "python" / "black_scholes.py"), "--size", "2000000*10"]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    elapsed = float(re.search(r"^elapsed: ([0-9.eE+-]+)", r.stdout, re.M).group(1))
    checksum = float(re.search(r"^checksum: (\S+)", r.stdout, re.M).group(1))
    return elapsed, checksum


def main(argv):
    args = argv or DEFAULT
    name = pathlib.Path(args[0]).name
    print(f"{name} {' '.join(args[1:])}")
    t_np, c_np = run([sys.executable, *args])
    print(f"  numpy:   {t_np:8.3f} s   checksum {c_np!r}")
    t_hs, c_hs = run([sys.executable, "-m", "hassium", *args])
    print(f"  hassium: {t_hs:8.3f} s   checksum {c_hs!r}")
    print(f"  speedup: {t_np / t_hs:8.2f}x")
    same = c_np == c_hs or abs(c_np - c_hs) <= 1e-8 * max(abs(c_np), abs(c_hs))
    print(f"  checksums {'agree' if same else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
