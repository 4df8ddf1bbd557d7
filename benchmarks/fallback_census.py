"""Counts, per NumPy function, how often programs run under hassium fall back to NumPy.

    python benchmarks/fallback_census.py [--size tiny|small] [--npbench PATH [--preset S]]
        [--timeout 300] [script.py ...]

Runs every program of benchmarks/python (at --size, as benchmarks/run.py sizes them) and every
script given under `python -m hassium`, each in a fresh process with `[python] fallback_report`
set (HASSIUM_PYTHON_FALLBACK_REPORT), and prints the fallbacks per program and in total. With
--npbench it also runs every NPBench kernel at --preset through benchmarks/npbench.py (NumPy and
hassium; that runner records the fallbacks of each hassium call) and adds those. Exit status 1
when any program fell back (or failed).
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

def run(cmd, report, timeout):
    env = dict(os.environ, HASSIUM_PYTHON_FALLBACK_REPORT=str(report),
               HASSIUM_PYTHON_FALLBACK_WARNINGS="0")
    build_python = ROOT / "build" / "python"
    if build_python.is_dir():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(build_python), env.get("PYTHONPATH")]))
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s"
    if proc.returncode != 0:
        return None, (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]
    if not report.exists():
        return None, "no report written"
    return json.loads(report.read_text()), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scripts", nargs="*", help="more programs to run with python -m hassium")
    ap.add_argument("--size", default="tiny", help="size of the benchmarks/python programs")
    ap.add_argument("--npbench", default=None, help="a checkout of spcl/npbench")
    ap.add_argument("--preset", default="S", help="NPBench preset")
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    import run as runner  # benchmarks/run.py: the programs and their sizes

    jobs = []
    for bench in sorted(runner.SIZES):
        size = runner.SIZES[bench].get(args.size, args.size)
        jobs.append((bench, [sys.executable, "-m", "hassium",
                             str(runner.PROGRAMS / f"{bench}.py"), "--size", size]))
    for script in args.scripts:
        jobs.append((script, [sys.executable, "-m", "hassium", script]))
    total, failed = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, cmd) in enumerate(jobs):
            counts, error = run(cmd, pathlib.Path(tmp, f"{i}.json"), args.timeout)
            if error:
                failed += 1
                print(f"{name:40} FAILED: {error}")
                continue
            for fn, n in counts.items():
                total[fn] = total.get(fn, 0) + n
            text = ", ".join(f"{fn} x{n}" for fn, n in sorted(counts.items())) or "none"
            print(f"{name:40} fallbacks: {text}")
    if args.npbench:
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([sys.executable, str(HERE / "npbench.py"), "--npbench", args.npbench,
                            "--preset", args.preset, "--frameworks", "numpy,hassium",
                            "--repeat", "1", "--out", out], capture_output=True,
                           timeout=args.timeout * 60)
            records = json.loads(pathlib.Path(out, "results.json").read_text())["records"]
        for r in sorted(records, key=lambda r: r["kernel"]):
            if r["framework"] != "hassium":
                continue
            jobs.append(r["kernel"])
            counts = {}
            for fn in r.get("fallbacks") or []:
                counts[fn] = counts.get(fn, 0) + 1
                total[fn] = total.get(fn, 0) + 1
            if r["status"] not in ("ok", "mismatch"):
                failed += 1
            text = ", ".join(f"{fn} x{n}" for fn, n in sorted(counts.items())) or "none"
            print(f"{'npbench/' + r['kernel']:40} fallbacks: {text} ({r['status']})")
    print(f"\n{len(jobs)} programs, {failed} failed; fallbacks in total: "
          + (", ".join(f"{fn} x{n}" for fn, n in sorted(total.items())) or "none"))
    sys.exit(1 if total or failed else 0)


if __name__ == "__main__":
    main()
