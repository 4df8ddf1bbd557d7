"""benchmarks/run.py: runs two programs at tiny size in a few configurations and writes the
tables (checked for content, never for timings) and the plots."""
import csv
import importlib.util
import math
from pathlib import Path

import pytest
from hassium import _hassium

RUN_PY = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"

pytestmark = pytest.mark.skipif(not _hassium.have_stack,
                                reason="needs the execution stack (python -m hassium)")


def load_runner():
    spec = importlib.util.spec_from_file_location("bench_run", RUN_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    runner = load_runner()
    status = runner.main(["--bench", "heat_equation,leibnitz_pi", "--size", "tiny",
                          "--algorithms", "singleton,greedy", "--cost-models",
                          "bohrium,max_contract", "--caches", "warm,none", "--repeat", "2",
                          "--headline", "greedy/bohrium/warm", "--out", str(out),
                          "--work", str(out / "work")])
    with open(out / "results.csv") as f:
        rows = list(csv.DictReader(f))
    with open(out / "runs.csv") as f:
        runs = list(csv.DictReader(f))
    return status, out, rows, runs


def test_every_configuration_ran_and_matched_numpy(results):
    status, _, rows, runs = results
    assert status == 0
    configs = {"numpy", "numpy-malloc", "singleton/bohrium/warm", "singleton/bohrium/none",
               "greedy/bohrium/warm", "greedy/bohrium/none", "greedy/max_contract/warm"}
    for bench in ["heat_equation", "leibnitz_pi"]:
        assert {r["config"] for r in rows if r["benchmark"] == bench} == configs
        assert sum(1 for r in runs if r["benchmark"] == bench) == 2 * len(configs)
    for r in rows:
        assert r["runs"] == "2" and r["failed"] == "0"
        assert float(r["median_s"]) > 0 and float(r["max_rss_mb"]) > 0
        if r["engine"] == "hassium":
            assert r["checksum_ok"] == "True"
            assert float(r["checksum_rel_diff"]) <= 1e-9
            assert float(r["speedup_vs_numpy"]) > 0
            assert float(r["speedup_vs_numpy_malloc"]) > 0


def test_partition_cost_comes_from_the_runtime(results):
    _, _, rows, _ = results
    by = {(r["benchmark"], r["config"]): r for r in rows}
    for bench in ["heat_equation", "leibnitz_pi"]:
        singleton = float(by[bench, "singleton/bohrium/none"]["partition_cost"])
        greedy = float(by[bench, "greedy/bohrium/none"]["partition_cost"])
        assert 0 < greedy < singleton  # fusion contracts temporaries
        # the warm cache answers with the same partitions
        assert float(by[bench, "greedy/bohrium/warm"]["partition_cost"]) == greedy
        assert float(by[bench, "greedy/bohrium/warm"]["merge_cache_misses"]) == 0
        assert float(by[bench, "greedy/bohrium/none"]["merge_cache_hits"]) == 0
        assert by[bench, "numpy"]["partition_cost"] == ""


def test_markdown_tables_and_plots(results):
    _, out, rows, _ = results
    text = (out / "results.md").read_text()
    assert "Headline configuration: `greedy/bohrium/warm`" in text
    assert "2 cores" in text and "load average" in text
    by = {(r["benchmark"], r["config"]): r for r in rows}
    speedups = [float(by[b, "greedy/bohrium/warm"]["speedup_vs_numpy"])
                for b in ["heat_equation", "leibnitz_pi"]]
    geomean = math.sqrt(speedups[0] * speedups[1])
    assert f"**{geomean:.2f}x**" in text
    for bench, size in [("heat_equation", "20*30*5"), ("leibnitz_pi", "1000*3")]:
        line = next(l for l in text.splitlines() if l.startswith(f"| {bench} | {size} |"))
        assert line.endswith("| all match |")
    assert "| benchmark | singleton | greedy |" in text  # partition cost per algorithm
    assert "singleton warm | singleton none | greedy warm | greedy none" in text
    assert "greedy bohrium | greedy max_contract" in text  # time per cost model
    heat = next(l for l in text.split("## Partition cost")[1].splitlines()
                if l.startswith("| heat_equation |"))
    assert heat.split("|")[2].strip() == "1.000"  # singleton relative to itself
    assert float(heat.split("|")[3]) < 1.0
    for png in ["speedup", "memory", "partition_cost", "algorithms", "cost_models"]:
        data = (out / f"{png}.png").read_bytes()
        assert data.startswith(b"\x89PNG")


def test_replot_rebuilds_from_runs_csv(results):
    _, out, rows, _ = results
    (out / "results.md").unlink()
    runner = load_runner()
    status = runner.main(["--bench", "heat_equation", "--size", "tiny", "--replot",
                          "--headline", "greedy/bohrium/warm", "--out", str(out)])
    assert status == 0
    text = (out / "results.md").read_text()
    assert "| heat_equation | 20*30*5 |" in text and "leibnitz_pi" not in text


def test_unknown_names_are_errors(tmp_path):
    runner = load_runner()
    with pytest.raises(SystemExit, match="unknown algorithm fastest; valid: singleton"):
        runner.main(["--bench", "sor", "--algorithms", "fastest", "--out", str(tmp_path)])
    with pytest.raises(SystemExit, match="unknown benchmark"):
        runner.main(["--bench", "nope", "--out", str(tmp_path)])
