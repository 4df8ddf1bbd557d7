"""Array creation: array, asarray, zeros/ones/empty/full (+ _like), arange, linspace, eye, ..."""

import math
import operator

import numpy as _np

from . import _fallback, _hassium, _masked

ndarray = _hassium.ndarray
_uf = _hassium.ufuncs


def _shape(shape):
    """A shape argument (an int or a sequence of ints) as a tuple; NumPy's TypeErrors."""
    try:
        return (operator.index(shape),)
    except TypeError:
        pass
    if isinstance(shape, ndarray):
        shape = shape.tolist()
    if shape is None:
        raise TypeError("Use () not None as shape arguments")
    if isinstance(shape, dict) or not hasattr(shape, "__iter__"):
        raise TypeError(f"expected a sequence of integers or a single integer, got '{shape!r:.100}'")
    return tuple(operator.index(s) for s in shape)


def _check_order(order, name):
    if order not in ("C", "K", "A", None):
        raise NotImplementedError(f"hassium.{name}: only C order is supported, got order={order!r}")


def _dtype(dtype, default="float64"):
    return _np.dtype(default if dtype is None else dtype)


def _wrap_fresh(arr):
    """A NumPy array nobody else holds, as a hassium array (no copy); unsupported dtypes stay NumPy."""
    wrapped = _hassium.from_numpy(arr, False)
    if wrapped is None:
        _fallback.warn_once(f"array with dtype {arr.dtype}")
        return arr
    return wrapped


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    if type(object) is _masked.MaskedSelection:
        object = object._get()
    if isinstance(object, ndarray):
        res = object
        if dtype is not None and _np.dtype(dtype) != object.dtype:
            res = object.astype(dtype)
        elif copy:
            res = object.copy()
        if res.ndim < ndmin:
            res = res.reshape((1,) * (ndmin - res.ndim) + res.shape)
        return res
    if copy is False:
        return asarray(object, dtype)
    arr = _np.array(object, dtype=dtype, copy=True, order="C", ndmin=ndmin)
    return _wrap_fresh(arr)


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    if type(a) is _masked.MaskedSelection:
        a = a._get()
    if isinstance(a, ndarray):
        if dtype is not None and _np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a
    if type(a) is _np.ndarray and copy is not True:
        if dtype is not None and _np.dtype(dtype) != a.dtype:
            return _wrap_fresh(a.astype(dtype))
        wrapped = _hassium.from_numpy(a, False)
        if wrapped is not None:
            return wrapped
    return array(a, dtype, copy=True)


asanyarray = asarray


def ascontiguousarray(a, dtype=None, *, like=None):
    return asarray(a, dtype)


def empty(shape, dtype=float, order="C", *, device=None, like=None):
    _check_order(order, "empty")
    return _hassium.empty(_shape(shape), _dtype(dtype))


def _order(order):
    """numpy.ndarray's order argument: None or one of C, F, A, K (either case)."""
    if order is None:
        return None
    if not isinstance(order, str):
        raise TypeError(f"order must be str, not {type(order).__name__}")
    if len(order) != 1 or order.upper() not in "CFAK":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return order.upper()


def ndarray_new(shape, dtype=None, buffer=None, offset=0, strides=None, order=None):
    """hassium.ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None).

    Without buffer and strides: a new uninitialized array, as hassium.empty. With buffer,
    strides or order='F' (which hassium.empty does not make), NumPy builds the array (over the
    buffer's memory) and hassium takes it as asarray takes a NumPy array: no copy when the
    memory is writeable and aligned, else a copy. A hassium array as the buffer gives a view of
    its base when the dtype is the base's, else a copy (a FallbackWarning: NumPy would
    reinterpret the bytes in place).
    """
    order = _order(order)
    if buffer is None and strides is None and order != "F":
        return empty(shape, dtype)
    numpy_buffer = buffer._numpy() if isinstance(buffer, ndarray) else buffer
    arr = _np.ndarray(shape, dtype, numpy_buffer, offset, strides, order)
    if isinstance(buffer, ndarray):
        view = _hassium.view_in(buffer, arr)
        if view is not None:
            return view
        _fallback.warn_once("ndarray with a hassium buffer of another dtype")
        wrapped = _hassium.from_numpy(arr, True)
    else:
        wrapped = _hassium.from_numpy(arr, False)
    if wrapped is None:
        raise TypeError(f"hassium does not support dtype {arr.dtype}")
    return wrapped


def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    _check_order(order, "zeros")
    return _hassium.full(_shape(shape), 0, _dtype(dtype))


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    _check_order(order, "ones")
    return _hassium.full(_shape(shape), 1, _dtype(dtype))


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    _check_order(order, "full")
    if dtype is None and not isinstance(fill_value, ndarray):
        dtype = _np.array(fill_value).dtype
    return _hassium.full(_shape(shape), fill_value, dtype)


def _like(a, dtype, shape):
    a = a if isinstance(a, ndarray) else asarray(a)
    return (a.shape if shape is None else _shape(shape)), (a.dtype if dtype is None else dtype)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like(prototype, dtype, shape)
    return _hassium.empty(s, d)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like(a, dtype, shape)
    return _hassium.full(s, 0, d)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like(a, dtype, shape)
    return _hassium.full(s, 1, d)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like(a, dtype, shape)
    return _hassium.full(s, fill_value, d)


def copy(a, order="K", subok=False):
    return array(a, copy=True)


def arange(start_or_stop, /, stop=None, step=None, *, dtype=None, device=None, like=None):
    if stop is None:
        start, stop = 0, start_or_stop
    else:
        start = start_or_stop
    if step is None:
        step = 1
    args = [_scalar(start), _scalar(stop), _scalar(step)]
    start, stop, step = args
    if step == 0:
        raise ZeroDivisionError("division by zero")
    # NumPy's dtype: the given one, else that of the arguments as Python numbers.
    dt = _np.dtype(dtype) if dtype is not None else _np.result_type(start, stop, step)
    n = max(0, math.ceil((stop - start) / step))
    if dt.kind not in "iuf":
        return _fallback.run(_np.arange, "arange", (start, stop, step), {"dtype": dtype})
    # NumPy fills first + i * delta in the dtype, with first and delta taken from its first two
    # elements; a two-element NumPy arange gives them exactly (and NumPy's errors).
    head = _np.arange(start, start + 2 * step, step, dtype=dt)
    first = head[0].item() if head.size else 0
    delta = (head[1] - head[0]).item() if head.size > 1 else step
    if dt.kind == "f":
        r = _hassium.range(n, dt)
    else:
        r = _hassium.range(n, "int64")
        delta, first = int(delta), int(first)
    if delta != 1:
        r = _uf["multiply"](r, delta)
    if first != 0:
        r = _uf["add"](r, first)
    return r.astype(dt, copy=False)


def _scalar(x):
    if isinstance(x, ndarray):
        return x.item()
    if isinstance(x, _np.generic):
        return x.item()
    return x


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    if isinstance(start, ndarray) or isinstance(stop, ndarray) or _np.ndim(start) or _np.ndim(stop) \
            or axis != 0:
        return _fallback.run(_np.linspace, "linspace", (start, stop, num, endpoint, retstep, dtype,
                                                        axis), {})
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = _scalar(start), _scalar(stop)
    div = (num - 1) if endpoint else num
    delta = stop - start
    rt = _np.result_type(start, stop, float(num))
    y = _hassium.range(num, "float64")
    if div > 0:
        step = delta / div
        if step == 0:
            y = _uf["multiply"](_uf["divide"](y, div), delta)
        else:
            y = _uf["multiply"](y, step)
    else:
        step = _np.nan
        y = _uf["multiply"](y, delta)
    y = _uf["add"](y, start)
    if endpoint and num > 1:
        y[-1] = stop
    if rt != _np.float64:
        y = y.astype(rt)
    if dtype is not None:
        dtype = _np.dtype(dtype)
        if dtype.kind in "iu":
            y = _uf["floor"](y)
        y = y.astype(dtype, copy=False)
    if retstep:
        return y, step
    return y


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    M = N if M is None else M
    res = zeros((N, M), dtype)
    if k >= M or -k >= N:
        return res
    first = k if k >= 0 else -k * M
    count = min(N, M - k) if k >= 0 else min(N + k, M)
    res.reshape(-1)[first::M + 1][:count] = 1
    return res


def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=float if dtype is None else dtype)
