"""ndarray methods written in Python (reductions, statistics, iteration, NumPy protocols).

The hot paths (operators, indexing, shape methods, conversions) are C++ in _hassium; these are
attached to the same class, so ``hassium.ndarray`` is one type.
"""

import builtins
import operator

import numpy as _np

from . import _fallback, _hassium

ndarray = _hassium.ndarray
_uf = _hassium.ufuncs
_NoValue = _np._NoValue


def _method(fn):
    setattr(ndarray, fn.__name__, fn)
    return fn


def _reduce(name, a, axis, dtype, out, keepdims, initial=_NoValue, where=True):
    return _uf[name].reduce(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                            initial=initial, where=where)


@_method
def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _reduce("add", self, axis, dtype, out, keepdims, initial, where)


@_method
def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _reduce("multiply", self, axis, dtype, out, keepdims, initial, where)


@_method
def max(self, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _reduce("maximum", self, axis, None, out, keepdims, initial, where)


@_method
def min(self, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _reduce("minimum", self, axis, None, out, keepdims, initial, where)


@_method
def any(self, axis=None, out=None, keepdims=False, *, where=True):
    return _reduce("logical_or", self, axis, None, out, keepdims, where=where)


@_method
def all(self, axis=None, out=None, keepdims=False, *, where=True):
    return _reduce("logical_and", self, axis, None, out, keepdims, where=where)


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(a % ndim if -ndim <= a < ndim else a for a in axis)
    return (axis % ndim if -ndim <= axis < ndim else axis,)


def _count(self, axis):
    n = 1
    for a in _axes(axis, self.ndim):
        n *= self.shape[a]
    return n


@_method
def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if where is not True:
        return _fallback.hook("mean", "method", (self, ()), dict(axis=axis, dtype=dtype, out=out,
                                                               keepdims=keepdims, where=where))
    kind = self.dtype.kind
    acc = dtype if dtype is not None else ("float64" if kind in "biu" else None)
    s = _reduce("add", self, axis, acc, None, keepdims)
    n = _count(self, axis)
    if n == 0:
        import warnings
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    res = _uf["divide"](s, n)
    if dtype is not None and res.dtype != _np.dtype(dtype):
        res = res.astype(dtype)
    if out is not None:
        out[...] = res
        return out
    return _hassium.as_scalar(res) if res.ndim == 0 else res


@_method
def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
        correction=_NoValue):
    if where is not True or mean is not _NoValue:
        return _fallback.hook("var", "method", (self, ()), dict(
            axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where, mean=mean))
    if correction is not _NoValue:
        ddof = correction
    kind = self.dtype.kind
    acc = dtype if dtype is not None else ("float64" if kind in "biu" else None)
    m = self.mean(axis=axis, dtype=acc, keepdims=True)
    d = _uf["subtract"](self, m)
    if d.dtype.kind == "c":
        d2 = _uf["multiply"](d, _uf["conjugate"](d)).real
    else:
        d2 = _uf["multiply"](d, d)
    n = _count(self, axis)
    s = _reduce("add", d2, axis, None, None, keepdims)
    res = _uf["divide"](s, builtins.max(n - ddof, 0))
    if dtype is not None and res.dtype != _np.dtype(dtype):
        res = res.astype(dtype)
    if out is not None:
        out[...] = res
        return out
    return _hassium.as_scalar(res) if res.ndim == 0 else res


@_method
def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
        correction=_NoValue):
    v = self.var(axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where, mean=mean,
                 correction=correction)
    return _uf["sqrt"](v, out=out) if out is not None else _uf["sqrt"](v)


def _arg_extreme(self, axis, out, keepdims, name):
    reduce_name = "maximum" if name == "argmax" else "minimum"
    a = self
    if axis is None:
        a = self.ravel()
        ax = 0
    else:
        ax = operator.index(axis)
        if not -a.ndim <= ax < a.ndim:
            raise _np.exceptions.AxisError(ax, a.ndim)
        ax %= a.ndim
    if a.ndim == 0:
        a = a.reshape(1)
    n = a.shape[ax]
    if n == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    m = _reduce(reduce_name, a, ax, None, None, True)
    hit = _uf["equal"](a, m)
    if a.dtype.kind in "fc":
        hit = _uf["logical_or"](hit, _uf["isnan"](a))
    shape = [1] * a.ndim
    shape[ax] = n
    pos = _hassium.range(n).reshape(shape)
    cand = _hassium.where(hit, pos, n)
    res = _reduce("minimum", cand, ax, None, None, keepdims and axis is not None)
    if keepdims and axis is None:
        res = res.reshape((1,) * self.ndim)
    if out is not None:
        out[...] = res
        return out
    return _hassium.as_scalar(res) if res.ndim == 0 else res


@_method
def argmax(self, axis=None, out=None, *, keepdims=False):
    return _arg_extreme(self, axis, out, keepdims, "argmax")


@_method
def argmin(self, axis=None, out=None, *, keepdims=False):
    return _arg_extreme(self, axis, out, keepdims, "argmin")


@_method
def cumsum(self, axis=None, dtype=None, out=None):
    return _uf["add"].accumulate(self, axis=axis, dtype=dtype, out=out)


@_method
def cumprod(self, axis=None, dtype=None, out=None):
    return _uf["multiply"].accumulate(self, axis=axis, dtype=dtype, out=out)


@_method
def clip(self, min=None, max=None, out=None, **kwargs):
    from ._functions import clip

    return clip(self, min, max, out=out, **kwargs)


@_method
def round(self, decimals=0, out=None):
    from ._functions import round as _round

    return _round(self, decimals, out)


@_method
def conj(self):
    return _uf["conjugate"](self)


ndarray.conjugate = conj


def _real(self):
    if self.dtype.kind == "c":
        return _hassium._complex_part(self, False)
    return self


def _imag(self):
    if self.dtype.kind == "c":
        return _hassium._complex_part(self, True)
    return _hassium.full(self.shape, 0, self.dtype)


ndarray.real = property(_real, doc="The real part (a copy for complex arrays, unlike NumPy).")
ndarray.imag = property(_imag, doc="The imaginary part (a copy, unlike NumPy).")


@_method
def tolist(self):
    return self._numpy().tolist()


@_method
def __iter__(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    if self.ndim == 1:
        return iter(self._numpy().copy())
    return (self[i] for i in range(self.shape[0]))


@_method
def __contains__(self, value):
    return bool(_uf["equal"](self, value).any())


@_method
def __format__(self, spec):
    arr = self._numpy()
    if self.ndim == 0:
        return format(arr[()], spec)
    return format(arr, spec)


@_method
def __copy__(self):
    return self.copy()


@_method
def __deepcopy__(self, memo):
    return self.copy()


@_method
def __reduce__(self):
    from ._creation import array

    return (array, (self._numpy().copy(),))


@_method
def __imatmul__(self, other):
    from ._functions import matmul

    self[...] = matmul(self, other)
    return self


@_method
def dot(self, b, out=None):
    from ._functions import dot

    return dot(self, b) if out is None else dot(self, b, out=out)


def _array_ufunc_general(self, ufunc, method, *inputs, **kwargs):
    """ndarray.__array_ufunc__ where the C++ method (ufunc.cpp, install_array_ufunc) does not
    record the plain call itself: other methods, keywords, ufuncs hassium does not have."""
    if ufunc is _np.matmul and method == "__call__" and set(kwargs) <= {"out"}:
        # A NumPy operand on the left (`x @ A`, np.matmul(x, A)): hassium's product, as `A @ x`
        # records it (NumPy passes `out` as a tuple).
        from ._functions import matmul

        out = kwargs.get("out")
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        return matmul(*inputs) if out is None else matmul(*inputs, out=out)
    mine = _uf.get(ufunc.__name__)
    if mine is not None:
        if method == "__call__":
            return mine(*inputs, **kwargs)
        if method in ("reduce", "accumulate"):
            return getattr(mine, method)(*inputs, **kwargs)
    fn = ufunc if method == "__call__" else getattr(ufunc, method)
    return _fallback.run(fn, f"{ufunc.__name__}" + ("" if method == "__call__" else "." + method),
                         inputs, kwargs)


_hassium._install_array_ufunc(ndarray, _array_ufunc_general)


@_method
def __array_function__(self, func, types, args, kwargs):
    import hassium

    module = func.__module__ or "numpy"
    target = hassium
    for part in module.split(".")[1:]:
        target = getattr(target, part, None)
        if target is None:
            break
    impl = getattr(target, func.__name__, None) if target is not None else None
    if impl is not None and not getattr(impl, "__hassium_fallback__", False):
        return impl(*args, **kwargs)
    return _fallback.run(func, func.__name__, args, kwargs)


class _Flat:
    """a.flat: indexing the array as if it were 1-D."""

    def __init__(self, a):
        self._a = a

    def __getitem__(self, key):
        return self._a.ravel()[key]

    def __setitem__(self, key, value):
        flat = self._a.ravel()
        if _hassium.same_base(flat, self._a):
            flat[key] = value
        else:
            arr = self._a._numpy()
            arr.flat[key] = _np.asarray(value)

    def __iter__(self):
        return iter(self._a.ravel()._numpy().copy())

    def __len__(self):
        return self._a.size

    def __array__(self, dtype=None, copy=None):
        return self._a.ravel().__array__(dtype)


ndarray.flat = property(lambda self: _Flat(self), doc="A 1-D indexer over the array.")


for _name in ("view", "partition",
              "argpartition", "diagonal", "trace", "compress", "choose", "ptp", "tobytes",
              "tofile", "dump", "dumps", "byteswap", "setflags", "getfield", "setfield",
              "resize"):
    def _make(name):
        def method(self, *args, **kwargs):
            return _fallback.hook(name, "method", (self, args), kwargs)

        method.__name__ = name
        return method

    setattr(ndarray, _name, _make(_name))

ndarray.flags = property(lambda self: self._numpy().flags)
ndarray.base = property(lambda self: None, doc="Always None: hassium does not expose owners.")
ndarray.__array_priority__ = 100.0
