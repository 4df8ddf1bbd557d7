"""Unbuffered accumulation against NumPy: ufunc.at, bincount, histogram (recorded, no fallback)."""

import warnings

import numpy as np
import pytest

import hassium
from hassium import _hassium
from helpers import assert_same, same_error

AT_UFUNCS = ["add", "subtract", "multiply", "minimum", "maximum"]
DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float32", "float64", "complex64",
          "complex128"]


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape) * 4
    v.flat[::7] = np.nan  # minimum/maximum propagate NaN as NumPy's indexed loops do
    if np.dtype(dtype).kind == "c":
        return (v + 1j * rng.standard_normal(shape)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        return v.astype(dtype)
    v = np.nan_to_num(v)
    if np.dtype(dtype).kind == "b":
        return v > 0
    if np.dtype(dtype).kind == "u":
        return np.abs(v).astype(dtype)
    return v.astype(dtype)


def applies(name, dtype):
    kind = np.dtype(dtype).kind
    return not ((name == "subtract" and kind == "b") or (name in ("minimum", "maximum") and kind == "c"))


@pytest.fixture
def no_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        yield


def recorded(fn):
    """fn() run with every flush counted: (result, instructions recorded by hassium)."""
    before = _hassium.pending()
    r = fn()
    return r, _hassium.pending() - before


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", AT_UFUNCS)
def test_at_matches_numpy_bit_for_bit(name, dtype, no_fallback):
    if not applies(name, dtype):
        pytest.skip("NumPy has no such loop")
    a0 = values(dtype, (6, 5), 1)
    idx = np.random.default_rng(2).integers(-6, 6, 40)  # negative and repeated positions
    v = values(dtype, (40, 5), 3)
    c = np.array(v.flat[1])
    keys_values = [
        (idx, v),                                  # rows, repeated
        (hassium.array(idx), hassium.array(v)),    # a hassium index (the lazy path)
        ((idx[:7], [0, 1, 1, 4, 4, 4, 2]), v[:7, 0]),  # two arrays: elements
        ((slice(None), [0, 0, 3]), v[:6, :3]),     # a slice and an array
        ((idx[:9], 2), c),                         # an array and an int, a 0-d value
        (np.array([True, False, True, True, False, False]), v[:3]),  # a mask
        (slice(1, 4), v[0]),                       # basic: every position once
        (3, v[1]),                                 # an int
    ]
    for key, value in keys_values:
        n = a0.copy()
        numpy_key = np.asarray(key) if isinstance(key, hassium.ndarray) else key
        getattr(np, name).at(n, numpy_key,
                             np.asarray(value) if isinstance(value, hassium.ndarray) else value)
        h = hassium.array(a0)
        getattr(hassium, name).at(h, key, hassium.array(value) if isinstance(value, np.ndarray) else value)
        assert_same(h, n, exact=True)


@pytest.mark.parametrize("name", AT_UFUNCS)
def test_at_is_recorded_not_flushed(name, no_fallback):
    a = hassium.zeros(8) + 1.0
    idx = hassium.arange(20) % 8  # computed: lazy
    _, n = recorded(lambda: getattr(hassium, name).at(a, idx, hassium.arange(20.0)))
    assert n > 0, "nothing recorded: the call flushed or fell back"
    expected = np.zeros(8) + 1.0
    getattr(np, name).at(expected, np.arange(20) % 8, np.arange(20.0))
    assert_same(a, expected, exact=True)


def test_at_python_scalars_and_views(no_fallback):
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.array(n)
    np.add.at(n[:, 1:], ([0, 0, 2], [1, 1, 0]), 2)
    hassium.add.at(h[:, 1:], ([0, 0, 2], [1, 1, 0]), 2)
    assert_same(h, n)
    ni = np.zeros(5, np.uint8)
    hi = hassium.zeros(5, np.uint8)
    np.subtract.at(ni, [0, 0, 4], 1)  # wraps
    hassium.subtract.at(hi, [0, 0, 4], 1)
    assert_same(hi, ni)
    # the value overlaps the target: read before any update, as NumPy does
    n = np.arange(6.0)
    h = hassium.array(n)
    np.add.at(n, [1, 2, 2], n[:3])
    hassium.add.at(h, [1, 2, 2], h[:3])
    assert_same(h, n)


def test_at_casts_like_numpy_through_numpy():
    # NumPy's at casts unsafely where the loop is not the array's dtype: those cases run
    # through NumPy (with a FallbackWarning) and give its values.
    for a0, value in [(np.zeros(3, np.int64), 1.5), (np.zeros(3, np.int8), 300),
                      (np.zeros(3, np.float32), np.float64(0.1)), (np.zeros(3, bool), 2)]:
        n = a0.copy()
        np.add.at(n, [0, 0], value)
        h = hassium.array(a0)
        hassium.add.at(h, [0, 0], value)
        assert_same(h, n)


def test_at_errors():
    def bad_shape(xp):
        xp.add.at(xp.zeros(5), [0, 1], xp.asarray([1.0, 2.0, 3.0]))

    e = same_error(bad_shape)
    assert "array is not broadcastable to correct shape" in str(e)

    def out_of_bounds(xp):
        a = xp.zeros(5)
        xp.add.at(a, xp.asarray([0, 7]), 1.0)
        return a

    e = same_error(out_of_bounds)
    assert "index 7 is out of bounds" in str(e)
    # the runtime stays usable
    h = hassium.zeros(3)
    hassium.add.at(h, [1, 1], 1.0)
    assert_same(h, np.array([0.0, 2.0, 0.0]))
    same_error(lambda xp: xp.divide.at(xp.zeros(3), [0], 0.0 * xp.zeros(3)))
