"""Python programs on the GPU engine (run here on OpenCL/PoCL): reads of a device-resident array
(a pivot loop that reads one element per step copies that element back, not the matrix the
device keeps writing; every value read equals NumPy's), and a process that exits right after a
flush whose launches are still queued exits cleanly."""

import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import json, numpy
    import hassium as hs
    n = 200
    A0 = numpy.random.default_rng(0).random((n, n)) + n * numpy.eye(n)
    A = hs.asarray(A0) * 1.0                 # made by the device: not NumPy's memory
    ref = A0.copy()
    got, want = [], []
    for k in range(n - 1):
        p = float(A[k, k])                   # one pivot
        A[k + 1:, k:] -= A[k + 1:, k:k + 1] / p * A[k:k + 1, k:]
        q = ref[k, k]
        ref[k + 1:, k:] -= ref[k + 1:, k:k + 1] / q * ref[k:k + 1, k:]
        got.append(p)
        want.append(q)
    prof = hs.profile()
    row = [float(v) for v in A[n // 2, :5]]  # a row's values
    final = numpy.asarray(A)                 # the whole matrix, at last
    print(json.dumps(dict(got=got, want=want, row=row, want_row=ref[n // 2, :5].tolist(),
                          final=bool(numpy.allclose(final, ref, rtol=1e-10)),
                          out=prof["device_bytes_out"], copies=prof["device_copies_out"],
                          launches=prof["device_launches"])))
""")


def run_on_opencl(program, **env_extra):
    env = dict(os.environ, HASSIUM_STACK_ENGINE="opencl", HASSIUM_GPU_FALLBACK="error",
               **env_extra)
    r = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0 and "unavailable" in r.stderr:
        pytest.skip("no OpenCL device here: " + r.stderr.strip().splitlines()[-1])
    return r


def test_a_pivot_loop_on_the_device_copies_pivots_not_the_matrix():
    r = run_on_opencl(PROGRAM)
    assert r.returncode == 0, r.stderr
    import json
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["launches"] > 0  # it ran on the device
    assert out["got"] == pytest.approx(out["want"], rel=1e-12)
    assert out["row"] == pytest.approx(out["want_row"], rel=1e-10)
    assert out["final"]
    # 199 pivots, 8 bytes each (the whole matrix is 320,000 bytes: a copy of it per step was
    # 63.7 MB).
    assert out["copies"] == 199
    assert out["out"] == 199 * 8


def test_exit_right_after_a_flush_waits_for_the_queued_launches(tmp_path):
    # The flush returns with its launches queued; PoCL compiles each kernel at its launch (its
    # own caches off and an empty GPU program cache, so it does): the exit must wait for them
    # before the exit handlers tear PoCL's LLVM down (it crashed there: SIGSEGV in 8 of 8 runs).
    program = textwrap.dedent("""
        import hassium as hs
        x = hs.arange(300_000) * 1e-8
        for _ in range(3):
            x = hs.sin(x) * 0.5 + hs.cos(x) * 0.25
        hs.flush()
        print("flushed", flush=True)
    """)
    r = run_on_opencl(program, POCL_KERNEL_CACHE="0", HASSIUM_GPU_CACHE_DIR=str(tmp_path))
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.strip() == "flushed"
