"""Functions whose result length is data: nonzero, flatnonzero, argwhere, recorded.

The count of selected elements is read first (one flush: the length of the result must be known
to make it, as NumPy's count pass). Then the positions are recorded: a running count of the
selected elements (a scan) gives each its slot, and one scatter writes every position there
(the others into a spare slot past the end). For n-d arrays the flat positions are split into
one index per axis element-wise.
"""

import numpy as _np

from . import _fallback, _hassium
from ._creation import arange, asarray, empty
from ._functions import stack, where

ndarray = _hassium.ndarray
_uf = _hassium.ufuncs


def _flat_positions(a):
    """The row-major positions of a's nonzero elements, ascending, as an int64 array."""
    selected = a if a.dtype == _np.bool_ else _uf["not_equal"](a, 0)
    selected = selected.ravel()
    count = int(selected.sum())
    n = selected.size
    out = empty(count + 1, _np.intp)
    if count:
        slot = selected.astype(_np.intp).cumsum() - 1  # the slot of each selected element
        out[where(selected, slot, count)] = arange(n)
    return out[:count]


def nonzero(a):
    if not isinstance(a, ndarray):
        a = asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead. If the context of this "
                         "error is of the form `arr[nonzero(cond)]`, just use `arr[cond]`.")
    pos = _flat_positions(a)
    if a.ndim == 1:
        return (pos,)
    result = []
    stride = a.size // a.shape[0] if a.shape[0] else 0
    for k, n in enumerate(a.shape):
        idx = pos if k == 0 else _uf["remainder"](pos, n * stride) if stride else pos
        result.append(_uf["floor_divide"](idx, stride) if stride > 1 else idx)
        stride = stride // a.shape[k + 1] if k + 1 < a.ndim and a.shape[k + 1] else 0
    return tuple(result)


def flatnonzero(a):
    if not isinstance(a, ndarray):
        a = asarray(a)
    return _flat_positions(a)


def argwhere(a):
    if not isinstance(a, ndarray):
        a = asarray(a)
    if a.ndim == 0:
        return _fallback.run(_np.argwhere, "argwhere", (a,), {})
    return stack(nonzero(a), axis=1)


ndarray.nonzero = nonzero
