"""benchmarks/peers.py: its programs agree across the frameworks present (NumPy and hassium
here; numexpr, Numba and JAX where a peers venv exists), tables and JSON written (content only,
never timings)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hassium import _hassium

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "peers.py"

pytestmark = pytest.mark.skipif(not _hassium.have_stack,
                                reason="needs the execution stack (python -m hassium)")


def test_programs_agree_and_tables_are_written(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--scale", "0.0005", "--repeat", "1",
                        "--frameworks", "numpy,numpy_tuned,numexpr,hassium",
                        "--peers-python", str(tmp_path / "no-such-python"), "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads((tmp_path / "results.json").read_text())["results"]
    assert list(data) == ["black_scholes", "heat", "fused_sum", "loop_1k"]
    for case, res in data.items():
        for fw in ("numpy", "numpy_tuned", "hassium", "hassium_cold_process"):
            assert res[fw]["matches_numpy"], (case, fw)
            assert res[fw]["best"] > 0 and res[fw]["first"] > 0
        assert "no peers Python" in res["numexpr"]["error"]
    md = (tmp_path / "results.md").read_text()
    assert "| black_scholes | hassium |" in md and "| loop_1k | numexpr | no peers Python" in md


def test_unknown_names_are_errors(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--cases", "mandelbrot", "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "unknown: mandelbrot" in r.stdout + r.stderr
