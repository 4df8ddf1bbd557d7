"""Counting into bins, recorded: bincount and histogram (equal-width bins) as accumulations.

Both need what only data tells (the largest value, the range), so they read those first: one
flush, as NumPy's own first pass. Everything after is recorded: the bin of each element is
element-wise work that fuses, the counting one ADD_AT (NumPy's ufunc.at, unbuffered) kernel.
The arithmetic is NumPy's, step by step (histogram's index computation and its corrections at
the edges), so every element lands in NumPy's bin and the counts are NumPy's. Weighted sums
keep NumPy's order too: NumPy sums each block of 65,536 elements into its own partial
histogram and adds those in turn; so does this.
"""

import builtins
import operator

import numpy as _np

from . import _fallback, _hassium
from ._creation import asarray, zeros
from ._functions import where

ndarray = _hassium.ndarray
_uf = _hassium.ufuncs
_BLOCK = 65536  # numpy.histogram's block of elements


def _through_numpy(name, *args, **kwargs):
    return _fallback.run(getattr(_np, name), name, args, kwargs)


def bincount(x, /, weights=None, minlength=0):
    if not isinstance(x, ndarray):
        x = _np.asarray(x)
        x = asarray(x if x.size else x.astype(_np.intp))  # NumPy takes [] as an empty intp list
    if weights is not None and not isinstance(weights, ndarray):
        weights = asarray(weights)
    if (x.dtype.kind not in "iub" or x.ndim != 1 or
            (weights is not None and (weights.shape != x.shape or
                                      not _np.can_cast(weights.dtype, _np.float64)))):
        return _through_numpy("bincount", x, weights=weights, minlength=minlength)
    if x.dtype.kind == "b":
        x = x.astype(_np.intp)  # counted as 0 and 1 (an index of bools would be a mask)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    length = minlength
    if x.size:
        low, high = (int(v) for v in _np.asarray(_stack_extremes(x)))
        if low < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = max(high + 1, minlength)
    out = zeros(length, _np.float64 if weights is not None else _np.intp)
    if x.size:
        value = 1 if weights is None else weights.astype(_np.float64, copy=False)
        _uf["add"].at(out, x, value)
    return out


def _stack_extremes(x):
    """x.min() and x.max() computed in one flush, as a 2-element array."""
    out = zeros(2, x.dtype)
    out[0] = x.min()
    out[1] = x.max()
    return out


def _uniform_bins(a, bins, range):
    """(first_edge, last_edge, n) as numpy.histogram derives them, or None for other bins."""
    if isinstance(bins, str) or _np.ndim(bins) != 0:
        return None
    try:
        n = operator.index(bins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if n < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range is not None:
        first, last = range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (_np.isfinite(first) and _np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        ext = _np.asarray(_stack_extremes(a))
        first, last = ext[0], ext[1]  # NumPy scalars of a's dtype, as a.min(), a.max()
        if not (_np.isfinite(first) and _np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last, n


def _unsigned_subtract(a, b):
    """numpy.histogram's difference of two values a >= b, unsigned for signed integer types."""
    unsigned = {_np.byte: _np.ubyte, _np.short: _np.ushort, _np.intc: _np.uintc,
                _np.int_: _np.uint, _np.longlong: _np.ulonglong}
    dt = _np.result_type(a.dtype if isinstance(a, ndarray) else a, b)
    u = unsigned.get(dt.type)
    if u is None:
        return _uf["subtract"](a, b, dtype=dt) if isinstance(a, ndarray) else _np.subtract(a, b, dtype=dt)
    return _np.subtract(_np.asarray(a, dtype=dt), _np.asarray(b, dtype=dt), casting="unsafe", dtype=u)


def _histogram_by_edges(a, bins, density):
    """numpy.histogram with explicit edges and no weights: the sorted data searched for every
    edge (the last one inclusive); the counts are the differences."""
    from ._functions import concatenate
    from ._sorting import searchsorted, sort
    from ._composed import diff

    edges = _np.asarray(bins.copy() if isinstance(bins, ndarray) else bins)
    if _np.any(edges[:-1] > edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    sa = sort(a.ravel())
    e = asarray(edges)
    cum = concatenate((searchsorted(sa, e[:-1], "left"), searchsorted(sa, e[-1:], "right")))
    hist = diff(cum)
    if density:
        db = asarray(_np.array(_np.diff(edges), float))
        return hist / db / hist.sum(), e
    return hist, e


def histogram(a, bins=10, range=None, density=None, weights=None):
    a = a if isinstance(a, ndarray) else asarray(a)
    if weights is not None and not isinstance(weights, ndarray):
        weights = asarray(weights)
    if (a.dtype.kind not in "iuf" or
            (weights is not None and (weights.shape != a.shape or weights.dtype != _np.float64))):
        return _through_numpy("histogram", a, bins=bins, range=range, density=density,
                              weights=weights)
    uniform = _uniform_bins(a, bins, range)
    if uniform is None:
        if weights is None and not isinstance(bins, str) and _np.ndim(bins) == 1:
            return _histogram_by_edges(a, bins, density)
        return _through_numpy("histogram", a, bins=bins, range=range, density=density,
                              weights=weights)
    first, last, n = uniform
    a = a.ravel()
    bin_type = _np.result_type(first, last, _np.empty(0, a.dtype))
    if _np.issubdtype(bin_type, _np.integer):
        bin_type = _np.result_type(bin_type, float)
    edges = _np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
    if _np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {n} finite-sized bins.")
    hist = zeros(n, _np.intp if weights is None else weights.dtype)
    if a.size:
        t = a.astype(bin_type, copy=False)
        keep = None
        if range is not None:
            # Elements outside the range count nothing; they take the first edge, so that
            # their (unused) bin is computed from a finite value.
            # (Integers of up to 32 bits compare exactly as the floats t holds; comparing
            # those lets a range beyond the integer type's bounds, (-20, 30) for uint8, work.)
            c = t if a.dtype.kind in "iu" and a.dtype.itemsize <= 4 else a
            keep = _uf["logical_and"](c >= first, c <= last)
            t = where(keep, t, _np.asarray(first).astype(bin_type))
        f = (_unsigned_subtract(t, first) / _unsigned_subtract(last, first)) * n
        idx = f.astype(_np.intp)
        idx = where(idx == n, idx - 1, idx)
        e = asarray(edges)
        idx = where(t < e[idx], idx - 1, idx)
        idx = where(_uf["logical_and"](t >= e[idx + 1], idx != n - 1), idx + 1, idx)
        if weights is None:
            _uf["add"].at(hist, idx, 1 if keep is None else keep.astype(_np.intp))
        else:
            w = weights.ravel()
            if keep is not None:
                w = where(keep, w, 0.0)
            if a.size <= _BLOCK:
                _uf["add"].at(hist, idx, w)
            else:  # NumPy's order: a partial histogram per block, added in turn
                for lo in builtins.range(0, a.size, _BLOCK):
                    part = zeros(n)
                    _uf["add"].at(part, idx[lo:lo + _BLOCK], w[lo:lo + _BLOCK])
                    hist += part
    edges = asarray(edges)
    if density:
        db = asarray(_np.array(_np.diff(_np.asarray(edges)), float))
        return hist / db / hist.sum(), edges
    return hist, edges

