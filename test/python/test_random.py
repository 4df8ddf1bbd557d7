"""hassium.random: the NumPy API on Philox streams. The numbers differ from NumPy's by design, so
these check shapes, dtypes, ranges, reproducibility and rough distributions."""

import numpy as np
import pytest

import hassium


def test_seed_reproducible_and_streams_advance():
    hassium.random.seed(42)
    a = np.asarray(hassium.random.random(1000))
    b = np.asarray(hassium.random.random(1000))
    hassium.random.seed(42)
    a2 = np.asarray(hassium.random.random(1000))
    np.testing.assert_array_equal(a, a2)
    assert not np.array_equal(a, b)
    assert a.dtype == np.float64 and a.shape == (1000,)
    assert 0 <= a.min() and a.max() < 1


@pytest.mark.parametrize("call, shape", [
    (lambda r: r.rand(3, 4), (3, 4)), (lambda r: r.randn(5), (5,)),
    (lambda r: r.random((2, 2)), (2, 2)), (lambda r: r.uniform(1, 2, size=7), (7,)),
    (lambda r: r.normal(0, 1, (3,)), (3,)), (lambda r: r.randint(0, 5, size=(4, 2)), (4, 2)),
    (lambda r: r.randint(10, size=3), (3,)), (lambda r: r.random_sample(6), (6,)),
])
def test_shapes_and_dtypes_like_numpy(call, shape):
    h = call(hassium.random)
    n = call(np.random)
    assert h.shape == n.shape == shape
    assert h.dtype == n.dtype


def test_scalar_draws():
    x = hassium.random.random()
    assert 0 <= float(x) < 1
    assert np.ndim(hassium.random.randn()) == 0


def test_distributions():
    hassium.random.seed(1)
    u = np.asarray(hassium.random.uniform(-2, 3, size=200_000))
    assert -2 <= u.min() and u.max() < 3 and abs(u.mean() - 0.5) < 0.02
    z = np.asarray(hassium.random.normal(10, 2, size=200_000))
    assert abs(z.mean() - 10) < 0.03 and abs(z.std() - 2) < 0.03
    i = np.asarray(hassium.random.randint(-3, 4, size=100_000))
    assert i.dtype == np.int64 and set(np.unique(i)) == set(range(-3, 4))
    counts = np.bincount(i + 3)
    assert counts.min() > 13_000
    e = np.asarray(hassium.random.exponential(2.0, size=200_000))
    assert e.min() >= 0 and abs(e.mean() - 2) < 0.03


def test_default_rng():
    g1, g2 = hassium.random.default_rng(7), hassium.random.default_rng(7)
    np.testing.assert_array_equal(np.asarray(g1.random(10)), np.asarray(g2.random(10)))
    r = g1.integers(0, 10, size=(3, 3))
    assert r.shape == (3, 3) and r.dtype == np.int64
    assert 0 <= int(r.min()) and int(r.max()) < 10
    f = g1.random(5, dtype=np.float32)
    assert f.dtype == np.float32
    assert g1.standard_normal((2, 3)).shape == (2, 3)
    assert g1.normal(1, 2, size=4).shape == (4,)
    assert g1.uniform(0, 1, 3).shape == (3,)
    # methods hassium does not implement run on a NumPy generator (seeded from the stream)
    p = g1.permutation(10)
    assert sorted(np.asarray(p).tolist()) == list(range(10))


def test_errors_like_numpy():
    with pytest.raises(ValueError):
        hassium.random.randint(5, 5)
    with pytest.raises(ValueError):
        np.random.randint(5, 5)
    with pytest.raises(ValueError):
        hassium.random.seed(-1)
