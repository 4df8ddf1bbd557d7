"""Vector math: every transcendental ufunc hassium records runs at the host's vector width
(libmvec's variants in the fused kernels) within 4 ulp of the correctly rounded result over its
whole domain, and treats NaN, infinities, zeros and subnormals as NumPy does.

The reference is the long double (x87, 64-bit mantissa) function of the same input: its own
error is ~2**-11 ulp of a double, far below what is checked. Inputs sweep the domain by
exponent (uniformly over the binades, both signs where the function takes them), subnormals
included, so both the vector loop body and its scalar remainder see every range."""
import warnings

import numpy as np
import pytest

import hassium

MAX_ULP = 4.0
N = 20000


def sweep(rng, lo_exp, hi_exp, n=N, signs=(1, -1)):
    v = rng.uniform(1, 2, n) * 2.0 ** np.floor(rng.uniform(lo_exp, hi_exp, n))
    return np.concatenate([v * s for s in signs])


def domains(rng):
    big = (-1074, 1023)
    return {
        "exp": sweep(rng, -1080, 10), "exp2": sweep(rng, -1080, 10),
        "expm1": sweep(rng, -1080, 10), "log": sweep(rng, *big, signs=(1,)),
        "log2": sweep(rng, *big, signs=(1,)), "log10": sweep(rng, *big, signs=(1,)),
        "log1p": np.concatenate([sweep(rng, *big, signs=(1,)), -rng.uniform(0, 1, 2000)]),
        "sin": sweep(rng, -1074, 60), "cos": sweep(rng, -1074, 60), "tan": sweep(rng, -1074, 60),
        "arcsin": rng.uniform(-1, 1, N), "arccos": rng.uniform(-1, 1, N),
        "arctan": sweep(rng, *big), "sinh": sweep(rng, -1074, 10), "cosh": sweep(rng, -1074, 10),
        "tanh": sweep(rng, -1074, 6), "arcsinh": sweep(rng, *big),
        "arccosh": 1 + np.abs(sweep(rng, -52, 1023, signs=(1,))),
        "arctanh": rng.uniform(-1, 1, N), "cbrt": sweep(rng, *big),
        "sqrt": sweep(rng, *big, signs=(1,)),
    }


def ulp_errors(got, ref, dtype):
    """|got - ref| in units of the last place of ref in dtype (subnormal spacing at the
    bottom)."""
    f = np.finfo(dtype)
    ref = ref.astype(np.longdouble)
    e = np.floor(np.log2(np.maximum(np.abs(ref), np.longdouble(f.tiny))))
    ulp = np.maximum(np.ldexp(np.longdouble(1), (e - f.nmant).astype(int)),
                     np.longdouble(f.smallest_subnormal))
    return np.abs(got.astype(np.longdouble) - ref) / ulp


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_functions_within_4_ulp(dtype):
    rng = np.random.default_rng(11)
    worst = {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        for name, x in domains(rng).items():
            x = x.astype(dtype)
            ref = getattr(np, name)(x.astype(np.longdouble))
            got = np.asarray(getattr(hassium, name)(hassium.asarray(x)))
            ok = np.isfinite(ref) & (np.abs(ref) < np.finfo(dtype).max)
            err = ulp_errors(got[ok], ref[ok], dtype)
            worst[name] = float(err.max())
            assert err.max() <= MAX_ULP, (name, x[ok][np.argmax(err)], worst[name])
    assert len(worst) == 21


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binary_functions_within_4_ulp(dtype):
    """arctan2, hypot, power within 4 ulp; logaddexp and logaddexp2, NumPy's formula (whose own
    error is ~15 ulp where exp(-|d|) is near the precision), within 4 ulp of NumPy's error."""
    rng = np.random.default_rng(12)
    x = sweep(rng, -60, 60).astype(dtype)
    y = sweep(rng, -60, 60)[::-1].astype(dtype)
    cases = {"arctan2": (x, y), "hypot": (x, y),
             "power": (np.abs(x), rng.uniform(-30, 30, x.size).astype(dtype)),
             "logaddexp": (x / 2**50, y / 2**50), "logaddexp2": (x / 2**50, y / 2**50)}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        for name, (a, b) in cases.items():
            ref = getattr(np, name)(a.astype(np.longdouble), b.astype(np.longdouble))
            got = np.asarray(getattr(hassium, name)(hassium.asarray(a), hassium.asarray(b)))
            ok = np.isfinite(ref) & (np.abs(ref) < np.finfo(dtype).max)
            err = ulp_errors(got[ok], ref[ok], dtype)
            allowed = MAX_ULP
            if name.startswith("logaddexp"):
                allowed += ulp_errors(getattr(np, name)(a, b)[ok], ref[ok], dtype)
            assert np.all(err <= allowed), (name, float(err.max()))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_special_values_as_numpy(dtype):
    """NaN, +-inf, +-0, subnormals, the largest and smallest normals: NaN where NumPy gives NaN,
    the same infinities, zeros with NumPy's sign, and finite values to rounding."""
    f = np.finfo(dtype)
    s = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, f.smallest_subnormal,
                  -f.smallest_subnormal, f.tiny, -f.tiny, f.max, -f.max, 1.0, -1.0, 0.5, 2.0,
                  710.0, -745.0, 89.0, -104.0], dtype=dtype)
    x = np.tile(s, 8)  # through the vector loop body and its remainder
    names = list(domains(np.random.default_rng(0)))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error", hassium.FallbackWarning)
        for name in names:
            want = getattr(np, name)(x)
            got = np.asarray(getattr(hassium, name)(hassium.asarray(x)))
            assert np.array_equal(np.isnan(got), np.isnan(want)), name
            fin = np.isfinite(want)
            assert np.array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)]), name
            zero = want == 0
            assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero])), name
            np.testing.assert_allclose(got[fin], want[fin], rtol=8 * f.eps, atol=0, err_msg=name)
