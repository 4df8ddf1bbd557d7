#!/usr/bin/env python3
"""Writes the `hassium run` test cases under test/run/cases/: NAME.hsb and NAME.expected.

    /work/main/.venv/bin/python test/run/gen_expected.py

The outputs are checked in; rerun only when the opcode table (core/opcodes.def) or this
script changes. Expected values are NumPy's (see hsbmodel.py). Case files:
  op_<OPCODE>      every signature of the opcode that core/opcodes.def allows
  views            stride 0, negative strides, 0-d, empty views and bases
  random           RANDOM: determinism, the counter, seeds, views, rough uniformity
  fused_*          reductions of fused float chains (exp): NumPy's values within a tolerance
  err_*            programs that must fail with a user error (first line `#error TEXT`)
  prog_*           multi-instruction programs; test/run/check_algorithms.py also runs these
                   under every partition algorithm and requires identical output
An .expected file holds the lines `hassium run` prints, after optional directives:
  #tol NAME RTOL ATOL   floats of base NAME match when |got - want| <= ATOL + RTOL*|want|
  #error TEXT           the run must fail (exit 1) with TEXT in its error message
"""
import random
import shutil
import sys
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from hsbmodel import (CLASSES, OPS, Const, Program, is_complex, is_float,  # noqa: E402
                      is_int)

CASES = Path(__file__).parent / "cases"
INF, NAN = float("inf"), float("nan")

# Functions whose results libraries round differently: compared with a tolerance.
TRANSCENDENTAL = {"EXP", "EXP2", "EXPM1", "LOG", "LOG2", "LOG10", "LOG1P", "SIN", "COS", "TAN",
                  "ARCSIN", "ARCCOS", "ARCTAN", "SINH", "COSH", "TANH", "ARCSINH", "ARCCOSH",
                  "ARCTANH", "ARCTAN2", "HYPOT", "POWER", "CBRT", "LOGADDEXP", "LOGADDEXP2"}
# Complex MULTIPLY too: NumPy's SIMD loop computes re*re - im*im with a fused multiply-add on
# machines that have one, so its last bit depends on the machine.
COMPLEX_INEXACT = {"MULTIPLY", "DIVIDE", "ABSOLUTE", "SQRT", "EXP", "LOG", "POWER"}


def tolerance(op, dt, out_dt=None):
    """(rtol, atol) for the output (of dtype out_dt, default dt) of op on operands of dtype
    dt, or None for an exact comparison."""
    out_dt = out_dt or dt
    if not (is_float(out_dt) or is_complex(out_dt)):
        return None
    if op in TRANSCENDENTAL or (is_complex(dt) and op in COMPLEX_INEXACT):
        return (1e-5, 1e-6) if out_dt in ("float32", "complex64") else (1e-12, 1e-14)
    return None


# --- value pools ----------------------------------------------------------------------------

def dedupe(xs):
    out = []
    for x in xs:
        if not any(x == y or (x != x and y != y) for y in out):
            out.append(x)
    return out


def int_pool(dt):
    ii = np.iinfo(dt)
    if ii.min < 0:
        xs = [0, 1, -1, 2, -3, 7, -8, 42, -100, 100, ii.min, ii.max, ii.min + 1, ii.max - 1]
    else:
        xs = [0, 1, 2, 3, 7, 8, 42, 100, 200, ii.max, ii.max - 1, ii.max // 2, ii.max // 2 + 1]
    return dedupe(xs)


FLOATS = [0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.75, 3.25, 0.1, -7.0, 100.0, 1e10, -1e-10, 1e30,
          INF, -INF, NAN]
COMPLEXES = [0j, 1 + 0j, 1j, -1 + 0.5j, 2.5 - 3j, 0.1 + 0.2j, -7 - 7j, 100 + 1e-3j, 0.5 - 0.25j,
             -2 + 0j]


def pool(dt):
    if dt == "bool":
        return [False, True]
    if is_int(dt):
        return int_pool(dt)
    if is_float(dt):
        return FLOATS
    return COMPLEXES


def binary_pools(op, dt):
    """The two operand pools of a binary element-wise test (every pair is computed)."""
    p = pool(dt)
    if op in ("LEFT_SHIFT", "RIGHT_SHIFT"):
        bits = np.iinfo(dt).bits
        shifts = [0, 1, 3, bits - 1, bits, bits + 1, 63, 64] + ([-1] if np.iinfo(dt).min else [])
        return p, dedupe([s for s in shifts if s <= np.iinfo(dt).max])
    if op == "POWER":
        if is_int(dt):
            base = [0, 1, 2, 3, 7, 42] + ([-1, -3, -8] if np.iinfo(dt).min else [200])
            return [b for b in base if b <= np.iinfo(dt).max], [0, 1, 2, 3, 5, 7, 13]
        if is_float(dt):
            return [0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 9.0, 1e10, INF, NAN], \
                [0.0, 1.0, 2.0, -1.0, 0.5, -2.0, 3.0, 13.5, NAN]
        return [1 + 0j, 1j, -1 + 0.5j, 2.5 - 3j, 0.5 - 0.25j], \
            [0j, 1 + 0j, 2 + 0j, 3 + 0j, -1 + 0j, 0.5 + 0j, 1j]
    if op in ("FLOOR_DIVIDE", "MOD", "FMOD") and is_float(dt):
        fin = [-7.0, -2.5, -0.5, 0.0, 0.5, 1.0, 2.5, 3.25, 7.0, 100.0, 0.1]
        return fin, fin
    if op == "HYPOT":
        return [x for x in p if x == x], [x for x in p if x == x]
    if op == "DIVIDE" and is_complex(dt):
        return p, [x for x in p if x != 0]
    return p, p


def unary_pool(op, dt):
    if op in ("SIN", "COS", "TAN") and is_float(dt):
        return [x for x in FLOATS if x != x or abs(x) < 1e9 or abs(x) == INF]
    if is_complex(dt) and op in ("ISNAN", "ISINF", "ISFINITE"):
        return COMPLEXES[:4] + [complex(NAN, 0), complex(0, NAN), complex(INF, 0),
                                complex(0, -INF), complex(INF, NAN)]
    if is_complex(dt) and op == "LOG":
        return [c for c in COMPLEXES if c != 0]
    return pool(dt)


def cast_pool(src, dst):
    """Source values whose conversion to dst NumPy defines the same way on every machine."""
    if src == "bool" or is_int(src):
        return pool(src)
    unsigned_dst = dst in CLASSES["U"]
    if is_float(src):
        if is_int(dst):
            xs = [0.0, 0.5, 1.9, 2.5, 100.6, 7.0, 0.1]
            return xs if unsigned_dst else xs + [-0.5, -1.9, -2.75, -100.6]
        extra = [1e300, 1e-50] if src == "float64" else []
        return FLOATS + extra
    if is_int(dst):
        xs = [2.5 + 7j, 0.5 - 1j, 100.6 + 0j, 0j]
        return xs if unsigned_dst else xs + [-2.75 - 1j, -100.6 + 3j]
    if dst == "bool":
        return [0j, 1j, 1 + 0j, -0.5j, 0.1 + 0j]
    return COMPLEXES


# --- per-family case builders ---------------------------------------------------------------

def elementwise_case(op):
    info = OPS[op]
    p = Program("op_" + op, "%s on every allowed dtype (%s rule)" % (op, info.rule))
    for dt in info.types:
        out_dt = {"PRED": "bool", "TO_REAL": {"complex64": "float32",
                                              "complex128": "float64"}.get(dt, dt)}.get(
            info.rule, dt)
        if info.operands == 3:
            xs, ys = binary_pools(op, dt)
            k, m = len(xs), len(ys)
            x = p.array("x_" + dt, dt, xs)
            y = p.array("y_" + dt, dt, ys)
            o = p.base("o_" + dt, out_dt, k * m)
            # every pair: x broadcast along columns, y along rows (stride-0 views)
            p.instr(op, o.shaped((k, m)), x.view(0, (k, m), (1, 0)), y.view(0, (k, m), (0, 1)))
            # and once with a constant second operand
            c = p.base("c_" + dt, out_dt, k)
            p.instr(op, c.whole(), x.whole(), Const(ys[min(2, m - 1)], dt))
            p.free(x)
            p.free(y)
            p.sync(o, tolerance(op, dt, out_dt))
            p.sync(c, tolerance(op, dt, out_dt))
        else:
            xs = unary_pool(op, dt)
            x = p.array("x_" + dt, dt, xs)
            o = p.base("o_" + dt, out_dt, len(xs))
            p.instr(op, o.whole(), x.whole())
            p.free(x)
            p.sync(o, tolerance(op, dt, out_dt))
    return [p]


def identity_case():
    p = Program("op_IDENTITY", "IDENTITY: copies and every cast between two dtypes")
    for src in OPS["IDENTITY"].types:
        for dst in OPS["IDENTITY"].types:
            xs = cast_pool(src, dst)
            x = p.array("x_%s_%s" % (src, dst), src, xs)
            o = p.base("o_%s_%s" % (src, dst), dst, len(xs))
            p.instr("IDENTITY", o.whole(), x.whole())
            p.free(x)
            p.sync(o)
    return [p]


def where_case():
    """WHERE on every dtype: both branches and the condition through broadcast views, a
    constant condition, a constant branch, and the output identical to a branch."""
    p = Program("op_WHERE", "WHERE (np.where) on every dtype: broadcast and constant operands")
    for dt in OPS["WHERE"].types:
        xs = pool(dt)
        k = len(xs)
        ys = xs[::-1]
        x, y = p.array("x_" + dt, dt, xs), p.array("y_" + dt, dt, ys)
        m = p.array("m_" + dt, "bool", [(i * 7) % 3 == 0 for i in range(k)])
        pick = p.array("p_" + dt, "bool", [True, False, True])
        o = p.base("o_" + dt, dt, 3 * k)  # rows [x, y, x]: the condition broadcast down
        p.instr("WHERE", o.shaped((k, 3)), pick.view(0, (k, 3), (0, 1)), x.view(0, (k, 3), (1, 0)),
                y.view(0, (k, 3), (1, 0)))
        c = p.base("c_" + dt, dt, k)
        p.instr("WHERE", c.whole(), m.whole(), x.whole(), Const(xs[1], dt))
        f = p.base("f_" + dt, dt, k)
        p.instr("WHERE", f.whole(), Const(False, "bool"), x.whole(), y.view(k - 1, (k,), (-1,)))
        p.instr("WHERE", y.whole(), m.whole(), y.whole(), x.whole())  # in place
        for b in (x, m, pick):
            p.free(b)
        for b in (o, c, f, y):
            p.sync(b)
    return [p]


def reduction_values(op, dt, n):
    """n values whose reduction is exact in any order (sums of small numbers, products of
    powers of two), with a NaN and infinities for MINIMUM/MAXIMUM of floats."""
    rng = random.Random(zlib.crc32(("%s/%s" % (op, dt)).encode()))  # stable across runs
    if dt == "bool":
        return [rng.random() < 0.7 for _ in range(n)]
    mul = op.startswith("MULTIPLY")
    if is_int(dt):
        if mul:
            small = [1, 2, 3, -1, -2, 5] if np.iinfo(dt).min else [1, 2, 3, 5, 7]
        else:
            small = [-3, -1, 0, 1, 2, 5, 7, 100, -100] if np.iinfo(dt).min else \
                [0, 1, 2, 5, 7, 100, 200]
        small = [v for v in small if np.iinfo(dt).min <= v <= np.iinfo(dt).max]
        if op.startswith("BITWISE"):
            small = int_pool(dt)
        return [rng.choice(small) for _ in range(n)]
    if is_float(dt):
        if mul:
            vals = [rng.choice([1.0, -1.0, 2.0, 0.5, -2.0, 4.0]) for _ in range(n)]
        else:
            vals = [rng.choice([-3.0, -1.5, 0.0, 0.5, 1.0, 2.25, 7.0, 100.0]) for _ in range(n)]
        if op.startswith(("MINIMUM", "MAXIMUM")):
            vals[5], vals[10], vals[17] = NAN, INF, -INF
        return vals
    if mul:
        return [rng.choice([1 + 0j, 1j, -1 + 0j, -1j, 2 + 0j, 0.5 + 0j]) for _ in range(n)]
    return [complex(rng.randint(-4, 4), rng.randint(-4, 4)) for _ in range(n)]


def identity_of(op):
    """Whether the reduction has an identity (so it is defined over an empty axis)."""
    return not op.startswith(("MINIMUM", "MAXIMUM"))


def reduction_case(op):
    """Reductions and scans over every axis of a 3-D and a negatively strided 2-D view, a 1-D
    view to 0-d, and (where defined) an empty axis."""
    info = OPS[op]
    scan = info.family == "SCAN"
    p = Program("op_" + op, "%s over every axis of 3-D and 2-D views, 1-D, empty" % op)
    for dt in info.types:
        b = p.array("x_" + dt, dt, reduction_values(op, dt, 24))
        cube, mat = b.shaped((2, 3, 4)), b.view(20, (3, 4), (-6, 1))
        line = b.view(23, (24,), (-1,))
        jobs = [("a%d" % k, cube, k) for k in range(3)]
        jobs += [("m%d" % k, mat, k) for k in range(2)] + [("l", line, 0)]
        if identity_of(op):
            jobs.append(("e", b.view(0, (3, 0), (4, 1)), 1))
        for tag, v, axis in jobs:
            shape = v.shape if scan else v.shape[:axis] + v.shape[axis + 1:]
            n = int(np.prod(shape, dtype=np.int64))
            o = p.base("%s_%s_%s" % (tag, "s" if scan else "r", dt), dt, n)
            out = o.shaped(shape)
            p.instr(op, out, v, Const(axis, "int64"))
            if n == 0:  # an empty scan writes nothing: give the base a (vacuous) write
                p.instr("IDENTITY", o.whole(), Const(0, dt))
            p.sync(o)
        p.free(b)
    return [p]


def range_case():
    p = Program("op_RANGE", "RANGE into whole bases, 2-D and reversed views, with wrap-around")
    for dt in OPS["RANGE"].types:
        a = p.base("a_" + dt, dt, 10)
        p.instr("RANGE", a.whole())
        b = p.base("b_" + dt, dt, 20)
        p.instr("IDENTITY", b.whole(), Const(7, dt))
        p.instr("RANGE", b.view(1, (3, 4), (5, 1)))
        c = p.base("c_" + dt, dt, 10)
        p.instr("RANGE", c.view(9, (10,), (-1,)))
        d = p.base("d_" + dt, dt, 300)
        p.instr("RANGE", d.whole())
        for base in (a, b, c, d):
            p.sync(base)
    return [p]


def indexing_case(op):
    """GATHER, SCATTER, COND_SCATTER and the *_AT accumulations on every dtype, through strided
    views (the accumulations with a repeated index)."""
    p = Program("op_" + op, "%s on every dtype, through strided views" % op)
    for dt in OPS[op].types:
        vals = (pool(dt) * 6)[:6]
        src = p.array("s_" + dt, dt, vals)
        if op == "GATHER":
            idx = p.array("i_" + dt, "int64", [5, 0, 3, 1], (2, 2))
            o = p.base("o_" + dt, dt, 4)
            p.instr(op, o.shaped((2, 2)), src.view(3, (2, 3), (-3, 1)), idx)
        else:
            o = p.base("o_" + dt, dt, 8)
            p.instr("IDENTITY", o.whole(), Const(vals[1], dt))
            idx = p.array("i_" + dt, "int64", [4, 1, 4, 5] if op.endswith("_AT") else [4, 1, 0, 5])
            ins = [src.view(5, (4,), (-1,)), idx]
            if op == "COND_SCATTER":
                ins.append(p.array("k_" + dt, "bool", [True, False, True, True]))
            p.instr(op, o.view(7, (2, 3), (-3, -1)), *ins)
        p.free(src)
        p.sync(o)  # exact: NumPy's indexed loops round each product (no FMA), as the engine does
    return [p]


def matmul_case():
    p = Program("op_MATMUL", "MATMUL (2,3) x (3,2) with a transposed right operand")
    for dt in OPS["MATMUL"].types:
        if is_complex(dt):
            av = [1 + 1j, 2 - 1j, 0j, -1 + 0j, 3j, 2 + 0j]
            bv = [2 + 0j, 1j, -1 - 1j, 1 + 0j, 0.5 + 0j, 3 + 0j]
        elif dt in CLASSES["U"]:
            av, bv = [1, 2, 0, 4, 3, 2], [2, 1, 7, 1, 5, 3]
        else:
            av, bv = [1, 2, 0, -4, 3, 2], [2, -1, 7, 1, 5, -3]
        a = p.array("a_" + dt, dt, av, (2, 3))
        bt = p.array("b_" + dt, dt, bv)
        o = p.base("o_" + dt, dt, 4)
        p.instr("MATMUL", o.shaped((2, 2)), a, bt.view(0, (3, 2), (1, 3)))
        p.sync(o)
    return [p]


def sorting_case(op):
    """SORT and ARGSORT along both axes of a strided 2-d view, SEARCHSORTED of every value of
    the pool (NaN, infinities, ties) in the sorted pool, on every dtype."""
    p = Program("op_" + op, "%s on every dtype, NaN last, ties in order" % op)
    for dt in OPS[op].types:
        vals = (pool(dt) * 12)[:12]
        if op in ("SORT", "ARGSORT"):
            src = p.array("s_" + dt, dt, vals[::-1] + vals[:4])
            out_dt = dt if op == "SORT" else "int64"
            for axis in (0, 1):
                o = p.base("o%d_%s" % (axis, dt), out_dt, 12)
                p.instr(op, o.shaped((3, 4)), src.view(15, (3, 4), (-4, -1)), Const(axis, "int64"))
                p.sync(o)
            p.free(src)
        else:
            a = p.array("a_" + dt, dt, list(np.sort(np.array(vals, dtype=dt), kind="stable")))
            v = p.array("v_" + dt, dt, vals)
            o = p.base("o_" + dt, "int64", 12)
            p.instr(op, o.shaped((3, 4)), a, v.view(0, (3, 4), (4, 1)))
            p.free(a)
            p.free(v)
            p.sync(o)
    return [p]


def system_case():
    """FREE and SYNC of every dtype, on their own."""
    p = Program("op_SYSTEM", "FREE and SYNC of a base of every dtype")
    for dt in OPS["FREE"].types:
        a = p.array("a_" + dt, dt, pool(dt)[:2])
        t = p.base("t_" + dt, dt, 2)
        p.instr("IDENTITY", t.whole(), a.whole())
        p.free(t)
        p.sync(a)
        p.free(a)
    return [p]


def random_case():
    p = Program("random", "RANDOM: the same (seed, counter) gives the same stream; element i "
                "uses counter + i;\nanother seed gives another stream; views; bits look uniform")
    n = 2048
    r1, r2, r3, r4 = (p.base("r%d" % k, "uint64", m) for k, m in
                      ((1, n), (2, n), (3, n - 3), (4, n)))
    seed, zero = Const(42, "uint64"), Const(0, "uint64")
    p.instr("RANDOM", r1.whole(), seed, zero)
    p.instr("RANDOM", r2.whole(), seed, zero)
    p.instr("RANDOM", r3.whole(), seed, Const(3, "uint64"))
    p.instr("RANDOM", r4.whole(), Const(43, "uint64"), zero)
    r5 = p.base("r5", "uint64", n)
    p.instr("RANDOM", r5.shaped((32, 64)), seed, zero)
    r6 = p.base("r6", "uint64", n)
    p.instr("RANDOM", r6.view(n - 1, (n,), (-1,)), seed, zero)

    def all_of(name, op, a, b):
        e = p.base("e_" + name, "bool", a.size)
        p.instr(op, e.whole(), a, b)
        s = p.base(name, "bool", 1)
        p.instr("LOGICAL_AND_REDUCE", s.view(0, (), ()), e.whole(), Const(0, "int64"))
        p.free(e)
        p.sync(s)

    all_of("same_seed_same_stream", "EQUAL", r1.whole(), r2.whole())
    all_of("counter_shifts_stream", "EQUAL", r3.whole(), r1.view(3, (n - 3,), (1,)))
    all_of("other_seed_other_stream", "NOT_EQUAL", r4.whole(), r1.whole())
    all_of("row_major_in_2d_view", "EQUAL", r5.whole(), r1.whole())
    all_of("reversed_view", "EQUAL", r6.view(n - 1, (n,), (-1,)), r1.whole())
    for name, op, c in (("top_bit_count", "RIGHT_SHIFT", 63), ("low_bit_count", "BITWISE_AND", 1)):
        bits = p.base("b_" + name, "uint64", n)
        p.instr(op, bits.whole(), r1.whole(), Const(c, "uint64"))
        s = p.base(name, "uint64", 1)
        p.instr("ADD_REDUCE", s.view(0, (), ()), bits.whole(), Const(0, "int64"))
        p.free(bits)
        p.sync(s, tol=(0, 120), expect=[n // 2])  # 5 standard deviations
    return [p]


def views_case():
    p = Program("views", "element-wise and reductions through unusual views")
    a = p.array("a", "float64", [1.5, -2.0, 3.0, 0.25])
    b = p.array("b", "float64", [10.0, 20.0, -30.0])
    m = p.base("bcast", "float64", 12)  # (3,4) = column b + row a, both stride 0
    p.instr("ADD", m.shaped((3, 4)), b.view(0, (3, 4), (1, 0)), a.view(0, (3, 4), (0, 1)))
    p.sync(m)
    r = p.base("rev", "float64", 12)  # reversed output of a reversed 2-D input
    p.instr("MULTIPLY", r.view(11, (3, 4), (-4, -1)), m.view(11, (3, 4), (-4, -1)),
            Const(2.0, "float64"))
    p.sync(r)
    t = p.base("transposed", "float64", 12)
    p.instr("SUBTRACT", t.shaped((4, 3)), m.view(0, (4, 3), (1, 4)), Const(1.0, "float64"))
    p.sync(t)
    z = p.base("zero_d", "float64", 3)
    p.instr("IDENTITY", z.whole(), Const(-1.0, "float64"))
    p.instr("MULTIPLY", z.view(1, (), ()), a.view(2, (), ()), b.view(1, (), ()))
    p.instr("ADD", z.view(2, (), ()), z.view(1, (), ()), Const(0.5, "float64"))
    p.sync(z)
    inplace = p.array("inplace", "int32", [1, -2, 3, -4, 5, -6])
    p.instr("MULTIPLY", inplace.whole(), inplace.whole(), inplace.whole())
    p.instr("ADD", inplace.view(5, (3,), (-2,)), inplace.view(5, (3,), (-2,)), Const(100, "int32"))
    p.sync(inplace)
    # a 4-D view with mixed strides, reduced over a broadcast axis
    big = p.array("big", "int64", list(range(-12, 12)))
    four = p.base("four_d", "int64", 24)
    p.instr("NEGATIVE", four.shaped((2, 2, 3, 2)), big.view(23, (2, 2, 3, 2), (-1, -2, -4, -12)))
    p.sync(four)
    sb = p.base("sum_broadcast", "int64", 3)
    p.instr("ADD_REDUCE", sb.whole(), big.view(4, (3, 5), (1, 0)), Const(1, "int64"))
    p.sync(sb)
    # empty views: nothing changes, and reductions over nothing give the identity
    e = p.array("untouched", "float64", [4.0, 5.0, 6.0])
    p.instr("ADD", e.view(1, (0,), (1,)), e.view(1, (0,), (1,)), Const(1.0, "float64"))
    p.instr("EXP", e.view(3, (0, 2), (1, 1)), e.view(0, (0, 2), (1, 1)))
    p.sync(e)
    er = p.base("empty_sum", "float64", 3)
    p.instr("ADD_REDUCE", er.whole(), e.view(0, (3, 0), (1, 1)), Const(1, "int64"))
    p.sync(er)
    ep = p.base("empty_product", "int16", 1)
    x16 = p.array("x16", "int16", [3])
    p.instr("MULTIPLY_REDUCE", ep.view(0, (), ()), x16.view(0, (0,), (1,)), Const(0, "int64"))
    p.sync(ep)
    nothing = p.base("nothing", "float64", 0)
    p.instr("IDENTITY", nothing.whole(), Const(1.0, "float64"))
    p.sync(nothing)
    return [p]


def error_cases():
    """Programs that must stop with a user error: out-of-range indices, SYNC of nothing."""
    def gather(p):
        p.array("s", "float64", [1.0, 2.0, 3.0])
        p.array("i", "int64", [0, 3])
        p.base("o", "float64", 2)
        p.raw("GATHER o, s, i")
        p.raw("SYNC o")

    def scatter(p):
        p.array("s", "int32", [1, 2])
        p.array("i", "int64", [1, 100])
        o = p.base("o", "int32", 4)
        p.instr("IDENTITY", o.whole(), Const(0, "int32"))
        p.raw("SCATTER o, s, i")
        p.raw("SYNC o")

    def cond_scatter(p):
        p.array("s", "uint8", [1, 2])
        p.array("i", "int64", [4, 1])
        p.array("k", "bool", [True, True])
        o = p.base("o", "uint8", 4)
        p.instr("IDENTITY", o.whole(), Const(0, "uint8"))
        p.raw("COND_SCATTER o, s, i, k")
        p.raw("SYNC o")

    def unwritten(p):
        p.base("a", "float64", 2)
        b = p.base("b", "float64", 2)
        p.instr("IDENTITY", b.whole(), Const(1.0, "float64"))
        p.raw("SYNC a")

    out = []
    for name, text, build in (("gather_index", "index", gather),
                              ("scatter_index", "index", scatter),
                              ("cond_scatter_index", "index", cond_scatter),
                              ("sync_unwritten", "nothing writes base a", unwritten)):
        p = Program("err_" + name)
        build(p)
        p.error = text
        out.append(p)
    return out


# --- multi-instruction programs (also run under every partition algorithm) ---------------------

def ramp(p, name, dt, n, scale, shift):
    """A base holding scale * i + shift, built with RANGE (a few instructions, any size)."""
    b = p.base(name, dt, n)
    p.instr("RANGE", b.whole())
    p.instr("MULTIPLY", b.whole(), b.whole(), Const(scale, dt))
    p.instr("ADD", b.whole(), b.whole(), Const(shift, dt))
    return b


def prog_paper_fig3():
    p = Program("prog_paper_fig3", "the program of Fig. 3 of the fusion paper, with values")
    a, b, t = p.base("A", "float64", 4), p.base("B", "float64", 4), p.base("T", "float64", 4)
    d, e = p.base("D", "float64", 5), p.base("E", "float64", 5)
    f64 = lambda v: Const(v, "float64")  # noqa: E731
    p.instr("IDENTITY", a.whole(), f64(1.0))
    p.instr("IDENTITY", b.whole(), f64(2.0))
    p.instr("RANGE", d.whole())
    p.instr("IDENTITY", e.whole(), f64(-1.5))
    head, tail = (lambda x: x.view(0, (4,), (1,))), (lambda x: x.view(1, (4,), (1,)))
    p.instr("ADD", a.whole(), a.whole(), head(d))
    p.instr("IDENTITY", a.whole(), head(d))
    p.instr("ADD", b.whole(), b.whole(), head(e))
    p.instr("IDENTITY", b.whole(), head(e))
    p.instr("MULTIPLY", t.whole(), a.whole(), b.whole())
    p.instr("MAXIMUM", tail(d), t.whole(), tail(e))
    p.instr("MINIMUM", tail(e), t.whole(), tail(d))
    for x in (a, b, e, t):
        p.free(x)
    p.sync(d)
    p.free(d)
    return p


def prog_chain():
    p = Program("prog_chain", "10 element-wise ops, 8 temporaries over 3 inputs (fused and "
                "contracted)")
    n = 64
    a, b, c = ramp(p, "a", "float64", n, 0.5, -3.0), ramp(p, "b", "float64", n, -0.25, 7.0), \
        ramp(p, "c", "float64", n, 1.0, 1.0)
    w = lambda x: x.whole()  # noqa: E731
    t = [p.base("t%d" % k, "float64", n) for k in range(8)]
    o = p.base("out", "float64", n)
    p.instr("MULTIPLY", w(t[0]), w(a), w(b))
    p.instr("ADD", w(t[1]), w(t[0]), w(c))
    p.instr("MULTIPLY", w(t[2]), w(t[1]), Const(2.0, "float64"))
    p.instr("SUBTRACT", w(t[3]), w(t[2]), w(a))
    p.instr("MAXIMUM", w(t[4]), w(t[3]), w(b))
    p.instr("MULTIPLY", w(t[5]), w(t[4]), w(t[4]))
    p.instr("DIVIDE", w(t[6]), w(t[5]), w(c))
    p.instr("ABSOLUTE", w(t[7]), w(t[6]))
    p.instr("SQRT", w(t[7]), w(t[7]))
    p.instr("ADD", w(o), w(t[7]), w(t[0]))
    for x in t:
        p.free(x)
    p.sync(o)
    return p


def prog_sum_products():
    p = Program("prog_sum_products", "sums of a product chain over each axis and over all")
    a, b = ramp(p, "a", "int64", 24, 3, -20), ramp(p, "b", "int64", 24, -2, 9)
    prod, sq = p.base("prod", "int64", 24), p.base("sq", "int64", 24)
    p.instr("MULTIPLY", prod.whole(), a.whole(), b.whole())
    p.instr("ADD", sq.whole(), prod.whole(), Const(5, "int64"))
    p.free(prod)
    outs = []
    for axis, shape in ((0, (6,)), (1, (4,))):
        o = p.base("sum_axis%d" % axis, "int64", shape[0])
        p.instr("ADD_REDUCE", o.whole(), sq.shaped((4, 6)), Const(axis, "int64"))
        outs.append(o)
    total = p.base("total", "int64", 1)
    p.instr("ADD_REDUCE", total.view(0, (), ()), sq.whole(), Const(0, "int64"))
    mx = p.base("max_of_cube", "int64", 6)
    p.instr("MAXIMUM_REDUCE", mx.shaped((2, 3)), sq.shaped((2, 3, 4)), Const(2, "int64"))
    p.free(sq)
    for o in outs + [total, mx]:
        p.sync(o)
    return p


def prog_fused_reductions():
    """Reductions of element-wise chains whose temporaries are freed: fused and contracted,
    the sums accumulated from registers (split over threads: the inputs are large enough)."""
    p = Program("prog_fused_reductions", "sum(|new - old|), row and column sums of an int "
                "chain, max of a where, at sizes that split")
    n = 3 * 2 ** 15
    new, old = ramp(p, "new", "float64", n, 0.5, 1.0), ramp(p, "old", "float64", n, 0.25, 0.0)
    d, ad = p.base("d", "float64", n), p.base("ad", "float64", n)
    p.instr("SUBTRACT", d.whole(), new.whole(), old.whole())
    p.instr("ABSOLUTE", ad.whole(), d.whole())
    delta = p.base("sum_abs_change", "float64", 1)  # quarters: exact in any order
    p.instr("ADD_REDUCE", delta.view(0, (), ()), ad.whole(), Const(0, "int64"))
    p.free(d)
    p.free(ad)
    x, y = ramp(p, "x", "int64", n, 3, -7), ramp(p, "y", "int64", n, -1, 500)
    q = p.base("q", "int64", n)
    p.instr("MULTIPLY", q.whole(), x.whole(), y.whole())
    p.instr("ADD", q.whole(), q.whole(), Const(3, "int64"))
    rows, cols = p.base("row_sums", "int64", 96), p.base("col_sums", "int64", 1024)
    p.instr("ADD_REDUCE", rows.whole(), q.shaped((96, 1024)), Const(1, "int64"))
    q2 = p.base("q2", "int64", n)
    p.instr("SUBTRACT", q2.whole(), x.whole(), y.whole())
    p.instr("ADD_REDUCE", cols.whole(), q2.shaped((96, 1024)), Const(0, "int64"))
    p.free(q)
    p.free(q2)
    k, w = p.base("k", "bool", n), p.base("w", "int64", n)
    p.instr("LESS", k.whole(), x.whole(), y.whole())
    p.instr("WHERE", w.whole(), k.whole(), x.whole(), y.whole())
    mx = p.base("max_where", "int64", 1)
    p.instr("MAXIMUM_REDUCE", mx.view(0, (), ()), w.whole(), Const(0, "int64"))
    p.free(k)
    p.free(w)
    for o in (delta, rows, cols, mx):
        p.sync(o)
    return p


def fused_sum_exp():
    """sum(exp(a) * b), fused and contracted. Not a prog_ case: the vectorized exp and the
    summation order may change the last bits, so it is compared with a tolerance only."""
    p = Program("fused_sum_exp", "sum(exp(a) * b) and its row sums, temporaries freed")
    n = 3 * 2 ** 15
    a, b = ramp(p, "a", "float64", n, 1e-5, -0.5), ramp(p, "b", "float64", n, 0.25, -3000.0)
    t, u = p.base("t", "float64", n), p.base("u", "float64", n)
    p.instr("EXP", t.whole(), a.whole())
    p.instr("MULTIPLY", u.whole(), t.whole(), b.whole())
    s = p.base("sum_exp_a_b", "float64", 1)
    p.instr("ADD_REDUCE", s.view(0, (), ()), u.whole(), Const(0, "int64"))
    p.free(t)
    p.free(u)
    t2, u2 = p.base("t2", "float64", n), p.base("u2", "float64", n)
    p.instr("EXP", t2.whole(), a.whole())
    p.instr("MULTIPLY", u2.whole(), t2.whole(), b.whole())
    rows = p.base("row_sums", "float64", 3)
    p.instr("ADD_REDUCE", rows.whole(), u2.shaped((3, 2 ** 15)), Const(1, "int64"))
    p.free(t2)
    p.free(u2)
    p.sync(s, (1e-12, 1e-6))
    p.sync(rows, (1e-12, 1e-6))
    return p


def prog_stencil():
    p = Program("prog_stencil", "three steps of a 1-D heat stencil through shifted views")
    n = 16
    u = p.base("u", "float64", n)
    p.instr("RANGE", u.whole())
    p.instr("MULTIPLY", u.whole(), u.whole(), u.whole())
    for step in range(3):
        t = p.base("t%d" % step, "float64", n - 2)
        h = p.base("h%d" % step, "float64", n - 2)
        p.instr("ADD", t.whole(), u.view(0, (n - 2,), (1,)), u.view(2, (n - 2,), (1,)))
        p.instr("MULTIPLY", t.whole(), t.whole(), Const(0.25, "float64"))
        p.instr("MULTIPLY", h.whole(), u.view(1, (n - 2,), (1,)), Const(0.5, "float64"))
        p.instr("ADD", u.view(1, (n - 2,), (1,)), t.whole(), h.whole())
        p.free(t)
        p.free(h)
    p.sync(u)
    return p


def prog_reduce_broadcast():
    p = Program("prog_reduce_broadcast", "column sums broadcast back, row maxima, scans")
    x = ramp(p, "x", "int64", 24, 5, -40)
    cs, centered = p.base("colsum", "int64", 6), p.base("centered", "int64", 24)
    p.instr("ADD_REDUCE", cs.whole(), x.shaped((4, 6)), Const(0, "int64"))
    p.instr("SUBTRACT", centered.shaped((4, 6)), x.shaped((4, 6)), cs.view(0, (4, 6), (0, 1)))
    rm, cum = p.base("rowmax", "int64", 4), p.base("cum", "int64", 24)
    p.instr("MAXIMUM_REDUCE", rm.whole(), centered.shaped((4, 6)), Const(1, "int64"))
    p.instr("ADD_ACCUMULATE", cum.shaped((4, 6)), centered.view(23, (4, 6), (-6, -1)),
            Const(1, "int64"))
    p.instr("MULTIPLY", cum.whole(), cum.whole(), Const(3, "int64"))
    p.free(centered)
    for o in (cs, rm, cum):
        p.sync(o)
    return p


def prog_gather_scatter():
    p = Program("prog_gather_scatter", "computed indices, a gather, arithmetic, a scatter back")
    src = ramp(p, "src", "float64", 12, 1.5, -4.0)
    idx = ramp(p, "idx", "int64", 6, 5, 1)
    p.instr("MOD", idx.whole(), idx.whole(), Const(12, "int64"))
    g, r = p.base("g", "float64", 6), p.base("res", "float64", 12)
    p.instr("GATHER", g.whole(), src.whole(), idx.whole())
    p.instr("MULTIPLY", g.whole(), g.whole(), g.whole())
    p.instr("IDENTITY", r.whole(), Const(-1.0, "float64"))
    p.instr("SCATTER", r.view(11, (12,), (-1,)), g.whole(), idx.whole())
    p.free(g)
    p.sync(r)
    p.sync(idx)
    return p


def prog_paired_matvec():
    p = Program("prog_paired_matvec", "mvt: x1 += A y1 and x2 += y2 A (the CPU engine's one pass "
                "over A), then x1 A, which reads the first product's result (apart)")
    m, n = 70, 66
    a = ramp(p, "A", "float64", m * n, 1.0, -2000.0)  # integer values: sums exact in any order
    y1, y2 = ramp(p, "y1", "float64", n, 1.0, -30.0), ramp(p, "y2", "float64", m, -1.0, 33.0)
    x1, x2 = ramp(p, "x1", "float64", m, 2.0, 5.0), ramp(p, "x2", "float64", n, 3.0, -7.0)
    t1, t2, t3 = p.base("t1", "float64", m), p.base("t2", "float64", n), p.base("t3", "float64", n)
    p.instr("MATMUL", t1.shaped((m, 1)), a.shaped((m, n)), y1.shaped((n, 1)))
    p.instr("ADD", x1.whole(), x1.whole(), t1.whole())
    p.free(t1)
    p.instr("MATMUL", t2.shaped((1, n)), y2.shaped((1, m)), a.shaped((m, n)))
    p.instr("ADD", x2.whole(), x2.whole(), t2.whole())
    p.free(t2)
    p.instr("MATMUL", t3.shaped((1, n)), x1.shaped((1, m)), a.shaped((m, n)))
    p.sync(x1)
    p.sync(x2)
    p.sync(t3)
    return p


def prog_sync_midway():
    p = Program("prog_sync_midway", "a base SYNCed, then written again and SYNCed again, "
                "then FREEd")
    a = ramp(p, "a", "int32", 8, 3, -5)
    p.sync(a)
    b = p.base("b", "int32", 8)
    p.instr("MULTIPLY", b.whole(), a.whole(), a.whole())
    p.instr("SUBTRACT", a.whole(), b.whole(), a.whole())
    p.sync(a)
    p.free(a)
    p.sync(b)
    return p


def prog_random(seed, dt):
    """A random program over a few bases: element-wise ops through several views, temporaries
    with FREEs, (int) reductions broadcast back. Inputs that overlap an output are identical
    to it (the data-parallel rule)."""
    rng = random.Random(seed)
    p = Program("prog_random_%s_%d" % (dt, seed), "random program (seed %d, %s)" % (seed, dt))
    n = 24
    live = [ramp(p, "in%d" % k, dt, n, rng.choice([1, 2, -3]), rng.choice([-7, 0, 4]))
            for k in range(3)]
    layouts = [lambda b: b.whole(), lambda b: b.shaped((4, 6)), lambda b: b.shaped((2, 3, 4)),
               lambda b: b.view(23, (24,), (-1,)), lambda b: b.view(0, (4, 6), (1, 4)),
               lambda b: b.view(0, (20,), (1,)), lambda b: b.view(4, (20,), (1,))]
    same = {0: [0, 3], 1: [1, 4], 2: [2], 5: [5, 6], 6: [5, 6], 3: [0, 3], 4: [1, 4]}
    if dt == "int64":
        binary = ["ADD", "SUBTRACT", "MULTIPLY", "MAXIMUM", "MINIMUM", "BITWISE_XOR"]
        unary = ["NEGATIVE", "ABSOLUTE", "IDENTITY"]
        consts = [1, 2, -3, 5]
    else:
        binary = ["ADD", "SUBTRACT", "MULTIPLY", "DIVIDE", "MAXIMUM", "MINIMUM"]
        unary = ["NEGATIVE", "ABSOLUTE", "SQRT", "FLOOR", "IDENTITY"]
        consts = [0.5, 2.0, -3.0, 1.25]
    temps = 0

    def overlaps(u, v):
        if u.base is not v.base or not u.size or not v.size:
            return False
        return bool(np.intersect1d(u.indices(), v.indices()).size)

    for _ in range(rng.randint(12, 24)):
        kind = rng.random()
        lay = rng.randrange(len(layouts))
        if kind < 0.4 or len(live) < 2:
            out_base = p.base("t%d" % temps, dt, n)
            temps += 1
            out = layouts[{5: 0, 6: 0, 3: 3}.get(lay, lay)](out_base) if lay not in (5, 6) \
                else out_base.whole()
            lay = {5: 0, 6: 0}.get(lay, lay)
        else:
            out_base = rng.choice(live[3:] or live)
            out = layouts[lay](out_base)
        ins = []
        op = rng.choice(binary if rng.random() < 0.7 else unary)
        for _k in range(2 if op in binary else 1):
            if ins and rng.random() < 0.3:
                ins.append(Const(rng.choice(consts), dt))
                continue
            cand = [layouts[rng.choice(same[lay])](b) for b in live]
            cand = [v for v in cand if v.shape == out.shape and
                    (not overlaps(v, out) or (v.offset, v.stride) == (out.offset, out.stride))]
            ins.append(rng.choice(cand) if cand else Const(rng.choice(consts), dt))
        p.instr(op, out, *ins)
        if out_base not in live:
            live.append(out_base)
        if dt == "int64" and rng.random() < 0.2:
            axis = rng.randrange(2)
            src = rng.choice(live)
            r = p.base("r%d" % temps, dt, 6 if axis == 0 else 4)
            temps += 1
            p.instr(rng.choice(["ADD_REDUCE", "MAXIMUM_REDUCE"]), r.whole(), src.shaped((4, 6)),
                    Const(axis, "int64"))
            bview = r.view(0, (4, 6), (0, 1)) if axis == 0 else r.view(0, (4, 6), (1, 0))
            dst = rng.choice(live[3:] or live)
            p.instr("ADD", dst.shaped((4, 6)), dst.shaped((4, 6)), bview)
            p.sync(r)
            p.free(r)
        if len(live) > 4 and rng.random() < 0.3:
            victim = live.pop(rng.randrange(3, len(live)))
            p.free(victim)
    for b in live:
        p.sync(b)
    return p


def programs():
    ps = [prog_paper_fig3(), prog_chain(), prog_sum_products(), prog_fused_reductions(),
          prog_stencil(),
          prog_reduce_broadcast(), prog_gather_scatter(), prog_sync_midway(),
          prog_paired_matvec()]
    ps += [prog_random(seed, "int64") for seed in range(6)]
    ps += [prog_random(seed, "float64") for seed in range(100, 104)]
    return ps


# --- main -----------------------------------------------------------------------------------

def all_cases():
    cases = []
    for name, info in OPS.items():
        if name == "IDENTITY":
            cases += identity_case()
        elif name == "WHERE":
            cases += where_case()
        elif info.family == "ELEMENTWISE":
            cases += elementwise_case(name)
        elif info.family in ("REDUCTION", "SCAN"):
            cases += reduction_case(name)
        elif info.family == "INDEXING":
            cases += indexing_case(name)
        elif info.family == "EXTENSION" and name != "MATMUL":
            cases += sorting_case(name)
    cases += range_case() + matmul_case() + system_case() + random_case() + views_case()
    cases.append(fused_sum_exp())
    return cases + error_cases() + programs()


def main():
    cases = all_cases()
    names = [c.name for c in cases]
    assert len(set(names)) == len(names)
    if CASES.exists():
        shutil.rmtree(CASES)
    CASES.mkdir(parents=True)
    for c in cases:
        c.write(CASES)
    print("wrote %d cases to %s" % (len(cases), CASES))


if __name__ == "__main__":
    main()
