"""hassium.linalg: numpy.linalg with matmul and the 2-norm recorded; the rest runs through NumPy
(solve, inv, det, eig, svd, ... convert to NumPy, compute with LAPACK, and wrap back)."""

import numpy as _np

from . import _fallback, _hassium
from ._functions import _arr, matmul  # noqa: F401  (numpy.linalg.matmul)

_uf = _hassium.ufuncs


def norm(x, ord=None, axis=None, keepdims=False):
    x = _arr(x)
    if ord is not None or (axis is not None and not isinstance(axis, int)):
        return _fallback.run(_np.linalg.norm, "linalg.norm", (x, ord, axis, keepdims), {})
    if x.dtype.kind in "biu":
        x = x.astype("float64")
    if x.dtype.kind == "c":
        mag = _uf["absolute"](x)
        sq = _uf["multiply"](mag, mag)
    else:
        sq = _uf["multiply"](x, x)
    return _uf["sqrt"](sq.sum(axis=axis, keepdims=keepdims))


def __getattr__(name):
    value = getattr(_np.linalg, name)
    wrapped = _fallback.wrap_value(value, f"linalg.{name}")
    globals()[name] = wrapped
    return wrapped
