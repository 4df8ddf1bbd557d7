"""Ufuncs against NumPy: every recorded ufunc on every dtype (and dtype pair), Python scalars
(NEP 50), out=, where=, dtype=, casting, reduce and accumulate."""

import warnings

import numpy as np
import pytest

import hassium
from hassium import _hassium
from helpers import assert_same, same_error

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
BINARY = sorted(n for n, u in _hassium.ufuncs.items() if u.nin == 2)
UNARY = sorted(n for n, u in _hassium.ufuncs.items() if u.nin == 1)


def sample(dtype, shape=(5,), lo=1, hi=4):
    """Small positive values (no domain errors), same on both sides."""
    vals = np.linspace(lo, hi, int(np.prod(shape))).reshape(shape)
    if np.dtype(dtype).kind == "c":
        vals = vals + 0.5j
    if np.dtype(dtype).kind == "b":
        return (np.arange(vals.size) % 2 == 0).reshape(shape)
    return vals.astype(dtype)


def run_both(name, *args, **kwargs):
    """Calls the ufunc on both libraries; returns (h, n) or the exception types."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                n = getattr(np, name)(*args, **kwargs)
                ne = None
            except Exception as e:  # noqa: BLE001
                n, ne = None, type(e)
            hargs = [hassium.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
            try:
                h = getattr(hassium, name)(*hargs, **kwargs)
                if isinstance(h, tuple):
                    h = tuple(np.asarray(x) for x in h)
                else:
                    h = np.asarray(h)
                he = None
            except Exception as e:  # noqa: BLE001
                h, he = None, type(e)
    return h, n, he, ne


@pytest.mark.parametrize("name", BINARY)
def test_binary_all_dtype_pairs(name):
    for t1 in DTYPES:
        for t2 in DTYPES:
            a, b = sample(t1), sample(t2, lo=1, hi=2)
            h, n, he, ne = run_both(name, a, b)
            if ne is not None:
                assert he is not None and issubclass(he, ne), f"{name}({t1},{t2}): {he} vs {ne}"
                continue
            assert he is None, f"{name}({t1},{t2}) raised {he}"
            assert_same(h, n, rtol=1e-5)


@pytest.mark.parametrize("name", UNARY)
def test_unary_all_dtypes(name):
    for t in DTYPES:
        a = sample(t, lo=0.1, hi=0.9) if name in ("arcsin", "arccos", "arctanh") else sample(t)
        if name == "arccosh":
            a = sample(t, lo=1.5, hi=3)
        h, n, he, ne = run_both(name, a)
        if ne is not None:
            assert he is not None and issubclass(he, ne), f"{name}({t}): {he} vs {ne}"
            continue
        assert he is None, f"{name}({t}) raised {he}"
        assert_same(h, n, rtol=1e-5)


@pytest.mark.parametrize("scalar", [True, 3, -2, 2.5, 1 + 2j, np.float32(1.5), np.int8(3),
                                    np.uint64(7)])
@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "divide", "maximum", "less",
                                  "power", "floor_divide"])
def test_python_and_numpy_scalars_promote_like_numpy(name, scalar):
    for t in DTYPES:
        a = sample(t)
        for args in ((a, scalar), (scalar, a)):
            h, n, he, ne = run_both(name, *args)
            if ne is not None:
                assert he is not None and issubclass(he, ne), f"{name}{args}: {he} vs {ne}"
                continue
            assert he is None, f"{name}({t}, {scalar!r}) raised {he}"
            assert_same(h, n, rtol=1e-5)


def test_python_int_out_of_bounds_raises_overflow():
    a = np.array([1, 2], np.uint8)
    same_error(lambda m, x: m.asarray(x) + 300, a)
    same_error(lambda m, x: m.asarray(x) + (-1), a)
    # comparisons with out-of-range ints are exact in NumPy 2
    assert_same(hassium.asarray(a) == 300, a == 300)
    assert_same(hassium.asarray(a) < -1, a < -1)


def test_operators_match_ufuncs():
    a, b = np.arange(1, 7).reshape(2, 3), np.arange(1, 4)
    ha, hb = hassium.array(a), hassium.array(b)
    pairs = [(ha + hb, a + b), (ha - hb, a - b), (ha * hb, a * b), (ha / hb, a / b),
             (ha // hb, a // b), (ha % hb, a % b), (ha ** hb, a ** b), (ha << hb, a << b),
             (ha >> hb, a >> b), (ha & hb, a & b), (ha | hb, a | b), (ha ^ hb, a ^ b),
             (ha < hb, a < b), (ha <= hb, a <= b), (ha > hb, a > b), (ha >= hb, a >= b),
             (ha == hb, a == b), (ha != hb, a != b), (-ha, -a), (+ha, +a), (abs(-ha), abs(-a)),
             (~ha, ~a), (2 - ha, 2 - a), (2.0 / ha, 2.0 / a), (3 ** ha, 3 ** a),
             (divmod(ha, hb), divmod(a, b)), (divmod(7, ha), divmod(7, a))]
    for h, n in pairs:
        assert_same(h, n)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_products_are_numpys_bits(dtype):
    """Complex multiply, square and a ** 2 give NumPy's bits (with FMA where the CPU has it) on
    every layout; ** takes NumPy's operator path (Python int 2 / -1 / float 0.5 are square,
    reciprocal, sqrt; anything else power), so mandelbrot-like iterations stay NumPy's."""
    rng = np.random.default_rng(7)
    z = (rng.standard_normal(1001) + 1j * rng.standard_normal(1001)).astype(dtype)
    w = (rng.standard_normal(1001) + 1j * rng.standard_normal(1001)).astype(dtype)
    hz, hw = hassium.asarray(z), hassium.asarray(w)
    pairs = [(hz * hw, z * w), (hz[::3] * hw[1::3], z[::3] * w[1::3]), (hz * 2j, z * 2j),
             ((0.5 + 1j) * hw, (0.5 + 1j) * w), (hassium.square(hz), np.square(z)),
             (hz ** 2, z ** 2), (hz[::2] ** 2, z[::2] ** 2)]
    pairs += [(hassium.power(hz, 2), np.power(z, 2)), (hz ** 2.0, z ** 2.0),
              (hz ** 3, z ** 3), (hz ** 0.5, z ** 0.5)]
    for h, n in pairs:
        assert_same(h, n, exact=True)
    y, hy = z.copy(), hassium.asarray(z.copy())
    y **= 2
    hy **= 2
    assert_same(hy, y, exact=True)
    for e in (2, -1, 0.5):  # float arrays: the same operator path, the same values
        f = np.linspace(0.5, 3, 7)
        assert_same(hassium.asarray(f) ** e, f ** e)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_power_sqrt_exp_log_are_numpys_bits(dtype):
    """Complex power (NumPy's exact products for integer exponents, the C library otherwise),
    sqrt, exp and log compute in the dtype's own precision, as NumPy's loops: complex64's
    intermediate products overflow where float32 does ((3.4e38j) ** -6 is NaN, not -0)."""
    rng = np.random.default_rng(3)
    mag = 10.0 ** rng.integers(-30, 30, (2, 3000))
    z = (rng.standard_normal(3000) * mag[0] + 1j * rng.standard_normal(3000) * mag[1])
    z = z.astype(dtype)
    z[:4] = [-3.4028234663852886e38j, 1 + 1j, 0.5 - 2j, 0]
    hz = hassium.asarray(z)
    with np.errstate(all="ignore"):
        for e in [-6, -2, -1, 2.5, 3, 7, 55, -99, 0.5, 1j, 0.25 - 1.5j]:
            assert_same(hassium.power(hz, np.dtype(dtype).type(e)),
                        np.power(z, np.dtype(dtype).type(e)), exact=True)
        for f in ["sqrt", "exp", "log"]:
            assert_same(getattr(hassium, f)(hz), getattr(np, f)(z), exact=True)


def test_inplace_operators_write_through_views():
    a = np.arange(12.0).reshape(3, 4)
    h = hassium.array(a)
    hv = h[1:, ::2]
    hv += 100
    a[1:, ::2] += 100
    hv *= 2
    a[1:, ::2] *= 2
    assert_same(h, a)
    i = np.arange(6)
    hi = hassium.array(i)
    hi //= 2
    i //= 2
    assert_same(hi, i)


def test_inplace_same_kind_casting_error():
    a = np.arange(4)
    e = same_error(lambda m, x: m.asarray(x).__iadd__(1.5), a)
    assert "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64')" in str(e)


def test_out_argument():
    a, b = np.arange(6.0).reshape(2, 3), np.ones(3)
    out_n = np.empty((2, 3))
    out_h = hassium.empty((2, 3))
    r = hassium.add(hassium.array(a), hassium.array(b), out=out_h)
    assert r is out_h
    np.add(a, b, out=out_n)
    assert_same(out_h, out_n)
    # out with another dtype: the loop's result is cast into it
    out_n32 = np.empty((2, 3), np.float32)
    out_h32 = hassium.empty((2, 3), np.float32)
    hassium.multiply(hassium.array(a), 3, out=out_h32)
    np.multiply(a, 3, out=out_n32)
    assert_same(out_h32, out_n32)
    # tuple form
    hassium.subtract(hassium.array(a), 1, out=(out_h,))
    np.subtract(a, 1, out=(out_n,))
    assert_same(out_h, out_n)


def test_out_shape_mismatch():
    e = same_error(lambda m: m.add(m.ones(3), 1, out=m.ones(2)))
    assert str(e) == "operands could not be broadcast together with shapes (3,) () (2,) "


def test_where_argument():
    a = np.arange(6.0)
    mask = a % 2 == 0
    out_n = np.full(6, -1.0)
    out_h = hassium.full(6, -1.0)
    np.sqrt(a, out=out_n, where=mask)
    hassium.sqrt(hassium.array(a), out=out_h, where=hassium.array(mask))
    assert_same(out_h, out_n)
    np.add(a, 10, out=out_n, where=a > 2)
    hassium.add(hassium.array(a), 10, out=out_h, where=hassium.array(a) > 2)
    assert_same(out_h, out_n)


def test_dtype_argument():
    a = np.arange(5, dtype=np.int8)
    for dt in ["float32", "int64", "complex128"]:
        h, n, he, ne = run_both("add", a, a, dtype=dt)
        assert ne is None and he is None
        assert_same(h, n)
    h, n, he, ne = run_both("add", np.arange(3.5), 1, dtype="int8")
    assert ne is not None and he is not None and issubclass(he, ne)


def test_scalar_inputs_give_numpy_scalars():
    assert hassium.sqrt(4.0) == np.sqrt(4.0)
    assert type(hassium.add(1, 2)) is type(np.add(1, 2))


def test_zero_dim_results_print_as_scalars():
    h = hassium.array([1.5, 2.5])
    assert repr(h[0] + h[1]) == repr(np.float64(4.0))
    assert repr(hassium.array(2.0) + 1) == repr(np.array(2.0) + 1)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "logical_and",
                                  "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                                  "bitwise_xor"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "float32", "float64"])
def test_reduce(name, dtype):
    a = sample(dtype, (3, 4, 5))
    for axis in [0, 1, 2, -1, None, (0, 2), ()]:
        for keepdims in (False, True):
            h, n, he, ne = None, None, None, None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    n = getattr(np, name).reduce(a, axis=axis, keepdims=keepdims)
                except Exception as e:  # noqa: BLE001
                    ne = type(e)
                try:
                    h = getattr(hassium, name).reduce(hassium.array(a), axis=axis, keepdims=keepdims)
                    h = np.asarray(h)
                except Exception as e:  # noqa: BLE001
                    he = type(e)
            if ne is not None:
                assert he is not None and issubclass(he, ne)
                continue
            assert he is None, f"{name}.reduce({dtype}, axis={axis}) raised {he}"
            assert_same(h, n, rtol=1e-5)


def test_reduce_empty():
    assert_same(hassium.add.reduce(hassium.zeros((0, 3))), np.add.reduce(np.zeros((0, 3))))
    assert_same(hassium.multiply.reduce(hassium.zeros((3, 0)), axis=1),
                np.multiply.reduce(np.zeros((3, 0)), axis=1))
    e = same_error(lambda m: m.maximum.reduce(m.zeros(0)))
    assert "zero-size array to reduction operation maximum which has no identity" in str(e)


@pytest.mark.parametrize("name", ["add", "multiply"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32", "complex128"])
def test_accumulate(name, dtype):
    a = sample(dtype, (3, 4))
    for axis in [0, 1, -1]:
        h = getattr(hassium, name).accumulate(hassium.array(a), axis=axis)
        n = getattr(np, name).accumulate(a, axis=axis)
        assert_same(h, n, rtol=1e-5)


def test_fallback_ufunc_warns_once_and_matches():
    a = np.linspace(0.1, 2, 7)
    hassium._fallback._warned.discard("ldexp")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        h1 = hassium.ldexp(hassium.array(a), 1)
        h2 = hassium.ldexp(hassium.array(a), 2)
    msgs = [x for x in w if issubclass(x.category, hassium.FallbackWarning)]
    assert len(msgs) == 1 and "ldexp" in str(msgs[0].message)
    assert isinstance(h1, hassium.ndarray)
    assert_same(h1, np.ldexp(a, 1))
    assert_same(h2, np.ldexp(a, 2))


def test_numpy_ufunc_on_hassium_dispatches():
    a = np.arange(5.0)
    h = hassium.array(a)
    r = np.add(h, a)
    assert isinstance(r, hassium.ndarray)
    assert_same(r, a + a)
    r = a * h  # NumPy's operator defers to __array_ufunc__
    assert isinstance(r, hassium.ndarray)
    assert_same(r, a * a)
    assert_same(np.add.reduce(h), np.add.reduce(a))


# --- in-place operators (ufunc.cpp apply_in_place, scalar_in_place) and scalars ------------------

@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "float64", "complex128"])
def test_inplace_operators_like_numpy(dtype):
    n = (np.arange(24) % 5 + 1).reshape(4, 6).astype(dtype)
    h = hassium.array(n)
    steps = [lambda m, x: x.__iadd__(x[1:2] if m is hassium else x[1:2]),
             lambda m, x: x[1].__isub__(x[2]),
             lambda m, x: x[:, 1:].__imul__(2),
             lambda m, x: x.__iadd__(x),
             lambda m, x: x[1:].__iadd__(x[:-1]),   # overlapping: NumPy's copy
             lambda m, x: x[::-1].__isub__(x[0]),
             lambda m, x: x.__itruediv__(2.0),
             lambda m, x: x.__iadd__(1.5),
             lambda m, x: x.__imul__(x[:, :1])]
    for step in steps:
        with np.errstate(all="ignore"):
            try:
                step(np, n)
            except Exception as e:  # noqa: BLE001
                with pytest.raises(type(e)):
                    step(hassium, h)
                continue
            step(hassium, h)
        assert_same(h, n)


def test_inplace_statements_and_results():
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.array(n)
    hr = h
    for j in range(2):
        h[j] += h[j + 1] * 0.5
        n[j] += n[j + 1] * 0.5
        h[j, :2] -= 1.0
        n[j, :2] -= 1.0
        h[:, j] /= h[2, 3]
        n[:, j] /= n[2, 3]
    h += 1
    n += 1
    assert h is hr
    assert_same(h, n)
    with pytest.raises(ValueError):
        h[0] += h[:2]  # does not broadcast to the target
    with pytest.raises(ValueError):
        n[0] += n[:2]


def test_scalars_are_immutable_under_inplace_operators():
    n = np.arange(6.0).reshape(2, 3)
    h = hassium.array(n)
    s, t = h[1, 1], n[1, 1]
    s2, t2 = s, t
    s += 1
    t += 1
    assert repr(s) == repr(t) and repr(s2) == repr(t2)
    i, k = hassium.array(np.arange(3))[1], np.arange(3)[1]
    i += 1.5  # a new scalar of the promoted type, as NumPy's scalars do
    k += 1.5
    assert repr(i) == repr(k)
    ni = np.arange(6).reshape(2, 3)
    hi = hassium.array(ni)
    hi[1, 2] += 1.7
    ni[1, 2] += 1.7
    assert_same(hi, ni)
    z = hassium.array(np.float64(2.0))  # a 0-d array (not a scalar) is written in place
    z2 = z
    z += 1
    assert float(z2) == 3.0


def test_element_update_writes_its_temporary_in_place(lazy_scalar_reads):
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.array(n)
    h += 0.0  # a write pending: h's elements are not ready
    n += 0.0
    before = hassium._hassium.pending()
    # the element's copy is recorded, then SUBTRACT in place (the temporary no one else sees),
    # store, FREE: no second temporary
    h[1, 2] -= 1.0
    assert hassium._hassium.pending() == before + 4
    n[1, 2] -= 1.0
    h[1, 2] -= 1.0
    assert hassium._hassium.pending() == before + 8
    n[1, 2] -= 1.0
    s = h[1, 2]
    t = s
    s -= 1.0  # named: a new scalar
    assert float(t) == n[1, 2] and float(s) == n[1, 2] - 1.0
    assert_same(h, n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_copysign_fmax_fmin_heaviside_nextafter_signbit_spacing_cbrt_logaddexp(dtype):
    """Recorded (no fallback), NumPy's values on specials: bit for bit where NumPy's result is
    exact (-0.0, NaN, infinities, subnormals included), to rounding for cbrt and logaddexp
    (libmvec's vector functions against the C library's)."""
    rng = np.random.default_rng(5)
    specials = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-310, -1e-310, 1.0, -1.0,
                np.finfo(dtype).max, np.finfo(dtype).tiny, 3.0, -3.0]
    x = np.concatenate([specials, rng.standard_normal(400) * 30]).astype(dtype)
    y = np.concatenate([specials[::-1], rng.standard_normal(400) * 30]).astype(dtype)
    hx, hy = hassium.asarray(x), hassium.asarray(y)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("error", hassium.FallbackWarning)
        for f in ["copysign", "fmax", "fmin", "heaviside", "nextafter"]:
            got = np.asarray(getattr(hassium, f)(hx, hy))
            want = getattr(np, f)(x, y)
            if f in ("fmax", "fmin"):  # (C leaves which zero fmax(-0.0, 0.0) gives open)
                got, want = got + 0.0, want + 0.0
            np.testing.assert_array_equal(got.view(f"u{x.itemsize}"), want.view(f"u{x.itemsize}"),
                                          err_msg=f)
        for f in ["signbit", "spacing"]:
            got, want = np.asarray(getattr(hassium, f)(hx)), getattr(np, f)(x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f)
        for f, args in [("cbrt", (x,)), ("logaddexp", (x, y)), ("logaddexp2", (x, y))]:
            got = np.asarray(getattr(hassium, f)(*[hassium.asarray(a) for a in args]))
            np.testing.assert_allclose(got, getattr(np, f)(*args), rtol=4 * np.finfo(dtype).eps,
                                       equal_nan=True, err_msg=f)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64"])
def test_gcd_lcm_and_integer_fmax_match_numpy(dtype):
    """NumPy's gcd/lcm on magnitudes (the minimum's wraps), lcm wrapping as NumPy's."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(6)
    edge = [0, 1, 6, 12, info.max, info.max - 1] + ([info.min, -1, -6, info.min + 1]
                                                      if info.min else [])
    x = np.concatenate([edge, rng.integers(info.min, info.max, 300, dtype=dtype,
                                           endpoint=True)]).astype(dtype)
    y = np.concatenate([edge[::-1], rng.integers(info.min, info.max, 300, dtype=dtype,
                                                 endpoint=True)]).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        for f in ["gcd", "lcm", "fmax", "fmin"]:
            assert_same(getattr(hassium, f)(hassium.asarray(x), hassium.asarray(y)),
                        getattr(np, f)(x, y), exact=True)
