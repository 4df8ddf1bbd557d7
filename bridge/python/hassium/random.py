"""hassium.random: NumPy's random API on counter-based Philox streams (the RANDOM opcode).

The numbers DIFFER from NumPy's (NumPy uses MT19937 for the legacy functions and PCG64 for
default_rng). They are reproducible instead: a seed gives the same stream on every machine and
every engine, because element i of a draw is Philox(seed, counter + i) and each draw advances the
stream's counter by the number of elements drawn. Everything is lazy like any other operation.

Implemented here: seed, random/random_sample/rand, randn/standard_normal, randint, uniform,
normal, exponential, and default_rng() returning a Generator with random, integers, uniform,
normal, standard_normal, exponential. Anything else runs through numpy.random (with its own
NumPy stream, seeded from this module's stream) and warns once.
"""

import math
import operator
import os

import numpy as _np

from . import _fallback, _hassium

_uf = _hassium.ufuncs
_TWO_PI = 2.0 * math.pi


def _seed_value(seed):
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(seed, (_np.random.SeedSequence,)):
        return int(seed.generate_state(1, _np.uint64)[0])
    seed = operator.index(seed)
    if seed < 0:
        raise ValueError("Seed must be non-negative")
    return seed & 0xFFFFFFFFFFFFFFFF


def _shape(size):
    if size is None:
        return ()
    try:
        return (operator.index(size),)
    except TypeError:
        return tuple(operator.index(s) for s in size)


def _result(arr, size):
    """A draw of size None is a scalar (lazy, printed as NumPy prints scalars)."""
    return _hassium.as_scalar(arr) if size is None else arr


def _broadcast_size(size, *params):
    if size is not None:
        return _shape(size)
    shapes = [_np.shape(p) if not isinstance(p, _hassium.ndarray) else p.shape for p in params]
    return _np.broadcast_shapes(*shapes) if shapes else ()


class Generator:
    """A random stream: (seed, counter) for Philox; draws advance the counter."""

    def __init__(self, seed=None):
        self._seed = _seed_value(seed)
        self._counter = 0
        self._numpy_rng = None

    def __repr__(self):
        return f"Generator(Philox, seed={self._seed})"

    def _bits(self, shape):
        n = 1
        for e in shape:
            n *= e
        bits = _hassium.random_bits(shape, self._seed, self._counter)
        self._counter += n
        return bits

    def _unit(self, shape, dtype="float64", open_low=False):
        """Uniform floats in [0, 1) (or (0, 1] with open_low) from the top bits."""
        bits = self._bits(shape)
        if _np.dtype(dtype) == _np.float32:
            top = _uf["right_shift"](bits, 40)
            if open_low:
                top = _uf["add"](top, 1)
            return _uf["multiply"](top.astype("float32"), _np.float32(2.0 ** -24))
        top = _uf["right_shift"](bits, 11)
        if open_low:
            top = _uf["add"](top, 1)
        return _uf["multiply"](top.astype("float64"), 2.0 ** -53)

    def random(self, size=None, dtype=_np.float64, out=None):
        if _np.dtype(dtype) not in (_np.float32, _np.float64):
            raise TypeError(f"Unsupported dtype {_np.dtype(dtype)!r} for random")
        shape = out.shape if out is not None else _shape(size)
        res = self._unit(shape, dtype)
        if out is not None:
            out[...] = res
            return out
        return _result(res, size)

    def standard_normal(self, size=None, dtype=_np.float64, out=None):
        shape = out.shape if out is not None else _shape(size)
        u1 = self._unit(shape, dtype, open_low=True)
        u2 = self._unit(shape, dtype)
        r = _uf["sqrt"](_uf["multiply"](_uf["log"](u1), -2.0))
        res = _uf["multiply"](r, _uf["cos"](_uf["multiply"](u2, _TWO_PI)))
        if out is not None:
            out[...] = res
            return out
        return _result(res, size)

    def normal(self, loc=0.0, scale=1.0, size=None):
        shape = _broadcast_size(size, loc, scale)
        z = self.standard_normal(shape)
        return _result(_uf["add"](_uf["multiply"](z, scale), loc), size if size is not None or shape else None)

    def uniform(self, low=0.0, high=1.0, size=None):
        shape = _broadcast_size(size, low, high)
        u = self._unit(shape)
        span = _uf["subtract"](high, low)
        return _result(_uf["add"](_uf["multiply"](u, span), low), size if size is not None or shape else None)

    def exponential(self, scale=1.0, size=None):
        shape = _broadcast_size(size, scale)
        u = self._unit(shape, open_low=True)
        return _result(_uf["multiply"](_uf["negative"](_uf["log"](u)), scale),
                       size if size is not None or shape else None)

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        low, high = operator.index(low), operator.index(high)
        if endpoint:
            high += 1
        if low >= high:
            raise ValueError("low >= high" if not endpoint else "low > high")
        dtype = _np.dtype(dtype)
        info = _np.iinfo(dtype) if dtype.kind in "iu" else None
        if info is not None and (low < info.min or high - 1 > info.max):
            raise ValueError(f"high is out of bounds for {dtype}" if high - 1 > info.max
                             else f"low is out of bounds for {dtype}")
        shape = _shape(size)
        bits = self._bits(shape)
        r = _uf["remainder"](bits, high - low)
        if low >= 0:
            res = _uf["add"](r, low).astype(dtype)
        else:
            res = _uf["add"](r.astype("int64"), low).astype(dtype)
        return _result(res, size)

    def _numpy(self):
        if self._numpy_rng is None:
            self._numpy_rng = _np.random.default_rng([self._seed, self._counter])
        return self._numpy_rng

    def __getattr__(self, name):
        fn = getattr(_np.random.Generator, name)
        if not callable(fn):
            raise AttributeError(name)
        bound = getattr(self._numpy(), name)
        return _fallback.wrap_function(bound, f"random.Generator.{name}")


def default_rng(seed=None):
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


_global = Generator()


def seed(seed=None):
    global _global
    if seed is not None:
        seed = operator.index(seed)
        if not 0 <= seed < 2 ** 32:
            raise ValueError("Seed must be between 0 and 2**32 - 1")
    _global = Generator(seed)
    _np.random.seed(None if seed is None else seed)  # for the functions that fall back


def random(size=None):
    return _global.random(size)


random_sample = ranf = sample = random


def rand(*shape):
    return _global.random(shape if shape else None)


def randn(*shape):
    return _global.standard_normal(shape if shape else None)


def standard_normal(size=None):
    return _global.standard_normal(size)


def normal(loc=0.0, scale=1.0, size=None):
    return _global.normal(loc, scale, size)


def uniform(low=0.0, high=1.0, size=None):
    return _global.uniform(low, high, size)


def exponential(scale=1.0, size=None):
    return _global.exponential(scale, size)


def randint(low, high=None, size=None, dtype=int):
    return _global.integers(low, high, size, dtype)


def __getattr__(name):
    value = getattr(_np.random, name)
    wrapped = _fallback.wrap_value(value, f"random.{name}")
    globals()[name] = wrapped
    return wrapped
