"""Array creation against NumPy: array/asarray, zeros/ones/empty/full and *_like, arange,
linspace, eye/identity, copy."""

import numpy as np
import pytest

import hassium
from helpers import assert_same, same_error


@pytest.mark.parametrize("obj", [[1, 2, 3], [1.5, 2], [[1, 2], [3, 4]], [True, False], 3, 2.5,
                                 [1 + 2j], np.arange(6).reshape(2, 3), np.float32(2), [],
                                 [[1, 2.5], [3, 4]]], ids=repr)
def test_array_from_python_and_numpy(obj):
    assert_same(hassium.array(obj), np.array(obj))
    assert_same(hassium.asarray(obj), np.asarray(obj))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "complex64", "bool", float, int])
def test_array_dtype_and_ndmin(dtype):
    assert_same(hassium.array([1, 0, 3], dtype=dtype), np.array([1, 0, 3], dtype=dtype))
    assert_same(hassium.array([1, 2], ndmin=3), np.array([1, 2], ndmin=3))


def test_asarray_shares_numpy_memory():
    n = np.arange(5.0)
    h = hassium.asarray(n)
    h += 1
    hassium.flush()
    np.testing.assert_array_equal(n, np.arange(5.0) + 1)
    back = np.asarray(h)
    assert np.shares_memory(back, n)


def test_array_copies():
    n = np.arange(5.0)
    h = hassium.array(n)
    h += 1
    hassium.flush()
    np.testing.assert_array_equal(n, np.arange(5.0))
    h2 = hassium.array(h)
    h2 += 1
    assert_same(h, n + 1)


def test_unsupported_dtype_stays_numpy():
    r = hassium.array(["a", "b"])
    assert isinstance(r, np.ndarray) and r.dtype.kind == "U"
    r = hassium.array([1, 2], dtype=np.float16)
    assert isinstance(r, np.ndarray) and r.dtype == np.float16


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("shape", [3, (2, 3), (), (0, 4), [2, 1, 2]], ids=repr)
@pytest.mark.parametrize("dtype", [None, "int32", "complex128", bool])
def test_zeros_ones_empty(fn, shape, dtype):
    kw = {} if dtype is None else {"dtype": dtype}
    h, n = getattr(hassium, fn)(shape, **kw), getattr(np, fn)(shape, **kw)
    if fn == "empty":
        assert h.shape == n.shape and h.dtype == n.dtype
    else:
        assert_same(h, n)


@pytest.mark.parametrize("value", [7, 2.5, True, 1j, np.float32(3)], ids=repr)
def test_full_and_like(value):
    assert_same(hassium.full((2, 3), value), np.full((2, 3), value))
    assert_same(hassium.full(4, value, dtype="float32"), np.full(4, value, dtype="float32"))
    proto = np.arange(6, dtype=np.int16).reshape(2, 3)
    hp = hassium.array(proto)
    assert_same(hassium.full_like(hp, value), np.full_like(proto, value))
    assert_same(hassium.zeros_like(hp), np.zeros_like(proto))
    assert_same(hassium.ones_like(hp, dtype=float), np.ones_like(proto, dtype=float))
    e = hassium.empty_like(hp)
    assert e.shape == proto.shape and e.dtype == proto.dtype


@pytest.mark.parametrize("args", [(5,), (2, 10), (2, 10, 3), (10, 2, -2), (0.5, 3), (0, 1, 0.1),
                                  (3, 1), (-5, 5, 1.5), (np.int32(4),)], ids=repr)
@pytest.mark.parametrize("dtype", [None, "int8", "float32", "uint32"])
def test_arange(args, dtype):
    try:
        n = np.arange(*args, dtype=dtype)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            hassium.arange(*args, dtype=dtype)
        return
    assert_same(hassium.arange(*args, dtype=dtype), n, rtol=1e-6)


@pytest.mark.parametrize("args", [(0, 1), (0, 1, 7), (-3.5, 10, 4), (2, 2, 1), (0, 1, 0),
                                  (1, 0, 5)], ids=repr)
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", [None, "float32", "int64"])
def test_linspace(args, endpoint, dtype):
    assert_same(hassium.linspace(*args, endpoint=endpoint, dtype=dtype),
                np.linspace(*args, endpoint=endpoint, dtype=dtype), rtol=1e-6)
    h, hs = hassium.linspace(*args, endpoint=endpoint, retstep=True)
    n, ns = np.linspace(*args, endpoint=endpoint, retstep=True)
    assert_same(h, n)
    assert (np.isnan(hs) and np.isnan(ns)) or hs == ns


@pytest.mark.parametrize("args", [(3,), (3, 4), (4, 3), (3, 3, 1), (3, 3, -2), (3, 5, 2),
                                  (2, 2, 5)], ids=repr)
def test_eye_identity(args):
    assert_same(hassium.eye(*args), np.eye(*args))
    assert_same(hassium.eye(*args, dtype=int), np.eye(*args, dtype=int))
    assert_same(hassium.identity(args[0]), np.identity(args[0]))


def test_copy_function_and_method():
    n = np.arange(6).reshape(2, 3)
    h = hassium.array(n)
    c = hassium.copy(h)
    c2 = h.copy()
    h[0, 0] = 100
    assert_same(c, n)
    assert_same(c2, n)


def test_negative_dimensions():
    same_error(lambda m: m.zeros((2, -1)))


@pytest.mark.parametrize("key", [np.s_[0:4, 0:3], np.s_[-1:1:5j, 0:2:3j], np.s_[0:1:0.25, 2:5],
                                 np.s_[0:3, 0:2, 1:4:2], np.s_[5:0:-1, 0:2], np.s_[0:0, 0:3],
                                 np.s_[1:2.5:0.5, 0:3:1j], np.s_[0:5], np.s_[0:1:4j],
                                 np.s_[:3, 1:4]], ids=repr)
@pytest.mark.parametrize("name", ["mgrid", "ogrid"])
def test_mgrid_ogrid(name, key):
    """NumPy's grids as hassium arrays (NumPy's mgrid materialized its arrays in NumPy: a loop
    over them, as mandelbrot2's `Xi[I]`, then mixed NumPy and hassium arrays), bit for bit."""
    got, ref = getattr(hassium, name)[key], getattr(np, name)[key]
    for g in got if isinstance(got, tuple) else (got,):
        assert type(g) is hassium.ndarray
    assert_same(got, ref, exact=True)


def test_mgrid_errors_are_numpy_s():
    same_error(lambda xp: xp.mgrid[0:None, 0:2])
    same_error(lambda xp: xp.ogrid[0:2, 0:3:0])
