"""Random NumPy programs for differential testing: one generator for the pytest test
(test_programs.py, 300 programs per CI run) and the scale script (difftest.py, 10^4 programs per
partition algorithm).

A program is drawn by hypothesis as abstract choices: an input shape (mostly (4, 6); some long
enough for the engine's vector loops, threads and split reductions), three input arrays (a
dtype, a constructor and 24 value choices each) and a list of operations, each a kind and a
tuple of integer "knobs". `resolve()` turns them into straight-line Python source by running the
program with NumPy one statement at a time: the knobs pick operands among the arrays made so far
(by their NumPy shapes and dtypes), views (slices with negative steps, broadcasting,
transposes), ufuncs, axes, index arrays and masks; a knob of 0 is always the simplest choice, so
hypothesis's shrinking (towards 0) simplifies the program. The source is the single truth:
`run()` executes it with NumPy and with hassium, `compare_value()` checks every array, and a
failing program prints as a runnable script (`script()`).

What the programs cover: every dtype the two share (bool, int8..int64, uint8..uint64, float32,
float64, complex64, complex128); inputs with NaN, +-inf, -0.0, the largest finite and the
smallest subnormal floats, and each integer type's min, max, 0, -1 (wrapped for unsigned), made
by np.array, arange, full and from NumPy memory (np.asarray); element-wise ufuncs and operators
with arrays, views, NumPy scalars and Python scalars (NEP 50); integer overflow (wraps, as in
NumPy), integer division and remainder by zero and MIN // -1 (NumPy's defined results); shifts
by negative or too large counts; in-place updates through views, overlapping ones included, and
views kept as arrays of their own; slicing with negative steps; boolean masks (get and set);
gathers and scatters with integer index arrays of several dtypes; reductions and scans over every
axis; where; clip; casts; reshape/ravel; matmul and dot; concatenate/stack; ufunc.at of add,
subtract, multiply, minimum, maximum at repeated positions; diff, tile, repeat, take, pad (every
mode hassium records), isin; sort, stable argsort, searchsorted, unique; einsum; bincount, nonzero, flatnonzero,
count_nonzero, tensordot, take_along_axis, put_along_axis, histogram, roll, meshgrid, linspace,
logspace, triu, tril, np.ndarray(shape, dtype), put; Python scalars read
back (item, float, int, bool, complex) and used as operands; flushes in between. A statement
NumPy rejects (TypeError, OverflowError, ...) stays in the program as a check that hassium
raises the same builtin exception type.

Exactness. Every array kept for later operations is computed exactly: integer and bool
operations, and the float operations IEEE 754 rounds correctly (+ - * /, sqrt, min/max,
comparisons, casts, rounding to integers ...). hassium must give these bit for bit (NaN where
NumPy has NaN). Results that are only accurate to rounding (transcendental functions, float
pow, complex abs/sqrt and products (NumPy's loops fuse their multiply-adds), float sums,
products, means, scans and matmul, whose order of summation differs: NumPy sums pairwise) are
compared with a tolerance scaled to the magnitudes involved and are never used as operands: a comparison or a cast of a value one ulp off could
flip and make every later value differ, which is no bug.

Not generated, because NumPy's result is not well defined: float -> integer casts of NaN, inf
or out-of-range values (casts go through clip/where first), integer reciprocal of 0, integers
to negative powers (an error NumPy raises eagerly and hassium at the flush, a documented
difference), scatters with repeated indices (NumPy does not promise which write wins), NaN and
inf in matmul operands (NumPy's BLAS skips zero entries, so there NaN * 0 is 0). Adjusted
for deliberate differences and NumPy's own bugs: a reshape/ravel of an array whose memory order
differs (NumPy keeps an input's order, hassium's arrays are C-ordered: whether the result is a
view differs) is copied (Resolver.c_layout); a write whose NumPy result is not the as-if-copied
one (NumPy 2.x: some overlapping negative-stride assignments, numpy/numpy#26844) copies its
operands for NumPy only (Resolver.emit_write).
"""

import math
import warnings

import numpy
from hypothesis import strategies as st

# float64 first: what hypothesis shrinks towards.
DTYPES = ["float64", "int64", "bool", "int8", "int16", "int32", "uint8", "uint16", "uint32",
          "uint64", "float32", "complex128", "complex64"]
N_KNOBS = 12
MAX_ELEMENTS = 1 << 19  # a result larger than this is dropped from the program
KNOB = 1 << 16

# Per result kind: relative tolerance of results that are only accurate to rounding.
RTOL = {"e": 1e-3, "f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}


def _rtol(dtype):
    return RTOL.get(numpy.dtype(dtype).char, 1e-12)


# --- element values ----------------------------------------------------------------------------

def _int_specials(dt):
    info = numpy.iinfo(dt)
    vals = [0, 1, -1, info.min, info.max, 2, info.min + 1, info.max - 1, 3, -7, 100, -100,
            info.max // 2, info.max // 2 + 1, 64, 7]
    return [v % (info.max + 1) if info.min == 0 else v for v in vals if info.min <= v <= info.max
            or info.min == 0]


def _float_specials(dt):
    fi = numpy.finfo(dt)
    return [0.0, 1.0, -1.0, 0.5, -0.0, math.nan, math.inf, -math.inf, 2.0, -2.5, 3.0,
            float(fi.max), -float(fi.max), float(fi.tiny), float(fi.smallest_subnormal), 1e10,
            0.1, -3.75, 1.5, 2.5, -0.5]


def element(dtype, k):
    """The element a value knob k (0 <= k < 2**16) stands for; k = 0 gives 0. A quarter of the
    knobs give the dtype's special values."""
    dt = numpy.dtype(dtype)
    if dt.kind == "b":
        return bool(k & 1)
    c, r = k & 3, k >> 2
    if dt.kind in "iu":
        info = numpy.iinfo(dt)
        if c == 0:
            sp = _int_specials(dt)
            return sp[r % len(sp)]
        if c == 1:
            return r % 41 - 20 if info.min < 0 else r % 41
        return info.min + (k * 0x9E3779B97F4A7C15) % (info.max - info.min + 1)
    if dt.kind == "f":
        if c == 0:
            sp = _float_specials(dt)
            return sp[r % len(sp)]
        if c == 3:
            return (r % 8193 - 4096) * 0.25
        return (r % 97 - 48) / 8.0
    half = numpy.dtype("float64" if dt == numpy.complex128 else "float32")
    return complex(element(half, k & 0xFF), element(half, k >> 8))


def literal(x):
    """Python source of a scalar (bool, int, float with nan/inf, complex)."""
    if isinstance(x, (bool, numpy.bool_)):
        return repr(bool(x))
    if isinstance(x, (int, numpy.integer)):
        return repr(int(x))
    if isinstance(x, complex):
        return f"complex({literal(x.real)}, {literal(x.imag)})"
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def array_literal(values, shape):
    if len(shape) == 1:
        return "[" + ", ".join(literal(v) for v in values) + "]"
    n = len(values) // shape[0]
    return "[" + ", ".join(array_literal(values[i * n:(i + 1) * n], shape[1:])
                           for i in range(shape[0])) + "]"


# --- the hypothesis strategy -------------------------------------------------------------------

KINDS = ["binary", "unary", "update", "reduce", "where", "mask_set", "mask_get", "gather",
         "scatter", "cast", "view", "scan", "setitem", "clip", "reshape", "matmul", "join", "item",
         "flush", "accumulate_at", "compose", "library"]


def _words(n):
    """n knobs (16-bit) drawn as one block of bytes: far cheaper for hypothesis than n integer
    draws, and shrinking still moves them towards 0."""
    return st.binary(min_size=2 * n, max_size=2 * n).map(
        lambda b: tuple(int.from_bytes(b[i:i + 2], "little") for i in range(0, len(b), 2)))


_knobs = _words(N_KNOBS)
_input = st.tuples(st.sampled_from(DTYPES), st.integers(0, 7), _words(24))


# Input shapes: mostly small, some long enough for the engine's vector loops (64 int8 lanes),
# some large enough for several threads (2**15 elements: ve/cpu kParallelMin) and for a
# reduction axis cut into chunks.
SHAPES = [(4, 6)] * 10 + [(5, 67), (7, 9), (1, 130), (3, 1), (160, 210), (2, 70001)]


# [python] flush_threshold for the program: the default (None), or tiny ones, so that flushes
# cut programs at every point (and aligned repeats hit the merge cache).
THRESHOLDS = [None] * 6 + [1, 2, 3, 7]


def programs(max_ops=12):
    """Strategy of abstract programs: (shape, flush threshold, inputs, ops), for resolve(). The
    number of operations is drawn first (uniform up to max_ops; st.lists alone makes most
    programs short)."""
    op = st.tuples(st.sampled_from(KINDS), _knobs)
    ops = st.integers(1, max_ops).flatmap(
        lambda n: st.lists(op, min_size=n, max_size=n).map(tuple))
    shape = st.integers(0, len(SHAPES) - 1).map(lambda i: SHAPES[i])
    threshold = st.integers(0, len(THRESHOLDS) - 1).map(lambda i: THRESHOLDS[i])
    return st.tuples(shape, threshold, st.lists(_input, min_size=3, max_size=3).map(tuple), ops)


# --- resolving a drawn program into source, with NumPy ------------------------------------------

class Knobs:
    def __init__(self, values):
        self.values, self.i = values, 0

    def __call__(self, n):
        """A choice in range(n): the next knob modulo n (0 once the knobs are used up)."""
        if n <= 1 or self.i >= len(self.values):
            return 0
        self.i += 1
        return self.values[self.i - 1] % n


# Element-wise ufuncs by how they are checked.
UNARY_EXACT = ["negative", "absolute", "square", "positive", "sqrt", "sign", "floor", "ceil",
               "trunc", "rint", "isnan", "isinf", "isfinite", "logical_not", "invert", "fabs",
               "conjugate", "reciprocal", "signbit", "spacing"]
UNARY_INEXACT = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
                 "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2",
                 "log10", "log1p", "deg2rad", "rad2deg", "cbrt"]
BINARY_EXACT = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
                "maximum", "minimum", "power", "bitwise_and", "bitwise_or", "bitwise_xor",
                "left_shift", "right_shift", "logical_and", "logical_or", "logical_xor",
                "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                "copysign", "fmax", "fmin", "heaviside", "nextafter", "gcd", "lcm"]
BINARY_INEXACT = ["arctan2", "hypot", "float_power", "logaddexp", "logaddexp2"]
# Products of complex numbers are accurate to rounding only: NumPy's SIMD loops compute
# re = a*c - b*d with a fused multiply-add (one rounding less), so (0.1-0.125j)**2 has re
# -0.005624999999999999 in NumPy and -0.005624999999999998 by the formula, and either is right.
COMPLEX_PRODUCTS = ["multiply", "divide", "power", "square", "reciprocal"]
OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "floor_divide": "//",
             "remainder": "%", "power": "**", "bitwise_and": "&", "bitwise_or": "|",
             "bitwise_xor": "^", "left_shift": "<<", "right_shift": ">>", "equal": "==",
             "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
             "greater_equal": ">="}
INPLACE = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
           "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "maximum",
           "minimum"]
REDUCTIONS = ["sum", "max", "min", "prod", "any", "all", "mean", "argmax", "argmin"]

# Exceptions NumPy raises that the program keeps as checks (hassium must raise the same type).
EXPECTED_ERRORS = (TypeError, OverflowError, ValueError, IndexError)


def _kind(dtype):
    return numpy.dtype(dtype).kind


def _builtin_base(exc_type):
    for t in exc_type.__mro__:
        if t.__module__ == "builtins":
            return t
    return Exception


def _elementwise_tol(v):
    v = numpy.asarray(v)
    if v.dtype.kind not in "fc":
        return None
    return _rtol(v.dtype) * numpy.maximum(numpy.abs(v), 1.0)


def _complex_tol(v):
    return _elementwise_tol(v) if numpy.asarray(v).dtype.kind == "c" else None


class Slot:
    """An array of the program (a variable vN) as NumPy computed it."""

    def __init__(self, name, value, operand=True, tol=None):
        self.name, self.operand, self.tol = name, operand, tol
        self.shape = numpy.shape(value)
        self.dtype = numpy.asarray(value).dtype


class Resolver:
    def __init__(self):
        self.lines = []          # statements of the program body
        self.slots = []          # every vN, in order
        self.root_layout = {}    # id of a memory-owning NumPy array -> made in C order
        self.kept = []
        self.ns = {"np": numpy, "numpy": numpy, "nan": math.nan, "inf": math.inf,
                   "flush": lambda: None, "flush_threshold": lambda n: None,
                   "numpy_copy": copy_array}

    # -- running one statement with NumPy -----------------------------------------------------
    def emit(self, stmt, name=None, classify=None):
        """Runs stmt with NumPy and keeps it. name: the variable it makes; classify(value): None
        for an exact result (an operand from then on), else the absolute tolerance of each
        element (a result only compared). Returns True if it ran."""
        try:
            exec(compile(stmt, "<program>", "exec"), self.ns)
        except EXPECTED_ERRORS as e:
            base = _builtin_base(type(e))
            self.lines.append(f"try:\n    {stmt}\nexcept {base.__name__}:\n    pass\n"
                              f"else:\n    raise NoError({stmt!r})")
            return False
        except Exception:  # noqa: BLE001  (anything else: not a statement worth keeping)
            return False
        if name is not None and numpy.size(self.ns[name]) > MAX_ELEMENTS:
            del self.ns[name]  # (an outer product of long vectors: too big to be useful)
            return False
        self.lines.append(stmt)
        if name is not None:
            value = self.ns[name]
            tol = classify(value) if classify is not None else None
            slot = Slot(name, value, tol is None, tol)
            slot.c_layout = self.c_layout(value)
            self.slots.append(slot)
        return True

    def c_layout(self, value):
        """Whether hassium's array has NumPy's memory layout. hassium makes every new array in
        C order; NumPy gives a new result its inputs' order (order='K'), or another one (fancy
        indexing). So a view has the same strides in both exactly when the array it views was
        C-ordered in NumPy when it was made; and only then do both agree on whether a reshape
        or ravel of it is a view or a copy."""
        if not isinstance(value, numpy.ndarray):
            return True
        root = value
        while isinstance(root.base, numpy.ndarray):
            root = root.base
        if id(root) not in self.root_layout:
            self.root_layout[id(root)] = value.flags.c_contiguous and root.flags.c_contiguous
            self.kept.append(root)  # ids stay unique while the program is resolved
        return self.root_layout[id(root)]

    def _roots(self):
        """The arrays owning the memory of every array of the program."""
        roots = {}
        for v in self.ns.values():
            if isinstance(v, numpy.ndarray):
                while isinstance(v.base, numpy.ndarray):
                    v = v.base
                roots[id(v)] = v
        return list(roots.values())

    def _state(self):
        return [numpy.array(self.ns[s.name], copy=True) for s in self.slots]

    def emit_write(self, build):
        """A statement writing into an array, build(wrap) with wrap(expr) marking the operands
        that may share memory with the destination. NumPy promises results as if those were
        copied first, but NumPy 2.x breaks it in places: some overlapping assignments with
        negative strides (a[13:1:-1] = a[23:0:-2]) and a mask or index array that is a view of
        the array being written (numpy/numpy#26844: a[a[:, ::-1]] = v). When NumPy's result differs
        from the as-if-copied one, the statement copies those operands for NumPy only
        (numpy_copy: numpy.copy with NumPy, nothing with hassium), so hassium still meets the
        overlap and must give the as-if-copied result."""
        stmt = build(lambda e: e)
        fixed = build(lambda e: f"numpy_copy({e})")
        if stmt == fixed:
            self.emit(stmt)
            return
        roots = [r for r in self._roots() if r.flags.writeable]
        saved = [r.copy() for r in roots]

        def attempt(src):
            try:
                exec(compile(src, "<program>", "exec"), self.ns)
            except Exception:  # noqa: BLE001
                return None
            finally:
                state = self._state()
                for r, v in zip(roots, saved):
                    r[...] = v
            return state

        plain, copied = attempt(stmt), attempt(fixed)
        if plain is None or copied is None:
            self.emit(stmt)  # NumPy raises: kept as a check of the error
            return
        same = all(x.shape == y.shape and numpy.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
                   for x, y in zip(plain, copied))
        self.emit(stmt if same else fixed)

    def new_name(self):
        return f"v{len(self.slots)}"

    def value(self, slot):
        return self.ns[slot.name]

    # -- choosing operands ----------------------------------------------------------------------
    def pick(self, k, pred=lambda s: True):
        """An array usable as an operand: knob 0 picks the newest (chains of operations)."""
        cands = [s for s in self.slots if s.operand and 0 not in s.shape and pred(s)]
        if not cands:
            return None
        return cands[-1 - k(len(cands))]

    @staticmethod
    def axis_key(d, t, k):
        """A slice of an axis of length d with t elements (or 1, which broadcasts to t)."""
        if d == 1:
            return ":"
        if t > d or k(8) == 7:
            i = k(d)
            return f"{i}:{i + 1}" if k(2) == 0 else f"{i - d}:{i - d + 1 if i < d - 1 else ''}"
        steps = [s for s in (1, -1, 2, -2, 3, -3) if (t - 1) * abs(s) < d]
        s = steps[k(len(steps))]
        span = (t - 1) * abs(s) + 1
        off = k(d - span + 1)
        if span == d and abs(s) == 1:
            return ":" if s == 1 else "::-1"
        neg = k(2) == 1  # start and stop counted from the end
        if s > 0:
            start, stop = off, off + span
        else:
            start, stop = d - 1 - off, d - 1 - off - span  # stop < 0: up to the first element
        start_s = str(start - d if neg else start)
        stop_s = "" if stop < 0 or stop >= d else str(stop - d if neg else stop)
        return f"{start_s}:{stop_s}" + ("" if s == 1 else f":{s}")

    def fit(self, slot, target, k):
        """Source of a view of slot that broadcasts to shape target (ndim <= len(target))."""
        name, shape = slot.name, slot.shape
        if len(shape) == 0:
            return name
        if len(target) == 0:
            return f"{name}[{', '.join(str(k(d)) for d in shape)}]"
        if len(shape) > len(target):
            lead = [str(k(d)) for d in shape[:len(shape) - len(target)]]
            shape = shape[len(shape) - len(target):]
        else:
            lead = []
        if len(shape) == 2 and shape[0] != shape[1] and k(4) == 3 and not lead:
            # the transpose, when its axes fit as well
            tshape = shape[::-1]
            keys = [self.axis_key(d, t, k) for d, t in zip(tshape, target[-2:])]
            key = ", ".join(keys)
            return f"{name}.T" if all(x == ":" for x in keys) else f"{name}.T[{key}]"
        if len(shape) == 1 and len(target) == 2 and k(3) == 2:
            return f"{name}[{self.axis_key(shape[0], target[0], k)}, None]"
        tail = target[len(target) - len(shape):]
        keys = lead + [self.axis_key(d, t, k) for d, t in zip(shape, tail)]
        if all(x == ":" for x in keys):
            return name
        return f"{name}[{', '.join(keys)}]"

    def view_key(self, shape, k):
        """A basic index of an array of this shape (slices with steps, some integers): the key's
        source ("" for the whole array) and the view's shape. All-integer keys end in `...`,
        so the view is a 0-d array, not a NumPy scalar."""
        keys, out = [], []
        for d in shape:
            c = k(6)
            if c == 5:
                keys.append(str(k(2 * d) - d))
            elif c == 0:
                keys.append(":")
                out.append(d)
            else:
                key = self.axis_key(d, 1 + k(d), k)
                keys.append(key)
                out.append(len(range(d)[eval(f"numpy.s_[{key}]")]))
        if all(x == ":" for x in keys):
            return "", tuple(out)
        if not out:
            keys.append("...")
        return "[" + ", ".join(keys) + "]", tuple(out)

    def scalar(self, dtype, k):
        """A Python scalar literal of dtype's kind (weak in NEP 50)."""
        v = element(dtype, k(KNOB))
        if _kind(dtype) in "iu" and k(3) == 0:
            v = element("int64", k(KNOB))  # a Python int that may not fit dtype
        return literal(v)

    def cond(self, target, k, exact_shape=False):
        """Source of a bool array broadcasting to target (of shape target: exact_shape)."""
        c = self.cond_source(target, k)
        if exact_shape:
            try:
                shape = numpy.shape(eval(c, self.ns))
            except Exception:  # noqa: BLE001  (emit() keeps NumPy's error)
                return c
            if shape != tuple(target):
                c = f"np.broadcast_to({c}, {tuple(target)})"
        return c

    def cond_source(self, target, k):
        c = k(4)
        if c == 0:
            s = self.pick(k, lambda s: s.dtype == numpy.bool_)
            if s is not None:
                return self.fit(s, target, k)
        a = self.pick(k)
        if c == 1:
            if _kind(a.dtype) in "fc":
                return f"np.isnan({self.fit(a, target, k)})"
            if _kind(a.dtype) in "iu":
                return f"({self.fit(a, target, k)} % 3 == 1)"
            return self.fit(a, target, k)
        b = self.pick(k)
        op = ["<", ">", "<=", ">=", "==", "!="][k(6)]
        rhs = self.fit(b, target, k) if c == 2 else self.scalar(a.dtype, k)
        return f"({self.fit(a, target, k)} {op} {rhs})"

    def safe_cast_source(self, expr, src_dtype, dst_dtype):
        """expr, made castable to dst_dtype with a defined result (no NaN/inf/out of range
        float -> integer)."""
        if _kind(dst_dtype) not in "iu" or _kind(src_dtype) not in "fc":
            return expr
        info = numpy.iinfo(dst_dtype)
        lo, hi = info.min // 2, info.max // 2 + 1
        if _kind(src_dtype) == "c":
            expr = f"np.real({expr})"
        return f"np.clip(np.where(np.isfinite({expr}), {expr}, 0), {lo}, {hi})"

    # -- the operations -------------------------------------------------------------------------
    def op_binary(self, k):
        a, b = self.pick(k), self.pick(k)
        if a is None:
            return
        inexact = k(6) == 5
        f = (BINARY_INEXACT if inexact else BINARY_EXACT)[k(len(BINARY_INEXACT if inexact else
                                                             BINARY_EXACT))]
        target = a.shape
        ea = self.fit(a, target, k) if k(3) == 2 else a.name
        form = k(4)
        eb = self.scalar(a.dtype, k) if form == 3 else self.fit(b, target, k)
        if form == 2 and len(target) and k(2):
            eb = f"{self.fit(b, (), k)}"  # a NumPy scalar / 0-d array
        if k(2):
            ea, eb = eb, ea
        if f == "power" and self.kind_of(ea) in "biu" and self.kind_of(eb) in "biu":
            eb = f"({eb} % 5)"  # integers to negative powers: an error NumPy raises eagerly
        name = self.new_name()
        if f in OPERATORS and k(2):
            expr = f"{ea} {OPERATORS[f]} {eb}"
        else:
            expr = f"np.{f}({ea}, {eb})"
        if f in ("power", "float_power"):
            # pow() is accurate to rounding, relative to w * log(z): an error of an ulp in that
            # exponent is |w log z| ulps in z**w (complex64 results near 1e26: ~60 ulps)
            def tol(v, ea=ea, eb=eb):
                v = numpy.asarray(v)
                if v.dtype.kind not in "fc":
                    return None
                with numpy.errstate(all="ignore"):
                    z = numpy.asarray(eval(ea, self.ns)).astype("complex128")
                    w = numpy.asarray(eval(eb, self.ns)).astype("complex128")
                    cond = numpy.abs(w * numpy.log(z))
                cond = numpy.where(numpy.isfinite(cond), numpy.maximum(cond, 1.0), numpy.inf)
                return _rtol(v.dtype) * numpy.maximum(numpy.abs(v), 1.0) * cond
            self.emit(f"{name} = {expr}", name, tol)
            return
        self.emit_result(name, expr, inexact, f in COMPLEX_PRODUCTS)

    def kind_of(self, expr):
        """The dtype kind of an expression's NumPy value ('' if it does not evaluate)."""
        try:
            return numpy.asarray(eval(expr, self.ns)).dtype.kind
        except Exception:  # noqa: BLE001
            return ""

    def emit_result(self, name, expr, inexact, complex_product=False):
        """name = expr; a result only accurate to rounding (inexact and of a float or complex
        dtype; complex_product: when complex) is compared with a tolerance and never used as an
        operand."""
        if inexact:
            self.emit(f"{name} = {expr}", name, _elementwise_tol)
        elif complex_product:
            self.emit(f"{name} = {expr}", name, _complex_tol)
        else:
            self.emit(f"{name} = {expr}", name)

    def op_unary(self, k):
        a = self.pick(k)
        if a is None:
            return
        inexact = k(3) == 2
        fs = UNARY_INEXACT if inexact else UNARY_EXACT
        f = fs[k(len(fs))]
        if f == "reciprocal" and _kind(a.dtype) in "biu":
            f = "negative"  # 1 // 0 has no defined integer result
        if f in ("sqrt", "absolute", "reciprocal", "square", "sign") and _kind(a.dtype) == "c":
            inexact = True  # complex sqrt, abs (hypot), 1/z, z*z: accurate to rounding only
        expr = f"np.{f}({self.fit(a, a.shape, k) if k(3) == 2 else a.name})"
        if f in ("negative", "invert", "absolute") and k(2):
            expr = {"negative": "-", "invert": "~", "absolute": "abs"}[f] + \
                (f"({a.name})" if f == "absolute" else a.name)
        self.emit_result(self.new_name(), expr, inexact)

    def op_update(self, k):
        """In-place: dst[key] = src, dst[key] op= src, np.f(x, y, out=dst[key]); src may be dst
        itself (overlapping)."""
        dst = self.pick(k, lambda s: len(s.shape) > 0)
        if dst is None:
            return
        key, vshape = self.view_key(dst.shape, k)
        key = key or "[...]"  # `v = x` would only rebind v
        src = dst if k(3) == 0 else self.pick(k)
        esrc = self.fit(src, vshape, k)
        form = k(3)
        if form == 0:
            esrc = self.safe_cast_source(esrc, src.dtype, dst.dtype)
            self.emit_write(lambda w: f"{dst.name}{key} = {w(esrc)}")
            return
        f = INPLACE[k(len(INPLACE))]
        if f == "power" and _kind(dst.dtype) not in "iu":
            f = "multiply"  # float pow() is accurate to rounding only: no exact operand
        if f in COMPLEX_PRODUCTS and _kind(dst.dtype) == "c":
            f = "add"  # complex products are accurate to rounding only (see COMPLEX_PRODUCTS)
        if f == "power" and _kind(dst.dtype) in "iu":
            esrc = f"({esrc} % 5)" if _kind(src.dtype) in "iu" else esrc
        if form == 1 and f in OPERATORS:
            self.emit_write(lambda w: f"{dst.name}{key} {OPERATORS[f]}= {w(esrc)}")
        else:
            other = self.fit(self.pick(k), vshape, k)
            if f == "power" and _kind(dst.dtype) in "iu":
                other = f"({other} % 5)"
            self.emit_write(lambda w: f"np.{f}({w(esrc)}, {w(other)}, out={dst.name}{key})")

    def op_reduce(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        f = REDUCTIONS[k(len(REDUCTIONS))]
        axes = [None] + list(range(len(a.shape))) + ([-1] if len(a.shape) else []) + \
            ([tuple(range(len(a.shape)))] if len(a.shape) > 1 else [])
        axis = axes[k(len(axes))]
        if f in ("argmax", "argmin") and isinstance(axis, tuple):
            axis = None
        args = [] if axis is None else [f"axis={axis}"]
        if k(2):
            args.append("keepdims=True")
        if f in ("sum", "prod") and k(4) == 0:
            args.append(f"dtype='{a.dtype}'")
        call = f"{a.name}.{f}({', '.join(args)})" if k(2) else \
            f"np.{f}({', '.join([a.name] + args)})"
        name = self.new_name()
        inexact = f in ("sum", "prod", "mean")
        if inexact:
            def tol(v, a=a, f=f, args=args):
                v = numpy.asarray(v)
                if v.dtype.kind not in "fc":
                    return None  # integer sums: exact
                x = numpy.asarray(self.ns[a.name])
                kw = eval(f"dict({', '.join(x for x in args if not x.startswith('dtype'))})")
                mag = numpy.abs(x.real) + (numpy.abs(x.imag) if x.dtype.kind == "c" else 0) \
                    if x.dtype.kind in "fc" else numpy.abs(x.astype("float64"))
                mag = numpy.where(numpy.isfinite(mag), mag, 0.0).astype("float64")
                terms = max(24, x.size // max(1, v.size))  # rounding grows with the terms
                if f == "prod":
                    # exact to rounding unless a partial product over- or underflows
                    big = numpy.prod(numpy.maximum(mag, 1.0), **kw)
                    small = numpy.prod(numpy.where(mag == 0, 1.0, numpy.minimum(mag, 1.0)), **kw)
                    fi = numpy.finfo(v.dtype)
                    ok = (big < float(fi.max) / 4) & (small > float(fi.tiny) * 4)
                    return numpy.where(ok, _rtol(v.dtype) * terms * numpy.abs(v), numpy.inf)
                scale = (numpy.sum if f == "sum" else numpy.mean)(mag, **kw)
                return _rtol(v.dtype) * terms * numpy.maximum(scale, numpy.abs(v))
            self.emit(f"{name} = {call}", name, tol)
        else:
            self.emit(f"{name} = {call}", name)

    def op_scan(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        f = ["cumsum", "cumprod"][k(2)]
        axes = [None] + list(range(len(a.shape)))
        axis = axes[k(len(axes))]
        name = self.new_name()
        call = f"np.{f}({a.name}, axis={axis})" if k(2) else f"{a.name}.{f}(axis={axis})"

        def tol(v, a=a, f=f, axis=axis):
            v = numpy.asarray(v)
            if v.dtype.kind not in "fc":
                return None
            x = numpy.asarray(self.ns[a.name])
            mag = numpy.abs(x).astype("float64")
            mag = numpy.where(numpy.isfinite(mag), mag, 0.0)
            terms = max(24, x.size if axis is None else x.shape[axis])
            if f == "cumsum":
                scale = numpy.cumsum(mag, axis=axis)
                return _rtol(v.dtype) * terms * numpy.maximum(scale, numpy.abs(v))
            big = numpy.cumprod(numpy.maximum(mag, 1.0), axis=axis)
            small = numpy.cumprod(numpy.where(mag == 0, 1.0, numpy.minimum(mag, 1.0)), axis=axis)
            fi = numpy.finfo(v.dtype)
            ok = (big < float(fi.max) / 4) & (small > float(fi.tiny) * 4)
            return numpy.where(ok, _rtol(v.dtype) * terms * numpy.abs(v), numpy.inf)
        if _kind(a.dtype) in "fc":
            self.emit(f"{name} = {call}", name, tol)
        else:
            self.emit(f"{name} = {call}", name)

    def op_where(self, k):
        a = self.pick(k)
        if a is None:
            return
        b = self.pick(k)
        target = a.shape
        c = self.cond(target, k)
        eb = self.scalar(b.dtype, k) if k(4) == 0 else self.fit(b, target, k)
        ea = self.fit(a, target, k) if k(3) == 0 else a.name
        if k(2):
            ea, eb = eb, ea
        self.emit_result(self.new_name(), f"np.where({c}, {ea}, {eb})", False)

    def op_mask_get(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        if len(a.shape) == 2 and k(3) == 0:
            c = self.cond((a.shape[0],), k, True)
            self.emit_result(self.new_name(), f"{a.name}[{c}]", False)
            return
        c = self.cond(a.shape, k, True)
        self.emit_result(self.new_name(), f"{a.name}[{c}]", False)

    def op_mask_set(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        c = self.cond(a.shape, k, True)
        form = k(3)
        if form == 0:
            v = element(a.dtype, k(KNOB))
            self.emit_write(lambda w: f"{a.name}[{w(c)}] = {literal(v)}")
        elif form == 1:
            src = self.pick(k, lambda s: s.shape == a.shape)
            esrc = self.safe_cast_source(f"{src.name}[{c}]", src.dtype, a.dtype)
            self.emit_write(lambda w: f"{a.name}[{w(c)}] = {w(esrc)}")
        else:
            op = ["+", "-", "*", "&", "|", "^"][k(6)]
            if op == "*" and _kind(a.dtype) == "c":
                op = "+"  # (COMPLEX_PRODUCTS)
            s = self.scalar(a.dtype, k)
            self.emit_write(lambda w: f"{a.name}[{w(c)}] {op}= {s}")

    def index_array(self, n, count, k, distinct):
        """Source of an integer index array with count entries in [-n, n)."""
        if distinct:
            vals = []
            for _ in range(min(count, n)):
                v = k(n)
                while v in vals:
                    v = (v + 1) % n
                vals.append(v)
            vals = [v - n if k(3) == 0 else v for v in vals]
        else:
            vals = [k(2 * n) - n if k(3) == 0 else k(n) for _ in range(count)]
        dts = [t for t in ["int64", "int8", "uint8", "int32", "uint64", "int16", "list"]
               if t == "list" or numpy.iinfo(t).max >= n]
        dt = dts[k(len(dts))]
        if dt.startswith("u"):
            vals = [v % n for v in vals]
        lst = "[" + ", ".join(map(str, vals)) + "]"
        if dt == "list":
            return lst
        return f"np.array({lst}, dtype='{dt}')" if k(2) else f"numpy.array({lst}, dtype='{dt}')"

    def op_gather(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        form = k(4)
        n0 = a.shape[0]
        if form == 0 or len(a.shape) == 1:
            idx = self.index_array(n0, 1 + k(6), k, False)
            self.emit_result(self.new_name(), f"{a.name}[{idx}]", False)
        elif form == 1:
            idx = self.index_array(a.shape[1], 1 + k(8), k, False)
            self.emit_result(self.new_name(), f"{a.name}[:, {idx}]", False)
        elif form == 2:
            cnt = 1 + k(6)
            i0 = self.index_array(n0, cnt, k, False)
            i1 = self.index_array(a.shape[1], cnt, k, False)
            self.emit_result(self.new_name(), f"{a.name}[{i0}, {i1}]", False)
        else:
            # an index computed by the program: an integer array modulo the axis length
            s = self.pick(k, lambda s: _kind(s.dtype) in "iu" and len(s.shape) >= 1)
            if s is None:
                return
            e = self.fit(s, (min(8, s.shape[-1]),), k)
            self.emit_result(self.new_name(), f"{a.name}[{e} % {n0}]", False)

    def op_scatter(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        form = k(3)
        if form == 0 or len(a.shape) == 1:
            idx = self.index_array(a.shape[0], 1 + k(min(8, a.shape[0])), k, True)
            key = idx
        elif form == 1:
            idx = self.index_array(a.shape[1], 1 + k(min(8, a.shape[1])), k, True)
            key = f":, {idx}"
        else:
            cnt = 1 + k(4)
            pairs = set()
            i0, i1 = [], []
            for _ in range(cnt):
                p = (k(a.shape[0]), k(a.shape[1]))
                if p not in pairs:
                    pairs.add(p)
                    i0.append(p[0])
                    i1.append(p[1])
            key = f"{i0}, {i1}"
        vshape = numpy.shape(eval(f"numpy.empty({a.shape})[{key}]", {"numpy": numpy, "np": numpy}))
        if k(3) == 0:
            op = ["+", "-", "*", "|"][k(4)]
            if op == "*" and _kind(a.dtype) == "c":
                op = "+"  # (COMPLEX_PRODUCTS)
            self.emit(f"{a.name}[{key}] {op}= {self.scalar(a.dtype, k)}")
            return
        src = self.pick(k)
        esrc = self.safe_cast_source(self.fit(src, vshape, k), src.dtype, a.dtype)
        self.emit_write(lambda w: f"{a.name}[{key}] = {w(esrc)}")

    def op_cast(self, k):
        a = self.pick(k)
        if a is None:
            return
        dt = DTYPES[k(len(DTYPES))]
        e = self.safe_cast_source(a.name, a.dtype, dt)
        form = k(3)
        if form == 0:
            self.emit_result(self.new_name(), f"{e}.astype('{dt}')", False)
        elif form == 1:
            self.emit_result(self.new_name(), f"np.asarray({e}, dtype='{dt}')", False)
        else:
            self.emit_result(self.new_name(), f"np.array({e}, dtype='{dt}')", False)

    def op_view(self, k):
        """A view kept as an array of its own: later writes through either must show in both."""
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        key, _ = self.view_key(a.shape, k)
        form = k(4)
        if form == 3:
            self.emit_result(self.new_name(), f"{a.name}{key}.copy()", False)
        elif form == 2 and len(a.shape) == 2:
            self.emit_result(self.new_name(), f"{a.name}{key}.T", False)
        else:
            self.emit_result(self.new_name(), f"{a.name}{key}" if key else f"{a.name}[...]", False)

    def op_setitem(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        if k(2):
            idx = ", ".join(str(k(2 * d) - d) for d in a.shape)
        else:
            idx, _ = self.view_key(a.shape, k)
            idx = idx[1:-1] or "..."
        v = element(a.dtype, k(KNOB)) if k(3) else element(DTYPES[k(len(DTYPES))], k(KNOB))
        if _kind(a.dtype) in "iu" and isinstance(v, (float, complex)):
            if not math.isfinite(abs(v)):
                v = 0
            v = v.real if isinstance(v, complex) else v
        self.emit(f"{a.name}[{idx}] = {literal(v)}")

    def op_clip(self, k):
        a = self.pick(k)
        if a is None or _kind(a.dtype) == "c":
            return
        lo = self.scalar(a.dtype, k) if k(2) else self.fit(self.pick(k), a.shape, k)
        hi = self.scalar(a.dtype, k) if k(2) else self.fit(self.pick(k), a.shape, k)
        if k(4) == 0:
            lo = "None"
        self.emit_result(self.new_name(), f"np.clip({a.name}, {lo}, {hi})", False)

    def op_reshape(self, k):
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        n = int(numpy.prod(a.shape))
        shapes = [(n,)] + [(d, n // d) for d in range(2, min(n, 400)) if n % d == 0]
        shape = shapes[k(len(shapes))]
        form = k(4)
        if form == 0:
            e = f"{a.name}.reshape({shape})"
        elif form == 1:
            e = f"np.reshape({a.name}, {shape}).T"
        elif form == 2:
            e = f"{a.name}.ravel()"
        else:
            e = f"{a.name}.T.reshape({shape})" if len(a.shape) == 2 else \
                f"{a.name}[::-1].reshape({shape})"
        if not a.c_layout:
            # View or copy depends on the memory order of a, which differs (see c_layout):
            # a deliberate difference (hassium's arrays are C-ordered); the program copies.
            e = f"({e}).copy()"
        self.emit_result(self.new_name(), e, False)

    def exact_view(self, slot, target, k):
        """Source of a view of slot with exactly the shape target (2-D), or None."""
        shape = slot.shape
        if len(shape) != 2:
            return None
        options = []
        if shape[0] >= target[0] and shape[1] >= target[1]:
            options.append((slot.name, shape))
        if shape[1] >= target[0] and shape[0] >= target[1]:
            options.append((f"{slot.name}.T", shape[::-1]))
        if not options:
            return None
        name, sh = options[k(len(options))]
        keys = []
        for d, t in zip(sh, target):
            key = self.axis_key(d, t, k)
            if ":" not in key or len(range(d)[eval(f"numpy.s_[{key}]")]) != t:
                key = f"{d - t}:" if t < d else ":"
            keys.append(key)
        return name if all(x == ":" for x in keys) else f"{name}[{', '.join(keys)}]"

    def op_matmul(self, k):
        """a @ b: integers wrap like NumPy's; float and complex sums in another order, so
        compared to rounding with the scale of |a| @ |b|."""
        a = self.pick(k, lambda s: len(s.shape) == 2)
        b = self.pick(k, lambda s: len(s.shape) == 2)
        if a is None or b is None:
            return
        n = a.shape[1]
        p_max = max([b.shape[1]] * (b.shape[0] >= n) + [b.shape[0]] * (b.shape[1] >= n) + [0])
        if p_max == 0:
            return
        eb = self.exact_view(b, (n, 1 + k(min(p_max, 8))), k)
        if eb is None:
            return
        # NaN and inf stay out of products: NumPy's BLAS skips zero entries of b (reference
        # BLAS gemm does), so NaN * 0 there is 0 and the result depends on the BLAS.
        ea = a.name
        if _kind(a.dtype) in "fc":
            ea = f"np.where(np.isfinite({ea}), {ea}, 0)"
        if self.kind_of(eb) in "fc":
            eb = f"np.where(np.isfinite({eb}), {eb}, 0)"
        form = k(3)
        call = f"{ea} @ {eb}" if form == 0 else f"np.matmul({ea}, {eb})" if form == 1 \
            else f"np.dot({ea}, {eb})"

        def tol(v, ea=ea, eb=eb):
            v = numpy.asarray(v)
            if v.dtype.kind not in "fc":
                return None
            x = numpy.abs(numpy.asarray(eval(ea, self.ns))).astype("float64")
            y = numpy.abs(numpy.asarray(eval(eb, self.ns))).astype("float64")
            with numpy.errstate(all="ignore"):
                scale = numpy.where(numpy.isfinite(x), x, 0) @ numpy.where(numpy.isfinite(y), y, 0)
            return _rtol(v.dtype) * max(24, x.shape[1]) * numpy.maximum(scale, numpy.abs(v))
        name = self.new_name()
        self.emit(f"{name} = {call}", name, tol)

    def op_join(self, k):
        a = self.pick(k, lambda s: len(s.shape) == 2)
        b = self.pick(k, lambda s: len(s.shape) == 2)
        if a is None:
            return
        axis = k(2)
        other = list(a.shape)
        other[axis] = 1 + k(4)
        eb = self.exact_view(b, tuple(other), k) or a.name
        form = k(3)
        if form == 0:
            e = f"np.concatenate([{a.name}, {eb}], axis={axis})"
        elif form == 1:
            e = f"np.{'vstack' if axis == 0 else 'hstack'}(({eb}, {a.name}))"
        else:
            e = f"np.stack([{a.name}, {a.name}[::-1]], axis={k(3)})"
        self.emit_result(self.new_name(), e, False)

    def op_accumulate_at(self, k):
        """ufunc.at: an unbuffered update at repeated positions (np.add.at(a, [2, 0, 2], v))."""
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        f = ["add", "subtract", "multiply", "minimum", "maximum"][k(5)]
        kind = _kind(a.dtype)
        if (f == "subtract" and kind == "b") or (f in ("minimum", "maximum") and kind == "c"):
            f = "add"
        if f in COMPLEX_PRODUCTS and kind == "c":
            f = "add"  # (see COMPLEX_PRODUCTS)
        count = 1 + k(8)
        if k(2) or len(a.shape) == 1:
            key = self.index_array(a.shape[0], count, k, False)
            vshape = (count,) + a.shape[1:]
        else:
            i0 = self.index_array(a.shape[0], count, k, False)
            i1 = self.index_array(a.shape[1], count, k, False)
            key = f"({i0}, {i1})"
            vshape = (count,) + a.shape[2:]
        if k(2):
            value = self.scalar(a.dtype, k)
        else:
            src = self.pick(k)
            value = self.safe_cast_source(self.fit(src, vshape, k), src.dtype, a.dtype)
        self.emit(f"np.{f}.at({a.name}, {key}, {value})")

    def op_compose(self, k):
        """Functions made of views, copies, gathers, sorts: diff, tile, repeat, take, pad, isin,
        sort, argsort, searchsorted, unique."""
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        nd = len(a.shape)
        ax = k(nd)
        form = k(11)
        if form == 10:
            # einsum: a transpose (exact), or products summed (to rounding for floats)
            letters = "ijkl"[:nd]
            if k(2):
                e = f"np.einsum('{letters}->{letters[::-1]}', {a.name})"
                self.emit_result(self.new_name(), e, False)
            else:
                e = f"np.einsum('{letters},{letters}->{letters[0]}', {a.name}, {a.name})"
                self.emit_result(self.new_name(), e, _kind(a.dtype) in "fc")
            return
        if form == 6:
            e = f"np.sort({a.name}, axis={ax})"
        elif form == 7:
            e = f"np.argsort({a.name}, axis={ax}, kind='stable')"  # (quicksort: ties open)
        elif form == 8:
            e = f"np.searchsorted(np.sort({a.name}, axis=None), {a.name}[::-1], " \
                f"side='{['left', 'right'][k(2)]}')"
        elif form == 9:
            e = f"np.unique({a.name}, return_counts=True)[{k(2)}]"
        elif form == 0:
            e = f"np.diff({a.name}, n={1 + k(2)}, axis={ax})"
        elif form == 1:
            e = f"np.tile({a.name}, {tuple(1 + k(2) for _ in range(1 + k(nd + 1)))})"
        elif form == 2:
            reps = k(3) if k(2) else [k(3) for _ in range(a.shape[ax])]
            e = f"np.repeat({a.name}, {reps}, axis={ax})"
        elif form == 3:
            idx = self.index_array(a.shape[ax], 1 + k(6), k, False)
            e = f"np.take({a.name}, {idx}, axis={ax})"
        elif form == 4:
            mode = ["constant", "edge", "wrap", "reflect", "symmetric"][k(5)]
            n = min(a.shape)
            most = {"wrap": n, "symmetric": n, "reflect": n - 1}.get(mode, 3)
            w = tuple((k(most + 1), k(most + 1)) for _ in a.shape)
            e = f"np.pad({a.name}, {w}, mode='{mode}')"
        else:
            b = self.pick(k)
            e = f"np.isin({a.name}, {b.name if b is not None else a.name + '[::2]'})"
        self.emit_result(self.new_name(), e, False)

    def op_library(self, k):
        """NumPy functions programs call that the other kinds do not draw: bincount, nonzero,
        flatnonzero, count_nonzero, tensordot, take_along_axis, put_along_axis, histogram, roll,
        meshgrid, linspace, logspace, triu, tril, the np.ndarray constructor, put."""
        a = self.pick(k, lambda s: len(s.shape) > 0)
        if a is None:
            return
        nd, kind = len(a.shape), _kind(a.dtype)
        ax = k(nd)
        form = k(13)
        name = self.new_name()
        if form == 0 and kind in "biu":
            # bincount of non-negative integers, with float weights (sums: to rounding)
            idx = f"({a.name}.ravel().astype('int64') % {1 + k(9)})"
            w = self.pick(k, lambda s: s.shape == a.shape and _kind(s.dtype) in "biuf")
            if w is not None and k(2):
                e = f"np.bincount({idx}, weights={w.name}.ravel(), minlength={k(12)})"
                self.emit_result(name, e, True)
            else:
                self.emit_result(name, f"np.bincount({idx}, minlength={k(12)})", False)
        elif form == 1:
            e = [f"np.nonzero({a.name})[{ax}]", f"np.flatnonzero({a.name})",
                 f"np.count_nonzero({a.name}, axis={ax})", f"np.count_nonzero({a.name})"][k(4)]
            self.emit_result(name, e, False)
        elif form == 2 and (numpy.prod(a.shape) // a.shape[ax]) ** 2 <= MAX_ELEMENTS:
            e = f"np.tensordot({a.name}, {a.name}, axes=([{ax}], [{ax}]))"
            self.emit_result(name, e, kind in "fc")
        elif form == 3:
            order = f"np.argsort({a.name}, axis={ax}, kind='stable')"
            self.emit_result(name, f"np.take_along_axis({a.name}, {order}, axis={ax})", False)
        elif form == 4:
            shape = list(a.shape)
            shape[ax] = 1 + k(3)
            idx = numpy.array([k(a.shape[ax]) for _ in range(int(numpy.prod(shape)))])
            src = f"numpy.array({idx.tolist()}).reshape({tuple(shape)})"
            self.emit(f"np.put_along_axis({a.name}, {src}, {self.scalar(a.dtype, k)}, "
                      f"axis={ax})")
        elif form == 5 and kind in "biuf":
            lo, hi = sorted((k(7) - 3, k(7) - 3))
            rng = f", range=({lo}, {hi + 1})" if k(2) else ""
            e = f"np.histogram({a.name}, bins={1 + k(12)}{rng})[{k(2)}]"
            self.emit_result(name, e, False)
        elif form == 6:
            shift = k(2 * a.shape[ax] + 3) - a.shape[ax] - 1
            e = f"np.roll({a.name}, {shift}, axis={ax if k(2) else None})"
            self.emit_result(name, e, False)
        elif form == 7:
            m, step = min(a.shape[-1], 8), -max(2, numpy.prod(a.shape) // 64)
            e = f"np.meshgrid({a.name}.ravel()[:{1 + k(m)}], {a.name}.ravel()[::{step}], " \
                f"indexing='{['xy', 'ij'][k(2)]}', sparse={bool(k(2))})[{k(2)}]"
            self.emit_result(name, e, False)
        elif form == 8 and kind in "biuf":
            fn = ["linspace", "logspace"][k(2)]
            end = f"{a.name}[..., ::-1]" if k(2) else self.scalar("float64", k)
            e = f"np.{fn}({a.name}, {end}, {k(9)}, endpoint={bool(k(2))}, axis={k(nd + 1)})"
            self.emit_result(name, e, True)
        elif form == 9 and (nd > 1 or a.shape[0] ** 2 <= MAX_ELEMENTS):  # (1-d: a square)
            fn = ["triu", "tril"][k(2)]
            self.emit_result(name, f"np.{fn}({a.name}, {k(7) - 3})", False)
        elif form == 10:
            dt = DTYPES[k(len(DTYPES))]
            src = self.safe_cast_source(a.name, a.dtype, dt)
            stmt = f"{name} = np.ndarray({a.shape}, dtype='{dt}')\n{name}[...] = {src}"
            self.emit(stmt, name)
        elif form == 11:
            n = int(numpy.prod(a.shape))
            idx = self.index_array(n, 1 + k(6), k, True)
            mode = ["raise", "wrap", "clip"][k(3)]
            self.emit(f"np.put({a.name}, {idx}, {self.scalar(a.dtype, k)}, mode='{mode}')")
        else:
            e = f"np.roll({a.name}, {tuple(k(5) - 2 for _ in range(nd))}, " \
                f"axis={tuple(range(nd))})"
            self.emit_result(name, e, False)

    def op_item(self, k):
        """A Python scalar read from an array (a flush in hassium), used as a weak operand."""
        a = self.pick(k, lambda s: len(s.shape) > 0 or s.operand)
        if a is None:
            return
        idx = ", ".join(str(k(d)) for d in a.shape)
        e = f"{a.name}[{idx}]" if idx else a.name
        conv = ["{}.item()", "float({})", "int({})", "bool({})", "complex({})"][k(5)]
        if _kind(a.dtype) == "c" and conv in ("float({})", "int({})"):
            conv = "{}.item()"
        if _kind(a.dtype) == "f" and conv == "int({})":
            conv = "{}.item()"  # int() of NaN or inf raises: hassium's 0-d arrays as NumPy's
        self.emit_result(self.new_name(), conv.format(e), False)

    def op_flush(self, k):
        self.lines.append("flush()")

    # -- the whole program ----------------------------------------------------------------------
    def make_input(self, dtype, ctor, values, shape):
        """An input array of shape: its 24 drawn values (repeated to fill larger shapes, with
        numpy.resize), a range, a constant, or an array made from NumPy's memory."""
        name = self.new_name()
        if ctor == 4:  # edge values only: special values (NaN, inf, MIN, MAX, 0, -1 ...)
            values = [v & ~0x0303 if _kind(dtype) == "c" else v & ~3 for v in values]
        vals = [element(dtype, v) for v in values]
        size = int(numpy.prod(shape))
        if size == len(vals):
            lit = f"numpy.array({array_literal(vals, shape)}, dtype='{dtype}')"
        else:
            lit = f"numpy.resize(numpy.array({array_literal(vals, (len(vals),))}, " \
                  f"dtype='{dtype}'), {shape})"
        if ctor == 1 and dtype != "bool" and size <= 100:
            stmt = f"{name} = np.arange({size}, dtype='{dtype}').reshape({shape})"
        elif ctor == 2:
            stmt = f"{name} = np.full({shape}, {literal(vals[0])}, dtype='{dtype}')"
        elif ctor == 3:
            stmt = f"{name} = np.asarray({lit})"  # an array over NumPy's memory
        else:
            stmt = f"{name} = np.array({lit[len('numpy.array('):-1]})" if lit.startswith(
                "numpy.array(") else f"{name} = np.array({lit})"
        self.emit(stmt, name)


def resolve(program):
    """(source, meta, expected): the program's body as Python source, per array name its
    tolerance (None: exact), and NumPy's values (by name)."""
    shape, threshold, inputs, ops = program
    r = Resolver()
    if threshold:
        r.lines.append(f"flush_threshold({threshold})  # hassium flushes every ~{threshold} "
                       "instructions")
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for dtype, ctor, values in inputs:
            r.make_input(dtype, ctor, values, shape)
        for kind, knobs in ops:
            getattr(r, "op_" + kind)(Knobs(knobs))
    names = [s.name for s in r.slots]
    body = "\n".join(r.lines) + f"\nreturn [{', '.join(names)}]"
    meta = {s.name: s.tol for s in r.slots}
    expected = {s.name: r.ns[s.name] for s in r.slots}
    return body, meta, expected


class NoError(AssertionError):
    """A statement NumPy rejects ran without an error."""


def _same(x):
    return x


def copy_array(x):
    """numpy_copy with NumPy: a copy of an array; scalars as they are (a Python scalar stays
    weak)."""
    return x.copy() if isinstance(x, numpy.ndarray) else x


PRELUDE = "from math import inf, nan\n"


def function_source(body):
    return "def program(np, numpy, flush, flush_threshold, numpy_copy, NoError):\n" + \
        "\n".join("    " + line for s in body.split("\n") for line in [s]) + "\n"


def compile_program(body):
    ns = {"inf": math.inf, "nan": math.nan}
    exec(compile(PRELUDE + function_source(body), "<program>", "exec"), ns)
    return ns["program"]


def _nothing(*args):
    pass


def run(body, module):
    """Runs the program body with module (numpy or hassium); its arrays, in order."""
    fn = compile_program(body)
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if module is numpy:
            return fn(numpy, numpy, _nothing, _nothing, copy_array, NoError)
        saved = module._hassium.flush_threshold()
        try:
            return fn(module, numpy, module.flush, module._hassium.set_flush_threshold, _same,
                      NoError)
        finally:
            module._hassium.set_flush_threshold(saved)


def _fmt(a):
    return numpy.array2string(numpy.asarray(a), threshold=100, max_line_width=100,
                              floatmode="unique")


def compare_value(name, got, exp, tol):
    """None when got (hassium) matches exp (NumPy), else a message. Same shape and dtype; then
    integers and bools equal; floats (each part of complex numbers) equal, NaN where NumPy has
    NaN, with tol None, else within tol of NumPy's (and the same infinities). The sign of a zero
    is not compared: NumPy's own maximum(-0.0, 0.0) depends on the loop that runs it."""
    g = numpy.asarray(got)
    e = numpy.asarray(exp)
    if g.shape != e.shape:
        return f"{name}: shape {g.shape} != NumPy's {e.shape}"
    if g.dtype != e.dtype:
        return f"{name}: dtype {g.dtype} != NumPy's {e.dtype}"
    if e.dtype.kind not in "fc":
        if not numpy.array_equal(g, e):
            return f"{name}: hassium {_fmt(g)} != NumPy {_fmt(e)}"
        return None
    parts = [(g.real, e.real), (g.imag, e.imag)] if e.dtype.kind == "c" else [(g, e)]
    if e.dtype.kind == "c" and tol is not None:
        # A complex result that overflows (or meets inf) is an inf or NaN whose signs and parts
        # follow rounding-level quantities (the angle of z**w, inf * 0 in a product): any
        # non-finite value matches a non-finite one.
        with numpy.errstate(all="ignore"):
            e_bad = ~numpy.isfinite(e)
            if numpy.any(e_bad != ~numpy.isfinite(g)):
                ix = numpy.argwhere(e_bad != ~numpy.isfinite(g))[:4]
                return f"{name}: hassium {_fmt(g)} != NumPy {_fmt(e)} (finite or not; differs " \
                       f"at {[tuple(int(i) for i in x) for x in ix]})"
        tol = numpy.where(e_bad, numpy.inf, numpy.broadcast_to(numpy.asarray(tol), e.shape))
    for gp, ep in parts:
        if tol is None:
            bad = ~((gp == ep) | (numpy.isnan(gp) & numpy.isnan(ep)))
        else:
            t = numpy.broadcast_to(numpy.asarray(tol), ep.shape)
            skip = ~numpy.isfinite(t)
            with numpy.errstate(all="ignore"):
                same_special = (numpy.isnan(gp) == numpy.isnan(ep)) & \
                    (numpy.isinf(gp) == numpy.isinf(ep)) & \
                    ~(numpy.isinf(ep) & (gp != ep))
                close = numpy.isnan(ep) | numpy.isinf(ep) | (numpy.abs(gp - ep) <= t)
            bad = ~skip & ~(same_special & close)
        if numpy.any(bad):
            how = "exactly" if tol is None else "to rounding"
            return f"{name}: hassium {_fmt(g)} != NumPy {_fmt(e)} ({how}; differs at " \
                   f"{[tuple(int(i) for i in ix) for ix in numpy.argwhere(bad)[:4]]})"
    return None


def check(program, hassium):
    """Runs a drawn program with NumPy and hassium; raises AssertionError (with the program as a
    script) on any difference."""
    body, meta, expected = resolve(program)
    msgs = []
    try:
        got = run(body, hassium)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = [numpy.asarray(g) for g in got]
    except Exception as e:  # noqa: BLE001
        msgs.append(f"hassium raised {type(e).__name__}: {e}")
    else:
        names = list(meta)
        if len(got) != len(names):
            msgs.append(f"hassium returned {len(got)} arrays, NumPy {len(names)}")
        for name, g in zip(names, got):
            m = compare_value(name, g, expected[name], meta[name])
            if m:
                msgs.append(m)
    if msgs:
        raise AssertionError("\n".join(msgs[:6]) + "\n\nThe program:\n\n" + script(body, meta))


def script(body, meta):
    """A runnable script of the program: runs it with NumPy and hassium and prints differences."""
    inexact = {n: True for n, t in meta.items() if t is not None}
    return f'''import warnings
import numpy
import hassium
{PRELUDE}

class NoError(AssertionError):
    pass


def numpy_copy(x):  # with NumPy: the as-if-copied operands NumPy 2.x does not always give
    return x.copy() if isinstance(x, numpy.ndarray) else x


{function_source(body)}

warnings.simplefilter("ignore")
with numpy.errstate(all="ignore"):
    expected = program(numpy, numpy, lambda: None, lambda n: None, numpy_copy, NoError)
    got = [numpy.asarray(g) for g in program(hassium, numpy, hassium.flush,
                                             hassium._hassium.set_flush_threshold,
                                             lambda x: x, NoError)]
inexact = {sorted(inexact)!r}  # compared to rounding; the others exactly
for i, (g, e) in enumerate(zip(got, expected)):
    e = numpy.asarray(e)
    same = g.shape == e.shape and g.dtype == e.dtype and (
        numpy.allclose(g, e, rtol=1e-5, equal_nan=True) if f"v{{i}}" in inexact
        else numpy.array_equal(g, e, equal_nan=e.dtype.kind in "fc"))
    if not same:
        print(f"v{{i}}: hassium {{g!r}}\\n     NumPy   {{e!r}}")
'''
