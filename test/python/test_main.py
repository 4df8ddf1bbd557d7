"""`python -m hassium script.py`: numpy resolves to hassium in the script and the user's modules,
third-party libraries keep NumPy, the benchmark programs print what plain NumPy prints."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCHMARKS = sorted((ROOT / "benchmarks" / "python").glob("*.py"))

SCRIPT = '''
import sys
import numpy as np
import numpy.random
from numpy import linalg, random as rnd
import userpkg.helper
import fakelib

a = np.arange(10.0)
print("numpy is", np.__name__)
print("random is", numpy.random.__name__, rnd.__name__)
print("linalg is", linalg.__name__)
print("array type", type(a).__module__, type(a).__name__)
print("sum", a.sum())
print("helper", userpkg.helper.kind())
print("library", fakelib.kind(), type(fakelib.make()).__module__)
print("library on hassium array", float(fakelib.total(a)))
print("argv", sys.argv[1:])
'''


def run(args, env_extra=None, cwd=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600)


def test_import_redirection(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "userpkg").mkdir()
    (tmp_path / "app" / "userpkg" / "__init__.py").write_text("")
    (tmp_path / "app" / "userpkg" / "helper.py").write_text(
        "import numpy as np\n\ndef kind():\n    return np.__name__\n")
    lib = tmp_path / "site-packages"
    lib.mkdir()
    (lib / "fakelib.py").write_text(
        "import numpy as np\n\ndef kind():\n    return np.__name__\n\n"
        "def make():\n    return np.zeros(2)\n\ndef total(x):\n    return np.sum(x)\n")
    script = tmp_path / "app" / "main.py"
    script.write_text(SCRIPT)
    pythonpath = os.pathsep.join([str(lib)] + os.environ.get("PYTHONPATH", "").split(os.pathsep))
    r = run(["-m", "hassium", str(script), "x", "--y"], {"PYTHONPATH": pythonpath})
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "numpy is hassium"
    assert out[1] == "random is hassium.random hassium.random"
    assert out[2] == "linalg is hassium.linalg"
    assert out[3] == "array type hassium._hassium ndarray"
    assert out[4] == "sum 45.0"
    assert out[5] == "helper hassium"
    assert out[6] == "library numpy numpy"
    assert out[7] == "library on hassium array 45.0"
    assert out[8] == "argv ['x', '--y']"


def test_usage_and_missing_script():
    r = run(["-m", "hassium"])
    assert r.returncode == 2 and "usage" in r.stderr
    r = run(["-m", "hassium", "/no/such/script.py"])
    assert r.returncode == 2 and "no such script" in r.stderr


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf")
# "Same printed results", decided: the text of every line must be equal; each number must agree
# with NumPy's to a relative 1e-9 (the benchmark runner's checksum tolerance, benchmarks/run.py).
# Bit-identical checksums are not a goal: hassium fuses and vectorizes sums, so it adds in
# another order than NumPy's pairwise summation, and libmvec's exp/sin may differ from NumPy's
# in the last ulp; both change the last digits of a float repr. The programs print the checksum
# as repr (exact), so the comparison is done here. Lines that report a rounding-level error
# measure (residuals, drifts, errors against the exact answer: 1e-15 .. 1e-11, pure rounding
# noise that no reassociation preserves) match when both values are at most ROUNDING_LEVEL,
# i.e. the program's self-check passes under both.
RTOL = 1e-9
ROUNDING_LEVEL = 1e-9
_ERROR_LINE = re.compile(r"drift|residual|error")
_TIMING_LINE = re.compile(r"^elapsed|time")


def _lines(text):
    """Output lines without the timing lines: (text with numbers blanked, numbers)."""
    out = []
    for line in text.splitlines():
        if _TIMING_LINE.search(line):
            continue
        out.append((_NUMBER.sub("#", line), [float(x) for x in _NUMBER.findall(line)]))
    return out


def _numbers_match(line, a, b):
    if a == b or abs(a - b) <= RTOL * max(abs(a), abs(b)):
        return True
    return bool(_ERROR_LINE.search(line)) and abs(a) <= ROUNDING_LEVEL and abs(b) <= ROUNDING_LEVEL


def assert_same_output(got, expected):
    """Same lines; numbers equal up to RTOL, rounding-level error reports both tiny."""
    g, e = _lines(got), _lines(expected)
    assert [t for t, _ in g] == [t for t, _ in e], f"{got}\n---\n{expected}"
    for (text, gn), (_, en) in zip(g, e):
        for a, b in zip(gn, en):
            assert _numbers_match(text, a, b), f"{text}: {a} != {b}\n{got}\n---\n{expected}"


def test_output_comparison_rule():
    assert_same_output("checksum: -74.8527970505638\n", "checksum: -74.85279705056381\n")
    assert_same_output("momentum drift: 6.939e-18\nelapsed: 0.3 s\n",
                       "momentum drift: 1.626e-18\nelapsed: 0.7 s\n")
    with pytest.raises(AssertionError):
        assert_same_output("checksum: 74.853\n", "checksum: 74.852\n")
    with pytest.raises(AssertionError):  # a drift that is not rounding-level must agree
        assert_same_output("energy drift: 2e-3\n", "energy drift: 1e-3\n")
    with pytest.raises(AssertionError):
        assert_same_output("live cells: 10\n", "dead cells: 10\n")


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_programs_print_the_same(script):
    plain = run([str(script)], {"HASSIUM_PYTHON_FALLBACK_WARNINGS": "0"})
    assert plain.returncode == 0, plain.stderr
    hs = run(["-m", "hassium", str(script)], {"HASSIUM_PYTHON_FALLBACK_WARNINGS": "0"})
    assert hs.returncode == 0, hs.stderr
    assert_same_output(hs.stdout, plain.stdout)
