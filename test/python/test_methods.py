"""ndarray attributes and methods, and the matching functions, against NumPy."""

import pickle

import numpy as np
import pytest

import hassium
from hassium import _hassium
from helpers import assert_same, same_error

DTYPES = ["bool", "int8", "int64", "uint16", "float32", "float64", "complex128"]


def sample(dtype, shape=(3, 4)):
    n = int(np.prod(shape))
    v = (np.arange(n) * 7 % 11 - 3).reshape(shape)
    if np.dtype(dtype).kind == "c":
        return (v + 1j * (v % 3)).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return v > 1
    if np.dtype(dtype).kind == "u":
        return np.abs(v).astype(dtype)
    return v.astype(dtype)


def test_attributes():
    n = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    h = hassium.array(n)
    assert h.shape == n.shape and h.ndim == n.ndim and h.size == n.size
    assert h.dtype == n.dtype and h.itemsize == n.itemsize and h.nbytes == n.nbytes
    assert h.strides == n.strides
    assert h[:, ::2].strides == n[:, ::2].strides
    assert_same(h.T, n.T)
    assert h.T.strides == n.T.strides
    assert_same(h.mT, n.mT)
    assert isinstance(h, hassium.ndarray)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "any", "all", "mean", "var", "std",
                                  "argmax", "argmin"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_methods(name, dtype):
    n = sample(dtype)
    h = hassium.array(n)
    axes = [None, 0, 1, -1] if not name.startswith("arg") else [None, 0, 1]
    for axis in axes:
        try:
            expected = getattr(n, name)(axis=axis)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                np.asarray(getattr(h, name)(axis=axis))
            continue
        got = getattr(h, name)(axis=axis)
        assert_same(got, expected, rtol=1e-5, atol=1e-6)
        fn = getattr(hassium, name)(h, axis=axis)
        assert_same(fn, getattr(np, name)(n, axis=axis), rtol=1e-5, atol=1e-6)
    if not name.startswith("arg"):
        assert_same(getattr(h, name)(axis=1, keepdims=True), getattr(n, name)(axis=1, keepdims=True),
                    rtol=1e-5, atol=1e-6)
        assert_same(getattr(h, name)(axis=(0, 1)), getattr(n, name)(axis=(0, 1)), rtol=1e-5, atol=1e-6)


def test_reduction_options():
    n = np.arange(12, dtype=np.int8).reshape(3, 4)
    h = hassium.array(n)
    assert_same(h.sum(dtype=np.int8), n.sum(dtype=np.int8))
    assert_same(h.sum(axis=0, dtype=float), n.sum(axis=0, dtype=float))
    assert_same(h.mean(axis=1, dtype=np.float32), n.mean(axis=1, dtype=np.float32), rtol=1e-6)
    assert_same(h.var(ddof=1), n.var(ddof=1))
    assert_same(h.std(axis=0, ddof=1), n.std(axis=0, ddof=1))
    out_h, out_n = hassium.zeros(4), np.zeros(4)
    h.sum(axis=0, out=out_h)
    n.sum(axis=0, out=out_n)
    assert_same(out_h, out_n)
    assert_same(h.argmax(axis=1, keepdims=True), n.argmax(axis=1, keepdims=True))
    assert_same(h.max(initial=100), n.max(initial=100))
    same_error(lambda m: m.zeros((2, 2)).sum(axis=2))
    same_error(lambda m: m.zeros((2, 2)).sum(axis=(0, 0)))
    same_error(lambda m: m.zeros(0).argmax())


def test_nan_handling_in_extremes():
    n = np.array([1.0, np.nan, 3.0, np.nan])
    h = hassium.array(n)
    assert_same(h.max(), n.max())
    assert_same(h.argmax(), n.argmax())
    assert_same(h.argmin(), n.argmin())


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32", "complex64"])
def test_cumsum_cumprod(dtype):
    n = sample(dtype)
    h = hassium.array(n)
    for axis in [None, 0, 1]:
        assert_same(h.cumsum(axis=axis), n.cumsum(axis=axis), rtol=1e-5)
        assert_same(hassium.cumprod(h, axis=axis), np.cumprod(n, axis=axis), rtol=1e-5)


def test_shape_methods():
    n = np.arange(24.0).reshape(2, 3, 4)
    h = hassium.array(n)
    for shape in [(6, 4), (-1,), (4, -1, 2), (24,), (2, 12), (1, 24, 1)]:
        assert_same(h.reshape(shape), n.reshape(shape))
        assert_same(h.reshape(*shape), n.reshape(*shape))
        assert_same(h.transpose(2, 0, 1).reshape(shape), n.transpose(2, 0, 1).reshape(shape))
        assert_same(h[:, ::2].reshape(shape[::-1] if -1 not in shape else shape),
                    n[:, ::2].reshape(shape[::-1] if -1 not in shape else shape)) \
            if n[:, ::2].size == 24 else None
    assert_same(h.ravel(), n.ravel())
    assert_same(h.T.ravel(), n.T.ravel())
    assert_same(h.flatten(), n.flatten())
    assert_same(h.transpose(), n.transpose())
    assert_same(h.transpose((1, 0, 2)), n.transpose((1, 0, 2)))
    assert_same(h.swapaxes(0, 2), n.swapaxes(0, 2))
    assert_same(h[:, :1].squeeze(), n[:, :1].squeeze())
    assert_same(h[:, :1].squeeze(axis=1), n[:, :1].squeeze(axis=1))
    assert_same(hassium.expand_dims(h, (0, 2)), np.expand_dims(n, (0, 2)))
    assert_same(hassium.moveaxis(h, 0, -1), np.moveaxis(n, 0, -1))
    assert_same(hassium.flip(h, 1), np.flip(n, 1))
    assert_same(hassium.flip(h), np.flip(n))
    v, nv = h.ravel()[2:9], n.ravel()[2:9]
    f = hassium.flip(v)  # 1-D: a reversed view, written through as NumPy's is
    assert_same(f, np.flip(nv))
    f[0] = -1.0
    np.flip(nv)[0] = -1.0
    assert_same(v, nv)
    same_error(lambda m: m.asarray(n).reshape(5, 5))
    same_error(lambda m: m.asarray(n).squeeze(axis=0))
    same_error(lambda m: m.asarray(n).transpose(0, 0, 1))


def test_reshape_view_or_copy():
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.array(n)
    v = h.reshape(4, 3)
    v[0, 0] = 99
    n.reshape(4, 3)[0, 0] = 99
    assert_same(h, n)
    c = h.T.reshape(12)  # needs a copy
    c[0] = -1
    assert_same(h, n)


def test_conversions():
    h = hassium.array([[1.5, 2.5]])
    assert float(h[0, 0]) == 1.5 and int(h[0, 1]) == 2 and complex(h[0, 0]) == 1.5
    assert bool(h[0, 0] > 1) is True
    assert hassium.arange(5)[3].__index__() == 3
    assert [0, 1, 2, 3][hassium.arange(4)[2]] == 2
    assert h.item(1) == 2.5 and h.item((0, 1)) == 2.5 and hassium.array([[7]]).item() == 7
    assert h.tolist() == [[1.5, 2.5]]
    assert hassium.array(3).tolist() == 3
    same_error(lambda m: bool(m.ones(2)))
    same_error(lambda m: bool(m.ones(0)))
    same_error(lambda m: float(m.ones(2)))
    same_error(lambda m: m.ones(()).__index__())
    same_error(lambda m: m.ones(2).item())


def test_repr_and_str_like_numpy():
    for n in [np.arange(5), np.linspace(0, 1, 7), np.eye(3), np.array(2.5), np.zeros((2, 0)),
              np.arange(2000.0), np.array([1 + 2j]), np.array([True, False])]:
        h = hassium.array(n)
        assert repr(h) == repr(n)
        assert str(h) == str(n)
    h = hassium.arange(4.0)
    n = np.arange(4.0)
    assert repr(h.sum()) == repr(n.sum())
    assert str(h[1]) == str(n[1])
    assert f"{h.sum():.3f}" == f"{n.sum():.3f}"
    assert f"{h[2]}" == f"{n[2]}"


def test_astype_copy_fill():
    n = np.array([1.7, -2.2, 3.5])
    h = hassium.array(n)
    for dt in ["int32", "uint8", "bool", "complex64", "float32"]:
        assert_same(h.astype(dt), n.astype(dt))
    assert h.astype(np.float64, copy=False) is h
    same_error(lambda m: m.asarray(n).astype(int, casting="safe"))
    h.fill(4)
    n.fill(4)
    assert_same(h, n)


def test_clip_round():
    n = np.linspace(-3, 3, 13)
    h = hassium.array(n)
    assert_same(h.clip(-1, 2), n.clip(-1, 2))
    assert_same(hassium.clip(h, None, 0.5), np.clip(n, None, 0.5))
    assert_same(hassium.clip(hassium.arange(6), 1.5, 3), np.clip(np.arange(6), 1.5, 3))
    for d in [0, 1, 2, -1]:
        assert_same(h.round(d), n.round(d))
        assert_same(hassium.round(h * 12.345, d), np.round(n * 12.345, d))
    assert_same(hassium.arange(5).round(), np.arange(5).round())


def test_joining():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    ha, hb = hassium.array(a), hassium.array(b)
    assert_same(hassium.concatenate([ha, hb]), np.concatenate([a, b]))
    assert_same(hassium.concatenate([ha, hb], axis=1), np.concatenate([a, b], axis=1))
    assert_same(hassium.concatenate([ha, b], axis=None), np.concatenate([a, b], axis=None))
    assert_same(hassium.stack([ha, hb]), np.stack([a, b]))
    assert_same(hassium.stack([ha, hb], axis=2), np.stack([a, b], axis=2))
    assert_same(hassium.vstack([ha, hb[0]]), np.vstack([a, b[0]]))
    assert_same(hassium.hstack([ha, hb]), np.hstack([a, b]))
    assert_same(hassium.hstack([ha[0], hb[1]]), np.hstack([a[0], b[1]]))
    assert_same(hassium.column_stack([ha[0], hb[1]]), np.column_stack([a[0], b[1]]))
    same_error(lambda m: m.concatenate([m.asarray(a), m.zeros((2, 2))]))
    same_error(lambda m: m.concatenate([m.asarray(a), m.zeros(3)]))


def test_where_function():
    n = np.arange(10)
    h = hassium.array(n)
    assert_same(hassium.where(h > 4, h, -1), np.where(n > 4, n, -1))
    assert_same(hassium.where(h > 4, 1.5, h), np.where(n > 4, 1.5, n))
    assert_same(hassium.where(n % 2 == 0, h, h * 10), np.where(n % 2 == 0, n, n * 10))
    assert_same(hassium.where(h > 4)[0], np.where(n > 4)[0])


def test_where_promotes_broadcasts_and_casts_like_numpy():
    c = np.array([[True, False, True], [False, True, False]])
    x = np.arange(6.0).reshape(2, 3)
    y = np.arange(3, dtype=np.int32)
    i8 = np.arange(3, dtype=np.int8)
    cases = [(c, x, y), (c, 1, y), (c, x, 2.5), (True, x, y), (x > 2, x, -x), (c, True, False),
             (x, 1, 0), (c[0], i8, 300), (c[0], i8.astype(np.uint8), -1), (c, 1j, y),
             (c[:, ::-1], x[::-1], y[::-1]), (np.zeros((0, 3), bool), 1.0, y)]
    for args in cases:
        h = hassium.where(*[hassium.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        assert_same(h, np.where(*args))
    # one WHERE instruction (no temporaries) for array operands of the result's dtype
    hc, hx = hassium.array(c), hassium.array(x)
    hassium.flush()
    r = hassium.where(hc, hx, -hx)
    assert _hassium.pending() == 3  # NEGATIVE, WHERE, FREE of -hx
    assert_same(r, np.where(c, x, -x))


def test_dot_matmul():
    a = np.arange(12.0).reshape(3, 4)
    b = np.arange(8.0).reshape(4, 2)
    v = np.arange(4.0)
    ha, hb, hv = hassium.array(a), hassium.array(b), hassium.array(v)
    assert_same(ha @ hb, a @ b)
    assert_same(hassium.matmul(ha, hv), np.matmul(a, v))
    assert_same(hassium.dot(hv, hv), np.dot(v, v))
    assert_same(hv @ hb, v @ b)
    assert_same(ha.dot(hb), a.dot(b))
    assert_same(hassium.dot(ha, 2.0), np.dot(a, 2.0))
    assert_same(ha.T @ ha, a.T @ a)
    assert_same(hassium.outer(hv, hv), np.outer(v, v))
    same_error(lambda m: m.asarray(a) @ m.asarray(a))


def test_pickle_and_copy():
    import copy

    h = hassium.arange(5.0)
    h2 = pickle.loads(pickle.dumps(h))
    assert_same(h2, np.arange(5.0))
    assert_same(copy.deepcopy(h), np.arange(5.0))


def test_flat():
    n = np.arange(12).reshape(3, 4)
    h = hassium.array(n)
    assert_same(h.flat[5], n.flat[5])
    h.flat[2] = 100
    n.flat[2] = 100
    assert_same(h, n)
    assert list(h.T.flat) == list(n.T.flat)


@pytest.mark.parametrize("name", ["triu", "tril"])
@pytest.mark.parametrize("shape", [(4, 5), (5, 3), (2, 3, 4), (5,), (0, 3), (3, 0)])
def test_triangles_are_recorded_like_numpy(name, shape):
    # One select over the last two axes, no fallback (a 1-D array: the rows of a square).
    n = (np.arange(int(np.prod(shape))).reshape(shape) % 7 - 3).astype("float32")
    h = hassium.array(n) * 1  # pending: the select fuses with it
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        for k in (-2, 0, 1, 6, np.int64(2)):
            assert_same(getattr(hassium, name)(h, k), getattr(np, name)(n, k))
    assert_same(getattr(hassium, name)(h.astype(bool)), getattr(np, name)(n.astype(bool)))
    # A 0-d array: NumPy's error (through NumPy).
    same_error(lambda m: getattr(m, name)(m.asarray(3.0)))
