"""Sorting, recorded: sort, argsort, searchsorted (the engine's SORT, ARGSORT, SEARCHSORTED_*
extensions), and unique built on them as NumPy builds it.

Every sort is stable (NumPy's kind='stable'), with NaN after every number as NumPy orders floats
(complex: by real, then imaginary part), whatever `kind` says: NumPy leaves the order of equal
elements open for its other kinds, so a stable order is one of the orders it allows. Structured
`order=` runs through NumPy.
"""

import numpy as _np

from . import _fallback, _hassium
from ._creation import asarray, empty
from ._functions import _arr, _norm_axes, concatenate
from ._composed import _flat_or_axis, diff, take
from ._selection import flatnonzero

ndarray = _hassium.ndarray
_uf = _hassium.ufuncs
_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _through_numpy(name, *args, **kwargs):
    return _fallback.run(getattr(_np, name), name, args, kwargs)


def _sortable(a, kind, order):
    return a.dtype.kind in "biufc" and order is None and kind in _KINDS


def _sorted(name, a, axis, kind, order, stable):
    """np.sort (name "sort") or np.argsort of a."""
    a = _arr(a)
    if not _sortable(a, kind, order):
        return _through_numpy(name, a, axis=axis, kind=kind, order=order, stable=stable)
    a, axis = _flat_or_axis(a, axis)
    return _hassium._sort(a, axis, False) if name == "sort" else _hassium._argsort(a, axis)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _sorted("sort", a, axis, kind, order, stable)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _sorted("argsort", a, axis, kind, order, stable)


def _sort_method(self, axis=-1, kind=None, order=None, *, stable=None):
    if not _sortable(self, kind, order) or 0 in self.strides:
        return _fallback.hook("sort", "method", (self, ()), dict(axis=axis, kind=kind, order=order,
                                                                 stable=stable))
    _hassium._sort(self, _norm_axes(axis, self.ndim)[0], True)


def searchsorted(a, v, side="left", sorter=None):
    a = _arr(a)
    if a.ndim != 1 or side not in ("left", "right"):
        return _through_numpy("searchsorted", a, v, side=side, sorter=sorter)
    try:
        dt = _np.result_type(a.dtype, v.dtype if isinstance(v, ndarray) else v)
    except (TypeError, ValueError):
        return _through_numpy("searchsorted", a, v, side=side, sorter=sorter)
    if dt.kind not in "biufc":
        return _through_numpy("searchsorted", a, v, side=side, sorter=sorter)
    if sorter is not None:
        a = take(a, sorter)
    values = v if isinstance(v, ndarray) else asarray(v)
    return _hassium._searchsorted(a.astype(dt, copy=False), values.astype(dt, copy=False),
                                  side == "right")


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    ar = _arr(ar)
    if axis is not None or ar.dtype.kind not in "biufc":
        return _through_numpy("unique", ar, return_index=return_index,
                              return_inverse=return_inverse, return_counts=return_counts,
                              axis=axis, equal_nan=equal_nan, sorted=sorted)
    shape = ar.shape
    flat = ar.ravel()
    perm = None
    if return_index or return_inverse:
        perm = _hassium._argsort(flat, 0)
        aux = flat[perm]
    else:
        aux = _hassium._sort(flat, 0, False)
    n = aux.shape[0]
    mask = empty(aux.shape, _np.bool_)
    if n:
        mask[:1] = True
        last_nan = equal_nan and aux.dtype.kind in "fc" and bool(_uf["isnan"](aux[-1]))
        if last_nan:  # every NaN is one value: the first NaN is the only one kept
            if aux.dtype.kind == "c":  # (any NaN part: all such values are one)
                first_nan = int(searchsorted(_uf["isnan"](aux), True))
            else:
                first_nan = int(searchsorted(aux, aux[-1:])[0])
            if first_nan > 0:
                mask[1:first_nan] = _uf["not_equal"](aux[1:first_nan], aux[:first_nan - 1])
            mask[first_nan] = True
            mask[first_nan + 1:] = False
        else:
            mask[1:] = _uf["not_equal"](aux[1:], aux[:-1])
    kept = flatnonzero(mask)
    ret = (aux[kept],)
    if return_index:
        ret += (perm[kept],)
    if return_inverse:
        imask = mask.astype(_np.intp).cumsum() - 1
        inv = empty(mask.shape, _np.intp)
        if n:
            inv[perm] = imask
        ret += (inv.reshape(shape),)
    if return_counts:
        ret += (diff(concatenate([kept, asarray([n])])),)
    return ret[0] if len(ret) == 1 else ret


ndarray.sort = _sort_method
ndarray.argsort = lambda self, axis=-1, kind=None, order=None, *, stable=None: argsort(
    self, axis, kind, order, stable=stable)
ndarray.searchsorted = lambda self, v, side="left", sorter=None: searchsorted(self, v, side, sorter)
