"""hassium.profile(), HASSIUM_PROFILE=1 and HASSIUM_DOT_DIR from Python: the dict's figures match
what was recorded, the report at exit matches the dict, and the .dot files hold the partitions."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

import hassium
from hassium import _hassium

ROOT = pathlib.Path(__file__).resolve().parents[2]

COUNTERS = ["flushes", "instructions", "blocks", "partition_cost", "singleton_cost",
            "bytes_moved", "merge_cache_hits", "merge_cache_misses", "plans_reused", "plans_reshaped",
            "plan_checks", "small_flushes",
            "kernels_compiled", "kernel_memory_hits", "kernel_disk_hits", "cache_files_rejected",
            "cache_write_errors", "pool_reuses",
            "pool_os_allocations", "pool_cuts", "peak_bytes", "fuse_seconds", "compile_seconds",
            "execute_seconds", "flush_seconds"]


def test_profile_counts_what_was_recorded():
    hassium.flush()
    before = hassium.profile()
    for key in COUNTERS + ["merge_cache_hit_rate", "kernel_cache_hit_rate",
                           "fused_to_singleton", "slowest_kernels"]:
        assert key in before
    a = hassium.arange(100.0)
    b = (a * 2 + 1).sum()
    recorded = _hassium.pending()
    assert recorded >= 3
    after = hassium.profile()  # flushes what is pending
    assert after["flushes"] - before["flushes"] == 1
    assert after["instructions"] - before["instructions"] == recorded
    assert float(b) == 100 * 99 + 100
    again = hassium.profile()  # nothing pending: nothing changes
    assert again["flushes"] == after["flushes"]
    assert again["instructions"] == after["instructions"]
    for key in COUNTERS:
        assert after[key] >= 0
    assert 0 <= after["merge_cache_hit_rate"] <= 1
    assert 0 <= after["kernel_cache_hit_rate"] <= 1


PROGRAM = """
import json
import hassium as np
x = np.arange(1000.0)
total = 0.0
for i in range(3):
    y = np.sin(x) * 2.0 + 1.0
    total += float(y.sum())
d = np.profile()
print(json.dumps(d))
"""

needs_stack = pytest.mark.skipif(not _hassium.have_stack, reason="no execution stack built")


def run_python(args, tmp_path, **env_extra):
    env = dict(os.environ)
    env.update({"HASSIUM_CONFIG": str(ROOT / "config.ini"), "HASSIUM_CPU_KERNEL_CACHE": "memory",
                "HOME": str(tmp_path)})
    env.update(env_extra)
    env.pop("HASSIUM_TEST_BACKEND", None)
    # The hassium this test imported (symlinks kept: the build tree's package dir).
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(hassium.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_parent] + [p for p in
                                        env.get("PYTHONPATH", "").split(os.pathsep) if p])
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                       timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return p


def report_values(stderr):
    """The `label: value` lines of the report, by label."""
    assert "hassium profile:" in stderr
    values = {}
    for line in stderr.splitlines():
        m = re.match(r"^  (\S[^:]*): +(.*)$", line)
        if m:
            values[m.group(1)] = m.group(2)
    return values


def parse_dot(text):
    """(clusters as lists of instruction numbers, instruction boxes, edges) of a partition .dot."""
    assert text.startswith("digraph flush {")
    clusters, boxes, edges, current = [], set(), [], None
    for line in text.splitlines():
        if re.match(r"^  subgraph cluster_\d+ \{$", line):
            current = []
            clusters.append(current)
        elif line == "  }":
            current = None
        elif m := re.match(r'^    i(\d+) \[label="(\d+): ', line):
            assert current is not None, "instruction box outside a cluster"
            assert m.group(1) == m.group(2)
            current.append(int(m.group(1)))
            boxes.add(int(m.group(1)))
        elif m := re.match(r"^  i(\d+) -> i(\d+)", line):
            edges.append((int(m.group(1)), int(m.group(2))))
    assert text.rstrip().endswith("}")
    return clusters, boxes, edges


@needs_stack
@pytest.mark.parametrize("how", ["import", "python -m hassium"])
def test_report_at_exit_matches_profile_dict(tmp_path, how):
    script = tmp_path / "prog.py"
    if how == "import":
        script.write_text(PROGRAM)
        args = [str(script)]
    else:  # numpy resolves to hassium under python -m hassium
        script.write_text(PROGRAM.replace("import hassium as np", "import numpy as np\n"
                                          "import hassium"))
        script.write_text(script.read_text().replace("np.profile()", "hassium.profile()"))
        args = ["-m", "hassium", str(script)]
    dots = tmp_path / "dots"
    p = run_python(args, tmp_path, HASSIUM_PROFILE="1", HASSIUM_DOT_DIR=str(dots))
    d = json.loads(p.stdout.strip().splitlines()[-1])
    r = report_values(p.stderr)
    # Nothing ran after profile() but, under python -m hassium, one flush of the FREEs of the
    # script's globals (dropped when the script ends): the report at exit has the dict's counts.
    extra = int(r["flushes"]) - d["flushes"]
    assert extra == (1 if how == "python -m hassium" else 0)
    exact = [("bytes_moved", "bytes moved"), ("kernels_compiled", "kernels compiled")]
    if not extra:
        exact += [("instructions", "instructions"), ("blocks", "blocks"),
                  ("partition_cost", "partition cost (model units)"),
                  ("singleton_cost", "singleton cost (model units)")]
    for key, label in exact:
        assert int(r[label]) == d[key], label
    assert d["flushes"] >= 3
    assert d["blocks"] >= d["flushes"]
    assert 0 < d["partition_cost"] <= d["singleton_cost"]
    assert 0 < d["fused_to_singleton"] <= 1
    assert d["bytes_moved"] >= 1000 * 8  # x at least
    assert d["kernel_memory_hits"] >= 1  # the loop's kernel again
    assert r["kernel-cache hit rate"].endswith(
        f"({d['kernel_memory_hits'] + d['kernel_disk_hits']} of "
        f"{d['kernel_memory_hits'] + d['kernel_disk_hits'] + d['kernels_compiled']})")
    assert d["slowest_kernels"]
    assert "slowest kernels" in p.stderr
    # The CPU engine on one node: no GPU or cluster lines (their counters are all zero).
    if d["device_launches"] == 0 and d["cluster_ranks"] == 0:
        assert "device kernel launches" not in r and "cluster ranks" not in r
    slowest = d["slowest_kernels"][0]
    assert slowest["bytecode"].startswith(".base a0 ")
    assert slowest["runs"] >= 1 and slowest["seconds"] >= 0
    assert "SIN" in "".join(k["bytecode"] for k in d["slowest_kernels"])

    # One .dot per distinct partition (the loop repeats one), each a valid partition picture.
    files = sorted(dots.glob("partition-*.dot"))
    assert 1 <= len(files) < int(r["flushes"])
    seen_sin = False
    for f in files:
        clusters, boxes, edges = parse_dot(f.read_text())
        flat = [i for c in clusters for i in c]
        assert sorted(flat) == list(range(len(flat)))  # every instruction in exactly one block
        assert all(u in boxes and v in boxes for u, v in edges)
        seen_sin |= "SIN " in f.read_text()
        png = f.with_suffix(".png")
        if shutil.which("dot"):
            assert png.read_bytes()[1:4] == b"PNG"
        else:
            assert not png.exists()
    assert seen_sin


@needs_stack
def test_no_report_without_profile(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    p = run_python([str(script)], tmp_path)
    assert "hassium profile" not in p.stderr
    d = json.loads(p.stdout.strip().splitlines()[-1])
    assert d["flushes"] >= 3 and d["instructions"] > 0  # always counted
    assert d["singleton_cost"] == 0 and d["slowest_kernels"] == []  # only while profiling


def test_profile_counts_rejected_cache_files(tmp_path):
    # A kernel cache whose files were damaged: the next process rejects them (and says so once).
    code = ("import hassium as hs; x = hs.arange(1000.0); print(float((hs.sin(x) * 3).sum())); "
            "p = hs.profile(); print(p['cache_files_rejected'], p['cache_write_errors'])")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), HASSIUM_CPU_KERNEL_CACHE="disk",
               HASSIUM_CPU_CACHE_DIR=str(tmp_path))
    run = lambda: subprocess.run([sys.executable, "-c", code], env=env, text=True,
                                 capture_output=True, check=True)
    first = run()
    assert first.stdout.split()[1:] == ["0", "0"]
    # The optimized kernels come from the detached child of [cpu] optimize_at_exit, which may
    # still be at work when the process is gone (a loaded machine): wait for its files.
    deadline = time.monotonic() + 60
    while not (files := [f for f in tmp_path.iterdir() if f.is_file()]) and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    assert files
    for f in files:
        data = bytearray(f.read_bytes())
        data[len(data) // 2] ^= 0xFF
        f.write_bytes(bytes(data))
    second = run()
    assert second.stdout.split()[0] == first.stdout.split()[0]
    assert int(second.stdout.split()[1]) >= 1
    assert second.stderr.count("warning") == 1, second.stderr
