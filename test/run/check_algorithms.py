#!/usr/bin/env python3
"""Runs a program under every partition algorithm and requires the same output from each.

    check_algorithms.py HASSIUM CASE.hsb

The algorithms come from `hassium run --list-algorithms`. Every run must also match
CASE.expected (as run_case.py compares); and all runs must print byte-identical output,
since fusion may change how a program is scheduled but never what it computes. So must a run
whose flushes go through the stack in pieces of a few instructions ([stack] piece_size): cut
anywhere, a program computes the same.
"""
import os
import subprocess
import sys

from run_case import check_case


def main(argv):
    hassium, case = argv[1], argv[2]
    algorithms = subprocess.run([hassium, "run", "--list-algorithms"], capture_output=True,
                                text=True, check=True).stdout.split()
    if len(algorithms) < 2:
        print("expected several algorithms, got %r" % algorithms, file=sys.stderr)
        return 1
    outputs, failed = {}, False
    for a in algorithms:
        errors, out = check_case(hassium, case, ["--algorithm", a])
        for e in errors:
            print("%s: %s" % (a, e), file=sys.stderr)
        failed |= bool(errors)
        outputs[a] = out
    pieces = "greedy, [stack] piece_size 5"
    errors, outputs[pieces] = check_case(hassium, case, ["--algorithm", "greedy"],
                                         dict(os.environ, HASSIUM_STACK_PIECE_SIZE="5"))
    for e in errors:
        print("%s: %s" % (pieces, e), file=sys.stderr)
    failed |= bool(errors)
    algorithms.append(pieces)
    first = algorithms[0]
    for a in algorithms[1:]:
        if outputs[a] != outputs[first]:
            failed = True
            diff = [(x, y) for x, y in zip(outputs[first].splitlines(), outputs[a].splitlines())
                    if x != y]
            print("%s and %s differ: %s" % (first, a, diff[:1]), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
