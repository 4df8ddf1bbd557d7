"""The ndarray class as NumPy's: hassium.ndarray(shape, dtype, buffer, offset, strides, order) as a
constructor, and assigning a.shape (an in-place no-copy reshape). Every case is checked against
NumPy itself, errors included (type and message)."""

import warnings

import numpy as np
import pytest

import hassium
from helpers import assert_same


def raised(fn, mod):
    try:
        r = fn(mod)
        if isinstance(r, hassium.ndarray):
            np.asarray(r)
    except Exception as e:  # noqa: BLE001
        return e
    return None


def same_exact_error(fn):
    """fn(np) and fn(hassium) raise the same exception type with the same message."""
    n, h = raised(fn, np), raised(fn, hassium)
    assert n is not None, "NumPy raised nothing"
    assert h is not None, f"hassium raised nothing; NumPy raised {type(n).__name__}: {n}"
    assert type(h) is type(n), f"hassium raised {type(h).__name__}: {h}; NumPy {type(n).__name__}: {n}"
    assert str(h) == str(n)
    return h


# hassium.ndarray(...) without a buffer: an uninitialized array of that shape and dtype.

@pytest.mark.parametrize("shape", [3, 0, (), (2, 3), [2, 3], (4, 0, 2), np.int64(5), (np.int32(2), 3)],
                         ids=repr)
@pytest.mark.parametrize("dtype", [None, float, int, bool, complex, np.float64, "f4", "int32", "u1",
                                   np.dtype("complex64"), "float64"], ids=repr)
def test_constructor_shape_dtype(shape, dtype):
    kw = {} if dtype is None else {"dtype": dtype}
    h, n = hassium.ndarray(shape, **kw), np.ndarray(shape, **kw)
    assert type(h) is hassium.ndarray
    assert h.shape == n.shape and h.dtype == n.dtype
    if n.size:  # NumPy 2.4 gives zero-size arrays zero strides (hassium.empty does not either)
        assert h.strides == n.strides
    h[...] = 1  # usable as any array
    assert_same(h + 1, np.ones(n.shape, n.dtype) + 1)


def test_constructor_positional_and_keywords():
    for args, kw in [((3, np.float64), {}), ((), {"shape": (2, 2), "dtype": "i8"}),
                     (((2, 3), "f4", None, 0, None, "C"), {}), ((4,), {"order": "K"}),
                     ((4,), {"order": "A"}), (((2, 2),), {"order": "c"}), ((2,), {"dtype": None})]:
        h, n = hassium.ndarray(*args, **kw), np.ndarray(*args, **kw)
        assert (h.shape, h.dtype, h.strides) == (n.shape, n.dtype, n.strides)


def test_constructor_npbench_idioms():
    # nbody: KE = np.ndarray(Nt + 1, dtype=np.float64); vadv: np.ndarray((I, J, K), dtype=a.dtype)
    Nt = 4
    ke = hassium.ndarray(Nt + 1, dtype=np.float64)
    ke[:] = hassium.arange(Nt + 1.0)
    assert_same(ke, np.arange(Nt + 1.0))
    u = hassium.ones((3, 4, 5), dtype=np.float32)
    c = hassium.ndarray((3, 4, 5), dtype=u.dtype)
    assert c.shape == (3, 4, 5) and c.dtype == np.float32
    c[...] = u * 2
    assert_same(c, np.full((3, 4, 5), 2, np.float32))


def test_constructor_order_f():
    for shape in [(2, 3), 4, (2, 3, 4)]:
        for order in ["F", "f"]:
            h, n = hassium.ndarray(shape, "i4", order=order), np.ndarray(shape, "i4", order=order)
            assert (h.shape, h.dtype, h.strides) == (n.shape, n.dtype, n.strides)
            h[...] = hassium.arange(h.size, dtype="i4").reshape(h.shape)
            assert_same(h, np.arange(n.size, dtype="i4").reshape(n.shape))


@pytest.mark.parametrize("args,kw", [
    ((-1,), {}), (((2, -1),), {}), ((3,), {"dtype": "foo"}), ((None,), {}), ((2.0,), {}),
    (({},), {}), (((2.0, 3),), {}), (("ab",), {}), ((2**63,), {}), (((2**40, 2**40),), {}),
    (((2, 3),), {"order": "X"}), (((2, 3),), {"order": 5}), (((2, 3),), {"order": ""}),
    (((2, 3),), {"strides": (8,)}), (((2, 3),), {"strides": (80, 16)}),
], ids=repr)
def test_constructor_errors(args, kw):
    same_exact_error(lambda m: m.ndarray(*args, **kw))


def test_constructor_argument_errors():
    for fn in [lambda m: m.ndarray(), lambda m: m.ndarray(3, float, None, 0, None, "C", 5),
               lambda m: m.ndarray(3, foo=1)]:
        n, h = raised(fn, np), raised(fn, hassium)
        assert type(n) is TypeError and type(h) is TypeError


def test_constructor_strides_without_buffer():
    h, n = hassium.ndarray((2, 3), strides=(8, 16)), np.ndarray((2, 3), strides=(8, 16))
    assert (h.shape, h.strides) == (n.shape, n.strides)


def test_isinstance_and_subclass():
    for x in [hassium.ndarray(3), hassium.zeros(3), hassium.arange(4)[1:], hassium.ones(2) + 1,
              hassium.arange(6.0).sum(), hassium.asarray(np.arange(3))]:
        assert isinstance(x, hassium.ndarray)
        assert issubclass(type(x), hassium.ndarray)
    assert not isinstance(np.zeros(3), hassium.ndarray)

    class Sub(hassium.ndarray):
        pass

    s = Sub((2, 3), dtype="i8")
    assert isinstance(s, Sub) and isinstance(s, hassium.ndarray) and s.shape == (2, 3)
    s[...] = 7
    assert_same(s + 1, np.full((2, 3), 8))


# hassium.ndarray(..., buffer=...): over foreign memory, as asarray takes NumPy arrays.

def test_buffer_numpy_array_shares_memory():
    for m in (np, hassium):
        b = np.arange(10)
        x = m.ndarray((2,), dtype=np.int64, buffer=b, offset=8, strides=(16,))
        b[1] = 100
        assert_same(x, np.array([100, 3]))
        x[1] = -3
        hassium.flush()
        assert b[3] == -3


def test_buffer_bytearray_and_bytes():
    for m in (np, hassium):
        ba = bytearray(16)
        y = m.ndarray((2,), dtype=np.int64, buffer=ba)
        y[0] = 7
        hassium.flush()
        assert bytes(ba[:8]) == (7).to_bytes(8, "little")
    data = bytes(range(16))
    assert_same(hassium.ndarray((2,), np.int64, data), np.ndarray((2,), np.int64, data))
    assert_same(hassium.ndarray((2, 2), np.int32, data, order="F"),
                np.ndarray((2, 2), np.int32, data, order="F"))
    assert_same(hassium.ndarray((3,), np.uint8, data, offset=5, strides=(3,)),
                np.ndarray((3,), np.uint8, data, offset=5, strides=(3,)))


def test_buffer_order_f():
    b = np.arange(6.0)
    h, n = hassium.ndarray((2, 3), buffer=b, order="F"), np.ndarray((2, 3), buffer=b, order="F")
    assert h.strides == n.strides
    assert_same(h, n)


def test_buffer_hassium_array_is_a_view_of_its_base():
    arrays = {}
    for m in (np, hassium):
        h = m.arange(10.0)
        v = m.ndarray((3,), dtype=np.float64, buffer=h, offset=16)
        v[1] = -5
        h[2] = 42
        w = m.ndarray((2, 2), buffer=h, offset=8, strides=(32, 8))
        w += 100
        arrays[m] = (v, h, w)
    for hx, nx in zip(arrays[hassium], arrays[np]):
        assert_same(hx, nx)
    assert hassium.ndarray((3,), buffer=hassium.arange(4.0)).dtype == np.float64


def test_buffer_hassium_array_of_another_dtype_copies():
    n = np.ndarray((3,), dtype=np.int64, buffer=np.arange(10.0), offset=16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hassium.FallbackWarning)
        h = hassium.ndarray((3,), dtype=np.int64, buffer=hassium.arange(10.0), offset=16)
    assert_same(h, n)


@pytest.mark.parametrize("fn", [
    lambda m: m.ndarray((20,), dtype=np.int64, buffer=np.arange(10)),
    lambda m: m.ndarray((2,), buffer=np.arange(10.0)[::2]),
    lambda m: m.ndarray((2,), buffer=m.arange(10.0)[::2]),
    lambda m: m.ndarray((20,), buffer=m.arange(10.0)),
    lambda m: m.ndarray((2, 2), buffer=np.arange(10.0), strides=(8,)),
], ids=range(5))
def test_buffer_errors(fn):
    same_exact_error(fn)


def test_buffer_unsupported_dtype():
    with pytest.raises(TypeError, match="float16"):
        hassium.ndarray((2,), dtype=np.float16, buffer=np.zeros(2, np.float16))
    with pytest.raises(TypeError, match="float16"):
        hassium.ndarray((2,), dtype=np.float16)


# a.shape = s

def set_shape(a, s):
    a.shape = s
    return a


@pytest.mark.parametrize("start,new", [
    ((6,), (2, 3)), ((6,), (3, -1)), ((2, 3), 6), ((2, 3), (-1,)), ((2, 3), [3, 2]),
    ((2, 3), (1, 6, 1)), ((2, 3), np.int64(6)), ((2, 3), np.array([3, 2])), ((6,), (-2, 3)),
    ((2, 3), (2, 3)), ((1,), ()), ((), (1, 1)), ((0, 3), (3, 0)), ((0, 3), (-1, 2)),
    ((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)), ((4, 1, 3), (12,)),
], ids=repr)
def test_set_shape_contiguous(start, new):
    n = np.arange(int(np.prod(start)), dtype=np.float64).reshape(start)
    h = hassium.array(n)
    hb, nb = h.reshape(-1), n.reshape(-1)  # another view of the same data
    set_shape(h, new), set_shape(n, new)
    assert h.shape == n.shape
    assert_same(h, n)
    h[...] = h * 2 + 1
    n[...] = n * 2 + 1
    assert_same(h, n)
    assert_same(hb, nb)
    assert hb.shape == nb.shape


def test_set_shape_strided_views():
    # Views that reshape without a copy (NumPy's no-copy rule, as reshape's) take the new shape.
    cases = [lambda m: m.arange(12.0)[::2], lambda m: m.arange(24.0).reshape(4, 6)[:, 1:4],
             lambda m: m.arange(6.0).reshape(2, 3).T, lambda m: m.arange(24.0).reshape(2, 3, 4)[1]]
    news = [(2, 3), (4, 3, 1), (3, 2, 1), (3, 4), (2, 2, 3), (12,)]
    for make in cases:
        for new in news:
            n, h = make(np), make(hassium)
            n_err, h_err = raised(lambda m: set_shape(n if m is np else h, new), np), None
            try:
                set_shape(h, new)
            except Exception as e:  # noqa: BLE001
                h_err = e
            if n_err is None:
                assert h_err is None, f"{new}: hassium raised {h_err!r}"
                assert h.shape == n.shape
                assert_same(h, n)
                h[...] = -h
                n[...] = -n
                assert_same(h, n)
            else:
                assert type(h_err) is type(n_err) and str(h_err) == str(n_err), (new, h_err, n_err)


def test_set_shape_others_keep_their_view():
    ns = {}
    for m in (np, hassium):
        a = m.arange(12.0)
        b = a[:]
        c = a.reshape(3, 4)
        a.shape = (2, 6)
        a[1, 1] = -1
        c[0, 0] = 100
        ns[m] = (a, b, c)
    for hx, nx in zip(ns[hassium], ns[np]):
        assert hx.shape == nx.shape
        assert_same(hx, nx)


def test_set_shape_mandelbrot2_idiom():
    # NPBench mandelbrot2: Xi.shape = Yi.shape = C.shape = xn * yn
    res = {}
    for m in (np, hassium):
        X = m.linspace(-2, 1, 5)
        Y = m.linspace(-1, 1, 4)
        C = X + Y[:, None] * 1j
        Xi = m.zeros((4, 5), dtype=np.int64) + m.arange(5)
        Yi = m.zeros((4, 5), dtype=np.int64) + m.arange(4)[:, None]
        Xi.shape = Yi.shape = C.shape = 4 * 5
        res[m] = (Xi, Yi, C, C[Xi > 2])
    for hx, nx in zip(res[hassium], res[np]):
        assert_same(hx, nx)


def test_set_shape_pending_work():
    # The view changes at recording time; earlier pending writes keep their old geometry.
    n = np.zeros((2, 3))
    h = hassium.zeros((2, 3))
    for a in (n, h):
        a[0, 1] = 5
        a.shape = (3, 2)
        a[0, 1] += 1
        a[2] = a[0] * 2
    assert_same(h, n)


@pytest.mark.parametrize("start,new", [
    ((6,), (4,)), ((6,), (-1, 4)), ((6,), (-1, -1)), ((6,), (0, -1)), ((6,), ()), ((2, 3), (2, 2)),
    ((6,), (2, -1, 4)), ((6,), None), ((6,), "ab"), ((6,), 2.0), ((6,), {}), ((6,), (2.0, 3)),
    ((6,), (None,)), ((0,), (-1, 0)),
], ids=repr)
def test_set_shape_errors(start, new):
    def fn(m):
        a = m.arange(int(np.prod(start)), dtype=np.float64).reshape(start)
        a.shape = new

    same_exact_error(fn)


@pytest.mark.parametrize("make", [
    lambda m: m.arange(6.0).reshape(2, 3).T, lambda m: m.arange(12.0).reshape(3, 4)[:, :2],
    lambda m: m.arange(12.0).reshape(3, 4)[::2, ::2],
], ids=range(3))
def test_set_shape_needs_copy(make):
    def fn(m):
        a = make(m)
        a.shape = (-1,)

    e = same_exact_error(fn)
    assert type(e) is AttributeError
    # nothing changed
    h = make(hassium)
    with pytest.raises(AttributeError):
        h.shape = (-1,)
    assert_same(h, make(np))


def test_set_shape_of_scalar_and_delete():
    same_exact_error(lambda m: set_shape(m.arange(6.0)[2], (1,)))
    same_exact_error(lambda m: set_shape(m.arange(6.0).sum(), ()))

    def delete(m):
        a = m.arange(3)
        del a.shape

    same_exact_error(delete)


def test_reshape_messages_and_negative_unknown():
    # reshape shares the shape rules: any negative dim is the unknown one, NumPy's messages.
    for s in [(-2, 3), (-1,), (3, -5)]:
        assert_same(hassium.arange(6).reshape(s), np.arange(6).reshape(s))
    for s in [(2, 2), (-1, 4), (4,), (0, -1), (), (2, -1, 4), (-1, -2), 2.0, {}]:
        same_exact_error(lambda m: m.arange(6).reshape(s))
    for args in [(2, 2), (-1, 4), (2.0, 3)]:
        same_exact_error(lambda m: m.arange(6).reshape(*args))


@pytest.mark.parametrize("shape", [None, 2.0, {}, "ab", (2.0,), 2**63, (2**40, 2**40), -1],
                         ids=repr)
def test_creation_shape_errors(shape):
    for name in ["empty", "zeros", "ones"]:
        same_exact_error(lambda m: getattr(m, name)(shape))
    same_exact_error(lambda m: m.full(shape, 1.0))


# The type's slots (bridge/python/bind_ndarray.cpp): what NumPy's array type does with them.

def _error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    return None


def test_slots_errors_as_numpy():
    for fn in [lambda m: m.arange(3.0).__delitem__(0),
               lambda m: pow(m.arange(3.0), 2, 3),
               lambda m: hash(m.arange(3.0)),
               lambda m: bool(m.arange(3.0)),
               lambda m: memoryview(m.arange(6.0).reshape(2, 3)[:, ::2]).cast("B")]:
        assert _error_of(lambda: fn(hassium)) is _error_of(lambda: fn(np)) is not None


def test_slots_reflected_and_in_place_operators():
    n = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    for op in ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^",
               "<", "<=", "==", "!=", ">", ">="]:
        for left, right in [("x", "3"), ("3", "x"), ("x", "x")]:
            expr = f"{left} {op} {right}"
            assert_same(eval(expr, {"x": hassium.asarray(n)}), eval(expr, {"x": n}))
    for op in ["+=", "-=", "*=", "//=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^="]:
        h, m = hassium.asarray(n.copy()), n.copy()
        exec(f"h {op} 2", {"h": h})
        exec(f"m {op} 2", {"m": m})
        assert_same(h, m)
    assert_same(divmod(hassium.asarray(n), 4), divmod(n, 4))
    assert_same(divmod(20, hassium.asarray(n)), divmod(20, n))
    assert_same(-hassium.asarray(n), -n)
    assert_same(~hassium.asarray(n), ~n)
    assert_same(abs(-hassium.asarray(n)), abs(-n))


def test_buffer_export_of_strided_view_matches_numpy():
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.asarray(n)
    assert bytes(h[:, ::2]) == bytes(n[:, ::2])
    assert memoryview(h[::2]).tolist() == memoryview(n[::2]).tolist()
    assert memoryview(h).format == memoryview(n).format
