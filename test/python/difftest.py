#!/usr/bin/env python3
"""Differential testing at scale: random NumPy programs (program_gen.py, the generator of
test_programs.py) run with NumPy and with hassium under every partition algorithm.

    PYTHONPATH=build/python .venv/bin/python test/python/difftest.py [-n 10000] [--algorithms all]
        [--cost-model bohrium] [--seed S] [--jobs 1] [--max-ops 12]

One worker process per algorithm (the algorithm is read from HASSIUM_FUSER_ALGORITHM when hassium
starts; the Python module cannot switch it later). Every worker draws the same N programs (same
hypothesis seed), checks each against NumPy and prints its progress. A worker that found
mismatches then runs hypothesis again on the same stream, which stops at the first failing
program and shrinks it; the minimal program is printed as a runnable script. A worker that dies
(a crash) or hangs (--hang-seconds on one program) is reported with the program it was running.
Exit status 0 when every program of every algorithm matched NumPy, 1 otherwise.

Without PYTHONPATH, the build tree's module (build/python next to this checkout) is used.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ALGORITHMS = ["singleton", "linear", "unintrusive", "greedy", "optimal"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", "--programs", type=int, default=10000, help="programs per algorithm")
    p.add_argument("--algorithms", default="all",
                   help="comma list, or all (%s)" % ", ".join(ALGORITHMS))
    p.add_argument("--cost-model", default=None, help="HASSIUM_FUSER_COST_MODEL for every worker")
    p.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    p.add_argument("--jobs", type=int, default=1, help="workers running at once")
    p.add_argument("--max-ops", type=int, default=12, help="operations per program at most")
    p.add_argument("--hang-seconds", type=float, default=300,
                   help="a program running longer is a hang: the worker stops and reports it")
    p.add_argument("--no-shrink", action="store_true", help="count mismatches, do not minimize")
    p.add_argument("--out", default=None,
                   help="directory for the scripts of the first 20 mismatches of each algorithm "
                        "(default: a new one under the temporary directory)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--current-file", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


# --- the worker: one algorithm, in its own process -----------------------------------------------

def worker(args):
    import faulthandler

    sys.path.insert(0, HERE)
    from hypothesis import HealthCheck, Phase, given, seed, settings

    import hassium
    import program_gen

    warnings.simplefilter("ignore")
    algorithm = hassium._hassium.config_value("fuser", "algorithm")
    out = {"algorithm": algorithm,
           "cost_model": hassium._hassium.config_value("fuser", "cost_model"),
           "programs": 0, "mismatches": 0, "first": [], "minimal": None}
    step = max(1, args.programs // 10)
    start = time.time()

    def note_current(program):
        if args.current_file:
            with open(args.current_file, "w") as f:
                f.write(repr(program))

    common = dict(max_examples=args.programs, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    strategy = program_gen.programs(args.max_ops)

    @seed(args.seed)
    @settings(phases=[Phase.generate], **common)
    @given(strategy)
    def count(program):
        note_current(program)
        faulthandler.dump_traceback_later(args.hang_seconds, exit=True)
        try:
            program_gen.check(program, hassium)
        except AssertionError as e:
            out["mismatches"] += 1
            message, _, script = str(e).partition("\n\nThe program:\n\n")
            if len(out["first"]) < 3:
                out["first"].append(message)
            if out["mismatches"] <= 20 and args.out:
                path = os.path.join(args.out, f"{algorithm}-{out['programs']}.py")
                with open(path, "w") as f:
                    f.write("".join(f"# {line}\n" for line in message.split("\n")) + script)
        finally:
            faulthandler.cancel_dump_traceback_later()
        out["programs"] += 1
        if out["programs"] % step == 0:
            print(f"{out['programs']}/{args.programs} programs, {out['mismatches']} mismatches, "
                  f"{time.time() - start:.0f} s", flush=True)

    count()
    out["seconds"] = round(time.time() - start, 1)
    if out["mismatches"] and not args.no_shrink:
        print("shrinking the first mismatch ...", flush=True)

        @seed(args.seed)
        @settings(phases=[Phase.generate, Phase.shrink], **common)
        @given(strategy)
        def shrink(program):
            note_current(program)
            faulthandler.dump_traceback_later(args.hang_seconds, exit=True)
            try:
                program_gen.check(program, hassium)
            finally:
                faulthandler.cancel_dump_traceback_later()

        try:
            shrink()
        except AssertionError as e:
            out["minimal"] = str(e)
        except Exception as e:  # noqa: BLE001  (hypothesis's Flaky and the like)
            out["minimal"] = f"(shrinking failed: {type(e).__name__}: {e})"
        else:
            out["minimal"] = "(the mismatch did not recur when the programs were drawn again)"
    print("RESULT " + json.dumps(out), flush=True)


# --- the driver ---------------------------------------------------------------------------------

def run_worker(args, algorithm, lock, results):
    env = dict(os.environ)
    env["HASSIUM_FUSER_ALGORITHM"] = algorithm
    if args.cost_model:
        env["HASSIUM_FUSER_COST_MODEL"] = args.cost_model
    if not env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.path.join(ROOT, "build", "python")
    fd, current = tempfile.mkstemp(prefix=f"difftest-{algorithm}-", suffix=".txt")
    os.close(fd)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "-n", str(args.programs),
           "--seed", str(args.seed), "--max-ops", str(args.max_ops), "--hang-seconds",
           str(args.hang_seconds), "--current-file", current, "--out", args.out] + \
        (["--no-shrink"] if args.no_shrink else [])
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    result, tail = None, []
    for line in proc.stdout:
        line = line.rstrip("\n")
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
            continue
        tail = (tail + [line])[-40:]
        with lock:
            print(f"[{algorithm}] {line}", flush=True)
    rc = proc.wait()
    if result is None:
        with open(current) as f:
            program = f.read()
        result = {"algorithm": algorithm, "programs": None, "mismatches": None,
                  "died": f"exit status {rc}", "output": "\n".join(tail), "program": program}
        if program:
            sys.path.insert(0, HERE)
            import program_gen
            try:
                body, meta, _ = program_gen.resolve(eval(program))
                result["script"] = program_gen.script(body, meta)
            except Exception as e:  # noqa: BLE001
                result["script"] = f"(could not rebuild the program: {e})"
    os.unlink(current)
    results[algorithm] = result


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.seed is None:
        args.seed = random.randrange(2**32)
    if args.worker:
        worker(args)
        return 0
    algorithms = ALGORITHMS if args.algorithms == "all" else args.algorithms.split(",")
    if args.out is None:
        args.out = tempfile.mkdtemp(prefix=f"difftest-{args.seed}-")
    os.makedirs(args.out, exist_ok=True)
    print(f"difftest: {args.programs} programs x {len(algorithms)} algorithms "
          f"({', '.join(algorithms)}), seed {args.seed}"
          + (f", cost model {args.cost_model}" if args.cost_model else ""), flush=True)
    lock = threading.Lock()
    results = {}
    pending = list(algorithms)
    running = []
    while pending or running:
        while pending and len(running) < max(1, args.jobs):
            t = threading.Thread(target=run_worker, args=(args, pending.pop(0), lock, results))
            t.start()
            running.append(t)
        running[0].join()
        running = [t for t in running if t.is_alive()]
    failed = False
    print("\nalgorithm     programs  mismatches  seconds")
    for a in algorithms:
        r = results[a]
        if r.get("died"):
            failed = True
            print(f"{a:12s}  died ({r['died']})")
            continue
        failed |= r["mismatches"] > 0
        print(f"{a:12s}  {r['programs']:8d}  {r['mismatches']:10d}  {r['seconds']:7.0f}")
    for a in algorithms:
        r = results[a]
        if r.get("died"):
            print(f"\n=== {a}: the worker died ({r['died']}) running this program:\n")
            print(r.get("script", r.get("program")))
            print(f"--- its last output:\n{r['output']}")
        elif r["mismatches"]:
            print(f"\n=== {a}: {r['mismatches']} mismatches; the first ones:\n")
            print("\n---\n".join(r["first"]))
            if r["minimal"]:
                print(f"\n=== {a}: a minimal failing program (hypothesis, seed {args.seed}):\n")
                print(r["minimal"])
    if failed:
        print(f"\nthe scripts of the first mismatches: {args.out}")
    print(f"\nseed {args.seed}: " + ("MISMATCHES" if failed else "all programs match NumPy"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
