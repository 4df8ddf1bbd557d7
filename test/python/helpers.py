"""Comparing hassium results with NumPy's: values, dtypes, shapes, exception types."""

import numpy as np
import pytest

import hassium


def to_np(x):
    if isinstance(x, hassium.ndarray):
        return np.asarray(x)
    return x


def assert_same(h, n, *, exact=None, rtol=1e-7, atol=0):
    """h (hassium) equals n (NumPy): shape, dtype, and values (exact for non-floats)."""
    if isinstance(n, tuple):
        assert isinstance(h, tuple) and len(h) == len(n)
        for a, b in zip(h, n):
            assert_same(a, b, exact=exact, rtol=rtol, atol=atol)
        return
    hn = to_np(h)
    nn = np.asarray(n)
    assert np.shape(hn) == nn.shape, f"shape {np.shape(hn)} != {nn.shape}"
    hd = hn.dtype if hasattr(hn, "dtype") else np.asarray(hn).dtype
    if isinstance(n, (np.ndarray, np.generic)):
        assert hd == nn.dtype, f"dtype {hd} != {nn.dtype}"
    if exact is None:
        exact = nn.dtype.kind not in "fc"
    if exact:
        np.testing.assert_array_equal(hn, nn)
    else:
        np.testing.assert_allclose(hn, nn, rtol=rtol, atol=atol, equal_nan=True)


def both(fn, *args, **kwargs):
    """fn applied to hassium and NumPy versions of the arguments; returns (h, n)."""
    hargs = [hassium.array(a) if isinstance(a, np.ndarray) else a for a in args]
    return fn(hassium, *hargs, **kwargs), fn(np, *args, **kwargs)


def same_error_message(op, n, h):
    """op(n) on a NumPy object and op(h) on its hassium twin raise the same exception type with
    the same message."""
    with pytest.raises(Exception) as ne:
        op(n)
    with pytest.raises(Exception) as he:
        op(h)
    assert type(he.value) is type(ne.value) and str(he.value) == str(ne.value)


def same_error(fn, *args):
    """fn(np, ...) and fn(hassium, ...) raise the same exception type (returns it)."""
    try:
        fn(np, *args)
    except Exception as e:  # noqa: BLE001
        expected = type(e)
    else:
        raise AssertionError("NumPy raised nothing")
    try:
        r = fn(hassium, *args)
        hassium.flush()
        if isinstance(r, hassium.ndarray):
            np.asarray(r)
    except Exception as e:  # noqa: BLE001
        assert isinstance(e, expected), f"hassium raised {type(e).__name__}: {e}; NumPy {expected.__name__}"
        return e
    raise AssertionError(f"hassium raised nothing; NumPy raised {expected.__name__}")
