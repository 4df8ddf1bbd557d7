"""benchmarks/npbench.py, the NPBench runner.

Without NPBench: its own logic (NPBench's validation criterion, geomeans, the summary, tables,
CSV and plot), and the subprocess machinery end to end on a tiny stand-in checkout written here
(kernels that pass, raise, run too long, and give hassium other numbers). With a checkout of
spcl/npbench named by NPBENCH_DIR: three small kernels at preset S, NumPy and hassium (CI has no
checkout; that test skips)."""
import csv
import importlib.util
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hassium import _hassium

RUNNER = Path(__file__).resolve().parents[2] / "benchmarks" / "npbench.py"


def load_runner():
    spec = importlib.util.spec_from_file_location("npbench_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


nb = load_runner()


# ---- validation: NPBench's criterion -----------------------------------------------------------


def test_identical_outputs_validate():
    a = np.linspace(0, 1, 100)
    assert nb.validate([a, 3.0], [a.copy(), 3.0]) == (True, "")


def test_allclose_passes_and_relative_error_rescues_the_rest():
    ref = np.ones(1000)
    close = ref * (1 + 1e-7)
    assert nb.validate([ref], [close])[0]
    off = ref.copy()
    off[0] += 1e-3  # not allclose; relative error 1e-3 / sqrt(1000) = 3.2e-5
    ok, detail = nb.validate([ref], [off])
    assert not ok and "relative error 3.16e-05 > 1e-05" in detail
    ok, detail = nb.validate([ref], [off], norm_error=1e-4)
    assert ok and "relative error 3.2e-05 (not allclose)" in detail


def test_kernel_tolerances_come_from_bench_info():
    assert nb.tolerances({}) == (1e-5, 1e-8, 1e-5)
    assert nb.tolerances({"rtol": 1e-3, "atol": 1e-3, "norm_error": 0.1}) == (1e-3, 1e-3, 0.1)


def test_shape_nan_zero_reference_and_missing_outputs_are_mismatches():
    a = np.arange(6.0)
    ok, detail = nb.validate([a], [a.reshape(2, 3)])
    assert not ok and "shape (2, 3) where NumPy's is (6,)" in detail
    b = a.copy()
    b[2] = np.nan
    ok, detail = nb.validate([a], [b])
    assert not ok and "1 NaN (NumPy 0)" in detail
    ok, detail = nb.validate([np.zeros(3)], [np.ones(3)])
    assert not ok and "relative error inf" in detail
    assert nb.validate([a], []) == (False, "no outputs")


def test_pairs_like_npbench_when_the_counts_differ():
    a, b = np.arange(3.0), np.arange(4.0)
    ok, detail = nb.validate([a, b], [a])
    assert ok and "NumPy gave 2 outputs, this 1: compared the first 1" in detail


def test_bool_complex_integer_and_scalar_outputs():
    m = np.array([True, False, True])
    assert nb.validate([m], [m.copy()])[0]
    ok, detail = nb.validate([m], [~m])
    assert not ok and "output 0" in detail
    z = np.array([1 + 2j, 3 - 1j])
    assert nb.validate([z], [z + 1e-12])[0]
    assert not nb.validate([z], [z.conj()])[0]
    assert nb.validate([np.int64(7)], [7])[0]
    assert not nb.validate([np.arange(5)], [np.arange(5) + 1])[0]
    ok, detail = nb.validate([np.arange(3.0)], [np.arange(3, dtype=np.float32)])
    assert ok


# ---- summaries, tables, plot -------------------------------------------------------------------


def test_geomean_and_speedup():
    assert nb.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert nb.geomean([None, 4.0, float("nan")]) == pytest.approx(4.0)
    assert nb.geomean([]) is None
    assert nb.speedup(2.0, 0.5) == 4.0 and nb.speedup(None, 1.0) is None


def rec(kernel, framework, status="ok", best=None, first=None, variant="", **kw):
    return dict(kernel=kernel, framework=framework, variant=variant, status=status, best_s=best,
                first_s=first, times=[best] if best else [], **kw)


def synthetic():
    records = [
        rec("k1", "numpy", best=1.0, first=1.1), rec("k1", "numpy_tuned", best=0.8),
        rec("k1", "hassium", best=0.25, first=2.0), rec("k1", "numba", best=0.5, variant="n"),
        rec("k1", "numba", best=0.4, variant="np"),
        rec("k2", "numpy", best=2.0), rec("k2", "numpy_tuned", best=2.0),
        rec("k2", "hassium", best=4.0, first=5.0), rec("k2", "numba", best=1.0, variant="n"),
        rec("k3", "numpy", best=1.0), rec("k3", "numpy_tuned", best=1.0),
        rec("k3", "hassium", "error", error="TypeError: no constructor (in first run)"),
        rec("k3", "numba", best=0.5, variant="n"),
        rec("k4", "numpy", best=1.0), rec("k4", "numpy_tuned", best=1.0),
        rec("k4", "hassium", "mismatch", best=0.1, detail="output 0: relative error 1"),
        rec("k4", "numba", "timeout", error="first run did not finish in 60 s", variant="n"),
    ]
    records += [rec(k, "jax", "unavailable", error="no Python for it") for k in
                ("k1", "k2", "k3", "k4")]
    return nb.Results(records, ["numpy", "numpy_tuned", "hassium", "numba", "jax"], "S",
                      {"note": "synthetic", "machine": "test"})


def test_summary_geomeans_over_the_common_set():
    res = synthetic()
    assert res.compared() == ["numpy_tuned", "hassium", "numba"]  # jax never ran
    assert res.common_kernels() == ["k1", "k2"]
    assert res.get("k1", "numba")["variant"] == "np"  # the fastest validated variant
    summary = {r["framework"]: r for r in res.summary()}
    h = summary["hassium"]
    assert h["geomean_numpy_common"] == pytest.approx(math.sqrt(4.0 * 0.5))
    assert h["geomean_tuned_common"] == pytest.approx(math.sqrt(3.2 * 0.5))
    assert (h["ran"], h["validated"], h["error"], h["mismatch"], h["slower_numpy"]) == (
        3, 2, 1, 1, 1)
    assert summary["numba"]["timeout"] == 1 and summary["numba"]["own"] == 3
    assert summary["numba"]["geomean_numpy_own"] == pytest.approx((2.5 * 2 * 2) ** (1 / 3))
    assert nb.slow_lines(res, "hassium") == ["k2 0.50x"]


def test_tables_csv_markdown_plot_and_replot(tmp_path):
    res = synthetic()
    nb.save_json(res, tmp_path / "results.json")
    assert nb.main(["--replot", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["kernel"] for r in rows] == ["k1", "k2", "k3", "k4"]
    k1 = rows[0]
    assert (k1["numpy_s"], k1["hassium_s"], k1["hassium_vs_numpy"], k1["hassium_vs_tuned"],
            k1["hassium_first_s"], k1["hassium_status"]) == ("1", "0.25", "4", "3.2", "2", "ok")
    assert rows[3]["hassium_status"] == "mismatch" and rows[3]["hassium_vs_numpy"] == ""
    md = (tmp_path / "results.md").read_text()
    assert "| k2 | 2.000 | 2.000 | 1.00x | ok | 4.000 | **0.50x** | 0.50x | 5.000 | ok |" in md
    assert "| hassium | 3/4 | 2 | 1.41x | 1.26x | 1.41x (2) | 1 | 1 | 1 | 0 | 0 | 1 | 0 |" in md
    assert "Common set (2 kernels): k1, k2" in md
    assert "- hassium / k3: **error**: TypeError: no constructor (in first run)" in md
    assert "- Numba / k4: **timeout**: first run did not finish in 60 s" in md
    assert "- JAX: no Python for it" in md
    pytest.importorskip("matplotlib")
    assert (tmp_path / "speedup.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_child_environments(tmp_path, monkeypatch):
    monkeypatch.setenv("MALLOC_TOP_PAD_", "1")
    assert not any(k.startswith("MALLOC_") for k in nb.child_env("numpy", "cold", tmp_path))
    tuned = nb.child_env("numpy_tuned", "cold", tmp_path)
    assert {k: tuned[k] for k in nb.TUNED_MALLOC_ENV} == {
        "MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "17179869184",
        "MALLOC_TOP_PAD_": "1073741824"}
    cold = nb.child_env("hassium", "cold", tmp_path)
    assert cold["HASSIUM_CPU_CACHE_DIR"].startswith(str(tmp_path))
    configured = nb.child_env("hassium", "configured", tmp_path)
    assert configured.get("HASSIUM_CPU_CACHE_DIR") == os.environ.get("HASSIUM_CPU_CACHE_DIR")


# ---- end to end on a stand-in checkout (the runner's subprocesses, timeouts, errors) -----------

STANDIN = {
    "double": ("def initialize(N):\n    import numpy as np\n"
               "    return np.arange(N, dtype=np.float64), np.ones(N)\n",
               "import numpy as np\n\ndef kernel(x, y):\n    y[:] = y + x\n"
               "    return np.sum(x * 2)\n",
               {"init": {"func_name": "initialize", "input_args": ["N"],
                         "output_args": ["x", "y"]},
                "input_args": ["x", "y"], "array_args": ["x", "y"], "output_args": ["y"]}),
    "boom": ("", "def kernel(N):\n    raise ValueError('broken on purpose')\n",
             {"input_args": ["N"], "array_args": [], "output_args": []}),
    # plain NumPy runs past the timeout: tuned NumPy's outputs become the reference
    "slow": ("", "import os\nimport time\nimport numpy as np\n\ndef kernel(N):\n"
             "    if np.__name__ == 'numpy' and 'MALLOC_TOP_PAD_' not in os.environ:\n"
             "        time.sleep(60)\n    return np.arange(N) * 1.5\n",
             {"input_args": ["N"], "array_args": [], "output_args": []}),
    # returns nothing, bench_info names no outputs: what the call updates in place is compared
    "inplace": ("def initialize(N):\n    import numpy as np\n"
                "    return np.arange(N, dtype=np.float64), np.ones(N)\n",
                "def kernel(x, y):\n    x[1:] += y[1:] * 2\n",
                {"init": {"func_name": "initialize", "input_args": ["N"],
                          "output_args": ["x", "y"]},
                 "input_args": ["x", "y"], "array_args": ["x", "y"], "output_args": []}),
    # hassium gives other numbers: a mismatch; it also shows that `numpy` was hassium there
    "which": ("", "import numpy as np\n\ndef kernel(N):\n"
              "    return np.ones(N) * (2.0 if np.__name__ == 'hassium' else 1.0)\n",
              {"input_args": ["N"], "array_args": [], "output_args": []}),
}


def write_standin(root):
    for name, (init, impl, info) in STANDIN.items():
        d = root / "npbench" / "benchmarks" / name
        d.mkdir(parents=True)
        (d / f"{name}.py").write_text(init)
        (d / f"{name}_numpy.py").write_text(impl)
        bench = {"name": name, "short_name": name, "relative_path": name, "module_name": name,
                 "func_name": "kernel", "parameters": {"S": {"N": 10}}, **info}
        (root / "bench_info").mkdir(exist_ok=True)
        (root / "bench_info" / f"{name}.json").write_text(json.dumps({"benchmark": bench}))


def test_end_to_end_on_a_standin_checkout(tmp_path):
    root = tmp_path / "npbench"
    write_standin(root)
    frameworks = "numpy,numpy_tuned" + (",hassium" if _hassium.have_stack else "")
    out = tmp_path / "out"
    assert nb.main(["--npbench", str(root), "--preset", "S", "--frameworks", frameworks,
                    "--repeat", "2", "--timeout", "3", "--out", str(out),
                    "--peers-python", str(tmp_path / "none")]) == 0
    res = nb.load_json(out / "results.json")
    get = res.get
    assert get("double", "numpy")["status"] == "ok"
    assert get("double", "numpy")["outputs"] == 2  # the return value, then y
    assert len(get("double", "numpy")["times"]) == 2
    assert get("boom", "numpy")["status"] == "error"
    assert get("boom", "numpy")["error"] == (
        "ValueError: broken on purpose (in first run, at boom_numpy.py:2: "
        "raise ValueError('broken on purpose'))")
    assert get("slow", "numpy")["status"] == "timeout"
    assert get("slow", "numpy")["error"] == "first run did not finish in 3 s"
    assert get("which", "numpy")["status"] == "ok"
    assert get("which", "numpy_tuned")["status"] == "ok"
    assert get("boom", "numpy_tuned")["status"] == "error"
    assert get("slow", "numpy_tuned")["status"] == "ok"
    assert get("slow", "numpy_tuned")["detail"] == "the reference here (NumPy: timeout)"
    if _hassium.have_stack:
        assert get("slow", "hassium")["status"] == "ok"
        assert get("slow", "hassium")["detail"] == "validated against tuned NumPy's outputs"
        assert get("double", "hassium")["status"] == "ok"
        assert get("which", "hassium")["status"] == "mismatch"
        assert "relative error 1 > 1e-05" in get("which", "hassium")["detail"]
        assert get("inplace", "hassium")["status"] == "ok"
    # --update reruns one kernel and keeps the others' records
    first = get("double", "numpy")["first_s"]
    assert nb.main(["--npbench", str(root), "--preset", "S", "--frameworks", "numpy",
                    "--kernels", "double", "--repeat", "1", "--out", str(out), "--update"]) == 0
    res = nb.load_json(out / "results.json")
    assert res.get("double", "numpy")["first_s"] != first
    assert len(res.get("double", "numpy")["times"]) == 1
    assert res.get("slow", "numpy")["status"] == "timeout"
    assert res.get("double", "numpy_tuned")["status"] == "ok"  # kept
    assert res.kernels == sorted(STANDIN)
    assert "reran double" in res.meta["updates"][0]
    assert get("inplace", "numpy")["inplace"] == ["x"]
    assert get("inplace", "numpy_tuned")["detail"] == (
        "compared the arrays NumPy updates in place: x")
    md = (out / "results.md").read_text()
    assert "- NumPy / slow: **timeout**: first run did not finish in 3 s" in md


# ---- the real NPBench, when a checkout is given ------------------------------------------------


@pytest.mark.skipif(not os.environ.get("NPBENCH_DIR"),
                    reason="NPBENCH_DIR names no checkout of spcl/npbench")
@pytest.mark.skipif(not _hassium.have_stack, reason="needs the execution stack")
def test_npbench_preset_s(tmp_path):
    kernels = ["go_fast", "jacobi_1d", "softmax"]
    assert nb.main(["--npbench", os.environ["NPBENCH_DIR"], "--preset", "S", "--kernels",
                    ",".join(kernels), "--frameworks", "numpy,hassium", "--repeat", "1",
                    "--out", str(tmp_path)]) == 0
    res = nb.load_json(tmp_path / "results.json")
    for k in kernels:
        for f in ("numpy", "hassium"):
            r = res.get(k, f)
            assert r["status"] == "ok", (k, f, r.get("error"), r.get("detail"))
            assert r["best_s"] > 0 and r["first_s"] > 0
    assert (tmp_path / "results.md").exists() and (tmp_path / "results.csv").exists()
