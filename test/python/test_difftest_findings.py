"""What the differential tests (difftest.py, program_gen.py) found: each bug as a small explicit
test, named after what hassium got wrong, with the minimal program it came from."""

import numpy as np
import pytest

import hassium
from helpers import assert_same, same_error


# --- a[key] = Python scalar: NumPy's conversions and errors -------------------------------------
# Found as `v2[-1, 3, ...] = -3.75` on uint32 (NumPy: OverflowError; hassium stored 4294967293)
# and `v2[-2, 1] = complex(-3.25, -3.25)` on float32 (NumPy: TypeError; hassium stored -3.25).

@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64"])
@pytest.mark.parametrize("key", [(Ellipsis,), (0,), (slice(1, 3),), ([0, 2],), "mask"])
@pytest.mark.parametrize("value", [-1.0, 256.0, 1e30, float("nan"), float("inf"), -float("inf"),
                                   1 + 2j, complex(2.5, 0)])
def test_setitem_python_float_or_complex_into_integers_raises_like_numpy(dtype, key, value):
    def f(m):
        a = m.zeros(4, dtype)
        k = m.array([True, False, True, False]) if key == "mask" else key
        if value == -1.0 and dtype in ("int8", "int64"):
            a[k] = -129.5 if dtype == "int8" else -1e19  # out of range for the signed types
        elif value == 256.0 and dtype in ("int64", "uint64"):
            a[k] = 2.0 ** 64
        else:
            a[k] = value
        return a

    same_error(f)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint32", "int64", "uint64", "bool"])
@pytest.mark.parametrize("value", [-0.5, 2.5, 255.9, -128.9, 1e18, 0.0, -0.0])
def test_setitem_python_float_into_integers_truncates_like_int(dtype, value):
    def f(m):
        a = m.zeros(4, dtype)
        a[1:3] = value
        a[m.array([True, False, False, True])] = value
        return a

    try:
        expected = f(np)
    except OverflowError:
        same_error(f)
        return
    assert_same(f(hassium), expected)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_setitem_python_complex_into_floats_raises_type_error(dtype):
    for key in [(0,), (Ellipsis,), (slice(0, 2),)]:
        same_error(lambda m: m.zeros(3, dtype).__setitem__(key, 1 + 2j))
    # into bool: truth value, as NumPy
    for value in [1j, complex(float("nan"), 0), 0j]:
        def f(m):
            a = m.zeros(3, bool)
            a[...] = value
            return a
        assert_same(f(hassium), f(np))


# --- clip: Python int bounds beyond the dtype; a Python scalar clipped ----------------------------
# Found as `np.clip(v3, -10, 10950586572723376446)` on uint64 (NumPy drops both bounds; hassium
# raised OverflowError) and `np.clip(v4, None, v3[0, 0])` with v4 a Python int (NumPy clips an
# int64 array: int64; hassium treated it as a weak scalar: int8).

@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint64", "int64"])
def test_clip_integer_bounds_out_of_range(dtype):
    a = np.array([0, 5, 100, 127], dtype)
    for lo, hi in [(-10, 1000), (-(2**70), None), (None, 2**64), (-10, 50), (3, 2**65)]:
        assert_same(hassium.clip(hassium.array(a), lo, hi), np.clip(a, lo, hi))
    # a bound that excludes every value still raises, as NumPy
    same_error(lambda m: m.clip(m.array(a), 300, 400) if dtype in ("uint8", "int8") else
               m.clip(m.array(a), 2**64, 2**65))


def test_clip_of_python_scalars_is_an_array_clip():
    for value, hi in [(4, np.int8(0)), (4, np.int8(9)), (2.5, np.float32(1.0)), (True, 0)]:
        assert_same(hassium.clip(value, None, hi), np.clip(value, None, hi))
        assert_same(hassium.clip(value, hi, None), np.clip(value, hi, None))


# --- ravel: a copy unless C-contiguous ----------------------------------------------------------
# Found as `v5 = v0[:, 2]; v9 = v5.ravel(); v9[-1, ...] = 20` (hassium wrote v0 through v9).

def test_ravel_of_non_contiguous_is_a_copy():
    def f(m):
        a = m.arange(24).reshape(4, 6)
        col = a[:, 2].ravel()      # strided 1-D: NumPy copies
        rev = a[:, ::-1].ravel()   # not C-contiguous: copy
        whole = a.ravel()          # C-contiguous: a view
        col[0] = -1
        rev[0] = -2
        whole[1] = -3
        row = a[1].ravel()         # a contiguous row: a view
        row[0] = -4
        return a, col, rev, whole
    for h, n in zip(f(hassium), f(np)):
        assert_same(h, n)


# --- logical ufuncs with a Python int above INT64_MAX -----------------------------------------
# Found as `np.logical_or(v0, 11789252405583913994)` (NumPy: OverflowError, through a C long).

@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype", ["uint64", "int8", "float64", "bool"])
def test_logical_ufunc_with_python_int_beyond_int64_raises(name, dtype):
    same_error(lambda m: getattr(m, name)(m.array(np.array([0, 1], dtype)), 11789252405583913994))
    same_error(lambda m: getattr(m, name)(2**63, m.array(np.array([0, 1], dtype))))
    # below it, a plain truth value
    a = np.array([0, 1], dtype)
    assert_same(getattr(hassium, name)(hassium.array(a), 2**63 - 1),
                getattr(np, name)(a, 2**63 - 1))


# --- real / imag of a 0-d complex -----------------------------------------------------------
# Found as `np.real(v5)` with v5 a Python complex (hassium: shape (1,), NumPy: ()).

def test_real_imag_of_0d_complex_keep_the_shape():
    for x in [3 + 4j, np.complex64(1 - 2j), np.array(2j)]:
        assert_same(hassium.real(x), np.real(x))
        assert_same(hassium.imag(x), np.imag(x))
    a = np.array([[1 + 2j, 3j]])
    assert_same(hassium.asarray(a)[0, 1].real, a[0, 1].real)
    assert_same(hassium.asarray(a).imag, a.imag)


# --- matmul / dot with a NumPy array of a dtype hassium does not hold --------------------------
# Found as `v12 = v4 @ v4.T[...]` with v4 = np.rint(uint8 array): a NumPy float16 array that
# hassium.matmul handed to its own kernel (TypeError).

def test_matmul_with_float16_falls_back_to_numpy():
    a = np.arange(6, dtype=np.float16).reshape(2, 3)
    b = np.ones((3, 2))
    assert_same(hassium.matmul(a, hassium.asarray(b)), np.matmul(a, b))
    assert_same(hassium.dot(a, a.T), np.dot(a, a.T))
    assert_same(hassium.matmul(hassium.asarray(b.T), a.T.astype(bool)),
                np.matmul(b.T, a.T.astype(bool)))


# --- the NumPy reference backend computed into buffers nobody read ------------------------------
# Found running test_programs.py with HASSIUM_TEST_BACKEND=reference: every value 0, and a
# segfault for views with an offset. The backend allocated memory for program.bases only, which
# the runtime lists only when a filter runs (none in the reference stack).

def test_reference_backend_writes_the_arrays_memory():
    import os
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import reference_backend, hassium\n"
            "hassium._hassium._install_python_backend(reference_backend.execute)\n"
            "a = hassium.arange(24.0).reshape(4, 6)\n"
            "print((a[1:, 2:] * 2).sum(), (a + 1)[3, 5],"
            " hassium.arange(6)[::-2].tolist())\n" % here)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["372.0", "24.0", "[5,", "3,", "1]"]


# --- a[key] = <NumPy array>: the value's FREE was recorded before the copy that reads it -------
# Found as `v0[...] = np.clip(np.where(..., v6[::-1, None], 0), -64, 64)` where the value was a
# NumPy float16 array (a fallback's result): hassium wrapped it (after a cast to the target's
# dtype) without another owner, recorded FREE of it, then the copy; the CPU engine read freed
# memory (zeros). Any NumPy array of the target's dtype did the same: `a[...] = numpy.full(...)`.

@pytest.mark.parametrize("dtype", ["int8", "float64", "complex64"])
def test_setitem_from_a_temporary_numpy_array(dtype):
    def f(m):
        a = m.full((7, 9), 91, dtype=dtype)
        a[...] = np.full((7, 1), 9, dtype=dtype)          # same dtype: wrapped, not copied
        b = m.full((7, 9), 91, dtype=dtype)
        b[1:3] = np.arange(18, dtype=np.float16).reshape(2, 9)  # cast first (float16)
        c = m.zeros(10, dtype=dtype)
        c[[1, 4, 7]] = np.array([5, 6, 7], dtype=dtype)   # scatter
        d = m.zeros(4, dtype=dtype)
        d[m.array([True, False, True, False])] = np.array([3, 4], dtype=dtype)
        return a, b, c, d
    for h, n in zip(f(hassium), f(np)):
        assert_same(h, n)


# --- concatenate with a NumPy array of a dtype hassium does not hold --------------------------
# Found (minimal, shrunk by hypothesis) as
#     v3 = np.sqrt(v2)            # v2 bool: NumPy gives float16, hassium falls back to NumPy
#     v4 = np.concatenate([v3, v3[0:1, :]], axis=0)
# hassium: TypeError "hassium does not support dtype float16".

def test_concatenate_with_float16_falls_back_to_numpy():
    for fn in [lambda m, a: m.concatenate([a, a[0:1, :]], axis=0),
               lambda m, a: m.stack([a, a], axis=1),
               lambda m, a: m.vstack((a, m.ones((1, 2)))),
               lambda m, a: m.concatenate([m.ones((2, 2), dtype=bool), a], axis=1)]:
        for m in (hassium, np):
            a = m.sqrt(m.array([[False, True], [True, True]]))
            if m is np:
                expected = fn(np, a)
            else:
                got = fn(hassium, a)
        assert_same(got, expected)


# --- clip of complex numbers with a NaN in a bound ---------------------------------------------
# Found (shrunk) as `v3 = np.clip(v1, v2, 0.0)`, v1 float zeros, v2 complex zeros but one
# complex(-6.0, nan): NumPy's clip ufunc orders complex numbers lexicographically and a bound
# whose real part decides does not propagate its NaN imaginary part (0j); hassium clipped with
# maximum/minimum, which do (-6+nanj).

def test_clip_complex_bound_with_nan_imaginary_part():
    nan = float("nan")
    a = np.array([0j, 0j, 1 + 1j, complex(nan, 0), 2 + 0j])
    b = np.array([complex(-6, nan), complex(nan, 1), complex(1, nan), 1j, complex(3, nan)])
    for lo, hi in [(b, 10), (-10, b), (b, b[::-1]), (complex(-6, nan), 1)]:
        h_lo = hassium.array(lo) if isinstance(lo, np.ndarray) else lo
        h_hi = hassium.array(hi) if isinstance(hi, np.ndarray) else hi
        assert_same(hassium.clip(hassium.array(a), h_lo, h_hi), np.clip(a, lo, hi))
    assert_same(hassium.clip(hassium.zeros(5), hassium.array(b), 0.0), np.clip(np.zeros(5), b, 0.0))


# --- clip resolves a, min and max to one dtype together -----------------------------------------
# Found as `v4 = np.clip(v2, 6054386311921591855, v3)` (v2 uint8, v3 = argmin: int64): NumPy's
# clip ufunc gives int64; hassium's maximum(uint8, 6054386311921591855) raised OverflowError.
# And `np.clip(v6, v5, v1[::-1, :])` (uint8, a Python float, float32): NumPy float32, hassium
# float64 (maximum(uint8, 2.5) is float64 before float32 joins).

def test_clip_promotes_all_three_operands_together():
    nan = float("nan")
    arrays = [np.array([0, 5, 200], np.uint8), np.array([-3, 0, 100], np.int8),
              np.array([True, False, True]), np.array([0.5, nan, -2.0], np.float32),
              np.array([7, -8, 2**62], np.int64), np.array([1, 2**63, 3], np.uint64)]
    bounds = [None, 0, 300, 2**62, 6054386311921591855, -2**63, 2.5, nan, True, np.int64(3),
              np.float32(1.5), np.array([1.0, 2.0, 3.0], np.float32), np.array([0, 1, 2], np.int16)]

    def h(x):
        return hassium.asarray(x) if isinstance(x, np.ndarray) else x

    for a in arrays:
        for lo in bounds:
            for hi in bounds:
                if lo is None and hi is None:
                    continue
                try:
                    expected = np.clip(a, lo, hi)
                except OverflowError:
                    same_error(lambda m: m.clip(h(a) if m is hassium else a,
                                                h(lo) if m is hassium else lo,
                                                h(hi) if m is hassium else hi))
                    continue
                assert_same(hassium.clip(h(a), h(lo), h(hi)), expected)
