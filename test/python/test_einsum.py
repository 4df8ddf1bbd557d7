"""einsum (hassium/_einsum.py) against NumPy: contractions, batches, sums, transposes."""

import warnings

import numpy as np
import pytest

import hassium
from helpers import assert_same

SIZES = {"i": 3, "j": 4, "k": 5, "l": 2, "b": 3, "m": 6}
CASES = ["ij,jk->ik", "ij,jk", "ij,kj->ik", "ji,jk->ki", "i,i->", "i,i", "i,j->ij", "ij->ji",
         "ij->", "ij->j", "ij", "ii->i", "bij,bjk->bik", "bij,jk->bik", "ij,ij->ij",
         "ij,ij->i", "ijk,jl->ikl", "ij,jk,kl->il", "i,ij,j->", "ij,jk,kl->li", "bi,bi->b",
         "ijk->kji", "ij,lm->ijlm", "ijk,ik->j", "...i,i->...", "i,i->i"]


def operands(spec, dtype, seed=0):
    rng = np.random.default_rng(seed)
    ins = spec.split("->")[0].split(",")
    out = []
    for t in ins:
        shape = tuple(SIZES.get(c, 2) for c in t.replace("...", "l"))
        v = rng.integers(-3, 4, shape) if dtype != "float64" else rng.standard_normal(shape)
        out.append(v.astype(dtype))
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "complex128"])
@pytest.mark.parametrize("spec", CASES)
def test_einsum_matches_numpy(spec, dtype):
    ops = operands(spec, dtype)
    n = np.einsum(spec, *ops)
    recorded = "..." not in spec and "ii" not in spec
    with warnings.catch_warnings():
        warnings.simplefilter("error" if recorded else "ignore", hassium.FallbackWarning)
        h = hassium.einsum(spec, *[hassium.array(o) for o in ops])
    exact = np.dtype(dtype).kind in "iu"
    assert_same(h, n, exact=exact, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_einsum_errors_and_keywords_run_through_numpy():
    a = np.ones((2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hassium.FallbackWarning)
        with pytest.raises(ValueError):
            hassium.einsum("ij,jk->ik", hassium.array(a), hassium.array(a))
        assert_same(hassium.einsum("ij->i", hassium.array(a), dtype=np.float32, casting="unsafe"),
                    np.einsum("ij->i", a, dtype=np.float32, casting="unsafe"))
