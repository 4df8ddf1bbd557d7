"""A model of .hsb programs in NumPy: builds the text of a program and, instruction by
instruction, what NumPy computes for it; then the lines `hassium run` must print.

Bases are flat NumPy arrays; views are np.lib.stride_tricks.as_strided windows on them, so an
instruction's effect is NumPy's own ufunc on the same elements. Used by gen_expected.py.
"""
import math
import re
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
CLASSES = {"B": DTYPES[0:1], "I": DTYPES[1:5], "U": DTYPES[5:9], "F": DTYPES[9:11],
           "C": DTYPES[11:13]}


def is_int(dt):
    return dt in CLASSES["I"] or dt in CLASSES["U"]


def is_float(dt):
    return dt in CLASSES["F"]


def is_complex(dt):
    return dt in CLASSES["C"]


def real_of(dt):
    return {"complex64": "float32", "complex128": "float64"}.get(dt, dt)


# --- the opcode table, read from core/opcodes.def -------------------------------------------

class OpInfo:
    def __init__(self, name, operands, family, rule, types):
        self.name, self.operands, self.family, self.rule = name, operands, family, rule
        self.types = types  # dtype names, in DTYPES order

    def signatures(self):
        """Every allowed signature (output first), as core/opcode.cpp all_signatures()."""
        sigs = []
        for t in self.types:
            r = self.rule
            if r == "SAME":
                sigs.append([t] * self.operands)
            elif r == "PRED":
                sigs.append(["bool"] + [t] * (self.operands - 1))
            elif r == "TO_REAL":
                sigs.append([real_of(t), t])
            elif r == "CAST":
                sigs.extend([[o, t] for o in DTYPES])
            elif r == "REDUCE":
                sigs.append([t, t, "int64"])
            elif r in ("GEN", "BASE"):
                sigs.append([t])
            elif r == "RANDOM":
                sigs.append(["uint64"] * 3)
            elif r in ("GATHER", "SCATTER"):
                sigs.append([t, t, "int64"])
            elif r == "CSCATTER":
                sigs.append([t, t, "int64", "bool"])
            elif r == "SELECT":
                sigs.append([t, "bool", t, t])
            elif r == "ARG":
                sigs.append(["int64", t, "int64"])
            elif r == "SEARCH":
                sigs.append(["int64", t, t])
        return sigs


def read_opcodes():
    text = (ROOT / "core" / "opcodes.def").read_text()
    ops = {}
    for m in re.finditer(r"^HS_OPCODE\((\w+), (-?\d+), (\w+), (\w+), ([^)]*)\)", text, re.M):
        name, operands, family, rule, types = m.groups()
        classes = [c.strip() for c in types.split("|")]
        dts = [d for d in DTYPES if any(d in CLASSES[c] for c in classes)]
        if rule == "RANDOM":
            dts = ["uint64"]
        ops[name] = OpInfo(name, int(operands), family, rule, dts)
    return ops


OPS = read_opcodes()


# --- text of numbers ------------------------------------------------------------------------

def float_text(x, single):
    """What hassium run prints for a float: %.17g (float64) or %.9g (float32); nan unsigned."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    return ("%.9g" if single else "%.17g") % x


def value_text(v, dt):
    """One element as `hassium run` prints it."""
    if dt == "bool":
        return "true" if v else "false"
    if is_int(dt):
        return str(int(v))
    single = dt in ("float32", "complex64")
    if is_float(dt):
        return float_text(v, single)
    return "(%s,%s)" % (float_text(v.real, single), float_text(v.imag, single))


def literal_text(x):
    """A float as a .hsb literal that reads back to exactly x."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


# --- program pieces -------------------------------------------------------------------------

class Base:
    def __init__(self, name, dtype, n):
        self.name, self.dtype, self.n = name, dtype, n

    def whole(self):
        return View(self, 0, (self.n,), (1,))

    def view(self, offset, shape, stride):
        return View(self, offset, tuple(shape), tuple(stride))

    def shaped(self, shape, offset=0):
        """A contiguous row-major view of the given shape."""
        stride, s = [], 1
        for e in reversed(shape):
            stride.insert(0, s)
            s *= max(e, 1)  # an empty view keeps the strides of a 1-long one: never stride 0
        return View(self, offset, tuple(shape), tuple(stride))


class View:
    def __init__(self, base, offset, shape, stride):
        assert len(shape) == len(stride)
        self.base, self.offset, self.shape, self.stride = base, offset, tuple(shape), tuple(stride)
        self.size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if self.size:
            lo = offset + sum(s * (e - 1) for s, e in zip(stride, shape) if s < 0)
            hi = offset + sum(s * (e - 1) for s, e in zip(stride, shape) if s > 0)
            assert 0 <= lo and hi < base.n, "view outside its base: %s" % self.text()

    @property
    def dtype(self):
        return self.base.dtype

    def is_whole(self):
        return self.offset == 0 and self.shape == (self.base.n,) and self.stride == (1,)

    def text(self):
        if self.is_whole():
            return self.base.name
        return "%s{%d;%s;%s}" % (self.base.name, self.offset, ",".join(map(str, self.shape)),
                                 ",".join(map(str, self.stride)))

    def of(self, arr):
        """This view as a writable strided window on the flat array `arr`."""
        item = arr.itemsize
        start = arr[self.offset:] if self.offset < len(arr) else arr[len(arr):]
        return np.lib.stride_tricks.as_strided(
            start, shape=self.shape, strides=[s * item for s in self.stride], writeable=True)

    def indices(self):
        """The base element index of every element, row-major (a NumPy int array)."""
        idx = np.full(self.shape, self.offset, dtype=np.int64)
        for k, (e, s) in enumerate(zip(self.shape, self.stride)):
            sh = [1] * len(self.shape)
            sh[k] = e
            idx = idx + np.arange(e, dtype=np.int64).reshape(sh) * s
        return idx


class Const:
    def __init__(self, value, dtype):
        self.dtype = dtype
        self.value = np.array(value).astype(dtype) if dtype != "bool" else np.array(bool(value))

    def text(self):
        v, dt = self.value[()], self.dtype
        if dt == "bool":
            t = "true" if v else "false"
        elif is_int(dt):
            t = str(int(v))
        elif is_float(dt):
            t = literal_text(v)
        else:
            t = "(%s,%s)" % (literal_text(v.real), literal_text(v.imag))
        return "%s:%s" % (t, dt)


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


class Program:
    """A .hsb program under construction, with NumPy's state of every base alongside."""

    def __init__(self, name, comment=""):
        self.name, self.comment = name, comment
        self.bases, self.lines, self.out = [], [], []
        self.tolerances = {}  # base name -> (rtol, atol)
        self.mem, self.written = {}, {}
        self.freed = set()
        self.error = None  # when set, the run must fail with this text in its message

    # -- declarations and data --
    def base(self, name, dtype, n):
        assert name not in self.mem, name
        b = Base(name, dtype, n)
        self.bases.append(b)
        self.mem[name] = np.zeros(n, dtype=dtype)
        self.written[name] = np.zeros(n, dtype=bool)
        return b

    def fill(self, view, values):
        """Writes values (row-major over the view) with one IDENTITY of a constant per element."""
        if isinstance(view, Base):
            view = view.whole()
        flat = np.array(values, dtype=object).reshape(-1)
        assert flat.size == view.size, (view.text(), flat.size)
        for pos, v in zip(view.indices().reshape(-1), flat):
            self.instr("IDENTITY", view.base.view(int(pos), (1,), (1,)), Const(v, view.dtype))
        return view

    def array(self, name, dtype, values, shape=None):
        """Declares a base holding `values` (flat) and returns it, or its shaped view."""
        values = list(np.array(values, dtype=object).reshape(-1))
        b = self.base(name, dtype, len(values))
        self.fill(b, values)
        return b.shaped(shape) if shape else b

    # -- instructions --
    def instr(self, op, *operands):
        """Appends an instruction and applies it to the model. A Base stands for its whole."""
        info = OPS[op]
        operands = [o.whole() if isinstance(o, Base) else o for o in operands]
        self.lines.append(op + " " + ", ".join(o.text() for o in operands))
        for o in operands:
            if isinstance(o, View):
                assert o.base.name not in self.freed, "use after FREE of " + o.base.name
        if info.family == "SYSTEM":
            return self._system(op, operands[0])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._apply(info, operands)

    def raw(self, line):
        """Appends an instruction's text without modelling it (one that must fail)."""
        self.lines.append(line)

    def sync(self, base, tol=None, expect=None):
        """SYNC the base: `hassium run` prints it here. `tol` = (rtol, atol) for the comparer;
        `expect` replaces the model's values (for values the model cannot know)."""
        self.instr("SYNC", base.whole())
        if tol:
            self.tolerances[base.name] = tol
        vals = self.mem[base.name] if expect is None else np.array(expect, dtype=base.dtype)
        if expect is None:
            assert self.written[base.name].all(), "SYNC of partly unwritten " + base.name
        self.out.append(base.name + ":" + "".join(" " + value_text(v, base.dtype) for v in vals))

    def free(self, base):
        self.instr("FREE", base.whole())

    def _system(self, op, view):
        if op == "FREE":
            self.freed.add(view.base.name)

    def _read(self, o):
        if isinstance(o, Const):
            return o.value
        assert self.written[o.base.name][o.indices()].all() if o.size else True, \
            "read of unwritten elements of " + o.text()
        return o.of(self.mem[o.base.name]).copy()

    def _write(self, view, values):
        dst = view.of(self.mem[view.base.name])
        dst[...] = np.asarray(values).astype(view.dtype)
        if view.size:
            self.written[view.base.name][view.indices()] = True

    def _apply(self, info, operands):
        out, ins = operands[0], operands[1:]
        fam, op = info.family, info.name
        if fam == "ELEMENTWISE":
            args = [self._read(o) for o in ins]
            if op == "IDENTITY":
                res = np.asarray(args[0]).astype(out.dtype)
            else:
                res = getattr(np, op.lower())(*args)
                res = np.broadcast_to(res, out.shape)
                assert res.dtype == np.dtype(out.dtype), (op, res.dtype, out.dtype)
            self._write(out, res)
        elif fam in ("REDUCTION", "SCAN"):
            x, axis = self._read(ins[0]), int(ins[1].value)
            name = op.rsplit("_", 1)[0].lower()
            uf = getattr(np, name)
            res = (uf.reduce if fam == "REDUCTION" else uf.accumulate)(x, axis=axis, dtype=x.dtype)
            self._write(out, res)
        elif op == "RANGE":
            self._write(out, np.arange(out.size, dtype=np.int64).reshape(out.shape)
                        .astype(out.dtype))
        elif op == "RANDOM":
            # A stand-in for Philox with the same structure: element i depends only on
            # (seed, counter + i). Only relations between random arrays may be printed.
            seed, ctr = int(ins[0].value), int(ins[1].value)
            vals = [splitmix64(splitmix64(seed) ^ ((ctr + i) & 0xFFFFFFFFFFFFFFFF))
                    for i in range(out.size)]
            self._write(out, np.array(vals, dtype=np.uint64).reshape(out.shape))
        elif op == "GATHER":
            src, idx = self._read(ins[0]).reshape(-1), self._read(ins[1])
            assert ((0 <= idx) & (idx < src.size)).all()
            self._write(out, src[idx])
        elif op in ("SCATTER", "COND_SCATTER"):
            vals, idx = self._read(ins[0]).reshape(-1), self._read(ins[1]).reshape(-1)
            if op == "COND_SCATTER":
                mask = self._read(ins[2]).reshape(-1)
                vals, idx = vals[mask], idx[mask]
            assert ((0 <= idx) & (idx < out.size)).all() and len(set(idx)) == len(idx)
            pos = out.indices().reshape(-1)[idx]
            self.mem[out.base.name][pos] = vals
            self.written[out.base.name][pos] = True
        elif op.endswith("_AT"):
            vals, idx = self._read(ins[0]).reshape(-1), self._read(ins[1]).reshape(-1)
            assert ((0 <= idx) & (idx < out.size)).all()
            pos = out.indices().reshape(-1)[idx]
            flat = self.mem[out.base.name]
            assert self.written[out.base.name][pos].all(), "accumulating into unwritten memory"
            getattr(np, op[:-3].lower()).at(flat, pos, vals.astype(flat.dtype))
        elif op in ("SORT", "ARGSORT"):
            x, axis = self._read(ins[0]), int(ins[1].value)
            f = np.sort if op == "SORT" else np.argsort
            self._write(out, f(x, axis=axis, kind="stable"))
        elif op.startswith("SEARCHSORTED_"):
            a, v = self._read(ins[0]), self._read(ins[1])
            self._write(out, np.searchsorted(a, v, side=op.rsplit("_", 1)[1].lower()))
        elif op == "MATMUL":
            a, b = self._read(ins[0]), self._read(ins[1])
            res = np.matmul(a, b)
            assert res.dtype == np.dtype(out.dtype)
            self._write(out, res)
        else:
            raise NotImplementedError(op)

    # -- output --
    def text(self):
        head = "# Generated by test/run/gen_expected.py; do not edit.\n"
        if self.comment:
            head += "".join("# " + c + "\n" for c in self.comment.split("\n"))
        decl = "".join(".base %s %s %d\n" % (b.name, b.dtype, b.n) for b in self.bases)
        return head + decl + "".join(line + "\n" for line in self.lines)

    def expected(self):
        if self.error:
            return "#error %s\n" % self.error
        tol = "".join("#tol %s %g %g\n" % (name, r, a)
                      for name, (r, a) in sorted(self.tolerances.items()))
        return tol + "".join(line + "\n" for line in self.out)

    def write(self, directory):
        (directory / (self.name + ".hsb")).write_text(self.text())
        (directory / (self.name + ".expected")).write_text(self.expected())
