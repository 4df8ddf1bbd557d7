"""Running what hassium does not implement with NumPy: convert, compute, wrap back.

Every fallback converts hassium arrays to NumPy arrays (``__array__``: a flush, then a view of
the same memory, no copy), calls the NumPy function, and wraps array results back into hassium
arrays. The first fallback of each function name emits one ``FallbackWarning`` (silenced by the
config key ``[python] fallback_warnings = false`` or ``HASSIUM_PYTHON_FALLBACK_WARNINGS=0``).
Errors are NumPy's own, raised unchanged, and do not warn.

A NumPy result that shares memory with an input is copied before it is wrapped: hassium tracks
dependencies per base, so two bases over one piece of memory would hide writes from each other.
Such results are therefore copies, where NumPy would return views.
"""

import functools
import types
import warnings

import numpy as _np

from . import _hassium
from ._masked import MaskedSelection


class FallbackWarning(UserWarning):
    """A NumPy function ran through NumPy because hassium does not implement it."""


_warned = set()
enabled = [True]  # set from the configuration by hassium/__init__.py
counts = {}  # fallbacks per function name, this process ([python] fallback_report writes them)


def warn_once(name):
    if name in _warned or not enabled[0]:
        return
    _warned.add(name)
    warnings.warn(
        f"hassium does not implement numpy.{name}; running it with NumPy "
        f"(the arrays are converted, which flushes pending work)",
        FallbackWarning,
        stacklevel=4,
    )


def to_numpy(x, seen, sources=None):
    """x with every hassium array replaced by a NumPy view of its memory (recursively); the
    views go to `seen`, the hassium arrays to `sources`. A lazy selection x[mask] is its
    compressed array."""
    if type(x) is MaskedSelection:
        x = x._get()
    if isinstance(x, _hassium.ndarray):
        arr = x._numpy()
        seen.append(arr)
        if sources is not None:
            sources.append(x)
        return arr
    if type(x) in (list, tuple):
        return type(x)(to_numpy(v, seen, sources) for v in x)
    if type(x) is dict:
        return {k: to_numpy(v, seen, sources) for k, v in x.items()}
    return x


def from_numpy(x, inputs):
    """x with NumPy arrays of dtypes hassium holds wrapped as hassium arrays (recursively)."""
    if type(x) is _np.ndarray:
        copy = any(_np.may_share_memory(x, i) for i in inputs)
        wrapped = _hassium.from_numpy(x, copy)
        return x if wrapped is None else wrapped
    if type(x) in (list, tuple):
        return type(x)(from_numpy(v, inputs) for v in x)
    return x


def _outs(kwargs):
    out = kwargs.get("out")
    if out is None:
        return None
    return out


def run(fn, name, args, kwargs, warn=True):
    """fn(*args, **kwargs) on NumPy conversions of the arguments; results wrapped back."""
    counts[name] = counts.get(name, 0) + 1
    seen, sources = [], []
    nargs = to_numpy(args, seen, sources)
    nkwargs = to_numpy(kwargs, seen, sources)
    try:
        result = fn(*nargs, **nkwargs)
    finally:
        # NumPy may have written any of them (out=, np.add.at, np.put, ...): a write, for what
        # checks that an array is unchanged (lazy selections compressing from the array itself).
        for a in sources:
            _hassium._note_written(a)
    if warn:
        warn_once(name)
    out = _outs(kwargs)
    if out is not None:
        # NumPy wrote into the views of the hassium outputs: hand back the hassium objects.
        if isinstance(out, tuple):
            return out[0] if len(out) == 1 else out
        return out
    return from_numpy(result, seen)


def held(dt):
    """Whether hassium holds arrays of this NumPy dtype (not float16, longdouble, object ...)."""
    return dt.kind in "biufc" and dt.char not in "egG"


def numpy_for_unheld(fn, name):
    """fn, except that a call with a NumPy array or scalar of a dtype hassium does not hold among
    its arguments (np.roll(float16_array, 1)) runs NumPy's function of that name instead."""
    return _hassium.numpy_guard(fn, wrap_function(getattr(_np, name), name))


def hook(name, method, args, kwargs):
    """The C++ side's fallback: (numpy function name, "__call__" | ufunc method | "method")."""
    if method == "__call__":
        return run(getattr(_np, name), name, args, kwargs)
    if method == "method":
        arr, margs = args[0], args[1]
        if not isinstance(margs, tuple):
            margs = (margs,)
        seen, sources = [], []
        narr = to_numpy(arr, seen, sources)
        try:
            return run(getattr(narr, name), f"ndarray.{name}", margs, kwargs)
        finally:
            for a in sources:  # (a.sort() and other methods write the array itself)
                _hassium._note_written(a)
    return run(getattr(getattr(_np, name), method), f"{name}.{method}", args, kwargs)


# Names that do no array computing (configuration, introspection, types): passed through.
PASS_THROUGH = {
    "seterr", "geterr", "errstate", "seterrcall", "geterrcall", "set_printoptions",
    "get_printoptions", "printoptions", "finfo", "iinfo", "dtype", "issubdtype", "isdtype",
    "can_cast", "promote_types", "format_float_positional", "format_float_scientific",
    "typename", "mintypecode", "show_config", "get_include", "info", "set_string_function",
    "isscalar", "ndim", "shape", "size", "iterable", "obj2sctype", "sctype2char",
}


def wrap_function(fn, qualname):
    """A hassium version of a NumPy function that runs it through NumPy."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return run(fn, qualname, args, kwargs)

    wrapper.__hassium_fallback__ = True
    return wrapper


class FallbackModule(types.ModuleType):
    """A NumPy submodule (numpy.fft, numpy.linalg, ...) whose functions run through NumPy."""

    def __init__(self, name, numpy_module):
        super().__init__(name, numpy_module.__doc__)
        self.__numpy_module = numpy_module

    def __getattr__(self, attr):
        value = getattr(self.__numpy_module, attr)
        wrapped = wrap_value(value, f"{self.__numpy_module.__name__.removeprefix('numpy.')}.{attr}")
        setattr(self, attr, wrapped)
        return wrapped

    def __dir__(self):
        return dir(self.__numpy_module)


def wrap_value(value, qualname):
    """What hassium offers for a NumPy attribute it does not implement itself."""
    short = qualname.rsplit(".", 1)[-1]
    if isinstance(value, types.ModuleType) and value.__name__.startswith("numpy"):
        return FallbackModule("hassium." + value.__name__.removeprefix("numpy."), value)
    if short in ("r_", "c_"):  # AxisConcatenator instances: arrays by index syntax
        return FallbackIndexer(value, short)
    if isinstance(value, type) or short in PASS_THROUGH or not callable(value):
        return value
    if isinstance(value, _np.ufunc):
        return FallbackUfunc(value)
    return wrap_function(value, qualname)


class FallbackIndexer:
    """numpy.r_ / numpy.c_ (concatenation by index syntax), run through NumPy like a function: the
    key's hassium arrays converted, the result a hassium array, one FallbackWarning per name.
    (They were NumPy's objects passed through, returning NumPy arrays without a word.)"""

    def __init__(self, obj, name):
        self._obj, self._name = obj, name

    def __getitem__(self, key):
        return run(self._obj.__getitem__, self._name, (key,), {})

    def __len__(self):
        return len(self._obj)

    def __repr__(self):
        return f"<hassium fallback of numpy.{self._name}>"


class FallbackUfunc:
    """A NumPy ufunc hassium does not record (logaddexp, gcd, ...), run through NumPy."""

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__
        self.nin, self.nout, self.nargs = uf.nin, uf.nout, uf.nargs
        self.identity, self.signature = uf.identity, uf.signature

    def __call__(self, *args, **kwargs):
        return run(self._uf, self.__name__, args, kwargs)

    @property
    def __signature__(self):
        return __import__("inspect").signature(self._uf)

    def __getattr__(self, method):
        if method.startswith("__"):
            raise AttributeError(method)
        fn = getattr(self._uf, method)
        return lambda *args, **kwargs: run(fn, f"{self.__name__}.{method}", args, kwargs)

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"
