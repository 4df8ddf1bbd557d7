"""benchmarks/cold_start.py: runs programs at tiny size cold and warm, tiered (with and without
the interpreter) and untiered, and
writes its tables (checked for content, never for timings)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hassium import _hassium

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "cold_start.py"

pytestmark = pytest.mark.skipif(not _hassium.have_stack,
                                reason="needs the execution stack (python -m hassium)")


def test_cold_and_warm_runs_side_by_side(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--programs", "leibnitz_pi,rosenbrock",
                        "--size", "tiny", "--rounds", "1", "--warm-runs", "1",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads((tmp_path / "results.json").read_text())
    assert [row["program"] for row in data["rows"]] == ["leibnitz_pi", "rosenbrock"]
    for row in data["rows"]:
        for key in ("numpy", "numpy_tuned", "tiered_cold", "tiered_warm", "interpreted_cold",
                    "interpreted_warm", "untiered_cold", "untiered_warm"):
            assert row["times"][key] > 0
        # the cold runs compiled (empty caches), each tier reported its compile times
        assert row["compiles"]["tiered"]["kernels"] > 0
        assert "fast tier" in row["compiles"]["tiered"]
        assert row["compiles"]["tiered"]["interpreted"] == 0
        if row["program"] == "rosenbrock":  # element-wise rows of 1000: on the interpreter first
            assert row["compiles"]["interpreted"]["interpreted"] > 0
        assert row["compiles"]["untiered"]["interpreted"] == 0
        assert "fast tier" not in row["compiles"]["untiered"]
        assert "optimized" in row["compiles"]["untiered"]
    md = (tmp_path / "results.md").read_text()
    assert "| leibnitz_pi | 1000*3 |" in md and "tiered cold s" in md and "untiered cold s" in md
    assert "leibnitz_pi" in r.stdout and "ratio" in r.stdout


def test_unknown_configuration_is_an_error(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--configs", "fastest",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "unknown configuration 'fastest'; valid: tiered, interpreted, untiered" in r.stdout + r.stderr
