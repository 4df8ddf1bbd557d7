"""sort, argsort, searchsorted, unique (hassium/_sorting.py, ve/cpu/sorting.cpp) against NumPy."""

import warnings

import numpy as np
import pytest

import hassium
from hassium import _hassium
from helpers import assert_same, same_error

DTYPES = ["bool", "int8", "int64", "uint16", "uint64", "float32", "float64", "complex64",
          "complex128"]


@pytest.fixture(autouse=True)
def no_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        yield


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    v = np.round(rng.standard_normal(shape) * 4)  # many ties
    if np.dtype(dtype).kind == "f":
        v.flat[::5] = np.nan
        v.flat[1::7] = -0.0
        v.flat[2::11] = np.inf
    if np.dtype(dtype).kind == "c":
        im = np.round(rng.standard_normal(shape) * 2)
        im.flat[3::8] = np.nan  # NaN parts: after the numbers, in NumPy's complex order
        return (np.nan_to_num(v, nan=1.0, posinf=2.0) + v * 0 + 1j * im).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return v > 0
    if np.dtype(dtype).kind == "u":
        return np.abs(np.nan_to_num(v)).astype(dtype)
    return np.nan_to_num(v).astype(dtype) if np.dtype(dtype).kind == "i" else v.astype(dtype)


def same_bits(h, n):
    """Equal values and, for floats, the same bits (-0.0 where NumPy has -0.0, NaN for NaN)."""
    h = np.asarray(h)
    assert h.shape == n.shape and h.dtype == n.dtype
    if n.dtype.kind in "fc":
        bits = f"u{n.itemsize // (2 if n.dtype.kind == 'c' else 1)}"
        np.testing.assert_array_equal(h.view(bits), n.view(bits))
    else:
        np.testing.assert_array_equal(h, n)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(13,), (4, 7), (3, 4, 5), (1,), (0,), (5, 0)])
def test_sort_and_argsort_every_axis(dtype, shape):
    a = data(shape, dtype)
    for axis in list(range(-len(shape), len(shape))) + [None]:
        # stable: ties (and -0.0 / 0.0, NaNs) keep their order, as NumPy's stable sort
        same_bits(hassium.sort(hassium.array(a), axis=axis), np.sort(a, axis=axis, kind="stable"))
        same_bits(hassium.argsort(hassium.array(a), axis=axis),
                  np.argsort(a, axis=axis, kind="stable"))
        # any kind gives NumPy's sorted values
        assert_same(hassium.sort(hassium.array(a), axis=axis, kind="quicksort"),
                    np.sort(a, axis=axis))


def test_sort_views_in_place_and_recorded():
    a = data((6, 9), "float64")
    h = hassium.array(a)
    before = _hassium.pending()
    s = hassium.sort(h[::-2, 1::3], axis=0)
    assert _hassium.pending() > before  # recorded, not flushed
    same_bits(s, np.sort(a[::-2, 1::3], axis=0, kind="stable"))
    n = a.copy()
    n[1:, ::2].sort(axis=1, kind="stable")
    h[1:, ::2].sort(axis=1)  # in place, through the view
    same_bits(h, n)
    same_bits(hassium.array(a).argsort(), np.argsort(a, kind="stable"))


def test_sort_many_lanes_in_parallel():
    a = data((64, 4096), "float64", seed=3)  # past the engine's parallel threshold
    same_bits(hassium.sort(hassium.array(a), axis=1), np.sort(a, axis=1, kind="stable"))
    same_bits(hassium.argsort(hassium.array(a), axis=0), np.argsort(a, axis=0, kind="stable"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_searchsorted(dtype):
    a = np.sort(data(40, dtype, seed=1), kind="stable")
    v = data((3, 5), dtype, seed=2)
    for side in ["left", "right"]:
        same_bits(hassium.searchsorted(hassium.array(a), hassium.array(v), side=side),
                  np.searchsorted(a, v, side=side))
        same_bits(hassium.array(a).searchsorted(hassium.array(v[0]), side),
                  np.searchsorted(a, v[0], side))
    order = np.argsort(data(40, dtype, seed=1), kind="stable")
    raw = data(40, dtype, seed=1)
    same_bits(hassium.searchsorted(hassium.array(raw), hassium.array(v), sorter=order),
              np.searchsorted(raw, v, sorter=order))
    # a Python scalar and another dtype compare in NumPy's common type
    assert int(hassium.searchsorted(hassium.array(a), 2)) == np.searchsorted(a, 2)
    if dtype.startswith("int"):
        same_bits(hassium.searchsorted(hassium.array(a), hassium.array([0.5, 1.5])),
                  np.searchsorted(a, [0.5, 1.5]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(30,), (4, 6), (0,)])
def test_unique(dtype, shape):
    a = data(shape, dtype, seed=4)
    for flags in [{}, dict(return_counts=True), dict(return_index=True),
                  dict(return_inverse=True),
                  dict(return_index=True, return_inverse=True, return_counts=True)]:
        for equal_nan in [True, False]:
            n = np.unique(a, equal_nan=equal_nan, **flags)
            h = hassium.unique(hassium.array(a), equal_nan=equal_nan, **flags)
            if isinstance(n, tuple):
                assert isinstance(h, tuple) and len(h) == len(n)
                names = [k for k in ("return_index", "return_inverse", "return_counts")
                         if flags.get(k)]
                for k, (x, y) in enumerate(zip(h, n)):
                    if (k and names[k - 1] == "return_inverse" and not equal_nan and
                            not flags.get("return_index")):
                        # NumPy's quicksort leaves the order of the NaNs (each its own value)
                        # open: any inverse that rebuilds the array is right
                        np.testing.assert_array_equal(np.asarray(h[0])[np.asarray(x)], a)
                        assert np.asarray(x).dtype == y.dtype and np.asarray(x).shape == y.shape
                        continue
                    assert_same(x, y, exact=True)
            else:
                assert_same(h, n, exact=True)


def test_errors_and_what_runs_through_numpy():
    same_error(lambda xp: xp.sort(xp.asarray(1.0)))
    same_error(lambda xp: xp.argsort(xp.asarray([1.0, 2.0]), axis=1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hassium.FallbackWarning)
        assert_same(hassium.unique(hassium.array(np.ones((2, 3))), axis=0),
                    np.unique(np.ones((2, 3)), axis=0))
        same_error(lambda xp: xp.searchsorted(xp.asarray([1.0, 2.0]), 1.5, side="middle"))
