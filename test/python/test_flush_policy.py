"""Loop-aligned flushes (core/flush_policy.h, [python] align_flushes): a loop that never reads
its data is flushed at the same phase every time, so its flushed programs hit the merge cache."""

import json
import os
import subprocess
import sys

import pytest

import hassium
from hassium import _hassium

needs_stack = pytest.mark.skipif(not _hassium.have_stack, reason="no execution stack built")

# A stencil loop of about 40 instructions per iteration plus the FREEs of its temporaries; no
# sync until the end. Cuts right at the threshold (100) fall at a new phase almost every time.
LOOP = """
import json
import hassium as np
from hassium import _hassium
u = np.zeros((40, 50))
w = np.ones((40, 50))
u[0, :] = 1.0
for it in range(60):
    v = u.copy()
    v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    u = 0.5 * (u + v)
    w = np.sqrt(w * w + 0.1 * u) - np.minimum(w, u) * 0.01
    w[1:-1, :] = 0.9 * w[1:-1, :] + 0.05 * (w[:-2, :] + w[2:, :])
    u = u + 0.001 * (w - u) / (1.0 + np.abs(w))
loop = np.profile()
total = float(u.sum())
print(json.dumps({"flushes": loop["flushes"], "hits": loop["merge_cache_hits"],
                  "misses": loop["merge_cache_misses"], "total": total,
                  "policy": _hassium.flush_policy_stats()}))
"""


def run_script(tmp_path, name, source, settings):
    """Runs `source` in a fresh interpreter on the execution stack with the given HASSIUM_*
    settings; its last line of output, as JSON."""
    script = tmp_path / name
    script.write_text(source)
    env = dict(os.environ, HOME=str(tmp_path), **settings)
    env.pop("HASSIUM_TEST_BACKEND", None)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(hassium.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_parent] + [p for p in
                                        env.get("PYTHONPATH", "").split(os.pathsep) if p])
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_loop(tmp_path, align):
    return run_script(tmp_path, "loop.py", LOOP,
                      {"HASSIUM_PYTHON_FLUSH_THRESHOLD": "100", "HASSIUM_FUSER_CACHE": "memory",
                       "HASSIUM_CPU_KERNEL_CACHE": "memory", "HASSIUM_PYTHON_ALIGN_FLUSHES": align})


@needs_stack
def test_loop_flushes_hit_the_merge_cache(tmp_path):
    aligned = run_loop(tmp_path, "true")
    plain = run_loop(tmp_path, "false")
    assert aligned["total"] == plain["total"]
    # Every flush past the first two (the prefix, the first aligned program) is a hit, but
    # the last one (the rest of the loop, cut by profile()).
    assert aligned["flushes"] >= 15
    assert aligned["hits"] >= aligned["flushes"] - 3
    assert aligned["policy"]["aligned"] >= aligned["flushes"] - 3
    assert aligned["policy"]["forced"] == 0
    # At the threshold the phase drifts: most flushes miss.
    assert plain["flushes"] >= 20
    assert plain["hits"] < plain["flushes"] // 2


def test_align_flushes_setting():
    old = _hassium.align_flushes()
    try:
        _hassium.set_align_flushes(False)
        assert not _hassium.align_flushes()
        _hassium.set_align_flushes(True)
        assert _hassium.align_flushes()
    finally:
        _hassium.set_align_flushes(old)


# NPBench's symm: a row of 550 inner iterations, each recording a few instructions and a store
# that is recorded only while the row end's read of its array is pending (until a cut), else
# written at once. So the stream depends on where the cuts fall: the rows are longer than the
# limit with every store recorded, shorter when a cut came early in the row.
SYMM = """
import json
import numpy
import hassium as np
from hassium import _hassium
rng = numpy.random.default_rng(0)
C, A, B = (np.array(rng.random(s)) for s in ((30, 550), (30, 30), (30, 550)))
temp2 = np.empty((C.shape[1], ), dtype=C.dtype)
C *= 1.2
for i in range(C.shape[0]):
    for j in range(C.shape[1]):
        C[:i, j] += 1.5 * B[i, j] * A[i, :i]
        temp2[j] = B[:i, j] @ A[i, :i]
    C[i, :] += 1.5 * B[i, :] * A[i, i] + 1.5 * temp2
print(json.dumps({"sum": float(C.sum()), "policy": _hassium.flush_policy_stats()}))
"""


@needs_stack
def test_a_stream_shaped_by_its_cuts_keeps_whole_programs(tmp_path):
    got = run_script(tmp_path, "symm.py", SYMM, {"HASSIUM_PYTHON_FLUSH_THRESHOLD": "1000"})
    # Not a forced cut every row (a period the cuts made, taken for a loop's and kept).
    assert got["policy"]["forced"] <= 3, got
