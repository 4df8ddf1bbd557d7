"""Functions composed of recorded operations (hassium/_composed.py) against NumPy, no fallback."""

import warnings

import numpy as np
import pytest

import hassium
from helpers import assert_same, same_error


@pytest.fixture(autouse=True)
def no_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        yield


def data(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape) * 5
    if np.dtype(dtype).kind == "b":
        return v > 0
    if np.dtype(dtype).kind in "iu":
        return np.abs(v).astype(dtype)
    return v.astype(dtype)


def check(fn, *arrays, **kwargs):
    """fn(np, *arrays) and fn(hassium, *hassium arrays): equal bit for bit (tuples elementwise)."""
    n = fn(np, *arrays, **kwargs)
    h = fn(hassium, *[hassium.array(a) for a in arrays], **kwargs)
    if isinstance(n, (tuple, list)):
        assert isinstance(h, tuple) and len(h) == len(n)
        for x, y in zip(h, n):
            assert isinstance(x, hassium.ndarray)
            assert_same(x, y, exact=True)
    else:
        if isinstance(n, np.ndarray):
            assert isinstance(h, hassium.ndarray)
        assert_same(h, n, exact=True)


@pytest.mark.parametrize("dtype", ["float64", "int32", "uint8", "bool"])
def test_diff(dtype):
    a = data((4, 6), dtype)
    for kw in [{}, dict(n=2), dict(axis=0), dict(n=3, axis=-1), dict(prepend=0), dict(append=[[1]] * 4),
               dict(prepend=1, append=2, axis=1), dict(n=0)]:
        check(lambda xp, x: xp.diff(x, **kw), a)
    same_error(lambda xp: xp.diff(xp.asarray(1.0)))
    same_error(lambda xp: xp.diff(xp.asarray([1.0, 2.0]), n=-1))


def test_meshgrid_and_broadcast_arrays():
    x, y, z = np.arange(3.0), np.arange(4, dtype=np.int32), np.linspace(0, 1, 2)
    for kw in [{}, dict(indexing="ij"), dict(sparse=True), dict(copy=False)]:
        check(lambda xp, a, b: xp.meshgrid(a, b, **kw), x, y)
        check(lambda xp, a, b, c: xp.meshgrid(a, b, c, **kw), x, y, z)
    check(lambda xp, a: xp.meshgrid(a), x)
    same_error(lambda xp: xp.meshgrid(xp.asarray(x), indexing="yx"))
    check(lambda xp, a, b: xp.broadcast_arrays(a, b), np.ones((3, 1)), np.arange(4.0))
    check(lambda xp, a, b: xp.broadcast_arrays(a, b), np.ones((2, 3)), np.ones((2, 3)))
    same_error(lambda xp: xp.broadcast_arrays(xp.ones(3), xp.ones(4)))


def test_logspace():
    for args, kw in [((0, 3, 4), {}), ((1.0, 2.0), dict(num=7, base=2.0)),
                     ((0, 1, 5), dict(endpoint=False)), ((0, 2, 3), dict(dtype=np.float32))]:
        n = np.logspace(*args, **kw)
        h = hassium.logspace(*args, **kw)
        assert_same(h, n, rtol=1e-14)  # a vector pow: within a few ulp of NumPy's


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool", "complex128"])
def test_tile_and_repeat(dtype):
    a = data((2, 3), dtype) if dtype != "complex128" else data((2, 3)) * (1 + 2j)
    for reps in [2, (2, 1), (1, 3), (2, 2, 2), (1, 1), 0, (3, 0)]:
        check(lambda xp, x: xp.tile(x, reps), a)
    check(lambda xp, x: xp.tile(x, 3), a[0])
    for kw in [dict(repeats=2), dict(repeats=3, axis=0), dict(repeats=2, axis=-1),
               dict(repeats=[1, 0, 2], axis=1), dict(repeats=[2, 1], axis=0), dict(repeats=0)]:
        check(lambda xp, x: xp.repeat(x, **kw), a)
    check(lambda xp, x: x.repeat(2, axis=1), a)
    same_error(lambda xp: xp.repeat(xp.asarray(a), -1))
    same_error(lambda xp: xp.repeat(xp.asarray(a), [1, 2], axis=1))


def test_take_and_put():
    a = data((3, 5))
    idx = np.array([[4, 0], [-1, 2]])
    for kw in [dict(axis=None), dict(axis=1), dict(axis=0, mode="wrap"), dict(axis=1, mode="clip")]:
        check(lambda xp, x, i: xp.take(x, i, **kw), a, idx * (2 if kw.get("mode") else 1))
        check(lambda xp, x, i: x.take(i, **kw), a, idx)
    check(lambda xp, x: xp.take(x, 7), a)
    same_error(lambda xp: xp.take(xp.asarray(a), [15]))
    for ind, v in [([0, 3, 14], [1.0, 2.0, 3.0]), ([1, 2, 3, 4], [9.0, 8.0]), ([-1, 5], 7)]:
        n, h = a.copy(), hassium.array(a)
        np.put(n, ind, v)
        hassium.put(h, ind, v)
        assert_same(h, n)
        h2 = hassium.array(a)
        h2.put(ind, v)
        assert_same(h2, n)
    same_error(lambda xp: xp.put(xp.asarray(a), [20], 1.0))
    # wrap and clip: repeated positions take the last value, as NumPy's put writes in order
    for mode in ["wrap", "clip"]:
        for ind, v in [([7, -8, 22, 2], [1.0, 2.0, 3.0, 4.0]), ([-40, 99], [5.0])]:
            n, h = a.copy(), hassium.array(a)
            np.put(n, ind, v, mode=mode)
            hassium.put(h, hassium.array(np.array(ind)), v, mode=mode)
            assert_same(h, n)
    # NumPy casts the indices to intp under the 'safe' rule
    same_error(lambda xp: xp.put(xp.asarray(a), np.array([1], dtype=np.uint64), 1.0))
    same_error(lambda xp: xp.put(xp.asarray(a), np.array([1.0]), 1.0))


def test_along_axis():
    a = data((3, 4))
    idx = np.argsort(a, axis=1)
    for axis in [1, -1]:
        check(lambda xp, x, i: xp.take_along_axis(x, i, axis=axis), a, idx)
    check(lambda xp, x, i: xp.take_along_axis(x, i, axis=0), a, np.argsort(a, axis=0)[:2])
    check(lambda xp, x, i: xp.take_along_axis(x, i, axis=None), a, np.array([11, 0, 3]))
    n, h = a.copy(), hassium.array(a)
    np.put_along_axis(n, idx[:, :1], -1.0, axis=1)
    hassium.put_along_axis(h, hassium.array(idx[:, :1]), -1.0, axis=1)
    assert_same(h, n)
    same_error(lambda xp: xp.take_along_axis(xp.asarray(a), xp.asarray(idx[0]), axis=1))
    same_error(lambda xp: xp.take_along_axis(xp.asarray(a), xp.asarray(a), axis=1))


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "reflect", "symmetric"])
@pytest.mark.parametrize("dtype", ["float64", "int16"])
def test_pad(mode, dtype):
    a = data((3, 4), dtype)
    for width in [1, (1, 2), ((2, 0), (1, 3)), ((0, 0), (0, 2)), 0]:
        check(lambda xp, x: xp.pad(x, width, mode=mode), a)
    check(lambda xp, x: xp.pad(x, 2, mode=mode), data(5, dtype))
    check(lambda xp, x: xp.pad(x, ((1, 1), (2, 1), (0, 1)), mode=mode), data((2, 3, 2), dtype))
    if mode == "constant":
        check(lambda xp, x: xp.pad(x, 2, constant_values=7), a)
        check(lambda xp, x: xp.pad(x, ((1, 2), (2, 1)), constant_values=((1, 2), (3, 4))), a)
    h = hassium.pad(hassium.array(a), 1, mode="empty")
    assert h.shape == (5, 6) and h.dtype == a.dtype
    assert_same(h[1:-1, 1:-1], a)


def test_pad_beyond_the_array_runs_through_numpy():
    a = np.arange(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hassium.FallbackWarning)
        for mode in ["reflect", "wrap", "symmetric", "linear_ramp", "mean"]:
            assert_same(hassium.pad(hassium.array(a), 5, mode=mode), np.pad(a, 5, mode=mode))


@pytest.mark.parametrize("dtype", ["int64", "float64", "uint8"])
def test_isin(dtype):
    el = data((4, 5), dtype)
    test = el.ravel()[::3].copy()
    for kw in [{}, dict(invert=True), dict(assume_unique=True)]:
        check(lambda xp, e, t: xp.isin(e, t, **kw), el, test)
    check(lambda xp, e: xp.isin(e, [1, 2, 3]), el)
    check(lambda xp, e: xp.isin(e, []), el)
    f = np.array([np.nan, 0.0, -0.0, 1.0])
    check(lambda xp, e, t: xp.isin(e, t), f, np.array([np.nan, 0.0]))
    # past 2**24 comparisons: a search in the sorted test elements
    big = data(5000, dtype, seed=3)
    many = data(4000, dtype, seed=4)
    if np.dtype(dtype).kind == "f":
        big[::13], many[::17], many[1::19] = np.nan, np.nan, -0.0
    check(lambda xp, e, t: xp.isin(e, t), big, many)
    check(lambda xp, e, t: xp.isin(e, t, invert=True), big.reshape(50, 100), many)
    check(lambda xp, e, t: xp.isin(e, t), big.astype(np.int64), many.astype(np.float64) + 0.5)


def test_tensordot():
    a, b = data((3, 4, 5)), data((4, 5, 2), seed=1)
    for axes in [2, ([1, 2], [0, 1]), ([2, 1], [1, 0]), 0, ([1], [0])]:
        if axes == ([1], [0]):
            check(lambda xp, x, y: xp.tensordot(x, y, axes=axes), a, data((4, 3), seed=2))
            continue
        n = np.tensordot(a, b, axes=axes)
        h = hassium.tensordot(hassium.array(a), hassium.array(b), axes=axes)
        assert_same(h, n, rtol=1e-13)  # BLAS blocking may add in another order
    same_error(lambda xp: xp.tensordot(xp.asarray(a), xp.asarray(b), axes=([0], [0])))


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64", "complex128"])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (2, 1, 3), (0, 3), (1,), (5, 1)])
def test_nonzero_family(dtype, shape):
    rng = np.random.default_rng(5)
    a = (rng.integers(0, 3, shape) * rng.standard_normal(shape)).astype(dtype)
    if dtype == "float64" and a.size:
        a.flat[0] = np.nan  # nonzero
    check(lambda xp, x: xp.nonzero(x), a)
    check(lambda xp, x: x.nonzero(), a)
    check(lambda xp, x: xp.flatnonzero(x), a)
    check(lambda xp, x: xp.argwhere(x), a)
    check(lambda xp, x: x[xp.nonzero(x)], a)


def test_nonzero_of_computed_values_and_0d():
    a = np.arange(24.0).reshape(4, 6)
    check(lambda xp, x: xp.nonzero(x % 5 == 0), a)
    check(lambda xp, x: xp.argwhere(x > 100), a)  # none
    same_error(lambda xp: xp.nonzero(xp.asarray(1.0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hassium.FallbackWarning)
        check(lambda xp, x: xp.argwhere(x), np.array(2.0))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "less", "divide"])
def test_ufunc_outer(name):
    a, b = data((3, 2), "float64"), data(4, "float64", seed=1)
    check(lambda xp, x, y: getattr(xp, name).outer(x, y), a, b)
    check(lambda xp, x, y: getattr(xp, name).outer(x, y), data(5, "int32"), data(2, "int32", 3))
    check(lambda xp, x: getattr(xp, name).outer(x, 2.0), a)


def test_cov():
    m = data((4, 30), "float64")
    for kw in [{}, dict(rowvar=False), dict(bias=True), dict(ddof=3), dict(dtype=np.float32)]:
        x = m if not kw.get("rowvar") is False else m.T
        assert_same(hassium.cov(hassium.array(x), **kw), np.cov(x, **kw), rtol=1e-5)
    assert_same(hassium.cov(hassium.array(m[0])), np.cov(m[0]))
    assert_same(hassium.cov(hassium.array(m[0]), hassium.array(m[1])), np.cov(m[0], m[1]))
    z = data((3, 10), "float64") + 1j * data((3, 10), "float64", seed=2)
    assert_same(hassium.cov(hassium.array(z)), np.cov(z))
    assert_same(hassium.cov(hassium.array(data((3, 10), "int64"))), np.cov(data((3, 10), "int64")))
