"""Runs the array API conformance suite (data-apis/array-api-tests) on NumPy and on hassium, in
one run, and prints the two figures side by side with the tests only one of them fails.

    python benchmarks/array_api_conformance.py --suite PATH [--python PY] [--version 2023.12]
        [--max-examples 5] [--seed 0] [--timeout 3000] [--out DIR]

PATH is a checkout of data-apis/array-api-tests with its `array-api` submodule (the spec)
checked out; nothing of it is copied here. PY is an interpreter with the suite's own
dependencies (pytest, pytest-json-report, hypothesis, ndindex: from PyPI, not project
dependencies) and the same NumPy as hassium's venv; hassium is found through PYTHONPATH (the
build's python/ folder, added here) or an installed package. Each library runs in its own pytest
process with ARRAY_API_TESTS_MODULE set (numpy, then hassium), the same version, example count
and hypothesis seed, and a timeout: a hang is reported as one. Issue 17's figure: hassium's
passed count at least NumPy's.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_suite(module, args, report):
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=module, ARRAY_API_TESTS_VERSION=args.version,
               HASSIUM_PYTHON_FALLBACK_WARNINGS="0")
    build_python = ROOT / "build" / "python"
    if build_python.is_dir():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(build_python),
                                                          env.get("PYTHONPATH")]))
    cmd = [args.python, "-m", "pytest", "array_api_tests", "-q", "-p", "no:cacheprovider",
           f"--max-examples={args.max_examples}", f"--hypothesis-seed={args.seed}",
           "--json-report", f"--json-report-file={report}"]
    try:
        proc = subprocess.run(cmd, cwd=args.suite, env=env, capture_output=True, text=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {args.timeout} s (a hang)"}
    if not pathlib.Path(report).exists():
        tail = (proc.stdout + proc.stderr)[-2000:]
        return {"error": f"no report (exit {proc.returncode}):\n{tail}"}
    data = json.loads(pathlib.Path(report).read_text())
    outcomes = {t["nodeid"]: t["outcome"] for t in data.get("tests", [])}
    summary = data.get("summary", {})
    collect_errors = [c["nodeid"] for c in data.get("collectors", [])
                      if c.get("outcome") == "failed"]
    return {"summary": summary, "outcomes": outcomes, "duration": data.get("duration"),
            "collect_errors": collect_errors}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", required=True, help="checkout of data-apis/array-api-tests")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--version", default="2023.12")
    ap.add_argument("--max-examples", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=3000)
    ap.add_argument("--out", default=None, help="folder for the two JSON reports (kept)")
    args = ap.parse_args()
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="array-api-"))
    out.mkdir(parents=True, exist_ok=True)
    results = {m: run_suite(m, args, out / f"{m}.json") for m in ("numpy", "hassium")}
    print(f"array-api-tests {args.version}, --max-examples={args.max_examples} "
          f"--hypothesis-seed={args.seed}")
    print(f"{'library':10} {'passed':>7} {'failed':>7} {'skipped':>8} {'errors':>7} {'seconds':>8}")
    for m, r in results.items():
        if "error" in r:
            print(f"{m:10} {r['error']}")
            continue
        s = r["summary"]
        print(f"{m:10} {s.get('passed', 0):7d} {s.get('failed', 0):7d} {s.get('skipped', 0):8d} "
              f"{s.get('error', 0) + len(r['collect_errors']):7d} {r['duration'] or 0:8.1f}")
    if all("error" not in r for r in results.values()):
        n, h = results["numpy"]["outcomes"], results["hassium"]["outcomes"]
        only_h = sorted(t for t, o in h.items() if o == "failed" and n.get(t) == "passed")
        only_n = sorted(t for t, o in n.items() if o == "failed" and h.get(t) == "passed")
        for title, tests in (("failed by hassium only", only_h), ("failed by NumPy only", only_n)):
            print(f"\n{title} ({len(tests)}):")
            for t in tests:
                print("  " + t)
        for m in results:
            for c in results[m]["collect_errors"]:
                print(f"{m}: could not collect {c}")
        hp = results["hassium"]["summary"].get("passed", 0)
        np_ = results["numpy"]["summary"].get("passed", 0)
        print(f"\nhassium passed {hp}, NumPy passed {np_}: "
              f"{'at least' if hp >= np_ else 'BELOW'} NumPy's")
    print(f"reports: {out}")


if __name__ == "__main__":
    main()
