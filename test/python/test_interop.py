"""Interop with NumPy, laziness and flushing, FREE at the last reference, fallbacks, errors that
leave the runtime usable, the buffer protocol, and __array_function__ dispatch."""

import gc
import inspect
import warnings

import numpy as np
import pytest

import hassium
from hassium import _hassium
from helpers import assert_same, same_error


def test_mixing_numpy_and_hassium():
    n = np.arange(6.0).reshape(2, 3)
    h = hassium.array(n)
    for r, e in [(h + n, n + n), (n + h, n + n), (n * h[0], n * n[0]), (h - np.float32(1), n - 1),
                 (np.maximum(n, h * 2), np.maximum(n, n * 2)), (h[np.arange(2)], n[np.arange(2)])]:
        assert isinstance(r, hassium.ndarray)
        assert_same(r, e)


def test_numpy_operand_on_the_left_of_a_product_is_recorded():
    """`x @ A` and np.matmul(x, A, out=o) with x NumPy's and A hassium's: NumPy hands the call to
    hassium's __array_ufunc__, which runs hassium's product (no fallback, no flush)."""
    rng = np.random.default_rng(3)
    a, x, m = rng.random((5, 4)), rng.random(5), rng.random((3, 5))
    h = hassium.asarray(a)
    out = hassium.zeros(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        r = x @ h
        q = m @ h
        o = np.matmul(x, h, out=out)
    assert isinstance(r, hassium.ndarray) and isinstance(q, hassium.ndarray) and o is out
    assert_same(r, x @ a)
    assert_same(q, m @ a)
    assert_same(out, x @ a)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("scalar", [np.float64(1.5), np.float32(2.5), np.int64(3), np.int8(-2),
                                    np.uint8(7), np.complex128(1 - 1j), np.bool_(True)], ids=repr)
def test_numpy_scalars_and_ufuncs_on_hassium_arrays_are_numpy_s(dtype, scalar):
    """numpy_scalar * a goes through NumPy's ufunc override (ndarray.__array_ufunc__, C++ for a
    plain call): the result, its dtype (NEP 50: NumPy scalars are strong) and errors as
    NumPy's, and a hassium array."""
    n = (np.arange(6) % 4 + 1).astype(dtype)
    h = hassium.array(n)
    cases = [lambda x, s: s * x, lambda x, s: x * s, lambda x, s: s - x, lambda x, s: np.add(s, x),
             lambda x, s: np.multiply(x, x), lambda x, s: np.negative(x),
             lambda x, s: np.add(x, s, dtype=np.complex128), lambda x, s: np.maximum(s, x)]
    for f in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                e = f(n, scalar)
            except Exception as err:
                with pytest.raises(type(err)):
                    f(h, scalar)
                continue
            r = f(h, scalar)
        assert isinstance(r, hassium.ndarray)
        assert_same(r, e)


def test_np_asarray_is_zero_copy():
    h = hassium.arange(10.0)
    a = np.asarray(h)
    b = np.asarray(h)
    assert np.shares_memory(a, b)
    v = np.asarray(h[2:8:2])
    assert np.shares_memory(v, a) and v.strides == (16,)
    a[0] = 42  # a write through NumPy is seen by hassium
    assert float(h[0]) == 42


def test_numpy_functions_dispatch_to_hassium():
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.array(n)
    r = np.sum(h, axis=0)
    assert isinstance(r, hassium.ndarray)
    assert_same(r, np.sum(n, axis=0))
    assert_same(np.concatenate([h, h]), np.concatenate([n, n]))
    assert_same(np.mean(h), np.mean(n))
    # a function hassium does not implement runs through NumPy
    r = np.cumsum(np.diff(h, axis=1), axis=1)
    assert isinstance(r, hassium.ndarray)
    assert_same(r, np.cumsum(np.diff(n, axis=1), axis=1))


def test_flush_points_and_threshold():
    hassium.flush()
    h = hassium.ones(100)
    h2 = h * 2 + 3
    assert _hassium.pending() > 0
    gc.collect()  # (a collection during a flush may record FREEs of dead arrays)
    hassium.flush()
    assert _hassium.pending() == 0
    old = _hassium.flush_threshold()
    try:
        _hassium.set_flush_threshold(10)
        x = hassium.zeros(5)
        for _ in range(30):
            x += 1
            assert _hassium.pending() <= 21  # aligned flushes: at most twice the threshold
        assert_same(x, np.full(5, 30.0))
    finally:
        _hassium.set_flush_threshold(old)
    first = h2[0]  # (a NumPy scalar is a copy: recorded, and FREEd when `first` dies)
    float(first)
    assert _hassium.pending() == 0


def test_free_recorded_at_last_reference():
    hassium.flush()
    a = hassium.ones(10)
    v = a[2:5]
    del a
    gc.collect()
    before = _hassium.pending()
    del v  # the last reference to the base
    gc.collect()
    assert _hassium.pending() == before + 1
    hassium.flush()


def test_temporaries_are_freed():
    hassium.flush()
    a = hassium.ones(10)
    b = (a + 1) * 2  # a + 1 is a temporary: IDENTITY fill, ADD, MULTIPLY, FREE of the temporary
    assert _hassium.pending() == 4
    hassium.flush()
    del b


def test_buffer_export_flushes():
    h = hassium.arange(6, dtype=np.int32) * 2
    m = memoryview(h)
    assert m.tolist() == [0, 2, 4, 6, 8, 10]
    assert m.format == np.dtype(np.int32).char or m.itemsize == 4


def test_errors_leave_runtime_usable():
    same_error(lambda m: m.ones(3) + m.ones(4))
    e = same_error(lambda m: m.ones((2, 3)) * m.ones((3, 2)))
    assert str(e) == "operands could not be broadcast together with shapes (2,3) (3,2) "
    same_error(lambda m: m.ones(3)[5])
    same_error(lambda m: m.ones(3, dtype="nonsense"))
    same_error(lambda m: m.ones(3).reshape(2, 2))
    same_error(lambda m: m.ones(3) + "abc")
    assert_same(hassium.ones(3) + 1, np.ones(3) + 1)


def test_broadcast_error_message_matches_numpy():
    try:
        np.ones((2, 3)) + np.ones((3, 2))
    except ValueError as e:
        msg = str(e)
    with pytest.raises(ValueError) as info:
        hassium.ones((2, 3)) + hassium.ones((3, 2))
    assert str(info.value) == msg


def test_fallback_function_warns_once_and_can_be_silenced():
    n = np.array([3.0, 1.0, 2.0])
    h = hassium.array(n)
    hassium._fallback._warned.discard("convolve")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r1 = hassium.convolve(h, [1.0, 2.0])
        r2 = hassium.convolve(h * 2, [1.0, 2.0])
    fw = [x for x in w if issubclass(x.category, hassium.FallbackWarning)]
    assert len(fw) == 1 and "numpy.convolve" in str(fw[0].message)
    assert_same(r1, np.convolve(n, [1.0, 2.0]))
    assert_same(r2, np.convolve(n * 2, [1.0, 2.0]))
    hassium._fallback._warned.discard("convolve")
    hassium._fallback.enabled[0] = False
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            hassium.convolve(h, [1.0, 2.0])
        assert not [x for x in w if issubclass(x.category, hassium.FallbackWarning)]
    finally:
        hassium._fallback.enabled[0] = True


def test_r_and_c_run_through_numpy_as_fallbacks():
    """numpy.r_ / numpy.c_ were NumPy's objects passed through: their results NumPy arrays, no
    warning. Now a fallback like a function's: hassium arrays, one FallbackWarning per name."""
    n = np.arange(3.0)
    h = hassium.asarray(n) * 2
    for name in ("r_", "c_"):
        hassium._fallback._warned.discard(name)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = hassium.r_[h, [7.0, 8.0], 0:3]
        c = hassium.c_[h, h + 1]
        r2 = hassium.r_["0,2", [1, 2], [3, 4]]
    fw = [str(x.message) for x in w if issubclass(x.category, hassium.FallbackWarning)]
    assert len(fw) == 2 and "numpy.r_" in fw[0] and "numpy.c_" in fw[1]
    for got in (r, c, r2):
        assert type(got) is hassium.ndarray
    assert_same(r, np.r_[n * 2, [7.0, 8.0], 0:3])
    assert_same(c, np.c_[n * 2, n * 2 + 1])
    assert_same(r2, np.r_["0,2", [1, 2], [3, 4]])
    assert len(hassium.r_) == len(np.r_)


def test_fallback_method_in_place():
    n = np.array([3.0, 1.0, 2.0, 0.5])
    h = hassium.array(n)
    h.sort()
    n.sort()
    assert_same(h, n)


def test_fallback_results_that_are_views_are_copied():
    h = hassium.arange(6.0)
    r = hassium.flip(h.reshape(2, 3), axis=None)  # hassium's own flip: a view
    assert _hassium.same_base(r, h)
    t = hassium.rot90(h.reshape(2, 3))  # NumPy's rot90 returns a view: wrapped as a copy
    assert not _hassium.same_base(t, h)
    assert_same(t, np.rot90(np.arange(6.0).reshape(2, 3)))


def test_fallback_submodules():
    n = np.arange(8.0)
    h = hassium.array(n)
    assert_same(hassium.fft.fft(h), np.fft.fft(n))
    assert_same(hassium.linalg.norm(h), np.linalg.norm(n))
    m = np.eye(3) * 2 + 1
    assert_same(hassium.linalg.inv(hassium.array(m)), np.linalg.inv(m))
    assert_same(hassium.linalg.solve(hassium.array(m), hassium.ones(3)), np.linalg.solve(m, np.ones(3)))


@pytest.mark.parametrize("dtype", ["float16", "longdouble"])
def test_numpy_arrays_of_dtypes_hassium_does_not_hold_get_numpys_functions(dtype):
    """Every function of the namespace given a NumPy array of a dtype hassium holds no arrays of
    (float16, long double) gives NumPy's result, through NumPy."""
    def calls():  # fresh arrays for each call (an argument may be an out=)
        for k in range(8):
            x = (np.arange(12) % 5 - 2).astype(dtype).reshape(3, 4)
            r = x.ravel()
            yield [(x,), (x, 1), (x, x), (r, r), (x, 0), ([x, x],), ((r, r),),
                   (np.float16(2) if dtype == "float16" else r[0], 3)][k]

    skip = {"show_config", "show_runtime", "info", "test", "from_dlpack", "flush", "profile"}
    checked = 0
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name in sorted(n for n in dir(hassium) if not n.startswith("_") and n not in skip):
            fn, ref_fn = getattr(hassium, name), getattr(np, name, None)
            if not callable(fn) or isinstance(fn, type) or ref_fn is None:
                continue
            for args, same_args in zip(calls(), calls()):
                try:
                    ref = ref_fn(*args)
                except Exception:  # noqa: BLE001  (not how NumPy's function is called)
                    continue
                got = fn(*same_args)
                for g, e in zip(got if isinstance(ref, tuple) else [got],
                                ref if isinstance(ref, tuple) else [ref]):
                    if isinstance(e, np.ndarray):
                        assert np.asarray(g).dtype == e.dtype and g.shape == e.shape, name
                        if not name.startswith("empty"):
                            np.testing.assert_array_equal(np.asarray(g), e, err_msg=name)
                checked += 1
    assert checked > 200
    # the guard is the function for everything else: its name, signature and documentation
    assert hassium.roll.__name__ == "roll" and hassium.roll.__module__ == "hassium._functions"
    assert str(inspect.signature(hassium.roll)) == "(a, shift, axis=None)"


def test_numpy_names_pass_through():
    assert hassium.float64 is np.float64 and hassium.newaxis is None
    assert hassium.finfo(np.float32).eps == np.finfo(np.float32).eps
    assert hassium.pi == np.pi
    with pytest.raises(AttributeError):
        hassium.no_such_function_anywhere


def test_fallback_report_counts_every_fallback(tmp_path):
    # [python] fallback_report: at exit, each function's fallback count as JSON (the census)
    import json
    import os
    import subprocess
    import sys

    report = tmp_path / "fallbacks.json"
    code = ("import hassium as np\n"
            "a = np.arange(5.0)\n"
            "for _ in range(3):\n"
            "    np.convolve(a, [1.0, 2.0])\n"
            "np.sort(a)\n")  # recorded: not a fallback
    env = dict(os.environ, HASSIUM_PYTHON_FALLBACK_REPORT=str(report),
               HASSIUM_PYTHON_FALLBACK_WARNINGS="0")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert json.loads(report.read_text()) == {"convolve": 3}
