#!/usr/bin/env python3
"""Runs `hassium run` on a case of test/run/cases and compares its output with NAME.expected.

    run_case.py HASSIUM CASE.hsb [--algorithm A] [--cost-model M]

Numbers are parsed, not compared as text: ints and bools exactly; floats exactly (NaN equals
NaN, -0 equals 0) unless the expected file gives the base a tolerance (`#tol NAME RTOL ATOL`:
|got - want| <= ATOL + RTOL*|want|, infinities equal); complex numbers part by part.
`#error TEXT`: the run must fail with exit code 1 and TEXT in its error message.
Exit code 0 when the case passes; otherwise the differences go to stderr.
"""
import math
import subprocess
import sys
from pathlib import Path


def parse_expected(path):
    """(lines, tolerances {name: (rtol, atol)}, error text or None)."""
    lines, tol, error = [], {}, None
    for line in Path(path).read_text().splitlines():
        if line.startswith("#tol "):
            _, name, rtol, atol = line.split()
            tol[name] = (float(rtol), float(atol))
        elif line.startswith("#error"):
            error = line[len("#error"):].strip()
        else:
            lines.append(line)
    return lines, tol, error


def parse_number(text):
    """A printed element: bool, int, float or complex `(re,im)` -> a Python value."""
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("("):
        re_text, im_text = text[1:-1].split(",")
        return complex(float(re_text), float(im_text))
    try:
        return int(text)
    except ValueError:
        return float(text)


def real_close(got, want, rtol, atol):
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= atol + rtol * abs(want)


def element_close(got_text, want_text, tol):
    try:
        got, want = parse_number(got_text), parse_number(want_text)
    except ValueError:
        return False
    rtol, atol = tol
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    if isinstance(want, complex) or isinstance(got, complex):
        return isinstance(want, complex) and isinstance(got, complex) and \
            real_close(got.real, want.real, rtol, atol) and \
            real_close(got.imag, want.imag, rtol, atol)
    if isinstance(want, int) and isinstance(got, int):  # exact in Python's big ints
        return abs(got - want) <= atol + rtol * abs(want)
    return real_close(float(got), float(want), rtol, atol)


def compare(got_lines, want_lines, tol):
    """A list of messages, empty when the outputs match."""
    errors = []
    if len(got_lines) != len(want_lines):
        errors.append("expected %d lines, got %d" % (len(want_lines), len(got_lines)))
    for n, (got, want) in enumerate(zip(got_lines, want_lines), 1):
        gname, _, gvals = got.partition(":")
        wname, _, wvals = want.partition(":")
        if gname != wname:
            errors.append("line %d: expected base %s, got %s" % (n, wname, gname))
            continue
        gv, wv = gvals.split(), wvals.split()
        if len(gv) != len(wv):
            errors.append("%s: expected %d elements, got %d" % (wname, len(wv), len(gv)))
            continue
        t = tol.get(wname, (0.0, 0.0))
        bad = [i for i, (g, w) in enumerate(zip(gv, wv)) if not element_close(g, w, t)]
        for i in bad[:5]:
            errors.append("%s[%d]: expected %s, got %s" % (wname, i, wv[i], gv[i]))
        if len(bad) > 5:
            errors.append("%s: %d more differences" % (wname, len(bad) - 5))
    return errors


def run_hassium(hassium, case, extra=(), env=None):
    return subprocess.run([hassium, "run", *extra, str(case)], capture_output=True, text=True,
                          timeout=600, env=env)


def check_case(hassium, case, extra=(), env=None):
    """Runs one case (with `env` as its environment when given); returns (messages, stdout)."""
    case = Path(case)
    want, tol, error = parse_expected(case.with_suffix(".expected"))
    r = run_hassium(hassium, case, extra, env)
    if error is not None:
        if r.returncode != 1 or "hassium: error:" not in r.stderr or error not in r.stderr:
            return ["expected a user error containing %r; exit %d, stderr: %s" %
                    (error, r.returncode, r.stderr.strip())], r.stdout
        return [], r.stdout
    if r.returncode != 0:
        return ["hassium run failed with exit %d: %s" % (r.returncode, r.stderr.strip())], \
            r.stdout
    return compare(r.stdout.splitlines(), want, tol), r.stdout


def main(argv):
    hassium, case, extra = argv[1], argv[2], argv[3:]
    errors, _ = check_case(hassium, case, extra)
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
