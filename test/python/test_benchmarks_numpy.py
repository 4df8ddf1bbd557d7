"""The paper's benchmark programs under plain NumPy: they run, are deterministic, and compute sensible results."""
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks" / "python"
NUMPY = [sys.executable]  # the interpreter prefix; a hassium arm would use [python, "-m", "hassium"]

# Every program with a tiny --size (a few hundred milliseconds at most).
TINY = {
    "black_scholes": "1000*3",
    "game_of_life": "20*30*5",
    "heat_equation": "20*30*5",
    "leibnitz_pi": "1000*3",
    "gauss_elimination": "20",
    "lu_factorization": "20",
    "montecarlo_pi": "1000*3",
    "stencil27": "6*7*8*3",
    "shallow_water": "20*30*5",
    "rosenbrock": "1000*3",
    "sor": "20*30*5",
    "nbody": "50*3",
    "nbody_nice": "3*100*3",
    "lbm_d3q19": "6*7*8*3",
    "water_ice": "20*30*5",
}


def run(program, *args, prefix=NUMPY):
    """Run benchmarks/python/<program>.py; return its stdout and its checksum."""
    result = subprocess.run([*prefix, str(BENCHMARKS / f"{program}.py"), *args],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{program} {args} failed:\n{result.stderr}"
    assert re.search(r"^elapsed: \d+(\.\d+)? s$", result.stdout, re.M), result.stdout
    match = re.search(r"^checksum: (\S+)$", result.stdout, re.M)
    assert match, result.stdout
    checksum = float(match.group(1))
    assert math.isfinite(checksum), result.stdout
    return result.stdout, checksum


def number(label, text):
    """The first number after `label` in the program's output."""
    match = re.search(re.escape(label) + r"\s*(-?[\d.]+(?:e[-+]?\d+)?|nan|inf)", text)
    assert match, f"no {label!r} in:\n{text}"
    return float(match.group(1))


def test_all_fifteen_programs_are_listed():
    assert {path.stem for path in BENCHMARKS.glob("*.py")} == set(TINY)


@pytest.mark.parametrize("program", sorted(TINY))
def test_runs_and_is_deterministic(program):
    _, first = run(program, "--size", TINY[program])
    _, second = run(program, "--size", TINY[program])
    assert first == second


@pytest.mark.parametrize("program", ["heat_equation", "nbody", "lbm_d3q19"])
def test_float32_runs(program):
    _, checksum32 = run(program, "--size", TINY[program], "--dtype", "float32")
    _, checksum64 = run(program, "--size", TINY[program])
    assert checksum32 == pytest.approx(checksum64, rel=1e-3)


@pytest.mark.parametrize("size", ["10", "10*10*10*10*10", "a*b", "0*5"])
def test_bad_size_is_a_usage_error(size):
    result = subprocess.run([*NUMPY, str(BENCHMARKS / "sor.py"), "--size", size],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--size must be H*W*I" in result.stderr


def test_leibnitz_converges_to_pi():
    _, estimate = run("leibnitz_pi", "--size", "100000*5")
    assert abs(estimate - math.pi) < 2e-6


@pytest.mark.parametrize("mode", ["--deterministic", "--no-deterministic"])
def test_montecarlo_is_near_pi(mode):
    _, estimate = run("montecarlo_pi", "--size", "200000*5", mode)
    assert abs(estimate - math.pi) < 1e-2


def test_montecarlo_low_discrepancy_beats_its_error_bound():
    _, estimate = run("montecarlo_pi", "--size", "100000*10")
    assert abs(estimate - math.pi) < 1e-4  # random sampling would give ~2e-3


@pytest.mark.parametrize("program,sweeps,tolerance", [("heat_equation", 3000, 1e-3), ("sor", 150, 1e-6)])
def test_laplace_solvers_reach_the_exact_steady_state(program, sweeps, tolerance):
    out, _ = run(program, "--size", f"25*30*{sweeps}", "--check")
    assert number("max error vs steady state:", out) < tolerance


def test_gauss_solves_the_system():
    out, _ = run("gauss_elimination", "--size", "150")
    assert number("max|Ax-b|/max|b|:", out) < 1e-13
    assert number("max error vs known solution:", out) < 1e-12


def test_lu_reconstructs_the_matrix():
    out, _ = run("lu_factorization", "--size", "150")
    assert number("max|LU-A|/max|A|:", out) < 1e-13


def test_game_of_life_board_stays_binary_and_alive():
    out, checksum = run("game_of_life", "--size", "60*60*30")
    assert checksum == int(checksum) and 0 < checksum < 3600


def test_black_scholes_price_is_bounded():
    out, _ = run("black_scholes", "--size", "1000*4")
    assert 0.0 < number("mean call price over maturities:", out) < 70.0  # below the spot price


def test_shallow_water_conserves_mass():
    out, _ = run("shallow_water", "--size", "40*50*200")
    assert abs(number("relative mass drift:", out)) < 1e-13


def test_rosenbrock_descends():
    out, _ = run("rosenbrock", "--size", "1000*50")
    assert number("after 50 steps", out) < number("f/N: start", out)


@pytest.mark.parametrize("program,size,label,tolerance", [
    ("nbody", "100*50", "momentum drift:", 1e-15),
    ("nbody_nice", "5*200*50", "planet momentum drift:", 1e-15),
])
def test_nbody_conserves_momentum(program, size, label, tolerance):
    out, _ = run(program, "--size", size)
    assert number(label, out) < tolerance


def test_nbody_conserves_energy():
    out, _ = run("nbody", "--size", "100*50")
    assert abs(number("relative energy drift:", out)) < 1e-6


def test_lbm_conserves_mass_and_accelerates_the_flow():
    out, _ = run("lbm_d3q19", "--size", "10*10*10*20")
    assert number("mass", out) == pytest.approx(1000.0, rel=1e-12)
    assert 0.0 < number("mean velocity x", out) < 20 * 1e-5 * 1.0001  # at most force * steps


def test_water_ice_freezes_from_the_surface():
    out, _ = run("water_ice", "--size", "30*20*300")
    assert 0.0 < number("ice fraction", out) < 0.5
