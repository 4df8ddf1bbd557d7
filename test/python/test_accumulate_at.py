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


HIST_DTYPES = ["float64", "float32", "int64", "int16", "uint8"]


def hist_data(dtype, size, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, 255, size).astype(dtype)
    return (rng.standard_normal(size) * 50).astype(dtype)


@pytest.mark.parametrize("dtype", HIST_DTYPES)
@pytest.mark.parametrize("size", [0, 1, 1000, 140000])  # 140000: three of NumPy's blocks
def test_histogram_matches_numpy(dtype, size, no_fallback):
    a = hist_data(dtype, size)
    w = np.random.default_rng(1).random(size)
    cases = [dict(bins=10), dict(bins=7, range=(-20, 30.5)), dict(bins=33, weights=w),
             dict(bins=5, range=(0, 10), weights=w), dict(bins=4, density=True), dict(bins=1)]
    for kw in cases:
        if size == 0 and kw.get("density"):
            continue  # NumPy divides 0 by 0 there (a RuntimeWarning)
        n_hist, n_edges = np.histogram(a, **kw)
        hkw = {k: hassium.array(v) if k == "weights" else v for k, v in kw.items()}
        h_hist, h_edges = hassium.histogram(hassium.array(a), **hkw)
        assert isinstance(h_hist, hassium.ndarray) and isinstance(h_edges, hassium.ndarray)
        # every element in NumPy's bin, weighted sums in NumPy's order: bit for bit
        assert_same(h_hist, n_hist, exact=True)
        assert_same(h_edges, n_edges, exact=True)


def test_histogram_edges_and_constant_data(no_fallback):
    # values on the bin edges, the last edge included, constant data (range widened by 0.5)
    a = np.array([0.0, 0.1, 0.2, 0.3, 0.7, 1.0, 1.0, 0.5])
    for kw in [dict(bins=10), dict(bins=3), dict(bins=10, range=(0.1, 0.7))]:
        assert_same(hassium.histogram(hassium.array(a), **kw)[0], np.histogram(a, **kw)[0])
    c = np.full(5, 3.0)
    assert_same(hassium.histogram(hassium.array(c), 4)[0], np.histogram(c, 4)[0])
    assert_same(hassium.histogram(hassium.array(c), 4)[1], np.histogram(c, 4)[1])


def test_histogram_errors_and_other_bins():
    a = np.arange(10.0)
    same_error(lambda xp: xp.histogram(xp.asarray(a), 0))
    same_error(lambda xp: xp.histogram(xp.asarray(a), 5, range=(3, 1)))
    same_error(lambda xp: xp.histogram(xp.asarray(np.array([1.0, np.nan])), 5))
    # estimators run through NumPy, with its values
    h, e = hassium.histogram(hassium.array(a), "auto")
    n, ne = np.histogram(a, "auto")
    assert_same(h, n)
    assert_same(e, ne)
    same_error(lambda xp: xp.histogram(xp.asarray(a), [0, 5, 2]))


@pytest.mark.parametrize("dtype", HIST_DTYPES)
def test_histogram_with_edges(dtype, no_fallback):
    a = hist_data(dtype, 5000)
    if a.dtype.kind == "f":
        a[::97] = np.nan  # never counted
    for bins in ([-50, -3, 0, 0.5, 7, 120], np.linspace(-100, 100, 41), [0, 10, 10, 20],
                 np.array([1, 2], dtype=dtype)):
        for density in (None, True):
            n_hist, n_edges = np.histogram(a, bins, density=density)
            h_hist, h_edges = hassium.histogram(hassium.array(a), bins, density=density)
            assert_same(h_hist, n_hist, exact=not density)
            assert_same(h_edges, n_edges, exact=True)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "uint64", "bool"])
def test_bincount_matches_numpy(dtype, no_fallback):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2 if dtype == "bool" else 60, 5000).astype(dtype)
    w = rng.standard_normal(5000)
    for kw in [{}, dict(minlength=100), dict(weights=w), dict(weights=w, minlength=3)]:
        hkw = {k: hassium.array(v) if k == "weights" else v for k, v in kw.items()}
        assert_same(hassium.bincount(hassium.array(x), **hkw), np.bincount(x, **kw), exact=True)
    assert_same(hassium.bincount([]), np.bincount([]))
    assert_same(hassium.bincount([], minlength=4), np.bincount([], minlength=4))
    assert_same(hassium.bincount([3, 1, 3]), np.bincount([3, 1, 3]))


def test_bincount_errors():
    for args, kw in [(([1, -1],), {}), (([1, 2],), dict(minlength=-1)),
                     ((np.ones((2, 2), int),), {}), ((np.array([1.5]),), {})]:
        same_error(lambda xp: xp.bincount(*[xp.asarray(a) for a in args], **kw))
    assert "no negative elements" in str(same_error(lambda xp: xp.bincount(xp.asarray([1, -1]))))


def test_at_on_a_selection_and_fallback_writes_are_seen():
    # x[mask] is a lazy selection: at() works on its compressed array, as on NumPy's
    x = np.arange(8.0)
    m = x % 3 == 1
    n_sel = x[m]
    np.add.at(n_sel, [0, 0], 1.0)
    hx = hassium.array(x)
    h_sel = hx[hassium.array(x) % 3 == 1]
    hassium.add.at(h_sel, [0, 0], 1.0)
    assert_same(h_sel, n_sel)
    # a selection taken before a fallback wrote the array keeps the values it was taken at
    z = (np.arange(6) + 1j).astype(np.complex64)
    hz = hassium.array(z)
    sel = hz[hassium.array(np.arange(6) % 2 == 0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hassium.FallbackWarning)
        hassium.add.at(hz, [0, 2], np.int32(5))  # complex128 loop: through NumPy
    n = z.copy()
    np.add.at(n, [0, 2], np.int32(5))
    assert_same(hz, n)
    assert_same(sel, z[::2])


def test_at_python_scalars_are_arrays_as_in_numpy():
    # NumPy's at() makes a Python scalar an array (not weak): into uint64 an int computes in
    # float64, into float32 a float in float64; the results are NumPy's either way
    for a0, value in [(np.zeros(3, np.uint64), 4354685564936845354),
                      (np.full(3, 16777216, np.float32), 1.0), (np.zeros(3, np.int8), 5),
                      (np.zeros(3, np.uint8), 255), (np.zeros(3, np.int16), -3)]:
        for name in AT_UFUNCS:
            n = a0.copy()
            getattr(np, name).at(n, [0, 0, 2], value)
            h = hassium.array(a0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", hassium.FallbackWarning)
                getattr(hassium, name).at(h, [0, 0, 2], value)
            assert_same(h, n)
