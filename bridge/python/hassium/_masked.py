"""x[mask] before anyone needs its length: boolean-mask selections that stay lazy.

NumPy's `x[mask]` compresses the selected elements into a new array, whose length (the number of
True elements) is data; `x[mask] += q` and `z[m] = z[m] ** 2 + c[m]` compress, compute and
scatter back. For a hassium boolean `mask` of x's shape, `x[mask]` is a MaskedSelection instead:
a full-shape copy of x (`full`) and the mask, with nothing read or flushed. Arithmetic with
scalars and with selections under the same mask stays full-shape and lazy (the unselected
elements are computed and never used), and `y[mask] = selection` (the same mask, unchanged
since: the runtime counts writes to its base) becomes one masked assignment, `y = where(mask,
full, y)`, which fuses with the rest. So these idioms run without `nonzero`, without a flush and
without a host round trip.

Anything else (its shape, len, printing, methods, NumPy functions, another mask) materializes
the selection once: the compress NumPy does, through the indexing path (`_take_mask`), and from
then on the selection answers as that array. Operations that may fail or warn element by element
on values NumPy never computes (integer `//`, `%`, `**`, `/`) materialize first.
"""
import numbers

import numpy as _np

from . import _hassium

_ndarray = _hassium.ndarray
_SCALARS = (numbers.Number, _np.generic)
_FLOATING = "fc"  # dtype kinds whose element-wise errors are values (inf, nan), not failures


def _is_scalar(x):
    return isinstance(x, _SCALARS) or (isinstance(x, (_ndarray, _np.ndarray)) and x.ndim == 0)


class MaskedSelection:
    """x[mask] for a hassium boolean mask of x's shape, lazily (see the module's text)."""

    __slots__ = ("_full", "_mask", "_source", "_generation", "_x", "_x_generation", "_value")

    def __init__(self, full, mask, source, generation, x=None, x_generation=0):
        self._full = full  # a private full-shape array: x's values (then updated in place)
        self._mask = mask  # a private copy of the mask
        self._source = source  # the mask array the user indexed with
        self._generation = generation  # writes recorded to its base at that time
        self._x = x  # x itself, while `full` is its untouched copy
        self._x_generation = x_generation
        self._value = None  # the compressed array, once materialized

    # -- what setitem and the other selections ask --------------------------------------------

    def _lazy(self):
        return self._value is None

    def _same_mask(self, other):
        return (other._source is self._source and other._generation == self._generation
                and other._full.shape == self._full.shape)

    def _get(self):
        """The compressed array (NumPy's x[mask]), computed once."""
        if self._value is None:
            x = self._x
            if (x is not None and _hassium._generation(x) == self._x_generation
                    and _hassium._generation(self._source) == self._generation):
                # x and the mask as they were: compress them, not the copies (which go first, so
                # that their copying, FREEd in the same flush, is dead)
                self._full = self._mask = None
                self._value = _hassium._take_mask(x, self._source)
            else:
                self._value = _hassium._take_mask(self._full, self._mask)
            self._full = self._x = None
        return self._value

    # -- arithmetic that stays lazy --------------------------------------------------------------

    def _combine(self, op, other, reflected=False, floating_only=False):
        if self._value is None and (not floating_only or self._full.dtype.kind in _FLOATING):
            if _is_scalar(other):
                full = op(other, self._full) if reflected else op(self._full, other)
                return MaskedSelection(full, self._mask, self._source, self._generation)
            if (type(other) is MaskedSelection and other._value is None
                    and self._same_mask(other)
                    and (not floating_only or other._full.dtype.kind in _FLOATING)):
                full = op(other._full, self._full) if reflected else op(self._full, other._full)
                return MaskedSelection(full, self._mask, self._source, self._generation)
        o = other._get() if type(other) is MaskedSelection else other
        return op(o, self._get()) if reflected else op(self._get(), o)

    def _inplace(self, op, other, floating_only=False):
        if self._value is None and (not floating_only or self._full.dtype.kind in _FLOATING):
            if _is_scalar(other):
                self._full = op(self._full, other)
                self._x = None  # full is no longer x's copy
                return self
            if (type(other) is MaskedSelection and other._value is None
                    and self._same_mask(other)):
                self._full = op(self._full, other._full)
                self._x = None
                return self
        o = other._get() if type(other) is MaskedSelection else other
        self._value = op(self._get(), o)  # in place: the same array
        return self

    def _unary(self, op):
        if self._value is None:
            return MaskedSelection(op(self._full), self._mask, self._source, self._generation)
        return op(self._value)

    # -- reductions that stay lazy: over the full shape, the unselected elements as zeros ---------

    def _zeroed(self):
        zero = False if self._full.dtype.kind == "b" else 0
        return _hassium.where(self._mask, self._full, zero)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=_np._NoValue,
            where=True):
        if (self._value is None and axis in (None, 0, -1) and out is None and not keepdims
                and initial is _np._NoValue and where is True):
            return self._zeroed().sum(dtype=dtype)
        return self._get().sum(axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                               initial=initial, where=where)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
        """NumPy's mean of the selected elements (nan for none: NumPy also warns "Mean of empty
        slice", which a lazy count cannot know to do)."""
        if (self._value is None and axis in (None, 0, -1) and dtype is None and out is None
                and not keepdims and where is True):
            kind = self._full.dtype.kind
            s = self._zeroed().sum(dtype="float64" if kind in "biu" else None)
            n = self._mask.sum().astype(s.dtype)
            res = _hassium.ufuncs["divide"](s, n)
            return _hassium.as_scalar(res)
        return self._get().mean(axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)

    # -- everything else: the materialized array --------------------------------------------------

    def __getattr__(self, name):
        return getattr(self._get(), name)

    def __array__(self, dtype=None, copy=None):
        a = _np.asarray(self._get())
        return a if dtype is None else a.astype(dtype, copy=False)

    def __len__(self):
        return len(self._get())

    def __iter__(self):
        return iter(self._get())

    def __getitem__(self, key):
        return self._get()[key]

    def __setitem__(self, key, value):
        self._get()[key] = value

    def __repr__(self):
        return repr(self._get())

    def __str__(self):
        return str(self._get())

    def __format__(self, spec):
        return format(self._get(), spec)

    def __bool__(self):
        return bool(self._get())

    def __int__(self):
        return int(self._get())

    def __float__(self):
        return float(self._get())

    def __complex__(self):
        return complex(self._get())

    def __index__(self):
        return self._get().__index__()

    def __matmul__(self, other):
        o = other._get() if type(other) is MaskedSelection else other
        return self._get() @ o

    def __rmatmul__(self, other):
        return other @ self._get()


def _define(name, floating_only=False):
    op = getattr(_op, name + ("_" if name in ("and", "or") else ""))
    iop = getattr(_op, "i" + name)  # NumPy's in-place casting rules (same_kind)
    setattr(MaskedSelection, f"__{name}__",
            lambda self, other: self._combine(op, other, False, floating_only))
    setattr(MaskedSelection, f"__r{name}__",
            lambda self, other: self._combine(op, other, True, floating_only))
    setattr(MaskedSelection, f"__i{name}__",
            lambda self, other: self._inplace(iop, other, floating_only))


import operator as _op  # noqa: E402

for _name in ("add", "sub", "mul", "and", "or", "xor", "lshift", "rshift"):
    _define(_name)
for _name in ("truediv", "pow"):
    _define(_name, floating_only=True)
for _name, _f in (("floordiv", _op.floordiv), ("mod", _op.mod)):  # always materialized
    setattr(MaskedSelection, f"__{_name}__",
            lambda self, other, f=_f: f(self._get(), other._get() if type(other) is
                                        MaskedSelection else other))
    setattr(MaskedSelection, f"__r{_name}__",
            lambda self, other, f=_f: f(other, self._get()))
for _name, _f in (("eq", _op.eq), ("ne", _op.ne), ("lt", _op.lt), ("le", _op.le),
                  ("gt", _op.gt), ("ge", _op.ge)):
    setattr(MaskedSelection, f"__{_name}__",
            lambda self, other, f=_f: self._combine(f, other))
for _name, _f in (("neg", _op.neg), ("pos", _op.pos), ("abs", abs), ("invert", _op.invert)):
    setattr(MaskedSelection, f"__{_name}__", lambda self, f=_f: self._unary(f))
MaskedSelection.__hash__ = None

_hassium._set_masked_type(MaskedSelection)
