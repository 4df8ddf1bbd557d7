"""Random NumPy programs (hypothesis): chains of ufuncs, slicing, in-place updates (overlapping
too), reductions, gathers and masks, run with NumPy and with hassium; every array must agree.

Values stay in [-1, 1] (every step maps bounded inputs to bounded outputs), so programs never
drift into overflow and float comparisons stay meaningful.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hassium

SHAPE = (4, 6)
# Views of a (4, 6) array that broadcast to (4, 6).
VIEWS = [
    (slice(None),), (slice(0, 1),), (slice(None), slice(2, 3)), (slice(None, None, -1),),
    (slice(None), slice(None, None, -1)), (2,), (slice(None, None, -1), slice(None, None, -1)),
    (slice(1, 2), slice(None, None, -1)),
]
UNARY = ["sin", "cos", "tanh", "negative", "absolute", "square", "rint"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]
REDUCE = ["sum", "mean", "max", "min"]
ROW_RANGES = [(0, 2), (1, 3), (2, 4), (0, 3), (1, 4)]  # pairs of equal-length row slices

ops = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(UNARY), st.integers(0, 99)),
    st.tuples(st.just("binary"), st.sampled_from(BINARY), st.integers(0, 99), st.integers(0, 99),
              st.integers(0, len(VIEWS) - 1), st.integers(0, len(VIEWS) - 1)),
    st.tuples(st.just("scalar"), st.sampled_from(BINARY), st.integers(0, 99),
              st.sampled_from([0.5, -0.25, 1, 2])),
    st.tuples(st.just("inplace"), st.sampled_from(["+=", "-=", "*="]), st.integers(0, 99),
              st.integers(0, 99), st.integers(0, len(VIEWS) - 1)),
    st.tuples(st.just("inplace_view"), st.integers(0, 99), st.integers(0, 99),
              st.integers(0, len(ROW_RANGES) - 1), st.integers(0, len(ROW_RANGES) - 1)),
    st.tuples(st.just("assign_rows"), st.integers(0, 99), st.integers(0, 99),
              st.integers(0, len(ROW_RANGES) - 1), st.integers(0, len(ROW_RANGES) - 1),
              st.booleans()),
    st.tuples(st.just("reduce"), st.sampled_from(REDUCE), st.integers(0, 99),
              st.sampled_from([None, 0, 1])),
    st.tuples(st.just("cumsum"), st.integers(0, 99), st.sampled_from([0, 1])),
    st.tuples(st.just("where"), st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("gather"), st.integers(0, 99),
              st.lists(st.integers(-4, 3), min_size=4, max_size=4)),
    st.tuples(st.just("mask_set"), st.integers(0, 99), st.integers(0, 99),
              st.sampled_from([0.0, 0.5, -1.0])),
    st.tuples(st.just("transpose_add"), st.integers(0, 99)),
    st.tuples(st.just("flush")),
)


def run_program(m, program, dtype):
    """Runs the program with module m (numpy or hassium); returns every array and result."""
    base = m.linspace(-1, 1, 24).reshape(SHAPE).astype(dtype)
    vs = [base, m.sin(m.arange(24.0).reshape(SHAPE)).astype(dtype),
          m.cos(m.arange(24.0).reshape(SHAPE) * 0.3).astype(dtype)]
    results = []

    def pick(i):
        return vs[i % len(vs)]

    for op in program:
        kind = op[0]
        if kind == "unary":
            vs.append(getattr(m, op[1])(pick(op[2])))
        elif kind == "binary":
            # One operand whole, the other a view that broadcasts: results stay (4, 6).
            a, b = pick(op[2]), pick(op[3])[VIEWS[op[5]]]
            if op[4] % 2:
                a, b = b, a
            r = getattr(m, op[1])(a, b)
            vs.append(r * 0.5 if op[1] in ("add", "subtract") else r)
        elif kind == "scalar":
            r = getattr(m, op[1])(pick(op[2]), op[3])
            vs.append(m.clip(r, -1, 1))
        elif kind == "inplace":
            a, b = pick(op[2]), pick(op[3])[VIEWS[op[4]]]
            if op[1] == "+=":
                a += b
                a *= 0.5
            elif op[1] == "-=":
                a -= b
                a *= 0.5
            else:
                a *= b
        elif kind == "inplace_view":
            (r0, r1), (s0, s1) = ROW_RANGES[op[3]], ROW_RANGES[op[4]]
            if r1 - r0 != s1 - s0:
                continue
            a = pick(op[1])
            a[r0:r1] += pick(op[2])[s0:s1]
            a[r0:r1] *= 0.5
        elif kind == "assign_rows":
            (r0, r1), (s0, s1) = ROW_RANGES[op[3]], ROW_RANGES[op[4]]
            if r1 - r0 != s1 - s0:
                continue
            a = pick(op[1])
            src = pick(op[2])[s0:s1]
            a[r0:r1] = src[::-1] if op[5] else src
        elif kind == "reduce":
            a = pick(op[2])
            r = getattr(a, op[1])(axis=op[3], keepdims=op[3] is not None)
            results.append(r)
            if op[1] == "sum":
                r = r / (a.size if op[3] is None else a.shape[op[3]])
            vs.append((a - r) * 0.5)
        elif kind == "cumsum":
            a = pick(op[1])
            vs.append(m.cumsum(a, axis=op[2]) / SHAPE[op[2]])
        elif kind == "where":
            a, b, c = pick(op[1]), pick(op[2]), pick(op[3])
            vs.append(m.where(a > b, b, c))
        elif kind == "gather":
            vs.append(pick(op[1])[op[2]])
        elif kind == "mask_set":
            a, mask = pick(op[1]), pick(op[2]) > 0
            a[mask] = op[3]
        elif kind == "transpose_add":
            a = pick(op[1])
            sq = a[:, :4]
            vs.append(m.concatenate([(sq + sq.T) * 0.5, a[:, 4:]], axis=1))
        elif kind == "flush":
            if m is hassium:
                hassium.flush()
    return vs + results


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(program=st.lists(ops, min_size=1, max_size=14),
       dtype=st.sampled_from(["float64", "float32"]))
def test_random_programs_match_numpy(program, dtype):
    expected = run_program(np, program, dtype)
    got = run_program(hassium, program, dtype)
    rtol = 1e-9 if dtype == "float64" else 2e-4
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        g = np.asarray(g)
        assert g.shape == np.shape(e), f"value {k}: shape {g.shape} != {np.shape(e)}"
        assert g.dtype == np.asarray(e).dtype, f"value {k}: dtype {g.dtype} != {np.asarray(e).dtype}"
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol, err_msg=f"value {k} of {program}")
