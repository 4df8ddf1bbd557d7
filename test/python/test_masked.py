"""x[mask] with a hassium boolean mask of x's shape: a lazy selection (hassium/_masked.py).

Every idiom is checked against NumPy: masked updates (`u[m] += q`, `z[m] = z[m] ** 2 + c[m]`,
`u[m] = v[m]`) run with no flush until the data is read; everything else a user does with x[mask]
(shape, len, printing, methods, functions, another mask, a mask changed meanwhile, integer
division) gives NumPy's result and NumPy's errors."""
import numpy as np
import pytest

import hassium
from hassium._masked import MaskedSelection


def pair(a):
    return a.copy(), hassium.asarray(a.copy())


@pytest.fixture
def no_threshold_flush():
    """Flushes only where data is needed (the threshold would flush long loops anyway)."""
    old = hassium._hassium.flush_threshold()
    hassium._hassium.set_flush_threshold(10**9)
    yield
    hassium._hassium.set_flush_threshold(old)


def check(h, n):
    np.testing.assert_array_equal(np.asarray(h), n)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
def test_masked_updates_match_numpy_without_a_flush(dtype, no_threshold_flush):
    rng = np.random.default_rng(1)
    base = (rng.random((40, 30)) * 10).astype(dtype)
    un, uh = pair(base)
    hassium.flush()
    before = hassium.profile()["flushes"]
    for k in range(12):
        mn, mh = un.real > 4, uh.real > 4
        nn, nh = ~mn, ~mh
        un[mn] += 3
        uh[mh] += 3
        un[mn] *= 2
        uh[mh] *= 2
        un[mn] -= k
        uh[mh] -= k
        un[nn] = un[nn] + 1
        uh[nh] = uh[nh] + 1
    # nothing needed the data yet: the one flush is profile()'s own
    assert hassium.profile()["flushes"] == before + 1
    check(uh, un)


def test_mandelbrot_update(no_threshold_flush):
    def mandel(xp, n=48, maxiter=25):
        X = xp.linspace(-2, 1, n)
        Y = xp.linspace(-1.5, 1.5, n)
        C = X + Y[:, None] * 1j
        N = xp.zeros(C.shape, dtype=xp.int64)
        Z = xp.zeros(C.shape, dtype=xp.complex128)
        for k in range(maxiter):
            I = xp.less(abs(Z), 2.0)
            N[I] = k
            Z[I] = Z[I] ** 2 + C[I]
        N[N == maxiter - 1] = 0
        return Z, N

    Zn, Nn = mandel(np)
    hassium.flush()
    before = hassium.profile()["flushes"]
    Zh, Nh = mandel(hassium)
    assert hassium.profile()["flushes"] == before + 1  # profile()'s own
    check(Nh, Nn)
    # (z * z rounds differently in a fused kernel; 25 chaotic steps make it 1e-12)
    np.testing.assert_allclose(np.asarray(Zh), Zn, rtol=1e-9)


def test_assignment_between_arrays_and_casts():
    rng = np.random.default_rng(2)
    a = rng.random(50)
    vn, vh = pair(a * 100)
    un, uh = pair(np.zeros(50, dtype=np.int32))
    mn, mh = a > 0.5, hassium.asarray(a) > 0.5
    un[mn] = vn[mn]  # float into int32: NumPy truncates
    uh[mh] = vh[mh]
    check(uh, un)
    un[mn] = -vn[mn] * 2 + 1
    uh[mh] = -vh[mh] * 2 + 1
    check(uh, un)
    wn, wh = pair(np.arange(50.0))
    wn[mn] = (wn[mn] > 20) * 5.0  # a comparison of a selection stays a selection
    wh[mh] = (wh[mh] > 20) * 5.0
    check(wh, wn)


def test_a_selection_is_a_copy_and_answers_like_numpy():
    xn, xh = pair(np.arange(12.0).reshape(3, 4))
    mn, mh = xn % 3 == 0, xh % 3 == 0
    sn, sh = xn[mn], xh[mh]
    assert type(sh) is MaskedSelection
    xn[...] = -1
    xh[...] = -1
    assert sh.shape == sn.shape and len(sh) == len(sn) and sh.dtype == sn.dtype
    check(sh, sn)
    assert repr(sh) == repr(hassium.asarray(sn))
    assert str(sh) == str(sn)
    assert float(sh.sum()) == sn.sum() and float(hassium.sum(sh)) == sn.sum()
    check(hassium.sqrt(sh), np.sqrt(sn))
    check(sh + hassium.asarray(sn), sn + sn)  # with an array of its length: materialized
    check(hassium.asarray(sn) * sh, sn * sn)
    assert [float(v) for v in sh] == list(sn)
    check(sh[1:], sn[1:])
    assert float(sh[0]) == sn[0]
    check(sh @ hassium.asarray(sn), sn @ sn)
    sh2 = xh[mh]
    sh2[0] = 99  # writes the selection's own copy
    assert float(np.asarray(xh).max()) == -1


def test_integer_division_materializes_and_matches_numpy():
    un, uh = pair(np.arange(-10, 10))
    mn, mh = un != 0, uh != 0
    np.testing.assert_array_equal(np.asarray(uh[mh] // 3), un[mn] // 3)
    np.testing.assert_array_equal(np.asarray(7 % uh[mh]), 7 % un[mn])
    np.testing.assert_array_equal(np.asarray(uh[mh] / 2), un[mn] / 2)
    un[mn] //= 2
    sh = uh[mh]
    sh //= 2
    uh[mh] = sh
    check(uh, un)


def test_other_masks_and_changed_masks_follow_numpy():
    un, uh = pair(np.arange(10.0))
    m1n, m1h = un > 4, uh > 4
    m2n, m2h = un < 3, uh < 3
    # values selected under one mask, assigned under another of the same count
    un[m2n] = (un[m1n] * 0)[:3]
    uh[m2h] = (uh[m1h] * 0)[:3]
    check(uh, un)
    vn, vh = pair(np.arange(10.0))
    mn, mh = vn > 6, vh > 6
    sn, sh = vn[mn], vh[mh]
    mn[0] = True  # the mask changes after the selection: a count mismatch, NumPy's error
    mh[0] = True
    with pytest.raises(ValueError) as en:
        vn[mn] = sn
    with pytest.raises(ValueError) as eh:
        vh[mh] = sh
    assert str(eh.value) == str(en.value)
    with pytest.raises(ValueError):
        _ = vh[mh] + vh[vh > 7]  # selections of different lengths (4 and 2)
    for value in (np.ones((2, 2)), np.arange(3.0)):  # NumPy's rules for a[mask] = value
        with pytest.raises((TypeError, ValueError)) as en:
            vn[mn] = value
        with pytest.raises(type(en.value)) as eh:
            vh[mh] = hassium.asarray(value)
        assert str(eh.value) == str(en.value)


def test_in_place_type_errors_are_numpys():
    un, uh = pair(np.arange(6))
    mn, mh = un > 2, uh > 2
    sn, sh = un[mn], uh[mh]
    with pytest.raises(TypeError) as en:  # numpy's UFuncTypeError
        sn += 1.5
    with pytest.raises(TypeError) as eh:
        sh += 1.5
    assert str(eh.value) == str(en.value)


def test_sum_and_mean_of_a_selection_stay_lazy(no_threshold_flush):
    rng = np.random.default_rng(5)
    for dtype in ("float64", "float32", "int32", "bool", "complex128"):
        a = (rng.random(300) * 10).astype(dtype)
        xn, xh = pair(a)
        mn, mh = rng.random(300) > 0.6, None
        mh = hassium.asarray(mn)
        hassium.flush()
        before = hassium.profile()["flushes"]
        sh, mean_h = xh[mh].sum(), xh[mh].mean()
        assert hassium.profile()["flushes"] == before + 1  # profile()'s own
        sn, mean_n = xn[mn].sum(), xn[mn].mean()
        assert sh.dtype == sn.dtype and mean_h.dtype == mean_n.dtype, dtype
        np.testing.assert_allclose(np.asarray(sh), sn, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(mean_h), mean_n, rtol=1e-6)
    # azimint_naive's loop: NumPy's values
    data, radius = rng.random(5000), rng.random(5000)
    res = {}
    for xp in (np, hassium):
        d, r = xp.asarray(data), xp.asarray(radius)
        out = xp.zeros(20)
        for i in range(20):
            m = xp.logical_and(i / 20 <= r, r < (i + 1) / 20)
            out[i] = d[m].mean()
        res[xp.__name__] = np.asarray(out)
    np.testing.assert_allclose(res["hassium"], res["numpy"], rtol=1e-12)
    assert np.isnan(np.asarray(hassium.asarray(data)[hassium.asarray(radius) > 2].mean()))


def test_a_selection_compresses_its_source_while_unchanged():
    xn, xh = pair(np.arange(20.0))
    mh = xh > 12
    s1 = xh[mh]
    assert s1._x is not None
    check(s1, xn[xn > 12])  # compressed from x itself
    s2 = xh[mh]
    xh[0] = 100.0  # x written after the selection: its copy answers
    check(s2, xn[xn > 12])
    assert float(np.asarray(xh)[0]) == 100.0


def test_a_selection_as_a_ufunc_out_is_updated_like_numpy():
    """mandelbrot2's shrinking arrays: Z = Z[I], then np.multiply(Z, Z, Z) writes it."""
    zn = np.linspace(0, 1, 12) + 0.5j
    zh = hassium.asarray(zn.copy())
    for _ in range(3):
        In, Ih = abs(zn) < 1.2, abs(zh) < 1.2
        zn, zh = zn[In], zh[Ih]
        if not len(zh):
            break
        np.multiply(zn, zn, zn)
        hassium.multiply(zh, zh, zh)
        np.add(zn, 0.1, out=zn)
        hassium.add(zh, 0.1, out=zh)
    np.testing.assert_allclose(np.asarray(zh), zn, rtol=1e-13)  # complex z*z: FMA rounding


def test_a_selection_as_an_index_is_its_compressed_array():
    """difftest's finding: v3 = v0[mask]; v3[v3 < 0] (a lazy comparison of a selection as a key:
    not its __index__)."""
    vn, vh = pair(np.arange(-6, 6))
    mn, mh = vn % 2 == 0, vh % 2 == 0
    sn, sh = vn[mn], vh[mh]
    check(sh[sh < 0], sn[sn < 0])
    check(vh[:6][(vh > -100)[mh]], vn[:6][(vn > -100)[mn]])  # a selection as a mask
    sh2 = vh[mh]
    sh2[sh2 > 0] = 0
    sn2 = vn[mn]
    sn2[sn2 > 0] = 0
    check(sh2, sn2)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "int64", "float32",
                                   "float64", "complex64", "complex128"])
def test_the_compress_of_a_selection_is_numpy_s_for_every_layout(dtype):
    # What a selection materializes through (_take_mask): the values computed now, NumPy's
    # compress of them, a hassium array over its result.
    n = (np.arange(48).reshape(6, 8) * 7 % 11).astype(dtype)
    m = (np.arange(48).reshape(6, 8) * 5 % 3) == 1
    h = hassium.array(n)
    cases = [(lambda x: x, m), (lambda x: x[::2, ::-2], m[:3, :4]), (lambda x: x.T, m.T),
             (lambda x: x[1], m[0]), (lambda x: x[2, 3, ...], np.array(True)),
             (lambda x: (x + x)[1:, 2:], m[1:, 2:])]
    for view, mask in cases:
        want = view(n)[mask]
        for mk in (mask, hassium.array(mask)):
            got = hassium._hassium._take_mask(view(h), mk)
            assert type(got) is hassium.ndarray
            assert got.dtype == want.dtype and got.shape == want.shape
            check(got, want)
    # Another mask (not a boolean one of the array's shape) takes the general path.
    check(hassium._hassium._take_mask(h, np.array([True, False] * 3)), n[[True, False] * 3])


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "int64", "complex128"])
def test_the_compress_of_pending_views_is_numpy_s(dtype):
    """_take_mask compresses on the host after making the mask and the array current: every
    count of selected elements (none, all, the last one or not), strided and reversed views of
    arrays and masks that are still being computed, 1-D to 3-D."""
    rng = np.random.default_rng(7)
    for shape in [(1,), (97,), (9, 13), (4, 5, 6)]:
        for density in (0.0, 0.3, 0.7, 1.0):
            n = (rng.random(shape) * 100).astype(dtype)
            r = rng.random(shape)
            h, rh = hassium.asarray(n.copy()), hassium.asarray(r)
            hv = (h * 1)[..., ::-1]  # pending, reversed
            nv = (n * 1)[..., ::-1]
            mh = (rh < density)[..., ::-1]  # pending mask
            mn = (r < density)[..., ::-1]
            for x_h, x_n, m_h, m_n in [(hv, nv, mh, mn), (h.T, n.T, mh.T, mn.T),
                                       (hv[::2], nv[::2], mh[::2], mn[::2])]:
                got = hassium._hassium._take_mask(x_h, m_h)
                want = x_n[m_n]
                assert got.dtype == want.dtype and got.shape == want.shape
                check(got, want)
                check(got * 1, want * 1)  # usable in later recording
                got[...] = 0  # its own memory: writing it leaves the source alone
                check(x_h, x_n)


def test_compresses_take_memory_from_the_pool():
    """mandelbrot2's Z = Z[I] every iteration: a compressed array's memory comes from the
    backend's memory pool (no fresh pages), so once the previous one is freed the next one
    reuses its block; nothing else runs here (x and the mask are ready: no kernel)."""
    xh = hassium.asarray(np.linspace(0, 3, 1 << 16) + 0.1j)
    mh = hassium.asarray(np.abs(np.asarray(xh)) < 2.9)
    hassium.flush()
    before = hassium.profile()["pool_reuses"]
    for _ in range(10):
        y = hassium._hassium._take_mask(xh, mh)  # what materializing xh[mh] calls
        assert len(y) == int(np.count_nonzero(np.asarray(mh)))
        del y
        hassium.flush()  # the FREE runs: the block goes back to the pool
    assert hassium.profile()["pool_reuses"] - before >= 9


def test_shrinking_compresses_match_numpy(no_threshold_flush):
    zn = np.linspace(0, 3, 1 << 18) + 0.1j
    zh = hassium.asarray(zn.copy())
    for _ in range(6):
        zn = zn[np.abs(zn) < 2.9]
        zh = zh[abs(zh) < 2.9]
        zn = zn * 1.01
        zh = zh * 1.01
    check(zh, zn)
