"""hassium: NumPy, recorded as array bytecode, fused and JIT-compiled at run time.

    import hassium as np          # or: python -m hassium script.py

Arrays are lazy: operations record instructions; the data is computed when it is needed
(printing, float(), bool(), np.asarray, iteration, tolist) or at hassium.flush(), or when more
than [python] flush_threshold instructions are pending. NumPy's semantics hold: dtype promotion
(NumPy's own loop choice, NEP 50 for Python scalars), broadcasting, views, in-place updates,
copies on overlapping assignment. What hassium does not implement runs through NumPy with a
one-time FallbackWarning per function ([python] fallback_warnings = false silences them).

Where hassium differs from NumPy, on purpose:
  - results NumPy returns as scalars are NumPy scalars where hassium computes them at once
    (a[i, j], small dot products: flushing the work that writes them, as NumPy would have
    computed them; [python] scalar_reads = lazy keeps element reads lazy), else (a.sum()) lazy
    0-d hassium arrays that print like NumPy scalars;
  - hassium.random draws from counter-based Philox streams: different numbers, reproducible;
  - .real/.imag of complex arrays, and NumPy functions that fall back and return views of their
    inputs, give copies;
  - a NumPy array from np.asarray(h) shares h's memory, but sees later hassium writes to h only
    after the next flush;
  - x[idx], x[idx] = v with a hassium integer array idx on the first axis are lazy: an index out
    of bounds is NumPy's IndexError raised at the flush that computes them (at the latest when
    the result is read), and a failing x[idx] = v may have written the elements before it;
  - x[mask] with a hassium boolean mask of x's shape is a lazy selection (hassium._masked): not
    a hassium.ndarray until something needs its length, so that `x[mask] += q` and
    `z[m] = z[m] ** 2 + c[m]` run as masked, fused updates (no nonzero, no flush).
"""

from . import _hassium  # first: it sets how NumPy's BLAS threads wait before NumPy loads

import numpy as _np  # noqa: E402
from ._hassium import flush, ndarray, profile, ufunc
from . import _array_api, _fallback, _masked, _methods  # noqa: F401  (they complete ndarray)
from ._array_api import __array_namespace_info__, from_dlpack
from ._fallback import FallbackWarning
from ._creation import (arange, array, asanyarray, asarray, ascontiguousarray, copy, empty,
                        empty_like, eye, full, full_like, identity, linspace, ones, ones_like, zeros,
                        zeros_like)
from ._functions import (all, amax, amin, any, argmax, argmin, around, array_equal, atleast_1d,
                         atleast_2d, atleast_3d, broadcast_to, clip, column_stack, concatenate, conj,
                         count_nonzero, cumprod, cumsum, dot, expand_dims, flip, hstack, imag, inner,
                         isscalar, matmul, max, mean, min, moveaxis, ndim, outer, prod, ravel, real,
                         reshape, result_type, roll, round, row_stack, shape, size, squeeze, stack, std, sum,
                         swapaxes, transpose, tril, triu, var, vdot, vstack, where)
from ._histograms import bincount, histogram
from ._selection import argwhere, flatnonzero, nonzero
from ._sorting import argsort, searchsorted, sort, unique
from ._einsum import einsum
from ._composed import (broadcast_arrays, cov, diff, isin, logspace, meshgrid, mgrid, ogrid, pad,
                        put, put_along_axis, repeat, take, take_along_axis, tensordot, tile)
from . import linalg, random  # noqa: E402


def _guard_unheld_dtypes():
    """The namespace's Python-level functions, each behind a guard that runs NumPy's function of
    the name when an argument is a NumPy value of a dtype hassium does not hold (float16 ...)."""
    from . import _composed, _einsum, _functions, _histograms, _selection, _sorting

    g = globals()
    for module in (_functions, _histograms, _selection, _sorting, _einsum, _composed):
        for name, fn in vars(module).items():
            if g.get(name) is fn and type(fn) is type(_guard_unheld_dtypes) and hasattr(_np, name):
                g[name] = _fallback.numpy_for_unheld(fn, name)
    for name in ("empty_like", "zeros_like", "ones_like", "full_like"):
        g[name] = _fallback.numpy_for_unheld(g[name], name)


_guard_unheld_dtypes()

__version__ = "0.1.0"
__array_api_version__ = _np.__array_api_version__  # the standard's version NumPy's namespace is

# The ufuncs hassium records (hassium.add, hassium.sin, ...), and NumPy's aliases of them.
globals().update(_hassium.ufuncs)
_ALIASES = {
    "abs": "absolute", "conjugate": "conjugate", "mod": "remainder", "true_divide": "divide",
    "bitwise_not": "invert", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "pow": "power", "acos": "arccos", "asin": "arcsin",
    "atan": "arctan", "atan2": "arctan2", "acosh": "arccosh", "asinh": "arcsinh",
    "atanh": "arctanh",
}
globals().update({alias: _hassium.ufuncs[name] for alias, name in _ALIASES.items()})

# NumPy's constants and types are NumPy's own.
pi, e, inf, nan, newaxis, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.newaxis, _np.euler_gamma
dtype = _np.dtype


def _config_bool(text):
    return text.strip().lower() in ("1", "true", "yes", "on")


_hassium.set_flush_threshold(int(_hassium.config_value("python", "flush_threshold")))
_fallback.enabled[0] = _config_bool(_hassium.config_value("python", "fallback_warnings"))
_hassium._set_fallback(_fallback.hook)


def _at_exit():
    try:
        flush()
        # Queued device work (the GPU engine launches asynchronously) runs before the exit
        # handlers tear down the libraries that run it.
        _hassium._finish_queued_work()
    finally:
        _hassium._set_shutting_down()
        report = _hassium.config_value("python", "fallback_report")
        if report:
            import json

            with open(report, "w") as f:
                json.dump(_fallback.counts, f, indent=1, sort_keys=True)


import atexit as _atexit  # noqa: E402

_atexit.register(_at_exit)


def __getattr__(name):
    """NumPy names hassium does not define: types and constants as they are, functions and
    submodules as wrappers that run through NumPy (one FallbackWarning per name)."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        value = getattr(_np, name)
    except AttributeError:
        raise AttributeError(f"module 'hassium' has no attribute {name!r}") from None
    wrapped = _fallback.wrap_value(value, name)
    globals()[name] = wrapped
    return wrapped


def __dir__():
    return sorted(set(globals()) | set(dir(_np)))
