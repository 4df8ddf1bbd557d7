"""matmul, @, dot, inner and vdot against NumPy: the products bridge/python/linalg.cpp records
in one call (two hassium arrays of 1 or 2 dims) and the general path around them."""

import itertools
import os
import operator
import warnings

import numpy as np
import pytest

import hassium
from hassium import _hassium
from helpers import assert_same, same_error

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
SHAPES = [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,))]


def sample(dtype, shape, seed=0):
    v = np.random.default_rng(seed).integers(-4, 5, size=shape)
    kind = np.dtype(dtype).kind
    if kind == "b":
        return v > 0
    if kind == "u":
        return np.abs(v).astype(dtype)
    if kind == "c":
        return (v + 1j * np.roll(v, 1)).astype(dtype)
    return v.astype(dtype)


def message(fn, *arrays):
    with pytest.raises(Exception) as e:
        fn(*arrays)
    return type(e.value), str(e.value)


def product_fn(name, m):
    return (lambda a, b: a @ b) if name == "@" else getattr(m, name)


@pytest.mark.parametrize("ta,tb", list(itertools.product(DTYPES, DTYPES)))
def test_every_dtype_pair(ta, tb):
    # NumPy's result_type, integer wrap-around, bool (NumPy's logical product) and complex.
    for sa, sb in SHAPES:
        a, b = sample(ta, sa, 1), sample(tb, sb, 2)
        assert_same(hassium.matmul(hassium.array(a), hassium.array(b)), np.matmul(a, b))
        assert_same(hassium.array(a) @ hassium.array(b), a @ b)


@pytest.mark.parametrize("name", ["@", "matmul", "dot"])
@pytest.mark.parametrize("sa,sb", SHAPES + [((1, 3), (3, 1)), ((3, 1), (1, 3)), ((1,), (1,))])
def test_shapes_and_scalar_result(name, sa, sb):
    a, b = sample("float64", sa, 3), sample("float64", sb, 4)
    h = product_fn(name, hassium)(hassium.array(a), hassium.array(b))
    n = product_fn(name, np)(a, b)
    assert_same(h, n)
    assert repr(h) == repr(n)  # 1-D x 1-D: a NumPy scalar (np.float64(...))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
@pytest.mark.parametrize("sa,sb", [((0, 3), (3, 4)), ((2, 0), (0, 4)), ((2, 3), (3, 0)),
                                   ((0,), (0,)), ((2, 0), (0,)), ((0,), (0, 3)), ((0, 0), (0, 0))])
def test_zero_size(dtype, sa, sb):
    a, b = sample(dtype, sa), sample(dtype, sb)
    h = hassium.array(a) @ hassium.array(b)
    assert_same(h, a @ b)
    assert repr(h) == repr(a @ b)


def test_strided_transposed_reversed_operands():
    n = sample("float64", (7, 6), 5)
    h = hassium.array(n)
    cases = [lambda x: (x.T, x), lambda x: (x[::2, ::-1], x[:6, 1::2]),
             lambda x: (x[3, ::-2], x[:3, ::-1]), lambda x: (x[:6, 1], x[2, :]),
             lambda x: (x[1:4, 2], x[::-3, 4]), lambda x: (x[2:5, 1:3].T, x[1:4, 1]),
             lambda x: (x[::-1, ::-1], x[:, ::-1].T)]
    for case in cases:
        assert_same(hassium.matmul(*case(h)), np.matmul(*case(n)))
        assert_same(operator.matmul(*case(h)), np.matmul(*case(n)))
        assert_same(hassium.dot(*case(h)), np.dot(*case(n)))


def test_overlapping_operands_and_in_place_use():
    n = sample("float64", (5, 5), 6)
    h = hassium.array(n)
    for i in range(1, 5):
        h[i, :i] -= h[i, :i] @ h[:i, :i]
        n[i, :i] -= n[i, :i] @ n[:i, :i]
        h[i, i] = h[i, i] - h[i, :i] @ h[:i, i]
        n[i, i] = n[i, i] - n[i, :i] @ n[:i, i]
    assert_same(h, n)


def test_one_instruction_for_like_dtypes():
    a, b = hassium.array(sample("float64", (4,))), hassium.array(sample("float64", (4, 3)))
    hassium.flush()
    r = a @ b
    assert _hassium.pending() == 1  # MATMUL (no reshape, cast or copy)
    assert_same(r, sample("float64", (4,)) @ sample("float64", (4, 3)))
    c = hassium.array(sample("int32", (4, 3)))
    hassium.flush()
    r2 = a @ c
    assert _hassium.pending() == 3  # the cast of c to float64, MATMUL, the cast's FREE
    assert_same(r2, sample("float64", (4,)) @ sample("int32", (4, 3)))


@pytest.mark.parametrize("name", ["@", "matmul", "dot", "inner", "vdot"])
@pytest.mark.parametrize("ta,tb", [("float64", "float64"), ("int32", "float64"),
                                   ("complex128", "complex128"), ("int64", "int64"),
                                   ("float32", "float32")])
def test_scalar_products_of_ready_arrays_are_numpy_s_at_once(name, ta, tb):
    """A scalar product of two 1-D arrays whose values are ready, at most [python]
    eager_max_elements long: NumPy's own scalar (its type and its bits), nothing recorded,
    nothing flushed, though other work is pending."""
    na, nb = sample(ta, (7,)), sample(tb, (7,))
    ha, hb = hassium.array(na), hassium.array(nb)
    other = hassium.ones(5) + 1  # pending work the product does not touch
    pending = _hassium.pending()
    r = product_fn(name, hassium)(ha, hb)
    assert _hassium.pending() == pending
    expected = product_fn(name, np)(na, nb)
    assert type(r) is type(expected)
    assert r == expected or (np.isnan(r) and np.isnan(expected))
    assert float(other.sum()) == 10.0


@pytest.mark.parametrize("name", ["@", "matmul", "dot"])
def test_ready_float64_dots_are_numpy_s_bits(name):
    """The float64 vectors of a loop's dots, computed as NumPy does without NumPy's dispatch
    (DOUBLE_dot: positive strides, NumPy's own BLAS dot; a reversed operand, its plain loop for
    matmul, BLAS on a contiguous copy for np.dot): NumPy's float64 scalar, to the bit, for
    lengths, strides, offsets and signs of every kind (signed zeros too); one-element operands
    and sums that overflow (NumPy's warning) go to NumPy's call and are NumPy's too."""
    rng = np.random.default_rng(11)
    base_np = rng.standard_normal(1200) * np.exp(rng.uniform(-30, 30, 1200))
    base_np[:40] = -0.0
    base = hassium.array(base_np)
    hassium.flush()
    f = product_fn(name, hassium)
    g = product_fn(name, np)
    def strided(o, step, n):  # n elements from o on, step apart (downwards when negative)
        if step > 0:
            return slice(o, o + step * n, step)
        return slice(o - step * (n - 1), o - 1 if o else None, step)

    keys = [(slice(0, 2), slice(2, 4)), (slice(0, 20), slice(40, 60))]  # sums of signed zeros
    for _ in range(300):
        n = int(rng.integers(1, 120))
        sa, sb = (int(s) for s in rng.choice([1, 2, 3, 7, -1, -2], 2))
        oa, ob = (int(o) for o in rng.integers(0, 1200 - 7 * n, 2))
        keys.append((strided(oa, sa, n), strided(ob, sb, n)))
    pairs = []
    for ka, kb in keys:
        m = min(len(base_np[ka]), len(base_np[kb]))
        pairs.append(((base_np[ka][:m], base_np[kb][:m]), (base[ka][:m], base[kb][:m])))
    for (xa, xb), (ha, hb) in pairs:
        expected = g(xa, xb)
        r = f(ha, hb)
        assert type(r) is type(expected)
        assert np.array_equal(np.array(r), np.array(expected), equal_nan=True)
        assert np.signbit(r) == np.signbit(expected)
    big = hassium.array(np.full(4, 1e300))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = f(big, big)
    with warnings.catch_warnings(record=True) as expected_warnings:
        warnings.simplefilter("always")
        expected = g(np.full(4, 1e300), np.full(4, 1e300))
    assert r == expected == np.inf
    assert [str(w.message) for w in caught] == [str(w.message) for w in expected_warnings]


def test_scalar_products_of_pending_or_long_arrays(scalar_reads):
    """Of an operand with a write pending: flushed first and NumPy's scalar ([python]
    scalar_reads = flush), or recorded (lazy). Longer than eager_max_elements: recorded."""
    a = hassium.array(sample("float64", (6,)))
    hassium.flush()
    b = a * 2.0  # pending: its values are not ready
    other = hassium.ones(3) + 1  # pending work that does not write an operand
    before = _hassium.pending()
    r = hassium.dot(a, b)
    expected = 2 * np.dot(sample("float64", (6,)), sample("float64", (6,)))
    if scalar_reads == "flush":
        assert type(r) is np.float64 and r == expected and _hassium.pending() == 0
    else:
        assert isinstance(r, hassium.ndarray) and _hassium.pending() == before + 1  # MATMUL
        np.testing.assert_allclose(float(r), expected)
    np.testing.assert_array_equal(np.asarray(other), 2.0)
    saved = _hassium.eager_max_elements()
    try:
        _hassium.set_eager_max_elements(5)  # shorter than the operands
        r_long = hassium.dot(a, a)
        assert isinstance(r_long, hassium.ndarray) and _hassium.pending() == 1
        np.testing.assert_allclose(float(r_long), np.dot(sample("float64", (6,)),
                                                    sample("float64", (6,))))
    finally:
        _hassium.set_eager_max_elements(saved)


@pytest.mark.parametrize("name", ["@", "matmul", "dot", "inner"])
@pytest.mark.parametrize("sa,sb", [((3,), (4,)), ((2, 3), (4, 2)), ((3,), (4, 2)), ((2, 3), (4,)),
                                   ((2, 3), (2, 3))])
def test_mismatch_errors_are_numpy_s(name, sa, sb):
    if name == "inner" and (len(sa) > 1 or len(sb) > 1):
        pytest.skip("inner contracts the last axes (the general path)")
    a, b = sample("float64", sa), sample("float64", sb)
    expected = message(product_fn(name, np), a, b)
    assert message(product_fn(name, hassium), hassium.array(a), hassium.array(b)) == expected


@pytest.mark.parametrize("name", ["@", "matmul"])
def test_zero_dim_operand_errors_are_numpy_s(name):
    v, s = sample("float64", (3,)), np.float64(2.0)
    for args in [(np.asarray(s), v), (v, np.asarray(s)), (np.asarray(s), np.asarray(s))]:
        expected = message(product_fn(name, np), *args)
        assert message(product_fn(name, hassium), *[hassium.array(a) for a in args]) == expected
    # dot multiplies by a 0-d operand
    assert_same(hassium.dot(hassium.array(v), hassium.array(2.0)), np.dot(v, np.asarray(2.0)))


def test_inner_vdot():
    for dtype in ["int16", "float32", "complex128", "bool"]:
        a, b = sample(dtype, (5,), 7), sample(dtype, (5,), 8)
        for name in ["inner", "vdot", "dot"]:
            h = getattr(hassium, name)(hassium.array(a), hassium.array(b))
            n = getattr(np, name)(a, b)
            assert_same(h, n)
            assert repr(h) == repr(n)
    a, b = sample("float64", (2, 3), 9), sample("float64", (3, 2), 10)
    assert_same(hassium.vdot(hassium.array(a), hassium.array(b)), np.vdot(a, b))
    assert_same(hassium.inner(hassium.array(a), hassium.array(b.T)), np.inner(a, b.T))
    with pytest.raises(ValueError):
        hassium.vdot(hassium.array(np.ones(3)), hassium.array(np.ones(4)))
    with pytest.raises(TypeError):
        hassium.inner(hassium.array(a), hassium.array(b), out=None)


def test_out_keywords_and_other_operands():
    a, b = sample("float64", (2, 3)), sample("float64", (3, 4))
    ha, hb = hassium.array(a), hassium.array(b)
    out = hassium.zeros((2, 4))
    assert hassium.matmul(ha, hb, out=out) is out
    assert_same(out, a @ b)
    assert_same(hassium.matmul(ha, hb, out=None), a @ b)
    assert_same(hassium.dot(ha, hb, out=None), a @ b)
    out = hassium.zeros((2, 4))
    assert hassium.dot(ha, hb, out=out) is out
    assert_same(out, a @ b)
    assert_same(ha.dot(hb), a.dot(b))
    assert_same(hassium.matmul(ha, hb, dtype="float32"), np.matmul(a, b, dtype="float32"))
    # NumPy arrays, lists and 3-D operands on either side
    assert_same(ha @ b, a @ b)
    assert_same(a @ hb, a @ b)
    assert_same(ha @ b.tolist(), a @ b)
    assert_same(a.tolist() @ hb, a @ b)
    assert_same(hb.__rmatmul__(ha), a @ b)
    assert_same(ha.__matmul__(hb), a @ b)
    c = sample("float64", (2, 3, 4))
    assert_same(hassium.array(c) @ hb.T, c @ b.T)
    assert_same(hassium.dot(hassium.array(c), hassium.array(sample("float64", (4,)))),
                np.dot(c, sample("float64", (4,))))
    hx = hassium.array(a)
    hx @= hassium.array(np.eye(3))
    assert_same(hx, a)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_products_are_numpy_s_bits(dtype):
    # [cpu] blas = auto: the engine calls the OpenBLAS NumPy brought (one BLAS in the process),
    # so a product of random operands is NumPy's to the last bit, whatever the layout.
    rng = np.random.default_rng(3)

    def rand(*shape):
        v = rng.random(shape) - 0.5
        return (v + 1j * (rng.random(shape) - 0.5) if dtype == "complex128" else v).astype(dtype)

    a, b, x = rand(70, 50), rand(50, 40), rand(50)
    cases = [lambda m, a, b, x: m.matmul(a, b), lambda m, a, b, x: m.matmul(x, b),
             lambda m, a, b, x: m.matmul(a, x), lambda m, a, b, x: m.matmul(b.T, a.T),
             lambda m, a, b, x: m.matmul(a[::2], b)]
    for case in cases:
        want = case(np, a, b, x)
        got = np.asarray(case(hassium, hassium.array(a), hassium.array(b), hassium.array(x)))
        assert got.dtype == want.dtype and np.array_equal(got, want)
    if _hassium.have_stack:
        assert "scipy_cblas_*64_" in _hassium.blas() and "openblas" in _hassium.blas().lower()


def test_linked_blas_when_configured(tmp_path):
    # [cpu] blas = linked: Debian's OpenBLAS, opened by hassium; NumPy's products within rounding.
    if not _hassium.have_stack:
        pytest.skip("no execution stack: products run on the NumPy reference executor")
    import subprocess
    import sys
    code = ("import hassium, numpy as np\n"
            "r = np.random.default_rng(1); a, b = r.random((60, 50)), r.random((50, 40))\n"
            "h = np.asarray(hassium.array(a) @ hassium.array(b))\n"
            "assert np.allclose(h, a @ b, rtol=1e-13, atol=0), abs(h - a @ b).max()\n"
            "print(hassium._hassium.blas())\n")
    env = dict(os.environ, HASSIUM_CPU_BLAS="linked")
    out = subprocess.run([sys.executable, "-c", code], env=env, text=True, capture_output=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Debian's OpenBLAS")
    env["HASSIUM_CPU_BLAS"] = "mkl"
    out = subprocess.run([sys.executable, "-c", "import hassium"], env=env, text=True,
                         capture_output=True, timeout=120)
    assert out.returncode != 0 and "mkl" in out.stderr and "auto|linked" in out.stderr.replace(
        ", ", "|"), out.stderr


def test_blas_threads_spin_briefly_under_passive_wait():
    # hassium loads NumPy (its OpenBLAS reads OPENBLAS_THREAD_TIMEOUT then) with the BLAS threads
    # spinning only ~0.3 ms when idle under [cpu] wait_policy = passive, unless the user set the
    # variable or chose active; Debian's OpenBLAS is not loaded while NumPy's serves the products.
    if not _hassium.have_stack:
        pytest.skip("no execution stack: no engine, no BLAS")
    import subprocess
    import sys
    code = ("import ctypes\n"
            "import hassium, numpy as np\n"
            "a = hassium.ones((64, 64)); np.asarray(a @ a)\n"
            "libc = ctypes.CDLL(None); libc.getenv.restype = ctypes.c_char_p\n"
            "maps = open('/proc/self/maps').read()\n"
            "print(libc.getenv(b'OPENBLAS_THREAD_TIMEOUT'), 'libopenblas.so' in maps)\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_THREAD_TIMEOUT", "HASSIUM_CPU_WAIT_POLICY")}

    def run(script, **extra):
        out = subprocess.run([sys.executable, "-c", script], env=dict(env, **extra), text=True,
                             capture_output=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    timeout, debian_loaded = run(code)
    assert timeout == "b'20'" and debian_loaded == "False"
    assert run(code, HASSIUM_CPU_WAIT_POLICY="active")[0] == "None"
    assert run(code, OPENBLAS_THREAD_TIMEOUT="9")[0] == "b'9'"
    assert run("import numpy\n" + code)[0] == "None"  # NumPy's BLAS was running already


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
def test_a_stack_of_matrices_times_a_matrix_is_recorded(dtype):
    # (..., m, k) @ (k, n): NPBench's doitgen, (NR, NQ, 1, NP) @ (NP, NP); one product of the
    # stack's rows, no fallback
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 4, 2, 5)) * 3).astype(dtype)
    b = (rng.standard_normal((5, 6)) * 3).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        for x in (a, a[:, ::2], a[..., ::-1, :]):
            h = hassium.array(x) @ hassium.array(b)
            assert isinstance(h, hassium.ndarray)
            assert_same(h, x @ b, rtol=1e-5 if dtype == "float32" else 1e-12)
            assert_same(hassium.matmul(hassium.array(x), hassium.array(b)), x @ b,
                        rtol=1e-5 if dtype == "float32" else 1e-12)
    same_error(lambda xp: xp.asarray(a) @ xp.asarray(b[:4]))


def test_bool_products_are_recorded():
    rng = np.random.default_rng(3)
    a, b, v = rng.random((3, 4)) > 0.5, rng.random((4, 5)) > 0.5, rng.random(4) > 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        for x, y in [(a, b), (v, b), (a, v), (v, v)]:
            for name in ["matmul", "dot"]:
                assert_same(getattr(hassium, name)(hassium.array(x), hassium.array(y)),
                            getattr(np, name)(x, y))
        assert_same(hassium.array(a) @ hassium.array(b), a @ b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_a_matrix_times_its_transpose_is_numpys_syrk(dtype):
    # X @ X.T and X.T @ X: NumPy calls BLAS syrk (upper triangle, mirrored); so does the engine,
    # so the values are NumPy's bits (gemm's would differ in the last bits)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((70, 130))
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal((70, 130))
    x = x.astype(dtype)
    h = hassium.array(x)
    for hp, n in [(h @ h.T, x @ x.T), (h.T @ h, x.T @ x), (hassium.dot(h, h.T), np.dot(x, x.T)),
                  (h[:, 3:90] @ h[:, 3:90].T, x[:, 3:90] @ x[:, 3:90].T)]:
        got = np.asarray(hp)
        assert got.dtype == n.dtype and got.shape == n.shape
        np.testing.assert_array_equal(got, n)
        np.testing.assert_array_equal(got, got.T)  # the mirrored triangle
    # not a transpose of the same memory: gemm (NumPy's values to rounding)
    assert_same(h[1:] @ h[:-1].T, x[1:] @ x[:-1].T,
                rtol=1e-4 if dtype in ("float32", "complex64") else 1e-12)
