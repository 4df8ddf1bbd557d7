"""NumPy functions on hassium arrays: reductions as functions, shape functions, joining, where,
clip, round, dot/matmul, and small helpers (result_type, shape, ndim, ...)."""

import builtins
import operator

import numpy as _np

from . import _fallback, _hassium
from ._creation import asarray, empty

ndarray = _hassium.ndarray
_uf = _hassium.ufuncs
_NoValue = _np._NoValue


def _arr(a):
    return a if isinstance(a, ndarray) else asarray(a)


_held = _fallback.held


# --- reductions and scans as functions --------------------------------------------------------

def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _arr(a).sum(axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _arr(a).prod(axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where)


def max(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _arr(a).max(axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def min(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _arr(a).min(axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


amax, amin = max, min


def any(a, axis=None, out=None, keepdims=False, *, where=True):
    return _arr(a).any(axis=axis, out=out, keepdims=keepdims, where=where)


def all(a, axis=None, out=None, keepdims=False, *, where=True):
    return _arr(a).all(axis=axis, out=out, keepdims=keepdims, where=where)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    return _arr(a).mean(axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
        correction=_NoValue):
    return _arr(a).var(axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where,
                       mean=mean, correction=correction)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
        correction=_NoValue):
    return _arr(a).std(axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where,
                       mean=mean, correction=correction)


def argmax(a, axis=None, out=None, *, keepdims=False):
    return _arr(a).argmax(axis=axis, out=out, keepdims=keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    return _arr(a).argmin(axis=axis, out=out, keepdims=keepdims)


def cumsum(a, axis=None, dtype=None, out=None):
    return _arr(a).cumsum(axis=axis, dtype=dtype, out=out)


def cumprod(a, axis=None, dtype=None, out=None):
    return _arr(a).cumprod(axis=axis, dtype=dtype, out=out)


# --- shapes -------------------------------------------------------------------------------------

def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    shape = newshape if shape is None else shape
    return _arr(a).reshape(shape, order=order)


def ravel(a, order="C"):
    return _arr(a).ravel(order)


def transpose(a, axes=None):
    return _arr(a).transpose(axes)


def swapaxes(a, axis1, axis2):
    return _arr(a).swapaxes(axis1, axis2)


def squeeze(a, axis=None):
    return _arr(a).squeeze(axis)


def _norm_axes(axis, ndim):
    axes = (axis,) if isinstance(axis, int) or not hasattr(axis, "__len__") else tuple(axis)
    out = []
    for ax in axes:
        ax = operator.index(ax)
        if not -ndim <= ax < ndim:
            raise _np.exceptions.AxisError(ax, ndim)
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return out


def expand_dims(a, axis):
    a = _arr(a)
    nd = a.ndim + (1 if isinstance(axis, int) or not hasattr(axis, "__len__") else len(axis))
    axes = _norm_axes(axis, nd)
    shape = iter(a.shape)
    return a.reshape(tuple(1 if k in axes else next(shape) for k in range(nd)))


def moveaxis(a, source, destination):
    a = _arr(a)
    src = _norm_axes(source, a.ndim)
    dst = _norm_axes(destination, a.ndim)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [k for k in range(a.ndim) if k not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


_REVERSED = slice(None, None, -1)


def flip(m, axis=None):
    m = _arr(m)
    if axis is None and m.ndim == 1:
        return m[_REVERSED]  # (the common call, without building a key)
    axes = range(m.ndim) if axis is None else _norm_axes(axis, m.ndim)
    key = [slice(None)] * m.ndim
    for ax in axes:
        key[ax] = slice(None, None, -1)
    return m[tuple(key)]


def roll(a, shift, axis=None):
    a = _arr(a)
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    shifts = (shift,) if not hasattr(shift, "__len__") else tuple(shift)
    axes = (axis,) if not hasattr(axis, "__len__") else tuple(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = {}
    for s, ax in zip(shifts, axes):
        ax = _norm_axes(ax, a.ndim)[0]
        total[ax] = total.get(ax, 0) + operator.index(s)
    res = a
    for ax, s in total.items():
        n = res.shape[ax]
        s = s % n if n else 0
        if s == 0:
            continue
        out = empty(res.shape, res.dtype)
        dst, src = [slice(None)] * res.ndim, [slice(None)] * res.ndim
        dst[ax], src[ax] = slice(s, None), slice(None, n - s)
        out[tuple(dst)] = res[tuple(src)]
        dst[ax], src[ax] = slice(None, s), slice(n - s, None)
        out[tuple(dst)] = res[tuple(src)]
        res = out
    return res.copy() if res is a else res


def broadcast_to(array, shape, subok=False):
    array = _arr(array)
    shape = (operator.index(shape),) if not hasattr(shape, "__len__") else tuple(shape)
    res = empty(shape, array.dtype)
    try:
        res[...] = array
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {array.shape}  and requested shape {shape}") from None
    return res


def atleast_1d(*arys):
    res = [_arr(a) if _arr(a).ndim >= 1 else _arr(a).reshape(1) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys):
    res = []
    for a in arys:
        a = _arr(a)
        res.append(a if a.ndim >= 2 else a.reshape((1,) * (2 - a.ndim) + a.shape))
    return res[0] if len(res) == 1 else tuple(res)


def atleast_3d(*arys):
    res = []
    for a in arys:
        a = _arr(a)
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a.reshape(1, a.shape[0], 1)
        elif a.ndim == 2:
            a = a.reshape(a.shape + (1,))
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def shape(a):
    return a.shape if isinstance(a, ndarray) else _np.shape(a)


def ndim(a):
    return a.ndim if isinstance(a, ndarray) else _np.ndim(a)


def size(a, axis=None):
    if isinstance(a, ndarray):
        return a.size if axis is None else a.shape[axis]
    return _np.size(a, axis)


def result_type(*arrays_and_dtypes):
    return _np.result_type(*[a.dtype if isinstance(a, ndarray) else a for a in arrays_and_dtypes])


# --- joining ------------------------------------------------------------------------------------

def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = [_arr(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays = [a.ravel() for a in arrays]
        axis = 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _norm_axes(axis, nd)[0]
    for i, a in enumerate(arrays):
        if a.ndim != nd:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at index 0 "
                f"has {nd} dimension(s) and the array at index {i} has {a.ndim} dimension(s)")
        for d in range(nd):
            if d != axis and a.shape[d] != arrays[0].shape[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match "
                    f"exactly, but along dimension {d}, the array at index 0 has size "
                    f"{arrays[0].shape[d]} and the array at index {i} has size {a.shape[d]}")
    rt = _np.dtype(dtype) if dtype is not None else _np.result_type(*[a.dtype for a in arrays])
    if not _held(rt) or not builtins.all(isinstance(a, ndarray) for a in arrays):
        # a NumPy array of a dtype hassium does not hold (float16 ...) stays NumPy's after _arr
        return _fallback.run(_np.concatenate, "concatenate", (arrays,),
                             dict(axis=axis, out=out, dtype=dtype, casting=casting))
    for a in arrays:
        if not _np.can_cast(a.dtype, rt, casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {rt!r} according to the "
                            f"rule '{casting}'")
    shape = list(arrays[0].shape)
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    res = empty(tuple(shape), rt) if out is None else out
    if out is not None and tuple(out.shape) != tuple(shape):
        raise ValueError("Output array is the wrong shape")
    start = 0
    key = [slice(None)] * nd
    for a in arrays:
        n = a.shape[axis]
        key[axis] = slice(start, start + n)
        res[tuple(key)] = a
        start += n
    return res


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = [_arr(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = _norm_axes(axis, arrays[0].ndim + 1)[0]
    expanded = [expand_dims(a, axis) for a in arrays]
    return concatenate(expanded, axis=axis, out=out, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    return concatenate([atleast_2d(a) for a in tup], axis=0, dtype=dtype, casting=casting)


row_stack = vstack


def hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = [atleast_1d(a) for a in tup]
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return concatenate(arrs, axis=axis, dtype=dtype, casting=casting)


def column_stack(tup):
    arrs = []
    for a in tup:
        a = _arr(a)
        arrs.append(a.reshape(a.shape[0], 1) if a.ndim < 2 else a)
    return concatenate(arrs, axis=1)


# --- element-wise helpers -------------------------------------------------------------------------

def where(condition, x=_NoValue, y=_NoValue, /):
    if x is _NoValue and y is _NoValue:
        return _arr(condition).nonzero()
    if x is _NoValue or y is _NoValue:
        raise ValueError("either both or neither of x and y should be given")
    return _hassium.where(condition, x, y)


def _triangle(m, k, upper):
    """NumPy's triu/tril: the last two axes (a 1-D m as the rows of a square) masked by
    j - i >= k (upper) or j - i <= k, recorded as one select that fuses with m's producers."""
    m = _arr(m)
    if m.ndim == 0 or not isinstance(k, (int, _np.integer)):  # NumPy's error, NumPy's float k
        return _fallback.run(_np.triu if upper else _np.tril, "triu" if upper else "tril", (m, k),
                             {})
    rows, cols = m.shape[-2:] if m.ndim >= 2 else (m.shape[0], m.shape[0])
    from ._creation import arange, zeros
    d = arange(cols).reshape(1, cols) - arange(rows).reshape(rows, 1)
    keep = (d >= k) if upper else (d <= k)
    return _hassium.where(keep, m, zeros(1, m.dtype))


def triu(m, k=0):
    return _triangle(m, k, True)


def tril(m, k=0):
    return _triangle(m, k, False)


def clip(a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue, max=_NoValue, **kwargs):
    lo = a_min if a_min is not _NoValue else (None if min is _NoValue else min)
    hi = a_max if a_max is not _NoValue else (None if max is _NoValue else max)
    if kwargs:
        return _fallback.run(_np.clip, "clip", (a, lo, hi), dict(out=out, **kwargs))
    a = _arr(a)  # np.clip(4, None, np.int8(0)) clips an int64 array, not a weak Python int
    if builtins.any(isinstance(x, complex) or getattr(x, "dtype", _np.dtype(bool)).kind == "c"
                    for x in (a, lo, hi)):
        # NumPy's clip ufunc orders complex numbers without maximum's NaN rule: a bound with a
        # NaN imaginary part does not win (np.clip(0j, complex(-6, nan), 1) is 0j); hassium's
        # maximum/minimum would give NaN. Complex min/max run through NumPy anyway.
        return _fallback.run(_np.clip, "clip", (a, lo, hi), {} if out is None else {"out": out})
    res = a
    if a.dtype.kind in ("i", "u"):
        # NumPy drops a Python int bound beyond the dtype's range instead of raising (NEP 50:
        # no value-based promotion); a bound that excludes every value still raises.
        info = _np.iinfo(a.dtype)
        if type(lo) is int and lo <= info.min:
            lo = None
        if type(hi) is int and hi >= info.max:
            hi = None
    bounds = [x for x in (lo, hi) if x is not None]
    if bounds:
        # NumPy's clip is one ufunc: a, min and max resolve to one dtype together (Python
        # scalars weak), where clipping in two steps would promote pair by pair:
        # clip(uint8, 2**62, int64 scalar) is int64 (maximum(uint8, 2**62) alone raises),
        # clip(uint8, 2.5, float32 array) is float32 (maximum(uint8, 2.5) alone is float64).
        rt = _np.result_type(a.dtype, *[x if type(x) in (int, float, bool) else
                                        getattr(x, "dtype", None) or _np.asarray(x).dtype
                                        for x in bounds])
        if not _held(rt):
            return _fallback.run(_np.clip, "clip", (a, lo, hi), {} if out is None else {"out": out})
        if rt != a.dtype:
            res = a.astype(rt)
    if lo is not None:
        res = _uf["maximum"](res, lo)
    if hi is not None:
        res = _uf["minimum"](res, hi)
    if res is a:
        res = _uf["positive"](a)
    if out is not None:
        out[...] = res
        return out
    return res


def round(a, decimals=0, out=None):
    a = _arr(a)
    if a.dtype.kind in "biu":
        if decimals >= 0:
            res = a.copy()
        else:
            return _fallback.run(_np.round, "round", (a, decimals), {"out": out} if out is not None else {})
    elif a.dtype.kind == "c":
        return _fallback.run(_np.round, "round", (a, decimals), {"out": out} if out is not None else {})
    elif decimals == 0:
        res = _uf["rint"](a)
    elif decimals > 0:
        f = 10.0 ** decimals
        res = _uf["divide"](_uf["rint"](_uf["multiply"](a, f)), f)
    else:
        f = 10.0 ** -decimals
        res = _uf["multiply"](_uf["rint"](_uf["divide"](a, f)), f)
    if out is not None:
        out[...] = res
        return out
    return res


around = round


# --- linear algebra -------------------------------------------------------------------------------

# matmul, dot, inner and vdot are C++ builtins (bridge/python/linalg.cpp): two hassium arrays of 1
# or 2 dims are recorded there in one call; anything else comes to the general functions below.

def _matmul(a, b, /, out=None, **kwargs):
    if kwargs:
        return _fallback.run(_np.matmul, "matmul", (a, b), dict(out=out, **kwargs))
    a, b = _arr(a), _arr(b)
    # None: more dims, a bool product, or a NumPy array of a dtype hassium does not hold
    if a.dtype == _np.bool_ and b.dtype == _np.bool_:
        return _bool_product(matmul, a, b, out)
    res = _hassium.product(a, b, "matmul")
    if res is None and a.ndim > 2 and b.ndim == 2 and a.shape[-1] == b.shape[0]:
        # a stack of matrices times one matrix: the stack's rows are one matrix's rows
        rows = _hassium.product(a.reshape(-1, a.shape[-1]), b, "matmul")
        res = None if rows is None else rows.reshape(a.shape[:-1] + (b.shape[1],))
    if res is None:
        return _fallback.run(_np.matmul, "matmul", (a, b), {} if out is None else {"out": out})
    if out is not None:
        out[...] = res
        return out
    return res


def _bool_product(product, a, b, out):
    """A product of bool arrays: any(a and b) over the inner axis, as NumPy's bool loops give
    it: the count of true pairs, nonzero."""
    res = _uf["not_equal"](product(a.astype(_np.int64), b.astype(_np.int64)), 0)
    if out is not None:
        out[...] = res
        return out
    return res


def _dot(a, b, out=None):
    a, b = _arr(a), _arr(b)
    if a.dtype == _np.bool_ and b.dtype == _np.bool_ and a.ndim and b.ndim:
        return _bool_product(dot, a, b, out)
    res = None
    if a.ndim == 0 or b.ndim == 0:
        res = _uf["multiply"](a, b)
    elif a.ndim <= 2 and b.ndim <= 2:
        res = _hassium.product(a, b, "dot")
    elif b.ndim == 1:
        res = _uf["multiply"](a, b).sum(axis=-1)
    if res is None:
        return _fallback.run(_np.dot, "dot", (a, b), {} if out is None else {"out": out})
    if out is not None:
        out[...] = res
        return out
    return res


def _vdot(a, b, /):
    a, b = _arr(a).ravel(), _arr(b).ravel()
    if a.dtype.kind == "c":
        a = _uf["conjugate"](a)
    return matmul(a, b)


def _inner(a, b, /):
    a, b = _arr(a), _arr(b)
    if a.ndim <= 1 and b.ndim <= 1:
        return dot(a, b)
    return _fallback.run(_np.inner, "inner", (a, b), {})


matmul, dot, vdot, inner = _hassium.matmul, _hassium.dot, _hassium.vdot, _hassium.inner


def outer(a, b, out=None):
    a, b = _arr(a).ravel(), _arr(b).ravel()
    return _uf["multiply"](a.reshape(a.shape[0], 1), b.reshape(1, b.shape[0]), out=out) \
        if out is not None else _uf["multiply"](a.reshape(a.shape[0], 1), b.reshape(1, b.shape[0]))


# --- misc -----------------------------------------------------------------------------------------

def real(val):
    return _arr(val).real


def imag(val):
    return _arr(val).imag


def conj(x):
    return _uf["conjugate"](x)


def isscalar(element):
    if isinstance(element, ndarray):
        return False
    return _np.isscalar(element)


def array_equal(a1, a2, equal_nan=False):
    try:
        a1, a2 = _arr(a1), _arr(a2)
    except Exception:
        return False
    if a1.shape != a2.shape:
        return False
    if not equal_nan:
        return bool(_uf["equal"](a1, a2).all())
    both_nan = _uf["logical_and"](_uf["isnan"](a1), _uf["isnan"](a2))
    return bool(_uf["logical_or"](_uf["equal"](a1, a2), both_nan).all())


def count_nonzero(a, axis=None, *, keepdims=False):
    a = _arr(a)
    return _uf["not_equal"](a, 0).sum(axis=axis, keepdims=keepdims)
