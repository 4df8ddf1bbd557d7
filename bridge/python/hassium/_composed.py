"""NumPy functions composed of recorded operations (views, copies, element-wise ops, gathers and
scatters): diff, meshgrid, mgrid, ogrid, broadcast_arrays, logspace, tile, repeat, take, take_along_axis, put,
put_along_axis, pad, isin, tensordot. Each follows NumPy's definition step by step, so values,
dtypes and errors are NumPy's; arguments beyond what is written here run through NumPy."""

import builtins
import math
import operator

import numpy as _np

from . import _fallback, _hassium
from ._creation import arange, asarray, empty, linspace, zeros
from ._functions import _arr, _norm_axes, broadcast_to, concatenate, dot

ndarray = _hassium.ndarray
_uf = _hassium.ufuncs


def _through_numpy(name, *args, **kwargs):
    return _fallback.run(getattr(_np, name), name, args, kwargs)


def _axis(axis, ndim):
    return _norm_axes(axis, ndim)[0]


def _flat_or_axis(a, axis):
    """(a, axis) as NumPy's axis=None functions see them: the flattened array and axis 0, or
    a and the axis normalized."""
    if axis is None:
        return a.ravel(), 0
    return a, _axis(axis, a.ndim)


def _along(ndim, axis, item):
    """A key that applies `item` on `axis` and takes everything on the other axes."""
    return (slice(None),) * axis + (item,) + (slice(None),) * (ndim - axis - 1)


# --- differences and grids ----------------------------------------------------------------------

def diff(a, n=1, axis=-1, prepend=_np._NoValue, append=_np._NoValue):
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = _arr(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _axis(axis, a.ndim)
    parts = []
    for value in (prepend, append):
        if value is _np._NoValue:
            parts.append(None)
            continue
        v = _arr(value)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            v = broadcast_to(v, tuple(shape))
        parts.append(v)
    if parts[0] is not None or parts[1] is not None:
        a = concatenate([p for p in (parts[0], a, parts[1]) if p is not None], axis=axis)
    op = _uf["not_equal"] if a.dtype == _np.bool_ else _uf["subtract"]
    upper, lower = _along(a.ndim, axis, slice(1, None)), _along(a.ndim, axis, slice(None, -1))
    for _ in builtins.range(n):
        a = op(a[upper], a[lower])
    return a


def broadcast_arrays(*args, subok=False):
    arrays = [_arr(a) for a in args]
    shape = _np.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrays)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    ndim = len(xi)
    if indexing not in ["xy", "ij"]:
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    s0 = (1,) * ndim
    output = [_arr(x).reshape(s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        output[0] = output[0].reshape((1, -1) + s0[2:])
        output[1] = output[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        output = broadcast_arrays(*output)
    if copy:
        output = tuple(x.copy() for x in output)
    return tuple(output)


class _Grid:
    """numpy.mgrid (dense) and numpy.ogrid (sparse): NumPy's nd_grid arithmetic, step by step, on
    hassium arrays, so a grid is recorded where it is used (NumPy's would be materialized and
    copied in). A key other than a tuple of slices (one slice: a 1-D vector) is NumPy's grid,
    its result taken in, errors included."""

    def __init__(self, sparse):
        self.sparse = sparse

    def _numpy(self, key):
        res = (_np.ogrid if self.sparse else _np.mgrid)[key]
        return tuple(asarray(r) for r in res) if isinstance(res, tuple) else asarray(res)

    def __getitem__(self, key):
        if not isinstance(key, tuple) or not key or not all(isinstance(k, slice) for k in key):
            return self._numpy(key)
        size, num_list, steps = [], [0], []  # steps: (step, start) per axis
        try:
            for k in key:
                start = 0 if k.start is None else k.start
                step = 1 if k.step is None else k.step
                if isinstance(step, (_np.complexfloating, complex)):  # a number of points
                    num_list += [start, k.stop, abs(step)]
                    size.append(int(abs(step)))
                    if size[-1] != 1:
                        step = (k.stop - start) / float(size[-1] - 1)
                    else:
                        step = 1
                else:
                    num_list += [start, k.stop, step]
                    size.append(int(math.ceil((k.stop - start) / step)))
                steps.append((step, start))
            typ = _np.result_type(*num_list)
        except (IndexError, TypeError, ValueError, ZeroDivisionError, OverflowError):
            return self._numpy(key)  # NumPy's error, or its answer where it has one
        if typ.kind not in "iuf":
            return self._numpy(key)
        nd = len(size)
        axes = [arange(n, dtype=typ) for n in size]
        if self.sparse:
            out = []
            for k, (step, start) in enumerate(steps):
                shape = [1] * nd
                shape[k] = size[k]
                out.append((axes[k] * step + start).reshape(shape))
            return tuple(out)
        nn = empty([nd] + size, dtype=typ)
        for k, (step, start) in enumerate(steps):
            shape = [1] * nd
            shape[k] = size[k]
            nn[k] = axes[k].reshape(shape)  # numpy.indices' k-th plane
            nn[k] = nn[k] * step + start
        return nn


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    if any(_np.ndim(x) != 0 or isinstance(x, ndarray) for x in (start, stop, base)):
        return _through_numpy("logspace", start, stop, num=num, endpoint=endpoint, base=base,
                              dtype=dtype, axis=axis)
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    ret = _uf["power"](_np.asarray(base), y)  # a 0-d NumPy array, as NumPy's ndmin=0 base
    return ret if dtype is None else ret.astype(dtype, copy=False)


# --- repeating ------------------------------------------------------------------------------

def tile(A, reps):
    tup = tuple(reps) if _np.iterable(reps) else (reps,)
    tup = tuple(operator.index(t) for t in tup)
    c = _arr(A)
    d = len(tup)
    if c.ndim < d:
        c = c.reshape((1,) * (d - c.ndim) + c.shape)
    if d < c.ndim:
        tup = (1,) * (c.ndim - d) + tup
    if any(t < 0 for t in tup):
        return _through_numpy("tile", A, reps)  # NumPy's own error
    shape_out = tuple(s * t for s, t in zip(c.shape, tup))
    if all(t == 1 for t in tup):
        return c.copy()
    # Every axis as (repetitions, extent): a broadcast of c, then the copy reshape makes.
    spread = builtins.sum(((1, s) for s in c.shape), ())
    full = builtins.sum(((t, s) for s, t in zip(c.shape, tup)), ())
    return broadcast_to(c.reshape(spread), full).reshape(shape_out)


def repeat(a, repeats, axis=None):
    a, axis = _flat_or_axis(_arr(a), axis)
    n = a.shape[axis]
    reps = _np.asarray(repeats)
    if reps.dtype.kind not in "iub" or reps.ndim > 1:
        return _through_numpy("repeat", a, repeats, axis=axis)
    if reps.ndim == 1 and reps.size != 1:
        if reps.size != n:
            raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                             f"({reps.size},)")
        if (reps < 0).any():
            raise ValueError("repeats may not contain negative values.")
        return take(a, asarray(_np.repeat(_np.arange(n), reps)), axis=axis)
    r = int(reps.reshape(-1)[0])
    if r < 0:
        raise ValueError("negative dimensions are not allowed")
    shape = a.shape
    spread = shape[:axis + 1] + (1,) + shape[axis + 1:]
    full = shape[:axis + 1] + (r,) + shape[axis + 1:]
    return broadcast_to(a.reshape(spread), full).reshape(shape[:axis] + (n * r,) + shape[axis + 1:])


# --- indexing functions ---------------------------------------------------------------------------

def take(a, indices, axis=None, out=None, mode="raise"):
    a = _arr(a)
    if out is not None or mode not in ("raise", "wrap", "clip"):
        return _through_numpy("take", a, indices, axis=axis, out=out, mode=mode)
    a, axis = _flat_or_axis(a, axis)
    n = a.shape[axis]
    idx = indices if isinstance(indices, ndarray) else _np.asarray(indices)
    if idx.dtype.kind not in "iu":
        return _through_numpy("take", a, indices, axis=axis, mode=mode)
    if mode != "raise":
        if n == 0:
            return _through_numpy("take", a, indices, axis=axis, mode=mode)
        idx = _arr(idx)
        idx = _uf["remainder"](idx, n) if mode == "wrap" else _uf["minimum"](
            _uf["maximum"](idx, 0), n - 1)
    if idx.ndim == 0:  # NumPy's take gives a copy (a scalar for 1-d a)
        r = a[_along(a.ndim, axis, int(idx))]
        return r.copy() if isinstance(r, ndarray) else r
    return a[_along(a.ndim, axis, idx)]


def _along_axis_key(arr_shape, indices, axis):
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if len(arr_shape) != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    ones = (1,) * indices.ndim
    key = []
    for dim, n in enumerate(arr_shape):
        if dim == axis:
            key.append(indices)
        else:
            key.append(_np.arange(n).reshape(ones[:dim] + (-1,) + ones[dim + 1:]))
    return tuple(key)


def take_along_axis(arr, indices, axis=-1):
    arr, indices = _arr(arr), _arr(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, axis = arr.ravel(), 0
    else:
        axis = _axis(axis, arr.ndim)
    return arr[_along_axis_key(arr.shape, indices, axis)]


def put_along_axis(arr, indices, values, axis):
    indices = _arr(indices)
    if axis is None or not isinstance(arr, ndarray):
        return _through_numpy("put_along_axis", arr, indices, values, axis)
    axis = _axis(axis, arr.ndim)
    arr[_along_axis_key(arr.shape, indices, axis)] = values


def _c_contiguous(a):
    """Whether a's elements lie in row-major order without gaps (no flush, unlike a.flags)."""
    expected = a.itemsize
    for n, s in zip(reversed(a.shape), reversed(a.strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def put(a, ind, v, mode="raise"):
    if not isinstance(a, ndarray):  # NumPy's put writes a NumPy array, and rejects the rest
        return _through_numpy("put", a, ind, v, mode=mode)
    if mode not in ("raise", "wrap", "clip") or not _c_contiguous(a) or a.size == 0:
        return _through_numpy("put", a, ind, v, mode=mode)
    ind = _arr(ind).ravel()
    if not _np.can_cast(ind.dtype, _np.intp, "safe"):  # NumPy's cast of the indices
        raise TypeError(f"Cannot cast array data from {ind.dtype!r} to "
                        f"{_np.dtype(_np.intp)!r} according to the rule 'safe'")
    if ind.size == 0:
        return None
    # NumPy converts v to a's dtype as np.asarray does (a Python int out of range raises)
    v = (v.astype(a.dtype, copy=False) if isinstance(v, ndarray) else asarray(v, a.dtype)).ravel()
    if v.size == 0:
        return None
    if v.size != ind.size:  # NumPy repeats v as needed
        v = v[_uf["remainder"](arange(ind.size), v.size)]
    if mode == "wrap":
        ind = _uf["remainder"](ind, a.size)
    elif mode == "clip":
        ind = _uf["minimum"](_uf["maximum"](ind, 0), a.size - 1)
    a.reshape(-1)[ind] = v  # a scatter runs in order: the last of repeated positions wins
    return None


# --- padding ----------------------------------------------------------------------------------

def _as_pairs(x, ndim, as_index=False):
    x = _np.asarray(x)
    if as_index:
        x = _np.round(x).astype(_np.intp) if x.dtype.kind == "f" else x
        if x.size and x.min() < 0:
            raise ValueError("index can't contain negative values")
    return _np.broadcast_to(x, (ndim, 2)).tolist()


def pad(array, pad_width, mode="constant", **kwargs):
    a = _arr(array)
    pw = _np.asarray(pad_width)
    if not pw.dtype.kind == "i" or mode not in ("constant", "edge", "wrap", "reflect", "symmetric",
                                                 "empty") or callable(mode) or \
            (mode == "constant" and set(kwargs) - {"constant_values"}) or \
            (mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") != "even") or \
            (mode not in ("constant", "reflect", "symmetric") and kwargs):
        return _through_numpy("pad", array, pad_width, mode=mode, **kwargs)
    widths = _as_pairs(pw, a.ndim, as_index=True)
    limit = {"wrap": 0, "symmetric": 0, "reflect": 1}.get(mode)
    for (l, r), n in zip(widths, a.shape):
        if limit is not None and (n == 0 or l > n - limit or r > n - limit):
            # NumPy repeats reflections and wraps wider than the array; and its errors
            return _through_numpy("pad", array, pad_width, mode=mode, **kwargs)
    shape = tuple(n + l + r for (l, r), n in zip(widths, a.shape))
    padded = empty(shape, a.dtype)
    original = tuple(slice(l, l + n) for (l, _), n in zip(widths, a.shape))
    padded[original] = a
    if mode == "empty":
        return padded
    values = _as_pairs(kwargs.get("constant_values", 0), a.ndim) if mode == "constant" else None
    for axis, ((l, r), n) in enumerate(zip(widths, a.shape)):
        # NumPy's region of interest: axes before this one padded already, later ones not yet
        roi = padded[(slice(None),) * (axis + 1) + original[axis + 1:]]
        nd = roi.ndim

        def part(lo, hi, reverse=False):
            v = roi[_along(nd, axis, slice(lo, hi))]
            return v[_along(nd, axis, slice(None, None, -1))] if reverse else v

        left, right = _along(nd, axis, slice(0, l)), _along(nd, axis, slice(l + n, l + n + r))
        if mode == "constant":
            if l:
                roi[left] = values[axis][0]
            if r:
                roi[right] = values[axis][1]
            continue
        if l:
            roi[left] = {"edge": lambda: part(l, l + 1), "wrap": lambda: part(n, n + l),
                         "reflect": lambda: part(l + 1, 2 * l + 1, True),
                         "symmetric": lambda: part(l, 2 * l, True)}[mode]()
        if r:
            end = l + n
            roi[right] = {"edge": lambda: part(end - 1, end), "wrap": lambda: part(l, l + r),
                          "reflect": lambda: part(end - 1 - r, end - 1, True),
                          "symmetric": lambda: part(end - r, end, True)}[mode]()
    return padded


# --- sets and products ---------------------------------------------------------------------------

_ISIN_MAX_PAIRS = 1 << 24  # element x test-element comparisons done by broadcasting


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    element = _arr(element)
    test = _arr(test_elements).ravel()
    if kind not in (None, "sort", "table"):
        return _through_numpy("isin", element, test, assume_unique=assume_unique,
                              invert=invert, kind=kind)
    if test.size == 0:
        return zeros(element.shape, bool) | bool(invert)
    if element.size * test.size <= _ISIN_MAX_PAIRS or test.dtype.kind == "c":
        # Membership by equality with every test element, as NumPy's small-set path does.
        hit = _uf["equal"](element.reshape(element.shape + (1,)), test).any(axis=-1)
    else:
        # The sorted test elements searched for each element: equal to the one found or not.
        from ._sorting import searchsorted, sort

        t = sort(test)
        at = _uf["minimum"](searchsorted(t, element), t.size - 1)
        hit = _uf["equal"](t[at.ravel()].reshape(element.shape), element)
    return _uf["logical_not"](hit) if invert else hit


def tensordot(a, b, axes=2):
    try:
        iter(axes)
    except Exception:
        axes_a = list(builtins.range(-axes, 0))
        axes_b = list(builtins.range(0, axes))
    else:
        axes_a, axes_b = axes
    axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
    na, nb = len(axes_a), len(axes_b)
    a, b = _arr(a), _arr(b)
    as_, nda, bs, ndb = a.shape, a.ndim, b.shape, b.ndim
    equal = na == nb
    if equal:
        for k in builtins.range(na):
            if as_[axes_a[k]] != bs[axes_b[k]]:
                equal = False
                break
            if axes_a[k] < 0:
                axes_a[k] += nda
            if axes_b[k] < 0:
                axes_b[k] += ndb
    if not equal:
        raise ValueError("shape-mismatch for sum")
    notin = [k for k in builtins.range(nda) if k not in axes_a]
    newaxes_a = notin + axes_a
    n2 = 1
    for axis in axes_a:
        n2 *= as_[axis]
    newshape_a = (int(_np.prod([as_[ax] for ax in notin])), n2)
    olda = [as_[axis] for axis in notin]
    notin = [k for k in builtins.range(ndb) if k not in axes_b]
    newaxes_b = axes_b + notin
    n2 = 1
    for axis in axes_b:
        n2 *= bs[axis]
    newshape_b = (n2, int(_np.prod([bs[ax] for ax in notin])))
    oldb = [bs[axis] for axis in notin]
    at = a.transpose(newaxes_a).reshape(newshape_a)
    bt = b.transpose(newaxes_b).reshape(newshape_b)
    res = dot(at, bt)
    return res.reshape(olda + oldb)


# --- ufunc.outer and cov ------------------------------------------------------------------------

def _ufunc_outer(self, A, B, /, **kwargs):
    """ufunc.outer(A, B): op(A[..., None, ...], B), A's axes first (a broadcast: it fuses)."""
    if kwargs or self.nin != 2:
        return _fallback.run(getattr(getattr(_np, self.__name__), "outer"),
                             f"{self.__name__}.outer", (A, B), kwargs)
    A, B = _arr(A), _arr(B)
    return self(A.reshape(A.shape + (1,) * B.ndim), B)


_hassium.ufunc.outer = _ufunc_outer


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    if fweights is not None or aweights is not None or (ddof is not None and ddof != int(ddof)):
        return _through_numpy("cov", m, y, rowvar, bias, ddof, fweights, aweights, dtype=dtype)
    m = _arr(m)
    if m.ndim > 2 or m.dtype.kind not in "biufc":
        return _through_numpy("cov", m, y, rowvar, bias, ddof, dtype=dtype)
    dtype = _np.result_type(m.dtype, _np.float64) if dtype is None else _np.dtype(dtype)
    # NumPy's array(m, ndmin=2, dtype=dtype): a copy in m's own layout (order K), centred next
    if m.ndim == 2 and abs(m.strides[0]) < abs(m.strides[1]):
        X = m.T.astype(dtype).T  # (a transposed m: read and written in memory order)
    else:
        X = m.astype(dtype)
    if X.ndim < 2:
        X = X.reshape((1,) * (2 - X.ndim) + X.shape)
    if not rowvar and X.shape[0] != 1:
        X = X.T
    if X.shape[0] == 0:
        return empty((0, 0), dtype)
    if y is not None:
        y = _arr(y).astype(dtype)
        if y.ndim < 2:
            y = y.reshape((1,) * (2 - y.ndim) + y.shape)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = concatenate((X, y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    fact = X.shape[1] - ddof
    if fact <= 0:
        import warnings

        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X -= X.mean(axis=1).reshape(-1, 1)  # in place, in X's own layout
    c = dot(X, _uf["conjugate"](X.T) if X.dtype.kind == "c" else X.T)
    c *= _np.true_divide(1, fact)  # in place: c keeps its dtype, as NumPy's
    return c.squeeze()


# The ndarray methods of the same names.
ndarray.repeat = lambda self, repeats, axis=None: repeat(self, repeats, axis)
ndarray.take = lambda self, indices, axis=None, out=None, mode="raise": take(self, indices, axis,
                                                                           out, mode)
ndarray.put = lambda self, indices, values, mode="raise": put(self, indices, values, mode)
